//! Integration tests of the `ragged` command-line tool: the binary is run as a child
//! process on files written with the library, and its exit status, stdout, stderr and
//! the files it leaves behind are checked.
//!
//! Every child runs with `RAGGED_DEVICE` and `RAGGED_MEMORY_LIMIT` unset, on the CPU
//! (`--device cpu`) or with `auto`, which on a machine without a usable GPU must fall
//! back to the CPU with a one-line notice. Tests whose expectations only hold without
//! a GPU (`--device cuda` failing, `info` saying only the CPU backend is available)
//! check that first and print `skipped: …` on a GPU machine.

// Test code: helpers may unwrap, expect and panic (a failing assertion is how a test
// reports); the workspace clippy.toml allows it only inside #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;

use ragged::io::{read_table, write_table};
use ragged::{Column, ListColumn, NullBuffer, PrimitiveColumn, ScalarBuffer, StringColumn};
use tempfile::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_ragged");
const PEOPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../examples/data/people.parquet"
);

// ---------------------------------------------------------------------------------
// Running the binary
// ---------------------------------------------------------------------------------

/// What a run of the binary produced.
#[derive(Debug)]
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Run {
    fn success(&self) -> bool {
        self.code == Some(0)
    }
}

/// The binary with the settings that would change its behaviour removed from the
/// environment. `RAGGED_DISABLE_CUDA` is inherited (so that the child and this
/// process agree on whether CUDA is usable); tests that need it set or unset say so.
fn ragged() -> Command {
    let mut command = Command::new(BIN);
    command
        .env_remove("RAGGED_DEVICE")
        .env_remove("RAGGED_MEMORY_LIMIT")
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE")
        .stdin(Stdio::null());
    command
}

fn capture(command: &mut Command) -> Run {
    let Output {
        status,
        stdout,
        stderr,
    } = command.output().expect("cannot run the ragged binary");
    Run {
        code: status.code(),
        stdout: String::from_utf8(stdout).expect("stdout is not UTF-8"),
        stderr: String::from_utf8(stderr).expect("stderr is not UTF-8"),
    }
}

/// Run `ragged ARGS…`.
fn run(args: &[&str]) -> Run {
    capture(ragged().args(args))
}

/// Whether a CUDA device is usable from this process (and so from its children).
fn cuda_usable() -> bool {
    !matches!(
        ragged::cuda_status(),
        ragged::CudaStatus::Unavailable { .. }
    )
}

/// The run succeeded; returns its stdout.
#[track_caller]
fn assert_ok(run: &Run) -> &str {
    assert!(
        run.success(),
        "expected success, got {:?}\nstdout: {}\nstderr: {}",
        run.code,
        run.stdout,
        run.stderr
    );
    assert_no_panic(run);
    &run.stdout
}

#[track_caller]
fn assert_no_panic(run: &Run) {
    for bad in ["panicked", "RUST_BACKTRACE", "internal error"] {
        assert!(
            !run.stderr.contains(bad) && !run.stdout.contains(bad),
            "output mentions {bad:?}\nstdout: {}\nstderr: {}",
            run.stdout,
            run.stderr
        );
    }
}

/// The run failed cleanly: exit status 1, nothing on stdout, and stderr is exactly one
/// line `error: …` (after an optional auto-device notice) that contains every string
/// of `needles`. Returns the error line.
#[track_caller]
fn assert_error<'a>(run: &'a Run, needles: &[&str]) -> &'a str {
    assert_eq!(
        run.code,
        Some(1),
        "expected exit status 1\nstdout: {}\nstderr: {}",
        run.stdout,
        run.stderr
    );
    assert_no_panic(run);
    assert!(
        run.stdout.is_empty(),
        "a failed run printed to stdout: {:?}",
        run.stdout
    );
    assert!(
        run.stderr.ends_with('\n'),
        "stderr does not end with a newline: {:?}",
        run.stderr
    );
    let lines: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| !l.starts_with("notice: CUDA unavailable ("))
        .collect();
    assert_eq!(
        lines.len(),
        1,
        "expected one error line on stderr, got: {:?}",
        run.stderr
    );
    let line = lines[0];
    assert!(line.starts_with("error: "), "not an error line: {line:?}");
    assert!(
        line.len() > "error: ".len() + 10,
        "error message too short: {line:?}"
    );
    for needle in needles {
        assert!(
            line.contains(needle),
            "error line does not contain {needle:?}: {line:?}"
        );
    }
    line
}

// ---------------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------------

fn tempdir() -> TempDir {
    tempfile::tempdir().expect("cannot create a temporary directory")
}

/// The names of the entries of `dir` (hidden ones included).
fn entries(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect()
}

/// `dir` holds exactly `expected` (in particular no output and no `.*ragged-tmp*`).
#[track_caller]
fn assert_entries(dir: &Path, expected: &[&str]) {
    let found = entries(dir);
    let leftovers: Vec<&String> = found.iter().filter(|n| n.contains("ragged-tmp")).collect();
    assert!(
        leftovers.is_empty(),
        "temporary files left in {}: {leftovers:?}",
        dir.display()
    );
    let expected: BTreeSet<String> = expected.iter().map(|s| (*s).to_owned()).collect();
    assert_eq!(found, expected, "unexpected entries in {}", dir.display());
}

fn display(path: &Path) -> String {
    path.display().to_string()
}

/// The strings of the `name` column of [`sample_columns`], with nulls, an empty string
/// and multi-byte characters (2-, 3- and 4-byte UTF-8).
const NAMES: [Option<&str>; 6] = [
    Some("Ada Lovelace"), // 12 characters, 12 bytes
    None,
    Some("Zoë Brontë"), // 10 characters, 12 bytes
    Some(""),           // 0, 0
    Some("美咲 😀"),    // 4 characters, 3 + 3 + 1 + 4 = 11 bytes
    None,
];
const NAME_CHARS: [Option<i32>; 6] = [Some(12), None, Some(10), Some(0), Some(4), None];
const NAME_BYTES: [Option<i32>; 6] = [Some(12), None, Some(12), Some(0), Some(11), None];

fn names_column() -> Column {
    Column::Utf8(StringColumn::from_options(NAMES))
}

/// `[[1, 2, 3], [], null, [4], [5, 6]]` as list<int32>, padded with `[]` to 6 rows.
fn visits_column() -> Column {
    let child = Column::Int32(PrimitiveColumn::from_vec(vec![1, 2, 3, 4, 5, 6]));
    let offsets = ScalarBuffer::from(vec![0i32, 3, 3, 3, 4, 6, 6]);
    let validity = NullBuffer::from(vec![true, true, false, true, true, true]);
    Column::List(ListColumn::try_new_shared(offsets, Arc::new(child), Some(validity)).unwrap())
}

/// Six rows of every kind of column the commands take.
fn sample_columns() -> Vec<(String, Column)> {
    vec![
        ("name".into(), names_column()),
        (
            "age".into(),
            Column::Int64(PrimitiveColumn::from_options([
                Some(1),
                None,
                Some(2),
                Some(-10),
                Some(40),
                Some(0),
            ])),
        ),
        (
            "small".into(),
            Column::Int32(PrimitiveColumn::from_options([
                Some(7),
                Some(-3),
                None,
                Some(100),
                Some(0),
                Some(1),
            ])),
        ),
        (
            "score".into(),
            Column::Float64(PrimitiveColumn::from_options([
                Some(1.5),
                None,
                Some(2.25),
                Some(-0.5),
                Some(0.0),
                Some(10.0),
            ])),
        ),
        ("visits".into(), visits_column()),
    ]
}

/// A temporary directory holding `file_name` written with [`sample_columns`].
fn sample_file(file_name: &str) -> (TempDir, PathBuf) {
    let dir = tempdir();
    let path = dir.path().join(file_name);
    write_table(&path, None, &sample_columns()).unwrap();
    (dir, path)
}

/// A temporary directory holding `file_name` with the given bytes.
fn raw_file(file_name: &str, bytes: &[u8]) -> (TempDir, PathBuf) {
    let dir = tempdir();
    let path = dir.path().join(file_name);
    std::fs::write(&path, bytes).unwrap();
    (dir, path)
}

/// Deterministic pseudo-random bytes (xorshift).
fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut state = seed | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect()
}

fn i32_options(column: &Column) -> Vec<Option<i32>> {
    match column {
        Column::Int32(c) => c.to_options(),
        other => panic!("expected int32, got {}", other.type_name()),
    }
}

fn string_options(column: &Column) -> Vec<Option<String>> {
    match column {
        Column::Utf8(c) => c.iter().map(|s| s.map(str::to_owned)).collect(),
        other => panic!("expected utf8, got {}", other.type_name()),
    }
}

/// The commands that read a file, each with the column it works on in
/// [`sample_columns`].
const COMMANDS: [(&[&str], &str); 4] = [
    (&["strings", "length"], "name"),
    (&["strings", "length", "--bytes"], "name"),
    (&["lists", "counts"], "visits"),
    (&["reduce", "sum"], "age"),
];

/// `ragged --device cpu CMD… -c COLUMN INPUT [-o OUTPUT]`.
fn run_command(command: &[&str], column: &str, input: &Path, output: Option<&Path>) -> Run {
    let mut cmd = ragged();
    cmd.args(["--device", "cpu"])
        .args(command)
        .args(["--column", column])
        .arg(input);
    if let Some(output) = output {
        cmd.arg("-o").arg(output);
    }
    capture(&mut cmd)
}

/// Every command on `input` fails with one error line containing `needles`, and
/// `dir` afterwards holds only `keep`. The commands that accept `-o` are run with an
/// output file in `dir` too.
#[track_caller]
fn assert_every_command_fails(input: &Path, dir: &Path, keep: &[&str], needles: &[&str]) {
    let out = dir.join("out.parquet");
    for (command, column) in COMMANDS {
        let result = run_command(command, column, input, None);
        assert_error(&result, needles);
        if command[0] != "reduce" {
            let result = run_command(command, column, input, Some(&out));
            assert_error(&result, needles);
        }
        assert_entries(dir, keep);
    }
}

// ---------------------------------------------------------------------------------
// Happy paths
// ---------------------------------------------------------------------------------

