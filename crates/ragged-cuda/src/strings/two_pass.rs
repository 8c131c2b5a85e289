//! The two-pass helper for variable-length strings outputs (`kernels/common/two_pass.cuh`)
//! and the device-side argument structs its functors read.
//!
//! An op passes a functor struct by value (its `#[repr(C)]` mirror here), and the
//! helper runs `<name>_sizes` (sizes, validity, the null count and the sizes' total),
//! reads the error word and both counts back in one round trip, queues the scan of the
//! sizes into offsets (the width chosen from the total, or as asked) and runs
//! `<name>_fill_<O>`; nothing else waits for the device, so an op costs one round trip.

use ragged_core::ops::{AnyStringColumn, OffsetWidth, Offsets, StringArg};
use ragged_core::{BooleanColumn, Error, OffsetSize, PrimitiveColumn, Result, StringColumn};

use crate::common::bits::{ballot_grid, validity_or_none};
use crate::compile::ModuleSource;
use crate::error_word::ErrorWordWith;
use crate::launch::{launch, params, BLOCK};
use crate::memory::{Device, DeviceBuffer};
use crate::primitives::scan::sizes_to_offsets_queued;
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
        let (error, [null_count, bytes]) = state.read(backend)?;
        if let Some((row, _)) = error {
            return Err(Error::row_too_long(op, row as usize));
        }
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
