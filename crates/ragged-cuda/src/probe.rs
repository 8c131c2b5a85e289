//! Deciding whether CUDA is usable, before cudarc is touched.
//!
//! cudarc's dynamic loading panics when libcuda is missing or is a stub. The probe
//! opens the same library cudarc would open (same candidate names, same order), calls
//! `cuInit` and reads the devices through its own symbols, with panics caught. Only
//! when it reports [`CudaStatus::Available`] does the backend touch cudarc's driver API.

use std::ffi::{c_char, c_int, c_uint};
use std::sync::OnceLock;

/// One CUDA device as the probe saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// The device ordinal (`cuda:N`).
    pub ordinal: usize,
    /// The device's name, e.g. `NVIDIA H100 80GB HBM3`.
    pub name: String,
    /// Compute capability (major, minor), e.g. (9, 0).
    pub compute_capability: (i32, i32),
    /// Total device memory in bytes.
    pub total_memory: usize,
    /// Number of streaming multiprocessors.
    pub multiprocessors: i32,
}

/// Whether CUDA can be used in this process, and why not.
#[derive(Clone, Debug)]
pub enum CudaStatus {
    /// A driver and at least one device were found.
    Available {
        /// The library the driver was loaded from.
        library: String,
        /// Driver version as `major.minor` (e.g. `13.0`).
        driver_version: String,
        /// The devices.
        devices: Vec<DeviceInfo>,
    },
    /// CUDA cannot be used; `reason` says why in one line.
    Unavailable {
        /// Why: no driver library, a stub library, `cuInit` failed, no device, …
        reason: String,
    },
}

impl CudaStatus {
    /// The devices, empty when unavailable.
    pub fn devices(&self) -> &[DeviceInfo] {
        match self {
            CudaStatus::Available { devices, .. } => devices,
            CudaStatus::Unavailable { .. } => &[],
        }
    }

    /// Why CUDA is unavailable, `None` when it is available.
    pub fn unavailable_reason(&self) -> Option<&str> {
        match self {
            CudaStatus::Available { .. } => None,
            CudaStatus::Unavailable { reason } => Some(reason),
        }
    }
}

/// Probe CUDA once per process (later calls return the cached answer).
///
/// Never panics: a panic inside the probe is caught and reported as unavailable.
///
/// # Example
/// ```
/// match ragged_cuda::cuda_status() {
///     ragged_cuda::CudaStatus::Available { devices, .. } => println!("{} device(s)", devices.len()),
///     ragged_cuda::CudaStatus::Unavailable { reason } => println!("CUDA unavailable: {reason}"),
/// }
/// ```
pub fn cuda_status() -> &'static CudaStatus {
    static STATUS: OnceLock<CudaStatus> = OnceLock::new();
    STATUS.get_or_init(|| {
        if cuda_disabled() {
            return CudaStatus::Unavailable {
                reason: "disabled by RAGGED_DISABLE_CUDA".into(),
            };
        }
        match ragged_core::trace::timed("probe (cuInit, devices)", || {
            std::panic::catch_unwind(probe)
        }) {
            Ok(Ok(status)) => status,
            Ok(Err(reason)) => CudaStatus::Unavailable { reason },
            Err(_) => CudaStatus::Unavailable {
                reason: "the CUDA driver library panicked while being probed".into(),
            },
        }
    })
}

/// Whether `RAGGED_DISABLE_CUDA` is set (to anything but `0`).
pub fn cuda_disabled() -> bool {
    std::env::var("RAGGED_DISABLE_CUDA").is_ok_and(|v| !v.is_empty() && v != "0")
}

type CuInit = unsafe extern "C" fn(c_uint) -> c_int;
type CuIntOut = unsafe extern "C" fn(*mut c_int) -> c_int;
type CuDeviceGet = unsafe extern "C" fn(*mut c_int, c_int) -> c_int;
type CuDeviceGetName = unsafe extern "C" fn(*mut c_char, c_int, c_int) -> c_int;
type CuDeviceTotalMem = unsafe extern "C" fn(*mut usize, c_int) -> c_int;
type CuDeviceGetAttribute = unsafe extern "C" fn(*mut c_int, c_int, c_int) -> c_int;
type CuGetErrorName = unsafe extern "C" fn(c_int, *mut *const c_char) -> c_int;

