//! Finding the CUDA toolkit pieces ragged needs at run time: NVRTC (and its builtins
//! library) and the CCCL headers.
//!
//! Search order for a toolkit root: `$RAGGED_CUDA_HOME`, `$CUDA_HOME`, `$CUDA_PATH`,
//! `/usr/local/cuda`, then the parent of the directory holding `nvcc` on `PATH`. NVRTC
//! is first looked up by the dynamic loader (the names cudarc uses); when that fails it
//! is preloaded by absolute path from `<root>/lib64` or `<root>/lib` (the loader then
//! matches cudarc's later `dlopen` by soname). Headers: `$RAGGED_CUDA_INCLUDE` (a
//! `:`-separated list) overrides; otherwise `<root>/include/cccl` and `<root>/include`.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// What was found of the toolkit.
#[derive(Clone, Debug)]
pub struct Toolkit {
    /// Where NVRTC was loaded from (a path, or a bare name found by the loader).
    pub nvrtc_library: String,
    /// NVRTC's version (major, minor).
    pub nvrtc_version: (i32, i32),
    /// Include directories passed to NVRTC (CCCL first).
    pub include_dirs: Vec<PathBuf>,
}

/// Locate NVRTC and the headers once per process.
///
/// # Errors
/// A one-line reason when NVRTC or the CCCL headers cannot be found.
pub fn toolkit() -> Result<&'static Toolkit, String> {
    static TOOLKIT: OnceLock<Result<Toolkit, String>> = OnceLock::new();
    TOOLKIT
        .get_or_init(|| {
            match ragged_core::trace::timed("toolkit (NVRTC, headers)", || {
                std::panic::catch_unwind(find_toolkit)
            }) {
                Ok(r) => r,
                Err(_) => Err("NVRTC panicked while being loaded".into()),
            }
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// Candidate toolkit roots, in search order.
pub fn toolkit_roots() -> Vec<PathBuf> {
    let mut roots = Vec::new();
    for var in ["RAGGED_CUDA_HOME", "CUDA_HOME", "CUDA_PATH"] {
        if let Some(v) = std::env::var_os(var).filter(|v| !v.is_empty()) {
            roots.push(PathBuf::from(v));
        }
    }
    roots.push(PathBuf::from("/usr/local/cuda"));
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            if dir.join("nvcc").is_file() {
                if let Some(parent) = dir.parent() {
                    roots.push(parent.to_path_buf());
                }
            }
        }
    }
    roots
}

fn find_toolkit() -> Result<Toolkit, String> {
    let roots = toolkit_roots();
    let nvrtc_library = load_nvrtc(&roots)?;
    let nvrtc_version = nvrtc_version()?;
    let include_dirs = find_includes(&roots)?;
    Ok(Toolkit {
        nvrtc_library,
        nvrtc_version,
        include_dirs,
    })
}

/// Make NVRTC loadable by cudarc, returning where it came from.
fn load_nvrtc(roots: &[PathBuf]) -> Result<String, String> {
    // Roots named explicitly by the environment win over whatever the loader finds.
    let explicit = roots
        .iter()
        .take_while(|r| r.as_path() != Path::new("/usr/local/cuda"));
    for root in explicit {
        if let Some(path) = preload_from(root) {
            return Ok(path);
        }
    }
    for name in cudarc::get_lib_name_candidates("nvrtc") {
        // SAFETY: loading NVRTC runs only its own initializers.
        if let Ok(lib) = unsafe { libloading::Library::new(&name) } {
            std::mem::forget(lib);
            return Ok(name);
        }
    }
    for root in roots {
        if let Some(path) = preload_from(root) {
            return Ok(path);
        }
    }
    Err(format!(
        "NVRTC (libnvrtc.so) not found by the loader nor under {}; set CUDA_HOME",
        roots
            .iter()
            .map(|r| r.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// Preload libnvrtc-builtins and libnvrtc from `<root>/lib64` or `<root>/lib`, globally,
/// so that later `dlopen`s by soname resolve to them.
fn preload_from(root: &Path) -> Option<String> {
    for lib_dir in [root.join("lib64"), root.join("lib")] {
        let Ok(entries) = std::fs::read_dir(&lib_dir) else {
            continue;
        };
        let mut names: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        names.sort();
        let find = |prefix: &str| {
            names.iter().find(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(prefix) && n.contains(".so"))
            })
        };
        let Some(nvrtc) = find("libnvrtc.so") else {
            continue;
        };
        if let Some(builtins) = find("libnvrtc-builtins.so") {
            let _ = open_global(builtins);
        }
        if open_global(nvrtc) {
            return Some(nvrtc.display().to_string());
        }
    }
    None
}

fn open_global(path: &Path) -> bool {
    use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};
    // SAFETY: loading a shared library by absolute path runs only its initializers.
    match unsafe { Library::open(Some(path), RTLD_NOW | RTLD_GLOBAL) } {
        Ok(lib) => {
            std::mem::forget(lib);
            true
        }
        Err(_) => false,
    }
}

fn nvrtc_version() -> Result<(i32, i32), String> {
    let (mut major, mut minor) = (0, 0);
    // SAFETY: nvrtcVersion writes two ints; the library is loaded (cudarc opens it by
    // the same names the preload registered).
    let rc = unsafe { cudarc::nvrtc::sys::nvrtcVersion(&mut major, &mut minor) };
    if rc != cudarc::nvrtc::sys::nvrtcResult::NVRTC_SUCCESS {
        return Err(format!("nvrtcVersion failed: {rc:?}"));
    }
    Ok((major, minor))
}

fn find_includes(roots: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    if let Some(dirs) = std::env::var_os("RAGGED_CUDA_INCLUDE").filter(|v| !v.is_empty()) {
        return Ok(std::env::split_paths(&dirs).collect());
    }
    for root in roots {
        let include = root.join("include");
        let cccl = include.join("cccl");
        if cccl.join("cub").is_dir() {
            return Ok(vec![cccl, include]);
        }
        if include.join("cub").is_dir() {
            return Ok(vec![include]);
        }
    }
    Err(format!(
        "CCCL headers (cub/) not found under {}; set CUDA_HOME or RAGGED_CUDA_INCLUDE",
        roots
            .iter()
            .map(|r| format!("{}/include[/cccl]", r.display()))
            .collect::<Vec<_>>()
            .join(", ")
    ))
}
