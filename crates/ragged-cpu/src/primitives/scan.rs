//! Scans (running reductions with an output per row): `scan_sum`, `scan_min`,
//! `scan_max`, `scan_sum_f64`, `scan_count_if`, and `sizes_to_offsets` (the exclusive
//! sum scan of sizes that every variable-length output starts from).
//!
//! Mapping: a chunked two-pass scan.
//!
//! ```text
//! pass 1 (parallel):   total[c] = fold(step, identity, chunk c)
//! prefix (sequential): carry[c] = combine(carry[c - 1], total[c - 1]), carry[0] = identity
//! pass 2 (parallel):   state = carry[c]; for each row r of chunk c:
//!                        exclusive: out[r] = output(state); state = step(state, x[r])
//!                        inclusive: state = step(state, x[r]); out[r] = output(state)
//! ```
//!
//! The state of each op is a value of an associative `combine` with an identity, so
//! the result does not depend on the chunking. Integer sums carry an exact 128-bit
//! state; the value of every output row (null rows included: they hold the running
//! value) is checked against `Native::Sum` in pass 2, and the lowest row whose value
//! does not fit is reported as `Error::Overflow` (for an exclusive scan the total
//! itself is no output row, so a total that alone does not fit is no error).
//!
//! Complexity: O(n) work, two reads of the input and one write of the output.

use rayon::prelude::*;

use ragged_core::ops::{OffsetWidth, Offsets, Predicate, ScanKind, Transform};
use ragged_core::{Error, Host, Native, PrimitiveColumn, Result, ScalarBuffer};

use super::{for_each_row, transformed, Extreme};
use crate::CHUNK;
use ragged_core::host::{elements_in, prefetch, prefetched_pieces, PIECE_BYTES, PREFETCH_DISTANCE};

/// One scan: its state, how a row changes it, how two states combine, and the output
/// value of a state.
trait ScanOp<T: Native>: Sync {
    /// The running state (a value of the associative `combine`).
    type State: Copy + Send + Sync;
    /// The output element type.
    type Out: Native;
    /// The identity of `combine`: the state of an empty prefix.
    fn identity(&self) -> Self::State;
    /// The state after row `value` (`valid` tells whether it is null).
    fn step(&self, state: Self::State, value: T, valid: bool) -> Self::State;
    /// The state of earlier rows followed by later rows.
    fn combine(&self, earlier: Self::State, later: Self::State) -> Self::State;
    /// The output value of a state, `None` when it does not fit the output type.
    fn output(&self, state: Self::State) -> Option<Self::Out>;
}

/// Run `op` over `col`: the output values (one per row) or, when an output value does
/// not fit the output type, the lowest such row.
fn scan<T: Native, Op: ScanOp<T>>(
    col: &PrimitiveColumn<T>,
    op: &Op,
    kind: ScanKind,
) -> std::result::Result<Vec<Op::Out>, usize> {
    let values: &[T] = col.values();
    let validity = col.validity();

    // Pass 1: the total of each chunk.
    let totals: Vec<Op::State> = values
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(chunk_index, chunk)| {
            let mut state = op.identity();
            for_each_row(chunk, validity, chunk_index * CHUNK, |_, v, valid| {
                state = op.step(state, v, valid);
            });
            state
        })
        .collect();

    // The carry into each chunk: an exclusive scan of the (few) chunk totals.
    let mut carries = Vec::with_capacity(totals.len());
    let mut carry = op.identity();
    for &total in &totals {
        carries.push(carry);
        carry = op.combine(carry, total);
    }

    // Pass 2: fill each chunk from its carry; each chunk reports its first row whose
    // value does not fit.
    let mut out = crate::output_vec::<Op::Out>(values.len());
    let first_bad = out
        .par_chunks_mut(CHUNK)
        .zip(values.par_chunks(CHUNK))
        .zip(carries.par_iter())
        .enumerate()
        .filter_map(|(chunk_index, ((out, chunk), &carry))| {
            let base = chunk_index * CHUNK;
            let mut state = carry;
            let mut bad = None;
            for_each_row(chunk, validity, base, |i, v, valid| {
                let before = state;
                state = op.step(state, v, valid);
                let shown = match kind {
                    ScanKind::Inclusive => op.output(state),
                    ScanKind::Exclusive => op.output(before),
                };
                if shown.is_none() && bad.is_none() {
                    bad = Some(base + i);
                }
                out[i] = shown.unwrap_or_default();
            });
            bad
        })
        .min();
    match first_bad {
        Some(row) => Err(row),
        None => Ok(out),
    }
}

/// An output column with the input's validity.
fn with_validity<T: Native, S: Native>(
    col: &PrimitiveColumn<T>,
    out: Vec<S>,
) -> Result<PrimitiveColumn<S>> {
    PrimitiveColumn::try_new(ScalarBuffer::from(out), col.validity().cloned())
}

