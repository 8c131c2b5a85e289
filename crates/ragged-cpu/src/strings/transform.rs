//! The CPU's variable-length strings output: build a column row by row from a closure
//! ([`CpuBackend::transform_strings`]), and the ops written on it (`copy_if_else`,
//! `concatenate`, `redact`).
//!
//! Each rayon task writes the rows of its chunk into its own buffer, recording where
//! each row ends; the chunks' byte counts are then scanned into bases, the offset width
//! is chosen from the total, and every task copies its bytes into place and writes its
//! offsets. Rows are computed once; the bytes are copied once more. (Calling the
//! closure twice — sizes, then bytes in place, as the GPU does — measured slower for
//! most ops: PERFORMANCE.md v0.5.2.)

use arrow_buffer::{BooleanBuffer, NullBuffer};
use rayon::prelude::*;

use ragged_core::ops::{redact_into, AnyStringColumn, ConcatNulls, OffsetWidth, StringArg};
use ragged_core::{BooleanColumn, Error, OffsetSize, Result, ScalarBuffer, StringColumn};

use std::ops::Range;

use crate::strings::build::{build_strings, output_parts, run_of, wide_offsets, ArgRows};
use crate::{output_vec, CpuBackend, CHUNK};

/// One task's rows: their bytes, where each ends within them, and their validity.
struct Chunk {
    bytes: String,
    ends: Vec<usize>,
    valid: Vec<bool>,
    /// The first row of 2^31 bytes or more (the GPU's limit on one row).
    too_long: Option<usize>,
}

impl CpuBackend {
    /// A strings column of `rows` rows built by `write(row, out)`, which appends row
    /// `row`'s text to `out` (empty on entry) and returns whether the row is valid (the
    /// text of a null row is dropped). Rows are written in parallel, each exactly once.
    /// `width` picks the offsets: i32 unless the total exceeds `i32::MAX` bytes
    /// ([`OffsetWidth::Auto`]), or as asked.
    ///
    /// This is the CPU half of ragged's fused transforms: an op written as one closure
    /// builds its column in one pass over the input, with no intermediate columns.
    ///
    /// # Errors
    /// [`Error::Overflow`] when `width` is [`OffsetWidth::I32`] and the output exceeds
    /// `i32::MAX` bytes, or when one row reaches 2^31 bytes (the lowest such row).
    ///
    /// # Example
    /// ```
    /// use ragged_core::ops::OffsetWidth;
    /// use ragged_cpu::CpuBackend;
    /// let names = ["ada", "alan"];
    /// let out = CpuBackend
    ///     .transform_strings(2, OffsetWidth::Auto, |i, out| {
    ///         out.push_str(&names[i].to_uppercase());
    ///         true
    ///     })
    ///     .unwrap();
    /// assert_eq!(out.get(1), Some("ALAN"));
    /// ```
    pub fn transform_strings(
        &self,
        rows: usize,
        width: OffsetWidth,
        write: impl Fn(usize, &mut String) -> bool + Sync,
    ) -> Result<AnyStringColumn> {
        let chunks: Vec<Chunk> = (0..rows.div_ceil(CHUNK))
            .into_par_iter()
            .map(|task| {
                let range = task * CHUNK..((task + 1) * CHUNK).min(rows);
                let mut chunk = Chunk {
                    bytes: String::new(),
                    ends: Vec::with_capacity(range.len()),
                    valid: Vec::with_capacity(range.len()),
                    too_long: None,
                };
                for row in range {
                    let start = chunk.bytes.len();
                    let valid = write(row, &mut chunk.bytes);
                    if !valid {
                        chunk.bytes.truncate(start);
                    }
                    if chunk.bytes.len() - start > i32::MAX as usize {
                        chunk.too_long.get_or_insert(row);
                        chunk.bytes.truncate(start);
                    }
                    chunk.ends.push(chunk.bytes.len());
                    chunk.valid.push(valid);
                }
                chunk
            })
            .collect();
        if let Some(row) = chunks.iter().find_map(|c| c.too_long) {
            return Err(Error::row_too_long("transform_strings", row));
        }
        let total: usize = chunks.iter().map(|c| c.bytes.len()).sum();
        let wide = wide_offsets("transform_strings", width, total)?;
        Ok(if wide {
            AnyStringColumn::LargeUtf8(assemble::<i64>(&chunks, rows, total))
        } else {
            AnyStringColumn::Utf8(assemble::<i32>(&chunks, rows, total))
        })
    }
}

/// Copy the chunks' bytes into one buffer and write the offsets (the total fits `O`).
fn assemble<O: OffsetSize>(chunks: &[Chunk], rows: usize, total: usize) -> StringColumn<O> {
    let mut offsets: Vec<O> = output_vec(rows + 1);
    let mut values: Vec<u8> = output_vec(total);
    let parts = output_parts(
        &mut values,
        &mut offsets,
        chunks.iter().map(|c| c.bytes.len()),
    );
    parts
        .into_par_iter()
        .zip(chunks)
        .for_each(|((base, part, ends), chunk)| {
            part.copy_from_slice(chunk.bytes.as_bytes());
            for (end, &e) in ends.iter_mut().zip(&chunk.ends) {
                *end = O::usize_as(base + e);
            }
        });
    let all_valid = chunks.iter().all(|c| c.valid.iter().all(|&v| v));
    let validity = (!all_valid).then(|| {
        NullBuffer::new(BooleanBuffer::from_iter(
            chunks.iter().flat_map(|c| c.valid.iter().copied()),
        ))
    });
    // SAFETY: the offsets start at 0, do not decrease and end at `total`, the length of
    // the values; every row is the bytes of a `String`, so valid UTF-8.
    unsafe { StringColumn::new_unchecked(ScalarBuffer::from(offsets), values.into(), validity) }
}

