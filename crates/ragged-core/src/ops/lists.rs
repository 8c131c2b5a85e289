//! The lists family: Awkward-style operations over [`ListColumn`]s and
//! [`ListViewColumn`]s.
//!
//! Shared rules:
//! - **Forms.** A [`ListColumn`] is offsets + child (Arrow `List`); a
//!   [`ListViewColumn`] is starts + stops + child (Arrow `ListView`, Awkward's
//!   `ListArray`), whose lists may overlap, come in any order and leave gaps.
//!   [`ListOps::compact_offsets`] and [`ListOps::to_compact`] turn the second into the
//!   first; [`ListOps::slice`] produces the second without copying the child.
//! - **Nulls.** A null list is null in every per-list output; its elements (a null list
//!   may cover child elements) are never read, and its row in a list output is empty.
//!   Null elements are skipped by reductions (as in the primitives family) and keep
//!   their null in element outputs.
//! - **Empty lists** give the identity of a reduction (sum 0, prod 1, count 0, any
//!   `false`, all `true`), or null where there is none (min, max, argmin, argmax,
//!   mean).
//! - **Children.** Element-moving operations (`to_compact`, `flatten`, `get`) accept
//!   numeric, boolean and strings children; other children are
//!   [`crate::Error::Unsupported`]. Reductions take numeric children of the named type
//!   (`any`/`all`: boolean children); another child type is
//!   [`crate::Error::TypeMismatch`].
//! - **Positions** (`argmin`, `argmax`, `local_index`, `get`) are within the list,
//!   0-based.

use super::{Memory, OffsetWidth, Offsets};
use crate::column::{BooleanColumn, Column, ListColumn, ListViewColumn, PrimitiveColumn};
use crate::location::Location;
use crate::types::{Native, OffsetSize};
use crate::Result;

/// What [`ListOps::get`] does when an index is outside a (valid) list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum OutOfRange {
    /// The output row is null.
    #[default]
    Null,
    /// The call fails with [`crate::Error::IndexOutOfRange`] naming the lowest such
    /// list.
    Error,
}

/// Python's slice bounds for a list of `len` elements: negative bounds count from the
/// end, `None` is the start or the end, and both are clamped to `0..=len`; an empty
/// range (stop before start) is `(start, start)`. Returns `(start, stop)` within the
/// list.
///
/// # Example
/// ```
/// use ragged_core::ops::python_slice;
/// assert_eq!(python_slice(5, Some(1), Some(-1)), (1, 4));
/// assert_eq!(python_slice(5, Some(-10), None), (0, 5));
/// assert_eq!(python_slice(5, Some(4), Some(2)), (4, 4));
/// ```
#[inline]
pub fn python_slice(len: i64, start: Option<i64>, stop: Option<i64>) -> (i64, i64) {
    let bound = |b: i64| {
        if b < 0 {
            (b.saturating_add(len)).max(0)
        } else {
            b.min(len)
        }
    };
    let a = start.map_or(0, bound);
    let b = stop.map_or(len, bound);
    (a, b.max(a))
}

/// Python's index for a list of `len` elements: a negative index counts from the end;
/// `None` when it falls outside `0..len`.
///
/// # Example
/// ```
/// use ragged_core::ops::python_index;
/// assert_eq!(python_index(3, -1), Some(2));
/// assert_eq!(python_index(3, 3), None);
/// assert_eq!(python_index(3, -4), None);
/// ```
pub fn python_index(len: i64, index: i64) -> Option<i64> {
    let i = if index < 0 {
        index.checked_add(len)?
    } else {
        index
    };
    (0..len).contains(&i).then_some(i)
}

/// Operations on list columns. See the module documentation for the rules on nulls,
/// empty lists and child types.
pub trait ListOps: Memory {
    // ---- structure -----------------------------------------------------------------

    /// The number of elements of each list (`offsets[i + 1] - offsets[i]`), as the
    /// column's offset type. Null lists are null in the output.
    ///
    /// # Errors
    /// Device errors only.
    fn counts<O: OffsetSize>(
        &self,
        col: &ListColumn<O, Self::Loc>,
    ) -> Result<PrimitiveColumn<O, Self::Loc>>;

