//! Comparing a backend's (downloaded) output with an oracle's, with messages that name
//! the case and the first differing row.
//!
//! The helpers return `Result<(), Mismatch>` rather than panicking, so that a suite can
//! collect the failures of many cases ([`Failures`]) and proptest can shrink
//! ([`Mismatch`] is a `std::error::Error`, so `?` turns it into a proptest
//! `TestCaseError`).

use std::fmt;

use arrow_buffer::{NullBuffer, ScalarBuffer};
use ragged_core::ops::Offsets;
use ragged_core::{Error, Host, Native, PrimitiveColumn};

use crate::native::{is_nan, TestNative};
use crate::oracle::{float_sum_tolerance, FloatSum, OffsetsOracle, SumOracle};

/// How a backend's output differs from the oracle's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The case's label.
    pub case: String,
    /// The first differing row, when the difference is in a row.
    pub row: Option<usize>,
    /// What differs: expected and actual values.
    pub detail: String,
}

impl Mismatch {
    /// A mismatch in `case`, at `row` if any.
    pub fn new(case: &str, row: Option<usize>, detail: impl Into<String>) -> Self {
        Self {
            case: case.to_string(),
            row,
            detail: detail.into(),
        }
    }
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&describe_case(&self.case, self.row, &self.detail))
    }
}

impl std::error::Error for Mismatch {}

/// The message of a failed check: `case 'utf8/sliced/rows=33', row 12: expected …`.
///
/// ```
/// let m = ragged_testkit::describe_case("utf8/mixed/rows=1", Some(0), "expected Some(1), got Some(2)");
/// assert_eq!(m, "case 'utf8/mixed/rows=1', row 0: expected Some(1), got Some(2)");
/// ```
pub fn describe_case(case: &str, row: Option<usize>, detail: &str) -> String {
    match row {
        Some(row) => format!("case '{case}', row {row}: {detail}"),
        None => format!("case '{case}': {detail}"),
    }
}

/// Per-row validity of a column with `len` rows (`None` = every row valid).
fn validity_bits(validity: Option<&NullBuffer>, len: usize) -> Vec<bool> {
    match validity {
        Some(v) => (0..len).map(|i| v.is_valid(i)).collect(),
        None => vec![true; len],
    }
}

/// Check that a validity bitmap (`None` = all valid) has exactly the expected valid
/// rows: the "nulls preserved" property (output validity equals input validity).
///
/// # Errors
/// A [`Mismatch`] naming the first row whose validity differs, or a length difference.
pub fn compare_validity(
    case: &str,
    actual: Option<&NullBuffer>,
    actual_len: usize,
    expected_valid: &[bool],
) -> Result<(), Mismatch> {
    if actual_len != expected_valid.len() {
        return Err(Mismatch::new(
            case,
            None,
            format!(
                "output has {actual_len} rows, expected {}",
                expected_valid.len()
            ),
        ));
    }
    if let Some(v) = actual {
        if v.len() != actual_len {
            return Err(Mismatch::new(
                case,
                None,
                format!(
                    "validity covers {} rows, the output has {actual_len}",
                    v.len()
                ),
            ));
        }
    }
    let bits = validity_bits(actual, actual_len);
    match bits.iter().zip(expected_valid).position(|(a, e)| a != e) {
        Some(row) => Err(Mismatch::new(
            case,
            Some(row),
            format!(
                "validity differs: expected {}, got {}",
                valid_word(expected_valid[row]),
                valid_word(bits[row])
            ),
        )),
        None => Ok(()),
    }
}

fn valid_word(valid: bool) -> &'static str {
    if valid {
        "valid"
    } else {
        "null"
    }
}

/// Whether two values are the same (floats: equal or both NaN).
fn same<T: TestNative>(a: T, b: T) -> bool {
    a == b || (a.to_f64().is_nan() && b.to_f64().is_nan())
}

