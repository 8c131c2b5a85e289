//! The strings family on the GPU.

mod length;
mod like;
mod search;
mod slice;
mod split;
mod transform;
mod two_pass;

use std::ffi::c_void;

use ragged_core::ops::{
    AnyStringColumn, ConcatNulls, OffsetWidth, Pattern, Search, Side, SliceBounds, SplitOn,
    StringArg,
};
use ragged_core::{
    BooleanColumn, ListColumn, OffsetSize, PrimitiveColumn, Result, StringColumn, StringOps,
};

use crate::compile::PRIMITIVES_SCAN;
use crate::launch::{launch, resident_grid, Function, BLOCK};
use crate::memory::Device;
use crate::primitives::scan::TileState;
use crate::CudaBackend;

/// Bytes of a tile of rows staged in shared memory (TILE_BYTES of
/// kernels/common/strings.cuh).
const TILE_BYTES: usize = 16384;
/// The most rows per tile (TILE_ROWS of kernels/common/strings.cuh).
const TILE_ROWS: usize = 1024;

/// Threads per block of the tile kernels (TILE_THREADS of kernels/common/tiles.cuh).
const TILE_THREADS: u32 = 256;

/// Rows per tile of the kernels that stage tiles of rows (`stage_row_tile`): tiles
/// expected to fill three quarters of TILE_BYTES at the column's average row length
/// (its chars buffer over its rows, or more for a slice), so that rows longer than
/// average rarely make a tile overflow (which then reads global memory), in whole
/// warps of 32 to TILE_ROWS rows.
fn tile_rows<O: OffsetSize>(col: &StringColumn<O, Device>) -> u32 {
    let avg = col.values().len().div_ceil(col.len().max(1));
    let rows = (TILE_BYTES * 3 / 4) / avg.max(1);
    (rows.clamp(32, TILE_ROWS) / 32 * 32) as u32
}

/// The rows per tile ([`tile_rows`]) of a one-block-per-tile kernel over `col`
/// (`kernels/common/tiles.cuh`) and its decoupled look-back state (one block per tile:
/// the state's `tiles` is the grid).
pub(crate) fn tile_plan<O: OffsetSize>(
    backend: &CudaBackend,
    col: &StringColumn<O, Device>,
) -> Result<(u32, TileState)> {
    let per_tile = tile_rows(col);
    let state = TileState::new(
        backend,
        &PRIMITIVES_SCAN,
        "acc_u64",
        col.len() as u64,
        u64::from(per_tile),
    )?;
    Ok((per_tile, state))
}

/// Launch `function`, a one-block-per-tile kernel (`kernels/common/tiles.cuh`): one
/// block of [`TILE_THREADS`] threads per tile of `state`.
///
/// # Safety
/// As [`launch`]: `params` point to values matching the kernel's parameters, and every
/// device buffer they name is alive and large enough for what the kernel reads and
/// writes over `state.tiles` tiles.
pub(crate) unsafe fn launch_tiles(
    backend: &CudaBackend,
    function: Function,
    state: &TileState,
    params: &mut [*mut c_void],
) -> Result<()> {
    // SAFETY: forwarded from this function's contract.
    unsafe {
        launch(
            function,
            state.tiles,
            TILE_THREADS,
            0,
            backend.stream(),
            params,
        )
    }
}

/// The rows per tile ([`tile_rows`]) and the grid of [`BLOCK`]-thread blocks for
/// `function`, a kernel that strides over tiles of `col`'s rows: one block per tile, at
/// most the blocks resident at once.
pub(crate) fn tile_launch<O: OffsetSize>(
    backend: &CudaBackend,
    function: Function,
    col: &StringColumn<O, Device>,
) -> (u32, u32) {
    let per_tile = tile_rows(col);
    (
        per_tile,
        tile_grid(backend, function, col.len() as u64, per_tile),
    )
}

/// The grid of `function`, a grid-stride kernel over tiles of `per_tile` rows, for
/// `rows` rows: as many blocks as stay resident, at most one per tile.
pub(crate) fn tile_grid(
    backend: &CudaBackend,
    function: Function,
    rows: u64,
    per_tile: u32,
) -> u32 {
    let tiles = rows.div_ceil(u64::from(per_tile));
    resident_grid(
        function,
        tiles * u64::from(BLOCK),
        backend.info().multiprocessors,
    )
}

