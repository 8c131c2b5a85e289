//! Oracles of the lists family (`ragged_core::ops::lists`), on plain values: lists as
//! `Vec<Option<Vec<Option<E>>>>` ([`Lists`]), views as `(start, stop, valid)` triples.
//!
//! Written from the contract and from the choices the CPU backend documents where the
//! contract leaves one open (`ragged_cpu::lists`): null lists are never read; integer
//! sums and products overflow when the mathematical result does not fit `Native::Sum`
//! (a zero element makes a product 0), naming the lowest valid list (`list <i>`);
//! `i32` offsets that do not fit name the first offset beyond `i32::MAX` (`index <k>`);
//! `unflatten` reports negative counts before a sum that differs from the child's
//! length. Python's slice and index rules are re-derived here in `i128`, not taken
//! from `ragged_core`.

use ragged_core::ops::{OffsetWidth, OutOfRange};
use ragged_core::Error;

use super::{extreme, overflow, reduce_sum, FloatSum, OffsetsOracle, SumOracle};
use crate::native::{is_nan, TestNative};

pub use crate::gen::list_ops::Lists;

/// The first bad list of a starts/stops pair as `ragged_core` classifies it
/// (`column::starts_stops_error`): `StopsBeforeStarts` when `stop < start`, else
/// `ListOutOfBounds` when `start < 0` or `stop > child_len`.
///
/// # Errors
/// `LengthMismatch` when the lengths differ, or the error of the lowest bad list.
pub fn check_starts_stops(starts: &[i64], stops: &[i64], child_len: usize) -> Result<(), Error> {
    if starts.len() != stops.len() {
        return Err(Error::LengthMismatch {
            op: "compact_offsets",
            what: "stops",
            expected: starts.len(),
            actual: stops.len(),
        });
    }
    for (index, (&start, &stop)) in starts.iter().zip(stops).enumerate() {
        if stop < start {
            return Err(Error::StopsBeforeStarts { index, start, stop });
        }
        if start < 0 || i128::from(stop) > child_len as i128 {
            return Err(Error::ListOutOfBounds {
                index,
                start,
                stop,
                child_len,
            });
        }
    }
    Ok(())
}

/// Offsets of lists of `lengths` at `width` (`Auto`: i32 unless the total exceeds
/// `i32::MAX`).
///
/// # Errors
/// `Overflow` naming (`index <k>`) the first offset above `i32::MAX` for `I32`.
pub fn offsets_of(
    op: &'static str,
    lengths: &[i64],
    width: OffsetWidth,
) -> Result<OffsetsOracle, Error> {
    let mut offsets = vec![0i64];
    let mut total = 0i64;
    for &len in lengths {
        total += len;
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
            return Err(overflow(op, format!("index {k}")));
        }
        OffsetWidth::I32 => false,
    };
    Ok(OffsetsOracle {
        wide,
        offsets,
        total,
    })
}

/// `compact_offsets`: the checks of [`check_starts_stops`], then the offsets of the
/// lengths `stops[i] - starts[i]` ([`offsets_of`]).
///
/// ```
/// use ragged_core::ops::OffsetWidth;
/// let o = ragged_testkit::oracle::lists::compact_offsets(&[2, 0], &[4, 3], 4, OffsetWidth::Auto).unwrap();
/// assert_eq!(o.offsets, vec![0, 2, 5]);
/// ```
///
/// # Errors
/// As [`check_starts_stops`] and [`offsets_of`].
pub fn compact_offsets(
    starts: &[i64],
    stops: &[i64],
    child_len: usize,
    width: OffsetWidth,
) -> Result<OffsetsOracle, Error> {
    check_starts_stops(starts, stops, child_len)?;
    let lengths: Vec<i64> = starts.iter().zip(stops).map(|(a, b)| b - a).collect();
    offsets_of("compact_offsets", &lengths, width)
}

/// The lists of a view: `child[start..stop]` for valid lists, `None` for null ones.
pub fn view_rows<E: Clone>(child: &[Option<E>], lists: &[(i64, i64, bool)]) -> Lists<E> {
    lists
        .iter()
        .map(|&(a, b, valid)| valid.then(|| child[a as usize..b as usize].to_vec()))
        .collect()
}