/// Driver entry points used after the probe (NUL-terminated for `dlsym`).
const REQUIRED_SYMBOLS: &[&str] = &[
    "cuDevicePrimaryCtxRetain\0",
    "cuCtxSetCurrent\0",
    "cuCtxGetCurrent\0",
    "cuStreamCreate\0",
    "cuStreamSynchronize\0",
    "cuStreamDestroy_v2\0",
    "cuMemPoolCreate\0",
    "cuMemPoolSetAttribute\0",
    "cuMemPoolGetAttribute\0",
    "cuMemPoolDestroy\0",
    "cuMemAllocFromPoolAsync\0",
    "cuMemFreeAsync\0",
    "cuMemAlloc_v2\0",
    "cuMemFree_v2\0",
    "cuMemHostAlloc\0",
    "cuMemFreeHost\0",
    "cuMemHostGetDevicePointer_v2\0",
    "cuMemcpyHtoDAsync_v2\0",
    "cuMemcpyDtoHAsync_v2\0",
    "cuMemcpyDtoDAsync_v2\0",
    "cuMemsetD8Async\0",
    "cuMemGetInfo_v2\0",
    "cuModuleLoadData\0",
    "cuModuleGetFunction\0",
    "cuLaunchKernel\0",
    "cuEventCreate\0",
    "cuEventRecord\0",
    "cuEventSynchronize\0",
    "cuEventElapsedTime\0",
    "cuEventDestroy_v2\0",
];

const ATTR_MULTIPROCESSOR_COUNT: c_int = 16;
const ATTR_COMPUTE_CAPABILITY_MAJOR: c_int = 75;
const ATTR_COMPUTE_CAPABILITY_MINOR: c_int = 76;

