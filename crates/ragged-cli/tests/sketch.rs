//! Integration tests of `ragged sketch`: the binary is run on small FASTA/FASTQ files
//! on the CPU device, and its outputs (Parquet, Arrow IPC, TSV, JSON) are read back.

// Test code: helpers may unwrap, expect and panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs::File;
use std::path::Path;
use std::process::{Command, Stdio};

use arrow_array::cast::AsArray;
use arrow_array::types::Float32Type;
use arrow_array::RecordBatch;
use ragged::ops::{Alphabet, SketchTables};
use tempfile::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_ragged");

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Run `ragged --device cpu ARGS…` in `dir`.
fn run(dir: &Path, args: &[&str]) -> Run {
    let output = Command::new(BIN)
        .current_dir(dir)
        .env_remove("RAGGED_DEVICE")
        .env_remove("RAGGED_MEMORY_LIMIT")
        .env_remove("RUST_BACKTRACE")
        .stdin(Stdio::null())
        .args(["--device", "cpu"])
        .args(args)
        .output()
        .expect("cannot run the ragged binary");
    Run {
        code: output.status.code(),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

#[track_caller]
fn assert_ok(run: &Run) -> &str {
    assert_eq!(
        run.code,
        Some(0),
        "stdout: {}\nstderr: {}",
        run.stdout,
        run.stderr
    );
    &run.stdout
}

/// A clean failure: exit 1, nothing on stdout, one `error: …` line containing every
/// needle.
#[track_caller]
fn assert_error(run: &Run, needles: &[&str]) {
    assert_eq!(run.code, Some(1), "stderr: {}", run.stderr);
    assert!(run.stdout.is_empty(), "stdout: {}", run.stdout);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "stderr: {}", run.stderr);
    assert!(lines[0].starts_with("error: "), "{}", lines[0]);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    for needle in needles {
        assert!(lines[0].contains(needle), "{needle:?} not in {}", lines[0]);
    }
}

/// The files in `dir`, sorted.
fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

const FASTA: &str = ">exact three\nACG\n>long\nACGTTGCA\nNNacgt\r\n>empty\n>other\nTTTTGGGGCCCA\n";

fn setup() -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("x.fa"), FASTA).unwrap();
    dir
}

/// Names and sketch rows of a sketches file.
fn read_sketches(path: &Path) -> (Vec<String>, Vec<Vec<f32>>) {
    let batches: Vec<RecordBatch> = if path.extension().is_some_and(|e| e == "parquet") {
        parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
            File::open(path).unwrap(),
        )
        .unwrap()
        .build()
        .unwrap()
        .map(|b| b.unwrap())
        .collect()
    } else {
        arrow_ipc::reader::FileReader::try_new(File::open(path).unwrap(), None)
            .unwrap()
            .map(|b| b.unwrap())
            .collect()
    };
    let (mut names, mut rows) = (Vec::new(), Vec::new());
    for batch in batches {
        let schema = batch.schema();
        assert_eq!(schema.field(0).name(), "name");
        assert_eq!(schema.field(1).name(), "sketch");
        let name = batch.column(0).as_string::<i64>();
        let sketch = batch.column(1).as_fixed_size_list();
        let dim = sketch.value_length() as usize;
        let values = sketch.values().as_primitive::<Float32Type>().values();
        for i in 0..batch.num_rows() {
            names.push(name.value(i).to_string());
            rows.push(values[i * dim..(i + 1) * dim].to_vec());
        }
    }
    (names, rows)
}

/// The closed form of the sketch of exactly `t` codes: one ±1 entry.
fn closed_form(tables: &SketchTables, codes: &[u8]) -> Vec<f32> {
    let dim = tables.dim();
    let mut index = 0;
    let mut sign = 1;
    for (p, &c) in codes.iter().enumerate() {
        index += tables.hash(p + 1, usize::from(c));
        sign *= tables.sign(p + 1, usize::from(c));
    }
    let mut out = vec![0.0; dim];
    out[index % dim] = sign as f32;
    out
}

#[track_caller]
fn assert_close(a: &[f32], b: &[f32]) {
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() < 1e-4, "{a:?}\n{b:?}");
    }
}

