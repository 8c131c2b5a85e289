//! Reading and writing tables of columns: Parquet, Arrow IPC (file and stream) and CSV;
//! reading FASTA and FASTQ ([`read_sequences`]); sketch tables as JSON and sketches as
//! tables ([`read_sketch_tables`], [`write_sketches`], [`write_distances_tsv`]).
//!
//! - [`read_table`] reads a file (or standard input, `-`) into a [`Table`] of named
//!   host [`Column`]s, optionally only some columns, pushed down to the Parquet and
//!   Arrow IPC file readers so the others are never decoded.
//! - [`write_table`] writes named columns to a file atomically (temporary file in the
//!   same directory, rename; fsync too with [`WriteOptions::sync`]) or to standard
//!   output (`-`).
//! - [`read_table_from_reader`] and [`write_table_to_writer`] do the same on any
//!   reader or writer.
//!
//! The format comes from the caller, or from the extension (see [`Format`]), or when
//! reading a file with an unknown extension from its magic bytes.
//!
//! Every failure is a structured [`Error`] naming the path: [`Error::Io`] for the
//! operating system (missing file, directory, permissions, missing output directory),
//! [`Error::Format`] for contents that are not valid in the format (corrupt,
//! truncated, wrong format), [`Error::ColumnNotFound`] listing the columns that
//! exist, [`Error::TypeMismatch`] naming the column. No input panics or aborts:
//! Arrow IPC lengths are checked against the file size before arrow-rs allocates
//! from them, and decoder panics on malformed files are caught and reported as
//! [`Error::Format`] (the panic hook still prints the panic message to stderr).
//!
//! # Format notes
//!
//! - **CSV** (RFC 4180, comma-separated) has a header row. Column types are inferred
//!   over the whole file: integers are `int64`, decimals `float64`, `true`/`false`
//!   `bool`, everything else (dates too) `utf8`. An empty unquoted field is null and
//!   a quoted empty field (`""`) the empty string; the writer writes them so, so both
//!   survive a round trip (Polars' convention, and pyarrow's writer's). CSV does not
//!   keep `large_utf8` (read back as `utf8`) nor strings that look like numbers, and
//!   cannot hold list columns: writing one is [`Error::Unsupported`]. Records are
//!   parsed in parallel; a malformed record (a stray quote, a wrong field count, bytes
//!   that are not UTF-8) is an [`Error::Format`] naming the record and its byte.
//! - **Parquet** is written with zstd compression (or as [`WriteOptions`] say) in row
//!   groups of 1 Mi rows, encoded in parallel, with the Arrow schema embedded, so
//!   `large_utf8`, `list` and `large_list` come back with the same types. Row groups
//!   and their column chunks are decoded in parallel.
//! - Dictionary-encoded and `Utf8View` top-level columns (as written by some other
//!   tools) are decoded to plain `utf8` when read.
//!
//! # Example
//! ```
//! use ragged::io::{read_table, write_table};
//! use ragged::{Column, PrimitiveColumn, StringColumn};
//!
//! let path = std::env::temp_dir().join(format!("ragged-doc-{}.parquet", std::process::id()));
//! let columns = vec![
//!     ("name".to_string(), Column::Utf8(StringColumn::from_options([Some("Grüße"), None]))),
//!     ("count".to_string(), Column::Int64(PrimitiveColumn::from_vec(vec![3, 4]))),
//! ];
//! write_table(&path, None, &columns)?; // Parquet, from the extension
//!
//! let table = read_table(&path, None, Some(&["name"]))?;
//! let names = table.strings("name")?;
//! assert_eq!(names.iter().collect::<Vec<_>>(), [Some("Grüße"), None]);
//! assert!(table.column("count").is_err()); // not selected: Error::ColumnNotFound
//! # std::fs::remove_file(&path).ok();
//! # Ok::<(), ragged::Error>(())
//! ```

mod concat;
mod csv;
mod errors;
mod fasta;
mod format;
mod ipc_check;
mod parquet_io;
mod read;
mod sketch;
mod table;
mod temp;
mod write;

use std::io::{Read, Write};
use std::path::Path;

use ragged_core::{Column, Error, Host, Result};

