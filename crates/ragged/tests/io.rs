//! Tests of `ragged::io`: round trips in every format, column selection, format
//! detection, and every bad-input case (each must be a structured error naming the
//! path, and a failed write must leave nothing behind).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::path::{Path, PathBuf};

use arrow_buffer::{NullBuffer, ScalarBuffer};
use ragged::io::{
    read_table, read_table_from_reader, write_table, write_table_to_writer, Format, StringsColumn,
    Table,
};
use ragged::{Column, Error, ListColumn, PrimitiveColumn, StringColumn};
use tempfile::TempDir;

// ---------------------------------------------------------------------------------------
// Data

/// Strings with nulls and 2-, 3- and 4-byte UTF-8 (no empty string: CSV reads that as null).
const STRINGS: [Option<&str>; 6] = [
    Some("héllo"),
    None,
    Some("日本語"),
    Some("🦀 crab"),
    Some("a,b \"quoted\"\nline"),
    Some("x"),
];

fn strings_column() -> Column {
    Column::Utf8(StringColumn::from_options(STRINGS))
}

fn large_column() -> Column {
    Column::LargeUtf8(StringColumn::<i64>::from_options([
        Some("large"),
        Some("ünïcödé"),
        None,
        Some("€"),
        Some("𝄞 clef"),
        Some("end"),
    ]))
}

fn int64_column() -> Column {
    Column::Int64(PrimitiveColumn::from_options([
        Some(1),
        None,
        Some(-3),
        Some(i64::MAX),
        Some(i64::MIN),
        Some(0),
    ]))
}

/// `[[1, 2], [], [3, 4, 5], null, [6], []]`.
fn list_column() -> Column {
    let child = Column::Int32(PrimitiveColumn::from_vec(vec![1, 2, 3, 4, 5, 6]));
    let validity = NullBuffer::from(vec![true, true, true, false, true, true]);
    Column::List(
        ListColumn::try_new(
            ScalarBuffer::from(vec![0, 2, 2, 5, 5, 6, 6]),
            child,
            Some(validity),
        )
        .unwrap(),
    )
}

fn flat_columns() -> Vec<(String, Column)> {
    vec![
        ("s".into(), strings_column()),
        ("large".into(), large_column()),
        ("n".into(), int64_column()),
    ]
}

fn all_columns() -> Vec<(String, Column)> {
    let mut columns = flat_columns();
    columns.push(("l".into(), list_column()));
    columns
}

/// Columns equal as Arrow arrays (values, validity, type).
fn assert_column_eq(actual: &Column, expected: &Column, what: &str) {
    assert_eq!(
        actual.to_arrow().as_ref(),
        expected.to_arrow().as_ref(),
        "{what}: {actual:?} != {expected:?}"
    );
}

fn assert_table_eq(table: &Table, expected: &[(String, Column)]) {
    let names: Vec<&str> = table.names().collect();
    let expected_names: Vec<&str> = expected.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, expected_names);
    for (name, column) in expected {
        assert_column_eq(table.column(name).unwrap(), column, name);
    }
}

/// The names of the files in `dir`.
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn temp() -> TempDir {
    tempfile::tempdir().unwrap()
}

// ---------------------------------------------------------------------------------------
// Round trips

#[test]
fn round_trip_parquet_arrow_file_and_stream() {
    let dir = temp();
    for name in [
        "t.parquet",
        "t.pq",
        "t.arrow",
        "t.feather",
        "t.ipc",
        "t.arrows",
    ] {
        let path = dir.path().join(name);
        write_table(&path, None, &all_columns()).unwrap();
        let table = read_table(&path, None, None).unwrap();
        assert_eq!(table.num_rows(), 6, "{name}");
        assert_table_eq(&table, &all_columns());
        // Type preserved, including the offset width.
        assert!(matches!(
            table.column("large").unwrap(),
            Column::LargeUtf8(_)
        ));
        assert_eq!(table.column("l").unwrap().type_name(), "list<int32>");
    }
    assert_eq!(
        entries(dir.path()),
        [
            "t.arrow",
            "t.arrows",
            "t.feather",
            "t.ipc",
            "t.parquet",
            "t.pq"
        ]
    );
}

#[test]
fn round_trip_with_explicit_format_ignores_extension() {
    let dir = temp();
    for format in [Format::Parquet, Format::ArrowFile, Format::ArrowStream] {
        let path = dir.path().join(format!("data-{format}.bin"));
        write_table(&path, Some(format), &all_columns()).unwrap();
        let table = read_table(&path, Some(format), None).unwrap();
        assert_table_eq(&table, &all_columns());
        // The magic bytes tell the format without the flag.
        let detected = read_table(&path, None, None).unwrap();
        assert_table_eq(&detected, &all_columns());
    }
}

