//! Gathers of child elements: whole ranges (`to_compact`, `flatten`) and single
//! elements (`get`), for numeric, boolean and strings children.
//!
//! Mapping: the output offsets are computed first; the lists are cut into tasks of
//! about [`crate::CHUNK`] output elements ([`super::list_tasks`] over the output
//! offsets) and each rayon task copies its lists' ranges into its own piece of the
//! output with `copy_from_slice`. Strings gather their bytes the same way (a second
//! offsets pass gives each list's byte position) and rebase their offsets. Bitmaps
//! (boolean values, validity) are appended range by range with
//! `BooleanBufferBuilder::append_packed_range` in one sequential pass.
//!
//! Complexity: O(n + elements) work, one read of each gathered element, one write.

use std::mem::MaybeUninit;

use arrow_buffer::{BooleanBuffer, BooleanBufferBuilder, NullBuffer};
use rayon::prelude::*;

use ragged_core::{
    BooleanColumn, Column, Host, Native, OffsetSize, PrimitiveColumn, Result, ScalarBuffer,
    StringColumn,
};

use super::offsets::offsets_from_lengths;
use super::{drop_all_valid, for_each_list_span, list_tasks, span_per_task, unsupported_child};
use crate::primitives::split_by_lengths;
use crate::{filled_output_vec, output_vec};
use ragged_core::host::prefetch;

/// Dispatch `$f::<T>(c, …)` over the numeric variants of a column, wrapping the result
/// in the same variant; other variants go to `$other`.
macro_rules! numeric {
    ($col:expr, |$c:ident| $body:expr, $other:expr) => {
        match $col {
            Column::Int8($c) => Column::Int8($body),
            Column::Int16($c) => Column::Int16($body),
            Column::Int32($c) => Column::Int32($body),
            Column::Int64($c) => Column::Int64($body),
            Column::UInt8($c) => Column::UInt8($body),
            Column::UInt16($c) => Column::UInt16($body),
            Column::UInt32($c) => Column::UInt32($body),
            Column::UInt64($c) => Column::UInt64($body),
            Column::Float32($c) => Column::Float32($body),
            Column::Float64($c) => Column::Float64($body),
            other => $other(other)?,
        }
    };
}

/// The child rows `range(i)` of lists `0..n`, concatenated in list order, where
/// `offsets` (`n + 1`, starting at 0) are the output offsets: `offsets[i + 1] -
/// offsets[i]` is the length of `range(i)`.
///
/// # Errors
/// `Unsupported` for a child that is not numeric, boolean or strings; `Overflow` when
/// the gathered bytes of a strings child do not fit its offset type.
pub(crate) fn gather_ranges<X: OffsetSize>(
    op: &'static str,
    child: &Column<Host>,
    offsets: &[X],
    range: &(impl Fn(usize) -> (usize, usize) + Sync),
) -> Result<Column<Host>> {
    Ok(numeric!(
        child,
        |c| gather_primitive(c, offsets, range)?,
        |other: &Column<Host>| -> Result<Column<Host>> {
            match other {
                Column::Boolean(c) => Ok(Column::Boolean(gather_booleans(c, offsets, range)?)),
                Column::Utf8(c) => Ok(Column::Utf8(gather_strings(op, c, offsets, range)?)),
                Column::LargeUtf8(c) => {
                    Ok(Column::LargeUtf8(gather_strings(op, c, offsets, range)?))
                }
                other => Err(unsupported_child(op, other)),
            }
        }
    ))
}

/// The bits `range(i)` of `bits`, concatenated (`total` bits in all).
fn gather_bits(
    bits: &BooleanBuffer,
    n: usize,
    total: usize,
    range: &(impl Fn(usize) -> (usize, usize) + Sync),
) -> BooleanBuffer {
    let mut out = BooleanBufferBuilder::new(total);
    let (bytes, offset) = (bits.values(), bits.offset());
    for i in 0..n {
        let (a, b) = range(i);
        if b > a {
            out.append_packed_range(offset + a..offset + b, bytes);
        }
    }
    out.finish()
}

