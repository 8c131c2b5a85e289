//! Kernel modules: the registry of CUDA C++ sources, NVRTC compilation to CUBIN for
//! the device's exact architecture, and the on-disk cache.
//!
//! Every `.cu` file under `kernels/` is one module, embedded with `include_str!`.
//! Quoted includes of our own headers (`#include "common/ragged.cuh"`) are expanded
//! here, with `#line` markers, so NVRTC's messages name our files and lines; angle
//! includes (`<cub/...>`) are resolved by NVRTC from the toolkit's CCCL headers.
//!
//! Cache: `$RAGGED_KERNEL_CACHE`, else `$XDG_CACHE_HOME/ragged/kernels`, else
//! `~/.cache/ragged/kernels`. The key hashes the expanded source, the options, the NVRTC
//! version and the architecture. Entries carry a length and checksum header and are
//! written to a temporary file and renamed; a corrupt entry is recompiled, never fatal.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ffi::{CStr, CString};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use ragged_core::{Error, Result};

use crate::toolkit::Toolkit;

/// One kernel module: a `.cu` file under `kernels/`, or one variant of it (the file
/// compiled with a few macros defined, so that a large family of instantiations is
/// split into modules that compile — and load — separately).
#[derive(Clone, Copy, Debug)]
pub struct ModuleSource {
    /// The module's unique name: the file's path under `kernels/` without the
    /// extension (e.g. `primitives/reduce`), followed by `.variant` for a variant.
    pub name: &'static str,
    /// The path under `kernels/` without the extension.
    pub file: &'static str,
    /// Source lines placed before the file (the variant's `#define`s); empty for a
    /// plain module.
    pub defines: &'static str,
    /// The CUDA C++ source.
    pub source: &'static str,
}

macro_rules! module {
    ($file:literal) => {
        ModuleSource {
            name: $file,
            file: $file,
            defines: "",
            source: include_str!(concat!("../kernels/", $file, ".cu")),
        }
    };
    ($file:literal, $variant:literal, $defines:literal) => {
        ModuleSource {
            name: concat!($file, ".", $variant),
            file: $file,
            defines: $defines,
            source: include_str!(concat!("../kernels/", $file, ".cu")),
        }
    };
}

