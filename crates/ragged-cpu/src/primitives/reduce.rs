//! Reductions of a whole column to one value: `reduce_sum`, `reduce_sum_f64`,
//! `reduce_min`, `reduce_max`, `reduce_argmin`, `reduce_argmax`, `count_valid`,
//! `count_if`, `reduce_any`, `reduce_all`.
//!
//! Mapping: the values are cut into chunks of [`CHUNK`] elements; rayon reduces each
//! chunk (skipping nulls through the validity bitmap) and the chunk results are
//! combined in row order. Integer partial sums are kept in 128 bits and only the total
//! is checked against the accumulator type, so overflow is an error, never a wrap,
//! whatever the order. Extremes combine `(value, row)` pairs with the rule of
//! [`Extreme::replaces`]: the lowest row among equal extremes, NaN ignored unless every
//! valid value is NaN.
//!
//! Complexity: O(n) work, one read of the values and of the validity bitmap.

use arrow_buffer::BooleanBuffer;
use rayon::prelude::*;

use ragged_core::ops::{Comparison, Predicate, Transform};
use ragged_core::{BooleanColumn, Error, Native, PrimitiveColumn, Result};

use super::{for_each_row, transformed, Best, Extreme};
use crate::CHUNK;
use ragged_core::host::{elements_in, prefetched_pieces, PIECE_BYTES};

/// Sum of the valid values; see [`ragged_core::Primitives::reduce_sum`].
pub(crate) fn reduce_sum<T: Native>(col: &PrimitiveColumn<T>) -> Result<T::Sum> {
    let values: &[T] = col.values();
    let validity = col.validity();
    let total = values
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(chunk_index, chunk)| {
            if validity.is_none() {
                // No nulls: eight independent lanes, vectorized.
                return T::sum_slice(chunk);
            }
            let mut acc = T::wide_zero();
            for_each_row(chunk, validity, chunk_index * CHUNK, |_, v, valid| {
                if valid {
                    acc = T::wide_add(acc, v);
                }
            });
            acc
        })
        .reduce(T::wide_zero, T::wide_merge);
    T::wide_total(total).ok_or_else(|| Error::Overflow {
        op: "reduce_sum",
        message: format!(
            "the sum of {} values does not fit {}",
            T::NAME,
            <T::Sum as Native>::NAME
        ),
    })
}

/// Sum of `transform(x)` over the valid values, in `f64`; see
/// [`ragged_core::Primitives::reduce_sum_f64`].
pub(crate) fn reduce_sum_f64<T: Native>(col: &PrimitiveColumn<T>, transform: Transform) -> f64 {
    let values: &[T] = col.values();
    let validity = col.validity();
    values
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(chunk_index, chunk)| {
            if validity.is_none() {
                // No nulls: the transform chosen once per chunk, eight lanes.
                return match transform {
                    Transform::Identity => sum_f64_lanes(chunk, |x| x),
                    Transform::Square => sum_f64_lanes(chunk, |x| x * x),
                    Transform::Abs => sum_f64_lanes(chunk, f64::abs),
                };
            }
            let mut acc = 0.0f64;
            for_each_row(chunk, validity, chunk_index * CHUNK, |_, v, valid| {
                if valid {
                    acc += transformed(transform, v);
                }
            });
            acc
        })
        .reduce(|| 0.0, |a, b| a + b)
}

/// The sum of `f(x)` over `values` in `f64`, in eight independent lanes (one running
/// sum held the loop to one addition's latency per value: 0.30 × memcpy for the sum of
/// squares of f32 on the 2-core machine).
///
/// Each prefetched piece of the input is first transformed into an `f64` buffer on the
/// stack, a plain element-wise loop that compiles to whole-register conversions from
/// memory (`cvtps2pd`, `cvtdq2pd`); the lanes then add the buffer in order. Converting inside
/// the lanes' loop let the vectorizer pair values from different registers (shuffles
/// beside every conversion, which bound the loop on the shuffle port: 0.6 × memcpy for
/// the sum of squares of f32 on the 2-core Xeon machine against 0.75–0.85 for the plain
/// sum).
///
/// On x86-64 CPUs with AVX2 the same loop is compiled a second time for AVX2 and chosen
/// at run time: four-wide conversions and arithmetic halve the instructions per value,
/// which the conversion-heavy loop needs to keep up with memory on one core.
#[inline]
pub(crate) fn sum_f64_lanes<T: Native>(values: &[T], f: impl Fn(f64) -> f64) -> f64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2, checked just above.
        return unsafe { sum_f64_lanes_avx2(values, f) };
    }
    sum_f64_lanes_body(values, f)
}

