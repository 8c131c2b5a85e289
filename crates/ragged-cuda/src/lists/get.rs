//! `get` and `slice` of lists on the GPU: host dispatch for `kernels/lists/get.cu`.
//!
//! `get` is one thread per list: the element's child position (Python's index rules),
//! the element copied by width, and the output validity packed by warp ballots. In
//! error mode a valid list too short for the index reports its row through the device
//! error word; the host reads that list's offsets back for the error. Strings children
//! take the byte range of each element, then its compact offsets and the bytes are
//! gathered as in `to_compact`. `slice` computes each list's starts and stops and
//! shares the child.

use std::sync::Arc;

use ragged_core::ops::OutOfRange;
use ragged_core::{
    BooleanColumn, Column, Error, ListColumn, ListViewColumn, Native, OffsetSize, PrimitiveColumn,
    Result, StringColumn,
};

use super::compact_offsets::compact_for;
use super::gather::{gather_values, Plan};
use super::{check_movable, match_numeric, read_offset, width_name};
use crate::common::bits::{ballot_grid, bitmap, counter, read_counter, validity_or_none};
use crate::compile::LISTS_GET;
use crate::error_word::ErrorWord;
use crate::launch::{grid_for, launch, params, BLOCK};
use crate::memory::{Device, DeviceBuffer};
use crate::primitives::validity_args;
use crate::CudaBackend;

/// What every `get_*` kernel receives about the lists.
struct Lists<'a, O> {
    offsets: &'a DeviceBuffer<O>,
    bits: u64,
    bit_offset: u64,
    n: u64,
    index: i64,
    error_mode: u32,
}

impl<O: OffsetSize> Lists<'_, O> {
    fn grid(&self, backend: &CudaBackend) -> u32 {
        ballot_grid(backend, self.n)
    }
}

/// The output validity: ceil(n / 32) words and a zeroed null counter.
fn validity_words(backend: &CudaBackend, n: u64) -> Result<(DeviceBuffer<u32>, DeviceBuffer<u64>)> {
    Ok((
        backend.alloc::<u32>(n.div_ceil(32) as usize)?,
        counter(backend)?,
    ))
}

fn get_primitive<O: OffsetSize, T: Native>(
    backend: &CudaBackend,
    lists: &Lists<'_, O>,
    word: &ErrorWord,
    col: &PrimitiveColumn<T, Device>,
) -> Result<PrimitiveColumn<T, Device>> {
    let n = lists.n;
    let out = backend.alloc::<T>(n as usize)?;
    let (words, nulls) = validity_words(backend, n)?;
    if n > 0 {
        let function = backend.function(
            &LISTS_GET,
            &format!(
                "get_values_{}_{}",
                O::OFFSET_NAME,
                width_name(std::mem::size_of::<T>())?
            ),
        )?;
        let (child_bits, child_bit_offset) = validity_args(col.validity());
        let (offsets, child, out_ptr, words_ptr, nulls_ptr, word_ptr) = (
            lists.offsets.device_ptr(),
            col.values().device_ptr(),
            out.device_ptr(),
            words.device_ptr(),
            nulls.device_ptr(),
            word.device_ptr(),
        );
        let mut args = params![
            offsets,
            lists.bits,
            lists.bit_offset,
            lists.n,
            lists.index,
            lists.error_mode,
            child,
            child_bits,
            child_bit_offset,
            out_ptr,
            words_ptr,
            nulls_ptr,
            word_ptr
        ];
        // SAFETY: `get_values_<O>_<bN>(const O*, const uint8_t*, uint64_t, uint64_t, long
        // long, uint32_t, const U*, const uint8_t*, uint64_t, U*, uint32_t*, unsigned long
        // long*, uint64_t*)`: reads n + 1 offsets, one child element inside each list
        // (offsets are valid for the child), writes n values and ceil(n / 32) validity
        // words (allocated above), adds to a zeroed counter, reports through the word.
        unsafe {
            launch(
                function,
                lists.grid(backend),
                BLOCK,
                0,
                backend.stream(),
                &mut args,
            )?
        };
    }
    let nulls = finish(backend, lists, word, &nulls)?;
    PrimitiveColumn::try_new(out, validity_or_none(words, n as usize, nulls))
}

