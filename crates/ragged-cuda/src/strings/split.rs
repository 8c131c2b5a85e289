//! `split` and `rsplit` on the GPU: `kernels/strings/split.cu` first finds the most
//! parts of a row (`split_count_<dir>_<O>`, with the bytes of each of the first
//! [`SPLIT_COLUMNS`] parts of all rows) — over a sample of the rows of a long column,
//! a guess that the column kernel checks ([`sample_plan`]; when it is wrong, over
//! all the rows after all). Up to that many columns are built together by
//! `split_columns_<dir>_<O>` (tiles of rows staged in shared memory, each row walked
//! once, the columns two at a time, each pair's sizes scanned together by one
//! decoupled look-back over the first column's tile state); more are built from
//! every part's byte range (`split_parts_<dir>_<O>`, then `column_of_ranges`).
//! `split_record` finds the number of parts and their bytes (`split_totals` for a
//! one-byte delimiter without a limit, else the count pass — again over a sample of
//! a long column's rows first, a guess the kernel checks), then
//! `split_record_<dir>_<O>` writes the list offsets and the child's bytes and offsets
//! in one tile kernel (each row's parts and bytes scanned together). When the chars
//! exceed the tile kernels' 32-bit positions, the count pass writes each row's count,
//! their scan gives the list offsets and the `SplitRecord` functor writes the child
//! through the string transform helpers.

use std::sync::Arc;

use ragged_core::ops::{Offsets, SplitOn};
use ragged_core::{
    Error, ListColumn, OffsetSize, PrimitiveColumn, Primitives, Result, StringColumn,
};

use super::two_pass::{column_input, transform_as, StringInput};
use super::{launch_tiles, tile_grid, tile_plan, tile_rows};
use crate::common::bits::{ballot_grid, bitmap, validity_or_none};
use crate::compile::STRINGS_SPLIT;
use crate::error_word::ErrorWordWith;
use crate::launch::{launch, params, resident_grid, BLOCK};
use crate::lists::{compact_for, gather_values, zero_offsets, GatherPlan};
use crate::memory::{Device, DeviceBitmap, DeviceBuffer};
use crate::CudaBackend;

/// The most columns `split_columns_<dir>_<O>` builds (SPLIT_COLUMNS of split.cu); a
/// split with more goes through the parts' ranges ([`split_by_ranges`]).
const SPLIT_COLUMNS: usize = 8;

/// What the count pass adds up besides the most parts (`SplitSums` of split.cu).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sums {
    /// Each row's part count, written out (split_record through the functor).
    RowCounts,
    /// The bytes of part k of all rows for k < [`SPLIT_COLUMNS`] (split's columns).
    Columns,
    /// All the parts and their bytes (split_record's tile kernel).
    Totals,
}

impl Sums {
    /// The kernel's `sums` argument.
    fn code(self) -> u32 {
        match self {
            Sums::RowCounts => 0,
            Sums::Columns => 1,
            Sums::Totals => 2,
        }
    }
}

/// A split's delimiter and limit as every split kernel takes them.
struct SplitArgs {
    /// The uploaded delimiter (a single space for whitespace splitting, never read).
    delimiter: DeviceBuffer<u8>,
    /// The delimiter's length in bytes, 0 for whitespace splitting.
    m: i64,
    /// The most cuts, `u64::MAX` for all.
    cuts: u64,
    /// The delimiter's byte when it is one byte and there is no limit: then every
    /// occurrence cuts, so the parts can be counted without walking the rows.
    every_byte: Option<u8>,
}

impl SplitArgs {
    /// `on` uploaded, with `max_splits` as the kernels take it.
    fn new(backend: &CudaBackend, on: SplitOn<'_>, max_splits: Option<usize>) -> Result<Self> {
        let bytes: &[u8] = match on {
            SplitOn::Literal(d) => d.as_bytes(),
            SplitOn::Whitespace => &[],
        };
        // A placeholder byte for whitespace: the kernels read no delimiter byte then.
        let delimiter = backend.upload_slice(if bytes.is_empty() { b" " } else { bytes })?;
        let every_byte = match (bytes, max_splits) {
            ([byte], None) => Some(*byte),
            _ => None,
        };
        Ok(Self {
            delimiter,
            m: bytes.len() as i64,
            cuts: max_splits.map_or(u64::MAX, |c| c as u64),
            every_byte,
        })
    }
}

/// What the count pass found.
struct Counted {
    /// Each row's number of parts (0 for a null row), with [`Sums::RowCounts`].
    counts: Option<DeviceBuffer<i32>>,
    /// The most parts of a row.
    most: usize,
    /// With [`Sums::Columns`] the bytes of part k of all rows for k <
    /// [`SPLIT_COLUMNS`]; with [`Sums::Totals`] the number of parts and their bytes
    /// first; zeros otherwise.
    sums: [u64; SPLIT_COLUMNS],
}

/// `SplitRecord` of `kernels/strings/split.cu`.
#[repr(C)]
#[derive(Clone, Copy)]
struct SplitRecord {
    col: StringInput,
    d: u64,
    m: i64,
    cuts: u64,
    list_offsets: u64,
    part_offsets: u64,
    wide: u32,
    right: u32,
}

