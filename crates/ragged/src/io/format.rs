//! File formats: names, extensions, magic bytes, and how a path's format is decided.

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use ragged_core::{Error, Result};

/// A file format ragged reads and writes.
///
/// | format | extensions | magic bytes | nested columns (lists) |
/// |---|---|---|---|
/// | [`Format::Parquet`] | `.parquet`, `.pq` | `PAR1` | yes |
/// | [`Format::ArrowFile`] (Arrow IPC file) | `.arrow`, `.feather`, `.ipc` | `ARROW1` | yes |
/// | [`Format::ArrowStream`] (Arrow IPC stream) | `.arrows` | `FF FF FF FF` | yes |
/// | [`Format::Csv`] (header row) | `.csv` | — | no |
///
/// Extensions are matched case-insensitively.
///
/// # Example
/// ```
/// use std::path::Path;
/// use ragged::io::Format;
/// assert_eq!(Format::from_extension(Path::new("reads.PQ")), Some(Format::Parquet));
/// assert_eq!("arrow-stream".parse::<Format>()?, Format::ArrowStream);
/// assert_eq!(Format::Csv.to_string(), "csv");
/// # Ok::<(), ragged::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// Apache Parquet, written with zstd compression.
    Parquet,
    /// The Arrow IPC file format (random access; "Feather v2").
    ArrowFile,
    /// The Arrow IPC streaming format (what `-`, standard input and output, uses).
    ArrowStream,
    /// Comma-separated values with a header row. Flat columns only.
    Csv,
}

/// The IPC stream continuation marker that starts every message of a modern stream.
const STREAM_CONTINUATION: [u8; 4] = [0xFF; 4];

impl Format {
    /// Every format, in the order of the table above.
    pub const ALL: [Format; 4] = [
        Format::Parquet,
        Format::ArrowFile,
        Format::ArrowStream,
        Format::Csv,
    ];

    /// The name used by [`FromStr`] and [`fmt::Display`]: `parquet`, `arrow`,
    /// `arrow-stream`, `csv`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Parquet => "parquet",
            Format::ArrowFile => "arrow",
            Format::ArrowStream => "arrow-stream",
            Format::Csv => "csv",
        }
    }

    /// The name used in error messages ([`Error::Format`]'s `format`): `Parquet`,
    /// `Arrow IPC file`, `Arrow IPC stream`, `CSV`.
    pub fn label(self) -> &'static str {
        match self {
            Format::Parquet => "Parquet",
            Format::ArrowFile => "Arrow IPC file",
            Format::ArrowStream => "Arrow IPC stream",
            Format::Csv => "CSV",
        }
    }

    /// The usual extension, without the dot: `parquet`, `arrow`, `arrows`, `csv`.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Parquet => "parquet",
            Format::ArrowFile => "arrow",
            Format::ArrowStream => "arrows",
            Format::Csv => "csv",
        }
    }

    /// Whether the format holds nested (list) columns. CSV does not.
    pub fn supports_nested(self) -> bool {
        !matches!(self, Format::Csv)
    }

    /// The format named by `path`'s extension (case-insensitive), or `None` for an
    /// unknown or missing extension.
    pub fn from_extension(path: &Path) -> Option<Format> {
        let extension = path.extension()?.to_str()?.to_ascii_lowercase();
        match extension.as_str() {
            "parquet" | "pq" => Some(Format::Parquet),
            "arrow" | "feather" | "ipc" => Some(Format::ArrowFile),
            "arrows" => Some(Format::ArrowStream),
            "csv" => Some(Format::Csv),
            _ => None,
        }
    }

    /// The format whose magic bytes start `head` (the first bytes of a file; 6 are
    /// enough), or `None`. CSV has no magic bytes and is never returned.
    pub fn from_magic(head: &[u8]) -> Option<Format> {
        if head.starts_with(b"PAR1") {
            Some(Format::Parquet)
        } else if head.starts_with(b"ARROW1") {
            Some(Format::ArrowFile)
        } else if head.starts_with(&STREAM_CONTINUATION) {
            Some(Format::ArrowStream)
        } else {
            None
        }
    }

    /// The format to read a file as, from its extension and its first bytes `head`.
    ///
    /// The extension decides, with one refinement: Arrow files (`.arrow`, `.feather`,
    /// `.ipc`, `.arrows`) are read as whichever of IPC file or IPC stream their magic
    /// bytes say, because many `.arrow` files in the wild are streams. With an unknown
    /// extension the magic bytes decide (CSV is never guessed).
    ///
    /// # Errors
    /// [`Error::Format`] naming `path` when neither the extension nor the magic bytes
    /// tell the format.
    pub fn detect(path: &Path, head: &[u8]) -> Result<Format> {
        let by_magic = Format::from_magic(head);
        match Format::from_extension(path) {
            Some(Format::ArrowFile | Format::ArrowStream)
                if matches!(by_magic, Some(Format::ArrowFile | Format::ArrowStream)) =>
            {
                Ok(by_magic.unwrap_or(Format::ArrowFile))
            }
            Some(format) => Ok(format),
            None => by_magic.ok_or_else(|| Error::Format {
                path: path.to_path_buf(),
                format: "Parquet, Arrow IPC or CSV",
                message: "the format is unknown: the extension is none of .parquet, .pq, \
                          .arrow, .feather, .ipc, .arrows, .csv and the file does not start \
                          with Parquet or Arrow magic bytes; name the format explicitly"
                    .into(),
            }),
        }
    }

    /// The format to write `path` as, from its extension.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the extension is unknown.
    pub fn for_output(path: &Path) -> Result<Format> {
        Format::from_extension(path).ok_or_else(|| {
            Error::invalid_argument(
                "write_table",
                format!(
                    "cannot tell the output format of '{}' from its extension: use .parquet, \
                     .pq, .arrow, .feather, .ipc, .arrows or .csv, or name the format",
                    path.display()
                ),
            )
        })
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = Error;

    /// Parses a format name, case-insensitively: `parquet` (`pq`), `arrow` (`ipc`,
    /// `feather`, `arrow-file`, `ipc-file`), `arrow-stream` (`arrows`, `stream`,
    /// `ipc-stream`), `csv`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] listing the accepted names.
    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "parquet" | "pq" => Ok(Format::Parquet),
            "arrow" | "ipc" | "feather" | "arrow-file" | "ipc-file" => Ok(Format::ArrowFile),
            "arrow-stream" | "arrows" | "stream" | "ipc-stream" => Ok(Format::ArrowStream),
            "csv" => Ok(Format::Csv),
            _ => Err(Error::invalid_argument(
                "format",
                format!("unknown format '{s}': expected parquet, arrow, arrow-stream or csv"),
            )),
        }
    }
}
