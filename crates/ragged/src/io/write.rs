//! Writing named columns as Parquet, Arrow IPC (file and stream) or CSV, atomically.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use arrow_array::RecordBatch;
use arrow_ipc::writer::{FileWriter, StreamWriter};
use ragged_core::trace::{measure, Phase};
use ragged_core::{Column, Error, Host, Result};

use super::errors::{is_a_directory, panic_message, write_error};
use super::temp::TempFile;
use super::{Format, Table, WriteOptions};

/// Write one record batch to the file `path` (not `-`) through a temporary file and a
/// rename.
pub(crate) fn write_batch_path(
    path: &Path,
    format: Option<Format>,
    batch: &RecordBatch,
    options: &WriteOptions,
) -> Result<()> {
    let format = match format {
        Some(format) => format,
        None => Format::for_output(path)?,
    };
    write_atomically(path, "write_table", options.sync, |writer| {
        encode(writer, format, batch, path, options)
    })
}

/// Write one record batch to any writer; errors name `label`.
pub(crate) fn write_batch_writer<W: Write + Send>(
    writer: W,
    label: &Path,
    format: Format,
    batch: &RecordBatch,
    options: &WriteOptions,
) -> Result<()> {
    encode(BufWriter::new(writer), format, batch, label, options)?
        .flush()
        .map_err(|e| Error::io("write", label, e))
}

/// Create `path` atomically: `fill` writes the contents into a temporary file in the
/// same directory, which is renamed over `path` (after it and the directory are synced
/// to disk when `sync`); on any error the temporary file is removed and `path` is
/// untouched.
pub(crate) fn write_atomically(
    path: &Path,
    op: &'static str,
    sync: bool,
    fill: impl FnOnce(BufWriter<File>) -> Result<BufWriter<File>>,
) -> Result<()> {
    if path.is_dir() {
        return Err(is_a_directory("write", path));
    }
    let base = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .ok_or_else(|| {
            Error::invalid_argument(op, format!("'{}' does not name a file", path.display()))
        })?;
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    // A missing directory fails here, before anything is written.
    let (mut temp, file) =
        TempFile::create_in(dir, &base).map_err(|e| Error::io("create", path, e))?;
    // A replaced file keeps its permissions (best effort).
    if let Ok(existing) = std::fs::metadata(path) {
        let _ = file.set_permissions(existing.permissions());
    }
    let file = fill(BufWriter::new(file))?;
    measure(Phase::Write, 0, || {
        let file = file
            .into_inner()
            .map_err(|e| Error::io("write", path, e.into_error()))?;
        if sync {
            file.sync_all().map_err(|e| Error::io("sync", path, e))?;
        }
        drop(file);
        temp.persist(path)
            .map_err(|e| Error::io("rename", path, e))?;
        if sync {
            sync_directory(dir);
        }
        Ok(())
    })
}

/// The columns as one record batch.
///
/// # Errors
/// [`Error::InvalidArgument`] when the lengths differ.
pub(crate) fn record_batch(columns: &[(String, Column<Host>)]) -> Result<RecordBatch> {
    Table::new(columns.to_vec())?.to_record_batch()
}

/// Refuse what a format cannot hold (nested columns in CSV) before writing a byte.
fn check_format(path: &Path, format: Format, batch: &RecordBatch) -> Result<()> {
    if format.supports_nested() {
        return Ok(());
    }
    let schema = batch.schema();
    let nested = schema
        .fields()
        .iter()
        .zip(batch.columns())
        .find(|(f, _)| f.data_type().is_nested());
    match nested {
        Some((field, array)) => Err(Error::Unsupported {
            op: "write_table",
            message: format!(
                "cannot write '{}' as {}: column '{}' has the nested type {}; \
                 use Parquet or Arrow IPC",
                path.display(),
                format.label(),
                field.name(),
                Column::try_from_arrow(array.as_ref())
                    .map_or_else(|_| field.data_type().to_string(), |c| c.type_name())
            ),
        }),
        None => Ok(()),
    }
}

/// Encode `batch` as `format` into `writer`, returning the writer. A panic in an
/// encoder becomes [`Error::Unsupported`] (the temporary file is removed either way).
fn encode<W: Write + Send>(
    writer: W,
    format: Format,
    batch: &RecordBatch,
    path: &Path,
    options: &WriteOptions,
) -> Result<W> {
    catch_unwind(AssertUnwindSafe(|| {
        encode_unguarded(writer, format, batch, path, options)
    }))
    .unwrap_or_else(|payload| {
        Err(Error::Unsupported {
            op: "write_table",
            message: format!(
                "cannot write '{}' as {}: the encoder failed: {}",
                path.display(),
                format.label(),
                panic_message(payload.as_ref())
            ),
        })
    })
}

fn encode_unguarded<W: Write + Send>(
    writer: W,
    format: Format,
    batch: &RecordBatch,
    path: &Path,
    options: &WriteOptions,
) -> Result<W> {
    let err = |e: &(dyn std::error::Error + 'static)| write_error(path, format, e);
    let schema = batch.schema();
    match format {
        Format::Parquet => super::parquet_io::write(writer, batch, path, options),
        Format::ArrowFile => measure(Phase::Encode, 0, || {
            let mut writer = FileWriter::try_new(writer, &schema).map_err(|e| err(&e))?;
            writer.write(batch).map_err(|e| err(&e))?;
            writer.finish().map_err(|e| err(&e))?;
            writer.into_inner().map_err(|e| err(&e))
        }),
        Format::ArrowStream => measure(Phase::Encode, 0, || {
            let mut writer = StreamWriter::try_new(writer, &schema).map_err(|e| err(&e))?;
            writer.write(batch).map_err(|e| err(&e))?;
            writer.finish().map_err(|e| err(&e))?;
            writer.into_inner().map_err(|e| err(&e))
        }),
        Format::Csv => {
            check_format(path, format, batch)?;
            super::csv::write(writer, batch, path)
        }
    }
}

/// Make the rename durable: sync the directory (best effort; not every platform or
/// file system allows opening or syncing a directory).
fn sync_directory(dir: &Path) {
    if let Ok(handle) = File::open(dir) {
        let _ = handle.sync_all();
    }
}
