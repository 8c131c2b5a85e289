//! `length` and `length_bytes` on the GPU: host dispatch for
//! `kernels/strings/length.cu` (`length_chars_<offset>`, a block per tile of 256 rows
//! with an ASCII fast path, and
//! `kernels/common/offset_lengths.cu`, one thread per row). The output validity is the input's.

use ragged_core::{OffsetSize, PrimitiveColumn, Result, StringColumn};

use crate::common::offset_lengths::offset_lengths;
use crate::compile::STRINGS_LENGTH;
use crate::launch::{grid_for, launch, params, BLOCK};
use crate::memory::Device;
use crate::CudaBackend;

pub(crate) fn length<O: OffsetSize>(
    backend: &CudaBackend,
    col: &StringColumn<O, Device>,
) -> Result<PrimitiveColumn<O, Device>> {
    let rows = col.len() as u64;
    let out = backend.alloc::<O>(col.len())?;
    if rows > 0 {
        let function =
            backend.function(&STRINGS_LENGTH, &format!("length_chars_{}", O::OFFSET_NAME))?;
        let (offsets, values, out_ptr) = (
            col.offsets().device_ptr(),
            col.values().device_ptr(),
            out.device_ptr(),
        );
        let mut args = params![offsets, values, rows, out_ptr];
        // SAFETY: `length_chars_<O>(const O*, const uint8_t*, uint64_t, O*)`; it reads
        // rows + 1 offsets and the bytes between them (valid by the column's
        // invariants) and writes `rows` outputs. Blocks of BLOCK (= the kernel's
        // LENGTH_BLOCK) threads, each taking tiles of BLOCK rows.
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

pub(crate) fn length_bytes<O: OffsetSize>(
    backend: &CudaBackend,
    col: &StringColumn<O, Device>,
) -> Result<PrimitiveColumn<O, Device>> {
    PrimitiveColumn::try_new(
        offset_lengths(backend, col.offsets())?,
        col.validity().cloned(),
    )
}
