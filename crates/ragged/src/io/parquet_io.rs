//! Parquet on every core: row groups and their column chunks decoded in parallel, and
//! written with each row group's column chunks encoded in parallel (arrow-rs's
//! `ArrowColumnWriter`s), several row groups at a time, appended in order.
//!
//! Reading uses positional reads (`pread`) of the open file, so the threads never
//! share a file offset; each (row group, column) pair is one task decoding its whole
//! column chunk into one array.

use std::fs::File;
use std::io::Write;
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_schema::{Schema, SchemaRef};
use bytes::Bytes;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReader, RowGroups,
};
use parquet::arrow::arrow_writer::{compute_leaves, ArrowColumnChunk};
use parquet::arrow::{parquet_to_arrow_field_levels, ArrowWriter, ProjectionMask};
use parquet::basic::{Compression, Type as PhysicalType};
use parquet::column::page::{Page, PageIterator, PageMetadata, PageReader};
use parquet::file::metadata::{ParquetMetaData, RowGroupMetaData};
use parquet::file::properties::WriterProperties;
use parquet::file::reader::{ChunkReader, Length};
use parquet::file::serialized_reader::SerializedPageReader;
use ragged_core::trace::{measure, Phase};
use ragged_core::Result;
use rayon::prelude::*;

use super::errors::{read_error, write_error};
use super::{Format, WriteOptions};

/// An open file read by positional reads: clones share no offset, so any number of
/// threads read it at once.
#[derive(Clone)]
struct PositionalFile(Arc<File>);

impl Length for PositionalFile {
    fn len(&self) -> u64 {
        self.0.metadata().map_or(0, |m| m.len())
    }
}

impl ChunkReader for PositionalFile {
    type T = std::io::BufReader<PositionalReader>;

    fn get_read(&self, start: u64) -> parquet::errors::Result<Self::T> {
        Ok(std::io::BufReader::new(PositionalReader {
            file: self.0.clone(),
            at: start,
        }))
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<Bytes> {
        let mut buffer = vec![0u8; length];
        self.0.read_exact_at(&mut buffer, start)?;
        Ok(Bytes::from(buffer))
    }
}

/// The file as one column chunk's pages are read from it: each page header is checked
/// (see [`page_sizes`]) before parquet-rs reads it, which allocates the declared
/// uncompressed size and, for Snappy and LZ4, zeroes it before decompressing (1.2 GB
/// from a 716-byte file; up to 2 GiB a page): a size the compressed bytes cannot
/// decompress to with the chunk's codec is an error.
#[derive(Clone)]
struct ChunkFile {
    file: PositionalFile,
    /// Uncompressed bytes one compressed byte can decompress to at most; `None`
    /// unchecked (uncompressed, Brotli, or a codec this build cannot read).
    expansion: Option<u64>,
}

impl ChunkFile {
    fn new(file: PositionalFile, codec: Compression) -> Self {
        // Snappy: a 3-byte copy of 64 bytes (21x); deflate 1032x; LZ4 255x; zstd: a
        // 4-byte RLE block of 128 KiB.
        let expansion = match codec {
            Compression::SNAPPY => Some(32),
            Compression::GZIP(_) => Some(1032),
            Compression::LZ4 | Compression::LZ4_RAW => Some(256),
            Compression::ZSTD(_) => Some(32 << 10),
            _ => None,
        };
        Self { file, expansion }
    }
}

impl Length for ChunkFile {
    fn len(&self) -> u64 {
        self.file.len()
    }
}

impl ChunkReader for ChunkFile {
    type T = <PositionalFile as ChunkReader>::T;

