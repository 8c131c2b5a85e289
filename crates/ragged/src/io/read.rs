//! Reading Parquet, Arrow IPC (file and stream) and CSV into a [`Table`].

use std::fs::File;
use std::io::{self, BufReader, Read, Seek};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_ipc::reader::StreamReader;
use arrow_schema::{ArrowError, Schema};
use ragged_core::trace::{measure, Phase};
use ragged_core::{Error, Result};

use super::errors::{is_a_directory, panic_error, read_error};
use super::ipc_check;
use super::temp::TempFile;
use super::{Format, Table};

/// Read the file at `path` (not `-`).
pub(crate) fn read_path(
    path: &Path,
    format: Option<Format>,
    columns: Option<&[&str]>,
) -> Result<Table> {
    let metadata = std::fs::metadata(path).map_err(|e| Error::io("read", path, e))?;
    if metadata.is_dir() {
        return Err(is_a_directory("read", path));
    }
    let mut file = File::open(path).map_err(|e| Error::io("read", path, e))?;
    if !metadata.is_file() {
        // A pipe or device (`<(command)`, /dev/stdin): no size, no seeking. Read it as
        // standard input is read.
        let format = format.or_else(|| Format::from_extension(path));
        return read_reader_detect(file, path, format, columns);
    }
    let format = match format {
        Some(format) => format,
        None => {
            let mut head = Vec::with_capacity(8);
            (&mut file)
                .take(8)
                .read_to_end(&mut head)
                .and_then(|_| file.rewind())
                .map_err(|e| Error::io("read", path, e))?;
            Format::detect(path, &head)?
        }
    };
    read_file(file, path, format, columns)
}

/// Read from any reader; errors name `label`. Without a format, the magic bytes
/// decide between Parquet, Arrow IPC file and Arrow IPC stream (the default).
pub(crate) fn read_reader_detect<R: Read>(
    mut reader: R,
    label: &Path,
    format: Option<Format>,
    columns: Option<&[&str]>,
) -> Result<Table> {
    if let Some(format) = format {
        return read_reader(reader, label, format, columns);
    }
    let mut head = Vec::with_capacity(8);
    (&mut reader)
        .take(8)
        .read_to_end(&mut head)
        .map_err(|e| Error::io("read", label, e))?;
    let format = Format::from_magic(&head).unwrap_or(Format::ArrowStream);
    read_reader(io::Cursor::new(head).chain(reader), label, format, columns)
}

/// Read `format` from any reader; errors name `label`. The input is first copied to
/// a temporary file: Parquet and IPC files need random access, CSV two passes, and
/// streams are checked (see [`super::ipc_check`]) before arrow-rs decodes them.
pub(crate) fn read_reader<R: Read>(
    reader: R,
    label: &Path,
    format: Format,
    columns: Option<&[&str]>,
) -> Result<Table> {
    let temp_dir = std::env::temp_dir();
    let (mut temp, mut file) = TempFile::create_in(&temp_dir, "stdin")
        .map_err(|e| Error::io("create", temp_dir.join(".ragged-tmp-stdin"), e))?;
    let mut reader = reader;
    io::copy(&mut reader, &mut file).map_err(|e| Error::io("read", label, e))?;
    file.rewind()
        .map_err(|e| Error::io("read", temp.path(), e))?;
    let table = read_file(file, label, format, columns);
    temp.remove();
    table
}

/// Read an open file as `format`.
fn read_file(file: File, path: &Path, format: Format, columns: Option<&[&str]>) -> Result<Table> {
    match format {
        Format::ArrowFile => ipc_check::check_file(&file, path)?,
        Format::ArrowStream => ipc_check::check_stream(&file, path)?,
        Format::Parquet | Format::Csv => {}
    }
    let size = file.metadata().map_or(0, |m| m.len());
    guarded(path, format, || match format {
        Format::Parquet => measure(Phase::Decode, size, || read_parquet(file, path, columns)),
        // Reads, then decodes, each phase measured inside.
        Format::ArrowFile => read_ipc_file(file, path, columns),
        Format::ArrowStream => measure(Phase::Decode, size, || {
            read_stream(BufReader::new(file), path, columns)
        }),
        Format::Csv => read_csv(file, path, columns),
    })
}

/// Run a decoder, turning a panic on malformed input into [`Error::Format`].
fn guarded(path: &Path, format: Format, decode: impl FnOnce() -> Result<Table>) -> Result<Table> {
    catch_unwind(AssertUnwindSafe(decode))
        .unwrap_or_else(|payload| Err(panic_error(path, format, payload.as_ref())))
}

/// The indices in `schema` of the requested columns, in request order, or all.
///
/// # Errors
/// [`Error::ColumnNotFound`] for the first name that is not in the schema.
fn resolve(schema: &Schema, columns: Option<&[&str]>) -> Result<Vec<usize>> {
    let Some(names) = columns else {
        return Ok((0..schema.fields().len()).collect());
    };
    names
        .iter()
        .map(|&name| {
            schema
                .fields()
                .iter()
                .position(|f| f.name() == name)
                .ok_or_else(|| Error::ColumnNotFound {
                    name: name.to_owned(),
                    available: schema.fields().iter().map(|f| f.name().clone()).collect(),
                })
        })
        .collect()
}

