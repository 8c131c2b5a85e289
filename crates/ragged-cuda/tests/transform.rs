//! User transforms on the GPU (`CudaBackend::transform_strings`): a CUDA C++ device
//! function compiled at run time must give the same column as the CPU's closure
//! (`CpuBackend::transform_strings`) doing the same thing, and a source that does not
//! compile must be a `KernelCompile` error naming the user's line. Without a GPU each
//! test prints `skipped: <reason>` (or fails when `RAGGED_REQUIRE_CUDA=1`).

#![allow(clippy::panic, clippy::expect_used, clippy::unwrap_used)] // test code

use ragged_core::ops::{AnyStringColumn, OffsetWidth, StringArg};
use ragged_core::{Error, Memory, StringColumn};
use ragged_cpu::CpuBackend;
use ragged_cuda::{CudaBackend, CudaOptions};

fn backend() -> Option<CudaBackend> {
    match CudaBackend::new(0, CudaOptions::default()) {
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

/// Upper-cases the ASCII letters of input 0, then writes '#' and input 1; null when
/// input 0 is null, and input 1 counts as empty when null.
const SHOUT: &str = r#"
__device__ bool transform(uint64_t row, const ragged::StringInput* inputs, ragged::Writer& out) {
    if (!inputs[0].valid(row)) return false;
    const ragged::string_view s = inputs[0].get(row);
    for (long long i = 0; i < s.size; ++i) {
        const uint8_t b = s[i];
        out.byte(b >= 'a' && b <= 'z' ? b - 32 : b);
    }
    out.byte('#');
    if (inputs[1].valid(row)) out.str(inputs[1].get(row));
    return true;
}
"#;

fn rows(col: &AnyStringColumn) -> Vec<Option<String>> {
    col.to_options()
}

#[test]
#[ignore = "needs a CUDA GPU: run with --include-ignored (scripts/gpu-run.sh does)"]
fn a_user_transform_matches_the_cpu_closure() {
    let Some(gpu) = backend() else { return };
    let names: Vec<Option<String>> = (0..10_000)
        .map(|i| match i % 7 {
            0 => None,
            1 => Some(String::new()),
            2 => Some(format!("ünï {i}")),
            _ => Some(format!("name{i} x")),
        })
        .collect();
    let col = StringColumn::<i32>::from_options(names.iter().map(|r| r.as_deref()));
    let tail = StringColumn::<i64>::from_options((0..10_000).map(|i| (i % 5 != 0).then_some("😀")));
    let expected = CpuBackend
        .transform_strings(names.len(), OffsetWidth::Auto, |i, out| {
            let Some(s) = col.get(i) else { return false };
            out.push_str(&s.to_ascii_uppercase());
            out.push('#');
            out.push_str(tail.get(i).unwrap_or(""));
            true
        })
        .unwrap();
    let (dcol, dtail) = (
        gpu.to_device_strings(&col).unwrap(),
        gpu.to_device_strings(&tail).unwrap(),
    );
    for width in [OffsetWidth::Auto, OffsetWidth::I64] {
        let out = gpu
            .transform_strings(
                SHOUT,
                &[StringArg::column(&dcol), StringArg::column(&dtail)],
                names.len(),
                width,
            )
            .unwrap();
        assert_eq!(out.is_wide(), width == OffsetWidth::I64);
        let host = match out {
            AnyStringColumn::Utf8(c) => AnyStringColumn::Utf8(gpu.to_host_strings(&c).unwrap()),
            AnyStringColumn::LargeUtf8(c) => {
                AnyStringColumn::LargeUtf8(gpu.to_host_strings(&c).unwrap())
            }
        };
        assert_eq!(rows(&host), rows(&expected));
    }
    // A scalar input serves every row; the wrong number of rows is an error.
    let out = gpu
        .transform_strings(
            SHOUT,
            &[StringArg::Scalar(Some("ab")), StringArg::Scalar(None)],
            3,
            OffsetWidth::Auto,
        )
        .unwrap();
    let AnyStringColumn::Utf8(out) = out else {
        panic!("expected i32 offsets")
    };
    let out = gpu.to_host_strings(&out).unwrap();
    assert_eq!(out.iter().collect::<Vec<_>>(), [Some("AB#"); 3]);
    assert!(matches!(
        gpu.transform_strings(SHOUT, &[StringArg::column(&dcol)], 3, OffsetWidth::Auto),
        Err(Error::LengthMismatch { .. })
    ));
}

#[test]
#[ignore = "needs a CUDA GPU: run with --include-ignored (scripts/gpu-run.sh does)"]
fn a_user_transform_that_does_not_compile_names_its_line() {
    let Some(gpu) = backend() else { return };
    let bad = "__device__ bool transform(uint64_t row, const ragged::StringInput* inputs, ragged::Writer& out) {\n    return undefined_name;\n}\n";
    match gpu.transform_strings(bad, &[], 1, OffsetWidth::Auto) {
        Err(Error::KernelCompile { log, .. }) => {
            assert!(
                log.contains("transform(2)") || log.contains("transform:2"),
                "{log}"
            );
            assert!(log.contains("undefined_name"), "{log}");
        }
        other => panic!("expected KernelCompile, got {other:?}"),
    }
}