#[test]
fn round_trip_csv_flat_columns() {
    let dir = temp();
    let path = dir.path().join("t.csv");
    write_table(&path, None, &flat_columns()).unwrap();
    let table = read_table(&path, None, None).unwrap();
    assert_eq!(table.num_rows(), 6);
    assert_column_eq(table.column("s").unwrap(), &strings_column(), "s");
    assert_column_eq(table.column("n").unwrap(), &int64_column(), "n");
    // CSV has no LargeUtf8: the values come back as Utf8.
    let large = table.strings("large").unwrap();
    assert!(matches!(large, StringsColumn::Utf8(_)));
    let expected = match large_column() {
        Column::LargeUtf8(c) => c.iter().map(|s| s.map(str::to_owned)).collect::<Vec<_>>(),
        _ => unreachable!(),
    };
    let actual: Vec<Option<String>> = large.iter().map(|s| s.map(str::to_owned)).collect();
    assert_eq!(actual, expected);
}

#[test]
fn csv_reads_empty_fields_as_null_quoted_ones_as_empty_and_infers_types() {
    let dir = temp();
    let path = dir.path().join("t.csv");
    fs::write(
        &path,
        "word,count,ratio,flag,day\nα,1,0.5,true,2024-01-02\n,2,,false,\nγ,,1.5,,2024-03-04\n",
    )
    .unwrap();
    let table = read_table(&path, None, None).unwrap();
    let words: Vec<Option<&str>> = table.strings("word").unwrap().iter().collect::<Vec<_>>();
    assert_eq!(words, [Some("α"), None, Some("γ")]);
    assert_eq!(
        table.int64("count").unwrap().to_options(),
        [Some(1), Some(2), None]
    );
    assert_eq!(
        table.float64("ratio").unwrap().to_options(),
        [Some(0.5), None, Some(1.5)]
    );
    assert_eq!(
        table.boolean("flag").unwrap().to_options(),
        [Some(true), Some(false), None]
    );
    // Dates are string-ish: read as utf8.
    assert_eq!(table.strings("day").unwrap().get(0), Some("2024-01-02"));

    // Null is an empty field, the empty string `""`: both survive a round trip.
    let written = dir.path().join("empty.csv");
    let rows = [Some(""), None, Some("z"), Some("a,\"b\"\r\nc")];
    let columns = vec![
        (
            "s".to_string(),
            Column::Utf8(StringColumn::from_options(rows)),
        ),
        (
            "t".to_string(),
            Column::Utf8(StringColumn::from_options(rows)),
        ),
    ];
    write_table(&written, None, &columns).unwrap();
    assert_eq!(
        fs::read_to_string(&written).unwrap(),
        "s,t\n\"\",\"\"\n,\nz,z\n\"a,\"\"b\"\"\r\nc\",\"a,\"\"b\"\"\r\nc\"\n"
    );
    let back = read_table(&written, None, None).unwrap();
    for name in ["s", "t"] {
        let got: Vec<Option<&str>> = back.strings(name).unwrap().iter().collect::<Vec<_>>();
        assert_eq!(got, rows, "{name}");
    }
}

#[test]
fn csv_header_only_and_empty_file() {
    let dir = temp();
    let path = dir.path().join("header.csv");
    fs::write(&path, "a,b\n").unwrap();
    let table = read_table(&path, None, None).unwrap();
    assert_eq!(table.num_rows(), 0);
    assert_eq!(table.names().collect::<Vec<_>>(), ["a", "b"]);
    assert!(table.strings("a").unwrap().is_empty());

    let path = dir.path().join("empty.csv");
    fs::write(&path, "").unwrap();
    let table = read_table(&path, None, None).unwrap();
    assert_eq!((table.num_rows(), table.num_columns()), (0, 0));

    // An empty table written as CSV is its header.
    let columns = vec![(
        "s".to_string(),
        Column::Utf8(StringColumn::from_options(Vec::<Option<&str>>::new())),
    )];
    let out = dir.path().join("out.csv");
    write_table(&out, None, &columns).unwrap();
    assert_eq!(fs::read_to_string(&out).unwrap(), "s\n");
}

#[test]
fn round_trip_many_batches_concatenates() {
    // More rows than one record batch (1024 by default in the readers).
    let dir = temp();
    let rows: Vec<Option<String>> = (0..5000)
        .map(|i| (i % 7 != 0).then(|| format!("row {i} — ü")))
        .collect();
    let numbers: Vec<Option<i64>> = (0..5000).map(|i| (i % 5 != 0).then_some(i)).collect();
    let columns = vec![
        (
            "s".to_string(),
            Column::Utf8(StringColumn::from_options(
                rows.iter().map(|r| r.as_deref()),
            )),
        ),
        (
            "n".to_string(),
            Column::Int64(PrimitiveColumn::from_options(numbers)),
        ),
    ];
    for name in ["big.parquet", "big.arrow", "big.arrows", "big.csv"] {
        let path = dir.path().join(name);
        write_table(&path, None, &columns).unwrap();
        let table = read_table(&path, None, None).unwrap();
        assert_eq!(table.num_rows(), 5000, "{name}");
        assert_table_eq(&table, &columns);
    }
}

