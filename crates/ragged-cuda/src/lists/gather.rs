//! `to_compact`, `flatten` and `local_index` on the GPU: host dispatch for
//! `kernels/lists/gather.cu`.
//!
//! Each is two steps: the compact offsets (one checking scan, `compact_offsets.rs`;
//! null lists empty), then a load-balanced gather over the output elements (tiles of
//! output, binary search for each tile's lists). The child is gathered by its byte
//! width: 4 and 8 bytes one warp per run of 2048 outputs (`gather_runs`), 1 and 2 bytes
//! one block per tile with 16-byte vector stores; booleans and validity bit
//! by bit (with a null count), strings in three steps: the rows' byte ranges, their
//! compact offsets, then the bytes with the same tiled gather. `flatten` of a column
//! whose null lists cover no element is a zero-copy slice of the child (no kernel).

use std::sync::Arc;

use ragged_core::{
    BooleanColumn, Column, Error, ListColumn, ListViewColumn, Native, OffsetSize, PrimitiveColumn,
    Result, StringColumn, ValidityBitmap,
};

use super::compact_offsets::compact_for;
use super::{check_movable, match_numeric, read_offset, width_name};
use crate::common::bits::{bitmap, counter, read_counter};
use crate::compile::LISTS_GATHER;
use crate::launch::{grid_for, launch, params, BLOCK};
use crate::memory::{Device, DeviceBitmap, DeviceBuffer};
use crate::CudaBackend;

/// Threads per block and groups per thread of the gather kernels (gather.cu): bits and
/// string ranges take `GATHER_GROUPS`, element values and `local_index`
/// `GATHER_GROUPS_WIDE` (`GATHER_GROUPS` and `GATHER_GROUPS_WIDE` there).
const GATHER_BLOCK: u64 = BLOCK as u64;
const GATHER_GROUPS: u64 = 2;
const GATHER_GROUPS_WIDE: u64 = 4;
/// Outputs per warp of `gather_runs_<O>_<bN>` (`RUN_TILE` there).
const RUN_TILE: u64 = 2048;

/// Blocks of a gather of `total` outputs, `per_block` of them per block.
fn gather_grid(total: u64, per_block: u64, op: &'static str) -> Result<u32> {
    u32::try_from(total.div_ceil(per_block)).map_err(|_| Error::Unsupported {
        op,
        message: format!("{total} elements exceed the gather's grid"),
    })
}

/// The tiles of a gather of `plan.total` outputs in `groups` groups of `k` per thread
/// (the kernel's tile shape): the number of
/// blocks, and `gather_partition_<O>`'s tiles + 1 list indices (tile t's lists lie in
/// `partition[t] ..= partition[t + 1]`), found by one parallel launch.
fn partition<O: OffsetSize>(
    backend: &CudaBackend,
    plan: &Plan<'_, O>,
    k: u64,
    groups: u64,
) -> Result<(u32, DeviceBuffer<u64>)> {
    let grid = gather_grid(plan.total, GATHER_BLOCK * groups * k, plan.op)?;
    let parts = partition_tiles(backend, plan, u64::from(grid), GATHER_BLOCK * groups * k)?;
    Ok((grid, parts))
}

/// `gather_partition_<O>`'s `tiles + 1` list indices for tiles of `tile` outputs (tile
/// t's lists lie in `partition[t] ..= partition[t + 1]`), found by one parallel launch.
fn partition_tiles<O: OffsetSize>(
    backend: &CudaBackend,
    plan: &Plan<'_, O>,
    tiles: u64,
    tile: u64,
) -> Result<DeviceBuffer<u64>> {
    let out = backend.alloc::<u64>(tiles as usize + 1)?;
    let function = backend.function(
        &LISTS_GATHER,
        &format!("gather_partition_{}", O::OFFSET_NAME),
    )?;
    let (offsets, n, total, out_ptr) = (
        plan.offsets.device_ptr(),
        plan.n,
        plan.total,
        out.device_ptr(),
    );
    let mut args = params![offsets, n, total, tile, tiles, out_ptr];
    // SAFETY: `gather_partition_<O>(const O*, uint64_t, uint64_t, uint64_t, uint64_t,
    // uint64_t*)` binary-searches the n + 1 offsets (n > 0, total > 0) and writes tiles
    // + 1 entries (allocated above).
    unsafe {
        launch(
            function,
            grid_for(tiles + 1, backend.info().multiprocessors),
            BLOCK,
            0,
            backend.stream(),
            &mut args,
        )?
    };
    Ok(out)
}

