//! `ragged strings contains|starts-with|ends-with|find|rfind|count-matches`: the
//! literal searches over one strings column of a file, with one pattern for every row
//! (`--pattern`) or one per row from another column (`--pattern-column`); and
//! `ragged strings slice` and `ragged strings like`; the per-row rewrites `upper`,
//! `lower`, `strip`, `pad`, `replace` and `repeat`; and `ragged redact`. The splits
//! (`split`, `split-record`) are in `strings/split.rs`, the commands over several
//! columns or rows (`concatenate`, `copy-if-else`, `join`, `append`) in
//! `strings/combine.rs`.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::bail;
use clap::Args;
use ragged::device::Selected;
use ragged::io::{read_table, StringsColumn, Table};
use ragged::ops::{
    AnyStringColumn, OffsetWidth, Pattern, Search, Side, SliceBounds, StringArg, REDACTED,
};
use ragged::{Backend, Column, Host, OffsetSize, StringColumn};

use super::{device, finish, in_file, input_format, InputArgs};
use crate::progress::Step;
use crate::GlobalArgs;

mod combine;
mod split;
pub use combine::{
    append, concatenate, copy_if_else, join, AppendArgs, ConcatenateArgs, CopyIfElseArgs, JoinArgs,
};
pub use split::{split, split_record, SplitArgs};

const MISSING_PATTERN: &str = "give the pattern: --pattern TEXT, or --pattern-column NAME";

/// Arguments of the search subcommands.
#[derive(Args, Debug)]
pub struct SearchArgs {
    #[command(flatten)]
    input: InputArgs,
    /// The literal searched for in every row (no regex; may be empty).
    #[arg(long, short, allow_hyphen_values = true)]
    pattern: Option<String>,
    /// A strings column of the input holding each row's pattern.
    #[arg(long, conflicts_with = "pattern")]
    pattern_column: Option<String>,
}