pub(crate) use errors::is_a_directory;
pub use fasta::{parse_sequences, read_sequences, SequenceRecords};
pub use format::Format;
pub use sketch::{
    parse_sketch_tables, read_sketch_tables, sketch_tables_json, sketches_batch,
    write_distances_tsv, write_sketch_tables, write_sketches,
};
pub use table::{ListsColumn, StringsColumn, Table};

/// The path that means standard input (reading) or standard output (writing).
pub const STDIO_PATH: &str = "-";

/// Whether `path` is `-` (standard input or output).
fn is_stdio(path: &Path) -> bool {
    path.as_os_str() == STDIO_PATH
}

/// Read a table from the file at `path`, or from standard input when `path` is `-`.
///
/// `format` `None` takes the format from the extension, or with an unknown extension
/// from the file's magic bytes (see [`Format::detect`]); standard input is read as
/// Parquet or Arrow IPC file when it starts with their magic bytes, otherwise as
/// [`Format::ArrowStream`] (CSV on standard input needs `Some(Format::Csv)`).
///
/// `columns` `None` reads every column; `Some(names)` reads those columns in that
/// order (pushed down to the Parquet and Arrow IPC file readers). Record batches and
/// row groups are concatenated into one column each.
///
/// # Errors
/// - [`Error::Io`] with action `read` naming `path`: the file is missing, is a
///   directory ("Is a directory"), cannot be opened (permissions) or read.
/// - [`Error::Format`] naming `path` and the format: the contents are corrupt,
///   truncated or another format, or the format cannot be told from the extension or
///   magic bytes.
/// - [`Error::ColumnNotFound`] for the first requested name the file does not have,
///   listing the columns it has (checked before any data is decoded).
/// - [`Error::TypeMismatch`] naming a (selected) column whose type ragged does not
///   hold, such as dates or decimals: select other columns to read the rest.
/// - [`Error::Overflow`] when a `utf8` or `list` column's batches together exceed
///   i32 offsets.
/// - [`Error::Io`] with action `create` when standard input must be buffered (any
///   format but the stream) and the temporary directory is not writable.
///
/// # Example
/// See the [module documentation](self).
pub fn read_table(
    path: impl AsRef<Path>,
    format: Option<Format>,
    columns: Option<&[&str]>,
) -> Result<Table> {
    let path = path.as_ref();
    if is_stdio(path) {
        return read::read_reader_detect(std::io::stdin().lock(), path, format, columns);
    }
    read::read_path(path, format, columns)
}

/// Read a table from any reader (errors name the path `-`), as [`read_table`] reads
/// standard input.
///
/// `format` `None` reads Parquet or Arrow IPC file when the input starts with their
/// magic bytes, otherwise [`Format::ArrowStream`]. The input is first copied to a
/// temporary file in [`std::env::temp_dir`] (removed afterwards): Parquet and IPC
/// files need random access, CSV two passes, and an IPC stream's message lengths are
/// checked against its size before decoding.
///
/// # Errors
/// As [`read_table`], with the path `-`.
///
/// # Example
/// ```
/// use ragged::io::{read_table_from_reader, write_table_to_writer, Format};
/// use ragged::{Column, StringColumn};
/// let columns = vec![("s".to_string(), Column::Utf8(StringColumn::from_options([Some("x")])))];
/// let mut bytes = Vec::new();
/// write_table_to_writer(&mut bytes, Format::ArrowStream, &columns)?;
/// let table = read_table_from_reader(bytes.as_slice(), None, None)?; // a stream
/// assert_eq!(table.strings("s")?.get(0), Some("x"));
/// # Ok::<(), ragged::Error>(())
/// ```
pub fn read_table_from_reader<R: Read>(
    reader: R,
    format: Option<Format>,
    columns: Option<&[&str]>,
) -> Result<Table> {
    read::read_reader_detect(reader, Path::new(STDIO_PATH), format, columns)
}