/// The lists to gather: list `l` moves source elements `starts[l] ..` to outputs
/// `offsets[l] .. offsets[l + 1]` (`offsets` compact, `n + 1` of them, total `total`).
pub(crate) struct Plan<'a, O> {
    pub(crate) starts: &'a DeviceBuffer<O>,
    pub(crate) offsets: &'a DeviceBuffer<O>,
    pub(crate) n: u64,
    pub(crate) total: u64,
    pub(crate) op: &'static str,
}

/// Gather the elements of a primitive buffer: elements of 4 and 8 bytes one warp per
/// run of outputs (`gather_runs_<O>_<bN>`), narrower ones by tiles with 16-byte stores
/// (`gather_values_<O>_<bN>`).
pub(crate) fn gather_values<O: OffsetSize, T: Native>(
    backend: &CudaBackend,
    plan: &Plan<'_, O>,
    src: &DeviceBuffer<T>,
) -> Result<DeviceBuffer<T>> {
    let out = backend.alloc::<T>(plan.total as usize)?;
    if plan.total == 0 {
        return Ok(out);
    }
    let size = std::mem::size_of::<T>();
    let (starts, offsets, src_ptr, dst) = (
        plan.starts.device_ptr(),
        plan.offsets.device_ptr(),
        src.device_ptr(),
        out.device_ptr(),
    );
    let total = plan.total;
    if size >= 4 {
        let function = backend.function(
            &LISTS_GATHER,
            &format!("gather_runs_{}_{}", O::OFFSET_NAME, width_name(size)?),
        )?;
        // One warp per tile of RUN_TILE outputs.
        let grid = gather_grid(total, RUN_TILE * (GATHER_BLOCK / 32), plan.op)?;
        let tiles = total.div_ceil(RUN_TILE);
        let parts = partition_tiles(backend, plan, tiles, RUN_TILE)?;
        let parts_ptr = parts.device_ptr();
        let mut args = params![starts, offsets, parts_ptr, total, src_ptr, dst];
        // SAFETY: `gather_runs_<O>_<bN>(const O*, const O*, const uint64_t*, uint64_t,
        // const U*, U*)` with U of T's width: one warp per tile of RUN_TILE outputs
        // (`tiles` of them in `grid` blocks of BLOCK threads) reads its partition entries,
        // the starts and compact offsets (ending at total) of its lists, and source
        // elements starts[l] .. starts[l] + size(l), all inside `src` (the lists are valid
        // for their child), and writes `total` elements (allocated above).
        unsafe { launch(function, grid, BLOCK, 0, backend.stream(), &mut args)? };
        return Ok(out);
    }
    let function = backend.function(
        &LISTS_GATHER,
        &format!("gather_values_{}_{}", O::OFFSET_NAME, width_name(size)?),
    )?;
    let (grid, parts) = partition(backend, plan, (16 / size) as u64, GATHER_GROUPS_WIDE)?;
    let parts_ptr = parts.device_ptr();
    let src_len = src.len() as u64;
    let mut args = params![starts, offsets, parts_ptr, total, src_ptr, src_len, dst];
    // SAFETY: `gather_values_<O>_<bN>(const O*, const O*, const uint64_t*, uint64_t,
    // const U*, uint64_t, U*)` with U of T's width: reads the partition of `grid` tiles,
    // n starts and n + 1 compact offsets (ending at total), source elements starts[l] ..
    // starts[l] + size(l), all inside `src` (the lists are valid for their child; wider
    // aligned loads stay inside its `src_len` elements or the 16-byte block of an
    // element inside it), and writes `total` elements (allocated above).
    unsafe { launch(function, grid, BLOCK, 0, backend.stream(), &mut args)? };
    Ok(out)
}

