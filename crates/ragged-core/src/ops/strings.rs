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
use super::{Memory, OffsetWidth};
use crate::column::{BooleanColumn, Column, ListColumn, PrimitiveColumn, StringColumn};
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
#[inline]
pub fn char_count(bytes: &[u8]) -> usize {
    if bytes.len() < 8 {
        return bytes.iter().filter(|&&b| (b as i8) >= -0x40).count();
    }
    // 8 bytes at a time: a continuation byte has bit 7 set and bit 6 clear.
    let continuation = |w: u64| (w & !(w << 1) & 0x8080_8080_8080_8080).count_ones() as usize;
    let word = |b: &[u8]| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[..8]);
        u64::from_le_bytes(w)
    };
    let words = bytes.chunks_exact(8);
    let rest = words.remainder().len();
    let mut n = bytes.len() - words.map(|w| continuation(word(w))).sum::<usize>();
    if rest > 0 {
        // The last 8 bytes, less the ones counted already (the low bytes).
        n -= continuation(word(&bytes[bytes.len() - 8..]) >> (8 * (8 - rest)));
    }
    n
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
#[inline]
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

/// A strings argument: one value for every row (`Scalar(None)` is a null for every
/// row), or a `Utf8` / `LargeUtf8` column of one value per row.
#[derive(Clone, Copy, Debug)]
pub enum StringArg<'a, L: Location = Host> {
    /// The same value (or null) for every row.
    Scalar(Option<&'a str>),
    /// Row `i` of this `Utf8` column.
    Utf8(&'a StringColumn<i32, L>),
    /// Row `i` of this `LargeUtf8` column.
    LargeUtf8(&'a StringColumn<i64, L>),
}

impl<L: Location> StringArg<'_, L> {
    /// The number of rows; `None` for a scalar.
    pub fn rows(&self) -> Option<usize> {
        match self {
            StringArg::Scalar(_) => None,
            StringArg::Utf8(c) => Some(c.len()),
            StringArg::LargeUtf8(c) => Some(c.len()),
        }
    }

    /// Check that a column argument has `rows` rows.
    ///
    /// # Errors
    /// [`crate::Error::LengthMismatch`] naming `op` and `what`.
    pub fn check_rows(&self, op: &'static str, what: &'static str, rows: usize) -> Result<()> {
        match self.rows() {
            Some(actual) if actual != rows => Err(crate::Error::LengthMismatch {
                op,
                what,
                expected: rows,
                actual,
            }),
            _ => Ok(()),
        }
    }
}

impl<'a, L: Location> StringArg<'a, L> {
    /// A column argument of either offset width.
    pub fn column<O: OffsetSize>(col: &'a StringColumn<O, L>) -> Self {
        O::string_arg(col)
    }
}

impl<L: Location> StringArg<'_, L> {
    /// The number of rows of the column arguments of `op`, checked to agree; `None`
    /// when every argument is a scalar.
    ///
    /// # Errors
    /// [`crate::Error::LengthMismatch`] naming the first column of another length.
    pub fn common_rows(op: &'static str, args: &[Self]) -> Result<Option<usize>> {
        let rows = args.iter().find_map(StringArg::rows);
        if let Some(rows) = rows {
            for arg in args {
                arg.check_rows(op, "an input column", rows)?;
            }
        }
        Ok(rows)
    }

    /// The first output row of each of `args` when they are appended one after
    /// another, and the total at the end (`args.len() + 1` entries).
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] naming `op` when an argument is a scalar.
    pub fn row_starts(op: &'static str, args: &[Self]) -> Result<Vec<usize>> {
        let mut starts = Vec::with_capacity(args.len() + 1);
        starts.push(0);
        for arg in args {
            let rows = arg.rows().ok_or_else(|| {
                crate::Error::invalid_argument(op, "every input must be a column")
            })?;
            starts.push(starts[starts.len() - 1] + rows);
        }
        Ok(starts)
    }
}

