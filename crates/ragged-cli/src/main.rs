//! `ragged`: the command-line tool.
//!
//! The device is chosen once at the top (`--device`); every command below is written
//! against the generic backend traits and runs unchanged on the CPU or a GPU. Errors
//! go to stderr as one line (`error: …`) with a non-zero exit code; a failed command
//! never leaves a partial output file (outputs are written to a temporary file and
//! renamed).

mod commands;
mod progress;

use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

/// jemalloc, as Polars uses: freed memory is kept for the next allocation instead of
/// going back to the kernel, which would fault it in and zero it again page by page.
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// jemalloc's options. `oversize_threshold:0`: no separate arena for allocations of
/// 8 MiB and more, whose freed pages jemalloc hands back at once — columns are that
/// large, and each op's output would be faulted in afresh. `dirty_decay_ms:-1`: freed
/// pages stay with the process until it exits. With the usual 10 s decay jemalloc
/// still returned a freed 2 GiB extent at once (`MADV_DONTNEED` after every free), and
/// zeroing it again on the next op's first touch took 36 % of a CPU scan's time
/// (PERFORMANCE v0.16); a command's resident memory stays at its peak instead.
/// `lg_extent_max_active_fit:20`: a request may be cut from a kept extent up to 2^20
/// times its size (jemalloc's default: 2^6). A freed output merges with the kept
/// extents beside it; with the default, the next op's 6.6 MB output could no longer be
/// cut from that merged extent of about 1 GiB and came from untouched address space,
/// faulted in afresh on every call (`counts` of 1.65 M lists: 1.7 ms instead of 0.5,
/// PERFORMANCE v0.37) while the kept memory stayed resident, unused.
#[cfg(not(target_env = "msvc"))]
#[export_name = "_rjem_malloc_conf"]
static MALLOC_CONF: &[u8] = b"oversize_threshold:0,dirty_decay_ms:-1,lg_extent_max_active_fit:20\0";

/// Ragged (variable-length) columnar data — strings, lists, lines, sequences — in
/// Apache Arrow layout, on the CPU or a CUDA GPU.
#[derive(Parser, Debug)]
#[command(
    name = "ragged",
    version,
    about,
    long_about = None,
    propagate_version = true,
    after_help = "Examples:
  ragged info
  ragged --device cpu strings length -c name examples/data/people.parquet
  ragged redact --names name --visibility visibility examples/data/people.parquet -o redacted.parquet
  ragged lists sum -c visits examples/data/people.parquet
  ragged lines access.log --count"
)]
pub struct Cli {
    #[command(flatten)]
    global: GlobalArgs,
    #[command(subcommand)]
    command: Command,
}

/// Options every command takes.
#[derive(Args, Debug, Clone)]
pub struct GlobalArgs {
    /// Device: auto (CUDA when usable, else CPU), cpu, cuda or cuda:N.
    #[arg(long, global = true, env = "RAGGED_DEVICE", default_value = "auto")]
    device: String,
    /// Most device memory to use, e.g. 2GiB (CUDA only).
    #[arg(long, global = true, env = "RAGGED_MEMORY_LIMIT")]
    memory_limit: Option<String>,
    /// Print only results and errors (no notices, no progress bars).
    #[arg(long, short, global = true)]
    quiet: bool,
    /// Parquet output compression: none, snappy, lz4, zstd[:LEVEL] or gzip[:LEVEL].
    #[arg(long, global = true, default_value = "zstd")]
    compression: String,
    /// Rows per Parquet output row group (row groups are encoded in parallel).
    #[arg(long, global = true, default_value_t = 1 << 20)]
    row_group_size: usize,
    /// Sync each output file to disk before renaming it into place (survives a power
    /// loss; without it a failed run still leaves nothing behind).
    #[arg(long, global = true)]
    sync: bool,
}

