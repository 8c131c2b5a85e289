//! The disk cache of compiled kernels: a cold cache compiles every module, a warm one
//! loads them all, corrupt entries are recompiled. Alone in its test binary (its own
//! process) because it points `RAGGED_KERNEL_CACHE` at a fresh directory, which would
//! race with any other test loading modules in the same process. Needs a GPU; without
//! one it prints `skipped: <reason>` (or fails when `RAGGED_REQUIRE_CUDA=1`).

#![allow(clippy::panic, clippy::expect_used, clippy::unwrap_used)] // test code

use ragged_cuda::{CudaBackend, CudaOptions, ModuleOrigin};

fn backend(options: CudaOptions) -> Option<CudaBackend> {
    match CudaBackend::new(0, options) {
        Ok(b) => Some(b),
        Err(e) => {
            if std::env::var("RAGGED_REQUIRE_CUDA").is_ok_and(|v| v == "1") {
                panic!("CUDA required (RAGGED_REQUIRE_CUDA=1) but unavailable: {e}");
            }
            eprintln!("skipped: no CUDA device: {e}");
            None
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU: run with --include-ignored (scripts/gpu-run.sh does)"]
fn warmup_compiles_every_module_and_second_load_hits_the_disk_cache() {
    let Some(gpu) = backend(CudaOptions::default()) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("ragged-cache-test-{}", std::process::id()));
    // The only test of this process: nothing else reads RAGGED_KERNEL_CACHE meanwhile.
    // Modules built into the binary are turned off: this is the cache's test.
    std::env::set_var("RAGGED_BUILT_IN_KERNELS", "0");
    let first = {
        std::env::set_var("RAGGED_KERNEL_CACHE", &dir);
        let fresh = CudaBackend::new(0, CudaOptions::default()).unwrap();
        fresh.warmup().unwrap()
    };
    assert!(
        first
            .iter()
            .all(|(_, origin, _)| *origin == ModuleOrigin::Compiled),
        "cold cache must compile: {first:?}"
    );
    let second = CudaBackend::new(0, CudaOptions::default())
        .unwrap()
        .warmup()
        .unwrap();
    assert!(
        second
            .iter()
            .all(|(_, origin, _)| *origin == ModuleOrigin::Cache),
        "warm cache must load: {second:?}"
    );
    // Corrupt every entry: they are recompiled, not fatal.
    for entry in std::fs::read_dir(&dir).unwrap() {
        std::fs::write(entry.unwrap().path(), b"garbage").unwrap();
    }
    let third = CudaBackend::new(0, CudaOptions::default())
        .unwrap()
        .warmup()
        .unwrap();
    assert!(
        third
            .iter()
            .all(|(_, origin, _)| *origin == ModuleOrigin::Compiled),
        "corrupt entries must recompile: {third:?}"
    );
    std::env::remove_var("RAGGED_KERNEL_CACHE");
    std::env::remove_var("RAGGED_BUILT_IN_KERNELS");
    let _ = std::fs::remove_dir_all(&dir);
    drop(gpu);
}
