//! Offsets buffers, valid and invalid, for `Memory::validate_offsets`.

use arrow_buffer::ScalarBuffer;
use ragged_core::OffsetSize;

use std::sync::Arc;

use super::{cached, Case, LARGE_ROWS};
use crate::rng::Rng;

/// An offsets buffer (as `i64`, converted to each width) and the values length it is
/// checked against.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OffsetsCase {
    /// E.g. `decreasing`.
    pub label: String,
    /// The offsets, widened to `i64`.
    pub offsets: Vec<i64>,
    /// The length of the values the offsets index.
    pub values_len: usize,
}

impl OffsetsCase {
    /// A case from its parts.
    pub fn new(label: impl Into<String>, offsets: Vec<i64>, values_len: usize) -> Self {
        Self {
            label: label.into(),
            offsets,
            values_len,
        }
    }

    /// The offsets as a host buffer of `O`, or `None` when a value does not fit `O`
    /// (such a case only applies to `i64`).
    pub fn buffer<O: OffsetSize>(&self) -> Option<ScalarBuffer<O>> {
        let offsets: Option<Vec<O>> = self.offsets.iter().map(|&o| O::from_i64(o)).collect();
        offsets.map(ScalarBuffer::from)
    }
}

impl Case for OffsetsCase {
    fn label(&self) -> &str {
        &self.label
    }
    fn row_count(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }
}

/// Valid offsets of `rows` rows of 0 to 4 elements starting at `start`; returns them
/// and their end.
fn valid_offsets(rows: usize, start: i64, rng: &mut Rng) -> (Vec<i64>, i64) {
    let mut offsets = Vec::with_capacity(rows + 1);
    let mut end = start;
    offsets.push(end);
    for _ in 0..rows {
        end += rng.range_i64(0, 4);
        offsets.push(end);
    }
    (offsets, end)
}

/// Every offsets case: valid ones (empty rows, sliced starts, large) and each kind of
/// error (negative first offset, decreasing, out of bounds, empty buffer), including
/// several errors in one buffer far apart, where the lowest index must be reported.
///
/// The list is generated once per process and shared (both offset widths use it).
pub fn offsets_cases() -> Arc<Vec<OffsetsCase>> {
    cached("offsets_cases", generate_offsets_cases)
}

fn generate_offsets_cases() -> Vec<OffsetsCase> {
    let mut rng = Rng::from_label("offsets");
    let mut cases = vec![
        OffsetsCase::new("empty-buffer", vec![], 0),
        OffsetsCase::new("single-zero", vec![0], 0),
        OffsetsCase::new("single-at-end", vec![5], 5),
        OffsetsCase::new("valid-small", vec![0, 2, 2, 5], 5),
        OffsetsCase::new("valid-sliced", vec![3, 4, 4, 9], 12),
        OffsetsCase::new("equal-at-end", vec![5, 5, 5], 5),
        OffsetsCase::new("negative-first", vec![-1, 0, 2], 2),
        OffsetsCase::new("min-first", vec![i64::from(i32::MIN), 0], 2),
        OffsetsCase::new("negative-later", vec![0, 2, -1, 3], 5),
        OffsetsCase::new("decreasing", vec![0, 3, 2, 5], 5),
        OffsetsCase::new("decreasing-last", vec![0, 1, 2, 3, 4, 3], 5),
        OffsetsCase::new("out-of-bounds-last", vec![0, 2, 6], 5),
        OffsetsCase::new("out-of-bounds-first", vec![7, 8], 5),
        OffsetsCase::new("out-of-bounds-no-values", vec![0, 1], 0),
        OffsetsCase::new("out-of-bounds-then-decreasing", vec![0, 9, 3], 5),
        OffsetsCase::new("i32-max", vec![0, i64::from(i32::MAX)], 5),
        OffsetsCase::new("beyond-i32", vec![0, 1 << 40], 5),
        OffsetsCase::new("negative-beyond-i32", vec![-(1 << 40), 0], 5),
    ];
    for rows in [31usize, 32, 33, 1023, 1024, 1025, 3 * 1024 + 5, LARGE_ROWS] {
        let (offsets, end) = valid_offsets(rows, 0, &mut rng);
        let values_len = end as usize + 3;
        cases.push(OffsetsCase::new(
            format!("valid/rows={rows}"),
            offsets.clone(),
            values_len,
        ));
        // One error at the last index, and one in the middle of the buffer.
        let mut last = offsets.clone();
        if let Some(l) = last.last_mut() {
            *l = values_len as i64 + 1;
        }
        cases.push(OffsetsCase::new(
            format!("out-of-bounds-last/rows={rows}"),
            last,
            values_len,
        ));
        let mut middle = offsets;
        let at = rows / 2 + 1;
        middle[at] = middle[at - 1] - 1;
        cases.push(OffsetsCase::new(
            format!("decreasing-middle/rows={rows}"),
            middle,
            values_len,
        ));
    }
    // Sliced: a start far from 0.
    let (offsets, end) = valid_offsets(3 * 1024 + 5, 1000, &mut rng);
    cases.push(OffsetsCase::new(
        "valid-sliced/rows=3077",
        offsets,
        end as usize,
    ));
    // Several errors far apart: the lowest index wins whatever its kind.
    let (offsets, end) = valid_offsets(LARGE_ROWS, 0, &mut rng);
    let values_len = end as usize;
    let mut two = offsets.clone();
    two[5000] = values_len as i64 + 7;
    two[1_000_000] = -3;
    cases.push(OffsetsCase::new(
        "two-errors/out-of-bounds-first",
        two,
        values_len,
    ));
    let mut two = offsets;
    two[70_001] = two[70_000] - 1;
    two[900_000] = values_len as i64 + 1;
    two[LARGE_ROWS] = values_len as i64 + 2;
    cases.push(OffsetsCase::new(
        "three-errors/decreasing-first",
        two,
        values_len,
    ));
    cases
}
