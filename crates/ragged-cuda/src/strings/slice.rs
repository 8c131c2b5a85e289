//! `slice_chars` and `slice_bytes` on the GPU: the `Slice` functor of
//! `kernels/strings/slice.cu` run by the string transform helpers (one pass, the
//! output bounded by the input's bytes).

use ragged_core::ops::{slice_range, SliceBounds};
use ragged_core::{Error, OffsetSize, Result, StringColumn};

use super::two_pass::{column_input, transform_as, StringInput};
use crate::compile::STRINGS_SLICE;
use crate::error_word::ErrorWord;
use crate::lists::read_offset;
use crate::memory::Device;
use crate::primitives::{validity_args, value_from_bytes};
use crate::CudaBackend;

/// `Slice` of `kernels/strings/slice.cu`.
#[repr(C)]
#[derive(Clone, Copy)]
struct Slice {
    col: StringInput,
    starts: u64,
    start_bits: u64,
    start_bit_offset: u64,
    stops: u64,
    stop_bits: u64,
    stop_bit_offset: u64,
    start: i64,
    stop: i64,
    error_word: u64,
    per_row: u32,
    has_start: u32,
    has_stop: u32,
    chars: u32,
}

/// Slice every row; `chars` selects characters or bytes.
pub(crate) fn slice<O: OffsetSize>(
    backend: &CudaBackend,
    col: &StringColumn<O, Device>,
    bounds: SliceBounds<'_, Device>,
    chars: bool,
) -> Result<StringColumn<O, Device>> {
    let op = if chars { "slice_chars" } else { "slice_bytes" };
    bounds.check_rows(op, col.len())?;
    // Byte bounds can cut a character: the functor reports the lowest such row.
    let word = if chars {
        None
    } else {
        Some(ErrorWord::new(backend)?)
    };
    let (has_start, start, has_stop, stop) = match bounds {
        SliceBounds::Scalar { start, stop } => (
            u32::from(start.is_some()),
            start.unwrap_or(0),
            u32::from(stop.is_some()),
            stop.unwrap_or(0),
        ),
        SliceBounds::PerRow { .. } => (0, 0, 0, 0),
    };
    let (starts, (start_bits, start_bit_offset), stops, (stop_bits, stop_bit_offset)) = match bounds
    {
        SliceBounds::Scalar { .. } => (0, (0, 0), 0, (0, 0)),
        SliceBounds::PerRow { starts, stops } => (
            starts.values().device_ptr(),
            validity_args(starts.validity()),
            stops.values().device_ptr(),
            validity_args(stops.validity()),
        ),
    };
    let functor = Slice {
        col: column_input(col),
        starts,
        start_bits,
        start_bit_offset,
        stops,
        stop_bits,
        stop_bit_offset,
        start,
        stop,
        error_word: word.as_ref().map_or(0, ErrorWord::device_ptr),
        per_row: u32::from(matches!(bounds, SliceBounds::PerRow { .. })),
        has_start,
        has_stop,
        chars: u32::from(chars),
    };
    // Each row keeps a part of its bytes: at most the chars buffer.
    let bound = Some(col.values().len() as u64);
    let out = transform_as(
        backend,
        &STRINGS_SLICE,
        "slice",
        op,
        functor,
        col.len(),
        bound,
    )?;
    if let Some((row, _)) = word.map(|w| w.read(backend)).transpose()?.flatten() {
        return Err(cut_error(backend, col, &bounds, row as usize)?);
    }
    Ok(out)
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
