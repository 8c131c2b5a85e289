//! The CPU's variable-length strings output: build a column row by row from a closure
//! ([`CpuBackend::transform_strings`]), and the ops written on it (`copy_if_else`,
//! `concatenate`, `redact`).
//!
//! Two passes over rows in chunks across rayon tasks, as the GPU's two-pass helper:
//! the first calls the closure for each row into a scratch buffer that each thread
//! keeps between calls, recording each row's size (in the buffer that becomes the i32
//! offsets) and validity; the chunk totals are scanned into bases and the offset width
//! chosen; the second calls the closure again and copies each row into place. Nothing
//! but the output is allocated per call: fresh memory costs the kernel a page clear per
//! page, which is slower than running the closure twice.

use std::cell::RefCell;

use arrow_buffer::{BooleanBuffer, NullBuffer};
use rayon::prelude::*;

use ragged_core::ops::{AnyStringColumn, ConcatNulls, OffsetWidth, StringArg, REDACTED};
use ragged_core::{BooleanColumn, Error, OffsetSize, Result, ScalarBuffer, StringColumn};

use crate::{output_vec, CpuBackend, CHUNK};

thread_local! {
    /// Each thread's scratch row, kept between calls (taken out while in use, so that
    /// a closure that itself builds a column gets a fresh one).
    static SCRATCH: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Run `f` with this thread's scratch string.
fn with_scratch<R>(f: impl FnOnce(&mut String) -> R) -> R {
    let mut scratch = SCRATCH.with(|s| std::mem::take(&mut *s.borrow_mut()));
    let out = f(&mut scratch);
    SCRATCH.with(|s| *s.borrow_mut() = scratch);
    out
}

/// What the first pass learned of one chunk.
struct ChunkSizes {
    total: usize,
    nulls: usize,
    /// The first row of 2^31 bytes or more (the GPU's limit on one row).
    too_long: Option<usize>,
}

impl CpuBackend {
    /// A strings column of `rows` rows built by `write(row, out)`, which appends row
    /// `row`'s text to `out` (empty on entry) and returns whether the row is valid (the
    /// text of a null row is dropped). `write` runs twice per row, in parallel — once
    /// to size the row, once to place it — and must write the same text both times.
    /// `width` picks the offsets: i32 unless the total exceeds `i32::MAX` bytes
    /// ([`OffsetWidth::Auto`]), or as asked.
    ///
    /// This is the CPU half of ragged's fused transforms: an op written as one closure
    /// builds its column from its inputs with no intermediate columns.
    ///
    /// # Errors
    /// [`Error::Overflow`] when `width` is [`OffsetWidth::I32`] and the output exceeds
    /// `i32::MAX` bytes, or when one row reaches 2^31 bytes (the lowest such row);
    /// [`Error::InvalidArgument`] when `write` wrote different text the second time.
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
        // Pass 1: sizes[row + 1] = the row's size (0 when null), validity words.
        let mut sizes: Vec<i32> = output_vec(rows + 1);
        let mut words: Vec<u64> = output_vec(rows.div_ceil(64));
        let chunks: Vec<ChunkSizes> = sizes[1..]
            .par_chunks_mut(CHUNK)
            .zip(words.par_chunks_mut(CHUNK / 64))
            .enumerate()
            .map(|(task, (sizes, words))| {
                with_scratch(|scratch| {
                    let mut chunk = ChunkSizes {
                        total: 0,
                        nulls: 0,
                        too_long: None,
                    };
                    for (k, size) in sizes.iter_mut().enumerate() {
                        let row = task * CHUNK + k;
                        scratch.clear();
                        let valid = write(row, scratch);
                        let len = if valid { scratch.len() } else { 0 };
                        if len > i32::MAX as usize {
                            chunk.too_long.get_or_insert(row);
                        }
                        *size = len.min(i32::MAX as usize) as i32;
                        chunk.total += len;
                        if valid {
                            words[k / 64] |= 1 << (k % 64);
                        } else {
                            chunk.nulls += 1;
                        }
                    }
                    chunk
                })
            })
            .collect();
        if let Some(row) = chunks.iter().find_map(|c| c.too_long) {
            return Err(Error::Overflow {
                op: "transform_strings",
                message: format!("output row {row} has 2^31 bytes or more"),
            });
        }
        let total: usize = chunks.iter().map(|c| c.total).sum();
        let wide = match width {
            OffsetWidth::I64 => true,
            OffsetWidth::Auto => total > i32::MAX as usize,
            OffsetWidth::I32 if total > i32::MAX as usize => {
                return Err(Error::Overflow {
                    op: "transform_strings",
                    message: format!("{total} output bytes exceed i32 offsets"),
                })
            }
            OffsetWidth::I32 => false,
        };
        let nulls: usize = chunks.iter().map(|c| c.nulls).sum();
        let validity = (nulls > 0).then(|| {
            NullBuffer::new(BooleanBuffer::new(
                arrow_buffer::Buffer::from_vec(words),
                0,
                rows,
            ))
        });
        let bases: Vec<usize> = chunks
            .iter()
            .scan(0usize, |base, c| {
                let at = *base;
                *base += c.total;
                Some(at)
            })
            .collect();
        let mut values: Vec<u8> = output_vec(total);
        let column = if wide {
            let mut offsets: Vec<i64> = output_vec(rows + 1);
            place(&write, &sizes, &mut offsets, &mut values, &chunks, &bases)?;
            AnyStringColumn::LargeUtf8(finish(offsets, values, validity))
        } else {
            // The sizes become the offsets in place: row r's end only needs its own size.
            let mut offsets = std::mem::take(&mut sizes);
            place_in_place(&write, &mut offsets, &mut values, &chunks, &bases)?;
            AnyStringColumn::Utf8(finish(offsets, values, validity))
        };
        Ok(column)
    }
}

