//! The lists family on the CPU: `counts` (`counts.rs`), offsets from lengths and
//! `compact_offsets` (`offsets.rs`), gathers of child ranges and elements
//! (`gather.rs`), `to_compact` and `flatten` (`compact.rs`), `unflatten`,
//! `local_index`, `get` and `slice` (`structure.rs`) and the per-list reductions
//! (`reduce.rs`).
//!
//! Every op cuts the lists into rayon tasks of consecutive lists holding about
//! [`CHUNK`] elements and at most [`CHUNK`] lists ([`list_tasks`]); each task writes its
//! own piece of the output, so no task allocates per list or per element. Offsets
//! outputs are two passes (per-chunk totals, a sequential prefix over the few chunk
//! totals, a parallel fill), except `compact_offsets`: one pass of tiles in order, each
//! carried by the previous tile's prefix. Outputs that every task writes completely are
//! not zeroed first (`filled_output_vec`).
//!
//! The semantics are those of `ragged_core::ops::lists`. Where that contract leaves a
//! choice open, this backend (the executable specification) decides, and the other
//! backends follow:
//! - null lists are never read: a null list whose child range would overflow a sum or
//!   a product, or holds garbage, changes nothing; its row holds the identity (sums 0,
//!   products 1, counts 0, minima and maxima the type's identity, `any` `false`, `all`
//!   `true`, arg forms 0, means 0.0) under the null;
//! - `list_sum` and `list_prod` of integers fail with `Overflow` naming the lowest
//!   valid list whose result does not fit ([`Native::Sum`]): the message contains
//!   `list <i>`. The product is the mathematical product of the valid elements (a zero
//!   element makes it 0 whatever the others are), so the order of multiplication does
//!   not matter; float products multiply left to right in the element type;
//! - `compact_offsets` with [`OffsetWidth::I32`] and `to_compact` of `i32` lists whose
//!   total exceeds `i32::MAX` fail with `Overflow` naming the first offset beyond it
//!   (`offset at index <k>`, `k = i + 1` for list `i`), as `sizes_to_offsets` does;
//!   `Auto` gives `i32` offsets exactly when the total fits;
//! - `unflatten` checks negative counts first (`NegativeSize` at the lowest valid row;
//!   null counts count 0 whatever they hold), then the sum: `LengthMismatch` with
//!   `expected` the child's length and `actual` the sum of the counts;
//! - gathered outputs (`to_compact`, `flatten`, `get`) of a strings child keep its
//!   offset width; a byte total that does not fit it is `Overflow`;
//! - `slice` of a null list gives `starts[i] = stops[i] = offsets[i]`; `local_index`
//!   and `to_compact` give null lists an empty range.

mod compact;
mod counts;
mod gather;
mod offsets;
mod reduce;
#[cfg(target_arch = "x86_64")]
mod simd;
mod structure;

use arrow_buffer::NullBuffer;
use ragged_core::ops::{OffsetWidth, Offsets, OutOfRange};
use ragged_core::{
    BooleanColumn, Column, Error, Host, ListColumn, ListOps, ListViewColumn, Native, OffsetSize,
    PrimitiveColumn, Result, ScalarBuffer,
};

use crate::primitives::Extreme;
use crate::{CpuBackend, CHUNK};

impl ListOps for CpuBackend {
    fn counts<O: OffsetSize>(&self, col: &ListColumn<O>) -> Result<PrimitiveColumn<O>> {
        counts::counts(col)
    }

    fn compact_offsets<O: OffsetSize>(
        &self,
        starts: &ScalarBuffer<O>,
        stops: &ScalarBuffer<O>,
        child_len: usize,
        width: OffsetWidth,
    ) -> Result<(Offsets<Host>, i64)> {
        offsets::compact_offsets(starts, stops, child_len, width)
    }

    fn to_compact<O: OffsetSize>(&self, col: &ListViewColumn<O>) -> Result<ListColumn<O>> {
        compact::to_compact(col)
    }

    fn flatten<O: OffsetSize>(&self, col: &ListColumn<O>) -> Result<Column<Host>> {
        compact::flatten(col)
    }

    fn unflatten<O: OffsetSize>(
        &self,
        child: &Column<Host>,
        counts: &PrimitiveColumn<O>,
    ) -> Result<ListColumn<O>> {
        structure::unflatten(child, counts)
    }

    fn local_index<O: OffsetSize>(&self, col: &ListColumn<O>) -> Result<ListColumn<O>> {
        structure::local_index(col)
    }

    fn get<O: OffsetSize>(
        &self,
        col: &ListColumn<O>,
        index: i64,
        out_of_range: OutOfRange,
    ) -> Result<Column<Host>> {
        structure::get(col, index, out_of_range)
    }

    fn slice<O: OffsetSize>(
        &self,
        col: &ListColumn<O>,
        start: Option<i64>,
        stop: Option<i64>,
    ) -> Result<ListViewColumn<O>> {
        structure::slice(col, start, stop)
    }