/// Gather the bits of a bitmap (`gather_bits_<O>`): a new bitmap of `total` bits at
/// bit 0 with its count of unset bits.
fn gather_bits<O: OffsetSize>(
    backend: &CudaBackend,
    plan: &Plan<'_, O>,
    src: &DeviceBitmap,
) -> Result<DeviceBitmap> {
    let words = backend.alloc::<u32>(plan.total.div_ceil(32) as usize)?;
    if plan.total == 0 {
        return Ok(bitmap(words, 0, 0));
    }
    let unset = counter(backend)?;
    let function = backend.function(&LISTS_GATHER, &format!("gather_bits_{}", O::OFFSET_NAME))?;
    let (grid, parts) = partition(backend, plan, 32, GATHER_GROUPS)?;
    let (starts, offsets, parts_ptr, src_ptr, src_bit_offset, dst, unset_ptr) = (
        plan.starts.device_ptr(),
        plan.offsets.device_ptr(),
        parts.device_ptr(),
        src.bits().device_ptr(),
        src.bit_offset() as u64,
        words.device_ptr(),
        unset.device_ptr(),
    );
    let total = plan.total;
    let mut args = params![
        starts,
        offsets,
        parts_ptr,
        total,
        src_ptr,
        src_bit_offset,
        dst,
        unset_ptr
    ];
    // SAFETY: `gather_bits_<O>(const O*, const O*, const uint64_t*, uint64_t, const
    // uint8_t*, uint64_t, uint32_t*, unsigned long long*)`: reads the partition of `grid`
    // tiles, the lists' starts and offsets, source bits inside the bitmap
    // (the lists are inside the child, which the bitmap covers), writes ceil(total / 32)
    // words (allocated above) and adds to one zeroed counter.
    unsafe { launch(function, grid, BLOCK, 0, backend.stream(), &mut args)? };
    let unset = read_counter(backend, &unset)?;
    Ok(bitmap(words, plan.total as usize, unset))
}

/// Gather a validity bitmap; `None` stays `None`, and a result without nulls too.
fn gather_validity<O: OffsetSize>(
    backend: &CudaBackend,
    plan: &Plan<'_, O>,
    validity: Option<&DeviceBitmap>,
) -> Result<Option<DeviceBitmap>> {
    let Some(v) = validity else {
        return Ok(None);
    };
    if v.null_count() == 0 {
        return Ok(None);
    }
    let gathered = gather_bits(backend, plan, v)?;
    Ok((gathered.null_count() > 0).then_some(gathered))
}

fn gather_primitive<O: OffsetSize, T: Native>(
    backend: &CudaBackend,
    plan: &Plan<'_, O>,
    col: &PrimitiveColumn<T, Device>,
) -> Result<PrimitiveColumn<T, Device>> {
    let values = gather_values(backend, plan, col.values())?;
    let validity = gather_validity(backend, plan, col.validity())?;
    PrimitiveColumn::try_new(values, validity)
}

fn gather_booleans<O: OffsetSize>(
    backend: &CudaBackend,
    plan: &Plan<'_, O>,
    col: &BooleanColumn<Device>,
) -> Result<BooleanColumn<Device>> {
    let values = gather_bits(backend, plan, col.values())?;
    let validity = gather_validity(backend, plan, col.validity())?;
    BooleanColumn::try_new(values, validity)
}

