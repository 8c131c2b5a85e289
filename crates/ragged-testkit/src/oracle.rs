//! Naive sequential reference implementations ("oracles").
//!
//! Each oracle is written from the op's contract in `ragged-core`, on plain Rust values
//! (the rows of a case's spec, not its column), with the most obvious code possible and
//! without sharing anything with any backend: `str::chars` for characters, `str::len`
//! for bytes, `Vec::len` for list counts, `i128` and compensated `f64` sums. The
//! conformance suite compares every backend against these, never against another
//! backend.

pub mod lists;
pub mod sequences;

use std::cmp::Ordering;

use ragged_core::ops::{Comparison, OffsetWidth, Predicate, ScanKind, Transform};
use ragged_core::{Error, OffsetsProblem};

use crate::native::{is_nan, TestNative};

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

// ---------------------------------------------------------------------------------
// The primitives family (reductions, scans, select, segmented reductions)
// ---------------------------------------------------------------------------------
//
// Written from the contract in `ragged_core::ops::primitives` (nulls skipped, exact
// integer sums in i128, NaN ignored by minima and maxima unless every valid value is
// NaN, lowest row on ties, empty → None / null) and from the choices the CPU backend
// documents where the contract leaves one open (`ragged_cpu::primitives`): each
// running extreme is the reduction of its prefix (the identity for a prefix with no
// valid value); an integer scan fails at the lowest row whose output value does not
// fit; an i32 `sizes_to_offsets` fails naming the first offset beyond i32::MAX.

/// A float sum with what bounds its rounding: Neumaier's compensated sum of the finite
/// terms in `f64`, the sum of their absolute values, their number, and which
/// non-finite terms were seen (NaN, `+inf`, `-inf`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FloatSum {
    sum: f64,
    compensation: f64,
    /// The sum of the absolute values of the finite terms.
    pub sum_abs: f64,
    /// The number of terms.
    pub terms: usize,
    nan: bool,
    positive_infinity: bool,
    negative_infinity: bool,
}

impl FloatSum {
    /// The empty sum.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add one term.
    pub fn add(&mut self, x: f64) {
        self.terms += 1;
        if x.is_nan() {
            self.nan = true;
        } else if x == f64::INFINITY {
            self.positive_infinity = true;
        } else if x == f64::NEG_INFINITY {
            self.negative_infinity = true;
        } else {
            let t = self.sum + x;
            if self.sum.abs() >= x.abs() {
                self.compensation += (self.sum - t) + x;
            } else {
                self.compensation += (x - t) + self.sum;
            }
            self.sum = t;
            self.sum_abs += x.abs();
        }
    }

    /// The sum: NaN when a term is NaN or both infinities occur, an infinity when one
    /// occurs, otherwise the compensated sum of the finite terms.
    pub fn value(&self) -> f64 {
        match (self.nan, self.positive_infinity, self.negative_infinity) {
            (true, _, _) | (false, true, true) => f64::NAN,
            (false, true, false) => f64::INFINITY,
            (false, false, true) => f64::NEG_INFINITY,
            (false, false, false) => self.sum + self.compensation,
        }
    }

    /// The largest difference allowed between this sum computed in any order with an
    /// accumulator of machine epsilon `epsilon` and [`FloatSum::value`] (as
    /// [`float_sum_tolerance`]).
    pub fn tolerance(&self, epsilon: f64) -> f64 {
        (self.terms as f64 + 1.0) * epsilon * self.sum_abs + 4.0 * f64::EPSILON * self.sum_abs
    }
}

/// `transform(x)` as the contract defines it (`ragged_core::ops::Transform`).
fn apply(transform: Transform, x: f64) -> f64 {
    match transform {
        Transform::Identity => x,
        Transform::Square => x * x,
        Transform::Abs => x.abs(),
    }
}

/// `reduce_sum_f64`: the sum of `transform(x)` over the valid values, in `f64`.
///
/// ```
/// use ragged_core::ops::Transform;
/// let sum = ragged_testkit::oracle::reduce_sum_f64(&[Some(3i32), None, Some(-4)], Transform::Square);
/// assert_eq!(sum.value(), 25.0);
/// ```
pub fn reduce_sum_f64<T: TestNative>(values: &[Option<T>], transform: Transform) -> FloatSum {
    let mut sum = FloatSum::new();
    for v in values.iter().flatten() {
        sum.add(apply(transform, v.to_f64()));
    }
    sum
}

