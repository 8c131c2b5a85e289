//! Device memory: the [`Device`] location, [`DeviceBuffer`] and [`DeviceBitmap`], the
//! stream-ordered pool with its memory limit, and pinned host buffers.
//!
//! Every allocation comes from one CUDA memory pool per backend whose release
//! threshold is infinite, so freed memory stays reserved for the next allocation (as
//! RMM's pool resource does); allocation and free are ordered on the backend's stream.
//! A byte counter enforces the optional memory limit before the driver is asked, so
//! exceeding it is a reproducible [`Error::OutOfMemory`], and the backend stays usable.
//! Every allocation is 16-byte aligned and spans a multiple of 16 bytes
//! ([`ALLOCATION_ALIGN`]), so kernels may read a buffer's ends by aligned vector loads.
//! With the pool disabled (`RAGGED_POOL=off`, for compute-sanitizer) allocations are
//! plain `cuMemAlloc` / `cuMemFree`.

use std::marker::PhantomData;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use cudarc::driver::{result, sys, CudaContext};
use ragged_core::{DataBuffer, Error, Location, Native, Result, ValidityBitmap};

/// Device (GPU) memory of a [`crate::CudaBackend`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Device;

impl Location for Device {
    type Buffer<T: Native> = DeviceBuffer<T>;
    type Bitmap = DeviceBitmap;
    const NAME: &'static str = "cuda";
}

/// Turn a driver error into ragged's error.
pub(crate) fn driver_error(op: &'static str, e: result::DriverError) -> Error {
    if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY {
        let available = result::mem_get_info().map(|(free, _)| free).unwrap_or(0);
        return Error::OutOfMemory {
            requested: 0,
            available,
        };
    }
    let name = e
        .error_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let text = e
        .error_string()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    Error::Device {
        op,
        message: format!("{name}: {text}"),
    }
}

/// The alignment of every device allocation, and the multiple of bytes each spans: a
/// kernel may read a buffer's first and last bytes by aligned vector loads of this many
/// bytes (`WarpRange` in kernels/strings/transform.cu).
pub(crate) const ALLOCATION_ALIGN: usize = 16;

/// The per-backend allocator: a stream, a memory pool and the limit's byte counter.
pub(crate) struct Pool {
    pub(crate) ctx: Arc<CudaContext>,
    pub(crate) stream: sys::CUstream,
    pool: Option<sys::CUmemoryPool>,
    limit: usize,
    used: AtomicUsize,
    peak: AtomicUsize,
}

// SAFETY: CUstream and CUmemoryPool are driver handles usable from any thread once the
// owning context is current; every use below binds `ctx` first.
unsafe impl Send for Pool {}
// SAFETY: as above; the counters are atomics.
unsafe impl Sync for Pool {}

impl Pool {
    /// A pool on `ctx`'s device with its own non-blocking stream.
    pub(crate) fn new(
        ctx: Arc<CudaContext>,
        ordinal: usize,
        limit: usize,
        use_pool: bool,
    ) -> Result<Self> {
        ctx.bind_to_thread()
            .map_err(|e| driver_error("bind context", e))?;
        let stream = result::stream::create(result::stream::StreamKind::NonBlocking)
            .map_err(|e| driver_error("create stream", e))?;
        let pool = if use_pool {
            // SAFETY: an all-zero CUmemPoolProps is the documented default; the fields
            // set below describe a device-local, non-exportable pool.
            let mut props: sys::CUmemPoolProps = unsafe { std::mem::zeroed() };
            props.allocType = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
            props.handleTypes = sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE;
            props.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
            props.location.id = ordinal as i32;
            // SAFETY: props is a valid, initialized CUmemPoolProps.
            let pool = unsafe { result::mem_pool::create(&props) }
                .map_err(|e| driver_error("create memory pool", e))?;
            let mut threshold: u64 = u64::MAX;
            // SAFETY: RELEASE_THRESHOLD takes a pointer to a u64.
            unsafe {
                result::mem_pool::set_attribute(
                    pool,
                    sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                    (&mut threshold as *mut u64).cast(),
                )
            }
            .map_err(|e| driver_error("configure memory pool", e))?;
            Some(pool)
        } else {
            None
        };
        Ok(Self {
            ctx,
            stream,
            pool,
            limit,
            used: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
        })
    }

