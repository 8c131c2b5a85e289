//! List-view columns: one start and one stop per list into any child column.

use std::sync::Arc;

use arrow_buffer::{NullBuffer, ScalarBuffer};

use super::{check_validity_len, validate_starts_stops, Column, ListColumn};
use crate::error::Error;
use crate::location::{DataBuffer, Host, Location, ValidityBitmap};
use crate::types::OffsetSize;
use crate::Result;

/// A column of lists in the starts/stops form (Arrow `ListView` / `LargeListView`,
/// Awkward's `ListArray`): list `i` is `child[starts[i]..stops[i]]`. Lists may overlap,
/// come in any order and leave gaps in the child. `O` is `i32` or `i64`.
///
/// Every list, null or not, satisfies `0 <= starts[i] <= stops[i] <= child.len()`; the
/// checked constructor reports the lowest list that does not, with the same error as
/// [`crate::ListOps::compact_offsets`]. Turn a view into an offsets-based
/// [`ListColumn`] with [`crate::ListOps::to_compact`].
///
/// # Example
/// ```
/// use arrow_buffer::ScalarBuffer;
/// use ragged_core::{Column, ListViewColumn, PrimitiveColumn};
/// let child = Column::Int32(PrimitiveColumn::from_vec(vec![1, 2, 3, 4]));
/// // [[3, 4], [1, 2, 3], []]
/// let lists = ListViewColumn::<i32>::try_new(
///     ScalarBuffer::from(vec![2, 0, 1]),
///     ScalarBuffer::from(vec![4, 3, 1]),
///     child,
///     None,
/// )?;
/// assert_eq!(lists.range(1), 0..3);
/// # Ok::<(), ragged_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct ListViewColumn<O: OffsetSize, L: Location = Host> {
    starts: L::Buffer<O>,
    stops: L::Buffer<O>,
    child: Arc<Column<L>>,
    validity: Option<L::Bitmap>,
}

impl<O: OffsetSize, L: Location> ListViewColumn<O, L> {
    /// A column from buffers that the caller guarantees valid.
    ///
    /// # Safety
    /// `starts` and `stops` have the same length and `0 <= starts[i] <= stops[i] <=
    /// child.len()` for every `i`; `validity`, if any, has `starts.len()` slots.
    pub unsafe fn new_unchecked(
        starts: L::Buffer<O>,
        stops: L::Buffer<O>,
        child: Arc<Column<L>>,
        validity: Option<L::Bitmap>,
    ) -> Self {
        Self {
            starts,
            stops,
            child,
            validity,
        }
    }

    /// Number of lists.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// Whether the column has no list.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The start of every list in the child.
    pub fn starts(&self) -> &L::Buffer<O> {
        &self.starts
    }

    /// The stop (one past the last element) of every list in the child.
    pub fn stops(&self) -> &L::Buffer<O> {
        &self.stops
    }

    /// The child column holding the lists' elements (and possibly elements of no list).
    pub fn child(&self) -> &Column<L> {
        &self.child
    }

    /// The child column, shared.
    pub fn child_arc(&self) -> &Arc<Column<L>> {
        &self.child
    }

    /// The validity bitmap, `None` when every list is valid.
    pub fn validity(&self) -> Option<&L::Bitmap> {
        self.validity.as_ref()
    }

    /// Number of null lists.
    pub fn null_count(&self) -> usize {
        self.validity.as_ref().map_or(0, |v| v.null_count())
    }

    /// The parts: starts, stops, child, validity.
    #[allow(clippy::type_complexity)] // the four buffers, named in the docs
    pub fn into_parts(
        self,
    ) -> (
        L::Buffer<O>,
        L::Buffer<O>,
        Arc<Column<L>>,
        Option<L::Bitmap>,
    ) {
        (self.starts, self.stops, self.child, self.validity)
    }
}

impl<O: OffsetSize> ListViewColumn<O, Host> {
    /// A column from host starts, stops and a child, validated.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when starts, stops and validity differ in length;
    /// [`Error::StopsBeforeStarts`] or [`Error::ListOutOfBounds`] for the lowest bad
    /// list.
    pub fn try_new(
        starts: ScalarBuffer<O>,
        stops: ScalarBuffer<O>,
        child: Column<Host>,
        validity: Option<NullBuffer>,
    ) -> Result<Self> {
        Self::try_new_shared(starts, stops, Arc::new(child), validity)
    }

    /// Like [`ListViewColumn::try_new`] with a shared child.
    ///
    /// # Errors
    /// As [`ListViewColumn::try_new`].
    pub fn try_new_shared(
        starts: ScalarBuffer<O>,
        stops: ScalarBuffer<O>,
        child: Arc<Column<Host>>,
        validity: Option<NullBuffer>,
    ) -> Result<Self> {
        validate_starts_stops(&starts, &stops, child.len())?;
        check_validity_len("ListViewColumn::try_new", validity.as_ref(), starts.len())?;
        Ok(Self {
            starts,
            stops,
            child,
            validity,
        })
    }

    /// The view of an offsets-based list column (zero-copy: the starts and stops are
    /// the offsets without their last and first element).
    pub fn from_list(list: &ListColumn<O, Host>) -> Self {
        let n = list.len();
        Self {
            starts: list.offsets().slice(0, n),
            stops: list.offsets().slice(1, n),
            child: list.child_arc().clone(),
            validity: list.validity().cloned(),
        }
    }

    /// Whether list `i` is valid (`false` when out of range).
    pub fn is_valid(&self, i: usize) -> bool {
        i < self.len() && self.validity.as_ref().is_none_or(|v| v.is_valid(i))
    }

    /// The child range of list `i` (empty when out of range).
    pub fn range(&self, i: usize) -> std::ops::Range<usize> {
        match (self.starts.get(i), self.stops.get(i)) {
            (Some(a), Some(b)) => a.as_usize()..b.as_usize(),
            _ => 0..0,
        }
    }

    /// Lists `offset..offset + len` without copying.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the range is out of bounds.
    pub fn slice(&self, offset: usize, len: usize) -> Result<Self> {
        if offset.checked_add(len).is_none_or(|end| end > self.len()) {
            return Err(Error::invalid_argument(
                "ListViewColumn::slice",
                format!(
                    "range {offset}..{offset}+{len} is out of bounds for {} lists",
                    self.len()
                ),
            ));
        }
        Ok(Self {
            starts: self.starts.slice(offset, len),
            stops: self.stops.slice(offset, len),
            child: self.child.clone(),
            validity: self.validity.as_ref().map(|v| v.slice(offset, len)),
        })
    }
}
