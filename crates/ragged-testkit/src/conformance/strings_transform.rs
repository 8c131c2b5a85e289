//! The conformance suite of the strings ops that build new strings: `copy_if_else`,
//! `concatenate`, `split` / `rsplit`, the fused `redact`, `upper` / `lower`, `strip`,
//! `pad`, `repeat`, `replace`, `join` and `append`, generic over any [`Backend`].
//!
//! Oracles are written here with Rust's `str` methods (`splitn`, `rsplitn`, `+`), never
//! taken from a backend: each output row must equal the oracle's byte for byte, with the
//! same validity. `redact` is checked twice: against the oracle, and against the
//! composition `contains` → `split` → `slice_chars` → `concatenate` → `copy_if_else`
//! run on the same backend, as DESIGN.md §2 (Strings) requires.
//!
//! Inputs: every strings case of [`crate::gen::string_cases`] (nulls, empty rows, 1- to
//! 4-byte characters, a very long row, sliced columns, both offset widths) with a
//! second column of the other offset width, scalars (null and not), random masks with
//! nulls, every null policy, delimiters taken from the data, a space, a two-character
//! one and ASCII whitespace, with and without a split limit, from both sides; names
//! made of 0–3 words of mixed characters with runs of spaces; outputs forced to i64
//! offsets.

use ragged_core::ops::{
    AnyStringColumn, ConcatNulls, OffsetWidth, Pattern, Side, SliceBounds, SplitOn, StringArg,
};
use ragged_core::{Backend, BooleanColumn, Column, Error, Host, OffsetSize, StringColumn};

use super::backend_error;
use crate::check::{compare_validity, Failures, Mismatch};
use crate::gen::{
    in_shard, large_rows, random_string, string_cases, CharMix, StringCase, StringSpec,
};
use crate::native::TestNative;
use crate::rng::Rng;

/// Compare a downloaded output with the expected rows (`None` = null).
fn compare_strings<O: OffsetSize>(
    label: &str,
    host: &StringColumn<O, Host>,
    want: &[Option<String>],
) -> Result<(), Mismatch> {
    if host.len() != want.len() {
        return Err(Mismatch::new(
            label,
            None,
            format!("expected {} rows, got {}", want.len(), host.len()),
        ));
    }
    let valid: Vec<bool> = want.iter().map(Option::is_some).collect();
    compare_validity(label, host.validity(), host.len(), &valid)?;
    for (i, w) in want.iter().enumerate() {
        let expected = w.as_deref().unwrap_or("");
        if host.row_str(i) != expected {
            return Err(Mismatch::new(
                label,
                Some(i),
                format!("expected {expected:?}, got {:?}", host.row_str(i)),
            ));
        }
    }
    Ok(())
}

/// Download an [`AnyStringColumn`] and compare it; `wide` is the width it must have.
fn check_any<B: Backend>(
    backend: &B,
    label: &str,
    out: &AnyStringColumn<B::Loc>,
    wide: Option<bool>,
    want: &[Option<String>],
) -> Result<(), Mismatch> {
    if let Some(wide) = wide {
        if out.is_wide() != wide {
            return Err(Mismatch::new(
                label,
                None,
                format!("expected wide offsets {wide}, got {}", out.is_wide()),
            ));
        }
    }
    let fail = |e: Error| Mismatch::new(label, None, format!("to_host_strings: {e}"));
    match out {
        AnyStringColumn::Utf8(c) => {
            compare_strings(label, &backend.to_host_strings(c).map_err(fail)?, want)
        }
        AnyStringColumn::LargeUtf8(c) => {
            compare_strings(label, &backend.to_host_strings(c).map_err(fail)?, want)
        }
    }
}

/// The same rows in reverse order, as a column of the other offset width `P`.
fn reversed<P: OffsetSize>(
    rows: &[Option<String>],
) -> (StringColumn<P, Host>, Vec<Option<String>>) {
    let rev: Vec<Option<String>> = rows.iter().rev().cloned().collect();
    (
        StringColumn::<P>::from_options(rev.iter().map(|r| r.as_deref())),
        rev,
    )
}

/// A random mask of `n` rows with about 10 % nulls.
fn random_mask(n: usize, rng: &mut Rng) -> Vec<Option<bool>> {
    (0..n)
        .map(|_| (!rng.chance(10)).then(|| rng.chance(50)))
        .collect()
}

/// An oracle argument: a scalar or rows.
#[derive(Clone, Copy)]
enum Arg<'a> {
    Scalar(Option<&'a str>),
    Rows(&'a [Option<String>]),
}

impl Arg<'_> {
    fn get(&self, i: usize) -> Option<&str> {
        match self {
            Arg::Scalar(s) => *s,
            Arg::Rows(r) => r[i].as_deref(),
        }
    }
}

/// A `copy_if_else` variant: its name, then the left and right arguments, each with
/// its oracle.
type Variant<'a, L> = (
    &'a str,
    StringArg<'a, L>,
    Arg<'a>,
    StringArg<'a, L>,
    Arg<'a>,
);

/// Suite test: `copy_if_else` over every strings case of width `O`: the column against
/// a reversed column of the other width, against scalars (null and not) on either side,
/// under random masks with nulls, at automatic and forced-i64 output widths.
///
/// # Panics
/// When any output differs from the oracle.
pub fn copy_if_else<B: Backend, O: OffsetSize + TestNative>(backend: &B) {
    let mut failures = Failures::new();
    for case in string_cases::<O>() {
        let n = case.rows.len();
        let mut rng = Rng::from_label(&format!("copy_if_else/{}", case.label));
        let mask_rows = random_mask(n, &mut rng);
        let mask = BooleanColumn::from_options(mask_rows.iter().copied());
        let (other, other_rows) = reversed::<i64>(&case.rows);
        let uploaded = backend.to_device_strings(&case.column).and_then(|c| {
            Ok((
                c,
                backend.to_device_strings(&other)?,
                backend.to_device_booleans(&mask)?,
            ))
        });
        let (col, other_dev, mask_dev) = match uploaded {
            Ok(u) => u,
            Err(e) => {
                failures.record(Err(backend_error(&case, "upload", e)));
                continue;
            }
        };
        let variants: [Variant<'_, B::Loc>; 4] = [
            (
                "column/column",
                StringArg::column(&col),
                Arg::Rows(&case.rows),
                StringArg::column(&other_dev),
                Arg::Rows(&other_rows),
            ),
            (
                "column/scalar",
                StringArg::column(&col),
                Arg::Rows(&case.rows),
                StringArg::Scalar(Some("é-\u{10FFFF}")),
                Arg::Scalar(Some("é-\u{10FFFF}")),
            ),
            (
                "null/column",
                StringArg::Scalar(None),
                Arg::Scalar(None),
                StringArg::column(&col),
                Arg::Rows(&case.rows),
            ),
            (
                "scalar/null",
                StringArg::Scalar(Some("")),
                Arg::Scalar(Some("")),
                StringArg::Scalar(None),
                Arg::Scalar(None),
            ),
        ];
        for (name, left, left_rows, right, right_rows) in variants {
            let want: Vec<Option<String>> = (0..n)
                .map(|i| {
                    let side = if mask_rows[i] == Some(true) {
                        left_rows
                    } else {
                        right_rows
                    };
                    side.get(i).map(str::to_string)
                })
                .collect();
            for (width, wide) in [
                (OffsetWidth::Auto, Some(false)),
                (OffsetWidth::I64, Some(true)),
            ] {
                let label = format!("{} copy_if_else({name}, {width:?})", case.label);
                failures.record(
                    backend
                        .copy_if_else(&mask_dev, left, right, width)
                        .map_err(|e| Mismatch::new(&label, None, format!("failed: {e}")))
                        .and_then(|out| check_any(backend, &label, &out, wide, &want)),
                );
            }
        }
    }
    failures.finish(&format!("copy_if_else<{}>", O::OFFSET_NAME));
}