fn get_booleans<O: OffsetSize>(
    backend: &CudaBackend,
    lists: &Lists<'_, O>,
    word: &ErrorWord,
    col: &BooleanColumn<Device>,
) -> Result<BooleanColumn<Device>> {
    let n = lists.n;
    let (values, falses) = validity_words(backend, n)?;
    let (words, nulls) = validity_words(backend, n)?;
    if n > 0 {
        let function = backend.function(&LISTS_GET, &format!("get_bits_{}", O::OFFSET_NAME))?;
        let (value_bits, value_bit_offset) = validity_args(Some(col.values()));
        let (child_bits, child_bit_offset) = validity_args(col.validity());
        let (offsets, values_ptr, falses_ptr, words_ptr, nulls_ptr, word_ptr) = (
            lists.offsets.device_ptr(),
            values.device_ptr(),
            falses.device_ptr(),
            words.device_ptr(),
            nulls.device_ptr(),
            word.device_ptr(),
        );
        let mut args = params![
            offsets,
            lists.bits,
            lists.bit_offset,
            lists.n,
            lists.index,
            lists.error_mode,
            value_bits,
            value_bit_offset,
            child_bits,
            child_bit_offset,
            values_ptr,
            falses_ptr,
            words_ptr,
            nulls_ptr,
            word_ptr
        ];
        // SAFETY: `get_bits_<O>(const O*, const uint8_t*, uint64_t, uint64_t, long long,
        // uint32_t, const uint8_t*, uint64_t, const uint8_t*, uint64_t, uint32_t*,
        // unsigned long long*, uint32_t*, unsigned long long*, uint64_t*)`: reads n + 1
        // offsets and one value and validity bit inside each list, writes ceil(n / 32)
        // words to each of the two outputs (allocated above), adds to zeroed counters.
        unsafe {
            launch(
                function,
                lists.grid(backend),
                BLOCK,
                0,
                backend.stream(),
                &mut args,
            )?
        };
    }
    let nulls = finish(backend, lists, word, &nulls)?;
    let falses = read_counter(backend, &falses)?;
    BooleanColumn::try_new(
        bitmap(values, n as usize, falses),
        validity_or_none(words, n as usize, nulls),
    )
}

fn get_strings<O: OffsetSize, S: OffsetSize>(
    backend: &CudaBackend,
    lists: &Lists<'_, O>,
    word: &ErrorWord,
    col: &StringColumn<S, Device>,
) -> Result<StringColumn<S, Device>> {
    let n = lists.n;
    let out_starts = backend.alloc::<S>(n as usize)?;
    let out_stops = backend.alloc::<S>(n as usize)?;
    let (words, nulls) = validity_words(backend, n)?;
    if n > 0 {
        let function = backend.function(
            &LISTS_GET,
            &format!("get_ranges_{}_{}", O::OFFSET_NAME, S::OFFSET_NAME),
        )?;
        let (child_bits, child_bit_offset) = validity_args(col.validity());
        let (offsets, row_offsets, starts_ptr, stops_ptr, words_ptr, nulls_ptr, word_ptr) = (
            lists.offsets.device_ptr(),
            col.offsets().device_ptr(),
            out_starts.device_ptr(),
            out_stops.device_ptr(),
            words.device_ptr(),
            nulls.device_ptr(),
            word.device_ptr(),
        );
        let mut args = params![
            offsets,
            lists.bits,
            lists.bit_offset,
            lists.n,
            lists.index,
            lists.error_mode,
            row_offsets,
            child_bits,
            child_bit_offset,
            starts_ptr,
            stops_ptr,
            words_ptr,
            nulls_ptr,
            word_ptr
        ];
        // SAFETY: `get_ranges_<O>_<S>(const O*, const uint8_t*, uint64_t, uint64_t, long
        // long, uint32_t, const S*, const uint8_t*, uint64_t, S*, S*, uint32_t*, unsigned
        // long long*, uint64_t*)`: reads n + 1 list offsets and two row offsets of one
        // row inside each list, writes n starts, n stops and ceil(n / 32) words.
        unsafe {
            launch(
                function,
                lists.grid(backend),
                BLOCK,
                0,
                backend.stream(),
                &mut args,
            )?
        };
    }
    let nulls = finish(backend, lists, word, &nulls)?;
    let (offsets, bytes) = compact_for::<S>(
        backend,
        &out_starts,
        &out_stops,
        None,
        col.values().len(),
        "get",
    )?;
    let plan = Plan {
        starts: &out_starts,
        offsets: &offsets,
        n,
        total: bytes as u64,
        op: "get",
    };
    let values = gather_values(backend, &plan, col.values())?;
    // SAFETY: the offsets are the compact offsets of whole rows of a valid strings
    // column (null rows empty), so they start at 0, do not decrease, end at the bytes'
    // length, and every row is valid UTF-8.
    Ok(unsafe {
        StringColumn::new_unchecked(offsets, values, validity_or_none(words, n as usize, nulls))
    })
}

