//! The literal searches: `contains`, `starts_with`, `ends_with`, `find`, `rfind` and
//! `count_matches` (see [`ragged_core::StringOps`]).
//!
//! Mapping: rows in chunks across rayon tasks. A scalar pattern is compiled once into
//! memchr's SIMD searchers (`memmem::Finder` / `FinderRev`). `contains`, `find` and
//! `count_matches` of a non-empty scalar search each task's rows as one byte range
//! and place the matches in their rows ([`scan_rows`]); the other searches, and
//! per-row patterns (`memmem::find` / `rfind`), go row by row. Booleans are built 64 rows to a
//! word. Byte positions of matches become character positions by counting the lead
//! bytes before them (a match of a valid UTF-8 pattern in valid UTF-8 starts on a
//! character boundary). Values are computed for every row; the output validity is
//! the AND of the column's and the pattern column's.

use arrow_buffer::NullBuffer;
use memchr::memmem::{Finder, FinderRev};
use rayon::prelude::*;

use ragged_core::ops::{char_count, Pattern, Search};
use ragged_core::{BooleanColumn, OffsetSize, PrimitiveColumn, Result, StringColumn};

use crate::{bool_words, output_vec, set_bits, CHUNK};

/// The pattern of each row, compiled once for a scalar (one value per call: the size
/// of the scalar variant does not matter).
#[allow(clippy::large_enum_variant)]
enum Patterns<'a> {
    Scalar {
        bytes: &'a [u8],
        finder: Finder<'a>,
        finder_rev: FinderRev<'a>,
    },
    Utf8(&'a StringColumn<i32>),
    LargeUtf8(&'a StringColumn<i64>),
}

impl<'a> Patterns<'a> {
    fn new(pattern: Pattern<'a>) -> Self {
        match pattern {
            Pattern::Scalar(s) => Patterns::Scalar {
                bytes: s.as_bytes(),
                finder: Finder::new(s.as_bytes()),
                finder_rev: FinderRev::new(s.as_bytes()),
            },
            Pattern::Utf8(c) => Patterns::Utf8(c),
            Pattern::LargeUtf8(c) => Patterns::LargeUtf8(c),
        }
    }

    fn validity(&self) -> Option<&NullBuffer> {
        match self {
            Patterns::Scalar { .. } => None,
            Patterns::Utf8(c) => c.validity(),
            Patterns::LargeUtf8(c) => c.validity(),
        }
    }

    /// The answer of `op` for one row, as a number (booleans as 0 / 1).
    fn answer(&self, op: Search, row: usize, hay: &[u8]) -> i64 {
        let (needle, finder, finder_rev) = match self {
            Patterns::Scalar {
                bytes,
                finder,
                finder_rev,
            } => (*bytes, Some(finder), Some(finder_rev)),
            Patterns::Utf8(c) => (c.row_bytes(row), None, None),
            Patterns::LargeUtf8(c) => (c.row_bytes(row), None, None),
        };
        let find = |hay: &[u8]| match finder {
            Some(f) => f.find(hay),
            None => memchr::memmem::find(hay, needle),
        };
        match op {
            Search::Contains => i64::from(find(hay).is_some()),
            Search::StartsWith => i64::from(hay.starts_with(needle)),
            Search::EndsWith => i64::from(hay.ends_with(needle)),
            Search::Find => find(hay).map_or(-1, |p| char_count(&hay[..p]) as i64),
            Search::Rfind => {
                let at = if needle.is_empty() {
                    Some(hay.len())
                } else {
                    match finder_rev {
                        Some(f) => f.rfind(hay),
                        None => memchr::memmem::rfind(hay, needle),
                    }
                };
                at.map_or(-1, |p| char_count(&hay[..p]) as i64)
            }
            Search::CountMatches => {
                if needle.is_empty() {
                    return char_count(hay) as i64 + 1;
                }
                let mut count = 0i64;
                let mut rest = hay;
                while let Some(p) = find(rest) {
                    count += 1;
                    rest = &rest[p + needle.len()..];
                }
                count
            }
        }
    }
}

/// The matches of a scalar pattern of `m >= 1` bytes in rows `first..last`, found by
/// searching the rows' contiguous bytes at once (memchr's SIMD searcher runs over the
/// whole range instead of being started once per short row). Calls `hit(row, byte)`
/// for each match inside a row (`byte` within the row), leftmost first and without
/// overlap; with `first_only`, only each row's first match. A match that runs into
/// the next row is skipped.
fn scan_rows<O: OffsetSize>(
    col: &StringColumn<O>,
    finder: &Finder<'_>,
    m: usize,
    (first, last): (usize, usize),
    first_only: bool,
    mut hit: impl FnMut(usize, usize),
) {
    let offsets: &[O] = col.offsets();
    let values: &[u8] = col.values();
    let end = offsets[last].as_usize();
    let mut pos = offsets[first].as_usize();
    let mut row = first;
    while pos < end {
        let Some(found) = finder.find(&values[pos..end]) else {
            break;
        };
        let p = pos + found;
        // The row holding byte p (empty rows are passed over).
        while offsets[row + 1].as_usize() <= p {
            row += 1;
        }
        let row_end = offsets[row + 1].as_usize();
        if p + m <= row_end {
            hit(row, p - offsets[row].as_usize());
            pos = if first_only { row_end } else { p + m };
        } else {
            pos = p + 1;
        }
    }
}

/// The scalar pattern's searcher when the range scan applies: a non-empty scalar.
fn range_finder<'p>(patterns: &'p Patterns<'_>) -> Option<(&'p Finder<'p>, usize)> {
    match patterns {
        Patterns::Scalar { bytes, finder, .. } if !bytes.is_empty() => Some((finder, bytes.len())),
        _ => None,
    }
}

