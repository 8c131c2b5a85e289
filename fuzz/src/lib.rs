//! Shared pieces of the fuzz targets: the panic policy and one function per reader, so
//! that a crashing input can be replayed from a plain test as well.
//!
//! Every target asserts only that the reader returns `Ok` or `Err` (the `lines` target
//! also checks the records against a naive split). The readers catch panics of the
//! Arrow and Parquet decoders on malformed files and report them as `Error::Format`
//! (see `ragged::io`); such a panic is the documented behaviour, not a finding. A panic
//! anywhere else — in ragged's own code, or one that no reader catches — aborts, and
//! libFuzzer records the input as a crash.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Once;

use ragged::io::{read_sequences, read_table_from_reader, Format};
use ragged::ops::Alphabet;

pub mod lines;

/// Install the panic policy (once): a panic located in a crates.io dependency
/// (arrow-rs, parquet, …) unwinds quietly to the reader that catches it; any other
/// panic prints its message and aborts.
pub fn init() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // One thread, as the fuzzing runs use one core; results never depend on it.
        // (ragged does not re-export rayon; the variable is read when its global pool
        // is first used.)
        if std::env::var_os("RAYON_NUM_THREADS").is_none() {
            std::env::set_var("RAYON_NUM_THREADS", "1");
        }
        // libfuzzer-sys's hook (print, then abort) is replaced; taking it leaves the
        // standard hook, which prints.
        drop(std::panic::take_hook());
        let default_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let in_dependency = info
                .location()
                .is_some_and(|l| l.file().contains("/.cargo/registry/"));
            if in_dependency && std::env::var_os("RAGGED_FUZZ_STRICT").is_none() {
                if std::env::var_os("RAGGED_FUZZ_VERBOSE").is_some() {
                    default_hook(info);
                }
                return;
            }
            default_hook(info);
            std::process::abort();
        }));
    });
}

/// A table reader over `data` as `format`, the way the CLI reads standard input; when
/// the table reads, read it again with a projection (the last column, then the first
/// twice) to take the column push-down paths.
pub fn read_table_bytes(data: &[u8], format: Format) {
    let Ok(table) = read_table_from_reader(data, Some(format), None) else {
        return;
    };
    let names: Vec<String> = table.names().map(str::to_owned).collect();
    if let (Some(first), Some(last)) = (names.first(), names.last()) {
        let _ = read_table_from_reader(data, Some(format), Some(&[last.as_str()]));
        let _ = read_table_from_reader(data, Some(format), Some(&[first.as_str(), first.as_str()]));
    }
    let _ = read_table_from_reader(data, Some(format), Some(&["no such column"]));
}

/// FASTA or FASTQ text parsed with the DNA and the protein alphabets.
pub fn parse_sequences_bytes(data: &[u8]) {
    for alphabet in [Alphabet::Dna, Alphabet::Protein] {
        if let Ok(records) = ragged::io::parse_sequences(data, &alphabet, Path::new("fuzz")) {
            assert_eq!(records.names.len(), records.sequences.len());
        }
    }
}

/// `data` written to a file and read by [`read_sequences`] (the CLI's entry point,
/// which detects gzip by its magic bytes).
pub fn read_sequences_file(data: &[u8]) {
    let path = scratch_path("fa.gz");
    let written = std::fs::File::create(&path).and_then(|mut f| f.write_all(data));
    if written.is_ok() {
        let _ = read_sequences(&path, &Alphabet::Dna);
    }
    let _ = std::fs::remove_file(&path);
}

/// A per-process scratch file in the temporary directory.
fn scratch_path(extension: &str) -> PathBuf {
    std::env::temp_dir().join(format!("ragged-fuzz-{}.{extension}", std::process::id()))
}