/// 100 003 rows of strings (with nulls, empty strings and commas) and numbers: more
/// than a CSV parse chunk, many Parquet row groups and IPC batches.
fn many_rows() -> Vec<(String, Column)> {
    rows_of(100_003)
}

/// [`many_rows`]'s first `n` rows.
fn rows_of(n: i64) -> Vec<(String, Column)> {
    let rows: Vec<Option<String>> = (0..n)
        .map(|i| match i % 11 {
            0 => None,
            1 => Some(String::new()),
            _ => Some(format!("row {i}, \"ü\"")),
        })
        .collect();
    let numbers: Vec<Option<i64>> = (0..n).map(|i| (i % 5 != 0).then_some(i)).collect();
    vec![
        (
            "s".to_string(),
            Column::Utf8(StringColumn::from_options(
                rows.iter().map(|r| r.as_deref()),
            )),
        ),
        (
            "n".to_string(),
            Column::Int64(PrimitiveColumn::from_options(numbers)),
        ),
    ]
}

#[test]
fn parquet_row_groups_and_compressions_round_trip() {
    use ragged::io::{write_table_with, WriteOptions};
    let dir = temp();
    let columns = many_rows();
    for (compression, row_group_size) in [
        ("zstd", 7_000),
        ("snappy", 1 << 20),
        ("none", 1),
        ("lz4", 65_536),
        ("gzip:1", 50_000),
        ("zstd:9", 100_003),
    ] {
        let path = dir.path().join("t.parquet");
        let options = WriteOptions::default()
            .with_compression(compression)
            .unwrap()
            .with_row_group_size(row_group_size);
        // One-row row groups on 100 003 rows take long: a smaller table for that one.
        let columns = if row_group_size == 1 {
            rows_of(300)
        } else {
            columns.clone()
        };
        write_table_with(&path, None, &columns, &options).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        let metadata = parquet::file::reader::FileReader::metadata(
            &parquet::file::reader::SerializedFileReader::new(file).unwrap(),
        )
        .clone();
        let rows = columns[0].1.len();
        assert_eq!(
            metadata.num_row_groups(),
            rows.div_ceil(row_group_size),
            "{compression}"
        );
        let table = read_table(&path, None, None).unwrap();
        assert_table_eq(&table, &columns);
        let only_n = read_table(&path, None, Some(&["n"])).unwrap();
        assert_table_eq(&only_n, &columns[1..]);
    }
    for bad in ["zip", "zstd:99", "gzip:x", "snappy:3"] {
        assert!(
            WriteOptions::default().with_compression(bad).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn csv_and_ipc_of_many_rows_round_trip() {
    let dir = temp();
    let columns = many_rows();
    for name in ["t.csv", "t.arrow", "t.arrows"] {
        let path = dir.path().join(name);
        write_table(&path, None, &columns).unwrap();
        assert_table_eq(&read_table(&path, None, None).unwrap(), &columns);
        let only_s = read_table(&path, None, Some(&["s"])).unwrap();
        assert_table_eq(&only_s, &columns[..1]);
    }
}

#[test]
fn ipc_file_of_many_batches_with_a_dictionary_reads_in_order() {
    use arrow_array::types::Int32Type;
    use arrow_array::{DictionaryArray, Int64Array, RecordBatch, StringArray};
    use std::sync::Arc;
    let dir = temp();
    let path = dir.path().join("t.arrow");
    let file = fs::File::create(&path).unwrap();
    let batch = |k: i64| {
        let words: DictionaryArray<Int32Type> =
            vec![Some("a"), None, Some("ccc")].into_iter().collect();
        RecordBatch::try_from_iter([
            ("k", Arc::new(Int64Array::from(vec![k, k + 1, k + 2])) as _),
            ("w", Arc::new(words) as _),
            (
                "s",
                Arc::new(StringArray::from(vec![Some("x"), Some(""), None])) as _,
            ),
        ])
        .unwrap()
    };
    let first = batch(0);
    let mut writer = arrow_ipc::writer::FileWriter::try_new(file, &first.schema()).unwrap();
    for k in 0..50 {
        writer.write(&batch(3 * k)).unwrap();
    }
    writer.finish().unwrap();
    let table = read_table(&path, None, Some(&["w", "k"])).unwrap();
    assert_eq!(table.names().collect::<Vec<_>>(), ["w", "k"]);
    let keys = table.int64("k").unwrap().to_options();
    assert_eq!(keys, (0..150).map(Some).collect::<Vec<_>>());
    let words: Vec<Option<&str>> = table.strings("w").unwrap().iter().collect();
    assert_eq!(&words[..4], [Some("a"), None, Some("ccc"), Some("a")]);
    // Truncated anywhere: a format error, never a crash.
    let bytes = fs::read(&path).unwrap();
    for cut in [bytes.len() - 1, bytes.len() - 12, bytes.len() / 2, 9] {
        let short = dir.path().join("short.arrow");
        fs::write(&short, &bytes[..cut]).unwrap();
        match read_table(&short, Some(Format::ArrowFile), None) {
            Err(Error::Format { .. }) => {}
            other => panic!("cut at {cut}: {other:?}"),
        }
    }
}

#[test]
fn round_trip_empty_table() {
    let dir = temp();
    let columns = vec![
        (
            "s".to_string(),
            Column::Utf8(StringColumn::from_options(Vec::<Option<&str>>::new())),
        ),
        (
            "l".to_string(),
            Column::List(
                ListColumn::try_new(
                    ScalarBuffer::from(vec![0]),
                    Column::Int32(PrimitiveColumn::from_vec(vec![])),
                    None,
                )
                .unwrap(),
            ),
        ),
    ];
    for name in ["e.parquet", "e.arrow", "e.arrows"] {
        let path = dir.path().join(name);
        write_table(&path, None, &columns).unwrap();
        let table = read_table(&path, None, None).unwrap();
        assert_eq!(table.num_rows(), 0, "{name}");
        assert_table_eq(&table, &columns);
    }
}

#[test]
fn overwrite_replaces_the_target() {
    let dir = temp();
    let path = dir.path().join("t.parquet");
    write_table(&path, None, &all_columns()).unwrap();
    write_table(&path, None, &flat_columns()).unwrap();
    let table = read_table(&path, None, None).unwrap();
    assert_table_eq(&table, &flat_columns());
    assert_eq!(entries(dir.path()), ["t.parquet"]);
}

#[test]
fn reader_and_writer_functions() {
    for format in Format::ALL {
        let columns = if format.supports_nested() {
            all_columns()
        } else {
            flat_columns()
        };
        let mut bytes = Vec::new();
        write_table_to_writer(&mut bytes, format, &columns).unwrap();
        let table = read_table_from_reader(bytes.as_slice(), Some(format), None).unwrap();
        assert_eq!(table.num_rows(), 6, "{format}");
        if format != Format::Csv {
            assert_table_eq(&table, &columns);
        }
        let selected =
            read_table_from_reader(bytes.as_slice(), Some(format), Some(&["n", "s"])).unwrap();
        assert_eq!(selected.names().collect::<Vec<_>>(), ["n", "s"], "{format}");
        assert_column_eq(selected.column("s").unwrap(), &strings_column(), "s");
        // Without a format, magic bytes decide (Parquet, IPC file; a stream otherwise).
        if format != Format::Csv {
            let detected = read_table_from_reader(bytes.as_slice(), None, None).unwrap();
            assert_table_eq(&detected, &columns);
        }
    }
    // A reader that yields a few bytes at a time still has its magic bytes seen.
    struct Trickle<'a>(&'a [u8]);
    impl std::io::Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(3).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }
    let mut parquet = Vec::new();
    write_table_to_writer(&mut parquet, Format::Parquet, &all_columns()).unwrap();
    let table = read_table_from_reader(Trickle(&parquet), None, None).unwrap();
    assert_table_eq(&table, &all_columns());
    // No temporary file is left in the temporary directory.
    let leftovers: Vec<String> = entries(&std::env::temp_dir())
        .into_iter()
        .filter(|n| n.starts_with(&format!(".stdin.ragged-tmp-{}-", std::process::id())))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // Errors name the path "-".
    let err = read_table_from_reader(&b"not a parquet file"[..], Some(Format::Parquet), None)
        .unwrap_err();
    match err {
        Error::Format { path, format, .. } => {
            assert_eq!(path, Path::new("-"));
            assert_eq!(format, "Parquet");
        }
        other => panic!("expected Error::Format, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------
// Column selection and typed access

#[test]
fn column_selection_in_every_format() {
    let dir = temp();
    for name in ["t.parquet", "t.arrow", "t.arrows", "t.csv"] {
        let path = dir.path().join(name);
        let columns = if name.ends_with(".csv") {
            flat_columns()
        } else {
            all_columns()
        };
        write_table(&path, None, &columns).unwrap();

        // Order of the request, not of the file.
        let table = read_table(&path, None, Some(&["n", "s"])).unwrap();
        assert_eq!(table.names().collect::<Vec<_>>(), ["n", "s"], "{name}");
        assert_column_eq(table.column("n").unwrap(), &int64_column(), name);
        assert_column_eq(table.column("s").unwrap(), &strings_column(), name);
        assert_eq!(table.num_columns(), 2);

        // A repeated name is read once per mention.
        let twice = read_table(&path, None, Some(&["s", "s"])).unwrap();
        assert_eq!(twice.names().collect::<Vec<_>>(), ["s", "s"], "{name}");

        // Every column, out of order.
        let names: Vec<&str> = columns.iter().rev().map(|(n, _)| n.as_str()).collect();
        let reversed = read_table(&path, None, Some(&names)).unwrap();
        assert_eq!(reversed.names().collect::<Vec<_>>(), names, "{name}");
    }
    let path = dir.path().join("t.parquet");
    let lists = read_table(&path, None, Some(&["l"])).unwrap();
    assert_column_eq(lists.column("l").unwrap(), &list_column(), "l");
    assert_eq!(lists.lists("l").unwrap().len(), 6);
}

#[test]
fn typed_getters_and_type_mismatch() {
    let dir = temp();
    let path = dir.path().join("t.arrow");
    write_table(&path, None, &all_columns()).unwrap();
    let table = read_table(&path, None, None).unwrap();

    match table.strings("s").unwrap() {
        StringsColumn::Utf8(c) => assert_eq!(c.iter().collect::<Vec<_>>(), STRINGS),
        other => panic!("expected Utf8, got {other:?}"),
    }
    match table.strings("large").unwrap() {
        StringsColumn::LargeUtf8(c) => assert_eq!(c.get(1), Some("ünïcödé")),
        other => panic!("expected LargeUtf8, got {other:?}"),
    }
    assert_eq!(table.int64("n").unwrap().get(2), Some(-3));

    for (result, column, expected) in [
        (table.strings("n").map(|_| ()), "n", "utf8 or large_utf8"),
        (table.int64("s").map(|_| ()), "s", "int64"),
        (
            table.lists("large").map(|_| ()),
            "large",
            "list or large_list",
        ),
        (table.float64("l").map(|_| ()), "l", "float64"),
    ] {
        match result.unwrap_err() {
            Error::TypeMismatch {
                column: c,
                expected: e,
                actual,
            } => {
                assert_eq!(c, column);
                assert_eq!(e, expected);
                assert!(!actual.is_empty());
            }
            other => panic!("expected TypeMismatch for {column}, got {other:?}"),
        }
    }
    let err = table.strings("n").unwrap_err();
    assert_eq!(
        err.to_string(),
        "column 'n' has type int64, expected utf8 or large_utf8"
    );
}

#[test]
fn nonexistent_column_lists_the_available_ones() {
    let dir = temp();
    for name in ["t.parquet", "t.arrow", "t.arrows", "t.csv"] {
        let path = dir.path().join(name);
        write_table(&path, None, &flat_columns()).unwrap();
        let err = read_table(&path, None, Some(&["s", "missing"])).unwrap_err();
        match err {
            Error::ColumnNotFound { name: n, available } => {
                assert_eq!(n, "missing");
                assert_eq!(available, ["s", "large", "n"], "{name}");
            }
            other => panic!("{name}: expected ColumnNotFound, got {other:?}"),
        }
        let table = read_table(&path, None, None).unwrap();
        assert!(matches!(
            table.column("nope"),
            Err(Error::ColumnNotFound { .. })
        ));
    }
}

#[test]
fn table_new_checks_lengths() {
    let err = Table::new(vec![
        ("a".into(), strings_column()),
        (
            "b".into(),
            Column::Int64(PrimitiveColumn::from_vec(vec![1])),
        ),
    ])
    .unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { .. }), "{err:?}");
    assert!(err.to_string().contains("'b'"), "{err}");
    // write_table refuses the same, and writes nothing.
    let dir = temp();
    let path = dir.path().join("t.parquet");
    let columns = vec![
        ("a".to_string(), strings_column()),
        (
            "b".to_string(),
            Column::Int64(PrimitiveColumn::from_vec(vec![1])),
        ),
    ];
    assert!(write_table(&path, None, &columns).is_err());
    assert!(entries(dir.path()).is_empty());
}

// ---------------------------------------------------------------------------------------
// Formats

#[test]
fn format_names_extensions_and_magic() {
    for format in Format::ALL {
        assert_eq!(format.name().parse::<Format>().unwrap(), format);
        assert_eq!(format.to_string().parse::<Format>().unwrap(), format);
        let file = PathBuf::from(format!("x.{}", format.extension()));
        assert_eq!(Format::from_extension(&file), Some(format));
    }
    for (name, format) in [
        ("PARQUET", Format::Parquet),
        ("pq", Format::Parquet),
        ("ipc", Format::ArrowFile),
        ("feather", Format::ArrowFile),
        ("arrows", Format::ArrowStream),
        ("stream", Format::ArrowStream),
        ("CSV", Format::Csv),
    ] {
        assert_eq!(name.parse::<Format>().unwrap(), format, "{name}");
    }
    assert!(matches!(
        "json".parse::<Format>(),
        Err(Error::InvalidArgument { .. })
    ));
    assert_eq!(
        Format::from_extension(Path::new("a/b.Feather")),
        Some(Format::ArrowFile)
    );
    assert_eq!(Format::from_extension(Path::new("noext")), None);
    assert_eq!(Format::from_magic(b"PAR1...."), Some(Format::Parquet));
    assert_eq!(Format::from_magic(b"ARROW1\0\0"), Some(Format::ArrowFile));
    assert_eq!(
        Format::from_magic(&[0xFF, 0xFF, 0xFF, 0xFF, 1]),
        Some(Format::ArrowStream)
    );
    assert_eq!(Format::from_magic(b"a,b\n"), None);
}

#[test]
fn unknown_extension_is_detected_from_magic_bytes() {
    let dir = temp();
    for (format, name) in [
        (Format::Parquet, "a.dat"),
        (Format::ArrowFile, "b.dat"),
        (Format::ArrowStream, "c"),
    ] {
        let path = dir.path().join(name);
        write_table(&path, Some(format), &all_columns()).unwrap();
        let table = read_table(&path, None, None).unwrap();
        assert_table_eq(&table, &all_columns());
    }
    // An .arrow file that holds a stream (common in the wild) is read as a stream.
    let path = dir.path().join("stream.arrow");
    write_table(&path, Some(Format::ArrowStream), &all_columns()).unwrap();
    assert_table_eq(&read_table(&path, None, None).unwrap(), &all_columns());

    // CSV is never guessed.
    let csv = dir.path().join("data.txt");
    fs::write(&csv, "a,b\n1,2\n").unwrap();
    match read_table(&csv, None, None).unwrap_err() {
        Error::Format { path, .. } => assert_eq!(path, csv),
        other => panic!("expected Error::Format, got {other:?}"),
    }
    assert_eq!(
        read_table(&csv, Some(Format::Csv), None)
            .unwrap()
            .num_rows(),
        1
    );
}

#[test]
fn unknown_output_extension_is_an_invalid_argument() {
    let dir = temp();
    let path = dir.path().join("out.xyz");
    let err = write_table(&path, None, &flat_columns()).unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { .. }), "{err:?}");
    assert!(entries(dir.path()).is_empty());
}