impl StringArg<'_, Host> {
    /// Row `i` (`None` when null); a scalar gives its value for every `i`.
    pub fn get(&self, i: usize) -> Option<&str> {
        match self {
            StringArg::Scalar(s) => *s,
            StringArg::Utf8(c) => c.get(i),
            StringArg::LargeUtf8(c) => c.get(i),
        }
    }
}

impl<'a, L: Location> From<&'a str> for StringArg<'a, L> {
    fn from(value: &'a str) -> Self {
        StringArg::Scalar(Some(value))
    }
}

impl<'a, L: Location> From<&'a StringColumn<i32, L>> for StringArg<'a, L> {
    fn from(col: &'a StringColumn<i32, L>) -> Self {
        StringArg::Utf8(col)
    }
}

impl<'a, L: Location> From<&'a StringColumn<i64, L>> for StringArg<'a, L> {
    fn from(col: &'a StringColumn<i64, L>) -> Self {
        StringArg::LargeUtf8(col)
    }
}

impl<'a, L: Location> From<&'a AnyStringColumn<L>> for StringArg<'a, L> {
    fn from(col: &'a AnyStringColumn<L>) -> Self {
        match col {
            AnyStringColumn::Utf8(c) => StringArg::Utf8(c),
            AnyStringColumn::LargeUtf8(c) => StringArg::LargeUtf8(c),
        }
    }
}

/// A strings column whose offset width the op chose ([`OffsetWidth`]): `Utf8` unless
/// the output exceeds `i32::MAX` bytes or i64 offsets were asked for.
#[derive(Clone, Debug)]
pub enum AnyStringColumn<L: Location = Host> {
    /// i32 offsets.
    Utf8(StringColumn<i32, L>),
    /// i64 offsets.
    LargeUtf8(StringColumn<i64, L>),
}

impl<L: Location> AnyStringColumn<L> {
    /// The number of rows.
    pub fn len(&self) -> usize {
        match self {
            AnyStringColumn::Utf8(c) => c.len(),
            AnyStringColumn::LargeUtf8(c) => c.len(),
        }
    }

    /// Whether there is no row.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the offsets are i64.
    pub fn is_wide(&self) -> bool {
        matches!(self, AnyStringColumn::LargeUtf8(_))
    }

    /// As a [`Column`] (`Utf8` or `LargeUtf8`).
    pub fn into_column(self) -> Column<L> {
        match self {
            AnyStringColumn::Utf8(c) => Column::Utf8(c),
            AnyStringColumn::LargeUtf8(c) => Column::LargeUtf8(c),
        }
    }
}

impl AnyStringColumn<Host> {
    /// Row `i` (`None` when null or out of range).
    pub fn get(&self, i: usize) -> Option<&str> {
        match self {
            AnyStringColumn::Utf8(c) => c.get(i),
            AnyStringColumn::LargeUtf8(c) => c.get(i),
        }
    }

    /// The rows as options.
    pub fn to_options(&self) -> Vec<Option<String>> {
        (0..self.len())
            .map(|i| self.get(i).map(str::to_string))
            .collect()
    }
}

/// How [`StringOps::concatenate`] treats a null input row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConcatNulls<'a> {
    /// Any null input makes the output row null (SQL `||`, Polars' default).
    Null,
    /// Null inputs are left out, with their separator (Polars `ignore_nulls`); a row
    /// whose inputs are all null is the empty string.
    Skip,
    /// Null inputs are replaced by this string (libcudf's `narep`).
    Replace(&'a str),
}

/// Where [`StringOps::split`] and [`StringOps::rsplit`] cut each row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitOn<'a> {
    /// Every occurrence of this literal, which must not be empty; adjacent
    /// occurrences give empty parts (Python's `str.split(sep)`).
    Literal(&'a str),
    /// Runs of ASCII whitespace (space, `\t`, `\n`, `\v`, `\f`, `\r`), with leading
    /// and trailing whitespace ignored, so no part is empty (Python's `str.split()`
    /// over ASCII whitespace, as libcudf).
    Whitespace,
}