#[test]
fn sketches_to_parquet_with_the_closed_form() {
    let dir = setup();
    let out = run(
        dir.path(),
        &[
            "sketch",
            "x.fa",
            "-t",
            "3",
            "-D",
            "16",
            "--seed",
            "7",
            "-o",
            "s.parquet",
        ],
    );
    let stdout = assert_ok(&out);
    assert!(stdout.contains("4 records"), "{stdout}");
    assert!(stdout.contains("dimension 16"), "{stdout}");
    assert!(out.stderr.contains("device cpu"), "{}", out.stderr);
    let (names, rows) = read_sketches(&dir.path().join("s.parquet"));
    assert_eq!(names, ["exact three", "long", "empty", "other"]);
    assert!(rows.iter().all(|r| r.len() == 16));
    let tables = SketchTables::from_seed(3, 16, 4, 7).unwrap();
    assert_close(
        &rows[0],
        &closed_form(&tables, &Alphabet::Dna.encode(b"ACG")),
    );
    assert!(rows[2].iter().all(|&v| v == 0.0), "empty: {:?}", rows[2]);
    assert!(rows[1].iter().any(|&v| v != 0.0));
}

#[test]
fn sketches_to_arrow_with_defaults() {
    let dir = setup();
    assert_ok(&run(dir.path(), &["sketch", "x.fa", "-o", "s.arrow"]));
    let (names, rows) = read_sketches(&dir.path().join("s.arrow"));
    assert_eq!(names.len(), 4);
    assert!(rows.iter().all(|r| r.len() == 96));
    // Default t = 4, D = 96, seed 0: "ACGT" starts the 14-code record "long", so
    // compare a record of exactly four codes instead.
    std::fs::write(dir.path().join("four.fa"), ">f\nTGCA\n").unwrap();
    assert_ok(&run(dir.path(), &["sketch", "four.fa", "-o", "f.arrow"]));
    let (_, rows) = read_sketches(&dir.path().join("f.arrow"));
    let tables = SketchTables::from_seed(4, 96, 4, 0).unwrap();
    assert_close(&rows[0], &closed_form(&tables, &[3, 2, 1, 0]));
}

/// The rows of a distances TSV: (header, names, values).
fn read_tsv(path: &Path) -> (Vec<String>, Vec<String>, Vec<Vec<f32>>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .unwrap()
        .split('\t')
        .map(String::from)
        .collect();
    assert_eq!(header[0], "name");
    let (mut names, mut values) = (Vec::new(), Vec::new());
    for line in lines {
        let mut fields = line.split('\t');
        names.push(fields.next().unwrap().to_string());
        values.push(
            fields
                .map(|f| f.parse::<f32>().unwrap())
                .collect::<Vec<_>>(),
        );
    }
    (header[1..].to_vec(), names, values)
}

#[test]
fn distances_all_pairs_and_against_a_reference() {
    let dir = setup();
    assert_ok(&run(
        dir.path(),
        &[
            "sketch",
            "x.fa",
            "-t",
            "2",
            "-D",
            "32",
            "--distances",
            "d.tsv",
        ],
    ));
    let (columns, names, values) = read_tsv(&dir.path().join("d.tsv"));
    assert_eq!(columns, ["exact three", "long", "empty", "other"]);
    assert_eq!(names, columns);
    for (i, row) in values.iter().enumerate() {
        assert_eq!(row.len(), 4);
        assert_eq!(row[i], 0.0);
        for (j, &d) in row.iter().enumerate() {
            assert!(d >= 0.0);
            assert!((d - values[j][i]).abs() <= 1e-6 * d.max(1.0), "{i} {j}");
        }
    }
    assert!(values[0][3] > 0.0);

    std::fs::write(dir.path().join("ref.fa"), ">r1\nACG\n>r2\nTTTTGGGGCCCA\n").unwrap();
    let out = run(
        dir.path(),
        &[
            "sketch",
            "x.fa",
            "-t",
            "2",
            "-D",
            "32",
            "--distances",
            "dr.tsv",
            "--reference",
            "ref.fa",
        ],
    );
    assert!(
        assert_ok(&out).contains("4 x 2 distances"),
        "{}",
        out.stdout
    );
    let (columns, names, values) = read_tsv(&dir.path().join("dr.tsv"));
    assert_eq!(columns, ["r1", "r2"]);
    assert_eq!(names.len(), 4);
    assert!(values.iter().all(|r| r.len() == 2));
    // Identical sequences are at distance 0.
    assert!(values[0][0].abs() < 1e-6, "{values:?}");
    assert!(values[3][1].abs() < 1e-6, "{values:?}");
}