/// `SplitOutputs` of `kernels/strings/split.cu`: column k's offsets, chars, validity
/// words, tile state and chars' size.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct SplitOutputs {
    offsets: [u64; SPLIT_COLUMNS],
    chars: [u64; SPLIT_COLUMNS],
    validity: [u64; SPLIT_COLUMNS],
    states: [u64; SPLIT_COLUMNS],
    capacity: [u64; SPLIT_COLUMNS],
}

/// Run the count pass over `n > 0` rows: the most parts of a row, and what `sums`
/// asks for.
fn count_parts<O: OffsetSize>(
    backend: &CudaBackend,
    col: &StringColumn<O, Device>,
    split: &SplitArgs,
    dir: &str,
    sums: Sums,
) -> Result<Counted> {
    count_runs(backend, col, &[(0, col.len())], split, dir, sums)
}

/// Run the count pass over `runs` of `col` (first row, rows > 0; only the whole
/// column with [`Sums::RowCounts`]), adding up over all of them.
fn count_runs<O: OffsetSize>(
    backend: &CudaBackend,
    col: &StringColumn<O, Device>,
    runs: &[(usize, usize)],
    split: &SplitArgs,
    dir: &str,
    sums: Sums,
) -> Result<Counted> {
    let counts = if sums == Sums::RowCounts {
        Some(backend.alloc::<i32>(col.len())?)
    } else {
        None
    };
    let stats = backend.alloc::<u64>(1 + SPLIT_COLUMNS)?;
    backend.zero(&stats)?;
    // The whole column's tiles, also for a run.
    let per_tile = tile_rows(col);
    for &run in runs {
        let counts = counts.as_ref();
        launch_count(
            backend, col, run, per_tile, split, dir, sums, counts, &stats,
        )?;
    }
    let (most, sums) = read_stats(backend, &stats)?;
    Ok(Counted { counts, most, sums })
}

/// Launch `split_count_<dir>_<O>` over `rows`, a run of `col` given as (first row,
/// number of rows > 0), in tiles of `per_tile` rows ([`tile_rows`]), adding to `stats`
/// (1 + [`SPLIT_COLUMNS`] words) and writing each row's count into `counts` when
/// given (a slot per row of the run).
#[allow(clippy::too_many_arguments)]
fn launch_count<O: OffsetSize>(
    backend: &CudaBackend,
    col: &StringColumn<O, Device>,
    (first, rows): (usize, usize),
    per_tile: u32,
    split: &SplitArgs,
    dir: &str,
    sums: Sums,
    counts: Option<&DeviceBuffer<i32>>,
    stats: &DeviceBuffer<u64>,
) -> Result<()> {
    if first.checked_add(rows).is_none_or(|end| end > col.len()) {
        return Err(Error::invalid_argument(
            "split_count",
            format!("rows {first}..{first}+{rows} of {}", col.len()),
        ));
    }
    let input = column_input(col).skip_rows(first as u64);
    let rows = rows as u64;
    let (d_ptr, m, cuts) = (split.delimiter.device_ptr(), split.m, split.cuts);
    let function = backend.function(
        &STRINGS_SPLIT,
        &format!("split_count_{dir}_{}", O::OFFSET_NAME),
    )?;
    let (counts_ptr, stats_ptr) = (
        counts.map_or(0, DeviceBuffer::device_ptr),
        stats.device_ptr(),
    );
    let code = sums.code();
    let grid = tile_grid(backend, function, rows, per_tile);
    let mut args = params![input, rows, per_tile, d_ptr, m, cuts, counts_ptr, code, stats_ptr];
    // SAFETY: `split_count_<dir>_<O>(StringInput, uint64_t, uint32_t, const uint8_t*,
    // long long, unsigned long long, int32_t*, uint32_t, unsigned long long*)` with
    // BLOCK threads per block striding over tiles of `per_tile` rows (a
    // multiple of 32, at most TILE_ROWS): reads the column (its offsets, bytes and
    // validity: `rows` rows from row `first` of the column, within it by the caller's
    // run) and m delimiter bytes (the upload holds at least m), writes `rows` counts
    // when the pointer is not null (the caller's buffer of `rows` slots), atomics on the
    // 1 + SPLIT_COLUMNS words of `stats`.
    unsafe { launch(function, grid, BLOCK, 0, backend.stream(), &mut args) }
}

/// The count pass's words read back: the most parts of a row, then the sums.
fn read_stats(
    backend: &CudaBackend,
    stats: &DeviceBuffer<u64>,
) -> Result<(usize, [u64; SPLIT_COLUMNS])> {
    let words = read_u64s(backend, stats)?;
    let mut sums = [0u64; SPLIT_COLUMNS];
    sums.copy_from_slice(&words[1..]);
    Ok((words[0] as usize, sums))
}

/// Columns of at least this many rows are split from a guess ([`sample_plan`]) instead
/// of the count pass: below it, the count pass costs about what the sample does.
const GUESS_ROWS: usize = 1 << 18;

/// The most runs of rows [`sample_plan`] counts (one per 2^18 rows of the column).
const SAMPLE_RUNS: usize = 8;

/// The runs of rows [`sample_plan`] counts in a column of `n` rows, as (first row,
/// rows): `n / 2^18` of them (1 to [`SAMPLE_RUNS`]), each of `n / 1024` rows, spread
/// evenly from the first row — at most 0.8 % of the rows.
fn sample_runs(n: usize) -> Vec<(usize, usize)> {
    let runs = (n >> 18).clamp(1, SAMPLE_RUNS);
    let len = (n >> 10).max(1);
    (0..runs).map(|j| (j * (n / runs), len)).collect()
}

