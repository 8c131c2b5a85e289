//! The primitives family: reductions, transform-reductions, scans, stream compaction
//! (select) and segmented reductions over primitive columns. The building blocks of
//! every other family: sizes → offsets is a scan, filtering is a select, per-list sums
//! are a segmented reduce.
//!
//! Shared rules:
//! - **Nulls are skipped**: a null value contributes nothing (the identity) to sums,
//!   counts, minima and maxima, and is never selected. Outputs of scans keep the input
//!   validity (a null row is null in the output; the running value goes on past it).
//! - **Integer sums** accumulate in [`Native::Sum`] (i64 / u64) with 128-bit partial
//!   sums; a total (or, for scans, any prefix) that does not fit is
//!   [`crate::Error::Overflow`], never a wrapped value.
//! - **NaN** (floats): minima, maxima and their arg forms (reduce and segmented) ignore
//!   NaN values, as `f64::min`/`f64::max` do; only when every valid value is NaN is the
//!   result NaN (and the arg form the first such index). Min/max scans apply the same
//!   rule to every prefix (see [`Primitives::scan_min`]). Sums propagate NaN. Comparisons in predicates
//!   follow IEEE 754: NaN compares false, except `Ne`.
//! - **Ties**: `argmin`/`argmax` return the lowest index among equal extremes.
//! - **Empty** (no valid value): sums are 0, counts 0, minima/maxima/arg forms `None`
//!   (null for segmented results), `any`/`all` `None`.

use super::Memory;
use crate::column::{BooleanColumn, PrimitiveColumn};
use crate::location::Location;
use crate::types::{Native, OffsetSize};
use crate::Result;

/// A comparison of each value `x` against a scalar: `x <op> value`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Comparison {
    /// `x == value`
    Eq,
    /// `x != value`
    Ne,
    /// `x < value`
    Lt,
    /// `x <= value`
    Le,
    /// `x > value`
    Gt,
    /// `x >= value`
    Ge,
}

impl Comparison {
    /// The code kernels receive (`0..=5` in declaration order).
    pub fn code(self) -> u32 {
        self as u32
    }
}

/// A predicate against a scalar, for [`Primitives::count_if`], [`Primitives::select_if`]
/// and [`Primitives::scan_count_if`].
///
/// # Example
/// ```
/// use ragged_core::ops::{Comparison, Predicate};
/// let p = Predicate::new(Comparison::Gt, 2.5f64);
/// assert!(p.test(3.0) && !p.test(2.5) && !p.test(f64::NAN));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Predicate<T> {
    /// The comparison.
    pub comparison: Comparison,
    /// The scalar compared against.
    pub value: T,
}

impl<T: Native> Predicate<T> {
    /// `x <comparison> value`.
    pub fn new(comparison: Comparison, value: T) -> Self {
        Self { comparison, value }
    }

    /// Whether `x` satisfies the predicate (IEEE 754 for floats: NaN compares false,
    /// except with `Ne`).
    pub fn test(&self, x: T) -> bool {
        match self.comparison {
            Comparison::Eq => x == self.value,
            Comparison::Ne => x != self.value,
            Comparison::Lt => x < self.value,
            Comparison::Le => x <= self.value,
            Comparison::Gt => x > self.value,
            Comparison::Ge => x >= self.value,
        }
    }
}

/// A transform applied to each value on the fly (never materialized) before it is
/// summed or scanned, in `f64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Transform {
    /// `x`
    Identity,
    /// `x * x` (the sum of squares is the squared L2 norm).
    Square,
    /// `|x|` (the sum of absolute values is the L1 norm).
    Abs,
}

impl Transform {
    /// The code kernels receive (`0..=2` in declaration order).
    pub fn code(self) -> u32 {
        self as u32
    }

    /// The transform of `x` (as `f64`).
    pub fn apply(self, x: f64) -> f64 {
        match self {
            Transform::Identity => x,
            Transform::Square => x * x,
            Transform::Abs => x.abs(),
        }
    }
}

