//! Compile every registered kernel module ahead of time, for building into the binary.
//!
//! ```text
//! cargo run --profile dist -p ragged-cuda --example aot -- DIR ARCH...
//! RAGGED_CUDA_KERNELS=DIR cargo build --profile dist -p ragged-cli
//! ```
//!
//! Writes `DIR/<module>.sm_<ARCH>.cubin.zst` (zstd) for every module and architecture
//! (two digits, as in `90`) and `DIR/index.tsv`, which `build.rs` reads when
//! `RAGGED_CUDA_KERNELS` names DIR (see `ragged_cuda::built_in`). Modules compile in
//! parallel, one NVRTC program per core, with NVRTC and the CCCL headers found as the
//! library finds them (`$CUDA_HOME`, …). `scripts/gpu-build.sh` runs both steps.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use ragged_cuda::compile::{built_in_key, compile_cubin, expand_includes, MODULES};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((dir, archs)) = args.split_first().filter(|(_, a)| !a.is_empty()) else {
        eprintln!("usage: aot DIR ARCH...  (e.g. aot target/kernels 80 90)");
        return ExitCode::from(2);
    };
    let mut arches = Vec::new();
    for arch in archs {
        match arch.parse::<i32>().ok().filter(|a| (10..100).contains(a)) {
            Some(a) => arches.push((a / 10, a % 10)),
            None => {
                eprintln!("aot: ARCH is two digits, as in 90: got {arch:?}");
                return ExitCode::from(2);
            }
        }
    }
    let toolkit = match ragged_cuda::toolkit::toolkit() {
        Ok(t) => t,
        Err(reason) => {
            eprintln!("aot: no NVRTC: {reason}");
            return ExitCode::FAILURE;
        }
    };
    let dir = PathBuf::from(dir);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("aot: {}: {e}", dir.display());
        return ExitCode::FAILURE;
    }
    let jobs: Vec<_> = arches
        .iter()
        .flat_map(|&arch| MODULES.iter().map(move |m| (m, arch)))
        .collect();
    let lines: Vec<Mutex<Option<Result<String, String>>>> =
        jobs.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(1, usize::from);
    let started = std::time::Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(module, arch)) = jobs.get(k) else {
                    break;
                };
                let t = std::time::Instant::now();
                let file = format!(
                    "{}.sm_{}{}.cubin.zst",
                    module.name.replace('/', "-"),
                    arch.0,
                    arch.1
                );
                let result = expand_includes(module)
                    .and_then(|source| {
                        compile_cubin(module, toolkit, arch).map(|cubin| (source, cubin))
                    })
                    .map_err(|e| e.to_string())
                    .and_then(|(source, cubin)| {
                        let packed = zstd::stream::encode_all(cubin.as_slice(), 9)
                            .map_err(|e| e.to_string())?;
                        std::fs::write(dir.join(&file), &packed)
                            .map_err(|e| format!("{file}: {e}"))?;
                        eprintln!(
                            "aot: {} sm_{}{}: {} bytes ({} packed) in {:.1?}",
                            module.name,
                            arch.0,
                            arch.1,
                            cubin.len(),
                            packed.len(),
                            t.elapsed()
                        );
                        Ok(format!(
                            "{}\t{}{}\t{}\t{file}\n",
                            module.name,
                            arch.0,
                            arch.1,
                            built_in_key(&source, arch)
                        ))
                    });
                if let Ok(mut slot) = lines[k].lock() {
                    *slot = Some(result);
                }
            });
        }
    });
    let mut index = String::new();
    for (slot, (module, arch)) in lines.into_iter().zip(&jobs) {
        match slot.into_inner().ok().flatten() {
            Some(Ok(line)) => index.push_str(&line),
            Some(Err(e)) => {
                eprintln!("aot: {} sm_{}{}: {e}", module.name, arch.0, arch.1);
                return ExitCode::FAILURE;
            }
            None => {
                eprintln!("aot: {} sm_{}{}: not compiled", module.name, arch.0, arch.1);
                return ExitCode::FAILURE;
            }
        }
    }
    if let Err(e) = std::fs::write(dir.join("index.tsv"), index) {
        eprintln!("aot: index.tsv: {e}");
        return ExitCode::FAILURE;
    }
    eprintln!(
        "aot: {} modules for {} architecture(s) in {:.1?} into {}",
        MODULES.len(),
        arches.len(),
        started.elapsed(),
        dir.display()
    );
    ExitCode::SUCCESS
}
