//! Offsets from per-list lengths, and `compact_offsets` (offsets from starts/stops).
//!
//! Mapping, offsets from lengths: the lists are cut into chunks of [`CHUNK`]; pass 1
//! computes each chunk's total length in parallel; a sequential prefix over the chunk
//! totals gives each chunk's carry and the total; pass 2 writes the offsets of every
//! chunk in parallel from its carry. `compact_offsets` is one pass over memory instead:
//! tiles taken in order, each carried by the previous tile's published prefix (see
//! [`compact_offsets`]).
//!
//! Complexity: O(n) work; from lengths, two reads of the lengths' inputs and one write
//! of the offsets; `compact_offsets`, one read of the starts and stops from memory (the
//! second from the cache) and one write.

use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};
use std::sync::Mutex;

use rayon::prelude::*;

use ragged_core::column::starts_stops_error;
use ragged_core::ops::{OffsetWidth, Offsets};
use ragged_core::{Error, Host, OffsetSize, Result, ScalarBuffer};

use super::offset_overflow;
use crate::{filled_output_vec, CHUNK};

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
/// offset must fit `X` (the caller checked the total). The output is written once, not
/// zeroed first.
pub(crate) fn fill_offsets<X: OffsetSize>(
    n: usize,
    len_of: &(impl Fn(usize) -> i64 + Sync),
    carries: &[i64],
) -> Vec<X> {
    let fill = |out: &mut [MaybeUninit<X>]| {
        out[0].write(X::usize_as(0));
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
                    slot.write(X::usize_as(acc as usize));
                }
            });
    };
    // SAFETY: `fill` writes slot 0 and every slot of `1..=n` (the chunks of CHUNK
    // cover them, one carry per chunk).
    unsafe { filled_output_vec(n + 1, fill) }
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

/// Lists per tile of [`compact_offsets`]: 16 bytes of starts and stops each, so a
/// tile's 128 KiB stay in a core's L2 cache between its two reads.
const TILE: usize = 8192;

/// A tile's inclusive prefix not published yet ([`compact_offsets`]).
const PENDING: i64 = i64::MIN;

/// Whether every list of a tile is good (`0 <= start <= stop <= len`), and the sum of
/// their lengths in wrapping 64-bit arithmetic — exact when they are all good and
/// `len <= i64::MAX / TILE` (lists of a tile, [`TILE`] at most). Branch-free, so the
/// compiler vectorizes it (with AVX2 in [`check_and_sum_avx2`]).
#[inline(always)]
fn check_and_sum<O: OffsetSize>(starts: &[O], stops: &[O], len: i64) -> (bool, i64) {
    let mut bad = false;
    let mut sum = 0i64;
    for (x, y) in starts.iter().zip(stops) {
        let (x, y) = (x.as_i64(), y.as_i64());
        bad |= (x < 0) | (x > y) | (y > len);
        sum = sum.wrapping_add(y.wrapping_sub(x));
    }
    (!bad, sum)
}

/// [`check_and_sum`] compiled for AVX2 (four 64-bit lanes per compare and add, where
/// the baseline x86-64 target has no 64-bit vector compare).
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn check_and_sum_avx2<O: OffsetSize>(starts: &[O], stops: &[O], len: i64) -> (bool, i64) {
    check_and_sum(starts, stops, len)
}

/// A tile's check and total ([`check_and_sum`]; with AVX2 when `avx2`, which the
/// caller detected), in `i128` when the child is too long for the 64-bit sum to be
/// exact.
fn tile_check_sum<O: OffsetSize>(starts: &[O], stops: &[O], len: i64, avx2: bool) -> (bool, i128) {
    if len > i64::MAX / TILE as i64 {
        // The check does not depend on the sum; the total again, exactly.
        let (ok, _) = check_and_sum(starts, stops, len);
        let sum = starts
            .iter()
            .zip(stops)
            .map(|(x, y)| i128::from(y.as_i64()) - i128::from(x.as_i64()))
            .sum();
        return (ok, sum);
    }
    #[cfg(target_arch = "x86_64")]
    if avx2 {
        // SAFETY: the caller found AVX2 on this CPU.
        let (ok, sum) = unsafe { check_and_sum_avx2(starts, stops, len) };
        return (ok, i128::from(sum));
    }
    let _ = avx2;
    let (ok, sum) = check_and_sum(starts, stops, len);
    (ok, i128::from(sum))
}