// ---------------------------------------------------------------------------------------
// Bad input

/// Assert an `Error::Io` with `action` naming `path`.
fn assert_io(err: Error, action: &str, path: &Path) -> std::io::Error {
    match err {
        Error::Io {
            action: a,
            path: p,
            source,
        } => {
            assert_eq!(a, action, "{source}");
            assert_eq!(p, path);
            source
        }
        other => panic!("expected Error::Io({action}), got {other:?}"),
    }
}

/// Assert an `Error::Format` naming `path` and `format`.
fn assert_format_error(err: Error, path: &Path, format: &str) {
    match err {
        Error::Format {
            path: p,
            format: f,
            message,
        } => {
            assert_eq!(p, path, "{message}");
            assert_eq!(f, format, "{message}");
            assert!(!message.is_empty());
        }
        other => panic!("expected Error::Format({format}) for {path:?}, got {other:?}"),
    }
}

#[test]
fn missing_file_is_an_io_error() {
    let dir = temp();
    for name in ["missing.parquet", "missing.csv", "missing"] {
        let path = dir.path().join(name);
        let source = assert_io(read_table(&path, None, None).unwrap_err(), "read", &path);
        assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
    }
}

#[test]
fn directory_is_an_io_error() {
    let dir = temp();
    let sub = dir.path().join("table.parquet");
    fs::create_dir(&sub).unwrap();
    let err = read_table(&sub, None, None).unwrap_err();
    assert!(err.to_string().contains("Is a directory"), "{err}");
    let source = assert_io(err, "read", &sub);
    assert_eq!(source.kind(), std::io::ErrorKind::IsADirectory);

    // Writing over a directory fails too, and leaves it alone.
    let err = write_table(&sub, None, &flat_columns()).unwrap_err();
    assert_io(err, "write", &sub);
    assert!(sub.is_dir());
    assert_eq!(entries(dir.path()), ["table.parquet"]);
}