impl GlobalArgs {
    /// How outputs are written (`--compression`, `--row-group-size`).
    pub(crate) fn write_options(&self) -> ragged::Result<ragged::io::WriteOptions> {
        Ok(ragged::io::WriteOptions::default()
            .with_compression(&self.compression)?
            .with_row_group_size(self.row_group_size)
            .with_sync(self.sync))
    }
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Show the version, the backends, the devices (or why none) and the kernel cache.
    Info {
        /// Initialize CUDA to prove the driver usable (about 100 ms more); without it the
        /// GPUs are read through NVML when it is there.
        #[arg(long)]
        check: bool,
    },
    /// Manage the compiled-kernel cache.
    #[command(subcommand)]
    Kernels(KernelsCommand),
    /// Run the benchmark suite and print a table.
    Bench(commands::BenchArgs),
    /// String operations on a strings column of a Parquet, Arrow IPC or CSV file.
    #[command(
        subcommand,
        after_help = "Examples:
  ragged strings length -c name examples/data/people.parquet
  ragged strings contains -c visibility -p public examples/data/people.parquet
  ragged strings upper -c name examples/data/people.parquet -o upper.parquet
  ragged strings replace -c name -p a -r - examples/data/people.parquet -o replaced.csv"
    )]
    Strings(commands::StringsCommand),
    /// Redact a names column ("First Last") by a visibility column: "L First" where the
    /// visibility contains "public", "X X" elsewhere (one fused pass).
    ///
    /// Words are cut at single spaces, as `split(name, " ")`: a name of one word
    /// ("Cher", "Ann\tLee") gives null, two spaces an empty initial ("Jane  Doe" →
    /// " Jane"), a leading space an empty first word (" Lee" → "L "). A null
    /// visibility gives "X X", a null name on a public row null.
    #[command(after_help = "Examples:
  ragged redact --names name --visibility visibility examples/data/people.parquet
  ragged redact --names name --visibility visibility examples/data/people.parquet -o redacted.parquet")]
    Redact(commands::RedactArgs),
    /// List operations on a list column (list, large_list, list_view or
    /// large_list_view).
    #[command(
        subcommand,
        after_help = "Examples:
  ragged lists counts -c visits examples/data/people.parquet
  ragged lists get -c visits --index -1 examples/data/people.parquet
  ragged lists max -c visits examples/data/people.parquet -o max.arrow"
    )]
    Lists(commands::ListsCommand),
    /// Reductions over a numeric column.
    #[command(
        subcommand,
        after_help = "Examples:
  ragged reduce sum -c age examples/data/people.parquet"
    )]
    Reduce(commands::ReduceCommand),
    /// Split a text file (or standard input, `-`) into records: a strings column
    /// `line`, or with --count their number.
    #[command(after_help = "Examples:
  ragged lines access.log
  ragged lines access.log -d '--\\r\\n' --count
  ragged lines access.log --byte-range 0:1MiB -o first.parquet")]
    Lines(commands::LinesArgs),
    /// Tensor Sketch embeddings of the records of a FASTA or FASTQ file (plain or
    /// gzip), written as a table, and optionally their pairwise distances as TSV.
    #[command(after_help = "Examples:
  ragged sketch reads.fa.gz -t 4 -D 96 --seed 0 -o sketches.parquet
  ragged sketch genes.fa --distances dist.tsv")]
    Sketch(commands::SketchArgs),
}

#[derive(Subcommand, Debug)]
enum KernelsCommand {
    /// Compile every kernel module for this GPU (or load it from the disk cache).
    Warmup,
    /// Print the kernel cache directory.
    Dir,
}

fn main() -> ExitCode {
    // A panic is a bug. Decoders of corrupt files may panic inside the IO layer, which
    // catches it and returns an error; so the hook only records the message, and it is
    // printed (in one line, without a backtrace) only if the panic reaches `main`.
    std::panic::set_hook(Box::new(|info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = Some(message);
        }
    }));
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => usage_error(e),
    };
    let started = std::time::Instant::now();
    let outcome = std::panic::catch_unwind(|| run(cli));
    if ragged::trace::enabled() {
        let phases = ragged::trace::phases_line();
        if !phases.is_empty() {
            eprintln!("ragged: phases: {phases}");
        }
        eprintln!(
            "ragged: command {:.1} ms",
            started.elapsed().as_secs_f64() * 1e3
        );
    }
    let code: u8 = match outcome {
        Ok(Ok(())) => 0,
        Ok(Err(e)) => {
            eprintln!("error: {}", one_line(&e));
            1
        }
        Err(_) => {
            let message = LAST_PANIC
                .lock()
                .ok()
                .and_then(|m| m.clone())
                .unwrap_or_default();
            eprintln!("error: internal error (please report): {message}");
            101
        }
    };
    if commands::used_cuda() && std::env::var_os("CUDA_INJECTION64_PATH").is_none() {
        exit_now(code);
    }
    ExitCode::from(code)
}

