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
mod strings;

use ragged_core::{Host, Native, NullBuffer, OffsetSize, Result, ScalarBuffer};

/// Rows (or elements) per rayon task: large enough to amortize scheduling, small
/// enough to balance across cores.
pub(crate) const CHUNK: usize = 1 << 16;

/// A zeroed output vector of `len` values. Large outputs ask the kernel for
/// transparent huge pages before the first write: filling fresh memory 4 KiB page by
/// page costs more than computing it.
pub(crate) fn output_vec<T: Default + Clone>(len: usize) -> Vec<T> {
    const HUGE: usize = 2 << 20;
    let mut out = vec![T::default(); len];
    let bytes = std::mem::size_of_val(out.as_slice());
    if bytes >= 4 * HUGE {
        let start = out.as_mut_ptr() as usize;
        let aligned = start.next_multiple_of(HUGE);
        let end = (start + bytes) / HUGE * HUGE;
        if end > aligned {
            // SAFETY: the range lies inside `out`, which we own; MADV_HUGEPAGE is advice
            // and changes no contents. Failure is ignored.
            unsafe {
                libc::madvise(
                    aligned as *mut libc::c_void,
                    end - aligned,
                    libc::MADV_HUGEPAGE,
                )
            };
        }
    }
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
