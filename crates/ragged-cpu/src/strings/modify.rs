//! The strings ops that rewrite each row — `upper`, `lower`, `strip`, `pad`, `repeat`,
//! `replace` — and the ones that combine rows — `join`, `append` — each one closure
//! over [`CpuBackend::transform_strings`] (see [`ragged_core::StringOps`] for the
//! semantics they share with the GPU).

use std::ops::Range;

use ragged_core::ops::{
    char_count, is_strip_whitespace, lower_char, upper_char, AnyStringColumn, OffsetWidth, Side,
    StringArg,
};
use ragged_core::{Error, OffsetSize, Result, StringColumn};

use crate::strings::build::{build_strings, run_of};
use crate::CpuBackend;

/// Map every character of each row with `map` (ASCII rows in place by `ascii`).
fn map_chars<O: OffsetSize>(
    col: &StringColumn<O>,
    width: OffsetWidth,
    ascii: fn(&mut str),
    map: fn(char) -> char,
) -> Result<AnyStringColumn> {
    // The images of the ASCII characters (ASCII too), for rows that mix them with others.
    let ascii_images: [u8; 128] = std::array::from_fn(|b| {
        let image = map(char::from(b as u8));
        u8::try_from(image).unwrap_or(b as u8)
    });
    if let Some(whole) = map_whole(col, width, &ascii_images, map)? {
        return Ok(whole);
    }
    CpuBackend.transform_strings(col.len(), width, |i, out| {
        let Some(s) = col.get(i) else { return false };
        let start = out.len();
        out.push_str(s);
        let Some(row) = out.get_mut(start..) else {
            return true;
        };
        if s.is_ascii() {
            ascii(row);
        } else if !map_in_place(row, &ascii_images, map) {
            // Some character's image has another byte length: build the row anew.
            out.truncate(start);
            out.extend(s.chars().map(map));
        }
        true
    })
}

/// [`map_chars`] over the whole values buffer at once, when every character's image has
/// its byte length (as for nearly all text): one copy of the bytes, mapped in place in
/// parallel pieces cut at character boundaries, and the offsets rebased — no per-row
/// work. `None` when some image has another length, or a null row holds bytes (outputs'
/// null rows are empty): the caller then builds the rows one by one.
fn map_whole<O: OffsetSize>(
    col: &StringColumn<O>,
    width: OffsetWidth,
    ascii_images: &[u8; 128],
    map: fn(char) -> char,
) -> Result<Option<AnyStringColumn>> {
    use rayon::prelude::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    const PIECE: usize = 1 << 20;
    let offsets = col.offsets();
    let (Some(first), Some(last)) = (offsets.first(), offsets.last()) else {
        return Ok(None);
    };
    let (first, last) = (first.as_usize(), last.as_usize());
    // Outputs' null rows are empty: a null row holding bytes takes the per-row path.
    if let Some(nulls) = col.validity() {
        let empty = |i: usize| offsets.get(i) == offsets.get(i + 1);
        if nulls.null_count() > 0 && !(0..nulls.len()).filter(|&i| nulls.is_null(i)).all(empty) {
            return Ok(None);
        }
    }
    let mut bytes = col.values().get(first..last).unwrap_or(&[]).to_vec();
    // Pieces of about PIECE bytes, each starting at a character boundary.
    let mut pieces: Vec<&mut [u8]> = Vec::new();
    let mut rest: &mut [u8] = &mut bytes;
    while rest.len() > PIECE {
        let mut cut = PIECE;
        while rest.get(cut).is_some_and(|&b| b & 0xC0 == 0x80) {
            cut += 1;
        }
        let (piece, tail) = std::mem::take(&mut rest).split_at_mut(cut);
        pieces.push(piece);
        rest = tail;
    }
    pieces.push(rest);
    let same_lengths = AtomicBool::new(true);
    pieces.into_par_iter().for_each(|piece| {
        // SAFETY: the bytes are a copy of valid UTF-8 rows laid end to end, and every
        // piece starts and ends at a character boundary (cuts skip continuation
        // bytes), so each piece is valid UTF-8.
        let piece = unsafe { std::str::from_utf8_unchecked_mut(piece) };
        if !map_in_place(piece, ascii_images, map) {
            same_lengths.store(false, Ordering::Relaxed);
        }
    });
    if !same_lengths.load(Ordering::Relaxed) {
        return Ok(None);
    }
    let values = arrow_buffer::ScalarBuffer::from(bytes);
    let validity = col.validity().cloned();
    let rebased = |o: &O| o.as_usize() - first;
    Ok(Some(
        if crate::strings::build::wide_offsets("case map", width, last - first)? {
            let offsets: Vec<i64> = offsets.par_iter().map(|o| rebased(o) as i64).collect();
            // SAFETY: the offsets are the input's, shifted by its first offset: non-empty,
            // non-decreasing, from 0 to the values' length; each row's bytes were mapped
            // character by character to characters of the same length, so rows stay whole
            // valid UTF-8; the validity is the input's, one slot per row.
            AnyStringColumn::LargeUtf8(unsafe {
                StringColumn::new_unchecked(offsets.into(), values, validity)
            })
        } else {
            let offsets: Vec<i32> = offsets.par_iter().map(|o| rebased(o) as i32).collect();
            // SAFETY: as above; the total fits i32 (`wide_offsets` said so).
            AnyStringColumn::Utf8(unsafe {
                StringColumn::new_unchecked(offsets.into(), values, validity)
            })
        },
    ))
}