    fn list_sum<O: OffsetSize, T: Native>(
        &self,
        col: &ListColumn<O>,
    ) -> Result<PrimitiveColumn<T::Sum>> {
        reduce::list_sum::<O, T>(col)
    }

    fn list_prod<O: OffsetSize, T: Native>(
        &self,
        col: &ListColumn<O>,
    ) -> Result<PrimitiveColumn<T::Sum>> {
        reduce::list_prod::<O, T>(col)
    }

    fn list_min<O: OffsetSize, T: Native>(
        &self,
        col: &ListColumn<O>,
    ) -> Result<PrimitiveColumn<T>> {
        reduce::list_extreme::<O, T>(col, Extreme::Min, "list_min")
    }

    fn list_max<O: OffsetSize, T: Native>(
        &self,
        col: &ListColumn<O>,
    ) -> Result<PrimitiveColumn<T>> {
        reduce::list_extreme::<O, T>(col, Extreme::Max, "list_max")
    }

    fn list_argmin<O: OffsetSize, T: Native>(
        &self,
        col: &ListColumn<O>,
    ) -> Result<PrimitiveColumn<i64>> {
        reduce::list_arg_extreme::<O, T>(col, Extreme::Min, "list_argmin")
    }

    fn list_argmax<O: OffsetSize, T: Native>(
        &self,
        col: &ListColumn<O>,
    ) -> Result<PrimitiveColumn<i64>> {
        reduce::list_arg_extreme::<O, T>(col, Extreme::Max, "list_argmax")
    }

    fn list_count<O: OffsetSize>(&self, col: &ListColumn<O>) -> Result<PrimitiveColumn<i64>> {
        reduce::list_count(col)
    }

    fn list_count_nonzero<O: OffsetSize, T: Native>(
        &self,
        col: &ListColumn<O>,
    ) -> Result<PrimitiveColumn<i64>> {
        reduce::list_count_nonzero::<O, T>(col)
    }

    fn list_any<O: OffsetSize>(&self, col: &ListColumn<O>) -> Result<BooleanColumn<Host>> {
        reduce::list_any_all(col, true)
    }

    fn list_all<O: OffsetSize>(&self, col: &ListColumn<O>) -> Result<BooleanColumn<Host>> {
        reduce::list_any_all(col, false)
    }

    fn list_mean<O: OffsetSize, T: Native>(
        &self,
        col: &ListColumn<O>,
    ) -> Result<PrimitiveColumn<f64>> {
        reduce::list_mean::<O, T>(col)
    }
}

// ---------------------------------------------------------------------------------
// Shared pieces
// ---------------------------------------------------------------------------------

/// Tasks `(first list, end list)` covering lists `0..offsets.len() - 1`, each holding
/// about [`CHUNK`] elements and at most [`CHUNK`] lists (a larger list is one task).
///
/// Each task's end is searched near where the average list length puts it
/// ([`partition_near`]) and only among the [`CHUNK`] lists it may hold: a search over
/// all the remaining offsets took a dozen cache misses per task, on one thread, before
/// any list was reduced (6 % of the time of the sums of 2^28 elements in lists of 64).
pub(crate) fn list_tasks<O: OffsetSize>(offsets: &[O]) -> Vec<(usize, usize)> {
    let n = offsets.len().saturating_sub(1);
    let mut tasks = Vec::with_capacity(n / CHUNK + 1);
    if n == 0 {
        return tasks;
    }
    let elements = (offsets[n].as_i64() - offsets[0].as_i64()).max(1) as u128;
    // The lists a task of CHUNK elements holds on average.
    let guess = (CHUNK as u128 * n as u128 / elements).min(CHUNK as u128) as usize;
    let mut start = 0;
    while start < n {
        let limit = offsets[start].as_i64().saturating_add(CHUNK as i64);
        // The first list end at or beyond the limit closes the task; a task ends by
        // start + CHUNK whatever the lengths.
        let last = n.min(start + CHUNK);
        let below = partition_near(&offsets[start + 1..=last], guess.saturating_sub(1), |o| {
            o.as_i64() < limit
        });
        let end = (start + 1 + below).min(last);
        tasks.push((start, end));
        start = end;
    }
    tasks
}

/// `items.partition_point(pred)` (`items` partitioned: `pred` true, then false) found
/// by galloping from `guess` in either direction, then a binary search within the
/// last step: O(log d) probes near `guess` for an answer `d` places away.
pub(crate) fn partition_near<T>(items: &[T], guess: usize, pred: impl Fn(&T) -> bool) -> usize {
    let len = items.len();
    let guess = guess.min(len);
    if guess < len && pred(&items[guess]) {
        // The answer lies in guess + 1 ..= len.
        let (mut lo, mut step) = (guess + 1, 1);
        loop {
            let hi = lo.saturating_add(step).min(len);
            if hi == len || !pred(&items[hi]) {
                return lo + items[lo..hi].partition_point(&pred);
            }
            lo = hi + 1;
            step *= 2;
        }
    } else {
        // The answer lies in 0 ..= guess.
        let (mut hi, mut step) = (guess, 1);
        loop {
            let lo = hi.saturating_sub(step);
            if lo == 0 || pred(&items[lo - 1]) {
                return lo + items[lo..hi].partition_point(&pred);
            }
            hi = lo - 1;
            step *= 2;
        }
    }
}