/// Compact offsets from starts and stops; see [`ragged_core::ListOps::compact_offsets`].
///
/// One pass over memory, as a GPU scan with look-back makes it: every thread takes the
/// next tile of [`TILE`] lists in order, sums its lengths and checks its lists (in
/// order, in bounds), waits for the previous tile's inclusive prefix, publishes its own,
/// then writes its offsets from that carry ([`write_prefix`]: non-temporal stores on
/// x86-64), reading its starts and stops again from the cache. A thread waits only for
/// a tile taken before its own, whose thread needs nothing from it, so the tiles finish
/// in order. The `i64` offsets are narrowed to `i32` afterwards when asked for and the
/// total fits.
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
    let tiles = n.div_ceil(TILE);
    let inclusive: Vec<AtomicI64> = (0..tiles).map(|_| AtomicI64::new(PENDING)).collect();
    let bad_tile = AtomicUsize::new(usize::MAX);
    let overflow = AtomicBool::new(false);
    let next = AtomicUsize::new(0);
    #[cfg(target_arch = "x86_64")]
    let avx2 = std::arch::is_x86_feature_detected!("avx2");
    #[cfg(not(target_arch = "x86_64"))]
    let avx2 = false;
    let fill = |out: &mut [MaybeUninit<i64>]| {
        out[0].write(0);
        let parts: Vec<Mutex<Option<&mut [MaybeUninit<i64>]>>> = out[1..]
            .chunks_mut(TILE)
            .map(|part| Mutex::new(Some(part)))
            .collect();
        let work = || loop {
            let t = next.fetch_add(1, Ordering::Relaxed);
            let Some(part) = parts.get(t).and_then(|p| p.lock().ok()?.take()) else {
                return;
            };
            let range = t * TILE..(t * TILE + part.len());
            let (a, b) = (&starts[range.clone()], &stops[range]);
            let (ok, sum) = tile_check_sum(a, b, len, avx2);
            if !ok {
                bad_tile.fetch_min(t, Ordering::Relaxed);
            }
            let carry = if t == 0 {
                0
            } else {
                wait_published(&inclusive[t - 1])
            };
            let total = i64::try_from(i128::from(carry) + sum)
                .ok()
                .filter(|&v| v != PENDING);
            if total.is_none() {
                overflow.store(true, Ordering::Relaxed);
            }
            // After an overflow every later offset is meaningless: the call fails.
            inclusive[t].store(total.unwrap_or(i64::MAX), Ordering::Release);
            write_prefix(part, carry, a, b);
        };
        rayon::scope(|s| {
            for _ in 0..rayon::current_num_threads() {
                s.spawn(|_| work());
            }
        });
    };
    // SAFETY: slot 0 is written first, and the tiles' parts tile slots 1..=n; every
    // part is taken by exactly one thread (the counter hands out each tile once and
    // the threads run until none is left), which writes all of its slots.
    let offsets = unsafe { filled_output_vec::<i64>(n + 1, fill) };
    let first_bad = bad_tile.into_inner();
    if first_bad != usize::MAX {
        for i in first_bad * TILE..((first_bad + 1) * TILE).min(n) {
            if let Some(e) = starts_stops_error(i, starts[i].as_i64(), stops[i].as_i64(), child_len)
            {
                return Err(e);
            }
        }
    }
    if overflow.into_inner() {
        return Err(Error::Overflow {
            op: OP,
            message: "the total length does not fit i64".to_string(),
        });
    }
    let total = offsets[n];
    let narrow = match width {
        OffsetWidth::I64 => false,
        OffsetWidth::Auto => total <= i64::from(i32::MAX),
        OffsetWidth::I32 if total <= i64::from(i32::MAX) => true,
        OffsetWidth::I32 => {
            // The offsets do not decrease (every list is good): the first one above.
            let index = offsets.partition_point(|&o| o <= i64::from(i32::MAX));
            return Err(offset_overflow(OP, index, total));
        }
    };
    let offsets = if narrow {
        // Lossless: every offset is at most the total, which fits i32.
        let narrowed = offsets.par_iter().map(|&o| o as i32).collect::<Vec<_>>();
        Offsets::I32(ScalarBuffer::from(narrowed))
    } else {
        Offsets::I64(ScalarBuffer::from(offsets))
    };
    Ok((offsets, total))
}

