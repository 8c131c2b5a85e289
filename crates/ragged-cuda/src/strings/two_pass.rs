//! The two-pass helper for variable-length strings outputs (`kernels/common/two_pass.cuh`)
//! and the device-side argument structs its functors read.
//!
//! An op passes a functor struct by value (its `#[repr(C)]` mirror here), and the
//! helper runs `<name>_sizes` (sizes, validity, the null count and the sizes' total),
//! reads the error word and both counts back in one round trip, queues the scan of the
//! sizes into offsets (the width chosen from the total, or as asked) and runs
//! `<name>_fill_<O>`; nothing else waits for the device, so an op costs one round trip.
//!
//! An op that can bound its output's bytes before the launch passes the bound, and
//! then runs in one pass instead (`kernels/common/one_pass.cuh`): `<name>_one_pass_<O>`
//! sizes, scans (decoupled look-back across tiles) and writes in one kernel, into
//! chars allocated to the bound, and the same single round trip reads the counts. A
//! bound above [`ONE_PASS_MAX_BOUND`] (memory that would be allocated and not used)
//! keeps the two passes, as does a total above the bound (a wrong bound).

use ragged_core::ops::{AnyStringColumn, OffsetWidth, Offsets, StringArg};
use ragged_core::{BooleanColumn, Error, OffsetSize, PrimitiveColumn, Result, StringColumn};

use crate::common::bits::{ballot_grid, validity_or_none};
use crate::compile::ModuleSource;
use crate::error_word::ErrorWordWith;
use crate::launch::{launch, params, BLOCK};
use crate::memory::{Device, DeviceBitmap, DeviceBuffer};
use crate::primitives::scan::{sizes_to_offsets_queued, TileState};
use crate::primitives::validity_args;
use crate::CudaBackend;

/// `ragged::StringInput` of `kernels/common/strings.cuh`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct StringInput {
    offsets: u64,
    chars: u64,
    bits: u64,
    bit_offset: u64,
    wide: u32,
    scalar: u32,
}

impl StringInput {
    /// The input of rows `first..` of this one, a column's (not a scalar's): its
    /// offsets and validity bits advanced by `first` rows, over the same chars.
    pub(crate) fn skip_rows(self, first: u64) -> Self {
        debug_assert_eq!(self.scalar, 0, "a scalar has no rows to skip");
        let width = if self.wide != 0 { 8 } else { 4 };
        Self {
            offsets: self.offsets + first * width,
            bit_offset: self.bit_offset + first,
            ..self
        }
    }
}

/// `ragged::BoolInput` of `kernels/common/strings.cuh`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct BoolInput {
    values: u64,
    value_offset: u64,
    bits: u64,
    bit_offset: u64,
}

/// Device buffers uploaded for scalar arguments, kept alive until the kernels that
/// read them have run (dropping frees them in stream order).
#[derive(Default)]
pub(crate) struct Uploads(Vec<DeviceBuffer<u8>>);

impl Uploads {
    /// The kernel's view of `arg`, uploading a scalar as a one-row column (a null
    /// scalar as a one-row column whose row is null).
    pub(crate) fn string(
        &mut self,
        backend: &CudaBackend,
        arg: StringArg<'_, Device>,
    ) -> Result<StringInput> {
        Ok(match arg {
            StringArg::Utf8(c) => column_input(c),
            StringArg::LargeUtf8(c) => column_input(c),
            StringArg::Scalar(value) => {
                let bytes = value.unwrap_or("").as_bytes();
                let len = i64::try_from(bytes.len()).unwrap_or(i64::MAX);
                let offsets = backend.upload_slice(&[0i64, len])?;
                let chars = backend.upload_slice(bytes)?;
                let bits = match value {
                    Some(_) => None,
                    None => Some(backend.upload_slice(&[0u8])?),
                };
                let input = StringInput {
                    offsets: offsets.device_ptr(),
                    chars: chars.device_ptr(),
                    bits: bits.as_ref().map_or(0, DeviceBuffer::device_ptr),
                    bit_offset: 0,
                    wide: 1,
                    scalar: 1,
                };
                self.0.push(offsets.into_bytes());
                self.0.push(chars);
                self.0.extend(bits);
                input
            }
        })
    }

    /// Keep `buffer` alive with the uploads.
    pub(crate) fn keep(&mut self, buffer: DeviceBuffer<u8>) {
        self.0.push(buffer);
    }
}