#[cfg(unix)]
#[test]
fn unreadable_file_is_an_io_error() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp();
    let path = dir.path().join("secret.parquet");
    write_table(&path, None, &flat_columns()).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o000)).unwrap();
    if fs::read(&path).is_ok() {
        // Running as root (or with CAP_DAC_OVERRIDE): permissions do not apply.
        eprintln!("skipped: this user can read a mode-000 file");
        return;
    }
    let source = assert_io(read_table(&path, None, None).unwrap_err(), "read", &path);
    assert_eq!(source.kind(), std::io::ErrorKind::PermissionDenied);
}

#[test]
fn truncated_files_are_format_errors() {
    let dir = temp();
    for (name, label) in [
        ("t.parquet", "Parquet"),
        ("t.arrow", "Arrow IPC file"),
        ("t.arrows", "Arrow IPC stream"),
    ] {
        let path = dir.path().join(name);
        write_table(&path, None, &all_columns()).unwrap();
        let bytes = fs::read(&path).unwrap();
        for cut in [bytes.len() / 2, bytes.len() - 9, 7] {
            fs::write(&path, &bytes[..cut]).unwrap();
            let err = read_table(&path, None, None).unwrap_err();
            assert_format_error(err, &path, label);
        }
    }
}

#[test]
fn garbage_is_a_format_error() {
    let dir = temp();
    let garbage: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    for (name, label) in [
        ("g.parquet", "Parquet"),
        ("g.pq", "Parquet"),
        ("g.arrow", "Arrow IPC file"),
        ("g.feather", "Arrow IPC file"),
        ("g.arrows", "Arrow IPC stream"),
    ] {
        let path = dir.path().join(name);
        fs::write(&path, &garbage).unwrap();
        assert_format_error(read_table(&path, None, None).unwrap_err(), &path, label);
        // An empty file is no better.
        fs::write(&path, b"").unwrap();
        assert_format_error(read_table(&path, None, None).unwrap_err(), &path, label);
    }
    // Magic bytes followed by garbage.
    let path = dir.path().join("m.parquet");
    fs::write(&path, [b"PAR1".as_slice(), &garbage, b"PAR1"].concat()).unwrap();
    assert_format_error(read_table(&path, None, None).unwrap_err(), &path, "Parquet");
    let path = dir.path().join("m.arrow");
    fs::write(
        &path,
        [b"ARROW1\0\0".as_slice(), &garbage, b"ARROW1"].concat(),
    )
    .unwrap();
    assert_format_error(
        read_table(&path, None, None).unwrap_err(),
        &path,
        "Arrow IPC file",
    );
    // A Parquet file read as CSV: not UTF-8.
    let parquet = dir.path().join("p.parquet");
    write_table(&parquet, None, &flat_columns()).unwrap();
    assert_format_error(
        read_table(&parquet, Some(Format::Csv), None).unwrap_err(),
        &parquet,
        "CSV",
    );
}

