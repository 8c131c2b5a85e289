//! The conformance suite of the strings family's literal searches (`contains`,
//! `starts_with`, `ends_with`, `find`, `rfind`, `count_matches`), generic over any
//! [`Backend`].
//!
//! Every check uploads the column (and a pattern column), runs the op, downloads the
//! answer and compares it with Rust's `str` methods as the oracle (`contains`,
//! `starts_with`, `ends_with`, `find`, `rfind`, `matches().count()`, byte positions
//! turned into character positions) — never with another backend. Validity must be
//! the AND of the column's and the pattern's; values are compared at valid rows.
//!
//! Inputs: every strings case of [`crate::gen::string_cases`] (nulls, empty rows,
//! 1- to 4-byte and boundary characters, one row of 100 000 characters, null rows
//! holding bytes, sliced columns, both offset widths), searched for scalar patterns
//! taken from the data (a whole row, a middle piece, one character, a row's tail),
//! the empty pattern and an absent one; per-row pattern columns of both offset widths
//! (hits, misses, empty and null patterns, sliced); self-overlapping patterns
//! ("aa" in "aaaaa" counts 2); and a pattern column of the wrong length, which must
//! fail with `LengthMismatch`.

use ragged_core::ops::{Pattern, Search, SliceBounds};
use ragged_core::{Backend, BooleanColumn, Error, Host, OffsetSize, PrimitiveColumn, StringColumn};

use super::backend_error;
use crate::check::{compare_column, compare_validity, Failures, Mismatch};
use crate::gen::{random_string, string_cases, CharMix, StringCase, StringSpec};
use crate::native::TestNative;
use crate::rng::Rng;

/// Every search op.
pub const SEARCHES: [Search; 6] = [
    Search::Contains,
    Search::StartsWith,
    Search::EndsWith,
    Search::Find,
    Search::Rfind,
    Search::CountMatches,
];

/// The oracle: the answer of `op` for one row and pattern (predicates as 0 / 1).
pub fn search_oracle(op: Search, row: &str, pattern: &str) -> i64 {
    let chars = |bytes: usize| row[..bytes].chars().count() as i64;
    match op {
        Search::Contains => i64::from(row.contains(pattern)),
        Search::StartsWith => i64::from(row.starts_with(pattern)),
        Search::EndsWith => i64::from(row.ends_with(pattern)),
        Search::Find => row.find(pattern).map_or(-1, chars),
        Search::Rfind => row.rfind(pattern).map_or(-1, chars),
        Search::CountMatches => row.matches(pattern).count() as i64,
    }
}