/// Strings: the byte ranges of the gathered rows (`gather_ranges_<O>_<S>`), their
/// compact offsets, then the bytes (`gather_values_<S>_b1`).
fn gather_strings<O: OffsetSize, S: OffsetSize>(
    backend: &CudaBackend,
    plan: &Plan<'_, O>,
    col: &StringColumn<S, Device>,
) -> Result<StringColumn<S, Device>> {
    let rows = plan.total as usize;
    let out_starts = backend.alloc::<S>(rows)?;
    let out_stops = backend.alloc::<S>(rows)?;
    if rows > 0 {
        let function = backend.function(
            &LISTS_GATHER,
            &format!("gather_ranges_{}_{}", O::OFFSET_NAME, S::OFFSET_NAME),
        )?;
        let (grid, parts) = partition(backend, plan, 4, GATHER_GROUPS)?;
        let (starts, offsets, parts_ptr, row_offsets, starts_out, stops_out) = (
            plan.starts.device_ptr(),
            plan.offsets.device_ptr(),
            parts.device_ptr(),
            col.offsets().device_ptr(),
            out_starts.device_ptr(),
            out_stops.device_ptr(),
        );
        let total = plan.total;
        let mut args = params![
            starts,
            offsets,
            parts_ptr,
            total,
            row_offsets,
            starts_out,
            stops_out
        ];
        // SAFETY: `gather_ranges_<O>_<S>(const O*, const O*, const uint64_t*, uint64_t,
        // const S*, S*, S*)`: reads the partition of `grid` tiles, the lists' starts and
        // offsets, row offsets r and r + 1 of source rows r inside the strings
        // column (which has len + 1 offsets), writes `total` starts and stops.
        unsafe { launch(function, grid, BLOCK, 0, backend.stream(), &mut args)? };
    }
    let (offsets, bytes) = compact_for::<S>(
        backend,
        &out_starts,
        &out_stops,
        None,
        col.values().len(),
        plan.op,
    )?;
    let byte_plan = Plan {
        starts: &out_starts,
        offsets: &offsets,
        n: rows as u64,
        total: bytes as u64,
        op: plan.op,
    };
    let values = gather_values(backend, &byte_plan, col.values())?;
    let validity = gather_validity(backend, plan, col.validity())?;
    // SAFETY: the offsets are the compact offsets of whole rows of a valid strings
    // column copied in order, so they start at 0, do not decrease, end at the bytes'
    // length, and every row is the same UTF-8 as its source; validity has one slot
    // per row.
    Ok(unsafe { StringColumn::new_unchecked(offsets, values, validity) })
}

/// Gather the elements of the lists of `plan` from `child` into a new column of the
/// same type.
pub(crate) fn gather_child<O: OffsetSize>(
    backend: &CudaBackend,
    plan: &Plan<'_, O>,
    child: &Column<Device>,
) -> Result<Column<Device>> {
    Ok(match_numeric!(child;
        c => gather_primitive(backend, plan, c)?;
        Column::Boolean(c) => Column::Boolean(gather_booleans(backend, plan, c)?),
        Column::Utf8(c) => Column::Utf8(gather_strings(backend, plan, c)?),
        Column::LargeUtf8(c) => Column::LargeUtf8(gather_strings(backend, plan, c)?),
        other => {
            check_movable(other, plan.op)?;
            return Err(Error::Unsupported { op: plan.op, message: "child type".into() });
        }
    ))
}

/// The number of unset bits of `len` slots from bit `bit_offset` of `bits`
/// (`bitmap_count_unset`).
pub(super) fn count_unset(
    backend: &CudaBackend,
    bits: &DeviceBuffer<u8>,
    bit_offset: usize,
    len: usize,
) -> Result<usize> {
    if len == 0 {
        return Ok(0);
    }
    let unset = counter(backend)?;
    let function = backend.function(&LISTS_GATHER, "bitmap_count_unset")?;
    let (bits_ptr, offset, n, unset_ptr) = (
        bits.device_ptr(),
        bit_offset as u64,
        len as u64,
        unset.device_ptr(),
    );
    let mut args = params![bits_ptr, offset, n, unset_ptr];
    // SAFETY: `bitmap_count_unset(const uint8_t*, uint64_t, uint64_t, unsigned long
    // long*)` reads the bytes holding bits bit_offset .. bit_offset + len, which the
    // bitmap covers, and adds to one zeroed counter.
    unsafe {
        launch(
            function,
            grid_for(n.div_ceil(32), backend.info().multiprocessors),
            BLOCK,
            0,
            backend.stream(),
            &mut args,
        )?
    };
    read_counter(backend, &unset)
}

