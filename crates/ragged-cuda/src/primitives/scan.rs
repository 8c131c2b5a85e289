//! Scans on the GPU: host dispatch for `kernels/primitives/scan.cu`.
//!
//! One launch initializes the decoupled look-back tile state (`scan_state_init_<acc>`),
//! one launch scans (one block of [`SCAN_THREADS`] threads per tile of
//! `SCAN_THREADS × items` values); a scan of one tile needs no state. Overflow and
//! negative sizes come back through the device error word.

use ragged_core::ops::{OffsetWidth, Offsets, Predicate, ScanKind, Transform};
use ragged_core::{Error, Native, PrimitiveColumn, Result};

use super::{can_overflow, validity_args, value_from_bytes};
use crate::compile::{ModuleSource, PRIMITIVES_SCAN};
use crate::error_word::{ErrorWord, ErrorWordWith};
use crate::launch::{launch, params, BLOCK};
use crate::memory::{Device, DeviceBuffer};
use crate::CudaBackend;

/// Threads per block of the scan kernels (SCAN_THREADS of kernels/common/scan.cuh).
pub(crate) const SCAN_THREADS: u32 = 128;

/// Values per tile of a scan over T: SCAN_THREADS × ScanItems<T> of
/// kernels/primitives/scan.cu (24 values per thread up to 4 bytes, else 12).
fn scan_tile<T>() -> u64 {
    u64::from(SCAN_THREADS)
        * if std::mem::size_of::<T>() <= 4 {
            24
        } else {
            12
        }
}

/// Whether `scan_sum` over T takes the dense kernel (`scan_sum_<kind>_dense_f32` of
/// kernels/primitives/scan.cu): f32 columns without nulls; every other scan takes
/// `scan_sum_<kind>_nullable_<T>`.
fn scan_sum_dense<T: Native>(nullable: bool) -> bool {
    T::IS_FLOAT && std::mem::size_of::<T>() == 4 && !nullable
}

/// Values per tile of `scan_sum` over T: SCAN_THREADS × ScanSumItems of
/// kernels/primitives/scan.cu (32 values per thread in the dense kernel, else as
/// [`scan_tile`]).
fn scan_sum_tile<T: Native>(dense: bool) -> u64 {
    if dense {
        u64::from(SCAN_THREADS) * 32
    } else {
        scan_tile::<T>()
    }
}

/// Values per tile of the float min/max scans ((value, seen) pairs, 12 per thread).
const SEEN_TILE: u64 = SCAN_THREADS as u64 * 12;

/// Values per tile of sizes_to_offsets (i32 sizes, 24 per thread).
const SIZES_TILE: u64 = SCAN_THREADS as u64 * 24;

/// The initialized decoupled look-back state of a scan of `n` values in tiles of
/// `tile` values: one tile per block. A scan of one tile has no predecessor to look
/// back at: it gets no state (null pointer, no allocation, no initializing launch),
/// which halves the launches of small scans.
pub(crate) struct TileState {
    /// Tiles (= blocks to launch).
    pub(crate) tiles: u32,
    /// Device address of the state (`void*` for the kernels; 0 for a single tile).
    pub(crate) ptr: u64,
    /// Its size in bytes.
    pub(crate) bytes: u64,
    _memory: Option<DeviceBuffer<u8>>,
}

/// Bytes of the tile state of `tiles` tiles: an upper bound of
/// `cub::ScanTileState<ACC>::AllocationSize` for every accumulator up to 16 bytes, with
/// the 32 padding entries (`RAGGED_SCAN_STATE` in kernels/common/scan.cuh).
fn state_bytes(tiles: u64) -> u64 {
    (tiles + 32) * 48 + 1024
}