    fn get_read(&self, start: u64) -> parquet::errors::Result<Self::T> {
        if let Some(expansion) = self.expansion {
            let mut head = std::io::BufReader::with_capacity(
                64,
                PositionalReader {
                    file: self.file.0.clone(),
                    at: start,
                },
            );
            if let Some((uncompressed, compressed)) = page_sizes(&mut head) {
                // A little more for the codecs' frame headers on tiny pages.
                if uncompressed > compressed.saturating_mul(expansion).saturating_add(1024) {
                    return Err(parquet::errors::ParquetError::General(format!(
                        "a page at byte {start} declares {uncompressed} bytes, more than its \
                         {compressed} compressed bytes can hold"
                    )));
                }
            }
        }
        self.file.get_read(start)
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<Bytes> {
        self.file.get_bytes(start, length)
    }
}

/// The uncompressed and compressed sizes at the start of a page header (Thrift compact
/// protocol): fields 1 (the page type), 2 and 3, each an `i32`, in that order as
/// writers write them, read as parquet-rs reads them (varints of any length, the bits
/// past 64 wrapped, then truncated to `i32`). `None` for anything else, which
/// parquet-rs then reads itself.
fn page_sizes(head: &mut impl std::io::Read) -> Option<(u64, u64)> {
    let mut byte = || {
        let mut b = [0u8];
        head.read_exact(&mut b).ok().map(|()| b[0])
    };
    let mut fields = [0i32; 3];
    for field in &mut fields {
        // The field header: id one more than the last one, type i32 (5).
        if byte()? != 0x15 {
            return None;
        }
        // A ULEB128 varint, zigzag-encoded.
        let (mut value, mut shift) = (0u64, 0u32);
        loop {
            let b = byte()?;
            value |= u64::from(b & 0x7f).wrapping_shl(shift);
            if b & 0x80 == 0 {
                break;
            }
            shift = shift.wrapping_add(7);
        }
        *field = ((value >> 1) as i64 ^ -((value & 1) as i64)) as i32;
    }
    Some((
        u64::try_from(fields[1]).ok()?,
        u64::try_from(fields[2]).ok()?,
    ))
}

/// A reader at a position of a shared file. parquet-rs reads page headers through it
/// (everything else through [`ChunkReader::get_bytes`]); a read at the end of the file
/// is an error, not `Ok(0)`: the Thrift decoder skips unknown fields without checking
/// for the end (a list of 2^31 doubles at the end of a corrupt header was 2^31 empty
/// reads), and a page header never ends past the end of the file.
struct PositionalReader {
    file: Arc<File>,
    at: u64,
}

impl std::io::Read for PositionalReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.file.read_at(buf, self.at)?;
        if n == 0 && !buf.is_empty() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "a page header reaches past the end of the file",
            ));
        }
        self.at += n as u64;
        Ok(n)
    }
}

/// The file's Arrow schema and, for the columns at `projected` (ascending indices, or
/// all), one record batch per row group, decoded on every core.
pub(crate) fn read(
    file: File,
    path: &Path,
    projected: impl FnOnce(&Schema) -> Result<Option<Vec<usize>>>,
) -> Result<(SchemaRef, Option<Vec<usize>>, Vec<RecordBatch>)> {
    let format = Format::Parquet;
    let file = PositionalFile(Arc::new(file));
    let metadata = ArrowReaderMetadata::load(&file, ArrowReaderOptions::default())
        .map_err(|e| read_error(path, format, &e))?;
    let full_schema = metadata.schema().clone();
    let projection = projected(&full_schema)?;
    let columns: Vec<usize> = projection
        .clone()
        .unwrap_or_else(|| (0..full_schema.fields().len()).collect());
    let row_groups = metadata.metadata().num_row_groups();
    let tasks: Vec<(usize, usize)> = (0..row_groups)
        .flat_map(|g| columns.iter().map(move |&c| (g, c)))
        .collect();
    let arrays: Vec<ArrayRef> = tasks
        .par_iter()
        .map(|&(group, column)| read_chunk(&file, &metadata, group, column, path))
        .collect::<Result<_>>()?;
    let schema = Arc::new(
        full_schema
            .project(&columns)
            .map_err(|e| read_error(path, format, &e))?,
    );
    let batches = arrays
        .chunks(columns.len().max(1))
        .enumerate()
        .map(|(group, arrays)| {
            let rows = metadata.metadata().row_group(group).num_rows();
            RecordBatch::try_new_with_options(
                schema.clone(),
                arrays.to_vec(),
                &RecordBatchOptions::new().with_row_count(usize::try_from(rows).ok()),
            )
            .map_err(|e| read_error(path, format, &e))
        })
        .collect::<Result<Vec<_>>>()?;
    // With no column selected the chunks above are empty: no batches, no rows.
    let batches = if columns.is_empty() {
        Vec::new()
    } else {
        batches
    };
    Ok((full_schema, projection, batches))
}

/// One row group of a file, its column chunks read by [`SerializedPageReader`]s
/// behind [`CheckedPages`].
struct CheckedRowGroups {
    file: PositionalFile,
    metadata: Arc<ParquetMetaData>,
    group: usize,
}

