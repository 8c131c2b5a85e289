//! The commands. Each one selects the device once, then calls generic code through
//! `ragged::with_backend!`.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context};
use clap::{Args, Subcommand};
use ragged::device::{select, DeviceChoice, Selected};
use ragged::io::{read_table, write_table_with, Format, StringsColumn};
use ragged::ops::Search;
use ragged::{Column, CudaOptions, Memory, Primitives, StringOps};

use crate::progress::Step;

mod lists;
mod sketch;
mod strings;
use crate::GlobalArgs;
pub use lists::{lists, ListsCommand};
pub use sketch::{sketch, SketchArgs};
pub use strings::{
    redact, AppendArgs, CaseArgs, ConcatenateArgs, CopyIfElseArgs, JoinArgs, LikeArgs, PadArgs,
    RedactArgs, RepeatArgs, ReplaceArgs, Rewrite, SearchArgs, SliceArgs, SplitArgs, StripArgs,
};

/// Arguments of `ragged bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Run only this suite: runtime, primitives, strings, lists, lines, sequences.
    #[arg(long)]
    suite: Option<String>,
    /// Write the records as a JSON array to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Small sizes and few runs (a smoke test, not a measurement).
    #[arg(long)]
    quick: bool,
    /// Run only the cases whose name contains this text (e.g. `scan_sum`), or one of
    /// its comma-separated parts (`redact/60000000,like/`); a part ending in `$` must
    /// end the name (`redact/600000$`). Selecting no case is an error.
    #[arg(long)]
    filter: Option<String>,
}

/// `ragged strings …`
#[derive(Subcommand, Debug)]
pub enum StringsCommand {
    /// Characters (or, with --bytes, bytes) of each string.
    Length(StringsLengthArgs),
    /// Whether each string contains the pattern.
    Contains(SearchArgs),
    /// Whether each string starts with the pattern.
    StartsWith(SearchArgs),
    /// Whether each string ends with the pattern.
    EndsWith(SearchArgs),
    /// Character position of the pattern's first occurrence in each string (-1: none).
    Find(SearchArgs),
    /// Character position of the pattern's last occurrence in each string (-1: none).
    Rfind(SearchArgs),
    /// Non-overlapping occurrences of the pattern in each string.
    CountMatches(SearchArgs),
    /// Characters (or, with --bytes, bytes) START..STOP of each string, with Python's
    /// rules.
    Slice(SliceArgs),
    /// Whether each string matches an SQL LIKE pattern (% any run, _ one character).
    Like(LikeArgs),
    /// Each string in uppercase, by Unicode's simple case mapping (one character to
    /// one: "ß" stays, "ᾳ" → "ᾼ"; pyarrow's utf8_upper but for "ß" → "ẞ").
    Upper(CaseArgs),
    /// Each string in lowercase, by Unicode's simple case mapping ("İ" → "i", as
    /// pyarrow's utf8_lower).
    Lower(CaseArgs),
    /// Each string without leading and/or trailing whitespace (or --chars).
    Strip(StripArgs),
    /// Each string padded to --width characters with --fill.
    Pad(PadArgs),
    /// Each string with the literal --pattern replaced by --replacement.
    Replace(ReplaceArgs),
    /// Each string repeated --times times.
    Repeat(RepeatArgs),
    /// Each string cut at --delimiter (or whitespace) into parts, written as columns
    /// `<C>_0`, `<C>_1`, … (null where a row has fewer parts).
    Split(SplitArgs),
    /// Each string cut at --delimiter (or whitespace) into one list of parts per row,
    /// written as the list column `<C>_split` (not to CSV).
    SplitRecord(SplitArgs),
    /// The --column strings of each row joined with --separator, as one column.
    Concatenate(ConcatenateArgs),
    /// Each row from --then (or --then-value) where the boolean --mask is true, else
    /// from --else (or --else-value).
    CopyIfElse(CopyIfElseArgs),
    /// All valid strings of the column joined with --separator into one row.
    Join(JoinArgs),
    /// The rows of the --column inputs one after another, as one column.
    Append(AppendArgs),
}

