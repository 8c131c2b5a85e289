//! CUDA runtime tests: memory limit and out-of-memory, the device error word, large
//! staged transfers, pinned transfers (the kernel cache: kernel_cache.rs). Each test needs a GPU; without
//! one it prints `skipped: <reason>` (or fails when `RAGGED_REQUIRE_CUDA=1`).

#![allow(clippy::panic, clippy::expect_used, clippy::unwrap_used)] // test code

use ragged_core::{
    Error, Memory, NullBuffer, OffsetsProblem, PrimitiveColumn, Primitives, ScalarBuffer,
};
use ragged_cuda::{CudaBackend, CudaOptions};

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
fn out_of_memory_under_a_limit_is_an_error_and_the_backend_stays_usable() {
    let Some(gpu) = backend(CudaOptions {
        memory_limit: Some(64 << 20),
        no_pool: false,
    }) else {
        return;
    };
    let first = gpu.alloc::<u8>(48 << 20).expect("48 MiB fits in 64 MiB");
    match gpu.alloc::<u8>(32 << 20) {
        Err(Error::OutOfMemory {
            requested,
            available,
        }) => {
            assert_eq!(requested, 32 << 20);
            assert_eq!(available, 16 << 20);
        }
        other => panic!("expected OutOfMemory, got {other:?}"),
    }
    // Uploading a column that does not fit fails the same way, and nothing leaks.
    let big = PrimitiveColumn::from_vec(vec![1u32; 8 << 20]);
    assert!(matches!(
        gpu.to_device_primitive(&big),
        Err(Error::OutOfMemory { .. })
    ));
    drop(first);
    gpu.synchronize().unwrap();
    assert_eq!(gpu.memory_stats().used, 0);
    let col = gpu.to_device_primitive(&big).expect("fits after the free");
    assert_eq!(gpu.reduce_sum(&col).unwrap(), 8u64 << 20);
}

#[test]
#[ignore = "needs a CUDA GPU: run with --include-ignored (scripts/gpu-run.sh does)"]
fn allocations_are_16_byte_aligned_and_the_limit_counts_the_bytes_asked_for() {
    for no_pool in [false, true] {
        let Some(gpu) = backend(CudaOptions {
            memory_limit: None,
            no_pool,
        }) else {
            return;
        };
        // Kernels read a buffer's ends by aligned 16-byte loads (memory.rs,
        // ALLOCATION_ALIGN): every allocation must start on such a boundary.
        let sizes = (1..=40usize).chain([255, 4097, (1 << 20) + 3]);
        let buffers: Vec<_> = sizes.clone().map(|n| gpu.alloc::<u8>(n).unwrap()).collect();
        for b in &buffers {
            assert_eq!(
                b.device_ptr() % 16,
                0,
                "{} bytes at {:#x}",
                b.len(),
                b.device_ptr()
            );
        }
        assert_eq!(gpu.memory_stats().used, sizes.sum::<usize>());
        drop(buffers);
        gpu.synchronize().unwrap();
        assert_eq!(gpu.memory_stats().used, 0);
    }
}

#[test]
fn memory_limit_from_env_syntax() {
    assert_eq!(ragged_cuda::parse_size("2GiB").unwrap(), 2 << 30);
    assert_eq!(ragged_cuda::parse_size("512MiB").unwrap(), 512 << 20);
    assert_eq!(ragged_cuda::parse_size("1.5GB").unwrap(), 1_500_000_000);
    assert_eq!(ragged_cuda::parse_size("4096").unwrap(), 4096);
    assert!(ragged_cuda::parse_size("lots").is_err());
    assert!(ragged_cuda::parse_size("-1GiB").is_err());
}

#[test]
#[ignore = "needs a CUDA GPU: run with --include-ignored (scripts/gpu-run.sh does)"]
fn device_error_word_reports_the_lowest_bad_offset_like_the_cpu() {
    let Some(gpu) = backend(CudaOptions::default()) else {
        return;
    };
    let cases: Vec<(Vec<i64>, usize)> = vec![
        (vec![0, 1, 2, 3], 3),
        (vec![-1, 0, 1], 5),
        (vec![0, 5, 3, 2, 1], 10),
        (vec![0, 1, 20, 30], 10),
        (vec![0, 1, 2, 1, 99], 50),
    ];
    // A long buffer with many failures: the lowest index must win every time.
    let mut long: Vec<i64> = (0..1_000_000).collect();
    for i in (300_001..1_000_000).step_by(7) {
        long[i] = 0;
    }
    long[123_457] = 5;
    let cases = cases.into_iter().chain(std::iter::once((long, 2_000_000)));
    for (offsets, values_len) in cases {
        let expected = ragged_core::column::validate_offsets(&offsets, values_len);
        let device = gpu.upload(&ScalarBuffer::from(offsets.clone())).unwrap();
        let got = gpu.validate_offsets(&device, values_len);
        match (&expected, &got) {
            (Ok(()), Ok(())) => {}
            (Err(e), Err(g)) => {
                assert!(e.same_kind_and_index(g), "cpu {e} vs gpu {g}");
                assert_eq!(e.to_string(), g.to_string());
            }
            _ => panic!(
                "cpu {expected:?} vs gpu {got:?} for {:?}",
                &offsets[..offsets.len().min(8)]
            ),
        }
    }
    let empty = gpu
        .upload(&ScalarBuffer::<i32>::from(Vec::<i32>::new()))
        .unwrap();
    assert!(matches!(
        gpu.validate_offsets(&empty, 0),
        Err(Error::InvalidOffsets {
            index: 0,
            problem: OffsetsProblem::Empty
        })
    ));
    // The backend keeps working after reporting errors.
    let col = gpu
        .to_device_primitive(&PrimitiveColumn::from_vec(vec![2i32; 1000]))
        .unwrap();
    assert_eq!(gpu.reduce_sum(&col).unwrap(), 2000);
}