/// The chunks' parts of the values, one mutable slice each.
fn split_values<'a>(mut values: &'a mut [u8], chunks: &[ChunkSizes]) -> Vec<&'a mut [u8]> {
    let mut parts = Vec::with_capacity(chunks.len());
    for c in chunks {
        let (part, rest) = values.split_at_mut(c.total);
        parts.push(part);
        values = rest;
    }
    parts
}

/// Pass 2 writing i64 offsets from the sizes.
fn place(
    write: &(impl Fn(usize, &mut String) -> bool + Sync),
    sizes: &[i32],
    offsets: &mut [i64],
    values: &mut [u8],
    chunks: &[ChunkSizes],
    bases: &[usize],
) -> Result<()> {
    let parts = split_values(values, chunks);
    let changed = offsets[1..]
        .par_chunks_mut(CHUNK)
        .zip(sizes[1..].par_chunks(CHUNK))
        .zip(parts)
        .enumerate()
        .map(|(task, ((ends, sizes), part))| {
            fill_chunk(
                write,
                task,
                part,
                sizes.iter().map(|&s| s as usize),
                |k, end| {
                    ends[k] = (bases[task] + end) as i64;
                },
            )
        })
        .any(|changed| changed);
    check_same(changed)
}

/// Pass 2 turning the i32 sizes into offsets where they are.
fn place_in_place(
    write: &(impl Fn(usize, &mut String) -> bool + Sync),
    offsets: &mut [i32],
    values: &mut [u8],
    chunks: &[ChunkSizes],
    bases: &[usize],
) -> Result<()> {
    let parts = split_values(values, chunks);
    let changed = offsets[1..]
        .par_chunks_mut(CHUNK)
        .zip(parts)
        .enumerate()
        .map(|(task, (ends, part))| {
            // Each end is read as the row's size before it is overwritten.
            let mut at = bases[task];
            with_scratch(|scratch| {
                let mut changed = false;
                let mut local = 0usize;
                for (k, end) in ends.iter_mut().enumerate() {
                    let size = *end as usize;
                    changed |= copy_row(
                        write,
                        task * CHUNK + k,
                        size,
                        scratch,
                        &mut part[local..local + size],
                    );
                    local += size;
                    at += size;
                    *end = at as i32;
                }
                changed
            })
        })
        .any(|changed| changed);
    check_same(changed)
}