/// Inclusive (`out[i]` includes `x[i]`) or exclusive (`out[i]` covers `x[..i]`) scan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScanKind {
    /// `out[i] = x[0] ⊕ … ⊕ x[i]`
    Inclusive,
    /// `out[i] = x[0] ⊕ … ⊕ x[i - 1]`, `out[0]` = the identity.
    Exclusive,
}

/// The offset width [`Primitives::sizes_to_offsets`] produces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OffsetWidth {
    /// i32 offsets; a total above `i32::MAX` is [`crate::Error::Overflow`].
    I32,
    /// i64 offsets.
    I64,
    /// i32 offsets, widened to i64 when the total exceeds `i32::MAX`.
    Auto,
}

/// An offsets buffer of either width, as [`Primitives::sizes_to_offsets`] returns.
#[derive(Clone, Debug)]
pub enum Offsets<L: Location> {
    /// i32 offsets (`Utf8`, `List`).
    I32(L::Buffer<i32>),
    /// i64 offsets (`LargeUtf8`, `LargeList`).
    I64(L::Buffer<i64>),
}

/// The result of a select: the selected values (all valid, in input order) and, when
/// asked for, their row indices in the input.
#[derive(Clone, Debug)]
pub struct Selection<T: Native, L: Location> {
    /// The selected values, in input order, with no nulls.
    pub values: PrimitiveColumn<T, L>,
    /// The input row of each selected value (when asked for).
    pub indices: Option<L::Buffer<u64>>,
}

/// Parallel primitives over [`PrimitiveColumn`]s. See the module documentation for the
/// rules on nulls, overflow, NaN, ties and empty inputs.
pub trait Primitives: Memory {
    // ---- reduce ------------------------------------------------------------------

    /// The sum of the valid values, in [`Native::Sum`] (0 when there is none).
    ///
    /// # Errors
    /// [`crate::Error::Overflow`] when an integer total does not fit `i64` / `u64`.
    fn reduce_sum<T: Native>(&self, col: &PrimitiveColumn<T, Self::Loc>) -> Result<T::Sum>;

    /// The sum of `transform(x)` over the valid values, accumulated in `f64`: the sum
    /// with an f64 accumulator (`Identity`, e.g. for f32 data), the sum of squares
    /// (`Square`; its square root is the L2 norm), the sum of absolute values (`Abs`).
    ///
    /// # Errors
    /// Device errors only.
    fn reduce_sum_f64<T: Native>(
        &self,
        col: &PrimitiveColumn<T, Self::Loc>,
        transform: Transform,
    ) -> Result<f64>;

    /// The least valid value (NaN ignored), `None` when there is none.
    ///
    /// # Errors
    /// Device errors only.
    fn reduce_min<T: Native>(&self, col: &PrimitiveColumn<T, Self::Loc>) -> Result<Option<T>>;

    /// The greatest valid value (NaN ignored), `None` when there is none.
    ///
    /// # Errors
    /// Device errors only.
    fn reduce_max<T: Native>(&self, col: &PrimitiveColumn<T, Self::Loc>) -> Result<Option<T>>;

    /// The row of the least valid value (lowest row on ties), `None` when there is none.
    ///
    /// # Errors
    /// Device errors only.
    fn reduce_argmin<T: Native>(
        &self,
        col: &PrimitiveColumn<T, Self::Loc>,
    ) -> Result<Option<usize>>;

    /// The row of the greatest valid value (lowest row on ties), `None` when there is
    /// none.
    ///
    /// # Errors
    /// Device errors only.
    fn reduce_argmax<T: Native>(
        &self,
        col: &PrimitiveColumn<T, Self::Loc>,
    ) -> Result<Option<usize>>;

    /// The number of valid (non-null) values.
    ///
    /// # Errors
    /// Device errors only.
    fn count_valid<T: Native>(&self, col: &PrimitiveColumn<T, Self::Loc>) -> Result<usize>;