/// Leave without waiting for the CUDA driver's teardown of the context (about 100 ms on
/// an H100, a third of a small command's time). The teardown runs when the last holder
/// of the driver's file descriptors exits, so a forked child holds them: it lets go of
/// the standard streams at once (a reader waiting for end of file does not wait for
/// it), waits for this process to exit and then exits itself, tearing the context down
/// in the background. Every output file is already written and renamed; standard output
/// and error are flushed first. The child calls only async-signal-safe functions. Not
/// used under tools that inject into CUDA (compute-sanitizer, Nsight:
/// `CUDA_INJECTION64_PATH`), which report at exit.
fn exit_now(code: u8) -> ! {
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    // SAFETY: getpid has no preconditions.
    let parent = unsafe { libc::getpid() };
    // SAFETY: fork duplicates the process; the child below runs only async-signal-safe
    // calls (close, getppid, nanosleep, _exit) and never returns into Rust code.
    if unsafe { libc::fork() } == 0 {
        // SAFETY: closing the standard descriptors and polling the parent are plain
        // system calls; _exit ends the child without running any destructor.
        unsafe {
            libc::close(0);
            libc::close(1);
            libc::close(2);
            let pause = libc::timespec {
                tv_sec: 0,
                tv_nsec: 1_000_000,
            };
            while libc::getppid() == parent {
                libc::nanosleep(&pause, std::ptr::null_mut());
            }
            libc::_exit(0)
        }
    }
    // SAFETY: _exit ends the process at once; nothing of ours is left to flush.
    unsafe { libc::_exit(i32::from(code)) }
}

/// Leave on a command-line error: help and version go to standard output as clap
/// prints them; a usage error is one line on stderr (`error: … (see --help)`, clap's
/// tip folded in) with exit status 2.
fn usage_error(e: clap::Error) -> ! {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit()
    }
    eprintln!("{}", usage_error_line(&e.render().to_string()));
    std::process::exit(2)
}

/// clap's rendered usage error as one line: its first line and its tips, then a
/// pointer to --help (the usage block is dropped).
fn usage_error_line(rendered: &str) -> String {
    let mut lines = rendered.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or("error: invalid arguments");
    let mut line = if first.starts_with("error:") {
        first.to_owned()
    } else {
        format!("error: {first}")
    };
    for tip in lines.filter(|l| l.starts_with("tip:")) {
        line.push_str("; ");
        line.push_str(tip);
    }
    line.push_str(" (see --help)");
    line
}

/// The message of the last panic, printed only when it reaches `main`.
static LAST_PANIC: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// The error and its causes, joined on one line.
fn one_line(e: &anyhow::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
    }
    parts.join(": ").replace('\n', " ")
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Info { check } => commands::info(&cli.global, check),
        Command::Kernels(KernelsCommand::Warmup) => commands::warmup(&cli.global),
        Command::Kernels(KernelsCommand::Dir) => {
            match ragged::info::kernel_cache_dir() {
                Some(dir) => println!("{}", dir.display()),
                None => anyhow::bail!("no kernel cache directory: set XDG_CACHE_HOME or HOME"),
            }
            Ok(())
        }
        Command::Bench(args) => commands::bench(&cli.global, args),
        Command::Strings(cmd) => commands::strings(&cli.global, cmd),
        Command::Redact(args) => commands::redact(&cli.global, args),
        Command::Lists(cmd) => commands::lists(&cli.global, cmd),
        Command::Reduce(cmd) => commands::reduce(&cli.global, cmd),
        Command::Lines(args) => commands::lines_command(&cli.global, args),
        Command::Sketch(args) => commands::sketch(&cli.global, args),
    }
}
