//! Deterministic generators of HOST columns, and the enumerations of named cases the
//! conformance suite loops over.
//!
//! Every case is built from a *spec* (the rows as plain Rust values, which rows are
//! valid, and an optional slice), so the oracle can compute the expected result from
//! the spec without looking at the column, and the column is built independently of
//! any backend. Randomness comes from [`crate::rng::Rng`] seeded by the case's label:
//! the same label gives the same column everywhere.
//!
//! The enumerations cover the cases of DESIGN.md §4 (Testing): nulls, empty rows,
//! all-null, all-empty, 1- to 4-byte UTF-8 characters, one very long row among short
//! ones, sliced inputs (`offsets[0] != 0`, validity bitmaps at a bit offset, null rows
//! with non-empty bytes), both offset widths and the row counts of [`row_counts`].

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

pub mod list_ops;
mod lists;
mod offsets;
mod primitive_ops;
mod primitives;
mod strings;
pub mod text;

pub use lists::{list_case, list_cases, ListCase, ListKind, ListSpec};
pub use offsets::{offsets_cases, OffsetsCase};
pub use primitive_ops::{
    huge_case, huge_segments_case, huge_sizes_case, mask, nan_cases, op_cases, segment_cases,
    segment_offsets, shaped_spec, sizes_cases, MaskShape, SegmentShape, SegmentsCase, SizesCase,
    ValueShape, HUGE_ROWS, MULTI_CHUNK_ROWS, OP_ROW_COUNTS, SEGMENT_ROW_COUNTS,
};
pub use primitives::{
    primitive_case, primitive_cases, sum_overflow_cases, wide_accumulator_cases, PrimitiveCase,
    PrimitiveKind, PrimitiveSpec,
};
pub use strings::{
    random_char, random_string, string_case, string_cases, CharMix, StringCase, StringKind,
    StringSpec,
};
pub use text::TextCase;

/// The number of rows of one large case: more than 2^20, not a multiple of any tile.
pub const LARGE_ROWS: usize = (1 << 20) + 3;

/// Row counts every enumeration covers: empty, one, a warp ± 1, a block ± 1, a tile ± 1,
/// several tiles plus a remainder, and one large input.
pub const ROW_COUNTS: [usize; 13] = [
    0,
    1,
    31,
    32,
    33,
    255,
    256,
    257,
    1023,
    1024,
    1025,
    3 * 1024 + 5,
    LARGE_ROWS,
];

/// The environment variable that replaces [`LARGE_ROWS`] in [`row_counts`]: a smaller
/// large case for runs under compute-sanitizer, where every kernel is instrumented and
/// a strings test over a million rows takes longer than a device session allows
/// (both sanitize modes of `scripts/gpu-run.sh` set it). Values of at most 4 096 rows are
/// refused: the large case must stay beyond every small one.
pub const LARGE_ROWS_ENV: &str = "RAGGED_TEST_LARGE_ROWS";

/// The row count of the large case: [`LARGE_ROWS`], or [`LARGE_ROWS_ENV`] when set.
///
/// # Panics
/// When [`LARGE_ROWS_ENV`] is set to anything but a number above 4 096.
pub fn large_rows() -> usize {
    static ROWS: OnceLock<usize> = OnceLock::new();
    *ROWS.get_or_init(|| count_from_env(LARGE_ROWS_ENV, LARGE_ROWS, 4096, "rows"))
}

/// The number in the environment variable `var`, or `default` when it is unset.
///
/// # Panics
/// When `var` is set to anything but a number above `above` (the message names the
/// number's `unit`).
fn count_from_env(var: &str, default: usize, above: usize, unit: &str) -> usize {
    match std::env::var(var) {
        Err(_) => default,
        Ok(text) => match text.trim().parse::<usize>() {
            Ok(count) if count > above => count,
            _ => panic!("{var}={text:?}: expected a number of {unit} above {above}"),
        },
    }
}

/// Characters of the long row of the strings cases' `long-row` kind (one row of mixed
/// 1- to 4-byte characters among short rows).
pub const LONG_ROW_CHARS: usize = 100_000;

/// The environment variable that replaces [`LONG_ROW_CHARS`]: a shorter long row for
/// runs under compute-sanitizer, where a kernel walking that row checks every access
/// and one shard of a strings test holding a `long-row` case took 300–490 s under
/// memcheck (PERFORMANCE v0.33); both sanitize modes of `scripts/gpu-run.sh` set it.
/// Values of at most [`LONG_ROW_MIN_CHARS`] are refused: the row must stay longer than
/// every tile and stage a kernel holds in shared memory (16 KiB at most), so that the
/// paths for rows that do not fit keep running.
pub const LONG_ROW_CHARS_ENV: &str = "RAGGED_TEST_LONG_ROW_CHARS";

/// The fewest characters [`LONG_ROW_CHARS_ENV`] may ask for, exclusive.
pub const LONG_ROW_MIN_CHARS: usize = 16_384;