#[test]
fn strings_length_prints_the_summary() {
    let (dir, input) = sample_file("in.parquet");
    let result = capture(
        ragged()
            .args(["--device", "cpu", "strings", "length", "--column", "name"])
            .arg(&input),
    );
    let stdout = assert_ok(&result);
    // 12 + 10 + 0 + 4 = 26 characters over 4 valid rows.
    assert_eq!(
        stdout,
        "6 rows (2 null), 26 characters in all; per row min 0, mean 6.50, max 12\n"
    );
    // --device cpu: no notice, one closing line naming the device.
    assert!(!result.stderr.contains("notice"), "{}", result.stderr);
    assert!(
        result.stderr.starts_with("device cpu"),
        "stderr: {:?}",
        result.stderr
    );
    assert_entries(dir.path(), &["in.parquet"]);
}

#[test]
fn strings_length_bytes_prints_the_summary() {
    let (dir, input) = sample_file("in.arrow");
    let result = run_command(&["strings", "length", "--bytes"], "name", &input, None);
    // 12 + 12 + 0 + 11 = 35 bytes over 4 valid rows.
    assert_eq!(
        assert_ok(&result),
        "6 rows (2 null), 35 bytes in all; per row min 0, mean 8.75, max 12\n"
    );
    assert_entries(dir.path(), &["in.arrow"]);
}

#[test]
fn strings_length_quiet_prints_only_the_summary() {
    let (_dir, input) = sample_file("in.parquet");
    let result = capture(
        ragged()
            .args(["--quiet", "strings", "length", "-c", "name"])
            .arg(&input),
    );
    assert_eq!(
        assert_ok(&result),
        "6 rows (2 null), 26 characters in all; per row min 0, mean 6.50, max 12\n"
    );
    assert_eq!(result.stderr, "", "--quiet printed to stderr");
}

#[test]
fn strings_length_writes_parquet_that_reads_back() {
    let (dir, input) = sample_file("in.parquet");
    let out = dir.path().join("out.parquet");
    let result = run_command(&["strings", "length"], "name", &input, Some(&out));
    assert!(assert_ok(&result).contains("6 rows (2 null), 26 characters"));
    assert_entries(dir.path(), &["in.parquet", "out.parquet"]);

    let table = read_table(&out, None, None).unwrap();
    assert_eq!(
        table.names().collect::<Vec<_>>(),
        ["name", "name_length"],
        "output columns"
    );
    let expected: Vec<Option<String>> = NAMES.iter().map(|s| s.map(str::to_owned)).collect();
    assert_eq!(string_options(table.column("name").unwrap()), expected);
    assert_eq!(
        i32_options(table.column("name_length").unwrap()),
        NAME_CHARS
    );
}

#[test]
fn strings_length_bytes_writes_every_output_format() {
    for file_name in ["out.parquet", "out.arrow", "out.arrows", "out.csv"] {
        let (dir, input) = sample_file("in.parquet");
        let out = dir.path().join(file_name);
        let result = run_command(
            &["strings", "length", "--bytes"],
            "name",
            &input,
            Some(&out),
        );
        assert_ok(&result);
        assert_entries(dir.path(), &["in.parquet", file_name]);
        let table = read_table(&out, None, None).unwrap();
        assert_eq!(
            table.names().collect::<Vec<_>>(),
            ["name", "name_length_bytes"],
            "{file_name}"
        );
        let lengths: Vec<Option<i64>> = match table.column("name_length_bytes").unwrap() {
            // CSV infers integers as int64.
            Column::Int64(c) => c.to_options(),
            other => i32_options(other)
                .into_iter()
                .map(|v| v.map(i64::from))
                .collect(),
        };
        let expected: Vec<Option<i64>> = NAME_BYTES.iter().map(|v| v.map(i64::from)).collect();
        assert_eq!(lengths, expected, "{file_name}");
    }
}

#[test]
fn strings_length_replaces_an_existing_output() {
    let (dir, input) = sample_file("in.parquet");
    let out = dir.path().join("out.parquet");
    std::fs::write(&out, b"old contents").unwrap();
    assert_ok(&run_command(
        &["strings", "length"],
        "name",
        &input,
        Some(&out),
    ));
    assert_entries(dir.path(), &["in.parquet", "out.parquet"]);
    let table = read_table(&out, None, None).unwrap();
    assert_eq!(
        i32_options(table.column("name_length").unwrap()),
        NAME_CHARS
    );
}

#[test]
fn strings_length_reads_every_input_format() {
    for file_name in [
        "in.parquet",
        "in.arrow",
        "in.feather",
        "in.ipc",
        "in.arrows",
    ] {
        let (dir, input) = sample_file(file_name);
        let result = run_command(&["strings", "length"], "name", &input, None);
        assert_eq!(
            assert_ok(&result),
            "6 rows (2 null), 26 characters in all; per row min 0, mean 6.50, max 12\n",
            "{file_name}"
        );
        assert_entries(dir.path(), &[file_name]);
    }
    // CSV cannot hold the list column; write the flat ones. CSV keeps "" and nulls
    // apart (`""` and an empty field).
    let dir = tempdir();
    let input = dir.path().join("in.csv");
    write_table(&input, None, &[("name".to_string(), names_column())]).unwrap();
    let result = run_command(&["strings", "length"], "name", &input, None);
    assert_eq!(
        assert_ok(&result),
        "6 rows (2 null), 26 characters in all; per row min 0, mean 6.50, max 12\n"
    );
}

#[test]
fn strings_length_reads_an_arrow_stream_on_stdin() {
    let (_dir, input) = sample_file("in.arrows");
    let stdin = std::fs::File::open(&input).unwrap();
    let result = capture(
        ragged()
            .args(["--device", "cpu", "strings", "length", "-c", "name", "-"])
            .stdin(stdin),
    );
    assert_eq!(
        assert_ok(&result),
        "6 rows (2 null), 26 characters in all; per row min 0, mean 6.50, max 12\n"
    );
}

#[test]
fn format_option_overrides_the_extension() {
    let (dir, input) = sample_file("in.parquet");
    let renamed = dir.path().join("data.bin");
    std::fs::rename(&input, &renamed).unwrap();
    let result = capture(
        ragged()
            .args(["--device", "cpu", "strings", "length", "-c", "name"])
            .args(["--format", "parquet"])
            .arg(&renamed),
    );
    assert!(assert_ok(&result).starts_with("6 rows (2 null)"));
}

#[test]
fn auto_device_falls_back_to_the_cpu_with_one_notice() {
    let (_dir, input) = sample_file("in.parquet");
    // Disabled CUDA: the fallback happens on any machine.
    let result = capture(
        ragged()
            .env("RAGGED_DISABLE_CUDA", "1")
            .args(["strings", "length", "-c", "name"])
            .arg(&input),
    );
    assert!(assert_ok(&result).starts_with("6 rows (2 null), 26 characters"));
    let notices: Vec<&str> = result
        .stderr
        .lines()
        .filter(|l| l.contains("notice"))
        .collect();
    assert_eq!(
        notices,
        ["notice: CUDA unavailable (disabled by RAGGED_DISABLE_CUDA); using the CPU backend"],
        "stderr: {}",
        result.stderr
    );
    assert!(result.stderr.contains("device cpu"), "{}", result.stderr);

    // Without the variable, on this machine.
    if cuda_usable() {
        println!("skipped: a CUDA device is usable, auto does not fall back");
        return;
    }
    let result = capture(
        ragged()
            .env_remove("RAGGED_DISABLE_CUDA")
            .args(["strings", "length", "-c", "name"])
            .arg(&input),
    );
    assert_ok(&result);
    let notices: Vec<&str> = result
        .stderr
        .lines()
        .filter(|l| l.contains("notice"))
        .collect();
    assert_eq!(notices.len(), 1, "stderr: {}", result.stderr);
    assert!(
        notices[0].starts_with("notice: CUDA unavailable (")
            && notices[0].ends_with("); using the CPU backend"),
        "{}",
        notices[0]
    );

    // --quiet: no notice.
    let result = capture(
        ragged()
            .env("RAGGED_DISABLE_CUDA", "1")
            .args(["-q", "strings", "length", "-c", "name"])
            .arg(&input),
    );
    assert_ok(&result);
    assert_eq!(result.stderr, "");
}

#[test]
fn ragged_device_environment_variable_is_honoured() {
    let (_dir, input) = sample_file("in.parquet");
    let result = capture(
        ragged()
            .env("RAGGED_DEVICE", "cpu")
            .args(["strings", "length", "-c", "name"])
            .arg(&input),
    );
    assert_ok(&result);
    assert!(!result.stderr.contains("notice"), "{}", result.stderr);

    let result = capture(
        ragged()
            .env("RAGGED_DEVICE", "bogus")
            .args(["strings", "length", "-c", "name"])
            .arg(&input),
    );
    assert_error(&result, &["bogus"]);
}

#[test]
fn lists_counts_prints_the_summary() {
    let (dir, input) = sample_file("in.parquet");
    let result = run_command(&["lists", "counts"], "visits", &input, None);
    assert_eq!(assert_ok(&result), "6 lists (1 null), 6 elements in all\n");
    assert_entries(dir.path(), &["in.parquet"]);
}

#[test]
fn lists_counts_writes_the_list_and_the_counts() {
    let (dir, input) = sample_file("in.arrow");
    let out = dir.path().join("counts.parquet");
    let result = run_command(&["lists", "counts"], "visits", &input, Some(&out));
    assert_ok(&result);
    assert_entries(dir.path(), &["in.arrow", "counts.parquet"]);
    let table = read_table(&out, None, None).unwrap();
    assert_eq!(
        table.names().collect::<Vec<_>>(),
        ["visits", "visits_counts"]
    );
    assert_eq!(
        i32_options(table.column("visits_counts").unwrap()),
        [Some(3), Some(0), None, Some(1), Some(2), Some(0)]
    );
    let lists = table.lists("visits").unwrap();
    assert_eq!(lists.len(), 6);
    assert_eq!(
        i32_options(lists.child()),
        [1, 2, 3, 4, 5, 6].map(Some).to_vec()
    );
}

