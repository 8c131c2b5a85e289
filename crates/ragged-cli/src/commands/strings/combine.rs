//! The strings commands over several columns or several rows: `concatenate` (row-wise,
//! `StringOps::concatenate`), `copy-if-else` (`StringOps::copy_if_else` by a boolean
//! mask), `join` (all rows into one, `StringOps::join`) and `append` (columns one
//! after another, `StringOps::append`).

use std::path::PathBuf;
use std::time::Instant;

use clap::{ArgGroup, Args};
use ragged::device::Selected;
use ragged::io::{StringsColumn, Table};
use ragged::ops::{AnyStringColumn, ConcatNulls, OffsetWidth, StringArg};
use ragged::{Backend, BooleanColumn, Column, Host, Memory, OffsetSize, StringColumn};

use super::super::{device, finish_columns, in_file, read_columns, InputArgs};
use crate::progress::Step;
use crate::GlobalArgs;

/// The input and output files of a command over several columns.
#[derive(Args, Debug)]
pub struct FileArgs {
    /// Input file: Parquet, Arrow IPC (file or stream) or CSV; `-` reads an Arrow
    /// stream from stdin.
    input: PathBuf,
    /// Output file (format from the extension: .parquet, .arrow, .arrows, .csv).
    /// Without it a summary is printed.
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// Input format when the extension does not say: parquet, arrow, arrows, csv.
    #[arg(long)]
    format: Option<String>,
}

/// What a command writes besides its result column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Written {
    /// The columns it read, then the result (one row per input row).
    InputsAndResult,
    /// The result alone (its rows are not the input's rows).
    ResultAlone,
}

/// The body the commands of this file share: read the columns `wanted` (each once),
/// time `compute` under the "computing" step, then write the result named `name` (after
/// the columns read, or alone) or print `summary`.
fn run_columns(
    global: &GlobalArgs,
    files: &FileArgs,
    wanted: &[&str],
    written: Written,
    name: String,
    compute: impl FnOnce(&Selected, &Table) -> anyhow::Result<Column>,
    summary: impl FnOnce(&Table, &Column) -> String,
) -> anyhow::Result<()> {
    let mut unique: Vec<&str> = Vec::with_capacity(wanted.len());
    for name in wanted {
        if !unique.contains(name) {
            unique.push(name);
        }
    }
    let selected = device(global)?;
    let table = read_columns(global, &files.input, files.format.as_deref(), &unique)?;
    let started = Instant::now();
    let step = Step::start("computing", global.quiet);
    let result = compute(&selected, &table)?;
    let seconds = started.elapsed().as_secs_f64();
    drop(step);
    let mut columns = Vec::with_capacity(unique.len() + 1);
    if written == Written::InputsAndResult {
        for name in &unique {
            columns.push((name.to_string(), table.column(name)?.clone()));
        }
    }
    columns.push((name, result));
    let result = &columns[columns.len() - 1].1;
    finish_columns(
        global,
        files.output.as_deref(),
        &selected,
        &columns,
        seconds,
        || summary(&table, result),
    )
}

/// The strings columns `names` of `table`; a missing column or another type names the
/// input file.
fn strings_columns<'a>(
    table: &'a Table,
    names: &[String],
    files: &FileArgs,
) -> anyhow::Result<Vec<StringsColumn<'a>>> {
    names
        .iter()
        .map(|name| in_file(table.strings(name), &files.input))
        .collect()
}

/// The device copy of a strings column of either width.
fn upload<B: Memory>(b: &B, col: StringsColumn<'_>) -> ragged::Result<AnyStringColumn<B::Loc>> {
    Ok(match col {
        StringsColumn::Utf8(c) => AnyStringColumn::Utf8(b.to_device_strings(c)?),
        StringsColumn::LargeUtf8(c) => AnyStringColumn::LargeUtf8(b.to_device_strings(c)?),
    })
}

