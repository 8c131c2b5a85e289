//! The literal searches on the GPU (`contains`, `starts_with`, `ends_with`, `find`,
//! `rfind`, `count_matches`): host dispatch for `kernels/strings/search.cu` — a
//! scalar pattern by tiles of rows matched byte-parallel (`search_tiles_<op>_<O>`), or
//! for `contains` in short rows a warp per 128 rows (`search_rows_contains_pairs_i32`,
//! `search_rows_contains_i32` and `search_rows_contains_bits_i32`, see [`short_rows`]),
//! a per-row pattern one thread per row (`search_<op>_<O>_<P>`).
//!
//! A scalar pattern is uploaded as a one-row `Utf8` column, in one copy with the
//! search's zeroed counters ([`Counters`]). The output validity is the column's or the
//! pattern's when only one has a bitmap; when both have one the kernel writes their
//! AND. Boolean answers are bit-packed by the kernel.

use ragged_core::ops::{Pattern, Search};
use ragged_core::{BooleanColumn, Error, OffsetSize, PrimitiveColumn, Result, StringColumn};

use crate::common::bits::{ballot_grid, bitmap, validity_or_none};
use crate::compile::STRINGS_SEARCH;
use crate::error_word::ErrorWord;
use crate::launch::{launch, params, resident_grid, BLOCK};
use crate::memory::{Device, DeviceBitmap, DeviceBuffer};
use crate::primitives::validity_args;
use crate::CudaBackend;

use super::tile_launch;

/// The pattern as the kernel reads it: offsets and chars of a strings column, whether
/// its one row serves every row, its validity and its offset type's name.
struct DevicePattern<'a> {
    offsets: u64,
    chars: u64,
    /// A scalar pattern (one row for every row): its length in bytes; None for a
    /// pattern column.
    scalar: Option<usize>,
    validity: Option<&'a DeviceBitmap>,
    offset_name: &'static str,
    /// A scalar pattern's one upload, kept alive until the kernel is done: the
    /// search's two counters (zeros, see [`Counters`]), the pattern's two i32 offsets
    /// and its bytes, at [`SCALAR_OFFSETS`] and [`SCALAR_CHARS`] — one copy to the
    /// device where two uploads and a memset went before.
    upload: Option<DeviceBuffer<u8>>,
}

/// Where a scalar pattern's offsets start in its upload (after the two counters).
const SCALAR_OFFSETS: usize = 16;
/// Where a scalar pattern's bytes start in its upload.
const SCALAR_CHARS: usize = SCALAR_OFFSETS + 8;

/// A search's two counters on the device (false answers, then nulls), zeroed before
/// the launch: in a scalar pattern's upload, or allocated and zeroed for a pattern
/// column.
enum Counters<'p> {
    Own(DeviceBuffer<u64>),
    Upload(&'p DeviceBuffer<u8>),
}

impl<'p> Counters<'p> {
    fn new(backend: &CudaBackend, pattern: &'p DevicePattern<'_>) -> Result<Self> {
        if let Some(upload) = &pattern.upload {
            return Ok(Counters::Upload(upload));
        }
        let counters = backend.alloc::<u64>(2)?;
        backend.zero(&counters)?;
        Ok(Counters::Own(counters))
    }

    /// The false answers' counter; the nulls' follows it.
    fn device_ptr(&self) -> u64 {
        match self {
            Counters::Own(b) => b.device_ptr(),
            Counters::Upload(b) => b.device_ptr(),
        }
    }

    /// Both counters (waits for queued work).
    fn read(&self, backend: &CudaBackend) -> Result<[u64; 2]> {
        let bytes = match self {
            Counters::Own(b) => backend.read_bytes(b, 0, 16)?,
            Counters::Upload(b) => backend.read_bytes(b, 0, 16)?,
        };
        let word = |i: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&bytes[8 * i..8 * i + 8]);
            u64::from_le_bytes(w)
        };
        Ok([word(0), word(1)])
    }
}

