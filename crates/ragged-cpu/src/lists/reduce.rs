//! Per-list reductions: `list_sum`, `list_prod`, `list_min`, `list_max`,
//! `list_argmin`, `list_argmax`, `list_count`, `list_count_nonzero`, `list_any`,
//! `list_all`, `list_mean`.
//!
//! Mapping: the lists are cut into tasks of consecutive lists holding about
//! [`crate::CHUNK`] elements ([`super::list_tasks`]); each rayon task reduces its
//! lists one after the other, sequentially within a list, and writes its own piece of
//! the output. Null lists are skipped without reading their elements (the offsets are
//! those of a valid column, so no validation pass is needed). On CPUs with AVX2, the
//! sums of `i32` lists and the minima and maxima of `i32` and `f32` lists without null
//! elements are AVX2 folds with a masked tail (`simd.rs`). Otherwise sums of a list
//! without null elements use the vectorized `Native::sum_slice`; integer sums keep 128-bit
//! partial sums and only each list's total is checked, as in the primitives family.
//! Extremes use the primitives' rule (`Extreme::replaces`): NaN ignored unless every
//! valid element is NaN, lowest position on ties.
//!
//! Output validity: the list validity (shared, not copied) for sums, products, counts,
//! `any` and `all`; the list validity AND "has a valid element" for minima, maxima,
//! their arg forms and means.
//!
//! Complexity: O(n + elements) work, one read of the valid lists' elements.

use std::mem::MaybeUninit;

use arrow_buffer::bit_chunk_iterator::UnalignedBitChunk;
use arrow_buffer::{BooleanBuffer, NullBuffer};
use rayon::prelude::*;

use ragged_core::host::prefetched_pieces;
use ragged_core::{
    BooleanColumn, Error, Host, ListColumn, Native, OffsetSize, PrimitiveColumn, Result,
    ScalarBuffer,
};

use super::{is_valid, list_tasks, lists_per_task};
use crate::primitives::{split_by_lengths, sum_f64_lanes, validity_from_flags, Extreme};
use crate::{filled_output_vec, output_vec};

/// The per-list results of [`per_list`]: one value per list, the lowest valid list
/// whose result is `None`, and (when asked for) whether each list is valid with a
/// result.
struct PerList<R> {
    values: Vec<R>,
    first_none: Option<usize>,
    valid: Option<Vec<bool>>,
}

/// A per-list reduction: `reduce(a, b)` of the child range `a..b` of a valid list,
/// `None` where the list has no result. Closures are reductions; the hot ones are types
/// whose `reduce` is `#[inline(always)]`, so that [`reduce_task`]'s AVX2 variant
/// compiles them for AVX2 (a closure is a function of its own, compiled once, for the
/// baseline instruction set).
trait ListReduce<R>: Sync {
    /// The result of the list whose elements are `a..b` of the child.
    fn reduce(&self, a: usize, b: usize) -> Option<R>;

    /// [`ListReduce::reduce`] in the AVX2 variant of the per-list loop, where a
    /// reduction may use AVX2 instructions ([`super::simd`]); `reduce` by default.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn reduce_avx2(&self, a: usize, b: usize) -> Option<R> {
        self.reduce(a, b)
    }
}

impl<R, F: Fn(usize, usize) -> Option<R> + Sync> ListReduce<R> for F {
    #[inline]
    fn reduce(&self, a: usize, b: usize) -> Option<R> {
        self(a, b)
    }
}

/// `f.reduce(start, end)` (the list's child range) for every valid list, `null` for
/// null lists and where `f` gives `None`, in parallel over [`list_tasks`], writing straight
/// into the output (no intermediate vector of options).
fn per_list<O: OffsetSize, R: Copy + Default + Send + Sync>(
    col: &ListColumn<O>,
    null: R,
    want_valid: bool,
    f: impl ListReduce<R>,
) -> PerList<R> {
    let offsets: &[O] = col.offsets();
    let validity = col.validity();
    let tasks = list_tasks(offsets);
    let lengths = lists_per_task(&tasks);
    let n = col.len();
    let mut first_none = None;
    // The results and, when asked for, the flags: every slot written by the tasks, so
    // neither is zeroed first (a zeroed vector of flags came from fresh pages on every
    // call: a thousand page faults per call for 4 M lists).
    let mut fill = |slots: &mut [MaybeUninit<R>], flag_slots: &mut [MaybeUninit<bool>]| {
        let flag_parts = if want_valid {
            split_by_lengths(flag_slots, &lengths)
        } else {
            lengths.iter().map(|_| Default::default()).collect()
        };
        first_none = split_by_lengths(slots, &lengths)
            .into_par_iter()
            .zip(flag_parts.into_par_iter())
            .zip(tasks.par_iter())
            .map(|((dst, flags), &(first, _))| {
                let task = Task {
                    dst,
                    flags,
                    first,
                    offsets,
                    validity,
                    null,
                };
                reduce_task(task, &f)
            })
            .collect::<Vec<_>>()
            .into_iter()
            .flatten()
            .next();
    };
    let mut flags = Vec::new();
    // SAFETY: the tasks' parts cover the n slots of each vector (`lengths` sums to n)
    // and `reduce_task` writes every slot of its parts.
    let values = unsafe {
        filled_output_vec(n, |slots| {
            if want_valid {
                flags = filled_output_vec(n, |flag_slots| fill(slots, flag_slots));
            } else {
                fill(slots, &mut []);
            }
        })
    };
    PerList {
        values,
        first_none,
        valid: want_valid.then_some(flags),
    }
}