pub(crate) fn copy_if_else(
    mask: &BooleanColumn,
    left: StringArg<'_>,
    right: StringArg<'_>,
    width: OffsetWidth,
) -> Result<AnyStringColumn> {
    let rows = mask.len();
    left.check_rows("copy_if_else", "the left column", rows)?;
    right.check_rows("copy_if_else", "the right column", rows)?;
    CpuBackend.transform_strings(rows, width, |i, out| {
        let side = if mask.get(i) == Some(true) {
            &left
        } else {
            &right
        };
        match side.get(i) {
            Some(s) => {
                out.push_str(s);
                true
            }
            None => false,
        }
    })
}

pub(crate) fn concatenate(
    columns: &[StringArg<'_>],
    separator: &str,
    nulls: ConcatNulls<'_>,
    width: OffsetWidth,
) -> Result<AnyStringColumn> {
    let rows = StringArg::common_rows("concatenate", columns)?.ok_or_else(|| {
        Error::invalid_argument("concatenate", "at least one input must be a column")
    })?;
    let args: Vec<ArgRows<'_>> = columns.iter().map(ArgRows::new).collect();
    // Null rows (any input null, under ConcatNulls::Null) are not seen below.
    let validity = match nulls {
        ConcatNulls::Null => args.iter().fold(None, |v, a| {
            NullBuffer::union(v.as_ref(), a.validity(rows).as_ref())
        }),
        ConcatNulls::Skip | ConcatNulls::Replace(_) => None,
    };
    let sep = run_of(separator);
    let replacement = match nulls {
        ConcatNulls::Replace(r) => Some((run_of(r), r.len())),
        ConcatNulls::Null | ConcatNulls::Skip => None,
    };
    // Input k's piece of row i: a range of a buffer, or none (skipped).
    let piece = |k: usize, i: usize| -> Option<(&[u8], Range<usize>)> {
        match (args[k].range(i), &replacement) {
            (Some(r), _) => Some((args[k].bytes(), r)),
            (None, Some((run, len))) => Some((run.as_slice(), 0..*len)),
            (None, None) => None,
        }
    };
    build_strings(
        "concatenate",
        rows,
        validity,
        width,
        |i| {
            let (mut bytes, mut pieces) = (0, 0usize);
            for k in 0..args.len() {
                if let Some((_, r)) = piece(k, i) {
                    bytes += r.len();
                    pieces += 1;
                }
            }
            bytes + separator.len() * pieces.saturating_sub(1)
        },
        |i, out| {
            let mut first = true;
            for k in 0..args.len() {
                if let Some((buf, r)) = piece(k, i) {
                    if !first {
                        out.push_within(&sep, 0..separator.len());
                    }
                    out.push_within(buf, r);
                    first = false;
                }
            }
            Ok(())
        },
    )
}

pub(crate) fn redact<O: OffsetSize>(
    names: &StringColumn<O>,
    visibility: StringArg<'_>,
    width: OffsetWidth,
) -> Result<AnyStringColumn> {
    visibility.check_rows("redact", "the visibility column", names.len())?;
    CpuBackend.transform_strings(names.len(), width, |i, out| {
        redact_into(names.get(i), visibility.get(i), out)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ragged_core::ops::redact_row;

    #[test]
    fn a_closure_may_build_a_column_itself() {
        let out = CpuBackend
            .transform_strings(200_000, OffsetWidth::I64, |i, out| {
                let inner = CpuBackend
                    .transform_strings(2, OffsetWidth::Auto, |j, o| {
                        o.push_str(if j == 0 { "x" } else { "yz" });
                        j == 0 || i % 2 == 0
                    })
                    .unwrap_or_else(|e| panic!("{e}"));
                out.push_str(inner.get(0).unwrap_or("?"));
                out.push_str(inner.get(1).unwrap_or("-"));
                i % 3 != 0
            })
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(out.is_wide());
        for i in [0, 1, 2, 3, 199_999] {
            let want = (i % 3 != 0).then_some(if i % 2 == 0 { "xyz" } else { "x-" });
            assert_eq!(out.get(i), want, "row {i}");
        }
    }

    #[test]
    fn redact_agrees_with_redact_row() {
        let names = StringColumn::<i32>::from_options([
            Some("Jane Doe"),
            Some("Cher"),
            None,
            Some("A  B"),
            Some("Émile Ñu Zola"),
            Some(""),
            Some(" x"),
        ]);
        let vis = StringColumn::<i32>::from_options([
            Some("public"),
            Some("public"),
            Some("public"),
            Some("public"),
            Some("public"),
            None,
            Some("public"),
        ]);
        let out = redact(&names, StringArg::Utf8(&vis), OffsetWidth::Auto).unwrap();
        for i in 0..names.len() {
            assert_eq!(
                out.get(i),
                redact_row(names.get(i), vis.get(i)).as_deref(),
                "row {i}"
            );
        }
    }
}