/// The projection handed to a reader: the distinct indices, ascending (the order
/// readers produce anyway); `None` when every column is read.
fn projection(schema: &Schema, indices: &[usize]) -> Option<Vec<usize>> {
    let mut sorted = indices.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    // `sorted` holds distinct indices below the field count: all of them iff as many.
    (sorted.len() != schema.fields().len()).then_some(sorted)
}

/// Build the table from batches read with `projected` (ascending indices of
/// `full_schema`, or every column), selecting the requested `indices` in order.
fn finish(
    full_schema: &Schema,
    batches: &[RecordBatch],
    indices: &[usize],
    projected: Option<&[usize]>,
) -> Result<Table> {
    // The batches' own schema: readers disagree on whether `schema()` is projected.
    let batch_schema = match (batches.first(), projected) {
        (Some(batch), _) => batch.schema(),
        (None, Some(projected)) => Arc::new(full_schema.project(projected).map_err(|e| {
            Error::invalid_argument("read_table", format!("cannot project the schema: {e}"))
        })?),
        (None, None) => Arc::new(full_schema.clone()),
    };
    // Map each requested index of the full schema to its position in the batches.
    let positions: Vec<usize> = match projected {
        None => indices.to_vec(),
        Some(projected) => indices
            .iter()
            .map(|i| projected.binary_search(i).unwrap_or(*i))
            .collect(),
    };
    // Readers should keep field names; check so that a mismatch is an error, not a
    // silently wrong column.
    for (&i, &p) in indices.iter().zip(&positions) {
        let expected = full_schema.fields().get(i).map(|f| f.name());
        let actual = batch_schema.fields().get(p).map(|f| f.name());
        if expected != actual {
            return Err(Error::invalid_argument(
                "read_table",
                format!("the reader returned column {actual:?} where {expected:?} was expected"),
            ));
        }
    }
    Table::from_batches_selected(&batch_schema, batches, &positions)
}

/// Collect a reader's batches, mapping decoder errors.
fn collect<I>(batches: I, path: &Path, format: Format) -> Result<Vec<RecordBatch>>
where
    I: IntoIterator<Item = std::result::Result<RecordBatch, ArrowError>>,
{
    batches
        .into_iter()
        .map(|batch| batch.map_err(|e| read_error(path, format, &e)))
        .collect()
}

fn read_parquet(file: File, path: &Path, columns: Option<&[&str]>) -> Result<Table> {
    let mut indices = Vec::new();
    let (full_schema, projected, batches) = super::parquet_io::read(file, path, |schema| {
        indices = resolve(schema, columns)?;
        Ok(projection(schema, &indices))
    })?;
    finish(&full_schema, &batches, &indices, projected.as_deref())
}

/// Bytes per positional read when a whole file is read in parallel.
const READ_PIECE: usize = 16 << 20;

/// The whole file in memory, read by positional reads on every core into one
/// allocation (page-aligned for large files, so the IPC buffers in it are used in
/// place). A file that shrinks while it is read is an [`Error::Format`] (truncated),
/// never a crash.
fn read_whole(file: &File, path: &Path, format: Format) -> Result<arrow_buffer::Buffer> {
    use rayon::prelude::*;
    use std::os::unix::fs::FileExt;
    let len = file
        .metadata()
        .map_err(|e| Error::io("read", path, e))?
        .len();
    let len = usize::try_from(len).map_err(|_| {
        Error::invalid_argument("read_table", format!("'{}' is too large", path.display()))
    })?;
    let mut bytes = vec![0u8; len];
    measure(Phase::Read, len as u64, || {
        bytes
            .par_chunks_mut(READ_PIECE)
            .enumerate()
            .try_for_each(|(i, piece)| file.read_exact_at(piece, (i * READ_PIECE) as u64))
    })
    .map_err(|e| match e.kind() {
        io::ErrorKind::UnexpectedEof => Error::Format {
            path: path.to_path_buf(),
            format: format.label(),
            message: "the file was truncated while it was read".into(),
        },
        _ => Error::io("read", path, e),
    })?;
    Ok(arrow_buffer::Buffer::from_vec(bytes))
}

/// An Arrow IPC file: read whole ([`read_whole`]), then its record batches decoded in
/// parallel by arrow-ipc's `FileDecoder` over that buffer without copying (every array
/// validated as strictly as arrow-ipc's reader does: offsets and UTF-8), only the
/// selected columns.
fn read_ipc_file(file: File, path: &Path, columns: Option<&[&str]>) -> Result<Table> {
    let buffer = read_whole(&file, path, Format::ArrowFile)?;
    measure(Phase::Decode, buffer.len() as u64, || {
        decode_ipc_file(&buffer, path, columns)
    })
}

