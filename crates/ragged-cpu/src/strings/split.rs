//! `split` and `rsplit` into a fixed set of columns (see
//! [`ragged_core::StringOps::split`]), and `split_record` and `rsplit_record` into a
//! list of strings per row ([`ragged_core::StringOps::split_record`]).
//!
//! One pass over rows in chunks across rayon tasks records every valid row's parts as
//! byte ranges (one buffer per task; a one-byte delimiter from the left found by one
//! `memchr` scan over the task's bytes, other literal delimiters by `memchr` / `memmem`
//! per row, whitespace by [`split_ranges_into`]). For `split`, the column
//! count is the most parts of a row, and each output column is then built in two
//! passes over the tasks: sizes, then the copies into place. For `split_record`, each
//! task's parts and bytes are counted, a prefix over the tasks gives where each task
//! writes, and the tasks fill the list offsets, the parts' offsets and their bytes in
//! parallel.

use arrow_buffer::NullBuffer;
use rayon::prelude::*;

use std::sync::Arc;

use memchr::memmem;
use ragged_core::ops::{split_ranges_into, SplitOn};
use ragged_core::{Error, ListColumn, OffsetSize, Result, ScalarBuffer, StringColumn};

use crate::{bool_words, output_vec, set_bits, CHUNK};

/// One task's rows: their parts (absolute byte ranges of the values) and where each
/// row's parts begin in `parts` (`rows + 1` entries).
struct Parts {
    parts: Vec<(usize, usize)>,
    firsts: Vec<usize>,
}

impl Parts {
    /// Part `k` of the task's row `r`, if the row has it.
    fn get(&self, r: usize, k: usize) -> Option<(usize, usize)> {
        let (a, b) = (self.firsts[r], self.firsts[r + 1]);
        (k < b - a).then(|| self.parts[a + k])
    }
}

/// Every valid row's parts, in tasks of [`CHUNK`] rows, after checking the delimiter.
fn parts_of<O: OffsetSize>(
    col: &StringColumn<O>,
    on: SplitOn<'_>,
    max_splits: Option<usize>,
    op: &'static str,
    from_right: bool,
) -> Result<Vec<Parts>> {
    if on == SplitOn::Literal("") {
        return Err(Error::invalid_argument(op, "the delimiter is empty"));
    }
    let n = col.len();
    let offsets = col.offsets();
    let finder = Finder::new(on);
    Ok((0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|task| {
            let rows = task * CHUNK..((task + 1) * CHUNK).min(n);
            let mut out = Parts {
                parts: Vec::new(),
                firsts: Vec::with_capacity(rows.len() + 1),
            };
            if let (Finder::Byte(b), false) = (&finder, from_right) {
                cut_task_left(col, rows, *b, max_splits, &mut out);
                return out;
            }
            for i in rows {
                out.firsts.push(out.parts.len());
                if col.is_valid(i) {
                    let at = out.parts.len();
                    finder.parts(col.row_bytes(i), max_splits, from_right, &mut out.parts);
                    let base = offsets[i].as_usize();
                    for part in &mut out.parts[at..] {
                        *part = (part.0 + base, part.1 + base);
                    }
                }
            }
            out.firsts.push(out.parts.len());
            out
        })
        .collect())
}

/// The parts of `rows` (valid rows only) cut from the left at the byte `b`, found by
/// one `memchr` scan over the rows' bytes rather than one per row: rows are a few bytes
/// long, and starting a search cost more than the search (6 M names on 2 cores: split
/// 295-320 -> 219-239 ms, split_record 196-200 -> 119-129 ms). The same parts as
/// [`Finder::parts`] gives row by row.
fn cut_task_left<O: OffsetSize>(
    col: &StringColumn<O>,
    rows: std::ops::Range<usize>,
    b: u8,
    max_splits: Option<usize>,
    out: &mut Parts,
) {
    let offsets = col.offsets();
    let cuts = max_splits.unwrap_or(usize::MAX);
    let (lo, hi) = (offsets[rows.start].as_usize(), offsets[rows.end].as_usize());
    let mut matches = memchr::memchr_iter(b, &col.values()[lo..hi])
        .map(|p| p + lo)
        .peekable();
    for i in rows {
        out.firsts.push(out.parts.len());
        let (start, end) = (offsets[i].as_usize(), offsets[i + 1].as_usize());
        // Matches in earlier rows' bytes (past their cuts, or in null rows) are skipped.
        while matches.next_if(|&m| m < start).is_some() {}
        if !col.is_valid(i) {
            continue;
        }
        let mut from = start;
        let mut made = 0;
        while made < cuts {
            let Some(m) = matches.next_if(|&m| m < end) else {
                break;
            };
            out.parts.push((from, m));
            from = m + 1;
            made += 1;
        }
        out.parts.push((from, end));
    }
    out.firsts.push(out.parts.len());
}