    /// The number of valid values satisfying `predicate`.
    ///
    /// # Errors
    /// Device errors only.
    fn count_if<T: Native>(
        &self,
        col: &PrimitiveColumn<T, Self::Loc>,
        predicate: Predicate<T>,
    ) -> Result<usize>;

    /// Whether any valid value is `true`; `None` when there is no valid value.
    ///
    /// # Errors
    /// Device errors only.
    fn reduce_any(&self, col: &BooleanColumn<Self::Loc>) -> Result<Option<bool>>;

    /// Whether every valid value is `true`; `None` when there is no valid value.
    ///
    /// # Errors
    /// Device errors only.
    fn reduce_all(&self, col: &BooleanColumn<Self::Loc>) -> Result<Option<bool>>;

    // ---- scan --------------------------------------------------------------------

    /// Running sums in [`Native::Sum`] (nulls add 0 and stay null in the output).
    ///
    /// # Errors
    /// [`crate::Error::Overflow`] naming the lowest row whose output (null rows hold the
    /// running value) does not fit `i64` / `u64`.
    fn scan_sum<T: Native>(
        &self,
        col: &PrimitiveColumn<T, Self::Loc>,
        kind: ScanKind,
    ) -> Result<PrimitiveColumn<T::Sum, Self::Loc>>;

    /// Running minima: each row is the [`Primitives::reduce_min`] of its prefix (nulls
    /// skipped and null in the output; NaN only while every valid value so far is NaN;
    /// the identity — the type's maximum, `+inf` for floats — while there is no valid
    /// value). The exclusive scan is the inclusive one shifted by a row, starting at the
    /// identity.
    ///
    /// # Errors
    /// Device errors only.
    fn scan_min<T: Native>(
        &self,
        col: &PrimitiveColumn<T, Self::Loc>,
        kind: ScanKind,
    ) -> Result<PrimitiveColumn<T, Self::Loc>>;

    /// Running maxima; as [`Primitives::scan_min`] with the type's minimum (`-inf`) as
    /// identity.
    ///
    /// # Errors
    /// Device errors only.
    fn scan_max<T: Native>(
        &self,
        col: &PrimitiveColumn<T, Self::Loc>,
        kind: ScanKind,
    ) -> Result<PrimitiveColumn<T, Self::Loc>>;

    /// Running sums of `transform(x)` in `f64` (e.g. the scan of squares).
    ///
    /// # Errors
    /// Device errors only.
    fn scan_sum_f64<T: Native>(
        &self,
        col: &PrimitiveColumn<T, Self::Loc>,
        transform: Transform,
        kind: ScanKind,
    ) -> Result<PrimitiveColumn<f64, Self::Loc>>;

    /// Running counts of the valid values satisfying `predicate` (the scan of the
    /// predicate as 0/1); every output row is valid.
    ///
    /// # Errors
    /// Device errors only.
    fn scan_count_if<T: Native>(
        &self,
        col: &PrimitiveColumn<T, Self::Loc>,
        predicate: Predicate<T>,
        kind: ScanKind,
    ) -> Result<PrimitiveColumn<i64, Self::Loc>>;

    /// Offsets from sizes: `offsets[0] = 0`, `offsets[i + 1] = offsets[i] + sizes[i]`
    /// (`n + 1` offsets), and the total, from one pass. Null sizes count as 0.
    ///
    /// # Errors
    /// [`crate::Error::NegativeSize`] for the lowest valid row with a negative size
    /// (reported before any overflow, so the same input fails the same way at every
    /// width); [`crate::Error::Overflow`] naming the first offset index above
    /// `i32::MAX` when `width` is [`OffsetWidth::I32`].
    fn sizes_to_offsets(
        &self,
        sizes: &PrimitiveColumn<i32, Self::Loc>,
        width: OffsetWidth,
    ) -> Result<(Offsets<Self::Loc>, i64)>;

