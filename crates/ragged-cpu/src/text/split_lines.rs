//! `split_lines`: the records of a byte buffer as a strings (or binary) column.
//!
//! Mapping: the record boundaries come from the tiled scan of `line_ends.rs`; then
//! rows in chunks of [`CHUNK`] across rayon tasks.
//!
//! ```text
//! keep delimiters:  values = input[b[0]..b[n]] (zero-copy slice), offsets = b - b[0]
//! strip delimiters: end[i] = b[i+1] - m for a terminated record (and - 1 more for a
//!                   `\r` before `\n` in newline mode), else b[i+1]
//!                   pass 1 (parallel): bytes per row chunk
//!                   scan (sequential): the chunk totals → each chunk's first offset
//!                   pass 2 (parallel): offsets and bytes of each chunk's rows
//! UTF-8 (unless binary): every row chunk is validated in parallel; the lowest bad
//!                   row wins
//! ```
//!
//! The offset width is chosen from the total once it is known (after the scan of the
//! chunk totals), so the offsets are written once, at their final width.

use rayon::prelude::*;

use ragged_core::ops::{LinePlan, LinesColumn};
use ragged_core::{BinaryColumn, Error, OffsetSize, Result, ScalarBuffer, StringColumn};

use super::line_ends::{record_boundaries, Boundaries};
use crate::CHUNK;

/// The records of `bytes`; see [`ragged_core::TextOps::split_lines`].
pub(crate) fn split_lines(bytes: &ScalarBuffer<u8>, plan: &LinePlan) -> Result<LinesColumn> {
    let hay: &[u8] = bytes;
    let Boundaries { ends, terminated } = record_boundaries(hay, plan);
    if plan.keep_delimiter() {
        let first = ends[0] as usize;
        let total = ends[ends.len() - 1] as usize - first;
        let values = bytes.slice(first, total);
        if plan.wide_output(total as u64) {
            build::<i64>(rebase(&ends), values, plan)
        } else {
            build::<i32>(rebase(&ends), values, plan)
        }
    } else {
        let stripped = Stripped::new(hay, &ends, terminated, plan);
        let totals: Vec<usize> = ends
            .par_windows(2)
            .chunks(CHUNK)
            .enumerate()
            .map(|(c, _)| stripped.bytes_of(c * CHUNK..((c + 1) * CHUNK).min(stripped.rows)))
            .collect();
        let total: usize = totals.iter().sum();
        if plan.wide_output(total as u64) {
            let (offsets, values) = stripped.gather::<i64>(&totals, total);
            build::<i64>(offsets, values, plan)
        } else {
            let (offsets, values) = stripped.gather::<i32>(&totals, total);
            build::<i32>(offsets, values, plan)
        }
    }
}

/// Offsets `ends - ends[0]` at width `O` (the caller checked that the last fits).
fn rebase<O: OffsetSize>(ends: &[i64]) -> Vec<O> {
    let first = ends[0];
    let mut out = crate::output_vec::<O>(ends.len());
    out.par_chunks_mut(CHUNK)
        .zip(ends.par_chunks(CHUNK))
        .for_each(|(out, ends)| {
            for (o, &e) in out.iter_mut().zip(ends) {
                *o = O::usize_as((e - first) as usize);
            }
        });
    out
}

/// The column of these offsets and values, after the UTF-8 check unless binary.
fn build<O: OffsetSize>(
    offsets: Vec<O>,
    values: ScalarBuffer<u8>,
    plan: &LinePlan,
) -> Result<LinesColumn>
where
    LinesColumn: From<Parts<O>>,
{
    if !plan.binary() {
        validate_utf8(&offsets, &values)?;
    }
    Ok(LinesColumn::from(Parts {
        offsets: ScalarBuffer::from(offsets),
        values,
        binary: plan.binary(),
    }))
}

/// Every row is UTF-8, checked in parallel by row chunks.
///
/// # Errors
/// [`Error::InvalidUtf8`] for the lowest bad row and the byte within it.
fn validate_utf8<O: OffsetSize>(offsets: &[O], values: &[u8]) -> Result<()> {
    let rows = offsets.len() - 1;
    let first_error = (0..rows.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let (a, b) = (c * CHUNK, ((c + 1) * CHUNK).min(rows));
            ragged_core::column::validate_utf8(&offsets[a..=b], values).map_err(|e| match e {
                Error::InvalidUtf8 { row, byte } => Error::InvalidUtf8 { row: a + row, byte },
                other => other,
            })
        })
        .find_first(Result::is_err);
    first_error.unwrap_or(Ok(()))
}