/// Offsets validation on the device (`Memory::validate_offsets`).
pub const VALIDATE_OFFSETS: ModuleSource = module!("common/validate_offsets");
/// `reduce_sum` and the other reductions.
pub const PRIMITIVES_REDUCE: ModuleSource = module!("primitives/reduce");
/// `scan_*` and `sizes_to_offsets`.
pub const PRIMITIVES_SCAN: ModuleSource = module!("primitives/scan");
/// `select_mask` and `select_if`.
pub const PRIMITIVES_SELECT: ModuleSource = module!("primitives/select");
/// `segmented_*`.
pub const PRIMITIVES_SEGMENTED_REDUCE: ModuleSource = module!("primitives/segmented_reduce");
/// Packing validity flags into bitmaps.
pub const BITMAP: ModuleSource = module!("common/bitmap");
/// `length` and `length_bytes` of strings.
pub const STRINGS_LENGTH: ModuleSource = module!("strings/length");
/// The literal searches of strings (`search_contains_*`, `search_find_*`, …).
pub const STRINGS_SEARCH: ModuleSource = module!("strings/search");
/// `like`: SQL LIKE matching against compiled tokens.
pub const STRINGS_LIKE: ModuleSource = module!("strings/like");
/// `slice_chars` / `slice_bytes`: the `Slice` functor (one pass, or two).
pub const STRINGS_SLICE: ModuleSource = module!("strings/slice");
/// The strings transforms (one pass, or two): `copy_if_else`, `concatenate`, `redact`,
/// the per-row rewrites, `join`, `append`.
pub const STRINGS_TRANSFORM: ModuleSource = module!("strings/transform");
/// `split` / `rsplit`: each row's parts.
pub const STRINGS_SPLIT: ModuleSource = module!("strings/split");
/// `tensor_sketch`: chunk items in the Fourier domain, then the per-sequence finish.
pub const SEQUENCES_TENSOR_SKETCH: ModuleSource = module!("sequences/tensor_sketch");
/// `pairwise_distances`: tiled squared L2 distances between sketches.
pub const SEQUENCES_PAIRWISE_DISTANCES: ModuleSource = module!("sequences/pairwise_distances");
/// Row lengths from offsets: `length_bytes` of strings and `counts` of lists.
pub const OFFSET_LENGTHS: ModuleSource = module!("common/offset_lengths");
/// `line_ends` and `count_lines`: the tiled delimiter scan.
pub const TEXT_LINE_ENDS: ModuleSource = module!("text/line_ends");
/// `split_lines`: offsets, gather and UTF-8 check of the records column.
pub const TEXT_SPLIT_LINES: ModuleSource = module!("text/split_lines");
/// `compact_offsets` (starts/stops → offsets, with the list checks) and the counts →
/// offsets scan of `unflatten`.
pub const LISTS_COMPACT_OFFSETS: ModuleSource = module!("lists/compact_offsets");
/// The load-balanced gathers of `to_compact`, `flatten` and `local_index`, and bitmap
/// null counts.
pub const LISTS_GATHER: ModuleSource = module!("lists/gather");
/// `get` and `slice` of lists.
pub const LISTS_GET: ModuleSource = module!("lists/get");
/// The per-list reductions: `list_plan`, `list_count` and `list_any_all` (variant
/// `shared`), and `list_sum`, `list_prod`, `list_min`, … in six variants, one per
/// offset width and group of element types (see [`lists_reduce_module`]).
pub const LISTS_REDUCE: ModuleSource = module!(
    "lists/reduce",
    "shared",
    "#define RAGGED_LISTS_REDUCE_SHARED 1\n"
);
/// The typed per-list reductions, by offset width (i32, i64) and element group: 8- and
/// 16-bit integers, 32- and 64-bit integers, floats.
pub const LISTS_REDUCE_TYPED: [ModuleSource; 6] = [
    module!(
        "lists/reduce",
        "i32-narrow",
        "#define RAGGED_LISTS_REDUCE_OFFSET 32\n#define RAGGED_LISTS_REDUCE_VALUES 1\n"
    ),
    module!(
        "lists/reduce",
        "i32-wide",
        "#define RAGGED_LISTS_REDUCE_OFFSET 32\n#define RAGGED_LISTS_REDUCE_VALUES 2\n"
    ),
    module!(
        "lists/reduce",
        "i32-float",
        "#define RAGGED_LISTS_REDUCE_OFFSET 32\n#define RAGGED_LISTS_REDUCE_VALUES 3\n"
    ),
    module!(
        "lists/reduce",
        "i64-narrow",
        "#define RAGGED_LISTS_REDUCE_OFFSET 64\n#define RAGGED_LISTS_REDUCE_VALUES 1\n"
    ),
    module!(
        "lists/reduce",
        "i64-wide",
        "#define RAGGED_LISTS_REDUCE_OFFSET 64\n#define RAGGED_LISTS_REDUCE_VALUES 2\n"
    ),
    module!(
        "lists/reduce",
        "i64-float",
        "#define RAGGED_LISTS_REDUCE_OFFSET 64\n#define RAGGED_LISTS_REDUCE_VALUES 3\n"
    ),
];

/// The variant of `lists/reduce` holding the typed reductions for offsets named
/// `offset` (`i32`, `i64`) and elements named `element` (`i8` … `f64`).
pub fn lists_reduce_module(offset: &str, element: &str) -> &'static ModuleSource {
    let group = match element {
        "i8" | "u8" | "i16" | "u16" => 0,
        "i32" | "u32" | "i64" | "u64" => 1,
        _ => 2,
    };
    let width = if offset == "i64" { 3 } else { 0 };
    &LISTS_REDUCE_TYPED[width + group]
}

/// Every registered module (compiled by `ragged kernels warmup` and the compile check).
pub const MODULES: &[ModuleSource] = &[
    VALIDATE_OFFSETS,
    BITMAP,
    PRIMITIVES_REDUCE,
    PRIMITIVES_SCAN,
    PRIMITIVES_SELECT,
    PRIMITIVES_SEGMENTED_REDUCE,
    STRINGS_LENGTH,
    STRINGS_SEARCH,
    STRINGS_SLICE,
    STRINGS_LIKE,
    STRINGS_TRANSFORM,
    STRINGS_SPLIT,
    OFFSET_LENGTHS,
    TEXT_LINE_ENDS,
    TEXT_SPLIT_LINES,
    LISTS_COMPACT_OFFSETS,
    LISTS_GATHER,
    LISTS_GET,
    LISTS_REDUCE,
    LISTS_REDUCE_TYPED[0],
    LISTS_REDUCE_TYPED[1],
    LISTS_REDUCE_TYPED[2],
    LISTS_REDUCE_TYPED[3],
    LISTS_REDUCE_TYPED[4],
    LISTS_REDUCE_TYPED[5],
    SEQUENCES_TENSOR_SKETCH,
    SEQUENCES_PAIRWISE_DISTANCES,
];