/// The output of a kernel run into outputs sized by a guess: `Some` when the guess
/// held, `None` when it was wrong (the kernel found more than fit) or its padding did
/// not fit in device memory — then the caller counts after all; other errors as they
/// are.
fn guess_held<T>(tried: Result<Option<T>>) -> Result<Option<T>> {
    match tried {
        Err(Error::OutOfMemory { .. }) => Ok(None),
        other => other,
    }
}

/// What a split into columns allocates: the number of columns and the bytes of each,
/// exact (from the count pass) or guessed (from a sample, checked by the kernel).
struct ColumnsPlan {
    /// The number of columns, at most [`SPLIT_COLUMNS`].
    columns: usize,
    /// The chars allocated for column k.
    capacity: [u64; SPLIT_COLUMNS],
    /// Whether `columns` and `capacity` are the count pass's: then the kernel must find
    /// exactly these bytes, and any difference is an error, not a wrong guess.
    exact: bool,
}

impl ColumnsPlan {
    /// The plan of the count pass's figures.
    fn exact(counted: &Counted) -> Self {
        Self {
            columns: counted.most.max(1),
            capacity: counted.sums,
            exact: true,
        }
    }
}

/// A guess at the columns of `split` over `n >= GUESS_ROWS` rows from the count pass
/// over [`sample_runs`]: as many columns as the most parts of a sampled row, and for
/// column k the sampled bytes of part k scaled to all the rows, plus an eighth and
/// 64 KiB, at most the column's chars. `None` when the sample already has more parts
/// than [`SPLIT_COLUMNS`]. `split_columns_<dir>_<O>` reports a row with more parts or
/// a column past its bytes, and then the count pass runs after all; the column's most
/// parts are at least the sample's, so the guess is never more columns than the split
/// has.
fn sample_plan<O: OffsetSize>(
    backend: &CudaBackend,
    col: &StringColumn<O, Device>,
    split: &SplitArgs,
    dir: &str,
) -> Result<Option<ColumnsPlan>> {
    let sampled = count_sample(backend, col, split, dir, Sums::Columns)?;
    if sampled.most > SPLIT_COLUMNS {
        return Ok(None);
    }
    let chars = col.values().len() as u64;
    let capacity = std::array::from_fn(|k| sampled.padded(k, chars));
    Ok(Some(ColumnsPlan {
        columns: sampled.most.max(1),
        capacity,
        exact: false,
    }))
}

/// The count pass over [`sample_runs`] of a column of `n >= GUESS_ROWS` rows.
struct Sampled {
    /// The most parts of a sampled row.
    most: usize,
    /// The sampled rows' sums (as [`Counted::sums`]).
    sums: [u64; SPLIT_COLUMNS],
    /// All the rows over the sampled rows.
    scale: f64,
}

impl Sampled {
    /// Sum `k` scaled to all the rows, plus an eighth and 64 Ki, at most `bound`.
    fn padded(&self, k: usize, bound: u64) -> u64 {
        let guess = (self.sums[k] as f64 * self.scale).ceil();
        // Saturating float-to-int conversion; `bound` caps it anyway.
        let padded = (guess * 1.125) as u64;
        padded.saturating_add(64 << 10).min(bound)
    }
}

/// Run the count pass over [`sample_runs`] of `col` (`n >= GUESS_ROWS` rows), adding
/// up what `sums` asks for (not [`Sums::RowCounts`]).
fn count_sample<O: OffsetSize>(
    backend: &CudaBackend,
    col: &StringColumn<O, Device>,
    split: &SplitArgs,
    dir: &str,
    sums: Sums,
) -> Result<Sampled> {
    let runs = sample_runs(col.len());
    let rows: usize = runs.iter().map(|run| run.1).sum();
    let counted = count_runs(backend, col, &runs, split, dir, sums)?;
    Ok(Sampled {
        most: counted.most,
        sums: counted.sums,
        scale: col.len() as f64 / rows.max(1) as f64,
    })
}

/// The values of a small buffer of u64, read back.
fn read_u64s(backend: &CudaBackend, buffer: &DeviceBuffer<u64>) -> Result<Vec<u64>> {
    let bytes = backend.read_bytes(buffer, 0, buffer.len() * 8)?;
    Ok(bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
        .collect())
}

pub(crate) fn split<O: OffsetSize>(
    backend: &CudaBackend,
    col: &StringColumn<O, Device>,
    on: SplitOn<'_>,
    max_splits: Option<usize>,
    from_right: bool,
) -> Result<Vec<StringColumn<O, Device>>> {
    let op = if from_right { "rsplit" } else { "split" };
    if on == SplitOn::Literal("") {
        return Err(Error::invalid_argument(op, "the delimiter is empty"));
    }
    let n = col.len();
    if n == 0 {
        return Ok(vec![col.clone()]);
    }
    let dir = if from_right { "right" } else { "left" };
    let split = SplitArgs::new(backend, on, max_splits)?;
    if n >= GUESS_ROWS && tile_positions_fit(col) {
        if let Some(plan) = sample_plan(backend, col, &split, dir)? {
            let tried = split_columns(backend, col, &split, &plan, from_right, op);
            if let Some(out) = guess_held(tried.map(Result::ok))? {
                return Ok(out);
            }
        }
    }
    let counted = count_parts(backend, col, &split, dir, Sums::Columns)?;
    if counted.most <= SPLIT_COLUMNS && tile_positions_fit(col) {
        let plan = ColumnsPlan::exact(&counted);
        split_columns(backend, col, &split, &plan, from_right, op)?.map_err(|row| Error::Device {
            op,
            message: format!("row {row}'s parts differ from the count pass's"),
        })
    } else {
        split_by_ranges(backend, col, &split, &counted, dir, op)
    }
}