fn probe() -> Result<CudaStatus, String> {
    // The same candidates, in the same order, as cudarc's loader.
    let candidates = cudarc::get_lib_name_candidates("cuda");
    let mut opened = None;
    for name in &candidates {
        // SAFETY: loading the CUDA driver library runs its initializers, which is what
        // cudarc would do next anyway; no Rust invariants depend on them.
        if let Ok(lib) = unsafe { libloading::Library::new(name) } {
            opened = Some((name.clone(), lib));
            break;
        }
    }
    let Some((library, lib)) = opened else {
        return Err("no NVIDIA driver found (libcuda.so could not be loaded)".into());
    };
    // SAFETY: the symbol types match the CUDA driver API's C declarations (cuda.h).
    let symbols = unsafe {
        (
            lib.get::<CuInit>(b"cuInit\0"),
            lib.get::<CuIntOut>(b"cuDriverGetVersion\0"),
            lib.get::<CuIntOut>(b"cuDeviceGetCount\0"),
            lib.get::<CuDeviceGet>(b"cuDeviceGet\0"),
            lib.get::<CuDeviceGetName>(b"cuDeviceGetName\0"),
            lib.get::<CuDeviceTotalMem>(b"cuDeviceTotalMem_v2\0"),
            lib.get::<CuDeviceGetAttribute>(b"cuDeviceGetAttribute\0"),
            lib.get::<CuGetErrorName>(b"cuGetErrorName\0"),
        )
    };
    let (Ok(init), Ok(version), Ok(count), Ok(get), Ok(name), Ok(total), Ok(attr), Ok(err_name)) =
        symbols
    else {
        return Err(format!(
            "{library} is incomplete (missing driver API symbols): a stub or broken driver library"
        ));
    };
    let describe = |code: c_int| -> String {
        let mut ptr: *const c_char = std::ptr::null();
        // SAFETY: cuGetErrorName writes a pointer to a static string or leaves it null.
        let named = unsafe { err_name(code, &mut ptr) } == 0 && !ptr.is_null();
        if named {
            // SAFETY: the driver returned a NUL-terminated static string.
            let s = unsafe { std::ffi::CStr::from_ptr(ptr) };
            format!("{} ({code})", s.to_string_lossy())
        } else {
            format!("error {code}")
        }
    };
    // SAFETY: cuInit takes flags 0 and has no other preconditions.
    let rc = unsafe { init(0) };
    if rc != 0 {
        let hint = if rc == 34 {
            ": the library is the toolkit's stub, not a driver"
        } else {
            ""
        };
        return Err(format!("cuInit failed with {}{hint}", describe(rc)));
    }
    // Every other driver entry point ragged calls (through cudarc, which panics on a
    // missing symbol): a library without them is treated as unusable here.
    for symbol in REQUIRED_SYMBOLS {
        // SAFETY: looking a symbol up runs no code; the pointer type is irrelevant.
        if unsafe { lib.get::<*const ()>(symbol.as_bytes()) }.is_err() {
            return Err(format!(
                "{library} lacks the driver entry point {}: an incomplete or broken driver library",
                symbol.trim_end_matches('\0')
            ));
        }
    }
    let mut v: c_int = 0;
    // SAFETY: writes one int.
    let rc = unsafe { version(&mut v) };
    if rc != 0 {
        return Err(format!("cuDriverGetVersion failed with {}", describe(rc)));
    }
    let driver_version = format!("{}.{}", v / 1000, (v % 1000) / 10);
    let mut n: c_int = 0;
    // SAFETY: writes one int.
    let rc = unsafe { count(&mut n) };
    if rc != 0 {
        return Err(format!("cuDeviceGetCount failed with {}", describe(rc)));
    }
    if n <= 0 {
        return Err(format!(
            "the NVIDIA driver {driver_version} reports no CUDA device"
        ));
    }
    let mut devices = Vec::new();
    for ordinal in 0..n {
        let mut dev: c_int = 0;
        // SAFETY: ordinal < count; writes one device handle.
        let rc = unsafe { get(&mut dev, ordinal) };
        if rc != 0 {
            return Err(format!(
                "cuDeviceGet({ordinal}) failed with {}",
                describe(rc)
            ));
        }
        let mut buf = [0 as c_char; 256];
        // SAFETY: the buffer holds 256 bytes and the driver writes at most that many.
        let rc = unsafe { name(buf.as_mut_ptr(), 256, dev) };
        let device_name = if rc == 0 {
            // SAFETY: the driver NUL-terminates the name within the buffer.
            unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }
                .to_string_lossy()
                .into_owned()
        } else {
            format!("device {ordinal}")
        };
        let mut bytes: usize = 0;
        // SAFETY: writes one size_t.
        unsafe { total(&mut bytes, dev) };
        let read_attr = |a: c_int| {
            let mut value: c_int = 0;
            // SAFETY: writes one int for a valid attribute and device.
            unsafe { attr(&mut value, a, dev) };
            value
        };
        devices.push(DeviceInfo {
            ordinal: ordinal as usize,
            name: device_name,
            compute_capability: (
                read_attr(ATTR_COMPUTE_CAPABILITY_MAJOR),
                read_attr(ATTR_COMPUTE_CAPABILITY_MINOR),
            ),
            total_memory: bytes,
            multiprocessors: read_attr(ATTR_MULTIPROCESSOR_COUNT),
        });
    }
    // Keep the library loaded for the life of the process (cudarc uses it next).
    std::mem::forget(lib);
    Ok(CudaStatus::Available {
        library,
        driver_version,
        devices,
    })
}

/// One GPU as NVML (the management library) reports it, without initializing CUDA.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManagedGpu {
    /// The product name.
    pub name: String,
    /// Compute capability (major, minor).
    pub compute_capability: (i32, i32),
    /// Total memory in bytes.
    pub total_memory: u64,
}

/// The driver's CUDA version and the GPUs, read through NVML (`libnvidia-ml.so.1`):
/// about 20 ms where `cuInit` and a context take about 200 (measured on an H100), so
/// `ragged info` stays fast. NVML lists GPUs in PCI order, which may differ from CUDA's
/// ordinals, and does not prove CUDA usable (a broken `libcuda` still fails `cuInit`):
/// [`cuda_status`] does.
///
/// # Errors
/// A one-line reason when NVML is missing or fails.
pub fn managed_gpus() -> Result<(String, Vec<ManagedGpu>), String> {
    std::panic::catch_unwind(read_nvml)
        .unwrap_or_else(|_| Err("NVML panicked while being read".into()))
}

