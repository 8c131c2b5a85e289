//! The text (lines) family: split a byte buffer into records at a delimiter.
//!
//! # Semantics (DESIGN.md §2, "Lines")
//!
//! The input is a buffer of bytes in the backend's memory. It is cut into *records* by
//! a delimiter, found **left to right without overlap**, exactly as a sequential scan
//! would: at each position, if the delimiter starts there it is a match and the scan
//! resumes after it. (This only matters for delimiters that can overlap themselves:
//! `aaa` with the delimiter `aa` is the record `""` then the record `a`.)
//!
//! - A record starts at position 0 or right after a match, and ends at the next match
//!   (or at the end of the input). Its delimiter is stripped unless
//!   [`LineOptions::keep_delimiter`] is set.
//! - [`Delimiter::Newline`] matches `\n` and also strips one `\r` right before it
//!   (universal newlines, as `str::lines`); a `\r` not followed by `\n` is data.
//! - A trailing delimiter does not produce an empty last record (as `str::lines`):
//!   `a\nb\n` and `a\nb` are both the records `a`, `b`. Empty input is zero records;
//!   `\n` alone is one empty record.
//! - **Byte ranges**: a record belongs to the range `[start, end)` its first byte
//!   position is in, and runs past `end` to its delimiter. Ranges that split the input
//!   anywhere (`[0, k)` and `[k, len)`) together give every record exactly once, so
//!   byte ranges split a file across workers or GPUs with no record lost or
//!   duplicated. Range positions past the end of the input own nothing.
//! - Records are UTF-8 (a strings column) unless [`LineOptions::binary`] asks for a
//!   [`BinaryColumn`]; the first record that is not valid UTF-8 is an
//!   [`Error::InvalidUtf8`] naming the record (counted from the first record of the
//!   range) and the byte within it. The check covers the bytes that are output (with
//!   the delimiter when it is kept).
//! - **Offset width**: i32 offsets unless the output holds more than
//!   [`LineOptions::wide_offsets_above`] bytes (by default `i32::MAX`), then i64.
//!
//! # Record boundaries
//!
//! [`TextOps::line_ends`] returns the *record boundaries*: for `n` records, `n + 1`
//! sorted positions `b[0] ≤ … ≤ b[n]` in the input, where record `i` with its
//! delimiter is `input[b[i]..b[i + 1]]`. They are the offsets a strings column over
//! the input would have with [`LineOptions::keep_delimiter`], so `split_lines` is a
//! gather over them (then, when stripping, each row loses a trailing delimiter, and in
//! newline mode a `\r` before it). With no record, the one entry is
//! `min(range start, input length)`.
//!
//! # Example
//! ```
//! use ragged_core::ops::{Delimiter, LineOptions};
//! let plan = LineOptions::new(Delimiter::Newline).with_byte_range(0, 10).plan()?;
//! assert_eq!(plan.delimiter(), b"\n");
//! assert!(plan.strips_carriage_return());
//! assert!(LineOptions::new(Delimiter::Bytes(vec![])).plan().is_err());
//! # Ok::<(), ragged_core::Error>(())
//! ```

use super::Memory;
use crate::column::{BinaryColumn, Column, PrimitiveColumn, StringColumn};
use crate::location::{Host, Location};
use crate::{Error, Result};

/// The longest delimiter accepted, in bytes.
pub const MAX_DELIMITER_BYTES: usize = 64;

/// What separates records.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum Delimiter {
    /// `\n`, also stripping one `\r` before it (universal newlines). The default.
    #[default]
    Newline,
    /// Exactly `\r\n` (a `\n` alone is data).
    CrLf,
    /// Any byte string of 1 to [`MAX_DELIMITER_BYTES`] bytes, matched exactly.
    Bytes(Vec<u8>),
}

impl Delimiter {
    /// The bytes matched: `\n`, `\r\n` or the given bytes.
    pub fn bytes(&self) -> &[u8] {
        match self {
            Delimiter::Newline => b"\n",
            Delimiter::CrLf => b"\r\n",
            Delimiter::Bytes(b) => b,
        }
    }
}

