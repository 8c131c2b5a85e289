//! The primitives family: reductions, scans, selection and segmented reductions over
//! primitive columns. The building blocks of every other family.

use super::Memory;
use crate::column::PrimitiveColumn;
use crate::types::Native;
use crate::Result;

/// Parallel primitives over [`PrimitiveColumn`]s.
pub trait Primitives: Memory {
    /// The sum of the valid values (nulls skipped; 0 for an empty or all-null column).
    ///
    /// Integers accumulate in `i64` / `u64` ([`Native::Sum`]); floats in their own type.
    ///
    /// # Errors
    /// [`crate::Error::Overflow`] when an integer sum does not fit its accumulator.
    ///
    /// # Example
    /// ```ignore
    /// let total = backend.reduce_sum(&column)?;
    /// ```
    fn reduce_sum<T: Native>(&self, col: &PrimitiveColumn<T, Self::Loc>) -> Result<T::Sum>;
}