/// Writes `slots[i] = carry + sum of stops[k] - starts[k] for k <= i` (wrapping). On
/// x86-64 the stores are non-temporal (`movnti`, then a fence): the offsets are read
/// back only after the call, and such stores do not first read each line of the
/// output into the cache, as plain stores do (a quarter of the pass's traffic then:
/// 2^28 lists 247–256 → 195–204 ms on a 2-core AMD EPYC, PERFORMANCE v0.32).
fn write_prefix<O: OffsetSize>(
    slots: &mut [MaybeUninit<i64>],
    carry: i64,
    starts: &[O],
    stops: &[O],
) {
    let mut acc = carry;
    for ((slot, x), y) in slots.iter_mut().zip(starts).zip(stops) {
        acc = acc.wrapping_add(y.as_i64().wrapping_sub(x.as_i64()));
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `slot` is a valid, aligned `i64` slot of the output (movnti is in
        // x86-64's baseline, SSE2).
        unsafe {
            std::arch::x86_64::_mm_stream_si64(slot.as_mut_ptr(), acc)
        };
        #[cfg(not(target_arch = "x86_64"))]
        slot.write(acc);
    }
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a fence (SSE2): the non-temporal stores above are ordered before this
    // thread's later stores and its hand-over of the slots.
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
}

/// The value of `slot` once it is no longer [`PENDING`]: a short spin, then yielding
/// the core (the thread publishing it may have been descheduled).
fn wait_published(slot: &AtomicI64) -> i64 {
    let mut spins = 0u32;
    loop {
        let v = slot.load(Ordering::Acquire);
        if v != PENDING {
            return v;
        }
        if spins < 1 << 10 {
            spins += 1;
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
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

    #[test]
    fn tile_checks_and_sums_agree_on_every_path_and_catch_every_bad_list() {
        let (starts, stops) = lists(3 * TILE + 17);
        let huge = i64::MAX - 5;
        let avx2_paths: &[bool] = if cfg!(target_arch = "x86_64") {
            &[false, true]
        } else {
            &[false]
        };
        for &avx2 in avx2_paths {
            #[cfg(target_arch = "x86_64")]
            if avx2 && !std::arch::is_x86_feature_detected!("avx2") {
                continue;
            }
            let want: i128 = starts
                .iter()
                .zip(&stops)
                .map(|(x, y)| i128::from(y - x))
                .sum();
            // The 64-bit sum (len 1010) and the i128 one (a child too long for it).
            for len in [1010, huge] {
                assert_eq!(tile_check_sum(&starts, &stops, len, avx2), (true, want));
            }
            // One bad list anywhere: negative start, stop before start, stop past len.
            for at in [0, 5, TILE - 1, TILE, 2 * TILE + 3, 3 * TILE + 16] {
                for (x, y) in [(-1, 3), (7, 6), (0, 1011)] {
                    let (mut a, mut b) = (starts.clone(), stops.clone());
                    (a[at], b[at]) = (x, y);
                    assert!(!tile_check_sum(&a, &b, 1010, avx2).0, "{at} {x} {y}");
                    if y <= 1010 {
                        assert!(!tile_check_sum(&a, &b, huge, avx2).0, "{at} {x} {y}");
                    }
                }
            }
        }
    }
}
