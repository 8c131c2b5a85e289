//! Bit-packed boolean columns.

use arrow_buffer::{BooleanBuffer, NullBuffer};

use super::check_validity_len;
use crate::location::{Host, Location, ValidityBitmap};
use crate::Result;

/// A column of booleans, bit-packed (LSB order) as in Arrow's `BooleanArray`, with an
/// optional validity bitmap.
///
/// Values are stored in the same bitmap type as validity, which keeps conversion to
/// and from arrow-rs zero-copy (see ARCHITECTURE.md).
///
/// # Example
/// ```
/// use ragged_core::BooleanColumn;
/// let col = BooleanColumn::from_options([Some(true), None, Some(false)]);
/// assert_eq!(col.get(0), Some(true));
/// assert_eq!(col.get(1), None);
/// ```
#[derive(Clone, Debug)]
pub struct BooleanColumn<L: Location = Host> {
    values: L::Bitmap,
    validity: Option<L::Bitmap>,
}

impl<L: Location> BooleanColumn<L> {
    /// A column from its value bits and optional validity.
    ///
    /// # Errors
    /// [`crate::Error::LengthMismatch`] when the validity does not cover every value.
    pub fn try_new(values: L::Bitmap, validity: Option<L::Bitmap>) -> Result<Self> {
        check_validity_len("BooleanColumn::try_new", validity.as_ref(), values.len())?;
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

    /// The value bits (a set bit is `true`).
    pub fn values(&self) -> &L::Bitmap {
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

    /// The value bits and validity.
    pub fn into_parts(self) -> (L::Bitmap, Option<L::Bitmap>) {
        (self.values, self.validity)
    }
}

impl BooleanColumn<Host> {
    /// A column of non-null booleans.
    pub fn from_bools(values: &[bool]) -> Self {
        Self {
            values: NullBuffer::new(BooleanBuffer::from(values)),
            validity: None,
        }
    }

    /// A column from optional booleans (`None` is null).
    pub fn from_options(values: impl IntoIterator<Item = Option<bool>>) -> Self {
        let (values, valid): (Vec<bool>, Vec<bool>) = values
            .into_iter()
            .map(|v| (v.unwrap_or(false), v.is_some()))
            .unzip();
        let validity = NullBuffer::from(valid);
        let validity = (validity.null_count() > 0).then_some(validity);
        Self {
            values: NullBuffer::new(BooleanBuffer::from(values)),
            validity,
        }
    }

    /// Row `i` as an option (`None` when null or out of range).
    pub fn get(&self, i: usize) -> Option<bool> {
        if i >= self.len() || self.validity.as_ref().is_some_and(|v| v.is_null(i)) {
            return None;
        }
        Some(self.values.is_valid(i))
    }

    /// The rows as options.
    pub fn to_options(&self) -> Vec<Option<bool>> {
        (0..self.len()).map(|i| self.get(i)).collect()
    }
}
