//! Kernel modules compiled ahead of time and built into the binary.
//!
//! `scripts/gpu-build.sh` compiles every registered module for the architectures it is
//! given (the `aot` example, NVRTC on the build machine) and builds the binaries with
//! `RAGGED_CUDA_KERNELS` naming the result; `build.rs` embeds the zstd-compressed
//! CUBINs. A module is then loaded from the binary when the device's architecture is
//! covered (same major version, minor not above the device's) and the module's key —
//! its expanded source and options, [`crate::compile::built_in_key`] — matches: an
//! edited kernel or `$RAGGED_KERNEL_SOURCES` falls back to NVRTC and the disk cache. A
//! plain `cargo build` embeds nothing. `RAGGED_BUILT_IN_KERNELS=0` ignores the built-in
//! modules.

use crate::compile::built_in_key;

/// One module compiled for one architecture.
pub(crate) struct BuiltIn {
    /// The module's name ([`crate::compile::ModuleSource::name`]).
    pub(crate) module: &'static str,
    /// The architecture it was compiled for.
    pub(crate) arch: (i32, i32),
    /// [`built_in_key`] of the source it was compiled from.
    pub(crate) key: &'static str,
    /// The CUBIN, zstd-compressed.
    pub(crate) zstd: &'static [u8],
}

include!(concat!(env!("OUT_DIR"), "/built_in.rs"));

/// Whether built-in modules are used (`RAGGED_BUILT_IN_KERNELS=0` turns them off).
fn enabled() -> bool {
    !std::env::var("RAGGED_BUILT_IN_KERNELS").is_ok_and(|v| v == "0")
}

/// The architectures this binary carries kernels for, in ascending order.
pub fn architectures() -> Vec<(i32, i32)> {
    let mut archs: Vec<(i32, i32)> = BUILT_IN.iter().map(|b| b.arch).collect();
    archs.sort_unstable();
    archs.dedup();
    archs
}

/// The built-in architecture a device of architecture `device` runs, if any: the
/// highest of the same major version whose minor is not above the device's.
pub fn architecture_for(device: (i32, i32)) -> Option<(i32, i32)> {
    if !enabled() {
        return None;
    }
    covering(&architectures(), device)
}

/// The highest of `archs` with `device`'s major version and a minor not above its.
fn covering(archs: &[(i32, i32)], device: (i32, i32)) -> Option<(i32, i32)> {
    archs
        .iter()
        .copied()
        .filter(|a| a.0 == device.0 && a.1 <= device.1)
        .max()
}

/// The entry of `module` (expanded source `source`) for a device of architecture
/// `device`, when the binary carries it for that source.
fn entry(module: &str, source: &str, device: (i32, i32)) -> Option<&'static BuiltIn> {
    let arch = architecture_for(device)?;
    BUILT_IN
        .iter()
        .find(|b| b.module == module && b.arch == arch)
        .filter(|b| b.key == built_in_key(source, arch))
}

/// Whether the binary carries `module` for this source and device (no decompression).
pub(crate) fn carries(module: &str, source: &str, device: (i32, i32)) -> bool {
    entry(module, source, device).is_some()
}

/// The CUBIN of `module` (expanded source `source`) for a device of architecture
/// `device`, when the binary carries it for that source; `None` otherwise (or when it
/// does not decompress, which only a damaged binary causes: NVRTC then compiles it).
pub(crate) fn cubin(module: &str, source: &str, device: (i32, i32)) -> Option<Vec<u8>> {
    zstd::stream::decode_all(entry(module, source, device)?.zstd).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_runs_the_highest_built_in_minor_of_its_major_version() {
        let archs = [(8, 0), (8, 6), (9, 0)];
        assert_eq!(covering(&archs, (8, 0)), Some((8, 0)));
        assert_eq!(covering(&archs, (8, 9)), Some((8, 6)));
        assert_eq!(covering(&archs, (9, 0)), Some((9, 0)));
        assert_eq!(covering(&archs, (7, 5)), None);
        assert_eq!(covering(&archs, (10, 0)), None);
        assert_eq!(covering(&[], (9, 0)), None);
    }

    #[test]
    fn a_module_whose_source_changed_is_not_taken_from_the_binary() {
        for entry in BUILT_IN {
            assert!(cubin(entry.module, "// edited\n", entry.arch).is_none());
        }
        assert!(cubin("no/such/module", "", (9, 0)).is_none());
    }
}