impl StringOps for CudaBackend {
    fn length<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Device>,
    ) -> Result<PrimitiveColumn<O, Device>> {
        length::length(self, col)
    }

    fn length_bytes<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Device>,
    ) -> Result<PrimitiveColumn<O, Device>> {
        length::length_bytes(self, col)
    }

    fn contains<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Device>,
        pattern: Pattern<'_, Device>,
    ) -> Result<BooleanColumn<Device>> {
        search::search_bool(self, Search::Contains, col, pattern)
    }

    fn starts_with<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Device>,
        pattern: Pattern<'_, Device>,
    ) -> Result<BooleanColumn<Device>> {
        search::search_bool(self, Search::StartsWith, col, pattern)
    }

    fn ends_with<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Device>,
        pattern: Pattern<'_, Device>,
    ) -> Result<BooleanColumn<Device>> {
        search::search_bool(self, Search::EndsWith, col, pattern)
    }

    fn find<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Device>,
        pattern: Pattern<'_, Device>,
    ) -> Result<PrimitiveColumn<O, Device>> {
        search::search_position(self, Search::Find, col, pattern)
    }

    fn rfind<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Device>,
        pattern: Pattern<'_, Device>,
    ) -> Result<PrimitiveColumn<O, Device>> {
        search::search_position(self, Search::Rfind, col, pattern)
    }

    fn like<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Device>,
        pattern: &str,
        escape: Option<char>,
    ) -> Result<BooleanColumn<Device>> {
        like::like(self, col, pattern, escape)
    }

    fn slice_chars<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Device>,
        bounds: SliceBounds<'_, Device>,
    ) -> Result<StringColumn<O, Device>> {
        slice::slice(self, col, bounds, true)
    }

    fn slice_bytes<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Device>,
        bounds: SliceBounds<'_, Device>,
    ) -> Result<StringColumn<O, Device>> {
        slice::slice(self, col, bounds, false)
    }

    fn count_matches<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Device>,
        pattern: Pattern<'_, Device>,
    ) -> Result<PrimitiveColumn<O, Device>> {
        search::search_position(self, Search::CountMatches, col, pattern)
    }

    fn copy_if_else(
        &self,
        mask: &BooleanColumn<Device>,
        left: StringArg<'_, Device>,
        right: StringArg<'_, Device>,
        width: OffsetWidth,
    ) -> Result<AnyStringColumn<Device>> {
        transform::copy_if_else(self, mask, left, right, width)
    }

    fn concatenate(
        &self,
        columns: &[StringArg<'_, Device>],
        separator: &str,
        nulls: ConcatNulls<'_>,
        width: OffsetWidth,
    ) -> Result<AnyStringColumn<Device>> {
        transform::concatenate(self, columns, separator, nulls, width)
    }

    fn split<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Device>,
        on: SplitOn<'_>,
        max_splits: Option<usize>,
    ) -> Result<Vec<StringColumn<O, Device>>> {
        split::split(self, col, on, max_splits, false)
    }

    fn rsplit<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Device>,
        on: SplitOn<'_>,
        max_splits: Option<usize>,
    ) -> Result<Vec<StringColumn<O, Device>>> {
        split::split(self, col, on, max_splits, true)
    }

    fn split_record<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Device>,
        on: SplitOn<'_>,
        max_splits: Option<usize>,
    ) -> Result<ListColumn<O, Device>> {
        split::split_record(self, col, on, max_splits, false)
    }

    fn rsplit_record<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Device>,
        on: SplitOn<'_>,
        max_splits: Option<usize>,
    ) -> Result<ListColumn<O, Device>> {
        split::split_record(self, col, on, max_splits, true)
    }

    fn redact<O: OffsetSize>(
        &self,
        names: &StringColumn<O, Device>,
        visibility: StringArg<'_, Device>,
        width: OffsetWidth,
    ) -> Result<AnyStringColumn<Device>> {
        transform::redact(self, names, visibility, width)
    }

    fn upper<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Device>,
        width: OffsetWidth,
    ) -> Result<AnyStringColumn<Device>> {
        transform::case_map(self, col, true, width)
    }

    fn lower<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Device>,
        width: OffsetWidth,
    ) -> Result<AnyStringColumn<Device>> {
        transform::case_map(self, col, false, width)
    }

    fn strip<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Device>,
        side: Side,
        chars: Option<&str>,
    ) -> Result<StringColumn<O, Device>> {
        transform::strip(self, col, side, chars)
    }

    fn pad<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Device>,
        width_chars: usize,
        side: Side,
        fill: char,
        width: OffsetWidth,
    ) -> Result<AnyStringColumn<Device>> {
        transform::pad(self, col, width_chars, side, fill, width)
    }

    fn repeat<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Device>,
        times: usize,
        width: OffsetWidth,
    ) -> Result<AnyStringColumn<Device>> {
        transform::repeat(self, col, times, width)
    }

    fn replace<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Device>,
        pattern: &str,
        replacement: &str,
        max_count: Option<usize>,
        width: OffsetWidth,
    ) -> Result<AnyStringColumn<Device>> {
        transform::replace(self, col, pattern, replacement, max_count, width)
    }

    fn join<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Device>,
        separator: &str,
        width: OffsetWidth,
    ) -> Result<AnyStringColumn<Device>> {
        transform::join(self, col, separator, width)
    }

    fn append(
        &self,
        columns: &[StringArg<'_, Device>],
        width: OffsetWidth,
    ) -> Result<AnyStringColumn<Device>> {
        transform::append(self, columns, width)
    }
}
