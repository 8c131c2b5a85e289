//! Byte-string columns (Arrow `Binary` / `LargeBinary`): a strings column without the
//! UTF-8 requirement, produced by `TextOps::split_lines` when binary output is asked
//! for.

use arrow_buffer::{NullBuffer, ScalarBuffer};

use super::{check_validity_len, validate_offsets};
use crate::location::{DataBuffer, Host, Location, ValidityBitmap};
use crate::types::OffsetSize;
use crate::Result;

/// A column of byte strings in Arrow layout: row `i` is
/// `values[offsets[i]..offsets[i + 1]]`, any bytes. `O` is `i32` (`Binary`) or `i64`
/// (`LargeBinary`).
///
/// Sliced columns (`offsets[0] != 0`) are valid. Null is not empty, as in
/// [`crate::StringColumn`].
///
/// # Example
/// ```
/// use ragged_core::column::BinaryColumn;
/// use ragged_core::ScalarBuffer;
/// let col = BinaryColumn::<i32>::try_new(
///     ScalarBuffer::from(vec![0, 2, 3]),
///     ScalarBuffer::from(vec![0xffu8, b'a', b'b']),
///     None,
/// )?;
/// assert_eq!(col.row_bytes(0), &[0xff, b'a']);
/// assert_eq!(col.len(), 2);
/// # Ok::<(), ragged_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct BinaryColumn<O: OffsetSize, L: Location = Host> {
    offsets: L::Buffer<O>,
    values: L::Buffer<u8>,
    validity: Option<L::Bitmap>,
}

impl<O: OffsetSize, L: Location> BinaryColumn<O, L> {
    /// A column from buffers that the caller guarantees valid.
    ///
    /// # Safety
    /// `offsets` is non-empty, non-decreasing, starts at or above 0 and ends at or
    /// below `values.len()`; `validity`, if any, has `offsets.len() - 1` slots.
    pub unsafe fn new_unchecked(
        offsets: L::Buffer<O>,
        values: L::Buffer<u8>,
        validity: Option<L::Bitmap>,
    ) -> Self {
        Self {
            offsets,
            values,
            validity,
        }
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Whether the column has no row.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The offsets buffer (`len() + 1` elements).
    pub fn offsets(&self) -> &L::Buffer<O> {
        &self.offsets
    }

    /// The bytes of all rows.
    pub fn values(&self) -> &L::Buffer<u8> {
        &self.values
    }

    /// The validity bitmap, `None` when every row is valid.
    pub fn validity(&self) -> Option<&L::Bitmap> {
        self.validity.as_ref()
    }

    /// Number of null rows.
    pub fn null_count(&self) -> usize {
        self.validity.as_ref().map_or(0, |v| v.null_count())
    }

    /// The buffers: offsets, values, validity.
    #[allow(clippy::type_complexity)] // the three Arrow buffers, named in the docs
    pub fn into_parts(self) -> (L::Buffer<O>, L::Buffer<u8>, Option<L::Bitmap>) {
        (self.offsets, self.values, self.validity)
    }
}

impl<O: OffsetSize> BinaryColumn<O, Host> {
    /// A column from host buffers, validating offsets and validity length (not UTF-8).
    ///
    /// # Errors
    /// [`crate::Error::InvalidOffsets`] (first bad index),
    /// [`crate::Error::LengthMismatch`] (validity length).
    pub fn try_new(
        offsets: ScalarBuffer<O>,
        values: ScalarBuffer<u8>,
        validity: Option<NullBuffer>,
    ) -> Result<Self> {
        validate_offsets(&offsets, values.len())?;
        check_validity_len(
            "BinaryColumn::try_new",
            validity.as_ref(),
            offsets.len() - 1,
        )?;
        Ok(Self {
            offsets,
            values,
            validity,
        })
    }

    /// The bytes of row `i`, null or not (empty when out of range).
    pub fn row_bytes(&self, i: usize) -> &[u8] {
        match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(a), Some(b)) => self.values.get(a.as_usize()..b.as_usize()).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// The total bytes spanned by the rows (`offsets[last] - offsets[0]`).
    pub fn total_bytes(&self) -> usize {
        match (self.offsets.first(), self.offsets.last()) {
            (Some(a), Some(b)) => b.as_usize() - a.as_usize(),
            _ => 0,
        }
    }

    /// The column as an arrow-rs binary array (zero-copy).
    pub fn to_arrow(&self) -> arrow_array::GenericBinaryArray<O> {
        // SAFETY: offsets were validated (or promised) at construction, which is
        // OffsetBuffer's invariant.
        let offsets = unsafe { arrow_buffer::OffsetBuffer::new_unchecked(self.offsets.clone()) };
        arrow_array::GenericBinaryArray::new(
            offsets,
            self.values.clone().into_inner(),
            self.validity.clone(),
        )
    }
}