/// Arguments of `ragged strings length`.
#[derive(Args, Debug)]
pub struct StringsLengthArgs {
    #[command(flatten)]
    input: InputArgs,
    /// Count bytes instead of characters.
    #[arg(long)]
    bytes: bool,
}

/// `ragged reduce …`
#[derive(Subcommand, Debug)]
pub enum ReduceCommand {
    /// Sum of the valid values of a numeric column.
    Sum(InputArgs),
}

/// An input file, the column to work on, and an optional output file.
#[derive(Args, Debug)]
pub struct InputArgs {
    /// The column to read.
    #[arg(long, short)]
    column: String,
    /// Input file: Parquet, Arrow IPC (file or stream) or CSV; `-` reads an Arrow
    /// stream from stdin.
    input: PathBuf,
    /// Output file (format from the extension: .parquet, .arrow, .arrows, .csv); the
    /// input column and the result column are written. Without it a summary is printed.
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// Input format when the extension does not say: parquet, arrow, arrows, csv.
    #[arg(long)]
    format: Option<String>,
}

fn cuda_options(global: &GlobalArgs) -> anyhow::Result<CudaOptions> {
    let mut options = CudaOptions::from_env()?;
    if let Some(limit) = &global.memory_limit {
        options.memory_limit = Some(ragged::device::parse_size(limit)?);
    }
    Ok(options)
}

/// Whether this command opened a CUDA backend.
pub fn used_cuda() -> bool {
    matches!(
        KEPT_BACKEND.get(),
        Some(ragged::device::AnyBackend::Cuda(_))
    )
}

/// The command's backend, never dropped (see `device`).
static KEPT_BACKEND: std::sync::OnceLock<ragged::device::AnyBackend> = std::sync::OnceLock::new();

fn device(global: &GlobalArgs) -> anyhow::Result<Selected> {
    // A bad --compression is refused before any work.
    global.write_options()?;
    let choice: DeviceChoice = global.device.parse()?;
    let selected = select(choice, cuda_options(global)?)?;
    // The backend lives until the process exits: the driver releases the context with
    // the process, and tearing it down first would add to every GPU command's time.
    let _ = KEPT_BACKEND.set(selected.backend.clone());
    if let Some(notice) = &selected.notice {
        if !global.quiet {
            eprintln!("{notice}");
        }
    }
    Ok(selected)
}

/// `ragged info`
pub fn info(global: &GlobalArgs, check: bool) -> anyhow::Result<()> {
    let report = ragged::info::system_info(&cuda_options(global)?, check);
    print!("{}", report.text);
    Ok(())
}

/// `ragged kernels warmup`
pub fn warmup(global: &GlobalArgs) -> anyhow::Result<()> {
    let selected = device(global)?;
    let ragged::device::AnyBackend::Cuda(gpu) = &selected.backend else {
        println!("no CUDA device in use: nothing to compile (the CPU backend has no kernels)");
        return Ok(());
    };
    let _step = Step::start("compiling kernels", global.quiet);
    for (name, origin, seconds) in gpu.warmup()? {
        println!("{name:<28} {:<10} {seconds:.3} s", origin.as_str());
    }
    Ok(())
}