/// One task of [`per_list`]: the results `dst` (and, when not empty, the flags) of the
/// lists `first ..`, over the column's offsets and validity.
struct Task<'a, O, R> {
    dst: &'a mut [MaybeUninit<R>],
    flags: &'a mut [MaybeUninit<bool>],
    first: usize,
    offsets: &'a [O],
    validity: Option<&'a NullBuffer>,
    null: R,
}

/// `f` of each list `first + k` of the task into `dst[k]`, every slot written (`null`
/// for null lists and where `f` gives `None`; whether it has a result into `flags[k]`
/// when `flags` is not empty); the lowest valid list whose result is `None`.
///
/// On x86-64 CPUs with AVX2 the loop, with `f` inlined into it, is compiled a second
/// time for AVX2 and chosen at run time: the per-list folds of 32-bit integers widen
/// and compare eight lanes per instruction (`vpmovsxdq`, `vpminsd`), which the baseline
/// instruction set (SSE2) has no instruction for.
#[inline]
fn reduce_task<O: OffsetSize, R: Copy>(
    task: Task<'_, O, R>,
    f: &impl ListReduce<R>,
) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2, checked just above.
        return unsafe { reduce_task_avx2(task, f) };
    }
    // SAFETY: AVX2 is false: no AVX2 reduction is called.
    unsafe { reduce_task_body::<O, R, false>(task, f) }
}

/// [`reduce_task_body`] compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn reduce_task_avx2<O: OffsetSize, R: Copy>(
    task: Task<'_, O, R>,
    f: &impl ListReduce<R>,
) -> Option<usize> {
    // SAFETY: the caller's contract: the CPU supports AVX2.
    unsafe { reduce_task_body::<O, R, true>(task, f) }
}

/// The loop of [`reduce_task`], inlined into each of its instruction-set variants;
/// `AVX2` calls [`ListReduce::reduce_avx2`].
///
/// # Safety
/// With `AVX2`, the CPU must support AVX2.
#[inline(always)]
unsafe fn reduce_task_body<O: OffsetSize, R: Copy, const AVX2: bool>(
    task: Task<'_, O, R>,
    f: &impl ListReduce<R>,
) -> Option<usize> {
    let Task {
        dst,
        flags,
        first,
        offsets,
        validity,
        null,
    } = task;
    let mut none = None;
    for (k, slot) in dst.iter_mut().enumerate() {
        let i = first + k;
        let result = if is_valid(validity, i) {
            let (a, b) = (offsets[i].as_usize(), offsets[i + 1].as_usize());
            #[cfg(target_arch = "x86_64")]
            let r = if AVX2 {
                // SAFETY: with AVX2 the CPU supports it (this function's contract).
                unsafe { f.reduce_avx2(a, b) }
            } else {
                f.reduce(a, b)
            };
            #[cfg(not(target_arch = "x86_64"))]
            let r = f.reduce(a, b);
            if r.is_none() && none.is_none() {
                none = Some(i);
            }
            r
        } else {
            None
        };
        slot.write(result.unwrap_or(null));
        if let Some(flag) = flags.get_mut(k) {
            flag.write(result.is_some());
        }
    }
    none
}

/// A primitive column of per-list results: the list validity (shared) or, when the
/// results carry their own flags, those.
fn column_of<O: OffsetSize, R: Native>(
    col: &ListColumn<O>,
    results: PerList<R>,
) -> Result<PrimitiveColumn<R>> {
    let validity = match results.valid {
        Some(flags) => validity_from_flags(flags),
        None => col.validity().cloned(),
    };
    PrimitiveColumn::try_new(ScalarBuffer::from(results.values), validity)
}

/// The number of set bits of `bits` in `start..end` (no allocation).
#[inline]
fn count_set(bits: &BooleanBuffer, start: usize, end: usize) -> usize {
    UnalignedBitChunk::new(bits.values(), bits.offset() + start, end - start).count_ones()
}

/// `Overflow` naming `list` when there is one.
fn overflow_at(op: &'static str, what: &str, list: Option<usize>) -> Result<()> {
    match list {
        Some(list) => Err(Error::Overflow {
            op,
            message: format!("the {what} of list {list} does not fit its accumulator"),
        }),
        None => Ok(()),
    }
}

/// The sum of a slice in [`Native::Wide`], in pieces `Native::sum_slice` accepts.
fn sum_wide<T: Native>(values: &[T]) -> T::Wide {
    values
        .chunks(u32::MAX as usize)
        .fold(T::wide_zero(), |acc, c| T::wide_merge(acc, T::sum_slice(c)))
}