/// The validity of a gathered range output: the gathered bits of `validity`.
fn gather_validity(
    validity: Option<&NullBuffer>,
    n: usize,
    total: usize,
    range: &(impl Fn(usize) -> (usize, usize) + Sync),
) -> Option<NullBuffer> {
    drop_all_valid(validity.map(|v| NullBuffer::new(gather_bits(v.inner(), n, total, range))))
}

/// Parallel copy of the ranges of `values` into a new vector, one task per
/// [`list_tasks`] piece of the output offsets.
fn copy_ranges<T: Copy + Default + Send + Sync, X: OffsetSize>(
    values: &[T],
    offsets: &[X],
    range: &(impl Fn(usize) -> (usize, usize) + Sync),
) -> Vec<T> {
    let n = offsets.len() - 1;
    let total = offsets[n].as_usize();
    let tasks = list_tasks(offsets);
    let lengths = span_per_task(&tasks, offsets);
    let fill = |out: &mut [MaybeUninit<T>]| {
        split_by_lengths(out, &lengths)
            .into_par_iter()
            .zip(tasks.par_iter())
            .for_each(|(dst, &(s, e))| {
                let mut at = 0;
                for i in s..e {
                    let (a, b) = range(i);
                    let (part, src) = (&mut dst[at..at + (b - a)], &values[a..b]);
                    // SAFETY: `part` and `src` hold b - a elements each (both slices were
                    // bounds-checked), `MaybeUninit<T>` has the layout of `T`, and the new
                    // output does not overlap the input.
                    unsafe {
                        std::ptr::copy_nonoverlapping(
                            src.as_ptr(),
                            part.as_mut_ptr().cast::<T>(),
                            src.len(),
                        )
                    };
                    at += b - a;
                }
                // Nothing is left when the ranges' lengths are the offsets' differences
                // (the contract of `gather_ranges`); otherwise the rest is zeros.
                for slot in &mut dst[at..] {
                    slot.write(T::default());
                }
            });
    };
    // SAFETY: the tasks' parts tile the `total` slots (`span_per_task`), and each task
    // writes its whole part: the ranges end to end, then the rest (if any).
    unsafe { filled_output_vec(total, fill) }
}

fn gather_primitive<T: Native, X: OffsetSize>(
    col: &PrimitiveColumn<T>,
    offsets: &[X],
    range: &(impl Fn(usize) -> (usize, usize) + Sync),
) -> Result<PrimitiveColumn<T>> {
    let n = offsets.len() - 1;
    let total = offsets[n].as_usize();
    let values = copy_ranges(col.values(), offsets, range);
    let validity = gather_validity(col.validity(), n, total, range);
    PrimitiveColumn::try_new(ScalarBuffer::from(values), validity)
}

fn gather_booleans<X: OffsetSize>(
    col: &BooleanColumn<Host>,
    offsets: &[X],
    range: &(impl Fn(usize) -> (usize, usize) + Sync),
) -> Result<BooleanColumn<Host>> {
    let n = offsets.len() - 1;
    let total = offsets[n].as_usize();
    let values = NullBuffer::new(gather_bits(col.values().inner(), n, total, range));
    let validity = gather_validity(col.validity(), n, total, range);
    BooleanColumn::try_new(values, validity)
}

