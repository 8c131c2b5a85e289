//! The lists family: Awkward-style operations over [`ListColumn`]s.

use super::Memory;
use crate::column::{ListColumn, PrimitiveColumn};
use crate::types::OffsetSize;
use crate::Result;

/// Operations on list columns.
pub trait ListOps: Memory {
    /// The number of elements of each list (`offsets[i + 1] - offsets[i]`), as the
    /// column's offset type. Null lists are null in the output.
    ///
    /// # Errors
    /// Device errors only.
    fn counts<O: OffsetSize>(
        &self,
        col: &ListColumn<O, Self::Loc>,
    ) -> Result<PrimitiveColumn<O, Self::Loc>>;
}