/// The sum of each list's valid elements; see [`ragged_core::ListOps::list_sum`].
pub(crate) fn list_sum<O: OffsetSize, T: Native>(
    col: &ListColumn<O>,
) -> Result<PrimitiveColumn<T::Sum>> {
    const OP: &str = "list_sum";
    let child = col.child().as_primitive::<T>("list_sum child")?;
    let values: &[T] = child.values();
    let child_valid = child.validity();
    if child_valid.is_none() && !T::IS_FLOAT && std::mem::size_of::<T>() <= 4 {
        let offsets: &[O] = col.offsets();
        let n = col.len();
        let elements = offsets[n].as_usize() - offsets[0].as_usize();
        if elements < SHORT_LISTS * n {
            return short_int_sums(col, values);
        }
    }
    // Integers of at most 32 bits: fewer than 2^31 of them cannot overflow the 64-bit
    // sum type, so a list without nulls is summed in it directly (no 128-bit partials).
    let narrow = !T::IS_FLOAT && std::mem::size_of::<T>() <= 4;
    let sums = if narrow && child_valid.is_none() {
        per_list(col, T::sum_zero(), false, NarrowSum(values))
    } else {
        per_list(col, T::sum_zero(), false, |a, b| {
            let wide = match child_valid {
                // Short lists: a plain loop (the lanes of `sum_slice` cost more).
                None if b - a < 32 => values[a..b]
                    .iter()
                    .fold(T::wide_zero(), |acc, &v| T::wide_add(acc, v)),
                None => sum_wide(&values[a..b]),
                Some(m) => {
                    let mut acc = T::wide_zero();
                    for (j, &v) in values[a..b].iter().enumerate() {
                        if m.is_valid(a + j) {
                            acc = T::wide_add(acc, v);
                        }
                    }
                    acc
                }
            };
            T::wide_total(wide)
        })
    };
    overflow_at(OP, "sum", sums.first_none)?;
    column_of(col, sums)
}

/// The sums of lists of integers of at most 32 bits without null elements (the child's
/// values): fewer than 2^31 of them cannot overflow the 64-bit sum type, so a list is
/// summed in it directly, with no 128-bit partials.
struct NarrowSum<'a, T>(&'a [T]);

impl<T: Native> ListReduce<T::Sum> for NarrowSum<'_, T> {
    #[inline(always)]
    fn reduce(&self, a: usize, b: usize) -> Option<T::Sum> {
        let list = &self.0[a..b];
        if list.len() >= 1 << 31 {
            return T::wide_total(sum_wide(list));
        }
        // Long lists: eight lanes over prefetched pieces, as `reduce_sum` reads.
        if list.len() >= LONG_LIST {
            return T::wide_total(T::sum_slice(list));
        }
        Some(
            list.iter()
                .fold(T::sum_zero(), |acc, &v| T::sum_step(acc, v)),
        )
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn reduce_avx2(&self, a: usize, b: usize) -> Option<T::Sum> {
        match super::simd::as_type::<T, i32>(&self.0[a..b]) {
            // Fewer than 2^31 values of 32 bits: the i64 sum cannot overflow.
            Some(list) if list.len() < 1 << 31 => {
                // SAFETY: the CPU supports AVX2 (this method's contract).
                let sum = unsafe { super::simd::sum_i32(list) };
                // An i32 sum is i64: its bits carry over.
                Some(<T::Sum as arrow_buffer::ArrowNativeType>::usize_as(
                    sum as usize,
                ))
            }
            _ => self.reduce(a, b),
        }
    }
}

/// Lists of at least this many integers of at most 32 bits (no nulls) are summed by
/// `Native::sum_slice`; shorter ones by a plain fold.
const LONG_LIST: usize = 256;

/// Lists averaging fewer elements than this take [`short_int_sums`].
const SHORT_LISTS: usize = 16;

/// Sums of short lists of integers of at most 32 bits without null elements: a running
/// `i64` prefix over each task's elements, then one subtraction per list — no branch
/// on list lengths, which are unpredictable when lists are short. Nothing can overflow:
/// a task holds fewer than 2^32 values of at most 32 bits. Null lists hold 0.
fn short_int_sums<O: OffsetSize, T: Native>(
    col: &ListColumn<O>,
    values: &[T],
) -> Result<PrimitiveColumn<T::Sum>> {
    let offsets: &[O] = col.offsets();
    let validity = col.validity();
    let tasks = list_tasks(offsets);
    let lengths = lists_per_task(&tasks);
    let mut sums = output_vec::<T::Sum>(col.len());
    split_by_lengths(&mut sums, &lengths)
        .into_par_iter()
        .zip(tasks.par_iter())
        .for_each_init(Vec::new, |prefix: &mut Vec<i64>, (dst, &(first, end))| {
            let base = offsets[first].as_usize();
            prefix.clear();
            prefix.push(0);
            let mut running = 0i64;
            // At most 32-bit integers: `to_i64` is always `Some`.
            prefix.extend(values[base..offsets[end].as_usize()].iter().map(|v| {
                running += v.to_i64().unwrap_or(0);
                running
            }));
            for (k, slot) in dst.iter_mut().enumerate() {
                let i = first + k;
                let a = offsets[i].as_usize() - base;
                let b = offsets[i + 1].as_usize() - base;
                let sum = if is_valid(validity, i) {
                    prefix[b] - prefix[a]
                } else {
                    0
                };
                // i64 → i64 or (a non-negative sum) → u64: the bits carry over.
                *slot = <T::Sum as arrow_buffer::ArrowNativeType>::usize_as(sum as usize);
            }
        });
    PrimitiveColumn::try_new(ScalarBuffer::from(sums), col.validity().cloned())
}