/// Options of [`TextOps`]: build them with [`LineOptions::new`] and the `with_*`
/// methods, then validate them once into a [`LinePlan`] with [`LineOptions::plan`].
///
/// # Example
/// ```
/// use ragged_core::ops::{Delimiter, LineOptions};
/// let options = LineOptions::new(Delimiter::CrLf).with_keep_delimiter(true);
/// assert!(options.keep_delimiter);
/// let plan = options.plan()?;
/// assert_eq!(plan.delimiter(), b"\r\n");
/// # Ok::<(), ragged_core::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineOptions {
    /// What separates records.
    pub delimiter: Delimiter,
    /// Keep each record's delimiter (and, in newline mode, its `\r`) in the output.
    pub keep_delimiter: bool,
    /// Only the records that start in `[start, end)` (see the module documentation);
    /// `None` is the whole input.
    pub byte_range: Option<(u64, u64)>,
    /// Output a [`BinaryColumn`] without UTF-8 validation instead of a strings column.
    pub binary: bool,
    /// Output bytes above which offsets are i64 (at most `i32::MAX`, the default).
    /// A small value forces the i64 path on small data, for tests.
    pub wide_offsets_above: u64,
    /// Bytes of input per parallel task (a hint; results never depend on it). `None`
    /// lets the backend choose. Tests set small values to put task boundaries
    /// everywhere.
    pub tile_bytes: Option<usize>,
}

impl Default for LineOptions {
    fn default() -> Self {
        Self::new(Delimiter::Newline)
    }
}

impl LineOptions {
    /// Options with `delimiter`, stripping it, over the whole input, as UTF-8.
    pub fn new(delimiter: Delimiter) -> Self {
        Self {
            delimiter,
            keep_delimiter: false,
            byte_range: None,
            binary: false,
            wide_offsets_above: i32::MAX as u64,
            tile_bytes: None,
        }
    }

    /// Keep (or strip) the delimiters.
    pub fn with_keep_delimiter(mut self, keep: bool) -> Self {
        self.keep_delimiter = keep;
        self
    }

    /// Only the records starting in `[start, end)`.
    pub fn with_byte_range(mut self, start: u64, end: u64) -> Self {
        self.byte_range = Some((start, end));
        self
    }

    /// Binary output (no UTF-8 validation).
    pub fn with_binary(mut self, binary: bool) -> Self {
        self.binary = binary;
        self
    }

    /// i64 offsets when the output holds more than `bytes` bytes.
    pub fn with_wide_offsets_above(mut self, bytes: u64) -> Self {
        self.wide_offsets_above = bytes;
        self
    }

    /// Bytes of input per parallel task (a hint).
    pub fn with_tile_bytes(mut self, bytes: usize) -> Self {
        self.tile_bytes = Some(bytes);
        self
    }

    /// Validate the options into a plan.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] (op `lines`) for an empty delimiter, a delimiter
    /// longer than [`MAX_DELIMITER_BYTES`], a byte range whose start is after its end,
    /// or a tile of 0 bytes.
    pub fn plan(&self) -> Result<LinePlan> {
        LinePlan::new(self)
    }
}

/// Validated [`LineOptions`], built once and passed to every [`TextOps`] call: a
/// small `Copy` value (the delimiter in a fixed array) that a device kernel can take
/// by value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinePlan {
    delimiter: [u8; MAX_DELIMITER_BYTES],
    delimiter_len: usize,
    newline: bool,
    self_overlapping: bool,
    keep_delimiter: bool,
    binary: bool,
    range: (u64, u64),
    wide_offsets_above: u64,
    tile_bytes: Option<usize>,
}

impl LinePlan {
    /// Validate `options` (see [`LineOptions::plan`]).
    ///
    /// # Errors
    /// As [`LineOptions::plan`].
    pub fn new(options: &LineOptions) -> Result<Self> {
        let bytes = options.delimiter.bytes();
        if bytes.is_empty() {
            return Err(Error::invalid_argument(
                "lines",
                "the delimiter is empty (give at least one byte)",
            ));
        }
        if bytes.len() > MAX_DELIMITER_BYTES {
            return Err(Error::invalid_argument(
                "lines",
                format!(
                    "the delimiter has {} bytes; at most {MAX_DELIMITER_BYTES} are allowed",
                    bytes.len()
                ),
            ));
        }
        let range = options.byte_range.unwrap_or((0, u64::MAX));
        if range.0 > range.1 {
            return Err(Error::invalid_argument(
                "lines",
                format!(
                    "the byte range starts at {} after its end {}",
                    range.0, range.1
                ),
            ));
        }
        if options.tile_bytes == Some(0) {
            return Err(Error::invalid_argument("lines", "tiles of 0 bytes"));
        }
        let mut delimiter = [0u8; MAX_DELIMITER_BYTES];
        delimiter[..bytes.len()].copy_from_slice(bytes);
        Ok(Self {
            delimiter,
            delimiter_len: bytes.len(),
            newline: options.delimiter == Delimiter::Newline,
            self_overlapping: self_overlapping(bytes),
            keep_delimiter: options.keep_delimiter,
            binary: options.binary,
            range,
            wide_offsets_above: options.wide_offsets_above.min(i32::MAX as u64),
            tile_bytes: options.tile_bytes,
        })
    }