/// Whether `b` is one of the ASCII whitespace bytes [`SplitOn::Whitespace`] splits on.
pub fn is_split_whitespace(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// The byte ranges of the parts of `row`, as every backend splits ([`StringOps::split`],
/// [`StringOps::rsplit`]): at most `max_splits` cuts (`None`: all), counted from the
/// left or, with `from_right`, from the right (Python's `rsplit`); parts are listed
/// left to right either way.
///
/// # Example
/// ```
/// use ragged_core::ops::{split_ranges, SplitOn};
/// assert_eq!(split_ranges(b"a,b,,c", SplitOn::Literal(","), None, false), [(0, 1), (2, 3), (4, 4), (5, 6)]);
/// assert_eq!(split_ranges(b"a,b,c", SplitOn::Literal(","), Some(1), true), [(0, 3), (4, 5)]);
/// assert_eq!(split_ranges(b"  a  b ", SplitOn::Whitespace, Some(1), false), [(2, 3), (5, 7)]);
/// ```
pub fn split_ranges(
    row: &[u8],
    on: SplitOn<'_>,
    max_splits: Option<usize>,
    from_right: bool,
) -> Vec<(usize, usize)> {
    let mut parts = Vec::new();
    split_ranges_into(row, on, max_splits, from_right, &mut parts);
    parts
}

/// [`split_ranges`], appending the parts to `parts` (which may hold other rows' parts
/// before them): one buffer for many rows, no allocation per row.
pub fn split_ranges_into(
    row: &[u8],
    on: SplitOn<'_>,
    max_splits: Option<usize>,
    from_right: bool,
    parts: &mut Vec<(usize, usize)>,
) {
    let cuts = max_splits.unwrap_or(usize::MAX);
    let first = parts.len();
    let found = |parts: &Vec<(usize, usize)>| parts.len() - first;
    match on {
        SplitOn::Literal(d) => {
            let d = d.as_bytes();
            let m = d.len().max(1);
            if from_right {
                let mut end = row.len();
                let mut p = row.len();
                while found(parts) < cuts && p >= m {
                    if &row[p - m..p] == d {
                        parts.push((p, end));
                        end = p - m;
                        p -= m;
                    } else {
                        p -= 1;
                    }
                }
                parts.push((0, end));
            } else {
                let mut start = 0;
                let mut p = 0;
                while found(parts) < cuts && p + m <= row.len() {
                    if &row[p..p + m] == d {
                        parts.push((start, p));
                        p += m;
                        start = p;
                    } else {
                        p += 1;
                    }
                }
                parts.push((start, row.len()));
            }
        }
        SplitOn::Whitespace => {
            let ws = |b: u8| is_split_whitespace(b);
            if from_right {
                let mut end = row.len();
                loop {
                    while end > 0 && ws(row[end - 1]) {
                        end -= 1;
                    }
                    if end == 0 {
                        break;
                    }
                    if found(parts) == cuts {
                        parts.push((0, end));
                        break;
                    }
                    let mut start = end;
                    while start > 0 && !ws(row[start - 1]) {
                        start -= 1;
                    }
                    parts.push((start, end));
                    end = start;
                }
            } else {
                let mut start = 0;
                loop {
                    while start < row.len() && ws(row[start]) {
                        start += 1;
                    }
                    if start == row.len() {
                        break;
                    }
                    if found(parts) == cuts {
                        parts.push((start, row.len()));
                        break;
                    }
                    let mut end = start;
                    while end < row.len() && !ws(row[end]) {
                        end += 1;
                    }
                    parts.push((start, end));
                    start = end;
                }
            }
        }
    }
    if from_right {
        parts[first..].reverse();
    }
}

/// The row `redact` makes of a name and a visibility, as every backend computes it
/// ([`StringOps::redact`]); `None` is null.
///
/// It equals the composition `public = contains(visibility, "public")`,
/// `parts = split(names, " ")`, `initial = slice_chars(parts[1], 0, 1)`,
/// `named = concatenate([initial, parts[0]], " ", ConcatNulls::Null)`,
/// `copy_if_else(public, named, "X X")`: a missing second part is null, and a null
/// mask row takes the `else` side.
///
/// # Example
/// ```
/// use ragged_core::ops::redact_row;
/// assert_eq!(redact_row(Some("Jane Doe"), Some("public")), Some("D Jane".to_string()));
/// assert_eq!(redact_row(Some("Jane Doe"), Some("private")), Some("X X".to_string()));
/// assert_eq!(redact_row(Some("Cher"), Some("public")), None);
/// assert_eq!(redact_row(None, None), Some("X X".to_string()));
/// ```
pub fn redact_row(name: Option<&str>, visibility: Option<&str>) -> Option<String> {
    let mut out = String::new();
    redact_into(name, visibility, &mut out).then_some(out)
}

/// [`redact_row`] appending the row to `out`; returns whether the row is valid (a null
/// row appends nothing).
pub fn redact_into(name: Option<&str>, visibility: Option<&str>, out: &mut String) -> bool {
    if !visibility.is_some_and(|v| v.contains("public")) {
        out.push_str(REDACTED);
        return true;
    }
    let Some((first, rest)) = name.and_then(|n| n.split_once(' ')) else {
        return false;
    };
    // The first character of the second part (empty when the part is).
    if let Some(c) = rest.chars().next().filter(|&c| c != ' ') {
        out.push(c);
    }
    out.push(' ');
    out.push_str(first);
    true
}

/// What [`StringOps::redact`] writes for a row that is not public.
pub const REDACTED: &str = "X X";

/// Which ends [`StringOps::strip`] trims and where [`StringOps::pad`] adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The start (`lstrip`; pad on the left, right-aligning the text).
    Left,
    /// The end (`rstrip`; pad on the right).
    Right,
    /// Both ends (`strip`; pad both sides, the extra fill character on the right).
    Both,
}

