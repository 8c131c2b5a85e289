//! Strings columns whose rows' sizes are known before their bytes (`concatenate`,
//! `pad`, `repeat`, `strip`, `slice_chars`, `slice_bytes`), built as the GPU builds
//! them: sizes → scan → fill.
//!
//! Two passes over the rows in chunks across rayon tasks: each task sums its rows'
//! sizes; the sums are scanned into each task's first byte and the offset width is
//! chosen from the total; then each task writes its rows' bytes straight into its part
//! of the output, and their offsets. Each byte is written once, where
//! [`CpuBackend::transform_strings`] writes it into a task's buffer and copies it
//! again. That pays where a row's size costs much less than its bytes: from the offsets
//! alone (`concatenate`, `repeat`, `slice_bytes`), from the row's ends (`strip`) or
//! from a count of its characters (`pad`, `slice_chars`).
//!
//! [`CpuBackend::transform_strings`]: crate::CpuBackend::transform_strings

use std::ops::Range;

use arrow_buffer::NullBuffer;
use rayon::prelude::*;

use ragged_core::ops::{AnyStringColumn, OffsetWidth, StringArg};
use ragged_core::{Error, OffsetSize, Result, ScalarBuffer, StringColumn};

use crate::{output_vec, CHUNK};

/// The bytes copied at once by [`RowOut::push_within`].
const WIDE: usize = 16;

/// Where a task writes its rows: its part of the output values and the next byte's
/// place in it. The task writes its part in order, to the end.
pub(crate) struct RowOut<'a> {
    part: &'a mut [u8],
    at: usize,
}

impl RowOut<'_> {
    /// Append `src[range]`. A range of up to 16 bytes is copied as one 16-byte load and
    /// store when `src` and the part both have 16 bytes from there: the bytes past the
    /// row are written again by the rows after it, since every byte of the part is
    /// written in order before the task ends.
    #[inline]
    pub(crate) fn push_within(&mut self, src: &[u8], range: Range<usize>) {
        let len = range.len();
        let at = self.at;
        match (
            src.get(range.start..range.start + WIDE),
            self.part.get_mut(at..at + WIDE),
        ) {
            (Some(from), Some(to)) if len <= WIDE => to.copy_from_slice(from),
            _ => self.part[at..at + len].copy_from_slice(&src[range]),
        }
        self.at = at + len;
    }

    /// Append the first `len` bytes of `run` as many times as it takes to write `len`
    /// bytes (`run` holds whole repeats of what is appended).
    #[inline]
    pub(crate) fn push_run(&mut self, run: &[u8], mut len: usize) {
        while len > 0 {
            let take = len.min(run.len());
            self.push_within(run, 0..take);
            len -= take;
        }
    }
}

/// `text` repeated to at least 256 bytes (whole repeats), followed by 16 spare bytes
/// so that [`RowOut::push_within`] copies short pieces of it at once. Empty for an
/// empty `text`.
pub(crate) fn run_of(text: &str) -> Vec<u8> {
    if text.is_empty() {
        return Vec::new();
    }
    let repeats = 256usize.div_ceil(text.len());
    let mut run = text.repeat(repeats).into_bytes();
    run.extend_from_slice(&[0; WIDE]);
    run
}

/// Whether a column of `total` bytes gets i64 offsets under `width`.
///
/// # Errors
/// [`Error::Overflow`] when `width` is [`OffsetWidth::I32`] and `total` exceeds
/// `i32::MAX`.
pub(crate) fn wide_offsets(op: &'static str, width: OffsetWidth, total: usize) -> Result<bool> {
    match width {
        OffsetWidth::I64 => Ok(true),
        OffsetWidth::Auto => Ok(total > i32::MAX as usize),
        OffsetWidth::I32 if total > i32::MAX as usize => Err(Error::Overflow {
            op,
            message: format!("{total} output bytes exceed i32 offsets"),
        }),
        OffsetWidth::I32 => Ok(false),
    }
}