type NvmlInit = unsafe extern "C" fn() -> c_int;
type NvmlIntOut = unsafe extern "C" fn(*mut c_int) -> c_int;
type NvmlCount = unsafe extern "C" fn(*mut c_uint) -> c_int;
type NvmlHandle = unsafe extern "C" fn(c_uint, *mut *mut std::ffi::c_void) -> c_int;
type NvmlName = unsafe extern "C" fn(*mut std::ffi::c_void, *mut c_char, c_uint) -> c_int;
type NvmlMemory = unsafe extern "C" fn(*mut std::ffi::c_void, *mut [u64; 3]) -> c_int;
type NvmlCapability = unsafe extern "C" fn(*mut std::ffi::c_void, *mut c_int, *mut c_int) -> c_int;

fn read_nvml() -> Result<(String, Vec<ManagedGpu>), String> {
    // SAFETY: loading NVML runs only its own initializers.
    let lib = unsafe { libloading::Library::new("libnvidia-ml.so.1") }
        .map_err(|_| "NVML (libnvidia-ml.so.1) not found".to_string())?;
    // SAFETY: the symbol types match nvml.h (nvmlMemory_t is three unsigned long longs:
    // total, free, used).
    let symbols = unsafe {
        (
            lib.get::<NvmlInit>(b"nvmlInit_v2\0"),
            lib.get::<NvmlInit>(b"nvmlShutdown\0"),
            lib.get::<NvmlIntOut>(b"nvmlSystemGetCudaDriverVersion_v2\0"),
            lib.get::<NvmlCount>(b"nvmlDeviceGetCount_v2\0"),
            lib.get::<NvmlHandle>(b"nvmlDeviceGetHandleByIndex_v2\0"),
            lib.get::<NvmlName>(b"nvmlDeviceGetName\0"),
            lib.get::<NvmlMemory>(b"nvmlDeviceGetMemoryInfo\0"),
            lib.get::<NvmlCapability>(b"nvmlDeviceGetCudaComputeCapability\0"),
        )
    };
    let (Ok(init), Ok(shutdown), Ok(version), Ok(count), Ok(handle), Ok(name), Ok(memory), Ok(cc)) =
        symbols
    else {
        return Err("NVML lacks entry points".into());
    };
    // SAFETY: nvmlInit_v2 has no preconditions.
    let rc = unsafe { init() };
    if rc != 0 {
        return Err(format!("nvmlInit failed with NVML error {rc}"));
    }
    let result = (|| {
        let mut v: c_int = 0;
        // SAFETY: writes one int.
        if unsafe { version(&mut v) } != 0 {
            return Err("NVML could not read the CUDA driver version".to_string());
        }
        let mut n: c_uint = 0;
        // SAFETY: writes one unsigned int.
        if unsafe { count(&mut n) } != 0 {
            return Err("NVML could not count the GPUs".to_string());
        }
        let mut gpus = Vec::new();
        for index in 0..n {
            let mut device: *mut std::ffi::c_void = std::ptr::null_mut();
            // SAFETY: index < count; writes one handle.
            if unsafe { handle(index, &mut device) } != 0 {
                continue;
            }
            let mut buf = [0 as c_char; 96];
            // SAFETY: the buffer holds 96 bytes; NVML NUL-terminates within the length.
            let gpu_name = if unsafe { name(device, buf.as_mut_ptr(), 96) } == 0 {
                // SAFETY: NUL-terminated by NVML.
                unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }
                    .to_string_lossy()
                    .into_owned()
            } else {
                format!("GPU {index}")
            };
            let mut mem = [0u64; 3];
            // SAFETY: writes one nvmlMemory_t (three u64).
            let total_memory = if unsafe { memory(device, &mut mem) } == 0 {
                mem[0]
            } else {
                0
            };
            let (mut major, mut minor) = (0, 0);
            // SAFETY: writes two ints.
            unsafe { cc(device, &mut major, &mut minor) };
            gpus.push(ManagedGpu {
                name: gpu_name,
                compute_capability: (major, minor),
                total_memory,
            });
        }
        Ok((format!("{}.{}", v / 1000, (v % 1000) / 10), gpus))
    })();
    // SAFETY: balanced with the successful nvmlInit above.
    unsafe { shutdown() };
    result
}
