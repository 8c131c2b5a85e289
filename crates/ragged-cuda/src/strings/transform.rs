//! The strings ops with variable-length outputs on the GPU (`copy_if_else`,
//! `concatenate`, `redact`, `upper`/`lower`, `strip`, `pad`, `repeat`, `replace`,
//! `join`, `append`): one functor each in `kernels/strings/transform.cu`, run in one
//! pass with the bound each op computes here on its output's bytes (in two when the
//! bound is too large; `upper`/`lower` first try one kernel that maps the chars
//! byte for byte and shares the input's offsets); and user transforms (`CudaBackend::transform_strings`), a
//! device function compiled at run time into the two-pass helper.

use ragged_core::ops::{case_table, AnyStringColumn, ConcatNulls, OffsetWidth, Side, StringArg};
use ragged_core::{BooleanColumn, Error, OffsetSize, Result, StringColumn, ValidityBitmap};

use super::two_pass::{
    alloc_offsets, any_strings, arg_bytes, bool_input, column_input, transform, transform_as,
    transform_with_one_pass, two_pass, BoolInput, StringInput, Uploads, ONE_PASS_MAX_BOUND,
};
use super::{launch_tiles, tile_plan};
use crate::compile::{user_transform_module, STRINGS_TRANSFORM};
use crate::launch::{grid_for, launch, params, BLOCK};
use crate::memory::{Device, DeviceBuffer};
use crate::CudaBackend;

/// Run the functor `entry` of `kernels/strings/transform.cu` (`op` names the API op in
/// errors), in one pass when `bound` bounds the output's bytes.
fn builtin<F: Copy>(
    backend: &CudaBackend,
    entry: &str,
    op: &'static str,
    functor: F,
    rows: usize,
    width: OffsetWidth,
    bound: Option<u64>,
) -> Result<AnyStringColumn<Device>> {
    transform(
        backend,
        &STRINGS_TRANSFORM,
        entry,
        op,
        functor,
        rows,
        width,
        bound,
    )
}

/// The bytes of a column's chars buffer (at least its rows' bytes).
fn col_bytes<O: OffsetSize>(col: &StringColumn<O, Device>) -> u64 {
    col.values().len() as u64
}

/// `bytes` plus `per_row` bytes for each of `rows` rows; `None` on overflow.
fn plus_per_row(bytes: u64, per_row: u64, rows: usize) -> Option<u64> {
    per_row.checked_mul(rows as u64)?.checked_add(bytes)
}

