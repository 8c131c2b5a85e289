//! Compile kernel modules to CUBIN files without a GPU, to read their SASS and
//! registers (CONTRIBUTING: inspecting kernels without a GPU).
//!
//! ```text
//! cargo run --profile dist -p ragged-cuda --example cubin -- NAME [ARCH] [DIR]
//! ```
//!
//! Writes `DIR/<module>.sm_<ARCH>.cubin` (module names with `/` as `-`) for every
//! registered module whose name contains NAME; ARCH defaults to 90, DIR to `.`. Uses
//! NVRTC and the CCCL headers as the library does (`$CUDA_HOME`, …) and
//! `$RAGGED_KERNEL_SOURCES` when set, so a kernel variant compiles as it would run.

use std::path::PathBuf;
use std::process::ExitCode;

use ragged_cuda::compile::{compile_cubin, MODULES};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(name) = args.first() else {
        eprintln!("usage: cubin NAME [ARCH] [DIR]  (e.g. cubin strings/search 90 /tmp)");
        return ExitCode::from(2);
    };
    let arch = args.get(1).map_or("90", String::as_str);
    let Some((major, minor)) = arch
        .parse::<i32>()
        .ok()
        .filter(|a| *a >= 10)
        .map(|a| (a / 10, a % 10))
    else {
        eprintln!("cubin: ARCH is two digits, as in sm_90: got {arch:?}");
        return ExitCode::from(2);
    };
    let dir = PathBuf::from(args.get(2).map_or(".", String::as_str));
    let toolkit = match ragged_cuda::toolkit::toolkit() {
        Ok(t) => t,
        Err(reason) => {
            eprintln!("cubin: no NVRTC: {reason}");
            return ExitCode::FAILURE;
        }
    };
    let mut written = 0;
    for module in MODULES.iter().filter(|m| m.name.contains(name.as_str())) {
        let path = dir.join(format!(
            "{}.sm_{major}{minor}.cubin",
            module.name.replace('/', "-")
        ));
        let result = compile_cubin(module, toolkit, (major, minor))
            .map_err(|e| e.to_string())
            .and_then(|cubin| std::fs::write(&path, cubin).map_err(|e| e.to_string()));
        match result {
            Ok(()) => {
                println!("{}", path.display());
                written += 1;
            }
            Err(e) => {
                eprintln!("cubin: {}: {e}", module.name);
                return ExitCode::FAILURE;
            }
        }
    }
    if written == 0 {
        eprintln!("cubin: no module name contains {name:?}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