/// The modules compiled from user transforms, by source: each is built (and its
/// source leaked, as every registered module's is `'static`) once per process.
static USER_MODULES: Mutex<BTreeMap<String, &'static ModuleSource>> = Mutex::new(BTreeMap::new());

/// The module of a user transform (`CudaBackend::transform_strings`) and its
/// entry points' prefix (`<prefix>_sizes`, `<prefix>_fill_i32`, `<prefix>_fill_i64`):
/// `source`, which defines `transform`, under the name `transform` for NVRTC's
/// messages, wrapped into a functor for the two-pass helper.
///
/// # Errors
/// [`Error::Device`] when the registry's lock is poisoned.
pub fn user_transform_module(source: &str) -> Result<(&'static ModuleSource, String)> {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    source.hash(&mut hasher);
    let prefix = format!("user_transform_{:016x}", hasher.finish());
    let mut modules = USER_MODULES.lock().map_err(|_| Error::Device {
        op: "transform_strings",
        message: "the user module registry is poisoned".into(),
    })?;
    if let Some(module) = modules.get(source) {
        return Ok((module, prefix));
    }
    let text = format!(
        "#include \"common/two_pass.cuh\"\n#line 1 \"transform\"\n{source}\n\
         struct UserTransform {{\n    const ragged::StringInput* inputs;\n    \
         __device__ bool operator()(uint64_t row, ragged::Writer& w) const {{ return transform(row, inputs, w); }}\n}};\n\
         RAGGED_TWO_PASS(UserTransform, {prefix})\n"
    );
    let name: &'static str = Box::leak(format!("user/{prefix}").into_boxed_str());
    let module: &'static ModuleSource = Box::leak(Box::new(ModuleSource {
        name,
        file: name,
        defines: "",
        source: Box::leak(text.into_boxed_str()),
    }));
    modules.insert(source.to_string(), module);
    Ok((module, prefix))
}

/// Our headers, by include name.
const HEADERS: &[(&str, &str)] = &[
    (
        "common/ragged.cuh",
        include_str!("../kernels/common/ragged.cuh"),
    ),
    (
        "common/primitives.cuh",
        include_str!("../kernels/common/primitives.cuh"),
    ),
    (
        "common/scan.cuh",
        include_str!("../kernels/common/scan.cuh"),
    ),
    (
        "common/segmented.cuh",
        include_str!("../kernels/common/segmented.cuh"),
    ),
    (
        "common/segmented_tiles.cuh",
        include_str!("../kernels/common/segmented_tiles.cuh"),
    ),
    (
        "common/strings.cuh",
        include_str!("../kernels/common/strings.cuh"),
    ),
    (
        "common/one_pass.cuh",
        include_str!("../kernels/common/one_pass.cuh"),
    ),
    (
        "common/tiles.cuh",
        include_str!("../kernels/common/tiles.cuh"),
    ),
    (
        "common/two_pass.cuh",
        include_str!("../kernels/common/two_pass.cuh"),
    ),
];

/// The module's source: its variant's defines, then the file with our quoted includes
/// expanded (each header once) and `#line` markers naming `kernels/<file>`.
///
/// # Errors
/// [`Error::KernelCompile`] when a quoted include names no registered header.
pub fn expand_includes(module: &ModuleSource) -> Result<String> {
    let mut out = module.defines.to_string();
    let mut seen = Vec::new();
    // Kernel development: a copy of `kernels/` whose files replace the embedded ones.
    let sources = std::env::var_os("RAGGED_KERNEL_SOURCES")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from);
    let sources = sources.as_deref();
    let file = format!("{}.cu", module.file);
    let source = source_text(sources, &file, module.source, module)?;
    expand_into(sources, &file, &source, &mut out, &mut seen, module)?;
    Ok(out)
}