/// A pattern for the oracle: one for every row, or one (or a null) per row.
enum OraclePattern<'a> {
    Scalar(&'a str),
    Rows(&'a [Option<String>]),
}

/// The expected answers: `None` where the row or its pattern is null.
fn expected(op: Search, rows: &[Option<String>], pattern: &OraclePattern<'_>) -> Vec<Option<i64>> {
    rows.iter()
        .enumerate()
        .map(|(i, row)| {
            let pattern = match pattern {
                OraclePattern::Scalar(p) => Some(*p),
                OraclePattern::Rows(p) => p[i].as_deref(),
            };
            Some(search_oracle(op, row.as_deref()?, pattern?))
        })
        .collect()
}

/// Compare a downloaded boolean answer with the expected 0 / 1 answers.
fn compare_booleans(
    label: &str,
    actual: &BooleanColumn<Host>,
    expected: &[Option<i64>],
) -> Result<(), Mismatch> {
    let valid: Vec<bool> = expected.iter().map(Option::is_some).collect();
    compare_validity(label, actual.validity(), actual.len(), &valid)?;
    for (row, want) in expected.iter().enumerate() {
        if let Some(want) = want {
            let got = actual.values().is_valid(row);
            if got != (*want != 0) {
                return Err(Mismatch::new(
                    label,
                    Some(row),
                    format!("expected {}, got {got}", *want != 0),
                ));
            }
        }
    }
    Ok(())
}

/// Run `op` on the device copies and compare with the oracle.
fn check_search<B: Backend, O: OffsetSize + TestNative>(
    backend: &B,
    case: &StringCase<O>,
    op: Search,
    label: &str,
    pattern: Pattern<'_, B::Loc>,
    oracle: &OraclePattern<'_>,
) -> Result<(), Mismatch> {
    let label = format!("{} {}({label})", case.label, op.name());
    let device = backend
        .to_device_strings(&case.column)
        .map_err(|e| backend_error(case, "to_device_strings", e))?;
    let want = expected(op, &case.rows, oracle);
    let fail = |step: &str, e: Error| Mismatch::new(&label, None, format!("{step} failed: {e}"));
    if op.is_predicate() {
        let out = match op {
            Search::Contains => backend.contains(&device, pattern),
            Search::StartsWith => backend.starts_with(&device, pattern),
            _ => backend.ends_with(&device, pattern),
        }
        .map_err(|e| fail(op.name(), e))?;
        let host = backend
            .to_host_booleans(&out)
            .map_err(|e| fail("to_host_booleans", e))?;
        compare_booleans(&label, &host, &want)
    } else {
        let out = match op {
            Search::Find => backend.find(&device, pattern),
            Search::Rfind => backend.rfind(&device, pattern),
            _ => backend.count_matches(&device, pattern),
        }
        .map_err(|e| fail(op.name(), e))?;
        let host = backend
            .to_host_primitive(&out)
            .map_err(|e| fail("to_host_primitive", e))?;
        let want: Vec<Option<O>> = want
            .iter()
            .map(|v| v.map(|n| O::from_i64(n).unwrap_or_default()))
            .collect();
        compare_column(&label, &host, &want)
    }
}

/// Scalar patterns for a case: pieces of its rows (so that there are hits), one
/// character, the empty pattern and one that occurs nowhere.
fn scalar_patterns(rows: &[Option<String>], rng: &mut Rng) -> Vec<String> {
    let mut out = vec![String::new(), "\u{1}\u{2}\u{3}absent".to_string()];
    let texts: Vec<&String> = rows.iter().flatten().filter(|s| !s.is_empty()).collect();
    for _ in 0..3 {
        if texts.is_empty() {
            break;
        }
        let text = texts[rng.index(texts.len())];
        out.push(random_piece(text, rng));
    }
    if let Some(text) = texts.first() {
        out.push(text.chars().take(1).collect());
        out.push(
            text.chars()
                .rev()
                .take(3)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect(),
        );
    }
    out
}

/// A random run of whole characters of `text` (possibly all of it, never empty
/// unless `text` is).
fn random_piece(text: &str, rng: &mut Rng) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return String::new();
    }
    let start = rng.index(chars.len());
    let len = 1 + rng.index((chars.len() - start).min(12));
    chars[start..start + len].iter().collect()
}

/// A per-row pattern for each row: a piece of the row (a hit), a random string
/// (usually a miss), the empty pattern, or null.
fn row_patterns(rows: &[Option<String>], rng: &mut Rng) -> Vec<Option<String>> {
    rows.iter()
        .map(|row| match rng.index(10) {
            0 => None,
            1 => Some(String::new()),
            2 | 3 => Some(random_string(rng, CharMix::Mixed, 3)),
            _ => Some(
                row.as_deref()
                    .map_or_else(String::new, |r| random_piece(r, rng)),
            ),
        })
        .collect()
}

/// Suite test: every search over every strings case of offset width `O`, with scalar
/// patterns.
///
/// # Panics
/// When any case differs from the oracle.
pub fn search_scalar<B: Backend, O: OffsetSize + TestNative>(backend: &B) {
    let mut failures = Failures::new();
    for case in string_cases::<O>() {
        let mut rng = Rng::from_label(&format!("search-scalar/{}", case.label));
        for pattern in scalar_patterns(&case.rows, &mut rng) {
            for op in SEARCHES {
                failures.record(check_search(
                    backend,
                    &case,
                    op,
                    &format!("{pattern:?}"),
                    Pattern::Scalar(&pattern),
                    &OraclePattern::Scalar(&pattern),
                ));
            }
        }
    }
    failures.finish(&format!("search_scalar<{}>", O::OFFSET_NAME));
}

