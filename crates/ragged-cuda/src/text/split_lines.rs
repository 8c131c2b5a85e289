//! `split_lines` on the GPU: host dispatch for `kernels/text/split_lines.cu`, over the
//! record boundaries of `line_ends.rs`.
//!
//! ```text
//! keep:   values = input[b[0]..b[n]] (a zero-copy slice), offsets = b - b[0]
//! strip:  strip sizes (a kernel) → inclusive scan (Primitives::scan_sum, 64-bit) →
//!         total → offset width → offsets (a kernel) → gather (warp per record)
//! UTF-8:  unless binary, a warp per output row reports the lowest bad position; the
//!         host maps it to (row, byte within the row) with the offsets
//! ```

use ragged_core::ops::{LinePlan, LinesColumn, ScanKind};
use ragged_core::{
    BinaryColumn, Error, OffsetSize, PrimitiveColumn, Primitives, Result, StringColumn,
};

use super::line_ends::{record_boundaries, Boundaries};
use crate::compile::TEXT_SPLIT_LINES;
use crate::error_word::ErrorWord;
use crate::launch::{grid_for, launch, params, BLOCK};
use crate::memory::{Device, DeviceBuffer};
use crate::CudaBackend;

/// The records of `hay`; see `TextOps::split_lines`.
pub(crate) fn split_lines(
    backend: &CudaBackend,
    hay: &DeviceBuffer<u8>,
    plan: &LinePlan,
) -> Result<LinesColumn<Device>> {
    let b = record_boundaries(backend, hay, plan)?;
    if plan.keep_delimiter() {
        let total = b.last - b.first;
        if plan.wide_output(total) {
            keep::<i64>(backend, hay, &b, plan)
        } else {
            keep::<i32>(backend, hay, &b, plan)
        }
    } else {
        if b.records == 0 {
            return build::<i32>(
                backend,
                backend.upload_slice(&[0i32])?,
                DeviceBuffer::empty(),
                0,
                plan,
            );
        }
        let (scanned, total) = strip_scan(backend, hay, &b, plan)?;
        if plan.wide_output(total) {
            strip::<i64>(backend, hay, &b, &scanned, total, plan)
        } else {
            strip::<i32>(backend, hay, &b, &scanned, total, plan)
        }
    }
}

/// Keep the delimiters: offsets over the input, values a slice of it.
fn keep<O: OffsetSize>(
    backend: &CudaBackend,
    hay: &DeviceBuffer<u8>,
    b: &Boundaries,
    plan: &LinePlan,
) -> Result<LinesColumn<Device>>
where
    LinesColumn<Device>: From<Parts<O>>,
{
    let count = b.records as u64 + 1;
    let offsets = backend.alloc::<O>(b.records + 1)?;
    let function = backend.function(
        &TEXT_SPLIT_LINES,
        &format!("split_lines_rebase_{}", O::OFFSET_NAME),
    )?;
    let (ends, out) = (b.ends.device_ptr(), offsets.device_ptr());
    let mut args = params![ends, count, out];
    // SAFETY: `split_lines_rebase_<O>(const long long* b, uint64_t count, O* out)`: b and
    // out hold `count` entries; the caller checked that b[n] - b[0] fits O.
    unsafe {
        launch(
            function,
            grid_for(count, backend.info().multiprocessors),
            BLOCK,
            0,
            backend.stream(),
            &mut args,
        )?
    };
    let values = hay.slice(b.first as usize, (b.last - b.first) as usize)?;
    build::<O>(backend, offsets, values, b.records, plan)
}

/// The bytes each record loses, scanned (inclusive, i64), and the output's total.
fn strip_scan(
    backend: &CudaBackend,
    hay: &DeviceBuffer<u8>,
    b: &Boundaries,
    plan: &LinePlan,
) -> Result<(PrimitiveColumn<i64, Device>, u64)> {
    let rows = b.records as u64;
    let strip = backend.alloc::<i32>(b.records)?;
    let function = backend.function(&TEXT_SPLIT_LINES, "split_lines_strip")?;
    let (hay_ptr, ends, terminated, m, newline, out) = (
        hay.device_ptr(),
        b.ends.device_ptr(),
        u32::from(b.terminated),
        plan.delimiter().len() as u32,
        u32::from(plan.strips_carriage_return()),
        strip.device_ptr(),
    );
    let mut args = params![hay_ptr, ends, rows, terminated, m, newline, out];
    // SAFETY: `split_lines_strip(const uint8_t* hay, const long long* b, uint64_t rows,
    // uint32_t terminated, uint32_t m, uint32_t newline, int* strip)`: b holds rows + 1
    // boundaries inside hay (a terminated record is at least m bytes long), strip holds
    // `rows` entries.
    unsafe {
        launch(
            function,
            grid_for(rows, backend.info().multiprocessors),
            BLOCK,
            0,
            backend.stream(),
            &mut args,
        )?
    };
    let scanned = backend.scan_sum(&PrimitiveColumn::try_new(strip, None)?, ScanKind::Inclusive)?;
    let last = backend.read_bytes(scanned.values(), 8 * (b.records - 1), 8)?;
    let stripped = i64::from_le_bytes(last.try_into().map_err(|_| short_read())?) as u64;
    Ok((scanned, b.last - b.first - stripped))
}