    /// Compact offsets from a starts/stops pair: `offsets[0] = 0`, `offsets[i + 1] =
    /// offsets[i] + stops[i] - starts[i]` (`n + 1` offsets), and the total, from a
    /// single pass that also checks every list.
    ///
    /// # Errors
    /// [`crate::Error::LengthMismatch`] when starts and stops differ in length; for the
    /// lowest list `i` with `stops[i] < starts[i]`, [`crate::Error::StopsBeforeStarts`],
    /// or with `starts[i] < 0` or `stops[i] > child_len`,
    /// [`crate::Error::ListOutOfBounds`] (see [`crate::column::starts_stops_error`]);
    /// [`crate::Error::Overflow`] naming the first offset above `i32::MAX` when `width`
    /// is [`OffsetWidth::I32`].
    fn compact_offsets<O: OffsetSize>(
        &self,
        starts: &<Self::Loc as Location>::Buffer<O>,
        stops: &<Self::Loc as Location>::Buffer<O>,
        child_len: usize,
        width: OffsetWidth,
    ) -> Result<(Offsets<Self::Loc>, i64)>;

    /// The offsets-based column holding the same lists: the child gathered so that the
    /// lists are contiguous and in order (null lists become empty and stay null).
    ///
    /// # Errors
    /// [`crate::Error::Overflow`] when the total number of elements does not fit `O`;
    /// [`crate::Error::Unsupported`] for a child type that cannot be gathered.
    fn to_compact<O: OffsetSize>(
        &self,
        col: &ListViewColumn<O, Self::Loc>,
    ) -> Result<ListColumn<O, Self::Loc>>;

    /// The elements of the valid lists, in order, as one column (null lists
    /// contribute nothing). Without null lists this is the child's range
    /// `offsets[0]..offsets[n]`. For a [`ListViewColumn`], the child of
    /// [`ListOps::to_compact`] is its flattening.
    ///
    /// # Errors
    /// [`crate::Error::Unsupported`] for a child type that cannot be gathered.
    fn flatten<O: OffsetSize>(&self, col: &ListColumn<O, Self::Loc>) -> Result<Column<Self::Loc>>;

    /// Lists of `counts[i]` consecutive elements of `child` (the inverse of
    /// [`ListOps::flatten`]); a null count gives a null, empty list. The child is
    /// shared, not copied.
    ///
    /// # Errors
    /// [`crate::Error::NegativeSize`] for the lowest negative count;
    /// [`crate::Error::LengthMismatch`] when the counts do not add up to the child's
    /// length.
    fn unflatten<O: OffsetSize>(
        &self,
        child: &Column<Self::Loc>,
        counts: &PrimitiveColumn<O, Self::Loc>,
    ) -> Result<ListColumn<O, Self::Loc>>;

    /// Lists of the same shape holding each element's position in its list
    /// (`[[a, b], [], [c]]` → `[[0, 1], [], [0]]`) as an `Int64` child; offsets start at
    /// 0 and null lists are null and empty.
    ///
    /// # Errors
    /// Device errors only.
    fn local_index<O: OffsetSize>(
        &self,
        col: &ListColumn<O, Self::Loc>,
    ) -> Result<ListColumn<O, Self::Loc>>;

    /// Element `index` of every list (negative counts from the end, as in Python), as
    /// a column of the child's type; null for a null list or element, and for an index
    /// outside the list when `out_of_range` is [`OutOfRange::Null`].
    ///
    /// # Errors
    /// [`crate::Error::IndexOutOfRange`] for the lowest valid list too short, when
    /// `out_of_range` is [`OutOfRange::Error`]; [`crate::Error::Unsupported`] for a
    /// child type that cannot be gathered.
    fn get<O: OffsetSize>(
        &self,
        col: &ListColumn<O, Self::Loc>,
        index: i64,
        out_of_range: OutOfRange,
    ) -> Result<Column<Self::Loc>>;

    /// `list[start:stop]` of every list with Python's rules ([`python_slice`]), as a
    /// view sharing the child (no element is copied); null lists stay null and empty.
    ///
    /// # Errors
    /// Device errors only.
    fn slice<O: OffsetSize>(
        &self,
        col: &ListColumn<O, Self::Loc>,
        start: Option<i64>,
        stop: Option<i64>,
    ) -> Result<ListViewColumn<O, Self::Loc>>;

    // ---- per-list reductions -------------------------------------------------------

