//! Files split across several workers (`ragged::lines::read_lines_split`, the path of
//! `ragged lines --devices`), checked with CPU workers so it runs everywhere, and the
//! GPU reader under a device-memory limit smaller than the file (skipped without a
//! GPU; `RAGGED_REQUIRE_CUDA=1` turns the skip into a failure).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use ragged::lines::{
    chunk_for_memory_limit, concat_lines, count_lines_split, read_lines, read_lines_split,
    split_byte_range, split_lines_on_workers, ReaderOptions,
};
use ragged::ops::{Delimiter, LineOptions, LinesColumn};
use ragged::{CpuBackend, CudaBackend, CudaOptions, Error};
use ragged_testkit::gen::text::{edge_inputs, random_lines};
use ragged_testkit::oracle;
use ragged_testkit::rng::Rng;

fn rows(col: &LinesColumn) -> Vec<Vec<u8>> {
    (0..col.len()).map(|i| col.row_bytes(i).to_vec()).collect()
}

fn joined(batches: &[LinesColumn]) -> Vec<Vec<u8>> {
    batches.iter().flat_map(rows).collect()
}

/// The test kit's edge inputs and `bytes` of random `\r\n` lines averaging `average`
/// bytes (seeded by `label`), named.
fn edge_and_random_inputs(label: &str, bytes: usize, average: usize) -> Vec<(String, Vec<u8>)> {
    let mut inputs: Vec<(String, Vec<u8>)> = edge_inputs()
        .into_iter()
        .map(|(name, bytes)| (name.to_string(), bytes))
        .collect();
    let mut rng = Rng::from_label(label);
    inputs.push((
        "random".into(),
        random_lines(&mut rng, bytes, average, true),
    ));
    inputs
}

#[test]
fn byte_ranges_split_evenly_and_cover_the_range() {
    for (start, end) in [(0u64, 0u64), (0, 1), (0, 10), (3, 17), (5, u64::MAX)] {
        for parts in 1..6 {
            let ranges = split_byte_range(start, end, parts);
            assert_eq!(ranges.len(), parts);
            assert_eq!(ranges[0].0, start);
            assert_eq!(ranges[parts - 1].1, end);
            for w in ranges.windows(2) {
                assert_eq!(w[0].1, w[1].0, "{ranges:?}");
                assert!(w[0].0 <= w[0].1);
            }
        }
    }
}

#[test]
fn cpu_workers_reproduce_the_whole_file() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = edge_and_random_inputs("cpu_workers", 50_000, 40);
    let delimiters = [
        Delimiter::Newline,
        Delimiter::CrLf,
        Delimiter::Bytes(b"abab".to_vec()),
        Delimiter::Bytes(b";;".to_vec()),
    ];
    for (k, (name, bytes)) in inputs.iter().enumerate() {
        let path = dir.path().join(format!("in{k}.txt"));
        std::fs::write(&path, bytes).unwrap();
        for delimiter in &delimiters {
            for range in [
                None,
                Some((bytes.len() as u64 / 3, bytes.len() as u64 / 2 + 1)),
            ] {
                let mut options = LineOptions::new(delimiter.clone()).with_binary(true);
                options.byte_range = range;
                let want = oracle::lines(bytes, &options).records;
                for workers in 1..=4 {
                    let cpus: Vec<CpuBackend> = (0..workers).map(|_| CpuBackend::new()).collect();
                    for chunk_size in [3, 1 << 20] {
                        let reader = ReaderOptions {
                            chunk_size,
                            ..ReaderOptions::default()
                        };
                        let plan = options.plan().unwrap();
                        let got = read_lines_split(&cpus, &path, plan, reader).unwrap();
                        assert_eq!(
                            joined(&got),
                            want,
                            "{name} {delimiter:?} range {range:?} workers {workers} chunk {chunk_size}"
                        );
                        let parts = split_lines_on_workers(&cpus, &path, plan, reader).unwrap();
                        assert_eq!(parts.len(), workers);
                        assert_eq!(joined(&parts.concat()), want, "{name} on workers");
                        let count = count_lines_split(&cpus, &path, plan, reader).unwrap();
                        assert_eq!(count, want.len() as u64, "{name} count");
                    }
                }
            }
        }
    }
}