/// Check a host column against expected rows: same length, same validity (row by
/// row), and the same value at every valid row. Values at null rows are not compared
/// (backends compute them ignoring validity; they are meaningless).
///
/// # Errors
/// A [`Mismatch`] naming the first differing row.
///
/// ```
/// use ragged_core::PrimitiveColumn;
/// use ragged_testkit::check::compare_column;
/// let got = PrimitiveColumn::from_options([Some(1i32), None, Some(3)]);
/// assert!(compare_column("demo", &got, &[Some(1), None, Some(3)]).is_ok());
/// let err = compare_column("demo", &got, &[Some(1), None, Some(4)]).unwrap_err();
/// assert_eq!(err.row, Some(2));
/// ```
pub fn compare_column<T: TestNative>(
    case: &str,
    actual: &PrimitiveColumn<T, Host>,
    expected: &[Option<T>],
) -> Result<(), Mismatch> {
    let valid: Vec<bool> = expected.iter().map(Option::is_some).collect();
    compare_validity(case, actual.validity(), actual.len(), &valid)?;
    let values: &[T] = actual.values();
    for (row, (&got, want)) in values.iter().zip(expected).enumerate() {
        if let Some(want) = *want {
            if !same(got, want) {
                return Err(Mismatch::new(
                    case,
                    Some(row),
                    format!("expected {want:?}, got {got:?}"),
                ));
            }
        }
    }
    Ok(())
}

/// Convert oracle counts (`usize`) to the output element type `O`.
///
/// # Panics
/// When a count does not fit `O` (the oracle's input was too large for the type:
/// test-code misuse).
pub fn to_native<O: TestNative>(expected: &[Option<usize>]) -> Vec<Option<O>> {
    expected
        .iter()
        .map(|v| {
            v.map(|n| {
                i128::try_from(n)
                    .ok()
                    .and_then(O::from_i128)
                    .expect("expected count fits the output type")
            })
        })
        .collect()
}

/// Check a backend's `reduce_sum` result against the oracle: integers exactly, with
/// `Error::Overflow` required exactly when the oracle overflows; floats exactly when
/// `exact` (the data sums the same in any order), otherwise within
/// [`float_sum_tolerance`].
///
/// # Errors
/// A [`Mismatch`] describing the difference (or the unexpected error).
pub fn compare_sum<T: TestNative>(
    case: &str,
    actual: &Result<T::Sum, Error>,
    expected: &SumOracle,
    exact: bool,
) -> Result<(), Mismatch>
where
    T::Sum: TestNative,
{
    match (expected, actual) {
        (SumOracle::Int(None), Err(Error::Overflow { .. })) => Ok(()),
        (SumOracle::Int(None), Ok(got)) => Err(Mismatch::new(
            case,
            None,
            format!(
                "expected Error::Overflow (the sum does not fit {}), got Ok({got:?})",
                <T::Sum as ragged_core::Native>::NAME
            ),
        )),
        (SumOracle::Int(Some(want)), Ok(got)) => match got.to_i128() {
            Some(got) if got == *want => Ok(()),
            _ => Err(Mismatch::new(
                case,
                None,
                format!("expected sum {want}, got {got:?}"),
            )),
        },
        (
            SumOracle::Float {
                sum,
                sum_abs,
                terms,
            },
            Ok(got),
        ) => {
            let got = got.to_f64();
            let tolerance = if exact {
                0.0
            } else {
                float_sum_tolerance::<T>(*sum_abs, *terms)
            };
            if (got - sum).abs() <= tolerance {
                Ok(())
            } else {
                let bound = if exact {
                    "exactly: the data sums the same in every order".to_string()
                } else {
                    format!("± {tolerance:e}")
                };
                Err(Mismatch::new(
                    case,
                    None,
                    format!("expected sum {sum:e} ({bound}; {terms} terms), got {got:e}"),
                ))
            }
        }
        (_, Err(e)) => Err(Mismatch::new(
            case,
            None,
            format!("expected {expected:?}, got error: {e}"),
        )),
    }
}

/// Check a backend's validation result against the oracle's: both `Ok`, or errors of
/// the same kind at the same index ([`Error::same_kind_and_index`]).
///
/// # Errors
/// A [`Mismatch`] showing both results.
pub fn compare_error(
    case: &str,
    actual: &Result<(), Error>,
    expected: &Result<(), Error>,
) -> Result<(), Mismatch> {
    match (expected, actual) {
        (Ok(()), Ok(())) => Ok(()),
        (Err(want), Err(got)) if got.same_kind_and_index(want) => Ok(()),
        _ => Err(Mismatch::new(
            case,
            None,
            format!("expected {expected:?}, got {actual:?}"),
        )),
    }
}

/// Whether `got` is `want` within `tolerance`: NaN only matches NaN and an infinity
/// only itself.
pub fn float_close(got: f64, want: f64, tolerance: f64) -> bool {
    if want.is_nan() {
        got.is_nan()
    } else if want.is_infinite() {
        got == want
    } else {
        (got - want).abs() <= tolerance
    }
}

