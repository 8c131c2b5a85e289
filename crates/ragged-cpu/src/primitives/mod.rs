//! The primitives family on the CPU: reductions (`reduce.rs`), scans and offsets from
//! sizes (`scan.rs`), stream compaction (`select.rs`) and segmented reductions
//! (`segmented_reduce.rs`).
//!
//! Every op cuts its input into chunks of [`crate::CHUNK`] rows processed by rayon
//! tasks; ops with an output per row are two passes (per-chunk totals or counts, a
//! sequential prefix over the few chunk totals, then a parallel fill), so no task ever
//! allocates per element.
//!
//! The semantics are those of `ragged_core::ops::primitives`. Where that contract
//! leaves a choice open, this backend (the executable specification) decides, and the
//! other backends follow:
//! - the value `reduce_min`/`reduce_max` return is the value of the row that
//!   `reduce_argmin`/`reduce_argmax` return (so of `-0.0` and `0.0` the earlier);
//! - each output row of `scan_min`/`scan_max` is the reduction of its prefix under the
//!   reduce rules (NaN only when every valid value of the prefix is NaN), and a prefix
//!   with no valid value gives the identity (the type's maximum or minimum, `±inf`);
//!   the exclusive scan is the inclusive one shifted by one row;
//! - integer `scan_sum` fails with `Overflow` when the value of an output row does not
//!   fit `Native::Sum`: the running sum (nulls adding 0) through the row (inclusive) or
//!   before it (exclusive), null rows included, so an exclusive scan whose total alone
//!   does not fit succeeds; the message names the lowest such row (`at row 12`);
//! - `sizes_to_offsets` checks negative sizes first (`NegativeSize` at the lowest valid
//!   row with a negative size; null rows count 0 whatever they hold), then the width:
//!   an `I32` request whose total exceeds `i32::MAX` fails with `Overflow` naming the
//!   first offset beyond it (`offset at index 2`); `Auto` gives i32 offsets exactly when
//!   the total fits;
//! - `segmented_sum` reports `Overflow` naming the lowest segment (`segment 3`);
//! - values under null output rows are unspecified (this backend writes the running
//!   value, or the identity for segmented minima and maxima).

mod reduce;
mod scan;
mod segmented_reduce;
mod select;

pub(crate) use reduce::sum_f64_lanes;

use arrow_buffer::{BooleanBuffer, NullBuffer};
use ragged_core::ops::{OffsetWidth, Offsets, Predicate, ScanKind, Selection, Transform};
use ragged_core::{
    BooleanColumn, Host, Native, OffsetSize, PrimitiveColumn, Primitives, Result, ScalarBuffer,
};

use crate::CpuBackend;

impl Primitives for CpuBackend {
    fn reduce_sum<T: Native>(&self, col: &PrimitiveColumn<T>) -> Result<T::Sum> {
        reduce::reduce_sum(col)
    }

    fn reduce_sum_f64<T: Native>(
        &self,
        col: &PrimitiveColumn<T>,
        transform: Transform,
    ) -> Result<f64> {
        Ok(reduce::reduce_sum_f64(col, transform))
    }

    fn reduce_min<T: Native>(&self, col: &PrimitiveColumn<T>) -> Result<Option<T>> {
        Ok(reduce::reduce_extreme(col, Extreme::Min).map(|best| best.value))
    }

    fn reduce_max<T: Native>(&self, col: &PrimitiveColumn<T>) -> Result<Option<T>> {
        Ok(reduce::reduce_extreme(col, Extreme::Max).map(|best| best.value))
    }

    fn reduce_argmin<T: Native>(&self, col: &PrimitiveColumn<T>) -> Result<Option<usize>> {
        Ok(reduce::reduce_extreme(col, Extreme::Min).map(|best| best.row))
    }

    fn reduce_argmax<T: Native>(&self, col: &PrimitiveColumn<T>) -> Result<Option<usize>> {
        Ok(reduce::reduce_extreme(col, Extreme::Max).map(|best| best.row))
    }

    fn count_valid<T: Native>(&self, col: &PrimitiveColumn<T>) -> Result<usize> {
        Ok(reduce::count_valid(col))
    }