/// The kernel's view of a strings column.
pub(crate) fn column_input<O: OffsetSize>(c: &StringColumn<O, Device>) -> StringInput {
    let (bits, bit_offset) = validity_args(c.validity());
    StringInput {
        offsets: c.offsets().device_ptr(),
        chars: c.values().device_ptr(),
        bits,
        bit_offset,
        wide: u32::from(std::mem::size_of::<O>() == 8),
        scalar: 0,
    }
}

/// The kernel's view of a boolean column.
pub(crate) fn bool_input(col: &BooleanColumn<Device>) -> BoolInput {
    let (bits, bit_offset) = validity_args(col.validity());
    BoolInput {
        values: col.values().bits().device_ptr(),
        value_offset: col.values().bit_offset() as u64,
        bits,
        bit_offset,
    }
}

/// The bytes `arg` contributes to `rows` rows at most: a column's chars buffer (its
/// rows' bytes, or more when it is a slice), a scalar's bytes once per row; `None` on
/// overflow.
pub(crate) fn arg_bytes(arg: StringArg<'_, Device>, rows: usize) -> Option<u64> {
    match arg {
        StringArg::Utf8(c) => Some(c.values().len() as u64),
        StringArg::LargeUtf8(c) => Some(c.values().len() as u64),
        StringArg::Scalar(value) => (value.map_or(0, str::len) as u64).checked_mul(rows as u64),
    }
}

/// The largest output bound run in one pass: chars are allocated to the bound, so a
/// larger one would hold memory the output may not use; it also keeps every one-pass
/// output within i32 offsets.
pub(crate) const ONE_PASS_MAX_BOUND: u64 = i32::MAX as u64;

/// Rows per tile of the one-pass kernels (ONE_PASS_ROWS of kernels/common/one_pass.cuh).
const ONE_PASS_ROWS: u64 = 512;

/// Run the string transform `<name>` of `module` over `rows` rows with `functor` (the
/// `#[repr(C)]` mirror of the kernel's functor struct, whose pointers stay valid until
/// this returns): in one pass when `bound` (the most bytes the output can have) is
/// known and at most [`ONE_PASS_MAX_BOUND`], else in two.
#[allow(clippy::too_many_arguments)]
pub(crate) fn transform<F: Copy>(
    backend: &CudaBackend,
    module: &ModuleSource,
    name: &str,
    op: &'static str,
    functor: F,
    rows: usize,
    width: OffsetWidth,
    bound: Option<u64>,
) -> Result<AnyStringColumn<Device>> {
    transform_with_one_pass(backend, module, name, name, op, functor, rows, width, bound)
}

/// `transform` whose one pass runs `<one_pass_name>_one_pass_<O>` (a kernel with
/// `<name>_one_pass_<O>`'s parameters and tiles, specialized for the inputs at hand),
/// its two passes `<name>`'s.
#[allow(clippy::too_many_arguments)]
pub(crate) fn transform_with_one_pass<F: Copy>(
    backend: &CudaBackend,
    module: &ModuleSource,
    name: &str,
    one_pass_name: &str,
    op: &'static str,
    functor: F,
    rows: usize,
    width: OffsetWidth,
    bound: Option<u64>,
) -> Result<AnyStringColumn<Device>> {
    if let Some(bound) = bound.filter(|&b| b <= ONE_PASS_MAX_BOUND && rows > 0) {
        if let Some(out) = one_pass(
            backend,
            module,
            one_pass_name,
            op,
            functor,
            rows,
            width,
            bound,
        )? {
            return Ok(out);
        }
    }
    two_pass(backend, module, name, op, functor, rows, width)
}

