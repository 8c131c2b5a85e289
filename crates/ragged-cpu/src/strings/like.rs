//! `like`: SQL `LIKE` matching of every row against one compiled pattern (see
//! [`ragged_core::ops::like_tokens`]).
//!
//! Mapping: rows in chunks across rayon tasks, 64 rows to an output word. Each row is
//! matched by the greedy wildcard algorithm with backtracking to the last `%`: O(row
//! × pattern) in the worst case, linear for patterns with at most one `%`. Characters
//! are decoded from the row's UTF-8 bytes on the fly. The output validity is the
//! column's.

use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer};
use rayon::prelude::*;

use ragged_core::ops::{like_tokens, LIKE_ANY_MANY, LIKE_ANY_ONE};
use ragged_core::{BooleanColumn, OffsetSize, Result, StringColumn};

use crate::{output_vec, CHUNK};

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

/// Whether the UTF-8 `row` matches the compiled pattern `tokens`.
pub(crate) fn like_match(row: &[u8], tokens: &[u32]) -> bool {
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

/// See [`ragged_core::StringOps::like`].
pub(crate) fn like<O: OffsetSize>(
    col: &StringColumn<O>,
    pattern: &str,
    escape: Option<char>,
) -> Result<BooleanColumn> {
    let tokens = like_tokens(pattern, escape)?;
    let n = col.len();
    let mut words: Vec<u64> = output_vec(n.div_ceil(64));
    const WORDS_PER_TASK: usize = CHUNK / 64;
    words
        .par_chunks_mut(WORDS_PER_TASK)
        .enumerate()
        .for_each(|(task, chunk)| {
            for (k, word) in chunk.iter_mut().enumerate() {
                let first = (task * WORDS_PER_TASK + k) * 64;
                let mut bits = 0u64;
                for (b, row) in (first..n.min(first + 64)).enumerate() {
                    bits |= u64::from(like_match(col.row_bytes(row), &tokens)) << b;
                }
                *word = bits;
            }
        });
    let values = BooleanBuffer::new(Buffer::from_vec(words), 0, n);
    BooleanColumn::try_new(NullBuffer::new(values), col.validity().cloned())
}
