//! Tensor Sketch files: the hash and sign tables as JSON, sketches as a table
//! (`name`, `sketch`), and distance matrices as TSV.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use arrow_array::{ArrayRef, LargeStringArray, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use ragged_core::ops::{DistanceMatrix, SketchColumn, SketchTables};
use ragged_core::{Error, Result, StringColumn};
use serde::{Deserialize, Serialize};

use super::errors::is_a_directory;
use super::Format;

/// The JSON form of [`SketchTables`].
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TablesJson {
    t: usize,
    dim: usize,
    alphabet_size: usize,
    hashes: Vec<Vec<u32>>,
    signs: Vec<Vec<i8>>,
}

/// `tables` as JSON:
/// `{"t":4,"dim":96,"alphabet_size":4,"hashes":[[…],…],"signs":[[…],…]}`, one hash
/// row and one sign row per level (`hashes[p - 1][c]` is `h_p(c)`).
pub fn sketch_tables_json(tables: &SketchTables) -> String {
    let json = TablesJson {
        t: tables.t(),
        dim: tables.dim(),
        alphabet_size: tables.alphabet_size(),
        hashes: tables.hash_rows(),
        signs: tables.sign_rows(),
    };
    serde_json::to_string(&json).unwrap_or_default()
}

/// Parse sketch tables from JSON (the form [`sketch_tables_json`] writes); `source`
/// names the input in errors.
///
/// # Errors
/// [`Error::Format`] (format `JSON`) when the text is not that object or `t` and
/// `alphabet_size` disagree with the rows; [`Error::InvalidArgument`] (op
/// `tensor_sketch`) when the tables are invalid ([`SketchTables::new`]).
///
/// # Example
/// ```
/// use ragged::io::{parse_sketch_tables, sketch_tables_json};
/// use ragged::ops::SketchTables;
/// let tables = SketchTables::from_seed(3, 16, 4, 9)?;
/// let json = sketch_tables_json(&tables);
/// assert_eq!(parse_sketch_tables(json.as_bytes(), "t.json".as_ref())?, tables);
/// # Ok::<(), ragged::Error>(())
/// ```
pub fn parse_sketch_tables(bytes: &[u8], source: &Path) -> Result<SketchTables> {
    let format_error = |message: String| Error::Format {
        path: source.to_path_buf(),
        format: "JSON",
        message,
    };
    let json: TablesJson = serde_json::from_slice(bytes).map_err(|e| {
        format_error(format!(
            "{e} (expected {{\"t\", \"dim\", \"alphabet_size\", \"hashes\", \"signs\"}})"
        ))
    })?;
    if json.hashes.len() != json.t {
        return Err(format_error(format!(
            "\"t\" is {} but there are {} hash rows",
            json.t,
            json.hashes.len()
        )));
    }
    if let Some((p, row)) = json
        .hashes
        .iter()
        .enumerate()
        .find(|(_, r)| r.len() != json.alphabet_size)
    {
        return Err(format_error(format!(
            "\"alphabet_size\" is {} but hash row {p} has {} entries",
            json.alphabet_size,
            row.len()
        )));
    }
    SketchTables::new(json.dim, json.hashes, json.signs)
}

/// Read sketch tables from a JSON file (see [`sketch_tables_json`]).
///
/// # Errors
/// [`Error::Io`] (action `read`) naming `path`; otherwise as [`parse_sketch_tables`].
pub fn read_sketch_tables(path: &Path) -> Result<SketchTables> {
    if path.is_dir() {
        return Err(is_a_directory("read", path));
    }
    let bytes = std::fs::read(path).map_err(|e| Error::io("read", path, e))?;
    parse_sketch_tables(&bytes, path)
}

/// Write sketch tables to a JSON file atomically (see [`sketch_tables_json`]).
///
/// # Errors
/// As [`super::write_bytes`].
pub fn write_sketch_tables(path: &Path, tables: &SketchTables) -> Result<()> {
    let mut json = sketch_tables_json(tables);
    json.push('\n');
    super::write_bytes(path, json.as_bytes())
}

