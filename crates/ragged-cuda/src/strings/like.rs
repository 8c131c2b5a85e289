//! `like` on the GPU: the pattern is compiled on the host
//! (`ragged_core::ops::like_tokens`), uploaded, and matched by
//! `kernels/strings/like.cu` (`like_<O>`: tiles of rows ([`tile_launch`]) staged in shared
//! memory, one thread per row). The output validity is the column's.

use ragged_core::ops::like_tokens;
use ragged_core::{BooleanColumn, OffsetSize, Result, StringColumn};

use crate::common::bits::{bitmap, counter, read_counter};
use crate::compile::STRINGS_LIKE;
use crate::launch::{launch, params, BLOCK};
use crate::memory::Device;
use crate::CudaBackend;

use super::tile_launch;

/// See [`ragged_core::StringOps::like`].
pub(crate) fn like<O: OffsetSize>(
    backend: &CudaBackend,
    col: &StringColumn<O, Device>,
    pattern: &str,
    escape: Option<char>,
) -> Result<BooleanColumn<Device>> {
    let tokens = like_tokens(pattern, escape)?;
    let n = col.len();
    let words = backend.alloc::<u32>(n.div_ceil(32))?;
    let mut falses = 0;
    if n > 0 {
        let device_tokens = backend.upload_slice(&tokens)?;
        let falses_counter = counter(backend)?;
        let function = backend.function(&STRINGS_LIKE, &format!("like_{}", O::OFFSET_NAME))?;
        let (offsets, chars, rows) = (
            col.offsets().device_ptr(),
            col.values().device_ptr(),
            n as u64,
        );
        let (tokens_ptr, m) = (device_tokens.device_ptr(), tokens.len() as u64);
        let (per_tile, grid) = tile_launch(backend, function, col);
        let (words_ptr, falses_ptr) = (words.device_ptr(), falses_counter.device_ptr());
        let mut args =
            params![offsets, chars, rows, tokens_ptr, m, per_tile, words_ptr, falses_ptr];
        // SAFETY: `like_<O>(const O*, const uint8_t*, uint64_t, const uint32_t*, uint64_t,
        // uint32_t, uint32_t*, unsigned long long*)`: reads rows + 1 offsets and the
        // bytes between them, m tokens (uploaded above), writes ceil(rows / 32) words
        // (allocated above) and adds to a zeroed counter; tile_rows is a multiple of 32
        // of at most TILE_ROWS (tile_rows).
        unsafe { launch(function, grid, BLOCK, 0, backend.stream(), &mut args)? };
        falses = read_counter(backend, &falses_counter)?;
    }
    BooleanColumn::try_new(bitmap(words, n, falses), col.validity().cloned())
}
