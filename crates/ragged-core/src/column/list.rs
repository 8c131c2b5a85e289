//! List columns: offsets into any child column.

use std::sync::Arc;

use arrow_buffer::{NullBuffer, ScalarBuffer};

use super::string::empty_offsets_error;
use super::{check_validity_len, validate_offsets, Column};
use crate::error::Error;
use crate::location::{DataBuffer, Host, Location, ValidityBitmap};
use crate::types::OffsetSize;
use crate::Result;

/// A column of lists in Arrow layout: list `i` is `child[offsets[i]..offsets[i + 1]]`.
/// `O` is `i32` (`List`) or `i64` (`LargeList`); the child is any [`Column`].
///
/// # Example
/// ```
/// use arrow_buffer::ScalarBuffer;
/// use ragged_core::{Column, ListColumn, PrimitiveColumn};
/// let child = Column::Int32(PrimitiveColumn::from_vec(vec![1, 2, 3]));
/// let lists = ListColumn::<i32>::try_new(ScalarBuffer::from(vec![0, 2, 2, 3]), child, None)?;
/// assert_eq!(lists.len(), 3);
/// # Ok::<(), ragged_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct ListColumn<O: OffsetSize, L: Location = Host> {
    offsets: L::Buffer<O>,
    child: Arc<Column<L>>,
    validity: Option<L::Bitmap>,
}

impl<O: OffsetSize, L: Location> ListColumn<O, L> {
    /// A column from buffers that the caller guarantees valid.
    ///
    /// # Safety
    /// `offsets` is non-empty, non-decreasing, starts at or above 0 and ends at or
    /// below `child.len()`; `validity`, if any, has `offsets.len() - 1` slots.
    pub unsafe fn new_unchecked(
        offsets: L::Buffer<O>,
        child: Arc<Column<L>>,
        validity: Option<L::Bitmap>,
    ) -> Self {
        Self {
            offsets,
            child,
            validity,
        }
    }

    /// Number of lists.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Whether the column has no list.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The offsets buffer (`len() + 1` elements).
    pub fn offsets(&self) -> &L::Buffer<O> {
        &self.offsets
    }

    /// The child column holding every list's elements.
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

    /// The parts: offsets, child, validity.
    #[allow(clippy::type_complexity)] // the three Arrow buffers, named in the docs
    pub fn into_parts(self) -> (L::Buffer<O>, Arc<Column<L>>, Option<L::Bitmap>) {
        (self.offsets, self.child, self.validity)
    }
}

impl<O: OffsetSize> ListColumn<O, Host> {
    /// A column from host offsets and a child, validating the offsets against the
    /// child's length and the validity length.
    ///
    /// # Errors
    /// [`Error::InvalidOffsets`] naming the first bad index, [`Error::LengthMismatch`].
    pub fn try_new(
        offsets: ScalarBuffer<O>,
        child: Column<Host>,
        validity: Option<NullBuffer>,
    ) -> Result<Self> {
        Self::try_new_shared(offsets, Arc::new(child), validity)
    }

    /// Like [`ListColumn::try_new`] with a shared child.
    ///
    /// # Errors
    /// As [`ListColumn::try_new`].
    pub fn try_new_shared(
        offsets: ScalarBuffer<O>,
        child: Arc<Column<Host>>,
        validity: Option<NullBuffer>,
    ) -> Result<Self> {
        if offsets.is_empty() {
            return Err(empty_offsets_error());
        }
        validate_offsets(&offsets, child.len())?;
        check_validity_len("ListColumn::try_new", validity.as_ref(), offsets.len() - 1)?;
        Ok(Self {
            offsets,
            child,
            validity,
        })
    }

    /// Whether list `i` is valid (`false` when out of range).
    pub fn is_valid(&self, i: usize) -> bool {
        i < self.len() && self.validity.as_ref().is_none_or(|v| v.is_valid(i))
    }

    /// The child range of list `i` (empty when out of range).
    pub fn range(&self, i: usize) -> std::ops::Range<usize> {
        match (self.offsets.get(i), self.offsets.get(i + 1)) {
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
                "ListColumn::slice",
                format!(
                    "range {offset}..{offset}+{len} is out of bounds for {} lists",
                    self.len()
                ),
            ));
        }
        Ok(Self {
            offsets: self.offsets.slice(offset, len + 1),
            child: self.child.clone(),
            validity: self.validity.as_ref().map(|v| v.slice(offset, len)),
        })
    }
}