/// A strings column of `rows` rows, null where `validity` says so: `size(i)` is the
/// byte length of valid row `i`, and `write(i, out)` appends exactly that many bytes
/// (or fails; the error of the lowest failing row is returned). Null rows are empty
/// and neither function sees them. `width` picks the offsets as in
/// [`CpuBackend::transform_strings`](crate::CpuBackend::transform_strings).
///
/// # Errors
/// [`Error::row_too_long`] naming the lowest row of 2^31 bytes or more, before
/// anything is written; [`Error::Overflow`] when `width` is [`OffsetWidth::I32`] and
/// the output exceeds `i32::MAX` bytes; the first error of `write`.
pub(crate) fn build_strings(
    op: &'static str,
    rows: usize,
    validity: Option<NullBuffer>,
    width: OffsetWidth,
    size: impl Fn(usize) -> usize + Sync,
    write: impl Fn(usize, &mut RowOut<'_>) -> Result<()> + Sync,
) -> Result<AnyStringColumn> {
    let valid = |i: usize| validity.as_ref().is_none_or(|v| v.is_valid(i));
    // Pass 1: each task's bytes, and its first row of 2^31 bytes or more.
    let sums: Vec<(usize, Option<usize>)> = (0..rows.div_ceil(CHUNK))
        .into_par_iter()
        .map(|task| {
            let mut sum = 0usize;
            for i in task * CHUNK..((task + 1) * CHUNK).min(rows) {
                if valid(i) {
                    let n = size(i);
                    if n > i32::MAX as usize {
                        return (sum, Some(i));
                    }
                    sum += n;
                }
            }
            (sum, None)
        })
        .collect();
    if let Some(row) = sums.iter().find_map(|s| s.1) {
        return Err(Error::row_too_long(op, row));
    }
    let total = sums
        .iter()
        .try_fold(0usize, |t, s| t.checked_add(s.0))
        .ok_or_else(|| Error::Overflow {
            op,
            message: "the output's size overflows usize".into(),
        })?;
    let wide = wide_offsets(op, width, total)?;
    Ok(if wide {
        AnyStringColumn::LargeUtf8(fill::<i64>(rows, &sums, total, validity, &write)?)
    } else {
        AnyStringColumn::Utf8(fill::<i32>(rows, &sums, total, validity, &write)?)
    })
}

/// Pass 2 of [`build_strings`]: `sums` are the tasks' bytes, `total` their sum.
fn fill<O: OffsetSize>(
    rows: usize,
    sums: &[(usize, Option<usize>)],
    total: usize,
    validity: Option<NullBuffer>,
    write: &(impl Fn(usize, &mut RowOut<'_>) -> Result<()> + Sync),
) -> Result<StringColumn<O>> {
    let mut offsets: Vec<O> = output_vec(rows + 1);
    let mut values: Vec<u8> = output_vec(total);
    let parts = output_parts(&mut values, &mut offsets, sums.iter().map(|s| s.0));
    let valid = |i: usize| validity.as_ref().is_none_or(|v| v.is_valid(i));
    let done: Vec<Result<()>> = parts
        .into_par_iter()
        .enumerate()
        .map(|(task, (base, part, ends))| {
            let mut out = RowOut { part, at: 0 };
            for (k, end) in ends.iter_mut().enumerate() {
                let i = task * CHUNK + k;
                if valid(i) {
                    write(i, &mut out)?;
                }
                *end = O::usize_as(base + out.at);
            }
            debug_assert_eq!(out.at, out.part.len(), "rows written != their sizes");
            Ok(())
        })
        .collect();
    done.into_iter().collect::<Result<()>>()?;
    // SAFETY: the offsets start at 0, do not decrease and end at `total`, the length of
    // the values (each task wrote exactly its rows' sizes, which sum to its part); the
    // callers' `write` appends whole UTF-8 rows or pieces of them cut at character
    // boundaries, so every row is valid UTF-8.
    Ok(
        unsafe {
            StringColumn::new_unchecked(ScalarBuffer::from(offsets), values.into(), validity)
        },
    )
}

/// The output split among tasks of [`CHUNK`] rows whose bytes number `lens`: for each,
/// its first byte's place, its part of `values` and its rows' end offsets (`offsets`
/// after the first).
pub(crate) fn output_parts<'a, O>(
    values: &'a mut [u8],
    offsets: &'a mut [O],
    lens: impl Iterator<Item = usize>,
) -> Vec<(usize, &'a mut [u8], &'a mut [O])> {
    let mut parts = Vec::new();
    let mut rest = values;
    let mut base = 0usize;
    for (len, ends) in lens.zip(offsets[1..].chunks_mut(CHUNK)) {
        let (part, tail) = rest.split_at_mut(len);
        parts.push((base, part, ends));
        rest = tail;
        base += len;
    }
    parts
}

/// A strings argument read row by row as byte ranges of one buffer: a column's values,
/// or a scalar's bytes followed by 16 spare bytes (for [`RowOut::push_within`]).
pub(crate) enum ArgRows<'a> {
    /// The same bytes for every row (`None`: null).
    Scalar(Option<Vec<u8>>),
    /// A `Utf8` column's offsets and values.
    Utf8(&'a [i32], &'a [u8], Option<&'a NullBuffer>),
    /// A `LargeUtf8` column's offsets and values.
    LargeUtf8(&'a [i64], &'a [u8], Option<&'a NullBuffer>),
}

impl<'a> ArgRows<'a> {
    /// The rows of `arg`.
    pub(crate) fn new(arg: &StringArg<'a>) -> Self {
        match *arg {
            StringArg::Scalar(s) => ArgRows::Scalar(s.map(|s| {
                let mut bytes = s.as_bytes().to_vec();
                bytes.extend_from_slice(&[0; WIDE]);
                bytes
            })),
            StringArg::Utf8(c) => ArgRows::Utf8(c.offsets(), c.values(), c.validity()),
            StringArg::LargeUtf8(c) => ArgRows::LargeUtf8(c.offsets(), c.values(), c.validity()),
        }
    }

    /// The validity of a column; a null scalar's is all null, a valid scalar's `None`.
    pub(crate) fn validity(&self, rows: usize) -> Option<NullBuffer> {
        match self {
            ArgRows::Scalar(Some(_)) => None,
            ArgRows::Scalar(None) => Some(NullBuffer::new_null(rows)),
            ArgRows::Utf8(_, _, v) => v.cloned(),
            ArgRows::LargeUtf8(_, _, v) => v.cloned(),
        }
    }

    /// The buffer that [`ArgRows::range`] indexes.
    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            ArgRows::Scalar(s) => s.as_deref().unwrap_or(&[]),
            ArgRows::Utf8(_, v, _) | ArgRows::LargeUtf8(_, v, _) => v,
        }
    }

    /// Row `i`'s bytes as a range of [`ArgRows::bytes`], `None` when null.
    #[inline]
    pub(crate) fn range(&self, i: usize) -> Option<Range<usize>> {
        match self {
            ArgRows::Scalar(s) => s.as_ref().map(|s| 0..s.len() - WIDE),
            ArgRows::Utf8(o, _, v) => v
                .is_none_or(|v| v.is_valid(i))
                .then(|| o[i] as usize..o[i + 1] as usize),
            ArgRows::LargeUtf8(o, _, v) => v
                .is_none_or(|v| v.is_valid(i))
                .then(|| o[i] as usize..o[i + 1] as usize),
        }
    }
}