// ---- scan_sum ----------------------------------------------------------------------

/// Running sums in an exact wide state.
struct Sum;

impl<T: Native> ScanOp<T> for Sum {
    type State = T::Wide;
    type Out = T::Sum;
    #[inline]
    fn identity(&self) -> T::Wide {
        T::wide_zero()
    }
    #[inline]
    fn step(&self, state: T::Wide, value: T, valid: bool) -> T::Wide {
        if valid {
            T::wide_add(state, value)
        } else {
            state
        }
    }
    #[inline]
    fn combine(&self, earlier: T::Wide, later: T::Wide) -> T::Wide {
        T::wide_merge(earlier, later)
    }
    #[inline]
    fn output(&self, state: T::Wide) -> Option<T::Sum> {
        T::wide_total(state)
    }
}

/// Running sums; see [`ragged_core::Primitives::scan_sum`].
pub(crate) fn scan_sum<T: Native>(
    col: &PrimitiveColumn<T>,
    kind: ScanKind,
) -> Result<PrimitiveColumn<T::Sum>> {
    if col.validity().is_none() {
        if let Some(out) = scan_sum_dense(col.values(), kind) {
            return with_validity(col, out);
        }
    }
    match scan(col, &Sum, kind) {
        Ok(out) => with_validity(col, out),
        Err(row) => Err(Error::Overflow {
            op: "scan_sum",
            message: format!(
                "the running sum of {} values at row {row} does not fit {}",
                T::NAME,
                <T::Sum as Native>::NAME
            ),
        }),
    }
}

/// Values per group of the float path of [`scan_sum_dense`].
const GROUP: usize = 8;

/// The fast path of `scan_sum` for columns without nulls. Pass 1 sums every chunk
/// (eight vectorized lanes, `Native::sum_slice`), the chunk totals are scanned into
/// carries, and pass 2 continues each chunk's carry in `T::Sum` without checks:
/// integers in one chain (an addition takes one cycle); floats by groups of
/// [`GROUP`] values, each group's own running sums first (independent of the carry,
/// so the groups overlap) and then the carry added to them, which leaves one addition
/// per group on the carry's chain instead of one per value. Both passes request their
/// input and output ahead (`host::prefetch`). The output is written once, never
/// zero-filled first. `None` when some carry could overflow on the way (64-bit
/// integers, totals near the limits): the exact, checked scan handles those.
fn scan_sum_dense<T: Native>(values: &[T], kind: ScanKind) -> Option<Vec<T::Sum>> {
    let totals: Vec<T::Wide> = values.par_chunks(CHUNK).map(T::sum_slice).collect();
    let mut carries: Vec<T::Sum> = Vec::with_capacity(totals.len());
    let mut carry = T::wide_zero();
    for &total in &totals {
        carries.push(T::fast_carry(carry)?);
        carry = T::wide_merge(carry, total);
    }
    let mut out: Vec<T::Sum> = Vec::with_capacity(values.len());
    let spare = &mut out.spare_capacity_mut()[..values.len()];
    ragged_core::host::advise_huge_pages(spare);
    let exclusive = kind == ScanKind::Exclusive;
    spare
        .par_chunks_mut(CHUNK)
        .zip(values.par_chunks(CHUNK))
        .zip(carries.par_iter())
        .for_each(|((out, chunk), &carry)| {
            let mut a = carry;
            // The input's pieces come prefetched; the output's are requested alongside.
            let piece = elements_in::<T>(PIECE_BYTES);
            let ahead = elements_in::<T>(PREFETCH_DISTANCE);
            let op = out.as_ptr();
            let pieces = out.chunks_mut(piece).zip(prefetched_pieces(chunk));
            for (k, (out, chunk)) in pieces.enumerate() {
                prefetch(op.wrapping_add(k * piece + ahead), piece);
                if T::IS_FLOAT {
                    let mut groups = out.chunks_exact_mut(GROUP).zip(chunk.chunks_exact(GROUP));
                    for (out, group) in &mut groups {
                        let mut own = [T::sum_zero(); GROUP];
                        let mut run = T::sum_zero();
                        for (slot, &v) in own.iter_mut().zip(group) {
                            let next = T::sum_step(run, v);
                            *slot = if exclusive { run } else { next };
                            run = next;
                        }
                        for (slot, &o) in out.iter_mut().zip(&own) {
                            slot.write(T::sum_merge(a, o));
                        }
                        a = T::sum_merge(a, run);
                    }
                    // Only the chunk's last piece can leave a partial group.
                    let done = out.len() / GROUP * GROUP;
                    for (slot, &v) in out[done..].iter_mut().zip(&chunk[done..]) {
                        let next = T::sum_step(a, v);
                        slot.write(if exclusive { a } else { next });
                        a = next;
                    }
                } else if exclusive {
                    for (slot, &v) in out.iter_mut().zip(chunk) {
                        slot.write(a);
                        a = T::sum_step(a, v);
                    }
                } else {
                    for (slot, &v) in out.iter_mut().zip(chunk) {
                        a = T::sum_step(a, v);
                        slot.write(a);
                    }
                }
            }
        });
    // SAFETY: the chunks above cover out[0..values.len()] exactly once (the same
    // chunking as `values`; each chunk's pieces, groups and tail cover it), so every
    // element is written.
    unsafe { out.set_len(values.len()) };
    Some(out)
}