    /// The sum of each list's valid elements in [`Native::Sum`] (0 for an empty list).
    ///
    /// # Errors
    /// [`crate::Error::TypeMismatch`] when the child is not `T`;
    /// [`crate::Error::Overflow`] when an integer sum does not fit.
    fn list_sum<O: OffsetSize, T: Native>(
        &self,
        col: &ListColumn<O, Self::Loc>,
    ) -> Result<PrimitiveColumn<T::Sum, Self::Loc>>;

    /// The product of each list's valid elements in [`Native::Sum`] (1 for an empty
    /// list).
    ///
    /// # Errors
    /// [`crate::Error::TypeMismatch`]; [`crate::Error::Overflow`] naming the lowest list
    /// whose integer product does not fit.
    fn list_prod<O: OffsetSize, T: Native>(
        &self,
        col: &ListColumn<O, Self::Loc>,
    ) -> Result<PrimitiveColumn<T::Sum, Self::Loc>>;

    /// The least valid element of each list (NaN ignored unless every element is NaN);
    /// null for a list without a valid element.
    ///
    /// # Errors
    /// [`crate::Error::TypeMismatch`].
    fn list_min<O: OffsetSize, T: Native>(
        &self,
        col: &ListColumn<O, Self::Loc>,
    ) -> Result<PrimitiveColumn<T, Self::Loc>>;

    /// The greatest valid element of each list; null for a list without a valid
    /// element.
    ///
    /// # Errors
    /// [`crate::Error::TypeMismatch`].
    fn list_max<O: OffsetSize, T: Native>(
        &self,
        col: &ListColumn<O, Self::Loc>,
    ) -> Result<PrimitiveColumn<T, Self::Loc>>;

    /// The position in its list of each list's least valid element (lowest on ties);
    /// null for a list without a valid element.
    ///
    /// # Errors
    /// [`crate::Error::TypeMismatch`].
    fn list_argmin<O: OffsetSize, T: Native>(
        &self,
        col: &ListColumn<O, Self::Loc>,
    ) -> Result<PrimitiveColumn<i64, Self::Loc>>;

    /// The position in its list of each list's greatest valid element (lowest on
    /// ties); null for a list without a valid element.
    ///
    /// # Errors
    /// [`crate::Error::TypeMismatch`].
    fn list_argmax<O: OffsetSize, T: Native>(
        &self,
        col: &ListColumn<O, Self::Loc>,
    ) -> Result<PrimitiveColumn<i64, Self::Loc>>;

    /// The number of valid elements of each list, for a child of any type.
    ///
    /// # Errors
    /// Device errors only.
    fn list_count<O: OffsetSize>(
        &self,
        col: &ListColumn<O, Self::Loc>,
    ) -> Result<PrimitiveColumn<i64, Self::Loc>>;

    /// The number of valid, non-zero elements of each list (NaN is non-zero).
    ///
    /// # Errors
    /// [`crate::Error::TypeMismatch`].
    fn list_count_nonzero<O: OffsetSize, T: Native>(
        &self,
        col: &ListColumn<O, Self::Loc>,
    ) -> Result<PrimitiveColumn<i64, Self::Loc>>;

    /// Whether any valid element of each list of booleans is `true` (`false` for an
    /// empty list).
    ///
    /// # Errors
    /// [`crate::Error::TypeMismatch`] when the child is not boolean.
    fn list_any<O: OffsetSize>(
        &self,
        col: &ListColumn<O, Self::Loc>,
    ) -> Result<BooleanColumn<Self::Loc>>;

    /// Whether every valid element of each list of booleans is `true` (`true` for an
    /// empty list).
    ///
    /// # Errors
    /// [`crate::Error::TypeMismatch`] when the child is not boolean.
    fn list_all<O: OffsetSize>(
        &self,
        col: &ListColumn<O, Self::Loc>,
    ) -> Result<BooleanColumn<Self::Loc>>;

    /// The mean of each list's valid elements, accumulated in `f64`; null for a list
    /// without a valid element.
    ///
    /// # Errors
    /// [`crate::Error::TypeMismatch`].
    fn list_mean<O: OffsetSize, T: Native>(
        &self,
        col: &ListColumn<O, Self::Loc>,
    ) -> Result<PrimitiveColumn<f64, Self::Loc>>;
}