/// The text of `kernels/<file>`: the embedded copy, or — for kernel development, when
/// `sources` (`$RAGGED_KERNEL_SOURCES`) names a copy of the `kernels/` directory — the
/// file of that name there where it exists, so that kernel variants can be compared
/// with one build of the binaries (the cache key hashes the expanded text: variants
/// never share entries).
///
/// # Errors
/// [`Error::KernelCompile`] when the override file exists but cannot be read.
fn source_text<'a>(
    sources: Option<&Path>,
    file: &str,
    embedded: &'a str,
    module: &ModuleSource,
) -> Result<Cow<'a, str>> {
    let Some(dir) = sources else {
        return Ok(Cow::Borrowed(embedded));
    };
    let path = dir.join(file);
    if !path.exists() {
        return Ok(Cow::Borrowed(embedded));
    }
    std::fs::read_to_string(&path)
        .map(Cow::Owned)
        .map_err(|e| Error::KernelCompile {
            module: module.name.into(),
            log: format!("{}: {e}", path.display()),
        })
}

fn expand_into(
    sources: Option<&Path>,
    file: &str,
    source: &str,
    out: &mut String,
    seen: &mut Vec<&'static str>,
    module: &ModuleSource,
) -> Result<()> {
    out.push_str(&format!("#line 1 \"kernels/{file}\"\n"));
    for (number, line) in source.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#pragma once") {
            out.push('\n');
            continue;
        }
        let quoted = trimmed
            .strip_prefix("#include")
            .map(str::trim)
            .and_then(|rest| rest.strip_prefix('"'))
            .and_then(|rest| rest.split('"').next());
        match quoted {
            Some(name) => {
                let Some((header_name, header)) = HEADERS.iter().find(|(n, _)| *n == name) else {
                    return Err(Error::KernelCompile {
                        module: module.name.into(),
                        log: format!("kernels/{file}:{}: unknown header \"{name}\"", number + 1),
                    });
                };
                if !seen.contains(header_name) {
                    seen.push(header_name);
                    let text = source_text(sources, header_name, header, module)?;
                    expand_into(sources, header_name, &text, out, seen, module)?;
                }
                out.push_str(&format!("#line {} \"kernels/{file}\"\n", number + 2));
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    Ok(())
}

/// The NVRTC options for an architecture (`sm_XY`) that do not depend on where the
/// toolkit is: the part of the options a built-in kernel's key covers.
pub fn base_options(arch: (i32, i32)) -> Vec<String> {
    vec![
        format!("--gpu-architecture=sm_{}{}", arch.0, arch.1),
        "-std=c++17".to_string(),
        "--device-int128".to_string(),
        "-default-device".to_string(),
        "-DCCCL_DISABLE_BF16_SUPPORT".to_string(),
        "-DCCCL_DISABLE_FP16_SUPPORT".to_string(),
    ]
}

/// The NVRTC options for an architecture (`sm_XY`): [`base_options`] and the
/// toolkit's include directories.
pub fn compile_options(toolkit: &Toolkit, arch: (i32, i32)) -> Vec<String> {
    let mut options = base_options(arch);
    for dir in &toolkit.include_dirs {
        options.push(format!("-I{}", dir.display()));
    }
    options
}

/// The key under which a module compiled ahead of time for `arch` is built into the
/// binary (`crate::built_in`): 32 hex digits hashing the expanded source and
/// [`base_options`]. A module whose source changed since (an edited kernel,
/// `$RAGGED_KERNEL_SOURCES`) has another key and is compiled at run time instead.
pub fn built_in_key(source: &str, arch: (i32, i32)) -> String {
    let meta = format!("{:?}", base_options(arch));
    let parts: [&[u8]; 2] = [source.as_bytes(), meta.as_bytes()];
    format!("{:016x}{:016x}", fnv1a(3, &parts), fnv1a(4, &parts))
}

/// Compile a module to CUBIN for `arch` with NVRTC (no cache involved).
///
/// # Errors
/// [`Error::KernelCompile`] with NVRTC's log (naming `kernels/<file>:<line>`).
pub fn compile_cubin(
    module: &ModuleSource,
    toolkit: &Toolkit,
    arch: (i32, i32),
) -> Result<Vec<u8>> {
    CompileJob::new(module, toolkit, arch)?.nvrtc()
}

/// One module prepared for one architecture: its expanded source, the NVRTC options
/// and its disk-cache file, computed once.
pub struct CompileJob<'a> {
    module: &'a ModuleSource,
    source: String,
    options: Vec<String>,
    cache: Option<PathBuf>,
}

