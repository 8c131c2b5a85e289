//! `split` and `rsplit` into a fixed set of columns (see
//! [`ragged_core::StringOps::split`]).
//!
//! One pass over rows in chunks across rayon tasks records every valid row's parts as
//! byte ranges (one buffer per task, [`split_ranges_into`]); the column count is the
//! most parts of a row. Each output column is then built in two passes over the tasks:
//! sizes, then the copies into place.

use arrow_buffer::{BooleanBuffer, NullBuffer};
use rayon::prelude::*;

use ragged_core::ops::{split_ranges_into, SplitOn};
use ragged_core::{Error, OffsetSize, Result, ScalarBuffer, StringColumn};

use crate::{output_vec, CHUNK};

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

pub(crate) fn split<O: OffsetSize>(
    col: &StringColumn<O>,
    on: SplitOn<'_>,
    max_splits: Option<usize>,
    from_right: bool,
) -> Result<Vec<StringColumn<O>>> {
    let op = if from_right { "rsplit" } else { "split" };
    if on == SplitOn::Literal("") {
        return Err(Error::invalid_argument(op, "the delimiter is empty"));
    }
    let n = col.len();
    let offsets = col.offsets();
    let tasks: Vec<Parts> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|task| {
            let rows = task * CHUNK..((task + 1) * CHUNK).min(n);
            let mut out = Parts {
                parts: Vec::new(),
                firsts: Vec::with_capacity(rows.len() + 1),
            };
            for i in rows {
                out.firsts.push(out.parts.len());
                if col.is_valid(i) {
                    let at = out.parts.len();
                    split_ranges_into(col.row_bytes(i), on, max_splits, from_right, &mut out.parts);
                    let base = offsets[i].as_usize();
                    for part in &mut out.parts[at..] {
                        *part = (part.0 + base, part.1 + base);
                    }
                }
            }
            out.firsts.push(out.parts.len());
            out
        })
        .collect();
    let columns = tasks
        .iter()
        .flat_map(|t| t.firsts.windows(2).map(|w| w[1] - w[0]))
        .max()
        .unwrap_or(0)
        .max(1);
    Ok((0..columns).map(|k| column(col, &tasks, n, k)).collect())
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
    let valid = BooleanBuffer::from_iter(
        tasks
            .iter()
            .flat_map(|t| (0..t.firsts.len() - 1).map(move |r| t.get(r, k).is_some())),
    );
    let validity = NullBuffer::new(valid);
    let validity = (validity.null_count() > 0).then_some(validity);
    // SAFETY: the offsets start at 0, do not decrease and end at the values' length
    // (at most the input's, so they fit O); every part is a range of a valid UTF-8 row
    // cut next to an ASCII delimiter or whitespace byte, or next to a literal UTF-8
    // delimiter, so on character boundaries: valid UTF-8.
    unsafe { StringColumn::new_unchecked(ScalarBuffer::from(offsets), values.into(), validity) }
}
