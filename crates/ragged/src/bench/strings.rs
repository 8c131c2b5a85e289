//! The strings cases of `ragged bench`.
//!
//! Data (the shape of the strings targets, DESIGN.md §5; reproducible outside ragged
//! with the same hash): names "First Last" of ASCII letters, the first name 3–10
//! letters and the last 3–12, capitalized (about 15.5 bytes a row), and a visibility
//! column, "public" or "private" at 50 %; 600 000, 6 000 000 and 60 000 000 rows (2^16
//! with `--quick`).
//! Row `r`: lengths from `hash(10, r)`, letter `k` is `hash(11 + k / 12, r) >> 5 (k %
//! 12)` modulo 26; visibility from `hash(20, r)` (`hash` as in the lists cases).
//!
//! Bytes count the inputs (chars and offsets) read once and the output written once
//! (a bit per row for predicates, an offset-typed value per row for positions and
//! counts, chars and offsets for slices).

use ragged_core::ops::{
    AnyStringColumn, ConcatNulls, OffsetWidth, Pattern, Side, SliceBounds, SplitOn, StringArg,
};
use ragged_core::DataBuffer;
use ragged_core::{Column, Result, StringColumn};

use super::lists::hash;
use super::{size_label, BenchBackend, Harness};

/// Rows of the full suite (the sizes of the strings targets, DESIGN.md §5).
const ROWS: [usize; 3] = [600_000, 6_000_000, 60_000_000];

/// `rows` names "First Last": lengths 3–10 and 3–12, capitalized ASCII letters.
pub(crate) fn names_column(rows: usize) -> StringColumn<i32> {
    let mut offsets = Vec::with_capacity(rows + 1);
    let mut values = Vec::with_capacity(rows * 16);
    offsets.push(0i32);
    for r in 0..rows as u64 {
        let h = hash(10, r);
        let first = 3 + (h % 8) as usize;
        let last = 3 + ((h >> 8) % 10) as usize;
        for k in 0..first + last {
            let bits = hash(11 + (k / 12) as u64, r) >> (5 * (k % 12));
            let c = b'a' + (bits % 26) as u8;
            if k == first {
                values.push(b' ');
            }
            values.push(if k == 0 || k == first {
                c.to_ascii_uppercase()
            } else {
                c
            });
        }
        // rows ≤ 6 × 10^7 of ≤ 23 bytes: under i32::MAX.
        offsets.push(values.len() as i32);
    }
    // SAFETY: offsets start at 0, never decrease and end at values.len(); the values
    // are ASCII letters and spaces, valid UTF-8.
    unsafe { StringColumn::new_unchecked(offsets.into(), values.into(), None) }
}

/// `rows` visibilities: "public" or "private", by `hash(20, r)`.
pub(crate) fn visibility_column(rows: usize) -> StringColumn<i32> {
    StringColumn::from_options((0..rows as u64).map(|r| {
        Some(if hash(20, r) % 2 == 0 {
            "public"
        } else {
            "private"
        })
    }))
}