/// Slots `first .. first + len` of a bitmap, sharing its bytes, with their null count.
fn slice_bitmap(
    backend: &CudaBackend,
    bitmap: &DeviceBitmap,
    first: usize,
    len: usize,
) -> Result<DeviceBitmap> {
    let null_count = if bitmap.null_count() == 0 || len == 0 {
        0
    } else if bitmap.null_count() == bitmap.len() {
        len
    } else if first == 0 && len == bitmap.len() {
        bitmap.null_count()
    } else {
        count_unset(backend, bitmap.bits(), bitmap.bit_offset() + first, len)?
    };
    Ok(DeviceBitmap::new(
        bitmap.bits().clone(),
        bitmap.bit_offset() + first,
        len,
        null_count,
    ))
}

fn slice_validity(
    backend: &CudaBackend,
    validity: Option<&DeviceBitmap>,
    first: usize,
    len: usize,
) -> Result<Option<DeviceBitmap>> {
    validity
        .map(|v| slice_bitmap(backend, v, first, len))
        .transpose()
        .map(|v| v.filter(|v| v.null_count() > 0))
}

fn slice_primitive<T: Native>(
    backend: &CudaBackend,
    col: &PrimitiveColumn<T, Device>,
    first: usize,
    len: usize,
) -> Result<PrimitiveColumn<T, Device>> {
    PrimitiveColumn::try_new(
        col.values().slice(first, len)?,
        slice_validity(backend, col.validity(), first, len)?,
    )
}

/// Rows `first .. first + len` of a movable child, without copying elements.
fn slice_child(
    backend: &CudaBackend,
    child: &Column<Device>,
    first: usize,
    len: usize,
    op: &'static str,
) -> Result<Column<Device>> {
    if first.checked_add(len).is_none_or(|end| end > child.len()) {
        return Err(Error::invalid_argument(
            op,
            format!(
                "range {first}..{first}+{len} outside a child of {}",
                child.len()
            ),
        ));
    }
    Ok(match_numeric!(child;
        c => slice_primitive(backend, c, first, len)?;
        Column::Boolean(c) => Column::Boolean(BooleanColumn::try_new(
            slice_bitmap(backend, c.values(), first, len)?,
            slice_validity(backend, c.validity(), first, len)?,
        )?),
        Column::Utf8(c) => Column::Utf8(slice_strings(backend, c, first, len)?),
        Column::LargeUtf8(c) => Column::LargeUtf8(slice_strings(backend, c, first, len)?),
        other => {
            check_movable(other, op)?;
            return Err(Error::Unsupported { op, message: "child type".into() });
        }
    ))
}

fn slice_strings<S: OffsetSize>(
    backend: &CudaBackend,
    col: &StringColumn<S, Device>,
    first: usize,
    len: usize,
) -> Result<StringColumn<S, Device>> {
    let offsets = col.offsets().slice(first, len + 1)?;
    let validity = slice_validity(backend, col.validity(), first, len)?;
    // SAFETY: len + 1 consecutive offsets of a valid strings column over the same bytes
    // are valid offsets (sliced offsets need not start at 0).
    Ok(unsafe { StringColumn::new_unchecked(offsets, col.values().clone(), validity) })
}