/// Read the error word (the lowest valid list too short, in error mode), then the null
/// count.
fn finish<O: OffsetSize>(
    backend: &CudaBackend,
    lists: &Lists<'_, O>,
    word: &ErrorWord,
    nulls: &DeviceBuffer<u64>,
) -> Result<usize> {
    if let Some((row, _)) = word.read(backend)? {
        let row = row as usize;
        let begin = read_offset(backend, lists.offsets, row)?;
        let end = read_offset(backend, lists.offsets, row + 1)?;
        return Err(Error::IndexOutOfRange {
            row,
            index: lists.index,
            len: end - begin,
        });
    }
    read_counter(backend, nulls)
}

pub(crate) fn get<O: OffsetSize>(
    backend: &CudaBackend,
    col: &ListColumn<O, Device>,
    index: i64,
    out_of_range: OutOfRange,
) -> Result<Column<Device>> {
    let child = col.child();
    check_movable(child, "get")?;
    let (bits, bit_offset) = validity_args(col.validity());
    let lists = Lists {
        offsets: col.offsets(),
        bits,
        bit_offset,
        n: col.len() as u64,
        index,
        error_mode: u32::from(out_of_range == OutOfRange::Error),
    };
    let word = ErrorWord::new(backend)?;
    Ok(match_numeric!(child;
        c => get_primitive(backend, &lists, &word, c)?;
        Column::Boolean(c) => Column::Boolean(get_booleans(backend, &lists, &word, c)?),
        Column::Utf8(c) => Column::Utf8(get_strings(backend, &lists, &word, c)?),
        Column::LargeUtf8(c) => Column::LargeUtf8(get_strings(backend, &lists, &word, c)?),
        other => {
            check_movable(other, "get")?;
            return Err(Error::Unsupported { op: "get", message: "child type".into() });
        }
    ))
}

pub(crate) fn slice<O: OffsetSize>(
    backend: &CudaBackend,
    col: &ListColumn<O, Device>,
    start: Option<i64>,
    stop: Option<i64>,
) -> Result<ListViewColumn<O, Device>> {
    let n = col.len() as u64;
    let out_starts = backend.alloc::<O>(n as usize)?;
    let out_stops = backend.alloc::<O>(n as usize)?;
    if n > 0 {
        let function = backend.function(&LISTS_GET, &format!("slice_{}", O::OFFSET_NAME))?;
        let (bits, bit_offset) = validity_args(col.validity());
        let (has_start, start) = (u32::from(start.is_some()), start.unwrap_or(0));
        let (has_stop, stop) = (u32::from(stop.is_some()), stop.unwrap_or(0));
        let (offsets, starts_ptr, stops_ptr) = (
            col.offsets().device_ptr(),
            out_starts.device_ptr(),
            out_stops.device_ptr(),
        );
        let mut args = params![
            offsets, bits, bit_offset, n, has_start, start, has_stop, stop, starts_ptr, stops_ptr
        ];
        // SAFETY: `slice_<O>(const O*, const uint8_t*, uint64_t, uint64_t, uint32_t, long
        // long, uint32_t, long long, O*, O*)` reads n + 1 offsets and n validity bits and
        // writes n starts and n stops (allocated above).
        unsafe {
            launch(
                function,
                grid_for(n, backend.info().multiprocessors),
                BLOCK,
                0,
                backend.stream(),
                &mut args,
            )?
        };
    }
    // SAFETY: every range lies inside its list (python_slice clamps to 0..=len), which
    // lies inside the child; null lists get the empty range at their start.
    Ok(unsafe {
        ListViewColumn::new_unchecked(
            out_starts,
            out_stops,
            Arc::clone(col.child_arc()),
            col.validity().cloned(),
        )
    })
}
