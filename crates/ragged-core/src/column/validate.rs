//! Validation of host offsets and UTF-8, reporting the first offending index.
//!
//! The order of checks defines which error a backend must report: for each index
//! `i` in increasing order, offset `i` fails if it is negative (`i == 0`), smaller
//! than offset `i - 1`, or larger than the values length; the lowest failing `i`
//! wins, and at one index the checks are made in that order. The CUDA backend's
//! device validation computes the same minimum with an `atomicMin`.

use crate::error::{Error, OffsetsProblem, Result};
use crate::types::OffsetSize;

/// Check the Arrow offsets invariants: non-empty, `offsets[0] >= 0`, non-decreasing,
/// `offsets[last] <= values_len`.
///
/// # Errors
/// [`Error::InvalidOffsets`] naming the lowest offending index.
///
/// # Example
/// ```
/// use ragged_core::column::validate_offsets;
/// assert!(validate_offsets(&[0i32, 2, 5], 5).is_ok());
/// assert!(validate_offsets(&[0i32, 3, 2], 5).is_err());
/// ```
pub fn validate_offsets<O: OffsetSize>(offsets: &[O], values_len: usize) -> Result<()> {
    let Some(first) = offsets.first() else {
        return Err(Error::InvalidOffsets {
            index: 0,
            problem: OffsetsProblem::Empty,
        });
    };
    let first = first.as_i64();
    if first < 0 {
        return Err(Error::InvalidOffsets {
            index: 0,
            problem: OffsetsProblem::Negative { value: first },
        });
    }
    let len = i64::try_from(values_len).unwrap_or(i64::MAX);
    // Fast path: a branch-free scan for the common valid case.
    let mut ok = true;
    let mut previous = first;
    for o in offsets {
        let v = o.as_i64();
        ok &= v >= previous && v <= len;
        previous = v;
    }
    if ok {
        return Ok(());
    }
    // Slow path: find the first failing index for the report.
    let mut previous = first;
    for (index, o) in offsets.iter().enumerate() {
        let value = o.as_i64();
        if value < previous {
            return Err(Error::InvalidOffsets {
                index,
                problem: OffsetsProblem::Decreasing { previous, value },
            });
        }
        if value > len {
            return Err(Error::InvalidOffsets {
                index,
                problem: OffsetsProblem::OutOfBounds { value, values_len },
            });
        }
        previous = value;
    }
    Ok(())
}

/// Check that every row `values[offsets[i]..offsets[i + 1]]` is valid UTF-8.
/// The offsets must already be valid (see [`validate_offsets`]).
///
/// Null rows are checked too (as arrow-rs does): a strings column holds UTF-8 only.
///
/// # Errors
/// [`Error::InvalidUtf8`] with the lowest invalid row and the byte within it where
/// decoding fails.
pub fn validate_utf8<O: OffsetSize>(offsets: &[O], values: &[u8]) -> Result<()> {
    let (Some(first), Some(last)) = (offsets.first(), offsets.last()) else {
        return Ok(());
    };
    let (start, end) = (first.as_usize(), last.as_usize());
    let Some(range) = values.get(start..end) else {
        return Err(Error::InvalidOffsets {
            index: offsets.len() - 1,
            problem: OffsetsProblem::OutOfBounds {
                value: last.as_i64(),
                values_len: values.len(),
            },
        });
    };
    // Fast path: the whole range is UTF-8 and every offset falls on a character
    // boundary, so every row is UTF-8.
    if std::str::from_utf8(range).is_ok()
        && offsets.iter().all(|o| {
            values
                .get(o.as_usize())
                .is_none_or(|b| !is_continuation(*b))
        })
    {
        return Ok(());
    }
    for (row, w) in offsets.windows(2).enumerate() {
        let bytes = &values[w[0].as_usize()..w[1].as_usize()];
        if let Err(e) = std::str::from_utf8(bytes) {
            return Err(Error::InvalidUtf8 {
                row,
                byte: e.valid_up_to(),
            });
        }
    }
    Ok(())
}

#[inline]
fn is_continuation(byte: u8) -> bool {
    byte & 0b1100_0000 == 0b1000_0000
}

/// The error for list `index` of a starts/stops pair, or `None` when it is in order and
/// inside the child: [`Error::StopsBeforeStarts`] when `stop < start`, else
/// [`Error::ListOutOfBounds`] when `start < 0` or `stop > child_len`. Backends that find
/// the lowest failing index on a device classify it with this function, so every
/// backend reports the same error.
pub fn starts_stops_error(index: usize, start: i64, stop: i64, child_len: usize) -> Option<Error> {
    let len = i64::try_from(child_len).unwrap_or(i64::MAX);
    if stop < start {
        Some(Error::StopsBeforeStarts { index, start, stop })
    } else if start < 0 || stop > len {
        Some(Error::ListOutOfBounds {
            index,
            start,
            stop,
            child_len,
        })
    } else {
        None
    }
}

/// Check a starts/stops pair (the `ListView` form): the same length, and for every list
/// `0 <= starts[i] <= stops[i] <= child_len`.
///
/// # Errors
/// [`Error::LengthMismatch`] when the lengths differ; otherwise the
/// [`starts_stops_error`] of the lowest failing list.
///
/// # Example
/// ```
/// use ragged_core::column::validate_starts_stops;
/// assert!(validate_starts_stops(&[0i32, 4, 1], &[2i32, 4, 3], 4).is_ok());
/// assert!(validate_starts_stops(&[0i32, 3], &[2i32, 1], 4).is_err());
/// ```
pub fn validate_starts_stops<O: OffsetSize>(
    starts: &[O],
    stops: &[O],
    child_len: usize,
) -> Result<()> {
    if starts.len() != stops.len() {
        return Err(Error::LengthMismatch {
            op: "validate_starts_stops",
            what: "stops",
            expected: starts.len(),
            actual: stops.len(),
        });
    }
    let len = i64::try_from(child_len).unwrap_or(i64::MAX);
    // Fast path: a branch-free scan for the common valid case.
    let ok = starts.iter().zip(stops).fold(true, |ok, (a, b)| {
        let (a, b) = (a.as_i64(), b.as_i64());
        ok & (a >= 0) & (a <= b) & (b <= len)
    });
    if ok {
        return Ok(());
    }
    for (index, (a, b)) in starts.iter().zip(stops).enumerate() {
        if let Some(e) = starts_stops_error(index, a.as_i64(), b.as_i64(), child_len) {
            return Err(e);
        }
    }
    Ok(())
}
