//! UTF-8 string columns.

use arrow_buffer::{NullBuffer, ScalarBuffer};

use super::{check_validity_len, validate_offsets, validate_utf8};
use crate::error::{Error, OffsetsProblem};
use crate::location::{DataBuffer, Host, Location, ValidityBitmap};
use crate::types::OffsetSize;
use crate::Result;

/// A column of UTF-8 strings in Arrow layout: `values` holds the bytes of every row,
/// row `i` is `values[offsets[i]..offsets[i + 1]]`. `O` is `i32` (`Utf8`) or `i64`
/// (`LargeUtf8`).
///
/// Sliced columns (`offsets[0] != 0`) are valid everywhere. Null is not empty: a null
/// row has its validity bit unset, and its bytes (possibly non-empty) are ignored.
///
/// # Example
/// ```
/// use ragged_core::StringColumn;
/// let col = StringColumn::<i32>::from_options([Some("héllo"), None, Some("")]);
/// assert_eq!(col.get(0), Some("héllo"));
/// assert_eq!(col.get(1), None);
/// assert_eq!(col.get(2), Some(""));
/// ```
#[derive(Clone, Debug)]
pub struct StringColumn<O: OffsetSize, L: Location = Host> {
    offsets: L::Buffer<O>,
    values: L::Buffer<u8>,
    validity: Option<L::Bitmap>,
}

impl<O: OffsetSize, L: Location> StringColumn<O, L> {
    /// A column from buffers that the caller guarantees valid.
    ///
    /// # Safety
    /// `offsets` is non-empty, non-decreasing, starts at or above 0 and ends at or
    /// below `values.len()`; every row is valid UTF-8; `validity`, if any, has
    /// `offsets.len() - 1` slots. Operations index `values` through `offsets` without
    /// bounds checks on the device.
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

    /// The UTF-8 bytes of all rows.
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

impl<O: OffsetSize> StringColumn<O, Host> {
    /// A column from host buffers, validating offsets, UTF-8 and validity length.
    ///
    /// # Errors
    /// [`Error::InvalidOffsets`] (first bad index), [`Error::InvalidUtf8`] (first bad
    /// row and byte), [`Error::LengthMismatch`] (validity length).
    ///
    /// # Example
    /// ```
    /// use arrow_buffer::ScalarBuffer;
    /// use ragged_core::{Error, StringColumn};
    /// let bad = StringColumn::<i32>::try_new(
    ///     ScalarBuffer::from(vec![0, 3, 2]),
    ///     ScalarBuffer::from(b"abc".to_vec()),
    ///     None,
    /// );
    /// assert!(matches!(bad, Err(Error::InvalidOffsets { index: 2, .. })));
    /// ```
    pub fn try_new(
        offsets: ScalarBuffer<O>,
        values: ScalarBuffer<u8>,
        validity: Option<NullBuffer>,
    ) -> Result<Self> {
        validate_offsets(&offsets, values.len())?;
        validate_utf8(&offsets, &values)?;
        check_validity_len(
            "StringColumn::try_new",
            validity.as_ref(),
            offsets.len() - 1,
        )?;
        Ok(Self {
            offsets,
            values,
            validity,
        })
    }

    /// A column from optional strings (`None` is null).
    ///
    /// # Panics
    /// When the total length exceeds what `O` can index (2 GiB for `i32`); use
    /// [`StringColumn::try_from_options`] to get an error instead.
    #[allow(clippy::expect_used)]
    pub fn from_options<S: AsRef<str>>(rows: impl IntoIterator<Item = Option<S>>) -> Self {
        Self::try_from_options(rows).expect("string column too large for its offset type")
    }

    /// A column from optional strings (`None` is null).
    ///
    /// # Errors
    /// [`Error::Overflow`] when the bytes do not fit the offset type.
    pub fn try_from_options<S: AsRef<str>>(
        rows: impl IntoIterator<Item = Option<S>>,
    ) -> Result<Self> {
        let mut offsets = vec![O::usize_as(0)];
        let mut values = Vec::new();
        let mut valid = Vec::new();
        for row in rows {
            if let Some(s) = &row {
                values.extend_from_slice(s.as_ref().as_bytes());
            }
            valid.push(row.is_some());
            let end = i64::try_from(values.len())
                .ok()
                .and_then(O::from_i64)
                .ok_or_else(|| Error::Overflow {
                    op: "StringColumn::from_options",
                    message: format!("{} bytes exceed {} offsets", values.len(), O::NAME),
                })?;
            offsets.push(end);
        }
        let validity = NullBuffer::from(valid);
        let validity = (validity.null_count() > 0).then_some(validity);
        Ok(Self {
            offsets: ScalarBuffer::from(offsets),
            values: ScalarBuffer::from(values),
            validity,
        })
    }

    /// The range of row `i`'s bytes in the values, null or not (empty when out of
    /// range).
    pub fn range(&self, i: usize) -> std::ops::Range<usize> {
        match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(a), Some(b)) => a.as_usize()..b.as_usize(),
            _ => 0..0,
        }
    }

    /// The bytes of row `i`, null or not (empty when out of range).
    pub fn row_bytes(&self, i: usize) -> &[u8] {
        self.values.get(self.range(i)).unwrap_or(&[])
    }

    /// Row `i` as a string slice, null or not (empty when out of range).
    pub fn row_str(&self, i: usize) -> &str {
        let bytes = self.row_bytes(i);
        // SAFETY: every row of a strings column is valid UTF-8: `try_new` validated
        // it, and `new_unchecked`'s caller guarantees it; `row_bytes` is a whole row
        // (or empty). Checking again here would cost a pass over the row per access.
        unsafe { std::str::from_utf8_unchecked(bytes) }
    }

    /// Whether row `i` is valid (`false` when out of range).
    pub fn is_valid(&self, i: usize) -> bool {
        i < self.len() && self.validity.as_ref().is_none_or(|v| v.is_valid(i))
    }

    /// Row `i` (`None` when null or out of range).
    pub fn get(&self, i: usize) -> Option<&str> {
        self.is_valid(i).then(|| self.row_str(i))
    }

    /// Iterate over the rows as options.
    pub fn iter(&self) -> impl Iterator<Item = Option<&str>> + '_ {
        (0..self.len()).map(move |i| self.get(i))
    }

    /// Rows `offset..offset + len` without copying (the result has `offsets[0] != 0`).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the range is out of bounds.
    pub fn slice(&self, offset: usize, len: usize) -> Result<Self> {
        if offset.checked_add(len).is_none_or(|end| end > self.len()) {
            return Err(Error::invalid_argument(
                "StringColumn::slice",
                format!(
                    "range {offset}..{offset}+{len} is out of bounds for {} rows",
                    self.len()
                ),
            ));
        }
        Ok(Self {
            offsets: self.offsets.slice(offset, len + 1),
            values: self.values.clone(),
            validity: self.validity.as_ref().map(|v| v.slice(offset, len)),
        })
    }

    /// The total bytes spanned by the rows (`offsets[last] - offsets[0]`).
    pub fn total_bytes(&self) -> usize {
        match (self.offsets.first(), self.offsets.last()) {
            (Some(a), Some(b)) => b.as_usize() - a.as_usize(),
            _ => 0,
        }
    }
}

/// Validity bitmap helper shared with the list column.
pub(crate) fn empty_offsets_error() -> Error {
    Error::InvalidOffsets {
        index: 0,
        problem: OffsetsProblem::Empty,
    }
}
