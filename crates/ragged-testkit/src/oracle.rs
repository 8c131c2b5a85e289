//! Naive sequential reference implementations ("oracles").
//!
//! Each oracle is written from the op's contract in `ragged-core`, on plain Rust values
//! (the rows of a case's spec, not its column), with the most obvious code possible and
//! without sharing anything with any backend: `str::chars` for characters, `str::len`
//! for bytes, `Vec::len` for list counts, `i128` and compensated `f64` sums. The
//! conformance suite compares every backend against these, never against another
//! backend.

use ragged_core::{Error, OffsetsProblem};

use crate::native::TestNative;

/// Characters (Unicode scalar values) of each row; `None` for null rows.
///
/// ```
/// let rows = vec![Some("héllo".to_string()), None, Some(String::new())];
/// assert_eq!(ragged_testkit::oracle::length(&rows), vec![Some(5), None, Some(0)]);
/// ```
pub fn length(rows: &[Option<String>]) -> Vec<Option<usize>> {
    rows.iter()
        .map(|row| row.as_ref().map(|s| s.chars().count()))
        .collect()
}

/// Bytes of each row; `None` for null rows.
///
/// ```
/// let rows = vec![Some("héllo".to_string()), None];
/// assert_eq!(ragged_testkit::oracle::length_bytes(&rows), vec![Some(6), None]);
/// ```
pub fn length_bytes(rows: &[Option<String>]) -> Vec<Option<usize>> {
    rows.iter()
        .map(|row| row.as_ref().map(String::len))
        .collect()
}

/// Elements of each list (null elements count); `None` for null lists.
///
/// ```
/// let lists = vec![Some(vec![Some(1), None]), None, Some(vec![])];
/// assert_eq!(ragged_testkit::oracle::counts(&lists), vec![Some(2), None, Some(0)]);
/// ```
pub fn counts<T>(lists: &[Option<Vec<Option<T>>>]) -> Vec<Option<usize>> {
    lists.iter().map(|l| l.as_ref().map(Vec::len)).collect()
}

/// The expected result of `reduce_sum`.
#[derive(Clone, Debug, PartialEq)]
pub enum SumOracle {
    /// An integer sum: the exact value, or `None` when it does not fit the accumulator
    /// type (`Native::Sum`) and the backend must report `Error::Overflow`.
    Int(Option<i128>),
    /// A float sum with what is needed to bound the rounding error of any summation
    /// order.
    Float {
        /// The sum, computed in `f64` with Neumaier's compensated summation.
        sum: f64,
        /// The sum of absolute values.
        sum_abs: f64,
        /// The number of values added.
        terms: usize,
    },
}

/// The sum of the valid values, as [`SumOracle`]. Integers accumulate in `i128` (exact
/// for any realistic count) and the final value is checked against `T::Sum`'s range:
/// overflow is a property of the mathematical sum, not of an order of additions.
///
/// ```
/// use ragged_testkit::oracle::{reduce_sum, SumOracle};
/// assert_eq!(reduce_sum(&[Some(i64::MAX), None, Some(1)]), SumOracle::Int(None));
/// assert_eq!(reduce_sum(&[Some(i8::MAX); 3]), SumOracle::Int(Some(381)));
/// ```
pub fn reduce_sum<T: TestNative>(values: &[Option<T>]) -> SumOracle
where
    T::Sum: TestNative,
{
    if T::EXACT {
        let mut sum: i128 = 0;
        for v in values.iter().flatten() {
            sum += v.to_i128().unwrap_or(0);
        }
        SumOracle::Int(<T::Sum as TestNative>::from_i128(sum).map(|_| sum))
    } else {
        // Neumaier's variant of Kahan summation: exact for the dyadic test data, and
        // within a few ulps of the true sum otherwise.
        let (mut sum, mut compensation, mut sum_abs, mut terms) = (0.0f64, 0.0f64, 0.0f64, 0);
        for v in values.iter().flatten() {
            let x = v.to_f64();
            let t = sum + x;
            if sum.abs() >= x.abs() {
                compensation += (sum - t) + x;
            } else {
                compensation += (x - t) + sum;
            }
            sum = t;
            sum_abs += x.abs();
            terms += 1;
        }
        SumOracle::Float {
            sum: sum + compensation,
            sum_abs,
            terms,
        }
    }
}

/// The largest difference allowed between a float sum of `T` computed in any order and
/// the exact sum: `(terms + 1) · ε_T · Σ|x|` (the classical bound `γ_{n-1}` for any
/// summation tree, plus one rounding to `T`), plus a few `f64` ulps for the oracle's own
/// rounding.
pub fn float_sum_tolerance<T: TestNative>(sum_abs: f64, terms: usize) -> f64 {
    (terms as f64 + 1.0) * T::EPSILON * sum_abs + 4.0 * f64::EPSILON * sum_abs
}