/// A float as the accumulator of the float type `T` (`T::Sum` is `T` for floats).
fn float_as_sum<T: Native>(x: f64) -> Option<T::Sum> {
    let mut bytes = [0u8; 16];
    if T::NAME == "f32" {
        bytes[..4].copy_from_slice(&(x as f32).to_le_bytes());
    } else {
        bytes[..8].copy_from_slice(&x.to_le_bytes());
    }
    T::sum_from_wide(bytes)
}

/// An integer value as (magnitude, negative).
#[inline]
fn magnitude<T: Native>(v: T) -> (u128, bool) {
    match v.to_i64() {
        Some(x) => (u128::from(x.unsigned_abs()), x < 0),
        // Only u64 values above i64::MAX have no i64.
        None => (v.to_usize().map_or(0, |u| u as u128), false),
    }
}

/// The product of the valid elements `a..b` of an integer list as `T::Sum`, `None`
/// when the mathematical product does not fit.
fn int_product<T: Native>(
    values: &[T],
    validity: Option<&NullBuffer>,
    a: usize,
    b: usize,
) -> Option<T::Sum> {
    let (mut mag, mut negative, mut over) = (1u128, false, false);
    for (j, &v) in values[a..b].iter().enumerate() {
        if !is_valid(validity, a + j) {
            continue;
        }
        let (m, neg) = magnitude(v);
        if m == 0 {
            // A zero element makes the product 0, whatever the others are.
            return T::sum_from_wide(0i128.to_le_bytes());
        }
        negative ^= neg;
        if !over {
            // Both factors are at most u64::MAX: the product fits u128.
            mag = mag.saturating_mul(m);
            over = mag > u128::from(u64::MAX);
        }
    }
    if over {
        return None;
    }
    if T::NAME.starts_with('i') {
        // mag <= u64::MAX fits i128.
        let value = if negative {
            -(mag as i128)
        } else {
            mag as i128
        };
        T::sum_from_wide(value.to_le_bytes())
    } else {
        T::sum_from_wide(mag.to_le_bytes())
    }
}

/// The product of the valid elements `a..b` of a float list, left to right in `T`.
fn float_product<T: Native>(
    values: &[T],
    validity: Option<&NullBuffer>,
    a: usize,
    b: usize,
) -> Option<T::Sum> {
    let valid = values[a..b]
        .iter()
        .enumerate()
        .filter(|&(j, _)| is_valid(validity, a + j))
        .map(|(_, v)| v.to_f64());
    if T::NAME == "f32" {
        let p = valid.fold(1.0f32, |acc, x| acc * x as f32);
        float_as_sum::<T>(f64::from(p))
    } else {
        float_as_sum::<T>(valid.fold(1.0f64, |acc, x| acc * x))
    }
}

/// The product of each list's valid elements; see [`ragged_core::ListOps::list_prod`].
pub(crate) fn list_prod<O: OffsetSize, T: Native>(
    col: &ListColumn<O>,
) -> Result<PrimitiveColumn<T::Sum>> {
    const OP: &str = "list_prod";
    let child = col.child().as_primitive::<T>("list_prod child")?;
    let values: &[T] = child.values();
    let child_valid = child.validity();
    let one = if T::IS_FLOAT {
        float_as_sum::<T>(1.0)
    } else {
        T::sum_from_wide(1i128.to_le_bytes())
    }
    .unwrap_or_else(T::sum_zero);
    let products = per_list(col, one, false, |a, b| {
        if T::IS_FLOAT {
            float_product(values, child_valid, a, b)
        } else {
            int_product(values, child_valid, a, b)
        }
    });
    overflow_at(OP, "product", products.first_none)?;
    column_of(col, products)
}