/// `ragged bench`
pub fn bench(global: &GlobalArgs, args: BenchArgs) -> anyhow::Result<()> {
    if let Some(suite) = &args.suite {
        if !ragged::bench::SUITES.contains(&suite.as_str()) {
            bail!(
                "unknown suite '{suite}' (suites: {})",
                ragged::bench::SUITES.join(", ")
            );
        }
    }
    let selected = device(global)?;
    let options = ragged::bench::BenchOptions {
        suite: args.suite.clone(),
        quick: args.quick,
        filter: args.filter.clone(),
    };
    if !global.quiet {
        eprintln!("bench on {}", selected.backend.describe());
    }
    let quiet = global.quiet;
    let records = ragged::bench::run(&selected.backend, &options, &mut |r| {
        if !quiet {
            eprintln!(
                "  {:<28} {:>10.1} GB/s  {:.3} x copy",
                r.case, r.gb_per_s, r.x_copy
            );
        }
    })?;
    print!("{}", ragged::bench::table(&records));
    if let Some(path) = &args.json {
        let json = serde_json::to_vec_pretty(&records)?;
        ragged::io::write_bytes(path, &json)?;
    }
    Ok(())
}

/// Column errors (missing, wrong type) name the input file; file errors already do.
fn in_file<T>(result: ragged::Result<T>, path: &std::path::Path) -> anyhow::Result<T> {
    result.map_err(|e| match e {
        ragged::Error::ColumnNotFound { .. } | ragged::Error::TypeMismatch { .. } => {
            anyhow::Error::new(e).context(format!("in '{}'", path.display()))
        }
        other => other.into(),
    })
}

fn input_format(args: &InputArgs) -> anyhow::Result<Option<Format>> {
    parse_format(args.format.as_deref())
}

/// The `--format` option of an input, when given.
fn parse_format(format: Option<&str>) -> anyhow::Result<Option<Format>> {
    Ok(match format {
        Some(f) => Some(f.parse::<Format>()?),
        None => None,
    })
}

/// Read the columns `wanted` of `input` under the "reading" step; column errors name
/// the file.
fn read_columns(
    global: &GlobalArgs,
    input: &std::path::Path,
    format: Option<&str>,
    wanted: &[&str],
) -> anyhow::Result<ragged::io::Table> {
    let _step = Step::start("reading", global.quiet);
    let read = read_table(input, parse_format(format)?, Some(wanted));
    in_file(read, input)
}

/// `ragged strings length`
pub fn strings(global: &GlobalArgs, command: StringsCommand) -> anyhow::Result<()> {
    let (op, args) = match command {
        StringsCommand::Length(args) => return length(global, args),
        StringsCommand::Contains(args) => (Search::Contains, args),
        StringsCommand::StartsWith(args) => (Search::StartsWith, args),
        StringsCommand::EndsWith(args) => (Search::EndsWith, args),
        StringsCommand::Find(args) => (Search::Find, args),
        StringsCommand::Rfind(args) => (Search::Rfind, args),
        StringsCommand::CountMatches(args) => (Search::CountMatches, args),
        StringsCommand::Slice(args) => return strings::slice(global, args),
        StringsCommand::Like(args) => return strings::like(global, args),
        StringsCommand::Upper(args) => {
            return strings::rewrite(global, &args.input, Rewrite::Upper)
        }
        StringsCommand::Lower(args) => {
            return strings::rewrite(global, &args.input, Rewrite::Lower)
        }
        StringsCommand::Strip(args) => {
            let rewrite = Rewrite::Strip(args.side.into(), args.chars);
            return strings::rewrite(global, &args.input, rewrite);
        }
        StringsCommand::Pad(args) => {
            let rewrite = Rewrite::Pad(args.width, args.side.into(), args.fill);
            return strings::rewrite(global, &args.input, rewrite);
        }
        StringsCommand::Replace(args) => {
            let rewrite = Rewrite::Replace(args.pattern, args.replacement, args.max_count);
            return strings::rewrite(global, &args.input, rewrite);
        }
        StringsCommand::Repeat(args) => {
            return strings::rewrite(global, &args.input, Rewrite::Repeat(args.times))
        }
        StringsCommand::Split(args) => return strings::split(global, args),
        StringsCommand::SplitRecord(args) => return strings::split_record(global, args),
        StringsCommand::Concatenate(args) => return strings::concatenate(global, args),
        StringsCommand::CopyIfElse(args) => return strings::copy_if_else(global, args),
        StringsCommand::Join(args) => return strings::join(global, args),
        StringsCommand::Append(args) => return strings::append(global, args),
    };
    strings::search(global, op, args)
}