/// The pattern in host memory, before the upload.
enum HostPattern<'a> {
    Scalar(&'a str),
    Column(StringsColumn<'a>),
}

/// `op` on the device copies of `col` and the pattern; the answer back on the host.
fn search_on<B: Backend, O: OffsetSize>(
    b: &B,
    op: Search,
    col: &StringColumn<O, Host>,
    pattern: &HostPattern<'_>,
) -> ragged::Result<Column> {
    let col = b.to_device_strings(col)?;
    let (small, large);
    let pattern = match pattern {
        HostPattern::Scalar(s) => Pattern::Scalar(s),
        HostPattern::Column(StringsColumn::Utf8(c)) => {
            small = b.to_device_strings(*c)?;
            Pattern::Utf8(&small)
        }
        HostPattern::Column(StringsColumn::LargeUtf8(c)) => {
            large = b.to_device_strings(*c)?;
            Pattern::LargeUtf8(&large)
        }
    };
    Ok(match op {
        Search::Contains => Column::Boolean(b.to_host_booleans(&b.contains(&col, pattern)?)?),
        Search::StartsWith => Column::Boolean(b.to_host_booleans(&b.starts_with(&col, pattern)?)?),
        Search::EndsWith => Column::Boolean(b.to_host_booleans(&b.ends_with(&col, pattern)?)?),
        Search::Find => O::into_column(b.to_host_primitive(&b.find(&col, pattern)?)?),
        Search::Rfind => O::into_column(b.to_host_primitive(&b.rfind(&col, pattern)?)?),
        Search::CountMatches => {
            O::into_column(b.to_host_primitive(&b.count_matches(&col, pattern)?)?)
        }
    })
}

/// The closing summary of a boolean answer: true and false rows.
fn boolean_summary(answer: &Column) -> String {
    let (rows, nulls) = (answer.len(), answer.null_count());
    let trues = match answer {
        Column::Boolean(c) => c.to_options().into_iter().flatten().filter(|&v| v).count(),
        _ => 0,
    };
    format!(
        "{rows} rows ({nulls} null): {trues} true, {} false",
        rows - nulls - trues
    )
}

/// The closing summary of a search's answer.
fn summary(op: Search, answer: &Column) -> String {
    let rows = answer.len();
    let nulls = answer.null_count();
    match answer {
        Column::Boolean(_) => boolean_summary(answer),
        _ => {
            if op == Search::CountMatches {
                format!(
                    "{rows} rows ({nulls} null): {} matches in all",
                    super::valid_i64(answer).sum::<i64>()
                )
            } else {
                let found = super::valid_i64(answer).filter(|&v| v >= 0).count();
                format!("{rows} rows ({nulls} null): found in {found}")
            }
        }
    }
}

/// The body every strings command shares: read the input's strings column (and the
/// `extra` column), time `compute` over it under the "computing" step, then write the
/// input column and the result named `<column>_<suffix>`, or print `summary`.
fn run_strings(
    global: &GlobalArgs,
    input: &InputArgs,
    extra: Option<&str>,
    suffix: &str,
    compute: impl FnOnce(&Selected, &Table, StringsColumn<'_>) -> anyhow::Result<Column>,
    summary: impl Fn(&Column) -> String,
) -> anyhow::Result<()> {
    let selected = device(global)?;
    let mut wanted = vec![input.column.as_str()];
    wanted.extend(extra);
    let table = {
        let _step = Step::start("reading", global.quiet);
        let read = read_table(&input.input, input_format(input)?, Some(&wanted));
        in_file(read, &input.input)?
    };
    let strings = in_file(table.strings(&input.column), &input.input)?;
    let started = Instant::now();
    let step = Step::start("computing", global.quiet);
    let result = compute(&selected, &table, strings)?;
    let seconds = started.elapsed().as_secs_f64();
    drop(step);
    finish(
        global,
        input,
        &selected,
        table.column(&input.column)?.clone(),
        format!("{}_{suffix}", input.column),
        result,
        seconds,
        summary,
    )
}

/// `ragged strings <search>`
pub fn search(global: &GlobalArgs, op: Search, args: SearchArgs) -> anyhow::Result<()> {
    if args.pattern.is_none() && args.pattern_column.is_none() {
        bail!(MISSING_PATTERN);
    }
    run_strings(
        global,
        &args.input,
        args.pattern_column.as_deref(),
        op.name(),
        |selected, table, strings| {
            let pattern = match (&args.pattern, &args.pattern_column) {
                (Some(p), _) => HostPattern::Scalar(p),
                (None, Some(name)) => {
                    HostPattern::Column(in_file(table.strings(name), &args.input.input)?)
                }
                (None, None) => bail!(MISSING_PATTERN),
            };
            Ok(ragged::with_backend!(
                &selected.backend,
                |b| match strings {
                    StringsColumn::Utf8(c) => search_on(b, op, c, &pattern),
                    StringsColumn::LargeUtf8(c) => search_on(b, op, c, &pattern),
                }
            )?)
        },
        |answer| summary(op, answer),
    )
}

/// Arguments of `ragged strings slice`.
#[derive(Args, Debug)]
pub struct SliceArgs {
    #[command(flatten)]
    input: InputArgs,
    /// First position kept (negative counts from the end; default: the start).
    #[arg(long, allow_hyphen_values = true)]
    start: Option<i64>,
    /// Position after the last kept (negative counts from the end; default: the end).
    #[arg(long, allow_hyphen_values = true)]
    stop: Option<i64>,
    /// Count bytes instead of characters (a bound inside a character is an error).
    #[arg(long)]
    bytes: bool,
}

/// `slice_chars` or `slice_bytes` on the device copy of `col`, back on the host.
fn slice_on<B: Backend, O: OffsetSize>(
    b: &B,
    col: &StringColumn<O, Host>,
    bounds: (Option<i64>, Option<i64>),
    bytes: bool,
) -> ragged::Result<StringColumn<O, Host>> {
    let col = b.to_device_strings(col)?;
    let bounds = SliceBounds::Scalar {
        start: bounds.0,
        stop: bounds.1,
    };
    let out = if bytes {
        b.slice_bytes(&col, bounds)?
    } else {
        b.slice_chars(&col, bounds)?
    };
    b.to_host_strings(&out)
}

/// `ragged strings slice`
pub fn slice(global: &GlobalArgs, args: SliceArgs) -> anyhow::Result<()> {
    let bounds = (args.start, args.stop);
    let op = if args.bytes {
        "slice_bytes"
    } else {
        "slice_chars"
    };
    run_strings(
        global,
        &args.input,
        None,
        op,
        |selected, _, strings| {
            Ok(ragged::with_backend!(
                &selected.backend,
                |b| match strings {
                    StringsColumn::Utf8(c) => slice_on(b, c, bounds, args.bytes).map(Column::Utf8),
                    StringsColumn::LargeUtf8(c) =>
                        slice_on(b, c, bounds, args.bytes).map(Column::LargeUtf8),
                }
            )?)
        },
        |sliced| {
            let kept = match sliced {
                Column::Utf8(c) => c.total_bytes(),
                Column::LargeUtf8(c) => c.total_bytes(),
                _ => 0,
            };
            format!(
                "{} rows ({} null), {kept} bytes kept",
                sliced.len(),
                sliced.null_count()
            )
        },
    )
}

/// Arguments of `ragged strings like`.
#[derive(Args, Debug)]
pub struct LikeArgs {
    #[command(flatten)]
    input: InputArgs,
    /// The SQL LIKE pattern: % matches any run of characters, _ one character.
    #[arg(long, short, allow_hyphen_values = true)]
    pattern: String,
    /// The character that makes the next pattern character literal (e.g. '\\').
    #[arg(long, allow_hyphen_values = true)]
    escape: Option<char>,
}

/// `like` on the device copy of `col`, back on the host.
fn like_on<B: Backend, O: OffsetSize>(
    b: &B,
    col: &StringColumn<O, Host>,
    pattern: &str,
    escape: Option<char>,
) -> ragged::Result<Column> {
    let col = b.to_device_strings(col)?;
    Ok(Column::Boolean(
        b.to_host_booleans(&b.like(&col, pattern, escape)?)?,
    ))
}

/// `ragged strings like`
pub fn like(global: &GlobalArgs, args: LikeArgs) -> anyhow::Result<()> {
    run_strings(
        global,
        &args.input,
        None,
        "like",
        |selected, _, strings| {
            Ok(ragged::with_backend!(
                &selected.backend,
                |b| match strings {
                    StringsColumn::Utf8(c) => like_on(b, c, &args.pattern, args.escape),
                    StringsColumn::LargeUtf8(c) => like_on(b, c, &args.pattern, args.escape),
                }
            )?)
        },
        boolean_summary,
    )
}

/// Arguments of `ragged redact`.
#[derive(Args, Debug)]
pub struct RedactArgs {
    /// Input file: Parquet, Arrow IPC (file or stream) or CSV; `-` reads an Arrow
    /// stream from stdin.
    input: PathBuf,
    /// The names column ("First Last").
    #[arg(long)]
    names: String,
    /// The visibility column: rows containing "public" keep a redacted name.
    #[arg(long)]
    visibility: String,
    /// Output file (format from the extension: .parquet, .arrow, .arrows, .csv); the
    /// names column and `<names>_redacted` are written. Without it a summary is printed.
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// Input format when the extension does not say: parquet, arrow, arrows, csv.
    #[arg(long)]
    format: Option<String>,
}

/// `redact` on the device copies of the two columns, back on the host.
fn redact_on<B: Backend, O: OffsetSize>(
    b: &B,
    names: &StringColumn<O, Host>,
    visibility: &StringsColumn<'_>,
) -> ragged::Result<Column> {
    let names = b.to_device_strings(names)?;
    let out = match visibility {
        StringsColumn::Utf8(c) => {
            let v = b.to_device_strings(*c)?;
            b.redact(&names, StringArg::column(&v), OffsetWidth::Auto)?
        }
        StringsColumn::LargeUtf8(c) => {
            let v = b.to_device_strings(*c)?;
            b.redact(&names, StringArg::column(&v), OffsetWidth::Auto)?
        }
    };
    Ok(match out {
        AnyStringColumn::Utf8(c) => Column::Utf8(b.to_host_strings(&c)?),
        AnyStringColumn::LargeUtf8(c) => Column::LargeUtf8(b.to_host_strings(&c)?),
    })
}

/// `ragged redact`
pub fn redact(global: &GlobalArgs, args: RedactArgs) -> anyhow::Result<()> {
    let input = InputArgs {
        column: args.names,
        input: args.input,
        output: args.output,
        format: args.format,
    };
    run_strings(
        global,
        &input,
        Some(args.visibility.as_str()),
        "redacted",
        |selected, table, names| {
            let visibility = in_file(table.strings(&args.visibility), &input.input)?;
            Ok(ragged::with_backend!(&selected.backend, |b| match names {
                StringsColumn::Utf8(c) => redact_on(b, c, &visibility),
                StringsColumn::LargeUtf8(c) => redact_on(b, c, &visibility),
            })?)
        },
        |out| {
            let redacted = match out {
                Column::Utf8(c) => c.iter().filter(|r| *r == Some(REDACTED)).count(),
                Column::LargeUtf8(c) => c.iter().filter(|r| *r == Some(REDACTED)).count(),
                _ => 0,
            };
            format!(
                "{} rows ({} null): {redacted} redacted to {REDACTED:?}",
                out.len(),
                out.null_count()
            )
        },
    )
}

/// Which end `strip` trims and `pad` fills.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum SideArg {
    /// The start.
    Left,
    /// The end.
    Right,
    /// Both ends.
    Both,
}

impl From<SideArg> for Side {
    fn from(side: SideArg) -> Self {
        match side {
            SideArg::Left => Side::Left,
            SideArg::Right => Side::Right,
            SideArg::Both => Side::Both,
        }
    }
}

/// The per-row rewrites of the CLI, with their arguments.
#[derive(Debug)]
pub enum Rewrite {
    /// `upper`.
    Upper,
    /// `lower`.
    Lower,
    /// `strip`: the side and the characters (`None`: ASCII whitespace).
    Strip(Side, Option<String>),
    /// `pad`: width in characters, side, fill character.
    Pad(usize, Side, char),
    /// `replace`: pattern, replacement, most replacements per row.
    Replace(String, String, Option<usize>),
    /// `repeat`: times.
    Repeat(usize),
}

impl Rewrite {
    /// The op's name, used for the result column's suffix.
    fn name(&self) -> &'static str {
        match self {
            Rewrite::Upper => "upper",
            Rewrite::Lower => "lower",
            Rewrite::Strip(..) => "strip",
            Rewrite::Pad(..) => "pad",
            Rewrite::Replace(..) => "replace",
            Rewrite::Repeat(_) => "repeat",
        }
    }
}