impl<'a> CompileJob<'a> {
    /// Prepare `module` for `arch`.
    ///
    /// # Errors
    /// [`Error::KernelCompile`] when a quoted include names no registered header.
    pub fn new(module: &'a ModuleSource, toolkit: &Toolkit, arch: (i32, i32)) -> Result<Self> {
        Ok(Self::with_source(
            module,
            expand_includes(module)?,
            toolkit,
            arch,
        ))
    }

    /// Prepare `module` for `arch`, given its expanded source ([`expand_includes`]).
    pub fn with_source(
        module: &'a ModuleSource,
        source: String,
        toolkit: &Toolkit,
        arch: (i32, i32),
    ) -> Self {
        let options = compile_options(toolkit, arch);
        let cache = cache_dir()
            .map(|d| cache_path(&d, module, &source, &options, toolkit.nvrtc_version, arch));
        Self {
            module,
            source,
            options,
            cache,
        }
    }

    /// The CUBIN from the disk cache, `None` when absent or corrupt.
    pub fn cached(&self) -> Option<Vec<u8>> {
        self.cache.as_deref().and_then(cache_read)
    }

    /// Compile with NVRTC and store the result in the disk cache.
    ///
    /// # Errors
    /// [`Error::KernelCompile`] with NVRTC's log.
    pub fn compile(&self) -> Result<Vec<u8>> {
        let cubin = self.nvrtc()?;
        if let Some(path) = &self.cache {
            cache_write(path, &cubin);
        }
        Ok(cubin)
    }

    fn nvrtc(&self) -> Result<Vec<u8>> {
        let fail = |log: String| Error::KernelCompile {
            module: self.module.name.into(),
            log,
        };
        match std::panic::catch_unwind(|| {
            nvrtc_compile(self.module.name, &self.source, &self.options)
        }) {
            Ok(result) => result.map_err(fail),
            Err(_) => Err(fail("NVRTC panicked".into())),
        }
    }
}

fn nvrtc_compile(
    name: &str,
    source: &str,
    options: &[String],
) -> std::result::Result<Vec<u8>, String> {
    use cudarc::nvrtc::sys;
    let src = CString::new(source).map_err(|_| "source contains NUL".to_string())?;
    let file = CString::new(format!("{name}.cu")).map_err(|_| "bad module name".to_string())?;
    let opts: Vec<CString> = options
        .iter()
        .filter_map(|o| CString::new(o.as_str()).ok())
        .collect();
    let opt_ptrs: Vec<*const std::ffi::c_char> = opts.iter().map(|o| o.as_ptr()).collect();
    let mut prog: sys::nvrtcProgram = std::ptr::null_mut();
    // SAFETY: src and file are NUL-terminated and outlive the call; no headers passed.
    let rc = unsafe {
        sys::nvrtcCreateProgram(
            &mut prog,
            src.as_ptr(),
            file.as_ptr(),
            0,
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    if rc != sys::nvrtcResult::NVRTC_SUCCESS {
        return Err(format!("nvrtcCreateProgram failed: {rc:?}"));
    }
    // SAFETY: prog is a live program; opt_ptrs point into `opts`, alive for the call.
    let rc = unsafe { sys::nvrtcCompileProgram(prog, opt_ptrs.len() as i32, opt_ptrs.as_ptr()) };
    let result = if rc == sys::nvrtcResult::NVRTC_SUCCESS {
        let mut size = 0usize;
        // SAFETY: prog compiled successfully; writes one size.
        let rc = unsafe { sys::nvrtcGetCUBINSize(prog, &mut size) };
        let mut cubin = vec![0u8; size];
        // SAFETY: the buffer holds `size` bytes as NVRTC reported.
        let rc2 = unsafe { sys::nvrtcGetCUBIN(prog, cubin.as_mut_ptr().cast()) };
        if rc == sys::nvrtcResult::NVRTC_SUCCESS
            && rc2 == sys::nvrtcResult::NVRTC_SUCCESS
            && size > 0
        {
            Ok(cubin)
        } else {
            Err(format!(
                "NVRTC produced no CUBIN ({rc:?}, {rc2:?}); is the architecture a real sm_XY?"
            ))
        }
    } else {
        Err(program_log(prog))
    };
    // SAFETY: prog is live and destroyed exactly once.
    unsafe { sys::nvrtcDestroyProgram(&mut prog) };
    result
}

fn program_log(prog: cudarc::nvrtc::sys::nvrtcProgram) -> String {
    use cudarc::nvrtc::sys;
    let mut size = 0usize;
    // SAFETY: prog is live; writes one size.
    unsafe { sys::nvrtcGetProgramLogSize(prog, &mut size) };
    let mut log = vec![0u8; size.max(1)];
    // SAFETY: the buffer holds `size` bytes.
    unsafe { sys::nvrtcGetProgramLog(prog, log.as_mut_ptr().cast()) };
    CStr::from_bytes_until_nul(&log)
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|_| String::from_utf8_lossy(&log).into_owned())
}

// ---- disk cache ---------------------------------------------------------------------

const CACHE_MAGIC: &[u8; 12] = b"RAGGEDCUBIN1";

/// The kernel cache directory (it may not exist yet).
pub fn cache_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("RAGGED_KERNEL_CACHE").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(dir).join("ragged").join("kernels"));
    }
    std::env::var_os("HOME")
        .filter(|v| !v.is_empty())
        .map(|home| {
            PathBuf::from(home)
                .join(".cache")
                .join("ragged")
                .join("kernels")
        })
}

