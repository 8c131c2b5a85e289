//! The streaming line reader (`ragged::lines`) against the testkit's oracle: every
//! chunk size from 1 byte on small inputs, from memory-mapped bytes and from a stream
//! returning short reads, byte ranges split at every position, counting, UTF-8 errors
//! numbered over the whole file, and files on disk.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Read;

use ragged::lines::{concat_lines, read_lines, LineReader, ReaderOptions};
use ragged::ops::{Delimiter, LineOptions, LinesColumn};
use ragged::{CpuBackend, Error, ScalarBuffer};
use ragged_testkit::gen::text::{delimiter_label, delimiters, edge_inputs, random_lines};
use ragged_testkit::oracle;
use ragged_testkit::rng::Rng;

/// A reader that returns at most `step` bytes per call (short reads, as pipes do).
struct Trickle {
    bytes: Vec<u8>,
    at: usize,
    step: usize,
}

impl Read for Trickle {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.step).min(self.bytes.len() - self.at);
        buf[..n].copy_from_slice(&self.bytes[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

fn rows(col: &LinesColumn) -> Vec<Vec<u8>> {
    (0..col.len()).map(|i| col.row_bytes(i).to_vec()).collect()
}

/// The records through the reader, from memory (`stream` false) or a trickling stream.
fn through_reader(
    bytes: &[u8],
    options: &LineOptions,
    chunk_size: usize,
    stream: bool,
) -> ragged::Result<Vec<Vec<u8>>> {
    let cpu = CpuBackend::new();
    let plan = options.plan()?;
    let reader_options = ReaderOptions {
        chunk_size,
        memory_map: true,
    };
    let reader = if stream {
        let source = Trickle {
            bytes: bytes.to_vec(),
            at: 0,
            step: 1 + chunk_size / 2,
        };
        LineReader::from_reader(&cpu, source, plan, reader_options)?
    } else {
        LineReader::from_bytes(
            &cpu,
            ScalarBuffer::from(bytes.to_vec()),
            plan,
            reader_options,
        )?
    };
    let batches: Vec<LinesColumn> = reader.collect::<ragged::Result<_>>()?;
    Ok(if batches.is_empty() {
        Vec::new()
    } else {
        rows(&concat_lines(&batches)?)
    })
}

fn count_through_reader(
    bytes: &[u8],
    options: &LineOptions,
    chunk_size: usize,
    stream: bool,
) -> u64 {
    let cpu = CpuBackend::new();
    let plan = options.plan().unwrap();
    let reader_options = ReaderOptions {
        chunk_size,
        memory_map: true,
    };
    let reader = if stream {
        let source = Trickle {
            bytes: bytes.to_vec(),
            at: 0,
            step: 3,
        };
        LineReader::from_reader(&cpu, source, plan, reader_options).unwrap()
    } else {
        LineReader::from_bytes(
            &cpu,
            ScalarBuffer::from(bytes.to_vec()),
            plan,
            reader_options,
        )
        .unwrap()
    };
    reader.count_records().unwrap()
}

#[test]
fn every_chunk_size_gives_the_oracle_records() {
    let mut failures = Vec::new();
    for (name, bytes) in edge_inputs() {
        for delimiter in delimiters() {
            for keep in [false, true] {
                let options = LineOptions::new(delimiter.clone())
                    .with_keep_delimiter(keep)
                    .with_binary(true);
                let want = oracle::lines(&bytes, &options).records;
                for chunk in 1..=bytes.len() + 2 {
                    for stream in [false, true] {
                        let got = through_reader(&bytes, &options, chunk, stream).unwrap();
                        if got != want {
                            failures.push(format!(
                                "{name}/{}/keep={keep}/chunk={chunk}/stream={stream}: {got:?} != {want:?}",
                                delimiter_label(&delimiter)
                            ));
                        }
                        let count = count_through_reader(&bytes, &options, chunk, stream);
                        if count != want.len() as u64 {
                            failures.push(format!(
                                "{name}/{}/chunk={chunk}/stream={stream}: count {count} != {}",
                                delimiter_label(&delimiter),
                                want.len()
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
}

#[test]
fn byte_ranges_through_the_reader_reproduce_the_whole() {
    let mut failures = Vec::new();
    for (name, bytes) in edge_inputs() {
        for delimiter in delimiters() {
            let options = LineOptions::new(delimiter.clone()).with_binary(true);
            let want = oracle::lines(&bytes, &options).records;
            for chunk in [1, 3, 1 << 20] {
                for k in 0..=bytes.len() as u64 + 1 {
                    for stream in [false, true] {
                        let head = options.clone().with_byte_range(0, k);
                        let tail = options.clone().with_byte_range(k, u64::MAX);
                        let mut got = through_reader(&bytes, &head, chunk, stream).unwrap();
                        let head_count = count_through_reader(&bytes, &head, chunk, stream);
                        if head_count != got.len() as u64 {
                            failures.push(format!("{name}: count of [0, {k}) differs"));
                        }
                        got.extend(through_reader(&bytes, &tail, chunk, stream).unwrap());
                        if got != want {
                            failures.push(format!(
                                "{name}/{}/chunk={chunk}/k={k}/stream={stream}: {got:?} != {want:?}",
                                delimiter_label(&delimiter)
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
}

#[test]
fn random_text_in_small_chunks() {
    for crlf in [false, true] {
        let mut rng = Rng::from_label("reader/random");
        let bytes = random_lines(&mut rng, 200_000, 80, crlf);
        for delimiter in [Delimiter::Newline, Delimiter::CrLf] {
            let options = LineOptions::new(delimiter);
            let want = oracle::lines(&bytes, &options).records;
            for chunk in [1000, 4096, 65_537] {
                for stream in [false, true] {
                    assert_eq!(
                        through_reader(&bytes, &options, chunk, stream).unwrap(),
                        want
                    );
                }
            }
            let range = options.with_byte_range(50_000, 150_000);
            let want = oracle::lines(&bytes, &range).records;
            assert_eq!(through_reader(&bytes, &range, 7_000, true).unwrap(), want);
            assert_eq!(through_reader(&bytes, &range, 7_000, false).unwrap(), want);
        }
    }
}

#[test]
fn utf8_errors_name_the_record_over_the_whole_input() {
    let bytes = b"zero\none\ntwo\nth\xffree\nfour\n".to_vec();
    for chunk in [1, 2, 5, 100] {
        for stream in [false, true] {
            let err = through_reader(&bytes, &LineOptions::default(), chunk, stream).unwrap_err();
            assert!(
                matches!(err, Error::InvalidUtf8 { row: 3, byte: 2 }),
                "chunk {chunk}: {err}"
            );
        }
    }
    // In a range, records are counted from the range's first record.
    let options = LineOptions::default().with_byte_range(5, u64::MAX);
    let err = through_reader(&bytes, &options, 4, true).unwrap_err();
    assert!(
        matches!(err, Error::InvalidUtf8 { row: 2, byte: 2 }),
        "{err}"
    );
    // Binary output takes the bytes as they are.
    let binary = LineOptions::default().with_binary(true);
    assert_eq!(
        through_reader(&bytes, &binary, 4, false).unwrap()[3],
        b"th\xffree"
    );
}

#[test]
fn files_are_read_mapped_and_in_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lines.txt");
    let mut rng = Rng::from_label("reader/file");
    let mut bytes = random_lines(&mut rng, 100_000, 16, true);
    // One record much longer than a chunk.
    bytes.extend(std::iter::repeat_n(b'x', 20_000));
    bytes.extend_from_slice(b"\r\nlast");
    std::fs::write(&path, &bytes).unwrap();
    let options = LineOptions::default();
    let want = oracle::lines(&bytes, &options).records;
    let cpu = CpuBackend::new();
    for memory_map in [true, false] {
        let reader = ReaderOptions {
            chunk_size: 4096,
            memory_map,
        };
        let got = read_lines(&cpu, &path, &options, reader).unwrap();
        assert_eq!(rows(&got), want, "memory_map {memory_map}");
        let open = LineReader::open(&cpu, &path, options.plan().unwrap(), reader).unwrap();
        assert_eq!(open.total_bytes(), Some(bytes.len() as u64));
        assert_eq!(open.count_records().unwrap(), want.len() as u64);
    }
    // An empty file has no record.
    let empty = dir.path().join("empty.txt");
    std::fs::write(&empty, b"").unwrap();
    let got = read_lines(&cpu, &empty, &options, ReaderOptions::default()).unwrap();
    assert!(got.is_empty());
}

#[test]
fn missing_files_and_directories_are_io_errors() {
    let dir = tempfile::tempdir().unwrap();
    let cpu = CpuBackend::new();
    let plan = LineOptions::default().plan().unwrap();
    let missing = LineReader::open(
        &cpu,
        dir.path().join("nope.txt"),
        plan,
        ReaderOptions::default(),
    );
    assert!(matches!(missing, Err(Error::Io { .. })));
    let directory = LineReader::open(&cpu, dir.path(), plan, ReaderOptions::default());
    let message = directory.err().unwrap().to_string();
    assert!(message.contains("Is a directory"), "{message}");
    let zero = ReaderOptions {
        chunk_size: 0,
        memory_map: true,
    };
    assert!(LineReader::from_bytes(&cpu, ScalarBuffer::from(vec![]), plan, zero).is_err());
}