/// Arguments of `ragged strings upper` and `lower`.
#[derive(Args, Debug)]
pub struct CaseArgs {
    #[command(flatten)]
    pub(crate) input: InputArgs,
}

/// Arguments of `ragged strings strip`.
#[derive(Args, Debug)]
pub struct StripArgs {
    #[command(flatten)]
    pub(crate) input: InputArgs,
    /// Which ends to trim.
    #[arg(long, value_enum, default_value = "both")]
    pub(crate) side: SideArg,
    /// The characters to trim (default: ASCII whitespace).
    #[arg(long, allow_hyphen_values = true)]
    pub(crate) chars: Option<String>,
}

/// Arguments of `ragged strings pad`.
#[derive(Args, Debug)]
pub struct PadArgs {
    #[command(flatten)]
    pub(crate) input: InputArgs,
    /// The width in characters that shorter rows are padded to.
    #[arg(long, allow_hyphen_values = true)]
    pub(crate) width: usize,
    /// Where the fill goes (left right-aligns the text).
    #[arg(long, value_enum, default_value = "left")]
    pub(crate) side: SideArg,
    /// The fill character.
    #[arg(long, default_value = " ", allow_hyphen_values = true)]
    pub(crate) fill: char,
}

/// Arguments of `ragged strings replace`.
#[derive(Args, Debug)]
pub struct ReplaceArgs {
    #[command(flatten)]
    pub(crate) input: InputArgs,
    /// The literal replaced (not empty).
    #[arg(long, short, allow_hyphen_values = true)]
    pub(crate) pattern: String,
    /// What it is replaced by (may be empty).
    #[arg(long, short, allow_hyphen_values = true)]
    pub(crate) replacement: String,
    /// At most this many replacements per row, from the left.
    #[arg(long)]
    pub(crate) max_count: Option<usize>,
}