/// Suite test: every search over every strings case of offset width `O`, with a
/// pattern column per row, of both offset widths, sliced for every other case.
///
/// # Panics
/// When any case differs from the oracle.
pub fn search_per_row<B: Backend, O: OffsetSize + TestNative>(backend: &B) {
    let mut failures = Failures::new();
    for (k, case) in string_cases::<O>().into_iter().enumerate() {
        let mut rng = Rng::from_label(&format!("search-rows/{}", case.label));
        let patterns = row_patterns(&case.rows, &mut rng);
        // Sliced pattern columns: built with two extra rows, then sliced past the first.
        let sliced = k % 2 == 1;
        let built: Vec<Option<&str>> = if sliced {
            std::iter::once(Some("lead"))
                .chain(patterns.iter().map(|p| p.as_deref()))
                .chain(std::iter::once(Some("tail")))
                .collect()
        } else {
            patterns.iter().map(|p| p.as_deref()).collect()
        };
        let rows = patterns.len();
        let small = StringColumn::<i32>::from_options(built.iter().copied());
        let small = if sliced {
            small.slice(1, rows)
        } else {
            Ok(small)
        };
        let large = StringColumn::<i64>::from_options(built.iter().copied());
        let large = if sliced {
            large.slice(1, rows)
        } else {
            Ok(large)
        };
        let (small, large) = match (small, large) {
            (Ok(s), Ok(l)) => (s, l),
            (Err(e), _) | (_, Err(e)) => {
                failures.record(Err(backend_error(&case, "building the patterns", e)));
                continue;
            }
        };
        let uploaded = backend
            .to_device_strings(&small)
            .and_then(|s| Ok((s, backend.to_device_strings(&large)?)));
        let (small, large) = match uploaded {
            Ok(pair) => pair,
            Err(e) => {
                failures.record(Err(backend_error(&case, "to_device_strings", e)));
                continue;
            }
        };
        for op in SEARCHES {
            for (label, pattern) in [
                ("per-row utf8", Pattern::Utf8(&small)),
                ("per-row large-utf8", Pattern::LargeUtf8(&large)),
            ] {
                failures.record(check_search(
                    backend,
                    &case,
                    op,
                    label,
                    pattern,
                    &OraclePattern::Rows(&patterns),
                ));
            }
        }
    }
    failures.finish(&format!("search_per_row<{}>", O::OFFSET_NAME));
}

/// Suite test: self-overlapping and repeated patterns, matches at both ends, and a
/// pattern longer than the row.
///
/// # Panics
/// When any answer differs from the oracle.
pub fn search_overlaps<B: Backend>(backend: &B) {
    let spec = StringSpec::all_valid([
        "aaaaa",
        "aa",
        "a",
        "",
        "abababa",
        "xaax",
        "ééé",
        "é",
        "𝄞𝄞𝄞",
        "ab",
        "ba",
        "aaa",
    ]);
    let case = StringCase::<i32>::from_spec("utf8/overlaps", &spec);
    let mut failures = Failures::new();
    for pattern in ["aa", "aba", "a", "éé", "𝄞𝄞", "aaaaaa", "b", "x"] {
        for op in SEARCHES {
            failures.record(check_search(
                backend,
                &case,
                op,
                pattern,
                Pattern::Scalar(pattern),
                &OraclePattern::Scalar(pattern),
            ));
        }
    }
    failures.finish("search_overlaps");
}