/// A result back on the host, as a `Utf8` or `LargeUtf8` column.
fn download<B: Memory>(b: &B, out: AnyStringColumn<B::Loc>) -> ragged::Result<Column> {
    Ok(match out {
        AnyStringColumn::Utf8(c) => Column::Utf8(b.to_host_strings(&c)?),
        AnyStringColumn::LargeUtf8(c) => Column::LargeUtf8(b.to_host_strings(&c)?),
    })
}

/// The bytes of a strings result (0 for another column type).
fn total_bytes(out: &Column) -> usize {
    match out {
        Column::Utf8(c) => c.total_bytes(),
        Column::LargeUtf8(c) => c.total_bytes(),
        _ => 0,
    }
}

/// The default name of a result over several columns: `<A>_<B>_<suffix>`.
fn joined_name(columns: &[String], suffix: &str) -> String {
    let mut name = columns.join("_");
    name.push('_');
    name.push_str(suffix);
    name
}

/// Arguments of `ragged strings concatenate`.
#[derive(Args, Debug)]
pub struct ConcatenateArgs {
    /// A strings column to concatenate; repeat for each input, in order.
    #[arg(long, short, required = true)]
    column: Vec<String>,
    #[command(flatten)]
    files: FileArgs,
    /// Put between consecutive inputs of a row.
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    separator: String,
    /// Replace a null input by this text (by default a null input makes the row null).
    #[arg(long, allow_hyphen_values = true, conflicts_with = "skip_nulls")]
    null_replacement: Option<String>,
    /// Leave null inputs out, with their separator (a row of only nulls is empty).
    #[arg(long)]
    skip_nulls: bool,
    /// The result column's name (default `<A>_<B>_concatenated`).
    #[arg(long)]
    name: Option<String>,
}

/// `concatenate` on the device copies of `columns`, back on the host.
fn concatenate_on<B: Backend>(
    b: &B,
    columns: &[StringsColumn<'_>],
    separator: &str,
    nulls: ConcatNulls<'_>,
) -> ragged::Result<Column> {
    let on_device = columns
        .iter()
        .map(|c| upload(b, *c))
        .collect::<ragged::Result<Vec<_>>>()?;
    let args: Vec<StringArg<'_, B::Loc>> = on_device.iter().map(StringArg::from).collect();
    download(
        b,
        b.concatenate(&args, separator, nulls, OffsetWidth::Auto)?,
    )
}

/// `ragged strings concatenate`
pub fn concatenate(global: &GlobalArgs, args: ConcatenateArgs) -> anyhow::Result<()> {
    let nulls = match (&args.null_replacement, args.skip_nulls) {
        (Some(text), _) => ConcatNulls::Replace(text),
        (None, true) => ConcatNulls::Skip,
        (None, false) => ConcatNulls::Null,
    };
    let wanted: Vec<&str> = args.column.iter().map(String::as_str).collect();
    let name = args
        .name
        .clone()
        .unwrap_or_else(|| joined_name(&args.column, "concatenated"));
    run_columns(
        global,
        &args.files,
        &wanted,
        Written::InputsAndResult,
        name,
        |selected, table| {
            let columns = strings_columns(table, &args.column, &args.files)?;
            Ok(ragged::with_backend!(&selected.backend, |b| {
                concatenate_on(b, &columns, &args.separator, nulls)
            })?)
        },
        |_, out| {
            format!(
                "{} rows ({} null) from {} columns, {} bytes",
                out.len(),
                out.null_count(),
                args.column.len(),
                total_bytes(out)
            )
        },
    )
}

/// Arguments of `ragged strings copy-if-else`.
#[derive(Args, Debug)]
#[command(group(ArgGroup::new("then_arg").required(true).args(["then_column", "then_value"])))]
#[command(group(ArgGroup::new("else_arg").required(true).args(["else_column", "else_value"])))]
pub struct CopyIfElseArgs {
    /// The boolean column choosing each row: true takes the then-side, false or null
    /// the else-side.
    #[arg(long)]
    mask: String,
    /// The strings column whose row is taken where the mask is true.
    #[arg(long = "then", value_name = "COLUMN")]
    then_column: Option<String>,
    /// The text taken where the mask is true (instead of --then).
    #[arg(long, allow_hyphen_values = true, value_name = "TEXT")]
    then_value: Option<String>,
    /// The strings column whose row is taken where the mask is false or null.
    #[arg(long = "else", value_name = "COLUMN")]
    else_column: Option<String>,
    /// The text taken where the mask is false or null (instead of --else).
    #[arg(long, allow_hyphen_values = true, value_name = "TEXT")]
    else_value: Option<String>,
    #[command(flatten)]
    files: FileArgs,
    /// The result column's name (default `<mask>_copy_if_else`).
    #[arg(long)]
    name: Option<String>,
}

/// One side of `copy-if-else` on the host: a column of the input or a text.
#[derive(Clone, Copy)]
enum Side<'a> {
    Column(StringsColumn<'a>),
    Value(&'a str),
}

impl<'a> Side<'a> {
    /// The side from `--then`/`--else` or `--then-value`/`--else-value`.
    fn from_args(
        table: &'a Table,
        column: Option<&str>,
        value: Option<&'a str>,
        files: &FileArgs,
    ) -> anyhow::Result<Self> {
        Ok(match (column, value) {
            (Some(name), _) => Side::Column(in_file(table.strings(name), &files.input)?),
            (None, Some(text)) => Side::Value(text),
            // clap requires one of the two.
            (None, None) => {
                anyhow::bail!("give --then/--else COLUMN or --then-value/--else-value TEXT")
            }
        })
    }
}

/// The argument of one side: its text, or its column's device copy.
fn side_arg<'a, L: ragged::Location>(
    side: Side<'a>,
    device: &'a Option<AnyStringColumn<L>>,
) -> StringArg<'a, L> {
    match (side, device) {
        (Side::Value(text), _) => StringArg::Scalar(Some(text)),
        (Side::Column(_), Some(c)) => StringArg::from(c),
        // Not reached: every column side is uploaded before the call.
        (Side::Column(_), None) => StringArg::Scalar(None),
    }
}