/// Whether `candidate` is a better extreme than `best` (both not NaN).
fn better<T: TestNative>(candidate: T, best: T, max: bool) -> bool {
    if max {
        candidate > best
    } else {
        candidate < best
    }
}

/// The least (`max == false`) or greatest valid value and its row: the lowest row
/// holding the extreme non-NaN value; when every valid value is NaN, the first of
/// them; `None` when no value is valid.
///
/// ```
/// let v = [Some(f64::NAN), Some(2.0), None, Some(1.0), Some(1.0)];
/// assert_eq!(ragged_testkit::oracle::extreme(&v, false), Some((3, 1.0)));
/// assert_eq!(ragged_testkit::oracle::extreme(&v, true), Some((1, 2.0)));
/// ```
pub fn extreme<T: TestNative>(values: &[Option<T>], max: bool) -> Option<(usize, T)> {
    let mut best: Option<(usize, T)> = None;
    for (row, v) in values.iter().enumerate() {
        let Some(x) = *v else { continue };
        if is_nan(x) {
            continue;
        }
        if best.is_none_or(|(_, b)| better(x, b, max)) {
            best = Some((row, x));
        }
    }
    best.or_else(|| {
        values
            .iter()
            .enumerate()
            .find_map(|(row, v)| v.filter(|&x| is_nan(x)).map(|x| (row, x)))
    })
}

/// The number of valid values.
pub fn count_valid<T>(values: &[Option<T>]) -> usize {
    values.iter().filter(|v| v.is_some()).count()
}

/// Whether `x <comparison> value` under IEEE 754 (an unordered pair, i.e. a NaN,
/// satisfies only `Ne`).
pub fn satisfies<T: PartialOrd>(comparison: Comparison, x: T, value: T) -> bool {
    match x.partial_cmp(&value) {
        None => comparison == Comparison::Ne,
        Some(order) => match comparison {
            Comparison::Eq => order == Ordering::Equal,
            Comparison::Ne => order != Ordering::Equal,
            Comparison::Lt => order == Ordering::Less,
            Comparison::Le => order != Ordering::Greater,
            Comparison::Gt => order == Ordering::Greater,
            Comparison::Ge => order != Ordering::Less,
        },
    }
}

/// The number of valid values satisfying the predicate.
pub fn count_if<T: TestNative>(values: &[Option<T>], predicate: Predicate<T>) -> usize {
    values
        .iter()
        .flatten()
        .filter(|&&x| satisfies(predicate.comparison, x, predicate.value))
        .count()
}

/// Whether any valid value is true; `None` without a valid value.
pub fn reduce_any(values: &[Option<bool>]) -> Option<bool> {
    let mut seen = None;
    for v in values.iter().flatten() {
        seen = Some(seen.unwrap_or(false) || *v);
    }
    seen
}

/// Whether every valid value is true; `None` without a valid value.
pub fn reduce_all(values: &[Option<bool>]) -> Option<bool> {
    let mut seen = None;
    for v in values.iter().flatten() {
        seen = Some(seen.unwrap_or(true) && *v);
    }
    seen
}

/// The overflow a backend must report, naming `what` (`row 12`, `segment 3`): the
/// backend's message must contain this oracle's message.
fn overflow(op: &'static str, what: String) -> Error {
    Error::Overflow { op, message: what }
}

/// Integer `scan_sum`: the running sums (`None` at null rows, whose value is
/// unspecified), or `Error::Overflow` naming (`row <r>`) the lowest row whose value
/// does not fit `T::Sum`: the running sum through the row (inclusive) or before it
/// (exclusive), null rows included (they hold the running value). An exclusive scan
/// whose total alone does not fit succeeds: the total is no output row.
///
/// # Errors
/// The overflow.
///
/// # Panics
/// For float types (use [`scan_sum_float`]).
pub fn scan_sum_exact<T: TestNative>(
    values: &[Option<T>],
    kind: ScanKind,
) -> Result<Vec<Option<T::Sum>>, Error>
where
    T::Sum: TestNative,
{
    assert!(T::EXACT, "scan_sum_exact is for integer types");
    let fits = |x: i128| <T::Sum as TestNative>::from_i128(x);
    let mut out = Vec::with_capacity(values.len());
    let mut running: i128 = 0;
    for (row, v) in values.iter().enumerate() {
        let before = running;
        if let Some(x) = v {
            running += x.to_i128().unwrap_or(0);
        }
        let value = match kind {
            ScanKind::Inclusive => running,
            ScanKind::Exclusive => before,
        };
        let Some(shown) = fits(value) else {
            return Err(overflow("scan_sum", format!("row {row}")));
        };
        out.push(v.map(|_| shown));
    }
    Ok(out)
}