/// Whether the tile kernels (`split_columns`, `split_record`) can run over `col`: they
/// keep positions within a row and a tile's output sizes as 32-bit numbers, so the
/// chars must not exceed `u32::MAX` bytes.
fn tile_positions_fit<O: OffsetSize>(col: &StringColumn<O, Device>) -> bool {
    col.values().len() as u64 <= u64::from(u32::MAX)
}

/// The columns of `split` with at most [`SPLIT_COLUMNS`] parts, all built by one
/// `split_columns_<dir>_<O>` kernel into the chars `plan` allocates. `Err(row)` when
/// the kernel found a row with more parts than `plan.columns`, or a column past its
/// bytes from the tile of that row: a wrong guess, for an exact plan an error of the
/// caller's to report.
fn split_columns<O: OffsetSize>(
    backend: &CudaBackend,
    col: &StringColumn<O, Device>,
    split: &SplitArgs,
    plan: &ColumnsPlan,
    from_right: bool,
    op: &'static str,
) -> Result<std::result::Result<Vec<StringColumn<O, Device>>, u64>> {
    let (n, rows) = (col.len(), col.len() as u64);
    let columns = plan.columns;
    let dir = if from_right { "right" } else { "left" };
    let mut per_tile = 0;
    let mut outputs = SplitOutputs::default();
    let mut buffers = Vec::with_capacity(columns);
    let mut states = Vec::with_capacity(columns);
    for k in 0..columns {
        let offsets = backend.alloc::<O>(n + 1)?;
        let chars = backend.alloc::<u8>(plan.capacity[k] as usize)?;
        let words = backend.alloc::<u32>(n.div_ceil(32))?;
        // The columns go in pairs in the kernel's order (from the right when
        // `from_right`: the last column first), each pair scanned by one look-back over
        // its first column's tile state (the same tiles for all).
        let walked = if from_right { columns - 1 - k } else { k };
        if walked % 2 == 0 {
            let state;
            (per_tile, state) = tile_plan(backend, col)?;
            outputs.states[k] = state.ptr;
            states.push(state);
        }
        outputs.offsets[k] = offsets.device_ptr();
        outputs.chars[k] = chars.device_ptr();
        outputs.validity[k] = words.device_ptr();
        outputs.capacity[k] = plan.capacity[k];
        buffers.push((offsets, chars, words));
    }
    // The error word, then each column's nulls and bytes.
    let word = ErrorWordWith::<{ 2 * SPLIT_COLUMNS }>::new(backend)?;
    let function = backend.function(
        &STRINGS_SPLIT,
        &format!("split_columns_{dir}_{}", O::OFFSET_NAME),
    )?;
    let input = column_input(col);
    let (d_ptr, m, cuts) = (split.delimiter.device_ptr(), split.m, split.cuts);
    let (k, counts_ptr, word_ptr) = (columns as u32, word.values_ptr(), word.device_ptr());
    let state_bytes = states[0].bytes;
    let mut args = params![
        input,
        rows,
        per_tile,
        d_ptr,
        m,
        cuts,
        k,
        outputs,
        counts_ptr,
        state_bytes,
        word_ptr
    ];
    // SAFETY: `split_columns_<dir>_<O>(StringInput, uint64_t, uint32_t, const uint8_t*,
    // long long, unsigned long long, uint32_t, SplitOutputs, unsigned long long*,
    // uint64_t, uint64_t*)` with SplitOutputs by value (mirrored above, its pointers
    // alive in `buffers` and `states`): one block of TILE_THREADS threads per tile of
    // `per_tile` rows (the tile states' count, all states of the same size; the kernel
    // uses states[k] only of each pair's first column, the ones set above) writes, for
    // each of the `columns` columns, rows + 1 offsets, ceil(rows / 32) validity words
    // and at most capacity[k] chars (allocated above to that size), and adds to the
    // 2 × SPLIT_COLUMNS counters after the error word.
    unsafe { launch_tiles(backend, function, &states[0], &mut args)? };
    let (error, counts) = word.read(backend)?;
    if let Some((row, _)) = error {
        return Ok(Err(row));
    }
    let mut out = Vec::with_capacity(columns);
    for (k, (offsets, chars, words)) in buffers.into_iter().enumerate() {
        let bytes = counts[SPLIT_COLUMNS + k];
        if bytes > plan.capacity[k] || (plan.exact && bytes != plan.capacity[k]) {
            return Err(Error::Device {
                op,
                message: format!(
                    "column {k}'s {bytes} bytes do not match the {} allocated",
                    plan.capacity[k]
                ),
            });
        }
        // A guessed column's chars are the bytes written: in its allocation, or in one
        // of their size when the guess left more than a quarter of them and 64 KiB
        // unused (rows sampled longer than the rest).
        let chars = trimmed(backend, chars, bytes as usize)?;
        let validity = validity_or_none(words, n, counts[k] as usize);
        // SAFETY: the offsets are the scan of the parts' sizes (0, non-decreasing,
        // ending at the chars' length, checked above); every part is a range of a valid
        // UTF-8 row cut next to a delimiter (valid UTF-8) or an ASCII whitespace byte,
        // so whole characters; missing parts and null rows are empty and null.
        out.push(unsafe { StringColumn::new_unchecked(offsets, chars, validity) });
    }
    Ok(Ok(out))
}