/// Decode the IPC file held whole in `buffer` (see [`read_ipc_file`]).
fn decode_ipc_file(
    buffer: &arrow_buffer::Buffer,
    path: &Path,
    columns: Option<&[&str]>,
) -> Result<Table> {
    use arrow_ipc::reader::{read_footer_length, FileDecoder};
    use rayon::prelude::*;
    let format = Format::ArrowFile;
    let corrupt = |message: String| Error::Format {
        path: path.to_path_buf(),
        format: format.label(),
        message,
    };
    let len = buffer.len();
    let tail: [u8; 10] = buffer
        .get(len.saturating_sub(10)..)
        .and_then(|t| t.try_into().ok())
        .ok_or_else(|| corrupt("the file is too short for an Arrow IPC footer".into()))?;
    let footer_len = read_footer_length(tail).map_err(|e| read_error(path, format, &e))?;
    let footer_start = (len - 10)
        .checked_sub(footer_len)
        .ok_or_else(|| corrupt("the footer is longer than the file".into()))?;
    let footer = arrow_ipc::root_as_footer(&buffer[footer_start..len - 10])
        .map_err(|e| corrupt(format!("unable to read the footer: {e}")))?;
    let fb_schema = footer
        .schema()
        .ok_or_else(|| corrupt("the footer has no schema".into()))?;
    let full_schema = Arc::new(arrow_ipc::convert::fb_to_schema(fb_schema));
    let indices = resolve(&full_schema, columns)?;
    let projected = projection(&full_schema, &indices);
    let mut decoder = FileDecoder::new(full_schema.clone(), footer.version());
    if let Some(projected) = &projected {
        decoder = decoder.with_projection(projected.clone());
    }
    // A block's message and body, checked to lie inside the file.
    let block_data = |block: &arrow_ipc::Block| -> Result<arrow_buffer::Buffer> {
        let start = usize::try_from(block.offset()).ok();
        let size = usize::try_from(block.metaDataLength())
            .ok()
            .zip(usize::try_from(block.bodyLength()).ok())
            .and_then(|(m, b)| m.checked_add(b));
        match (start, size) {
            (Some(start), Some(size)) if start.checked_add(size).is_some_and(|end| end <= len) => {
                Ok(buffer.slice_with_length(start, size))
            }
            _ => Err(corrupt(format!(
                "a block at offset {} of {} + {} bytes reaches past the end of the file",
                block.offset(),
                block.metaDataLength(),
                block.bodyLength()
            ))),
        }
    };
    // A block's data, its compressed buffers' declared lengths checked (see
    // `ipc_check::check_block`).
    let checked_block = |block: &arrow_ipc::Block, index: usize| -> Result<arrow_buffer::Buffer> {
        let data = block_data(block)?;
        let metadata_len = usize::try_from(block.metaDataLength()).unwrap_or(usize::MAX);
        ipc_check::check_block(&data, metadata_len, path, index)?;
        Ok(data)
    };
    let dictionaries = footer.dictionaries().into_iter().flatten();
    let batch_count = footer.recordBatches().map_or(0, |b| b.len());
    for (index, block) in dictionaries.enumerate() {
        decoder
            .read_dictionary(block, &checked_block(block, batch_count + index)?)
            .map_err(|e| read_error(path, format, &e))?;
    }
    let blocks: Vec<arrow_ipc::Block> = footer
        .recordBatches()
        .map(|b| b.iter().copied().collect())
        .unwrap_or_default();
    let batches: Vec<RecordBatch> = blocks
        .par_iter()
        .enumerate()
        .map(|(index, block)| {
            decoder
                .read_record_batch(block, &checked_block(block, index)?)
                .map_err(|e| read_error(path, format, &e))?
                .ok_or_else(|| corrupt("a record batch block holds no record batch".into()))
        })
        .collect::<Result<_>>()?;
    finish(&full_schema, &batches, &indices, projected.as_deref())
}

fn read_stream<R: Read>(reader: R, path: &Path, columns: Option<&[&str]>) -> Result<Table> {
    let format = Format::ArrowStream;
    // The schema is the stream's first message, so the projection cannot be known
    // before the reader exists: decode every column, convert only the selected ones.
    let reader = StreamReader::try_new(reader, None).map_err(|e| read_error(path, format, &e))?;
    let schema = reader.schema();
    let indices = resolve(&schema, columns)?;
    let batches = collect(reader, path, format)?;
    finish(&schema, &batches, &indices, None)
}

fn read_csv(file: File, path: &Path, columns: Option<&[&str]>) -> Result<Table> {
    let bytes = read_whole(&file, path, Format::Csv)?;
    // The header first, to resolve the names before any record is parsed.
    let (full_schema, _, _) = super::csv::parse(path, super::csv::header_bytes(&bytes), None)?;
    let indices = resolve(&full_schema, columns)?;
    let projected = projection(&full_schema, &indices);
    let (full_schema, _, batches) = measure(Phase::Decode, bytes.len() as u64, || {
        super::csv::parse(path, &bytes, projected.as_deref())
    })?;
    finish(&full_schema, &batches, &indices, projected.as_deref())
}