/// `copy_if_else` on the device copies of the mask and the sides, back on the host.
fn copy_if_else_on<B: Backend>(
    b: &B,
    mask: &BooleanColumn<Host>,
    then: Side<'_>,
    otherwise: Side<'_>,
) -> ragged::Result<Column> {
    let mask = b.to_device_booleans(mask)?;
    let upload_side = |side: Side<'_>| match side {
        Side::Column(c) => upload(b, c).map(Some),
        Side::Value(_) => Ok(None),
    };
    let (then_device, else_device) = (upload_side(then)?, upload_side(otherwise)?);
    let out = b.copy_if_else(
        &mask,
        side_arg(then, &then_device),
        side_arg(otherwise, &else_device),
        OffsetWidth::Auto,
    )?;
    download(b, out)
}

/// `ragged strings copy-if-else`
pub fn copy_if_else(global: &GlobalArgs, args: CopyIfElseArgs) -> anyhow::Result<()> {
    let mut wanted = vec![args.mask.as_str()];
    wanted.extend(args.then_column.as_deref());
    wanted.extend(args.else_column.as_deref());
    let name = args
        .name
        .clone()
        .unwrap_or_else(|| format!("{}_copy_if_else", args.mask));
    run_columns(
        global,
        &args.files,
        &wanted,
        Written::InputsAndResult,
        name,
        |selected, table| {
            let mask = in_file(table.boolean(&args.mask), &args.files.input)?;
            let then = Side::from_args(
                table,
                args.then_column.as_deref(),
                args.then_value.as_deref(),
                &args.files,
            )?;
            let otherwise = Side::from_args(
                table,
                args.else_column.as_deref(),
                args.else_value.as_deref(),
                &args.files,
            )?;
            Ok(ragged::with_backend!(&selected.backend, |b| {
                copy_if_else_on(b, mask, then, otherwise)
            })?)
        },
        |table, out| {
            let taken = match table.boolean(&args.mask) {
                Ok(mask) => mask
                    .to_options()
                    .into_iter()
                    .flatten()
                    .filter(|&v| v)
                    .count(),
                Err(_) => 0,
            };
            format!(
                "{} rows ({} null): {taken} from then, {} from else",
                out.len(),
                out.null_count(),
                out.len() - taken
            )
        },
    )
}

