//! Files split into records ([`crate::lines`]) as arrow-rs arrays.

use std::path::Path;
use std::sync::Arc;

use arrow_array::{ArrayRef, StructArray};
use arrow_buffer::ScalarBuffer;
use arrow_schema::Field;
use ragged_core::ops::{LineOptions, LinesColumn};
use ragged_core::{Column, Error, Result};

use super::{check, Device, Interrupt};
use crate::lines::{LineReader, ReaderOptions};
use crate::with_backend;

/// The records of the file at `path` as one strings column (`Utf8`, or `LargeUtf8`
/// beyond 2 GiB of text): split at `options.delimiter`, only those starting in
/// `options.byte_range` when set, read in windows of `chunk_size` bytes (a record longer
/// than a window grows it). UTF-8 is checked; binary output is not offered here.
///
/// # Errors
/// [`Error::Io`] naming the file; [`Error::Format`] naming the record and byte of
/// invalid UTF-8; [`Error::InvalidArgument`] for bad options; [`Error::Interrupted`]
/// (or `interrupt`'s own error) when `interrupt` stops it between windows.
pub fn read_lines(
    path: &Path,
    options: &LineOptions,
    chunk_size: usize,
    device: &Device,
    interrupt: Interrupt<'_>,
) -> Result<ArrayRef> {
    let (plan, reader) = strings_reader(options, chunk_size, "read_lines")?;
    let lines = with_backend!(device.backend(), |b| collect(
        b,
        LineReader::open(b, path, plan, reader)?,
        interrupt
    ))?;
    strings_of(lines, "read_lines")
}

/// The reader's plan and options for strings records (`op` names the call in the
/// error for binary records, which this API does not offer).
fn strings_reader(
    options: &LineOptions,
    chunk_size: usize,
    op: &'static str,
) -> Result<(ragged_core::ops::LinePlan, ReaderOptions)> {
    if options.binary {
        return Err(Error::invalid_argument(
            op,
            "binary records are not offered by the Arrow-native API",
        ));
    }
    let reader = ReaderOptions {
        chunk_size,
        ..ReaderOptions::default()
    };
    Ok((options.plan()?, reader))
}

/// Every window's records, on the host, as one column; `interrupt` checked before
/// each window.
fn collect<B: ragged_core::TextOps>(
    backend: &B,
    reader: LineReader<'_, B>,
    interrupt: Interrupt<'_>,
) -> Result<LinesColumn<ragged_core::Host>> {
    let mut batches = Vec::new();
    for batch in reader {
        check(interrupt)?;
        batches.push(crate::lines::to_host_lines(backend, batch?)?);
    }
    crate::lines::concat_lines(&batches)
}

/// The records of `bytes` (already in host memory: a buffer read from an object store,
/// a network message) as one strings column, exactly as [`read_lines`] gives them for a
/// file holding those bytes; `options.byte_range` counts from the buffer's start. The
/// windows are slices of `bytes`, not copies.
///
/// # Errors
/// As [`read_lines`], less the file errors.
pub fn split_lines(
    bytes: ScalarBuffer<u8>,
    options: &LineOptions,
    chunk_size: usize,
    device: &Device,
    interrupt: Interrupt<'_>,
) -> Result<ArrayRef> {
    let (plan, reader) = strings_reader(options, chunk_size, "split_lines")?;
    let lines = with_backend!(device.backend(), |b| collect(
        b,
        LineReader::from_bytes(b, bytes, plan, reader)?,
        interrupt
    ))?;
    strings_of(lines, "split_lines")
}

/// A records column as an Arrow strings array (binary records are refused by the
/// callers' options; here they are an error naming `op`).
fn strings_of(lines: LinesColumn<ragged_core::Host>, op: &'static str) -> Result<ArrayRef> {
    let column = match lines {
        LinesColumn::Utf8(c) => Column::Utf8(c),
        LinesColumn::LargeUtf8(c) => Column::LargeUtf8(c),
        LinesColumn::Binary(_) | LinesColumn::LargeBinary(_) => {
            return Err(Error::invalid_argument(op, "binary records"))
        }
    };
    Ok(column.to_arrow())
}

/// [`read_lines`] as a one-column struct array (field `line`), the shape of a record
/// batch.
///
/// # Errors
/// As [`read_lines`].
pub fn read_lines_batch(
    path: &Path,
    options: &LineOptions,
    chunk_size: usize,
    device: &Device,
    interrupt: Interrupt<'_>,
) -> Result<ArrayRef> {
    let lines = read_lines(path, options, chunk_size, device, interrupt)?;
    let field = Arc::new(Field::new("line", lines.data_type().clone(), false));
    let batch = StructArray::try_new(vec![field].into(), vec![lines], None)
        .map_err(|e| Error::invalid_argument("read_lines", e.to_string()))?;
    Ok(Arc::new(batch))
}

/// The number of records of the file at `path` (those starting in the byte range when
/// set), without building them or checking UTF-8 (`ragged lines --count`).
///
/// # Errors
/// As [`read_lines`], less the UTF-8 check.
pub fn count_lines(
    path: &Path,
    options: &LineOptions,
    chunk_size: usize,
    device: &Device,
    interrupt: Interrupt<'_>,
) -> Result<u64> {
    let plan = options.plan()?;
    let reader = ReaderOptions {
        chunk_size,
        ..ReaderOptions::default()
    };
    with_backend!(device.backend(), |b| {
        let mut reader = LineReader::open(b, path, plan, reader)?;
        let mut total = 0;
        loop {
            check(interrupt)?;
            match reader.count_next() {
                Some(n) => total += n?,
                None => break Ok(total),
            }
        }
    })
}
