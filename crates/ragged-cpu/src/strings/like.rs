//! `like`: SQL `LIKE` matching of every row against one compiled pattern (see
//! [`ragged_core::ops::like_tokens`]).
//!
//! Mapping: rows in chunks across rayon tasks, 64 rows to an output word. The pattern
//! is split at its `%`s into segments ([`Segments`]): the first must match at the
//! row's start (unless the pattern starts with `%`), the last at its end (unless it
//! ends with `%`), and the others are found leftmost, one after the other — which
//! decides `LIKE` exactly. Segments without `_` are searched with memchr's SIMD
//! `memmem`; others by trying each character position. Characters are decoded from
//! the row's UTF-8 bytes on the fly. The output validity is the column's.
//! (The GPU matches segments the same way; the unit tests check this against a greedy
//! matcher that backtracks to the last `%`.)

use arrow_buffer::NullBuffer;

use ragged_core::ops::{like_tokens, LIKE_ANY_MANY, LIKE_ANY_ONE};
use ragged_core::{BooleanColumn, OffsetSize, Result, StringColumn};

use crate::{bool_words, set_bits};

/// The code point starting at byte `at` of valid UTF-8 `bytes`, and its width.
fn decode(bytes: &[u8], at: usize) -> (u32, usize) {
    let b0 = u32::from(bytes[at]);
    let cont = |k: usize| u32::from(bytes.get(at + k).copied().unwrap_or(0x80) & 0x3F);
    match b0 {
        0x00..=0x7F => (b0, 1),
        0xC0..=0xDF => (((b0 & 0x1F) << 6) | cont(1), 2),
        0xE0..=0xEF => (((b0 & 0x0F) << 12) | (cont(1) << 6) | cont(2), 3),
        _ => (
            ((b0 & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3),
            4,
        ),
    }
}

/// One `%`-free run of pattern tokens, with its UTF-8 bytes and a SIMD searcher when it
/// holds no `_`.
struct Segment {
    tokens: Vec<u32>,
    literal: Option<(Vec<u8>, memchr::memmem::Finder<'static>)>,
}

impl Segment {
    fn new(tokens: &[u32]) -> Self {
        let literal = (!tokens.contains(&LIKE_ANY_ONE)).then(|| {
            let text: String = tokens.iter().filter_map(|&t| char::from_u32(t)).collect();
            let bytes = text.into_bytes();
            let finder = memchr::memmem::Finder::new(&bytes).into_owned();
            (bytes, finder)
        });
        Self {
            tokens: tokens.to_vec(),
            literal,
        }
    }

    /// The end of a match starting at byte `at`, if the segment matches there.
    fn match_at(&self, row: &[u8], at: usize) -> Option<usize> {
        if let Some((bytes, _)) = &self.literal {
            return row[at..].starts_with(bytes).then_some(at + bytes.len());
        }
        let mut s = at;
        for &t in &self.tokens {
            if s >= row.len() {
                return None;
            }
            let (c, width) = decode(row, s);
            if t != LIKE_ANY_ONE && t != c {
                return None;
            }
            s += width;
        }
        Some(s)
    }

    /// The leftmost match starting at or after byte `from` (a character boundary):
    /// its end.
    fn find_from(&self, row: &[u8], from: usize) -> Option<usize> {
        if let Some((bytes, finder)) = &self.literal {
            return finder.find(&row[from..]).map(|p| from + p + bytes.len());
        }
        let mut at = from;
        while at <= row.len() {
            if let Some(end) = self.match_at(row, at) {
                return Some(end);
            }
            if at == row.len() {
                break;
            }
            at += decode(row, at).1;
        }
        None
    }

    /// Whether the segment matches a suffix of `row` starting at or after `from`.
    fn matches_suffix(&self, row: &[u8], from: usize) -> bool {
        // The suffix of as many characters as the segment has tokens.
        let mut start = row.len();
        for _ in 0..self.tokens.len() {
            if start <= from {
                return false;
            }
            start -= 1;
            while start > from && (row[start] as i8) < -0x40 {
                start -= 1;
            }
        }
        start >= from && self.match_at(row, start) == Some(row.len())
    }
}

/// A compiled pattern split at its `%`s.
struct Segments {
    parts: Vec<Segment>,
    leading_many: bool,
    trailing_many: bool,
}

impl Segments {
    fn new(tokens: &[u32]) -> Self {
        Self {
            parts: tokens
                .split(|&t| t == LIKE_ANY_MANY)
                .filter(|part| !part.is_empty())
                .map(Segment::new)
                .collect(),
            leading_many: tokens.first() == Some(&LIKE_ANY_MANY),
            trailing_many: tokens.last() == Some(&LIKE_ANY_MANY),
        }
    }

    fn matches(&self, row: &[u8]) -> bool {
        let parts = &self.parts[..];
        if parts.is_empty() {
            // "" matches only the empty row; any run of `%` matches everything.
            return self.leading_many || row.is_empty();
        }
        if !self.leading_many && !self.trailing_many && parts.len() == 1 {
            return parts[0].match_at(row, 0) == Some(row.len());
        }
        let mut pos = 0;
        let mut middle = parts;
        if !self.leading_many {
            match parts[0].match_at(row, 0) {
                Some(end) => pos = end,
                None => return false,
            }
            middle = &middle[1..];
        }
        let last = if self.trailing_many {
            None
        } else {
            let (last, rest) = middle.split_last().unwrap_or((&parts[0], &[]));
            middle = rest;
            Some(last)
        };
        for part in middle {
            match part.find_from(row, pos) {
                Some(end) => pos = end,
                None => return false,
            }
        }
        last.is_none_or(|last| last.matches_suffix(row, pos))
    }
}

/// See [`ragged_core::StringOps::like`].
pub(crate) fn like<O: OffsetSize>(
    col: &StringColumn<O>,
    pattern: &str,
    escape: Option<char>,
) -> Result<BooleanColumn> {
    let segments = Segments::new(&like_tokens(pattern, escape)?);
    let n = col.len();
    let values = bool_words(n, |base, words| {
        set_bits(words, base, n, |row| segments.matches(col.row_bytes(row)));
    });
    BooleanColumn::try_new(NullBuffer::new(values), col.validity().cloned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the UTF-8 `row` matches the compiled pattern `tokens` (greedy, with
    /// backtracking to the last `%`).
    fn like_match(row: &[u8], tokens: &[u32]) -> bool {
        let (mut s, mut p) = (0usize, 0usize);
        // After the last `%`: the token after it and the row position it resumes from.
        let mut star: Option<(usize, usize)> = None;
        while s < row.len() {
            let (c, width) = decode(row, s);
            match tokens.get(p) {
                Some(&LIKE_ANY_MANY) => {
                    star = Some((p + 1, s));
                    p += 1;
                }
                Some(&t) if t == LIKE_ANY_ONE || t == c => {
                    p += 1;
                    s += width;
                }
                _ => match star {
                    // Let the last `%` take one more character and retry from there.
                    Some((after, mark)) => {
                        let next = mark + decode(row, mark).1;
                        star = Some((after, next));
                        p = after;
                        s = next;
                    }
                    None => return false,
                },
            }
        }
        tokens[p..].iter().all(|&t| t == LIKE_ANY_MANY)
    }

    /// The segment matcher agrees with the greedy matcher on rows and patterns built
    /// from a small alphabet (where matches, near misses and overlaps are frequent).
    #[test]
    fn segments_agree_with_the_greedy_matcher() {
        let alphabet = ['a', 'b', 'é', '%', '_'];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        for _ in 0..20_000 {
            let row: String = (0..next(7)).map(|_| alphabet[next(3)]).collect();
            let pattern: String = (0..next(6)).map(|_| alphabet[next(5)]).collect();
            let tokens = like_tokens(&pattern, None).unwrap_or_default();
            let greedy = like_match(row.as_bytes(), &tokens);
            let segments = Segments::new(&tokens).matches(row.as_bytes());
            assert_eq!(greedy, segments, "row {row:?} pattern {pattern:?}");
        }
    }
}
