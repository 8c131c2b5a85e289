//! Sketch files: tables as JSON, sketches as Parquet / Arrow IPC, distances as TSV.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs::File;
use std::path::Path;

use arrow_array::cast::AsArray;
use arrow_array::types::Float32Type;
use arrow_array::RecordBatch;
use ragged::io::{
    parse_sketch_tables, read_sketch_tables, sketch_tables_json, write_distances_tsv,
    write_sketch_tables, write_sketches,
};
use ragged::ops::{DistanceMatrix, SketchColumn, SketchTables};
use ragged::{Error, StringColumn};

fn names(rows: &[&str]) -> StringColumn<i64> {
    StringColumn::from_options(rows.iter().map(Some))
}

fn sketches() -> SketchColumn {
    SketchColumn::try_new(vec![1.0f32, -2.0, 0.5, 0.0, 3.0, 4.0].into(), 3).unwrap()
}

fn check_batch(batch: &RecordBatch) {
    assert_eq!(batch.num_rows(), 2);
    let schema = batch.schema();
    assert_eq!(schema.field(0).name(), "name");
    assert_eq!(schema.field(1).name(), "sketch");
    let name = batch.column(0).as_string::<i64>();
    assert_eq!(name.value(0), "a b");
    assert_eq!(name.value(1), "c");
    let sketch = batch.column(1).as_fixed_size_list();
    assert_eq!(sketch.value_length(), 3);
    let values = sketch.values().as_primitive::<Float32Type>();
    assert_eq!(
        values.values().to_vec(),
        vec![1.0, -2.0, 0.5, 0.0, 3.0, 4.0]
    );
}

#[test]
fn sketches_to_parquet_and_arrow() {
    let dir = tempfile::tempdir().unwrap();
    let pq = dir.path().join("s.parquet");
    write_sketches(&pq, None, &names(&["a b", "c"]), &sketches()).unwrap();
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
        File::open(&pq).unwrap(),
    )
    .unwrap()
    .build()
    .unwrap();
    let batches: Vec<RecordBatch> = reader.map(|b| b.unwrap()).collect();
    check_batch(&batches[0]);

    let ipc = dir.path().join("s.arrow");
    write_sketches(&ipc, None, &names(&["a b", "c"]), &sketches()).unwrap();
    let reader = arrow_ipc::reader::FileReader::try_new(File::open(&ipc).unwrap(), None).unwrap();
    let batches: Vec<RecordBatch> = reader.map(|b| b.unwrap()).collect();
    check_batch(&batches[0]);

    // CSV cannot hold the sketch column: nothing is written.
    let csv = dir.path().join("s.csv");
    let e = write_sketches(&csv, None, &names(&["a b", "c"]), &sketches()).unwrap_err();
    assert!(matches!(e, Error::Unsupported { .. }), "{e}");
    assert!(!csv.exists());
    // Names and sketches must match.
    let e = write_sketches(&pq, None, &names(&["a"]), &sketches()).unwrap_err();
    assert!(matches!(e, Error::LengthMismatch { .. }), "{e}");
}

#[test]
fn tables_json_round_trip_and_errors() {
    let dir = tempfile::tempdir().unwrap();
    let tables = SketchTables::from_seed(4, 96, 20, 5).unwrap();
    let path = dir.path().join("tables.json");
    write_sketch_tables(&path, &tables).unwrap();
    assert_eq!(read_sketch_tables(&path).unwrap(), tables);
    let json: serde_json::Value = serde_json::from_str(&sketch_tables_json(&tables)).unwrap();
    assert_eq!(json["t"], 4);
    assert_eq!(json["dim"], 96);
    assert_eq!(json["alphabet_size"], 20);
    assert_eq!(json["hashes"].as_array().unwrap().len(), 4);

    let source = Path::new("t.json");
    let bad = |text: &str| parse_sketch_tables(text.as_bytes(), source).unwrap_err();
    assert!(matches!(bad("{"), Error::Format { format: "JSON", .. }));
    let e = bad(r#"{"t":2,"dim":8,"alphabet_size":2,"hashes":[[1,2]],"signs":[[1,1]]}"#);
    assert!(matches!(e, Error::Format { .. }), "{e}");
    let e = bad(r#"{"t":1,"dim":8,"alphabet_size":3,"hashes":[[1,2]],"signs":[[1,1]]}"#);
    assert!(matches!(e, Error::Format { .. }), "{e}");
    let e = bad(r#"{"t":1,"dim":8,"alphabet_size":2,"hashes":[[1,9]],"signs":[[1,1]]}"#);
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
    let e = bad(r#"{"t":1,"dim":8,"alphabet_size":2,"hashes":[[1,2]],"signs":[[1,0]]}"#);
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
    assert!(matches!(
        read_sketch_tables(&dir.path().join("missing.json")),
        Err(Error::Io { action: "read", .. })
    ));
}

#[test]
fn distances_as_tsv() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d.tsv");
    let m = DistanceMatrix::try_new(vec![0.0f32, 1.5, 2.25, 0.0, 7.0, 8.0].into(), 2, 3).unwrap();
    write_distances_tsv(
        &path,
        &names(&["q1", "q\t2"]),
        &names(&["r1", "r2", "r3"]),
        &m,
    )
    .unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text, "name\tr1\tr2\tr3\nq1\t0\t1.5\t2.25\nq 2\t0\t7\t8\n");
    let e =
        write_distances_tsv(&path, &names(&["q1"]), &names(&["r1", "r2", "r3"]), &m).unwrap_err();
    assert!(matches!(e, Error::LengthMismatch { .. }), "{e}");
}
