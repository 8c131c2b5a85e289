//! The strings family: the libcudf-style strings API over [`StringColumn`]s.
//!
//! Shared rules:
//! - **Characters, not bytes.** Positions and lengths count characters (Unicode
//!   scalar values) unless the op's name ends in `_bytes`.
//! - **Literal patterns.** A [`Pattern`] is matched byte for byte (no regex). Since
//!   rows and patterns are valid UTF-8, a match always starts and ends on character
//!   boundaries.
//! - **Nulls.** A null row, or a null pattern row, gives a null output row (the output
//!   validity is the AND of the inputs'); null is never the same as empty. Values
//!   under null rows are unspecified.
//! - **The empty pattern** matches at every character boundary, as in Python: it is
//!   contained in, starts and ends every row; `find` gives 0, `rfind` the row's length
//!   and `count_matches` the length + 1.

use super::lists::python_slice;
use super::Memory;
use crate::column::{BooleanColumn, PrimitiveColumn, StringColumn};
use crate::location::{Host, Location};
use crate::types::OffsetSize;
use crate::Result;

/// The pattern argument of a search: one literal for every row, or one per row (a
/// strings column of the same length as the searched column, of either offset width).
///
/// # Example
/// ```
/// use ragged_core::ops::Pattern;
/// use ragged_core::{Host, StringColumn};
/// let scalar: Pattern<'_, Host> = Pattern::from("ab");
/// let rows = StringColumn::<i32>::from_options([Some("a"), None]);
/// let per_row: Pattern<'_, Host> = Pattern::from(&rows);
/// assert_eq!(scalar.rows(), None);
/// assert_eq!(per_row.rows(), Some(2));
/// ```
#[derive(Clone, Copy, Debug)]
pub enum Pattern<'a, L: Location = Host> {
    /// The same literal for every row.
    Scalar(&'a str),
    /// Row `i` is searched for row `i` of this `Utf8` column.
    Utf8(&'a StringColumn<i32, L>),
    /// Row `i` is searched for row `i` of this `LargeUtf8` column.
    LargeUtf8(&'a StringColumn<i64, L>),
}

impl<L: Location> Pattern<'_, L> {
    /// The number of pattern rows; `None` for a scalar.
    pub fn rows(&self) -> Option<usize> {
        match self {
            Pattern::Scalar(_) => None,
            Pattern::Utf8(c) => Some(c.len()),
            Pattern::LargeUtf8(c) => Some(c.len()),
        }
    }

    /// Check that a per-row pattern has `rows` rows.
    ///
    /// # Errors
    /// [`crate::Error::LengthMismatch`] naming `op`.
    pub fn check_rows(&self, op: &'static str, rows: usize) -> Result<()> {
        match self.rows() {
            Some(actual) if actual != rows => Err(crate::Error::LengthMismatch {
                op,
                what: "the pattern column",
                expected: rows,
                actual,
            }),
            _ => Ok(()),
        }
    }
}

impl<'a, L: Location> From<&'a str> for Pattern<'a, L> {
    fn from(pattern: &'a str) -> Self {
        Pattern::Scalar(pattern)
    }
}

impl<'a, L: Location> From<&'a StringColumn<i32, L>> for Pattern<'a, L> {
    fn from(pattern: &'a StringColumn<i32, L>) -> Self {
        Pattern::Utf8(pattern)
    }
}

impl<'a, L: Location> From<&'a StringColumn<i64, L>> for Pattern<'a, L> {
    fn from(pattern: &'a StringColumn<i64, L>) -> Self {
        Pattern::LargeUtf8(pattern)
    }
}

/// A token of a compiled SQL `LIKE` pattern ([`like_tokens`]) meaning "any one
/// character" (`_`).
pub const LIKE_ANY_ONE: u32 = 0xFFFF_FFFE;
/// A token of a compiled SQL `LIKE` pattern meaning "any run of characters" (`%`).
pub const LIKE_ANY_MANY: u32 = 0xFFFF_FFFF;

/// Compile an SQL `LIKE` pattern into tokens, as every backend matches them: a
/// character's code point, [`LIKE_ANY_ONE`] for `_` or [`LIKE_ANY_MANY`] for `%`
/// (runs of `%` collapse into one). `escape` makes the character after it literal
/// (`%`, `_` or the escape itself).
///
/// # Errors
/// [`crate::Error::InvalidArgument`] when the pattern ends with the escape character,
/// or when the escape character is `%` or `_`.
///
/// # Example
/// ```
/// use ragged_core::ops::{like_tokens, LIKE_ANY_MANY, LIKE_ANY_ONE};
/// assert_eq!(
///     like_tokens("a%_\\%", Some('\\')).unwrap(),
///     vec!['a' as u32, LIKE_ANY_MANY, LIKE_ANY_ONE, '%' as u32]
/// );
/// ```
pub fn like_tokens(pattern: &str, escape: Option<char>) -> Result<Vec<u32>> {
    if matches!(escape, Some('%' | '_')) {
        return Err(crate::Error::invalid_argument(
            "like",
            "the escape character cannot be % or _",
        ));
    }
    let mut tokens = Vec::with_capacity(pattern.len());
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        let token = if Some(c) == escape {
            match chars.next() {
                Some(literal) => literal as u32,
                None => {
                    return Err(crate::Error::invalid_argument(
                        "like",
                        "the pattern ends with the escape character",
                    ))
                }
            }
        } else if c == '%' {
            if tokens.last() == Some(&LIKE_ANY_MANY) {
                continue;
            }
            LIKE_ANY_MANY
        } else if c == '_' {
            LIKE_ANY_ONE
        } else {
            c as u32
        };
        tokens.push(token);
    }
    Ok(tokens)
}