    /// Bytes currently allocated through this pool.
    pub(crate) fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }

    /// The most bytes allocated at once.
    pub(crate) fn peak(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }

    /// The memory limit in bytes.
    pub(crate) fn limit(&self) -> usize {
        self.limit
    }

    /// Whether the stream-ordered pool is in use.
    pub(crate) fn pooled(&self) -> bool {
        self.pool.is_some()
    }

    /// Bytes the pool holds reserved from the driver (used plus cached), if pooled.
    pub(crate) fn reserved(&self) -> Option<u64> {
        let pool = self.pool?;
        let mut value: u64 = 0;
        // SAFETY: RESERVED_MEM_CURRENT writes a u64; the pool is alive.
        unsafe {
            result::mem_pool::get_attribute(
                pool,
                sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT,
                (&mut value as *mut u64).cast(),
            )
        }
        .ok()?;
        Some(value)
    }

    /// Allocate `bytes` (uninitialized), ordered on the stream: [`ALLOCATION_ALIGN`]-byte
    /// aligned and rounded up to a multiple of it, so that every aligned piece of that
    /// many bytes which holds a byte of the allocation lies inside it (kernels read such
    /// pieces whole at a buffer's ends). The limit counts the bytes asked for.
    pub(crate) fn allocate(self: &Arc<Self>, bytes: usize) -> Result<Arc<Allocation>> {
        // Reserve under the limit first, so the limit is exact and reproducible.
        let mut current = self.used.load(Ordering::Relaxed);
        loop {
            let available = self.limit.saturating_sub(current);
            if bytes > available {
                return Err(Error::OutOfMemory {
                    requested: bytes,
                    available,
                });
            }
            match self.used.compare_exchange_weak(
                current,
                current + bytes,
                Ordering::AcqRel,
                Ordering::Relaxed,
            ) {
                Ok(_) => break,
                Err(now) => current = now,
            }
        }
        self.peak.fetch_max(current + bytes, Ordering::Relaxed);
        let release = |e: Error| {
            self.used.fetch_sub(bytes, Ordering::AcqRel);
            e
        };
        self.ctx
            .bind_to_thread()
            .map_err(|e| release(driver_error("bind context", e)))?;
        // At most ALLOCATION_ALIGN - 1 bytes more than the limit admitted.
        let Some(padded) = bytes.checked_next_multiple_of(ALLOCATION_ALIGN) else {
            return Err(release(Error::OutOfMemory {
                requested: bytes,
                available: self.limit.saturating_sub(current),
            }));
        };
        // SAFETY: pool and stream are alive; the memory is uninitialized and only ever
        // read by kernels after being written (every op writes its outputs fully; the
        // padding and the bytes around a buffer's ends that whole pieces hold are read
        // but never used).
        let ptr = unsafe {
            match self.pool {
                Some(pool) => result::mem_pool::alloc_async(pool, padded, self.stream),
                None => result::malloc_sync(padded),
            }
        };
        match ptr {
            Ok(ptr) if ptr % ALLOCATION_ALIGN as u64 != 0 => {
                // The driver aligns its allocations to 256 bytes or more; kernels rely
                // on ALLOCATION_ALIGN, so anything else is refused rather than used
                // (dropping the Allocation frees it and gives its bytes back to the
                // limit).
                let allocation = Allocation {
                    ptr,
                    bytes,
                    pool: Arc::clone(self),
                };
                drop(allocation);
                Err(Error::Device {
                    op: "allocate",
                    message: format!(
                        "the driver returned {ptr:#x}, not {ALLOCATION_ALIGN}-byte aligned"
                    ),
                })
            }
            Ok(ptr) => Ok(Arc::new(Allocation {
                ptr,
                bytes,
                pool: Arc::clone(self),
            })),
            Err(e) if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => {
                let available = result::mem_get_info().map(|(free, _)| free).unwrap_or(0);
                Err(release(Error::OutOfMemory {
                    requested: bytes,
                    available,
                }))
            }
            Err(e) => Err(release(driver_error("allocate", e))),
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        if self.ctx.bind_to_thread().is_err() {
            return;
        }
        // SAFETY: every Allocation holds an Arc<Pool>, so none is alive here; the stream
        // and pool are destroyed exactly once.
        unsafe {
            let _ = result::stream::synchronize(self.stream);
            if let Some(pool) = self.pool {
                let _ = result::mem_pool::destroy(pool);
            }
            let _ = result::stream::destroy(self.stream);
        }
    }
}