fn gather_strings<S: OffsetSize, X: OffsetSize>(
    op: &'static str,
    col: &StringColumn<S, Host>,
    offsets: &[X],
    range: &(impl Fn(usize) -> (usize, usize) + Sync),
) -> Result<StringColumn<S, Host>> {
    let n = offsets.len() - 1;
    let total = offsets[n].as_usize();
    let (soff, bytes): (&[S], &[u8]) = (col.offsets(), col.values());
    let byte_len = |i: usize| {
        let (a, b) = range(i);
        soff[b].as_i64() - soff[a].as_i64()
    };
    // Each list's byte position in the output; the byte total must fit S.
    let (byte_offsets, total_bytes) = offsets_from_lengths::<S>(op, n, &byte_len)?;
    let mut out_offsets = output_vec::<S>(total + 1);
    let mut out_bytes = output_vec::<u8>(total_bytes as usize);
    let tasks = list_tasks(offsets);
    let element_lengths = span_per_task(&tasks, offsets);
    let byte_lengths = span_per_task(&tasks, &byte_offsets);
    let (head, last) = out_offsets.split_at_mut(total);
    last[0] = S::usize_as(total_bytes as usize);
    split_by_lengths(head, &element_lengths)
        .into_par_iter()
        .zip(split_by_lengths(&mut out_bytes, &byte_lengths).into_par_iter())
        .zip(tasks.par_iter())
        .for_each(|((dst_offsets, dst_bytes), &(s, e))| {
            let (mut at, mut at_byte) = (0usize, 0usize);
            for (i, byte_offset) in byte_offsets.iter().enumerate().take(e).skip(s) {
                let (a, b) = range(i);
                let (first, last) = (soff[a].as_usize(), soff[b].as_usize());
                let base = byte_offset.as_i64() - soff[a].as_i64();
                for (slot, o) in dst_offsets[at..at + (b - a)].iter_mut().zip(&soff[a..b]) {
                    // Lossless: each rebased offset is at most the byte total.
                    *slot = S::usize_as((o.as_i64() + base) as usize);
                }
                dst_bytes[at_byte..at_byte + (last - first)].copy_from_slice(&bytes[first..last]);
                at += b - a;
                at_byte += last - first;
            }
        });
    let validity = gather_validity(col.validity(), n, total, range);
    // SAFETY: the offsets start at 0, grow by each copied row's byte length (so they
    // are non-decreasing) and end at the byte total; the bytes are whole rows of a
    // valid strings column copied unchanged, so every row is valid UTF-8; the validity
    // (gathered from the child's) has one bit per output row.
    Ok(unsafe {
        StringColumn::new_unchecked(
            ScalarBuffer::from(out_offsets),
            ScalarBuffer::from(out_bytes),
            validity,
        )
    })
}

// ---------------------------------------------------------------------------------
// Single elements
// ---------------------------------------------------------------------------------

/// Child element `positions[i]` for each output row `i` (`-1`: a null row).
///
/// # Errors
/// `Unsupported` for a child that is not numeric, boolean or strings; `Overflow` when
/// the gathered bytes of a strings child do not fit its offset type.
pub(crate) fn gather_elements(
    op: &'static str,
    child: &Column<Host>,
    positions: &[i64],
) -> Result<Column<Host>> {
    Ok(numeric!(
        child,
        |c| take_primitive(c, positions)?,
        |other: &Column<Host>| -> Result<Column<Host>> {
            match other {
                Column::Boolean(c) => Ok(Column::Boolean(take_booleans(c, positions)?)),
                Column::Utf8(c) => Ok(Column::Utf8(take_strings(op, c, positions)?)),
                Column::LargeUtf8(c) => Ok(Column::LargeUtf8(take_strings(op, c, positions)?)),
                other => Err(unsupported_child(op, other)),
            }
        }
    ))
}

/// The validity of a take: the row has a position and the element there is valid.
fn take_validity(validity: Option<&NullBuffer>, positions: &[i64]) -> Option<NullBuffer> {
    if validity.is_none() && positions.par_iter().all(|&p| p >= 0) {
        return None;
    }
    let n = positions.len();
    let bits = crate::bool_words(n, |base, words| {
        crate::set_bits(words, base, n, |i| {
            let p = positions[i];
            p >= 0 && validity.is_none_or(|v| v.is_valid(p as usize))
        })
    });
    drop_all_valid(Some(NullBuffer::new(bits)))
}