impl TileState {
    /// Allocate the state of accumulator `acc` and initialize it
    /// (`scan_state_init_<acc>` of `module`).
    pub(crate) fn new(
        backend: &CudaBackend,
        module: &ModuleSource,
        acc: &str,
        n: u64,
        tile: u64,
    ) -> Result<Self> {
        let tiles = n.div_ceil(tile);
        if tiles <= 1 {
            // The kernels touch the state only when there is more than one tile
            // (common/scan.cuh and select.cu check `tiles > 1` before publishing).
            return Ok(Self {
                tiles: tiles as u32,
                ptr: 0,
                bytes: 0,
                _memory: None,
            });
        }
        let bytes = state_bytes(tiles);
        let memory = backend.alloc::<u8>(bytes as usize)?;
        let init = backend.function(module, &format!("scan_state_init_{acc}"))?;
        let (ptr, count) = (memory.device_ptr(), tiles as i32);
        let mut args = params![ptr, bytes, count];
        let grid = tiles.div_ceil(u64::from(BLOCK)).max(1) as u32;
        // SAFETY: `scan_state_init_<acc>(void*, uint64_t, int)` writes the status words of
        // `tiles` tiles plus 32 padding entries inside `bytes` bytes (the upper bound the
        // kernel header documents).
        unsafe { launch(init, grid, BLOCK, 0, backend.stream(), &mut args)? };
        Ok(Self {
            tiles: tiles as u32,
            ptr,
            bytes,
            _memory: Some(memory),
        })
    }

    /// The acc_u64 state of [`TileState::new`] over `PRIMITIVES_SCAN`, and an error word
    /// with `N` counters, in one allocation set by one launch
    /// (`scan_state_init_words_acc_u64`): the one-pass strings kernels' state, which
    /// otherwise took a second allocation and an upload of its own (the launch runs
    /// also for a single tile, which has no tile state).
    pub(crate) fn with_error_word<const N: usize>(
        backend: &CudaBackend,
        n: u64,
        tile: u64,
    ) -> Result<(Self, ErrorWordWith<N>)> {
        // The words first, the state after them at a 256-byte boundary.
        const WORDS_BYTES: u64 = 256;
        const { assert!(8 * (N + 1) <= WORDS_BYTES as usize) };
        let tiles = n.div_ceil(tile);
        let bytes = if tiles > 1 { state_bytes(tiles) } else { 0 };
        let memory = backend.alloc::<u8>((WORDS_BYTES + bytes) as usize)?;
        let words_ptr = memory.device_ptr();
        let ptr = if tiles > 1 {
            words_ptr + WORDS_BYTES
        } else {
            0
        };
        let init = backend.function(&PRIMITIVES_SCAN, "scan_state_init_words_acc_u64")?;
        let (count, counters) = (tiles as i32, N as i32);
        let mut args = params![ptr, bytes, count, words_ptr, counters];
        let grid = tiles.div_ceil(u64::from(BLOCK)).max(1) as u32;
        // SAFETY: `scan_state_init_words_acc_u64(void*, uint64_t, int, unsigned long
        // long*, int)` writes the status words of `tiles` tiles plus 32 padding entries
        // inside `bytes` bytes from `ptr` (only when tiles > 1), and N + 1 words from
        // `words_ptr` (8 (N + 1) <= WORDS_BYTES); the grid has at least one block.
        unsafe { launch(init, grid, BLOCK, 0, backend.stream(), &mut args)? };
        let words = ErrorWordWith::set_by_kernel(memory.slice(0, 8 * (N + 1))?.into_typed::<u64>());
        Ok((
            Self {
                tiles: tiles as u32,
                ptr,
                bytes,
                _memory: Some(memory),
            },
            words,
        ))
    }
}

/// The tile-state accumulator name of the sum scan of T.
fn sum_acc<T: Native>() -> &'static str {
    match T::NAME {
        "i8" | "i16" | "i32" => "acc_i64",
        "u8" | "u16" | "u32" => "acc_u64",
        "i64" => "acc_i128",
        "u64" => "acc_u128",
        other => other,
    }
}

/// The kind's name in the scan_sum kernels' names.
fn kind_name(kind: ScanKind) -> &'static str {
    match kind {
        ScanKind::Inclusive => "inclusive",
        ScanKind::Exclusive => "exclusive",
    }
}

fn exclusive(kind: ScanKind) -> u32 {
    u32::from(kind == ScanKind::Exclusive)
}