    /// The delimiter's bytes (1 to 64).
    pub fn delimiter(&self) -> &[u8] {
        &self.delimiter[..self.delimiter_len]
    }

    /// Whether a `\r` before each `\n` is stripped too (newline mode).
    pub fn strips_carriage_return(&self) -> bool {
        self.newline
    }

    /// Whether two occurrences of the delimiter can overlap (a proper prefix of it is
    /// also a suffix, as in `aa` or `abab`). Only then does the left-to-right rule
    /// decide between occurrences, which needs a sequential step between tiles.
    pub fn self_overlapping(&self) -> bool {
        self.self_overlapping
    }

    /// Whether the delimiters are kept in the output.
    pub fn keep_delimiter(&self) -> bool {
        self.keep_delimiter
    }

    /// Whether the output is binary (no UTF-8 validation).
    pub fn binary(&self) -> bool {
        self.binary
    }

    /// The byte range `[start, end)` (`(0, u64::MAX)` for the whole input).
    pub fn byte_range(&self) -> (u64, u64) {
        self.range
    }

    /// The byte range clamped to an input of `len` bytes, as `usize`.
    pub fn clamped_range(&self, len: usize) -> (usize, usize) {
        let clamp = |v: u64| usize::try_from(v).unwrap_or(usize::MAX).min(len);
        (clamp(self.range.0), clamp(self.range.1))
    }

    /// The same plan over another byte range.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `start > end`.
    pub fn with_byte_range(mut self, start: u64, end: u64) -> Result<Self> {
        if start > end {
            return Err(Error::invalid_argument(
                "lines",
                format!("the byte range starts at {start} after its end {end}"),
            ));
        }
        self.range = (start, end);
        Ok(self)
    }

    /// Whether an output of `bytes` bytes gets i64 offsets.
    pub fn wide_output(&self, bytes: u64) -> bool {
        bytes > self.wide_offsets_above
    }

    /// The tile hint in bytes, if any.
    pub fn tile_bytes(&self) -> Option<usize> {
        self.tile_bytes
    }
}

/// Whether `d` has a border (a proper prefix that is also a suffix), so that two of
/// its occurrences can overlap.
fn self_overlapping(d: &[u8]) -> bool {
    (1..d.len()).any(|k| d[..k] == d[d.len() - k..])
}

/// The records [`TextOps::split_lines`] returns: a strings column (i32 or i64
/// offsets) or, when binary output was asked for, a binary column.
#[derive(Clone, Debug)]
pub enum LinesColumn<L: Location = Host> {
    /// UTF-8 records, i32 offsets.
    Utf8(StringColumn<i32, L>),
    /// UTF-8 records, i64 offsets (more than `wide_offsets_above` bytes).
    LargeUtf8(StringColumn<i64, L>),
    /// Binary records, i32 offsets.
    Binary(BinaryColumn<i32, L>),
    /// Binary records, i64 offsets.
    LargeBinary(BinaryColumn<i64, L>),
}

impl<L: Location> LinesColumn<L> {
    /// Number of records.
    pub fn len(&self) -> usize {
        match self {
            LinesColumn::Utf8(c) => c.len(),
            LinesColumn::LargeUtf8(c) => c.len(),
            LinesColumn::Binary(c) => c.len(),
            LinesColumn::LargeBinary(c) => c.len(),
        }
    }

    /// Whether there is no record.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the offsets are i64.
    pub fn is_wide(&self) -> bool {
        matches!(
            self,
            LinesColumn::LargeUtf8(_) | LinesColumn::LargeBinary(_)
        )
    }

    /// Whether the records are binary.
    pub fn is_binary(&self) -> bool {
        matches!(self, LinesColumn::Binary(_) | LinesColumn::LargeBinary(_))
    }
}

impl LinesColumn<Host> {
    /// The bytes of record `i` (empty when out of range).
    pub fn row_bytes(&self, i: usize) -> &[u8] {
        match self {
            LinesColumn::Utf8(c) => c.row_bytes(i),
            LinesColumn::LargeUtf8(c) => c.row_bytes(i),
            LinesColumn::Binary(c) => c.row_bytes(i),
            LinesColumn::LargeBinary(c) => c.row_bytes(i),
        }
    }