/// `flatten`: the valid lists' elements in order.
pub fn flatten<E: Clone>(rows: &Lists<E>) -> Vec<Option<E>> {
    rows.iter().flatten().flatten().cloned().collect()
}

/// `unflatten`: lists of `counts[i]` consecutive child elements; a null count is a
/// null, empty list.
///
/// # Errors
/// `NegativeSize` for the lowest valid negative count; then `LengthMismatch` (expected
/// the child's length, actual the sum of the valid counts).
pub fn unflatten<E: Clone>(child: &[Option<E>], counts: &[Option<i64>]) -> Result<Lists<E>, Error> {
    if let Some((index, size)) = counts
        .iter()
        .enumerate()
        .find_map(|(i, c)| c.filter(|&c| c < 0).map(|c| (i, c)))
    {
        return Err(Error::NegativeSize { index, size });
    }
    let sum: i128 = counts.iter().flatten().map(|&c| i128::from(c)).sum();
    if sum != child.len() as i128 {
        return Err(Error::LengthMismatch {
            op: "unflatten",
            what: "counts",
            expected: child.len(),
            actual: usize::try_from(sum).unwrap_or(usize::MAX),
        });
    }
    let mut at = 0usize;
    Ok(counts
        .iter()
        .map(|c| {
            c.map(|c| {
                let list = child[at..at + c as usize].to_vec();
                at += c as usize;
                list
            })
        })
        .collect())
}

/// `local_index`: each element's position in its list.
pub fn local_index<E>(rows: &Lists<E>) -> Lists<i64> {
    rows.iter()
        .map(|l| l.as_ref().map(|l| (0..l.len() as i64).map(Some).collect()))
        .collect()
}

/// Python's index: `index` (negative from the end) within a list of `len`.
fn py_index(len: usize, index: i64) -> Option<usize> {
    let i = if index < 0 {
        i128::from(index) + len as i128
    } else {
        i128::from(index)
    };
    (0 <= i && i < len as i128).then_some(i as usize)
}

/// `get`: element `index` of each list (null for null lists and null elements, and for
/// lists too short under [`OutOfRange::Null`]).
///
/// # Errors
/// `IndexOutOfRange` naming the lowest valid list too short, under
/// [`OutOfRange::Error`].
pub fn get<E: Clone>(
    rows: &Lists<E>,
    index: i64,
    mode: OutOfRange,
) -> Result<Vec<Option<E>>, Error> {
    let mut out = Vec::with_capacity(rows.len());
    for (row, list) in rows.iter().enumerate() {
        let Some(list) = list else {
            out.push(None);
            continue;
        };
        match py_index(list.len(), index) {
            Some(i) => out.push(list[i].clone()),
            None if mode == OutOfRange::Error => {
                return Err(Error::IndexOutOfRange {
                    row,
                    index,
                    len: list.len() as i64,
                })
            }
            None => out.push(None),
        }
    }
    Ok(out)
}

/// Python's slice bounds of a list of `len`: `(start, stop)` with `start <= stop`.
pub fn py_slice(len: usize, start: Option<i64>, stop: Option<i64>) -> (usize, usize) {
    let len = len as i128;
    let bound = |b: i64| {
        let b = i128::from(b);
        if b < 0 {
            (b + len).max(0)
        } else {
            b.min(len)
        }
    };
    let a = start.map_or(0, bound);
    let b = stop.map_or(len, bound).max(a);
    (a as usize, b as usize)
}

/// `slice`: `list[start:stop]` of every list.
pub fn slice<E: Clone>(rows: &Lists<E>, start: Option<i64>, stop: Option<i64>) -> Lists<E> {
    rows.iter()
        .map(|l| {
            l.as_ref().map(|l| {
                let (a, b) = py_slice(l.len(), start, stop);
                l[a..b].to_vec()
            })
        })
        .collect()
}

/// The valid elements of a list.
fn valid<T: Copy>(list: &[Option<T>]) -> Vec<Option<T>> {
    list.iter().filter(|v| v.is_some()).copied().collect()
}