/// Map every character of `row` in place (ASCII bytes through `ascii_images`, others
/// through `map`) while each image has its character's byte length; `false` (the row
/// then partly mapped) at the first that does not.
fn map_in_place(row: &mut str, ascii_images: &[u8; 128], map: fn(char) -> char) -> bool {
    // SAFETY: only whole characters are overwritten, each by a character of the same
    // UTF-8 length (or ASCII by ASCII), so the bytes stay valid UTF-8 throughout.
    let bytes = unsafe { row.as_bytes_mut() };
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b < 0x80 {
            bytes[i] = ascii_images[usize::from(b)];
            i += 1;
            continue;
        }
        let len = match b {
            0xF0.. => 4,
            0xE0.. => 3,
            _ => 2,
        };
        let Some(c) = bytes
            .get(i..i + len)
            .and_then(|piece| std::str::from_utf8(piece).ok())
            .and_then(|piece| piece.chars().next())
        else {
            return false;
        };
        let image = map(c);
        if image.len_utf8() != len {
            return false;
        }
        image.encode_utf8(&mut bytes[i..i + len]);
        i += len;
    }
    true
}

pub(crate) fn upper<O: OffsetSize>(
    col: &StringColumn<O>,
    width: OffsetWidth,
) -> Result<AnyStringColumn> {
    map_chars(col, width, str::make_ascii_uppercase, upper_char)
}

pub(crate) fn lower<O: OffsetSize>(
    col: &StringColumn<O>,
    width: OffsetWidth,
) -> Result<AnyStringColumn> {
    map_chars(col, width, str::make_ascii_lowercase, lower_char)
}

pub(crate) fn strip<O: OffsetSize>(
    col: &StringColumn<O>,
    side: Side,
    chars: Option<&str>,
) -> Result<StringColumn<O>> {
    let values = col.values();
    let (left, right) = (side != Side::Right, side != Side::Left);
    // An ASCII set is stripped byte by byte: an ASCII byte is never part of a longer
    // character. Whitespace (no set) is ASCII.
    let ascii: Option<[bool; 256]> = match chars {
        Some(set) if !set.is_ascii() => None,
        _ => Some(std::array::from_fn(|b| {
            let c = char::from(b as u8);
            b < 128 && chars.map_or_else(|| is_strip_whitespace(c), |set| set.contains(c))
        })),
    };
    // The kept bytes of row i, a range of the values.
    let keep = |i: usize| -> Range<usize> {
        let Range {
            start: mut a,
            end: mut b,
        } = col.range(i);
        match &ascii {
            Some(strips) => {
                while left && a < b && strips[usize::from(values[a])] {
                    a += 1;
                }
                while right && b > a && strips[usize::from(values[b - 1])] {
                    b -= 1;
                }
            }
            None => {
                let set = chars.unwrap_or_default();
                let strips = |c: char| set.contains(c);
                let s = col.row_str(i);
                let from = if left {
                    s.len() - s.trim_start_matches(strips).len()
                } else {
                    0
                };
                let to = if right {
                    from + s[from..].trim_end_matches(strips).len()
                } else {
                    s.len()
                };
                (a, b) = (a + from, a + to);
            }
        }
        a..b
    };
    let out = build_strings(
        "strip",
        col.len(),
        col.validity().cloned(),
        O::WIDTH,
        |i| keep(i).len(),
        |i, out| {
            out.push_within(values, keep(i));
            Ok(())
        },
    )?;
    O::from_any_strings(out).ok_or_else(|| Error::invalid_argument("strip", "offset width"))
}