#[test]
fn malformed_csv_is_a_format_error() {
    let dir = temp();
    let path = dir.path().join("bad.csv");
    fs::write(&path, "a,b\n1,2\n3,4,5\n").unwrap();
    assert_format_error(read_table(&path, None, None).unwrap_err(), &path, "CSV");
    fs::write(&path, b"a,b\n1,\xff\xfe\n").unwrap();
    assert_format_error(read_table(&path, None, None).unwrap_err(), &path, "CSV");
}

#[test]
fn output_into_a_missing_directory_is_an_io_error() {
    let dir = temp();
    let path = dir.path().join("no/such/dir/out.parquet");
    let source = assert_io(
        write_table(&path, None, &flat_columns()).unwrap_err(),
        "create",
        &path,
    );
    assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn failed_write_leaves_nothing_behind() {
    let dir = temp();
    let path = dir.path().join("out.csv");
    let err = write_table(&path, None, &all_columns()).unwrap_err();
    match &err {
        Error::Unsupported { message, .. } => {
            assert!(message.contains("'l'"), "{message}");
            assert!(message.contains("list<int32>"), "{message}");
        }
        other => panic!("expected Error::Unsupported, got {other:?}"),
    }
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));

    // A failed write over an existing file leaves the old file as it was.
    write_table(&path, None, &flat_columns()).unwrap();
    let before = fs::read(&path).unwrap();
    assert!(write_table(&path, None, &all_columns()).is_err());
    assert_eq!(fs::read(&path).unwrap(), before);
    assert_eq!(entries(dir.path()), ["out.csv"]);
}