/// The position (within `values`) of the extreme valid element of `values`, under the
/// rule of [`Extreme::replaces`] (NaN only when every valid element is NaN, the lowest
/// position on ties); `None` when no element is valid. `MAX` picks the maximum.
#[inline]
fn extreme_position<T: Native, const MAX: bool>(
    values: &[T],
    validity: Option<&NullBuffer>,
    first: usize,
) -> Option<usize> {
    let extreme = if MAX { Extreme::Max } else { Extreme::Min };
    let mut best: Option<usize> = None;
    let mut best_value = extreme.identity::<T>();
    match validity {
        None => {
            // Start at the first non-NaN element (all NaN: the first element); from
            // there a strict comparison is the rule (a NaN candidate compares false).
            let start = values.iter().position(|v| !v.is_nan_value());
            let Some(start) = start else {
                return (!values.is_empty()).then_some(0);
            };
            let (mut at, mut value) = (start, values[start]);
            for (j, &v) in values.iter().enumerate().skip(start + 1) {
                let better = if MAX { v > value } else { v < value };
                if better {
                    at = j;
                    value = v;
                }
            }
            best = Some(at);
        }
        Some(m) => {
            for (j, &v) in values.iter().enumerate() {
                if m.is_valid(first + j) && (best.is_none() || extreme.replaces(v, best_value)) {
                    best = Some(j);
                    best_value = v;
                }
            }
        }
    }
    best
}

/// `f(position)` of each list's extreme valid element (null where there is none).
fn per_extreme<O: OffsetSize, T: Native, R: Copy + Default + Send + Sync>(
    col: &ListColumn<O>,
    extreme: Extreme,
    what: &str,
    null: R,
    f: impl Fn(&[T], usize) -> R + Sync,
) -> Result<PerList<R>> {
    let child = col.child().as_primitive::<T>(what)?;
    let values: &[T] = child.values();
    let child_valid = child.validity();
    Ok(match extreme {
        Extreme::Min => per_list(col, null, true, |a, b| {
            extreme_position::<T, false>(&values[a..b], child_valid, a).map(|j| f(&values[a..b], j))
        }),
        Extreme::Max => per_list(col, null, true, |a, b| {
            extreme_position::<T, true>(&values[a..b], child_valid, a).map(|j| f(&values[a..b], j))
        }),
    })
}

/// Of a current extreme `x` and a candidate `y`, the one to keep: `y` when strictly
/// less (`MAX`: greater) or when `x` is NaN — NaN stays only when all are NaN; of two
/// equal values, `x`.
#[inline]
fn pick<T: Native, const MAX: bool>(x: T, y: T) -> T {
    let better = if MAX { y > x } else { y < x };
    if better | x.is_nan_value() {
        y
    } else {
        x
    }
}

/// The least (`MAX` false) or greatest value of a non-empty slice, NaN ignored unless
/// every value is NaN, in eight independent lanes so that the compiler vectorizes the
/// loop. Which of two equal values wins is unspecified (it matters only for the sign
/// of a float zero, which the caller settles).
///
/// The lanes start from the last eight elements, and the whole groups of eight are
/// folded into them: the elements past the last whole group are covered by that start,
/// with no loop over a remainder of unpredictable length (an element seen twice changes
/// neither the extreme nor whether all are NaN).
#[inline]
fn lanes_extreme<T: Native, const MAX: bool>(values: &[T]) -> T {
    let pick = pick::<T, MAX>;
    let n = values.len();
    if n < 8 {
        return values.iter().fold(values[0], |x, &y| pick(x, y));
    }
    let mut lanes = [values[0]; 8];
    lanes.copy_from_slice(&values[n - 8..]);
    let mut fold = |piece: &[T]| {
        for c in piece.chunks_exact(8) {
            for k in 0..8 {
                lanes[k] = pick(lanes[k], c[k]);
            }
        }
    };
    // Long lists: in prefetched pieces, whose lengths are multiples of eight (but for
    // the last).
    if n >= LONG_LIST {
        prefetched_pieces(values).for_each(fold);
    } else {
        fold(values);
    }
    tree_extreme::<T, MAX>(lanes)
}

/// The extreme of eight lanes by a tree of `pick`s (three steps, no chain of eight).
#[inline(always)]
fn tree_extreme<T: Native, const MAX: bool>(w: [T; 8]) -> T {
    let pick = pick::<T, MAX>;
    let half = [
        pick(w[0], w[4]),
        pick(w[1], w[5]),
        pick(w[2], w[6]),
        pick(w[3], w[7]),
    ];
    pick(pick(half[0], half[2]), pick(half[1], half[3]))
}

/// Elements [`window_extreme`] reads at once.
const WINDOW: usize = 8;

/// [`lanes_extreme`] of the first `len` (1..=8) elements of `window`, without a loop:
/// the lanes past `len` repeat the first element (which changes neither the extreme
/// nor whether all are NaN), then a tree of `pick`s — no branch on the length.
#[inline]
fn window_extreme<T: Native, const MAX: bool>(window: &[T], len: usize) -> T {
    let mut w = [window[0]; WINDOW];
    for (k, (slot, &v)) in w.iter_mut().zip(window).enumerate() {
        *slot = if k < len { v } else { window[0] };
    }
    tree_extreme::<T, MAX>(w)
}

