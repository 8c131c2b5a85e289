//! `split` and `rsplit` on the GPU: `kernels/strings/split.cu` counts each row's parts
//! (`split_count_<dir>_<O>`, with their maximum, the number of output columns) and
//! then writes every part's byte range and each column's validity
//! (`split_parts_<dir>_<O>`); each column is then built as `slice` builds its output
//! (`column_of_ranges`).

use std::sync::Arc;

use ragged_core::ops::{Offsets, SplitOn};
use ragged_core::{
    Error, ListColumn, OffsetSize, PrimitiveColumn, Primitives, Result, StringColumn,
};

use super::slice::column_of_ranges;
use super::two_pass::column_input;
use crate::common::bits::{ballot_grid, bitmap};
use crate::compile::STRINGS_SPLIT;
use crate::launch::{launch, params, BLOCK};
use crate::lists::zero_offsets;
use crate::memory::{Device, DeviceBuffer};
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
    let rows = n as u64;
    let dir = if from_right { "right" } else { "left" };
    let input = column_input(col);
    let counted = count_parts(backend, col, on, max_splits, dir)?;
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