/// The columns of `split` with many parts: `split_parts_<dir>_<O>` writes every part's
/// byte range and each column's validity in one pass over the rows, then each column is
/// gathered from its ranges (`column_of_ranges`) — the rows are read once whatever the
/// number of columns.
fn split_by_ranges<O: OffsetSize>(
    backend: &CudaBackend,
    col: &StringColumn<O, Device>,
    split: &SplitArgs,
    counted: &Counted,
    dir: &str,
    op: &'static str,
) -> Result<Vec<StringColumn<O, Device>>> {
    let (n, rows) = (col.len(), col.len() as u64);
    let input = column_input(col);
    let (d_ptr, m, cuts) = (split.delimiter.device_ptr(), split.m, split.cuts);
    let columns = counted.most.max(1);
    // Part counts are at most the row's bytes + 1, so they fit in i32 offsets; the
    // product below is checked anyway.
    let slots = columns.checked_mul(n).ok_or(Error::OutOfMemory {
        requested: usize::MAX,
        available: 0,
    })?;
    let starts = backend.alloc::<O>(slots)?;
    let stops = backend.alloc::<O>(slots)?;
    let words_per_column = n.div_ceil(32);
    let words = backend.alloc::<u32>(columns * words_per_column)?;
    let nulls = backend.alloc::<u64>(columns)?;
    backend.zero(&nulls)?;
    {
        let function = backend.function(
            &STRINGS_SPLIT,
            &format!("split_parts_{dir}_{}", O::OFFSET_NAME),
        )?;
        let (starts_ptr, stops_ptr, words_ptr, nulls_ptr) = (
            starts.device_ptr(),
            stops.device_ptr(),
            words.device_ptr(),
            nulls.device_ptr(),
        );
        let k = columns as u32;
        let mut args =
            params![input, rows, d_ptr, m, cuts, k, starts_ptr, stops_ptr, words_ptr, nulls_ptr];
        // SAFETY: `split_parts_<dir>_<O>(StringInput, uint64_t, const uint8_t*, long long,
        // unsigned long long, uint32_t, O*, O*, uint32_t*, unsigned long long*)`: reads
        // what split_count read (each row counts its own parts), writes columns × rows
        // starts and stops, columns × ceil(rows / 32) words (all allocated above) and
        // adds to `columns` zeroed counters.
        unsafe {
            launch(
                function,
                ballot_grid(backend, rows),
                BLOCK,
                0,
                backend.stream(),
                &mut args,
            )?
        };
    }
    let null_counts = read_u64s(backend, &nulls)?;
    let mut out = Vec::with_capacity(columns);
    for (k, &unset) in null_counts.iter().enumerate() {
        let column_words = words.slice(k * words_per_column, words_per_column)?;
        let validity = (unset > 0).then(|| bitmap(column_words, n, unset as usize));
        let (part_starts, part_stops) = (starts.slice(k * n, n)?, stops.slice(k * n, n)?);
        // SAFETY: every part is a range of a valid UTF-8 row cut next to a delimiter
        // (valid UTF-8) or an ASCII whitespace byte, so on character boundaries; missing
        // parts and null rows are empty ranges at their row's start.
        out.push(unsafe {
            column_of_ranges(backend, col, &part_starts, &part_stops, validity, op)?
        });
    }
    Ok(out)
}

/// `offsets` as a buffer of `O`, when the scan produced that width (it was asked for
/// `O::WIDTH`, so it always did).
fn typed_offsets<O: OffsetSize>(offsets: Offsets<Device>) -> Result<DeviceBuffer<O>> {
    let (bytes, width) = match offsets {
        Offsets::I32(b) => (b.into_bytes(), 4),
        Offsets::I64(b) => (b.into_bytes(), 8),
    };
    if width != std::mem::size_of::<O>() {
        return Err(Error::invalid_argument(
            "split_record",
            "the list offsets came back in another width",
        ));
    }
    Ok(bytes.into_typed::<O>())
}

pub(crate) fn split_record<O: OffsetSize>(
    backend: &CudaBackend,
    col: &StringColumn<O, Device>,
    on: SplitOn<'_>,
    max_splits: Option<usize>,
    from_right: bool,
) -> Result<ListColumn<O, Device>> {
    let op = if from_right {
        "rsplit_record"
    } else {
        "split_record"
    };
    if on == SplitOn::Literal("") {
        return Err(Error::invalid_argument(op, "the delimiter is empty"));
    }
    let dir = if from_right { "right" } else { "left" };
    let (list_offsets, child) = if col.is_empty() {
        (zero_offsets::<O>(backend)?, empty_child::<O>(backend)?)
    } else {
        let split = SplitArgs::new(backend, on, max_splits)?;
        let tiled = if tile_positions_fit(col) {
            record_tiles(backend, col, &split, dir, op)?
        } else {
            None
        };
        match tiled {
            Some(lists) => lists,
            None => record_by_counts(backend, col, &split, from_right, op)?,
        }
    };
    // SAFETY: the list offsets are the scan of the rows' part counts (0, non-decreasing,
    // checked to fit O), ending at the number of parts, the child's length; the
    // validity is the input's, of `n` slots.
    Ok(unsafe {
        ListColumn::new_unchecked(
            list_offsets,
            Arc::new(O::into_strings_column(child)),
            col.validity().cloned(),
        )
    })
}