// ---- scan_min / scan_max ----------------------------------------------------------

/// Running extremes. The state is `None` while no valid row has been seen (output:
/// the identity), else the extreme so far under [`Extreme::replaces`] (NaN only while
/// every valid value is NaN).
struct ExtremeScan(Extreme);

impl<T: Native> ScanOp<T> for ExtremeScan {
    type State = Option<T>;
    type Out = T;
    #[inline]
    fn identity(&self) -> Option<T> {
        None
    }
    #[inline]
    fn step(&self, state: Option<T>, value: T, valid: bool) -> Option<T> {
        match state {
            _ if !valid => state,
            Some(current) if !self.0.replaces(value, current) => state,
            _ => Some(value),
        }
    }
    #[inline]
    fn combine(&self, earlier: Option<T>, later: Option<T>) -> Option<T> {
        match (earlier, later) {
            (Some(a), Some(b)) => Some(if self.0.replaces(b, a) { b } else { a }),
            (a, None) => a,
            (None, b) => b,
        }
    }
    #[inline]
    fn output(&self, state: Option<T>) -> Option<T> {
        Some(state.unwrap_or_else(|| self.0.identity()))
    }
}

/// Running minima or maxima; see [`ragged_core::Primitives::scan_min`].
pub(crate) fn scan_extreme<T: Native>(
    col: &PrimitiveColumn<T>,
    kind: ScanKind,
    extreme: Extreme,
) -> Result<PrimitiveColumn<T>> {
    let out = scan(col, &ExtremeScan(extreme), kind).unwrap_or_default();
    with_validity(col, out)
}

// ---- scan_sum_f64 -----------------------------------------------------------------

/// Running sums of `transform(x)` in `f64`.
struct SumF64(Transform);

impl<T: Native> ScanOp<T> for SumF64 {
    type State = f64;
    type Out = f64;
    #[inline]
    fn identity(&self) -> f64 {
        0.0
    }
    #[inline]
    fn step(&self, state: f64, value: T, valid: bool) -> f64 {
        if valid {
            state + transformed(self.0, value)
        } else {
            state
        }
    }
    #[inline]
    fn combine(&self, earlier: f64, later: f64) -> f64 {
        earlier + later
    }
    #[inline]
    fn output(&self, state: f64) -> Option<f64> {
        Some(state)
    }
}

/// Running sums of `transform(x)`; see [`ragged_core::Primitives::scan_sum_f64`].
pub(crate) fn scan_sum_f64<T: Native>(
    col: &PrimitiveColumn<T>,
    transform: Transform,
    kind: ScanKind,
) -> Result<PrimitiveColumn<f64>> {
    let out = scan(col, &SumF64(transform), kind).unwrap_or_default();
    with_validity(col, out)
}

// ---- scan_count_if ----------------------------------------------------------------

/// Running counts of the valid rows satisfying a predicate.
struct CountIf<T>(Predicate<T>);

impl<T: Native> ScanOp<T> for CountIf<T> {
    type State = i64;
    type Out = i64;
    #[inline]
    fn identity(&self) -> i64 {
        0
    }
    #[inline]
    fn step(&self, state: i64, value: T, valid: bool) -> i64 {
        state + i64::from(valid && self.0.test(value))
    }
    #[inline]
    fn combine(&self, earlier: i64, later: i64) -> i64 {
        earlier + later
    }
    #[inline]
    fn output(&self, state: i64) -> Option<i64> {
        Some(state)
    }
}

/// Running counts (every output row valid); see
/// [`ragged_core::Primitives::scan_count_if`].
pub(crate) fn scan_count_if<T: Native>(
    col: &PrimitiveColumn<T>,
    predicate: Predicate<T>,
    kind: ScanKind,
) -> Result<PrimitiveColumn<i64>> {
    let out = scan(col, &CountIf(predicate), kind).unwrap_or_default();
    PrimitiveColumn::try_new(ScalarBuffer::from(out), None)
}

// ---- sizes_to_offsets -------------------------------------------------------------