/// The number of lists of each task: how per-list outputs split by [`list_tasks`].
pub(crate) fn lists_per_task(tasks: &[(usize, usize)]) -> Vec<usize> {
    tasks.iter().map(|&(s, e)| e - s).collect()
}

/// Each task's span of `offsets` (`offsets[e] - offsets[s]`): how per-element outputs
/// split by [`list_tasks`].
pub(crate) fn span_per_task<X: OffsetSize>(tasks: &[(usize, usize)], offsets: &[X]) -> Vec<usize> {
    tasks
        .iter()
        .map(|&(s, e)| offsets[e].as_usize() - offsets[s].as_usize())
        .collect()
}

/// `f(i, part)` for each list `i` of the task `s..e`, `part` being list i's span of
/// `offsets` within `dst`, the task's part of a per-element output (as
/// [`span_per_task`] cuts it).
#[inline]
pub(crate) fn for_each_list_span<X, O: OffsetSize>(
    dst: &mut [X],
    offsets: &[O],
    (s, e): (usize, usize),
    mut f: impl FnMut(usize, &mut [X]),
) {
    let mut rest = dst;
    for i in s..e {
        let len = offsets[i + 1].as_usize() - offsets[i].as_usize();
        let (part, tail) = std::mem::take(&mut rest).split_at_mut(len);
        f(i, part);
        rest = tail;
    }
}

/// Whether list `i` is valid under `validity`.
#[inline]
pub(crate) fn is_valid(validity: Option<&NullBuffer>, i: usize) -> bool {
    validity.is_none_or(|v| v.is_valid(i))
}

/// The error of an element-moving op on a child it cannot gather.
pub(crate) fn unsupported_child(op: &'static str, child: &Column<Host>) -> Error {
    Error::Unsupported {
        op,
        message: format!(
            "a {} child cannot be gathered (numeric, bool and strings children can)",
            child.type_name()
        ),
    }
}

/// Whether an element-moving op can gather `child`: numeric, boolean and strings.
pub(crate) fn gatherable(child: &Column<Host>) -> bool {
    matches!(
        child,
        Column::Int8(_)
            | Column::Int16(_)
            | Column::Int32(_)
            | Column::Int64(_)
            | Column::UInt8(_)
            | Column::UInt16(_)
            | Column::UInt32(_)
            | Column::UInt64(_)
            | Column::Float32(_)
            | Column::Float64(_)
            | Column::Boolean(_)
            | Column::Utf8(_)
            | Column::LargeUtf8(_)
    )
}

/// The overflow error of an `i32` offsets output whose offset `index` is the first
/// beyond `i32::MAX`.
pub(crate) fn offset_overflow(op: &'static str, index: usize, total: i64) -> Error {
    Error::Overflow {
        op,
        message: format!(
            "the offset at index {index} exceeds i32::MAX (total {total}); ask for i64 offsets"
        ),
    }
}

/// A validity bitmap that is `None` when it has no null.
pub(crate) fn drop_all_valid(validity: Option<NullBuffer>) -> Option<NullBuffer> {
    validity.filter(|v| v.null_count() > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `partition_near` agrees with `partition_point` at every guess, on partitioned
    /// slices of every length up to 40 and every split point.
    #[test]
    fn partition_near_matches_partition_point() {
        for len in 0..40usize {
            for split in 0..=len {
                let items: Vec<usize> = (0..len).collect();
                let want = items.partition_point(|&x| x < split);
                for guess in 0..=len + 2 {
                    assert_eq!(
                        partition_near(&items, guess, |&x| x < split),
                        want,
                        "len {len} split {split} guess {guess}"
                    );
                }
            }
        }
    }

    /// Tasks cover every list once, in order; each closes at the first list end at or
    /// beyond CHUNK elements past its start, or after CHUNK lists.
    #[test]
    fn list_tasks_cover_the_lists() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for (lists, spread) in [
            (0usize, 1u64),
            (1, 1),
            (5_000, 1),
            (300_000, 3),
            (200_000, 200),
            (3_000, 100_000),
        ] {
            let mut offsets = vec![0i64];
            for j in 0..lists {
                let len = if j % 997 == 5 {
                    next() % (4 * CHUNK as u64)
                } else {
                    next() % spread
                };
                offsets.push(offsets[j] + len as i64);
            }
            let tasks = list_tasks(&offsets);
            let mut start = 0;
            for &(s, e) in &tasks {
                assert_eq!(s, start);
                assert!(e > s && e - s <= CHUNK);
                let limit = offsets[s] + CHUNK as i64;
                let reach = (s + 1..=lists)
                    .find(|&j| offsets[j] >= limit)
                    .unwrap_or(lists);
                assert_eq!(e, reach.min(s + CHUNK), "task at {s}");
                start = e;
            }
            assert_eq!(start, lists);
        }
    }
}
