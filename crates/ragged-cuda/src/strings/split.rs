//! `split` and `rsplit` on the GPU: `kernels/strings/split.cu` counts each row's parts
//! (`split_count_<dir>_<O>`, with their maximum, the number of output columns). Up to
//! [`PART_PASSES`] columns, each is the `SplitPart` functor run by the string transform
//! helpers (one pass, bounded by the input's bytes); more are built from every part's
//! byte range (`split_parts_<dir>_<O>`, then `column_of_ranges`). `split_record` writes
//! every part's byte range (`split_record_parts_<dir>_<O>`) and builds the parts'
//! column from them.

use std::sync::Arc;

use ragged_core::ops::{Offsets, SplitOn};
use ragged_core::{
    Error, ListColumn, OffsetSize, PrimitiveColumn, Primitives, Result, StringColumn,
};

use super::two_pass::{column_input, transform_as, StringInput};
use crate::common::bits::{ballot_grid, bitmap};
use crate::compile::STRINGS_SPLIT;
use crate::launch::{launch, params, BLOCK};
use crate::lists::{compact_for, gather_values, zero_offsets, GatherPlan};
use crate::memory::{Device, DeviceBitmap, DeviceBuffer};
use crate::CudaBackend;

/// The delimiter's bytes on the device and each row's part count, from
/// `split_count_<dir>_<O>`.
struct Counted {
    /// The uploaded delimiter (a single space for whitespace splitting, never read).
    delimiter: DeviceBuffer<u8>,
    /// The delimiter's length in bytes, 0 for whitespace splitting.
    m: i64,
    /// The most cuts, `u64::MAX` for all.
    cuts: u64,
    /// Each row's number of parts (0 for a null row).
    counts: DeviceBuffer<i32>,
    /// The most parts of a row.
    most: usize,
}

/// `SplitPart` of `kernels/strings/split.cu`.
#[repr(C)]
#[derive(Clone, Copy)]
struct SplitPart {
    col: StringInput,
    d: u64,
    m: i64,
    cuts: u64,
    counts: u64,
    part: u32,
    right: u32,
}

/// Check the delimiter and run the count pass over `n > 0` rows.
fn count_parts<O: OffsetSize>(
    backend: &CudaBackend,
    col: &StringColumn<O, Device>,
    on: SplitOn<'_>,
    max_splits: Option<usize>,
    dir: &str,
) -> Result<Counted> {
    let delimiter: &[u8] = match on {
        SplitOn::Literal(d) => d.as_bytes(),
        SplitOn::Whitespace => &[],
    };
    let n = col.len();
    let rows = n as u64;
    let input = column_input(col);
    // An empty upload for whitespace: the kernel reads no delimiter byte then.
    let d = backend.upload_slice(if delimiter.is_empty() {
        b" "
    } else {
        delimiter
    })?;
    let (d_ptr, m) = (d.device_ptr(), delimiter.len() as i64);
    let cuts = max_splits.map_or(u64::MAX, |c| c as u64);
    let counts = backend.alloc::<i32>(n)?;
    let most = backend.alloc::<u64>(1)?;
    backend.zero(&most)?;
    let function = backend.function(
        &STRINGS_SPLIT,
        &format!("split_count_{dir}_{}", O::OFFSET_NAME),
    )?;
    let (counts_ptr, most_ptr) = (counts.device_ptr(), most.device_ptr());
    let mut args = params![input, rows, d_ptr, m, cuts, counts_ptr, most_ptr];
    // SAFETY: `split_count_<dir>_<O>(StringInput, uint64_t, const uint8_t*, long
    // long, unsigned long long, int32_t*, unsigned long long*)`: reads the column
    // (its offsets, bytes and validity) and m delimiter bytes (the upload holds at
    // least m), writes `rows` counts (allocated above), atomicMax on one zeroed word.
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
    let most = backend.read_scalar(&most)? as usize;
    Ok(Counted {
        delimiter: d,
        m,
        cuts,
        counts,
        most,
    })
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
    let counted = count_parts(backend, col, on, max_splits, dir)?;
    if counted.most <= PART_PASSES {
        split_by_parts(backend, col, &counted, from_right, op)
    } else {
        split_by_ranges(backend, col, counted, dir, op)
    }
}

/// The most columns `split` builds by one pass over the rows each ([`split_by_parts`]);
/// more would read the rows too many times (a row with many parts would be walked once
/// per column), so they go through the parts' ranges ([`split_by_ranges`]).
const PART_PASSES: usize = 8;

/// The columns of `split` with few parts: each one the `SplitPart` functor run in one
/// pass (its rows' parts located again, no ranges materialized).
fn split_by_parts<O: OffsetSize>(
    backend: &CudaBackend,
    col: &StringColumn<O, Device>,
    counted: &Counted,
    from_right: bool,
    op: &'static str,
) -> Result<Vec<StringColumn<O, Device>>> {
    let n = col.len();
    let mut out = Vec::with_capacity(counted.most.max(1));
    for part in 0..counted.most.max(1) {
        let functor = SplitPart {
            col: column_input(col),
            d: counted.delimiter.device_ptr(),
            m: counted.m,
            cuts: counted.cuts,
            counts: counted.counts.device_ptr(),
            part: u32::try_from(part)
                .map_err(|_| Error::invalid_argument(op, "more than 2^32 parts in a row"))?,
            right: u32::from(from_right),
        };
        // Each row's part is a part of its bytes: at most the chars buffer.
        let bound = Some(col.values().len() as u64);
        out.push(transform_as(
            backend,
            &STRINGS_SPLIT,
            "split_part",
            op,
            functor,
            n,
            bound,
        )?);
    }
    Ok(out)
}