/// `ragged strings length`
fn length(global: &GlobalArgs, args: StringsLengthArgs) -> anyhow::Result<()> {
    let selected = device(global)?;
    let table = {
        let _step = Step::start("reading", global.quiet);
        let read = read_table(
            &args.input.input,
            input_format(&args.input)?,
            Some(&[args.input.column.as_str()]),
        );
        in_file(read, &args.input.input)?
    };
    let strings = in_file(table.strings(&args.input.column), &args.input.input)?;
    let started = Instant::now();
    let _step = Step::start("computing", global.quiet);
    // One generic body per backend and offset width.
    let (lengths, total): (Column, i64) = ragged::with_backend!(&selected.backend, |b| {
        match strings {
            StringsColumn::Utf8(c) => {
                let on_device = b.to_device_strings(c)?;
                let out = if args.bytes {
                    b.length_bytes(&on_device)?
                } else {
                    b.length(&on_device)?
                };
                let total = b.reduce_sum(&out)?;
                (Column::Int32(b.to_host_primitive(&out)?), total)
            }
            StringsColumn::LargeUtf8(c) => {
                let on_device = b.to_device_strings(c)?;
                let out = if args.bytes {
                    b.length_bytes(&on_device)?
                } else {
                    b.length(&on_device)?
                };
                let total = b.reduce_sum(&out)?;
                (Column::Int64(b.to_host_primitive(&out)?), total)
            }
        }
    });
    let seconds = started.elapsed().as_secs_f64();
    drop(_step);
    let unit = if args.bytes { "bytes" } else { "characters" };
    let result_name = format!(
        "{}_{}",
        args.input.column,
        if args.bytes { "length_bytes" } else { "length" }
    );
    finish(
        global,
        &args.input,
        &selected,
        table.column(&args.input.column)?.clone(),
        result_name,
        lengths,
        seconds,
        |lengths| {
            let (rows, nulls) = (lengths.len(), lengths.null_count());
            let (min, max) = valid_i64(lengths)
                .fold(None, |acc: Option<(i64, i64)>, v| {
                    Some(acc.map_or((v, v), |(lo, hi)| (lo.min(v), hi.max(v))))
                })
                .unwrap_or((0, 0));
            let valid = rows - nulls;
            let mean = if valid == 0 {
                0.0
            } else {
                total as f64 / valid as f64
            };
            format!(
                "{rows} rows ({nulls} null), {total} {unit} in all; per row min {min}, mean {mean:.2}, max {max}"
            )
        },
    )
}

/// `ragged reduce sum`
pub fn reduce(global: &GlobalArgs, command: ReduceCommand) -> anyhow::Result<()> {
    let ReduceCommand::Sum(args) = command;
    if args.output.is_some() {
        bail!("reduce sum prints one value; --output is not accepted");
    }
    let selected = device(global)?;
    let read = read_table(
        &args.input,
        input_format(&args)?,
        Some(&[args.column.as_str()]),
    );
    let table = in_file(read, &args.input)?;
    let column = in_file(table.column(&args.column), &args.input)?;
    let device = ragged::compute::Device::from_backend(selected.backend.clone());
    let sum = ragged::compute::primitives::reduce(
        column.to_arrow().as_ref(),
        ragged::compute::primitives::Aggregate::Sum,
        &device,
    )
    .and_then(|one| Column::try_from_arrow(one.as_ref()))
    .map_err(|e| match e {
        // Name the column rather than the API's "array".
        ragged::Error::TypeMismatch {
            expected, actual, ..
        } => ragged::Error::TypeMismatch {
            column: args.column.clone(),
            expected,
            actual,
        },
        other => other,
    });
    // The one-row sum, in its sum type, printed as the value's own `Display`.
    let text = match in_file(sum, &args.input)? {
        Column::Int64(c) => c.get(0).map(|v| v.to_string()),
        Column::UInt64(c) => c.get(0).map(|v| v.to_string()),
        Column::Float32(c) => c.get(0).map(|v| v.to_string()),
        Column::Float64(c) => c.get(0).map(|v| v.to_string()),
        _ => None,
    }
    .unwrap_or_default();
    println!("{text}");
    Ok(())
}