/// Arguments of `ragged strings repeat`.
#[derive(Args, Debug)]
pub struct RepeatArgs {
    #[command(flatten)]
    pub(crate) input: InputArgs,
    /// How many times each row is repeated.
    #[arg(long, allow_hyphen_values = true)]
    pub(crate) times: usize,
}

/// `rewrite` on the device copy of `col`, back on the host.
fn rewrite_on<B: Backend, O: OffsetSize>(
    b: &B,
    col: &StringColumn<O, Host>,
    rewrite: &Rewrite,
) -> ragged::Result<Column> {
    let col = b.to_device_strings(col)?;
    let auto = OffsetWidth::Auto;
    let out = match rewrite {
        Rewrite::Upper => b.upper(&col, auto)?,
        Rewrite::Lower => b.lower(&col, auto)?,
        Rewrite::Strip(side, chars) => {
            let stripped = b.strip(&col, *side, chars.as_deref())?;
            return Ok(O::into_strings_column(b.to_host_strings(&stripped)?));
        }
        Rewrite::Pad(width, side, fill) => b.pad(&col, *width, *side, *fill, auto)?,
        Rewrite::Replace(pattern, replacement, max) => {
            b.replace(&col, pattern, replacement, *max, auto)?
        }
        Rewrite::Repeat(times) => b.repeat(&col, *times, auto)?,
    };
    Ok(match out {
        AnyStringColumn::Utf8(c) => Column::Utf8(b.to_host_strings(&c)?),
        AnyStringColumn::LargeUtf8(c) => Column::LargeUtf8(b.to_host_strings(&c)?),
    })
}

/// `ragged strings upper|lower|strip|pad|replace|repeat`
pub fn rewrite(global: &GlobalArgs, input: &InputArgs, rewrite: Rewrite) -> anyhow::Result<()> {
    run_strings(
        global,
        input,
        None,
        rewrite.name(),
        |selected, _, strings| {
            Ok(ragged::with_backend!(
                &selected.backend,
                |b| match strings {
                    StringsColumn::Utf8(c) => rewrite_on(b, c, &rewrite),
                    StringsColumn::LargeUtf8(c) => rewrite_on(b, c, &rewrite),
                }
            )?)
        },
        |out| {
            let bytes = match out {
                Column::Utf8(c) => c.total_bytes(),
                Column::LargeUtf8(c) => c.total_bytes(),
                _ => 0,
            };
            format!(
                "{} rows ({} null), {bytes} bytes",
                out.len(),
                out.null_count()
            )
        },
    )
}
