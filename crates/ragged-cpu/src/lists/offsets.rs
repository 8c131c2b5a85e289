//! Offsets from per-list lengths, and `compact_offsets` (offsets from starts/stops).
//!
//! Mapping: the lists are cut into chunks of [`CHUNK`]; pass 1 computes each chunk's
//! total length in parallel (and, for `compact_offsets`, the chunk's first bad list);
//! a sequential prefix over the chunk totals gives each chunk's carry and the total;
//! pass 2 writes the offsets of every chunk in parallel from its carry.
//!
//! Complexity: O(n) work, two reads of the lengths' inputs, one write of the offsets.

use rayon::prelude::*;

use ragged_core::column::starts_stops_error;
use ragged_core::ops::{OffsetWidth, Offsets};
use ragged_core::{Error, Host, OffsetSize, Result, ScalarBuffer};

use super::offset_overflow;
use crate::{output_vec, CHUNK};

/// The per-chunk totals of `len_of(i)` over lists `0..n` (chunks of [`CHUNK`] lists),
/// accumulated in `i128` so that no partial total can wrap.
pub(crate) fn chunk_totals(n: usize, len_of: &(impl Fn(usize) -> i64 + Sync)) -> Vec<i128> {
    (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let (start, end) = (c * CHUNK, ((c + 1) * CHUNK).min(n));
            (start..end).map(|i| i128::from(len_of(i))).sum::<i128>()
        })
        .collect()
}

/// The carry (offset of its first list) of each chunk and the total, or `Overflow`
/// when the total does not fit `i64`.
pub(crate) fn carries(op: &'static str, totals: &[i128]) -> Result<(Vec<i64>, i64)> {
    let mut carries = Vec::with_capacity(totals.len());
    let mut total: i128 = 0;
    for &t in totals {
        carries.push(i64::try_from(total).unwrap_or(i64::MAX));
        total += t;
    }
    let total = i64::try_from(total).map_err(|_| Error::Overflow {
        op,
        message: format!("the total length {total} does not fit i64"),
    })?;
    Ok((carries, total))
}

/// The index of the first offset above `limit` (offset `i + 1` closes list `i`), given
/// the chunk carries; `n + 1` when there is none.
pub(crate) fn first_offset_above(
    n: usize,
    len_of: &(impl Fn(usize) -> i64 + Sync),
    carries: &[i64],
    totals: &[i128],
    limit: i64,
) -> usize {
    for (c, (&carry, &t)) in carries.iter().zip(totals).enumerate() {
        if i128::from(carry) + t > i128::from(limit) {
            let mut acc = i128::from(carry);
            for i in c * CHUNK..((c + 1) * CHUNK).min(n) {
                acc += i128::from(len_of(i));
                if acc > i128::from(limit) {
                    return i + 1;
                }
            }
        }
    }
    n + 1
}

/// The `n + 1` offsets of lists of lengths `len_of(i)`, from the chunk carries. Every
/// offset must fit `X` (the caller checked the total).
pub(crate) fn fill_offsets<X: OffsetSize>(
    n: usize,
    len_of: &(impl Fn(usize) -> i64 + Sync),
    carries: &[i64],
) -> Vec<X> {
    let mut out = output_vec::<X>(n + 1);
    out[1..]
        .par_chunks_mut(CHUNK)
        .zip(carries.par_iter())
        .enumerate()
        .for_each(|(c, (slots, &carry))| {
            let base = c * CHUNK;
            let mut acc = carry;
            for (k, slot) in slots.iter_mut().enumerate() {
                acc += len_of(base + k);
                // Lossless: every offset is at most the total, which fits X.
                *slot = X::usize_as(acc as usize);
            }
        });
    out
}

/// Offsets of type `X` for lists of lengths `len_of(i)`, and the total; `Overflow`
/// (naming the first offset beyond `X`'s range) when the total does not fit `X`.
pub(crate) fn offsets_from_lengths<X: OffsetSize>(
    op: &'static str,
    n: usize,
    len_of: &(impl Fn(usize) -> i64 + Sync),
) -> Result<(Vec<X>, i64)> {
    let totals = chunk_totals(n, len_of);
    let (carries, total) = carries(op, &totals)?;
    if X::from_i64(total).is_none() {
        let limit = i64::from(i32::MAX);
        let index = first_offset_above(n, len_of, &carries, &totals, limit);
        return Err(offset_overflow(op, index, total));
    }
    Ok((fill_offsets::<X>(n, len_of, &carries), total))
}