pub(crate) fn to_compact<O: OffsetSize>(
    backend: &CudaBackend,
    col: &ListViewColumn<O, Device>,
) -> Result<ListColumn<O, Device>> {
    let child = col.child();
    check_movable(child, "to_compact")?;
    let (offsets, total) = compact_for::<O>(
        backend,
        col.starts(),
        col.stops(),
        col.validity(),
        child.len(),
        "to_compact",
    )?;
    let plan = Plan {
        starts: col.starts(),
        offsets: &offsets,
        n: col.len() as u64,
        total: total as u64,
        op: "to_compact",
    };
    let gathered = gather_child(backend, &plan, child)?;
    // SAFETY: compact offsets start at 0, do not decrease and end at the gathered
    // child's length; the validity is the input's (one slot per list).
    Ok(unsafe { ListColumn::new_unchecked(offsets, Arc::new(gathered), col.validity().cloned()) })
}

pub(crate) fn flatten<O: OffsetSize>(
    backend: &CudaBackend,
    col: &ListColumn<O, Device>,
) -> Result<Column<Device>> {
    let child = col.child();
    check_movable(child, "flatten")?;
    let n = col.len();
    let first = read_offset(backend, col.offsets(), 0)?;
    let last = read_offset(backend, col.offsets(), n)?;
    let (first_row, range) = (first.max(0) as usize, (last - first).max(0) as usize);
    if col.null_count() == 0 {
        return slice_child(backend, child, first_row, range, "flatten");
    }
    let starts = col.offsets().slice(0, n)?;
    let stops = col.offsets().slice(1, n)?;
    let (offsets, total) = compact_for::<O>(
        backend,
        &starts,
        &stops,
        col.validity(),
        child.len(),
        "flatten",
    )?;
    if total as usize == range {
        // The null lists cover no element: the valid lists' elements are the range.
        return slice_child(backend, child, first_row, range, "flatten");
    }
    let plan = Plan {
        starts: &starts,
        offsets: &offsets,
        n: n as u64,
        total: total as u64,
        op: "flatten",
    };
    gather_child(backend, &plan, child)
}

pub(crate) fn local_index<O: OffsetSize>(
    backend: &CudaBackend,
    col: &ListColumn<O, Device>,
) -> Result<ListColumn<O, Device>> {
    let n = col.len();
    let (offsets, total) = if n == 0 {
        compact_for::<O>(
            backend,
            &DeviceBuffer::empty(),
            &DeviceBuffer::empty(),
            None,
            0,
            "local_index",
        )?
    } else {
        let starts = col.offsets().slice(0, n)?;
        let stops = col.offsets().slice(1, n)?;
        compact_for::<O>(
            backend,
            &starts,
            &stops,
            col.validity(),
            col.child().len(),
            "local_index",
        )?
    };
    let total = total as u64;
    let out = backend.alloc::<i64>(total as usize)?;
    if total > 0 {
        let function =
            backend.function(&LISTS_GATHER, &format!("local_index_{}", O::OFFSET_NAME))?;
        let plan = Plan {
            starts: &offsets,
            offsets: &offsets,
            n: n as u64,
            total,
            op: "local_index",
        };
        let (grid, parts) = partition(backend, &plan, 2, GATHER_GROUPS_WIDE)?;
        let (offsets_ptr, parts_ptr, out_ptr) =
            (offsets.device_ptr(), parts.device_ptr(), out.device_ptr());
        let mut args = params![offsets_ptr, parts_ptr, total, out_ptr];
        // SAFETY: `local_index_<O>(const O*, const uint64_t*, uint64_t, long long*)` reads
        // the partition of `grid` tiles and n + 1 compact offsets ending at total, and
        // writes `total` positions (allocated above).
        unsafe { launch(function, grid, BLOCK, 0, backend.stream(), &mut args)? };
    }
    let child = Column::Int64(PrimitiveColumn::try_new(out, None)?);
    // SAFETY: compact offsets start at 0, do not decrease and end at the child's length;
    // the validity is the input's.
    Ok(unsafe { ListColumn::new_unchecked(offsets, Arc::new(child), col.validity().cloned()) })
}
