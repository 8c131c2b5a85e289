//! A file truncated while the line reader has it memory-mapped: the reader returns an
//! error instead of the process dying of SIGBUS (its own test binary, so that a
//! regression kills only this one).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs::{File, OpenOptions};
use std::io::Write;

use ragged::lines::{LineReader, ReaderOptions};
use ragged::ops::LineOptions;
use ragged::{CpuBackend, Error};

/// A file of `lines` lines of 63 bytes and a newline.
fn text_file(dir: &tempfile::TempDir, lines: usize) -> std::path::PathBuf {
    let path = dir.path().join("lines.txt");
    let mut file = File::create(&path).unwrap();
    let line = [b'x'; 63];
    for _ in 0..lines {
        file.write_all(&line).unwrap();
        file.write_all(b"\n").unwrap();
    }
    path
}

fn truncate(path: &std::path::Path, len: u64) {
    OpenOptions::new()
        .write(true)
        .open(path)
        .and_then(|f| f.set_len(len))
        .unwrap();
}

fn is_truncation(e: &Error) -> bool {
    matches!(e, Error::Io { .. }) && e.to_string().contains("truncated while it was read")
}

#[test]
fn truncated_between_windows_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = text_file(&dir, 1 << 16); // 4 MiB
    let cpu = CpuBackend::new();
    let options = ReaderOptions {
        chunk_size: 256 << 10,
        memory_map: true,
    };
    for keep in [false, true] {
        let plan = LineOptions::default()
            .with_keep_delimiter(keep)
            .plan()
            .unwrap();
        let mut reader = LineReader::open(&cpu, &path, plan, options).unwrap();
        let first = reader.next().unwrap().unwrap();
        assert_eq!(first.len(), 4096);
        truncate(&path, 100_000);
        let rest: Vec<_> = reader.collect();
        let error = rest
            .iter()
            .find_map(|batch| batch.as_ref().err())
            .expect("an error after the truncation");
        assert!(is_truncation(error), "{error}");
        // Rewrite the file for the next round.
        drop(text_file(&dir, 1 << 16));
    }
}

#[test]
fn truncated_before_the_first_window_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = text_file(&dir, 1 << 14); // 1 MiB
    let cpu = CpuBackend::new();
    let plan = LineOptions::default().plan().unwrap();
    for len in [0, 5000] {
        let reader = LineReader::open(&cpu, &path, plan, ReaderOptions::default()).unwrap();
        truncate(&path, len);
        let error = reader.count_records().unwrap_err();
        assert!(is_truncation(&error), "{error}");
        drop(text_file(&dir, 1 << 14));
    }
}