impl<'a> DevicePattern<'a> {
    fn new(backend: &CudaBackend, pattern: Pattern<'a, Device>) -> Result<Self> {
        fn column<P: OffsetSize>(c: &StringColumn<P, Device>) -> DevicePattern<'_> {
            DevicePattern {
                offsets: c.offsets().device_ptr(),
                chars: c.values().device_ptr(),
                scalar: None,
                validity: c.validity(),
                offset_name: P::OFFSET_NAME,
                upload: None,
            }
        }
        Ok(match pattern {
            Pattern::Scalar(s) => {
                let len = i32::try_from(s.len()).map_err(|_| {
                    Error::invalid_argument("search", "a scalar pattern of 2^31 bytes or more")
                })?;
                let mut bytes = Vec::with_capacity(SCALAR_CHARS + s.len());
                bytes.extend_from_slice(&[0u8; SCALAR_OFFSETS]);
                bytes.extend_from_slice(&0i32.to_le_bytes());
                bytes.extend_from_slice(&len.to_le_bytes());
                bytes.extend_from_slice(s.as_bytes());
                let upload = backend.upload_slice(&bytes)?;
                DevicePattern {
                    offsets: upload.device_ptr() + SCALAR_OFFSETS as u64,
                    chars: upload.device_ptr() + SCALAR_CHARS as u64,
                    scalar: Some(s.len()),
                    validity: None,
                    offset_name: "i32",
                    upload: Some(upload),
                }
            }
            Pattern::Utf8(c) => column(c),
            Pattern::LargeUtf8(c) => column(c),
        })
    }
}

/// What one search launch produced: the output buffer, the AND validity words when
/// the kernel wrote them, and its two counters (false answers, nulls).
struct Launched<B> {
    out: B,
    and_words: Option<DeviceBuffer<u32>>,
    falses: usize,
    nulls: usize,
}

/// Run `search_<op>_<O>_<P>` writing into `out`.
fn run<O: OffsetSize, B>(
    backend: &CudaBackend,
    op: Search,
    col: &StringColumn<O, Device>,
    pattern: &DevicePattern<'_>,
    out: B,
    out_ptr: u64,
) -> Result<Launched<B>> {
    let rows = col.len() as u64;
    let both = col.validity().is_some() && pattern.validity.is_some();
    let and_words = if both {
        Some(backend.alloc::<u32>(col.len().div_ceil(32))?)
    } else {
        None
    };
    if rows == 0 {
        return Ok(Launched {
            out,
            and_words,
            falses: 0,
            nulls: 0,
        });
    }
    // count_matches in i32 is the one search whose answer may not fit.
    let word = if op == Search::CountMatches && O::OFFSET_NAME == "i32" {
        Some(ErrorWord::new(backend)?)
    } else {
        None
    };
    let counters = Counters::new(backend, pattern)?;
    if pattern.scalar.is_some() {
        run_tiles::<O>(
            backend,
            op,
            col,
            pattern,
            out_ptr,
            counters.device_ptr(),
            &word,
        )?;
        return finish(backend, op, out, and_words, word, &counters);
    }
    let function = backend.function(
        &STRINGS_SEARCH,
        &format!(
            "search_{}_{}_{}",
            op.name(),
            O::OFFSET_NAME,
            pattern.offset_name
        ),
    )?;
    let (offsets, chars) = (col.offsets().device_ptr(), col.values().device_ptr());
    let (bits, bit_offset) = validity_args(col.validity());
    let (pattern_bits, pattern_bit_offset) = validity_args(pattern.validity);
    let (pattern_offsets, pattern_chars, scalar) = (
        pattern.offsets,
        pattern.chars,
        u32::from(pattern.scalar.is_some()),
    );
    let and_ptr = and_words.as_ref().map_or(0, DeviceBuffer::device_ptr);
    let (falses_ptr, nulls_ptr) = (counters.device_ptr(), counters.device_ptr() + 8);
    let word_ptr = word.as_ref().map_or(0, ErrorWord::device_ptr);
    let mut args = params![
        offsets,
        chars,
        rows,
        pattern_offsets,
        pattern_chars,
        scalar,
        out_ptr,
        bits,
        bit_offset,
        pattern_bits,
        pattern_bit_offset,
        and_ptr,
        falses_ptr,
        nulls_ptr,
        word_ptr
    ];
    // SAFETY: `search_<op>_<O>_<P>(const O*, const uint8_t*, uint64_t, const P*, const
    // uint8_t*, uint32_t, void*, const uint8_t*, uint64_t, const uint8_t*, uint64_t,
    // uint32_t*, unsigned long long*, unsigned long long*, uint64_t*)`: reads rows + 1
    // offsets and the bytes between them, and the pattern's row (row 0 when scalar,
    // else rows + 1 pattern offsets: the lengths were checked equal) and its bytes;
    // writes `rows` answers of O, or ceil(rows / 32) answer words for a predicate, into
    // `out` (allocated by the caller), ceil(rows / 32) AND words when and_ptr is not
    // null, adds to the two zeroed counters, reports through the word when not null.
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
    finish(backend, op, out, and_words, word, &counters)
}