/// One device allocation, returned to the pool (stream-ordered) when dropped.
pub(crate) struct Allocation {
    ptr: sys::CUdeviceptr,
    bytes: usize,
    pool: Arc<Pool>,
}

impl Drop for Allocation {
    fn drop(&mut self) {
        if self.pool.ctx.bind_to_thread().is_ok() {
            // SAFETY: ptr came from this pool and is freed once; the free is ordered after
            // all work already queued on the stream, which is the only stream using it.
            unsafe {
                let _ = match self.pool.pool {
                    Some(_) => result::free_async(self.ptr, self.pool.stream),
                    None => {
                        let _ = result::stream::synchronize(self.pool.stream);
                        result::free_sync(self.ptr)
                    }
                };
            }
        }
        self.pool.used.fetch_sub(self.bytes, Ordering::AcqRel);
    }
}

/// A typed, immutable, reference-counted buffer of `T` in device memory; cloning and
/// slicing share the allocation.
pub struct DeviceBuffer<T> {
    alloc: Option<Arc<Allocation>>,
    offset: usize,
    len: usize,
    _type: PhantomData<fn() -> T>,
}

impl<T> Clone for DeviceBuffer<T> {
    fn clone(&self) -> Self {
        Self {
            alloc: self.alloc.clone(),
            offset: self.offset,
            len: self.len,
            _type: PhantomData,
        }
    }
}

impl<T> std::fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeviceBuffer<{}>[{}] @ {:#x}",
            std::any::type_name::<T>(),
            self.len,
            self.device_ptr()
        )
    }
}

impl<T: Send + Sync> DataBuffer<T> for DeviceBuffer<T> {
    fn len(&self) -> usize {
        self.len
    }
}

impl<T> DeviceBuffer<T> {
    /// An empty buffer (no allocation; its pointer is 0).
    pub fn empty() -> Self {
        Self {
            alloc: None,
            offset: 0,
            len: 0,
            _type: PhantomData,
        }
    }

    /// Allocate `len` uninitialized elements.
    pub(crate) fn allocate(pool: &Arc<Pool>, len: usize) -> Result<Self> {
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .ok_or(Error::OutOfMemory {
                requested: usize::MAX,
                available: pool.limit().saturating_sub(pool.used()),
            })?;
        if bytes == 0 {
            return Ok(Self::empty());
        }
        Ok(Self {
            alloc: Some(pool.allocate(bytes)?),
            offset: 0,
            len,
            _type: PhantomData,
        })
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer holds no element.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device address of the first element (0 for an empty buffer).
    pub fn device_ptr(&self) -> u64 {
        match &self.alloc {
            Some(a) => a.ptr + (self.offset * std::mem::size_of::<T>()) as u64,
            None => 0,
        }
    }

    /// Size in bytes.
    pub fn num_bytes(&self) -> usize {
        self.len * std::mem::size_of::<T>()
    }

    /// The same memory viewed as bytes (sharing the allocation).
    pub(crate) fn into_bytes(self) -> DeviceBuffer<u8> {
        let size = std::mem::size_of::<T>();
        DeviceBuffer {
            alloc: self.alloc,
            offset: self.offset * size,
            len: self.len * size,
            _type: PhantomData,
        }
    }

    /// The same memory viewed as elements of `U` (sharing the allocation); a trailing
    /// part smaller than one `U` is left out. Only for plain integer types, of which
    /// every bit pattern is a value.
    pub(crate) fn into_typed<U: Copy>(self) -> DeviceBuffer<U>
    where
        T: Copy,
    {
        let (from, to) = (std::mem::size_of::<T>(), std::mem::size_of::<U>().max(1));
        DeviceBuffer {
            alloc: self.alloc,
            offset: self.offset * from / to,
            len: self.len * from / to,
            _type: PhantomData,
        }
    }

    /// Elements `offset..offset + len`, sharing the allocation.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the range is out of bounds.
    pub fn slice(&self, offset: usize, len: usize) -> Result<Self> {
        if offset.checked_add(len).is_none_or(|end| end > self.len) {
            return Err(Error::invalid_argument(
                "DeviceBuffer::slice",
                format!(
                    "range {offset}..{offset}+{len} out of bounds for {}",
                    self.len
                ),
            ));
        }
        if len == 0 {
            return Ok(Self::empty());
        }
        Ok(Self {
            alloc: self.alloc.clone(),
            offset: self.offset + offset,
            len,
            _type: PhantomData,
        })
    }
}

/// A validity bitmap in device memory: `len` bits starting at bit `bit_offset` of
/// `bits` (Arrow LSB order), with its null count known on the host.
#[derive(Clone, Debug)]
pub struct DeviceBitmap {
    pub(crate) bits: DeviceBuffer<u8>,
    pub(crate) bit_offset: usize,
    pub(crate) len: usize,
    pub(crate) null_count: usize,
}

impl DeviceBitmap {
    /// A bitmap of `len` bits from bit `bit_offset` of `bits`, with `null_count` unset.
    pub(crate) fn new(
        bits: DeviceBuffer<u8>,
        bit_offset: usize,
        len: usize,
        null_count: usize,
    ) -> Self {
        Self {
            bits,
            bit_offset,
            len,
            null_count,
        }
    }