#[test]
#[ignore = "needs a CUDA GPU: run with --include-ignored (scripts/gpu-run.sh does)"]
fn large_transfers_round_trip_through_staging() {
    let Some(gpu) = backend(CudaOptions::default()) else {
        return;
    };
    for len in [0usize, 1, 1 << 20, (1 << 20) + 1, (100 << 20) + 12_345] {
        let data: Vec<u8> = (0..len)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 7) as u8)
            .collect();
        let device = gpu.upload(&ScalarBuffer::from(data.clone())).unwrap();
        assert_eq!(device.len(), len);
        let back = gpu.download(&device).unwrap();
        assert!(back[..] == data[..], "round trip of {len} bytes differs");
    }
}

#[test]
#[ignore = "needs a CUDA GPU: run with --include-ignored (scripts/gpu-run.sh does)"]
fn pinned_transfers_round_trip() {
    let Some(gpu) = backend(CudaOptions::default()) else {
        return;
    };
    // 3 MiB: a registered mapping (on Linux); 5 000 bytes: from cuMemHostAlloc.
    for len in [3 << 20, 5000] {
        let mut pinned = gpu.alloc_pinned(len).unwrap();
        assert!(pinned.as_slice().iter().all(|&b| b == 0), "not zeroed");
        if cfg!(target_os = "linux") {
            assert_eq!(pinned.is_registered(), len >= ragged_cuda::REGISTER_MIN);
        }
        for (i, b) in pinned.as_mut_slice().iter_mut().enumerate() {
            *b = (i % 251) as u8;
        }
        let device = gpu.upload_pinned(&pinned).unwrap();
        let mut back = gpu.alloc_pinned(len).unwrap();
        gpu.download_pinned(&device, &mut back).unwrap();
        assert_eq!(pinned.as_slice(), back.as_slice());
        drop(pinned);
        // The memory of a dropped buffer is released (unregistered) and can be pinned again.
        let again = gpu.alloc_pinned(len).unwrap();
        assert_eq!(again.len(), len);
    }
}

#[test]
#[ignore = "needs a CUDA GPU: run with --include-ignored (scripts/gpu-run.sh does)"]
fn sliced_validity_survives_upload_and_download() {
    let Some(gpu) = backend(CudaOptions::default()) else {
        return;
    };
    let bits: Vec<bool> = (0..1000).map(|i| i % 3 != 0).collect();
    let nulls = NullBuffer::from(bits.clone()).slice(5, 901);
    let device = gpu.upload_bitmap(&nulls).unwrap();
    let back = gpu.download_bitmap(&device).unwrap();
    assert_eq!(back.len(), 901);
    assert_eq!(back.null_count(), nulls.null_count());
    for i in 0..901 {
        assert_eq!(back.is_valid(i), bits[5 + i], "bit {i}");
    }
}

#[test]
#[ignore = "needs a CUDA GPU: run with --include-ignored (scripts/gpu-run.sh does)"]
fn sum_overflow_is_reported_like_the_cpu() {
    let Some(gpu) = backend(CudaOptions::default()) else {
        return;
    };
    let host = PrimitiveColumn::from_vec(vec![i64::MAX, 1]);
    let col = gpu.to_device_primitive(&host).unwrap();
    assert!(matches!(gpu.reduce_sum(&col), Err(Error::Overflow { .. })));
    let cpu = ragged_cpu::CpuBackend::new();
    assert!(matches!(cpu.reduce_sum(&host), Err(Error::Overflow { .. })));
    // Partial sums may exceed i64 as long as the total fits.
    let host = PrimitiveColumn::from_vec(vec![i64::MAX, 1, -2]);
    let col = gpu.to_device_primitive(&host).unwrap();
    assert_eq!(gpu.reduce_sum(&col).unwrap(), i64::MAX - 1);
}