/// The bounds of [`StringOps::slice_chars`] and [`StringOps::slice_bytes`]: Python's
/// `row[start:stop]` (negative bounds count from the end, `None` is the start or the
/// end, both clamped; no step), the same for every row or one pair per row.
#[derive(Clone, Copy, Debug)]
pub enum SliceBounds<'a, L: Location = Host> {
    /// The same bounds for every row.
    Scalar {
        /// The first position kept; `None`: the row's start.
        start: Option<i64>,
        /// The position after the last kept; `None`: the row's end.
        stop: Option<i64>,
    },
    /// Row `i` takes `starts[i]` and `stops[i]`; a null bound gives a null row.
    PerRow {
        /// Each row's first position kept.
        starts: &'a PrimitiveColumn<i64, L>,
        /// Each row's position after the last kept.
        stops: &'a PrimitiveColumn<i64, L>,
    },
}

impl<L: Location> SliceBounds<'_, L> {
    /// Check that per-row bounds have `rows` rows each.
    ///
    /// # Errors
    /// [`crate::Error::LengthMismatch`] naming `op` and the column that differs.
    pub fn check_rows(&self, op: &'static str, rows: usize) -> Result<()> {
        if let SliceBounds::PerRow { starts, stops } = self {
            for (what, actual) in [
                ("the starts column", starts.len()),
                ("the stops column", stops.len()),
            ] {
                if actual != rows {
                    return Err(crate::Error::LengthMismatch {
                        op,
                        what,
                        expected: rows,
                        actual,
                    });
                }
            }
        }
        Ok(())
    }
}

/// The characters of UTF-8 `bytes`: the bytes that are not continuation bytes
/// (`0b10xx_xxxx`).
pub fn char_count(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b as i8) >= -0x40).count()
}

/// The byte range `row[start:stop]` keeps of a valid UTF-8 row, counting characters
/// (`chars`) or bytes, as every backend slices ([`StringOps::slice_chars`],
/// [`StringOps::slice_bytes`]). `Err(byte)` when a byte bound of a non-empty slice
/// falls inside a character.
///
/// # Example
/// ```
/// use ragged_core::ops::slice_range;
/// assert_eq!(slice_range("héllo".as_bytes(), Some(1), Some(-1), true), Ok((1, 5)));
/// assert_eq!(slice_range("héllo".as_bytes(), Some(0), Some(2), false), Err(2));
/// ```
pub fn slice_range(
    row: &[u8],
    start: Option<i64>,
    stop: Option<i64>,
    chars: bool,
) -> std::result::Result<(usize, usize), usize> {
    let lead = |b: u8| (b as i8) >= -0x40;
    if !chars || row.is_ascii() {
        let (a, b) = python_slice(row.len() as i64, start, stop);
        let (a, b) = (a as usize, b as usize);
        if a < b {
            for bound in [a, b] {
                if bound < row.len() && !lead(row[bound]) {
                    return Err(bound);
                }
            }
        }
        return Ok((a, b));
    }
    let n = char_count(row);
    let (a, b) = python_slice(n as i64, start, stop);
    let (a, b) = (a as usize, b as usize);
    // The k-th character starts at the k-th lead byte; position n is the row's end.
    let (mut from, mut to) = (row.len(), row.len());
    let mut k = 0;
    for (p, &byte) in row.iter().enumerate() {
        if lead(byte) {
            if k == a {
                from = p;
            }
            if k == b {
                to = p;
                break;
            }
            k += 1;
        }
    }
    Ok((from, to))
}

/// The literal searches, as one value for the backends' shared implementations; each
/// has its [`StringOps`] method of the same name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Search {
    /// [`StringOps::contains`].
    Contains,
    /// [`StringOps::starts_with`].
    StartsWith,
    /// [`StringOps::ends_with`].
    EndsWith,
    /// [`StringOps::find`].
    Find,
    /// [`StringOps::rfind`].
    Rfind,
    /// [`StringOps::count_matches`].
    CountMatches,
}

