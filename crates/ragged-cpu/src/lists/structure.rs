//! Structure ops: `unflatten` (counts → offsets over a shared child), `local_index`
//! (each element's position in its list), `get` (element `index` of every list) and
//! `slice` (`list[start:stop]` as a view sharing the child).
//!
//! Mapping: one value per list computed by rayon over chunks of [`CHUNK`] lists (each
//! chunk also finds its first bad list, so the lowest one is reported); offsets outputs
//! are two passes ([`super::offsets`]); `local_index` fills its child per task of about
//! [`CHUNK`] elements; `get` gathers one element per list ([`super::gather`]).
//!
//! Complexity: O(n) work for `unflatten`, `get` and `slice` (plus the gathered
//! elements, strings' bytes included); O(n + elements) for `local_index`.

use std::mem::MaybeUninit;
use std::sync::Arc;

use rayon::prelude::*;

use ragged_core::ops::{python_index, python_slice, OutOfRange};
use ragged_core::{
    Column, Error, Host, ListColumn, ListViewColumn, OffsetSize, PrimitiveColumn, Result,
    ScalarBuffer,
};

use super::gather::gather_elements;
use super::offsets::{carries, fill_offsets, first_offset_above, offsets_from_lengths};
use super::{
    for_each_list_span, gatherable, is_valid, list_tasks, offset_overflow, span_per_task,
    unsupported_child,
};
use crate::primitives::split_by_lengths;
use crate::{filled_output_vec, output_vec, CHUNK};

/// Lists of `counts[i]` elements over a shared child; see
/// [`ragged_core::ListOps::unflatten`].
pub(crate) fn unflatten<O: OffsetSize>(
    child: &Column<Host>,
    counts: &PrimitiveColumn<O>,
) -> Result<ListColumn<O>> {
    const OP: &str = "unflatten";
    let values: &[O] = counts.values();
    let validity = counts.validity();
    let n = values.len();
    // Pass 1: per chunk, the sum of the valid counts and the first negative one.
    let per_chunk: Vec<(i128, Option<(usize, i64)>)> = values
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(c, chunk)| {
            let base = c * CHUNK;
            if validity.is_none() {
                // Branch-free: the sum of the high and low 32-bit halves cannot wrap
                // (at most 2^16 values per chunk); a negative count is found only in a
                // chunk that has one.
                let (mut hi, mut lo, mut any_negative) = (0u64, 0u64, false);
                for v in chunk {
                    let v = v.as_i64();
                    any_negative |= v < 0;
                    hi = hi.wrapping_add((v as u64) >> 32);
                    lo = lo.wrapping_add((v as u64) & 0xFFFF_FFFF);
                }
                if !any_negative {
                    return ((i128::from(hi) << 32) + i128::from(lo), None);
                }
            }
            let mut sum = 0i128;
            let mut negative = None;
            for (k, v) in chunk.iter().enumerate() {
                if is_valid(validity, base + k) {
                    let v = v.as_i64();
                    if v < 0 && negative.is_none() {
                        negative = Some((base + k, v));
                    }
                    sum += i128::from(v);
                }
            }
            (sum, negative)
        })
        .collect();
    if let Some((index, size)) = per_chunk.iter().find_map(|&(_, negative)| negative) {
        return Err(Error::NegativeSize { index, size });
    }
    let totals: Vec<i128> = per_chunk.iter().map(|&(t, _)| t).collect();
    let sum: i128 = totals.iter().sum();
    if sum != child.len() as i128 {
        return Err(Error::LengthMismatch {
            op: OP,
            what: "counts",
            expected: child.len(),
            actual: usize::try_from(sum).unwrap_or(usize::MAX),
        });
    }
    let len_of = |i: usize| {
        if is_valid(validity, i) {
            values[i].as_i64()
        } else {
            0
        }
    };
    let (carries, total) = carries(OP, &totals)?;
    if O::from_i64(total).is_none() {
        let index = first_offset_above(n, &len_of, &carries, &totals, i64::from(i32::MAX));
        return Err(offset_overflow(OP, index, total));
    }
    let offsets = fill_offsets::<O>(n, &len_of, &carries);
    // SAFETY: the offsets start at 0, are non-decreasing (no count is negative) and
    // end at the sum of the counts, which is the child's length; the validity is the
    // counts', one bit per list.
    Ok(unsafe {
        ListColumn::new_unchecked(offsets.into(), Arc::new(child.clone()), validity.cloned())
    })
}