/// [`sum_f64_lanes_body`] compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn sum_f64_lanes_avx2<T: Native>(values: &[T], f: impl Fn(f64) -> f64) -> f64 {
    sum_f64_lanes_body(values, f)
}

/// The loop of [`sum_f64_lanes`], inlined into each of its instruction-set variants.
#[inline(always)]
fn sum_f64_lanes_body<T: Native>(values: &[T], f: impl Fn(f64) -> f64) -> f64 {
    const WIDE: usize = elements_in::<f32>(PIECE_BYTES);
    let mut lanes = [0.0f64; 8];
    let mut wide = [0.0f64; WIDE];
    // Pieces of one-byte values hold more than WIDE values: blocks of at most WIDE.
    for block in prefetched_pieces(values).flat_map(|piece| piece.chunks(WIDE)) {
        let wide = &mut wide[..block.len()];
        for (w, &v) in wide.iter_mut().zip(block) {
            *w = f(v.to_f64());
        }
        let mut chunks = wide.chunks_exact(8);
        for c in &mut chunks {
            for k in 0..8 {
                lanes[k] += c[k];
            }
        }
        for (lane, &w) in lanes.iter_mut().zip(chunks.remainder()) {
            *lane += w;
        }
    }
    lanes.iter().sum()
}

/// The extreme valid value and its row, `None` when no row is valid; see
/// [`ragged_core::Primitives::reduce_min`] and the arg forms.
pub(crate) fn reduce_extreme<T: Native>(
    col: &PrimitiveColumn<T>,
    extreme: Extreme,
) -> Option<Best<T>> {
    let values: &[T] = col.values();
    let validity = col.validity();
    // `collect` keeps the chunks in row order, so the merge below always has the
    // earlier rows on the left (rayon's `reduce` would too, but this states it).
    let per_chunk: Vec<Option<Best<T>>> = values
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(chunk_index, chunk)| {
            let base = chunk_index * CHUNK;
            if validity.is_none() {
                return dense_extreme(chunk, base, extreme);
            }
            let mut best = None;
            for_each_row(chunk, validity, base, |i, v, valid| {
                if valid {
                    best = extreme.step(best, base + i, v);
                }
            });
            best
        })
        .collect();
    per_chunk
        .into_iter()
        .fold(None, |acc, chunk| extreme.merge(acc, chunk))
}

/// Lanes of the extreme's first pass in [`dense_extreme`].
const EXTREME_LANES: usize = 16;

/// The extreme of a chunk without nulls (rows `base..`), under the rule of
/// [`Extreme::replaces`], in two passes: the least (greatest) non-NaN value `m` lane
/// by lane (a NaN never replaces a lane's value, and the lanes start at the identity),
/// then the first row equal to `m` — the earliest of the rows holding the extreme
/// (`-0.0 == 0.0`, so of the two zeros the earlier, as the rule keeps it), re-read from
/// the cache. No row equal to `m` means that every value is NaN: the first row. The
/// sequential fold (`Extreme::step` per row) kept one dependent compare and select per
/// value: 0.25 × memcpy for the minimum of i32 on the 2-core machine.
fn dense_extreme<T: Native>(chunk: &[T], base: usize, extreme: Extreme) -> Option<Best<T>> {
    let first = *chunk.first()?;
    let identity = extreme.identity::<T>();
    let mut lanes = [identity; EXTREME_LANES];
    let better = |a: T, b: T| match extreme {
        Extreme::Min => a < b,
        Extreme::Max => a > b,
    };
    let mut m = identity;
    // Prefetched pieces hold whole multiples of the lanes, but the last piece.
    for piece in prefetched_pieces(chunk) {
        let mut blocks = piece.chunks_exact(EXTREME_LANES);
        match extreme {
            Extreme::Min => {
                for c in &mut blocks {
                    for k in 0..EXTREME_LANES {
                        lanes[k] = if c[k] < lanes[k] { c[k] } else { lanes[k] };
                    }
                }
            }
            Extreme::Max => {
                for c in &mut blocks {
                    for k in 0..EXTREME_LANES {
                        lanes[k] = if c[k] > lanes[k] { c[k] } else { lanes[k] };
                    }
                }
            }
        }
        m = blocks
            .remainder()
            .iter()
            .fold(m, |m, &v| if better(v, m) { v } else { m });
    }
    let m = lanes
        .iter()
        .fold(m, |m, &v| if better(v, m) { v } else { m });
    Some(match first_equal(chunk, m) {
        Some(i) => Best {
            value: chunk[i],
            row: base + i,
        },
        None => Best {
            value: first,
            row: base,
        },
    })
}