/// The character [`StringOps::upper`] makes of `c`: Unicode's simple uppercase
/// mapping (`UnicodeData.txt`'s field 12; the character itself where it has none).
/// A per-character mapping, so "ß" stays "ß" and "ᾳ" becomes "ᾼ" (the full mappings,
/// Python's `str.upper` and Polars, give "SS" and "ΑΙ"); byte lengths may still
/// change, as "ı" → "I".
///
/// It equals Rust's `char::to_uppercase` wherever that is one character (the full
/// mapping only differs from the simple one where it is longer); the 27 characters
/// whose full mapping is longer but whose simple one is another character are
/// `simple_upper_exception`'s.
///
/// # Example
/// ```
/// use ragged_core::ops::upper_char;
/// assert_eq!(upper_char('ä'), 'Ä');
/// assert_eq!(upper_char('ß'), 'ß');
/// assert_eq!(upper_char('ᾳ'), 'ᾼ');
/// ```
pub fn upper_char(c: char) -> char {
    let mut it = c.to_uppercase();
    match (it.next(), it.next()) {
        (Some(u), None) => u,
        _ => simple_upper_exception(c).unwrap_or(c),
    }
}

/// The character [`StringOps::lower`] makes of `c`: Unicode's simple lowercase mapping
/// (`UnicodeData.txt`'s field 13), as [`upper_char`] for lowercase: "İ" becomes "i"
/// (its full lowercase is "i̇", two characters).
///
/// # Example
/// ```
/// use ragged_core::ops::lower_char;
/// assert_eq!(lower_char('Ä'), 'ä');
/// assert_eq!(lower_char('İ'), 'i');
/// ```
pub fn lower_char(c: char) -> char {
    let mut it = c.to_lowercase();
    match (it.next(), it.next()) {
        (Some(l), None) => l,
        // U+0130 is the one character whose full lowercase is longer than one
        // character; its simple lowercase is "i".
        _ if c == '\u{130}' => 'i',
        _ => c,
    }
}