    // ---- select ------------------------------------------------------------------

    /// The valid values whose mask entry is valid and `true`, in order, and optionally
    /// their rows.
    ///
    /// # Errors
    /// [`crate::Error::LengthMismatch`] when the mask and the column differ in length.
    fn select_mask<T: Native>(
        &self,
        col: &PrimitiveColumn<T, Self::Loc>,
        mask: &BooleanColumn<Self::Loc>,
        with_indices: bool,
    ) -> Result<Selection<T, Self::Loc>>;

    /// The valid values satisfying `predicate`, in order, and optionally their rows.
    ///
    /// # Errors
    /// Device errors only.
    fn select_if<T: Native>(
        &self,
        col: &PrimitiveColumn<T, Self::Loc>,
        predicate: Predicate<T>,
        with_indices: bool,
    ) -> Result<Selection<T, Self::Loc>>;

    // ---- segmented reduce ----------------------------------------------------------

    /// The sum of the valid values of each segment `offsets[i]..offsets[i + 1]`
    /// (0 for an empty segment; every output row is valid).
    ///
    /// # Errors
    /// [`crate::Error::InvalidOffsets`] when the offsets are not valid for `col`;
    /// [`crate::Error::Overflow`] when a segment's integer sum does not fit.
    fn segmented_sum<T: Native, O: OffsetSize>(
        &self,
        col: &PrimitiveColumn<T, Self::Loc>,
        offsets: &<Self::Loc as Location>::Buffer<O>,
    ) -> Result<PrimitiveColumn<T::Sum, Self::Loc>>;

    /// The least valid value of each segment (NaN ignored); null for a segment with no
    /// valid value.
    ///
    /// # Errors
    /// [`crate::Error::InvalidOffsets`].
    fn segmented_min<T: Native, O: OffsetSize>(
        &self,
        col: &PrimitiveColumn<T, Self::Loc>,
        offsets: &<Self::Loc as Location>::Buffer<O>,
    ) -> Result<PrimitiveColumn<T, Self::Loc>>;

    /// The greatest valid value of each segment; null for a segment with no valid value.
    ///
    /// # Errors
    /// [`crate::Error::InvalidOffsets`].
    fn segmented_max<T: Native, O: OffsetSize>(
        &self,
        col: &PrimitiveColumn<T, Self::Loc>,
        offsets: &<Self::Loc as Location>::Buffer<O>,
    ) -> Result<PrimitiveColumn<T, Self::Loc>>;

    /// The position within its segment (0-based) of each segment's least valid value
    /// (lowest on ties); null for a segment with no valid value.
    ///
    /// # Errors
    /// [`crate::Error::InvalidOffsets`].
    fn segmented_argmin<T: Native, O: OffsetSize>(
        &self,
        col: &PrimitiveColumn<T, Self::Loc>,
        offsets: &<Self::Loc as Location>::Buffer<O>,
    ) -> Result<PrimitiveColumn<i64, Self::Loc>>;

    /// The position within its segment of each segment's greatest valid value; null
    /// for a segment with no valid value.
    ///
    /// # Errors
    /// [`crate::Error::InvalidOffsets`].
    fn segmented_argmax<T: Native, O: OffsetSize>(
        &self,
        col: &PrimitiveColumn<T, Self::Loc>,
        offsets: &<Self::Loc as Location>::Buffer<O>,
    ) -> Result<PrimitiveColumn<i64, Self::Loc>>;

    /// The number of valid values of each segment (every output row is valid).
    ///
    /// # Errors
    /// [`crate::Error::InvalidOffsets`].
    fn segmented_count<T: Native, O: OffsetSize>(
        &self,
        col: &PrimitiveColumn<T, Self::Loc>,
        offsets: &<Self::Loc as Location>::Buffer<O>,
    ) -> Result<PrimitiveColumn<i64, Self::Loc>>;
}