/// Write named columns to the file at `path`, or to standard output when `path` is
/// `-`.
///
/// `format` `None` takes the format from the extension ([`Format::for_output`]);
/// standard output defaults to [`Format::ArrowStream`] (an explicit format is
/// honoured there too: none of them needs to seek). The columns are written as
/// one record batch (one Parquet row group) under their names, every field nullable.
///
/// A file is written atomically: to a temporary file `.{name}.ragged-tmp-{pid}-{random}`
/// in the target's directory, then renamed over the target (replacing it); with
/// [`WriteOptions::sync`] ([`write_table_with`]) it is synced to disk first.
/// On any error the temporary file is removed and the target is untouched.
///
/// # Errors
/// - [`Error::InvalidArgument`]: the extension names no format, the columns have
///   different lengths, or `path` does not name a file.
/// - [`Error::Unsupported`]: the format cannot hold a column (a list column as CSV);
///   nothing is written.
/// - [`Error::Io`] naming `path`: action `create` when the directory does not exist
///   or is not writable, `write` when the target is a directory or writing fails,
///   `sync` or `rename` when those steps fail.
///
/// # Example
/// See the [module documentation](self).
pub fn write_table(
    path: impl AsRef<Path>,
    format: Option<Format>,
    columns: &[(String, Column<Host>)],
) -> Result<()> {
    write_table_with(path, format, columns, &WriteOptions::default())
}

/// How tables are written: Parquet's compression and row-group size (the other
/// formats have no such settings).
///
/// # Example
/// ```
/// use ragged::io::WriteOptions;
/// let options = WriteOptions::default().with_compression("snappy")?.with_row_group_size(65_536);
/// assert_eq!(options.row_group_size, 65_536);
/// assert!(WriteOptions::default().with_compression("zip").is_err());
/// # Ok::<(), ragged::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WriteOptions {
    /// Parquet compression of every column chunk (default: zstd, level 1).
    pub compression: parquet::basic::Compression,
    /// Rows per Parquet row group (default 1 048 576, as arrow-rs and pyarrow); row
    /// groups are encoded in parallel and read back in parallel.
    pub row_group_size: usize,
    /// Sync the written file and its directory to disk before and after the rename
    /// (default off, as pyarrow and Polars: the rename alone already makes a failed
    /// write leave nothing behind and a reader see the old file or the whole new one;
    /// the sync also survives a power loss, at the disk's speed).
    pub sync: bool,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            compression: parquet::basic::Compression::ZSTD(parquet::basic::ZstdLevel::default()),
            row_group_size: 1 << 20,
            sync: false,
        }
    }
}

impl WriteOptions {
    /// Parquet compression by name: `none`, `snappy`, `lz4` (LZ4 raw), `zstd` or
    /// `zstd:LEVEL` (1–22), `gzip` or `gzip:LEVEL` (0–9).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for another name or a level out of range.
    pub fn with_compression(mut self, name: &str) -> Result<Self> {
        use parquet::basic::{Compression, GzipLevel, ZstdLevel};
        let bad = |why: String| Error::invalid_argument("compression", why);
        let (codec, level) = match name.split_once(':') {
            Some((codec, level)) => {
                let level: u32 = level
                    .parse()
                    .map_err(|_| bad(format!("'{level}' in '{name}' is not a level")))?;
                (codec, Some(level))
            }
            None => (name, None),
        };
        self.compression = match (codec.to_ascii_lowercase().as_str(), level) {
            ("none" | "uncompressed", None) => Compression::UNCOMPRESSED,
            ("snappy", None) => Compression::SNAPPY,
            ("lz4", None) => Compression::LZ4_RAW,
            ("zstd", level) => Compression::ZSTD(
                ZstdLevel::try_new(level.map_or(1, |l| l as i32))
                    .map_err(|e| bad(format!("'{name}': {e}")))?,
            ),
            ("gzip", level) => Compression::GZIP(
                GzipLevel::try_new(level.unwrap_or(6))
                    .map_err(|e| bad(format!("'{name}': {e}")))?,
            ),
            _ => {
                return Err(bad(format!(
                    "'{name}' is not one of none, snappy, lz4, zstd[:LEVEL], gzip[:LEVEL]"
                )))
            }
        };
        Ok(self)
    }

    /// Rows per Parquet row group (at least 1).
    pub fn with_row_group_size(mut self, rows: usize) -> Self {
        self.row_group_size = rows.max(1);
        self
    }

    /// Sync the output to disk (see [`WriteOptions::sync`]).
    pub fn with_sync(mut self, sync: bool) -> Self {
        self.sync = sync;
        self
    }
}

