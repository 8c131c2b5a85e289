//! `slice_chars` and `slice_bytes` on the GPU: `kernels/strings/slice.cu` locates each
//! row's kept byte range (`slice_ranges_<mode>_<O>`, one thread per row); the column
//! is then built as the lists family builds a starts/stops view of bytes: compact
//! offsets (`compact_for`) and the load-balanced byte gather (`gather_values`).

use ragged_core::ops::{slice_range, SliceBounds};
use ragged_core::{Error, OffsetSize, Result, StringColumn};

use crate::common::bits::{ballot_grid, counter, read_counter, validity_or_none};
use crate::compile::STRINGS_SLICE;
use crate::error_word::ErrorWord;
use crate::launch::{launch, params, BLOCK};
use crate::lists::{compact_for, gather_values, read_offset, GatherPlan};
use crate::memory::{Device, DeviceBitmap, DeviceBuffer};
use crate::primitives::{validity_args, value_from_bytes};
use crate::CudaBackend;

/// Slice every row; `chars` selects characters or bytes.
pub(crate) fn slice<O: OffsetSize>(
    backend: &CudaBackend,
    col: &StringColumn<O, Device>,
    bounds: SliceBounds<'_, Device>,
    chars: bool,
) -> Result<StringColumn<O, Device>> {
    let op = if chars { "slice_chars" } else { "slice_bytes" };
    bounds.check_rows(op, col.len())?;
    let n = col.len();
    let out_starts = backend.alloc::<O>(n)?;
    let out_stops = backend.alloc::<O>(n)?;
    // The kernel writes the AND of the validities when more than one can be present.
    let bound_validity = match &bounds {
        SliceBounds::Scalar { .. } => false,
        SliceBounds::PerRow { starts, stops } => {
            starts.validity().is_some() || stops.validity().is_some()
        }
    };
    let and_words = if bound_validity {
        Some(backend.alloc::<u32>(n.div_ceil(32))?)
    } else {
        None
    };
    let mut nulls = 0;
    if n > 0 {
        let word = if chars {
            None
        } else {
            Some(ErrorWord::new(backend)?)
        };
        let null_counter = counter(backend)?;
        let function = backend.function(
            &STRINGS_SLICE,
            &format!(
                "slice_ranges_{}_{}",
                if chars { "chars" } else { "bytes" },
                O::OFFSET_NAME
            ),
        )?;
        let (offsets, values) = (col.offsets().device_ptr(), col.values().device_ptr());
        let (bits, bit_offset) = validity_args(col.validity());
        let rows = n as u64;
        let (per_row, has_start, start, has_stop, stop) = match bounds {
            SliceBounds::Scalar { start, stop } => (
                0u32,
                u32::from(start.is_some()),
                start.unwrap_or(0),
                u32::from(stop.is_some()),
                stop.unwrap_or(0),
            ),
            SliceBounds::PerRow { .. } => (1, 0, 0, 0, 0),
        };
        let (starts, (start_bits, start_bit_offset), stops, (stop_bits, stop_bit_offset)) =
            match bounds {
                SliceBounds::Scalar { .. } => (0, (0, 0), 0, (0, 0)),
                SliceBounds::PerRow { starts, stops } => (
                    starts.values().device_ptr(),
                    validity_args(starts.validity()),
                    stops.values().device_ptr(),
                    validity_args(stops.validity()),
                ),
            };
        let (starts_out, stops_out) = (out_starts.device_ptr(), out_stops.device_ptr());
        let and_ptr = and_words.as_ref().map_or(0, DeviceBuffer::device_ptr);
        let (nulls_ptr, word_ptr) = (
            null_counter.device_ptr(),
            word.as_ref().map_or(0, ErrorWord::device_ptr),
        );
        let mut args = params![
            offsets,
            values,
            bits,
            bit_offset,
            rows,
            per_row,
            has_start,
            start,
            has_stop,
            stop,
            starts,
            start_bits,
            start_bit_offset,
            stops,
            stop_bits,
            stop_bit_offset,
            starts_out,
            stops_out,
            and_ptr,
            nulls_ptr,
            word_ptr
        ];
        // SAFETY: `slice_ranges_<mode>_<O>(const O*, const uint8_t*, const uint8_t*,
        // uint64_t, uint64_t, uint32_t, uint32_t, long long, uint32_t, long long, const long
        // long*, const uint8_t*, uint64_t, const long long*, const uint8_t*, uint64_t, O*,
        // O*, uint32_t*, unsigned long long*, uint64_t*)`: reads rows + 1 offsets and the
        // bytes between them, `rows` per-row bounds when per_row (their lengths were
        // checked), writes `rows` starts and stops (allocated above), ceil(rows / 32) AND
        // words when and_ptr is not null, adds to a zeroed counter, reports through the
        // word when not null.
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
        if let Some((row, _)) = word.map(|w| w.read(backend)).transpose()?.flatten() {
            return Err(cut_error(backend, col, &bounds, row as usize)?);
        }
        if and_words.is_some() {
            nulls = read_counter(backend, &null_counter)?;
        }
    }
    let validity = match and_words {
        Some(words) => validity_or_none(words, n, nulls),
        None => col.validity().cloned(),
    };
    // SAFETY: each row's range lies inside the row and starts and ends on character
    // boundaries (located by characters, or byte bounds checked above for cuts).
    unsafe { column_of_ranges(backend, col, &out_starts, &out_stops, validity, op) }
}

/// The strings column whose row `i` is bytes `starts[i]..stops[i]` of `col`'s values,
/// built as the lists family builds a starts/stops view (compact offsets, then the
/// load-balanced byte gather); `slice` and `split` make their outputs with it.
///
/// # Safety
/// Every range lies within `col`'s values and starts and ends on UTF-8 character
/// boundaries of a row (null rows' ranges empty), so that every output row is valid
/// UTF-8.
pub(super) unsafe fn column_of_ranges<O: OffsetSize>(
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

/// The error of a byte slice that cuts a character in `row` (the kernel reported the
/// row; the offending bound is found here, on the error path only).
fn cut_error<O: OffsetSize>(
    backend: &CudaBackend,
    col: &StringColumn<O, Device>,
    bounds: &SliceBounds<'_, Device>,
    row: usize,
) -> Result<Error> {
    let begin = read_offset(backend, col.offsets(), row)? as usize;
    let end = read_offset(backend, col.offsets(), row + 1)? as usize;
    let bytes = backend.read_bytes(col.values(), begin, end - begin)?;
    let (start, stop) = match bounds {
        SliceBounds::Scalar { start, stop } => (*start, *stop),
        SliceBounds::PerRow { starts, stops } => {
            let at = |c: &ragged_core::PrimitiveColumn<i64, Device>| -> Result<Option<i64>> {
                Ok(value_from_bytes::<i64>(&backend.read_bytes(
                    c.values(),
                    row * 8,
                    8,
                )?))
            };
            (at(starts)?, at(stops)?)
        }
    };
    // The kernel found a cut in this row, so slice_range reports its byte.
    let byte = slice_range(&bytes, start, stop, false).err().unwrap_or(0);
    Ok(Error::InvalidUtf8 { row, byte })
}
