//! The device error word: one 64-bit word per call through which kernels report the
//! lowest failing index (see `kernels/common/ragged.cuh`, `ragged::report_error`).
//!
//! The word starts at `u64::MAX`; a kernel reporting index `i` with code `c` does
//! `atomicMin(word, (i << 8) | c)`. After the op the host reads it once; `None` means
//! no error, otherwise the op maps (index, code) to the same structured error the CPU
//! backend returns for that input.
//!
//! [`ErrorWordWith`] puts `N` more 64-bit words after it (counters a kernel adds to,
//! values it reports), all read back together: one round trip for an op's checks and
//! counts.

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
    pub(crate) fn read(&self, backend: &CudaBackend) -> Result<Report> {
        Ok(decode(backend.read_scalar::<u64>(&self.word)?))
    }
}

/// What a kernel reported: `(index, code)`, or `None` for "no error".
pub(crate) type Report = Option<(u64, u32)>;

/// The report in a word read back.
fn decode(value: u64) -> Report {
    (value != u64::MAX).then_some((value >> 8, (value & 0xff) as u32))
}

/// An error word followed by `N` 64-bit words that start at 0.
pub(crate) struct ErrorWordWith<const N: usize> {
    words: DeviceBuffer<u64>,
}

impl<const N: usize> ErrorWordWith<N> {
    /// Allocate the words and set them ("no error", zeros) with one upload.
    pub(crate) fn new(backend: &CudaBackend) -> Result<Self> {
        let mut init = vec![0u64; N + 1];
        init[0] = u64::MAX;
        Ok(Self {
            words: backend.upload_slice(&init)?,
        })
    }

    /// The words of `words` (N + 1 of them), which the caller has queued a kernel to
    /// set ("no error", zeros) before anything reads them
    /// (`TileState::with_error_word`).
    pub(crate) fn set_by_kernel(words: DeviceBuffer<u64>) -> Self {
        debug_assert_eq!(words.len(), N + 1);
        Self { words }
    }

    /// The error word's device address (`uint64_t*`).
    pub(crate) fn device_ptr(&self) -> u64 {
        self.words.device_ptr()
    }

    /// The device address of the `N` words after it.
    pub(crate) fn values_ptr(&self) -> u64 {
        self.words.device_ptr() + 8
    }

    /// Wait for queued work and read everything: the error as [`ErrorWord::read`] gives
    /// it, and the `N` values.
    pub(crate) fn read(&self, backend: &CudaBackend) -> Result<(Report, [u64; N])> {
        let bytes = backend.read_bytes(&self.words, 0, 8 * (N + 1))?;
        let word = |i: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&bytes[8 * i..8 * i + 8]);
            u64::from_le_bytes(w)
        };
        Ok((decode(word(0)), std::array::from_fn(|i| word(i + 1))))
    }
}