#[test]
fn tables_json_round_trip() {
    let dir = setup();
    assert_ok(&run(
        dir.path(),
        &[
            "sketch",
            "x.fa",
            "-t",
            "3",
            "-D",
            "24",
            "--seed",
            "11",
            "--save-tables",
            "t.json",
            "-o",
            "a.parquet",
        ],
    ));
    let saved = ragged::io::read_sketch_tables(&dir.path().join("t.json")).unwrap();
    assert_eq!(saved, SketchTables::from_seed(3, 24, 4, 11).unwrap());
    assert_ok(&run(
        dir.path(),
        &["sketch", "x.fa", "--tables", "t.json", "-o", "b.parquet"],
    ));
    let (_, a) = read_sketches(&dir.path().join("a.parquet"));
    let (_, b) = read_sketches(&dir.path().join("b.parquet"));
    assert_eq!(a, b);

    // Tables written by hand (another implementation's) are used as given.
    let json = r#"{"t":1,"dim":4,"alphabet_size":4,"hashes":[[0,1,2,3]],"signs":[[1,-1,1,-1]]}"#;
    std::fs::write(dir.path().join("hand.json"), json).unwrap();
    std::fs::write(dir.path().join("one.fa"), ">c\nC\n>t\nt\n").unwrap();
    assert_ok(&run(
        dir.path(),
        &["sketch", "one.fa", "--tables", "hand.json", "-o", "h.arrow"],
    ));
    let (_, rows) = read_sketches(&dir.path().join("h.arrow"));
    assert_close(&rows[0], &[0.0, -1.0, 0.0, 0.0]);
    assert_close(&rows[1], &[0.0, 0.0, 0.0, -1.0]);

    // Tables for another alphabet size, or with -t as well, are refused.
    assert_error(
        &run(
            dir.path(),
            &[
                "sketch",
                "x.fa",
                "--tables",
                "t.json",
                "--alphabet",
                "protein",
            ],
        ),
        &["--tables", "4 symbols", "20"],
    );
    let out = run(
        dir.path(),
        &["sketch", "x.fa", "--tables", "t.json", "-t", "3"],
    );
    assert_ne!(out.code, Some(0));
}

#[test]
fn protein_and_fastq_input() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("p.fq"),
        "@p1\nMKWV\n+\nIIII\n@p2\nAC\nDE\n+p2\nII\nII\n",
    )
    .unwrap();
    let out = run(
        dir.path(),
        &[
            "sketch",
            "p.fq",
            "--alphabet",
            "protein",
            "-t",
            "4",
            "-o",
            "p.parquet",
        ],
    );
    assert!(
        assert_ok(&out).contains("2 records, 8 codes"),
        "{}",
        out.stdout
    );
    let (names, rows) = read_sketches(&dir.path().join("p.parquet"));
    assert_eq!(names, ["p1", "p2"]);
    let tables = SketchTables::from_seed(4, 96, 20, 0).unwrap();
    assert_close(
        &rows[0],
        &closed_form(&tables, &Alphabet::Protein.encode(b"MKWV")),
    );
    assert_close(
        &rows[1],
        &closed_form(&tables, &Alphabet::Protein.encode(b"ACDE")),
    );
}

#[test]
fn malformed_input_names_the_record_and_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bad.fq"),
        "@r0\nACGT\n+\nIIII\n@r1\nACGTA\n+\nIIII\n@r2\nA\n+\nI\n",
    )
    .unwrap();
    let before = files(dir.path());
    let out = run(
        dir.path(),
        &[
            "sketch",
            "bad.fq",
            "-o",
            "s.parquet",
            "--distances",
            "d.tsv",
        ],
    );
    assert_error(
        &out,
        &[
            "bad.fq",
            "FASTQ",
            "record 1 ('r1'), line 8",
            "quality has 4 bytes, the sequence 5",
        ],
    );
    assert_eq!(files(dir.path()), before);

    std::fs::write(dir.path().join("text.fa"), "hello\n>a\nACGT\n").unwrap();
    let before = files(dir.path());
    let out = run(dir.path(), &["sketch", "text.fa", "-o", "s.parquet"]);
    assert_error(&out, &["text.fa", "record 0, line 1", "before the first"]);
    assert_eq!(files(dir.path()), before);

    let out = run(dir.path(), &["sketch", "missing.fa", "-o", "s.parquet"]);
    assert_error(&out, &["missing.fa"]);
}

#[test]
fn invalid_arguments_fail_before_any_output() {
    let dir = setup();
    assert_error(
        &run(
            dir.path(),
            &["sketch", "x.fa", "-t", "0", "-o", "s.parquet"],
        ),
        &["t = 0"],
    );
    assert_error(
        &run(
            dir.path(),
            &["sketch", "x.fa", "-D", "5000", "-o", "s.parquet"],
        ),
        &["dimension 5000"],
    );
    assert_error(
        &run(dir.path(), &["sketch", "x.fa", "-o", "s.csv"]),
        &["s.csv", ".parquet"],
    );
    assert_error(
        &run(dir.path(), &["sketch", "x.fa", "--alphabet", "aa"]),
        &["--alphabet"],
    );
    assert_eq!(files(dir.path()), ["x.fa"]);
}