/// Strip the delimiters: offsets and a gather of the characters.
fn strip<O: OffsetSize>(
    backend: &CudaBackend,
    hay: &DeviceBuffer<u8>,
    b: &Boundaries,
    scanned: &PrimitiveColumn<i64, Device>,
    total: u64,
    plan: &LinePlan,
) -> Result<LinesColumn<Device>>
where
    LinesColumn<Device>: From<Parts<O>>,
{
    let rows = b.records as u64;
    let sms = backend.info().multiprocessors;
    let offsets = backend.alloc::<O>(b.records + 1)?;
    let function = backend.function(
        &TEXT_SPLIT_LINES,
        &format!("split_lines_offsets_{}", O::OFFSET_NAME),
    )?;
    let (ends, scanned_ptr, out) = (
        b.ends.device_ptr(),
        scanned.values().device_ptr(),
        offsets.device_ptr(),
    );
    let mut args = params![ends, scanned_ptr, rows, out];
    // SAFETY: `split_lines_offsets_<O>(const long long* b, const long long* scanned,
    // uint64_t rows, O* out)`: b holds rows + 1 entries, scanned `rows`, out rows + 1;
    // the caller checked that the total fits O.
    unsafe {
        launch(
            function,
            grid_for(rows + 1, sms),
            BLOCK,
            0,
            backend.stream(),
            &mut args,
        )?
    };
    let chars = backend.alloc::<u8>(total as usize)?;
    let function = backend.function(
        &TEXT_SPLIT_LINES,
        &format!("split_lines_gather_{}", O::OFFSET_NAME),
    )?;
    let (hay_ptr, offsets_ptr, chars_ptr) =
        (hay.device_ptr(), offsets.device_ptr(), chars.device_ptr());
    let mut args = params![hay_ptr, ends, offsets_ptr, rows, chars_ptr];
    // SAFETY: `split_lines_gather_<O>(const uint8_t* hay, const long long* b, const O*
    // offsets, uint64_t rows, uint8_t* chars)`: row i copies offsets[i + 1] - offsets[i]
    // bytes (at most b[i + 1] - b[i], inside hay) to chars[offsets[i]..], and
    // offsets[rows] = total = chars' length. One warp per row.
    unsafe {
        launch(
            function,
            grid_for(rows * 32, sms),
            BLOCK,
            0,
            backend.stream(),
            &mut args,
        )?
    };
    build::<O>(backend, offsets, chars, b.records, plan)
}

/// The column, after the UTF-8 check unless binary.
fn build<O: OffsetSize>(
    backend: &CudaBackend,
    offsets: DeviceBuffer<O>,
    values: DeviceBuffer<u8>,
    rows: usize,
    plan: &LinePlan,
) -> Result<LinesColumn<Device>>
where
    LinesColumn<Device>: From<Parts<O>>,
{
    if !plan.binary() && rows > 0 {
        validate_utf8(backend, &offsets, &values, rows)?;
    }
    Ok(LinesColumn::from(Parts {
        offsets,
        values,
        binary: plan.binary(),
    }))
}

/// Every row is UTF-8 (`split_lines_validate_<O>`).
///
/// # Errors
/// [`Error::InvalidUtf8`] for the lowest bad row and the byte within it.
fn validate_utf8<O: OffsetSize>(
    backend: &CudaBackend,
    offsets: &DeviceBuffer<O>,
    values: &DeviceBuffer<u8>,
    rows: usize,
) -> Result<()> {
    let word = ErrorWord::new(backend)?;
    let function = backend.function(
        &TEXT_SPLIT_LINES,
        &format!("split_lines_validate_{}", O::OFFSET_NAME),
    )?;
    let (offsets_ptr, values_ptr, n, word_ptr) = (
        offsets.device_ptr(),
        values.device_ptr(),
        rows as u64,
        word.device_ptr(),
    );
    let mut args = params![offsets_ptr, values_ptr, n, word_ptr];
    // SAFETY: `split_lines_validate_<O>(const O* offsets, const uint8_t* values, uint64_t
    // rows, uint64_t* word)`: rows + 1 offsets, non-decreasing from 0 to values' length
    // (built above). One warp per row.
    unsafe {
        launch(
            function,
            grid_for(n * 32, backend.info().multiprocessors),
            BLOCK,
            0,
            backend.stream(),
            &mut args,
        )?
    };
    let Some((position, _)) = word.read(backend)? else {
        return Ok(());
    };
    // The error path: find the row holding the position.
    let offsets = backend.download_vec(offsets)?;
    let row = offsets
        .partition_point(|o| o.as_i64() <= position as i64)
        .saturating_sub(1);
    let byte = position as i64 - offsets.get(row).map_or(0, |o| o.as_i64());
    Err(Error::InvalidUtf8 {
        row,
        byte: byte as usize,
    })
}

fn short_read() -> Error {
    Error::Device {
        op: "split_lines",
        message: "short read of a scan total".into(),
    }
}

/// Checked buffers of a records column at width `O`.
pub(crate) struct Parts<O: OffsetSize> {
    offsets: DeviceBuffer<O>,
    values: DeviceBuffer<u8>,
    binary: bool,
}

impl From<Parts<i32>> for LinesColumn<Device> {
    fn from(p: Parts<i32>) -> Self {
        // SAFETY: the offsets start at 0, never decrease and end at the values' length
        // (rebased boundaries, or the stripped sizes' prefix); rows are UTF-8 unless
        // binary (checked by `build`).
        unsafe {
            if p.binary {
                LinesColumn::Binary(BinaryColumn::new_unchecked(p.offsets, p.values, None))
            } else {
                LinesColumn::Utf8(StringColumn::new_unchecked(p.offsets, p.values, None))
            }
        }
    }
}

impl From<Parts<i64>> for LinesColumn<Device> {
    fn from(p: Parts<i64>) -> Self {
        // SAFETY: as for i32 above.
        unsafe {
            if p.binary {
                LinesColumn::LargeBinary(BinaryColumn::new_unchecked(p.offsets, p.values, None))
            } else {
                LinesColumn::LargeUtf8(StringColumn::new_unchecked(p.offsets, p.values, None))
            }
        }
    }
}
