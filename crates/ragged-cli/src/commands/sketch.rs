//! `ragged sketch`: Tensor Sketch embeddings of the records of a FASTA or FASTQ file,
//! and optionally the distances between them.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context};
use clap::Args;
use ragged::io::{
    read_sequences, read_sketch_tables, write_distances_tsv, write_sketch_tables, write_sketches,
    Format, SequenceRecords,
};
use ragged::ops::{Alphabet, SequenceColumn, SketchColumn, SketchPlan, SketchTables};
use ragged::Backend;

use super::device;
use crate::progress::{BytesBar, Step};
use crate::GlobalArgs;

/// Default sub-sequence length `t`.
const DEFAULT_T: usize = 4;
/// Default sketch dimension `D`.
const DEFAULT_DIM: usize = 96;
/// Codes sketched per backend call (bounds device memory; steps the progress bar).
const BATCH_CODES: usize = 256 << 20;

/// Arguments of `ragged sketch`.
#[derive(Args, Debug)]
pub struct SketchArgs {
    /// FASTA or FASTQ file, plain or gzip-compressed (told by its contents); `-` reads
    /// standard input.
    input: PathBuf,
    /// Sub-sequence length t, 1 to 16 [default: 4].
    #[arg(short = 't', value_name = "T", conflicts_with = "tables")]
    t: Option<usize>,
    /// Sketch dimension D, 1 to 1024 [default: 96].
    #[arg(short = 'D', long = "dim", value_name = "D", conflicts_with = "tables")]
    dim: Option<usize>,
    /// Seed of the hash and sign tables [default: 0].
    #[arg(long, conflicts_with = "tables")]
    seed: Option<u64>,
    /// Alphabet: dna (ACGT), protein (the 20 amino acids) or the symbols themselves
    /// (e.g. 01); letters match either case, other bytes are dropped.
    #[arg(long, default_value = "dna")]
    alphabet: String,
    /// Read the hash and sign tables from this JSON file
    /// ({"t", "dim", "alphabet_size", "hashes", "signs"}) instead of drawing them.
    #[arg(long, value_name = "JSON")]
    tables: Option<PathBuf>,
    /// Write the tables used to this JSON file (to sketch other files alike).
    #[arg(long, value_name = "JSON")]
    save_tables: Option<PathBuf>,
    /// Output file (.parquet or .arrow): columns `name` and `sketch`
    /// (FixedSizeList<Float32>[D]), one row per record.
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// Write the squared L2 distances between the sketches to this TSV file: all pairs
    /// of the input, or the input against --reference.
    #[arg(long, value_name = "TSV")]
    distances: Option<PathBuf>,
    /// FASTA or FASTQ file of reference records (sketched with the same tables): the
    /// columns of --distances.
    #[arg(long, value_name = "FASTA", requires = "distances")]
    reference: Option<PathBuf>,
}

/// `ragged sketch`
pub fn sketch(global: &GlobalArgs, args: SketchArgs) -> anyhow::Result<()> {
    let alphabet =
        Alphabet::parse(&args.alphabet).with_context(|| format!("--alphabet {}", args.alphabet))?;
    let tables = match &args.tables {
        Some(path) => {
            let tables = read_sketch_tables(path)?;
            if tables.alphabet_size() != alphabet.size() {
                bail!(
                    "--tables '{}' has tables for {} symbols, but the alphabet {} has {}",
                    path.display(),
                    tables.alphabet_size(),
                    args.alphabet,
                    alphabet.size()
                );
            }
            tables
        }
        None => SketchTables::from_seed(
            args.t.unwrap_or(DEFAULT_T),
            args.dim.unwrap_or(DEFAULT_DIM),
            alphabet.size(),
            args.seed.unwrap_or(0),
        )?,
    };
    // Refuse an output format that cannot hold sketches before any work.
    if let Some(output) = &args.output {
        if output.as_os_str() != ragged::io::STDIO_PATH {
            let format = Format::for_output(output)?;
            if !format.supports_nested() {
                bail!(
                    "cannot write sketches to '{}' as {}: use .parquet or .arrow",
                    output.display(),
                    format.label()
                );
            }
        }
    }
    let selected = device(global)?;
    ragged::with_backend!(&selected.backend, |backend| run(
        global, &args, backend, &alphabet, tables
    ))
}