pub(crate) fn pad<O: OffsetSize>(
    col: &StringColumn<O>,
    width_chars: usize,
    side: Side,
    fill: char,
    width: OffsetWidth,
) -> Result<AnyStringColumn> {
    let values = col.values();
    let run = run_of(fill.encode_utf8(&mut [0; 4]));
    let fill_len = fill.len_utf8();
    // The fill characters row i lacks.
    let missing = |r: &Range<usize>| width_chars.saturating_sub(char_count(&values[r.clone()]));
    build_strings(
        "pad",
        col.len(),
        col.validity().cloned(),
        width,
        |i| {
            let r = col.range(i);
            missing(&r).saturating_mul(fill_len).saturating_add(r.len())
        },
        |i, out| {
            let r = col.range(i);
            let missing = missing(&r);
            let left = match side {
                Side::Left => missing,
                Side::Right => 0,
                Side::Both => missing / 2,
            };
            out.push_run(&run, left * fill_len);
            out.push_within(values, r);
            out.push_run(&run, (missing - left) * fill_len);
            Ok(())
        },
    )
}

pub(crate) fn repeat<O: OffsetSize>(
    col: &StringColumn<O>,
    times: usize,
    width: OffsetWidth,
) -> Result<AnyStringColumn> {
    let values = col.values();
    build_strings(
        "repeat",
        col.len(),
        col.validity().cloned(),
        width,
        |i| col.range(i).len().saturating_mul(times),
        |i, out| {
            let r = col.range(i);
            if !r.is_empty() {
                for _ in 0..times {
                    out.push_within(values, r.clone());
                }
            }
            Ok(())
        },
    )
}

pub(crate) fn replace<O: OffsetSize>(
    col: &StringColumn<O>,
    pattern: &str,
    replacement: &str,
    max_count: Option<usize>,
    width: OffsetWidth,
) -> Result<AnyStringColumn> {
    if pattern.is_empty() {
        return Err(Error::invalid_argument("replace", "the pattern is empty"));
    }
    let max = max_count.unwrap_or(usize::MAX);
    CpuBackend.transform_strings(col.len(), width, |i, out| {
        let Some(s) = col.get(i) else { return false };
        let mut rest = s;
        let mut count = 0;
        while count < max {
            let Some(at) = rest.find(pattern) else { break };
            out.push_str(&rest[..at]);
            out.push_str(replacement);
            rest = &rest[at + pattern.len()..];
            count += 1;
        }
        out.push_str(rest);
        true
    })
}

pub(crate) fn join<O: OffsetSize>(
    col: &StringColumn<O>,
    separator: &str,
    width: OffsetWidth,
) -> Result<AnyStringColumn> {
    CpuBackend.transform_strings(1, width, |_, out| {
        let mut first = true;
        for s in col.iter().flatten() {
            if !first {
                out.push_str(separator);
            }
            out.push_str(s);
            first = false;
        }
        true
    })
}

pub(crate) fn append(columns: &[StringArg<'_>], width: OffsetWidth) -> Result<AnyStringColumn> {
    let starts = StringArg::row_starts("append", columns)?;
    CpuBackend.transform_strings(starts[columns.len()], width, |row, out| {
        let k = starts.partition_point(|&s| s <= row) - 1;
        match columns[k].get(row - starts[k]) {
            Some(s) => {
                out.push_str(s);
                true
            }
            None => false,
        }
    })
}
