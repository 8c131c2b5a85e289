//! With a stub or broken `libcuda` on the library path, every command still works on
//! the CPU or gives a clear error, and nothing panics. The fake driver libraries are
//! built from C at test time with the system C compiler (skipped, with the reason
//! printed, when there is none).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

use std::path::{Path, PathBuf};
use std::process::Command;

/// A stub exporting the probe's entry points, whose `cuInit` fails as the toolkit's
/// stub library does (CUDA_ERROR_STUB_LIBRARY = 34).
const STUB: &str = r#"
int cuInit(unsigned f) { (void)f; return 34; }
int cuDriverGetVersion(int* v) { *v = 13000; return 0; }
int cuDeviceGetCount(int* n) { *n = 1; return 0; }
int cuDeviceGet(int* d, int o) { *d = o; return 0; }
int cuDeviceGetName(char* s, int l, int d) { (void)l; (void)d; s[0] = 0; return 0; }
int cuDeviceTotalMem_v2(unsigned long* b, int d) { (void)d; *b = 1; return 0; }
int cuDeviceGetAttribute(int* v, int a, int d) { (void)a; (void)d; *v = 1; return 0; }
int cuGetErrorName(int c, const char** s) { (void)c; *s = "CUDA_ERROR_STUB_LIBRARY"; return 0; }
"#;

/// A library whose `cuInit` succeeds and reports a device, but which lacks most of the
/// driver API (a broken install).
const PARTIAL: &str = r#"
int cuInit(unsigned f) { (void)f; return 0; }
int cuDriverGetVersion(int* v) { *v = 13000; return 0; }
int cuDeviceGetCount(int* n) { *n = 1; return 0; }
int cuDeviceGet(int* d, int o) { *d = o; return 0; }
int cuDeviceGetName(char* s, int l, int d) { (void)l; (void)d; s[0] = 'X'; s[1] = 0; return 0; }
int cuDeviceTotalMem_v2(unsigned long* b, int d) { (void)d; *b = 1 << 30; return 0; }
int cuDeviceGetAttribute(int* v, int a, int d) { (void)a; (void)d; *v = 9; return 0; }
int cuGetErrorName(int c, const char** s) { (void)c; *s = "X"; return 0; }
"#;

/// No driver API at all.
const EMPTY: &str = "int ragged_not_a_driver(void) { return 0; }\n";

fn build(dir: &Path, source: &str) -> Option<PathBuf> {
    let c = dir.join("driver.c");
    std::fs::write(&c, source).unwrap();
    let lib = dir.join("libcuda.so.1");
    let status = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()))
        .args(["-shared", "-fPIC", "-o"])
        .arg(&lib)
        .arg(&c)
        .status()
        .ok()?;
    if !status.success() {
        return None;
    }
    std::fs::copy(&lib, dir.join("libcuda.so")).unwrap();
    Some(dir.to_path_buf())
}

fn ragged(lib_dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ragged"))
        .args(args)
        .env("LD_LIBRARY_PATH", lib_dir)
        .env_remove("RAGGED_DEVICE")
        .env_remove("RAGGED_DISABLE_CUDA")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn example() -> String {
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/data/people.parquet"
    )
    .to_string()
}

fn check_driver(source: &str, expect_reason: &str) {
    let dir = tempfile::tempdir().unwrap();
    let Some(lib_dir) = build(dir.path(), source) else {
        eprintln!("skipped: no C compiler to build a fake libcuda");
        return;
    };
    // A real driver installed system-wide would be found first only if the loader
    // prefers it; LD_LIBRARY_PATH puts ours first.
    let (code, stdout, stderr) = ragged(&lib_dir, &["info"]);
    assert_eq!(code, 0, "info failed: {stderr}");
    assert!(
        stdout.contains("only the CPU backend is available"),
        "{stdout}"
    );
    assert!(
        stdout.contains(expect_reason),
        "reason missing in: {stdout}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");

    let (code, stdout, stderr) = ragged(&lib_dir, &["strings", "length", "-c", "name", &example()]);
    assert_eq!(code, 0, "auto must fall back to the CPU: {stderr}");
    assert!(stdout.contains("10000 rows"), "{stdout}");
    assert!(stderr.starts_with("notice: CUDA unavailable ("), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");

    let (code, _, stderr) = ragged(
        &lib_dir,
        &["--device", "cuda", "reduce", "sum", "-c", "age", &example()],
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.starts_with("error: device unavailable: "),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");

    let (code, _, stderr) = ragged(&lib_dir, &["--device", "cuda", "kernels", "warmup"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn stub_driver_library_falls_back_to_cpu() {
    check_driver(STUB, "CUDA_ERROR_STUB_LIBRARY");
}

#[test]
fn driver_library_missing_entry_points_falls_back_to_cpu() {
    check_driver(PARTIAL, "lacks the driver entry point");
}

#[test]
fn library_without_driver_api_falls_back_to_cpu() {
    check_driver(EMPTY, "incomplete");
}