/// Float `scan_sum` (and, with `f64` terms, `scan_sum_f64`): the running sum of each
/// valid row (`None` at null rows).
pub fn scan_sum_float<T: TestNative>(
    values: &[Option<T>],
    kind: ScanKind,
) -> Vec<Option<FloatSum>> {
    scan_sum_f64(values, Transform::Identity, kind)
}

/// `scan_sum_f64`: the running sums of `transform(x)` in `f64` (`None` at null rows).
pub fn scan_sum_f64<T: TestNative>(
    values: &[Option<T>],
    transform: Transform,
    kind: ScanKind,
) -> Vec<Option<FloatSum>> {
    let mut running = FloatSum::new();
    values
        .iter()
        .map(|v| {
            let before = running;
            if let Some(x) = v {
                running.add(apply(transform, x.to_f64()));
            }
            v.map(|_| match kind {
                ScanKind::Inclusive => running,
                ScanKind::Exclusive => before,
            })
        })
        .collect()
}

/// `scan_min` (`max == false`) and `scan_max`: at each valid row, the extreme of the
/// prefix (`x[..=i]` inclusive, `x[..i]` exclusive) as [`extreme`] defines it, or the
/// identity (`Native::max_value` for minima, `Native::min_value` for maxima) when the
/// prefix has no valid value; `None` at null rows.
pub fn scan_extreme<T: TestNative>(
    values: &[Option<T>],
    kind: ScanKind,
    max: bool,
) -> Vec<Option<T>> {
    let identity = if max { T::min_value() } else { T::max_value() };
    let mut best: Option<T> = None;
    let mut nan: Option<T> = None;
    values
        .iter()
        .map(|v| {
            let before = best.or(nan).unwrap_or(identity);
            if let Some(x) = *v {
                if is_nan(x) {
                    nan = nan.or(Some(x));
                } else if best.is_none_or(|b| better(x, b, max)) {
                    best = Some(x);
                }
            }
            let after = best.or(nan).unwrap_or(identity);
            v.map(|_| match kind {
                ScanKind::Inclusive => after,
                ScanKind::Exclusive => before,
            })
        })
        .collect()
}

/// `scan_count_if`: running counts of the valid values satisfying the predicate
/// (every row has a value).
pub fn scan_count_if<T: TestNative>(
    values: &[Option<T>],
    predicate: Predicate<T>,
    kind: ScanKind,
) -> Vec<i64> {
    let mut count = 0i64;
    values
        .iter()
        .map(|v| {
            let before = count;
            if v.is_some_and(|x| satisfies(predicate.comparison, x, predicate.value)) {
                count += 1;
            }
            match kind {
                ScanKind::Inclusive => count,
                ScanKind::Exclusive => before,
            }
        })
        .collect()
}

/// The expected result of `sizes_to_offsets`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OffsetsOracle {
    /// Whether the offsets are `i64` (otherwise `i32`).
    pub wide: bool,
    /// The `n + 1` offsets.
    pub offsets: Vec<i64>,
    /// The total (the last offset).
    pub total: i64,
}

