//! Every command the README shows, and every example of `ragged … --help`, run as a
//! user would run it: in a temporary directory holding `examples/data/` and small
//! input files named as in the README (`access.log`, `reads.fa.gz`, …), through
//! `bash -c` with the built binary first on `PATH`. So the documentation cannot
//! drift from the binary.
//!
//! Each command must exit 0 with no panic, except:
//! - a line whose comment mentions an error must fail with status 1 and one line
//!   `error: …` on stderr;
//! - on a machine without a usable GPU, a command that asks for CUDA (`--device cuda`,
//!   `cuda:N`, `--devices`) must fail with status 1 and a one-line error saying CUDA
//!   is unavailable;
//! - `ragged bench` runs with `--quick` added (its measurements are not what is checked).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_ragged");
const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// One documented command: the shell line and whether its comment says it fails.
#[derive(Debug)]
struct Documented {
    line: String,
    fails: bool,
    source: String,
}

/// The `ragged` commands of the README's `sh` blocks (the quick start's `cargo run …
/// --` becomes `ragged`; `cargo test` and other tools are left out).
fn readme_commands() -> Vec<Documented> {
    let text = std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap();
    let mut commands = Vec::new();
    let mut in_sh = false;
    for (number, raw) in text.lines().enumerate() {
        if raw.starts_with("```") {
            in_sh = raw == "```sh";
            continue;
        }
        if !in_sh {
            continue;
        }
        let (code, comment) = match raw.find(" #") {
            Some(at) => (&raw[..at], &raw[at..]),
            None => (raw, ""),
        };
        let code = code
            .trim()
            .replace("cargo run --release -p ragged-cli -- ", "ragged ");
        if !(code.starts_with("ragged ") || code.contains("| ragged ")) {
            continue;
        }
        commands.push(Documented {
            line: code,
            fails: comment.contains("error"),
            source: format!("README.md:{}", number + 1),
        });
    }
    commands
}

/// The examples of `ragged --help` and of each command's `--help`.
fn help_commands() -> Vec<Documented> {
    let mut commands = Vec::new();
    for page in [
        &[][..],
        &["strings"],
        &["redact"],
        &["lists"],
        &["reduce"],
        &["lines"],
        &["sketch"],
    ] {
        let out = Command::new(BIN).args(page).arg("--help").output().unwrap();
        assert!(out.status.success(), "ragged {page:?} --help failed");
        let text = String::from_utf8(out.stdout).unwrap();
        let examples = text
            .split_once("Examples:\n")
            .map(|(_, rest)| rest)
            .unwrap_or_else(|| panic!("ragged {page:?} --help shows no examples"));
        for line in examples.lines() {
            let Some(command) = line.strip_prefix("  ragged ") else {
                break;
            };
            commands.push(Documented {
                line: format!("ragged {command}"),
                fails: false,
                source: format!("ragged {} --help", page.join(" ")),
            });
        }
    }
    commands
}

/// Whether a command asks for a GPU.
fn wants_cuda(line: &str) -> bool {
    line.contains("--device cuda") || line.contains("--devices")
}

fn cuda_usable() -> bool {
    !matches!(
        ragged::cuda_status(),
        ragged::CudaStatus::Unavailable { .. }
    )
}

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    std::fs::write(dir.join(name), bytes).unwrap();
}

/// The inputs the examples name, small but real.
fn fixtures(dir: &Path) {
    let data = dir.join("examples/data");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::copy(
        Path::new(ROOT).join("examples/data/people.parquet"),
        data.join("people.parquet"),
    )
    .unwrap();
    let log: String = (0..500)
        .map(|i| format!("10.0.0.{} - - GET /page/{i} 200 --\r\n", i % 256))
        .collect();
    for name in ["access.log", "big.txt", "huge.txt"] {
        write(dir, name, log.as_bytes());
    }
    write(dir, "data.txt", b"a;bb;;ccc;\xc3\xa9;");
    let fasta = b">chr1 first\nACGTACGTTGCA\nACGN\n>chr2\nTTGACCA\n>short\nAC\n";
    for name in ["genes.fa", "refs.fa", "a.fa", "b.fa"] {
        write(dir, name, fasta);
    }
    write(
        dir,
        "queries.fq",
        b"@q1\nACGTTGCAAC\n+\nIIIIIIIIII\n@q2\nGGGCCCAT\n+\nIIIIIIII\n",
    );
    write(
        dir,
        "proteins.fa",
        b">p1\nMKTAYIAKQRQISFVKSHFSRQ\n>p2\nMEEPQSDPSV\n",
    );
    write(dir, "binary.fa", b">b1\n0110100111\n>b2\n000111\n");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(fasta).unwrap();
    write(dir, "reads.fa.gz", &gz.finish().unwrap());
}

/// Run each command in `dir` and return the failures, one line each.
fn run_all(dir: &Path, commands: &[Documented]) -> Vec<String> {
    let bin_dir = Path::new(BIN).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let gpu = cuda_usable();
    let mut failures = Vec::new();
    for command in commands {
        let mut line = command.line.clone();
        if line.starts_with("ragged bench") {
            line.push_str(" --quick");
        }
        let out = Command::new("bash")
            .args(["-o", "pipefail", "-c", &line])
            .current_dir(dir)
            .env("PATH", &path)
            .env_remove("RAGGED_DEVICE")
            .env_remove("RAGGED_MEMORY_LIMIT")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let error_lines: Vec<&str> = stderr
            .lines()
            .filter(|l| !l.starts_with("notice: "))
            .collect();
        let one_error = out.status.code() == Some(1)
            && error_lines.len() == 1
            && error_lines[0].starts_with("error: ");
        let panicked = stderr.contains("panicked") || stderr.contains("internal error");
        let expect_failure = command.fails || (wants_cuda(&line) && !gpu);
        let ok = if panicked {
            false
        } else if expect_failure {
            one_error
                && (command.fails
                    || error_lines[0].contains("CUDA")
                    || error_lines[0].contains("device unavailable"))
        } else {
            out.status.success()
        };
        if !ok {
            failures.push(format!(
                "{}: `{line}` exited {:?} (expected {}): {}",
                command.source,
                out.status.code(),
                if expect_failure {
                    "a one-line error"
                } else {
                    "success"
                },
                stderr.trim()
            ));
        }
    }
    failures
}

#[test]
fn every_readme_command_runs() {
    let commands = readme_commands();
    assert!(
        commands.len() >= 50,
        "only {} commands found in the README",
        commands.len()
    );
    assert!(
        commands.iter().any(|c| c.fails),
        "no documented error case found"
    );
    let dir = tempfile::tempdir().unwrap();
    fixtures(dir.path());
    let failures = run_all(dir.path(), &commands);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_help_example_runs() {
    let commands = help_commands();
    assert!(
        commands.len() >= 15,
        "only {} help examples",
        commands.len()
    );
    let dir = tempfile::tempdir().unwrap();
    fixtures(dir.path());
    let failures = run_all(dir.path(), &commands);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