/// The simple uppercase of the characters whose full uppercase is longer than one
/// character but whose simple one is another character: the Greek vowels with a
/// subscript iota (ypogegrammeni), whose simple uppercase is the same vowel with the
/// iota adscript (prosgegrammeni) — U+1F80..=U+1F87, U+1F90..=U+1F97 and
/// U+1FA0..=U+1FA7 (each 8 further on), and U+1FB3, U+1FC3, U+1FF3 (each 9 further
/// on). `None` for every other character.
fn simple_upper_exception(c: char) -> Option<char> {
    let code = c as u32;
    let shifted = match code {
        0x1F80..=0x1F87 | 0x1F90..=0x1F97 | 0x1FA0..=0x1FA7 => code + 8,
        0x1FB3 | 0x1FC3 | 0x1FF3 => code + 9,
        _ => return None,
    };
    char::from_u32(shifted)
}

/// Every non-ASCII character that [`upper_char`] (`upper`) or [`lower_char`] changes
/// (`from`, sorted) and its image (`to`, at the same index): the table the GPU
/// binary-searches. Built once per process.
#[derive(Debug)]
pub struct CaseTable {
    /// The characters that change, as sorted code points.
    pub from: Vec<u32>,
    /// Their images, as code points.
    pub to: Vec<u32>,
}

/// The [`CaseTable`] of `upper` (or `lower`).
pub fn case_table(upper: bool) -> &'static CaseTable {
    static UPPER: std::sync::OnceLock<CaseTable> = std::sync::OnceLock::new();
    static LOWER: std::sync::OnceLock<CaseTable> = std::sync::OnceLock::new();
    let build = |map: fn(char) -> char| {
        let (from, to) = (0x80u32..=0x10_FFFF)
            .filter_map(char::from_u32)
            .filter_map(|c| {
                let m = map(c);
                (m != c).then_some((c as u32, m as u32))
            })
            .unzip();
        CaseTable { from, to }
    };
    if upper {
        UPPER.get_or_init(|| build(upper_char))
    } else {
        LOWER.get_or_init(|| build(lower_char))
    }
}