/// `sizes_to_offsets`: `offsets[0] = 0`, `offsets[i + 1] = offsets[i] + size[i]`
/// (null sizes add 0). A negative valid size is checked first and reported at the
/// lowest row; then an `i32` request whose total exceeds `i32::MAX` is an overflow
/// naming (`index <k>`) the first offset beyond `i32::MAX`; `Auto` is `i32` unless the
/// total exceeds `i32::MAX`.
///
/// ```
/// use ragged_core::ops::OffsetWidth;
/// let o = ragged_testkit::oracle::sizes_to_offsets(&[Some(2), None, Some(3)], OffsetWidth::Auto).unwrap();
/// assert_eq!((o.wide, o.offsets, o.total), (false, vec![0, 2, 2, 5], 5));
/// ```
///
/// # Errors
/// `Error::NegativeSize` or `Error::Overflow`.
pub fn sizes_to_offsets(sizes: &[Option<i32>], width: OffsetWidth) -> Result<OffsetsOracle, Error> {
    if let Some((index, size)) = sizes
        .iter()
        .enumerate()
        .find_map(|(i, s)| s.filter(|&s| s < 0).map(|s| (i, s)))
    {
        return Err(Error::NegativeSize {
            index,
            size: i64::from(size),
        });
    }
    let mut offsets = vec![0i64];
    let mut total = 0i64;
    for s in sizes {
        total += i64::from(s.unwrap_or(0));
        offsets.push(total);
    }
    let above = total > i64::from(i32::MAX);
    let wide = match width {
        OffsetWidth::I64 => true,
        OffsetWidth::Auto => above,
        OffsetWidth::I32 if above => {
            let k = offsets
                .iter()
                .position(|&o| o > i64::from(i32::MAX))
                .unwrap_or(offsets.len());
            return Err(overflow("sizes_to_offsets", format!("index {k}")));
        }
        OffsetWidth::I32 => false,
    };
    Ok(OffsetsOracle {
        wide,
        offsets,
        total,
    })
}

/// `select_mask`: the valid values whose mask entry is valid and true, with their rows.
///
/// # Errors
/// `Error::LengthMismatch` when the lengths differ.
pub fn select_mask<T: TestNative>(
    values: &[Option<T>],
    mask: &[Option<bool>],
) -> Result<Vec<(usize, T)>, Error> {
    if mask.len() != values.len() {
        return Err(Error::LengthMismatch {
            op: "select_mask",
            what: "mask",
            expected: values.len(),
            actual: mask.len(),
        });
    }
    let mut out = Vec::new();
    for (row, (v, m)) in values.iter().zip(mask).enumerate() {
        if let (Some(x), Some(true)) = (*v, *m) {
            out.push((row, x));
        }
    }
    Ok(out)
}

/// `select_if`: the valid values satisfying the predicate, with their rows.
pub fn select_if<T: TestNative>(values: &[Option<T>], predicate: Predicate<T>) -> Vec<(usize, T)> {
    let mut out = Vec::new();
    for (row, v) in values.iter().enumerate() {
        if let Some(x) = *v {
            if satisfies(predicate.comparison, x, predicate.value) {
                out.push((row, x));
            }
        }
    }
    out
}

/// The segments `values[offsets[i]..offsets[i + 1]]`, after checking the offsets
/// against `values.len()` as [`validate_offsets`] does.
fn segments<'a, T>(
    values: &'a [Option<T>],
    offsets: &[i64],
) -> Result<Vec<&'a [Option<T>]>, Error> {
    validate_offsets(offsets, values.len())?;
    Ok(offsets
        .windows(2)
        .map(|w| &values[w[0] as usize..w[1] as usize])
        .collect())
}

/// `segmented_sum`: each segment's [`reduce_sum`].
///
/// # Errors
/// The [`validate_offsets`] error; `Error::Overflow` naming (`segment <i>`) the lowest
/// segment whose integer sum does not fit.
pub fn segmented_sum<T: TestNative>(
    values: &[Option<T>],
    offsets: &[i64],
) -> Result<Vec<SumOracle>, Error>
where
    T::Sum: TestNative,
{
    let sums: Vec<SumOracle> = segments(values, offsets)?
        .into_iter()
        .map(reduce_sum)
        .collect();
    match sums.iter().position(|s| *s == SumOracle::Int(None)) {
        Some(i) => Err(overflow("segmented_sum", format!("segment {i}"))),
        None => Ok(sums),
    }
}

/// `segmented_min`/`max`/`argmin`/`argmax`: each segment's [`extreme`], its row
/// counted from the segment's start; `None` for a segment with no valid value.
///
/// # Errors
/// The [`validate_offsets`] error.
pub fn segmented_extreme<T: TestNative>(
    values: &[Option<T>],
    offsets: &[i64],
    max: bool,
) -> Result<Vec<Option<(usize, T)>>, Error> {
    Ok(segments(values, offsets)?
        .into_iter()
        .map(|s| extreme(s, max))
        .collect())
}