/// The strings suite: `length`, `length_bytes`, the literal searches, `like`, slices,
/// `redact` and the ops it composes (`copy_if_else`, `concatenate`, `split`), and the
/// per-row rewrites (`upper`, `lower`, `strip`, `pad`, `replace`, `repeat`).
pub(crate) fn strings_suite<B: BenchBackend>(h: &mut Harness<'_, B>, quick: bool) -> Result<()> {
    let sizes: &[usize] = if quick { &[1 << 16] } else { &ROWS };
    let b = h.backend;
    for &rows in sizes {
        let label = size_label(rows);
        let host = names_column(rows);
        let input = (host.total_bytes() + 4 * (rows + 1)) as u64;
        let (bits, positions) = (rows.div_ceil(8) as u64, 4 * rows as u64);
        let col = b.to_device_strings(&host)?;
        drop(host);
        h.case(
            &format!("strings/length/{label}"),
            rows as u64,
            input + positions,
            || b.length(&col).map(drop),
        )?;
        h.case(
            &format!("strings/length_bytes/{label}"),
            rows as u64,
            4 * (rows as u64 + 1) + positions,
            || b.length_bytes(&col).map(drop),
        )?;
        h.case(
            &format!("strings/contains/{label}"),
            rows as u64,
            input + bits,
            || b.contains(&col, Pattern::Scalar("an")).map(drop),
        )?;
        h.case(
            &format!("strings/starts_with/{label}"),
            rows as u64,
            input + bits,
            || b.starts_with(&col, Pattern::Scalar("Ma")).map(drop),
        )?;
        h.case(
            &format!("strings/ends_with/{label}"),
            rows as u64,
            input + bits,
            || b.ends_with(&col, Pattern::Scalar("son")).map(drop),
        )?;
        h.case(
            &format!("strings/find/{label}"),
            rows as u64,
            input + positions,
            || b.find(&col, Pattern::Scalar("e")).map(drop),
        )?;
        h.case(
            &format!("strings/rfind/{label}"),
            rows as u64,
            input + positions,
            || b.rfind(&col, Pattern::Scalar("e")).map(drop),
        )?;
        h.case(
            &format!("strings/count_matches/{label}"),
            rows as u64,
            input + positions,
            || b.count_matches(&col, Pattern::Scalar("a")).map(drop),
        )?;
        h.case(
            &format!("strings/like/{label}"),
            rows as u64,
            input + bits,
            || b.like(&col, "%an%o_", None).map(drop),
        )?;
        // Slices: bytes read (chars, offsets) + the column written (chars, offsets).
        for (name, start, stop, chars) in [
            ("slice_chars/1:-1", Some(1), Some(-1), true),
            ("slice_bytes/0:4", Some(0), Some(4), false),
        ] {
            let bounds = SliceBounds::Scalar { start, stop };
            let run = || {
                if chars {
                    b.slice_chars(&col, bounds)
                } else {
                    b.slice_bytes(&col, bounds)
                }
            };
            h.case_sized(
                &format!("strings/{name}/{label}"),
                rows as u64,
                || Ok(input + (run()?.values().len() + 4 * (rows + 1)) as u64),
                || run().map(drop),
            )?;
        }
        let visibility = visibility_column(rows);
        let vis_input = (visibility.total_bytes() + 4 * (rows + 1)) as u64;
        let vis = b.to_device_strings(&visibility)?;
        h.case(
            &format!("strings/contains/visibility/{label}"),
            rows as u64,
            vis_input + bits,
            || b.contains(&vis, Pattern::Scalar("public")).map(drop),
        )?;
        // Variable-length outputs: both inputs read, the column written (chars, offsets).
        let written = |out: &AnyStringColumn<B::Loc>| match out {
            AnyStringColumn::Utf8(c) => (c.values().len() + 4 * (rows + 1)) as u64,
            AnyStringColumn::LargeUtf8(c) => (c.values().len() + 8 * (rows + 1)) as u64,
        };
        let redact = || b.redact(&col, StringArg::column(&vis), OffsetWidth::Auto);
        h.case_sized(
            &format!("strings/redact/{label}"),
            rows as u64,
            || Ok(input + vis_input + written(&redact()?)),
            || redact().map(drop),
        )?;
        let public = b.contains(&vis, Pattern::Scalar("public"))?;
        let choose = || {
            b.copy_if_else(
                &public,
                StringArg::column(&col),
                StringArg::Scalar(Some("X X")),
                OffsetWidth::Auto,
            )
        };
        h.case_sized(
            &format!("strings/copy_if_else/{label}"),
            rows as u64,
            || Ok(input + bits + written(&choose()?)),
            || choose().map(drop),
        )?;
        let concat = || {
            b.concatenate(
                &[StringArg::column(&col), StringArg::column(&vis)],
                " ",
                ConcatNulls::Null,
                OffsetWidth::Auto,
            )
        };
        h.case_sized(
            &format!("strings/concatenate/{label}"),
            rows as u64,
            || Ok(input + vis_input + written(&concat()?)),
            || concat().map(drop),
        )?;
        // Per-row rewrites: the column read, the new column written.
        type Rewrite<'a, L> = Box<dyn Fn() -> Result<AnyStringColumn<L>> + 'a>;
        let rewrites: [(&str, Rewrite<'_, B::Loc>); 6] = [
            ("upper", Box::new(|| b.upper(&col, OffsetWidth::Auto))),
            ("lower", Box::new(|| b.lower(&col, OffsetWidth::Auto))),
            (
                "strip",
                Box::new(|| {
                    b.strip(&col, Side::Both, Some("Ma"))
                        .map(AnyStringColumn::Utf8)
                }),
            ),
            (
                "pad/20",
                Box::new(|| b.pad(&col, 20, Side::Left, '.', OffsetWidth::Auto)),
            ),
            (
                "replace",
                Box::new(|| b.replace(&col, "a", "AA", None, OffsetWidth::Auto)),
            ),
            (
                "repeat/2",
                Box::new(|| b.repeat(&col, 2, OffsetWidth::Auto)),
            ),
        ];
        for (name, run) in rewrites {
            h.case_sized(
                &format!("strings/{name}/{label}"),
                rows as u64,
                || Ok(input + written(&run()?)),
                || run().map(drop),
            )?;
        }
        let split = || b.split(&col, SplitOn::Literal(" "), None);
        h.case_sized(
            &format!("strings/split/{label}"),
            rows as u64,
            || {
                let parts = split()?;
                Ok(input
                    + parts
                        .iter()
                        .map(|p| (p.values().len() + 4 * (rows + 1) + rows.div_ceil(8)) as u64)
                        .sum::<u64>())
            },
            || split().map(drop),
        )?;
        // One list of parts per row: the column read; the parts (chars, offsets) and the
        // list offsets written.
        let split_record = || b.split_record(&col, SplitOn::Literal(" "), None);
        h.case_sized(
            &format!("strings/split_record/{label}"),
            rows as u64,
            || {
                let lists = split_record()?;
                let parts = match lists.child() {
                    Column::Utf8(c) => c.values().len() + 4 * (c.len() + 1),
                    other => other.len(),
                };
                Ok(input + (parts + 4 * (rows + 1)) as u64)
            },
            || split_record().map(drop),
        )?;
    }
    Ok(())
}