/// Write the output file or print the summary, then the closing line.
#[allow(clippy::too_many_arguments)]
fn finish(
    global: &GlobalArgs,
    args: &InputArgs,
    selected: &Selected,
    input: Column,
    result_name: String,
    result: Column,
    seconds: f64,
    summary: impl Fn(&Column) -> String,
) -> anyhow::Result<()> {
    let columns = [(args.column.clone(), input), (result_name, result)];
    finish_columns(
        global,
        args.output.as_deref(),
        selected,
        &columns,
        seconds,
        || summary(&columns[1].1),
    )
}

/// [`finish`] for any columns: write `columns` to `output` when given (atomically:
/// a failed write leaves no file), print `summary`, then the closing device line.
fn finish_columns(
    global: &GlobalArgs,
    output: Option<&std::path::Path>,
    selected: &Selected,
    columns: &[(String, Column)],
    seconds: f64,
    summary: impl FnOnce() -> String,
) -> anyhow::Result<()> {
    if let Some(output) = output {
        let _step = Step::start("writing", global.quiet);
        write_table_with(output, None, columns, &global.write_options()?)
            .with_context(|| "no output was written".to_string())?;
    }
    println!("{}", summary());
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

/// The valid values of an integer column as i64, for summaries (without copying it).
fn valid_i64(column: &Column) -> Box<dyn Iterator<Item = i64> + '_> {
    fn valid<T: ragged::Native + Into<i64>>(
        c: &ragged::PrimitiveColumn<T, ragged::Host>,
    ) -> impl Iterator<Item = i64> + '_ {
        c.values()
            .iter()
            .enumerate()
            .filter(|&(i, _)| c.is_valid(i))
            .map(|(_, &v)| v.into())
    }
    match column {
        Column::Int32(c) => Box::new(valid(c)),
        Column::Int64(c) => Box::new(valid(c)),
        _ => Box::new(std::iter::empty()),
    }
}

/// Write the records of `batches` to `output` as one strings column `line` (under the
/// "writing" step; a failed write leaves no file).
fn write_lines(
    global: &GlobalArgs,
    output: &std::path::Path,
    batches: Vec<ragged::ops::LinesColumn<ragged::Host>>,
) -> anyhow::Result<()> {
    let _step = Step::start("writing", global.quiet);
    let column = if batches.is_empty() {
        Column::Utf8(ragged::StringColumn::from_options(
            Vec::<Option<&str>>::new(),
        ))
    } else {
        ragged::lines::concat_lines(&batches)?
            .into_column()
            .context("binary records cannot be written")?
    };
    drop(batches);
    write_table_with(
        output,
        None,
        &[("line".to_string(), column)],
        &global.write_options()?,
    )
    .with_context(|| "no output was written".to_string())
}