/// The output validity: the AND of the column's and the pattern's.
fn output_validity<O: OffsetSize>(
    col: &StringColumn<O>,
    patterns: &Patterns<'_>,
) -> Option<NullBuffer> {
    NullBuffer::union(col.validity(), patterns.validity())
}

/// A boolean search (`contains`, `starts_with`, `ends_with`).
pub(crate) fn search_bool<O: OffsetSize>(
    op: Search,
    col: &StringColumn<O>,
    pattern: Pattern<'_>,
) -> Result<BooleanColumn> {
    pattern.check_rows(op.name(), col.len())?;
    let patterns = Patterns::new(pattern);
    let n = col.len();
    let values = bool_words(n, |base, chunk| {
        if let (Search::Contains, Some((finder, m))) = (op, range_finder(&patterns)) {
            let rows = (base, n.min(base + chunk.len() * 64));
            scan_rows(col, finder, m, rows, true, |row, _| {
                chunk[(row - base) / 64] |= 1u64 << ((row - base) % 64);
            });
        } else if let (Search::StartsWith | Search::EndsWith, Patterns::Scalar { bytes, .. }) =
            (op, &patterns)
        {
            // A scalar prefix or suffix: one comparison straight off the offsets.
            let (offsets, values): (&[O], &[u8]) = (col.offsets(), col.values());
            let m = bytes.len();
            set_bits(chunk, base, n, |row| {
                let (a, z) = (offsets[row].as_usize(), offsets[row + 1].as_usize());
                z - a >= m
                    && if op == Search::StartsWith {
                        &values[a..a + m] == *bytes
                    } else {
                        &values[z - m..z] == *bytes
                    }
            });
        } else {
            set_bits(chunk, base, n, |row| {
                patterns.answer(op, row, col.row_bytes(row)) != 0
            });
        }
    });
    BooleanColumn::try_new(NullBuffer::new(values), output_validity(col, &patterns))
}

/// A position or count search (`find`, `rfind`, `count_matches`), in the column's
/// offset type. A row's answer is at most its byte length + 1; only `count_matches`
/// of the empty pattern in one `Utf8` row of `i32::MAX` ASCII characters does not
/// fit, which is [`ragged_core::Error::Overflow`] naming the row.
pub(crate) fn search_position<O: OffsetSize>(
    op: Search,
    col: &StringColumn<O>,
    pattern: Pattern<'_>,
) -> Result<PrimitiveColumn<O>> {
    pattern.check_rows(op.name(), col.len())?;
    let patterns = Patterns::new(pattern);
    let mut out: Vec<O> = output_vec(col.len());
    let overflow = out
        .par_chunks_mut(CHUNK)
        .enumerate()
        .filter_map(|(task, chunk)| {
            let base = task * CHUNK;
            let rows = (base, base + chunk.len());
            match (op, range_finder(&patterns)) {
                (Search::Find, Some((finder, m))) => {
                    chunk.fill(O::from_i64(-1).unwrap_or_default());
                    scan_rows(col, finder, m, rows, true, |row, byte| {
                        let before = &col.row_bytes(row)[..byte];
                        chunk[row - base] = O::usize_as(char_count(before));
                    });
                    return None;
                }
                (Search::CountMatches, Some((finder, m))) => {
                    scan_rows(col, finder, m, rows, false, |row, _| {
                        chunk[row - base] += O::usize_as(1);
                    });
                    return None;
                }
                _ => {}
            }
            let mut overflow = None;
            for (k, slot) in chunk.iter_mut().enumerate() {
                let row = task * CHUNK + k;
                let answer = patterns.answer(op, row, col.row_bytes(row));
                match O::from_i64(answer) {
                    Some(v) => *slot = v,
                    None => overflow = overflow.or(Some(row)),
                }
            }
            overflow
        })
        .min();
    if let Some(row) = overflow {
        return Err(ragged_core::Error::Overflow {
            op: op.name(),
            message: format!("the answer of row {row} exceeds the i32 offset type"),
        });
    }
    PrimitiveColumn::try_new(out.into(), output_validity(col, &patterns))
}