#[test]
fn lists_reductions_get_and_slice_write_one_row_per_list() {
    // visits: [[1, 2, 3], [], null, [4], [5, 6], []]
    let (dir, input) = sample_file("in.arrow");
    let out = dir.path().join("out.arrow");
    let i64_options = |table: &ragged::io::Table, name: &str| match table.column(name).unwrap() {
        Column::Int64(c) => c.to_options(),
        other => panic!("expected int64, got {}", other.type_name()),
    };
    let result = run_command(&["lists", "sum"], "visits", &input, Some(&out));
    assert_eq!(assert_ok(&result), "6 lists (1 null) → int64\n");
    let table = read_table(&out, None, None).unwrap();
    assert_eq!(
        i64_options(&table, "visits_sum"),
        [Some(6), Some(0), None, Some(4), Some(11), Some(0)]
    );
    let result = run_command(&["lists", "argmax"], "visits", &input, Some(&out));
    assert_ok(&result);
    let table = read_table(&out, None, None).unwrap();
    assert_eq!(
        i64_options(&table, "visits_argmax"),
        [Some(2), None, None, Some(0), Some(1), None]
    );
    let result = run_command(
        &["lists", "get", "--index", "-1"],
        "visits",
        &input,
        Some(&out),
    );
    assert_ok(&result);
    let table = read_table(&out, None, None).unwrap();
    assert_eq!(
        i32_options(table.column("visits_get").unwrap()),
        [Some(3), None, None, Some(4), Some(6), None]
    );
    let result = run_command(
        &["lists", "slice", "--start", "-2"],
        "visits",
        &input,
        Some(&out),
    );
    assert_ok(&result);
    let table = read_table(&out, None, None).unwrap();
    let sliced = table.lists("visits_slice").unwrap();
    assert_eq!(
        i32_options(sliced.child()),
        [2, 3, 4, 5, 6].map(Some).to_vec()
    );
}

#[test]
fn lists_flatten_writes_the_elements_alone() {
    let (dir, input) = sample_file("in.parquet");
    let out = dir.path().join("flat.parquet");
    let result = run_command(&["lists", "flatten"], "visits", &input, Some(&out));
    assert_eq!(assert_ok(&result), "6 elements (0 null)\n");
    let table = read_table(&out, None, None).unwrap();
    assert_eq!(table.names().collect::<Vec<_>>(), ["visits_flatten"]);
    assert_eq!(
        i32_options(table.column("visits_flatten").unwrap()),
        [1, 2, 3, 4, 5, 6].map(Some).to_vec()
    );
}

#[test]
fn lists_get_strict_names_the_first_short_list_and_writes_nothing() {
    let (dir, input) = sample_file("in.parquet");
    let out = dir.path().join("out.parquet");
    let result = run_command(
        &["lists", "get", "-i", "1", "--strict"],
        "visits",
        &input,
        Some(&out),
    );
    assert_error(&result, &["index 1 is out of range for list 1 of length 0"]);
    assert_entries(dir.path(), &["in.parquet"]);
    // A numeric reduction of a strings column is a type error naming the file.
    let result = run_command(&["lists", "sum"], "name", &input, None);
    assert_error(&result, &["in.parquet"]);
}

#[test]
fn reduce_sum_of_integer_and_float_columns() {
    let (dir, input) = sample_file("in.parquet");
    for (column, expected) in [
        ("age", "33\n"),      // int64: 1 + 2 - 10 + 40 + 0
        ("small", "105\n"),   // int32: 7 - 3 + 100 + 0 + 1
        ("score", "13.25\n"), // float64: 1.5 + 2.25 - 0.5 + 0 + 10
    ] {
        let result = run_command(&["reduce", "sum"], column, &input, None);
        assert_eq!(assert_ok(&result), expected, "reduce sum -c {column}");
    }
    // Parquet's uint8 and float32 too.
    let input = dir.path().join("more.arrow");
    write_table(
        &input,
        None,
        &[
            (
                "u8".to_string(),
                Column::UInt8(PrimitiveColumn::from_vec(vec![200, 200, 200])),
            ),
            (
                "f32".to_string(),
                Column::Float32(PrimitiveColumn::from_options([Some(0.5), None, Some(0.25)])),
            ),
        ],
    )
    .unwrap();
    // uint8 sums widen: 600 does not fit in u8.
    assert_eq!(
        assert_ok(&run_command(&["reduce", "sum"], "u8", &input, None)),
        "600\n"
    );
    assert_eq!(
        assert_ok(&run_command(&["reduce", "sum"], "f32", &input, None)),
        "0.75\n"
    );
}

#[test]
fn reduce_sum_refuses_an_output_file() {
    let (dir, input) = sample_file("in.parquet");
    let out = dir.path().join("out.parquet");
    let result = run_command(&["reduce", "sum"], "age", &input, Some(&out));
    assert_error(&result, &["--output"]);
    assert_entries(dir.path(), &["in.parquet"]);
}

#[test]
fn info_says_only_the_cpu_backend_is_available() {
    let result = capture(ragged().env("RAGGED_DISABLE_CUDA", "1").arg("info"));
    let stdout = assert_ok(&result);
    assert!(stdout.starts_with("ragged "), "{stdout}");
    assert!(
        stdout.contains("cuda: unavailable: disabled by RAGGED_DISABLE_CUDA"),
        "{stdout}"
    );
    assert!(
        stdout.contains("only the CPU backend is available"),
        "{stdout}"
    );

    if std::env::var_os("RAGGED_DISABLE_CUDA").is_some() || cuda_usable() {
        println!("skipped: CUDA is usable (or disabled in this process): info without RAGGED_DISABLE_CUDA");
        return;
    }
    let result = capture(ragged().env_remove("RAGGED_DISABLE_CUDA").arg("info"));
    let stdout = assert_ok(&result);
    assert!(stdout.contains("cuda: unavailable: "), "{stdout}");
    assert!(
        stdout.contains("only the CPU backend is available"),
        "{stdout}"
    );
    assert!(!result.stderr.contains("error"), "{}", result.stderr);
}

#[test]
fn device_cuda_without_a_gpu_is_a_clear_error() {
    let (dir, input) = sample_file("in.parquet");
    let out = dir.path().join("out.parquet");
    for disable in [true, false] {
        if !disable && cuda_usable() {
            println!("skipped: a CUDA device is usable, --device cuda works here");
            continue;
        }
        for device in ["cuda", "cuda:0", "cuda:7"] {
            let mut command = ragged();
            if disable {
                command.env("RAGGED_DISABLE_CUDA", "1");
            }
            command
                .args(["--device", device, "strings", "length", "-c", "name"])
                .arg(&input)
                .arg("-o")
                .arg(&out);
            let result = capture(&mut command);
            let line = assert_error(&result, &["device unavailable"]);
            assert!(!line.contains("notice"), "{line}");
            assert_entries(dir.path(), &["in.parquet"]);
        }
    }
}

#[test]
fn device_bogus_fails() {
    let (dir, input) = sample_file("in.parquet");
    for device in ["bogus", "cuda:x", "cuda:", ""] {
        let result = capture(
            ragged()
                .args(["--device", device, "strings", "length", "-c", "name"])
                .arg(&input),
        );
        assert_error(&result, &["device", "auto, cpu, cuda, cuda:N"]);
    }
    assert_entries(dir.path(), &["in.parquet"]);
}

#[test]
fn memory_limit_that_is_not_a_size_fails() {
    let (dir, input) = sample_file("in.parquet");
    for limit in ["lots", "2XB", "-1GiB", ""] {
        let result = capture(
            ragged()
                .args(["--device", "cpu"])
                .arg(format!("--memory-limit={limit}"))
                .args(["strings", "length", "-c", "name"])
                .arg(&input),
        );
        assert_error(&result, &["memory limit", "2GiB"]);
    }
    // The environment variable too.
    let result = capture(
        ragged()
            .env("RAGGED_MEMORY_LIMIT", "lots")
            .args(["--device", "cpu", "strings", "length", "-c", "name"])
            .arg(&input),
    );
    assert_error(&result, &["memory limit", "'lots'"]);
    // A valid size is accepted (it only limits CUDA allocations).
    let result = capture(
        ragged()
            .args(["--device", "cpu", "--memory-limit", "2GiB"])
            .args(["strings", "length", "-c", "name"])
            .arg(&input),
    );
    assert_ok(&result);
    assert_entries(dir.path(), &["in.parquet"]);
}

#[test]
fn bench_quick_primitives_prints_a_table_and_writes_json() {
    let dir = tempdir();
    let json = dir.path().join("bench.json");
    let result = capture(
        ragged()
            .args([
                "bench",
                "--quick",
                "--suite",
                "primitives",
                "--device",
                "cpu",
                "--json",
            ])
            .arg(&json),
    );
    let stdout = assert_ok(&result);
    let header = stdout.lines().next().unwrap_or_default();
    assert!(
        header.contains("case") && header.contains("GB/s"),
        "table header: {header:?}"
    );
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("reduce_sum") && l.contains("cpu")),
        "no reduce_sum row:\n{stdout}"
    );
    assert_entries(dir.path(), &["bench.json"]);

    let records: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let records = records.as_array().expect("a JSON array");
    assert!(!records.is_empty());
    for record in records {
        let object = record.as_object().expect("a JSON object per record");
        for field in ["case", "backend", "device"] {
            assert!(object[field].is_string(), "{field} in {record}");
        }
        for field in ["elements", "bytes"] {
            assert!(object[field].is_u64(), "{field} in {record}");
        }
        for field in ["seconds", "gb_per_s", "x_copy"] {
            let value = object[field].as_f64().unwrap_or(-1.0);
            assert!(value.is_finite() && value >= 0.0, "{field} in {record}");
        }
        assert_eq!(object["backend"], "cpu", "{record}");
    }
    assert!(
        records.iter().any(|r| r["case"]
            .as_str()
            .is_some_and(|c| c.starts_with("reduce_sum"))),
        "no reduce_sum record"
    );
}

#[test]
fn bench_unknown_suite_fails() {
    let dir = tempdir();
    let json = dir.path().join("bench.json");
    let result = capture(
        ragged()
            .args([
                "bench", "--quick", "--suite", "nope", "--device", "cpu", "--json",
            ])
            .arg(&json),
    );
    assert_error(&result, &["'nope'", "primitives"]);
    assert_entries(dir.path(), &[]);
}

#[test]
fn bench_filter_selecting_nothing_fails() {
    let dir = tempdir();
    let json = dir.path().join("bench.json");
    let result = capture(
        ragged()
            .args([
                "-q",
                "bench",
                "--quick",
                "--suite",
                "runtime",
                "--device",
                "cpu",
                "--filter",
                "(upload|download)/",
                "--json",
            ])
            .arg(&json),
    );
    assert_error(
        &result,
        &["'(upload|download)/'", "selects no case", "runtime suite"],
    );
    assert_entries(dir.path(), &[]);
}

