//! The launch layer: the only place kernels are launched, loaded modules are looked up,
//! and grids are sized.

use std::ffi::{c_void, CString};

use cudarc::driver::{result, sys};
use ragged_core::{Error, Result};

use crate::memory::driver_error;

/// Threads per block for the element-wise kernels of ragged.
pub(crate) const BLOCK: u32 = 256;

/// Resident blocks per multiprocessor the grids aim for (2048 threads / 256).
const BLOCKS_PER_SM: u64 = 8;

/// A kernel entry point of a loaded module, with how many blocks of [`BLOCK`] threads
/// of it are resident at once on one multiprocessor (the driver's occupancy for its
/// registers and shared memory, asked once when the entry point is looked up).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Function {
    handle: sys::CUfunction,
    resident_blocks: u64,
}

// SAFETY: a CUfunction handle is immutable and valid from any thread while its module
// is loaded; modules stay loaded for the backend's lifetime.
unsafe impl Send for Function {}
// SAFETY: as above.
unsafe impl Sync for Function {}

/// A loaded CUDA module.
pub(crate) struct Module(pub(crate) sys::CUmodule);

// SAFETY: a CUmodule handle may be used from any thread with its context current.
unsafe impl Send for Module {}
// SAFETY: as above.
unsafe impl Sync for Module {}

impl Module {
    /// Load a CUBIN image.
    pub(crate) fn load(cubin: &[u8]) -> std::result::Result<Self, result::DriverError> {
        // SAFETY: cuModuleLoadData copies the image; `cubin` is a complete ELF CUBIN from
        // NVRTC or a checksummed cache entry, alive for the call.
        unsafe { result::module::load_data(cubin.as_ptr().cast()) }.map(Module)
    }

    /// Look up an entry point.
    pub(crate) fn function(&self, name: &str) -> Result<Function> {
        let c_name = CString::new(name)
            .map_err(|_| Error::invalid_argument("kernel lookup", format!("bad name {name:?}")))?;
        // SAFETY: the module is loaded and c_name is NUL-terminated.
        let handle = unsafe { result::module::get_function(self.0, c_name) }
            .map_err(|e| driver_error("kernel lookup", e))?;
        // SAFETY: `handle` is an entry point of this loaded module; the query reads
        // only its attributes.
        let resident_blocks = unsafe {
            result::occupancy::max_active_block_per_multiprocessor(handle, BLOCK as i32, 0)
        }
        .ok()
        .filter(|&b| b > 0)
        .map_or(BLOCKS_PER_SM, |b| b as u64);
        Ok(Function {
            handle,
            resident_blocks,
        })
    }
}

/// The number of blocks of [`BLOCK`] threads `function` runs for `work_items` items in
/// a grid-stride loop: enough to cover the work, at most the blocks of it that are
/// resident at once on the chip (the occupancy asked at lookup; [`grid_for`]'s 8 per
/// multiprocessor when the query failed). A grid of more blocks than are resident runs
/// in waves, the last partly empty.
pub(crate) fn resident_grid(function: Function, work_items: u64, multiprocessors: i32) -> u32 {
    let needed = work_items.div_ceil(u64::from(BLOCK)).max(1);
    needed.min((multiprocessors.max(1) as u64) * function.resident_blocks) as u32
}

/// The number of blocks of [`BLOCK`] threads for `work_items` items processed in a
/// grid-stride loop: enough to cover the work, at most what fills the chip.
pub(crate) fn grid_for(work_items: u64, multiprocessors: i32) -> u32 {
    let needed = work_items.div_ceil(u64::from(BLOCK)).max(1);
    let fill = (multiprocessors.max(1) as u64) * BLOCKS_PER_SM;
    needed.min(fill) as u32
}

/// Launch `function` with `grid` × `block` threads on `stream`.
///
/// # Safety
/// `params` holds one pointer per kernel parameter, in order, each pointing to a value
/// of exactly the parameter's type (device pointers as `u64`), alive for the call; the
/// device buffers behind them are large enough for what the kernel reads and writes,
/// and stay alive until the stream reaches the kernel (callers keep them until their
/// results are read or the allocation's stream-ordered free comes after the kernel).
pub(crate) unsafe fn launch(
    function: Function,
    grid: u32,
    block: u32,
    shared_bytes: u32,
    stream: sys::CUstream,
    params: &mut [*mut c_void],
) -> Result<()> {
    // SAFETY: forwarded from this function's contract.
    unsafe {
        result::launch_kernel(
            function.handle,
            (grid, 1, 1),
            (block, 1, 1),
            shared_bytes,
            stream,
            params,
        )
    }
    .map_err(|e| driver_error("kernel launch", e))
}

/// Build a kernel parameter array from local variables: `params![a, b, c]`.
macro_rules! params {
    ($($arg:expr),* $(,)?) => {
        [$((&$arg) as *const _ as *mut ::std::ffi::c_void),*]
    };
}
pub(crate) use params;
