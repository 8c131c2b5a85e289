//! Primitive columns of every [`ragged_core::Native`] type, with nulls.

use std::fmt;

use arrow_buffer::ScalarBuffer;
use ragged_core::{Host, PrimitiveColumn};

use super::{row_counts, validity_from, Case, LARGE_ROWS, SMALL_ROW_COUNTS};
use crate::native::TestNative;
use crate::rng::Rng;

/// The shape of a generated primitive case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrimitiveKind {
    /// No validity bitmap.
    NoNulls,
    /// About 10 % nulls, each holding [`TestNative::garbage`] (the type's maximum, or
    /// NaN) so that a kernel reading null slots gives a wrong result.
    Nulls,
    /// Every row null.
    AllNull,
    /// No null row, but an explicit all-valid validity bitmap.
    AllValidBitmap,
    /// A slice of a larger column: values and validity at an offset of 3.
    Sliced,
}

impl PrimitiveKind {
    /// Every kind, in enumeration order.
    pub const ALL: [PrimitiveKind; 5] = [
        PrimitiveKind::NoNulls,
        PrimitiveKind::Nulls,
        PrimitiveKind::AllNull,
        PrimitiveKind::AllValidBitmap,
        PrimitiveKind::Sliced,
    ];

    /// The kind's name in case labels.
    pub fn name(self) -> &'static str {
        match self {
            PrimitiveKind::NoNulls => "no-nulls",
            PrimitiveKind::Nulls => "nulls",
            PrimitiveKind::AllNull => "all-null",
            PrimitiveKind::AllValidBitmap => "all-valid-bitmap",
            PrimitiveKind::Sliced => "sliced",
        }
    }

    /// The row counts this kind is enumerated at: every count for `Nulls`, the small
    /// ones for the others.
    pub fn row_counts(self) -> &'static [usize] {
        match self {
            PrimitiveKind::Nulls => row_counts(),
            _ => &SMALL_ROW_COUNTS,
        }
    }
}

/// A primitive input as plain values.
#[derive(Clone, Debug, PartialEq)]
pub struct PrimitiveSpec<T: TestNative> {
    /// The values (`None` = null, stored as [`TestNative::garbage`]).
    pub values: Vec<Option<T>>,
    /// Rows `offset..offset + len` of the built column are the case.
    pub slice: Option<(usize, usize)>,
    /// Build a validity bitmap even when every row is valid.
    pub explicit_validity: bool,
}

impl<T: TestNative> PrimitiveSpec<T> {
    /// A spec of these values, unsliced.
    pub fn new(values: Vec<Option<T>>) -> Self {
        Self {
            values,
            slice: None,
            explicit_validity: false,
        }
    }

    /// The spec of `kind` with `rows` rows (after slicing), from `rng`, with values from
    /// [`TestNative::random`].
    pub fn generate(kind: PrimitiveKind, rows: usize, rng: &mut Rng) -> Self {
        let value =
            |rng: &mut Rng, null_percent: u32| (!rng.chance(null_percent)).then(|| T::random(rng));
        let mut spec = PrimitiveSpec::new(Vec::new());
        match kind {
            PrimitiveKind::NoNulls => spec.values = (0..rows).map(|_| value(rng, 0)).collect(),
            PrimitiveKind::Nulls => spec.values = (0..rows).map(|_| value(rng, 10)).collect(),
            PrimitiveKind::AllNull => spec.values = vec![None; rows],
            PrimitiveKind::AllValidBitmap => {
                spec.values = (0..rows).map(|_| value(rng, 0)).collect();
                spec.explicit_validity = true;
            }
            PrimitiveKind::Sliced => {
                let (before, after) = (3, 4);
                spec.values = (0..before + rows + after).map(|_| value(rng, 20)).collect();
                spec.slice = Some((before, rows));
            }
        }
        spec
    }