/// Suite test: scalar patterns of every length from 1 to 12 bytes over a two-letter
/// alphabet, searched in rows of that alphabet of 0 to 40 bytes — most positions match
/// a pattern's first bytes and differ at a later one (each byte of the pattern is the
/// first to differ somewhere), and rows start and end at every alignment. Every
/// search is checked against the oracle, in a column of 300 rows (one tile) and of
/// 3 000 (several), and in columns as long of rows with at most four places for the
/// pattern (up to m + 3 bytes).
///
/// # Panics
/// When any answer differs from the oracle.
pub fn search_pattern_lengths<B: Backend>(backend: &B) {
    let mut rng = Rng::from_label("search_pattern_lengths");
    let mut failures = Failures::new();
    for count in [300, 3000] {
        let rows: Vec<String> = (0..count)
            .map(|_| {
                let len = rng.index(41);
                (0..len)
                    .map(|_| if rng.chance(70) { 'a' } else { 'b' })
                    .collect()
            })
            .collect();
        let spec = StringSpec::all_valid(rows);
        let case = StringCase::<i32>::from_spec(format!("ascii/ab/{count}"), &spec);
        for m in 1..=12usize {
            // Rows with at most 4 places for the pattern (m - 1 + 4 bytes or fewer),
            // which the GPU's contains compares without match bits when m <= 8.
            let short_rows: Vec<String> = (0..count)
                .map(|_| {
                    let len = rng.index(m + 4);
                    (0..len)
                        .map(|_| if rng.chance(70) { 'a' } else { 'b' })
                        .collect()
                })
                .collect();
            let short = StringCase::<i32>::from_spec(
                format!("ascii/ab/short{m}/{count}"),
                &StringSpec::all_valid(short_rows),
            );
            // Mostly 'a' with one 'b' at a random place, and all 'a'.
            let mut pattern: Vec<char> = vec!['a'; m];
            pattern[rng.index(m)] = 'b';
            let all_a: String = "a".repeat(m);
            for pattern in [pattern.into_iter().collect::<String>(), all_a] {
                for case in [&case, &short] {
                    for op in SEARCHES {
                        failures.record(check_search(
                            backend,
                            case,
                            op,
                            &pattern,
                            Pattern::Scalar(&pattern),
                            &OraclePattern::Scalar(&pattern),
                        ));
                    }
                }
            }
        }
    }
    failures.finish("search_pattern_lengths");
}

/// Suite test: `contains` in columns of short rows (one word like "public" /
/// "private", or three words as long as names), which the GPU answers a warp per 128
/// rows (places compared as words when the rows average few places for the pattern,
/// match bits in rows averaging up to 24 bytes): nulls, empty rows, 2- and 4-byte
/// characters, row counts around the warp's 128, a row longer than a warp's stage
/// among short ones at the start, middle or end, a run of longer rows whose steps do
/// not fit the stage, slices at offsets 4 and 5, both offset widths; patterns of 1 to
/// 8 bytes.
///
/// # Panics
/// When any answer differs from the oracle.
pub fn search_short_rows<B: Backend>(backend: &B) {
    let mut rng = Rng::from_label("search_short_rows");
    let mut failures = Failures::new();
    let words = [
        "public",
        "private",
        "",
        "pub",
        "épublic",
        "publ𝄞c",
        "xpublicx",
        "lic",
        "p",
    ];
    let patterns = [
        "public", "p", "ic", "é", "𝄞", "private", "xpublicx", "c", "lic", "ubli",
    ];
    // Rows of one word (about 5 bytes: places compared as words on the GPU) or of
    // three (about 19 bytes, as names: match bits).
    for (count, joined) in [1usize, 31, 127, 128, 129, 1000, 5000]
        .into_iter()
        .flat_map(|count| [(count, 1), (count, 3)])
    {
        // None: short rows only; Some(i): row i is 3 000 bytes (past a warp's stage);
        // usize::MAX: the first 256 rows are 24 bytes each (steps of 3 072 bytes).
        for long in [
            None,
            Some(0),
            Some(count / 2),
            Some(count - 1),
            Some(usize::MAX),
        ] {
            let rows: Vec<(String, bool)> = (0..count)
                .map(|i| {
                    let text = match long {
                        Some(at) if at == i => {
                            let tail = if rng.chance(50) { "public" } else { "pub" };
                            format!("{}{tail}", "ab".repeat(1500))
                        }
                        Some(usize::MAX) if i < 256 => "public private public pu".to_string(),
                        _ => (0..joined)
                            .map(|_| words[rng.index(words.len())])
                            .collect::<Vec<_>>()
                            .join(" "),
                    };
                    (text, !rng.chance(10))
                })
                .collect();
            let mut slices = vec![None];
            if count > 5 {
                slices.extend([Some((4, count - 4)), Some((5, count - 5))]);
            }
            for slice in slices {
                let spec = StringSpec {
                    rows: rows.clone(),
                    slice,
                    explicit_validity: false,
                };
                let label = format!("short/{count}x{joined}/{long:?}/{slice:?}");
                let small = StringCase::<i32>::from_spec(format!("utf8/{label}"), &spec);
                let large = StringCase::<i64>::from_spec(format!("large_utf8/{label}"), &spec);
                for pattern in patterns {
                    failures.record(check_search(
                        backend,
                        &small,
                        Search::Contains,
                        pattern,
                        Pattern::Scalar(pattern),
                        &OraclePattern::Scalar(pattern),
                    ));
                    failures.record(check_search(
                        backend,
                        &large,
                        Search::Contains,
                        pattern,
                        Pattern::Scalar(pattern),
                        &OraclePattern::Scalar(pattern),
                    ));
                }
            }
        }
    }
    failures.finish("search_short_rows");
}