#[test]
fn utf8_errors_count_records_over_all_workers() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.txt");
    let mut bytes = Vec::new();
    for i in 0..100 {
        bytes.extend_from_slice(format!("line {i}\n").as_bytes());
    }
    bytes.extend_from_slice(b"ab\xffcd\n");
    bytes.extend_from_slice(b"tail\n");
    std::fs::write(&path, &bytes).unwrap();
    let options = LineOptions::default();
    let want = oracle::lines(&bytes, &options).utf8_error;
    assert_eq!(want, Some((100, 2)));
    for workers in 1..=4 {
        let cpus: Vec<CpuBackend> = (0..workers).map(|_| CpuBackend::new()).collect();
        let plan = options.plan().unwrap();
        match read_lines_split(&cpus, &path, plan, ReaderOptions::default()) {
            Err(Error::InvalidUtf8 { row, byte }) => assert_eq!((row, byte), (100, 2)),
            other => panic!("{workers} workers: {other:?}"),
        }
    }
}

#[test]
fn standard_input_is_not_split() {
    let cpus = [CpuBackend::new(), CpuBackend::new()];
    let plan = LineOptions::default().plan().unwrap();
    let err = read_lines_split(&cpus, "-", plan, ReaderOptions::default()).unwrap_err();
    assert!(err.to_string().contains("standard input"), "{err}");
}

/// A CUDA backend with this memory limit, or `None` (skipped) without a GPU.
fn gpu(test: &str, limit: usize) -> Option<CudaBackend> {
    let made = CudaOptions::from_env()
        .and_then(|options| {
            CudaBackend::new(
                0,
                CudaOptions {
                    memory_limit: Some(limit),
                    ..options
                },
            )
        })
        .map_err(|e| e.to_string());
    ragged_testkit::backend_or_skip(test, made)
}