    /// The values of the case (after slicing).
    pub fn expected_values(&self) -> Vec<Option<T>> {
        let (start, len) = self.slice.unwrap_or((0, self.values.len()));
        self.values[start..start + len].to_vec()
    }

    /// Build the host column (then slice it).
    ///
    /// # Panics
    /// When the slice is out of range: generator misuse in test code.
    pub fn build(&self) -> PrimitiveColumn<T, Host> {
        let values: Vec<T> = self
            .values
            .iter()
            .map(|v| v.unwrap_or(T::garbage()))
            .collect();
        let valid: Vec<bool> = self.values.iter().map(Option::is_some).collect();
        let column = PrimitiveColumn::try_new(
            ScalarBuffer::from(values),
            validity_from(&valid, self.explicit_validity),
        )
        .expect("generated primitive column is valid");
        match self.slice {
            Some((start, len)) => column.slice(start, len),
            None => column,
        }
    }
}

/// One primitive input: the host column, its values (the oracle's input) and a label.
#[derive(Clone)]
pub struct PrimitiveCase<T: TestNative> {
    /// E.g. `f64/nulls/rows=1025`.
    pub label: String,
    /// The column under test (host memory).
    pub column: PrimitiveColumn<T, Host>,
    /// The values as options, independent of the column.
    pub values: Vec<Option<T>>,
    /// Whether the float sum is the same in every summation order (values from
    /// [`TestNative::random`]), so that it is compared exactly rather than within a
    /// rounding bound. Always true for integers.
    pub exact_sum: bool,
}

impl<T: TestNative> PrimitiveCase<T> {
    /// The case for `spec`, labelled `label`; `exact_sum` as the field.
    ///
    /// # Panics
    /// As [`PrimitiveSpec::build`].
    pub fn from_spec(label: impl Into<String>, spec: &PrimitiveSpec<T>, exact_sum: bool) -> Self {
        Self {
            label: label.into(),
            column: spec.build(),
            values: spec.expected_values(),
            exact_sum: exact_sum || T::EXACT,
        }
    }
}

impl<T: TestNative> Case for PrimitiveCase<T> {
    fn label(&self) -> &str {
        &self.label
    }
    fn row_count(&self) -> usize {
        self.values.len()
    }
}

impl<T: TestNative> fmt::Debug for PrimitiveCase<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PrimitiveCase")
            .field("label", &self.label)
            .field("exact_sum", &self.exact_sum)
            .field("values", &self.values)
            .finish()
    }
}

/// The case of `kind` with `rows` rows of `T`, seeded by its label.
///
/// # Panics
/// As [`PrimitiveSpec::build`].
pub fn primitive_case<T: TestNative>(kind: PrimitiveKind, rows: usize) -> PrimitiveCase<T> {
    let label = format!("{}/{}/rows={rows}", T::NAME, kind.name());
    let spec = PrimitiveSpec::<T>::generate(kind, rows, &mut Rng::from_label(&label));
    PrimitiveCase::from_spec(label, &spec, true)
}

/// Every primitive case of `T`: each [`PrimitiveKind`] at each of its row counts.
///
/// # Panics
/// As [`PrimitiveSpec::build`].
pub fn primitive_cases<T: TestNative>() -> Vec<PrimitiveCase<T>> {
    PrimitiveKind::ALL
        .iter()
        .flat_map(|&kind| {
            kind.row_counts()
                .iter()
                .map(move |&n| primitive_case(kind, n))
        })
        .collect()
}

/// Rows of the "spread" overflow cases: three CPU chunks of 2^16 plus a remainder, so
/// each chunk's (or block's) partial sum fits and only the final combination overflows.
const SPREAD_ROWS: usize = 3 * (1 << 16) + 7;

fn case_of<T: TestNative>(label: &str, values: Vec<Option<T>>) -> PrimitiveCase<T> {
    PrimitiveCase::from_spec(
        format!("{}/{label}", T::NAME),
        &PrimitiveSpec::new(values),
        true,
    )
}