#[test]
fn bench_json_in_a_missing_directory_fails() {
    let dir = tempdir();
    let json = dir.path().join("missing").join("bench.json");
    let result = capture(
        ragged()
            .args([
                "-q", "bench", "--quick", "--suite", "runtime", "--device", "cpu", "--json",
            ])
            .arg(&json),
    );
    // The table may already be printed: only stderr and the files are checked.
    assert_eq!(result.code, Some(1), "{result:?}");
    assert_no_panic(&result);
    let errors: Vec<&str> = result.stderr.lines().collect();
    assert_eq!(errors.len(), 1, "{}", result.stderr);
    assert!(errors[0].starts_with("error: "), "{}", errors[0]);
    assert!(errors[0].contains(&display(&json)), "{}", errors[0]);
    assert_entries(dir.path(), &[]);
}

// ---------------------------------------------------------------------------------
// The README quick start
// ---------------------------------------------------------------------------------

#[test]
fn readme_quick_start_on_the_example_data() {
    let people = Path::new(PEOPLE);
    assert!(
        people.is_file(),
        "{PEOPLE} is missing: run scripts/gen-example-data.sh"
    );
    let size = std::fs::metadata(people).unwrap().len();
    assert!(size < 500_000, "example data is {size} bytes");

    // As in the README: no --device (auto).
    let result = capture(
        ragged()
            .args(["strings", "length", "--column", "name"])
            .arg(people),
    );
    let stdout = assert_ok(&result);
    assert!(stdout.contains("rows"), "{stdout}");
    assert!(stdout.starts_with("10000 rows ("), "{stdout}");

    // The other README commands on the same file.
    let result = run_command(&["lists", "counts"], "visits", people, None);
    assert!(assert_ok(&result).starts_with("10000 lists ("));
    let result = run_command(&["reduce", "sum"], "age", people, None);
    let sum: i64 = assert_ok(&result).trim().parse().unwrap();
    assert!(sum > 0);
    let dir = tempdir();
    let out = dir.path().join("lengths.parquet");
    let result = run_command(
        &["strings", "length", "--bytes"],
        "name",
        people,
        Some(&out),
    );
    assert_ok(&result);
    let table = read_table(&out, None, None).unwrap();
    assert_eq!(table.num_rows(), 10_000);
}

// ---------------------------------------------------------------------------------
// Bad input: each fails with one line naming the file and writes nothing
// ---------------------------------------------------------------------------------

#[test]
fn missing_input_file() {
    let dir = tempdir();
    let input = dir.path().join("missing.parquet");
    assert_every_command_fails(
        &input,
        dir.path(),
        &[],
        &[&display(&input), "No such file or directory"],
    );
}

#[test]
fn directory_as_input() {
    let dir = tempdir();
    for name in ["data.parquet", "data.csv", "data"] {
        std::fs::create_dir(dir.path().join(name)).unwrap();
    }
    for name in ["data.parquet", "data.csv", "data"] {
        let input = dir.path().join(name);
        assert_every_command_fails(
            &input,
            dir.path(),
            &["data.parquet", "data.csv", "data"],
            &[&display(&input), "directory"],
        );
        assert!(entries(&input).is_empty(), "{name} was written into");
    }
}

