//! `counts` on the GPU: the row lengths of the offsets
//! (`kernels/common/offset_lengths.cu`, one thread per list). The output validity is
//! the input's.

use ragged_core::{ListColumn, OffsetSize, PrimitiveColumn, Result};

use crate::common::offset_lengths::offset_lengths;
use crate::memory::Device;
use crate::CudaBackend;

pub(crate) fn counts<O: OffsetSize>(
    backend: &CudaBackend,
    col: &ListColumn<O, Device>,
) -> Result<PrimitiveColumn<O, Device>> {
    PrimitiveColumn::try_new(
        offset_lengths(backend, col.offsets())?,
        col.validity().cloned(),
    )
}