pub(crate) fn scan_sum<T: Native>(
    backend: &CudaBackend,
    col: &PrimitiveColumn<T, Device>,
    kind: ScanKind,
) -> Result<PrimitiveColumn<T::Sum, Device>> {
    let n = col.len() as u64;
    let out = backend.alloc::<T::Sum>(col.len())?;
    if n > 0 {
        let dense = scan_sum_dense::<T>(col.validity().is_some());
        let state = TileState::new(
            backend,
            &PRIMITIVES_SCAN,
            sum_acc::<T>(),
            n,
            scan_sum_tile::<T>(dense),
        )?;
        // Only sums of 64-bit integers (accumulated in 128 bits) can overflow their
        // output type; the others need no error word (null: the kernel never reports),
        // and so no read back and no wait.
        let word = if can_overflow::<T>() {
            Some(ErrorWord::new(backend)?)
        } else {
            None
        };
        let name = format!(
            "scan_sum_{}_{}_{}",
            kind_name(kind),
            if dense { "dense" } else { "nullable" },
            T::NAME
        );
        let function = backend.function(&PRIMITIVES_SCAN, &name)?;
        let (values, (bits, bit_offset)) =
            (col.values().device_ptr(), validity_args(col.validity()));
        let (out_ptr, state_ptr, word_ptr) = (
            out.device_ptr(),
            state.ptr,
            word.as_ref().map_or(0, ErrorWord::device_ptr),
        );
        let mut args = params![
            values,
            bits,
            bit_offset,
            n,
            out_ptr,
            state_ptr,
            state.bytes,
            word_ptr
        ];
        // SAFETY: `scan_sum_<kind>_<validity>_<T>(const T*, const uint8_t*, uint64_t,
        // uint64_t, void*, void*, uint64_t, uint64_t*)`: one block per tile (of the size
        // scan_sum_tile gives for this kernel) reads n values (the dense kernel no
        // validity bit), writes n sums of T::Sum, uses the initialized tile state of
        // `tiles` tiles.
        unsafe {
            launch(
                function,
                state.tiles,
                SCAN_THREADS,
                0,
                backend.stream(),
                &mut args,
            )?
        };
        if let Some((row, _)) = word.map(|w| w.read(backend)).transpose()?.flatten() {
            return Err(Error::Overflow {
                op: "scan_sum",
                message: format!(
                    "the prefix sum at row {row} does not fit {}",
                    <T::Sum as Native>::NAME
                ),
            });
        }
    }
    PrimitiveColumn::try_new(out, col.validity().cloned())
}

pub(crate) fn scan_extremum<T: Native>(
    backend: &CudaBackend,
    col: &PrimitiveColumn<T, Device>,
    kind: ScanKind,
    is_max: bool,
) -> Result<PrimitiveColumn<T, Device>> {
    let n = col.len() as u64;
    let out = backend.alloc::<T>(col.len())?;
    if n > 0 {
        // Floats scan (value, seen) pairs with 12 values per thread (scan.cu).
        let (tile, acc) = if T::IS_FLOAT {
            (SEEN_TILE, format!("seen_{}", T::NAME))
        } else {
            (scan_tile::<T>(), T::NAME.to_string())
        };
        let state = TileState::new(backend, &PRIMITIVES_SCAN, &acc, n, tile)?;
        let which = if is_max { "max" } else { "min" };
        let function = backend.function(&PRIMITIVES_SCAN, &format!("scan_{which}_{}", T::NAME))?;
        let identity = if is_max {
            T::min_value()
        } else {
            T::max_value()
        };
        let (values, (bits, bit_offset)) =
            (col.values().device_ptr(), validity_args(col.validity()));
        let (out_ptr, state_ptr, excl) = (out.device_ptr(), state.ptr, exclusive(kind));
        let mut args = params![
            values,
            bits,
            bit_offset,
            n,
            out_ptr,
            state_ptr,
            state.bytes,
            excl,
            identity
        ];
        // SAFETY: `scan_<which>_<T>(const T*, const uint8_t*, uint64_t, uint64_t, T*, void*,
        // uint64_t, uint32_t, T)`: `identity` is a T by value; writes n values.
        unsafe {
            launch(
                function,
                state.tiles,
                SCAN_THREADS,
                0,
                backend.stream(),
                &mut args,
            )?
        };
    }
    PrimitiveColumn::try_new(out, col.validity().cloned())
}