/// `split_record`'s list offsets and child column.
type RecordParts<O> = (DeviceBuffer<O>, StringColumn<O, Device>);

/// The strings column of no rows.
fn empty_child<O: OffsetSize>(backend: &CudaBackend) -> Result<StringColumn<O, Device>> {
    let offsets = zero_offsets::<O>(backend)?;
    let values = backend.alloc::<u8>(0)?;
    // SAFETY: one zero offset over no bytes: the empty column.
    Ok(unsafe { StringColumn::new_unchecked(offsets, values, None) })
}

/// The error of i32 list offsets too narrow for the parts.
fn parts_overflow(op: &'static str) -> Error {
    Error::Overflow {
        op,
        message: "the parts do not fit i32 list offsets".to_string(),
    }
}

/// The number of parts of `split_record`'s child and their bytes, for the tile
/// kernel's allocations: when every occurrence of a one-byte delimiter cuts, by
/// `split_totals` (the delimiters counted over the chars at the read rate), else by
/// the count pass.
fn record_totals<O: OffsetSize>(
    backend: &CudaBackend,
    col: &StringColumn<O, Device>,
    split: &SplitArgs,
    dir: &str,
    op: &'static str,
) -> Result<(u64, u64)> {
    let Some(byte) = split.every_byte else {
        let counted = count_parts(backend, col, split, dir, Sums::Totals)?;
        return Ok((counted.sums[0], counted.sums[1]));
    };
    let totals = backend.alloc::<u64>(2)?;
    backend.zero(&totals)?;
    let function = backend.function(&STRINGS_SPLIT, "split_totals")?;
    let (input, rows, byte, totals_ptr) = (
        column_input(col),
        col.len() as u64,
        u32::from(byte),
        totals.device_ptr(),
    );
    let mut args = params![input, rows, byte, totals_ptr];
    let grid = resident_grid(
        function,
        (col.values().len() as u64 / 16).max(rows),
        backend.info().multiprocessors,
    );
    // SAFETY: `split_totals(StringInput, uint64_t, uint32_t, unsigned long long*)`:
    // reads the column's offsets, validity and the bytes between its first and last
    // offsets, adds to the two zeroed words allocated above.
    unsafe { launch(function, grid, BLOCK, 0, backend.stream(), &mut args)? };
    let words = read_u64s(backend, &totals)?;
    let (delimiters, bytes) = (words[0], words[1]);
    let valid = (col.len() - col.null_count()) as u64;
    let part_bytes = bytes.checked_sub(delimiters).ok_or_else(|| Error::Device {
        op,
        message: format!("{delimiters} delimiters counted in {bytes} bytes"),
    })?;
    Ok((delimiters + valid, part_bytes))
}

/// `split_record` of a column whose chars fit the tile kernels' 32-bit positions:
/// the totals first ([`record_totals`]), then `split_record_<dir>_<O>` (tiles of rows
/// staged in shared memory, one block per tile, each row's parts and bytes scanned
/// together by one decoupled look-back) writes the list offsets, the child's offsets
/// and its chars. None when the parts reach 2^32 (the scan packs them in 32 bits).
/// From [`GUESS_ROWS`] rows, unless `split_totals` counts them, the totals are first
/// guessed from the count pass over [`sample_runs`] (scaled, plus an eighth and 64 Ki
/// each); the kernel reports a tile past them, and then they are counted after all.
/// Only where the parts cannot reach 2^32 (chars + rows below it): the kernel counts
/// them in 32 bits, so a total past that would wrap below a guess unreported.
fn record_tiles<O: OffsetSize>(
    backend: &CudaBackend,
    col: &StringColumn<O, Device>,
    split: &SplitArgs,
    dir: &str,
    op: &'static str,
) -> Result<Option<RecordParts<O>>> {
    let (n, chars) = (col.len() as u64, col.values().len() as u64);
    // A row has at most its bytes + 1 parts: when those stay below 2^32, the parts
    // cannot wrap the kernel's 32-bit count past a guess unseen.
    let most_parts = chars.saturating_add(n);
    if split.every_byte.is_none() && n >= GUESS_ROWS as u64 && most_parts <= u64::from(u32::MAX) {
        let sampled = count_sample(backend, col, split, dir, Sums::Totals)?;
        let parts = sampled.padded(0, most_parts);
        let bytes = sampled.padded(1, chars);
        // A guess past i32 offsets is not tried: the counted totals decide then.
        if std::mem::size_of::<O>() == 8 || parts <= i32::MAX as u64 {
            let tried = record_tiles_with(backend, col, split, dir, (parts, bytes));
            if let Some(lists) = guess_held(tried.map(|(lists, _)| lists))? {
                return Ok(Some(lists));
            }
        }
    }
    let (parts, bytes) = record_totals(backend, col, split, dir, op)?;
    if std::mem::size_of::<O>() == 4 && parts > i32::MAX as u64 {
        return Err(parts_overflow(op));
    }
    if parts > u64::from(u32::MAX) {
        return Ok(None);
    }
    match record_tiles_with(backend, col, split, dir, (parts, bytes))? {
        (Some(lists), found) if found == (parts, bytes) => Ok(Some(lists)),
        (_, (found_parts, found_bytes)) => Err(Error::Device {
            op,
            message: format!(
                "the kernel found {found_parts} parts of {found_bytes} bytes, the totals {parts} of {bytes}"
            ),
        }),
    }
}