/// Offsets from sizes; see [`ragged_core::Primitives::sizes_to_offsets`].
///
/// Pass 1 sums each chunk in `i64` and finds its first negative valid size (so a
/// negative size is reported at its lowest row before anything else); the width is
/// chosen from the total; pass 2 writes `offsets[r + 1]` for each row `r` of each chunk
/// from the chunk's carry. Null sizes count as 0 whatever value they hold.
pub(crate) fn sizes_to_offsets(
    sizes: &PrimitiveColumn<i32>,
    width: OffsetWidth,
) -> Result<(Offsets<Host>, i64)> {
    const OP: &str = "sizes_to_offsets";
    let values: &[i32] = sizes.values();
    let validity = sizes.validity();

    // Pass 1: per chunk, (sum of valid sizes, first negative valid size).
    let per_chunk: Vec<(i64, Option<(usize, i32)>)> = values
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(chunk_index, chunk)| {
            let base = chunk_index * CHUNK;
            let mut sum = 0i64;
            let mut negative = None;
            for_each_row(chunk, validity, base, |i, size, valid| {
                if valid {
                    if size < 0 && negative.is_none() {
                        negative = Some((base + i, size));
                    }
                    sum += i64::from(size);
                }
            });
            (sum, negative)
        })
        .collect();
    if let Some((index, size)) = per_chunk.iter().find_map(|&(_, negative)| negative) {
        return Err(Error::NegativeSize {
            index,
            size: i64::from(size),
        });
    }

    // Carries and total; with no negative size every prefix is at most the total.
    let mut carries = Vec::with_capacity(per_chunk.len());
    let mut total = 0i64;
    for &(sum, _) in &per_chunk {
        carries.push(total);
        total = total.checked_add(sum).ok_or_else(|| Error::Overflow {
            op: OP,
            message: "the total size does not fit i64".to_string(),
        })?;
    }
    let narrow = match width {
        OffsetWidth::I64 => false,
        OffsetWidth::Auto => total <= i64::from(i32::MAX),
        OffsetWidth::I32 if total <= i64::from(i32::MAX) => true,
        OffsetWidth::I32 => {
            let index = first_offset_above_i32(values, sizes, &per_chunk, &carries);
            return Err(Error::Overflow {
                op: OP,
                message: format!(
                    "the offset at index {index} exceeds i32::MAX (total {total}); ask for i64 or Auto offsets"
                ),
            });
        }
    };
    let offsets = if narrow {
        Offsets::I32(ScalarBuffer::from(fill_offsets::<i32>(
            values,
            sizes,
            &carries,
            |x| x as i32, // lossless: every offset is at most the total, which fits
        )))
    } else {
        Offsets::I64(ScalarBuffer::from(fill_offsets::<i64>(
            values,
            sizes,
            &carries,
            |x| x,
        )))
    };
    Ok((offsets, total))
}

/// The index of the first offset above `i32::MAX` (there is one: the total is): the
/// first chunk whose end passes the limit is walked from its carry.
fn first_offset_above_i32(
    values: &[i32],
    sizes: &PrimitiveColumn<i32>,
    per_chunk: &[(i64, Option<(usize, i32)>)],
    carries: &[i64],
) -> usize {
    let limit = i64::from(i32::MAX);
    let Some(chunk_index) = (0..carries.len()).find(|&c| carries[c] + per_chunk[c].0 > limit)
    else {
        return values.len();
    };
    let base = chunk_index * CHUNK;
    let chunk = &values[base..values.len().min(base + CHUNK)];
    let mut offset = carries[chunk_index];
    let mut found = None;
    for_each_row(chunk, sizes.validity(), base, |i, size, valid| {
        if valid {
            offset += i64::from(size);
        }
        if offset > limit && found.is_none() {
            found = Some(base + i + 1);
        }
    });
    found.unwrap_or(values.len())
}

/// Pass 2 of [`sizes_to_offsets`]: `n + 1` offsets of type `O` from the chunk carries.
fn fill_offsets<O: Native>(
    values: &[i32],
    sizes: &PrimitiveColumn<i32>,
    carries: &[i64],
    narrow: impl Fn(i64) -> O + Sync,
) -> Vec<O> {
    let validity = sizes.validity();
    let mut out = crate::output_vec::<O>(values.len() + 1);
    // out[0] = 0 (the default); rows of chunk c write out[base + 1..=base + len].
    out[1..]
        .par_chunks_mut(CHUNK)
        .zip(values.par_chunks(CHUNK))
        .zip(carries.par_iter())
        .enumerate()
        .for_each(|(chunk_index, ((out, chunk), &carry))| {
            let mut offset = carry;
            for_each_row(chunk, validity, chunk_index * CHUNK, |i, size, valid| {
                if valid {
                    offset += i64::from(size);
                }
                out[i] = narrow(offset);
            });
        });
    out
}