/// Read a search launch's error word and counters back.
fn finish<B>(
    backend: &CudaBackend,
    op: Search,
    out: B,
    and_words: Option<DeviceBuffer<u32>>,
    word: Option<ErrorWord>,
    counters: &Counters<'_>,
) -> Result<Launched<B>> {
    if let Some((row, _)) = word.map(|w| w.read(backend)).transpose()?.flatten() {
        return Err(Error::Overflow {
            op: op.name(),
            message: format!("the answer of row {row} exceeds the i32 offset type"),
        });
    }
    let counts = counters.read(backend)?;
    Ok(Launched {
        out,
        and_words,
        falses: counts[0] as usize,
        nulls: counts[1] as usize,
    })
}

/// Launch `search_tiles_<op>_<O>` for a scalar pattern (its validity: the column's).
fn run_tiles<O: OffsetSize>(
    backend: &CudaBackend,
    op: Search,
    col: &StringColumn<O, Device>,
    pattern: &DevicePattern<'_>,
    out_ptr: u64,
    falses_ptr: u64,
    word: &Option<ErrorWord>,
) -> Result<()> {
    if let Some(kernel) = short_rows(op, col, pattern.scalar.unwrap_or(0)) {
        return run_rows_contains(backend, kernel, col, pattern, out_ptr, falses_ptr);
    }
    let rows = col.len() as u64;
    let function = backend.function(
        &STRINGS_SEARCH,
        &format!("search_tiles_{}_{}", op.name(), O::OFFSET_NAME),
    )?;
    let (per_tile, grid) = tile_launch(backend, function, col);
    let (offsets, chars) = (col.offsets().device_ptr(), col.values().device_ptr());
    let (pattern_offsets, pattern_chars) = (pattern.offsets, pattern.chars);
    let word_ptr = word.as_ref().map_or(0, ErrorWord::device_ptr);
    let mut args = params![
        offsets,
        chars,
        rows,
        pattern_offsets,
        pattern_chars,
        per_tile,
        out_ptr,
        falses_ptr,
        word_ptr
    ];
    // SAFETY: `search_tiles_<op>_<O>(const O*, const uint8_t*, uint64_t, const int32_t*,
    // const uint8_t*, uint32_t, void*, unsigned long long*, uint64_t*)`: reads rows + 1
    // offsets and the bytes between them, the scalar pattern's two i32 offsets (uploaded
    // by DevicePattern::new) and its bytes; writes `rows` answers of O, or ceil(rows /
    // 32) answer words for a predicate, into `out` (allocated by the caller), adds to
    // the zeroed counter, reports through the word when not null; tile_rows is a
    // multiple of 32 of at most TILE_ROWS (tile_rows).
    unsafe { launch(function, grid, BLOCK, 0, backend.stream(), &mut args) }
}

/// How many bytes beyond an m-byte pattern's own a row of `search_rows_contains_i32`'s
/// columns averages at most (its chars buffer over its rows is below m + this): about
/// as many places for the pattern per row, few enough that comparing each place as
/// words costs fewer instructions than match bits.
const SHORT_ROW_PLACES: usize = 8;

/// As [`SHORT_ROW_PLACES`], for `search_rows_contains_pairs_i32`: rows of about one
/// or two places for the pattern, compared two at a time rather than four.
const PAIR_ROW_PLACES: usize = 2;

/// The most bytes a row of `search_rows_contains_bits_i32`'s columns averages (its
/// chars buffer over its rows): a warp's step of 128 such rows fits its 4 KiB stage.
const SHORT_ROW_BYTES: usize = 24;

