//! The text (lines) family on the GPU: host dispatch for `kernels/text/*.cu`.
//!
//! - `line_ends.rs`: the tiled delimiter scan (record boundaries, `count_lines`);
//! - `split_lines.rs`: the records column over the boundaries (zero-copy with the
//!   delimiters kept, a gather when they are stripped) and the UTF-8 check.
//!
//! The semantics are the CPU backend's (`ragged_core::ops::text`), byte for byte,
//! including the offset width and the `InvalidUtf8 { row, byte }` of the lowest bad row.

mod line_ends;
mod split_lines;

use ragged_core::ops::{LinePlan, LinesColumn, TextOps};
use ragged_core::{PrimitiveColumn, Result};

use crate::memory::{Device, DeviceBuffer};
use crate::CudaBackend;

impl TextOps for CudaBackend {
    fn split_lines(
        &self,
        bytes: &DeviceBuffer<u8>,
        plan: &LinePlan,
    ) -> Result<LinesColumn<Device>> {
        split_lines::split_lines(self, bytes, plan)
    }

    fn line_ends(
        &self,
        bytes: &DeviceBuffer<u8>,
        plan: &LinePlan,
    ) -> Result<PrimitiveColumn<i64, Device>> {
        let boundaries = line_ends::record_boundaries(self, bytes, plan)?;
        PrimitiveColumn::try_new(boundaries.ends, None)
    }

    fn count_lines(&self, bytes: &DeviceBuffer<u8>, plan: &LinePlan) -> Result<u64> {
        line_ends::count_lines(self, bytes, plan)
    }
}