/// Integer-sum edge cases of `i64` and `u64` (whose accumulator is the type itself):
/// sums one past the maximum (or minimum), sums exactly at the limits, sums that only
/// overflow when per-chunk partial sums are combined, large values hidden under nulls
/// (which must not count), and (`i64`) sums whose partial sums leave the range while the
/// total fits, which must not overflow. The oracle decides which overflow: overflow is
/// a property of the total, not of an order of additions.
///
/// # Panics
/// When `T` is not `i64` or `u64` (no such case is defined).
pub fn sum_overflow_cases<T: TestNative>() -> Vec<PrimitiveCase<T>> {
    let v = |x: i128| T::from_i128(x).expect("overflow case value fits its type");
    let (min, max) = (T::extremes().0.to_i128(), T::extremes().1.to_i128());
    let (Some(min), Some(max)) = (min, max) else {
        panic!("sum_overflow_cases is defined for integer types only");
    };
    assert!(
        max >= i128::from(i64::MAX),
        "sum_overflow_cases is for i64 and u64"
    );
    let n = SPREAD_ROWS as i128;
    let mut cases = vec![
        case_of("max-plus-one", vec![Some(v(max)), Some(v(1))]),
        case_of(
            "max-plus-one-with-nulls",
            vec![Some(v(max)), None, Some(v(1)), None],
        ),
        case_of("exactly-max", vec![Some(v(max - 1)), Some(v(1))]),
        case_of("max-alone", vec![Some(v(max))]),
        case_of(
            "spread-overflow",
            (0..SPREAD_ROWS).map(|_| Some(v(max / (n - 1)))).collect(),
        ),
        case_of(
            "spread-fits",
            (0..SPREAD_ROWS).map(|_| Some(v(max / n))).collect(),
        ),
        case_of(
            "large-values-under-nulls",
            (0..SPREAD_ROWS)
                .map(|i| (i % 5 != 0).then(|| v(max / n)))
                .collect(),
        ),
    ];
    if min < 0 {
        cases.push(case_of("min-minus-one", vec![Some(v(min)), Some(v(-1))]));
        cases.push(case_of("exactly-min", vec![Some(v(min + 1)), Some(v(-1))]));
        cases.push(case_of(
            "spread-underflow",
            (0..SPREAD_ROWS).map(|_| Some(v(min / (n - 1)))).collect(),
        ));
        // Partial sums leave the accumulator's range but the total fits: not an
        // overflow (sums are order-independent, so partial sums are kept wider).
        cases.push(case_of(
            "partial-overflow-total-fits",
            vec![Some(v(max)), Some(v(1)), Some(v(-1))],
        ));
        let big = max / (n / 4);
        cases.push(case_of(
            "spread-partial-overflow-total-fits",
            (0..SPREAD_ROWS)
                .map(|i| Some(v(if i < SPREAD_ROWS / 2 { big } else { -big })))
                .collect(),
        ));
    }
    cases
}

/// Sums of narrow integers (`i8`…`i32`, `u8`…`u32`) that exceed their own type but fit
/// the 64-bit accumulator: [`LARGE_ROWS`] copies of the type's maximum, and of its
/// minimum. A backend accumulating in the element type fails them.
///
/// # Panics
/// When `T` is a float or a 64-bit integer (such sums would not fit).
pub fn wide_accumulator_cases<T: TestNative>() -> Vec<PrimitiveCase<T>> {
    let (min, max) = T::extremes();
    let fits = |x: T| {
        x.to_i128()
            .is_some_and(|x| x.unsigned_abs() <= u128::from(u32::MAX))
    };
    assert!(
        fits(min) && fits(max),
        "wide_accumulator_cases is for 8- to 32-bit integers"
    );
    let mut cases = vec![case_of("all-max", vec![Some(max); LARGE_ROWS])];
    if min.to_i128().is_some_and(|m| m < 0) {
        cases.push(case_of("all-min", vec![Some(min); LARGE_ROWS]));
    }
    cases
}
