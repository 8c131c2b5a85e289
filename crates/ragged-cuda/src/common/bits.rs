//! Bit packing on the device shared by the families: zeroed counters, the grid of
//! warp-ballot kernels, bitmaps from packed words, and `pack_flags`.

use ragged_core::Result;

use crate::compile::BITMAP;
use crate::launch::{grid_for, launch, params, BLOCK};
use crate::memory::{DeviceBitmap, DeviceBuffer};
use crate::CudaBackend;

/// A zeroed 64-bit device counter.
pub(crate) fn counter(backend: &CudaBackend) -> Result<DeviceBuffer<u64>> {
    let c = backend.alloc::<u64>(1)?;
    backend.zero(&c)?;
    Ok(c)
}

/// Read a 64-bit device counter (waits for queued work).
pub(crate) fn read_counter(backend: &CudaBackend, c: &DeviceBuffer<u64>) -> Result<usize> {
    Ok(backend.read_scalar(c)? as usize)
}

/// The grid of a kernel that packs one bit per row with warp ballots (rows rounded up
/// to whole warps; every grid is a whole number of warps).
pub(crate) fn ballot_grid(backend: &CudaBackend, rows: u64) -> u32 {
    grid_for(rows.div_ceil(32) * 32, backend.info().multiprocessors)
}

/// A bitmap of `len` bits at bit 0 of `words`, with `unset` bits unset.
pub(crate) fn bitmap(words: DeviceBuffer<u32>, len: usize, unset: usize) -> DeviceBitmap {
    DeviceBitmap::new(words.into_bytes(), 0, len, unset)
}

/// A validity bitmap, or `None` when it has no null.
pub(crate) fn validity_or_none(
    words: DeviceBuffer<u32>,
    len: usize,
    nulls: usize,
) -> Option<DeviceBitmap> {
    (nulls > 0).then(|| bitmap(words, len, nulls))
}

/// Pack `n` flags (one byte each) into a bitmap with `pack_flags`
/// (`kernels/common/bitmap.cu`); returns the words and the number of unset flags.
pub(crate) fn pack_flags(
    backend: &CudaBackend,
    flags: &DeviceBuffer<u8>,
    n: u64,
) -> Result<(DeviceBuffer<u32>, usize)> {
    let words = backend.alloc::<u32>(n.div_ceil(32) as usize)?;
    if n == 0 {
        return Ok((words, 0));
    }
    let unset = counter(backend)?;
    let function = backend.function(&BITMAP, "pack_flags")?;
    let (flags_ptr, words_ptr, unset_ptr) =
        (flags.device_ptr(), words.device_ptr(), unset.device_ptr());
    let mut args = params![flags_ptr, n, words_ptr, unset_ptr];
    // SAFETY: `pack_flags(const uint8_t*, uint64_t, uint32_t*, unsigned long long*)` reads
    // n flags (the buffer holds n), writes ceil(n / 32) words (allocated above) and adds
    // to one zeroed counter.
    unsafe {
        launch(
            function,
            ballot_grid(backend, n),
            BLOCK,
            0,
            backend.stream(),
            &mut args,
        )?
    };
    let unset = read_counter(backend, &unset)?;
    Ok((words, unset))
}