/// The one-pass run of `transform` (rows > 0, bound <= ONE_PASS_MAX_BOUND); `None`
/// when the output came out larger than `bound`.
#[allow(clippy::too_many_arguments)]
fn one_pass<F: Copy>(
    backend: &CudaBackend,
    module: &ModuleSource,
    name: &str,
    op: &'static str,
    functor: F,
    rows: usize,
    width: OffsetWidth,
    bound: u64,
) -> Result<Option<AnyStringColumn<Device>>> {
    let n = rows as u64;
    // The bound fits i32 offsets, so Auto and I32 both get them.
    let wide = width == OffsetWidth::I64;
    let words = backend.alloc::<u32>(rows.div_ceil(32))?;
    let chars = backend.alloc::<u8>(bound as usize)?;
    let offsets = alloc_offsets(backend, rows + 1, wide)?;
    let (tiles, state) = TileState::with_error_word::<2>(backend, n, ONE_PASS_ROWS)?;
    let suffix = if wide { "i64" } else { "i32" };
    let function = backend.function(module, &format!("{name}_one_pass_{suffix}"))?;
    let (offsets_ptr, chars_ptr, words_ptr, counts_ptr, word_ptr) = (
        offsets.device_ptr(),
        chars.device_ptr(),
        words.device_ptr(),
        state.values_ptr(),
        state.device_ptr(),
    );
    let (state_ptr, state_bytes) = (tiles.ptr, tiles.bytes);
    let f = functor;
    let mut args = params![
        f,
        n,
        bound,
        offsets_ptr,
        chars_ptr,
        words_ptr,
        counts_ptr,
        word_ptr,
        state_ptr,
        state_bytes
    ];
    // SAFETY: `<name>_one_pass_<O>(F, uint64_t rows, uint64_t capacity, O*, uint8_t*,
    // uint32_t*, unsigned long long*, uint64_t*, void*, uint64_t)` with F by value (its
    // layout mirrored by the caller's repr(C) struct, whose device pointers are alive);
    // one block per tile of ONE_PASS_ROWS rows (the tile state's count) writes rows + 1
    // offsets and ceil(rows / 32) words (allocated above), chars only below `capacity`
    // (= the `bound` bytes allocated), the two counters after the error word
    // (ErrorWordWith<2>), and the tile state initialized for that many tiles.
    unsafe {
        launch(
            function,
            tiles.tiles,
            ONE_PASS_THREADS,
            0,
            backend.stream(),
            &mut args,
        )?
    };
    let [nulls, total] = read_counts(backend, &state, op)?;
    if total > bound {
        return Ok(None);
    }
    let validity = validity_or_none(words, rows, nulls as usize);
    let chars = chars.slice(0, total as usize)?;
    // SAFETY: the offsets are the scan of the rows' sizes (0, non-decreasing, ending at
    // the chars' length) in the width allocated; every row holds the bytes the functor
    // wrote, whole UTF-8 characters taken from valid rows or ASCII.
    Ok(Some(unsafe { any_strings(offsets, chars, validity, wide) }))
}

/// `len` offsets of i64 when `wide`, else of i32, as bytes (for [`any_strings`]).
pub(crate) fn alloc_offsets(
    backend: &CudaBackend,
    len: usize,
    wide: bool,
) -> Result<DeviceBuffer<u8>> {
    Ok(if wide {
        backend.alloc::<i64>(len)?.into_bytes()
    } else {
        backend.alloc::<i32>(len)?.into_bytes()
    })
}

/// The strings column of `offsets` (i64 values when `wide`, else i32), `chars` and
/// `validity`.
///
/// # Safety
/// The offsets hold values of that width, start at 0, do not decrease and end at the
/// chars' length, and every row's bytes are valid UTF-8.
pub(crate) unsafe fn any_strings(
    offsets: DeviceBuffer<u8>,
    chars: DeviceBuffer<u8>,
    validity: Option<DeviceBitmap>,
    wide: bool,
) -> AnyStringColumn<Device> {
    if wide {
        // SAFETY: the caller's contract.
        AnyStringColumn::LargeUtf8(unsafe {
            StringColumn::new_unchecked(offsets.into_typed::<i64>(), chars, validity)
        })
    } else {
        // SAFETY: the caller's contract.
        AnyStringColumn::Utf8(unsafe {
            StringColumn::new_unchecked(offsets.into_typed::<i32>(), chars, validity)
        })
    }
}

/// The null count and the output's bytes a sizes pass counted, or the error of the
/// lowest row it reported as too long.
fn read_counts(
    backend: &CudaBackend,
    state: &ErrorWordWith<2>,
    op: &'static str,
) -> Result<[u64; 2]> {
    let (error, counts) = state.read(backend)?;
    match error {
        Some((row, _)) => Err(Error::row_too_long(op, row as usize)),
        None => Ok(counts),
    }
}

/// `transform` for an op whose output keeps the input's offset type `O` (its bound
/// fits that type: at most the input's bytes).
#[allow(clippy::too_many_arguments)]
pub(crate) fn transform_as<O: OffsetSize, F: Copy>(
    backend: &CudaBackend,
    module: &ModuleSource,
    name: &str,
    op: &'static str,
    functor: F,
    rows: usize,
    bound: Option<u64>,
) -> Result<StringColumn<O, Device>> {
    let out = transform(backend, module, name, op, functor, rows, O::WIDTH, bound)?;
    O::from_any_strings(out).ok_or_else(|| Error::invalid_argument(op, "offset width"))
}

