//! `ragged strings split` (the parts as columns `<C>_0`, `<C>_1`, …) and
//! `ragged strings split-record` (one list of parts per row, `<C>_split`), through
//! `StringOps::split` / `rsplit` and `split_record` / `rsplit_record`.

use std::path::Path;
use std::time::Instant;

use anyhow::bail;
use clap::Args;
use ragged::io::{Format, StringsColumn, STDIO_PATH};
use ragged::ops::SplitOn;
use ragged::{Backend, Column, Host, ListColumn, OffsetSize, StringColumn};

use super::super::{device, finish_columns, in_file, read_columns, InputArgs};
use crate::progress::Step;
use crate::GlobalArgs;

/// Arguments of `ragged strings split` and `split-record`.
#[derive(Args, Debug)]
pub struct SplitArgs {
    #[command(flatten)]
    pub(crate) input: InputArgs,
    /// The literal cut at (not empty); without it, runs of ASCII whitespace, with
    /// leading and trailing whitespace ignored.
    #[arg(long, short, allow_hyphen_values = true)]
    pub(crate) delimiter: Option<String>,
    /// At most this many cuts per row (the last part keeps the rest).
    #[arg(long)]
    pub(crate) max_splits: Option<usize>,
    /// Count the cuts from the right (Python's rsplit); parts still go left to right.
    #[arg(long)]
    pub(crate) right: bool,
}

impl SplitArgs {
    /// Where each row is cut.
    fn on(&self) -> SplitOn<'_> {
        match &self.delimiter {
            Some(d) => SplitOn::Literal(d),
            None => SplitOn::Whitespace,
        }
    }

    /// The op's name in messages.
    fn op(&self, record: bool) -> &'static str {
        match (record, self.right) {
            (false, false) => "split",
            (false, true) => "rsplit",
            (true, false) => "split_record",
            (true, true) => "rsplit_record",
        }
    }
}

/// Refuse an empty delimiter before any work (the backends refuse it too).
fn check_delimiter(args: &SplitArgs, record: bool) -> anyhow::Result<()> {
    if args.delimiter.as_deref() == Some("") {
        bail!(
            "{}: the delimiter is empty (leave out --delimiter to split on whitespace)",
            args.op(record)
        );
    }
    Ok(())
}

/// Read the input's strings column and run `compute` on it under the "computing" step;
/// the columns to write start with the input column, and `summary` is given the
/// input's rows and null rows and the result columns.
fn run_split(
    global: &GlobalArgs,
    args: &SplitArgs,
    compute: impl FnOnce(
        &ragged::device::Selected,
        StringsColumn<'_>,
    ) -> anyhow::Result<Vec<(String, Column)>>,
    summary: impl FnOnce(usize, usize, &[(String, Column)]) -> String,
) -> anyhow::Result<()> {
    let input = &args.input;
    let selected = device(global)?;
    let table = read_columns(
        global,
        &input.input,
        input.format.as_deref(),
        &[input.column.as_str()],
    )?;
    let strings = in_file(table.strings(&input.column), &input.input)?;
    let (rows, nulls) = (strings.len(), strings.null_count());
    let started = Instant::now();
    let step = Step::start("computing", global.quiet);
    let results = compute(&selected, strings)?;
    let seconds = started.elapsed().as_secs_f64();
    drop(step);
    let mut columns = vec![(input.column.clone(), table.column(&input.column)?.clone())];
    columns.extend(results);
    finish_columns(
        global,
        input.output.as_deref(),
        &selected,
        &columns,
        seconds,
        || summary(rows, nulls, &columns[1..]),
    )
}

/// `split` or `rsplit` on the device copy of `col`; the part columns back on the host.
fn split_on<B: Backend, O: OffsetSize>(
    b: &B,
    col: &StringColumn<O, Host>,
    on: SplitOn<'_>,
    max_splits: Option<usize>,
    right: bool,
) -> ragged::Result<Vec<Column>> {
    let col = b.to_device_strings(col)?;
    let parts = if right {
        b.rsplit(&col, on, max_splits)?
    } else {
        b.split(&col, on, max_splits)?
    };
    parts
        .iter()
        .map(|part| Ok(O::into_strings_column(b.to_host_strings(part)?)))
        .collect()
}