/// Whether `c` is one of the ASCII whitespace characters [`StringOps::strip`] trims by
/// default (the set [`SplitOn::Whitespace`] splits on).
pub fn is_strip_whitespace(c: char) -> bool {
    c.is_ascii() && is_split_whitespace(c as u8)
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

    /// Row `i` of `left` where row `i` of `mask` is true, else row `i` of `right`
    /// (libcudf's `copy_if_else`, Polars' `when/then/otherwise`); a null mask row
    /// takes `right`. A chosen null is null. `width` picks the output offsets.
    ///
    /// # Errors
    /// [`crate::Error::LengthMismatch`] when a column argument's length differs from
    /// the mask's; [`crate::Error::Overflow`] when `width` is i32 and the output does
    /// not fit; device errors.
    fn copy_if_else(
        &self,
        mask: &BooleanColumn<Self::Loc>,
        left: StringArg<'_, Self::Loc>,
        right: StringArg<'_, Self::Loc>,
        width: OffsetWidth,
    ) -> Result<AnyStringColumn<Self::Loc>>;

    /// Row-wise concatenation of `columns` (columns or scalars; at least one column,
    /// all columns of one length) with `separator` between consecutive inputs;
    /// `nulls` decides what a null input does.
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] when no input is a column;
    /// [`crate::Error::LengthMismatch`] when column lengths differ;
    /// [`crate::Error::Overflow`] as for [`StringOps::copy_if_else`]; device errors.
    fn concatenate(
        &self,
        columns: &[StringArg<'_, Self::Loc>],
        separator: &str,
        nulls: ConcatNulls<'_>,
        width: OffsetWidth,
    ) -> Result<AnyStringColumn<Self::Loc>>;

    /// Split each row at `on` into parts, at most `max_splits` cuts from the left
    /// ([`split_ranges`]), as columns: column `k` holds part `k` of every row, null
    /// where a row has fewer parts. There are as many columns as the most parts of a
    /// valid row, and at least one; a null row is null in every column.
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] for an empty literal delimiter; device errors.
    fn split<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Self::Loc>,
        on: SplitOn<'_>,
        max_splits: Option<usize>,
    ) -> Result<Vec<StringColumn<O, Self::Loc>>>;

    /// [`StringOps::split`] with the cuts counted from the right (Python's `rsplit`);
    /// parts are still numbered from the left.
    ///
    /// # Errors
    /// As [`StringOps::split`].
    fn rsplit<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Self::Loc>,
        on: SplitOn<'_>,
        max_splits: Option<usize>,
    ) -> Result<Vec<StringColumn<O, Self::Loc>>>;

    /// Split each row at `on` into parts, at most `max_splits` cuts from the left
    /// ([`split_ranges`]), as one list of strings per row (libcudf's `split_record`,
    /// Polars' `str.split`): list `i` holds row `i`'s parts in order. A null row is a
    /// null (empty) list; a valid row has at least one part (with a literal delimiter;
    /// whitespace splitting gives an empty list for a row of only whitespace). The
    /// list offsets and the parts' offsets have the column's width, and the parts'
    /// column is [`crate::Column::Utf8`] or [`crate::Column::LargeUtf8`] to match.
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] for an empty literal delimiter;
    /// [`crate::Error::Overflow`] when the number of parts does not fit the offsets
    /// (i32 offsets and more than `i32::MAX` parts); device errors.
    fn split_record<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Self::Loc>,
        on: SplitOn<'_>,
        max_splits: Option<usize>,
    ) -> Result<ListColumn<O, Self::Loc>>;

    /// [`StringOps::split_record`] with the cuts counted from the right (Python's
    /// `rsplit`); each list still holds its parts left to right.
    ///
    /// # Errors
    /// As [`StringOps::split_record`].
    fn rsplit_record<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Self::Loc>,
        on: SplitOn<'_>,
        max_splits: Option<usize>,
    ) -> Result<ListColumn<O, Self::Loc>>;

    /// The redaction of a names column ("First Last") by a visibility column, fused in
    /// one two-pass transform: "L First" (the first character of the second
    /// space-separated part, a space, the first part) where the visibility contains
    /// "public", [`REDACTED`] ("X X") elsewhere; exactly [`redact_row`] on every row.
    ///
    /// # Errors
    /// [`crate::Error::LengthMismatch`] when a visibility column's length differs;
    /// [`crate::Error::Overflow`] as for [`StringOps::copy_if_else`]; device errors.
    fn redact<O: OffsetSize>(
        &self,
        names: &StringColumn<O, Self::Loc>,
        visibility: StringArg<'_, Self::Loc>,
        width: OffsetWidth,
    ) -> Result<AnyStringColumn<Self::Loc>>;

    /// Each row with every character mapped by [`upper_char`] (ASCII by a fast path);
    /// `width` picks the output offsets (byte lengths may change).
    ///
    /// # Errors
    /// [`crate::Error::Overflow`] as for [`StringOps::copy_if_else`]; device errors.
    fn upper<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Self::Loc>,
        width: OffsetWidth,
    ) -> Result<AnyStringColumn<Self::Loc>>;

    /// Each row with every character mapped by [`lower_char`].
    ///
    /// # Errors
    /// As [`StringOps::upper`].
    fn lower<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Self::Loc>,
        width: OffsetWidth,
    ) -> Result<AnyStringColumn<Self::Loc>>;

    /// Each row without the leading (`Side::Left`), trailing (`Right`) or both runs of
    /// characters from `chars` (`None`: ASCII whitespace, [`is_strip_whitespace`]), as
    /// Python's `lstrip` / `rstrip` / `strip`. The output keeps the offset width.
    ///
    /// # Errors
    /// Device errors only.
    fn strip<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Self::Loc>,
        side: Side,
        chars: Option<&str>,
    ) -> Result<StringColumn<O, Self::Loc>>;

    /// Each row padded with `fill` to at least `width_chars` characters: on the left
    /// (`Side::Left`, right-aligned), the right, or both (the extra one on the right,
    /// as libcudf); longer rows are unchanged.
    ///
    /// # Errors
    /// [`crate::Error::Overflow`] as for [`StringOps::copy_if_else`]; device errors.
    fn pad<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Self::Loc>,
        width_chars: usize,
        side: Side,
        fill: char,
        width: OffsetWidth,
    ) -> Result<AnyStringColumn<Self::Loc>>;

    /// Each row repeated `times` times (0: empty).
    ///
    /// # Errors
    /// [`crate::Error::Overflow`] as for [`StringOps::copy_if_else`], also when a row
    /// reaches 2^31 bytes; device errors.
    fn repeat<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Self::Loc>,
        times: usize,
        width: OffsetWidth,
    ) -> Result<AnyStringColumn<Self::Loc>>;

    /// Each row with the non-overlapping occurrences of `pattern` (a literal, scanned
    /// from the left) replaced by `replacement`, at most `max_count` of them per row
    /// (`None`: all).
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] for an empty pattern; [`crate::Error::Overflow`]
    /// as for [`StringOps::copy_if_else`]; device errors.
    fn replace<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Self::Loc>,
        pattern: &str,
        replacement: &str,
        max_count: Option<usize>,
        width: OffsetWidth,
    ) -> Result<AnyStringColumn<Self::Loc>>;

    /// All valid rows, in order, joined by `separator` into a one-row column (nulls are
    /// left out; no valid row gives the empty string), as libcudf's `join_strings`.
    ///
    /// # Errors
    /// [`crate::Error::Overflow`] as for [`StringOps::copy_if_else`]; device errors.
    fn join<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Self::Loc>,
        separator: &str,
        width: OffsetWidth,
    ) -> Result<AnyStringColumn<Self::Loc>>;

    /// The rows of `columns` one after another (vertical concatenation; columns of
    /// either offset width).
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] when an argument is a scalar;
    /// [`crate::Error::Overflow`] as for [`StringOps::copy_if_else`]; device errors.
    fn append(
        &self,
        columns: &[StringArg<'_, Self::Loc>],
        width: OffsetWidth,
    ) -> Result<AnyStringColumn<Self::Loc>>;
}

#[cfg(test)]
mod tests {
    use super::char_count;

    #[test]
    fn char_count_counts_lead_bytes_at_every_length_and_alignment() {
        // Every mix of ASCII, 2-, 3- and 4-byte characters over rows of 0..40 bytes.
        let text = "aé€😀bÿ中𝄞c".repeat(8);
        let bytes = text.as_bytes();
        for start in (0..16).filter(|&s| text.is_char_boundary(s)) {
            for end in (start..start + 40).filter(|&e| text.is_char_boundary(e)) {
                let row = &text[start..end];
                assert_eq!(
                    char_count(&bytes[start..end]),
                    row.chars().count(),
                    "{row:?}"
                );
            }
        }
        // Bytes that are not whole characters count their lead bytes.
        let raw = [
            0x80u8, 0xbf, 0xc0, 0x7f, 0xff, 0x41, 0x80, 0x80, 0xe2, 0x82, 0xac,
        ];
        for end in 0..=raw.len() {
            let naive = raw[..end].iter().filter(|&&b| (b as i8) >= -0x40).count();
            assert_eq!(char_count(&raw[..end]), naive, "{end} bytes");
        }
    }
}