/// [`write_table`] with [`WriteOptions`] (Parquet's compression and row groups).
///
/// # Errors
/// As [`write_table`].
///
/// # Example
/// ```
/// use ragged::io::{read_table, write_table_with, WriteOptions};
/// use ragged::{Column, StringColumn};
/// let path = std::env::temp_dir().join(format!("ragged-doc-opts-{}.parquet", std::process::id()));
/// let names = Column::Utf8(StringColumn::from_options([Some("a"), None, Some("c")]));
/// let options = WriteOptions::default().with_compression("snappy")?.with_row_group_size(2);
/// write_table_with(&path, None, &[("s".to_string(), names)], &options)?;
/// assert_eq!(read_table(&path, None, None)?.num_rows(), 3);
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), ragged::Error>(())
/// ```
pub fn write_table_with(
    path: impl AsRef<Path>,
    format: Option<Format>,
    columns: &[(String, Column<Host>)],
    options: &WriteOptions,
) -> Result<()> {
    let path = path.as_ref();
    let batch = write::record_batch(columns)?;
    if is_stdio(path) {
        let format = format.unwrap_or(Format::ArrowStream);
        return write::write_batch_writer(std::io::stdout(), path, format, &batch, options);
    }
    write::write_batch_path(path, format, &batch, options)
}

/// Write `bytes` to the file at `path` atomically, as [`write_table`] writes tables:
/// through a temporary file in the same directory and a rename, so a failure leaves
/// nothing behind (used for reports such as `ragged bench --json`).
///
/// # Errors
/// [`Error::Io`] naming `path` (`create`, `write`, `sync`, `rename`);
/// [`Error::InvalidArgument`] when `path` does not name a file.
///
/// # Example
/// ```
/// let path = std::env::temp_dir().join(format!("ragged-doc-{}.json", std::process::id()));
/// ragged::io::write_bytes(&path, b"[]")?;
/// assert_eq!(std::fs::read(&path).unwrap(), b"[]");
/// # std::fs::remove_file(&path).unwrap();
/// # Ok::<(), ragged::Error>(())
/// ```
pub fn write_bytes(path: impl AsRef<Path>, bytes: &[u8]) -> Result<()> {
    let path = path.as_ref();
    write::write_atomically(path, "write_bytes", false, |mut writer| {
        writer
            .write_all(bytes)
            .map_err(|e| Error::io("write", path, e))?;
        Ok(writer)
    })
}

/// Write an Arrow record batch to the file at `path` atomically (as [`write_table`]:
/// a temporary file in the same directory, synced and renamed), or to standard output
/// when `path` is `-`. For columns ragged's [`Column`] does not hold, such as the
/// `FixedSizeList<Float32>` of sketches.
///
/// `format` `None` takes the format from the extension ([`Format::for_output`]);
/// standard output defaults to [`Format::ArrowStream`].
///
/// # Errors
/// As [`write_table`].
///
/// # Example
/// ```
/// use std::sync::Arc;
/// use arrow_array::{Int32Array, RecordBatch};
/// let batch = RecordBatch::try_from_iter([("x", Arc::new(Int32Array::from(vec![1, 2])) as _)])
///     .map_err(|e| ragged::Error::invalid_argument("doc", e.to_string()))?;
/// let path = std::env::temp_dir().join(format!("ragged-doc-{}.arrow", std::process::id()));
/// ragged::io::write_record_batch(&path, None, &batch)?;
/// # std::fs::remove_file(&path).unwrap();
/// # Ok::<(), ragged::Error>(())
/// ```
pub fn write_record_batch(
    path: impl AsRef<Path>,
    format: Option<Format>,
    batch: &arrow_array::RecordBatch,
) -> Result<()> {
    let path = path.as_ref();
    let options = WriteOptions::default();
    if is_stdio(path) {
        let format = format.unwrap_or(Format::ArrowStream);
        return write::write_batch_writer(std::io::stdout(), path, format, batch, &options);
    }
    write::write_batch_path(path, format, batch, &options)
}

/// Write named columns in `format` to any writer (errors name the path `-`).
///
/// Not atomic: on an error the writer may have received part of the output.
///
/// # Errors
/// As [`write_table`] (except the file-system cases), with the path `-`.
///
/// # Example
/// See [`read_table_from_reader`].
pub fn write_table_to_writer<W: Write + Send>(
    writer: W,
    format: Format,
    columns: &[(String, Column<Host>)],
) -> Result<()> {
    write::write_batch_writer(
        writer,
        Path::new(STDIO_PATH),
        format,
        &write::record_batch(columns)?,
        &WriteOptions::default(),
    )
}