/// The columns of `split` with many parts: `split_parts_<dir>_<O>` writes every part's
/// byte range and each column's validity in one pass over the rows, then each column is
/// gathered from its ranges (`column_of_ranges`) — the rows are read once whatever the
/// number of columns.
fn split_by_ranges<O: OffsetSize>(
    backend: &CudaBackend,
    col: &StringColumn<O, Device>,
    counted: Counted,
    dir: &str,
    op: &'static str,
) -> Result<Vec<StringColumn<O, Device>>> {
    let (n, rows) = (col.len(), col.len() as u64);
    let input = column_input(col);
    let (d_ptr, m, cuts) = (counted.delimiter.device_ptr(), counted.m, counted.cuts);
    let counts = counted.counts;
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
        let (counts_ptr, starts_ptr, stops_ptr, words_ptr, nulls_ptr) = (
            counts.device_ptr(),
            starts.device_ptr(),
            stops.device_ptr(),
            words.device_ptr(),
            nulls.device_ptr(),
        );
        let k = columns as u32;
        let mut args = params![
            input, rows, d_ptr, m, cuts, counts_ptr, k, starts_ptr, stops_ptr, words_ptr, nulls_ptr
        ];
        // SAFETY: `split_parts_<dir>_<O>(StringInput, uint64_t, const uint8_t*, long long,
        // unsigned long long, const int32_t*, uint32_t, O*, O*, uint32_t*, unsigned long
        // long*)`: reads what split_count read plus its counts, writes columns × rows
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
    let null_counts = backend.read_bytes(&nulls, 0, columns * 8)?;
    drop(counts);
    let mut out = Vec::with_capacity(columns);
    for k in 0..columns {
        let unset = u64::from_le_bytes(null_counts[k * 8..k * 8 + 8].try_into().unwrap_or([0; 8]));
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
    let n = col.len();
    let dir = if from_right { "right" } else { "left" };
    let (list_offsets, parts) = if n == 0 {
        (zero_offsets::<O>(backend)?, None)
    } else {
        let counted = count_parts(backend, col, on, max_splits, dir)?;
        let counts = PrimitiveColumn::try_new(counted.counts.clone(), None)?;
        let (offsets, total) = match backend.sizes_to_offsets(&counts, O::WIDTH) {
            Err(Error::Overflow { .. }) => {
                return Err(Error::Overflow {
                    op,
                    message: "the parts do not fit i32 list offsets".to_string(),
                })
            }
            other => other?,
        };
        (
            typed_offsets::<O>(offsets)?,
            Some((counted, total as usize)),
        )
    };
    let child = match parts {
        Some((counted, total)) if total > 0 => {
            let starts = backend.alloc::<O>(total)?;
            let stops = backend.alloc::<O>(total)?;
            let function = backend.function(
                &STRINGS_SPLIT,
                &format!("split_record_parts_{dir}_{}", O::OFFSET_NAME),
            )?;
            let input = column_input(col);
            let rows = n as u64;
            let (d_ptr, m, cuts) = (counted.delimiter.device_ptr(), counted.m, counted.cuts);
            let (counts_ptr, lists_ptr, starts_ptr, stops_ptr) = (
                counted.counts.device_ptr(),
                list_offsets.device_ptr(),
                starts.device_ptr(),
                stops.device_ptr(),
            );
            let mut args =
                params![input, rows, d_ptr, m, cuts, counts_ptr, lists_ptr, starts_ptr, stops_ptr];
            // SAFETY: `split_record_parts_<dir>_<O>(StringInput, uint64_t, const uint8_t*,
            // long long, unsigned long long, const int32_t*, const O*, O*, O*)`: reads what
            // split_count read, its counts and the rows + 1 list offsets (their scan), and
            // writes each row's parts at list_offsets[row].., `total` starts and stops in
            // all (allocated above).
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
            // SAFETY: every part is a range of a valid UTF-8 row cut next to a delimiter
            // (valid UTF-8) or an ASCII whitespace byte, so on character boundaries.
            unsafe { column_of_ranges(backend, col, &starts, &stops, None, op)? }
        }
        _ => {
            let offsets = zero_offsets::<O>(backend)?;
            let values = backend.alloc::<u8>(0)?;
            // SAFETY: one zero offset over no bytes: the empty column.
            unsafe { StringColumn::new_unchecked(offsets, values, None) }
        }
    };
    // SAFETY: the list offsets are the scan of the part counts (0, non-decreasing, at
    // most i32::MAX for i32 as sizes_to_offsets checked), ending at the number of parts,
    // the child's length; the validity is the input's, of `n` slots.
    Ok(unsafe {
        ListColumn::new_unchecked(
            list_offsets,
            Arc::new(O::into_strings_column(child)),
            col.validity().cloned(),
        )
    })
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