/// Write one chunk's rows of known sizes into `part`, reporting each row's end within
/// the chunk; returns whether a row came out with another size than the first time.
fn fill_chunk(
    write: &(impl Fn(usize, &mut String) -> bool + Sync),
    task: usize,
    part: &mut [u8],
    sizes: impl Iterator<Item = usize>,
    mut end: impl FnMut(usize, usize),
) -> bool {
    with_scratch(|scratch| {
        let mut changed = false;
        let mut local = 0usize;
        for (k, size) in sizes.enumerate() {
            changed |= copy_row(
                write,
                task * CHUNK + k,
                size,
                scratch,
                &mut part[local..local + size],
            );
            local += size;
            end(k, local);
        }
        changed
    })
}

/// Write `row` (of `size` bytes on the first pass) into `dest` through `scratch`;
/// returns whether it came out with another size.
fn copy_row(
    write: &(impl Fn(usize, &mut String) -> bool + Sync),
    row: usize,
    size: usize,
    scratch: &mut String,
    dest: &mut [u8],
) -> bool {
    if size == 0 {
        return false;
    }
    scratch.clear();
    write(row, scratch);
    if scratch.len() != size {
        return true;
    }
    dest.copy_from_slice(scratch.as_bytes());
    false
}

/// The error of a closure that wrote differently on its second call.
fn check_same(changed: bool) -> Result<()> {
    if changed {
        return Err(Error::invalid_argument(
            "transform_strings",
            "the closure wrote a row of another size on its second call",
        ));
    }
    Ok(())
}

/// The column from its offsets, values and validity.
fn finish<O: OffsetSize>(
    offsets: Vec<O>,
    values: Vec<u8>,
    validity: Option<NullBuffer>,
) -> StringColumn<O> {
    // SAFETY: the offsets start at 0, grow by each row's size and end at the values'
    // length; each row holds the bytes of a `String` written for it (the same size was
    // checked on both passes; a changed row is an error before this point), so valid
    // UTF-8.
    unsafe { StringColumn::new_unchecked(ScalarBuffer::from(offsets), values.into(), validity) }
}

/// The number of rows of the column arguments, which must agree; `None` when every
/// argument is a scalar.
fn common_rows(op: &'static str, args: &[StringArg<'_>]) -> Result<Option<usize>> {
    let rows = args.iter().find_map(StringArg::rows);
    if let Some(rows) = rows {
        for arg in args {
            arg.check_rows(op, "an input column", rows)?;
        }
    }
    Ok(rows)
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
    let rows = common_rows("concatenate", columns)?.ok_or_else(|| {
        Error::invalid_argument("concatenate", "at least one input must be a column")
    })?;
    CpuBackend.transform_strings(rows, width, |i, out| {
        let mut first = true;
        for arg in columns {
            let value = match (arg.get(i), nulls) {
                (Some(s), _) => s,
                (None, ConcatNulls::Null) => return false,
                (None, ConcatNulls::Skip) => continue,
                (None, ConcatNulls::Replace(r)) => r,
            };
            if !first {
                out.push_str(separator);
            }
            out.push_str(value);
            first = false;
        }
        true
    })
}

pub(crate) fn redact<O: OffsetSize>(
    names: &StringColumn<O>,
    visibility: StringArg<'_>,
    width: OffsetWidth,
) -> Result<AnyStringColumn> {
    visibility.check_rows("redact", "the visibility column", names.len())?;
    CpuBackend.transform_strings(names.len(), width, |i, out| {
        // The same rule as redact_row, written without its allocation.
        if !visibility.get(i).is_some_and(|v| v.contains("public")) {
            out.push_str(REDACTED);
            return true;
        }
        let Some(name) = names.get(i) else {
            return false;
        };
        let Some((first, rest)) = name.split_once(' ') else {
            return false;
        };
        if let Some(c) = rest.chars().next().filter(|&c| c != ' ') {
            out.push(c);
        }
        out.push(' ');
        out.push_str(first);
        true
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ragged_core::ops::redact_row;

    #[test]
    fn a_closure_that_changes_its_rows_is_an_error_and_one_may_nest() {
        let calls = std::sync::atomic::AtomicUsize::new(0);
        let out = CpuBackend.transform_strings(3, OffsetWidth::Auto, |_, out| {
            let n = calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            out.push_str(if n < 3 { "a" } else { "bb" });
            true
        });
        assert!(matches!(out, Err(Error::InvalidArgument { .. })));
        // A closure that builds a column itself gets its own scratch row.
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