/// How a row is cut: a literal delimiter found by `memchr` (one byte) or a `memmem`
/// finder built once per call, else [`split_ranges_into`] (whitespace). Both give the
/// parts `split_ranges_into` defines: `memchr` and `memmem` report non-overlapping
/// occurrences, leftmost first (or rightmost first in reverse), as its scans do.
enum Finder<'a> {
    Byte(u8),
    Literal(Box<(memmem::Finder<'a>, memmem::FinderRev<'a>)>),
    Other(SplitOn<'a>),
}

impl<'a> Finder<'a> {
    fn new(on: SplitOn<'a>) -> Self {
        match on {
            SplitOn::Literal(d) if d.len() == 1 => Finder::Byte(d.as_bytes()[0]),
            SplitOn::Literal(d) if !d.is_empty() => Finder::Literal(Box::new((
                memmem::Finder::new(d.as_bytes()),
                memmem::FinderRev::new(d.as_bytes()),
            ))),
            other => Finder::Other(other),
        }
    }

    /// Append `row`'s parts (ranges within the row, left to right) to `parts`.
    fn parts(
        &self,
        row: &[u8],
        max_splits: Option<usize>,
        from_right: bool,
        parts: &mut Vec<(usize, usize)>,
    ) {
        let cuts = max_splits.unwrap_or(usize::MAX);
        match self {
            Finder::Byte(b) if from_right => {
                cut_right(row, memchr::memrchr_iter(*b, row), 1, cuts, parts)
            }
            Finder::Byte(b) => cut_left(row, memchr::memchr_iter(*b, row), 1, cuts, parts),
            Finder::Literal(pair) if from_right => {
                let rev = &pair.1;
                cut_right(row, rev.rfind_iter(row), rev.needle().len(), cuts, parts)
            }
            Finder::Literal(pair) => {
                let fwd = &pair.0;
                cut_left(row, fwd.find_iter(row), fwd.needle().len(), cuts, parts)
            }
            Finder::Other(on) => split_ranges_into(row, *on, max_splits, from_right, parts),
        }
    }
}

/// The parts of `row` cut at the first `cuts` of `matches` (m-byte delimiter starts,
/// left to right, not overlapping).
fn cut_left(
    row: &[u8],
    matches: impl Iterator<Item = usize>,
    m: usize,
    cuts: usize,
    parts: &mut Vec<(usize, usize)>,
) {
    let mut start = 0;
    for at in matches.take(cuts) {
        parts.push((start, at));
        start = at + m;
    }
    parts.push((start, row.len()));
}

/// The parts of `row` cut at the first `cuts` of `matches` (m-byte delimiter starts,
/// right to left, not overlapping), listed left to right.
fn cut_right(
    row: &[u8],
    matches: impl Iterator<Item = usize>,
    m: usize,
    cuts: usize,
    parts: &mut Vec<(usize, usize)>,
) {
    let first = parts.len();
    let mut end = row.len();
    for at in matches.take(cuts) {
        parts.push((at + m, end));
        end = at;
    }
    parts.push((0, end));
    parts[first..].reverse();
}

pub(crate) fn split<O: OffsetSize>(
    col: &StringColumn<O>,
    on: SplitOn<'_>,
    max_splits: Option<usize>,
    from_right: bool,
) -> Result<Vec<StringColumn<O>>> {
    let op = if from_right { "rsplit" } else { "split" };
    let tasks = parts_of(col, on, max_splits, op, from_right)?;
    let n = col.len();
    let columns = tasks
        .iter()
        .flat_map(|t| t.firsts.windows(2).map(|w| w[1] - w[0]))
        .max()
        .unwrap_or(0)
        .max(1);
    Ok((0..columns).map(|k| column(col, &tasks, n, k)).collect())
}