/// What [`record_tiles_with`] returns: the lists (`None` when the kernel found more
/// than fit), and the (parts, bytes) it found.
type RecordFound<O> = (Option<RecordParts<O>>, (u64, u64));

/// `split_record_<dir>_<O>` over `col` into a child of `capacity` = (parts, bytes) at
/// most, where the column's parts are below 2^32 (the kernel's count wraps past it)
/// and `parts` ≤ `i32::MAX` for i32 offsets: the lists (`None` when the kernel found
/// more than fit) and the (parts, bytes) found.
fn record_tiles_with<O: OffsetSize>(
    backend: &CudaBackend,
    col: &StringColumn<O, Device>,
    split: &SplitArgs,
    dir: &str,
    (parts, bytes): (u64, u64),
) -> Result<RecordFound<O>> {
    let n = col.len();
    let rows = n as u64;
    let (per_tile, state) = tile_plan(backend, col)?;
    let list_offsets = backend.alloc::<O>(n + 1)?;
    let part_offsets = backend.alloc::<O>(parts as usize + 1)?;
    let chars = backend.alloc::<u8>(bytes as usize)?;
    // The error word, then the child's bytes and parts.
    let word = ErrorWordWith::<2>::new(backend)?;
    let function = backend.function(
        &STRINGS_SPLIT,
        &format!("split_record_{dir}_{}", O::OFFSET_NAME),
    )?;
    let input = column_input(col);
    let (d_ptr, m, cuts) = (split.delimiter.device_ptr(), split.m, split.cuts);
    let (lists_ptr, parts_ptr, chars_ptr) = (
        list_offsets.device_ptr(),
        part_offsets.device_ptr(),
        chars.device_ptr(),
    );
    let (state_ptr, state_bytes) = (state.ptr, state.bytes);
    let (counts_ptr, word_ptr) = (word.values_ptr(), word.device_ptr());
    let mut args = params![
        input,
        rows,
        per_tile,
        d_ptr,
        m,
        cuts,
        lists_ptr,
        parts_ptr,
        parts,
        chars_ptr,
        bytes,
        state_ptr,
        state_bytes,
        counts_ptr,
        word_ptr
    ];
    // SAFETY: `split_record_<dir>_<O>(StringInput, uint64_t, uint32_t, const uint8_t*,
    // long long, unsigned long long, O*, O*, unsigned long long, uint8_t*, unsigned
    // long long, void*, uint64_t, unsigned long long*, uint64_t*)`: one block of
    // TILE_THREADS threads per tile of `per_tile` rows (the tile state's count) reads
    // the column and the delimiter, writes rows + 1 list offsets, at most parts + 1
    // part offsets and `bytes` chars (all allocated above: a tile that would pass them
    // writes nothing and reports), and the two counters after the error word.
    unsafe { launch_tiles(backend, function, &state, &mut args)? };
    let (error, [found_bytes, found_parts]) = word.read(backend)?;
    let found = (found_parts, found_bytes);
    if error.is_some() || found_bytes > bytes || found_parts > parts {
        return Ok((None, found));
    }
    // A guess's child is the parts and bytes written, copied into buffers of their
    // size when it left more than a quarter of them unused.
    let part_offsets = trimmed(backend, part_offsets, found_parts as usize + 1)?;
    let chars = trimmed(backend, chars, found_bytes as usize)?;
    if found_parts == 0 {
        // No valid row wrote the child's one offset.
        backend.zero(&part_offsets)?;
    }
    // SAFETY: each valid row wrote its part offsets (where its bytes start in `chars`,
    // then the ends of its parts), so all parts + 1 of them (or the one zeroed above):
    // non-decreasing, ending at the chars' length; every part is a range of a valid
    // UTF-8 row cut next to a delimiter (valid UTF-8) or an ASCII whitespace byte, so
    // whole characters.
    let child = unsafe { StringColumn::new_unchecked(part_offsets, chars, None) };
    Ok((Some((list_offsets, child)), found))
}

/// The first `len` elements of `buffer` (`len <= buffer.len()`): the buffer itself
/// when that is all of it, a view of it when at most a quarter of them and 64 Ki
/// elements would go unused, else a copy of their size.
fn trimmed<T: Copy>(
    backend: &CudaBackend,
    buffer: DeviceBuffer<T>,
    len: usize,
) -> Result<DeviceBuffer<T>> {
    if len == buffer.len() {
        Ok(buffer)
    } else if buffer.len() - len > len / 4 + (64 << 10) {
        backend.copy_buffer(&buffer.slice(0, len)?)
    } else {
        buffer.slice(0, len)
    }
}