    /// The bytes holding the bits.
    pub fn bits(&self) -> &DeviceBuffer<u8> {
        &self.bits
    }

    /// The bit position of slot 0 within [`DeviceBitmap::bits`].
    pub fn bit_offset(&self) -> usize {
        self.bit_offset
    }
}

impl ValidityBitmap for DeviceBitmap {
    fn len(&self) -> usize {
        self.len
    }
    fn null_count(&self) -> usize {
        self.null_count
    }
}

/// Page-locked (pinned) host memory: the source or target of full-speed DMA copies.
///
/// Buffers of at least [`REGISTER_MIN`] bytes are an anonymous mapping on transparent
/// huge pages, touched by several threads and then registered with the driver
/// (`cuMemHostRegister`); smaller ones, and any whose mapping or registration fails,
/// come from `cuMemHostAlloc`. Both copy at the same rate, but pinning 64 MiB through
/// `cuMemHostAlloc` took 35–44 ms against 6 ms for the registered mapping (one H200,
/// PERFORMANCE v0.20) — the start of every staged transfer in a process.
pub struct PinnedBuffer {
    ptr: *mut u8,
    bytes: usize,
    /// The mapping behind a registered buffer (`None`: from `cuMemHostAlloc`).
    mapping: Option<memmap2::MmapMut>,
    ctx: Arc<CudaContext>,
}

/// The least size of a [`PinnedBuffer`] made by registering a mapping (one huge page).
pub const REGISTER_MIN: usize = 2 << 20;

/// `bytes` of zeroed memory mapped on huge pages (where the kernel gives them), every
/// page touched by several threads, and registered with `ctx`; `None` when the mapping
/// or the registration fails.
fn registered_mapping(ctx: &CudaContext, bytes: usize) -> Option<memmap2::MmapMut> {
    use rayon::prelude::*;
    let mut mapping = memmap2::MmapMut::map_anon(bytes).ok()?;
    // Only a hint: without huge pages the buffer is pinned page by page, just slower.
    #[cfg(target_os = "linux")]
    let _ = mapping.advise(memmap2::Advice::HugePage);
    // Fault every page in before registering (the driver would fault them one by one).
    mapping
        .par_chunks_mut(REGISTER_MIN)
        .for_each(|chunk| chunk.iter_mut().step_by(4096).for_each(|b| *b = 0));
    // The pool may have run another backend's work on this thread meanwhile.
    ctx.bind_to_thread().ok()?;
    // SAFETY: the mapping is `bytes` of readable, writable memory that stays mapped until
    // it is unregistered (`PinnedBuffer::drop`); flags 0 registers it for this context.
    let registered =
        unsafe { sys::cuMemHostRegister_v2(mapping.as_mut_ptr().cast(), bytes, 0) }.result();
    registered.is_ok().then_some(mapping)
}

// SAFETY: the buffer is plain host memory owned by this value.
unsafe impl Send for PinnedBuffer {}
// SAFETY: shared access only reads through `as_slice`.
unsafe impl Sync for PinnedBuffer {}

impl PinnedBuffer {
    /// Allocate `bytes` of pinned host memory (zeroed).
    pub(crate) fn new(ctx: &Arc<CudaContext>, bytes: usize) -> Result<Self> {
        ctx.bind_to_thread()
            .map_err(|e| driver_error("bind context", e))?;
        if bytes >= REGISTER_MIN {
            if let Some(mut mapping) = registered_mapping(ctx, bytes) {
                return Ok(Self {
                    ptr: mapping.as_mut_ptr(),
                    bytes,
                    mapping: Some(mapping),
                    ctx: Arc::clone(ctx),
                });
            }
        }
        let size = bytes.max(1);
        // SAFETY: cuMemHostAlloc returns `size` bytes of host memory or an error.
        let ptr = unsafe { result::malloc_host(size, 0) }
            .map_err(|e| driver_error("allocate pinned host memory", e))?
            .cast::<u8>();
        // SAFETY: ptr points to `size` writable bytes.
        unsafe { std::ptr::write_bytes(ptr, 0, size) };
        Ok(Self {
            ptr,
            bytes,
            mapping: None,
            ctx: Arc::clone(ctx),
        })
    }

