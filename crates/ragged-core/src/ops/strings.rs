//! The strings family: the libcudf-style strings API over [`StringColumn`]s.

use super::Memory;
use crate::column::{PrimitiveColumn, StringColumn};
use crate::types::OffsetSize;
use crate::Result;

/// Operations on UTF-8 string columns. Positions and lengths are in characters
/// (Unicode scalar values) unless the op's name ends in `_bytes`.
pub trait StringOps: Memory {
    /// The number of characters of each row, as the column's offset type (`i32` for
    /// `Utf8`, `i64` for `LargeUtf8`, as arrow-rs's `length`). Null rows are null in
    /// the output (their value is the length of their bytes, which is ignored).
    ///
    /// # Errors
    /// Device errors only; the input is valid by construction.
    fn length<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Self::Loc>,
    ) -> Result<PrimitiveColumn<O, Self::Loc>>;

    /// The number of bytes of each row, as the column's offset type; nulls as in
    /// [`StringOps::length`].
    ///
    /// # Errors
    /// Device errors only.
    fn length_bytes<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Self::Loc>,
    ) -> Result<PrimitiveColumn<O, Self::Loc>>;
}
