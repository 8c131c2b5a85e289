//! The strings ops that rewrite each row — `upper`, `lower`, `strip`, `pad`, `repeat`,
//! `replace` — and the ones that combine rows — `join`, `append` — each one closure
//! over [`CpuBackend::transform_strings`] (see [`ragged_core::StringOps`] for the
//! semantics they share with the GPU).

use ragged_core::ops::{
    is_strip_whitespace, lower_char, upper_char, AnyStringColumn, OffsetWidth, Side, StringArg,
};
use ragged_core::{Error, OffsetSize, Result, StringColumn};

use crate::CpuBackend;

/// Map every character of each row with `map` (ASCII rows in place by `ascii`).
fn map_chars<O: OffsetSize>(
    col: &StringColumn<O>,
    width: OffsetWidth,
    ascii: fn(&mut str),
    map: fn(char) -> char,
) -> Result<AnyStringColumn> {
    CpuBackend.transform_strings(col.len(), width, |i, out| {
        let Some(s) = col.get(i) else { return false };
        if s.is_ascii() {
            let start = out.len();
            out.push_str(s);
            if let Some(row) = out.get_mut(start..) {
                ascii(row);
            }
        } else {
            out.extend(s.chars().map(map));
        }
        true
    })
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
    let strips = |c: char| match chars {
        None => is_strip_whitespace(c),
        Some(set) => set.contains(c),
    };
    let out = CpuBackend.transform_strings(col.len(), O::WIDTH, |i, out| {
        let Some(s) = col.get(i) else { return false };
        let s = match side {
            Side::Left => s.trim_start_matches(strips),
            Side::Right => s.trim_end_matches(strips),
            Side::Both => s.trim_matches(strips),
        };
        out.push_str(s);
        true
    })?;
    O::from_any_strings(out).ok_or_else(|| Error::invalid_argument("strip", "offset width"))
}

/// Fail with [`Error::row_too_long`] naming the lowest valid row whose output `size`
/// reaches 2^31 bytes — before `transform_strings` would build such a row in memory.
fn check_row_sizes<O: OffsetSize>(
    col: &StringColumn<O>,
    op: &'static str,
    size: impl Fn(&str) -> usize,
) -> Result<()> {
    match (0..col.len()).find(|&i| col.is_valid(i) && size(col.row_str(i)) > i32::MAX as usize) {
        Some(row) => Err(Error::row_too_long(op, row)),
        None => Ok(()),
    }
}

pub(crate) fn pad<O: OffsetSize>(
    col: &StringColumn<O>,
    width_chars: usize,
    side: Side,
    fill: char,
    width: OffsetWidth,
) -> Result<AnyStringColumn> {
    // A fill that could make a row of 2^31 bytes: find the lowest such row first.
    if width_chars.saturating_mul(fill.len_utf8()) > i32::MAX as usize {
        check_row_sizes(col, "pad", |s| {
            width_chars
                .saturating_sub(s.chars().count())
                .saturating_mul(fill.len_utf8())
                .saturating_add(s.len())
        })?;
    }
    CpuBackend.transform_strings(col.len(), width, |i, out| {
        let Some(s) = col.get(i) else { return false };
        let missing = width_chars.saturating_sub(s.chars().count());
        let left = match side {
            Side::Left => missing,
            Side::Right => 0,
            Side::Both => missing / 2,
        };
        out.extend(std::iter::repeat_n(fill, left));
        out.push_str(s);
        out.extend(std::iter::repeat_n(fill, missing - left));
        true
    })
}

pub(crate) fn repeat<O: OffsetSize>(
    col: &StringColumn<O>,
    times: usize,
    width: OffsetWidth,
) -> Result<AnyStringColumn> {
    // Only when all the bytes repeated could reach 2^31 can one row.
    if col.values().len().saturating_mul(times) > i32::MAX as usize {
        check_row_sizes(col, "repeat", |s| s.len().saturating_mul(times))?;
    }
    CpuBackend.transform_strings(col.len(), width, |i, out| {
        let Some(s) = col.get(i) else { return false };
        if !s.is_empty() {
            out.reserve(s.len() * times);
            for _ in 0..times {
                out.push_str(s);
            }
        }
        true
    })
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