/// The least (`MAX` false) or greatest value of each list of a child without nulls (its
/// values). Only the value is asked for, and equal values are interchangeable — except
/// a float zero, whose sign is that of the list's first zero — so eight independent
/// lanes may compete (vectorized); a list of at most eight elements is one window of
/// eight, with no loop.
struct ValueExtreme<'a, T, const MAX: bool>(&'a [T]);

impl<T: Native, const MAX: bool> ListReduce<T> for ValueExtreme<'_, T, MAX> {
    #[inline(always)]
    fn reduce(&self, a: usize, b: usize) -> Option<T> {
        let values = self.0;
        if b == a {
            return None;
        }
        let list = &values[a..b];
        let best = match values.get(a..a + WINDOW) {
            Some(w) if list.len() <= WINDOW => window_extreme::<T, MAX>(w, list.len()),
            _ => lanes_extreme::<T, MAX>(list),
        };
        if T::IS_FLOAT && best == T::default() {
            let at = extreme_position::<T, MAX>(list, None, a);
            return Some(at.map_or(best, |j| list[j]));
        }
        Some(best)
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn reduce_avx2(&self, a: usize, b: usize) -> Option<T> {
        use super::simd::{as_type, extreme_f32, extreme_i32, from_type};
        let list = &self.0[a..b];
        // Lists of at most eight: one window, without the masked load's latency.
        if list.len() <= WINDOW {
            return self.reduce(a, b);
        }
        if let Some(list) = as_type::<T, i32>(list) {
            // SAFETY: the CPU supports AVX2 (this method's contract); the list is longer
            // than a window.
            return from_type(unsafe { extreme_i32::<MAX>(list) });
        }
        if let Some(floats) = as_type::<T, f32>(list) {
            // SAFETY: the CPU supports AVX2 (this method's contract).
            let best = unsafe { extreme_f32::<MAX>(floats) };
            if let Some(best) = best.filter(|&x| x != 0.0) {
                return from_type(best);
            }
            // A zero (its sign), an infinity or all NaN: `reduce` settles them.
        }
        self.reduce(a, b)
    }
}

/// Least or greatest valid element per list; see [`ragged_core::ListOps::list_min`].
pub(crate) fn list_extreme<O: OffsetSize, T: Native>(
    col: &ListColumn<O>,
    extreme: Extreme,
    op: &'static str,
) -> Result<PrimitiveColumn<T>> {
    let what = format!("{op} child");
    let child = col.child().as_primitive::<T>(&what)?;
    if child.validity().is_none() {
        // No nulls: only the value is asked for (ValueExtreme).
        let values: &[T] = child.values();
        let best = match extreme {
            Extreme::Min => per_list(
                col,
                extreme.identity(),
                true,
                ValueExtreme::<T, false>(values),
            ),
            Extreme::Max => per_list(
                col,
                extreme.identity(),
                true,
                ValueExtreme::<T, true>(values),
            ),
        };
        return column_of(col, best);
    }
    let best = per_extreme::<O, T, T>(col, extreme, &what, extreme.identity(), |v, j| v[j])?;
    column_of(col, best)
}

/// Position of the least or greatest valid element per list; see
/// [`ragged_core::ListOps::list_argmin`].
pub(crate) fn list_arg_extreme<O: OffsetSize, T: Native>(
    col: &ListColumn<O>,
    extreme: Extreme,
    op: &'static str,
) -> Result<PrimitiveColumn<i64>> {
    let what = format!("{op} child");
    let best = per_extreme::<O, T, i64>(col, extreme, &what, 0, |_, j| j as i64)?;
    column_of(col, best)
}

/// Valid elements per list, any child; see [`ragged_core::ListOps::list_count`].
pub(crate) fn list_count<O: OffsetSize>(col: &ListColumn<O>) -> Result<PrimitiveColumn<i64>> {
    let child_valid = col.child().validity();
    if child_valid.is_none() {
        // Every element is valid: the counts are the list lengths (0 under nulls).
        let offsets: &[O] = col.offsets();
        let validity = col.validity();
        let counts: Vec<i64> = offsets
            .par_windows(2)
            .enumerate()
            .with_min_len(crate::CHUNK / 16)
            .map(|(i, w)| {
                if is_valid(validity, i) {
                    w[1].as_i64() - w[0].as_i64()
                } else {
                    0
                }
            })
            .collect();
        return PrimitiveColumn::try_new(ScalarBuffer::from(counts), validity.cloned());
    }
    let counts = per_list(col, 0i64, false, |a, b| {
        Some(match child_valid {
            None => (b - a) as i64,
            Some(m) => count_set(m.inner(), a, b) as i64,
        })
    });
    column_of(col, counts)
}

/// Valid non-zero elements per list; see
/// [`ragged_core::ListOps::list_count_nonzero`].
pub(crate) fn list_count_nonzero<O: OffsetSize, T: Native>(
    col: &ListColumn<O>,
) -> Result<PrimitiveColumn<i64>> {
    let child = col.child().as_primitive::<T>("list_count_nonzero child")?;
    let values: &[T] = child.values();
    let child_valid = child.validity();
    let zero = T::default();
    let counts = per_list(col, 0i64, false, |a, b| {
        let mut count = 0i64;
        for (j, &v) in values[a..b].iter().enumerate() {
            // NaN != 0: counted.
            count += i64::from(v != zero && is_valid(child_valid, a + j));
        }
        Some(count)
    });
    column_of(col, counts)
}

