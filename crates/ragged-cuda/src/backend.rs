//! [`CudaBackend`]: one device, one stream, one memory pool, one module cache.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};

use cudarc::driver::{result, sys, CudaContext};
use ragged_core::{Error, Native, NullBuffer, Result};

use crate::compile::{self, CompileJob, ModuleSource, MODULES};
use crate::launch::{Function, Module};
use crate::memory::{driver_error, DeviceBitmap, DeviceBuffer, PinnedBuffer, Pool};
use crate::probe::{cuda_status, CudaStatus, DeviceInfo};
use crate::toolkit::{toolkit, Toolkit};

/// Options of a [`CudaBackend`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CudaOptions {
    /// The most device memory the backend may allocate, in bytes (`None`: the device's
    /// memory). Allocations beyond it fail with [`Error::OutOfMemory`].
    pub memory_limit: Option<usize>,
    /// Disable the stream-ordered memory pool (plain `cuMemAlloc`/`cuMemFree`), for
    /// compute-sanitizer runs.
    pub no_pool: bool,
}

impl CudaOptions {
    /// Options from the environment: `RAGGED_MEMORY_LIMIT` (a size such as `2GiB`) and
    /// `RAGGED_POOL=off`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `RAGGED_MEMORY_LIMIT` is not a size.
    pub fn from_env() -> Result<Self> {
        let memory_limit = match std::env::var("RAGGED_MEMORY_LIMIT") {
            Ok(v) if !v.trim().is_empty() => Some(parse_size(&v)?),
            _ => None,
        };
        let no_pool = std::env::var("RAGGED_POOL").is_ok_and(|v| v.eq_ignore_ascii_case("off"));
        Ok(Self {
            memory_limit,
            no_pool,
        })
    }
}

/// Parse a byte size: `1024`, `512KiB`, `64MiB`, `2GiB`, `1.5GB`, `100M` (binary units
/// for `K`/`M`/`G`/`T` with or without `iB`; decimal for `KB`/`MB`/`GB`/`TB`).
///
/// # Errors
/// [`Error::InvalidArgument`] for anything else.
///
/// # Example
/// ```
/// assert_eq!(ragged_cuda::parse_size("2GiB").unwrap(), 2 << 30);
/// assert_eq!(ragged_cuda::parse_size("1.5KB").unwrap(), 1500);
/// ```
pub fn parse_size(text: &str) -> Result<usize> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let bad = || {
        Error::invalid_argument(
            "memory limit",
            format!("'{text}' is not a size such as 2GiB"),
        )
    };
    let value: f64 = number.parse().map_err(|_| bad())?;
    let scale: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kib" => 1024.0,
        "m" | "mib" => 1024.0 * 1024.0,
        "g" | "gib" => 1024.0 * 1024.0 * 1024.0,
        "t" | "tib" => 1024.0f64.powi(4),
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "tb" => 1e12,
        _ => return Err(bad()),
    };
    let bytes = value * scale;
    if !bytes.is_finite() || bytes < 0.0 || bytes > usize::MAX as f64 {
        return Err(bad());
    }
    Ok(bytes as usize)
}

/// Memory figures of a backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryStats {
    /// Bytes allocated now.
    pub used: usize,
    /// The most bytes allocated at once.
    pub peak: usize,
    /// The limit.
    pub limit: usize,
    /// Bytes the pool holds from the driver (allocated plus cached), when pooled.
    pub reserved: Option<u64>,
    /// Whether the stream-ordered pool is in use.
    pub pooled: bool,
}

/// Bytes per pinned staging chunk for pageable transfers.
const STAGING_CHUNK: usize = 32 << 20;
/// Downloads up to this size go through a pinned scratch buffer (lowest latency).
const SCRATCH_BYTES: usize = 4096;
/// Bytes of the device-mapped result slot (see [`CudaBackend::with_result_slot`]).
pub(crate) const RESULT_SLOT_BYTES: usize = 64;
/// Transfers up to this size go straight from pageable memory (the driver stages them).
const DIRECT_LIMIT: usize = 1 << 20;

/// Bytes per slot of the staging chunks for pageable transfers: a ring of
/// [`STAGING_SLOTS`] slots, so that filling one overlaps the DMA of the others and the
/// first DMA starts after a small slot is filled.
const STAGING_SLOT: usize = STAGING_CHUNK / 2;
/// Slots of [`STAGING_SLOT`] bytes in the two staging chunks.
const STAGING_SLOTS: usize = 2 * STAGING_CHUNK / STAGING_SLOT;

/// Two pinned chunks, seen as a ring of [`STAGING_SLOTS`] slots each with the event of
/// the last copy that uses it: copies into one slot overlap the DMA of the others.
struct Staging {
    chunks: [PinnedBuffer; 2],
    events: Vec<Event>,
    pending: [bool; STAGING_SLOTS],
}

impl Staging {
    /// The pinned memory of slot `s`.
    fn slot(&mut self, s: usize) -> &mut [u8] {
        let per_chunk = STAGING_SLOTS / 2;
        let offset = (s % per_chunk) * STAGING_SLOT;
        &mut self.chunks[s / per_chunk].as_mut_slice()[offset..offset + STAGING_SLOT]
    }

    /// Wait until slot `s` is free.
    fn wait_slot(&mut self, s: usize) -> Result<()> {
        if self.pending[s] {
            self.events[s].wait()?;
            self.pending[s] = false;
        }
        Ok(())
    }

    /// Record on `stream` the copy just queued from or into slot `s`.
    fn record_slot(&mut self, s: usize, stream: sys::CUstream) -> Result<()> {
        self.events[s].record(stream)?;
        self.pending[s] = true;
        Ok(())
    }

    /// Wait until chunk `c` (its slots) is free.
    fn wait_chunk(&mut self, c: usize) -> Result<()> {
        let per_chunk = STAGING_SLOTS / 2;
        (c * per_chunk..(c + 1) * per_chunk).try_for_each(|s| self.wait_slot(s))
    }