/// Compact offsets from starts and stops; see [`ragged_core::ListOps::compact_offsets`].
pub(crate) fn compact_offsets<O: OffsetSize>(
    starts: &ScalarBuffer<O>,
    stops: &ScalarBuffer<O>,
    child_len: usize,
    width: OffsetWidth,
) -> Result<(Offsets<Host>, i64)> {
    const OP: &str = "compact_offsets";
    let (starts, stops): (&[O], &[O]) = (starts, stops);
    if starts.len() != stops.len() {
        return Err(Error::LengthMismatch {
            op: OP,
            what: "stops",
            expected: starts.len(),
            actual: stops.len(),
        });
    }
    let n = starts.len();
    let len = i64::try_from(child_len).unwrap_or(i64::MAX);

    // Pass 1: per chunk, the total length and whether every list is in order and in
    // bounds (branch-free); the first bad list only for a chunk that has one.
    let per_chunk: Vec<(i128, bool)> = starts
        .par_chunks(CHUNK)
        .zip(stops.par_chunks(CHUNK))
        .map(|(a, b)| {
            let mut ok = true;
            let mut sum = 0i128;
            for (x, y) in a.iter().zip(b) {
                let (x, y) = (x.as_i64(), y.as_i64());
                ok &= (x >= 0) & (x <= y) & (y <= len);
                sum += i128::from(y) - i128::from(x);
            }
            (sum, ok)
        })
        .collect();
    if let Some(c) = per_chunk.iter().position(|&(_, ok)| !ok) {
        for i in c * CHUNK..((c + 1) * CHUNK).min(n) {
            if let Some(e) = starts_stops_error(i, starts[i].as_i64(), stops[i].as_i64(), child_len)
            {
                return Err(e);
            }
        }
    }
    let totals: Vec<i128> = per_chunk.iter().map(|&(t, _)| t).collect();
    let (carries, total) = carries(OP, &totals)?;
    let len_of = |i: usize| stops[i].as_i64() - starts[i].as_i64();
    let narrow = match width {
        OffsetWidth::I64 => false,
        OffsetWidth::Auto => total <= i64::from(i32::MAX),
        OffsetWidth::I32 if total <= i64::from(i32::MAX) => true,
        OffsetWidth::I32 => {
            let index = first_offset_above(n, &len_of, &carries, &totals, i64::from(i32::MAX));
            return Err(offset_overflow(OP, index, total));
        }
    };
    let offsets = if narrow {
        Offsets::I32(ScalarBuffer::from(fill_offsets::<i32>(
            n, &len_of, &carries,
        )))
    } else {
        Offsets::I64(ScalarBuffer::from(fill_offsets::<i64>(
            n, &len_of, &carries,
        )))
    };
    Ok((offsets, total))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Starts/stops of `n` lists, overlapping and out of order.
    fn lists(n: usize) -> (Vec<i64>, Vec<i64>) {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        (0..n)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let start = (state % 1000) as i64;
                (start, start + (state >> 40) as i64 % 9)
            })
            .unzip()
    }

    #[test]
    fn offsets_of_many_chunks_match_a_sequential_prefix_and_name_the_lowest_bad_list() {
        let n = 5 * CHUNK + 123;
        let (starts, mut stops) = lists(n);
        let (a, b) = (
            ScalarBuffer::from(starts.clone()),
            ScalarBuffer::from(stops.clone()),
        );
        let (offsets, total) = compact_offsets(&a, &b, 1010, OffsetWidth::I64).unwrap();
        let Offsets::I64(offsets) = offsets else {
            panic!("i64 offsets were asked for");
        };
        let mut expected = vec![0i64];
        for (x, y) in starts.iter().zip(&stops) {
            expected.push(expected.last().copied().unwrap_or(0) + y - x);
        }
        assert_eq!(&offsets[..], &expected[..]);
        assert_eq!(total, expected[n]);
        // Two bad lists in later chunks: the lower one is named.
        stops[4 * CHUNK + 7] = -1;
        stops[3 * CHUNK + 5] = starts[3 * CHUNK + 5] - 1;
        let b = ScalarBuffer::from(stops);
        let err = compact_offsets(&a, &b, 1010, OffsetWidth::I64).unwrap_err();
        assert!(
            matches!(err, Error::StopsBeforeStarts { index, .. } if index == 3 * CHUNK + 5),
            "{err}"
        );
    }
}