pub(crate) fn scan_sum_f64<T: Native>(
    backend: &CudaBackend,
    col: &PrimitiveColumn<T, Device>,
    transform: Transform,
    kind: ScanKind,
) -> Result<PrimitiveColumn<f64, Device>> {
    let n = col.len() as u64;
    let out = backend.alloc::<f64>(col.len())?;
    if n > 0 {
        let state = TileState::new(backend, &PRIMITIVES_SCAN, "f64", n, scan_tile::<T>())?;
        let function = backend.function(&PRIMITIVES_SCAN, &format!("scan_sum_f64_{}", T::NAME))?;
        let (values, (bits, bit_offset)) =
            (col.values().device_ptr(), validity_args(col.validity()));
        let (out_ptr, state_ptr, excl, code) = (
            out.device_ptr(),
            state.ptr,
            exclusive(kind),
            transform.code(),
        );
        let mut args = params![
            values,
            bits,
            bit_offset,
            n,
            out_ptr,
            state_ptr,
            state.bytes,
            excl,
            code
        ];
        // SAFETY: `scan_sum_f64_<T>(const T*, const uint8_t*, uint64_t, uint64_t, double*,
        // void*, uint64_t, uint32_t, uint32_t)` writes n doubles.
        unsafe {
            launch(
                function,
                state.tiles,
                SCAN_THREADS,
                0,
                backend.stream(),
                &mut args,
            )?
        };
    }
    PrimitiveColumn::try_new(out, col.validity().cloned())
}

pub(crate) fn scan_count_if<T: Native>(
    backend: &CudaBackend,
    col: &PrimitiveColumn<T, Device>,
    predicate: Predicate<T>,
    kind: ScanKind,
) -> Result<PrimitiveColumn<i64, Device>> {
    let n = col.len() as u64;
    let out = backend.alloc::<i64>(col.len())?;
    if n > 0 {
        let state = TileState::new(backend, &PRIMITIVES_SCAN, "acc_i64", n, scan_tile::<T>())?;
        let function = backend.function(&PRIMITIVES_SCAN, &format!("scan_count_if_{}", T::NAME))?;
        let (values, (bits, bit_offset)) =
            (col.values().device_ptr(), validity_args(col.validity()));
        let (out_ptr, state_ptr, excl) = (out.device_ptr(), state.ptr, exclusive(kind));
        let (cmp, value) = (predicate.comparison.code(), predicate.value);
        let mut args = params![
            values,
            bits,
            bit_offset,
            n,
            out_ptr,
            state_ptr,
            state.bytes,
            excl,
            cmp,
            value
        ];
        // SAFETY: `scan_count_if_<T>(const T*, const uint8_t*, uint64_t, uint64_t, long
        // long*, void*, uint64_t, uint32_t, uint32_t, T)` writes n counts.
        unsafe {
            launch(
                function,
                state.tiles,
                SCAN_THREADS,
                0,
                backend.stream(),
                &mut args,
            )?
        };
    }
    PrimitiveColumn::try_new(out, None)
}

pub(crate) fn sizes_to_offsets(
    backend: &CudaBackend,
    sizes: &PrimitiveColumn<i32, Device>,
    width: OffsetWidth,
) -> Result<(Offsets<Device>, i64)> {
    let n = sizes.len() as u64;
    if n == 0 {
        return Ok((zero_offsets(backend, width == OffsetWidth::I64)?, 0));
    }
    let wide = width == OffsetWidth::I64;
    match offsets_pass(backend, sizes, wide)? {
        Ok(result) => Ok(result),
        Err(_overflow_row) if width == OffsetWidth::Auto => {
            match offsets_pass(backend, sizes, true)? {
                Ok(result) => Ok(result),
                Err(row) => Err(offsets_overflow(row)),
            }
        }
        Err(row) => Err(offsets_overflow(row)),
    }
}

fn offsets_overflow(row: u64) -> Error {
    Error::Overflow {
        op: "sizes_to_offsets",
        message: format!("the offset at index {row} exceeds i32::MAX; ask for i64 offsets"),
    }
}

/// The launched scan of [`launch_offsets`]: the offsets, and the error word and total
/// it writes.
struct OffsetsLaunch {
    out: Offsets<Device>,
    word: ErrorWord,
    total: DeviceBuffer<i64>,
}