    /// Record on `stream` the copy just queued from or into chunk `c` (its slots).
    fn record_chunk(&mut self, c: usize, stream: sys::CUstream) -> Result<()> {
        let per_chunk = STAGING_SLOTS / 2;
        (c * per_chunk..(c + 1) * per_chunk).try_for_each(|s| self.record_slot(s, stream))
    }

    /// Wait until no copy uses any slot.
    fn settle(&mut self) -> Result<()> {
        for (event, pending) in self.events.iter().zip(&mut self.pending) {
            if *pending {
                event.wait()?;
                *pending = false;
            }
        }
        Ok(())
    }
}

/// The copy stream and the staging, held by one copy.
type StagingGuards<'a> = (
    MutexGuard<'a, Option<CopyStream>>,
    MutexGuard<'a, Option<Staging>>,
);

/// A CUDA event without timing, for completion tracking.
struct Event(sys::CUevent);

// SAFETY: an event handle may be recorded and waited on from any thread.
unsafe impl Send for Event {}

impl Event {
    fn new(timing: bool) -> Result<Self> {
        let flags = if timing {
            sys::CUevent_flags::CU_EVENT_DEFAULT
        } else {
            sys::CUevent_flags::CU_EVENT_DISABLE_TIMING
        };
        result::event::create(flags)
            .map(Event)
            .map_err(|e| driver_error("create event", e))
    }
    fn record(&self, stream: sys::CUstream) -> Result<()> {
        // SAFETY: event and stream are alive.
        unsafe { result::event::record(self.0, stream) }
            .map_err(|e| driver_error("record event", e))
    }
    fn wait(&self) -> Result<()> {
        // SAFETY: the event is alive.
        unsafe { result::event::synchronize(self.0) }.map_err(|e| driver_error("wait for event", e))
    }
    /// Make the work queued on `stream` after this call wait for this event.
    fn queue_wait(&self, stream: sys::CUstream) -> Result<()> {
        // SAFETY: both handles are alive; the wait is queued on `stream`.
        unsafe {
            result::stream::wait_event(
                stream,
                self.0,
                sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT,
            )
        }
        .map_err(|e| driver_error("wait for event", e))
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        // SAFETY: destroyed once; the driver defers destruction until it completes.
        let _ = unsafe { result::event::destroy(self.0) };
    }
}

/// Rounds value that tells a streaming kernel to stop waiting (`ROUNDS_ABORT` in
/// `kernels/sequences/tensor_sketch.cu`): the upload failed and its result is dropped.
const ROUNDS_ABORT: u32 = u32::MAX;

/// The largest window of a streamed upload (a quarter of a staging chunk).
const STREAM_WINDOW_MAX: usize = STAGING_CHUNK / 4;

/// A streamed upload ([`CudaBackend::upload_streamed`]): what is uploaded, and how.
pub(crate) struct StreamedUpload<'a> {
    /// The device address the bytes go to.
    pub dst: u64,
    /// How many bytes.
    pub len: usize,
    /// Every window starts at a multiple of this (a power of two, at most 1 MiB).
    pub align: usize,
    /// Bytes of the first window (a multiple of `align`), so that the kernels can start
    /// as soon as what they need first is there; later windows double up to
    /// [`STREAM_WINDOW_MAX`].
    pub first_window: usize,
    /// Fill `window` with bytes `start .. start + window.len()` (called from one thread
    /// at a time; it may use rayon inside).
    pub fill: &'a (dyn Fn(usize, &mut [u8]) + Sync),
    /// The progress word's value once bytes `0 .. end` are on the device
    /// (non-decreasing, below [`ROUNDS_ABORT`]).
    pub progress: &'a dyn Fn(usize) -> u32,
}

/// Window slots of a streamed upload in the two staging chunks.
const STREAM_SLOTS: usize = 2 * (STAGING_CHUNK / STREAM_WINDOW_MAX);

/// A second stream of the backend's context, for uploads that overlap kernels on the
/// backend's own stream ([`CudaBackend::upload_streamed`]), and pinned cells holding
/// the progress values its copies write: one per window slot, and [`ROUNDS_ABORT`].
struct CopyStream {
    stream: sys::CUstream,
    cells: PinnedBuffer,
}

// SAFETY: a stream handle may be used from any thread once its context is current; every
// use binds the context first.
unsafe impl Send for CopyStream {}

impl Drop for CopyStream {
    fn drop(&mut self) {
        // SAFETY: the stream is alive and destroyed once, after its work (which reads
        // the cells) completes; the context outlives it (`Inner` drops it before the
        // pool and context).
        unsafe {
            let _ = result::stream::synchronize(self.stream);
            let _ = result::stream::destroy(self.stream);
        }
    }
}

struct Inner {
    // Field order matters for drop: modules and staging go before the pool and context.
    modules: Mutex<HashMap<&'static str, Arc<Module>>>,
    functions: Mutex<HashMap<String, Function>>,
    staging: Mutex<Option<Staging>>,
    copy_stream: Mutex<Option<CopyStream>>,
    scratch: Mutex<Option<PinnedBuffer>>,
    /// The device-mapped pinned slot reductions write their result into, with its
    /// device address.
    result_slot: Mutex<Option<(PinnedBuffer, u64)>>,
    pool: Arc<Pool>,
    ctx: Arc<CudaContext>,
    info: DeviceInfo,
    driver_version: String,
    /// NVRTC and the headers, or why they are missing (then only built-in modules
    /// load).
    toolkit: std::result::Result<&'static Toolkit, String>,
}

/// Where a kernel module came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModuleOrigin {
    /// Compiled ahead of time into the binary ([`crate::built_in`]).
    BuiltIn,
    /// Read from the disk cache.
    Cache,
    /// Compiled by NVRTC now (and stored in the disk cache).
    Compiled,
}