/// `split_record` through each row's part count: the count pass writes the counts,
/// their scan gives the list offsets, and the `SplitRecord` functor ([`record_by_functor`])
/// writes the child (for chars beyond the tile kernels' 32-bit positions).
fn record_by_counts<O: OffsetSize>(
    backend: &CudaBackend,
    col: &StringColumn<O, Device>,
    split: &SplitArgs,
    from_right: bool,
    op: &'static str,
) -> Result<RecordParts<O>> {
    let dir = if from_right { "right" } else { "left" };
    let counted = count_parts(backend, col, split, dir, Sums::RowCounts)?;
    let counts = counted.counts.clone().ok_or_else(|| Error::Device {
        op,
        message: "the count pass kept no counts".to_string(),
    })?;
    let counts = PrimitiveColumn::try_new(counts, None)?;
    let (offsets, total) = match backend.sizes_to_offsets(&counts, O::WIDTH) {
        Err(Error::Overflow { .. }) => return Err(parts_overflow(op)),
        other => other?,
    };
    let list_offsets = typed_offsets::<O>(offsets)?;
    if total == 0 {
        return Ok((list_offsets, empty_child::<O>(backend)?));
    }
    let part_offsets = backend.alloc::<O>(total as usize + 1)?;
    let chars = record_by_functor(
        backend,
        col,
        split,
        &list_offsets,
        &part_offsets,
        from_right,
        op,
    )?;
    if chars.is_empty() {
        // No bytes: every part offset is 0 (and the functor's fill may not have run).
        backend.zero(&part_offsets)?;
    }
    // SAFETY: each valid row wrote its part offsets (where its bytes start in `chars`,
    // then the ends of its parts), so all total + 1 of them: non-decreasing, ending at
    // the chars' length; every part is a range of a valid UTF-8 row cut next to a
    // delimiter (valid UTF-8) or an ASCII whitespace byte, so whole characters.
    let child = unsafe { StringColumn::new_unchecked(part_offsets, chars, None) };
    Ok((list_offsets, child))
}

/// The chars of `split_record`'s child column by the `SplitRecord` functor run by the
/// string transform helpers (any size of chars): each row's parts' bytes, with the
/// child's offsets written into `part_offsets` by the fill.
fn record_by_functor<O: OffsetSize>(
    backend: &CudaBackend,
    col: &StringColumn<O, Device>,
    split: &SplitArgs,
    list_offsets: &DeviceBuffer<O>,
    part_offsets: &DeviceBuffer<O>,
    from_right: bool,
    op: &'static str,
) -> Result<DeviceBuffer<u8>> {
    let functor = SplitRecord {
        col: column_input(col),
        d: split.delimiter.device_ptr(),
        m: split.m,
        cuts: split.cuts,
        list_offsets: list_offsets.device_ptr(),
        part_offsets: part_offsets.device_ptr(),
        wide: u32::from(std::mem::size_of::<O>() == 8),
        right: u32::from(from_right),
    };
    // A row's parts are a part of its bytes: at most the chars buffer.
    let bound = Some(col.values().len() as u64);
    let rows: StringColumn<O, Device> = transform_as(
        backend,
        &STRINGS_SPLIT,
        "split_record",
        op,
        functor,
        col.len(),
        bound,
    )?;
    let (_, chars, _) = rows.into_parts();
    Ok(chars)
}

/// The strings column whose row `i` is bytes `starts[i]..stops[i]` of `col`'s values,
/// built as the lists family builds a starts/stops view (compact offsets, then the
/// load-balanced byte gather); `split` and `split_record` make their outputs with it.
///
/// # Safety
/// Every range lies within `col`'s values and starts and ends on UTF-8 character
/// boundaries of a row (null rows' ranges empty), so that every output row is valid
/// UTF-8.
unsafe fn column_of_ranges<O: OffsetSize>(
    backend: &CudaBackend,
    col: &StringColumn<O, Device>,
    starts: &DeviceBuffer<O>,
    stops: &DeviceBuffer<O>,
    validity: Option<DeviceBitmap>,
    op: &'static str,
) -> Result<StringColumn<O, Device>> {
    let (offsets, total) = compact_for::<O>(backend, starts, stops, None, col.values().len(), op)?;
    let plan = GatherPlan {
        starts,
        offsets: &offsets,
        n: starts.len() as u64,
        total: total as u64,
        op,
    };
    let values = gather_values(backend, &plan, col.values())?;
    // SAFETY: the offsets are the compact offsets of the ranges, so they start at 0, do
    // not decrease and end at the values' length; the caller guarantees each range is
    // valid UTF-8.
    Ok(unsafe { StringColumn::new_unchecked(offsets, values, validity) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_runs_lie_in_the_column() {
        for n in [
            GUESS_ROWS,
            GUESS_ROWS + 1,
            1 << 21,
            3_000_007,
            60_000_000,
            1 << 33,
        ] {
            let runs = sample_runs(n);
            assert!(
                !runs.is_empty() && runs.len() <= SAMPLE_RUNS,
                "{n}: {runs:?}"
            );
            let mut end = 0;
            for &(first, len) in &runs {
                assert!(len > 0 && first >= end && first + len <= n, "{n}: {runs:?}");
                end = first + len;
            }
            let sampled: usize = runs.iter().map(|r| r.1).sum();
            assert!(sampled * 100 <= n, "{n}: {sampled} rows sampled");
        }
        assert_eq!(sample_runs(GUESS_ROWS).len(), 1);
        assert_eq!(sample_runs(60_000_000).len(), SAMPLE_RUNS);
    }
}
