//! The sequences family on arrow-rs arrays: Tensor Sketch embeddings of DNA, protein or
//! custom-alphabet sequences, and the squared L2 distances between them.

use std::path::Path;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Float32Type;
use arrow_array::{Array, ArrayRef, FixedSizeListArray, Float32Array};
use arrow_schema::{DataType, Field};
use ragged_core::ops::{Alphabet, SequenceColumn, SketchColumn, SketchPlan, SketchTables};
use ragged_core::{Error, Memory, Result, SequenceOps};

use super::{check, host_strings, Device, HostStrings, Interrupt};
use crate::with_backend;

/// The sketch's parameters: `t` (the tuple length), `dim` (the embedding's dimension),
/// the tables' `seed` and the alphabet the sequences are written in.
#[derive(Clone, Debug)]
pub struct SketchOptions {
    /// Tuple length (2 to 8 as `SketchTables::from_seed` accepts).
    pub t: usize,
    /// Dimension of each sketch.
    pub dim: usize,
    /// Seed of the hash and sign tables: equal seeds give comparable sketches.
    pub seed: u64,
    /// The sequences' symbols (letters outside it are skipped, case-insensitively).
    pub alphabet: Alphabet,
}

impl SketchOptions {
    fn plan(&self) -> Result<SketchPlan> {
        Ok(SketchPlan::new(SketchTables::from_seed(
            self.t,
            self.dim,
            self.alphabet.size(),
            self.seed,
        )?))
    }
}

/// Codes per window of [`sketch_column`]: `interrupt` is checked between windows.
const WINDOW_CODES: usize = 64 << 20;

/// The sketches of a column of sequences as `FixedSizeList<Float32>[dim]`, computed in
/// windows of about [`WINDOW_CODES`] codes (whole sequences) with `interrupt` checked
/// before each.
fn sketch_column(
    sequences: &SequenceColumn,
    options: &SketchOptions,
    device: &Device,
    interrupt: Interrupt<'_>,
) -> Result<ArrayRef> {
    let plan = options.plan()?;
    let mut parts: Vec<ArrayRef> = Vec::new();
    let mut start = 0;
    loop {
        check(interrupt)?;
        let mut end = start;
        let mut codes = 0;
        while end < sequences.len() && (end == start || codes < WINDOW_CODES) {
            codes += sequences.sequence(end).len();
            end += 1;
        }
        let window = if start == 0 && end == sequences.len() {
            None
        } else {
            Some(sequences.slice(start, end - start)?)
        };
        let window = window.as_ref().unwrap_or(sequences);
        let sketches = with_backend!(device.backend(), |b| b.tensor_sketch_host(window, &plan))?;
        parts.push(sketches.to_arrow());
        if end >= sequences.len() {
            break;
        }
        start = end;
    }
    if parts.len() == 1 {
        return Ok(parts.swap_remove(0));
    }
    let refs: Vec<&dyn Array> = parts.iter().map(|p| p.as_ref()).collect();
    arrow_select::concat::concat(&refs)
        .map_err(|e| Error::invalid_argument("sketch", e.to_string()))
}

/// The Tensor Sketch of every row of a strings array (letters of the alphabet,
/// case-insensitive; other bytes skipped), as `FixedSizeList<Float32>[dim]`.
///
/// # Errors
/// [`Error::TypeMismatch`] for a non-strings array; [`Error::InvalidArgument`] for a
/// null row or bad parameters; `interrupt`'s error when it stops the call between two
/// windows of 64 Mi codes.
pub fn sketch(
    sequences: &dyn Array,
    options: &SketchOptions,
    device: &Device,
    interrupt: Interrupt<'_>,
) -> Result<ArrayRef> {
    let table = options.alphabet.code_table();
    let encode = |rows: Vec<Option<&[u8]>>| -> Result<Vec<Vec<u8>>> {
        rows.into_iter()
            .enumerate()
            .map(|(i, row)| {
                let row = row.ok_or_else(|| {
                    Error::invalid_argument("sketch", format!("sequence {i} is null"))
                })?;
                Ok(row
                    .iter()
                    .map(|&b| table[usize::from(b)])
                    .filter(|&c| c != ragged_core::ops::SKIP)
                    .collect())
            })
            .collect()
    };
    let codes = match host_strings(sequences, "sequences")? {
        HostStrings::Utf8(c) => encode(
            (0..c.len())
                .map(|i| c.is_valid(i).then(|| c.row_bytes(i)))
                .collect(),
        )?,
        HostStrings::LargeUtf8(c) => encode(
            (0..c.len())
                .map(|i| c.is_valid(i).then(|| c.row_bytes(i)))
                .collect(),
        )?,
    };
    let column = SequenceColumn::from_codes(&codes, options.alphabet.size())?;
    sketch_column(&column, options, device, interrupt)
}