impl ModuleOrigin {
    /// A word for reports: `built-in`, `cached`, `compiled`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::BuiltIn => "built-in",
            Self::Cache => "cached",
            Self::Compiled => "compiled",
        }
    }
}

/// The CUDA backend: device columns, NVRTC-compiled kernels, a stream-ordered memory
/// pool. Cheap to clone (shared state).
///
/// # Example
/// ```no_run
/// use ragged_core::{Memory, Primitives, PrimitiveColumn};
/// use ragged_cuda::{CudaBackend, CudaOptions};
/// let gpu = CudaBackend::new(0, CudaOptions::default())?;
/// let col = gpu.to_device_primitive(&PrimitiveColumn::from_vec(vec![1i32, 2, 3]))?;
/// assert_eq!(gpu.reduce_sum(&col)?, 6);
/// # Ok::<(), ragged_core::Error>(())
/// ```
#[derive(Clone)]
pub struct CudaBackend {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for CudaBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "CudaBackend(cuda:{} {})",
            self.inner.info.ordinal, self.inner.info.name
        )
    }
}

impl CudaBackend {
    /// Open device `ordinal`.
    ///
    /// # Errors
    /// [`Error::DeviceUnavailable`] when CUDA, the device, NVRTC or the CCCL headers
    /// are missing; [`Error::Device`] when the driver fails.
    pub fn new(ordinal: usize, options: CudaOptions) -> Result<Self> {
        let (info, driver_version) = match cuda_status() {
            CudaStatus::Unavailable { reason } => {
                return Err(Error::DeviceUnavailable {
                    reason: reason.clone(),
                })
            }
            CudaStatus::Available {
                devices,
                driver_version,
                ..
            } => match devices.get(ordinal) {
                Some(d) => (d.clone(), driver_version.clone()),
                None => {
                    return Err(Error::DeviceUnavailable {
                        reason: format!("no device cuda:{ordinal} ({} found)", devices.len()),
                    })
                }
            },
        };
        // Without NVRTC the device is still usable when the binary carries its kernels.
        let toolkit = toolkit();
        if let Err(reason) = &toolkit {
            if crate::built_in::architecture_for(info.compute_capability).is_none() {
                return Err(Error::DeviceUnavailable {
                    reason: reason.clone(),
                });
            }
        }
        let ctx = ragged_core::trace::timed("context", || {
            std::panic::catch_unwind(|| CudaContext::new(ordinal))
        })
        .map_err(|_| Error::DeviceUnavailable {
            reason: "the CUDA driver panicked".into(),
        })?
        .map_err(|e| driver_error("create context", e))?;
        let limit = options
            .memory_limit
            .unwrap_or(info.total_memory)
            .min(info.total_memory.max(1));
        let pool = Arc::new(Pool::new(
            Arc::clone(&ctx),
            ordinal,
            limit,
            !options.no_pool,
        )?);
        Ok(Self {
            inner: Arc::new(Inner {
                modules: Mutex::new(HashMap::new()),
                functions: Mutex::new(HashMap::new()),
                staging: Mutex::new(None),
                copy_stream: Mutex::new(None),
                scratch: Mutex::new(None),
                result_slot: Mutex::new(None),
                pool,
                ctx,
                info,
                driver_version,
                toolkit,
            }),
        })
    }

    /// The device.
    pub fn info(&self) -> &DeviceInfo {
        &self.inner.info
    }

    /// The driver version (`major.minor`).
    pub fn driver_version(&self) -> &str {
        &self.inner.driver_version
    }

    /// The toolkit pieces in use (NVRTC, include directories); `None` when they are
    /// missing and the binary's built-in kernels serve this device.
    pub fn toolkit(&self) -> Option<&Toolkit> {
        self.inner.toolkit.as_ref().ok().copied()
    }