/// Each element's position in its list; see [`ragged_core::ListOps::local_index`].
pub(crate) fn local_index<O: OffsetSize>(col: &ListColumn<O>) -> Result<ListColumn<O>> {
    const OP: &str = "local_index";
    let offsets: &[O] = col.offsets();
    let validity = col.validity();
    let len_of = |i: usize| {
        if is_valid(validity, i) {
            offsets[i + 1].as_i64() - offsets[i].as_i64()
        } else {
            0
        }
    };
    let (out_offsets, total) = offsets_from_lengths::<O>(OP, col.len(), &len_of)?;
    let tasks = list_tasks(&out_offsets);
    let lengths = span_per_task(&tasks, &out_offsets);
    let fill = |slots: &mut [MaybeUninit<i64>]| {
        split_by_lengths(slots, &lengths)
            .into_par_iter()
            .zip(tasks.par_iter())
            .for_each(|(dst, &task)| {
                for_each_list_span(dst, &out_offsets, task, |_, part| {
                    for (k, slot) in part.iter_mut().enumerate() {
                        slot.write(k as i64);
                    }
                });
            });
    };
    // SAFETY: the tasks cover lists 0 .. n in order and each task's part is its lists'
    // output span (`span_per_task`), so the parts tile the `total` slots and every
    // list writes its whole span.
    let out = unsafe { filled_output_vec::<i64>(total as usize, fill) };
    let child = Column::Int64(PrimitiveColumn::from_vec(out));
    // SAFETY: the offsets start at 0, are non-decreasing and end at the child's length
    // (`total` positions written); the validity is the input's, one bit per list.
    Ok(
        unsafe {
            ListColumn::new_unchecked(out_offsets.into(), Arc::new(child), validity.cloned())
        },
    )
}

/// Element `index` of every list; see [`ragged_core::ListOps::get`].
pub(crate) fn get<O: OffsetSize>(
    col: &ListColumn<O>,
    index: i64,
    out_of_range: OutOfRange,
) -> Result<Column<Host>> {
    const OP: &str = "get";
    if !gatherable(col.child()) {
        return Err(unsupported_child(OP, col.child()));
    }
    let offsets: &[O] = col.offsets();
    let validity = col.validity();
    let mut first_short: Option<(usize, i64)> = None;
    let fill = |positions: &mut [MaybeUninit<i64>]| {
        first_short = positions
            .par_chunks_mut(CHUNK)
            .enumerate()
            .map(|(c, chunk)| {
                let base = c * CHUNK;
                let mut short = None;
                for (k, slot) in chunk.iter_mut().enumerate() {
                    let i = base + k;
                    let mut position = -1;
                    if is_valid(validity, i) {
                        let (start, stop) = (offsets[i].as_i64(), offsets[i + 1].as_i64());
                        match python_index(stop - start, index) {
                            Some(j) => position = start + j,
                            None if short.is_none() => short = Some((i, stop - start)),
                            None => {}
                        }
                    }
                    slot.write(position);
                }
                short
            })
            .collect::<Vec<_>>()
            .into_iter()
            .flatten()
            .next();
    };
    // SAFETY: the chunks cover the n slots and every slot of each chunk is written.
    let positions = unsafe { filled_output_vec::<i64>(col.len(), fill) };
    if let (OutOfRange::Error, Some((row, len))) = (out_of_range, first_short) {
        return Err(Error::IndexOutOfRange { row, index, len });
    }
    gather_elements(OP, col.child(), &positions)
}

/// `list[start:stop]` of every list as a view; see [`ragged_core::ListOps::slice`].
pub(crate) fn slice<O: OffsetSize>(
    col: &ListColumn<O>,
    start: Option<i64>,
    stop: Option<i64>,
) -> Result<ListViewColumn<O>> {
    let offsets: &[O] = col.offsets();
    let validity = col.validity();
    let n = col.len();
    let mut starts = output_vec::<O>(n);
    let mut stops = output_vec::<O>(n);
    starts
        .par_chunks_mut(CHUNK)
        .zip(stops.par_chunks_mut(CHUNK))
        .enumerate()
        .for_each(|(c, (a_out, b_out))| {
            let base = c * CHUNK;
            for (k, (a, b)) in a_out.iter_mut().zip(b_out.iter_mut()).enumerate() {
                let i = base + k;
                let first = offsets[i].as_i64();
                let (x, y) = if is_valid(validity, i) {
                    python_slice(offsets[i + 1].as_i64() - first, start, stop)
                } else {
                    (0, 0)
                };
                // Lossless: both lie between offsets[i] and offsets[i + 1].
                *a = O::usize_as((first + x) as usize);
                *b = O::usize_as((first + y) as usize);
            }
        });
    // SAFETY: for every list `offsets[i] <= starts[i] <= stops[i] <= offsets[i + 1]`
    // (python_slice returns `0 <= x <= y <= len`), and the offsets are within the
    // child; starts and stops have `n` elements, as the validity has bits.
    Ok(unsafe {
        ListViewColumn::new_unchecked(
            ScalarBuffer::from(starts),
            ScalarBuffer::from(stops),
            col.child_arc().clone(),
            validity.cloned(),
        )
    })
}