/// Checked buffers of a records column at width `O`.
struct Parts<O: OffsetSize> {
    offsets: ScalarBuffer<O>,
    values: ScalarBuffer<u8>,
    binary: bool,
}

impl From<Parts<i32>> for LinesColumn {
    fn from(p: Parts<i32>) -> Self {
        // SAFETY: the offsets start at 0, never decrease and end at `values.len()`
        // (they are the record boundaries, rebased, or the prefix of the stripped
        // sizes); rows are UTF-8 unless binary (checked by `build`).
        unsafe {
            if p.binary {
                LinesColumn::Binary(BinaryColumn::new_unchecked(p.offsets, p.values, None))
            } else {
                LinesColumn::Utf8(StringColumn::new_unchecked(p.offsets, p.values, None))
            }
        }
    }
}

impl From<Parts<i64>> for LinesColumn {
    fn from(p: Parts<i64>) -> Self {
        // SAFETY: as for i32 above.
        unsafe {
            if p.binary {
                LinesColumn::LargeBinary(BinaryColumn::new_unchecked(p.offsets, p.values, None))
            } else {
                LinesColumn::LargeUtf8(StringColumn::new_unchecked(p.offsets, p.values, None))
            }
        }
    }
}

/// The content (delimiter stripped) of each record.
struct Stripped<'a> {
    hay: &'a [u8],
    ends: &'a [i64],
    rows: usize,
    terminated: bool,
    m: usize,
    carriage_return: bool,
}

impl<'a> Stripped<'a> {
    fn new(hay: &'a [u8], ends: &'a [i64], terminated: bool, plan: &LinePlan) -> Self {
        Self {
            hay,
            ends,
            rows: ends.len() - 1,
            terminated,
            m: plan.delimiter().len(),
            carriage_return: plan.strips_carriage_return(),
        }
    }

    /// Row `i`'s content as `start..end` in the input.
    #[inline]
    fn row(&self, i: usize) -> (usize, usize) {
        let start = self.ends[i] as usize;
        let mut end = self.ends[i + 1] as usize;
        if i + 1 < self.rows || self.terminated {
            end -= self.m;
            if self.carriage_return && end > start && self.hay[end - 1] == b'\r' {
                end -= 1;
            }
        }
        (start, end)
    }

    /// The content bytes of `rows`.
    fn bytes_of(&self, rows: std::ops::Range<usize>) -> usize {
        rows.map(|i| {
            let (a, b) = self.row(i);
            b - a
        })
        .sum()
    }

    /// Offsets and values of the stripped rows, chunk `c` starting at the sum of
    /// `totals[..c]`.
    fn gather<O: OffsetSize>(&self, totals: &[usize], total: usize) -> (Vec<O>, ScalarBuffer<u8>) {
        let mut offsets = crate::output_vec::<O>(self.rows + 1);
        let mut values = crate::output_vec::<u8>(total);
        // Carve each chunk's bytes out of `values`, in order.
        let mut slices: Vec<&mut [u8]> = Vec::with_capacity(totals.len());
        let mut rest = values.as_mut_slice();
        for &t in totals {
            let (mine, others) = rest.split_at_mut(t);
            slices.push(mine);
            rest = others;
        }
        let bases: Vec<usize> = totals
            .iter()
            .scan(0, |acc, &t| {
                let base = *acc;
                *acc += t;
                Some(base)
            })
            .collect();
        offsets[..self.rows]
            .par_chunks_mut(CHUNK)
            .zip(slices.into_par_iter())
            .enumerate()
            .for_each(|(c, (offsets, out))| {
                let mut at = 0;
                for (k, o) in offsets.iter_mut().enumerate() {
                    let (a, b) = self.row(c * CHUNK + k);
                    *o = O::usize_as(bases[c] + at);
                    out[at..at + b - a].copy_from_slice(&self.hay[a..b]);
                    at += b - a;
                }
            });
        offsets[self.rows] = O::usize_as(total);
        (offsets, ScalarBuffer::from(values))
    }
}