/// Arguments of `ragged lines`.
#[derive(Args, Debug)]
pub struct LinesArgs {
    /// The text file; `-` reads standard input.
    input: PathBuf,
    /// The delimiter, with escapes: \n (the default: also strips a \r before it),
    /// \r\n, or any 1 to 64 bytes such as ';', '\t', '\x00', '--\r\n'.
    #[arg(long, short, default_value = "\\n", allow_hyphen_values = true)]
    delimiter: String,
    /// Keep each record's delimiter.
    #[arg(long)]
    keep_delimiter: bool,
    /// Print the number of records only (no column is built, UTF-8 is not checked).
    #[arg(long)]
    count: bool,
    /// Only the records starting in the byte range START:END (either may be empty).
    #[arg(long, value_name = "START:END")]
    byte_range: Option<String>,
    /// Output file (.parquet, .arrow, .arrows, .csv): one strings column `line`.
    /// Without it, the number of records is printed.
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// Bytes read per step, e.g. 64MiB (the default); memory stays near this plus the
    /// longest record.
    #[arg(long, default_value = "64MiB")]
    chunk_size: String,
    /// Read regular files in blocks instead of memory-mapping them.
    #[arg(long)]
    no_mmap: bool,
    /// Split the file into byte ranges across several GPUs: `all` or ordinals such as
    /// `0,1` (one range per GPU, results concatenated in file order).
    #[arg(long, value_name = "all|0,1")]
    devices: Option<String>,
}

/// `ragged lines`
pub fn lines_command(global: &GlobalArgs, args: LinesArgs) -> anyhow::Result<()> {
    use ragged::lines::{parse_byte_range, parse_delimiter, ReaderOptions};
    use ragged::ops::LineOptions;

    let mut options = LineOptions::new(parse_delimiter(&args.delimiter)?)
        .with_keep_delimiter(args.keep_delimiter);
    if let Some(range) = &args.byte_range {
        let (start, end) = parse_byte_range(range)?;
        options = options.with_byte_range(start, end);
    }
    let plan = options.plan()?;
    let chunk_size = ragged::device::parse_size(&args.chunk_size)
        .ok()
        .filter(|&n| n > 0)
        .with_context(|| {
            format!(
                "--chunk-size: '{}' is not a size such as 64MiB",
                args.chunk_size
            )
        })?;
    if args.count && args.output.is_some() {
        bail!("lines --count prints a number; --output is not accepted");
    }
    let reader = ReaderOptions {
        chunk_size,
        memory_map: !args.no_mmap,
    };
    if let Some(devices) = &args.devices {
        return run_lines_split(global, &args, devices, plan, reader);
    }
    let selected = device(global)?;
    let reader = limit_chunk(&selected.backend, reader);
    ragged::with_backend!(&selected.backend, |backend| run_lines(
        global, &args, backend, plan, reader
    ))
}

/// The reader options with the window bounded by a CUDA backend's memory limit.
fn limit_chunk(
    backend: &ragged::device::AnyBackend,
    reader: ragged::lines::ReaderOptions,
) -> ragged::lines::ReaderOptions {
    match backend {
        ragged::device::AnyBackend::Cuda(gpu) => ragged::lines::ReaderOptions {
            chunk_size: ragged::lines::chunk_for_memory_limit(
                reader.chunk_size,
                gpu.memory_stats().limit,
            ),
            ..reader
        },
        ragged::device::AnyBackend::Cpu(_) => reader,
    }
}

/// The GPUs named by `--devices`: `all`, or ordinals such as `0,1`.
fn parse_devices(text: &str) -> anyhow::Result<Vec<usize>> {
    if text.trim().eq_ignore_ascii_case("all") {
        return match ragged::cuda_status() {
            ragged::CudaStatus::Available { devices, .. } if !devices.is_empty() => {
                Ok((0..devices.len()).collect())
            }
            ragged::CudaStatus::Available { .. } => bail!("--devices all: no CUDA device"),
            ragged::CudaStatus::Unavailable { reason } => {
                bail!("--devices all: CUDA unavailable ({reason})")
            }
        };
    }
    let devices = text
        .split(',')
        .map(|d| {
            let d = d.trim();
            d.strip_prefix("cuda:")
                .unwrap_or(d)
                .parse::<usize>()
                .with_context(|| {
                    format!("--devices: '{d}' is not a device number (try 'all' or '0,1')")
                })
        })
        .collect::<anyhow::Result<Vec<usize>>>()?;
    let mut seen = std::collections::HashSet::new();
    if let Some(d) = devices.iter().find(|d| !seen.insert(**d)) {
        bail!("--devices: device {d} is named twice");
    }
    Ok(devices)
}

