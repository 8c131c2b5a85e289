//! `counts` on the GPU: host dispatch for `kernels/lists/counts.cu`
//! (`counts_lists_<offset>`, one thread per list). The output validity is the input's.

use ragged_core::{ListColumn, OffsetSize, PrimitiveColumn, Result};

use crate::compile::LISTS_COUNTS;
use crate::launch::{grid_for, launch, params, BLOCK};
use crate::memory::Device;
use crate::CudaBackend;

pub(crate) fn counts<O: OffsetSize>(
    backend: &CudaBackend,
    col: &ListColumn<O, Device>,
) -> Result<PrimitiveColumn<O, Device>> {
    let rows = col.len() as u64;
    let out = backend.alloc::<O>(col.len())?;
    if rows > 0 {
        let function =
            backend.function(&LISTS_COUNTS, &format!("counts_lists_{}", O::OFFSET_NAME))?;
        let (offsets, out_ptr) = (col.offsets().device_ptr(), out.device_ptr());
        let mut args = params![offsets, rows, out_ptr];
        // SAFETY: `counts_lists_<O>(const O*, uint64_t, O*)` reads rows + 1 offsets and
        // writes `rows` outputs.
        unsafe {
            launch(
                function,
                grid_for(rows, backend.info().multiprocessors),
                BLOCK,
                0,
                backend.stream(),
                &mut args,
            )?
        };
    }
    PrimitiveColumn::try_new(out, col.validity().cloned())
}