/// Threads per block of the one-pass kernels (ONE_PASS_THREADS).
const ONE_PASS_THREADS: u32 = 256;

/// Run the two-pass transform `<name>` of `module` over `rows` rows with `functor` (the
/// `#[repr(C)]` mirror of the kernel's functor struct, whose pointers stay valid until
/// this returns).
pub(crate) fn two_pass<F: Copy>(
    backend: &CudaBackend,
    module: &ModuleSource,
    name: &str,
    op: &'static str,
    functor: F,
    rows: usize,
    width: OffsetWidth,
) -> Result<AnyStringColumn<Device>> {
    let n = rows as u64;
    let sizes = backend.alloc::<i32>(rows)?;
    let words = backend.alloc::<u32>(rows.div_ceil(32))?;
    let (mut nulls, mut total) = (0usize, 0u64);
    if rows > 0 {
        // The error word, the null count and the output's bytes: read together after
        // the sizes pass (the only round trip of the op).
        let state = ErrorWordWith::<2>::new(backend)?;
        let function = backend.function(module, &format!("{name}_sizes"))?;
        let (sizes_ptr, words_ptr, word_ptr, counts_ptr) = (
            sizes.device_ptr(),
            words.device_ptr(),
            state.device_ptr(),
            state.values_ptr(),
        );
        let f = functor;
        let mut args = params![f, n, sizes_ptr, words_ptr, counts_ptr, word_ptr];
        // SAFETY: `<name>_sizes(F, uint64_t, int32_t*, uint32_t*, unsigned long long*,
        // uint64_t*)` with F passed by value (its layout mirrored by the caller's
        // repr(C) struct, whose device pointers are alive); writes `rows` sizes and
        // ceil(rows / 32) words (allocated above), adds to the two zeroed counters after
        // the error word (ErrorWordWith<2>), reports through the word.
        unsafe {
            launch(
                function,
                ballot_grid(backend, n),
                BLOCK,
                0,
                backend.stream(),
                &mut args,
            )?
        };
        let [null_count, bytes] = read_counts(backend, &state, op)?;
        (nulls, total) = (null_count as usize, bytes);
    }
    let validity = validity_or_none(words, rows, nulls);
    let wide = match width {
        OffsetWidth::I64 => true,
        OffsetWidth::Auto => total > i32::MAX as u64,
        OffsetWidth::I32 if total > i32::MAX as u64 => {
            return Err(Error::Overflow {
                op,
                message: format!(
                    "the output's {total} bytes do not fit i32 offsets; ask for i64 offsets"
                ),
            })
        }
        OffsetWidth::I32 => false,
    };
    // The sizes are non-negative and their total fits the width (checked above).
    let offsets = sizes_to_offsets_queued(backend, &PrimitiveColumn::try_new(sizes, None)?, wide)?;
    let chars = backend.alloc::<u8>(total as usize)?;
    let fill = |offsets_ptr: u64, suffix: &str| -> Result<()> {
        if rows == 0 || total == 0 {
            return Ok(());
        }
        let function = backend.function(module, &format!("{name}_fill_{suffix}"))?;
        let chars_ptr = chars.device_ptr();
        let f = functor;
        let mut args = params![f, n, offsets_ptr, chars_ptr];
        // SAFETY: `<name>_fill_<O>(F, uint64_t, const O*, uint8_t*)` reads rows + 1
        // offsets (the scan's output) and writes each valid row's bytes at its offset,
        // as many as the sizes pass counted, so inside the `total` bytes allocated.
        unsafe {
            launch(
                function,
                ballot_grid(backend, n),
                BLOCK,
                0,
                backend.stream(),
                &mut args,
            )
        }
    };
    Ok(match offsets {
        Offsets::I32(offsets) => {
            fill(offsets.device_ptr(), "i32")?;
            // SAFETY: the offsets are the scan of the sizes (0, non-decreasing, ending at
            // the chars' length); every row holds the bytes the functor wrote, which are
            // whole UTF-8 characters taken from valid rows or ASCII.
            AnyStringColumn::Utf8(unsafe { StringColumn::new_unchecked(offsets, chars, validity) })
        }
        Offsets::I64(offsets) => {
            fill(offsets.device_ptr(), "i64")?;
            // SAFETY: as above.
            AnyStringColumn::LargeUtf8(unsafe {
                StringColumn::new_unchecked(offsets, chars, validity)
            })
        }
    })
}