/// `list_sum`: each valid list's [`reduce_sum`] (`None` for null lists).
///
/// # Errors
/// `Overflow` naming (`list <i>`) the lowest valid list whose integer sum does not fit.
pub fn list_sum<T: TestNative>(rows: &Lists<T>) -> Result<Vec<Option<SumOracle>>, Error>
where
    T::Sum: TestNative,
{
    let sums: Vec<Option<SumOracle>> = rows
        .iter()
        .map(|l| l.as_ref().map(|l| reduce_sum(l)))
        .collect();
    match sums.iter().position(|s| *s == Some(SumOracle::Int(None))) {
        Some(i) => Err(overflow("list_sum", format!("list {i}"))),
        None => Ok(sums),
    }
}

/// The expected product of a list.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ProdOracle {
    /// An exact integer product.
    Int(i128),
    /// A float product: the left-to-right product in `f64` rounded to the element
    /// type, and the number of factors.
    Float {
        /// The product.
        value: f64,
        /// The number of valid elements multiplied.
        terms: usize,
    },
}

/// `list_prod`: the product of each valid list's valid elements (1 when there is
/// none). Integers: the exact product (0 when an element is 0), which must fit
/// `Native::Sum`. Floats: the product in `f64`, rounded to `T`.
///
/// # Errors
/// `Overflow` naming (`list <i>`) the lowest valid list whose integer product does not
/// fit.
pub fn list_prod<T: TestNative>(rows: &Lists<T>) -> Result<Vec<Option<ProdOracle>>, Error>
where
    T::Sum: TestNative,
{
    let mut out = Vec::with_capacity(rows.len());
    for (i, list) in rows.iter().enumerate() {
        let Some(list) = list else {
            out.push(None);
            continue;
        };
        let values = valid(list);
        if T::EXACT {
            let ints: Vec<i128> = values
                .iter()
                .flatten()
                .map(|v| v.to_i128().unwrap_or(0))
                .collect();
            let product = if ints.contains(&0) {
                Some(0)
            } else {
                // Stop once the magnitude exceeds every accumulator (2^64).
                let mut p: i128 = 1;
                let mut fits = true;
                for x in ints {
                    match p.checked_mul(x) {
                        Some(q) if q.unsigned_abs() <= 1u128 << 64 => p = q,
                        _ => {
                            fits = false;
                            break;
                        }
                    }
                }
                fits.then_some(p)
            };
            match product.filter(|&p| <T::Sum as TestNative>::from_i128(p).is_some()) {
                Some(p) => out.push(Some(ProdOracle::Int(p))),
                None => return Err(overflow("list_prod", format!("list {i}"))),
            }
        } else {
            let p = values
                .iter()
                .flatten()
                .fold(1.0f64, |acc, v| acc * v.to_f64());
            let rounded = T::from_f64(p).map_or(p, |x| x.to_f64());
            out.push(Some(ProdOracle::Float {
                value: rounded,
                terms: values.len(),
            }));
        }
    }
    Ok(out)
}

/// `list_min`/`max`/`argmin`/`argmax`: each valid list's [`extreme`] (position within
/// the list); `None` for a null list or a list without a valid element.
pub fn list_extreme<T: TestNative>(rows: &Lists<T>, max: bool) -> Vec<Option<(usize, T)>> {
    rows.iter()
        .map(|l| l.as_ref().and_then(|l| extreme(l, max)))
        .collect()
}

/// `list_count`: the valid elements of each valid list.
pub fn list_count<E>(rows: &Lists<E>) -> Vec<Option<usize>> {
    rows.iter()
        .map(|l| l.as_ref().map(|l| l.iter().filter(|v| v.is_some()).count()))
        .collect()
}

/// `list_count_nonzero`: the valid elements that are not zero (NaN is not zero).
pub fn list_count_nonzero<T: TestNative>(rows: &Lists<T>) -> Vec<Option<usize>> {
    rows.iter()
        .map(|l| {
            l.as_ref().map(|l| {
                l.iter()
                    .flatten()
                    .filter(|v| is_nan(**v) || v.to_f64() != 0.0)
                    .count()
            })
        })
        .collect()
}

