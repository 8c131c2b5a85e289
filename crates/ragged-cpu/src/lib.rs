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