/// How many positions ahead [`take_primitive`] requests the element it will read.
const TAKE_AHEAD: usize = 16;

fn take_primitive<T: Native>(
    col: &PrimitiveColumn<T>,
    positions: &[i64],
) -> Result<PrimitiveColumn<T>> {
    let values: &[T] = col.values();
    let fill = |out: &mut [MaybeUninit<T>]| {
        out.par_chunks_mut(crate::CHUNK)
            .zip(positions.par_chunks(crate::CHUNK))
            .for_each(|(dst, at)| {
                for (k, (slot, &p)) in dst.iter_mut().zip(at).enumerate() {
                    // The element TAKE_AHEAD positions on: scattered reads are bound by
                    // memory latency unless many are in flight.
                    if let Some(&q) = at.get(k + TAKE_AHEAD) {
                        prefetch(values.as_ptr().wrapping_add(q.max(0) as usize), 1);
                    }
                    slot.write(if p >= 0 {
                        values[p as usize]
                    } else {
                        T::default()
                    });
                }
            });
    };
    // SAFETY: the chunks of `out` and of `positions` pair up one to one (same length,
    // same chunk size), and every slot of each chunk is written.
    let out = unsafe { filled_output_vec(positions.len(), fill) };
    let validity = take_validity(col.validity(), positions);
    PrimitiveColumn::try_new(ScalarBuffer::from(out), validity)
}

fn take_booleans(col: &BooleanColumn<Host>, positions: &[i64]) -> Result<BooleanColumn<Host>> {
    let values = col.values();
    let bits = BooleanBuffer::collect_bool(positions.len(), |i| {
        let p = positions[i];
        p >= 0 && values.is_valid(p as usize)
    });
    let validity = take_validity(col.validity(), positions);
    BooleanColumn::try_new(NullBuffer::new(bits), validity)
}

fn take_strings<S: OffsetSize>(
    op: &'static str,
    col: &StringColumn<S, Host>,
    positions: &[i64],
) -> Result<StringColumn<S, Host>> {
    let validity = take_validity(col.validity(), positions);
    let (soff, bytes): (&[S], &[u8]) = (col.offsets(), col.values());
    let valid = |i: usize| validity.as_ref().is_none_or(|v| v.is_valid(i));
    // Null rows are empty.
    let len_of = |i: usize| {
        let p = positions[i];
        if p >= 0 && valid(i) {
            let p = p as usize;
            soff[p + 1].as_i64() - soff[p].as_i64()
        } else {
            0
        }
    };
    let n = positions.len();
    let (out_offsets, total_bytes) = offsets_from_lengths::<S>(op, n, &len_of)?;
    let mut out_bytes = output_vec::<u8>(total_bytes as usize);
    // Tasks over the rows, each holding about CHUNK bytes.
    let tasks = list_tasks(&out_offsets);
    let lengths = span_per_task(&tasks, &out_offsets);
    split_by_lengths(&mut out_bytes, &lengths)
        .into_par_iter()
        .zip(tasks.par_iter())
        .for_each(|(dst, &task)| {
            for_each_list_span(dst, &out_offsets, task, |i, part| {
                // Null and empty rows have no bytes (and a null row no position).
                if !part.is_empty() {
                    let first = soff[positions[i] as usize].as_usize();
                    part.copy_from_slice(&bytes[first..first + part.len()]);
                }
            });
        });
    // SAFETY: the offsets are a prefix sum of row lengths starting at 0 and ending at
    // the byte total; each row's bytes are a whole row of a valid strings column copied
    // unchanged (valid UTF-8); the validity has one bit per row.
    Ok(unsafe {
        StringColumn::new_unchecked(
            ScalarBuffer::from(out_offsets),
            ScalarBuffer::from(out_bytes),
            validity,
        )
    })
}