    /// NVRTC and the headers, or [`Error::DeviceUnavailable`] naming the module that
    /// needed them.
    fn toolkit_for(&self, module: &ModuleSource) -> Result<&'static Toolkit> {
        self.inner.toolkit.clone().map_err(|reason| {
            let (major, minor) = self.arch();
            Error::DeviceUnavailable {
                reason: format!(
                    "kernel module {} is not built into this binary for sm_{major}{minor} and \
                     cannot be compiled: {reason}",
                    module.name
                ),
            }
        })
    }

    /// Memory figures.
    pub fn memory_stats(&self) -> MemoryStats {
        let pool = &self.inner.pool;
        MemoryStats {
            used: pool.used(),
            peak: pool.peak(),
            limit: pool.limit(),
            reserved: pool.reserved(),
            pooled: pool.pooled(),
        }
    }

    pub(crate) fn stream(&self) -> sys::CUstream {
        self.inner.pool.stream
    }

    pub(crate) fn bind(&self) -> Result<()> {
        self.inner
            .ctx
            .bind_to_thread()
            .map_err(|e| driver_error("bind context", e))
    }

    /// Allocate `len` uninitialized elements on the device.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] beyond the memory limit or the device's memory.
    pub fn alloc<T>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        DeviceBuffer::allocate(&self.inner.pool, len)
    }

    /// The device architecture NVRTC compiles for.
    pub fn arch(&self) -> (i32, i32) {
        self.inner.info.compute_capability
    }

    /// Load a module: from the binary, the disk cache or NVRTC, in that order.
    fn load_module(&self, module: &ModuleSource) -> Result<(Arc<Module>, ModuleOrigin)> {
        self.load_module_from(module, None)
    }

    /// [`Self::load_module`], given the module's CUBIN when it was just compiled.
    fn load_module_from(
        &self,
        module: &ModuleSource,
        compiled: Option<Vec<u8>>,
    ) -> Result<(Arc<Module>, ModuleOrigin)> {
        let mut modules = self.inner.modules.lock().map_err(|_| poisoned())?;
        if let Some(m) = modules.get(module.name) {
            return Ok((Arc::clone(m), ModuleOrigin::Cache));
        }
        self.bind()?;
        let (loaded, origin) = match compiled {
            Some(cubin) => (
                Module::load(&cubin).map_err(|e| driver_error("load module", e))?,
                ModuleOrigin::Compiled,
            ),
            None => self.find_module(module)?,
        };
        let loaded = Arc::new(loaded);
        modules.insert(module.name, Arc::clone(&loaded));
        Ok((loaded, origin))
    }

    /// The module from the binary, else the disk cache, else NVRTC. A built-in or
    /// cached CUBIN the driver rejects is passed over, never fatal.
    fn find_module(&self, module: &ModuleSource) -> Result<(Module, ModuleOrigin)> {
        let source = compile::expand_includes(module)?;
        let built_in =
            ragged_core::trace::timed(&format!("module {} built in", module.name), || {
                crate::built_in::cubin(module.name, &source, self.arch())
                    .and_then(|cubin| Module::load(&cubin).ok())
            });
        if let Some(m) = built_in {
            return Ok((m, ModuleOrigin::BuiltIn));
        }
        let job = CompileJob::with_source(module, source, self.toolkit_for(module)?, self.arch());
        let from_cache =
            ragged_core::trace::timed(&format!("module {} from the cache", module.name), || {
                job.cached().and_then(|cubin| Module::load(&cubin).ok())
            });
        match from_cache {
            Some(m) => Ok((m, ModuleOrigin::Cache)),
            None => Ok((
                Module::load(&job.compile()?).map_err(|e| driver_error("load module", e))?,
                ModuleOrigin::Compiled,
            )),
        }
    }

    /// The entry point `name` of `module`, loading the module on first use.
    pub(crate) fn function(&self, module: &ModuleSource, name: &str) -> Result<Function> {
        // Launches follow on this thread: make the backend's context current here, so a
        // thread that last worked for another device (a pool thread serving several
        // backends) launches in the right one.
        self.bind()?;
        if let Some(f) = self
            .inner
            .functions
            .lock()
            .map_err(|_| poisoned())?
            .get(name)
        {
            return Ok(*f);
        }
        let (loaded, _) = self.load_module(module)?;
        let f = loaded.function(name)?;
        self.inner
            .functions
            .lock()
            .map_err(|_| poisoned())?
            .insert(name.to_string(), f);
        Ok(f)
    }

    /// Load every registered module: from the binary where it carries them, else from
    /// the disk cache, else compiled — modules to compile in parallel, one NVRTC program
    /// per core (NVRTC is host-only work). Returns, per module, its name, where it came
    /// from, and the seconds taken to compile it (or to read and load it).
    ///
    /// # Errors
    /// [`Error::KernelCompile`] for a module that does not compile (the lowest in
    /// [`MODULES`] order when several fail); [`Error::DeviceUnavailable`] when a module
    /// must be compiled and NVRTC is missing.
    pub fn warmup(&self) -> Result<Vec<(&'static str, ModuleOrigin, f64)>> {
        let arch = self.arch();
        let mut missing = Vec::new();
        for (i, m) in MODULES.iter().enumerate() {
            let source = compile::expand_includes(m)?;
            if crate::built_in::carries(m.name, &source, arch) {
                continue;
            }
            let job = CompileJob::with_source(m, source, self.toolkit_for(m)?, arch);
            if job.cached().is_none() {
                missing.push((i, job));
            }
        }
        type Compiled = Option<(Result<Vec<u8>>, f64)>;
        let compiled: Vec<std::sync::Mutex<Compiled>> = MODULES
            .iter()
            .map(|_| std::sync::Mutex::new(None))
            .collect();
        let next = std::sync::atomic::AtomicUsize::new(0);
        let workers = std::thread::available_parallelism()
            .map_or(1, usize::from)
            .min(missing.len());
        std::thread::scope(|scope| {
            for _ in 0..workers {
                scope.spawn(|| loop {
                    let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some((i, job)) = missing.get(k) else {
                        break;
                    };
                    let started = std::time::Instant::now();
                    let result = job.compile();
                    if let Ok(mut slot) = compiled[*i].lock() {
                        *slot = Some((result, started.elapsed().as_secs_f64()));
                    }
                });
            }
        });
        let mut report = Vec::with_capacity(MODULES.len());
        for (i, m) in MODULES.iter().enumerate() {
            let started = std::time::Instant::now();
            let compile = compiled[i].lock().map_err(|_| poisoned())?.take();
            let (cubin, seconds) = match compile {
                Some((Err(e), _)) => return Err(e),
                Some((Ok(cubin), seconds)) => (Some(cubin), Some(seconds)),
                None => (None, None),
            };
            let (_, origin) = self.load_module_from(m, cubin)?;
            report.push((
                m.name,
                origin,
                seconds.unwrap_or_else(|| started.elapsed().as_secs_f64()),
            ));
        }
        Ok(report)
    }

    /// Copy host bytes into device memory at `dst`, through pinned staging slots for
    /// large copies. Returns when the source may be reused.
    pub(crate) fn copy_to_device(&self, dst: u64, src: &[u8]) -> Result<()> {
        if src.is_empty() {
            return Ok(());
        }
        if src.len() > DIRECT_LIMIT {
            if let Some(staged) = self.stage_to_device(dst, src) {
                return staged;
            }
        }
        self.bind()?;
        // SAFETY: dst holds at least src.len() bytes (allocated by the caller for this
        // copy); a pageable source is staged by the driver before this returns.
        unsafe { result::memcpy_htod_async(dst, src, self.stream()) }
            .map_err(|e| driver_error("copy to device", e))
    }

    /// The staging slots and the copy stream, or `None` while another copy uses
    /// them. That copy may be on this very thread: a copy waits for pool threads, and
    /// meanwhile its thread may run another pool task that copies (`LineReader`
    /// uploads a window while the op on the one before runs). Such a copy goes without
    /// them rather than waiting for itself.
    fn try_staging(&self) -> Option<Result<StagingGuards<'_>>> {
        let copy = match try_lock(&self.inner.copy_stream)? {
            Ok(guard) => guard,
            Err(e) => return Some(Err(e)),
        };
        Some(try_lock(&self.inner.staging)?.map(|staging| (copy, staging)))
    }

    /// Copy `src` to device memory at `dst` through the staging slots: each slot is
    /// filled by several threads, then copied to the device while the next slot is
    /// filled. The copies run on the backend's copy stream, after the work queued so
    /// far on its own stream (which includes the allocation of `dst`), and the work
    /// queued there after this returns waits for them; so the kernels queued before
    /// keep running while the host fills the slots (another thread may be waiting for
    /// them: `lines::LineReader` uploads the next window meanwhile). Returns when
    /// `src` may be reused.
    ///
    /// `None`, having done nothing, while the staging is in use ([`Self::try_staging`]).
    ///
    /// # Errors
    /// [`Error::Device`] (the copies queued before it still complete before `dst` or
    /// their slots are reused).
    fn stage_to_device(&self, dst: u64, src: &[u8]) -> Option<Result<()>> {
        let (mut copy_guard, mut guard) = match self.try_staging()? {
            Ok(guards) => guards,
            Err(e) => return Some(Err(e)),
        };
        Some(self.stage_with(dst, src, &mut copy_guard, &mut guard))
    }

    /// [`Self::stage_to_device`] with the copy stream and the staging held.
    fn stage_with(
        &self,
        dst: u64,
        src: &[u8],
        copy_guard: &mut Option<CopyStream>,
        guard: &mut Option<Staging>,
    ) -> Result<()> {
        self.bind()?;
        let main = self.stream();
        let copy = self.copy_stream(copy_guard)?.stream;
        let staging = self.staging(guard)?;
        let (ready, done) = (Event::new(false)?, Event::new(false)?);
        ready.record(main)?;
        ready.queue_wait(copy)?;
        let copied = (|| -> Result<()> {
            for (k, chunk) in src.chunks(STAGING_SLOT).enumerate() {
                let s = k % STAGING_SLOTS;
                staging.wait_slot(s)?;
                let pinned = &mut staging.slot(s)[..chunk.len()];
                // A piece per thread (at least 256 KiB).
                let piece = chunk
                    .len()
                    .div_ceil(rayon::current_num_threads())
                    .next_multiple_of(64 << 10)
                    .max(256 << 10);
                parallel_copy(pinned, chunk, piece);
                // While this thread waited for the copy it may have run other pool
                // tasks, another device's among them: make this context current again.
                self.bind()?;
                let offset = (k * STAGING_SLOT) as u64;
                // SAFETY: the pinned slot holds chunk.len() bytes and is not touched
                // again until its event completes; dst + offset has room for them.
                unsafe { result::memcpy_htod_async(dst + offset, &*pinned, copy) }
                    .map_err(|e| driver_error("copy to device", e))?;
                staging.record_slot(s, copy)?;
            }
            Ok(())
        })();
        // Whatever was queued, the backend's stream (and so the release of `dst`)
        // comes after it.
        done.record(copy)?;
        done.queue_wait(main)?;
        copied
    }

    /// The backend's copy stream, created on first use.
    fn copy_stream<'a>(&self, guard: &'a mut Option<CopyStream>) -> Result<&'a mut CopyStream> {
        if guard.is_none() {
            let cells = PinnedBuffer::new(&self.inner.ctx, 4 * (STREAM_SLOTS + 1))?;
            let stream = result::stream::create(result::stream::StreamKind::NonBlocking)
                .map_err(|e| driver_error("create stream", e))?;
            *guard = Some(CopyStream { stream, cells });
        }
        guard.as_mut().ok_or_else(poisoned)
    }

    /// Copy device bytes at `src` into host memory, through pinned staging chunks for
    /// large copies. Waits for all queued work.
    fn copy_to_host(&self, dst: &mut [u8], src: u64) -> Result<()> {
        if dst.is_empty() {
            return self.synchronize_stream();
        }
        self.bind()?;
        let stream = self.stream();
        if dst.len() <= SCRATCH_BYTES {
            // Small results (scalars, error words) go through a pinned scratch buffer: a
            // pageable copy would be staged by the driver, adding latency.
            let mut guard = self.inner.scratch.lock().map_err(|_| poisoned())?;
            if guard.is_none() {
                *guard = Some(PinnedBuffer::new(&self.inner.ctx, SCRATCH_BYTES)?);
            }
            let scratch = guard.as_mut().ok_or_else(poisoned)?;
            let pinned = &mut scratch.as_mut_slice()[..dst.len()];
            // SAFETY: src holds dst.len() bytes; the scratch is read only after the stream
            // is synchronized, and the lock keeps other callers out meanwhile.
            unsafe { result::memcpy_dtoh_async(&mut *pinned, src, stream) }
                .map_err(|e| driver_error("copy to host", e))?;
            self.synchronize_stream()?;
            dst.copy_from_slice(pinned);
            return Ok(());
        }
        // Small copies, and any while the staging is in use (possibly by this thread:
        // see `try_staging`), go straight to pageable memory.
        let mut guard = if dst.len() <= DIRECT_LIMIT {
            None
        } else {
            try_lock(&self.inner.staging).transpose()?
        };
        let Some(guard) = guard.as_mut() else {
            // SAFETY: src holds dst.len() bytes; the stream is synchronized before dst is
            // read.
            unsafe { result::memcpy_dtoh_async(dst, src, stream) }
                .map_err(|e| driver_error("copy to host", e))?;
            return self.synchronize_stream();
        };
        let staging = self.staging(guard)?;
        staging.settle()?;
        // Whole chunks (two slots each), copied out in 2 MiB pieces: a fresh host
        // buffer is faulted in by huge pages, and threads sharing one wait for each
        // other.
        let total = dst.len();
        let count = total.div_ceil(STAGING_CHUNK);
        let len_of = |k: usize| STAGING_CHUNK.min(total - k * STAGING_CHUNK);
        let issue = |k: usize, staging: &mut Staging| -> Result<()> {
            let c = k % 2;
            let pinned = &mut staging.chunks[c].as_mut_slice()[..len_of(k)];
            // SAFETY: src + offset holds len_of(k) bytes; the pinned chunk is read only
            // after its events complete.
            unsafe { result::memcpy_dtoh_async(pinned, src + (k * STAGING_CHUNK) as u64, stream) }
                .map_err(|e| driver_error("copy to host", e))?;
            staging.record_chunk(c, stream)
        };
        // Both chunks in flight: while one DMA runs, the other chunk is copied out.
        for k in 0..count.min(2) {
            issue(k, staging)?;
        }
        for (k, target) in dst.chunks_mut(STAGING_CHUNK).enumerate() {
            let c = k % 2;
            staging.wait_chunk(c)?;
            parallel_copy(
                target,
                &staging.chunks[c].as_slice()[..target.len()],
                2 << 20,
            );
            // Pool tasks of another device may have run on this thread meanwhile.
            self.bind()?;
            if k + 2 < count {
                issue(k + 2, staging)?;
            }
        }
        Ok(())
    }

    fn staging<'a>(&self, guard: &'a mut Option<Staging>) -> Result<&'a mut Staging> {
        if guard.is_none() {
            let chunks = ragged_core::trace::timed("pinned staging", || -> Result<_> {
                Ok([
                    PinnedBuffer::new(&self.inner.ctx, STAGING_CHUNK)?,
                    PinnedBuffer::new(&self.inner.ctx, STAGING_CHUNK)?,
                ])
            })?;
            *guard = Some(Staging {
                chunks,
                events: (0..STAGING_SLOTS)
                    .map(|_| Event::new(false))
                    .collect::<Result<_>>()?,
                pending: [false; STAGING_SLOTS],
            });
        }
        guard.as_mut().ok_or_else(poisoned)
    }

    /// Upload bytes produced window by window on a second stream while the kernels
    /// `launch` queues on the backend's stream run, telling them how far the upload has
    /// got through the device word `progress[0]` (to be read with acquire loads; the
    /// rest of `progress` is the caller's). In order: on the backend's stream all of
    /// `progress` is zeroed, then (after all work queued there so
    /// far, which includes the allocations of `dst` and `progress`) the copy stream
    /// starts; `launch` runs; each window is filled on the host into pinned memory and
    /// copied to the device, and then `progress(end)` is copied into the word — after
    /// the window's bytes, on the same stream. The work queued on the backend's stream
    /// after this returns runs after the last copy, so freeing `dst` and `progress`
    /// later is ordered after them.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] for the staging memory, [`Error::Device`], and whatever
    /// `launch` returns. When the upload fails after `launch`, the word is set to
    /// [`ROUNDS_ABORT`] so the kernels stop waiting.
    pub(crate) fn upload_streamed(
        &self,
        upload: &StreamedUpload<'_>,
        progress: &DeviceBuffer<u32>,
        launch: impl FnOnce() -> Result<()>,
    ) -> Result<()> {
        self.bind()?;
        let main = self.stream();
        let mut copy_guard = self.inner.copy_stream.lock().map_err(|_| poisoned())?;
        let copy_stream = self.copy_stream(&mut copy_guard)?;
        let copy = copy_stream.stream;
        let mut guard = self.inner.staging.lock().map_err(|_| poisoned())?;
        let staging = self.staging(&mut guard)?;
        staging.settle()?;
        let slot_events = (0..STREAM_SLOTS)
            .map(|_| Event::new(false))
            .collect::<Result<Vec<_>>>()?;
        let (ready, done) = (Event::new(false)?, Event::new(false)?);
        // Copy pinned cell `cell` (holding `value`) into the progress word, after the
        // copies queued before it on the copy stream.
        let flag = progress.device_ptr();
        let signal = |cells: &mut PinnedBuffer, cell: usize, value: u32| -> Result<()> {
            let bytes = &mut cells.as_mut_slice()[4 * cell..4 * cell + 4];
            bytes.copy_from_slice(&value.to_ne_bytes());
            // SAFETY: the cell is pinned and not rewritten until the event recorded
            // after this copy completes (its slot's event, or never for the abort cell);
            // the word is a live 4-byte device allocation.
            unsafe { result::memcpy_htod_async(flag, &*bytes, copy) }
                .map_err(|e| driver_error("signal upload", e))
        };
        self.zero(progress)?;
        ready.record(main)?;
        ready.queue_wait(copy)?;
        launch()?;
        let cells = &mut copy_stream.cells;
        let copied =
            ragged_core::trace::timed("streamed upload: windows queued", || -> Result<()> {
                let mut start = 0usize;
                let mut window = upload.first_window.clamp(upload.align, STREAM_WINDOW_MAX);
                let mut last = 0u32;
                let mut k = 0usize;
                while start < upload.len {
                    let len = window.min(upload.len - start);
                    let slot = k % STREAM_SLOTS;
                    if k >= STREAM_SLOTS {
                        // The slot's previous window (k - STREAM_SLOTS) must be copied.
                        slot_events[slot].wait()?;
                    }
                    let chunk = &mut staging.chunks[slot / (STREAM_SLOTS / 2)];
                    let offset = (slot % (STREAM_SLOTS / 2)) * STREAM_WINDOW_MAX;
                    let pinned = &mut chunk.as_mut_slice()[offset..offset + len];
                    (upload.fill)(start, pinned);
                    // The fill may run pool tasks of another device on this thread.
                    self.bind()?;
                    // SAFETY: the pinned window holds `len` bytes and is not touched again
                    // until its event completes; dst + start has room for them.
                    unsafe { result::memcpy_htod_async(upload.dst + start as u64, &*pinned, copy) }
                        .map_err(|e| driver_error("copy to device", e))?;
                    start += len;
                    let value = (upload.progress)(start).min(ROUNDS_ABORT - 1);
                    if value != last {
                        signal(cells, slot, value)?;
                        last = value;
                    }
                    slot_events[slot].record(copy)?;
                    window = (window * 2).min(STREAM_WINDOW_MAX);
                    k += 1;
                }
                Ok(())
            });
        if copied.is_err() {
            // The kernels stop waiting; their result is dropped.
            let _ = signal(cells, STREAM_SLOTS, ROUNDS_ABORT);
        }
        // Later users of the staging chunks wait for these copies.
        for s in 0..STAGING_SLOTS {
            staging.record_slot(s, copy)?;
        }
        done.record(copy)?;
        done.queue_wait(main)?;
        copied
    }

    /// Wait for all work queued on the stream.
    pub(crate) fn synchronize_stream(&self) -> Result<()> {
        self.bind()?;
        // SAFETY: the stream is alive.
        unsafe { result::stream::synchronize(self.stream()) }
            .map_err(|e| driver_error("synchronize", e))
    }

    /// Set every byte of a device buffer to zero (ordered on the stream).
    pub(crate) fn zero<T>(&self, buffer: &DeviceBuffer<T>) -> Result<()> {
        if buffer.is_empty() {
            return Ok(());
        }
        self.bind()?;
        // SAFETY: the buffer holds num_bytes() bytes; the memset is stream-ordered.
        unsafe {
            result::memset_d8_async(buffer.device_ptr(), 0, buffer.num_bytes(), self.stream())
        }
        .map_err(|e| driver_error("memset", e))
    }

    /// Read `len` bytes at byte `offset` of a device buffer (waits for queued work).
    pub(crate) fn read_bytes<T>(
        &self,
        buffer: &DeviceBuffer<T>,
        offset: usize,
        len: usize,
    ) -> Result<Vec<u8>> {
        if offset
            .checked_add(len)
            .is_none_or(|end| end > buffer.num_bytes())
        {
            return Err(Error::invalid_argument(
                "read_bytes",
                "range outside the buffer",
            ));
        }
        let mut out = vec![0u8; len];
        self.copy_to_host(&mut out, buffer.device_ptr() + offset as u64)?;
        Ok(out)
    }

    /// Run `work` with the device address of a pinned, device-mapped slot of
    /// [`RESULT_SLOT_BYTES`] bytes, wait for the stream, and return the first `len`
    /// bytes of the slot. Kernels queued by `work` write their result there directly:
    /// no device allocation and no copy, the lowest latency a small result can have.
    pub(crate) fn with_result_slot(
        &self,
        len: usize,
        work: impl FnOnce(u64) -> Result<()>,
    ) -> Result<Vec<u8>> {
        if len > RESULT_SLOT_BYTES {
            return Err(Error::invalid_argument(
                "with_result_slot",
                format!("{len} bytes do not fit the {RESULT_SLOT_BYTES}-byte result slot"),
            ));
        }
        let mut guard = self.inner.result_slot.lock().map_err(|_| poisoned())?;
        if guard.is_none() {
            *guard = Some(PinnedBuffer::new_mapped(
                &self.inner.ctx,
                RESULT_SLOT_BYTES,
            )?);
        }
        let (slot, device) = guard.as_mut().ok_or_else(poisoned)?;
        let queued = work(*device);
        // Even when queuing failed part-way, kernels already queued may write the slot:
        // wait for them before the lock is released.
        let waited = self.synchronize_stream();
        queued?;
        waited?;
        Ok(slot.as_slice()[..len].to_vec())
    }

    /// Read element 0 of a device buffer (waits for queued work).
    pub(crate) fn read_scalar<T: Copy + Default>(&self, buffer: &DeviceBuffer<T>) -> Result<T> {
        let mut value = [T::default()];
        // SAFETY: the buffer holds at least one T; T is plain data (integers/floats).
        let bytes = unsafe {
            std::slice::from_raw_parts_mut(
                value.as_mut_ptr().cast::<u8>(),
                std::mem::size_of::<T>(),
            )
        };
        if buffer.is_empty() {
            return Err(Error::invalid_argument("read_scalar", "empty buffer"));
        }
        self.copy_to_host(bytes, buffer.device_ptr())?;
        Ok(value[0])
    }

    /// Allocate pinned host memory of `bytes` (for full-speed transfers).
    ///
    /// # Errors
    /// [`Error::Device`] when the driver cannot pin that much.
    pub fn alloc_pinned(&self, bytes: usize) -> Result<PinnedBuffer> {
        PinnedBuffer::new(&self.inner.ctx, bytes)
    }

    /// Copy a pinned host buffer to a new device buffer by direct DMA (no staging).
    ///
    /// # Errors
    /// [`Error::OutOfMemory`], [`Error::Device`].
    pub fn upload_pinned(&self, src: &PinnedBuffer) -> Result<DeviceBuffer<u8>> {
        let dst = self.alloc::<u8>(src.len())?;
        if !src.is_empty() {
            self.bind()?;
            // SAFETY: dst holds src.len() bytes; src is pinned and outlives the copy,
            // which completes before return.
            unsafe { result::memcpy_htod_async(dst.device_ptr(), src.as_slice(), self.stream()) }
                .map_err(|e| driver_error("copy to device", e))?;
        }
        self.synchronize_stream()?;
        Ok(dst)
    }

    /// Copy a device buffer into a pinned host buffer of the same size by direct DMA.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] on a size mismatch; [`Error::Device`].
    pub fn download_pinned(&self, src: &DeviceBuffer<u8>, dst: &mut PinnedBuffer) -> Result<()> {
        if src.len() != dst.len() {
            return Err(Error::LengthMismatch {
                op: "download_pinned",
                what: "pinned buffer",
                expected: src.len(),
                actual: dst.len(),
            });
        }
        if !src.is_empty() {
            self.bind()?;
            // SAFETY: both hold src.len() bytes; synchronized before return.
            unsafe {
                result::memcpy_dtoh_async(dst.as_mut_slice(), src.device_ptr(), self.stream())
            }
            .map_err(|e| driver_error("copy to host", e))?;
        }
        self.synchronize_stream()
    }

    /// Copy a device buffer into a new one (device-to-device).
    ///
    /// # Errors
    /// [`Error::OutOfMemory`], [`Error::Device`].
    pub fn copy_buffer<T>(&self, src: &DeviceBuffer<T>) -> Result<DeviceBuffer<T>> {
        let dst = self.alloc::<T>(src.len())?;
        if !src.is_empty() {
            self.bind()?;
            // SAFETY: both hold src.num_bytes() bytes; ordered on the stream.
            unsafe {
                result::memcpy_dtod_async(
                    dst.device_ptr(),
                    src.device_ptr(),
                    src.num_bytes(),
                    self.stream(),
                )
            }
            .map_err(|e| driver_error("copy on device", e))?;
        }
        Ok(dst)
    }

    /// Time `work` on the device with CUDA events: the seconds between an event
    /// recorded before and one recorded after the work it queues.
    ///
    /// # Errors
    /// Whatever `work` returns, and [`Error::Device`].
    pub fn time<R>(&self, work: impl FnOnce() -> Result<R>) -> Result<(R, f64)> {
        self.bind()?;
        let start = Event::new(true)?;
        let stop = Event::new(true)?;
        start.record(self.stream())?;
        let value = work()?;
        // `work` may have run pool tasks of another device on this thread.
        self.bind()?;
        stop.record(self.stream())?;
        stop.wait()?;
        // SAFETY: both events were recorded and have completed.
        let ms = unsafe { result::event::elapsed(start.0, stop.0) }
            .map_err(|e| driver_error("elapsed time", e))?;
        Ok((value, f64::from(ms) / 1e3))
    }

    /// Upload a slice of plain values to a new device buffer.
    pub(crate) fn upload_slice<T: Native>(&self, data: &[T]) -> Result<DeviceBuffer<T>> {
        let size = std::mem::size_of_val(data) as u64;
        ragged_core::trace::measure(ragged_core::trace::Phase::Upload, size, || {
            let dst = self.alloc::<T>(data.len())?;
            // SAFETY: T is a plain number type; viewing its bytes is sound.
            let bytes = unsafe {
                std::slice::from_raw_parts(data.as_ptr().cast::<u8>(), std::mem::size_of_val(data))
            };
            self.copy_to_device(dst.device_ptr(), bytes)?;
            Ok(dst)
        })
    }

    /// Download a device buffer into a host vector.
    pub(crate) fn download_vec<T: Native>(&self, data: &DeviceBuffer<T>) -> Result<Vec<T>> {
        let size = data.num_bytes() as u64;
        ragged_core::trace::measure(ragged_core::trace::Phase::Download, size, || {
            let mut out = vec![T::default(); data.len()];
            ragged_core::host::advise_huge_pages(&mut out);
            // SAFETY: T is a plain number type; every byte pattern the device writes is
            // a valid T.
            let bytes = unsafe {
                std::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<u8>(), data.num_bytes())
            };
            self.copy_to_host(bytes, data.device_ptr())?;
            Ok(out)
        })
    }

    /// Upload a host validity bitmap (normalized to bit offset 0).
    pub(crate) fn upload_validity(&self, bits: &NullBuffer) -> Result<DeviceBitmap> {
        let packed = bits.inner().sliced();
        let device = self.upload_slice::<u8>(packed.as_slice())?;
        Ok(DeviceBitmap {
            bits: device,
            bit_offset: 0,
            len: bits.len(),
            null_count: bits.null_count(),
        })
    }

    /// Download a device bitmap into a host validity bitmap.
    pub(crate) fn download_validity(&self, bits: &DeviceBitmap) -> Result<NullBuffer> {
        let bytes = self.download_vec::<u8>(&bits.bits)?;
        let needed = (bits.bit_offset + bits.len).div_ceil(8);
        if bytes.len() < needed {
            return Err(Error::Device {
                op: "download bitmap",
                message: "bitmap shorter than its length".into(),
            });
        }
        let buffer = arrow_buffer::Buffer::from_vec(bytes);
        let boolean = arrow_buffer::BooleanBuffer::new(buffer, bits.bit_offset, bits.len);
        Ok(NullBuffer::new(boolean))
    }
}

/// Copy with several threads, in pieces of `piece` bytes: one thread's memcpy is far
/// below PCIe bandwidth. While it waits, the calling thread may run other tasks of the
/// pool, which may make another device's context current: callers bind again after.
fn parallel_copy(dst: &mut [u8], src: &[u8], piece: usize) {
    use rayon::prelude::*;
    dst.par_chunks_mut(piece)
        .zip(src.par_chunks(piece))
        .for_each(|(d, s)| d.copy_from_slice(s));
}

/// `mutex` locked, or `None` while another holder has it (never waiting: the holder
/// may be this thread, see `CudaBackend::try_staging`).
fn try_lock<T>(mutex: &Mutex<T>) -> Option<Result<MutexGuard<'_, T>>> {
    match mutex.try_lock() {
        Ok(guard) => Some(Ok(guard)),
        Err(TryLockError::WouldBlock) => None,
        Err(TryLockError::Poisoned(_)) => Some(Err(poisoned())),
    }
}

fn poisoned() -> Error {
    Error::Device {
        op: "lock",
        message: "a thread panicked while holding backend state".into(),
    }
}