/// `segmented_count`: the valid values of each segment.
///
/// # Errors
/// The [`validate_offsets`] error.
pub fn segmented_count<T>(values: &[Option<T>], offsets: &[i64]) -> Result<Vec<usize>, Error> {
    Ok(segments(values, offsets)?
        .into_iter()
        .map(count_valid)
        .collect())
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

    #[test]
    fn float_sums_handle_non_finite_terms() {
        let sum = |xs: &[f64]| {
            let mut s = FloatSum::new();
            xs.iter().for_each(|&x| s.add(x));
            s.value()
        };
        assert_eq!(sum(&[1.0, f64::INFINITY, 2.0]), f64::INFINITY);
        assert_eq!(sum(&[f64::NEG_INFINITY, 2.0]), f64::NEG_INFINITY);
        assert!(sum(&[f64::INFINITY, f64::NEG_INFINITY]).is_nan());
        assert!(sum(&[1.0, f64::NAN]).is_nan());
        assert_eq!(sum(&[1.0e16, 1.0, -1.0e16]), 1.0);
        assert_eq!(sum(&[]), 0.0);
    }

    #[test]
    fn extremes_skip_nan_and_take_the_lowest_row_on_ties() {
        let nan = f64::NAN;
        assert_eq!(
            extreme(&[Some(2.0), Some(1.0), Some(1.0)], false),
            Some((1, 1.0))
        );
        assert_eq!(
            extreme(&[Some(nan), Some(1.0), Some(nan)], true),
            Some((1, 1.0))
        );
        let all_nan = extreme(&[None, Some(nan), Some(nan)], false).unwrap();
        assert_eq!(all_nan.0, 1);
        assert!(all_nan.1.is_nan());
        assert_eq!(extreme::<f64>(&[None, None], true), None);
        // ±0 are equal: the first one is the extreme.
        let zero = extreme(&[Some(0.0f64), Some(-0.0)], false).unwrap();
        assert_eq!((zero.0, zero.1.to_bits()), (0, 0.0f64.to_bits()));
        assert_eq!(
            extreme(&[Some(-1.0), Some(f64::NEG_INFINITY)], false),
            Some((1, f64::NEG_INFINITY))
        );
    }

    #[test]
    fn predicates_follow_ieee() {
        let nan = f32::NAN;
        for c in [
            Comparison::Eq,
            Comparison::Lt,
            Comparison::Le,
            Comparison::Gt,
            Comparison::Ge,
        ] {
            assert!(!satisfies(c, nan, 1.0));
            assert!(!satisfies(c, 1.0, nan));
        }
        assert!(satisfies(Comparison::Ne, nan, nan));
        assert!(satisfies(Comparison::Le, 2, 2) && !satisfies(Comparison::Lt, 2, 2));
        assert!(satisfies(Comparison::Eq, -0.0f32, 0.0));
        let p = Predicate::new(Comparison::Gt, 1i32);
        assert_eq!(count_if(&[Some(2), None, Some(1), Some(5)], p), 2);
        assert_eq!(
            select_if(&[Some(2), None, Some(1), Some(5)], p),
            vec![(0, 2), (3, 5)]
        );
    }

    #[test]
    fn any_and_all_of_no_valid_value_are_none() {
        assert_eq!(reduce_any(&[None, None]), None);
        assert_eq!(reduce_all(&[]), None);
        assert_eq!(reduce_any(&[Some(false), None, Some(true)]), Some(true));
        assert_eq!(reduce_all(&[Some(true), None, Some(false)]), Some(false));
        assert_eq!(reduce_all(&[Some(true), None]), Some(true));
    }

    #[test]
    fn integer_scans_fail_when_a_prefix_does_not_fit() {
        let max = i64::MAX;
        // The total fits, a prefix does not: reduce_sum succeeds, scan_sum fails at the
        // row holding it (row 1 inclusive, row 2 exclusive).
        let values = [Some(max), Some(1), Some(-1)];
        assert_eq!(reduce_sum(&values), SumOracle::Int(Some(i128::from(max))));
        let message = |kind| match scan_sum_exact(&values, kind).unwrap_err() {
            Error::Overflow { message, .. } => message,
            other => panic!("{other:?}"),
        };
        assert_eq!(message(ScanKind::Inclusive), "row 1");
        assert_eq!(message(ScanKind::Exclusive), "row 2");
        // Only the total overflows: no exclusive output holds it.
        let fine = scan_sum_exact(&[Some(max), None, Some(1)], ScanKind::Exclusive).unwrap();
        assert_eq!(fine, vec![Some(0), None, Some(max)]);
        // A null row holding a running value that does not fit fails.
        let err = scan_sum_exact(&[Some(max), Some(1), None], ScanKind::Exclusive).unwrap_err();
        assert!(matches!(err, Error::Overflow { ref message, .. } if message == "row 2"));
        assert_eq!(
            scan_sum_exact(&[Some(3u8), None, Some(4)], ScanKind::Exclusive).unwrap(),
            vec![Some(0u64), None, Some(3)]
        );
        assert_eq!(
            scan_sum_exact(&[Some(3i8), None, Some(-4)], ScanKind::Inclusive).unwrap(),
            vec![Some(3i64), None, Some(-1)]
        );
    }

    #[test]
    fn running_extremes_reduce_their_prefix() {
        let (nan, inf) = (f32::NAN, f32::INFINITY);
        let bits = |v: Vec<Option<f32>>| {
            v.into_iter()
                .map(|x| x.map(f32::to_bits))
                .collect::<Vec<_>>()
        };
        let values = [Some(nan), Some(1.0), None, Some(0.5), Some(nan)];
        // Inclusive: NaN while every valid value so far is NaN.
        assert_eq!(
            bits(scan_extreme(&values, ScanKind::Inclusive, false)),
            bits(vec![Some(nan), Some(1.0), None, Some(0.5), Some(0.5)])
        );
        // Exclusive: the identity, then the inclusive result of the previous row.
        assert_eq!(
            bits(scan_extreme(&values, ScanKind::Exclusive, false)),
            bits(vec![Some(inf), Some(nan), None, Some(1.0), Some(0.5)])
        );
        assert_eq!(
            scan_extreme(&[None, Some(5i16), Some(7)], ScanKind::Exclusive, true),
            vec![None, Some(i16::MIN), Some(5)]
        );
        assert_eq!(
            scan_extreme(&[Some(5u8), Some(7), Some(2)], ScanKind::Inclusive, false),
            vec![Some(5), Some(5), Some(2)]
        );
        assert_eq!(
            scan_count_if(
                &[Some(1), None, Some(3)],
                Predicate::new(Comparison::Ge, 1),
                ScanKind::Exclusive
            ),
            vec![0, 1, 1]
        );
    }

    #[test]
    fn sizes_report_negative_sizes_before_overflow() {
        let err = sizes_to_offsets(
            &[Some(i32::MAX), Some(i32::MAX), Some(-1)],
            OffsetWidth::I32,
        )
        .unwrap_err();
        assert!(matches!(err, Error::NegativeSize { index: 2, size: -1 }));
        let err = sizes_to_offsets(&[Some(1 << 30), Some(1 << 30), Some(0)], OffsetWidth::I32)
            .unwrap_err();
        assert!(matches!(err, Error::Overflow { ref message, .. } if message == "index 2"));
        let wide = sizes_to_offsets(&[Some(1 << 30), Some(1 << 30)], OffsetWidth::Auto).unwrap();
        assert_eq!((wide.wide, wide.total), (true, 1 << 31));
        let narrow =
            sizes_to_offsets(&[Some(1 << 30), Some((1 << 30) - 1)], OffsetWidth::Auto).unwrap();
        assert_eq!((narrow.wide, narrow.total), (false, i64::from(i32::MAX)));
        let empty = sizes_to_offsets(&[], OffsetWidth::I32).unwrap();
        assert_eq!((empty.offsets, empty.total), (vec![0], 0));
    }

    #[test]
    fn selections_need_a_valid_true_mask_entry() {
        let values = [Some(1u8), None, Some(3), Some(4)];
        let mask = [Some(true), Some(true), None, Some(true)];
        assert_eq!(select_mask(&values, &mask).unwrap(), vec![(0, 1), (3, 4)]);
        let err = select_mask(&values, &mask[..3]).unwrap_err();
        assert!(matches!(
            err,
            Error::LengthMismatch {
                expected: 4,
                actual: 3,
                ..
            }
        ));
    }

    #[test]
    fn segmented_reductions_validate_then_reduce_each_segment() {
        let values = [Some(1i64), None, Some(3), Some(i64::MAX), Some(1)];
        assert_eq!(segmented_count(&values, &[1, 1, 3]).unwrap(), vec![0, 1]);
        assert_eq!(
            segmented_extreme(&values, &[0, 2, 2, 4], true).unwrap(),
            vec![Some((0, 1)), None, Some((1, i64::MAX))]
        );
        let err = segmented_sum(&values, &[0, 3, 5]).unwrap_err();
        assert!(matches!(err, Error::Overflow { ref message, .. } if message == "segment 1"));
        let err = segmented_count(&values, &[0, 3, 2]).unwrap_err();
        assert!(matches!(err, Error::InvalidOffsets { index: 2, .. }));
        let err = segmented_count(&values, &[0, 6]).unwrap_err();
        assert!(matches!(err, Error::InvalidOffsets { index: 1, .. }));
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

// ---------------------------------------------------------------------------------
// text: split_lines, line_ends, count_lines
// ---------------------------------------------------------------------------------

/// The expected result of the text family on one input ([`lines`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinesOracle {
    /// The records of the range, as output (delimiter stripped or kept).
    pub records: Vec<Vec<u8>>,
    /// The record boundaries (`line_ends`): `n + 1` positions, or the one entry
    /// `min(range start, len)` when there is no record.
    pub boundaries: Vec<i64>,
    /// Whether the output has i64 offsets.
    pub wide: bool,
    /// The first record that is not UTF-8 and the byte within it (`None` when all are,
    /// or when binary output is asked for).
    pub utf8_error: Option<(usize, usize)>,
}

/// The records of `bytes` under `options`, by the most literal reading of the
/// contract (`ragged_core::ops::text`): walk the input one byte at a time; where the
/// delimiter starts, close the record and jump past it; a record starts at 0 and after
/// each delimiter, except at the very end; keep the records starting in the byte range.
///
/// ```
/// use ragged_core::ops::{Delimiter, LineOptions};
/// let oracle = ragged_testkit::oracle::lines(b"a\r\nb\n", &LineOptions::new(Delimiter::Newline));
/// assert_eq!(oracle.records, vec![b"a".to_vec(), b"b".to_vec()]);
/// assert_eq!(oracle.boundaries, vec![0, 3, 5]);
/// ```
pub fn lines(bytes: &[u8], options: &ragged_core::ops::LineOptions) -> LinesOracle {
    use ragged_core::ops::Delimiter;
    let delimiter = options.delimiter.bytes();
    let m = delimiter.len();
    // (start, content end, end with delimiter, terminated)
    let mut all: Vec<(usize, usize, usize, bool)> = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i + m <= bytes.len() {
        if &bytes[i..i + m] == delimiter {
            all.push((start, i, i + m, true));
            i += m;
            start = i;
        } else {
            i += 1;
        }
    }
    if start < bytes.len() {
        all.push((start, bytes.len(), bytes.len(), false));
    }
    let (s, e) = options.byte_range.unwrap_or((0, u64::MAX));
    let kept: Vec<_> = all
        .into_iter()
        .filter(|r| (r.0 as u64) >= s && (r.0 as u64) < e)
        .collect();
    let records: Vec<Vec<u8>> = kept
        .iter()
        .map(|&(start, content_end, end, terminated)| {
            if options.keep_delimiter {
                return bytes[start..end].to_vec();
            }
            let mut row = bytes[start..content_end].to_vec();
            if terminated && options.delimiter == Delimiter::Newline && row.last() == Some(&b'\r') {
                row.pop();
            }
            row
        })
        .collect();
    let boundaries = match (kept.first(), kept.last()) {
        (Some(_), Some(last)) => kept
            .iter()
            .map(|r| r.0 as i64)
            .chain([last.2 as i64])
            .collect(),
        _ => vec![s.min(bytes.len() as u64) as i64],
    };
    let total: usize = records.iter().map(Vec::len).sum();
    let utf8_error = if options.binary {
        None
    } else {
        records
            .iter()
            .enumerate()
            .find_map(|(row, r)| std::str::from_utf8(r).err().map(|e| (row, e.valid_up_to())))
    };
    LinesOracle {
        records,
        boundaries,
        wide: total as u64 > options.wide_offsets_above.min(i32::MAX as u64),
        utf8_error,
    }
}