/// Suite test: a pattern column whose length differs from the column's is
/// `LengthMismatch` for every search, on both backends alike.
///
/// # Panics
/// When an op accepts the column or fails differently.
pub fn search_errors<B: Backend>(backend: &B) {
    let col = StringColumn::<i32>::from_options([Some("a"), Some("b"), None]);
    let short = StringColumn::<i64>::from_options([Some("a")]);
    let mut failures = Failures::new();
    let result = backend
        .to_device_strings(&col)
        .and_then(|c| Ok((c, backend.to_device_strings(&short)?)));
    match result {
        Err(e) => failures.record(Err(Mismatch::new("errors", None, format!("upload: {e}")))),
        Ok((col, short)) => {
            for op in SEARCHES {
                let pattern = Pattern::LargeUtf8(&short);
                let outcome = match op {
                    Search::Contains => backend.contains(&col, pattern).map(drop),
                    Search::StartsWith => backend.starts_with(&col, pattern).map(drop),
                    Search::EndsWith => backend.ends_with(&col, pattern).map(drop),
                    Search::Find => backend.find(&col, pattern).map(drop),
                    Search::Rfind => backend.rfind(&col, pattern).map(drop),
                    Search::CountMatches => backend.count_matches(&col, pattern).map(drop),
                };
                let ok = matches!(
                    outcome,
                    Err(Error::LengthMismatch { expected: 3, actual: 1, op: name, .. }) if name == op.name()
                );
                if !ok {
                    failures.record(Err(Mismatch::new(
                        &format!("errors {}", op.name()),
                        None,
                        format!("expected LengthMismatch (3 rows, pattern 1), got {outcome:?}"),
                    )));
                }
            }
        }
    }
    failures.finish("search_errors");
}

// ---------------------------------------------------------------------------------
// slice_chars / slice_bytes
// ---------------------------------------------------------------------------------

/// Python's bounds of `[start:stop]` over `len` positions (the oracle's own copy).
fn py_bounds(len: i64, start: Option<i64>, stop: Option<i64>) -> (i64, i64) {
    let norm = |x: i64| if x < 0 { (x + len).max(0) } else { x.min(len) };
    let a = start.map_or(0, norm);
    let b = stop.map_or(len, norm).max(a);
    (a, b)
}

/// The oracle of one row: `row[start:stop]` by characters or bytes; `Err(byte)` when
/// a byte bound of a non-empty slice falls inside a character.
pub fn slice_oracle(
    row: &str,
    start: Option<i64>,
    stop: Option<i64>,
    chars: bool,
) -> Result<String, usize> {
    if chars {
        let all: Vec<char> = row.chars().collect();
        let (a, b) = py_bounds(all.len() as i64, start, stop);
        return Ok(all[a as usize..b as usize].iter().collect());
    }
    let (a, b) = py_bounds(row.len() as i64, start, stop);
    let (a, b) = (a as usize, b as usize);
    if a == b {
        return Ok(String::new());
    }
    for bound in [a, b] {
        if !row.is_char_boundary(bound) {
            return Err(bound);
        }
    }
    Ok(row[a..b].to_string())
}

/// Bounds for the oracle: one pair, or a pair per row (`None` = a null bound).
enum OracleBounds<'a> {
    Scalar(Option<i64>, Option<i64>),
    Rows(&'a [Option<(i64, i64)>]),
}

