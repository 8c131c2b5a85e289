//! `ragged lines`: the binary run as a child process on text files and standard input.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::process::{Command, Stdio};

use ragged::io::read_table;

const BIN: &str = env!("CARGO_BIN_EXE_ragged");

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn ragged(args: &[&str], stdin: Option<&[u8]>) -> Run {
    let mut child = Command::new(BIN)
        .args(args)
        // The CPU backend (the specification), whatever the machine; `auto` would add
        // a notice line on machines without a GPU.
        .env("RAGGED_DEVICE", "cpu")
        .env_remove("RAGGED_MEMORY_LIMIT")
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(bytes) = stdin {
        child.stdin.take().unwrap().write_all(bytes).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    Run {
        code: out.status.code(),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

fn assert_failed(run: &Run, needle: &str) {
    assert_eq!(run.code, Some(1), "stderr: {}", run.stderr);
    assert!(run.stderr.starts_with("error: "), "{}", run.stderr);
    assert_eq!(run.stderr.trim_end().lines().count(), 1, "{}", run.stderr);
    assert!(run.stderr.contains(needle), "{} lacks {needle}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
}

fn lines_of(path: &std::path::Path) -> Vec<Option<String>> {
    let table = read_table(path, None, None).unwrap();
    let col = table.strings("line").unwrap();
    col.iter().map(|s| s.map(str::to_string)).collect()
}

#[test]
fn counts_and_summarizes() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "a\r\nb\n\nc").unwrap();
    let run = ragged(&["lines", input.to_str().unwrap(), "--device", "cpu"], None);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stdout, "4\n");
    assert!(run.stderr.contains("4 records, 7 bytes"), "{}", run.stderr);
    assert!(run.stderr.contains("GB/s") && run.stderr.contains("device cpu"));
    let run = ragged(
        &["lines", input.to_str().unwrap(), "--count", "--quiet"],
        None,
    );
    assert_eq!((run.stdout.as_str(), run.stderr.as_str()), ("4\n", ""));
}

#[test]
fn writes_a_strings_column_atomically() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "héllo\r\nwörld\n").unwrap();
    for name in ["out.parquet", "out.arrow"] {
        let out = dir.path().join(name);
        let run = ragged(
            &[
                "lines",
                input.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
            ],
            None,
        );
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        assert_eq!(lines_of(&out), [Some("héllo".into()), Some("wörld".into())]);
    }
    let out = dir.path().join("kept.arrow");
    let args = [
        "lines",
        input.to_str().unwrap(),
        "--keep-delimiter",
        "-o",
        out.to_str().unwrap(),
    ];
    assert_eq!(ragged(&args, None).code, Some(0));
    assert_eq!(
        lines_of(&out),
        [Some("héllo\r\n".into()), Some("wörld\n".into())]
    );
}

#[test]
fn reads_standard_input_with_delimiters_ranges_and_chunks() {
    let data = b"a;b;;c;";
    let run = ragged(&["lines", "-", "-d", ";", "--chunk-size", "2"], Some(data));
    assert_eq!(run.stdout, "4\n", "{}", run.stderr);
    let run = ragged(
        &["lines", "-", "-d", r"\x3b", "--byte-range", "2:5"],
        Some(data),
    );
    assert_eq!(run.stdout, "2\n", "{}", run.stderr);
    let run = ragged(
        &["lines", "-", "-d", r"\r\n", "--count"],
        Some(b"x\ny\r\nz"),
    );
    assert_eq!(run.stdout, "2\n", "{}", run.stderr);
    let run = ragged(&["lines", "-", "-d", r"\t"], Some(b"1\t2\t3"));
    assert_eq!(run.stdout, "3\n", "{}", run.stderr);
}

#[test]
fn invalid_utf8_is_an_error_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.parquet");
    let run = ragged(
        &["lines", "-", "-o", out.to_str().unwrap()],
        Some(b"ok\nx\xffy\n"),
    );
    assert_failed(&run, "invalid UTF-8 in row 1 at byte 1");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    // Counting does not look at the bytes.
    let run = ragged(&["lines", "-", "--count"], Some(b"ok\nx\xffy\n"));
    assert_eq!(run.stdout, "2\n");
}

#[test]
fn bad_arguments_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "a\n").unwrap();
    let path = input.to_str().unwrap();
    assert_failed(
        &ragged(&["lines", path, "-d", r"\q"], None),
        "unknown escape",
    );
    assert_failed(&ragged(&["lines", path, "-d", ""], None), "empty");
    let long = "x".repeat(65);
    assert_failed(&ragged(&["lines", path, "-d", &long], None), "at most 64");
    assert_failed(
        &ragged(&["lines", path, "--byte-range", "9:3"], None),
        "starts after",
    );
    assert_failed(
        &ragged(&["lines", path, "--byte-range", "9"], None),
        "START:END",
    );
    assert_failed(
        &ragged(&["lines", path, "--chunk-size", "0"], None),
        "--chunk-size",
    );
    assert_failed(&ragged(&["lines", "missing.txt"], None), "missing.txt");
    assert_failed(
        &ragged(&["lines", dir.path().to_str().unwrap()], None),
        "Is a directory",
    );
    let out = dir.path().join("x.parquet");
    let run = ragged(
        &["lines", path, "--count", "-o", out.to_str().unwrap()],
        None,
    );
    assert_failed(&run, "--output is not accepted");
    let run = ragged(
        &[
            "lines",
            path,
            "-o",
            dir.path().join("out.txt").to_str().unwrap(),
        ],
        None,
    );
    assert_failed(&run, "out.txt");
    assert!(!out.exists());
}

#[test]
fn cuda_without_a_gpu_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "a\n").unwrap();
    let path = input.to_str().unwrap();
    for args in [
        vec!["lines", path, "--device", "cuda"],
        vec!["lines", path, "--devices", "0,1"],
    ] {
        let out = Command::new(BIN)
            .args(&args)
            .env("RAGGED_DISABLE_CUDA", "1")
            .env_remove("RAGGED_DEVICE")
            .output()
            .unwrap();
        let run = Run {
            code: out.status.code(),
            stdout: String::from_utf8(out.stdout).unwrap(),
            stderr: String::from_utf8(out.stderr).unwrap(),
        };
        assert_failed(&run, "unavailable");
        assert!(run.stdout.is_empty(), "{}", run.stdout);
    }
}

#[test]
fn bad_device_lists_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "a\n").unwrap();
    let path = input.to_str().unwrap();
    let run = ragged(&["lines", path, "--devices", "0,x"], None);
    assert_failed(&run, "not a device number");
    let run = ragged(&["lines", path, "--devices", "1,1"], None);
    assert_failed(&run, "named twice");
}