    fn count_if<T: Native>(
        &self,
        col: &PrimitiveColumn<T>,
        predicate: Predicate<T>,
    ) -> Result<usize> {
        Ok(reduce::count_if(col, predicate))
    }

    fn reduce_any(&self, col: &BooleanColumn) -> Result<Option<bool>> {
        Ok(reduce::reduce_any(col))
    }

    fn reduce_all(&self, col: &BooleanColumn) -> Result<Option<bool>> {
        Ok(reduce::reduce_all(col))
    }

    fn scan_sum<T: Native>(
        &self,
        col: &PrimitiveColumn<T>,
        kind: ScanKind,
    ) -> Result<PrimitiveColumn<T::Sum>> {
        scan::scan_sum(col, kind)
    }

    fn scan_min<T: Native>(
        &self,
        col: &PrimitiveColumn<T>,
        kind: ScanKind,
    ) -> Result<PrimitiveColumn<T>> {
        scan::scan_extreme(col, kind, Extreme::Min)
    }

    fn scan_max<T: Native>(
        &self,
        col: &PrimitiveColumn<T>,
        kind: ScanKind,
    ) -> Result<PrimitiveColumn<T>> {
        scan::scan_extreme(col, kind, Extreme::Max)
    }

    fn scan_sum_f64<T: Native>(
        &self,
        col: &PrimitiveColumn<T>,
        transform: Transform,
        kind: ScanKind,
    ) -> Result<PrimitiveColumn<f64>> {
        scan::scan_sum_f64(col, transform, kind)
    }

    fn scan_count_if<T: Native>(
        &self,
        col: &PrimitiveColumn<T>,
        predicate: Predicate<T>,
        kind: ScanKind,
    ) -> Result<PrimitiveColumn<i64>> {
        scan::scan_count_if(col, predicate, kind)
    }

    fn sizes_to_offsets(
        &self,
        sizes: &PrimitiveColumn<i32>,
        width: OffsetWidth,
    ) -> Result<(Offsets<Host>, i64)> {
        scan::sizes_to_offsets(sizes, width)
    }

    fn select_mask<T: Native>(
        &self,
        col: &PrimitiveColumn<T>,
        mask: &BooleanColumn,
        with_indices: bool,
    ) -> Result<Selection<T, Host>> {
        select::select_mask(col, mask, with_indices)
    }

    fn select_if<T: Native>(
        &self,
        col: &PrimitiveColumn<T>,
        predicate: Predicate<T>,
        with_indices: bool,
    ) -> Result<Selection<T, Host>> {
        select::select_if(col, predicate, with_indices)
    }

    fn segmented_sum<T: Native, O: OffsetSize>(
        &self,
        col: &PrimitiveColumn<T>,
        offsets: &ScalarBuffer<O>,
    ) -> Result<PrimitiveColumn<T::Sum>> {
        segmented_reduce::segmented_sum(col, offsets)
    }

    fn segmented_min<T: Native, O: OffsetSize>(
        &self,
        col: &PrimitiveColumn<T>,
        offsets: &ScalarBuffer<O>,
    ) -> Result<PrimitiveColumn<T>> {
        segmented_reduce::segmented_extreme(col, offsets, Extreme::Min)
    }

    fn segmented_max<T: Native, O: OffsetSize>(
        &self,
        col: &PrimitiveColumn<T>,
        offsets: &ScalarBuffer<O>,
    ) -> Result<PrimitiveColumn<T>> {
        segmented_reduce::segmented_extreme(col, offsets, Extreme::Max)
    }

    fn segmented_argmin<T: Native, O: OffsetSize>(
        &self,
        col: &PrimitiveColumn<T>,
        offsets: &ScalarBuffer<O>,
    ) -> Result<PrimitiveColumn<i64>> {
        segmented_reduce::segmented_arg_extreme(col, offsets, Extreme::Min)
    }

    fn segmented_argmax<T: Native, O: OffsetSize>(
        &self,
        col: &PrimitiveColumn<T>,
        offsets: &ScalarBuffer<O>,
    ) -> Result<PrimitiveColumn<i64>> {
        segmented_reduce::segmented_arg_extreme(col, offsets, Extreme::Max)
    }