pub(crate) fn split_record<O: OffsetSize>(
    col: &StringColumn<O>,
    on: SplitOn<'_>,
    max_splits: Option<usize>,
    from_right: bool,
) -> Result<ListColumn<O>> {
    let op = if from_right {
        "rsplit_record"
    } else {
        "split_record"
    };
    let tasks = parts_of(col, on, max_splits, op, from_right)?;
    let n = col.len();
    // Where each task's parts and bytes begin in the output.
    let sizes: Vec<(usize, usize)> = tasks
        .par_iter()
        .map(|t| (t.parts.len(), t.parts.iter().map(|(a, b)| b - a).sum()))
        .collect();
    let (parts_total, bytes_total) = sizes
        .iter()
        .fold((0, 0), |(p, b), &(tp, tb)| (p + tp, b + tb));
    if O::from_i64(parts_total as i64).is_none() {
        return Err(Error::Overflow {
            op,
            message: format!("{parts_total} parts do not fit i32 list offsets"),
        });
    }
    let mut list_offsets: Vec<O> = output_vec(n + 1);
    let mut part_offsets: Vec<O> = output_vec(parts_total + 1);
    let mut values: Vec<u8> = output_vec(bytes_total);
    list_offsets[0] = O::usize_as(0);
    part_offsets[0] = O::usize_as(0);
    let mut jobs = Vec::with_capacity(tasks.len());
    let (mut lists_rest, mut parts_rest, mut bytes_rest) = (
        &mut list_offsets[1..],
        &mut part_offsets[1..],
        values.as_mut_slice(),
    );
    let (mut part_base, mut byte_base) = (0usize, 0usize);
    for (t, &(tp, tb)) in tasks.iter().zip(&sizes) {
        let (lists, l) = lists_rest.split_at_mut(t.firsts.len() - 1);
        let (parts, p) = parts_rest.split_at_mut(tp);
        let (bytes, b) = bytes_rest.split_at_mut(tb);
        jobs.push((t, part_base, byte_base, lists, parts, bytes));
        (lists_rest, parts_rest, bytes_rest) = (l, p, b);
        part_base += tp;
        byte_base += tb;
    }
    let src = col.values();
    jobs.into_par_iter()
        .for_each(|(t, part_base, byte_base, lists, parts, bytes)| {
            for (end, &first) in lists.iter_mut().zip(&t.firsts[1..]) {
                *end = O::usize_as(part_base + first);
            }
            let mut at = 0;
            for (end, &(a, b)) in parts.iter_mut().zip(&t.parts) {
                bytes[at..at + b - a].copy_from_slice(&src[a..b]);
                at += b - a;
                *end = O::usize_as(byte_base + at);
            }
        });
    // SAFETY: the parts' offsets start at 0, do not decrease and end at the values'
    // length (at most the input's bytes, so they fit O); every part is a range of a
    // valid UTF-8 row cut next to an ASCII whitespace byte or next to a literal UTF-8
    // delimiter, so on character boundaries: valid UTF-8.
    let child = unsafe {
        StringColumn::new_unchecked(ScalarBuffer::from(part_offsets), values.into(), None)
    };
    // SAFETY: the list offsets start at 0, do not decrease and end at the number of
    // parts, the child's length (checked above to fit O); the validity is the input's,
    // of `n` slots.
    Ok(unsafe {
        ListColumn::new_unchecked(
            ScalarBuffer::from(list_offsets),
            Arc::new(O::into_strings_column(child)),
            col.validity().cloned(),
        )
    })
}

/// Column `k`: part `k` of every row, null where a row lacks it.
fn column<O: OffsetSize>(
    col: &StringColumn<O>,
    tasks: &[Parts],
    n: usize,
    k: usize,
) -> StringColumn<O> {
    let sizes: Vec<usize> = tasks
        .par_iter()
        .map(|t| {
            (0..t.firsts.len() - 1)
                .filter_map(|r| t.get(r, k))
                .map(|(a, b)| b - a)
                .sum()
        })
        .collect();
    let total: usize = sizes.iter().sum();
    let mut offsets: Vec<O> = output_vec(n + 1);
    let mut values: Vec<u8> = output_vec(total);
    let mut jobs = Vec::with_capacity(tasks.len());
    let mut rest = values.as_mut_slice();
    let mut base = 0usize;
    for ((t, &size), ends) in tasks.iter().zip(&sizes).zip(offsets[1..].chunks_mut(CHUNK)) {
        let (part, tail) = rest.split_at_mut(size);
        jobs.push((t, base, part, ends));
        rest = tail;
        base += size;
    }
    let bytes = col.values();
    jobs.into_par_iter().for_each(|(t, base, part, ends)| {
        let mut at = 0;
        for (r, end) in ends.iter_mut().enumerate() {
            if let Some((a, b)) = t.get(r, k) {
                part[at..at + b - a].copy_from_slice(&bytes[a..b]);
                at += b - a;
            }
            *end = O::usize_as(base + at);
        }
    });
    // Valid where the row has part k, 64 rows to a word across the tasks (whose rows
    // are bool_words' tasks of CHUNK rows).
    let valid = bool_words(n, |base, words| {
        let t = &tasks[base / CHUNK];
        set_bits(words, base, n, |row| t.get(row - base, k).is_some());
    });
    let validity = NullBuffer::new(valid);
    let validity = (validity.null_count() > 0).then_some(validity);
    // SAFETY: the offsets start at 0, do not decrease and end at the values' length
    // (at most the input's, so they fit O); every part is a range of a valid UTF-8 row
    // cut next to an ASCII delimiter or whitespace byte, or next to a literal UTF-8
    // delimiter, so on character boundaries: valid UTF-8.
    unsafe { StringColumn::new_unchecked(ScalarBuffer::from(offsets), values.into(), validity) }
}