/// `ragged lines --devices …`: the file split into byte ranges, one per GPU.
fn run_lines_split(
    global: &GlobalArgs,
    args: &LinesArgs,
    devices: &str,
    plan: ragged::ops::LinePlan,
    reader: ragged::lines::ReaderOptions,
) -> anyhow::Result<()> {
    use ragged::lines::{count_lines_split, read_lines_split};

    let options = cuda_options(global)?;
    let gpus = parse_devices(devices)?
        .into_iter()
        .map(|d| ragged::CudaBackend::new(d, options.clone()))
        .collect::<ragged::Result<Vec<_>>>()?;
    let reader = ragged::lines::ReaderOptions {
        chunk_size: gpus.iter().fold(reader.chunk_size, |chunk, gpu| {
            ragged::lines::chunk_for_memory_limit(chunk, gpu.memory_stats().limit)
        }),
        ..reader
    };
    let started = Instant::now();
    let size = std::fs::metadata(&args.input).map(|m| m.len()).unwrap_or(0);
    let (records, batches) = if args.count {
        (
            count_lines_split(&gpus, &args.input, plan, reader)?,
            Vec::new(),
        )
    } else {
        let batches = read_lines_split(&gpus, &args.input, plan, reader)?;
        (batches.iter().map(|b| b.len() as u64).sum(), batches)
    };
    if let Some(output) = &args.output {
        write_lines(global, output, batches)?;
    } else {
        println!("{records}");
    }
    let seconds = started.elapsed().as_secs_f64();
    if !global.quiet {
        let names: Vec<String> = gpus.iter().map(|g| g.describe()).collect();
        eprintln!(
            "{records} records, {size} bytes in {seconds:.3} s ({:.2} GB/s), devices {}",
            size as f64 / seconds.max(1e-9) / 1e9,
            names.join(", ")
        );
    }
    // The contexts are released with the process (as for the single backend).
    std::mem::forget(gpus);
    Ok(())
}

/// `ragged lines` on one backend (generic, so another backend plugs in with one line).
fn run_lines<B: ragged::Backend>(
    global: &GlobalArgs,
    args: &LinesArgs,
    backend: &B,
    plan: ragged::ops::LinePlan,
    reader_options: ragged::lines::ReaderOptions,
) -> anyhow::Result<()> {
    use ragged::lines::{to_host_lines, LineReader};

    let started = Instant::now();
    let mut reader = LineReader::open(backend, &args.input, plan, reader_options)?;
    let first_byte = reader.bytes_done();
    let bar = crate::progress::BytesBar::start("lines", reader.total_bytes(), global.quiet);
    let mut batches = Vec::new();
    if args.count {
        while let Some(step) = reader.count_next() {
            step?;
            bar.set(reader.bytes_done());
        }
    } else {
        while let Some(batch) = reader.next() {
            let batch = batch.map_err(|e| match e {
                ragged::Error::InvalidUtf8 { .. } => anyhow::Error::new(e).context(format!(
                    "in '{}' (records count from 0; --count does not check UTF-8)",
                    args.input.display()
                )),
                other => other.into(),
            })?;
            batches.push(to_host_lines(backend, batch)?);
            bar.set(reader.bytes_done());
        }
    }
    drop(bar);
    let records = reader.records();
    let bytes = reader.bytes_done() - first_byte;
    if let Some(output) = &args.output {
        write_lines(global, output, batches)?;
    } else {
        println!("{records}");
    }
    let seconds = started.elapsed().as_secs_f64();
    if !global.quiet {
        eprintln!(
            "{records} records, {bytes} bytes in {seconds:.3} s ({:.2} GB/s), device {}",
            bytes as f64 / seconds.max(1e-9) / 1e9,
            backend.describe()
        );
    }
    Ok(())
}