/// Run one slice on the device and compare rows, validity (null rows empty) or the
/// error with the oracle.
fn check_slice<B: Backend, O: OffsetSize + TestNative>(
    backend: &B,
    case: &StringCase<O>,
    chars: bool,
    label: &str,
    bounds: SliceBounds<'_, B::Loc>,
    oracle: &OracleBounds<'_>,
) -> Result<(), Mismatch> {
    let op = if chars { "slice_chars" } else { "slice_bytes" };
    let label = format!("{} {op}({label})", case.label);
    let mut want: Vec<Option<String>> = Vec::with_capacity(case.rows.len());
    let mut want_error = None;
    for (i, row) in case.rows.iter().enumerate() {
        let bound = match oracle {
            OracleBounds::Scalar(a, b) => Some((*a, *b)),
            OracleBounds::Rows(r) => r[i].map(|(a, b)| (Some(a), Some(b))),
        };
        match (row, bound) {
            (Some(row), Some((a, b))) => match slice_oracle(row, a, b, chars) {
                Ok(s) => want.push(Some(s)),
                Err(byte) => {
                    want_error.get_or_insert((i, byte));
                    want.push(None);
                }
            },
            _ => want.push(None),
        }
    }
    let device = backend
        .to_device_strings(&case.column)
        .map_err(|e| backend_error(case, "to_device_strings", e))?;
    let out = if chars {
        backend.slice_chars(&device, bounds)
    } else {
        backend.slice_bytes(&device, bounds)
    };
    match (out, want_error) {
        (Err(Error::InvalidUtf8 { row, byte }), Some((r, b))) if row == r && byte == b => Ok(()),
        (Err(e), _) => Err(Mismatch::new(
            &label,
            None,
            format!("expected {want_error:?} (row, byte) or rows, got error {e}"),
        )),
        (Ok(_), Some((row, byte))) => Err(Mismatch::new(
            &label,
            Some(row),
            format!("expected InvalidUtf8 at byte {byte}, got a column"),
        )),
        (Ok(out), None) => {
            let host = backend
                .to_host_strings(&out)
                .map_err(|e| Mismatch::new(&label, None, format!("to_host_strings: {e}")))?;
            let valid: Vec<bool> = want.iter().map(Option::is_some).collect();
            compare_validity(&label, host.validity(), host.len(), &valid)?;
            for (i, w) in want.iter().enumerate() {
                let got = host.row_str(i);
                let expected = w.as_deref().unwrap_or("");
                if got != expected {
                    return Err(Mismatch::new(
                        &label,
                        Some(i),
                        format!("expected {expected:?}, got {got:?}"),
                    ));
                }
            }
            Ok(())
        }
    }
}

/// The scalar bounds every case is sliced with.
const SCALAR_BOUNDS: [(Option<i64>, Option<i64>); 9] = [
    (None, None),
    (Some(1), None),
    (None, Some(-1)),
    (Some(-3), Some(-1)),
    (Some(2), Some(1)),
    (Some(0), Some(1000)),
    (Some(-1000), Some(3)),
    (Some(0), Some(0)),
    (Some(5), Some(12)),
];

/// Suite test: `slice_chars` and `slice_bytes` over every strings case of offset width
/// `O`, with scalar bounds and with per-row bounds (small, negative, out of range and
/// null).
///
/// # Panics
/// When any case differs from the oracle.
pub fn slice<B: Backend, O: OffsetSize + TestNative>(backend: &B) {
    let mut failures = Failures::new();
    for case in string_cases::<O>() {
        for chars in [true, false] {
            for (start, stop) in SCALAR_BOUNDS {
                failures.record(check_slice(
                    backend,
                    &case,
                    chars,
                    &format!("{start:?}:{stop:?}"),
                    SliceBounds::Scalar { start, stop },
                    &OracleBounds::Scalar(start, stop),
                ));
            }
            let mut rng = Rng::from_label(&format!("slice-rows/{}", case.label));
            let rows: Vec<Option<(i64, i64)>> = (0..case.rows.len())
                .map(|_| (!rng.chance(10)).then(|| (rng.range_i64(-8, 8), rng.range_i64(-8, 12))))
                .collect();
            let starts = PrimitiveColumn::<i64>::from_options(rows.iter().map(|r| r.map(|r| r.0)));
            let stops = PrimitiveColumn::<i64>::from_options(rows.iter().map(|r| r.map(|r| r.1)));
            let uploaded = backend
                .to_device_primitive(&starts)
                .and_then(|s| Ok((s, backend.to_device_primitive(&stops)?)));
            match uploaded {
                Err(e) => failures.record(Err(backend_error(&case, "to_device_primitive", e))),
                Ok((starts, stops)) => failures.record(check_slice(
                    backend,
                    &case,
                    chars,
                    "per-row",
                    SliceBounds::PerRow {
                        starts: &starts,
                        stops: &stops,
                    },
                    &OracleBounds::Rows(&rows),
                )),
            }
        }
    }
    failures.finish(&format!("slice<{}>", O::OFFSET_NAME));
}

