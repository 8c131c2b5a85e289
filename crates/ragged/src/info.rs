//! What `ragged info` reports: version, backends, devices (or why none), toolkit and
//! kernel cache.

use std::fmt::Write as _;

use ragged_cuda::{cuda_status, CudaOptions, CudaStatus};

/// A report of the system as ragged sees it.
#[derive(Clone, Debug)]
pub struct SystemInfo {
    /// ragged's version.
    pub version: &'static str,
    /// The human-readable report.
    pub text: String,
    /// Whether a CUDA device is usable.
    pub cuda_usable: bool,
}

/// Gather the report. Never fails: every problem becomes a line of the report.
///
/// `options` (memory limit, pool) describe the pool commands would get. No device
/// context is opened. With `check` false the GPUs are read through NVML when it is
/// there (about 20 ms, no `cuInit`), and `cuda_usable` then means "a driver and a GPU
/// are present"; with `check` true (or without NVML) CUDA is initialized by the probe
/// (about 100 ms more), which also proves the driver library usable.
pub fn system_info(options: &CudaOptions, check: bool) -> SystemInfo {
    let mut text = String::new();
    let version = env!("CARGO_PKG_VERSION");
    let _ = writeln!(text, "ragged {version}");
    let _ = writeln!(text, "backends compiled in: cpu, cuda");
    let _ = writeln!(
        text,
        "{}",
        ragged_core::Memory::describe(&ragged_cpu::CpuBackend::new())
    );
    let cache = ragged_cuda::compile::cache_dir().map_or_else(
        || "(none: set XDG_CACHE_HOME or HOME)".to_string(),
        |p| p.display().to_string(),
    );
    let mut cuda_usable = false;
    let managed = if check || ragged_cuda::probe::cuda_disabled() {
        None
    } else {
        ragged_cuda::probe::managed_gpus()
            .ok()
            .filter(|(_, gpus)| !gpus.is_empty())
    };
    if let Some((driver_version, gpus)) = managed {
        let _ = writeln!(
            text,
            "cuda: driver {driver_version}, {} GPU(s) (from NVML; `ragged info --check` initializes CUDA)",
            gpus.len()
        );
        for g in &gpus {
            let _ = writeln!(
                text,
                "  {} (sm_{}{}, {:.1} GiB)",
                g.name,
                g.compute_capability.0,
                g.compute_capability.1,
                g.total_memory as f64 / (1u64 << 30) as f64
            );
        }
        cuda_usable = toolkit_lines(&mut text) || built_in_covers(gpus[0].compute_capability);
        pool_line(&mut text, options, gpus[0].total_memory as usize);
        if !cuda_usable {
            let _ = writeln!(text, "only the CPU backend is available");
        }
    } else {
        match cuda_status() {
            CudaStatus::Unavailable { reason } => {
                let _ = writeln!(text, "cuda: unavailable: {reason}");
                let _ = writeln!(text, "only the CPU backend is available");
            }
            CudaStatus::Available {
                library,
                driver_version,
                devices,
            } => {
                let _ = writeln!(text, "cuda: driver {driver_version} ({library})");
                for d in devices {
                    let _ = writeln!(
                        text,
                        "  cuda:{} {} (sm_{}{}, {} SMs, {:.1} GiB)",
                        d.ordinal,
                        d.name,
                        d.compute_capability.0,
                        d.compute_capability.1,
                        d.multiprocessors,
                        d.total_memory as f64 / (1u64 << 30) as f64
                    );
                }
                let toolkit_ok = toolkit_lines(&mut text);
                if let Some(device) = devices.first() {
                    cuda_usable = toolkit_ok || built_in_covers(device.compute_capability);
                    pool_line(&mut text, options, device.total_memory);
                }
                if !cuda_usable {
                    let _ = writeln!(text, "only the CPU backend is available");
                }
            }
        }
    }
    let built_in: Vec<String> = ragged_cuda::built_in::architectures()
        .iter()
        .map(|(major, minor)| format!("sm_{major}{minor}"))
        .collect();
    let _ = writeln!(
        text,
        "built-in kernels: {}",
        if built_in.is_empty() {
            "none (compiled by NVRTC at first use)".to_string()
        } else {
            built_in.join(", ")
        }
    );
    let _ = writeln!(text, "kernel cache: {cache}");
    SystemInfo {
        version,
        text,
        cuda_usable,
    }
}

/// Whether this binary carries every kernel for a device of architecture `arch` (then
/// CUDA needs no NVRTC).
fn built_in_covers(arch: (i32, i32)) -> bool {
    ragged_cuda::built_in::architecture_for(arch).is_some()
}

/// The NVRTC and CCCL lines; whether both were found.
fn toolkit_lines(text: &mut String) -> bool {
    match ragged_cuda::toolkit::toolkit() {
        Ok(t) => {
            let _ = writeln!(
                text,
                "nvrtc: {}.{} ({})",
                t.nvrtc_version.0, t.nvrtc_version.1, t.nvrtc_library
            );
            let includes: Vec<String> = t
                .include_dirs
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            let _ = writeln!(text, "cccl include: {}", includes.join(":"));
            true
        }
        Err(reason) => {
            let _ = writeln!(text, "nvrtc: unavailable: {reason}");
            false
        }
    }
}

/// The memory pool line, from the options and the first GPU's memory. Opening a context
/// costs ~100 ms on top of cuInit's ~100 ms (measured on an H200), so the pool is
/// described from its configuration, not by opening it.
fn pool_line(text: &mut String, options: &CudaOptions, device_memory: usize) {
    let limit = options
        .memory_limit
        .unwrap_or(device_memory)
        .min(device_memory);
    let _ = writeln!(
        text,
        "memory pool: {} per backend, limit {:.2} GiB{}",
        if options.no_pool {
            "off (plain cuMemAlloc, RAGGED_POOL=off)"
        } else {
            "stream-ordered pool (freed memory kept)"
        },
        limit as f64 / (1u64 << 30) as f64,
        if options.memory_limit.is_some() {
            " (--memory-limit)"
        } else {
            " (device memory)"
        }
    );
}

/// The kernel cache directory (`$RAGGED_KERNEL_CACHE`, `$XDG_CACHE_HOME/ragged/kernels`
/// or `~/.cache/ragged/kernels`), `None` when no base directory is set.
pub fn kernel_cache_dir() -> Option<std::path::PathBuf> {
    ragged_cuda::compile::cache_dir()
}