/// The warp-per-128-rows kernel that answers `contains` of a scalar pattern of `m`
/// bytes in `col`, if any: with i32 offsets that start 16-byte aligned (an unsliced
/// column), for a pattern of 1 to 8 bytes places compared as words, two at a time
/// (`search_rows_contains_pairs_i32`) in rows averaging fewer than
/// m + [`PAIR_ROW_PLACES`] bytes, else four at a time (`search_rows_contains_i32`) in
/// rows averaging fewer than m + [`SHORT_ROW_PLACES`]; else
/// `search_rows_contains_bits_i32` (match bits) in rows averaging at most
/// [`SHORT_ROW_BYTES`].
fn short_rows<O: OffsetSize>(
    op: Search,
    col: &StringColumn<O, Device>,
    m: usize,
) -> Option<&'static str> {
    let average = col.values().len() / col.len().max(1);
    if op != Search::Contains
        || O::OFFSET_NAME != "i32"
        || m == 0
        || col.offsets().device_ptr() % 16 != 0
    {
        return None;
    }
    if m <= 8 && average < m + PAIR_ROW_PLACES {
        Some("search_rows_contains_pairs_i32")
    } else if m <= 8 && average < m + SHORT_ROW_PLACES {
        Some("search_rows_contains_i32")
    } else if average <= SHORT_ROW_BYTES {
        Some("search_rows_contains_bits_i32")
    } else {
        None
    }
}

/// Launch `kernel`, one of the `search_rows_contains` kernels (see [`short_rows`]): a
/// warp per 128 rows.
fn run_rows_contains<O: OffsetSize>(
    backend: &CudaBackend,
    kernel: &str,
    col: &StringColumn<O, Device>,
    pattern: &DevicePattern<'_>,
    out_ptr: u64,
    falses_ptr: u64,
) -> Result<()> {
    let rows = col.len() as u64;
    let function = backend.function(&STRINGS_SEARCH, kernel)?;
    // A warp (32 threads) per 128 rows.
    let grid = resident_grid(function, rows.div_ceil(4), backend.info().multiprocessors);
    let (offsets, chars) = (col.offsets().device_ptr(), col.values().device_ptr());
    let (pattern_offsets, pattern_chars) = (pattern.offsets, pattern.chars);
    let mut args = params![
        offsets,
        chars,
        rows,
        pattern_offsets,
        pattern_chars,
        out_ptr,
        falses_ptr
    ];
    // SAFETY: `search_rows_contains_pairs_i32`, `search_rows_contains_i32` and
    // `search_rows_contains_bits_i32(const int32_t*, const uint8_t*, uint64_t, const
    // int32_t*, const uint8_t*, void*, unsigned long long*)`: read rows + 1 i32
    // offsets (16-byte aligned, checked by short_rows) and the bytes between them, the
    // scalar pattern's two offsets and its m bytes (1 to 8 for the first two); write
    // ceil(rows / 32) answer words into `out` (allocated by the caller) and add to the
    // zeroed counter.
    unsafe { launch(function, grid, BLOCK, 0, backend.stream(), &mut args) }
}

/// The output validity: the kernel's AND words, or the one bitmap present.
fn output_validity<O: OffsetSize>(
    col: &StringColumn<O, Device>,
    pattern: &DevicePattern<'_>,
    and_words: Option<DeviceBuffer<u32>>,
    nulls: usize,
) -> Option<DeviceBitmap> {
    match and_words {
        Some(words) => validity_or_none(words, col.len(), nulls),
        None => col.validity().or(pattern.validity).cloned(),
    }
}

/// A boolean search (`contains`, `starts_with`, `ends_with`).
pub(crate) fn search_bool<O: OffsetSize>(
    backend: &CudaBackend,
    op: Search,
    col: &StringColumn<O, Device>,
    pattern: Pattern<'_, Device>,
) -> Result<BooleanColumn<Device>> {
    pattern.check_rows(op.name(), col.len())?;
    let pattern = DevicePattern::new(backend, pattern)?;
    let words = backend.alloc::<u32>(col.len().div_ceil(32))?;
    let words_ptr = words.device_ptr();
    let launched = run(backend, op, col, &pattern, words, words_ptr)?;
    let values = bitmap(launched.out, col.len(), launched.falses);
    BooleanColumn::try_new(
        values,
        output_validity(col, &pattern, launched.and_words, launched.nulls),
    )
}

/// A position or count search (`find`, `rfind`, `count_matches`).
pub(crate) fn search_position<O: OffsetSize>(
    backend: &CudaBackend,
    op: Search,
    col: &StringColumn<O, Device>,
    pattern: Pattern<'_, Device>,
) -> Result<PrimitiveColumn<O, Device>> {
    pattern.check_rows(op.name(), col.len())?;
    let pattern = DevicePattern::new(backend, pattern)?;
    let out = backend.alloc::<O>(col.len())?;
    let out_ptr = out.device_ptr();
    let launched = run(backend, op, col, &pattern, out, out_ptr)?;
    PrimitiveColumn::try_new(
        launched.out,
        output_validity(col, &pattern, launched.and_words, launched.nulls),
    )
}
