//! `ragged lists …`: the lists family over one list column of a file.

use std::time::Instant;

use anyhow::Context;
use clap::{Args, Subcommand};
use ragged::compute::lists::{self, Reduction};
use ragged::compute::Device;
use ragged::io::{read_table, write_table_with, Table};
use ragged::ops::OutOfRange;
use ragged::{Column, CpuBackend, ListOps};

use super::{device, in_file, input_format, InputArgs};
use crate::progress::Step;
use crate::GlobalArgs;

/// `ragged lists …`
#[derive(Subcommand, Debug)]
pub enum ListsCommand {
    /// Number of elements of each list.
    Counts(InputArgs),
    /// The elements of the valid lists, in order, as one column (written alone).
    Flatten(InputArgs),
    /// Each element's position in its list, as lists of the same shape.
    LocalIndex(InputArgs),
    /// Element INDEX of every list (negative counts from the end).
    Get(GetArgs),
    /// `list[START:STOP]` of every list, with Python's rules.
    Slice(SliceArgs),
    /// Sum of each list's valid elements (0 for an empty list).
    Sum(InputArgs),
    /// Product of each list's valid elements (1 for an empty list).
    Prod(InputArgs),
    /// Least valid element of each list (null when none).
    Min(InputArgs),
    /// Greatest valid element of each list (null when none).
    Max(InputArgs),
    /// Position of each list's least valid element (null when none).
    Argmin(InputArgs),
    /// Position of each list's greatest valid element (null when none).
    Argmax(InputArgs),
    /// Number of valid elements of each list.
    Count(InputArgs),
    /// Number of valid non-zero elements of each list.
    CountNonzero(InputArgs),
    /// Whether any valid element of each list of booleans is true.
    Any(InputArgs),
    /// Whether every valid element of each list of booleans is true.
    All(InputArgs),
    /// Mean of each list's valid elements, as float64 (null when none).
    Mean(InputArgs),
}

/// Arguments of `ragged lists get`.
#[derive(Args, Debug)]
pub struct GetArgs {
    #[command(flatten)]
    input: InputArgs,
    /// The element index within each list; negative counts from the end.
    #[arg(long, short, allow_hyphen_values = true)]
    index: i64,
    /// Fail on the first valid list too short for the index (by default its row is
    /// null).
    #[arg(long)]
    strict: bool,
}

/// Arguments of `ragged lists slice`.
#[derive(Args, Debug)]
pub struct SliceArgs {
    #[command(flatten)]
    input: InputArgs,
    /// First element kept (negative counts from the end; default: the start).
    #[arg(long, allow_hyphen_values = true)]
    start: Option<i64>,
    /// Element after the last kept (negative counts from the end; default: the end).
    #[arg(long, allow_hyphen_values = true)]
    stop: Option<i64>,
}

/// One parsed operation.
#[derive(Clone, Copy, Debug)]
enum Op {
    Counts,
    Flatten,
    LocalIndex,
    Get(i64, OutOfRange),
    Slice(Option<i64>, Option<i64>),
    Reduce(Reduction),
}

impl Op {
    /// The result column's name suffix.
    fn name(self) -> &'static str {
        match self {
            Op::Counts => "counts",
            Op::Flatten => "flatten",
            Op::LocalIndex => "local_index",
            Op::Get(..) => "get",
            Op::Slice(..) => "slice",
            Op::Reduce(r) => r.name(),
        }
    }
}