/// The oracle of `concatenate` for one row.
fn concat_oracle(
    args: &[Arg<'_>],
    i: usize,
    separator: &str,
    nulls: ConcatNulls<'_>,
) -> Option<String> {
    let mut parts = Vec::new();
    for arg in args {
        match (arg.get(i), nulls) {
            (Some(s), _) => parts.push(s),
            (None, ConcatNulls::Null) => return None,
            (None, ConcatNulls::Skip) => {}
            (None, ConcatNulls::Replace(r)) => parts.push(r),
        }
    }
    Some(parts.join(separator))
}

/// Suite test: `concatenate` of the column, a scalar, a reversed column of the other
/// width and a null scalar, with three separators and every null policy.
///
/// # Panics
/// When any output differs from the oracle.
pub fn concatenate<B: Backend, O: OffsetSize + TestNative>(backend: &B) {
    let mut failures = Failures::new();
    for case in string_cases::<O>() {
        let n = case.rows.len();
        let (other, other_rows) = reversed::<i64>(&case.rows);
        let uploaded = backend
            .to_device_strings(&case.column)
            .and_then(|c| Ok((c, backend.to_device_strings(&other)?)));
        let (col, other_dev) = match uploaded {
            Ok(u) => u,
            Err(e) => {
                failures.record(Err(backend_error(&case, "upload", e)));
                continue;
            }
        };
        let inputs = [
            (StringArg::column(&col), Arg::Rows(&case.rows)),
            (StringArg::Scalar(Some("ß")), Arg::Scalar(Some("ß"))),
            (StringArg::column(&other_dev), Arg::Rows(&other_rows)),
        ];
        let with_null = [
            (StringArg::column(&col), Arg::Rows(&case.rows)),
            (StringArg::Scalar(None), Arg::Scalar(None)),
        ];
        for (inputs_name, inputs) in [
            ("col,ß,rev", &inputs[..]),
            ("col,null", &with_null[..]),
            ("col", &inputs[..1]),
        ] {
            let args: Vec<StringArg<'_, B::Loc>> = inputs.iter().map(|i| i.0).collect();
            let oracle: Vec<Arg<'_>> = inputs.iter().map(|i| i.1).collect();
            for separator in ["", ", ", "\u{1F600}"] {
                for nulls in [
                    ConcatNulls::Null,
                    ConcatNulls::Skip,
                    ConcatNulls::Replace("NA"),
                ] {
                    let want: Vec<Option<String>> = (0..n)
                        .map(|i| concat_oracle(&oracle, i, separator, nulls))
                        .collect();
                    let width = if separator.is_empty() {
                        OffsetWidth::I64
                    } else {
                        OffsetWidth::Auto
                    };
                    let label = format!(
                        "{} concatenate({inputs_name}, {separator:?}, {nulls:?}, {width:?})",
                        case.label
                    );
                    failures.record(
                        backend
                            .concatenate(&args, separator, nulls, width)
                            .map_err(|e| Mismatch::new(&label, None, format!("failed: {e}")))
                            .and_then(|out| {
                                check_any(
                                    backend,
                                    &label,
                                    &out,
                                    Some(width == OffsetWidth::I64),
                                    &want,
                                )
                            }),
                    );
                }
            }
        }
    }
    failures.finish(&format!("concatenate<{}>", O::OFFSET_NAME));
}

/// The oracle of split: the parts of `row` (Rust's `splitn` / `rsplitn`, and a
/// hand-written whitespace splitter with Python's rules).
pub fn split_oracle(
    row: &str,
    on: SplitOn<'_>,
    max_splits: Option<usize>,
    from_right: bool,
) -> Vec<String> {
    let limit = max_splits.map_or(usize::MAX, |m| m.saturating_add(1));
    match on {
        SplitOn::Literal(d) => {
            if from_right {
                let mut parts: Vec<String> = row.rsplitn(limit, d).map(str::to_string).collect();
                parts.reverse();
                parts
            } else {
                row.splitn(limit, d).map(str::to_string).collect()
            }
        }
        SplitOn::Whitespace => {
            let ws = |c: char| matches!(c, ' ' | '\t' | '\n' | '\u{0b}' | '\u{0c}' | '\r');
            let cuts = max_splits.unwrap_or(usize::MAX);
            let mut parts: Vec<String> = Vec::new();
            if from_right {
                let mut rest = row.trim_end_matches(ws);
                while !rest.is_empty() {
                    if parts.len() == cuts {
                        parts.push(rest.to_string());
                        break;
                    }
                    let cut = rest.rfind(ws).map_or(0, |p| p + 1);
                    parts.push(rest[cut..].to_string());
                    rest = rest[..cut].trim_end_matches(ws);
                }
                parts.reverse();
            } else {
                let mut rest = row.trim_start_matches(ws);
                while !rest.is_empty() {
                    if parts.len() == cuts {
                        parts.push(rest.to_string());
                        break;
                    }
                    let cut = rest.find(ws).unwrap_or(rest.len());
                    parts.push(rest[..cut].to_string());
                    rest = rest[cut..].trim_start_matches(ws);
                }
            }
            parts
        }
    }
}

/// Check one split of a case against the oracle.
fn check_split<B: Backend, O: OffsetSize + TestNative>(
    backend: &B,
    case: &StringCase<O>,
    col: &StringColumn<O, B::Loc>,
    on: SplitOn<'_>,
    max_splits: Option<usize>,
    from_right: bool,
) -> Result<(), Mismatch> {
    let op = if from_right { "rsplit" } else { "split" };
    let label = format!("{} {op}({on:?}, {max_splits:?})", case.label);
    let parts: Vec<Option<Vec<String>>> = case
        .rows
        .iter()
        .map(|r| {
            r.as_deref()
                .map(|r| split_oracle(r, on, max_splits, from_right))
        })
        .collect();
    let columns = parts
        .iter()
        .flatten()
        .map(Vec::len)
        .max()
        .unwrap_or(0)
        .max(1);
    let out = if from_right {
        backend.rsplit(col, on, max_splits)
    } else {
        backend.split(col, on, max_splits)
    }
    .map_err(|e| Mismatch::new(&label, None, format!("failed: {e}")))?;
    if out.len() != columns {
        return Err(Mismatch::new(
            &label,
            None,
            format!("expected {columns} columns, got {}", out.len()),
        ));
    }
    for (k, column) in out.iter().enumerate() {
        let want: Vec<Option<String>> = parts
            .iter()
            .map(|p| p.as_ref().and_then(|p| p.get(k).cloned()))
            .collect();
        let host = backend
            .to_host_strings(column)
            .map_err(|e| Mismatch::new(&label, None, format!("to_host_strings: {e}")))?;
        compare_strings(&format!("{label} column {k}"), &host, &want)?;
    }
    Ok(())
}

/// A character of the case's first non-empty row, picked by a generator seeded from
/// `op` and the case's label ("a" when every row is empty): a delimiter that occurs.
fn character_from_data<O: OffsetSize>(case: &StringCase<O>, op: &str) -> String {
    let mut rng = Rng::from_label(&format!("{op}/{}", case.label));
    case.rows
        .iter()
        .flatten()
        .find(|r| !r.is_empty())
        .and_then(|r| r.chars().nth(rng.index(r.chars().count())))
        .map_or_else(|| "a".to_string(), String::from)
}

/// The delimiters the split tests use: a character from the data, a space, a
/// two-character delimiter and ASCII whitespace.
fn split_delimiters(from_data: &str) -> [SplitOn<'_>; 4] {
    [
        SplitOn::Literal(from_data),
        SplitOn::Literal(" "),
        SplitOn::Literal("é\u{7f}"),
        SplitOn::Whitespace,
    ]
}

/// Suite test: `split` and `rsplit` over every strings case of width `O`, at a
/// character taken from the data, a space, a two-character delimiter and ASCII
/// whitespace, with no limit and with limits 0 and 1.
///
/// # Panics
/// When any output differs from the oracle.
pub fn split<B: Backend, O: OffsetSize + TestNative>(backend: &B) {
    let mut failures = Failures::new();
    for case in string_cases::<O>() {
        let col = match backend.to_device_strings(&case.column) {
            Ok(c) => c,
            Err(e) => {
                failures.record(Err(backend_error(&case, "to_device_strings", e)));
                continue;
            }
        };
        let from_data = character_from_data(&case, "split");
        for on in split_delimiters(&from_data) {
            for max_splits in [None, Some(0), Some(1)] {
                for from_right in [false, true] {
                    failures.record(check_split(
                        backend, &case, &col, on, max_splits, from_right,
                    ));
                }
            }
        }
    }
    for case in part_count_cases::<O>() {
        match backend.to_device_strings(&case.column) {
            Ok(col) => {
                for (on, max_splits) in [
                    (SplitOn::Literal(" "), None),
                    (SplitOn::Literal(" "), Some(6)),
                    (SplitOn::Literal("é\u{7f}"), None),
                    (SplitOn::Whitespace, None),
                ] {
                    for from_right in [false, true] {
                        failures.record(check_split(
                            backend, &case, &col, on, max_splits, from_right,
                        ));
                    }
                }
            }
            Err(e) => failures.record(Err(backend_error(&case, "to_device_strings", e))),
        }
    }
    for (kind, case) in guess_cases::<O>() {
        match backend.to_device_strings(&case.column) {
            Ok(col) => {
                let mut splits = vec![
                    (SplitOn::Literal(" "), None),
                    (SplitOn::Literal(" "), Some(1)),
                ];
                if kind == "sliced" {
                    splits.push((SplitOn::Whitespace, None));
                }
                for (on, max_splits) in splits {
                    for from_right in [false, true] {
                        failures.record(check_split(
                            backend, &case, &col, on, max_splits, from_right,
                        ));
                    }
                }
            }
            Err(e) => failures.record(Err(backend_error(&case, "to_device_strings", e))),
        }
    }
    failures.finish(&format!("split<{}>", O::OFFSET_NAME));
}

/// Columns of 300 000 rows, enough that a backend may split them by a guess from a
/// sample of rows (the CUDA backend does from 2^18 rows): names "First Last" (every
/// eleventh row null), alone and with what a small sample of rows would miss — rows of
/// more parts late in the column (3 and 4, and 10: more columns than are built
/// together), longer last names in the last tenth of the rows (more bytes), ten more
/// one-letter words in each of them (more parts, few bytes), every row null but the
/// last thousand; ten more words in each of the first thousand rows (a sample that
/// overestimates); rows of blanks only (no parts by whitespace); and names over rows
/// 1 .. 2^19 + 4 of a column (sliced: its offsets start past 0, its validity at bit 1,
/// and a sample of it may start at an odd row). Each with its kind; only this
/// process's [`in_shard`] of them (each case is built by one shard).
fn guess_cases<O: OffsetSize>() -> Vec<(&'static str, StringCase<O>)> {
    const ROWS: usize = 300_000;
    const SLICED_ROWS: usize = (1 << 19) + 3;
    let word = |rng: &mut Rng, min: usize, max: usize| -> String {
        let len = min + rng.index(max - min + 1);
        (0..len)
            .map(|i| {
                let c = b'a' + rng.below(26) as u8;
                char::from(if i == 0 { c.to_ascii_uppercase() } else { c })
            })
            .collect()
    };
    let kinds = [
        "names",
        "late-parts",
        "late-columns",
        "late-long",
        "late-valid",
        "late-words",
        "early-words",
        "blank",
        "sliced",
    ];
    in_shard(kinds.to_vec())
        .into_iter()
        .map(|kind| {
            let mut rng = Rng::from_label(&format!("split/guess/{kind}"));
            let built = if kind == "sliced" {
                SLICED_ROWS + 2
            } else {
                ROWS
            };
            let rows = (0..built)
                .map(|r| {
                    let last_max = if kind == "late-long" && r >= ROWS - ROWS / 10 {
                        200
                    } else {
                        12
                    };
                    let mut name =
                        format!("{} {}", word(&mut rng, 3, 10), word(&mut rng, 3, last_max));
                    let (extra, longest) = match (kind, r) {
                        ("late-parts", r) if r == ROWS / 2 + 7 => (1, 5),
                        ("late-parts", r) if r == ROWS - 1 => (2, 5),
                        ("late-columns", r) if r == ROWS - 2 => (8, 5),
                        ("late-words", r) if r >= ROWS - ROWS / 10 => (10, 1),
                        ("early-words", r) if r < 1000 => (10, 5),
                        _ => (0, 0),
                    };
                    for _ in 0..extra {
                        name.push(' ');
                        name.push_str(&word(&mut rng, 1, longest));
                    }
                    if kind == "blank" {
                        name = " ".repeat(1 + r % 3);
                    }
                    let valid = if kind == "late-valid" {
                        r >= ROWS - 1000
                    } else {
                        r % 11 != 5
                    };
                    (name, valid)
                })
                .collect();
            let spec = StringSpec {
                rows,
                slice: (kind == "sliced").then_some((1, SLICED_ROWS)),
                explicit_validity: false,
            };
            let label = format!("{}/guess-{kind}", StringCase::<O>::type_name());
            (kind, StringCase::from_spec(label, &spec))
        })
        .collect()
}

/// Columns of rows of 1 to `most` parts (cut by " " or "é\u{7f}", words of 0 to 3
/// four-byte characters, so no other cut; every seventh row null), for `most` 8 and 9: the most columns
/// a backend may build together and one more, over several tiles of rows.
fn part_count_cases<O: OffsetSize>() -> Vec<StringCase<O>> {
    [8usize, 9]
        .into_iter()
        .map(|most| {
            let mut rng = Rng::from_label(&format!("split/parts={most}"));
            let rows = (0..1000)
                .map(|r| {
                    let parts = 1 + r % most;
                    let words: Vec<String> = (0..parts)
                        .map(|_| random_string(&mut rng, CharMix::FourByte, 3))
                        .collect();
                    let cut = if r % 2 == 0 { " " } else { "é\u{7f}" };
                    (words.join(cut), r % 7 != 3)
                })
                .collect();
            let spec = StringSpec {
                rows,
                ..Default::default()
            };
            StringCase::from_spec(
                format!("{}/parts={most}", StringCase::<O>::type_name()),
                &spec,
            )
        })
        .collect()
}

/// Check one `split_record` of a case against the oracle: list `i` holds row `i`'s
/// parts, a null row is a null, empty list, and the parts' column has the input's
/// offset width.
fn check_split_record<B: Backend, O: OffsetSize + TestNative>(
    backend: &B,
    case: &StringCase<O>,
    col: &StringColumn<O, B::Loc>,
    on: SplitOn<'_>,
    max_splits: Option<usize>,
    from_right: bool,
) -> Result<(), Mismatch> {
    let op = if from_right {
        "rsplit_record"
    } else {
        "split_record"
    };
    let label = format!("{} {op}({on:?}, {max_splits:?})", case.label);
    let out = if from_right {
        backend.rsplit_record(col, on, max_splits)
    } else {
        backend.split_record(col, on, max_splits)
    }
    .map_err(|e| Mismatch::new(&label, None, format!("failed: {e}")))?;
    let host = backend
        .to_host_list(&out)
        .map_err(|e| Mismatch::new(&label, None, format!("to_host_list: {e}")))?;
    if host.len() != case.rows.len() {
        return Err(Mismatch::new(
            &label,
            None,
            format!("expected {} lists, got {}", case.rows.len(), host.len()),
        ));
    }
    let parts: Vec<Option<String>> = match (host.child(), O::OFFSET_NAME) {
        (Column::Utf8(c), "i32") => c.iter().map(|p| p.map(str::to_string)).collect(),
        (Column::LargeUtf8(c), "i64") => c.iter().map(|p| p.map(str::to_string)).collect(),
        (other, _) => {
            return Err(Mismatch::new(
                &label,
                None,
                format!("the parts' column is {}", other.type_name()),
            ))
        }
    };
    for (i, row) in case.rows.iter().enumerate() {
        let got: Option<Vec<Option<String>>> =
            host.is_valid(i).then(|| parts[host.range(i)].to_vec());
        let want: Option<Vec<Option<String>>> = row.as_deref().map(|r| {
            split_oracle(r, on, max_splits, from_right)
                .into_iter()
                .map(Some)
                .collect()
        });
        if got != want {
            return Err(Mismatch::new(
                &label,
                Some(i),
                format!("expected {want:?}, got {got:?}"),
            ));
        }
        if row.is_none() && !host.range(i).is_empty() {
            return Err(Mismatch::new(
                &label,
                Some(i),
                "a null row's list is not empty",
            ));
        }
    }
    Ok(())
}

/// Suite test: `split_record` and `rsplit_record` over every strings case of width
/// `O`, with the delimiters of [`split`] and limits none, 0 and 2.
///
/// # Panics
/// When any output differs from the oracle.
pub fn split_record<B: Backend, O: OffsetSize + TestNative>(backend: &B) {
    let mut failures = Failures::new();
    for case in string_cases::<O>() {
        let col = match backend.to_device_strings(&case.column) {
            Ok(c) => c,
            Err(e) => {
                failures.record(Err(backend_error(&case, "to_device_strings", e)));
                continue;
            }
        };
        let from_data = character_from_data(&case, "split_record");
        for on in split_delimiters(&from_data) {
            for max_splits in [None, Some(0), Some(2)] {
                for from_right in [false, true] {
                    failures.record(check_split_record(
                        backend, &case, &col, on, max_splits, from_right,
                    ));
                }
            }
        }
        for from_right in [false, true] {
            let label = format!("{} split_record(\"\") from_right={from_right}", case.label);
            let result = if from_right {
                backend.rsplit_record(&col, SplitOn::Literal(""), None)
            } else {
                backend.split_record(&col, SplitOn::Literal(""), None)
            };
            if !matches!(result, Err(Error::InvalidArgument { .. })) {
                failures.record(Err(Mismatch::new(
                    &label,
                    None,
                    format!(
                        "expected InvalidArgument, got {:?}",
                        result.map(|l| l.len())
                    ),
                )));
            }
        }
    }
    // The long columns of `split`'s guess cases, split where no one-byte count gives
    // the totals (a limit, whitespace), so that a backend may guess them from a sample.
    for (_, case) in guess_cases::<O>() {
        match backend.to_device_strings(&case.column) {
            Ok(col) => {
                for (on, max_splits) in [
                    (SplitOn::Literal(" "), Some(1)),
                    (SplitOn::Whitespace, None),
                ] {
                    for from_right in [false, true] {
                        failures.record(check_split_record(
                            backend, &case, &col, on, max_splits, from_right,
                        ));
                    }
                }
            }
            Err(e) => failures.record(Err(backend_error(&case, "to_device_strings", e))),
        }
    }
    failures.finish(&format!("split_record<{}>", O::OFFSET_NAME));
}

/// Names for `redact`: 0–3 words of mixed characters (up to 8, sometimes 24) separated
/// by runs of 1–2 spaces, sometimes with a leading or trailing space; about 5 % null.
/// Spaces and initials land on both sides of the 16th byte, which the GPU's fast path
/// reads in registers.
fn random_names(n: usize, rng: &mut Rng) -> Vec<Option<String>> {
    (0..n)
        .map(|_| {
            if rng.chance(5) {
                return None;
            }
            let words = rng.index(4);
            let mut s = String::new();
            if rng.chance(5) {
                s.push(' ');
            }
            for w in 0..words {
                if w > 0 {
                    s.push_str(if rng.chance(10) { "  " } else { " " });
                }
                let mix = if rng.chance(70) {
                    CharMix::Ascii
                } else {
                    CharMix::Mixed
                };
                let longest = if rng.chance(10) { 24 } else { 8 };
                let word: String = random_string(rng, mix, longest)
                    .chars()
                    .filter(|&c| c != ' ')
                    .collect();
                s.push_str(&word);
            }
            if rng.chance(5) {
                s.push(' ');
            }
            Some(s)
        })
        .collect()
}

/// Visibilities for `redact`: "public", "private", "not public", "", null, and rows
/// over 16 bytes with "public" across or past the 16th byte, or without it.
fn random_visibility(n: usize, rng: &mut Rng) -> Vec<Option<String>> {
    (0..n)
        .map(|_| match rng.index(9) {
            0 | 1 => Some("public".to_string()),
            2 => Some("private".to_string()),
            3 => Some("not public".to_string()),
            4 => Some(String::new()),
            5 => None,
            6 => Some("visible to the public".to_string()),
            7 => Some("é€ visible to 𝄞 public".to_string()),
            _ => Some("private, not shared".to_string()),
        })
        .collect()
}

/// Names and visibilities for `redact` at the edges: rows of 0–9 characters from " ",
/// "!", "a", "é" and "𝄞" (runs of spaces, a space ending one row where the next
/// starts with "!", the byte one above a space's, so that a word-wise search that
/// reads across rows would be caught), one name of 30 000 bytes at row 700 among
/// short ones (one GPU tile too long for shared memory), and visibilities around
/// "public" ("publi", "xpublic", "!public", "publicc", "pu blic"), one of them 3 006
/// bytes long at row 900 (longer than a GPU warp's stage of them).
fn edge_rows(n: usize, rng: &mut Rng) -> (Vec<Option<String>>, Vec<Option<String>>) {
    const PIECES: [&str; 5] = [" ", "!", "a", "é", "𝄞"];
    const VISIBILITIES: [&str; 8] = [
        "public", "publi", "xpublic", "!public", "publicc", "pu blic", "", "private",
    ];
    let names = (0..n)
        .map(|i| {
            if i == 700 {
                return Some(format!("{} {}", "long".repeat(5000), "é".repeat(5000)));
            }
            if rng.chance(3) {
                return None;
            }
            let len = rng.index(10);
            Some((0..len).map(|_| PIECES[rng.index(PIECES.len())]).collect())
        })
        .collect();
    let visibility = (0..n)
        .map(|i| {
            if i == 900 {
                // A visibility row longer than a warp's stage of them.
                return Some(format!("{}public", "x".repeat(3000)));
            }
            (!rng.chance(3)).then(|| VISIBILITIES[rng.index(VISIBILITIES.len())].to_string())
        })
        .collect();
    (names, visibility)
}

/// The oracle of `redact` for one row, written from its definition (DESIGN.md §2) with
/// Rust's `str` methods.
pub fn redact_oracle(name: Option<&str>, visibility: Option<&str>) -> Option<String> {
    if !visibility.is_some_and(|v| v.contains("public")) {
        return Some("X X".to_string());
    }
    let mut parts = name?.split(' ');
    let first = parts.next()?;
    let last = parts.next()?;
    let initial: String = last.chars().take(1).collect();
    Some(initial + " " + first)
}

/// `redact` as the composition of the API's ops, on `backend`.
fn redact_composed<B: Backend, O: OffsetSize>(
    backend: &B,
    names: &StringColumn<O, B::Loc>,
    visibility: &StringColumn<O, B::Loc>,
) -> ragged_core::Result<AnyStringColumn<B::Loc>> {
    let public = backend.contains(visibility, Pattern::Scalar("public"))?;
    let parts = backend.split(names, SplitOn::Literal(" "), None)?;
    let named = match parts.get(1) {
        Some(last) => {
            let initial = backend.slice_chars(
                last,
                SliceBounds::Scalar {
                    start: Some(0),
                    stop: Some(1),
                },
            )?;
            backend.concatenate(
                &[StringArg::column(&initial), StringArg::column(&parts[0])],
                " ",
                ConcatNulls::Null,
                OffsetWidth::Auto,
            )?
        }
        // No row has a second part: every public row is null.
        None => backend.concatenate(
            &[StringArg::column(&parts[0]), StringArg::Scalar(None)],
            " ",
            ConcatNulls::Null,
            OffsetWidth::Auto,
        )?,
    };
    backend.copy_if_else(
        &public,
        StringArg::from(&named),
        StringArg::Scalar(Some("X X")),
        OffsetWidth::Auto,
    )
}

/// Suite test: `redact` over generated names (0, 1, 31–33, 257, 5 000 and
/// [`large_rows`] rows — many tiles of the GPU's one-pass kernel — and 1 200 rows of
/// edge_rows; sliced too) equals the oracle and the composition of the
/// API's ops on the same backend, at automatic and forced-i64 widths; a visibility
/// scalar works too (holding "public", not holding it, and null).
///
/// # Panics
/// When any output differs.
pub fn redact<B: Backend, O: OffsetSize + TestNative>(backend: &B) {
    let mut failures = Failures::new();
    for (edges, rows) in [
        (false, 0usize),
        (false, 1),
        (false, 31),
        (false, 32),
        (false, 33),
        (false, 257),
        (false, 5000),
        (false, large_rows()),
        (true, 1200),
    ] {
        for sliced in [false, true] {
            let mut rng = Rng::from_label(&format!("redact/{rows}"));
            let (mut names, mut visibility) = if edges {
                edge_rows(rows + 3, &mut rng)
            } else {
                let names = random_names(rows + 3, &mut rng);
                (names, random_visibility(rows + 3, &mut rng))
            };
            let mut names_col = StringColumn::<O>::from_options(names.iter().map(|r| r.as_deref()));
            let mut vis_col =
                StringColumn::<O>::from_options(visibility.iter().map(|r| r.as_deref()));
            if sliced {
                names_col = names_col.slice(2, rows).expect("in range");
                vis_col = vis_col.slice(1, rows).expect("in range");
                names = names[2..2 + rows].to_vec();
                visibility = visibility[1..1 + rows].to_vec();
            } else {
                names.truncate(rows);
                visibility.truncate(rows);
                names_col = names_col.slice(0, rows).expect("in range");
                vis_col = vis_col.slice(0, rows).expect("in range");
            }
            let label = format!(
                "{}/redact/rows={rows}/edges={edges}/sliced={sliced}",
                StringCase::<O>::type_name()
            );
            let want: Vec<Option<String>> = names
                .iter()
                .zip(&visibility)
                .map(|(n, v)| redact_oracle(n.as_deref(), v.as_deref()))
                .collect();
            let fail =
                |step: &str, e: Error| Mismatch::new(&label, None, format!("{step} failed: {e}"));
            let uploaded = backend
                .to_device_strings(&names_col)
                .and_then(|n| Ok((n, backend.to_device_strings(&vis_col)?)));
            let (names_dev, vis_dev) = match uploaded {
                Ok(u) => u,
                Err(e) => {
                    failures.record(Err(fail("upload", e)));
                    continue;
                }
            };
            for (width, wide) in [(OffsetWidth::Auto, false), (OffsetWidth::I64, true)] {
                let l = format!("{label} {width:?}");
                failures.record(
                    backend
                        .redact(&names_dev, StringArg::column(&vis_dev), width)
                        .map_err(|e| fail("redact", e))
                        .and_then(|out| check_any(backend, &l, &out, Some(wide), &want)),
                );
            }
            failures.record(
                redact_composed(backend, &names_dev, &vis_dev)
                    .map_err(|e| fail("the composition", e))
                    .and_then(|out| {
                        check_any(backend, &format!("{label} composition"), &out, None, &want)
                    }),
            );
            for scalar in [Some("public"), Some("a public one"), Some("private"), None] {
                let want: Vec<Option<String>> = names
                    .iter()
                    .map(|n| redact_oracle(n.as_deref(), scalar))
                    .collect();
                failures.record(
                    backend
                        .redact(&names_dev, StringArg::Scalar(scalar), OffsetWidth::Auto)
                        .map_err(|e| fail("redact(scalar)", e))
                        .and_then(|out| {
                            check_any(
                                backend,
                                &format!("{label} scalar {scalar:?}"),
                                &out,
                                None,
                                &want,
                            )
                        }),
                );
            }
        }
    }
    failures.finish(&format!("redact<{}>", O::OFFSET_NAME));
}

/// Suite test: invalid arguments are structured errors — an empty split delimiter,
/// a mask or column of the wrong length, a concatenation without a column.
///
/// # Panics
/// When an op accepts them or fails differently.
pub fn transform_errors<B: Backend>(backend: &B) {
    let mut failures = Failures::new();
    let col = StringColumn::<i32>::from_options([Some("a b"), None, Some("c")]);
    let short = StringColumn::<i64>::from_options([Some("x")]);
    let mask = BooleanColumn::from_options([Some(true), None]);
    let uploaded = backend.to_device_strings(&col).and_then(|c| {
        Ok((
            c,
            backend.to_device_strings(&short)?,
            backend.to_device_booleans(&mask)?,
        ))
    });
    let (col, short, mask) = match uploaded {
        Ok(u) => u,
        Err(e) => panic!("upload failed: {e}"),
    };
    let expect =
        |label: &str, r: ragged_core::Result<()>, ok: fn(&Error) -> bool| -> Result<(), Mismatch> {
            match r {
                Err(e) if ok(&e) => Ok(()),
                Err(e) => Err(Mismatch::new(label, None, format!("wrong error: {e}"))),
                Ok(()) => Err(Mismatch::new(label, None, "accepted")),
            }
        };
    let invalid = |e: &Error| matches!(e, Error::InvalidArgument { .. });
    let mismatch = |e: &Error| matches!(e, Error::LengthMismatch { .. });
    failures.record(expect(
        "split empty",
        backend.split(&col, SplitOn::Literal(""), None).map(|_| ()),
        invalid,
    ));
    failures.record(expect(
        "rsplit empty",
        backend
            .rsplit(&col, SplitOn::Literal(""), Some(1))
            .map(|_| ()),
        invalid,
    ));
    failures.record(expect(
        "copy_if_else mask length",
        backend
            .copy_if_else(
                &mask,
                StringArg::column(&col),
                StringArg::Scalar(None),
                OffsetWidth::Auto,
            )
            .map(|_| ()),
        mismatch,
    ));
    failures.record(expect(
        "concatenate lengths",
        backend
            .concatenate(
                &[StringArg::column(&col), StringArg::column(&short)],
                "",
                ConcatNulls::Null,
                OffsetWidth::Auto,
            )
            .map(|_| ()),
        mismatch,
    ));
    failures.record(expect(
        "concatenate scalars only",
        backend
            .concatenate(
                &[StringArg::Scalar(Some("a"))],
                "",
                ConcatNulls::Null,
                OffsetWidth::Auto,
            )
            .map(|_| ()),
        invalid,
    ));
    failures.record(expect(
        "concatenate nothing",
        backend
            .concatenate(&[], "", ConcatNulls::Null, OffsetWidth::Auto)
            .map(|_| ()),
        invalid,
    ));
    failures.record(expect(
        "redact visibility length",
        backend
            .redact(&col, StringArg::column(&short), OffsetWidth::Auto)
            .map(|_| ()),
        mismatch,
    ));
    failures.finish("transform_errors");
}

/// The oracle's per-character case map, Unicode's simple case mapping: Rust's full
/// mapping where it is one character; else the simple mappings `UnicodeData.txt` gives
/// where the full one is longer (listed here pair by pair); else the character itself.
fn case_oracle(s: &str, upper: bool) -> String {
    // (character, its simple uppercase) where the full uppercase is longer.
    const SIMPLE_UPPER: &[(char, char)] = &[
        ('ᾀ', 'ᾈ'),
        ('ᾁ', 'ᾉ'),
        ('ᾂ', 'ᾊ'),
        ('ᾃ', 'ᾋ'),
        ('ᾄ', 'ᾌ'),
        ('ᾅ', 'ᾍ'),
        ('ᾆ', 'ᾎ'),
        ('ᾇ', 'ᾏ'),
        ('ᾐ', 'ᾘ'),
        ('ᾑ', 'ᾙ'),
        ('ᾒ', 'ᾚ'),
        ('ᾓ', 'ᾛ'),
        ('ᾔ', 'ᾜ'),
        ('ᾕ', 'ᾝ'),
        ('ᾖ', 'ᾞ'),
        ('ᾗ', 'ᾟ'),
        ('ᾠ', 'ᾨ'),
        ('ᾡ', 'ᾩ'),
        ('ᾢ', 'ᾪ'),
        ('ᾣ', 'ᾫ'),
        ('ᾤ', 'ᾬ'),
        ('ᾥ', 'ᾭ'),
        ('ᾦ', 'ᾮ'),
        ('ᾧ', 'ᾯ'),
        ('ᾳ', 'ᾼ'),
        ('ῃ', 'ῌ'),
        ('ῳ', 'ῼ'),
    ];
    // The same for lowercase: "İ", whose full lowercase is "i̇".
    const SIMPLE_LOWER: &[(char, char)] = &[('İ', 'i')];
    s.chars()
        .map(|c| {
            let (mapped, simple): (Vec<char>, _) = if upper {
                (c.to_uppercase().collect(), SIMPLE_UPPER)
            } else {
                (c.to_lowercase().collect(), SIMPLE_LOWER)
            };
            if mapped.len() == 1 {
                mapped[0]
            } else {
                simple
                    .iter()
                    .find(|&&(from, _)| from == c)
                    .map_or(c, |&(_, to)| to)
            }
        })
        .collect()
}

/// Suite test: `upper` and `lower` of columns without null rows — where a backend may
/// map the chars byte for byte and keep the input's offsets (the GPU does when no
/// character changes its byte length) — against the oracle, at every output width:
/// ASCII rows (every byte 0x01..0x7f), rows mixing ASCII with 2-, 3- and 4-byte
/// characters whose images keep their length (so characters straddle every 16-byte
/// boundary), the same rows with one character whose image is shorter or longer ("ı" →
/// "I", Kelvin "K" → "k", "ɐ" → "Ɐ"), or whose full mapping is longer than one
/// character ("İ", "ᾳ", "ß"), in the middle row, an explicit all-valid bitmap,
/// a sliced column and a column of empty rows.
///
/// # Panics
/// When any output differs from the oracle.
pub fn case_map_layouts<B: Backend, O: OffsetSize + TestNative>(backend: &B) {
    let mut rng = Rng::from_label("case_map_layouts");
    let ascii: Vec<char> = (1u8..0x80).map(char::from).collect();
    let same: Vec<char> = "aZé É жЖ中ßΩω😀\u{10400}\u{10428}Ǆǅ".chars().collect();
    let mut rows_of = |alphabet: &[char]| -> Vec<String> {
        (0..300)
            .map(|_| {
                let len = rng.index(41);
                (0..len)
                    .map(|_| alphabet[rng.index(alphabet.len())])
                    .collect()
            })
            .collect()
    };
    let ascii_rows = rows_of(&ascii);
    let same_rows = rows_of(&same);
    let with_odd = |odd: &str| -> Vec<String> {
        let mut rows = same_rows.clone();
        rows[150] = format!("ab{odd}cd{}", rows[150]);
        rows
    };
    let spec = |rows: Vec<String>| StringSpec::all_valid(rows);
    let mut specs = vec![
        ("ascii", spec(ascii_rows.clone())),
        ("same_length", spec(same_rows.clone())),
        ("shorter_upper", spec(with_odd("ı"))),
        ("shorter_lower", spec(with_odd("\u{212a}"))),
        ("longer_upper", spec(with_odd("ɐ"))),
        // Characters whose full mapping is longer than one character: the simple
        // mapping changes "İ" (lower: "i"), "ᾳ" and "ᾀ" (upper: "ᾼ", "ᾈ") and keeps
        // "ß" and "ﬀ".
        ("simple_mapping", spec(with_odd("İᾳᾀßﬀῳ"))),
        ("empty_rows", spec(vec![String::new(); 40])),
    ];
    let mut explicit = spec(same_rows.clone());
    explicit.explicit_validity = true;
    specs.push(("all_valid_bitmap", explicit));
    let mut sliced = spec(ascii_rows);
    sliced.slice = Some((3, 290));
    specs.push(("sliced", sliced));
    let mut failures = Failures::new();
    for (name, spec) in &specs {
        let case = StringCase::<O>::from_spec(format!("case_map/{name}"), spec);
        let col = match backend.to_device_strings(&case.column) {
            Ok(c) => c,
            Err(e) => {
                failures.record(Err(backend_error(&case, "to_device_strings", e)));
                continue;
            }
        };
        for upper in [true, false] {
            let want: Vec<Option<String>> = case
                .rows
                .iter()
                .map(|r| r.as_deref().map(|s| case_oracle(s, upper)))
                .collect();
            for (width, wide) in [
                (OffsetWidth::Auto, false),
                (OffsetWidth::I32, false),
                (OffsetWidth::I64, true),
            ] {
                let out = if upper {
                    backend.upper(&col, width)
                } else {
                    backend.lower(&col, width)
                };
                let op = if upper { "upper" } else { "lower" };
                let label = format!("{} {op}({width:?})", case.label);
                failures.record(check_op(backend, &label, out, Some(wide), &want));
            }
        }
    }
    failures.finish("case_map_layouts");
}

/// The oracle of `pad`.
fn pad_oracle(s: &str, width: usize, side: Side, fill: char) -> String {
    let missing = width.saturating_sub(s.chars().count());
    let left = match side {
        Side::Left => missing,
        Side::Right => 0,
        Side::Both => missing / 2,
    };
    let fill_n = |n: usize| std::iter::repeat_n(fill, n).collect::<String>();
    fill_n(left) + s + &fill_n(missing - left)
}

/// The oracle of `replace` (Rust's `replacen`).
fn replace_oracle(s: &str, pattern: &str, replacement: &str, max: Option<usize>) -> String {
    match max {
        Some(n) => s.replacen(pattern, replacement, n),
        None => s.replace(pattern, replacement),
    }
}

/// Run one op that returns a column of either width and compare it.
fn check_op<B: Backend>(
    backend: &B,
    label: &str,
    out: ragged_core::Result<AnyStringColumn<B::Loc>>,
    wide: Option<bool>,
    want: &[Option<String>],
) -> Result<(), Mismatch> {
    let out = out.map_err(|e| Mismatch::new(label, None, format!("failed: {e}")))?;
    check_any(backend, label, &out, wide, want)
}

/// Suite test: `upper`, `lower`, `strip`, `pad`, `repeat` and `replace` over every
/// strings case of width `O` (1- to 4-byte characters, nulls, a very long row), with
/// character sets, fill characters and patterns of every width, limits, and outputs
/// forced to i64 offsets.
///
/// # Panics
/// When any output differs from the oracle.
pub fn modify<B: Backend, O: OffsetSize + TestNative>(backend: &B) {
    let mut failures = Failures::new();
    for case in string_cases::<O>() {
        let col = match backend.to_device_strings(&case.column) {
            Ok(c) => c,
            Err(e) => {
                failures.record(Err(backend_error(&case, "to_device_strings", e)));
                continue;
            }
        };
        let map = |f: &dyn Fn(&str) -> String| -> Vec<Option<String>> {
            case.rows.iter().map(|r| r.as_deref().map(f)).collect()
        };
        let l = |op: &str| format!("{} {op}", case.label);
        for (width, wide) in [(OffsetWidth::Auto, false), (OffsetWidth::I64, true)] {
            failures.record(check_op(
                backend,
                &l(&format!("upper({width:?})")),
                backend.upper(&col, width),
                Some(wide),
                &map(&|s| case_oracle(s, true)),
            ));
            failures.record(check_op(
                backend,
                &l(&format!("lower({width:?})")),
                backend.lower(&col, width),
                Some(wide),
                &map(&|s| case_oracle(s, false)),
            ));
        }
        for side in [Side::Left, Side::Right, Side::Both] {
            for chars in [None, Some("aé\u{1F600} \u{7f}"), Some("Ma \u{7f}")] {
                let strips = |c: char| match chars {
                    None => matches!(c, ' ' | '\t' | '\n' | '\u{0b}' | '\u{0c}' | '\r'),
                    Some(set) => set.contains(c),
                };
                let want = map(&|s| {
                    match side {
                        Side::Left => s.trim_start_matches(strips),
                        Side::Right => s.trim_end_matches(strips),
                        Side::Both => s.trim_matches(strips),
                    }
                    .to_string()
                });
                let label = l(&format!("strip({side:?}, {chars:?})"));
                failures.record(
                    backend
                        .strip(&col, side, chars)
                        .map_err(|e| Mismatch::new(&label, None, format!("failed: {e}")))
                        .and_then(|out| {
                            let host = backend.to_host_strings(&out).map_err(|e| {
                                Mismatch::new(&label, None, format!("to_host: {e}"))
                            })?;
                            compare_strings(&label, &host, &want)
                        }),
                );
            }
            for (width_chars, fill) in [(0, '*'), (5, 'é'), (20, '\u{10FFFF}')] {
                failures.record(check_op(
                    backend,
                    &l(&format!("pad({width_chars}, {side:?}, {fill:?})")),
                    backend.pad(&col, width_chars, side, fill, OffsetWidth::Auto),
                    None,
                    &map(&|s| pad_oracle(s, width_chars, side, fill)),
                ));
            }
        }
        for times in [0, 1, 3] {
            failures.record(check_op(
                backend,
                &l(&format!("repeat({times})")),
                backend.repeat(&col, times, OffsetWidth::I64),
                Some(true),
                &map(&|s| s.repeat(times)),
            ));
        }
        let mut rng = Rng::from_label(&format!("replace/{}", case.label));
        let from_data: String = case
            .rows
            .iter()
            .flatten()
            .find(|r| !r.is_empty())
            .and_then(|r| r.chars().nth(rng.index(r.chars().count())))
            .map_or_else(|| "a".to_string(), String::from);
        for pattern in [from_data.as_str(), "a", "é\u{1F600}"] {
            // Replacements of 0, 1, 2, 4 and 6 bytes (the GPU writes up to 4 from a register).
            for replacement in ["", "Z", "XY", "\u{1F600}", "\u{10FFFF}ü"] {
                for max in [None, Some(1)] {
                    failures.record(check_op(
                        backend,
                        &l(&format!("replace({pattern:?}, {replacement:?}, {max:?})")),
                        backend.replace(&col, pattern, replacement, max, OffsetWidth::Auto),
                        None,
                        &map(&|s| replace_oracle(s, pattern, replacement, max)),
                    ));
                }
            }
        }
    }
    failures.finish(&format!("modify<{}>", O::OFFSET_NAME));
}

/// Suite test: `join` with three separators and `append` of the column, a reversed
/// copy of the other width, an empty column and the column again, over every strings
/// case of width `O`.
///
/// # Panics
/// When any output differs from the oracle.
pub fn join_append<B: Backend, O: OffsetSize + TestNative>(backend: &B) {
    let mut failures = Failures::new();
    let empty = StringColumn::<i32>::from_options(std::iter::empty::<Option<&str>>());
    for case in string_cases::<O>() {
        let (other, other_rows) = reversed::<i64>(&case.rows);
        let uploaded = backend.to_device_strings(&case.column).and_then(|c| {
            Ok((
                c,
                backend.to_device_strings(&other)?,
                backend.to_device_strings(&empty)?,
            ))
        });
        let (col, other_dev, empty_dev) = match uploaded {
            Ok(u) => u,
            Err(e) => {
                failures.record(Err(backend_error(&case, "upload", e)));
                continue;
            }
        };
        for separator in ["", ", ", "\u{1F600}"] {
            let valid: Vec<&str> = case.rows.iter().flatten().map(String::as_str).collect();
            failures.record(check_op(
                backend,
                &format!("{} join({separator:?})", case.label),
                backend.join(&col, separator, OffsetWidth::Auto),
                Some(false),
                &[Some(valid.join(separator))],
            ));
        }
        let want: Vec<Option<String>> = case
            .rows
            .iter()
            .chain(&other_rows)
            .chain(&case.rows)
            .cloned()
            .collect();
        for width in [OffsetWidth::Auto, OffsetWidth::I64] {
            failures.record(check_op(
                backend,
                &format!("{} append({width:?})", case.label),
                backend.append(
                    &[
                        StringArg::column(&col),
                        StringArg::column(&other_dev),
                        StringArg::column(&empty_dev),
                        StringArg::column(&col),
                    ],
                    width,
                ),
                Some(width == OffsetWidth::I64),
                &want,
            ));
        }
    }
    failures.finish(&format!("join_append<{}>", O::OFFSET_NAME));
}

/// Suite test: the rewriting ops' argument errors — an empty `replace` pattern, a
/// scalar given to `append`, a `repeat` or `pad` whose row would reach 2^31 bytes
/// (and a huge `repeat` of empty rows, which is fine).
///
/// # Panics
/// When an op accepts them or fails differently.
pub fn modify_errors<B: Backend>(backend: &B) {
    let mut failures = Failures::new();
    let col = StringColumn::<i32>::from_options([Some(""), None, Some("ab"), Some("")]);
    let empties = StringColumn::<i32>::from_options([Some(""), None]);
    let uploaded = backend
        .to_device_strings(&col)
        .and_then(|c| Ok((c, backend.to_device_strings(&empties)?)));
    let (col, empties) = match uploaded {
        Ok(u) => u,
        Err(e) => panic!("upload failed: {e}"),
    };
    let expect = |label: &str, ok: bool| -> Result<(), Mismatch> {
        if ok {
            Ok(())
        } else {
            Err(Mismatch::new(label, None, "unexpected outcome"))
        }
    };
    failures.record(expect(
        "replace empty pattern",
        matches!(
            backend.replace(&col, "", "x", None, OffsetWidth::Auto),
            Err(Error::InvalidArgument { .. })
        ),
    ));
    failures.record(expect(
        "append scalar",
        matches!(
            backend.append(
                &[StringArg::column(&col), StringArg::Scalar(Some("a"))],
                OffsetWidth::Auto
            ),
            Err(Error::InvalidArgument { .. })
        ),
    ));
    failures.record(expect(
        "repeat past 2^31 bytes",
        matches!(
            backend.repeat(&col, 1 << 30, OffsetWidth::Auto),
            Err(Error::Overflow { .. })
        ),
    ));
    failures.record(expect(
        "pad past 2^31 bytes",
        matches!(
            backend.pad(&col, 1 << 31, Side::Right, ' ', OffsetWidth::Auto),
            Err(Error::Overflow { .. })
        ),
    ));
    failures.record(check_op(
        backend,
        "repeat empty rows many times",
        backend.repeat(&empties, usize::MAX, OffsetWidth::Auto),
        Some(false),
        &[Some(String::new()), None],
    ));
    failures.finish("modify_errors");
}