/// Suite test: per-row bounds of the wrong length are `LengthMismatch`.
///
/// # Panics
/// When an op accepts them or fails differently.
pub fn slice_errors<B: Backend>(backend: &B) {
    let col = StringColumn::<i32>::from_options([Some("ab"), None]);
    let short = PrimitiveColumn::<i64>::from_vec(vec![0]);
    let good = PrimitiveColumn::<i64>::from_vec(vec![0, 1]);
    let mut failures = Failures::new();
    let uploaded = backend.to_device_strings(&col).and_then(|c| {
        Ok((
            c,
            backend.to_device_primitive(&short)?,
            backend.to_device_primitive(&good)?,
        ))
    });
    match uploaded {
        Err(e) => failures.record(Err(Mismatch::new("slice errors", None, format!("{e}")))),
        Ok((col, short, good)) => {
            for (what, starts, stops) in [
                ("the starts column", &short, &good),
                ("the stops column", &good, &short),
            ] {
                let bounds = SliceBounds::PerRow { starts, stops };
                for (op, outcome) in [
                    ("slice_chars", backend.slice_chars(&col, bounds).map(drop)),
                    ("slice_bytes", backend.slice_bytes(&col, bounds).map(drop)),
                ] {
                    let ok = matches!(
                        &outcome,
                        Err(Error::LengthMismatch { op: o, what: w, expected: 2, actual: 1 })
                            if *o == op && *w == what
                    );
                    if !ok {
                        failures.record(Err(Mismatch::new(
                            &format!("slice errors {op}"),
                            None,
                            format!("expected LengthMismatch of {what}, got {outcome:?}"),
                        )));
                    }
                }
            }
        }
    }
    failures.finish("slice_errors");
}

// ---------------------------------------------------------------------------------
// like
// ---------------------------------------------------------------------------------

/// The oracle of SQL `LIKE` (independent of the backends' greedy matcher): dynamic
/// programming over (pattern prefix, row prefix), by characters. `escape` makes the
/// next pattern character literal; `None` for a pattern ending with the escape.
pub fn like_oracle(row: &str, pattern: &str, escape: Option<char>) -> Option<bool> {
    // Pattern items: Some(c) a literal, None with `many` = `%`, None without = `_`.
    let mut items: Vec<(Option<char>, bool)> = Vec::new();
    let mut it = pattern.chars();
    while let Some(c) = it.next() {
        if Some(c) == escape {
            items.push((Some(it.next()?), false));
        } else if c == '%' {
            items.push((None, true));
        } else if c == '_' {
            items.push((None, false));
        } else {
            items.push((Some(c), false));
        }
    }
    let text: Vec<char> = row.chars().collect();
    // ok[j]: the items so far match text[..j].
    let mut ok = vec![false; text.len() + 1];
    ok[0] = true;
    for (c, many) in items {
        let mut next = vec![false; text.len() + 1];
        for j in 0..=text.len() {
            next[j] = if many {
                ok[j] || (j > 0 && next[j - 1])
            } else {
                j > 0 && ok[j - 1] && c.is_none_or(|c| c == text[j - 1])
            };
        }
        ok = next;
    }
    Some(ok[text.len()])
}

/// LIKE patterns for a case: built from its rows (characters replaced by `_`, runs by
/// `%`), and fixed ones.
fn like_patterns(rows: &[Option<String>], rng: &mut Rng) -> Vec<String> {
    let mut out: Vec<String> = [
        "", "%", "_", "%%", "_%", "%_", "a%", "%a", "%a%", "__", "%é%",
    ]
    .iter()
    .map(|s| (*s).to_string())
    .collect();
    let texts: Vec<&String> = rows.iter().flatten().filter(|s| !s.is_empty()).collect();
    for _ in 0..4 {
        if texts.is_empty() {
            break;
        }
        let text = texts[rng.index(texts.len())];
        let mut pattern = String::new();
        for c in text.chars().take(40) {
            match rng.index(10) {
                0 => pattern.push('_'),
                1 => pattern.push('%'),
                2 => {} // dropped: usually no longer a match
                _ if c == '%' || c == '_' || c == '\\' => {
                    pattern.push('\\');
                    pattern.push(c);
                }
                _ => pattern.push(c),
            }
        }
        if text.chars().count() > 40 {
            pattern.push('%');
        }
        out.push(pattern);
    }
    out
}