/// `any` (`want_any`) or `all` of each list of booleans; see
/// [`ragged_core::ListOps::list_any`] and [`ragged_core::ListOps::list_all`].
pub(crate) fn list_any_all<O: OffsetSize>(
    col: &ListColumn<O>,
    want_any: bool,
) -> Result<BooleanColumn<Host>> {
    let what = if want_any {
        "list_any child"
    } else {
        "list_all child"
    };
    let child = col.child().as_boolean(what)?;
    let bits = child.values().inner();
    let child_valid = child.validity();
    // `any`: some valid element is true; `all`: no valid element is false.
    let results = per_list(col, !want_any, false, |a, b| {
        Some(match child_valid {
            None => {
                let set = count_set(bits, a, b);
                if want_any {
                    set > 0
                } else {
                    set == b - a
                }
            }
            Some(m) => {
                let hit = (a..b).any(|j| m.is_valid(j) && bits.value(j) == want_any);
                hit == want_any
            }
        })
    });
    let values = NullBuffer::new(BooleanBuffer::from(results.values));
    BooleanColumn::try_new(values, col.validity().cloned())
}

/// Lists of at least this many elements without nulls are summed in lanes by
/// [`list_mean`].
const LONG_MEAN: usize = 64;

/// The mean of each list's valid elements in `f64`; see
/// [`ragged_core::ListOps::list_mean`].
pub(crate) fn list_mean<O: OffsetSize, T: Native>(
    col: &ListColumn<O>,
) -> Result<PrimitiveColumn<f64>> {
    let child = col.child().as_primitive::<T>("list_mean child")?;
    let values: &[T] = child.values();
    let child_valid = child.validity();
    let means = per_list(col, 0.0f64, true, |a, b| {
        if child_valid.is_none() && b - a >= LONG_MEAN {
            // No nulls: eight independent f64 lanes instead of one chain of dependent
            // additions (which bounds the plain loop by the adder's latency).
            return Some(sum_f64_lanes(&values[a..b], |x| x) / (b - a) as f64);
        }
        let (mut sum, mut count) = (0.0f64, 0usize);
        for (j, &v) in values[a..b].iter().enumerate() {
            if is_valid(child_valid, a + j) {
                sum += v.to_f64();
                count += 1;
            }
        }
        (count > 0).then(|| sum / count as f64)
    });
    column_of(col, means)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ragged_core::Column;

    /// Lists of `average` elements on average (uniform in `[0, 2 * average]`) over a
    /// child without nulls, every fifth list null.
    fn lists<T: Native>(average: u64, value: impl Fn(u64) -> T) -> ListColumn<i32>
    where
        PrimitiveColumn<T>: Into<Column>,
    {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut offsets = vec![0i32];
        let mut values = Vec::new();
        for _ in 0..400 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            for _ in 0..state % (2 * average + 1) {
                values.push(value((values.len() as u64 * 0x9e37_79b9) ^ state));
            }
            offsets.push(values.len() as i32);
        }
        let validity = NullBuffer::from((0..400).map(|i| i % 5 != 0).collect::<Vec<_>>());
        ListColumn::try_new(
            ScalarBuffer::from(offsets),
            PrimitiveColumn::from_vec(values).into(),
            Some(validity),
        )
        .unwrap()
    }

    /// The child's values of a column made by [`lists`].
    fn child_values<T: Native>(col: &ListColumn<i32>) -> ScalarBuffer<T> {
        col.child()
            .as_primitive::<T>("child")
            .unwrap()
            .values()
            .clone()
    }

    /// Every fast path of `list_min` / `list_max` (short lists, eight lanes) against a
    /// plain loop.
    fn check<T: Native + Ord>(value: impl Fn(u64) -> T + Copy)
    where
        PrimitiveColumn<T>: Into<Column>,
    {
        for average in [3, 40, 3000] {
            let col = lists::<T>(average, value);
            let child = child_values::<T>(&col);
            for extreme in [Extreme::Min, Extreme::Max] {
                let got = list_extreme::<i32, T>(&col, extreme, "test").unwrap();
                for i in 0..col.len() {
                    let r = col.range(i);
                    let expected = col.is_valid(i).then(|| match extreme {
                        Extreme::Min => child[r.clone()].iter().min().copied(),
                        Extreme::Max => child[r.clone()].iter().max().copied(),
                    });
                    let expected = expected.flatten();
                    let actual = got.is_valid(i).then(|| got.values()[i]);
                    assert_eq!(
                        actual, expected,
                        "{extreme:?} of list {i}, average {average}"
                    );
                }
            }
        }
    }

    /// Every path of `list_sum` of narrow integers (prefixes of elements for short
    /// lists, folds per list across several tasks, `sum_slice` for long lists) against a
    /// plain loop.
    fn check_sums<T: Native>(value: impl Fn(u64) -> T + Copy)
    where
        PrimitiveColumn<T>: Into<Column>,
    {
        for average in [3, 40, 300, 3000] {
            let col = lists::<T>(average, value);
            let child = child_values::<T>(&col);
            let got = list_sum::<i32, T>(&col).unwrap();
            for i in 0..col.len() {
                let expected: i64 = child[col.range(i)]
                    .iter()
                    .map(|v| v.to_i64().unwrap())
                    .sum();
                let expected = col.is_valid(i).then_some(expected);
                let actual = got
                    .is_valid(i)
                    .then(|| arrow_buffer::ArrowNativeType::to_i64(got.values()[i]).unwrap());
                assert_eq!(actual, expected, "sum of list {i}, average {average}");
            }
        }
    }

    #[test]
    fn sums_of_lists_without_nulls_match_a_plain_loop() {
        check_sums::<i32>(|x| (x >> 3) as i32);
        check_sums::<i8>(|x| (x >> 3) as i8);
        check_sums::<u32>(|x| x.wrapping_mul(0x9e37_79b9_7f4a_7c15) as u32);
    }

    #[test]
    fn minima_and_maxima_of_lists_without_nulls_match_a_plain_loop() {
        check::<i32>(|x| (x >> 7) as i32);
        check::<i8>(|x| (x >> 3) as i8);
        check::<u64>(|x| x.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    }
}