/// The first index of `values` holding a value equal to `m`: 64 values at a time
/// tested without an early exit (so the test vectorizes), then the one block searched.
fn first_equal<T: Native>(values: &[T], m: T) -> Option<usize> {
    let mut at = 0;
    for block in values.chunks(64) {
        if block.iter().fold(false, |hit, &v| hit | (v == m)) {
            return block.iter().position(|&v| v == m).map(|i| at + i);
        }
        at += block.len();
    }
    None
}

/// Number of valid rows; see [`ragged_core::Primitives::count_valid`].
pub(crate) fn count_valid<T: Native>(col: &PrimitiveColumn<T>) -> usize {
    col.len() - col.null_count()
}

/// Number of valid rows satisfying `predicate`; see
/// [`ragged_core::Primitives::count_if`].
pub(crate) fn count_if<T: Native>(col: &PrimitiveColumn<T>, predicate: Predicate<T>) -> usize {
    let values: &[T] = col.values();
    let validity = col.validity();
    values
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(chunk_index, chunk)| {
            if validity.is_none() {
                return dense_count_if(chunk, predicate);
            }
            let mut count = 0usize;
            for_each_row(chunk, validity, chunk_index * CHUNK, |_, v, valid| {
                count += usize::from(valid && predicate.test(v));
            });
            count
        })
        .sum()
}

/// [`count_if`] of a chunk without nulls: the comparison chosen once per chunk, then
/// each prefetched piece counted as a sum of 0/1 (which vectorizes; the test of
/// `Predicate::test` per row matched the comparison again for every value).
fn dense_count_if<T: Native>(chunk: &[T], predicate: Predicate<T>) -> usize {
    let b = predicate.value;
    match predicate.comparison {
        Comparison::Eq => count_by(chunk, |x| x == b),
        Comparison::Ne => count_by(chunk, |x| x != b),
        Comparison::Lt => count_by(chunk, |x| x < b),
        Comparison::Le => count_by(chunk, |x| x <= b),
        Comparison::Gt => count_by(chunk, |x| x > b),
        Comparison::Ge => count_by(chunk, |x| x >= b),
    }
}

/// The number of values satisfying `test`, piece by piece (a piece holds at most
/// [`ragged_core::host::PIECE_BYTES`] values, so its count fits `u32`).
#[inline(always)]
fn count_by<T: Native>(values: &[T], test: impl Fn(T) -> bool) -> usize {
    prefetched_pieces(values)
        .map(|piece| piece.iter().map(|&x| u32::from(test(x))).sum::<u32>() as usize)
        .sum()
}

/// Number of rows that are valid and `true`, 64 rows at a time (`values AND validity`
/// word by word, counted per chunk of [`CHUNK`] rows).
fn count_true(col: &BooleanColumn) -> usize {
    let values: &BooleanBuffer = col.values().inner();
    let validity = col.validity().map(|v| v.inner());
    let len = col.len();
    (0..len.div_ceil(CHUNK))
        .into_par_iter()
        .map(|chunk_index| {
            let start = chunk_index * CHUNK;
            let n = CHUNK.min(len - start);
            let bits = values.slice(start, n);
            match validity {
                None => bits.count_set_bits(),
                Some(valid) => {
                    let valid = valid.slice(start, n);
                    let (a, b) = (bits.bit_chunks(), valid.bit_chunks());
                    let words: u32 = a
                        .iter()
                        .zip(b.iter())
                        .map(|(x, y)| (x & y).count_ones())
                        .sum();
                    let tail = (a.remainder_bits() & b.remainder_bits()).count_ones();
                    (words + tail) as usize
                }
            }
        })
        .sum()
}

