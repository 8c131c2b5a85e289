//! The device error word: one 64-bit word per call through which kernels report the
//! lowest failing index (see `kernels/common/ragged.cuh`, `ragged::report_error`).
//!
//! The word starts at `u64::MAX`; a kernel reporting index `i` with code `c` does
//! `atomicMin(word, (i << 8) | c)`. After the op the host reads it once; `None` means
//! no error, otherwise the op maps (index, code) to the same structured error the CPU
//! backend returns for that input.

use cudarc::driver::result;
use ragged_core::Result;

use crate::memory::{driver_error, DeviceBuffer};
use crate::CudaBackend;

/// A device error word, initialized to "no error".
pub(crate) struct ErrorWord {
    word: DeviceBuffer<u64>,
}

impl ErrorWord {
    /// Allocate and reset a word on the backend's stream.
    pub(crate) fn new(backend: &CudaBackend) -> Result<Self> {
        let word = backend.alloc::<u64>(1)?;
        // SAFETY: the word holds 8 bytes; the memset is ordered on the backend's stream
        // before any kernel that receives the word.
        unsafe { result::memset_d8_async(word.device_ptr(), 0xff, 8, backend.stream()) }
            .map_err(|e| driver_error("reset error word", e))?;
        Ok(Self { word })
    }

    /// The device address to pass to kernels (`uint64_t*`).
    pub(crate) fn device_ptr(&self) -> u64 {
        self.word.device_ptr()
    }

    /// Wait for queued work and read the word: `Some((index, code))` when a kernel
    /// reported an error.
    pub(crate) fn read(&self, backend: &CudaBackend) -> Result<Option<(u64, u32)>> {
        let value = backend.read_scalar::<u64>(&self.word)?;
        Ok((value != u64::MAX).then_some((value >> 8, (value & 0xff) as u32)))
    }
}