#[cfg(test)]
mod float_tests {
    use super::*;
    use ragged_core::Column;

    #[test]
    fn the_first_zero_gives_the_sign_and_nan_counts_only_when_alone() {
        // Two lists of 20 values (the lane path): ones, then +0 before -0 in the first
        // list and -0 before +0 in the second; a third list of NaN only.
        let mut values = vec![1.0f32; 40];
        values[9] = 0.0;
        values[16] = -0.0;
        values[25] = -0.0;
        values[32] = 0.0;
        values.extend([f32::NAN; 12]);
        let col = ListColumn::<i32>::try_new(
            ScalarBuffer::from(vec![0, 20, 40, 52]),
            Column::Float32(PrimitiveColumn::from_vec(values)),
            None,
        )
        .unwrap();
        let min = list_extreme::<i32, f32>(&col, Extreme::Min, "test").unwrap();
        let bits: Vec<u32> = min.values().iter().map(|v| v.to_bits()).collect();
        assert_eq!(bits[..2], [0.0f32.to_bits(), (-0.0f32).to_bits()]);
        assert!(min.values()[2].is_nan() && min.is_valid(2));
    }

    /// The rule of `list_min` / `list_max` for floats, as a plain loop: NaN skipped
    /// unless every element is NaN, the first of equal values (a zero's sign) kept.
    fn plain_extreme(list: &[f32], max: bool) -> Option<f32> {
        let mut best: Option<f32> = None;
        for &v in list.iter().filter(|v| !v.is_nan()) {
            let better = best.is_none_or(|b| if max { v > b } else { v < b });
            if better {
                best = Some(v);
            }
        }
        best.or_else(|| list.first().copied())
    }

    #[test]
    fn float_extremes_of_every_length_and_special_value_match_a_plain_loop() {
        // Lengths 0..=40 (whole vectors of eight and every remainder) over NaN, both
        // infinities, both zeros and ordinary values.
        let specials = [
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            0.0,
            -0.0,
            1.5,
            -2.5,
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let (mut offsets, mut values) = (vec![0i32], Vec::new());
        for round in 0..2000 {
            let len = round % 41;
            // Mostly one kind of value per list, so that all-NaN, all-infinite and
            // all-zero lists occur.
            let kinds = 1 + next() % 3;
            let base = next();
            for _ in 0..len {
                let pick = (base + next() % kinds) as usize % (specials.len() + 1);
                values.push(match specials.get(pick) {
                    Some(&v) => v,
                    None => (next() % 1000) as f32 - 500.0,
                });
            }
            offsets.push(values.len() as i32);
        }
        let col = ListColumn::<i32>::try_new(
            ScalarBuffer::from(offsets),
            Column::Float32(PrimitiveColumn::from_vec(values.clone())),
            None,
        )
        .unwrap();
        for (extreme, max) in [(Extreme::Min, false), (Extreme::Max, true)] {
            let got = list_extreme::<i32, f32>(&col, extreme, "test").unwrap();
            for i in 0..col.len() {
                let expected = plain_extreme(&values[col.range(i)], max);
                let actual = got.is_valid(i).then(|| got.values()[i]);
                let same = match (actual, expected) {
                    (Some(a), Some(e)) => a.to_bits() == e.to_bits() || (a.is_nan() && e.is_nan()),
                    (a, e) => a.is_none() && e.is_none(),
                };
                assert!(
                    same,
                    "{extreme:?} of list {i}: {actual:?}, expected {expected:?}"
                );
            }
        }
    }
}