#[test]
fn unsupported_column_type_in_a_file_names_the_column() {
    // A file written by another tool with a type ragged does not hold (date32).
    use arrow_array::{Date32Array, RecordBatch, StringArray};
    use arrow_schema::{DataType, Field, Schema};
    use std::sync::Arc;
    let dir = temp();
    let path = dir.path().join("dates.arrow");
    let schema = Arc::new(Schema::new(vec![
        Field::new("day", DataType::Date32, true),
        Field::new("s", DataType::Utf8, true),
    ]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(Date32Array::from(vec![1, 2])),
            Arc::new(StringArray::from(vec!["a", "b"])),
        ],
    )
    .unwrap();
    let file = fs::File::create(&path).unwrap();
    let mut writer = arrow_ipc::writer::FileWriter::try_new(file, &schema).unwrap();
    writer.write(&batch).unwrap();
    writer.finish().unwrap();

    match read_table(&path, None, None).unwrap_err() {
        Error::TypeMismatch { column, actual, .. } => {
            assert_eq!(column, "day");
            assert_eq!(actual, "Date32");
        }
        other => panic!("expected TypeMismatch, got {other:?}"),
    }
    // Selecting the other column reads it.
    let table = read_table(&path, None, Some(&["s"])).unwrap();
    assert_eq!(table.strings("s").unwrap().get(1), Some("b"));
}