/// The command on one backend.
fn run<B: Backend>(
    global: &GlobalArgs,
    args: &SketchArgs,
    backend: &B,
    alphabet: &Alphabet,
    tables: SketchTables,
) -> anyhow::Result<()> {
    let started = Instant::now();
    let records = read(global, &args.input, alphabet)?;
    let reference = match &args.reference {
        Some(path) => Some(read(global, path, alphabet)?),
        None => None,
    };
    let (t, dim) = (tables.t(), tables.dim());
    if let Some(path) = &args.save_tables {
        write_sketch_tables(path, &tables).context("the tables were not written")?;
    }
    let plan = SketchPlan::new(tables);
    let sketches = sketch_all(global, backend, &records.sequences, &plan)?;
    let reference_sketches = match &reference {
        Some(r) => Some(sketch_all(global, backend, &r.sequences, &plan)?),
        None => None,
    };
    let distances = match &args.distances {
        Some(_) => {
            let _step = Step::start("distances", global.quiet);
            let queries = backend.to_device_sketches(&sketches)?;
            let references = match &reference_sketches {
                Some(r) => Some(backend.to_device_sketches(r)?),
                None => None,
            };
            let matrix = backend.pairwise_distances(&queries, references.as_ref())?;
            Some(backend.to_host_distances(&matrix)?)
        }
        None => None,
    };
    {
        let _step = Step::start("writing", global.quiet);
        if let Some(output) = &args.output {
            write_sketches(output, None, &records.names, &sketches)
                .context("no output was written")?;
        }
        if let (Some(path), Some(matrix)) = (&args.distances, &distances) {
            let columns = reference.as_ref().map_or(&records.names, |r| &r.names);
            write_distances_tsv(path, &records.names, columns, matrix)
                .context("no distances were written")?;
        }
    }
    let codes = records.sequences.total_length();
    let mut summary = format!(
        "{} records, {codes} codes: {} sketches of dimension {dim} (t = {t})",
        records.len(),
        sketches.len()
    );
    if let Some(matrix) = &distances {
        summary.push_str(&format!(
            ", {} x {} distances",
            matrix.rows(),
            matrix.cols()
        ));
    }
    println!("{summary}");
    if !global.quiet {
        let seconds = started.elapsed().as_secs_f64();
        eprintln!(
            "{} records, {codes} codes in {seconds:.3} s, device {}",
            records.len() + reference.as_ref().map_or(0, SequenceRecords::len),
            backend.describe()
        );
    }
    Ok(())
}

/// Read the records of `path`.
fn read(
    global: &GlobalArgs,
    path: &std::path::Path,
    alphabet: &Alphabet,
) -> anyhow::Result<SequenceRecords> {
    let _step = Step::start(&format!("reading {}", path.display()), global.quiet);
    Ok(read_sequences(path, alphabet)?)
}

/// The sketches of every sequence, computed in batches of about [`BATCH_CODES`] codes
/// (a progress bar over the codes for large inputs).
fn sketch_all<B: Backend>(
    global: &GlobalArgs,
    backend: &B,
    sequences: &SequenceColumn,
    plan: &SketchPlan,
) -> anyhow::Result<SketchColumn> {
    let bar = BytesBar::start(
        "sketching",
        Some(sequences.total_length() as u64),
        global.quiet,
    );
    sketch_batches(backend, sequences, plan, BATCH_CODES, |done| bar.set(done))
}

/// The sketches of every sequence, computed in batches of consecutive records holding
/// at most `batch_codes` codes (or one record); `progress` gets the codes done.
fn sketch_batches<B: Backend>(
    backend: &B,
    sequences: &SequenceColumn,
    plan: &SketchPlan,
    batch_codes: usize,
    progress: impl Fn(u64),
) -> anyhow::Result<SketchColumn> {
    let offsets = sequences.offsets();
    let rows = sequences.len();
    let mut values: Vec<f32> = Vec::with_capacity(rows * plan.dim());
    let mut first = 0;
    while first < rows {
        let base = offsets[first];
        let mut last = first + 1;
        while last < rows && ((offsets[last + 1] - base) as usize) <= batch_codes {
            last += 1;
        }
        let batch = if first == 0 && last == rows {
            sequences.clone()
        } else {
            sequences.slice(first, last - first)?
        };
        let sketches = backend.tensor_sketch_host(&batch, plan)?;
        values.extend_from_slice(sketches.values());
        progress((offsets[last] - offsets[0]) as u64);
        first = last;
    }
    Ok(SketchColumn::try_new(values.into(), plan.dim())?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_give_the_same_sketches() -> anyhow::Result<()> {
        let backend = ragged::CpuBackend::new();
        let sequences: Vec<Vec<u8>> = (0..9)
            .map(|i| (0..i * 7).map(|j| ((i * 31 + j * 17) % 4) as u8).collect())
            .collect();
        let column = SequenceColumn::from_codes(&sequences, 4)?;
        let plan = SketchPlan::new(SketchTables::from_seed(3, 16, 4, 5)?);
        let whole = sketch_batches(&backend, &column, &plan, usize::MAX, |_| {})?;
        for limit in [0, 1, 20, 60] {
            let done = std::cell::Cell::new(0);
            let batched = sketch_batches(&backend, &column, &plan, limit, |d| done.set(d))?;
            assert_eq!(
                batched.values().to_vec(),
                whole.values().to_vec(),
                "{limit}"
            );
            assert_eq!(done.get(), column.total_length() as u64);
        }
        Ok(())
    }
}