/// Queue `sizes_to_offsets_<i32|i64>` over `n > 0` sizes (nothing is read back).
fn launch_offsets(
    backend: &CudaBackend,
    sizes: &PrimitiveColumn<i32, Device>,
    wide: bool,
) -> Result<OffsetsLaunch> {
    let n = sizes.len() as u64;
    let state = TileState::new(backend, &PRIMITIVES_SCAN, "acc_i64", n, SIZES_TILE)?;
    let word = ErrorWord::new(backend)?;
    let total = backend.alloc::<i64>(1)?;
    let (out, out_ptr) = if wide {
        let b = backend.alloc::<i64>(sizes.len() + 1)?;
        let p = b.device_ptr();
        (Offsets::I64(b), p)
    } else {
        let b = backend.alloc::<i32>(sizes.len() + 1)?;
        let p = b.device_ptr();
        (Offsets::I32(b), p)
    };
    let function = backend.function(
        &PRIMITIVES_SCAN,
        if wide {
            "sizes_to_offsets_i64"
        } else {
            "sizes_to_offsets_i32"
        },
    )?;
    let (values, (bits, bit_offset)) =
        (sizes.values().device_ptr(), validity_args(sizes.validity()));
    let (state_ptr, word_ptr, total_ptr) = (state.ptr, word.device_ptr(), total.device_ptr());
    let mut args = params![
        values,
        bits,
        bit_offset,
        n,
        out_ptr,
        state_ptr,
        state.bytes,
        word_ptr,
        total_ptr
    ];
    // SAFETY: `sizes_to_offsets_<O>(const int32_t*, const uint8_t*, uint64_t, uint64_t, O*,
    // void*, uint64_t, uint64_t*, long long*)` reads n sizes, writes n + 1 offsets and
    // one total.
    unsafe {
        launch(
            function,
            state.tiles,
            SCAN_THREADS,
            0,
            backend.stream(),
            &mut args,
        )?
    };
    Ok(OffsetsLaunch { out, word, total })
}

/// The offsets of no rows: one 0 (i64 when `wide`).
fn zero_offsets(backend: &CudaBackend, wide: bool) -> Result<Offsets<Device>> {
    Ok(if wide {
        Offsets::I64(backend.upload_slice(&[0i64])?)
    } else {
        Offsets::I32(backend.upload_slice(&[0i32])?)
    })
}

/// Offsets from sizes that the caller knows are non-negative and whose total fits the
/// width (`wide`: i64), queued without reading anything back: the two-pass strings
/// helper, which counted the total itself, saves the scan's round trip.
pub(crate) fn sizes_to_offsets_queued(
    backend: &CudaBackend,
    sizes: &PrimitiveColumn<i32, Device>,
    wide: bool,
) -> Result<Offsets<Device>> {
    if sizes.is_empty() {
        return zero_offsets(backend, wide);
    }
    Ok(launch_offsets(backend, sizes, wide)?.out)
}

/// One pass of `sizes_to_offsets_<i32|i64>`: `Ok(Err(row))` when an i32 offset overflows
/// (the caller may retry with i64), `Err` for negative sizes and device errors.
fn offsets_pass(
    backend: &CudaBackend,
    sizes: &PrimitiveColumn<i32, Device>,
    wide: bool,
) -> Result<std::result::Result<(Offsets<Device>, i64), u64>> {
    let OffsetsLaunch { out, word, total } = launch_offsets(backend, sizes, wide)?;
    if let Some((row, code)) = word.read(backend)? {
        // Overflow rows come offset by 2^54 (negative sizes win; scan.cu).
        let row = if code == 2 {
            row.saturating_sub(1 << 54)
        } else {
            row
        };
        if code == 1 {
            let size = backend.read_bytes(sizes.values(), row as usize * 4, 4)?;
            let size = value_from_bytes::<i32>(&size).unwrap_or(0);
            return Err(Error::NegativeSize {
                index: row as usize,
                size: i64::from(size),
            });
        }
        return Ok(Err(row));
    }
    let total = value_from_bytes::<i64>(&backend.read_bytes(&total, 0, 8)?).unwrap_or(0);
    Ok(Ok((out, total)))
}
