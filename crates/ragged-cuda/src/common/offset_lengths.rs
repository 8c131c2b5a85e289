//! Row lengths from an offsets buffer: host dispatch for
//! `kernels/common/offset_lengths.cu`, shared by `length_bytes` (strings) and `counts`
//! (lists).

use ragged_core::{OffsetSize, Result};

use crate::compile::OFFSET_LENGTHS;
use crate::launch::{grid_for, launch, params, BLOCK};
use crate::memory::DeviceBuffer;
use crate::CudaBackend;

/// `offsets[i + 1] - offsets[i]` for each of the `offsets.len() - 1` rows.
pub(crate) fn offset_lengths<O: OffsetSize>(
    backend: &CudaBackend,
    offsets: &DeviceBuffer<O>,
) -> Result<DeviceBuffer<O>> {
    let rows = offsets.len().saturating_sub(1);
    let out = backend.alloc::<O>(rows)?;
    if rows > 0 {
        let function = backend.function(
            &OFFSET_LENGTHS,
            &format!("offset_lengths_{}", O::OFFSET_NAME),
        )?;
        let (offsets_ptr, rows64, out_ptr) = (offsets.device_ptr(), rows as u64, out.device_ptr());
        let mut args = params![offsets_ptr, rows64, out_ptr];
        // SAFETY: `offset_lengths_<O>(const O*, uint64_t, O*)` reads rows + 1 offsets and
        // writes `rows` lengths.
        unsafe {
            launch(
                function,
                grid_for(rows64, backend.info().multiprocessors),
                BLOCK,
                0,
                backend.stream(),
                &mut args,
            )?
        };
    }
    Ok(out)
}