/// The record batch of named sketches: a `name` column (`LargeUtf8`) and a `sketch`
/// column (`FixedSizeList<Float32>[D]`), neither nullable.
///
/// # Errors
/// [`Error::LengthMismatch`] when there are not as many names as sketches.
pub fn sketches_batch(names: &StringColumn<i64>, sketches: &SketchColumn) -> Result<RecordBatch> {
    if names.len() != sketches.len() {
        return Err(Error::LengthMismatch {
            op: "write_sketches",
            what: "names",
            expected: sketches.len(),
            actual: names.len(),
        });
    }
    let (offsets, values, _) = names.clone().into_parts();
    let names = LargeStringArray::try_new(
        arrow_buffer::OffsetBuffer::new(offsets),
        values.into_inner(),
        None,
    )
    .map_err(|e| Error::invalid_argument("write_sketches", e.to_string()))?;
    let sketch = sketches.to_arrow();
    let schema = Schema::new(vec![
        Field::new("name", DataType::LargeUtf8, false),
        Field::new("sketch", sketch.data_type().clone(), false),
    ]);
    RecordBatch::try_new(Arc::new(schema), vec![Arc::new(names) as ArrayRef, sketch])
        .map_err(|e| Error::invalid_argument("write_sketches", e.to_string()))
}

/// Write named sketches ([`sketches_batch`]) to a Parquet or Arrow IPC file
/// atomically, or to standard output (`-`, an Arrow stream); `format` `None` takes it
/// from the extension. CSV cannot hold the sketch column ([`Error::Unsupported`]).
///
/// # Errors
/// As [`sketches_batch`] and [`super::write_record_batch`].
pub fn write_sketches(
    path: &Path,
    format: Option<Format>,
    names: &StringColumn<i64>,
    sketches: &SketchColumn,
) -> Result<()> {
    let batch = sketches_batch(names, sketches)?;
    super::write_record_batch(path, format, &batch)
}

/// Write a distance matrix as TSV, atomically (or to standard output, `-`): a header
/// line `name`, then the column names, tab-separated; then one line per row: its name
/// and its distances. Tabs and line ends inside names are written as spaces.
///
/// # Errors
/// [`Error::LengthMismatch`] when the names do not match the matrix's shape; otherwise
/// as [`super::write_bytes`].
pub fn write_distances_tsv(
    path: &Path,
    row_names: &StringColumn<i64>,
    col_names: &StringColumn<i64>,
    distances: &DistanceMatrix,
) -> Result<()> {
    let mismatch = |what, expected, actual| Error::LengthMismatch {
        op: "write_distances_tsv",
        what,
        expected,
        actual,
    };
    if row_names.len() != distances.rows() {
        return Err(mismatch("row names", distances.rows(), row_names.len()));
    }
    if col_names.len() != distances.cols() {
        return Err(mismatch("column names", distances.cols(), col_names.len()));
    }
    let fill = |writer: &mut dyn Write| -> std::io::Result<()> {
        writer.write_all(b"name")?;
        for j in 0..col_names.len() {
            writer.write_all(b"\t")?;
            write_name(writer, col_names.row_bytes(j))?;
        }
        writer.write_all(b"\n")?;
        let mut number = String::new();
        for (i, row) in distances
            .values()
            .chunks(distances.cols().max(1))
            .take(distances.rows())
            .enumerate()
        {
            write_name(writer, row_names.row_bytes(i))?;
            for &d in row.iter().take(distances.cols()) {
                number.clear();
                use std::fmt::Write as _;
                let _ = write!(number, "\t{d}");
                writer.write_all(number.as_bytes())?;
            }
            writer.write_all(b"\n")?;
        }
        Ok(())
    };
    if super::is_stdio(path) {
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        return fill(&mut out)
            .and_then(|()| out.flush())
            .map_err(|e| Error::io("write", path, e));
    }
    super::write::write_atomically(path, "write_distances_tsv", false, |mut writer| {
        fill(&mut writer).map_err(|e| Error::io("write", path, e))?;
        Ok(writer)
    })
}

fn write_name(writer: &mut dyn Write, name: &[u8]) -> std::io::Result<()> {
    if !name.iter().any(|&b| matches!(b, b'\t' | b'\n' | b'\r')) {
        return writer.write_all(name);
    }
    let cleaned: Vec<u8> = name
        .iter()
        .map(|&b| {
            if matches!(b, b'\t' | b'\n' | b'\r') {
                b' '
            } else {
                b
            }
        })
        .collect();
    writer.write_all(&cleaned)
}