/// `list_any`: whether some valid element is true (false for an empty list).
pub fn list_any(rows: &Lists<bool>) -> Vec<Option<bool>> {
    rows.iter()
        .map(|l| l.as_ref().map(|l| l.contains(&Some(true))))
        .collect()
}

/// `list_all`: whether no valid element is false (true for an empty list).
pub fn list_all(rows: &Lists<bool>) -> Vec<Option<bool>> {
    rows.iter()
        .map(|l| l.as_ref().map(|l| !l.contains(&Some(false))))
        .collect()
}

/// The expected mean of a list.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeanOracle {
    /// The compensated sum of the valid elements.
    pub sum: FloatSum,
    /// The exact integer sum, for integer elements.
    pub exact: Option<i128>,
    /// The number of valid elements (at least 1).
    pub count: usize,
}

impl MeanOracle {
    /// The mean.
    pub fn value(&self) -> f64 {
        match self.exact {
            Some(s) => s as f64 / self.count as f64,
            None => self.sum.value() / self.count as f64,
        }
    }

    /// The difference allowed: none for integers whose sum is below 2^53 in magnitude
    /// (every partial sum is exact in `f64`, the division rounds once), otherwise the
    /// rounding bound of an `f64` sum divided by the count, plus an ulp.
    pub fn tolerance(&self) -> f64 {
        let exact = self.exact.is_some() && self.sum.sum_abs < 9_007_199_254_740_992.0;
        if exact {
            0.0
        } else {
            self.sum.tolerance(f64::EPSILON) / self.count as f64 + self.value().abs() * f64::EPSILON
        }
    }
}

/// `list_mean`: the mean of each valid list's valid elements; `None` for a null list
/// or a list without a valid element.
pub fn list_mean<T: TestNative>(rows: &Lists<T>) -> Vec<Option<MeanOracle>> {
    rows.iter()
        .map(|l| {
            let l = l.as_ref()?;
            let mut sum = FloatSum::new();
            let mut exact = T::EXACT.then_some(0i128);
            let mut count = 0;
            for v in l.iter().flatten() {
                sum.add(v.to_f64());
                exact = exact.map(|e| e + v.to_i128().unwrap_or(0));
                count += 1;
            }
            (count > 0).then_some(MeanOracle { sum, exact, count })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_rules() {
        assert_eq!(py_slice(5, Some(1), Some(-1)), (1, 4));
        assert_eq!(py_slice(5, Some(-10), None), (0, 5));
        assert_eq!(py_slice(5, Some(4), Some(2)), (4, 4));
        assert_eq!(py_slice(5, Some(i64::MIN), Some(i64::MAX)), (0, 5));
        assert_eq!(py_index(3, -1), Some(2));
        assert_eq!(py_index(3, 3), None);
        assert_eq!(py_index(3, i64::MIN), None);
    }

    #[test]
    fn starts_stops_lowest_error_wins() {
        let e = compact_offsets(&[0, -1, 3], &[1, 2, 2], 5, OffsetWidth::Auto).unwrap_err();
        assert!(matches!(e, Error::ListOutOfBounds { index: 1, .. }));
        let e = compact_offsets(&[0, 3, 3], &[1, 2, 9], 5, OffsetWidth::Auto).unwrap_err();
        assert!(matches!(e, Error::StopsBeforeStarts { index: 1, .. }));
    }

    #[test]
    fn products_are_mathematical() {
        let rows: Lists<i64> = vec![
            Some(vec![Some(i64::MAX), Some(2), Some(0)]),
            Some(vec![Some(-2), None, Some(3)]),
            None,
        ];
        let p = list_prod(&rows).unwrap();
        assert_eq!(
            p,
            vec![Some(ProdOracle::Int(0)), Some(ProdOracle::Int(-6)), None]
        );
        let over: Lists<i64> = vec![None, Some(vec![Some(i64::MAX), Some(2)])];
        assert!(matches!(list_prod(&over), Err(Error::Overflow { .. })));
        let edge: Lists<i64> = vec![Some(vec![Some(i64::MIN), Some(1)])];
        assert_eq!(
            list_prod(&edge).unwrap()[0],
            Some(ProdOracle::Int(i128::from(i64::MIN)))
        );
    }
}