#[repr(C)]
#[derive(Clone, Copy)]
struct CopyIfElse {
    mask: BoolInput,
    left: StringInput,
    right: StringInput,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct Concatenate {
    inputs: u64,
    count: u32,
    nulls: u32,
    separator: StringInput,
    replacement: StringInput,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct Redact {
    names: StringInput,
    visibility: StringInput,
}

pub(crate) fn copy_if_else(
    backend: &CudaBackend,
    mask: &BooleanColumn<Device>,
    left: StringArg<'_, Device>,
    right: StringArg<'_, Device>,
    width: OffsetWidth,
) -> Result<AnyStringColumn<Device>> {
    let rows = mask.len();
    left.check_rows("copy_if_else", "the left column", rows)?;
    right.check_rows("copy_if_else", "the right column", rows)?;
    // Each row is one side's row.
    let bound = arg_bytes(left, rows)
        .zip(arg_bytes(right, rows))
        .and_then(|(l, r)| l.checked_add(r));
    let mut uploads = Uploads::default();
    let functor = CopyIfElse {
        mask: bool_input(mask),
        left: uploads.string(backend, left)?,
        right: uploads.string(backend, right)?,
    };
    builtin(
        backend,
        "copy_if_else",
        "copy_if_else",
        functor,
        rows,
        width,
        bound,
    )
}

pub(crate) fn concatenate(
    backend: &CudaBackend,
    columns: &[StringArg<'_, Device>],
    separator: &str,
    nulls: ConcatNulls<'_>,
    width: OffsetWidth,
) -> Result<AnyStringColumn<Device>> {
    let rows = StringArg::common_rows("concatenate", columns)?.ok_or_else(|| {
        Error::invalid_argument("concatenate", "at least one input must be a column")
    })?;
    let mut uploads = Uploads::default();
    let inputs = input_table(backend, &mut uploads, columns)?;
    let (code, replacement) = match nulls {
        ConcatNulls::Null => (0, None),
        ConcatNulls::Skip => (1, None),
        ConcatNulls::Replace(r) => (2, Some(r)),
    };
    // Every input's bytes, or the replacement in their place, and a separator between
    // consecutive inputs.
    let per_row = (separator.len() + replacement.map_or(0, str::len)) as u64 * columns.len() as u64;
    let bound = columns
        .iter()
        .try_fold(0u64, |sum, &arg| sum.checked_add(arg_bytes(arg, rows)?))
        .and_then(|bytes| plus_per_row(bytes, per_row, rows));
    let functor = Concatenate {
        inputs,
        count: columns.len() as u32,
        nulls: code,
        separator: uploads.string(backend, StringArg::Scalar(Some(separator)))?,
        replacement: uploads.string(backend, StringArg::Scalar(Some(replacement.unwrap_or(""))))?,
    };
    builtin(
        backend,
        "concatenate",
        "concatenate",
        functor,
        rows,
        width,
        bound,
    )
}

/// The kernel's views of `args`, uploaded as one device array kept with `uploads`;
/// returns its device pointer.
fn input_table(
    backend: &CudaBackend,
    uploads: &mut Uploads,
    args: &[StringArg<'_, Device>],
) -> Result<u64> {
    let inputs = args
        .iter()
        .map(|&arg| uploads.string(backend, arg))
        .collect::<Result<Vec<_>>>()?;
    // SAFETY: StringInput is repr(C) plain data (integers); viewing it as bytes is sound.
    let bytes = unsafe {
        std::slice::from_raw_parts(
            inputs.as_ptr().cast::<u8>(),
            std::mem::size_of_val(inputs.as_slice()),
        )
    };
    // An empty table still gets one byte, so that the kernel's pointer is valid.
    let table = backend.upload_slice(if bytes.is_empty() { &[0u8] } else { bytes })?;
    let ptr = table.device_ptr();
    uploads.keep(table);
    Ok(ptr)
}

pub(crate) fn redact<O: OffsetSize>(
    backend: &CudaBackend,
    names: &StringColumn<O, Device>,
    visibility: StringArg<'_, Device>,
    width: OffsetWidth,
) -> Result<AnyStringColumn<Device>> {
    visibility.check_rows("redact", "the visibility column", names.len())?;
    let mut uploads = Uploads::default();
    let functor = Redact {
        names: column_input(names),
        visibility: uploads.string(backend, visibility)?,
    };
    // "L First" is at most the name's bytes ("First Last"); "X X" is 3.
    let bound = plus_per_row(col_bytes(names), 3, names.len());
    // Inputs with i32 offsets (or a scalar visibility) are planned from rows staged
    // per warp (redact_staged_one_pass); others by the generic one-pass kernel.
    let staged = std::mem::size_of::<O>() == 4 && !matches!(visibility, StringArg::LargeUtf8(_));
    transform_with_one_pass(
        backend,
        &STRINGS_TRANSFORM,
        "redact",
        if staged { "redact_staged" } else { "redact" },
        "redact",
        functor,
        names.len(),
        width,
        bound,
    )
}

#[repr(C)]
#[derive(Clone, Copy)]
struct UserTransform {
    inputs: u64,
}

impl CudaBackend {
    /// A strings column of `rows` rows built on the GPU by a CUDA C++ device function,
    /// compiled once with NVRTC (and cached on disk like every kernel) and run through
    /// ragged's two-pass helper: sizes, a scan into offsets (`width` as for
    /// [`ragged_core::StringOps::concatenate`]), then the bytes.
    ///
    /// `source` defines
    /// ```text
    /// __device__ bool transform(uint64_t row, const ragged::StringInput* inputs, ragged::Writer& out);
    /// ```
    /// which writes row `row` through `out` (`out.str(view)`, `out.bytes(p, n)`,
    /// `out.byte(b)`) and returns whether the row is valid. It runs twice per row — once
    /// to size, once to write — and must write the same bytes both times, valid UTF-8,
    /// and none for a null row. `inputs[k]` is `inputs[k]` here: `valid(row)`,
    /// `get(row)` (a `ragged::string_view` with `find`, `find_byte`, `contains`,
    /// `substr`, `chars`, `char_bytes_at`); a scalar serves every row. The helpers are
    /// in `kernels/common/strings.cuh`. This is the GPU half of
    /// `CpuBackend::transform_strings`, which takes a Rust closure instead.
    ///
    /// # Errors
    /// [`Error::KernelCompile`] with NVRTC's log (lines of `source` are named
    /// `transform:LINE`); [`Error::LengthMismatch`] when a column input does not have
    /// `rows` rows; [`Error::Overflow`] as for `concatenate`; device errors.
    pub fn transform_strings(
        &self,
        source: &str,
        inputs: &[StringArg<'_, Device>],
        rows: usize,
        width: OffsetWidth,
    ) -> Result<AnyStringColumn<Device>> {
        for arg in inputs {
            arg.check_rows("transform_strings", "an input column", rows)?;
        }
        let (module, prefix) = user_transform_module(source)?;
        let mut uploads = Uploads::default();
        let functor = UserTransform {
            inputs: input_table(self, &mut uploads, inputs)?,
        };
        two_pass(
            self,
            module,
            &prefix,
            "transform_strings",
            functor,
            rows,
            width,
        )
    }
}

#[repr(C)]
#[derive(Clone, Copy)]
struct CaseMap {
    col: StringInput,
    from: u64,
    to: u64,
    entries: u32,
    upper: u32,
}

/// `upper` (or `lower`): the case table uploaded as two sorted arrays.
pub(crate) fn case_map<O: OffsetSize>(
    backend: &CudaBackend,
    col: &StringColumn<O, Device>,
    upper: bool,
    width: OffsetWidth,
) -> Result<AnyStringColumn<Device>> {
    let table = case_table(upper);
    let (from, to) = (
        backend.upload_slice(&table.from)?,
        backend.upload_slice(&table.to)?,
    );
    let functor = CaseMap {
        col: column_input(col),
        from: from.device_ptr(),
        to: to.device_ptr(),
        entries: table.from.len() as u32,
        upper: u32::from(upper),
    };
    if let Some(out) = case_map_same_length(backend, col, width, &functor)? {
        return Ok(out);
    }
    let op = if upper { "upper" } else { "lower" };
    let bound = case_bound(table, col_bytes(col));
    builtin(backend, "case_map", op, functor, col.len(), width, bound)
}

/// Chunks of 16 bytes a thread of `case_map_same_length_<O>` takes per round
/// (`CASE_CHUNKS` of `kernels/strings/transform.cu`).
const CASE_CHUNKS: u64 = 4;

/// `upper` / `lower` by `case_map_same_length_<O>`, whose output shares the input's
/// offsets, when it can: the width asked for is the input's (`Auto` for `i32`), no row
/// is null (a null row's bytes would stay in the output, whose null rows are empty),
/// and the kernel finds that the rows cover the chars exactly and that no character
/// changes its byte length. `None`: the caller runs the two-pass `case_map`.
fn case_map_same_length<O: OffsetSize>(
    backend: &CudaBackend,
    col: &StringColumn<O, Device>,
    width: OffsetWidth,
    map: &CaseMap,
) -> Result<Option<AnyStringColumn<Device>>> {
    let same_width = match width {
        OffsetWidth::I32 | OffsetWidth::Auto => !O::IS_LARGE,
        OffsetWidth::I64 => O::IS_LARGE,
    };
    if col.is_empty() || !same_width || col.validity().is_some_and(|v| v.null_count() > 0) {
        return Ok(None);
    }
    let bytes = col.values().len();
    let out: DeviceBuffer<u8> = backend.alloc(bytes)?;
    let refused: DeviceBuffer<u32> = backend.alloc(1)?;
    backend.zero(&refused)?;
    let function = backend.function(
        &STRINGS_TRANSFORM,
        &format!("case_map_same_length_{}", O::OFFSET_NAME),
    )?;
    let (offsets, rows, input, bytes_u64, out_ptr, refused_ptr) = (
        col.offsets().device_ptr(),
        col.len() as u64,
        col.values().device_ptr(),
        bytes as u64,
        out.device_ptr(),
        refused.device_ptr(),
    );
    let mut args = params![
        offsets,
        rows,
        input,
        bytes_u64,
        out_ptr,
        map.from,
        map.to,
        map.entries,
        map.upper,
        refused_ptr
    ];
    let rounds = bytes_u64.div_ceil(16).div_ceil(CASE_CHUNKS);
    // SAFETY: `case_map_same_length_<O>(const O*, uint64_t, const uint8_t*, uint64_t,
    // uint8_t*, const uint32_t*, const uint32_t*, uint32_t, uint32_t, uint32_t*)`: the
    // rows + 1 offsets; reads the `bytes` chars only when the offsets start at 0 and end
    // at `bytes`, and then writes `out` (as many bytes); the case table's two arrays of
    // `entries` code points (uploaded by the caller, alive until after the read below);
    // sets bits of the one zeroed word `refused`.
    unsafe {
        launch(
            function,
            grid_for(rounds, backend.info().multiprocessors),
            BLOCK,
            0,
            backend.stream(),
            &mut args,
        )?
    };
    if backend.read_bytes(&refused, 0, 4)? != [0; 4] {
        return Ok(None);
    }
    let offsets = col.offsets().clone().into_bytes();
    // SAFETY: the kernel found offsets starting at 0 and ending at the chars' length
    // (they are the input's: valid and non-decreasing) and kept every character's byte
    // length, so each row of `out` holds the valid UTF-8 image of the same row.
    Ok(Some(unsafe {
        any_strings(offsets, out, col.validity().cloned(), O::IS_LARGE)
    }))
}

/// The most bytes `bytes` of text can become under `table`: each changed character
/// grows by at most the table's largest growth per byte of the original (a 2-byte
/// character mapped to a 3-byte one grows by half).
fn case_bound(table: &ragged_core::ops::CaseTable, bytes: u64) -> Option<u64> {
    let utf8_len = |c: u32| char::from_u32(c).map_or(4, char::len_utf8) as u64;
    // The largest growth / length, as a fraction (numerator, denominator).
    let (num, den) = table
        .from
        .iter()
        .zip(&table.to)
        .map(|(&f, &t)| (utf8_len(t).saturating_sub(utf8_len(f)), utf8_len(f)))
        .fold(
            (0u64, 1u64),
            |(n, d), (g, l)| if g * d > n * l { (g, l) } else { (n, d) },
        );
    bytes.checked_add(bytes.checked_mul(num)?.div_ceil(den))
}

#[repr(C)]
#[derive(Clone, Copy)]
struct Strip {
    col: StringInput,
    set: StringInput,
    sides: u32,
    ascii: u32,
    low: u64,
    high: u64,
}

/// ASCII whitespace, `strip`'s default set.
const WHITESPACE: &str = " \t\n\u{b}\u{c}\r";

pub(crate) fn strip<O: OffsetSize>(
    backend: &CudaBackend,
    col: &StringColumn<O, Device>,
    side: Side,
    chars: Option<&str>,
) -> Result<StringColumn<O, Device>> {
    let set = chars.unwrap_or(WHITESPACE);
    // An ASCII set as bits 0..63 and 64..127, which the kernel tests bytes against.
    let (mut low, mut high) = (0u64, 0u64);
    for b in set.bytes().filter(u8::is_ascii) {
        if b < 64 {
            low |= 1 << b;
        } else {
            high |= 1 << (b - 64);
        }
    }
    let mut uploads = Uploads::default();
    let functor = Strip {
        col: column_input(col),
        set: uploads.string(backend, StringArg::Scalar(Some(set)))?,
        sides: side_code(side, 1, 2, 3),
        ascii: u32::from(set.is_ascii()),
        low,
        high,
    };
    let bound = Some(col_bytes(col));
    transform_as(
        backend,
        &STRINGS_TRANSFORM,
        "strip",
        "strip",
        functor,
        col.len(),
        bound,
    )
}

/// The kernel's code of a side.
fn side_code(side: Side, left: u32, right: u32, both: u32) -> u32 {
    match side {
        Side::Left => left,
        Side::Right => right,
        Side::Both => both,
    }
}

#[repr(C)]
#[derive(Clone, Copy)]
struct Pad {
    col: StringInput,
    fill: StringInput,
    width: u64,
    side: u32,
    unused: u32,
}

pub(crate) fn pad<O: OffsetSize>(
    backend: &CudaBackend,
    col: &StringColumn<O, Device>,
    width_chars: usize,
    side: Side,
    fill: char,
    width: OffsetWidth,
) -> Result<AnyStringColumn<Device>> {
    let mut uploads = Uploads::default();
    let mut buf = [0u8; 4];
    let functor = Pad {
        col: column_input(col),
        fill: uploads.string(backend, StringArg::Scalar(Some(fill.encode_utf8(&mut buf))))?,
        width: width_chars as u64,
        side: side_code(side, 0, 1, 2),
        unused: 0,
    };
    // Each row's bytes and at most width_chars fill characters.
    let bound = (width_chars as u64)
        .checked_mul(fill.len_utf8() as u64)
        .and_then(|per_row| plus_per_row(col_bytes(col), per_row, col.len()));
    builtin(backend, "pad", "pad", functor, col.len(), width, bound)
}

#[repr(C)]
#[derive(Clone, Copy)]
struct Repeat {
    col: StringInput,
    times: u64,
}

pub(crate) fn repeat<O: OffsetSize>(
    backend: &CudaBackend,
    col: &StringColumn<O, Device>,
    times: usize,
    width: OffsetWidth,
) -> Result<AnyStringColumn<Device>> {
    let functor = Repeat {
        col: column_input(col),
        times: times as u64,
    };
    let bound = col_bytes(col).checked_mul(times as u64);
    builtin(
        backend,
        "repeat",
        "repeat",
        functor,
        col.len(),
        width,
        bound,
    )
}

#[repr(C)]
#[derive(Clone, Copy)]
struct Replace {
    col: StringInput,
    pattern: StringInput,
    replacement: StringInput,
    max_count: u64,
}

pub(crate) fn replace<O: OffsetSize>(
    backend: &CudaBackend,
    col: &StringColumn<O, Device>,
    pattern: &str,
    replacement: &str,
    max_count: Option<usize>,
    width: OffsetWidth,
) -> Result<AnyStringColumn<Device>> {
    if pattern.is_empty() {
        return Err(Error::invalid_argument("replace", "the pattern is empty"));
    }
    let mut uploads = Uploads::default();
    // At most bytes / pattern occurrences (and max_count per row), each growing by the
    // difference of the lengths when the replacement is longer.
    let bytes = col_bytes(col);
    let growth = replacement.len().saturating_sub(pattern.len()) as u64;
    let occurrences = (bytes / pattern.len() as u64)
        .min(max_count.map_or(u64::MAX, |m| (m as u64).saturating_mul(col.len() as u64)));
    let bound = occurrences
        .checked_mul(growth)
        .and_then(|extra| extra.checked_add(bytes));
    let max_count = max_count.map_or(u64::MAX, |m| m as u64);
    if let Some(bound) = bound.filter(|&b| b <= ONE_PASS_MAX_BOUND && !col.is_empty()) {
        if let Some(out) =
            replace_tiles(backend, col, pattern, replacement, max_count, width, bound)?
        {
            return Ok(out);
        }
    }
    let functor = Replace {
        col: column_input(col),
        pattern: uploads.string(backend, StringArg::Scalar(Some(pattern)))?,
        replacement: uploads.string(backend, StringArg::Scalar(Some(replacement)))?,
        max_count,
    };
    builtin(
        backend,
        "replace",
        "replace",
        functor,
        col.len(),
        width,
        bound,
    )
}

/// `replace` by `replace_tiles_<I>_<O>` (one block per staged tile of rows, positions by
/// decoupled look-back) into chars allocated to `bound` (at most
/// [`ONE_PASS_MAX_BOUND`]); `None` when the output came out larger than the bound.
fn replace_tiles<I: OffsetSize>(
    backend: &CudaBackend,
    col: &StringColumn<I, Device>,
    pattern: &str,
    replacement: &str,
    max_count: u64,
    width: OffsetWidth,
    bound: u64,
) -> Result<Option<AnyStringColumn<Device>>> {
    let n = col.len();
    let rows = n as u64;
    // The bound fits i32 offsets, so Auto and I32 both get them.
    let wide = width == OffsetWidth::I64;
    let offsets = alloc_offsets(backend, n + 1, wide)?;
    let chars = backend.alloc::<u8>(bound as usize)?;
    let (per_tile, state) = tile_plan(backend, col)?;
    let p = backend.upload_slice(pattern.as_bytes())?;
    let r = backend.upload_slice(replacement.as_bytes())?;
    let total = backend.alloc::<u64>(1)?;
    let function = backend.function(
        &STRINGS_TRANSFORM,
        &format!(
            "replace_tiles_{}_{}",
            I::OFFSET_NAME,
            if wide { "i64" } else { "i32" }
        ),
    )?;
    let input = column_input(col);
    let (p_ptr, m) = (p.device_ptr(), pattern.len() as i64);
    let (r_ptr, r_len) = (r.device_ptr(), replacement.len() as i64);
    let (offsets_ptr, chars_ptr, total_ptr) =
        (offsets.device_ptr(), chars.device_ptr(), total.device_ptr());
    let (state_ptr, state_bytes) = (state.ptr, state.bytes);
    let mut args = params![
        input,
        rows,
        per_tile,
        p_ptr,
        m,
        r_ptr,
        r_len,
        max_count,
        offsets_ptr,
        chars_ptr,
        bound,
        total_ptr,
        state_ptr,
        state_bytes
    ];
    // SAFETY: `replace_tiles_<I>_<O>(StringInput, uint64_t, uint32_t, const uint8_t*,
    // long long, const uint8_t*, long long, unsigned long long, O*, uint8_t*, unsigned
    // long long, unsigned long long*, void*, uint64_t)`: one block of TILE_THREADS
    // threads per tile of `per_tile` rows (the tile state's count) reads the column and
    // the m + r_len uploaded bytes, writes rows + 1 offsets of the width allocated,
    // chars only below `bound` (the bytes allocated) and the one counter (its last
    // tile always writes it).
    unsafe { launch_tiles(backend, function, &state, &mut args)? };
    let total = backend.read_scalar(&total)?;
    if total > bound {
        return Ok(None);
    }
    let chars = chars.slice(0, total as usize)?;
    // SAFETY: the offsets are the scan of the rows' sizes (0, non-decreasing, ending at
    // the chars' length) in the width allocated; each valid row is its input with whole
    // matches of a valid UTF-8 pattern replaced by a valid UTF-8 string; null rows are
    // empty.
    Ok(Some(unsafe {
        any_strings(offsets, chars, col.validity().cloned(), wide)
    }))
}

#[repr(C)]
#[derive(Clone, Copy)]
struct JoinPieces {
    col: StringInput,
    separator: StringInput,
}

/// `join`: the pieces "separator row" of the valid rows as a column, then its bytes
/// after the first separator as one row (offsets `[separator, total]`).
pub(crate) fn join<O: OffsetSize>(
    backend: &CudaBackend,
    col: &StringColumn<O, Device>,
    separator: &str,
    width: OffsetWidth,
) -> Result<AnyStringColumn<Device>> {
    let mut uploads = Uploads::default();
    let functor = JoinPieces {
        col: column_input(col),
        separator: uploads.string(backend, StringArg::Scalar(Some(separator)))?,
    };
    let bound = plus_per_row(col_bytes(col), separator.len() as u64, col.len());
    let pieces = builtin(
        backend,
        "join_pieces",
        "join",
        functor,
        col.len(),
        width,
        bound,
    )?;
    Ok(match pieces {
        AnyStringColumn::Utf8(c) => AnyStringColumn::Utf8(one_row(backend, c, separator.len())?),
        AnyStringColumn::LargeUtf8(c) => {
            AnyStringColumn::LargeUtf8(one_row(backend, c, separator.len())?)
        }
    })
}

/// The bytes of `pieces` after the first `skip` (the first separator; nothing when
/// the pieces are empty) as a one-row column.
fn one_row<O: OffsetSize>(
    backend: &CudaBackend,
    pieces: StringColumn<O, Device>,
    skip: usize,
) -> Result<StringColumn<O, Device>> {
    let total = pieces.values().len();
    let first = if total == 0 { 0 } else { skip };
    let offsets = backend.upload_slice(&[O::usize_as(first), O::usize_as(total)])?;
    // SAFETY: one row, bytes first..total of the pieces: every valid row and the
    // separators between them (the first separator skipped), valid UTF-8.
    Ok(unsafe { StringColumn::new_unchecked(offsets, pieces.values().clone(), None) })
}

#[repr(C)]
#[derive(Clone, Copy)]
struct Append {
    inputs: u64,
    starts: u64,
    count: u32,
    unused: u32,
}

pub(crate) fn append(
    backend: &CudaBackend,
    columns: &[StringArg<'_, Device>],
    width: OffsetWidth,
) -> Result<AnyStringColumn<Device>> {
    let starts: Vec<u64> = StringArg::row_starts("append", columns)?
        .into_iter()
        .map(|s| s as u64)
        .collect();
    let total = starts[columns.len()] as usize;
    // Each output row is one input row.
    let bound = columns
        .iter()
        .zip(starts.windows(2))
        .try_fold(0u64, |sum, (&arg, w)| {
            sum.checked_add(arg_bytes(arg, (w[1] - w[0]) as usize)?)
        });
    let mut uploads = Uploads::default();
    let inputs = input_table(backend, &mut uploads, columns)?;
    let starts = backend.upload_slice(&starts)?;
    let functor = Append {
        inputs,
        starts: starts.device_ptr(),
        count: columns.len() as u32,
        unused: 0,
    };
    uploads.keep(starts.into_bytes());
    builtin(backend, "append", "append", functor, total, width, bound)
}