/// Check a column of float sums (a float `scan_sum`, `scan_sum_f64`, a float
/// `segmented_sum`) against per-row oracle sums: the same validity, and each valid
/// value within the rounding bound of an accumulator of machine epsilon `epsilon`
/// ([`FloatSum::tolerance`]).
///
/// # Errors
/// A [`Mismatch`] naming the first differing row.
pub fn compare_float_sums<S: TestNative>(
    case: &str,
    actual: &PrimitiveColumn<S, Host>,
    expected: &[Option<FloatSum>],
    epsilon: f64,
) -> Result<(), Mismatch> {
    let valid: Vec<bool> = expected.iter().map(Option::is_some).collect();
    compare_validity(case, actual.validity(), actual.len(), &valid)?;
    let values: &[S] = actual.values();
    for (row, (got, want)) in values.iter().zip(expected).enumerate() {
        if let Some(want) = want {
            let (got, tolerance) = (got.to_f64(), want.tolerance(epsilon));
            if !float_close(got, want.value(), tolerance) {
                return Err(Mismatch::new(
                    case,
                    Some(row),
                    format!(
                        "expected {:e} (± {tolerance:e}, {} terms), got {got:e}",
                        want.value(),
                        want.terms
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Whether two values are the same bit for bit (any NaN matches any NaN): minima,
/// maxima and selections are copies of input values, so they are compared exactly,
/// `-0.0` against `0.0` included.
pub fn same_bits<T: TestNative>(a: T, b: T) -> bool {
    a.bits() == b.bits() || (is_nan(a) && is_nan(b))
}

/// [`compare_column`] with values compared bit for bit ([`same_bits`]).
///
/// # Errors
/// A [`Mismatch`] naming the first differing row.
pub fn compare_column_bits<T: TestNative>(
    case: &str,
    actual: &PrimitiveColumn<T, Host>,
    expected: &[Option<T>],
) -> Result<(), Mismatch> {
    let valid: Vec<bool> = expected.iter().map(Option::is_some).collect();
    compare_validity(case, actual.validity(), actual.len(), &valid)?;
    let values: &[T] = actual.values();
    for (row, (&got, want)) in values.iter().zip(expected).enumerate() {
        if let Some(want) = *want {
            if !same_bits(got, want) {
                return Err(Mismatch::new(
                    case,
                    Some(row),
                    format!("expected {want:?}, got {got:?}"),
                ));
            }
        }
    }
    Ok(())
}

/// Check an optional scalar (a minimum, an arg form, `any`/`all`) bit for bit.
///
/// # Errors
/// A [`Mismatch`] showing both.
pub fn compare_option<T: TestNative>(
    case: &str,
    what: &str,
    actual: Option<T>,
    expected: Option<T>,
) -> Result<(), Mismatch> {
    let same = match (actual, expected) {
        (Some(a), Some(e)) => same_bits(a, e),
        (None, None) => true,
        _ => false,
    };
    if same {
        Ok(())
    } else {
        Err(Mismatch::new(
            case,
            None,
            format!("{what}: expected {expected:?}, got {actual:?}"),
        ))
    }
}

/// Check that a backend failed as the oracle says: the same kind at the same index
/// ([`Error::same_kind_and_index`]); for `Overflow`, the backend's message contains
/// the oracle's, not followed by a digit (the oracle's names the lowest offending row
/// or segment, `row 12`, `segment 3`, or the total that does not fit); for
/// `LengthMismatch`, the same expected and actual lengths.
///
/// # Errors
/// A [`Mismatch`] showing both errors.
pub fn compare_failure(case: &str, actual: &Error, expected: &Error) -> Result<(), Mismatch> {
    let same = actual.same_kind_and_index(expected)
        && match (actual, expected) {
            (Error::Overflow { message: got, .. }, Error::Overflow { message: want, .. }) => {
                contains_number_text(got, want)
            }
            (
                Error::LengthMismatch {
                    expected: a,
                    actual: b,
                    ..
                },
                Error::LengthMismatch {
                    expected: c,
                    actual: d,
                    ..
                },
            ) => a == c && b == d,
            _ => true,
        };
    if same {
        Ok(())
    } else {
        Err(Mismatch::new(
            case,
            None,
            format!("expected error {expected:?}, got error {actual:?}"),
        ))
    }
}

/// Whether `text` contains `needle` not followed by a digit (so that `row 1` is not
/// found in `row 12`).
fn contains_number_text(text: &str, needle: &str) -> bool {
    text.match_indices(needle).any(|(at, _)| {
        !text[at + needle.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit())
    })
}

/// Check a backend's outcome against an oracle's when either may be an error: both
/// errors ([`compare_failure`]), or both values (checked by `values`).
///
/// # Errors
/// A [`Mismatch`]: an unexpected error, a missing error, or what `values` reports.
pub fn compare_outcome<A, E>(
    case: &str,
    actual: Result<A, Error>,
    expected: &Result<E, Error>,
    values: impl FnOnce(A, &E) -> Result<(), Mismatch>,
) -> Result<(), Mismatch> {
    match (actual, expected) {
        (Ok(a), Ok(e)) => values(a, e),
        (Err(a), Err(e)) => compare_failure(case, &a, e),
        (Err(a), Ok(_)) => Err(Mismatch::new(case, None, format!("unexpected error: {a}"))),
        (Ok(_), Err(e)) => Err(Mismatch::new(
            case,
            None,
            format!("expected error {e:?}, got a result"),
        )),
    }
}

/// Check a select result (downloaded) against the oracle's `(row, value)` pairs: no
/// null value, the same values bit for bit in the same order, and the rows exactly
/// when they were asked for (`None` otherwise).
///
/// # Errors
/// A [`Mismatch`] naming the first differing output position.
pub fn compare_selection<T: TestNative>(
    case: &str,
    values: &PrimitiveColumn<T, Host>,
    indices: Option<&ScalarBuffer<u64>>,
    with_indices: bool,
    expected: &[(usize, T)],
) -> Result<(), Mismatch> {
    if values.null_count() != 0 {
        return Err(Mismatch::new(
            case,
            None,
            format!("selected values hold {} nulls", values.null_count()),
        ));
    }
    let want: Vec<Option<T>> = expected.iter().map(|&(_, v)| Some(v)).collect();
    compare_column_bits(case, values, &want).map_err(|m| Mismatch {
        detail: format!("selected values: {}", m.detail),
        ..m
    })?;
    match (with_indices, indices) {
        (false, None) => Ok(()),
        (false, Some(_)) => Err(Mismatch::new(
            case,
            None,
            "indices returned but not asked for",
        )),
        (true, None) => Err(Mismatch::new(
            case,
            None,
            "indices asked for but not returned",
        )),
        (true, Some(got)) => {
            if got.len() != expected.len() {
                return Err(Mismatch::new(
                    case,
                    None,
                    format!("{} indices, expected {}", got.len(), expected.len()),
                ));
            }
            match got
                .iter()
                .zip(expected)
                .position(|(&g, &(row, _))| g != row as u64)
            {
                Some(at) => Err(Mismatch::new(
                    case,
                    Some(at),
                    format!(
                        "selected index {at}: expected row {}, got {}",
                        expected[at].0, got[at]
                    ),
                )),
                None => Ok(()),
            }
        }
    }
}

/// Check `sizes_to_offsets` (downloaded) against the oracle: the same width, offsets
/// and total, or the same error ([`compare_failure`]).
///
/// # Errors
/// A [`Mismatch`] naming the first differing offset.
pub fn compare_offsets(
    case: &str,
    actual: Result<(Offsets<Host>, i64), Error>,
    expected: &Result<OffsetsOracle, Error>,
) -> Result<(), Mismatch> {
    compare_outcome(case, actual, expected, |(offsets, total), want| {
        let (wide, got): (bool, Vec<i64>) = match &offsets {
            Offsets::I32(o) => (false, o.iter().map(|&x| i64::from(x)).collect()),
            Offsets::I64(o) => (true, o.to_vec()),
        };
        let width = |wide: bool| if wide { "i64" } else { "i32" };
        if wide != want.wide {
            return Err(Mismatch::new(
                case,
                None,
                format!("expected {} offsets, got {}", width(want.wide), width(wide)),
            ));
        }
        if total != want.total {
            return Err(Mismatch::new(
                case,
                None,
                format!("expected total {}, got {total}", want.total),
            ));
        }
        if got.len() != want.offsets.len() {
            return Err(Mismatch::new(
                case,
                None,
                format!("{} offsets, expected {}", got.len(), want.offsets.len()),
            ));
        }
        match got.iter().zip(&want.offsets).position(|(g, w)| g != w) {
            Some(i) => Err(Mismatch::new(
                case,
                Some(i),
                format!("offset {i}: expected {}, got {}", want.offsets[i], got[i]),
            )),
            None => Ok(()),
        }
    })
}

/// Collects the mismatches of a suite test over many cases, to report them together.
#[derive(Debug, Default)]
pub struct Failures {
    checked: usize,
    mismatches: Vec<Mismatch>,
}

impl Failures {
    /// No failure yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Record the outcome of one case.
    pub fn record(&mut self, outcome: Result<(), Mismatch>) {
        self.checked += 1;
        if let Err(m) = outcome {
            self.mismatches.push(m);
        }
    }

    /// The mismatches so far.
    pub fn mismatches(&self) -> &[Mismatch] {
        &self.mismatches
    }

    /// Number of cases recorded.
    pub fn checked(&self) -> usize {
        self.checked
    }

    /// The report: `None` when every case passed, otherwise the first 20 mismatches.
    pub fn report(&self, test: &str) -> Option<String> {
        if self.mismatches.is_empty() {
            return None;
        }
        let mut out = format!(
            "{test}: {} of {} cases differ from the oracle:\n",
            self.mismatches.len(),
            self.checked
        );
        for m in self.mismatches.iter().take(20) {
            out.push_str("  ");
            out.push_str(&m.to_string());
            out.push('\n');
        }
        if self.mismatches.len() > 20 {
            out.push_str(&format!("  … and {} more\n", self.mismatches.len() - 20));
        }
        Some(out)
    }

    /// End a suite test.
    ///
    /// # Panics
    /// When any case failed, with the [`Failures::report`] (this is the suite's
    /// assertion).
    pub fn finish(self, test: &str) {
        if let Some(report) = self.report(test) {
            panic!("{report}");
        }
    }
}

#[cfg(test)]
mod tests {
    use arrow_buffer::{NullBuffer, ScalarBuffer};
    use ragged_core::{OffsetsProblem, PrimitiveColumn};

    use super::*;
    use crate::gen::{string_case, StringKind};
    use crate::oracle;

    /// The demonstration that the suite can fail: a wrong `length` output (one row off
    /// by one) is reported at that row, with the case's label.
    #[test]
    fn a_wrong_length_column_is_reported_at_its_row() {
        let case = string_case::<i32>(StringKind::Mixed, 33);
        let mut expected = to_native::<i32>(&oracle::length(&case.rows));
        // The right answer passes.
        let right = PrimitiveColumn::from_options(expected.clone());
        assert_eq!(compare_column(&case.label, &right, &expected), Ok(()));
        // Corrupt row 5 of the "backend output" (making it valid if it was null).
        let wrong_value = expected[5].map_or(7, |v| v + 1);
        let mut wrong = expected.clone();
        wrong[5] = Some(wrong_value);
        if expected[5].is_none() {
            // A null row's value is ignored, so also make the expectation valid.
            expected[5] = Some(wrong_value - 1);
        }
        let wrong = PrimitiveColumn::from_options(wrong);
        let m = compare_column(&case.label, &wrong, &expected).unwrap_err();
        assert_eq!(m.row, Some(5));
        let message = m.to_string();
        assert!(message.contains("utf8/mixed/rows=33"), "{message}");
        assert!(message.contains("row 5"), "{message}");
    }

    #[test]
    fn validity_differences_are_reported() {
        let expected = [Some(1i32), None, Some(3)];
        let all_valid = PrimitiveColumn::from_vec(vec![1i32, 2, 3]);
        let m = compare_column("v", &all_valid, &expected).unwrap_err();
        assert_eq!(m.row, Some(1));
        assert!(
            m.detail.contains("expected null, got valid"),
            "{}",
            m.detail
        );

        let lost = PrimitiveColumn::from_options([Some(1i32), None, None]);
        assert_eq!(
            compare_column("v", &lost, &expected).unwrap_err().row,
            Some(2)
        );
    }

    #[test]
    fn values_under_nulls_are_ignored_and_bitmaps_compare_by_bits() {
        // The null row holds 99: not compared.
        let col = PrimitiveColumn::try_new(
            ScalarBuffer::from(vec![1i64, 99, 3]),
            Some(NullBuffer::from(vec![true, false, true])),
        )
        .unwrap();
        assert_eq!(compare_column("n", &col, &[Some(1), None, Some(3)]), Ok(()));
        // An explicit all-valid bitmap equals no bitmap.
        let explicit = PrimitiveColumn::try_new(
            ScalarBuffer::from(vec![1i64, 2]),
            Some(NullBuffer::from(vec![true, true])),
        )
        .unwrap();
        assert_eq!(compare_column("n", &explicit, &[Some(1), Some(2)]), Ok(()));
        // A sliced bitmap (bit offset 1) is read at its offset.
        let sliced = col.slice(1, 2);
        assert_eq!(compare_column("n", &sliced, &[None, Some(3)]), Ok(()));
    }

    #[test]
    fn length_differences_are_reported() {
        let col = PrimitiveColumn::from_vec(vec![1u8, 2]);
        let m = compare_column("len", &col, &[Some(1), Some(2), Some(3)]).unwrap_err();
        assert_eq!(m.row, None);
        assert!(m.detail.contains("2 rows, expected 3"), "{}", m.detail);
    }

    #[test]
    fn integer_sums_and_overflow_are_checked() {
        let ok = |v: i64| Ok::<i64, Error>(v);
        let overflow = || {
            Err::<i64, Error>(Error::Overflow {
                op: "reduce_sum",
                message: String::new(),
            })
        };
        assert_eq!(
            compare_sum::<i64>("s", &ok(5), &SumOracle::Int(Some(5)), true),
            Ok(())
        );
        assert!(compare_sum::<i64>("s", &ok(6), &SumOracle::Int(Some(5)), true).is_err());
        // A missing overflow, and an unexpected one, are both mismatches.
        let missing = compare_sum::<i64>("s", &ok(i64::MIN), &SumOracle::Int(None), true);
        assert!(missing.unwrap_err().detail.contains("Overflow"));
        assert!(compare_sum::<i64>("s", &overflow(), &SumOracle::Int(Some(5)), true).is_err());
        assert_eq!(
            compare_sum::<i64>("s", &overflow(), &SumOracle::Int(None), true),
            Ok(())
        );
        // Another error kind is not an overflow.
        let other = Err::<i64, Error>(Error::invalid_argument("reduce_sum", "x"));
        assert!(compare_sum::<i64>("s", &other, &SumOracle::Int(None), true).is_err());
    }

    #[test]
    fn float_sums_are_compared_within_the_rounding_bound() {
        let expected = SumOracle::Float {
            sum: 1.0,
            sum_abs: 1000.0,
            terms: 100,
        };
        let tolerance = oracle::float_sum_tolerance::<f32>(1000.0, 100);
        let near = Ok::<f32, Error>((1.0 + tolerance * 0.5) as f32);
        let far = Ok::<f32, Error>((1.0 + tolerance * 4.0) as f32);
        assert_eq!(compare_sum::<f32>("f", &near, &expected, false), Ok(()));
        assert!(compare_sum::<f32>("f", &far, &expected, false).is_err());
        // Exact comparison for order-independent data.
        assert!(compare_sum::<f32>("f", &near, &expected, true).is_err());
        assert_eq!(compare_sum::<f32>("f", &Ok(1.0), &expected, true), Ok(()));
    }

    #[test]
    fn errors_must_match_in_kind_and_index() {
        let at = |index, problem| Err::<(), Error>(Error::InvalidOffsets { index, problem });
        let decreasing = || OffsetsProblem::Decreasing {
            previous: 3,
            value: 2,
        };
        let out_of_bounds = || OffsetsProblem::OutOfBounds {
            value: 9,
            values_len: 5,
        };
        assert_eq!(
            compare_error("e", &at(2, decreasing()), &at(2, decreasing())),
            Ok(())
        );
        assert!(compare_error("e", &at(3, decreasing()), &at(2, decreasing())).is_err());
        assert!(compare_error("e", &at(2, out_of_bounds()), &at(2, decreasing())).is_err());
        assert!(compare_error("e", &Ok(()), &at(2, decreasing())).is_err());
        assert!(compare_error("e", &at(2, decreasing()), &Ok(())).is_err());
        assert_eq!(compare_error("e", &Ok(()), &Ok(())), Ok(()));
    }

    #[test]
    fn selections_are_compared_value_by_value_and_row_by_row() {
        let values = PrimitiveColumn::from_vec(vec![1.5f32, -0.0]);
        let rows = ScalarBuffer::from(vec![2u64, 7]);
        let want = [(2usize, 1.5f32), (7, -0.0)];
        assert_eq!(
            compare_selection("s", &values, Some(&rows), true, &want),
            Ok(())
        );
        // A zero of the other sign, a wrong row, missing or unasked indices.
        assert!(compare_selection("s", &values, Some(&rows), true, &[(2, 1.5), (7, 0.0)]).is_err());
        let m =
            compare_selection("s", &values, Some(&rows), true, &[(2, 1.5), (6, -0.0)]).unwrap_err();
        assert_eq!(m.row, Some(1));
        assert!(compare_selection("s", &values, None, true, &want).is_err());
        assert!(compare_selection("s", &values, Some(&rows), false, &want).is_err());
        assert_eq!(compare_selection("s", &values, None, false, &want), Ok(()));
        // Nulls in a selection are an error.
        let nulls = PrimitiveColumn::from_options([Some(1.5f32), None]);
        assert!(compare_selection("s", &nulls, None, false, &want).is_err());
    }

    #[test]
    fn offsets_are_compared_by_width_values_and_total() {
        let want = Ok(OffsetsOracle {
            wide: false,
            offsets: vec![0, 2, 5],
            total: 5,
        });
        let narrow = |o: Vec<i32>, t| Ok((Offsets::I32(ScalarBuffer::from(o)), t));
        assert_eq!(
            compare_offsets("o", narrow(vec![0, 2, 5], 5), &want),
            Ok(())
        );
        assert_eq!(
            compare_offsets("o", narrow(vec![0, 3, 5], 5), &want)
                .unwrap_err()
                .row,
            Some(1)
        );
        assert!(compare_offsets("o", narrow(vec![0, 2, 5], 6), &want).is_err());
        let wide = Ok((Offsets::I64(ScalarBuffer::from(vec![0i64, 2, 5])), 5));
        assert!(compare_offsets("o", wide, &want).is_err());
        let negative = Err(Error::NegativeSize { index: 3, size: -1 });
        let at = |index| Err(Error::NegativeSize { index, size: -9 });
        assert_eq!(compare_offsets("o", at(3), &negative), Ok(()));
        assert!(compare_offsets("o", at(4), &negative).is_err());
    }

    #[test]
    fn overflow_messages_must_name_the_same_row() {
        let want = Error::Overflow {
            op: "scan_sum",
            message: "row 1".into(),
        };
        let got = |m: &str| Error::Overflow {
            op: "scan_sum",
            message: m.into(),
        };
        assert_eq!(
            compare_failure("f", &got("does not fit from row 1 on"), &want),
            Ok(())
        );
        assert_eq!(compare_failure("f", &got("row 1"), &want), Ok(()));
        assert!(compare_failure("f", &got("does not fit from row 12 on"), &want).is_err());
        assert!(compare_failure("f", &got("at index 1"), &want).is_err());
    }

    #[test]
    fn bitwise_columns_tell_zeros_apart() {
        let col = PrimitiveColumn::from_options([Some(-0.0f64), None, Some(f64::NAN)]);
        assert_eq!(
            compare_column_bits("b", &col, &[Some(-0.0), None, Some(f64::NAN)]),
            Ok(())
        );
        assert_eq!(
            compare_column_bits("b", &col, &[Some(0.0), None, Some(f64::NAN)])
                .unwrap_err()
                .row,
            Some(0)
        );
        // compare_column does not (its values compare with ==).
        assert_eq!(
            compare_column("b", &col, &[Some(0.0), None, Some(f64::NAN)]),
            Ok(())
        );
    }

    #[test]
    #[should_panic(expected = "demo: 1 of 2 cases differ from the oracle")]
    fn failures_panic_with_a_report() {
        let mut failures = Failures::new();
        failures.record(Ok(()));
        failures.record(Err(Mismatch::new("utf8/x", Some(3), "expected 1, got 2")));
        assert_eq!(failures.checked(), 2);
        let report = failures.report("demo").unwrap();
        assert!(
            report.contains("case 'utf8/x', row 3: expected 1, got 2"),
            "{report}"
        );
        failures.finish("demo");
    }

    #[test]
    fn no_failures_no_report() {
        let mut failures = Failures::new();
        failures.record(Ok(()));
        assert!(failures.report("t").is_none());
        failures.finish("t");
    }
}