#[test]
#[ignore = "needs a CUDA GPU: run with --include-ignored (scripts/gpu-run.sh does)"]
fn gpu_reads_a_file_larger_than_its_memory_limit_in_chunks() {
    const LIMIT: usize = 64 << 20;
    let Some(gpu) = gpu(
        "gpu_reads_a_file_larger_than_its_memory_limit_in_chunks",
        LIMIT,
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.txt");
    let mut rng = Rng::from_label("gpu_chunks");
    let mut bytes = random_lines(&mut rng, 3 * LIMIT, 80, true);
    // A record longer than a chunk, and invalid UTF-8 would fail: keep it valid.
    bytes.extend(std::iter::repeat_n(b'x', 5 << 20));
    bytes.extend_from_slice(b"\r\nlast");
    std::fs::write(&path, &bytes).unwrap();
    let chunk_size = chunk_for_memory_limit(64 << 20, LIMIT);
    assert!(chunk_size < bytes.len() / 8);
    for delimiter in [Delimiter::Newline, Delimiter::CrLf] {
        for keep in [false, true] {
            let options = LineOptions::new(delimiter.clone()).with_keep_delimiter(keep);
            for memory_map in [true, false] {
                let reader = ReaderOptions {
                    chunk_size,
                    memory_map,
                };
                let want = read_lines(&CpuBackend::new(), &path, &options, reader).unwrap();
                let got = read_lines(&gpu, &path, &options, reader).unwrap();
                assert_eq!(got.len(), want.len(), "{delimiter:?} keep={keep}");
                assert_eq!(got.is_wide(), want.is_wide());
                for i in 0..want.len() {
                    assert_eq!(got.row_bytes(i), want.row_bytes(i), "record {i}");
                }
                let plan = options.plan().unwrap();
                let count = ragged::lines::LineReader::open(&gpu, &path, plan, reader)
                    .unwrap()
                    .count_records()
                    .unwrap();
                assert_eq!(count, want.len() as u64);
            }
        }
    }
    let stats = gpu.memory_stats();
    assert!(stats.peak <= LIMIT, "peak {} over the limit", stats.peak);
}

#[test]
#[ignore = "needs a CUDA GPU: run with --include-ignored (scripts/gpu-run.sh does)"]
fn gpus_split_a_file_by_byte_ranges() {
    let Some(first) = gpu("gpus_split_a_file_by_byte_ranges", 1 << 30) else {
        return;
    };
    // Every device there is, and at least two backends (the same device twice on a
    // one-GPU machine: the same code path).
    let count = match ragged::cuda_status() {
        ragged::CudaStatus::Available { devices, .. } => devices.len(),
        ragged::CudaStatus::Unavailable { .. } => 1,
    };
    let mut gpus = vec![first];
    for d in 1..count.max(2) {
        gpus.push(CudaBackend::new(d % count, CudaOptions::default()).unwrap());
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("split.txt");
    let mut rng = Rng::from_label("gpus_split");
    let bytes = random_lines(&mut rng, 8 << 20, 80, false);
    std::fs::write(&path, &bytes).unwrap();
    let options = LineOptions::default();
    let want = oracle::lines(&bytes, &options).records;
    let reader = ReaderOptions {
        chunk_size: 1 << 20,
        ..ReaderOptions::default()
    };
    let plan = options.plan().unwrap();
    let got = read_lines_split(&gpus, &path, plan, reader).unwrap();
    assert_eq!(rows(&concat_lines(&got).unwrap()), want);
    let on_devices = split_lines_on_workers(&gpus, &path, plan, reader).unwrap();
    let mut batches = Vec::new();
    for (gpu, part) in gpus.iter().zip(on_devices) {
        for batch in part {
            batches.push(ragged::lines::to_host_lines(gpu, batch).unwrap());
        }
    }
    assert_eq!(rows(&concat_lines(&batches).unwrap()), want);
    assert_eq!(
        count_lines_split(&gpus, &path, plan, reader).unwrap(),
        want.len() as u64
    );
}

/// The GPU reader (each window uploaded on another thread while the one before it is
/// processed): every chunk size on small inputs, byte ranges and UTF-8 errors give
/// the CPU reader's result, from mapped files and from blocks.
#[test]
#[ignore = "needs a CUDA GPU: run with --include-ignored (scripts/gpu-run.sh does)"]
fn gpu_reader_matches_the_cpu_at_every_chunk_size() {
    let Some(gpu) = gpu("gpu_reader_matches_the_cpu_at_every_chunk_size", 1 << 30) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut inputs = edge_and_random_inputs("gpu_direct", 3_000, 20);
    inputs.push(("invalid utf-8".into(), b"one\ntw\xffo\nthree\n".to_vec()));
    for (k, (name, bytes)) in inputs.iter().enumerate() {
        let path = dir.path().join(format!("in{k}.txt"));
        std::fs::write(&path, bytes).unwrap();
        let n = bytes.len() as u64;
        for delimiter in [
            Delimiter::Newline,
            Delimiter::CrLf,
            Delimiter::Bytes(b"abab".to_vec()),
        ] {
            for range in [None, Some((n / 3, n / 2 + 1))] {
                let mut options = LineOptions::new(delimiter.clone());
                options.byte_range = range;
                for (chunk_size, memory_map) in (1..=17)
                    .chain([1000, 1 << 20])
                    .flat_map(|c| [(c, true), (c, false)])
                {
                    let reader = ReaderOptions {
                        chunk_size,
                        memory_map,
                    };
                    let want = read_lines(&CpuBackend::new(), &path, &options, reader);
                    let got = read_lines(&gpu, &path, &options, reader);
                    let what = format!(
                        "{name} {delimiter:?} range {range:?} chunk {chunk_size} mmap {memory_map}"
                    );
                    match (want, got) {
                        (Ok(want), Ok(got)) => assert_eq!(rows(&got), rows(&want), "{what}"),
                        (Err(want), Err(got)) => {
                            assert_eq!(got.to_string(), want.to_string(), "{what}")
                        }
                        (want, got) => panic!("{what}: cpu {want:?}, gpu {got:?}"),
                    }
                }
            }
        }
    }
}