/// Whether any valid value is `true` (`None` when no row is valid); see
/// [`ragged_core::Primitives::reduce_any`].
pub(crate) fn reduce_any(col: &BooleanColumn) -> Option<bool> {
    let valid = col.len() - col.null_count();
    (valid > 0).then(|| count_true(col) > 0)
}

/// Whether every valid value is `true` (`None` when no row is valid); see
/// [`ragged_core::Primitives::reduce_all`].
pub(crate) fn reduce_all(col: &BooleanColumn) -> Option<bool> {
    let valid = col.len() - col.null_count();
    (valid > 0).then(|| count_true(col) == valid)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sequential rule: `Extreme::step` over every row.
    fn fold<T: Native>(values: &[T], base: usize, extreme: Extreme) -> Option<Best<T>> {
        values
            .iter()
            .enumerate()
            .fold(None, |best, (i, &v)| extreme.step(best, base + i, v))
    }

    /// Same row, and the same value bit for bit (so the sign of a zero counts).
    fn same<T: Native>(a: Option<Best<T>>, b: Option<Best<T>>) -> bool {
        match (a, b) {
            (Some(a), Some(b)) => {
                a.row == b.row && a.value.to_f64().to_bits() == b.value.to_f64().to_bits()
            }
            (None, None) => true,
            _ => false,
        }
    }

    #[test]
    fn dense_extreme_agrees_with_the_sequential_rule() {
        let pool = [
            f32::NAN,
            0.0,
            -0.0,
            1.5,
            -1.5,
            f32::INFINITY,
            f32::NEG_INFINITY,
            7.0,
        ];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for len in [1usize, 2, 15, 16, 17, 63, 64, 65, 130, 1000] {
            for trial in 0..60 {
                // Trials draw from a shrinking part of the pool: the later ones are
                // mostly NaN and zeros, or all NaN.
                let width = pool.len() - trial % pool.len();
                let values: Vec<f32> = (0..len)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        pool[(state % width as u64) as usize]
                    })
                    .collect();
                for extreme in [Extreme::Min, Extreme::Max] {
                    let got = dense_extreme(&values, 100, extreme);
                    let want = fold(&values, 100, extreme);
                    assert!(
                        same(got, want),
                        "{extreme:?} of {values:?}: {got:?} != {want:?}"
                    );
                }
                let ints: Vec<i32> = values
                    .iter()
                    .map(|&v| (v.to_bits() % 5) as i32 - 2)
                    .collect();
                for extreme in [Extreme::Min, Extreme::Max] {
                    assert_eq!(dense_extreme(&ints, 0, extreme), fold(&ints, 0, extreme));
                }
            }
        }
        assert_eq!(dense_extreme::<f64>(&[], 0, Extreme::Min), None);
    }

    #[test]
    fn sum_f64_lanes_sums_every_value_once() {
        let values: Vec<i16> = (0..1001).map(|i| (i % 37) as i16 - 18).collect();
        let want: f64 = values.iter().map(|&v| f64::from(v) * f64::from(v)).sum();
        assert_eq!(sum_f64_lanes(&values, |x| x * x), want);
        // The portable variant too, which CPUs with AVX2 never reach through the dispatch.
        assert_eq!(sum_f64_lanes_body(&values, |x| x * x), want);
        assert_eq!(sum_f64_lanes::<i16>(&[], f64::abs), 0.0);
    }

    #[test]
    fn dense_count_if_agrees_with_the_predicate_row_by_row() {
        // NaN, both zeros and the infinities among ordinary values, over several pieces.
        let specials = [
            f32::NAN,
            -0.0,
            0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            1.5,
            -2.0,
        ];
        let values: Vec<f32> = (0..3001)
            .map(|i| specials[(i * 3 + i / 11) % specials.len()])
            .collect();
        for comparison in ragged_testkit::conformance::primitives::COMPARISONS {
            for &b in &[0.0f32, -0.0, 1.5, f32::NAN, f32::INFINITY] {
                let p = Predicate::new(comparison, b);
                for len in [0, 1, 63, 64, 65, 3001] {
                    let want = values[..len].iter().filter(|&&x| p.test(x)).count();
                    assert_eq!(
                        dense_count_if(&values[..len], p),
                        want,
                        "{comparison:?} {b} {len}"
                    );
                }
            }
        }
    }
}
