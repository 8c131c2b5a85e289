//! Every registered kernel module compiles with NVRTC for sm_80 and sm_90 — no GPU
//! needed. Skipped, with the reason printed, when NVRTC or the CCCL headers are absent;
//! with `RAGGED_REQUIRE_NVRTC=1` (set by `.ci/run` after installing them) a missing
//! toolkit fails the test instead. `RAGGED_COMPILE_ONLY=<text>` compiles only the
//! modules whose name contains the text.

#![allow(clippy::panic, clippy::expect_used, clippy::unwrap_used)] // test code

use ragged_cuda::compile::{compile_cubin, expand_includes, MODULES};

#[test]
fn every_module_compiles_for_sm80_and_sm90() {
    let toolkit = match ragged_cuda::toolkit::toolkit() {
        Ok(t) => t,
        Err(reason) => {
            if std::env::var("RAGGED_REQUIRE_NVRTC").is_ok_and(|v| v == "1") {
                panic!("NVRTC required but unavailable: {reason}");
            }
            eprintln!("skipped: kernel compile check: {reason}");
            return;
        }
    };
    eprintln!(
        "NVRTC {}.{} from {}, includes {:?}",
        toolkit.nvrtc_version.0,
        toolkit.nvrtc_version.1,
        toolkit.nvrtc_library,
        toolkit.include_dirs
    );
    // One NVRTC program per core at a time, as `ragged kernels warmup` compiles.
    // RAGGED_COMPILE_ONLY=<text> keeps the modules whose name contains it (a quick
    // check of one module while editing it).
    let only = std::env::var("RAGGED_COMPILE_ONLY").unwrap_or_default();
    let jobs: Vec<_> = MODULES
        .iter()
        .filter(|m| m.name.contains(only.as_str()))
        .flat_map(|m| [(m, (8, 0)), (m, (9, 0))])
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(1, usize::from);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&(module, arch)) = jobs.get(k) else {
                    break;
                };
                let started = std::time::Instant::now();
                match compile_cubin(module, toolkit, arch) {
                    Ok(cubin) => eprintln!(
                        "compiled {} for sm_{}{}: {} bytes in {:.2?}",
                        module.name,
                        arch.0,
                        arch.1,
                        cubin.len(),
                        started.elapsed()
                    ),
                    Err(e) => failures
                        .lock()
                        .unwrap()
                        .push(format!("{} sm_{}{}: {e}", module.name, arch.0, arch.1)),
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "kernel compile failures:\n{}",
        failures.join("\n")
    );
}

#[test]
fn includes_expand_with_line_markers() {
    for module in MODULES {
        let source = expand_includes(module).unwrap_or_else(|e| panic!("{e}"));
        let body = source
            .strip_prefix(module.defines)
            .unwrap_or_else(|| panic!("{} lost its defines", module.name));
        assert!(body.starts_with(&format!("#line 1 \"kernels/{}.cu\"", module.file)));
        assert!(
            !source.contains("#include \"common/"),
            "{} kept a quoted include",
            module.name
        );
    }
}

#[test]
fn compile_errors_name_our_file_and_line() {
    let Ok(toolkit) = ragged_cuda::toolkit::toolkit() else {
        eprintln!("skipped: NVRTC unavailable");
        return;
    };
    let broken = ragged_cuda::compile::ModuleSource {
        name: "test/broken",
        file: "test/broken",
        defines: "",
        source:
            "#include \"common/ragged.cuh\"\n__global__ void k() {\n  this_is_not_declared();\n}\n",
    };
    let err = compile_cubin(&broken, toolkit, (9, 0)).expect_err("must fail");
    let text = err.to_string();
    assert!(
        text.contains("kernels/test/broken.cu(3)"),
        "log does not name the line: {text}"
    );
}

#[test]
fn a_user_transform_compiles_and_its_errors_name_its_lines() {
    let Ok(toolkit) = ragged_cuda::toolkit::toolkit() else {
        eprintln!("skipped: no NVRTC");
        return;
    };
    let good = "__device__ bool transform(uint64_t row, const ragged::StringInput* inputs, ragged::Writer& out) {\n    if (!inputs[0].valid(row)) return false;\n    out.str(inputs[0].get(row));\n    return true;\n}\n";
    let (module, prefix) = ragged_cuda::compile::user_transform_module(good).unwrap();
    assert!(prefix.starts_with("user_transform_"));
    // The same source gives the same module.
    let (again, _) = ragged_cuda::compile::user_transform_module(good).unwrap();
    assert!(std::ptr::eq(module, again));
    compile_cubin(module, toolkit, (9, 0)).unwrap_or_else(|e| panic!("{e}"));
    let bad = "__device__ bool transform(uint64_t row, const ragged::StringInput* inputs, ragged::Writer& out) {\n    return undefined_name;\n}\n";
    let (module, _) = ragged_cuda::compile::user_transform_module(bad).unwrap();
    match compile_cubin(module, toolkit, (9, 0)) {
        Err(ragged_core::Error::KernelCompile { log, .. }) => {
            assert!(log.contains("transform(2)"), "{log}");
            assert!(log.contains("undefined_name"), "{log}");
        }
        other => panic!("expected KernelCompile, got {other:?}"),
    }
}