/// Check offsets against the Arrow invariants, one index at a time in increasing
/// order, and return the first failure as `ragged_core` defines it
/// (`crates/ragged-core/src/column/validate.rs`): an empty buffer is `Empty` at 0; at
/// index 0 a negative offset is `Negative`; at index `i > 0` an offset smaller than
/// offset `i - 1` is `Decreasing`; then an offset larger than `values_len` is
/// `OutOfBounds`.
///
/// ```
/// use ragged_core::{Error, OffsetsProblem};
/// let err = ragged_testkit::oracle::validate_offsets(&[0, 3, 2], 5).unwrap_err();
/// assert!(matches!(err, Error::InvalidOffsets { index: 2, problem: OffsetsProblem::Decreasing { .. } }));
/// ```
///
/// # Errors
/// [`Error::InvalidOffsets`] at the lowest failing index.
pub fn validate_offsets(offsets: &[i64], values_len: usize) -> Result<(), Error> {
    if offsets.is_empty() {
        return Err(Error::InvalidOffsets {
            index: 0,
            problem: OffsetsProblem::Empty,
        });
    }
    for index in 0..offsets.len() {
        let value = offsets[index];
        if index == 0 && value < 0 {
            return Err(Error::InvalidOffsets {
                index,
                problem: OffsetsProblem::Negative { value },
            });
        }
        if index > 0 && value < offsets[index - 1] {
            return Err(Error::InvalidOffsets {
                index,
                problem: OffsetsProblem::Decreasing {
                    previous: offsets[index - 1],
                    value,
                },
            });
        }
        if value > 0 && value as u64 > values_len as u64 {
            return Err(Error::InvalidOffsets {
                index,
                problem: OffsetsProblem::OutOfBounds { value, values_len },
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::gen::offsets_cases;

    fn rows(rows: &[Option<&str>]) -> Vec<Option<String>> {
        rows.iter().map(|r| r.map(str::to_string)).collect()
    }

    #[test]
    fn lengths_count_characters_and_bytes() {
        let r = rows(&[Some("a\u{e9}\u{20ac}\u{1f600}"), None, Some("")]);
        assert_eq!(length(&r), vec![Some(4), None, Some(0)]);
        assert_eq!(length_bytes(&r), vec![Some(10), None, Some(0)]);
    }

    #[test]
    fn integer_sums_overflow_by_their_exact_value() {
        assert_eq!(
            reduce_sum::<i64>(&[Some(i64::MAX), Some(1)]),
            SumOracle::Int(None)
        );
        assert_eq!(
            reduce_sum::<i64>(&[Some(i64::MIN), Some(-1)]),
            SumOracle::Int(None)
        );
        assert_eq!(
            reduce_sum::<u64>(&[Some(u64::MAX), Some(1)]),
            SumOracle::Int(None)
        );
        assert_eq!(
            reduce_sum::<u64>(&[Some(u64::MAX - 1), Some(1)]),
            SumOracle::Int(Some(i128::from(u64::MAX)))
        );
        // Overflow is a property of the mathematical sum, not of an order of additions.
        assert_eq!(
            reduce_sum::<i64>(&[Some(i64::MAX), Some(1), Some(-1)]),
            SumOracle::Int(Some(i128::from(i64::MAX)))
        );
        // Narrow types accumulate in 64 bits: no overflow.
        assert_eq!(
            reduce_sum::<i8>(&[Some(-128); 1000]),
            SumOracle::Int(Some(-128_000))
        );
        assert_eq!(
            reduce_sum::<u8>(&[Some(255), None, Some(255)]),
            SumOracle::Int(Some(510))
        );
        assert_eq!(reduce_sum::<i32>(&[]), SumOracle::Int(Some(0)));
    }

    #[test]
    fn float_sums_are_compensated() {
        let SumOracle::Float {
            sum,
            sum_abs,
            terms,
        } = reduce_sum::<f64>(&[Some(1.0e16), Some(1.0), Some(-1.0e16), None])
        else {
            panic!("a float sum");
        };
        assert_eq!((sum, sum_abs, terms), (1.0, 2.0e16 + 1.0, 3));
    }

    /// Two independent implementations of the same rule agree: the oracle and
    /// `ragged_core::column::validate_offsets` (the host validation).
    #[test]
    fn offsets_oracle_agrees_with_host_validation_on_every_case() {
        let cases = offsets_cases();
        let mut problems = Vec::new();
        for case in cases.iter() {
            let want = validate_offsets(&case.offsets, case.values_len);
            if let Err(Error::InvalidOffsets { problem, .. }) = &want {
                problems.push(std::mem::discriminant(problem));
            }
            if let Some(buffer) = case.buffer::<i64>() {
                let got = ragged_core::column::validate_offsets(&buffer, case.values_len);
                assert!(
                    match (&got, &want) {
                        (Ok(()), Ok(())) => true,
                        (Err(g), Err(w)) => g.same_kind_and_index(w),
                        _ => false,
                    },
                    "{}: host {got:?}, oracle {want:?}",
                    case.label
                );
            }
        }
        // Every kind of problem is exercised.
        for problem in [
            OffsetsProblem::Empty,
            OffsetsProblem::Negative { value: 0 },
            OffsetsProblem::Decreasing {
                previous: 0,
                value: 0,
            },
            OffsetsProblem::OutOfBounds {
                value: 0,
                values_len: 0,
            },
        ] {
            assert!(problems.contains(&std::mem::discriminant(&problem)));
        }
    }

    #[test]
    fn the_lowest_failing_index_wins() {
        let err = validate_offsets(&[0, 9, 3], 5).unwrap_err();
        assert!(matches!(
            err,
            Error::InvalidOffsets {
                index: 1,
                problem: OffsetsProblem::OutOfBounds { .. }
            }
        ));
        let err = validate_offsets(&[0, 2, -1], 5).unwrap_err();
        assert!(matches!(
            err,
            Error::InvalidOffsets {
                index: 2,
                problem: OffsetsProblem::Decreasing { .. }
            }
        ));
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]
        #[test]
        fn offsets_oracle_agrees_with_host_validation(case in crate::strategy::offsets_case()) {
            let want = validate_offsets(&case.offsets, case.values_len);
            let buffer = case.buffer::<i64>().unwrap();
            let got = ragged_core::column::validate_offsets(&buffer, case.values_len);
            let agree = match (&got, &want) {
                (Ok(()), Ok(())) => true,
                (Err(g), Err(w)) => g.same_kind_and_index(w),
                _ => false,
            };
            prop_assert!(agree, "host {:?}, oracle {:?}", got, want);
        }
    }
}