impl Search {
    /// The op's name, as in the API and the CLI's error messages.
    pub fn name(self) -> &'static str {
        match self {
            Search::Contains => "contains",
            Search::StartsWith => "starts_with",
            Search::EndsWith => "ends_with",
            Search::Find => "find",
            Search::Rfind => "rfind",
            Search::CountMatches => "count_matches",
        }
    }

    /// Whether the op answers with a boolean (else with a position or a count).
    pub fn is_predicate(self) -> bool {
        matches!(
            self,
            Search::Contains | Search::StartsWith | Search::EndsWith
        )
    }
}

/// Operations on UTF-8 string columns. Positions and lengths are in characters
/// (Unicode scalar values) unless the op's name ends in `_bytes`.
pub trait StringOps: Memory {
    /// The number of characters of each row, as the column's offset type (`i32` for
    /// `Utf8`, `i64` for `LargeUtf8`, as arrow-rs's `length`). Null rows are null in
    /// the output (their value is the length of their bytes, which is ignored).
    ///
    /// # Errors
    /// Device errors only; the input is valid by construction.
    fn length<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Self::Loc>,
    ) -> Result<PrimitiveColumn<O, Self::Loc>>;

    /// The number of bytes of each row, as the column's offset type; nulls as in
    /// [`StringOps::length`].
    ///
    /// # Errors
    /// Device errors only.
    fn length_bytes<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Self::Loc>,
    ) -> Result<PrimitiveColumn<O, Self::Loc>>;

    /// Whether each row contains the pattern (a literal substring).
    ///
    /// # Errors
    /// [`crate::Error::LengthMismatch`] when a pattern column has another length than
    /// `col`; device errors.
    fn contains<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Self::Loc>,
        pattern: Pattern<'_, Self::Loc>,
    ) -> Result<BooleanColumn<Self::Loc>>;

    /// Whether each row starts with the pattern.
    ///
    /// # Errors
    /// As [`StringOps::contains`].
    fn starts_with<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Self::Loc>,
        pattern: Pattern<'_, Self::Loc>,
    ) -> Result<BooleanColumn<Self::Loc>>;

    /// Whether each row ends with the pattern.
    ///
    /// # Errors
    /// As [`StringOps::contains`].
    fn ends_with<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Self::Loc>,
        pattern: Pattern<'_, Self::Loc>,
    ) -> Result<BooleanColumn<Self::Loc>>;

    /// The character position of the first occurrence of the pattern in each row, −1
    /// when there is none, as the column's offset type (Python's `str.find`).
    ///
    /// # Errors
    /// As [`StringOps::contains`].
    fn find<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Self::Loc>,
        pattern: Pattern<'_, Self::Loc>,
    ) -> Result<PrimitiveColumn<O, Self::Loc>>;

    /// The character position of the last occurrence of the pattern in each row, −1
    /// when there is none (Python's `str.rfind`).
    ///
    /// # Errors
    /// As [`StringOps::contains`].
    fn rfind<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Self::Loc>,
        pattern: Pattern<'_, Self::Loc>,
    ) -> Result<PrimitiveColumn<O, Self::Loc>>;

    /// Whether each row matches the SQL `LIKE` pattern (`%`: any run of characters,
    /// `_`: one character; matching is by characters and case-sensitive); `escape`
    /// makes the next pattern character literal. See [`like_tokens`].
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] for a pattern [`like_tokens`] rejects; device
    /// errors.
    fn like<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Self::Loc>,
        pattern: &str,
        escape: Option<char>,
    ) -> Result<BooleanColumn<Self::Loc>>;

    /// Characters `start..stop` of each row with Python's rules ([`SliceBounds`]), as a
    /// new strings column of the same offset width. Null rows (and rows with a null
    /// per-row bound) are null and empty.
    ///
    /// # Errors
    /// [`crate::Error::LengthMismatch`] for per-row bounds of another length; device
    /// errors.
    fn slice_chars<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Self::Loc>,
        bounds: SliceBounds<'_, Self::Loc>,
    ) -> Result<StringColumn<O, Self::Loc>>;

    /// Bytes `start..stop` of each row with Python's rules, as [`StringOps::slice_chars`]
    /// does for characters.
    ///
    /// # Errors
    /// [`crate::Error::InvalidUtf8`] naming the lowest valid row whose slice would cut
    /// a character (`byte`: the offending bound within the row);
    /// [`crate::Error::LengthMismatch`] as for [`StringOps::slice_chars`].
    fn slice_bytes<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Self::Loc>,
        bounds: SliceBounds<'_, Self::Loc>,
    ) -> Result<StringColumn<O, Self::Loc>>;

    /// The number of non-overlapping occurrences of the pattern in each row, counted
    /// from the left (Python's `str.count`: "aaaa" holds "aa" twice).
    ///
    /// # Errors
    /// As [`StringOps::contains`].
    fn count_matches<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Self::Loc>,
        pattern: Pattern<'_, Self::Loc>,
    ) -> Result<PrimitiveColumn<O, Self::Loc>>;
}