/// `ragged lists <op>`
pub fn lists(global: &GlobalArgs, command: ListsCommand) -> anyhow::Result<()> {
    use ListsCommand as C;
    let (args, op) = match command {
        C::Counts(a) => (a, Op::Counts),
        C::Flatten(a) => (a, Op::Flatten),
        C::LocalIndex(a) => (a, Op::LocalIndex),
        C::Get(g) => {
            let mode = if g.strict {
                OutOfRange::Error
            } else {
                OutOfRange::Null
            };
            (g.input, Op::Get(g.index, mode))
        }
        C::Slice(s) => (s.input, Op::Slice(s.start, s.stop)),
        C::Sum(a) => (a, Op::Reduce(Reduction::Sum)),
        C::Prod(a) => (a, Op::Reduce(Reduction::Prod)),
        C::Min(a) => (a, Op::Reduce(Reduction::Min)),
        C::Max(a) => (a, Op::Reduce(Reduction::Max)),
        C::Argmin(a) => (a, Op::Reduce(Reduction::Argmin)),
        C::Argmax(a) => (a, Op::Reduce(Reduction::Argmax)),
        C::Count(a) => (a, Op::Reduce(Reduction::Count)),
        C::CountNonzero(a) => (a, Op::Reduce(Reduction::CountNonzero)),
        C::Any(a) => (a, Op::Reduce(Reduction::Any)),
        C::All(a) => (a, Op::Reduce(Reduction::All)),
        C::Mean(a) => (a, Op::Reduce(Reduction::Mean)),
    };
    let selected = device(global)?;
    let table = {
        let _step = Step::start("reading", global.quiet);
        let read = read_table(
            &args.input,
            input_format(&args)?,
            Some(&[args.column.as_str()]),
        );
        in_file(read, &args.input)?
    };
    let table = in_file(compact_list_view(table, &args.column), &args.input)?;
    // A column of another type is an error naming it.
    in_file(table.lists(&args.column), &args.input)?;
    let input = in_file(table.column(&args.column), &args.input)?.to_arrow();
    let device = Device::from_backend(selected.backend.clone());
    let started = Instant::now();
    let result = match op {
        Op::Counts => lists::counts(&input, &device),
        Op::Flatten => lists::flatten(&input, &device),
        Op::LocalIndex => lists::local_index(&input, &device),
        Op::Get(index, mode) => lists::get(&input, index, mode, &device),
        Op::Slice(start, stop) => lists::slice(&input, start, stop, &device),
        Op::Reduce(r) => lists::reduce(&input, r, &device),
    };
    let result = in_file(
        result.and_then(|r| Column::try_from_arrow(r.as_ref())),
        &args.input,
    )?;
    let seconds = started.elapsed().as_secs_f64();

    if let Some(output) = &args.output {
        let _step = Step::start("writing", global.quiet);
        let name = format!("{}_{}", args.column, op.name());
        // A flattened column has a row per element, not per list: it is written alone.
        let columns = if matches!(op, Op::Flatten) {
            vec![(name, result.clone())]
        } else {
            let input = table.column(&args.column)?.clone();
            vec![(args.column.clone(), input), (name, result.clone())]
        };
        write_table_with(output, None, &columns, &global.write_options()?)
            .with_context(|| "no output was written".to_string())?;
    }
    println!("{}", summary(op, &result));
    ragged::trace::add(
        ragged::trace::Phase::Compute,
        std::time::Duration::from_secs_f64(seconds),
        0,
    );
    if !global.quiet {
        eprintln!(
            "device {}, {:.3} ms",
            selected.backend.describe(),
            seconds * 1e3
        );
    }
    Ok(())
}

/// The table with its column `name` compacted into a list column when it is a list
/// view (`list_view` / `large_list_view`, as pyarrow and Awkward write them), so
/// that every op (and the written input column) sees offsets; other tables as they
/// are. The compaction runs on the CPU, before the device's upload.
fn compact_list_view(table: Table, name: &str) -> ragged::Result<Table> {
    let compact = match table.column(name)? {
        Column::ListView(c) => Column::List(CpuBackend.to_compact(c)?),
        Column::LargeListView(c) => Column::LargeList(CpuBackend.to_compact(c)?),
        _ => return Ok(table),
    };
    let columns = table
        .into_columns()
        .into_iter()
        .map(|(n, c)| {
            if n == name {
                (n, compact.clone())
            } else {
                (n, c)
            }
        })
        .collect();
    Table::new(columns)
}

/// The line printed after the op: rows and nulls, and the total for `counts`.
fn summary(op: Op, result: &Column) -> String {
    let rows = result.len();
    let nulls = result.null_count();
    match (op, result) {
        (Op::Counts, Column::Int32(_) | Column::Int64(_)) => {
            let total: i64 = super::valid_i64(result).sum();
            format!("{rows} lists ({nulls} null), {total} elements in all")
        }
        (Op::Flatten, _) => format!("{rows} elements ({nulls} null)"),
        _ => format!("{rows} lists ({nulls} null) → {}", result.type_name()),
    }
}