/// The records of a FASTA or FASTQ file (plain or gzip): their names (`LargeUtf8`) and
/// sketches.
///
/// # Errors
/// [`Error::Io`] naming the file; [`Error::Format`] for a malformed record.
pub fn sketch_file(
    path: &Path,
    options: &SketchOptions,
    device: &Device,
    interrupt: Interrupt<'_>,
) -> Result<(ArrayRef, ArrayRef)> {
    let records = crate::io::read_sequences(path, &options.alphabet)?;
    let sketches = sketch_column(&records.sequences, options, device, interrupt)?;
    let names = ragged_core::Column::LargeUtf8(records.names).to_arrow();
    Ok((names, sketches))
}

/// A `FixedSizeList<Float32>` array without nulls as a sketch column.
fn sketches_in(array: &dyn Array, what: &'static str) -> Result<SketchColumn> {
    let DataType::FixedSizeList(_, dim) = array.data_type() else {
        return Err(super::type_mismatch(
            what,
            "fixed_size_list<float32>",
            array.data_type(),
        ));
    };
    let list = array.as_fixed_size_list();
    if list.null_count() > 0 || list.values().null_count() > 0 {
        return Err(Error::invalid_argument(what, "sketches hold nulls"));
    }
    let Some(values) = list.values().as_primitive_opt::<Float32Type>() else {
        return Err(super::type_mismatch(
            what,
            "fixed_size_list<float32>",
            array.data_type(),
        ));
    };
    let dim = usize::try_from(*dim).map_err(|_| Error::invalid_argument(what, "negative size"))?;
    let start = list.offset() * dim;
    let values = values.values().slice(start, list.len() * dim);
    SketchColumn::try_new(values, dim)
}

/// The squared L2 distance of every query sketch to every reference sketch (to every
/// query when `references` is `None`), as one `FixedSizeList<Float32>[references]` row
/// per query.
///
/// # Errors
/// [`Error::TypeMismatch`] for arrays that are not `FixedSizeList<Float32>`;
/// [`Error::InvalidArgument`] when the dimensions differ or a sketch is null.
pub fn pairwise_distances(
    queries: &dyn Array,
    references: Option<&dyn Array>,
    device: &Device,
) -> Result<ArrayRef> {
    let q = sketches_in(queries, "queries")?;
    let r = references
        .map(|r| sketches_in(r, "references"))
        .transpose()?;
    let matrix = with_backend!(device.backend(), |b| {
        let q = b.to_device_sketches(&q)?;
        let r = r.as_ref().map(|r| b.to_device_sketches(r)).transpose()?;
        let m = b.pairwise_distances(&q, r.as_ref())?;
        b.to_host_distances(&m)
    })?;
    let cols = i32::try_from(matrix.cols())
        .map_err(|_| Error::invalid_argument("pairwise_distances", "too many references"))?;
    let field = Arc::new(Field::new("item", DataType::Float32, false));
    let values = Arc::new(Float32Array::new(matrix.values().clone(), None));
    let rows = FixedSizeListArray::try_new(field, cols, values, None)
        .map_err(|e| Error::invalid_argument("pairwise_distances", e.to_string()))?;
    Ok(Arc::new(rows))
}
