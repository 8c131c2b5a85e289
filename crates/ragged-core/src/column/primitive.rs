//! Fixed-width number columns.

use arrow_buffer::{NullBuffer, ScalarBuffer};

use super::check_validity_len;
use crate::location::{DataBuffer, Host, Location};
use crate::types::Native;
use crate::Result;

/// A column of fixed-width numbers (`T` is i8…i64, u8…u64, f32 or f64) with an
/// optional validity bitmap; Arrow `PrimitiveArray<T>` layout.
///
/// Values at null slots are present but meaningless; operations compute them like any
/// other value and take the output validity from the input's.
///
/// # Example
/// ```
/// use ragged_core::PrimitiveColumn;
/// let col = PrimitiveColumn::from_options([Some(1i32), None, Some(3)]);
/// assert_eq!(col.len(), 3);
/// assert_eq!(col.null_count(), 1);
/// ```
#[derive(Clone, Debug)]
pub struct PrimitiveColumn<T: Native, L: Location = Host> {
    values: L::Buffer<T>,
    validity: Option<L::Bitmap>,
}

impl<T: Native, L: Location> PrimitiveColumn<T, L> {
    /// A column from its values and optional validity.
    ///
    /// # Errors
    /// [`crate::Error::LengthMismatch`] when the validity does not cover every value.
    pub fn try_new(values: L::Buffer<T>, validity: Option<L::Bitmap>) -> Result<Self> {
        check_validity_len("PrimitiveColumn::try_new", validity.as_ref(), values.len())?;
        Ok(Self { values, validity })
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether the column has no row.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The values buffer.
    pub fn values(&self) -> &L::Buffer<T> {
        &self.values
    }

    /// The validity bitmap, `None` when every row is valid.
    pub fn validity(&self) -> Option<&L::Bitmap> {
        self.validity.as_ref()
    }

    /// Number of null rows.
    pub fn null_count(&self) -> usize {
        use crate::location::ValidityBitmap;
        self.validity.as_ref().map_or(0, |v| v.null_count())
    }

    /// The buffers: values and validity.
    pub fn into_parts(self) -> (L::Buffer<T>, Option<L::Bitmap>) {
        (self.values, self.validity)
    }
}

impl<T: Native> PrimitiveColumn<T, Host> {
    /// A column of non-null values.
    pub fn from_vec(values: Vec<T>) -> Self {
        Self {
            values: ScalarBuffer::from(values),
            validity: None,
        }
    }

    /// A column from optional values (`None` is null).
    pub fn from_options(values: impl IntoIterator<Item = Option<T>>) -> Self {
        let (values, valid): (Vec<T>, Vec<bool>) = values
            .into_iter()
            .map(|v| (v.unwrap_or_default(), v.is_some()))
            .unzip();
        let validity = NullBuffer::from(valid);
        let validity = (validity.null_count() > 0).then_some(validity);
        Self {
            values: ScalarBuffer::from(values),
            validity,
        }
    }

    /// Row `i` as an option (`None` when null or out of range).
    pub fn get(&self, i: usize) -> Option<T> {
        if i >= self.len() || self.validity.as_ref().is_some_and(|v| v.is_null(i)) {
            return None;
        }
        self.values.get(i).copied()
    }

    /// Whether row `i` is valid (`false` when out of range).
    pub fn is_valid(&self, i: usize) -> bool {
        i < self.len() && self.validity.as_ref().is_none_or(|v| v.is_valid(i))
    }

    /// The rows as options.
    pub fn to_options(&self) -> Vec<Option<T>> {
        (0..self.len()).map(|i| self.get(i)).collect()
    }

    /// Rows `offset..offset + len` without copying.
    ///
    /// # Panics
    /// When the range is out of bounds.
    pub fn slice(&self, offset: usize, len: usize) -> Self {
        Self {
            values: self.values.slice(offset, len),
            validity: self.validity.as_ref().map(|v| v.slice(offset, len)),
        }
    }
}