/// `ragged strings split`
pub fn split(global: &GlobalArgs, args: SplitArgs) -> anyhow::Result<()> {
    check_delimiter(&args, false)?;
    let (on, max_splits, right) = (args.on(), args.max_splits, args.right);
    let column = args.input.column.clone();
    run_split(
        global,
        &args,
        |selected, strings| {
            let parts = ragged::with_backend!(&selected.backend, |b| match strings {
                StringsColumn::Utf8(c) => split_on(b, c, on, max_splits, right),
                StringsColumn::LargeUtf8(c) => split_on(b, c, on, max_splits, right),
            })?;
            Ok(parts
                .into_iter()
                .enumerate()
                .map(|(k, part)| (format!("{column}_{k}"), part))
                .collect())
        },
        |rows, nulls, parts| {
            let total: usize = parts.iter().map(|(_, c)| c.len() - c.null_count()).sum();
            format!(
                "{rows} rows ({nulls} null): {} part columns, {total} parts in all",
                parts.len()
            )
        },
    )
}

/// Refuse an output format that cannot hold a list column (CSV) before any work.
fn check_output_holds_lists(output: Option<&Path>) -> anyhow::Result<()> {
    let Some(output) = output else {
        return Ok(());
    };
    if output.as_os_str() == STDIO_PATH {
        return Ok(());
    }
    let format = Format::for_output(output)?;
    if !format.supports_nested() {
        bail!(
            "cannot write the list column of split-record to '{}' as {}: use .parquet, \
             .arrow or .arrows (or split into columns with `ragged strings split`)",
            output.display(),
            format.label()
        );
    }
    Ok(())
}

/// `split_record` or `rsplit_record` on the device copy of `col`; the lists back on
/// the host.
fn split_record_on<B: Backend, O: OffsetSize>(
    b: &B,
    col: &StringColumn<O, Host>,
    on: SplitOn<'_>,
    max_splits: Option<usize>,
    right: bool,
) -> ragged::Result<Column> {
    let col = b.to_device_strings(col)?;
    let lists = if right {
        b.rsplit_record(&col, on, max_splits)?
    } else {
        b.split_record(&col, on, max_splits)?
    };
    Ok(O::into_list_column(b.to_host_list(&lists)?))
}

/// The parts of all lists, and the most in one list.
fn count_parts<O: OffsetSize>(lists: &ListColumn<O, Host>) -> (usize, usize) {
    (0..lists.len())
        .map(|i| lists.range(i).len())
        .fold((0, 0), |(total, most), n| (total + n, most.max(n)))
}

/// `ragged strings split-record`
pub fn split_record(global: &GlobalArgs, args: SplitArgs) -> anyhow::Result<()> {
    check_delimiter(&args, true)?;
    check_output_holds_lists(args.input.output.as_deref())?;
    let (on, max_splits, right) = (args.on(), args.max_splits, args.right);
    let name = format!("{}_split", args.input.column);
    run_split(
        global,
        &args,
        |selected, strings| {
            let lists = ragged::with_backend!(&selected.backend, |b| match strings {
                StringsColumn::Utf8(c) => split_record_on(b, c, on, max_splits, right),
                StringsColumn::LargeUtf8(c) => split_record_on(b, c, on, max_splits, right),
            })?;
            Ok(vec![(name, lists)])
        },
        |rows, nulls, lists| {
            let (parts, most) = match lists.first().map(|(_, c)| c) {
                Some(Column::List(c)) => count_parts(c),
                Some(Column::LargeList(c)) => count_parts(c),
                _ => (0, 0),
            };
            format!("{rows} rows ({nulls} null): {parts} parts in all, at most {most} in a row")
        },
    )
}