/// 64-bit FNV-1a, seeded; two seeds make the 128-bit cache key.
fn fnv1a(seed: u64, parts: &[&[u8]]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ seed;
    for part in parts {
        for &b in *part {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h ^= 0xff;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The cache file of a module for these options, NVRTC version and architecture.
pub fn cache_path(
    dir: &Path,
    module: &ModuleSource,
    source: &str,
    options: &[String],
    nvrtc: (i32, i32),
    arch: (i32, i32),
) -> PathBuf {
    let meta = format!(
        "{options:?}|nvrtc {}.{}|sm_{}{}",
        nvrtc.0, nvrtc.1, arch.0, arch.1
    );
    let parts: [&[u8]; 2] = [source.as_bytes(), meta.as_bytes()];
    let key = format!("{:016x}{:016x}", fnv1a(1, &parts), fnv1a(2, &parts));
    dir.join(format!(
        "{}-sm{}{}-{key}.cubin",
        module.name.replace('/', "-"),
        arch.0,
        arch.1
    ))
}

/// Read a cache entry; `None` when missing or corrupt (length or checksum mismatch).
pub fn cache_read(path: &Path) -> Option<Vec<u8>> {
    let bytes = std::fs::read(path).ok()?;
    let header = CACHE_MAGIC.len() + 16;
    if bytes.len() < header || &bytes[..CACHE_MAGIC.len()] != CACHE_MAGIC {
        return None;
    }
    let len = u64::from_le_bytes(bytes[12..20].try_into().ok()?) as usize;
    let sum = u64::from_le_bytes(bytes[20..28].try_into().ok()?);
    let payload = &bytes[header..];
    (payload.len() == len && fnv1a(0, &[payload]) == sum).then(|| payload.to_vec())
}

/// Write a cache entry atomically (temporary file + rename). Failures are ignored: the
/// cache is an optimization.
pub fn cache_write(path: &Path, cubin: &[u8]) {
    let Some(dir) = path.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("entry"),
        std::process::id()
    ));
    let mut bytes = Vec::with_capacity(cubin.len() + 28);
    bytes.extend_from_slice(CACHE_MAGIC);
    bytes.extend_from_slice(&(cubin.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&fnv1a(0, &[cubin]).to_le_bytes());
    bytes.extend_from_slice(cubin);
    if std::fs::write(&tmp, &bytes).is_ok() && std::fs::rename(&tmp, path).is_ok() {
        return;
    }
    let _ = std::fs::remove_file(&tmp);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_sources_override_files_that_exist_and_keep_the_others() {
        let dir =
            std::env::temp_dir().join(format!("ragged-kernel-sources-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("strings")).unwrap();
        std::fs::write(dir.join("strings/like.cu"), "// variant\n").unwrap();
        let module = &STRINGS_LIKE;
        let over = source_text(Some(&dir), "strings/like.cu", module.source, module).unwrap();
        assert_eq!(over, "// variant\n");
        let kept = source_text(Some(&dir), "common/ragged.cuh", "embedded", module).unwrap();
        assert_eq!(kept, "embedded");
        let none = source_text(None, "strings/like.cu", module.source, module).unwrap();
        assert_eq!(none, module.source);
        // An override that exists but is no file is an error naming it.
        std::fs::create_dir_all(dir.join("strings/search.cu")).unwrap();
        let err = source_text(Some(&dir), "strings/search.cu", "", module).unwrap_err();
        assert!(err.to_string().contains("search.cu"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