fn check_like<B: Backend, O: OffsetSize + TestNative>(
    backend: &B,
    case: &StringCase<O>,
    pattern: &str,
    escape: Option<char>,
) -> Result<(), Mismatch> {
    let label = format!("{} like({pattern:?}, {escape:?})", case.label);
    let want: Vec<Option<i64>> = case
        .rows
        .iter()
        .map(|r| {
            r.as_deref()
                .and_then(|r| like_oracle(r, pattern, escape))
                .map(i64::from)
        })
        .collect();
    let device = backend
        .to_device_strings(&case.column)
        .map_err(|e| backend_error(case, "to_device_strings", e))?;
    let out = backend
        .like(&device, pattern, escape)
        .map_err(|e| Mismatch::new(&label, None, format!("like failed: {e}")))?;
    let host = backend
        .to_host_booleans(&out)
        .map_err(|e| Mismatch::new(&label, None, format!("to_host_booleans: {e}")))?;
    compare_booleans(&label, &host, &want)
}

/// Suite test: `like` over every strings case of offset width `O` with patterns from
/// the data and fixed ones (with `\` as the escape), plus rows holding `%`, `_` and `\`
/// matched with and without escapes, and patterns of 300 and 400 tokens.
///
/// # Panics
/// When any answer differs from the oracle.
pub fn like<B: Backend, O: OffsetSize + TestNative>(backend: &B) {
    let mut failures = Failures::new();
    for case in string_cases::<O>() {
        let mut rng = Rng::from_label(&format!("like/{}", case.label));
        for pattern in like_patterns(&case.rows, &mut rng) {
            failures.record(check_like(backend, &case, &pattern, Some('\\')));
        }
    }
    let spec = StringSpec {
        rows: [
            "100%", "10_0", "a\\b", "%", "_", "", "ab%cd", "a%b_c", "aaa", "éé%",
        ]
        .iter()
        .map(|s| ((*s).to_string(), true))
        .chain([("x".repeat(400), true), ("é".repeat(400), true)])
        .collect(),
        slice: None,
        explicit_validity: false,
    };
    let special =
        StringCase::<O>::from_spec(format!("{}/specials", StringCase::<O>::type_name()), &spec);
    for (pattern, escape) in [
        ("%\\%", Some('\\')),
        ("%\\_%", Some('\\')),
        ("%!%", Some('!')),
        ("a\\\\b", Some('\\')),
        ("a\\b", None),
        ("%_%", None),
        ("_%_", Some('\\')),
        ("a%a", None),
        ("é_%", None),
        ("%%%", None),
    ] {
        failures.record(check_like(backend, &special, pattern, escape));
    }
    // Patterns of more tokens than the GPU keeps in shared memory (256).
    for pattern in [
        format!("%{}%", "x".repeat(299)),
        "_".repeat(400),
        format!("{}%", "é".repeat(300)),
    ] {
        failures.record(check_like(backend, &special, &pattern, None));
    }
    failures.finish(&format!("like<{}>", O::OFFSET_NAME));
}

/// Suite test: patterns ending with the escape, or escaping with `%` / `_`, are
/// `InvalidArgument` on every backend.
///
/// # Panics
/// When a backend accepts one or fails differently.
pub fn like_errors<B: Backend>(backend: &B) {
    let col = StringColumn::<i32>::from_options([Some("a")]);
    let mut failures = Failures::new();
    match backend.to_device_strings(&col) {
        Err(e) => failures.record(Err(Mismatch::new("like errors", None, format!("{e}")))),
        Ok(col) => {
            for (pattern, escape) in [("ab\\", Some('\\')), ("a", Some('%')), ("a", Some('_'))] {
                let outcome = backend.like(&col, pattern, escape).map(drop);
                if !matches!(outcome, Err(Error::InvalidArgument { op: "like", .. })) {
                    failures.record(Err(Mismatch::new(
                        &format!("like errors {pattern:?} {escape:?}"),
                        None,
                        format!("expected InvalidArgument, got {outcome:?}"),
                    )));
                }
            }
        }
    }
    failures.finish("like_errors");
}