    fn segmented_count<T: Native, O: OffsetSize>(
        &self,
        col: &PrimitiveColumn<T>,
        offsets: &ScalarBuffer<O>,
    ) -> Result<PrimitiveColumn<i64>> {
        segmented_reduce::segmented_count(col, offsets)
    }
}

// ---------------------------------------------------------------------------------
// Shared pieces
// ---------------------------------------------------------------------------------

/// Call `f(i, value, valid)` for each value of a chunk starting at row `start` of a
/// column with `validity` (`i` is relative to the chunk). The validity bits of the
/// chunk are read through one slice of the bitmap (no allocation).
#[inline]
pub(crate) fn for_each_row<T: Copy>(
    values: &[T],
    validity: Option<&NullBuffer>,
    start: usize,
    mut f: impl FnMut(usize, T, bool),
) {
    match validity {
        None => {
            for (i, &v) in values.iter().enumerate() {
                f(i, v, true);
            }
        }
        Some(valid) => {
            let bits: BooleanBuffer = valid.inner().slice(start, values.len());
            for ((i, &v), ok) in values.iter().enumerate().zip(bits.iter()) {
                f(i, v, ok);
            }
        }
    }
}

/// Which extreme a min/max-family op looks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Extreme {
    /// The least value; identity: the type's maximum (`+inf`).
    Min,
    /// The greatest value; identity: the type's minimum (`-inf`).
    Max,
}

impl Extreme {
    /// The identity of the op: what a reduction over no valid value starts from.
    #[inline]
    pub(crate) fn identity<T: Native>(self) -> T {
        match self {
            Extreme::Min => T::max_value(),
            Extreme::Max => T::min_value(),
        }
    }

    /// Whether `candidate`, from a later row, replaces `current`, from an earlier row,
    /// as the extreme. NaN never replaces anything; any number replaces NaN; otherwise
    /// only a strictly smaller (greater) value does, so ties keep the earlier row.
    ///
    /// Under this rule the extreme of a set of rows is: the earliest row holding the
    /// least (greatest) non-NaN value, or the earliest row when every value is NaN,
    /// whatever the order in which partial results are combined (as long as earlier
    /// partial results are on the left).
    #[inline]
    pub(crate) fn replaces<T: Native>(self, candidate: T, current: T) -> bool {
        if candidate.is_nan_value() {
            return false;
        }
        if current.is_nan_value() {
            return true;
        }
        match self {
            Extreme::Min => candidate < current,
            Extreme::Max => candidate > current,
        }
    }

    /// Fold the valid row `row` holding `value` into a running extreme.
    #[inline]
    pub(crate) fn step<T: Native>(
        self,
        best: Option<Best<T>>,
        row: usize,
        value: T,
    ) -> Option<Best<T>> {
        match best {
            Some(b) if !self.replaces(value, b.value) => Some(b),
            _ => Some(Best { value, row }),
        }
    }

    /// Combine the extreme of earlier rows with that of later rows.
    #[inline]
    pub(crate) fn merge<T: Native>(
        self,
        earlier: Option<Best<T>>,
        later: Option<Best<T>>,
    ) -> Option<Best<T>> {
        match (earlier, later) {
            (Some(a), Some(b)) => Some(if self.replaces(b.value, a.value) {
                b
            } else {
                a
            }),
            (a, None) => a,
            (None, b) => b,
        }
    }
}

/// An extreme found so far: its value and its row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Best<T> {
    /// The value.
    pub(crate) value: T,
    /// Its row (relative to whatever the caller indexes: the column or a segment).
    pub(crate) row: usize,
}

pub(crate) use ragged_core::host::split_by_lengths;

/// The transform of `x` in `f64` (the one definition both reduce and scan use).
#[inline]
pub(crate) fn transformed<T: Native>(transform: Transform, x: T) -> f64 {
    transform.apply(x.to_f64())
}

/// A validity bitmap from per-row flags: `None` when every row is valid.
pub(crate) fn validity_from_flags(valid: Vec<bool>) -> Option<NullBuffer> {
    // Packed across rayon tasks: one thread packs about a flag a cycle.
    let n = valid.len();
    let bits = crate::bool_words(n, |base, words| {
        crate::set_bits(words, base, n, |i| valid[i])
    });
    let validity = NullBuffer::new(bits);
    (validity.null_count() > 0).then_some(validity)
}