impl RowGroups for CheckedRowGroups {
    fn num_rows(&self) -> usize {
        let rows = self.metadata.row_group(self.group).num_rows();
        usize::try_from(rows).unwrap_or(0)
    }

    fn column_chunks(&self, i: usize) -> parquet::errors::Result<Box<dyn PageIterator>> {
        let chunk = self.metadata.row_group(self.group).column(i);
        let pages = SerializedPageReader::new(
            Arc::new(ChunkFile::new(self.file.clone(), chunk.compression())),
            chunk,
            self.num_rows(),
            None,
        )?;
        let descr = chunk.column_descr();
        let bits = match descr.physical_type() {
            PhysicalType::BOOLEAN => 1,
            PhysicalType::INT32 | PhysicalType::FLOAT | PhysicalType::BYTE_ARRAY => 32,
            PhysicalType::INT64 | PhysicalType::DOUBLE => 64,
            PhysicalType::INT96 => 96,
            PhysicalType::FIXED_LEN_BYTE_ARRAY => {
                8 * u64::try_from(descr.type_length()).unwrap_or(0)
            }
        };
        let pages: Box<dyn PageReader> = Box::new(CheckedPages { pages, bits });
        Ok(Box::new(OnePageReader(Some(pages))))
    }

    fn row_groups(&self) -> Box<dyn Iterator<Item = &RowGroupMetaData> + '_> {
        Box::new(std::iter::once(self.metadata.row_group(self.group)))
    }

    fn metadata(&self) -> &ParquetMetaData {
        &self.metadata
    }
}

/// The page iterator of one column chunk.
struct OnePageReader(Option<Box<dyn PageReader>>);

impl Iterator for OnePageReader {
    type Item = parquet::errors::Result<Box<dyn PageReader>>;

    fn next(&mut self) -> Option<Self::Item> {
        self.0.take().map(Ok)
    }
}

impl PageIterator for OnePageReader {}

/// A column chunk's pages, a dictionary page declaring more values than its bytes hold
/// rejected: parquet-rs sizes the dictionary by the declared count before decoding it
/// (zeroed, 8 bytes per `int64` value: 16 GiB for a count of 2^31 in an 806-byte file).
/// PLAIN values take at least `bits` each (a 4-byte length for byte arrays).
struct CheckedPages {
    pages: SerializedPageReader<ChunkFile>,
    bits: u64,
}

impl PageReader for CheckedPages {
    fn get_next_page(&mut self) -> parquet::errors::Result<Option<Page>> {
        let page = self.pages.get_next_page()?;
        if let Some(Page::DictionaryPage {
            buf, num_values, ..
        }) = &page
        {
            let needed = u64::from(*num_values).saturating_mul(self.bits);
            if needed > (buf.len() as u64).saturating_mul(8) {
                return Err(parquet::errors::ParquetError::General(format!(
                    "a dictionary page declares {num_values} values in {} bytes",
                    buf.len()
                )));
            }
        }
        Ok(page)
    }

    fn peek_next_page(&mut self) -> parquet::errors::Result<Option<PageMetadata>> {
        self.pages.peek_next_page()
    }

    fn skip_next_page(&mut self) -> parquet::errors::Result<()> {
        self.pages.skip_next_page()
    }

    fn at_record_boundary(&mut self) -> parquet::errors::Result<bool> {
        self.pages.at_record_boundary()
    }
}

impl Iterator for CheckedPages {
    type Item = parquet::errors::Result<Page>;

    fn next(&mut self) -> Option<Self::Item> {
        self.get_next_page().transpose()
    }
}

/// The most rows decoded per batch (larger row groups are read in several and
/// concatenated): more than the row groups ragged, pyarrow, Polars or DuckDB write.
const MAX_BATCH_ROWS: usize = 1 << 24;

