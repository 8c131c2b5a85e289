//! # ragged-cpu
//!
//! The CPU backend of ragged: rayon over chunks, memchr for byte search, arrow-rs
//! buffers as they are. It is the executable specification: every other backend must
//! agree with it byte for byte (floats within rounding).
//!
//! ```
//! use ragged_core::{Memory, Primitives, PrimitiveColumn};
//! use ragged_cpu::CpuBackend;
//! let cpu = CpuBackend::new();
//! let col = PrimitiveColumn::from_options([Some(1i32), None, Some(41)]);
//! assert_eq!(cpu.reduce_sum(&col)?, 42i64);
//! # Ok::<(), ragged_core::Error>(())
//! ```

mod lists;
mod primitives;
mod sequences;
mod strings;
mod text;

use std::mem::MaybeUninit;

use ragged_core::{Host, Native, NullBuffer, OffsetSize, Result, ScalarBuffer};

/// Rows (or elements) per rayon task: large enough to amortize scheduling, small
/// enough to balance across cores.
pub(crate) const CHUNK: usize = 1 << 16;

/// A zeroed output vector of `len` values. Large outputs ask the kernel for
/// transparent huge pages before the first write: filling fresh memory 4 KiB page by
/// page costs more than computing it.
pub(crate) fn output_vec<T: Default + Clone>(len: usize) -> Vec<T> {
    let mut out = vec![T::default(); len];
    ragged_core::host::advise_huge_pages(&mut out);
    out
}

/// An output vector of `len` values written by `fill` into memory that is not zeroed
/// first: an output of hundreds of MB written completely would otherwise be written
/// twice (the zeroing, inside the allocator and on one thread, then the values). Large
/// outputs ask for transparent huge pages, as [`output_vec`] does.
///
/// # Safety
/// `fill` must initialize every one of the `len` slots it is given.
pub(crate) unsafe fn filled_output_vec<T>(
    len: usize,
    fill: impl FnOnce(&mut [MaybeUninit<T>]),
) -> Vec<T> {
    let mut out = Vec::with_capacity(len);
    let slots = &mut out.spare_capacity_mut()[..len];
    ragged_core::host::advise_huge_pages(slots);
    fill(slots);
    // SAFETY: `fill` initialized the `len` slots (the caller's contract), all within
    // the capacity.
    unsafe { out.set_len(len) };
    out
}

/// The boolean answers of `n` rows, built 64 rows to a word across rayon tasks:
/// `fill(base, words)` sets `words` (zeroed on entry), the answers of the rows from
/// `base`.
pub(crate) fn bool_words(
    n: usize,
    fill: impl Fn(usize, &mut [u64]) + Sync,
) -> arrow_buffer::BooleanBuffer {
    const WORDS_PER_TASK: usize = CHUNK / 64;
    use rayon::prelude::*;
    let mut words: Vec<u64> = output_vec(n.div_ceil(64));
    words
        .par_chunks_mut(WORDS_PER_TASK)
        .enumerate()
        .for_each(|(task, chunk)| fill(task * CHUNK, chunk));
    arrow_buffer::BooleanBuffer::new(arrow_buffer::Buffer::from_vec(words), 0, n)
}

/// Set `words`, the answers of rows `base..` (fewer than `n`), from `hit(row)`.
pub(crate) fn set_bits(words: &mut [u64], base: usize, n: usize, hit: impl Fn(usize) -> bool) {
    for (k, word) in words.iter_mut().enumerate() {
        let first = base + k * 64;
        let mut bits = 0u64;
        for (b, row) in (first..n.min(first + 64)).enumerate() {
            bits |= u64::from(hit(row)) << b;
        }
        *word = bits;
    }
}

/// The CPU backend. Host memory, rayon's global thread pool.
///
/// Transfers are zero-copy clones of reference-counted buffers.
#[derive(Clone, Copy, Debug, Default)]
pub struct CpuBackend;

impl CpuBackend {
    /// The CPU backend.
    pub fn new() -> Self {
        CpuBackend
    }
}

impl ragged_core::Memory for CpuBackend {
    type Loc = Host;

    fn describe(&self) -> String {
        format!("cpu ({} threads)", rayon::current_num_threads())
    }

    fn upload<T: Native>(&self, data: &ScalarBuffer<T>) -> Result<ScalarBuffer<T>> {
        Ok(data.clone())
    }

    fn download<T: Native>(&self, data: &ScalarBuffer<T>) -> Result<ScalarBuffer<T>> {
        Ok(data.clone())
    }

    fn upload_bitmap(&self, bits: &NullBuffer) -> Result<NullBuffer> {
        Ok(bits.clone())
    }

    fn download_bitmap(&self, bits: &NullBuffer) -> Result<NullBuffer> {
        Ok(bits.clone())
    }

    fn validate_offsets<O: OffsetSize>(
        &self,
        offsets: &ScalarBuffer<O>,
        values_len: usize,
    ) -> Result<()> {
        ragged_core::column::validate_offsets(offsets, values_len)
    }

    fn synchronize(&self) -> Result<()> {
        Ok(())
    }
}