/// The characters of the `long-row` kind's long row: [`LONG_ROW_CHARS`], or
/// [`LONG_ROW_CHARS_ENV`] when set.
///
/// # Panics
/// When [`LONG_ROW_CHARS_ENV`] is set to anything but a number above
/// [`LONG_ROW_MIN_CHARS`].
pub fn long_row_chars() -> usize {
    static CHARS: OnceLock<usize> = OnceLock::new();
    *CHARS.get_or_init(|| {
        count_from_env(
            LONG_ROW_CHARS_ENV,
            LONG_ROW_CHARS,
            LONG_ROW_MIN_CHARS,
            "characters",
        )
    })
}

/// The environment variable that keeps one shard of the strings cases
/// ([`string_cases`]): `k/n` (0 <= k < n) keeps the cases at positions k, k + n,
/// k + 2n, ... For compute-sanitizer runs, where a strings test checks so many cases
/// (every op and argument over every case, each a few instrumented launches) that it
/// outlasts a device session: `scripts/gpu-run.sh sanitize-each` with `SHARDS=n` runs
/// each test as n processes, one per shard, which together check every case.
pub const SHARD_ENV: &str = "RAGGED_TEST_SHARD";

/// `k/n` parsed as (k, n) when 0 <= k < n.
pub fn parse_shard(text: &str) -> Option<(usize, usize)> {
    let (k, n) = text.trim().split_once('/')?;
    let (k, n) = (
        k.trim().parse::<usize>().ok()?,
        n.trim().parse::<usize>().ok()?,
    );
    (k < n).then_some((k, n))
}

/// This process's shard of the strings cases: [`SHARD_ENV`] parsed, or (0, 1) (every
/// case) when it is unset.
///
/// # Panics
/// When [`SHARD_ENV`] is set to anything but `k/n` with 0 <= k < n.
pub fn shard() -> (usize, usize) {
    static SHARD: OnceLock<(usize, usize)> = OnceLock::new();
    *SHARD.get_or_init(|| match std::env::var(SHARD_ENV) {
        Err(_) => (0, 1),
        Ok(text) => parse_shard(&text)
            .unwrap_or_else(|| panic!("{SHARD_ENV}={text:?}: expected k/n with 0 <= k < n")),
    })
}

/// The items of `cases` in this process's [`shard`].
pub fn in_shard<T>(cases: Vec<T>) -> Vec<T> {
    let (k, n) = shard();
    cases
        .into_iter()
        .enumerate()
        .filter_map(|(i, case)| (i % n == k).then_some(case))
        .collect()
}

/// [`ROW_COUNTS`] with its large count from [`large_rows`]: the counts the
/// enumerations of strings, lists and primitive cases with nulls cover.
pub fn row_counts() -> &'static [usize] {
    static COUNTS: OnceLock<[usize; ROW_COUNTS.len()]> = OnceLock::new();
    COUNTS.get_or_init(|| {
        let mut counts = ROW_COUNTS;
        counts[ROW_COUNTS.len() - 1] = large_rows();
        counts
    })
}

/// [`ROW_COUNTS`] without the large one, for the many special-shape cases.
pub const SMALL_ROW_COUNTS: [usize; 12] = [
    0,
    1,
    31,
    32,
    33,
    255,
    256,
    257,
    1023,
    1024,
    1025,
    3 * 1024 + 5,
];

/// A named test input: the conformance suite prints the label when a check fails.
pub trait Case {
    /// The case's name, e.g. `utf8/sliced/rows=257`.
    fn label(&self) -> &str;
    /// Number of rows of the column under test.
    fn row_count(&self) -> usize;
}

/// Specs of more rows than this are generated once per process and shared
/// ([`cached`]): the large cases are used by several tests, and generating a million
/// rows in a debug build takes a noticeable fraction of a second.
pub(crate) const CACHE_ABOVE_ROWS: usize = 4096;

/// The value stored under `key` (qualified by the type's name), made by `make` on
/// first use. Threads asking for the same key wait for one generation; different keys
/// are generated concurrently.
///
/// # Panics
/// Never in practice: a key is always used with the same type because the type's name
/// is part of it.
pub(crate) fn cached<S: Send + Sync + 'static>(key: &str, make: impl FnOnce() -> S) -> Arc<S> {
    type Cell = Arc<OnceLock<Arc<dyn Any + Send + Sync>>>;
    static CACHE: OnceLock<Mutex<HashMap<String, Cell>>> = OnceLock::new();
    let key = format!("{}::{key}", std::any::type_name::<S>());
    let cell = {
        let mut map = CACHE
            .get_or_init(Mutex::default)
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        map.entry(key).or_default().clone()
    };
    let value = cell
        .get_or_init(|| Arc::new(make()) as Arc<dyn Any + Send + Sync>)
        .clone();
    value
        .downcast::<S>()
        .expect("a cache key is used with one type")
}

/// Validity bitmap from per-row flags: `None` when every row is valid and no explicit
/// bitmap was asked for.
pub(crate) fn validity_from(valid: &[bool], explicit: bool) -> Option<arrow_buffer::NullBuffer> {
    if explicit || valid.iter().any(|v| !v) {
        Some(arrow_buffer::NullBuffer::from(valid.to_vec()))
    } else {
        None
    }
}

#[cfg(test)]
mod tests;