/// Arguments of `ragged strings join`.
#[derive(Args, Debug)]
pub struct JoinArgs {
    #[command(flatten)]
    input: InputArgs,
    /// Put between consecutive rows.
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    separator: String,
}

/// `join` on the device copy of `col`, back on the host.
fn join_on<B: Backend, O: OffsetSize>(
    b: &B,
    col: &StringColumn<O, Host>,
    separator: &str,
) -> ragged::Result<Column> {
    let col = b.to_device_strings(col)?;
    download(b, b.join(&col, separator, OffsetWidth::Auto)?)
}

/// `ragged strings join`: one row, written alone as `<C>_joined`.
pub fn join(global: &GlobalArgs, args: JoinArgs) -> anyhow::Result<()> {
    let InputArgs {
        column,
        input,
        output,
        format,
    } = args.input;
    let files = FileArgs {
        input,
        output,
        format,
    };
    let separator = args.separator;
    run_columns(
        global,
        &files,
        &[column.as_str()],
        Written::ResultAlone,
        format!("{column}_joined"),
        |selected, table| {
            let strings = in_file(table.strings(&column), &files.input)?;
            Ok(ragged::with_backend!(
                &selected.backend,
                |b| match strings {
                    StringsColumn::Utf8(c) => join_on(b, c, &separator),
                    StringsColumn::LargeUtf8(c) => join_on(b, c, &separator),
                }
            )?)
        },
        |table, out| {
            let (rows, nulls) = table
                .strings(&column)
                .map_or((0, 0), |c| (c.len(), c.null_count()));
            let joined = match out {
                Column::Utf8(c) => c.get(0),
                Column::LargeUtf8(c) => c.get(0),
                _ => None,
            }
            .unwrap_or("");
            format!(
                "{} of {rows} rows joined ({nulls} null left out): {} characters, {} bytes",
                rows - nulls,
                joined.chars().count(),
                joined.len()
            )
        },
    )
}

/// Arguments of `ragged strings append`.
#[derive(Args, Debug)]
pub struct AppendArgs {
    /// A strings column whose rows are appended; repeat for each input, in order.
    #[arg(long, short, required = true)]
    column: Vec<String>,
    #[command(flatten)]
    files: FileArgs,
    /// The result column's name (default `<A>_<B>_appended`).
    #[arg(long)]
    name: Option<String>,
}

/// `append` on the device copies of `columns`, back on the host.
fn append_on<B: Backend>(b: &B, columns: &[StringsColumn<'_>]) -> ragged::Result<Column> {
    let on_device = columns
        .iter()
        .map(|c| upload(b, *c))
        .collect::<ragged::Result<Vec<_>>>()?;
    let args: Vec<StringArg<'_, B::Loc>> = on_device.iter().map(StringArg::from).collect();
    download(b, b.append(&args, OffsetWidth::Auto)?)
}

/// `ragged strings append`: the columns' rows one after another, written alone.
pub fn append(global: &GlobalArgs, args: AppendArgs) -> anyhow::Result<()> {
    let wanted: Vec<&str> = args.column.iter().map(String::as_str).collect();
    let name = args
        .name
        .clone()
        .unwrap_or_else(|| joined_name(&args.column, "appended"));
    run_columns(
        global,
        &args.files,
        &wanted,
        Written::ResultAlone,
        name,
        |selected, table| {
            let columns = strings_columns(table, &args.column, &args.files)?;
            Ok(ragged::with_backend!(&selected.backend, |b| append_on(
                b, &columns
            ))?)
        },
        |_, out| {
            format!(
                "{} rows ({} null) from {} columns, {} bytes",
                out.len(),
                out.null_count(),
                args.column.len(),
                total_bytes(out)
            )
        },
    )
}