/// Decode column `column` of row group `group` as one array.
fn read_chunk(
    file: &PositionalFile,
    metadata: &ArrowReaderMetadata,
    group: usize,
    column: usize,
    path: &Path,
) -> Result<ArrayRef> {
    let format = Format::Parquet;
    let err = |e: &(dyn std::error::Error + 'static)| read_error(path, format, e);
    let rows = metadata.metadata().row_group(group).num_rows();
    // What `ParquetRecordBatchReaderBuilder` builds for one row group and one column,
    // with the pages coming through `CheckedPages`.
    let schema = metadata.metadata().file_metadata().schema_descr();
    let mask = ProjectionMask::roots(schema, [column]);
    let levels = parquet_to_arrow_field_levels(schema, mask, Some(metadata.schema().fields()))
        .map_err(|e| err(&e))?;
    let row_groups = CheckedRowGroups {
        file: file.clone(),
        metadata: metadata.metadata().clone(),
        group,
    };
    // One batch per row group, up to MAX_BATCH_ROWS rows: parquet-rs reserves the batch
    // size before reading any page, so a row count the file merely declares must not
    // size it (2^62 rows was a capacity-overflow panic, 2^40 a failed allocation).
    let batch_size = usize::try_from(rows)
        .unwrap_or(usize::MAX)
        .clamp(1, MAX_BATCH_ROWS);
    let reader =
        ParquetRecordBatchReader::try_new_with_row_groups(&levels, &row_groups, batch_size, None)
            .map_err(|e| err(&e))?;
    let mut parts = Vec::new();
    for batch in reader {
        let batch = batch.map_err(|e| err(&e))?;
        parts.push(batch.column(0).clone());
    }
    match parts.as_slice() {
        [single] => Ok(single.clone()),
        _ => {
            // A row group of no rows, or one the reader split: concatenate (or make the
            // empty array of the column's type).
            let data_type = metadata.schema().field(column).data_type().clone();
            if parts.is_empty() {
                return Ok(arrow_array::new_empty_array(&data_type));
            }
            let refs: Vec<&dyn arrow_array::Array> = parts.iter().map(|a| a.as_ref()).collect();
            arrow_select::concat::concat(&refs).map_err(|e| err(&e))
        }
    }
}

/// Write `batch` as Parquet into `writer`: row groups of `options.row_group_size`
/// rows, each one's column chunks encoded in parallel and as many row groups at once
/// as there are threads, appended in order.
pub(crate) fn write<W: Write + Send>(
    writer: W,
    batch: &RecordBatch,
    path: &Path,
    options: &WriteOptions,
) -> Result<W> {
    let format = Format::Parquet;
    let err = |e: &(dyn std::error::Error + 'static)| write_error(path, format, e);
    let schema = batch.schema();
    let row_group_size = options.row_group_size.max(1);
    let properties = WriterProperties::builder()
        .set_compression(options.compression)
        .set_max_row_group_row_count(Some(row_group_size))
        .build();
    let (mut file_writer, factory) = ArrowWriter::try_new(writer, schema.clone(), Some(properties))
        .and_then(ArrowWriter::into_serialized_writer)
        .map_err(|e| err(&e))?;
    let groups: Vec<Range<usize>> = (0..batch.num_rows())
        .step_by(row_group_size)
        .map(|start| start..(start + row_group_size).min(batch.num_rows()))
        .collect();
    let window = rayon::current_num_threads().max(1);
    for (w, window_groups) in groups.chunks(window).enumerate() {
        let encoded: Vec<Vec<ArrowColumnChunk>> = measure(Phase::Encode, 0, || {
            window_groups
                .par_iter()
                .enumerate()
                .map(|(i, rows)| {
                    let index = w * window + i;
                    let slice = batch.slice(rows.start, rows.len());
                    let writers = factory.create_column_writers(index)?;
                    let mut leaves = Vec::with_capacity(writers.len());
                    for (field, array) in schema.fields().iter().zip(slice.columns()) {
                        leaves.extend(compute_leaves(field, array)?);
                    }
                    writers
                        .into_par_iter()
                        .zip(leaves)
                        .map(|(mut writer, leaf)| {
                            writer.write(&leaf)?;
                            writer.close()
                        })
                        .collect::<parquet::errors::Result<Vec<_>>>()
                })
                .collect::<parquet::errors::Result<_>>()
        })
        .map_err(|e| err(&e))?;
        measure(Phase::Write, 0, || {
            for chunks in encoded {
                let mut group = file_writer.next_row_group()?;
                for chunk in chunks {
                    chunk.append_to_row_group(&mut group)?;
                }
                group.close()?;
            }
            Ok::<_, parquet::errors::ParquetError>(())
        })
        .map_err(|e| err(&e))?;
    }
    file_writer.into_inner().map_err(|e| err(&e))
}