#[test]
fn unreadable_input_file() {
    use std::os::unix::fs::PermissionsExt;
    let (dir, input) = sample_file("secret.parquet");
    std::fs::set_permissions(&input, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::File::open(&input).is_ok() {
        // Root (or a capability) reads the file anyway.
        println!("skipped: the file is still readable after chmod 000 (running as root?)");
        return;
    }
    assert_every_command_fails(
        &input,
        dir.path(),
        &["secret.parquet"],
        &[&display(&input), "ermission denied"],
    );
}

#[test]
fn corrupt_parquet() {
    let mut with_magic = b"PAR1".to_vec();
    with_magic.extend(noise(4096, 2));
    with_magic.extend(200u32.to_le_bytes());
    with_magic.extend(b"PAR1");
    let cases: [(&str, Vec<u8>); 4] = [
        ("random bytes", noise(4096, 1)),
        ("magic around random bytes", with_magic),
        ("empty", Vec::new()),
        ("text", b"name,age\nAda,36\n".to_vec()),
    ];
    for (what, bytes) in cases {
        let (dir, input) = raw_file("bad.parquet", &bytes);
        println!("{what}");
        assert_every_command_fails(&input, dir.path(), &["bad.parquet"], &[&display(&input)]);
    }
}

/// A valid file of `sample_columns` in the format of `file_name`, cut at several
/// points (half included): every command fails cleanly on each.
fn assert_truncations_fail(file_name: &str) {
    let (dir, input) = sample_file(file_name);
    let bytes = std::fs::read(&input).unwrap();
    let n = bytes.len();
    // An IPC stream cut exactly before its 8-byte end-of-stream marker is still a
    // valid stream (the marker is optional), so that cut is for files only.
    let mut cuts = vec![n / 2, n - 1, n - 4, n - 12, n / 3, 2 * n / 3, 8, 4, 1];
    if !file_name.ends_with(".arrows") {
        cuts.push(n - 8);
    }
    cuts.sort_unstable();
    cuts.dedup();
    for cut in cuts {
        println!("{file_name}: {cut} of {n} bytes");
        let truncated = dir.path().join(format!("cut-{file_name}"));
        std::fs::write(&truncated, &bytes[..cut]).unwrap();
        let keep = [file_name.to_string(), format!("cut-{file_name}")];
        let keep: Vec<&str> = keep.iter().map(String::as_str).collect();
        assert_every_command_fails(&truncated, dir.path(), &keep, &[&display(&truncated)]);
    }
}

#[test]
fn truncated_parquet() {
    assert_truncations_fail("in.parquet");
}

#[test]
fn truncated_arrow_ipc_file() {
    assert_truncations_fail("in.arrow");
}

#[test]
fn truncated_arrow_ipc_stream() {
    assert_truncations_fail("in.arrows");
}

/// 1000 rows of names and lists, enough for several data pages.
fn larger_columns() -> Vec<(String, Column)> {
    let names: Vec<Option<String>> = (0..1000)
        .map(|i| (i % 17 != 0).then(|| format!("Zoë Brontë {i} 美咲")))
        .collect();
    let mut offsets = vec![0i32];
    let mut values = Vec::new();
    for i in 0..1000 {
        values.extend((0..i % 7).map(|j| i * 10 + j));
        offsets.push(i32::try_from(values.len()).unwrap());
    }
    let child = Column::Int32(PrimitiveColumn::from_vec(values));
    let lists = ListColumn::try_new(ScalarBuffer::from(offsets), child, None).unwrap();
    vec![
        (
            "name".into(),
            Column::Utf8(StringColumn::from_options(names)),
        ),
        ("visits".into(), Column::List(lists)),
    ]
}

/// A valid file whose body (not its footer) is overwritten with noise in several
/// places, one at a time: each command either succeeds (the damage may hit bytes that
/// do not matter, or values) or fails with one line naming the file, and never panics
/// or leaves an output behind.
fn assert_body_corruption_is_handled(file_name: &str) {
    let dir = tempdir();
    let input = dir.path().join(file_name);
    write_table(&input, None, &larger_columns()).unwrap();
    let bytes = std::fs::read(&input).unwrap();
    let n = bytes.len();
    let bad = dir.path().join(format!("bad-{file_name}"));
    let out = dir.path().join("out.parquet");
    let mut failures = 0;
    for seed in 1..=16u64 {
        let mut damaged = bytes.clone();
        let start = 8 + usize::try_from(seed * 7919).unwrap() % (n / 2);
        let len = [1, 8, 64, 300][usize::try_from(seed).unwrap() % 4];
        let end = (start + len).min(n - 16);
        damaged[start..end].copy_from_slice(&noise(end - start, seed));
        std::fs::write(&bad, &damaged).unwrap();
        for (command, column) in [
            (&["strings", "length"][..], "name"),
            (&["lists", "counts"][..], "visits"),
        ] {
            let result = run_command(command, column, &bad, Some(&out));
            if result.success() {
                assert_no_panic(&result);
                std::fs::remove_file(&out).unwrap();
            } else {
                failures += 1;
                assert_error(&result, &[&display(&bad)]);
            }
            let keep = [file_name.to_string(), format!("bad-{file_name}")];
            let keep: Vec<&str> = keep.iter().map(String::as_str).collect();
            assert_entries(dir.path(), &keep);
        }
    }
    assert!(failures > 0, "no corruption of {file_name} was detected");
}

#[test]
fn parquet_with_a_corrupt_body() {
    assert_body_corruption_is_handled("in.parquet");
}

#[test]
fn arrow_ipc_file_with_a_corrupt_body() {
    assert_body_corruption_is_handled("in.arrow");
}

#[test]
fn arrow_ipc_with_invalid_utf8_in_a_strings_column() {
    for file_name in ["in.arrow", "in.arrows"] {
        let (dir, input) = sample_file(file_name);
        let mut bytes = std::fs::read(&input).unwrap();
        let at = bytes
            .windows(8)
            .position(|w| w == b"Lovelace")
            .expect("the value bytes are stored uncompressed");
        bytes[at] = 0xff;
        std::fs::write(&input, &bytes).unwrap();
        let out = dir.path().join("out.parquet");
        for output in [None, Some(out.as_path())] {
            let result = run_command(&["strings", "length"], "name", &input, output);
            assert_error(&result, &[&display(&input), "UTF"]);
            assert_entries(dir.path(), &[file_name]);
        }
    }
}

#[test]
fn corrupt_csv() {
    let cases: [(&str, &[u8]); 3] = [
        (
            "differing field counts",
            b"name,age\nAda,36\nAlan,41,extra\nGrace\n",
        ),
        ("invalid UTF-8", b"name,age\nAda,36\nZo\xeb\xff,41\n"),
        ("unterminated quote", b"name,age\n\"Ada,36\nAlan,41\n"),
    ];
    for (what, bytes) in cases {
        println!("{what}");
        let (dir, input) = raw_file("bad.csv", bytes);
        let out = dir.path().join("out.parquet");
        for (command, column) in [
            (&["strings", "length"][..], "name"),
            (&["reduce", "sum"][..], "age"),
        ] {
            assert_error(
                &run_command(command, column, &input, None),
                &[&display(&input)],
            );
            if command[0] == "strings" {
                assert_error(
                    &run_command(command, column, &input, Some(&out)),
                    &[&display(&input)],
                );
            }
            assert_entries(dir.path(), &["bad.csv"]);
        }
    }
}

#[test]
fn garbage_on_stdin() {
    let (_dir, input) = raw_file("noise", &noise(1000, 3));
    let result = capture(
        ragged()
            .args(["--device", "cpu", "strings", "length", "-c", "name", "-"])
            .stdin(std::fs::File::open(&input).unwrap()),
    );
    assert_error(&result, &["'-'"]);
}

#[test]
fn column_that_does_not_exist() {
    let (dir, input) = sample_file("in.parquet");
    let out = dir.path().join("out.parquet");
    for (command, _) in COMMANDS {
        for output in [None, Some(out.as_path())] {
            if output.is_some() && command[0] == "reduce" {
                continue;
            }
            let result = run_command(command, "nope", &input, output);
            assert_error(
                &result,
                &["'nope'", "available", "name, age, small, score, visits"],
            );
            assert_entries(dir.path(), &["in.parquet"]);
        }
    }
}

#[test]
fn column_that_does_not_exist_names_the_file() {
    let (_dir, input) = sample_file("in.parquet");
    let result = run_command(&["strings", "length"], "nope", &input, None);
    assert_error(&result, &["'nope'", &display(&input)]);
}

#[test]
fn column_of_the_wrong_type() {
    let (dir, input) = sample_file("in.parquet");
    let out = dir.path().join("out.parquet");
    let cases: [(&[&str], &str, &str); 6] = [
        (&["strings", "length"], "age", "int64"),
        (&["strings", "length", "--bytes"], "visits", "list"),
        (&["lists", "counts"], "name", "utf8"),
        (&["lists", "counts"], "score", "float64"),
        (&["reduce", "sum"], "name", "utf8"),
        (&["reduce", "sum"], "visits", "list"),
    ];
    for (command, column, actual) in cases {
        for output in [None, Some(out.as_path())] {
            if output.is_some() && command[0] == "reduce" {
                continue;
            }
            let result = run_command(command, column, &input, output);
            assert_error(&result, &[&format!("'{column}'"), actual]);
            assert_entries(dir.path(), &["in.parquet"]);
        }
    }
}

#[test]
fn column_of_the_wrong_type_names_the_file() {
    let (_dir, input) = sample_file("in.parquet");
    let result = run_command(&["strings", "length"], "age", &input, None);
    assert_error(&result, &["'age'", &display(&input)]);
}

#[test]
fn output_in_a_directory_that_does_not_exist() {
    let (dir, input) = sample_file("in.parquet");
    let missing = dir
        .path()
        .join("nonexistent")
        .join("dir")
        .join("out.parquet");
    for out in [missing.as_path(), Path::new("/nonexistent/dir/out.parquet")] {
        for (command, column) in [
            (&["strings", "length"][..], "name"),
            (&["lists", "counts"][..], "visits"),
        ] {
            let result = run_command(command, column, &input, Some(out));
            assert_error(&result, &[&display(out)]);
            assert!(!out.exists());
            assert_entries(dir.path(), &["in.parquet"]);
        }
    }
    assert!(!Path::new("/nonexistent").exists());
}

#[test]
fn output_that_is_a_directory_or_has_no_format() {
    let (dir, input) = sample_file("in.parquet");
    std::fs::create_dir(dir.path().join("taken.parquet")).unwrap();
    for (name, needle) in [("taken.parquet", "directory"), ("out.txt", "out.txt")] {
        let out = dir.path().join(name);
        let result = run_command(&["strings", "length"], "name", &input, Some(&out));
        assert_error(&result, &[needle]);
        assert_entries(dir.path(), &["in.parquet", "taken.parquet"]);
        assert!(entries(&dir.path().join("taken.parquet")).is_empty());
    }
}

#[test]
fn lists_counts_as_csv_fails_and_writes_nothing() {
    let (dir, input) = sample_file("in.parquet");
    let out = dir.path().join("out.csv");
    let result = run_command(&["lists", "counts"], "visits", &input, Some(&out));
    assert_error(&result, &["CSV", &display(&out)]);
    assert_entries(dir.path(), &["in.parquet"]);

    // An existing output is left untouched.
    std::fs::write(&out, b"keep me\n").unwrap();
    let result = run_command(&["lists", "counts"], "visits", &input, Some(&out));
    assert_error(&result, &["CSV"]);
    assert_entries(dir.path(), &["in.parquet", "out.csv"]);
    assert_eq!(std::fs::read(&out).unwrap(), b"keep me\n");
}

#[test]
fn command_line_mistakes_are_usage_errors() {
    // clap reports usage errors itself (exit status 2), without a panic.
    for args in [
        &["strings", "length", "in.parquet"][..], // no --column
        &["strings", "nope"],
        &["frobnicate"],
    ] {
        let result = run(args);
        assert_eq!(result.code, Some(2), "{args:?}: {result:?}");
        assert_no_panic(&result);
        assert!(result.stderr.starts_with("error: "), "{}", result.stderr);
    }
}

#[test]
fn strings_find_writes_character_positions() {
    let (dir, input) = sample_file("in.parquet");
    let out = dir.path().join("out.arrow");
    // "ë" in "Zoë Brontë" is character 2 (byte 2 as well), "😀" in "美咲 😀" character 3
    // (byte 7): positions count characters.
    for (pattern, expected) in [
        ("ë", [Some(-1), None, Some(2), Some(-1), Some(-1), None]),
        ("😀", [Some(-1), None, Some(-1), Some(-1), Some(3), None]),
        ("", [Some(0), None, Some(0), Some(0), Some(0), None]),
    ] {
        let result = run_command(
            &["strings", "find", "--pattern", pattern],
            "name",
            &input,
            Some(&out),
        );
        assert_ok(&result);
        let table = read_table(&out, None, None).unwrap();
        assert_eq!(
            table.names().collect::<Vec<_>>(),
            ["name", "name_find"],
            "output columns"
        );
        assert_eq!(i32_options(table.column("name_find").unwrap()), expected);
    }
}

#[test]
fn strings_searches_print_their_summaries() {
    let (_dir, input) = sample_file("in.parquet");
    for (command, pattern, summary) in [
        ("contains", "e", "6 rows (2 null): 1 true, 3 false\n"),
        ("starts-with", "Ada", "6 rows (2 null): 1 true, 3 false\n"),
        ("ends-with", "", "6 rows (2 null): 4 true, 0 false\n"),
        ("rfind", "ë", "6 rows (2 null): found in 1\n"),
        // "e" only in Lovelace (ë is another character); "" matches characters + 1.
        ("count-matches", "e", "6 rows (2 null): 2 matches in all\n"),
        ("count-matches", "", "6 rows (2 null): 30 matches in all\n"),
    ] {
        let result = run_command(&["strings", command, "-p", pattern], "name", &input, None);
        assert_eq!(assert_ok(&result), summary, "{command} {pattern:?}");
    }
}

#[test]
fn strings_search_takes_a_pattern_column_and_checks_its_arguments() {
    let (dir, input) = sample_file("in.parquet");
    // Each name searched for itself: every valid row contains its own text.
    let result = capture(
        ragged()
            .args(["--device", "cpu", "strings", "contains", "-c", "name"])
            .args(["--pattern-column", "name"])
            .arg(&input),
    );
    assert_eq!(assert_ok(&result), "6 rows (2 null): 4 true, 0 false\n");
    let missing = run_command(&["strings", "contains"], "name", &input, None);
    assert_error(&missing, &["--pattern"]);
    let wrong_type = capture(
        ragged()
            .args(["--device", "cpu", "strings", "contains", "-c", "name"])
            .args(["--pattern-column", "age"])
            .arg(&input),
    );
    assert_error(&wrong_type, &["age"]);
    assert_entries(dir.path(), &["in.parquet"]);
}

#[test]
fn strings_slice_counts_characters_and_rejects_cut_characters() {
    let (dir, input) = sample_file("in.parquet");
    let out = dir.path().join("out.parquet");
    let result = run_command(
        &["strings", "slice", "--start", "-3"],
        "name",
        &input,
        Some(&out),
    );
    // "ace" + "ntë" (4 bytes) + "" + "咲 😀" (3 + 1 + 4 bytes).
    assert_eq!(assert_ok(&result), "6 rows (2 null), 15 bytes kept\n");
    let table = read_table(&out, None, None).unwrap();
    let expected: Vec<Option<String>> = [
        Some("ace"),
        None,
        Some("ntë"),
        Some(""),
        Some("咲 😀"),
        None,
    ]
    .iter()
    .map(|s| s.map(str::to_owned))
    .collect();
    assert_eq!(
        string_options(table.column("name_slice_chars").unwrap()),
        expected
    );
    // Bytes 0..3 of "Zoë Brontë" end inside "ë": an error naming row 2 and byte 3.
    let cut = run_command(
        &["strings", "slice", "--bytes", "--stop", "3"],
        "name",
        &input,
        Some(&dir.path().join("cut.parquet")),
    );
    assert_error(&cut, &["row 2", "byte 3"]);
    assert_entries(dir.path(), &["in.parquet", "out.parquet"]);
}

#[test]
fn strings_like_matches_characters_and_checks_the_pattern() {
    let (dir, input) = sample_file("in.parquet");
    for (pattern, summary) in [
        ("%e", "6 rows (2 null): 1 true, 3 false\n"),
        // `_` is one character: "Zoë Brontë" has 10, "美咲 😀" 4.
        ("__________", "6 rows (2 null): 1 true, 3 false\n"),
        ("____", "6 rows (2 null): 1 true, 3 false\n"),
        ("%", "6 rows (2 null): 4 true, 0 false\n"),
    ] {
        let result = run_command(&["strings", "like", "-p", pattern], "name", &input, None);
        assert_eq!(assert_ok(&result), summary, "{pattern}");
    }
    let bad = run_command(
        &["strings", "like", "-p", "a!", "--escape", "!"],
        "name",
        &input,
        Some(&dir.path().join("out.parquet")),
    );
    assert_error(&bad, &["escape"]);
    assert_entries(dir.path(), &["in.parquet"]);
}

#[test]
fn redact_writes_initials_and_redactions_and_checks_its_columns() {
    let dir = tempdir();
    let input = dir.path().join("people.parquet");
    let columns = vec![
        (
            "name".to_string(),
            Column::Utf8(StringColumn::from_options([
                Some("Ada Lovelace"),
                Some("Émile Ñu Zola"),
                Some("Cher"),
                None,
                Some("Alan Turing"),
            ])),
        ),
        (
            "visibility".to_string(),
            Column::Utf8(StringColumn::from_options([
                Some("public"),
                Some("public"),
                Some("public"),
                Some("private"),
                None,
            ])),
        ),
    ];
    write_table(&input, None, &columns).unwrap();
    let out = dir.path().join("out.arrow");
    let mut cmd = ragged();
    cmd.args([
        "--device",
        "cpu",
        "redact",
        "--names",
        "name",
        "--visibility",
        "visibility",
    ])
    .arg(&input)
    .arg("-o")
    .arg(&out);
    let result = capture(&mut cmd);
    assert_eq!(
        assert_ok(&result),
        "5 rows (1 null): 2 redacted to \"X X\"\n"
    );
    let table = read_table(&out, None, None).unwrap();
    assert_eq!(
        string_options(table.column("name_redacted").unwrap()),
        [
            Some("L Ada".to_string()),
            Some("Ñ Émile".to_string()),
            None,
            Some("X X".to_string()),
            Some("X X".to_string()),
        ]
    );
    let mut bad = ragged();
    bad.args([
        "--device",
        "cpu",
        "redact",
        "--names",
        "name",
        "--visibility",
        "nope",
    ])
    .arg(&input)
    .arg("-o")
    .arg(dir.path().join("bad.arrow"));
    assert_error(&capture(&mut bad), &["nope"]);
    assert_entries(dir.path(), &["out.arrow", "people.parquet"]);
}

#[test]
fn strings_rewrites_write_their_columns_and_check_their_arguments() {
    let (dir, input) = sample_file("in.parquet");
    let cases: [(&[&str], [Option<&str>; 6]); 5] = [
        (
            &["strings", "upper"],
            [
                Some("ADA LOVELACE"),
                None,
                Some("ZOË BRONTË"),
                Some(""),
                Some("美咲 😀"),
                None,
            ],
        ),
        (
            &["strings", "strip", "--side", "right", "--chars", "eë"],
            [
                Some("Ada Lovelac"),
                None,
                Some("Zoë Bront"),
                Some(""),
                Some("美咲 😀"),
                None,
            ],
        ),
        (
            &["strings", "pad", "--width", "6", "--fill", "·"],
            [
                Some("Ada Lovelace"),
                None,
                Some("Zoë Brontë"),
                Some("······"),
                Some("··美咲 😀"),
                None,
            ],
        ),
        (
            &[
                "strings",
                "replace",
                "-p",
                "ë",
                "-r",
                "e",
                "--max-count",
                "1",
            ],
            [
                Some("Ada Lovelace"),
                None,
                Some("Zoe Brontë"),
                Some(""),
                Some("美咲 😀"),
                None,
            ],
        ),
        (
            &["strings", "repeat", "--times", "2"],
            [
                Some("Ada LovelaceAda Lovelace"),
                None,
                Some("Zoë BrontëZoë Brontë"),
                Some(""),
                Some("美咲 😀美咲 😀"),
                None,
            ],
        ),
    ];
    for (command, want) in cases {
        let out = dir.path().join("out.parquet");
        assert_ok(&run_command(command, "name", &input, Some(&out)));
        let table = read_table(&out, None, None).unwrap();
        let name = format!("name_{}", command[1]);
        let want: Vec<Option<String>> = want.iter().map(|s| s.map(str::to_owned)).collect();
        assert_eq!(
            string_options(table.column(&name).unwrap()),
            want,
            "{command:?}"
        );
        std::fs::remove_file(&out).unwrap();
    }
    let bad = run_command(
        &["strings", "replace", "-p", "", "-r", "x"],
        "name",
        &input,
        Some(&dir.path().join("out.parquet")),
    );
    assert_error(&bad, &["pattern is empty"]);
    assert_entries(dir.path(), &["in.parquet"]);
}

// ---------------------------------------------------------------------------------
// Strings: split, split-record, concatenate, copy-if-else, join, append
// ---------------------------------------------------------------------------------

/// `rows` as owned options, for comparing with [`string_options`].
fn owned(rows: &[Option<&str>]) -> Vec<Option<String>> {
    rows.iter().map(|s| s.map(str::to_owned)).collect()
}

/// The rows of a list-of-strings column: `None` for a null list.
fn string_lists(column: &Column) -> Vec<Option<Vec<String>>> {
    let Column::List(lists) = column else {
        panic!("expected list<utf8>, got {}", column.type_name());
    };
    let parts = string_options(lists.child());
    (0..lists.len())
        .map(|i| {
            lists.is_valid(i).then(|| {
                parts[lists.range(i)]
                    .iter()
                    .map(|p| p.clone().expect("a null part"))
                    .collect()
            })
        })
        .collect()
}

/// `ragged --device cpu strings ARGS… INPUT [-o OUTPUT]`.
fn run_strings(args: &[&str], input: &Path, output: Option<&Path>) -> Run {
    let mut cmd = ragged();
    cmd.args(["--device", "cpu", "strings"])
        .args(args)
        .arg(input);
    if let Some(output) = output {
        cmd.arg("-o").arg(output);
    }
    capture(&mut cmd)
}

/// Five rows of two strings columns with nulls and multi-byte characters, and a
/// boolean mask with a null.
fn pair_file(file_name: &str) -> (TempDir, PathBuf) {
    let dir = tempdir();
    let path = dir.path().join(file_name);
    let columns = vec![
        (
            "first".to_string(),
            Column::Utf8(StringColumn::from_options([
                Some("Ada"),
                Some("Zoë"),
                None,
                Some(""),
                Some("美咲"),
            ])),
        ),
        (
            "last".to_string(),
            Column::Utf8(StringColumn::from_options([
                Some("Lovelace"),
                None,
                Some("Turing"),
                Some("Cher"),
                Some("😀"),
            ])),
        ),
        (
            "flag".to_string(),
            Column::Boolean(ragged::BooleanColumn::from_options([
                Some(true),
                Some(false),
                None,
                Some(true),
                Some(false),
            ])),
        ),
    ];
    write_table(&path, None, &columns).unwrap();
    (dir, path)
}

#[test]
fn strings_split_writes_the_input_and_the_part_columns() {
    let (dir, input) = sample_file("in.parquet");
    let out = dir.path().join("out.parquet");
    // Whitespace: "" has no part, so it is null in every part column.
    let result = run_strings(&["split", "-c", "name"], &input, Some(&out));
    assert_eq!(
        assert_ok(&result),
        "6 rows (2 null): 2 part columns, 6 parts in all\n"
    );
    let table = read_table(&out, None, None).unwrap();
    assert_eq!(
        table.names().collect::<Vec<_>>(),
        ["name", "name_0", "name_1"]
    );
    assert_eq!(
        string_options(table.column("name_0").unwrap()),
        owned(&[Some("Ada"), None, Some("Zoë"), None, Some("美咲"), None])
    );
    assert_eq!(
        string_options(table.column("name_1").unwrap()),
        owned(&[
            Some("Lovelace"),
            None,
            Some("Brontë"),
            None,
            Some("😀"),
            None
        ])
    );
    // A literal delimiter, one cut from the right: parts numbered from the left.
    let result = run_strings(
        &[
            "split",
            "-c",
            "name",
            "-d",
            "e",
            "--max-splits",
            "1",
            "--right",
        ],
        &input,
        Some(&out),
    );
    assert_ok(&result);
    let table = read_table(&out, None, None).unwrap();
    assert_eq!(
        string_options(table.column("name_0").unwrap()),
        owned(&[
            Some("Ada Lovelac"),
            None,
            Some("Zoë Brontë"),
            Some(""),
            Some("美咲 😀"),
            None
        ])
    );
    assert_eq!(
        string_options(table.column("name_1").unwrap()),
        owned(&[Some(""), None, None, None, None, None])
    );
    // A multi-byte delimiter, every cut: adjacent or trailing delimiters give empty parts.
    let result = run_strings(&["split", "-c", "name", "-d", "ë"], &input, None);
    assert_eq!(
        assert_ok(&result),
        "6 rows (2 null): 3 part columns, 6 parts in all\n"
    );
}

#[test]
fn strings_split_record_writes_one_list_per_row() {
    let (dir, input) = sample_file("in.parquet");
    let out = dir.path().join("out.arrow");
    let result = run_strings(
        &["split-record", "-c", "name", "-d", " "],
        &input,
        Some(&out),
    );
    assert_eq!(
        assert_ok(&result),
        "6 rows (2 null): 7 parts in all, at most 2 in a row\n"
    );
    let table = read_table(&out, None, None).unwrap();
    assert_eq!(table.names().collect::<Vec<_>>(), ["name", "name_split"]);
    let lists = |rows: &[Option<&[&str]>]| -> Vec<Option<Vec<String>>> {
        rows.iter()
            .map(|r| r.map(|parts| parts.iter().map(|p| (*p).to_owned()).collect()))
            .collect()
    };
    assert_eq!(
        string_lists(table.column("name_split").unwrap()),
        lists(&[
            Some(&["Ada", "Lovelace"]),
            None,
            Some(&["Zoë", "Brontë"]),
            Some(&[""]),
            Some(&["美咲", "😀"]),
            None,
        ])
    );
    // From the right with one cut, on whitespace: an empty row is an empty list.
    let result = run_strings(
        &["split-record", "-c", "name", "--max-splits", "1", "--right"],
        &input,
        Some(&out),
    );
    assert_ok(&result);
    let table = read_table(&out, None, None).unwrap();
    assert_eq!(
        string_lists(table.column("name_split").unwrap()),
        lists(&[
            Some(&["Ada", "Lovelace"]),
            None,
            Some(&["Zoë", "Brontë"]),
            Some(&[]),
            Some(&["美咲", "😀"]),
            None,
        ])
    );
}

#[test]
fn strings_split_record_refuses_csv_and_writes_nothing() {
    let (dir, input) = sample_file("in.parquet");
    let out = dir.path().join("out.csv");
    let result = run_strings(&["split-record", "-c", "name"], &input, Some(&out));
    assert_error(&result, &["CSV", &display(&out)]);
    assert_entries(dir.path(), &["in.parquet"]);
    // An existing output is left untouched.
    std::fs::write(&out, b"keep me\n").unwrap();
    let result = run_strings(&["split-record", "-c", "name"], &input, Some(&out));
    assert_error(&result, &["CSV"]);
    assert_eq!(std::fs::read(&out).unwrap(), b"keep me\n");
    // Split into columns, the same rows go to CSV.
    std::fs::remove_file(&out).unwrap();
    assert_ok(&run_strings(&["split", "-c", "name"], &input, Some(&out)));
    assert_entries(dir.path(), &["in.parquet", "out.csv"]);
}

#[test]
fn strings_split_checks_its_arguments_and_writes_nothing() {
    let (dir, input) = sample_file("in.parquet");
    let out = dir.path().join("out.parquet");
    for command in ["split", "split-record"] {
        let empty = run_strings(&[command, "-c", "name", "-d", ""], &input, Some(&out));
        assert_error(&empty, &["delimiter is empty"]);
        let missing = run_strings(&[command, "-c", "nope", "-d", ","], &input, Some(&out));
        assert_error(&missing, &["nope", "in.parquet"]);
        let wrong = run_strings(&[command, "-c", "age", "-d", ","], &input, Some(&out));
        assert_error(&wrong, &["age", "int64"]);
    }
    assert_entries(dir.path(), &["in.parquet"]);
}

#[test]
fn strings_concatenate_treats_nulls_as_asked() {
    let (dir, input) = pair_file("in.parquet");
    let out = dir.path().join("out.parquet");
    let both = [
        "concatenate",
        "-c",
        "first",
        "-c",
        "last",
        "--separator",
        " ",
    ];
    let cases: [(&[&str], [Option<&str>; 5]); 3] = [
        (
            &[],
            [
                Some("Ada Lovelace"),
                None,
                None,
                Some(" Cher"),
                Some("美咲 😀"),
            ],
        ),
        (
            &["--skip-nulls"],
            [
                Some("Ada Lovelace"),
                Some("Zoë"),
                Some("Turing"),
                Some(" Cher"),
                Some("美咲 😀"),
            ],
        ),
        (
            &["--null-replacement", "?"],
            [
                Some("Ada Lovelace"),
                Some("Zoë ?"),
                Some("? Turing"),
                Some(" Cher"),
                Some("美咲 😀"),
            ],
        ),
    ];
    for (extra, want) in cases {
        let args: Vec<&str> = both.iter().chain(extra).copied().collect();
        assert_ok(&run_strings(&args, &input, Some(&out)));
        let table = read_table(&out, None, None).unwrap();
        assert_eq!(
            table.names().collect::<Vec<_>>(),
            ["first", "last", "first_last_concatenated"]
        );
        assert_eq!(
            string_options(table.column("first_last_concatenated").unwrap()),
            owned(&want),
            "{extra:?}"
        );
    }
    // --name, and a summary without an output.
    let result = run_strings(
        &["concatenate", "-c", "last", "-c", "first", "--name", "both"],
        &input,
        Some(&out),
    );
    assert_eq!(
        assert_ok(&result),
        "5 rows (2 null) from 2 columns, 25 bytes\n"
    );
    let table = read_table(&out, None, None).unwrap();
    assert_eq!(
        string_options(table.column("both").unwrap()),
        owned(&[
            Some("LovelaceAda"),
            None,
            None,
            Some("Cher"),
            Some("😀美咲")
        ])
    );
    let conflicting = run_strings(
        &[
            "concatenate",
            "-c",
            "first",
            "--skip-nulls",
            "--null-replacement",
            "x",
        ],
        &input,
        None,
    );
    assert_eq!(conflicting.code, Some(2), "{conflicting:?}");
    let missing = run_strings(
        &["concatenate", "-c", "first", "-c", "nope"],
        &input,
        Some(&dir.path().join("bad.parquet")),
    );
    assert_error(&missing, &["nope", "in.parquet"]);
    let wrong = run_strings(
        &["concatenate", "-c", "first", "-c", "flag"],
        &input,
        Some(&dir.path().join("bad.parquet")),
    );
    assert_error(&wrong, &["flag", "bool"]);
    assert_entries(dir.path(), &["in.parquet", "out.parquet"]);
}

#[test]
fn strings_copy_if_else_takes_columns_or_values_by_a_boolean_mask() {
    let (dir, input) = pair_file("in.parquet");
    let out = dir.path().join("out.arrow");
    // A null mask row takes the else side; a chosen null is null.
    let result = run_strings(
        &[
            "copy-if-else",
            "--mask",
            "flag",
            "--then",
            "first",
            "--else",
            "last",
        ],
        &input,
        Some(&out),
    );
    assert_eq!(
        assert_ok(&result),
        "5 rows (1 null): 2 from then, 3 from else\n"
    );
    let table = read_table(&out, None, None).unwrap();
    assert_eq!(
        table.names().collect::<Vec<_>>(),
        ["flag", "first", "last", "flag_copy_if_else"]
    );
    assert_eq!(
        string_options(table.column("flag_copy_if_else").unwrap()),
        owned(&[Some("Ada"), None, Some("Turing"), Some(""), Some("😀")])
    );
    let result = run_strings(
        &[
            "copy-if-else",
            "--mask",
            "flag",
            "--then-value",
            "yes",
            "--else",
            "first",
            "--name",
            "chosen",
        ],
        &input,
        Some(&out),
    );
    assert_ok(&result);
    let table = read_table(&out, None, None).unwrap();
    assert_eq!(
        table.names().collect::<Vec<_>>(),
        ["flag", "first", "chosen"]
    );
    assert_eq!(
        string_options(table.column("chosen").unwrap()),
        owned(&[Some("yes"), Some("Zoë"), None, Some("yes"), Some("美咲")])
    );
    std::fs::remove_file(&out).unwrap();
    // The mask must be a boolean column of the input; each side is required.
    let bad = dir.path().join("bad.arrow");
    let wrong = run_strings(
        &[
            "copy-if-else",
            "--mask",
            "first",
            "--then-value",
            "a",
            "--else-value",
            "b",
        ],
        &input,
        Some(&bad),
    );
    assert_error(&wrong, &["first", "bool", "in.parquet"]);
    let missing = run_strings(
        &[
            "copy-if-else",
            "--mask",
            "nope",
            "--then-value",
            "a",
            "--else-value",
            "b",
        ],
        &input,
        Some(&bad),
    );
    assert_error(&missing, &["nope"]);
    let wrong_side = run_strings(
        &[
            "copy-if-else",
            "--mask",
            "flag",
            "--then",
            "flag",
            "--else-value",
            "b",
        ],
        &input,
        Some(&bad),
    );
    assert_error(&wrong_side, &["flag", "utf8"]);
    let no_else = run_strings(
        &["copy-if-else", "--mask", "flag", "--then-value", "a"],
        &input,
        Some(&bad),
    );
    assert_eq!(no_else.code, Some(2), "{no_else:?}");
    assert_entries(dir.path(), &["in.parquet"]);
}

#[test]
fn strings_join_writes_one_row_and_prints_its_length() {
    let (dir, input) = sample_file("in.parquet");
    let out = dir.path().join("out.parquet");
    let result = run_strings(
        &["join", "-c", "name", "--separator", "|"],
        &input,
        Some(&out),
    );
    // 12 + 10 + 0 + 4 characters and three separators; 12 + 12 + 0 + 11 bytes + 3.
    assert_eq!(
        assert_ok(&result),
        "4 of 6 rows joined (2 null left out): 29 characters, 38 bytes\n"
    );
    let table = read_table(&out, None, None).unwrap();
    assert_eq!(table.names().collect::<Vec<_>>(), ["name_joined"]);
    assert_eq!(
        string_options(table.column("name_joined").unwrap()),
        owned(&[Some("Ada Lovelace|Zoë Brontë||美咲 😀")])
    );
    let wrong = run_strings(&["join", "-c", "visits"], &input, None);
    assert_error(&wrong, &["visits"]);
    assert_entries(dir.path(), &["in.parquet", "out.parquet"]);
}

#[test]
fn strings_append_writes_the_rows_of_every_column_in_order() {
    let (dir, input) = pair_file("in.csv");
    let out = dir.path().join("out.parquet");
    let result = run_strings(&["append", "-c", "last", "-c", "first"], &input, Some(&out));
    assert_eq!(
        assert_ok(&result),
        "10 rows (2 null) from 2 columns, 35 bytes\n"
    );
    let table = read_table(&out, None, None).unwrap();
    assert_eq!(table.names().collect::<Vec<_>>(), ["last_first_appended"]);
    let got = string_options(table.column("last_first_appended").unwrap());
    // CSV keeps the empty string of `first` (written `""`): 2 nulls, 8 valid rows.
    assert_eq!(
        got.iter().flatten().map(String::as_str).collect::<Vec<_>>(),
        ["Lovelace", "Turing", "Cher", "😀", "Ada", "Zoë", "", "美咲"]
    );
    assert_eq!(got.len(), 10);
    let missing = run_strings(
        &["append", "-c", "first", "-c", "nope"],
        &input,
        Some(&dir.path().join("bad.parquet")),
    );
    assert_error(&missing, &["nope", "in.csv"]);
    assert_entries(dir.path(), &["in.csv", "out.parquet"]);
}

// ---------------------------------------------------------------------------------
// What a new user trips over: values starting with '-', one-line usage errors, CSV's
// empty strings, list views, the simple case mapping, redact's edge cases, reversed
// byte ranges, NaN in list minima
// ---------------------------------------------------------------------------------

/// `ragged --device cpu ARGS…` on a table written from `columns` as `file_name` in a
/// fresh directory; returns the run, the directory and the output path `out.parquet`.
fn run_on(columns: &[(String, Column)], file_name: &str, args: &[&str]) -> (Run, TempDir, PathBuf) {
    let dir = tempdir();
    let input = dir.path().join(file_name);
    write_table(&input, None, columns).unwrap();
    let out = dir.path().join("out.parquet");
    let result = capture(
        ragged()
            .args(["--device", "cpu"])
            .args(args)
            .arg(&input)
            .arg("-o")
            .arg(&out),
    );
    (result, dir, out)
}

/// The strings column `name` of the output file.
fn output_strings(out: &Path, name: &str) -> Vec<Option<String>> {
    string_options(read_table(out, None, None).unwrap().column(name).unwrap())
}

#[test]
fn values_may_start_with_a_hyphen() {
    let dir = tempdir();
    let text = dir.path().join("f.txt");
    std::fs::write(&text, b"a--\r\nb--\r\nc").unwrap();
    let count = run(&[
        "--device",
        "cpu",
        "lines",
        &display(&text),
        "-d",
        "--\\r\\n",
        "--count",
    ]);
    assert_eq!(assert_ok(&count), "3\n");

    let columns = vec![(
        "s".to_string(),
        Column::Utf8(StringColumn::from_options([Some("a-b"), Some("-x")])),
    )];
    let (r, _dir, out) = run_on(
        &columns,
        "in.parquet",
        &["strings", "replace", "-c", "s", "-p", "-", "-r", "--"],
    );
    assert_ok(&r);
    assert_eq!(
        output_strings(&out, "s_replace"),
        [Some("a--b".into()), Some("--x".into())]
    );
    let (r, _dir, out) = run_on(
        &columns,
        "in.parquet",
        &["strings", "pad", "-c", "s", "--width", "4", "--fill", "-"],
    );
    assert_ok(&r);
    assert_eq!(
        output_strings(&out, "s_pad"),
        [Some("-a-b".into()), Some("---x".into())]
    );
    let (r, _dir, out) = run_on(
        &columns,
        "in.parquet",
        &[
            "strings",
            "concatenate",
            "-c",
            "s",
            "-c",
            "s",
            "--separator",
            "-|",
        ],
    );
    assert_ok(&r);
    assert_eq!(
        output_strings(&out, "s_s_concatenated"),
        [Some("a-b-|a-b".into()), Some("-x-|-x".into())]
    );
}

#[test]
fn usage_errors_are_one_line_with_status_2() {
    for args in [
        &[
            "strings", "pad", "-c", "name", "--width", "3", "--fill", "ab", PEOPLE,
        ][..],
        &["strings", "repeat", "-c", "name", "--times", "-1", PEOPLE],
        &["strings", "nope"],
        &["lines"],
        &["--bogus", "info"],
    ] {
        let r = run(args);
        assert_eq!(r.code, Some(2), "{args:?}: {r:?}");
        assert!(r.stdout.is_empty(), "{args:?}: {r:?}");
        let lines: Vec<&str> = r.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{args:?}: {:?}", r.stderr);
        assert!(
            lines[0].starts_with("error: ") && lines[0].ends_with("(see --help)"),
            "{lines:?}"
        );
    }
    let r = run(&["strings", "repeat", "-c", "name", "--times", "-1", PEOPLE]);
    assert!(
        r.stderr.contains("invalid value '-1' for '--times"),
        "{}",
        r.stderr
    );
    // Help still prints in full, to stdout.
    let help = run(&["strings", "--help"]);
    assert!(assert_ok(&help).contains("Examples:"));
}

#[test]
fn csv_keeps_empty_strings_and_nulls_apart_through_ragged() {
    let (dir, input) = sample_file("in.parquet");
    let csv = dir.path().join("upper.csv");
    assert_ok(&run_command(
        &["strings", "upper"],
        "name",
        &input,
        Some(&csv),
    ));
    let text = std::fs::read_to_string(&csv).unwrap();
    // NAMES: row 1 and 5 null (empty fields), row 3 empty ("").
    assert_eq!(
        text,
        "name,name_upper\nAda Lovelace,ADA LOVELACE\n,\nZoë Brontë,ZOË BRONTË\n\"\",\"\"\n美咲 😀,美咲 😀\n,\n"
    );
    let length = run_command(&["strings", "length"], "name_upper", &csv, None);
    assert_eq!(
        assert_ok(&length),
        "6 rows (2 null), 26 characters in all; per row min 0, mean 6.50, max 12\n"
    );
    // And back to Parquet: the same rows as the input.
    let back = dir.path().join("back.parquet");
    assert_ok(&run_command(
        &["strings", "lower"],
        "name",
        &csv,
        Some(&back),
    ));
    let expected: Vec<Option<String>> = NAMES.iter().map(|s| s.map(str::to_owned)).collect();
    assert_eq!(output_strings(&back, "name"), expected);
}

#[test]
fn list_view_columns_and_lz4_ipc_files_are_read_by_the_list_commands() {
    use arrow_array::{Array, Int32Array, LargeListViewArray, ListViewArray, RecordBatch};
    use arrow_schema::{DataType, Field};
    // [[1, 2, 3], [], null, [4], [5, 6]] with the lists out of order in the child.
    let child = Arc::new(Int32Array::from(vec![5, 6, 4, 1, 2, 3]));
    let item = Arc::new(Field::new("item", DataType::Int32, true));
    let nulls = Some(arrow_buffer::NullBuffer::from(vec![
        true, true, false, true, true,
    ]));
    let small = ListViewArray::new(
        item.clone(),
        vec![3, 0, 0, 2, 0].into(),
        vec![3, 0, 0, 1, 2].into(),
        child.clone(),
        nulls.clone(),
    );
    let large = LargeListViewArray::new(
        item,
        vec![3i64, 0, 0, 2, 0].into(),
        vec![3i64, 0, 0, 1, 2].into(),
        child,
        nulls,
    );
    for (name, array) in [
        ("list_view", Arc::new(small) as Arc<dyn Array>),
        ("large_list_view", Arc::new(large)),
    ] {
        let batch = RecordBatch::try_from_iter([("v", array)]).unwrap();
        let dir = tempdir();
        let input = dir.path().join("in.arrow");
        // LZ4-compressed, as pyarrow's `feather.write_feather` writes by default.
        let options = arrow_ipc::writer::IpcWriteOptions::default()
            .try_with_compression(Some(arrow_ipc::CompressionType::LZ4_FRAME))
            .unwrap();
        let file = std::fs::File::create(&input).unwrap();
        let mut writer =
            arrow_ipc::writer::FileWriter::try_new_with_options(file, &batch.schema(), options)
                .unwrap();
        writer.write(&batch).unwrap();
        writer.finish().unwrap();
        let out = dir.path().join("out.parquet");
        assert_ok(&run_command(&["lists", "sum"], "v", &input, Some(&out)));
        let table = read_table(&out, None, None).unwrap();
        let sums = match table.column("v_sum").unwrap() {
            Column::Int64(c) => c.to_options(),
            other => panic!("{name}: {}", other.type_name()),
        };
        assert_eq!(sums, [Some(6), Some(0), None, Some(4), Some(11)], "{name}");
        let counts = run_command(&["lists", "counts"], "v", &input, None);
        assert_eq!(
            assert_ok(&counts),
            "5 lists (1 null), 6 elements in all\n",
            "{name}"
        );
    }
}

#[test]
fn upper_and_lower_use_the_simple_case_mapping() {
    let columns = vec![(
        "s".to_string(),
        Column::Utf8(StringColumn::from_options([
            Some("İstanbul"),
            Some("ᾳ straße ﬀ"),
            Some("ǅ"),
        ])),
    )];
    let (r, _dir, out) = run_on(&columns, "in.parquet", &["strings", "lower", "-c", "s"]);
    assert_ok(&r);
    assert_eq!(
        output_strings(&out, "s_lower"),
        [
            Some("istanbul".into()),
            Some("ᾳ straße ﬀ".into()),
            Some("ǆ".into())
        ]
    );
    let (r, _dir, out) = run_on(&columns, "in.parquet", &["strings", "upper", "-c", "s"]);
    assert_ok(&r);
    assert_eq!(
        output_strings(&out, "s_upper"),
        [
            Some("İSTANBUL".into()),
            Some("ᾼ STRAßE ﬀ".into()),
            Some("Ǆ".into())
        ]
    );
}

#[test]
fn redact_edge_cases_are_as_documented() {
    let names = [
        Some("Jane Doe"),
        Some("Cher"),
        Some("Jane  Doe"),
        Some("Ann\tLee"),
        Some(" Lee"),
        None,
        Some("Jane Doe"),
    ];
    let visibility = [Some("public"); 6].into_iter().chain([None]);
    let columns = vec![
        (
            "n".to_string(),
            Column::Utf8(StringColumn::from_options(names)),
        ),
        (
            "v".to_string(),
            Column::Utf8(StringColumn::from_options(visibility)),
        ),
    ];
    let dir = tempdir();
    let input = dir.path().join("in.parquet");
    write_table(&input, None, &columns).unwrap();
    let out = dir.path().join("out.parquet");
    let r = capture(
        ragged()
            .args([
                "--device",
                "cpu",
                "redact",
                "--names",
                "n",
                "--visibility",
                "v",
            ])
            .arg(&input)
            .arg("-o")
            .arg(&out),
    );
    assert_ok(&r);
    assert_eq!(
        output_strings(&out, "n_redacted"),
        [
            Some("D Jane".into()),
            None,
            Some(" Jane".into()),
            None,
            Some("L ".into()),
            None,
            Some("X X".into())
        ]
    );
}

#[test]
fn a_reversed_byte_range_is_an_error() {
    let (dir, text) = raw_file("f.txt", b"one\ntwo\nthree\n");
    let r = run(&[
        "--device",
        "cpu",
        "lines",
        &display(&text),
        "--byte-range",
        "10:5",
    ]);
    assert_error(&r, &["10:5", "starts after it ends"]);
    let r = run(&[
        "--device",
        "cpu",
        "lines",
        &display(&text),
        "--byte-range",
        "10:5",
        "-o",
        "x.parquet",
    ]);
    assert_error(&r, &["10:5"]);
    assert_entries(dir.path(), &["f.txt"]);
}

#[test]
fn list_minima_skip_nan_unless_every_element_is_nan() {
    let child = Column::Float64(PrimitiveColumn::from_vec(vec![
        f64::NAN,
        f64::NAN,
        1.0,
        f64::NAN,
        0.5,
    ]));
    let offsets = ScalarBuffer::from(vec![0i32, 2, 5, 5]);
    let lists = Column::List(ListColumn::try_new_shared(offsets, Arc::new(child), None).unwrap());
    let columns = vec![("x".to_string(), lists)];
    let floats =
        |out: &Path, name: &str| match read_table(out, None, None).unwrap().column(name).unwrap() {
            Column::Float64(c) => c.to_options(),
            other => panic!("{}", other.type_name()),
        };
    let ints =
        |out: &Path, name: &str| match read_table(out, None, None).unwrap().column(name).unwrap() {
            Column::Int64(c) => c.to_options(),
            other => panic!("{}", other.type_name()),
        };
    let (r, _d, out) = run_on(&columns, "in.parquet", &["lists", "min", "-c", "x"]);
    assert_ok(&r);
    let min = floats(&out, "x_min");
    assert!(
        min[0].unwrap().is_nan() && min[1] == Some(0.5) && min[2].is_none(),
        "{min:?}"
    );
    let (r, _d, out) = run_on(&columns, "in.parquet", &["lists", "max", "-c", "x"]);
    assert_ok(&r);
    let max = floats(&out, "x_max");
    assert!(
        max[0].unwrap().is_nan() && max[1] == Some(1.0) && max[2].is_none(),
        "{max:?}"
    );
    for (op, want) in [
        ("argmin", [Some(0), Some(2), None]),
        ("argmax", [Some(0), Some(0), None]),
    ] {
        let (r, _d, out) = run_on(&columns, "in.parquet", &["lists", op, "-c", "x"]);
        assert_ok(&r);
        assert_eq!(ints(&out, &format!("x_{op}")), want, "{op}");
    }
}