    /// Allocate `bytes` of pinned host memory (zeroed) that kernels can write directly,
    /// with the device address it has there: a result written into it is on the host
    /// once the stream is synchronized, with no copy queued.
    pub(crate) fn new_mapped(ctx: &Arc<CudaContext>, bytes: usize) -> Result<(Self, u64)> {
        ctx.bind_to_thread()
            .map_err(|e| driver_error("bind context", e))?;
        let size = bytes.max(1);
        // SAFETY: cuMemHostAlloc returns `size` bytes of host memory or an error.
        let ptr =
            unsafe { result::malloc_host(size, cudarc::driver::sys::CU_MEMHOSTALLOC_DEVICEMAP) }
                .map_err(|e| driver_error("allocate mapped pinned host memory", e))?
                .cast::<u8>();
        // SAFETY: ptr points to `size` writable bytes.
        unsafe { std::ptr::write_bytes(ptr, 0, size) };
        let buffer = Self {
            ptr,
            bytes,
            mapping: None,
            ctx: Arc::clone(ctx),
        };
        let mut device: cudarc::driver::sys::CUdeviceptr = 0;
        // SAFETY: ptr was allocated by cuMemHostAlloc with DEVICEMAP in the current
        // context; the call writes one device address (flags must be 0).
        unsafe { cudarc::driver::sys::cuMemHostGetDevicePointer_v2(&mut device, ptr.cast(), 0) }
            .result()
            .map_err(|e| driver_error("map pinned host memory", e))?;
        Ok((buffer, device))
    }

    /// Size in bytes.
    pub fn len(&self) -> usize {
        self.bytes
    }

    /// Whether the buffer is empty.
    pub fn is_empty(&self) -> bool {
        self.bytes == 0
    }

    /// Whether the buffer is a registered mapping (see [`PinnedBuffer`]) rather than
    /// memory from `cuMemHostAlloc`.
    pub fn is_registered(&self) -> bool {
        self.mapping.is_some()
    }

    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: ptr holds `bytes` initialized bytes (zeroed at allocation).
        unsafe { std::slice::from_raw_parts(self.ptr, self.bytes) }
    }

    /// The bytes, writable.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above, and `&mut self` makes the access exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.bytes) }
    }
}

impl Drop for PinnedBuffer {
    fn drop(&mut self) {
        if self.ctx.bind_to_thread().is_err() {
            return;
        }
        if self.mapping.is_some() {
            // SAFETY: ptr is the start of the mapping registered by `registered_mapping`,
            // unregistered once, before the mapping is unmapped (dropped after this);
            // no copy is in flight (transfers synchronize before returning).
            let _ = unsafe { sys::cuMemHostUnregister(self.ptr.cast()) };
        } else {
            // SAFETY: ptr came from cuMemHostAlloc and is freed once; no copy is in flight
            // (transfers synchronize before returning).
            let _ = unsafe { result::free_host(self.ptr.cast()) };
        }
    }
}
