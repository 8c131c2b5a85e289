//! `validate_offsets` on the device: the kernel `validate_offsets_check_<offset>`
//! reports the lowest failing index through the device error word; the host reads the
//! two offsets around it to build the same error the CPU backend returns.

use ragged_core::{Error, OffsetSize, OffsetsProblem, Result};

use crate::compile::VALIDATE_OFFSETS;
use crate::error_word::ErrorWord;
use crate::launch::{grid_for, launch, params, BLOCK};
use crate::memory::DeviceBuffer;
use crate::CudaBackend;

pub(crate) fn validate_offsets<O: OffsetSize>(
    backend: &CudaBackend,
    offsets: &DeviceBuffer<O>,
    values_len: usize,
) -> Result<()> {
    if offsets.is_empty() {
        return Err(Error::InvalidOffsets {
            index: 0,
            problem: OffsetsProblem::Empty,
        });
    }
    let function = backend.function(
        &VALIDATE_OFFSETS,
        &format!("validate_offsets_check_{}", O::OFFSET_NAME),
    )?;
    let word = ErrorWord::new(backend)?;
    let (ptr, count, len, word_ptr) = (
        offsets.device_ptr(),
        offsets.len() as u64,
        values_len as i64,
        word.device_ptr(),
    );
    let mut args = params![ptr, count, len, word_ptr];
    // SAFETY: parameters match `validate_offsets_check_<O>(const O*, uint64_t, int64_t,
    // uint64_t*)`; the kernel reads `count` offsets, all inside `offsets`.
    unsafe {
        launch(
            function,
            grid_for(count, backend.info().multiprocessors),
            BLOCK,
            0,
            backend.stream(),
            &mut args,
        )?
    };
    let Some((index, code)) = word.read(backend)? else {
        return Ok(());
    };
    let index = index as usize;
    let value = offsets
        .slice(index, 1)
        .and_then(|b| backend.read_scalar(&b))?
        .as_i64();
    let problem = match code {
        1 => OffsetsProblem::Negative { value },
        2 => {
            let previous = offsets
                .slice(index - 1, 1)
                .and_then(|b| backend.read_scalar(&b))?
                .as_i64();
            OffsetsProblem::Decreasing { previous, value }
        }
        _ => OffsetsProblem::OutOfBounds { value, values_len },
    };
    Err(Error::InvalidOffsets { index, problem })
}