#[test]
fn dictionary_and_view_strings_are_decoded() {
    use arrow_array::types::Int16Type;
    use arrow_array::{Array, DictionaryArray, RecordBatch, StringViewArray};
    use arrow_schema::{DataType, Field, Schema};
    use std::sync::Arc;
    let dir = temp();
    let path = dir.path().join("dict.arrows");
    let dictionary: DictionaryArray<Int16Type> = vec![Some("a"), None, Some("b"), Some("a")]
        .into_iter()
        .collect();
    let view = StringViewArray::from(vec![
        Some("long string beyond twelve bytes"),
        None,
        Some("s"),
        Some(""),
    ]);
    let schema = Arc::new(Schema::new(vec![
        Field::new("d", dictionary.data_type().clone(), true),
        Field::new("v", DataType::Utf8View, true),
    ]));
    let batch =
        RecordBatch::try_new(schema.clone(), vec![Arc::new(dictionary), Arc::new(view)]).unwrap();
    let file = fs::File::create(&path).unwrap();
    let mut writer = arrow_ipc::writer::StreamWriter::try_new(file, &schema).unwrap();
    writer.write(&batch).unwrap();
    writer.finish().unwrap();

    let table = read_table(&path, None, None).unwrap();
    let d: Vec<Option<&str>> = table.strings("d").unwrap().iter().collect::<Vec<_>>();
    assert_eq!(d, [Some("a"), None, Some("b"), Some("a")]);
    let v: Vec<Option<&str>> = table.strings("v").unwrap().iter().collect::<Vec<_>>();
    assert_eq!(
        v,
        [
            Some("long string beyond twelve bytes"),
            None,
            Some("s"),
            Some("")
        ]
    );
}

#[test]
fn corrupted_files_are_errors_not_panics_or_aborts() {
    // Random byte changes in valid files: every read must return (Ok with valid
    // columns, or an error); a panic would fail the test, an abort kill it.
    let dir = temp();
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut random = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for name in ["c.parquet", "c.arrow", "c.arrows"] {
        let path = dir.path().join(name);
        write_table(&path, None, &all_columns()).unwrap();
        let good = fs::read(&path).unwrap();
        for _ in 0..300 {
            let mut bytes = good.clone();
            for _ in 0..=random() % 4 {
                let i = (random() % bytes.len() as u64) as usize;
                bytes[i] = random() as u8;
            }
            fs::write(&path, &bytes).unwrap();
            match read_table(&path, None, None) {
                Ok(table) => {
                    for (_, column) in table.columns() {
                        assert_eq!(column.len(), table.num_rows());
                    }
                }
                Err(Error::Format { .. } | Error::TypeMismatch { .. }) => {}
                Err(other) => panic!("{name}: unexpected error kind {other:?}"),
            }
        }
    }
}

#[cfg(unix)]
#[test]
fn a_pipe_given_by_path_is_read_like_standard_input() {
    let dir = temp();
    let stream = dir.path().join("t.arrows");
    write_table(&stream, None, &all_columns()).unwrap();
    let fifo = dir.path().join("fifo");
    let status = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !status.is_ok_and(|s| s.success()) {
        eprintln!("skipped: mkfifo is not available");
        return;
    }
    let bytes = fs::read(&stream).unwrap();
    let writer_path = fifo.clone();
    let writer = std::thread::spawn(move || fs::write(writer_path, bytes).unwrap());
    let table = read_table(&fifo, None, None).unwrap();
    writer.join().unwrap();
    assert_table_eq(&table, &all_columns());
}