    /// The bytes of every record.
    pub fn total_bytes(&self) -> usize {
        match self {
            LinesColumn::Utf8(c) => c.total_bytes(),
            LinesColumn::LargeUtf8(c) => c.total_bytes(),
            LinesColumn::Binary(c) => c.total_bytes(),
            LinesColumn::LargeBinary(c) => c.total_bytes(),
        }
    }

    /// The records as a [`Column`] (`Utf8` or `LargeUtf8`); `None` for binary records,
    /// which [`Column`] does not hold (use [`LinesColumn::to_arrow`]).
    pub fn into_column(self) -> Option<Column<Host>> {
        match self {
            LinesColumn::Utf8(c) => Some(Column::Utf8(c)),
            LinesColumn::LargeUtf8(c) => Some(Column::LargeUtf8(c)),
            LinesColumn::Binary(_) | LinesColumn::LargeBinary(_) => None,
        }
    }

    /// The records as an arrow-rs array (zero-copy): `Utf8`, `LargeUtf8`, `Binary` or
    /// `LargeBinary`.
    pub fn to_arrow(&self) -> arrow_array::ArrayRef {
        use std::sync::Arc;
        match self {
            LinesColumn::Utf8(c) => Arc::new(arrow_array::StringArray::from(c.clone())),
            LinesColumn::LargeUtf8(c) => Arc::new(arrow_array::LargeStringArray::from(c.clone())),
            LinesColumn::Binary(c) => Arc::new(c.to_arrow()),
            LinesColumn::LargeBinary(c) => Arc::new(c.to_arrow()),
        }
    }
}

/// Splitting byte buffers into records. See the module documentation for the
/// semantics (delimiters, `\r`, trailing delimiters, byte ranges, UTF-8, widths).
pub trait TextOps: Memory {
    /// The records of `bytes` as a strings column (or a binary column when the plan
    /// asks for it). Every record is valid (no nulls).
    ///
    /// # Errors
    /// [`Error::InvalidUtf8`] naming the first record (counted from the first record of
    /// the byte range) that is not UTF-8 and the byte within it; device errors.
    ///
    /// # Example
    /// ```text
    /// let plan = LineOptions::new(Delimiter::Newline).plan()?;
    /// let lines = backend.split_lines(&bytes, &plan)?; // "a\r\nb\n" → ["a", "b"]
    /// ```
    fn split_lines(
        &self,
        bytes: &<Self::Loc as Location>::Buffer<u8>,
        plan: &LinePlan,
    ) -> Result<LinesColumn<Self::Loc>>;

    /// The record boundaries of `bytes` (`n + 1` sorted positions for `n` records; see
    /// the module documentation). Ignores `keep_delimiter` and `binary`; validates
    /// nothing.
    ///
    /// # Errors
    /// Device errors only.
    fn line_ends(
        &self,
        bytes: &<Self::Loc as Location>::Buffer<u8>,
        plan: &LinePlan,
    ) -> Result<PrimitiveColumn<i64, Self::Loc>>;

    /// The number of records of `bytes` in the plan's byte range (what
    /// [`TextOps::split_lines`] would return, without building it or checking UTF-8).
    ///
    /// # Errors
    /// Device errors only.
    fn count_lines(
        &self,
        bytes: &<Self::Loc as Location>::Buffer<u8>,
        plan: &LinePlan,
    ) -> Result<u64>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_validate_their_options() {
        let long = Delimiter::Bytes(vec![b'x'; 65]);
        let message = LineOptions::new(long).plan().unwrap_err().to_string();
        assert!(message.contains("65 bytes"), "{message}");
        assert!(LineOptions::new(Delimiter::Bytes(vec![b'x'; 64]))
            .plan()
            .is_ok());
        let reversed = LineOptions::default().with_byte_range(5, 4).plan();
        assert!(matches!(reversed, Err(Error::InvalidArgument { .. })));
        assert!(LineOptions::default().with_tile_bytes(0).plan().is_err());
    }

    #[test]
    fn self_overlap_is_detected() {
        let plan = |d: &[u8]| {
            LineOptions::new(Delimiter::Bytes(d.to_vec()))
                .plan()
                .unwrap()
                .self_overlapping()
        };
        assert!(plan(b"aa") && plan(b"abab") && plan(b"aba"));
        assert!(!plan(b"\r\n") && !plan(b"a") && !plan(b"ab") && !plan(b"aab"));
    }
}
