//! Inputs of the primitives family beyond `reduce_sum`: the enumeration of value
//! cases every reduce, scan and select test loops over (tile-boundary row counts,
//! ties, NaN placements), the huge shared inputs, segment offsets of every shape,
//! sizes for `sizes_to_offsets` and boolean masks.
//!
//! Large inputs are generated once per process ([`cached`]) and shared by every test
//! that uses them.

use std::fmt;
use std::sync::Arc;

use arrow_buffer::{BooleanBuffer, NullBuffer, ScalarBuffer};
use ragged_core::{BooleanColumn, Host, OffsetSize, PrimitiveColumn};

use super::{cached, validity_from, Case, PrimitiveCase, PrimitiveKind, PrimitiveSpec};
use crate::native::TestNative;
use crate::rng::Rng;

/// Row counts of the primitives-family cases: empty, one, a warp ± 1, a block ± 1,
/// 1024/2048/4096/8192 ± 1 (the tile sizes a GPU scan or select may use), and several
/// 4096-element tiles plus a remainder.
pub const OP_ROW_COUNTS: [usize; 21] = [
    0,
    1,
    31,
    32,
    33,
    255,
    256,
    257,
    1023,
    1024,
    1025,
    2047,
    2048,
    2049,
    4095,
    4096,
    4097,
    8191,
    8192,
    8193,
    5 * 4096 + 17,
];

/// Rows of the multi-chunk case: three CPU chunks (2^16 rows) and a remainder, so the
/// chunk-combining paths of the CPU backend run in every test.
pub const MULTI_CHUNK_ROWS: usize = 3 * (1 << 16) + 5;

/// Rows of the huge shared inputs: 2^24 + 3 (many GPU grids, not a multiple of
/// anything).
pub const HUGE_ROWS: usize = (1 << 24) + 3;

/// The extra value shapes of the primitives-family cases (beside [`PrimitiveKind`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueShape {
    /// Values from {1, 2, 3} (integers) or {0.0, -0.0, 0.5} (floats), 10 % null: many
    /// ties for the arg forms, and for floats minima that are zeros of either sign
    /// (which one is returned follows the lowest-row rule, checked bit for bit).
    Ties,
    /// Floats only: 25 % NaN, 5 % `+inf`, 5 % `-inf`, 10 % null, the rest small values.
    NanMixed,
}

/// The spec of `shape` with `rows` rows.
///
/// # Panics
/// For [`ValueShape::NanMixed`] with an integer type (test-code misuse).
pub fn shaped_spec<T: TestNative>(
    shape: ValueShape,
    rows: usize,
    rng: &mut Rng,
) -> PrimitiveSpec<T> {
    let float = |x: f64| T::from_f64(x).expect("a float type");
    let values = (0..rows)
        .map(|_| {
            if rng.chance(10) {
                return None;
            }
            Some(match shape {
                ValueShape::Ties if T::EXACT => {
                    T::from_i128(rng.range_i64(1, 3).into()).expect("small values fit every type")
                }
                ValueShape::Ties => match rng.below(4) {
                    0 | 1 => float(0.0),
                    2 => float(-0.0),
                    _ => float(0.5),
                },
                ValueShape::NanMixed => match rng.below(20) {
                    0..=4 => float(f64::NAN),
                    5 => float(f64::INFINITY),
                    6 => float(f64::NEG_INFINITY),
                    _ => T::random(rng),
                },
            })
        })
        .collect();
    PrimitiveSpec::new(values)
}

/// The value cases of `T` for the primitives family: each [`PrimitiveKind`] and each
/// [`ValueShape`] that applies to `T` at every [`OP_ROW_COUNTS`] count, plus the
/// nulls kind and the ties shape at [`MULTI_CHUNK_ROWS`]. Generated once per process
/// per type.
///
/// # Panics
/// As [`PrimitiveSpec::build`].
pub fn op_cases<T: TestNative>() -> Arc<Vec<PrimitiveCase<T>>> {
    cached(&format!("op_cases/{}", T::NAME), || {
        let mut cases = Vec::new();
        for kind in PrimitiveKind::ALL {
            for rows in OP_ROW_COUNTS {
                cases.push(op_case::<T>(kind, rows));
            }
        }
        let mut shapes = vec![ValueShape::Ties];
        if !T::EXACT {
            shapes.push(ValueShape::NanMixed);
        }
        for shape in shapes {
            for rows in OP_ROW_COUNTS {
                let label = format!("{}/{shape:?}/rows={rows}", T::NAME).to_lowercase();
                let spec = shaped_spec::<T>(shape, rows, &mut Rng::from_label(&label));
                cases.push(PrimitiveCase::from_spec(label, &spec, true));
            }
        }
        cases.push(op_case::<T>(PrimitiveKind::Nulls, MULTI_CHUNK_ROWS));
        // Ties (and, for floats, ±0.0) in several chunks: the chunk-combining order.
        let label = format!("{}/ties/rows={MULTI_CHUNK_ROWS}", T::NAME);
        let spec = shaped_spec::<T>(
            ValueShape::Ties,
            MULTI_CHUNK_ROWS,
            &mut Rng::from_label(&label),
        );
        cases.push(PrimitiveCase::from_spec(label, &spec, true));
        cases
    })
}

fn op_case<T: TestNative>(kind: PrimitiveKind, rows: usize) -> PrimitiveCase<T> {
    let label = format!("{}/{}/rows={rows}", T::NAME, kind.name());
    let spec = PrimitiveSpec::<T>::generate(kind, rows, &mut Rng::from_label(&label));
    PrimitiveCase::from_spec(label, &spec, true)
}

/// Hand-written NaN placements for floats (empty for integers): NaN first, last, alone,
/// everywhere, between nulls, mixed with `±inf`, ties of `±0.0` and of infinities.
pub fn nan_cases<T: TestNative>() -> Vec<PrimitiveCase<T>> {
    if T::EXACT {
        return Vec::new();
    }
    let (nan, inf) = (f64::NAN, f64::INFINITY);
    let shapes: Vec<(&str, Vec<Option<f64>>)> = vec![
        (
            "nan-first",
            vec![Some(nan), Some(3.0), Some(1.0), Some(2.0)],
        ),
        ("nan-last", vec![Some(3.0), Some(1.0), Some(2.0), Some(nan)]),
        ("nan-alone", vec![Some(nan)]),
        ("all-nan", vec![Some(nan); 37]),
        (
            "nan-between-nulls",
            vec![None, Some(nan), None, Some(nan), None],
        ),
        (
            "nan-then-values-after-nulls",
            vec![None, Some(nan), None, Some(-1.0), Some(nan), Some(-1.0)],
        ),
        (
            "nan-with-infinities",
            vec![
                Some(nan),
                Some(inf),
                Some(-inf),
                Some(nan),
                Some(0.0),
                Some(-inf),
                Some(inf),
                Some(nan),
            ],
        ),
        (
            "only-infinities",
            vec![Some(inf), Some(-inf), Some(inf), Some(-inf)],
        ),
        (
            "infinities-and-nan",
            vec![Some(nan), Some(inf), Some(nan), Some(inf)],
        ),
        (
            "signed-zeros",
            vec![Some(0.0), Some(-0.0), Some(0.0), Some(-0.0)],
        ),
        (
            "negative-zero-first",
            vec![Some(-0.0), Some(0.0), Some(nan)],
        ),
        (
            "ties-at-both-ends",
            vec![Some(1.0), Some(5.0), Some(nan), Some(1.0), Some(5.0)],
        ),
    ];
    let mut cases: Vec<PrimitiveCase<T>> = shapes
        .into_iter()
        .map(|(label, values)| {
            let values = values
                .into_iter()
                .map(|v| v.map(|x| T::from_f64(x).expect("a float type")))
                .collect();
            PrimitiveCase::from_spec(
                format!("{}/{label}", T::NAME),
                &PrimitiveSpec::new(values),
                false,
            )
        })
        .collect();
    // NaN placed just before and after tile and chunk boundaries of long columns.
    for (rows, at) in [
        (4097usize, 4095usize),
        (4097, 4096),
        (8193, 1),
        (MULTI_CHUNK_ROWS, 1 << 16),
    ] {
        let label = format!("{}/nan-run-at-{at}/rows={rows}", T::NAME);
        let mut rng = Rng::from_label(&label);
        let values = (0..rows)
            .map(|i| {
                Some(if i <= at {
                    T::from_f64(f64::NAN).expect("a float type")
                } else {
                    T::random(&mut rng)
                })
            })
            .collect();
        cases.push(PrimitiveCase::from_spec(
            label,
            &PrimitiveSpec::new(values),
            false,
        ));
    }
    cases
}

/// The huge shared input of `T`: [`HUGE_ROWS`] rows of the nulls kind.
pub fn huge_case<T: TestNative>() -> Arc<PrimitiveCase<T>> {
    cached(&format!("huge_case/{}", T::NAME), || {
        op_case::<T>(PrimitiveKind::Nulls, HUGE_ROWS)
    })
}

// ---------------------------------------------------------------------------------
// Segments
// ---------------------------------------------------------------------------------

/// The shape of a segmentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegmentShape {
    /// Segments of 0 to 8 elements (about 4).
    Average4,
    /// Segments of 0 to 128 elements (about 64).
    Average64,
    /// Segments of 0 to 20 000 elements (about 10 000).
    Average10000,
    /// 70 % empty segments, the others of 1 to 16 elements.
    ManyEmpty,
    /// 37 empty segments in the middle of the column.
    AllEmpty,
    /// Segments of 0 to 4 elements and one holding 90 % of the column.
    OneHuge,
    /// Segments of about 4 elements from row 3 to 2 rows before the end
    /// (`offsets[0] != 0`, the last offset below the column's length).
    Sliced,
    /// No segment at all (one offset).
    NoSegments,
}

impl SegmentShape {
    /// Every shape.
    pub const ALL: [SegmentShape; 8] = [
        SegmentShape::Average4,
        SegmentShape::Average64,
        SegmentShape::Average10000,
        SegmentShape::ManyEmpty,
        SegmentShape::AllEmpty,
        SegmentShape::OneHuge,
        SegmentShape::Sliced,
        SegmentShape::NoSegments,
    ];

    /// The shape's name in labels.
    pub fn name(self) -> &'static str {
        match self {
            SegmentShape::Average4 => "avg4",
            SegmentShape::Average64 => "avg64",
            SegmentShape::Average10000 => "avg10000",
            SegmentShape::ManyEmpty => "many-empty",
            SegmentShape::AllEmpty => "all-empty",
            SegmentShape::OneHuge => "one-huge",
            SegmentShape::Sliced => "sliced",
            SegmentShape::NoSegments => "no-segments",
        }
    }
}

/// Offsets of `shape` over a column of `rows` rows.
pub fn segment_offsets(shape: SegmentShape, rows: usize, rng: &mut Rng) -> Vec<i64> {
    let rows = rows as i64;
    let cover = |start: i64, end: i64, rng: &mut Rng, size: &mut dyn FnMut(&mut Rng) -> i64| {
        let mut offsets = vec![start];
        let mut at = start;
        while at < end {
            at = (at + size(rng)).min(end);
            offsets.push(at);
        }
        offsets
    };
    match shape {
        SegmentShape::Average4 => cover(0, rows, rng, &mut |r| r.range_i64(0, 8)),
        SegmentShape::Average64 => cover(0, rows, rng, &mut |r| r.range_i64(0, 128)),
        SegmentShape::Average10000 => cover(0, rows, rng, &mut |r| r.range_i64(0, 20_000)),
        SegmentShape::ManyEmpty => cover(0, rows, rng, &mut |r| {
            if r.chance(70) {
                0
            } else {
                r.range_i64(1, 16)
            }
        }),
        SegmentShape::AllEmpty => vec![rows / 2; 38],
        SegmentShape::OneHuge => {
            let huge = rows * 9 / 10;
            let before = (rows - huge) / 2;
            let mut offsets = cover(0, before, rng, &mut |r| r.range_i64(0, 4));
            let after = cover(before + huge, rows, rng, &mut |r| r.range_i64(0, 4));
            offsets.extend(after);
            offsets
        }
        SegmentShape::Sliced => {
            let start = rows.min(3);
            let end = (rows - 2).max(start);
            cover(start, end, rng, &mut |r| r.range_i64(0, 8))
        }
        SegmentShape::NoSegments => vec![rows / 3],
    }
}

/// A segmented input: a value column and offsets into it.
#[derive(Clone)]
pub struct SegmentsCase<T: TestNative> {
    /// E.g. `f32/avg4/nulls/rows=257`.
    pub label: String,
    /// The column under test (host memory).
    pub column: PrimitiveColumn<T, Host>,
    /// The column's rows as options (the oracle's input).
    pub values: Vec<Option<T>>,
    /// The offsets, as `i64` (converted to each width by [`SegmentsCase::buffer`]).
    pub offsets: Vec<i64>,
}

impl<T: TestNative> SegmentsCase<T> {
    /// A case from a value case and offsets.
    pub fn new(label: impl Into<String>, values: &PrimitiveCase<T>, offsets: Vec<i64>) -> Self {
        Self {
            label: label.into(),
            column: values.column.clone(),
            values: values.values.clone(),
            offsets,
        }
    }

    /// The offsets as a host buffer of `O`, `None` when one does not fit `O`.
    pub fn buffer<O: OffsetSize>(&self) -> Option<ScalarBuffer<O>> {
        let offsets: Option<Vec<O>> = self.offsets.iter().map(|&o| O::from_i64(o)).collect();
        offsets.map(ScalarBuffer::from)
    }
}

impl<T: TestNative> Case for SegmentsCase<T> {
    fn label(&self) -> &str {
        &self.label
    }
    fn row_count(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }
}

impl<T: TestNative> fmt::Debug for SegmentsCase<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SegmentsCase")
            .field("label", &self.label)
            .field("values", &self.values)
            .field("offsets", &self.offsets)
            .finish()
    }
}

/// Makes the spec of a value kind with so many rows.
type SpecMaker<T> = Box<dyn Fn(usize, &mut Rng) -> PrimitiveSpec<T>>;

/// Row counts of the segmented cases (a subset of [`OP_ROW_COUNTS`]).
pub const SEGMENT_ROW_COUNTS: [usize; 10] =
    [0, 1, 31, 33, 256, 1025, 2049, 4097, 8193, 5 * 4096 + 17];

/// Every segmented case of `T`: each [`SegmentShape`] at each [`SEGMENT_ROW_COUNTS`]
/// count, over value cases whose kind rotates (nulls, no nulls, all null, ties, NaN
/// mixed for floats, a sliced column), plus each shape over [`MULTI_CHUNK_ROWS`]
/// values, plus segments over the NaN placements (floats). Generated once per process
/// per type.
pub fn segment_cases<T: TestNative>() -> Arc<Vec<SegmentsCase<T>>> {
    cached(&format!("segment_cases/{}", T::NAME), || {
        let mut value_kinds: Vec<(&str, SpecMaker<T>)> = vec![
            (
                "nulls",
                Box::new(|n, r| PrimitiveSpec::generate(PrimitiveKind::Nulls, n, r)),
            ),
            (
                "no-nulls",
                Box::new(|n, r| PrimitiveSpec::generate(PrimitiveKind::NoNulls, n, r)),
            ),
            ("ties", Box::new(|n, r| shaped_spec(ValueShape::Ties, n, r))),
            (
                "all-null",
                Box::new(|n, r| PrimitiveSpec::generate(PrimitiveKind::AllNull, n, r)),
            ),
            (
                "sliced",
                Box::new(|n, r| PrimitiveSpec::generate(PrimitiveKind::Sliced, n, r)),
            ),
        ];
        if !T::EXACT {
            value_kinds.push((
                "nan-mixed",
                Box::new(|n, r| shaped_spec(ValueShape::NanMixed, n, r)),
            ));
        }
        let mut cases = Vec::new();
        let mut turn = 0usize;
        let push =
            |shape: SegmentShape, rows: usize, turn: usize, cases: &mut Vec<SegmentsCase<T>>| {
                let (kind, make) = &value_kinds[turn % value_kinds.len()];
                let label = format!("{}/{}/{kind}/rows={rows}", T::NAME, shape.name());
                let mut rng = Rng::from_label(&label);
                let spec = make(rows, &mut rng);
                let values = PrimitiveCase::from_spec(label.clone(), &spec, true);
                let offsets = segment_offsets(shape, rows, &mut rng);
                cases.push(SegmentsCase::new(label, &values, offsets));
            };
        for shape in SegmentShape::ALL {
            for rows in SEGMENT_ROW_COUNTS {
                push(shape, rows, turn, &mut cases);
                turn += 1;
            }
        }
        for shape in [
            SegmentShape::Average4,
            SegmentShape::Average10000,
            SegmentShape::OneHuge,
        ] {
            push(shape, MULTI_CHUNK_ROWS, 0, &mut cases);
        }
        // NaN placements: each as one segment, and cut into segments of 2.
        for values in nan_cases::<T>() {
            let n = values.values.len() as i64;
            cases.push(SegmentsCase::new(
                format!("{}/one-segment", values.label),
                &values,
                vec![0, n],
            ));
            let pairs: Vec<i64> = (0..=n)
                .step_by(2)
                .chain((n % 2 == 1).then_some(n))
                .collect();
            cases.push(SegmentsCase::new(
                format!("{}/pairs", values.label),
                &values,
                pairs,
            ));
        }
        cases
    })
}

/// The huge shared segmented input: [`huge_case`] of `T` cut into segments of about 64
/// elements.
pub fn huge_segments_case<T: TestNative>() -> Arc<SegmentsCase<T>> {
    cached(&format!("huge_segments_case/{}", T::NAME), || {
        let values = huge_case::<T>();
        let label = format!("{}/avg64/huge/rows={HUGE_ROWS}", T::NAME);
        let offsets = segment_offsets(
            SegmentShape::Average64,
            HUGE_ROWS,
            &mut Rng::from_label(&label),
        );
        SegmentsCase::new(label, &values, offsets)
    })
}

// ---------------------------------------------------------------------------------
// Sizes
// ---------------------------------------------------------------------------------

/// Sizes for `sizes_to_offsets`: an `i32` column and its values.
pub type SizesCase = PrimitiveCase<i32>;

fn sizes_case(label: impl Into<String>, values: Vec<Option<i32>>) -> SizesCase {
    PrimitiveCase::from_spec(label, &PrimitiveSpec::new(values), true)
}

/// The sizes cases: random small sizes with 10 % nulls at every [`OP_ROW_COUNTS`]
/// count and [`MULTI_CHUNK_ROWS`]; null sizes holding negative or huge values (which
/// count as 0); negative sizes (one, several far apart, the first row, the last row,
/// beyond a chunk, after the total passed `i32::MAX`); totals exactly at `i32::MAX`, one above, `2^30 · 2` and `2^30 · 3`,
/// and many sizes whose total passes `i32::MAX` only in the last chunk.
pub fn sizes_cases() -> Arc<Vec<SizesCase>> {
    cached("sizes_cases", || {
        let mut cases = Vec::new();
        let random = |label: &str, rows: usize, max: i64| {
            let mut rng = Rng::from_label(label);
            let values = (0..rows)
                .map(|_| (!rng.chance(10)).then(|| rng.range_i64(0, max) as i32))
                .collect();
            sizes_case(label, values)
        };
        for rows in OP_ROW_COUNTS.into_iter().chain([MULTI_CHUNK_ROWS]) {
            cases.push(random(&format!("sizes/random/rows={rows}"), rows, 16));
        }
        let big = 1i32 << 30;
        cases.extend([
            sizes_case("sizes/null-garbage", vec![Some(1), None, Some(2), None]),
            sizes_case("sizes/empty-rows", vec![Some(0), Some(0), Some(3), Some(0)]),
            sizes_case("sizes/negative-first", vec![Some(-1), Some(2), Some(-5)]),
            sizes_case("sizes/negative-last", vec![Some(1), Some(2), Some(-5)]),
            sizes_case("sizes/min-size", vec![Some(1), Some(i32::MIN)]),
            sizes_case("sizes/exactly-i32-max", vec![Some(big), Some(big - 1)]),
            sizes_case("sizes/i32-max-alone", vec![Some(i32::MAX), Some(0), None]),
            sizes_case("sizes/one-above-i32-max", vec![Some(big), Some(big)]),
            sizes_case("sizes/2^30x3", vec![Some(big), Some(big), Some(big)]),
            sizes_case(
                "sizes/max-plus-one-with-nulls",
                vec![Some(i32::MAX), None, Some(1)],
            ),
            sizes_case(
                "sizes/negative-and-overflow",
                vec![Some(i32::MAX), Some(i32::MAX), Some(-1)],
            ),
            // The i32 limit is passed at a lower row than the negative size: the
            // negative size is still the error (whatever the width asked for).
            sizes_case(
                "sizes/overflow-before-negative",
                vec![Some(big), Some(big), None, Some(-2)],
            ),
        ]);
        // Null sizes holding negative values: the column is built by hand because a
        // spec stores garbage (i32::MAX) under nulls.
        let mut garbage = sizes_case(
            "sizes/negative-under-nulls",
            vec![Some(4), None, Some(5), None],
        );
        garbage.column = PrimitiveColumn::try_new(
            ScalarBuffer::from(vec![4, -7, 5, i32::MIN]),
            Some(NullBuffer::from(vec![true, false, true, false])),
        )
        .expect("a valid column");
        cases.push(garbage);
        // Negative sizes far apart: the lowest row wins, even across chunks.
        let mut far = random("sizes/negatives-far-apart", MULTI_CHUNK_ROWS, 16).values;
        far[(1 << 16) + 5] = Some(-3);
        far[(1 << 17) + 9] = Some(-1);
        far[70] = None;
        cases.push(sizes_case("sizes/negatives-far-apart", far));
        let mut past = vec![Some(1 << 15); MULTI_CHUNK_ROWS];
        past[MULTI_CHUNK_ROWS - 3] = Some(-1);
        cases.push(sizes_case(
            "sizes/overflow-then-negative-chunks-later",
            past,
        ));
        let mut late = random("sizes/negative-in-last-chunk", MULTI_CHUNK_ROWS, 16).values;
        late[MULTI_CHUNK_ROWS - 1] = Some(-2);
        cases.push(sizes_case("sizes/negative-in-last-chunk", late));
        // 2^31 spread over chunks: 65 540 rows of 2^15 (the last chunk passes the limit).
        let rows = (1usize << 16) + 4;
        cases.push(sizes_case(
            "sizes/spread-above-i32-max",
            vec![Some(1 << 15); rows],
        ));
        // 65 540 · 32 766 + 7 = i32::MAX exactly, over two chunks.
        let mut exact = vec![Some(32_766); rows];
        exact.push(Some(7));
        cases.push(sizes_case("sizes/spread-exactly-i32-max", exact));
        cases
    })
}

/// The huge sizes input: [`HUGE_ROWS`] sizes of 0 to 300 with 10 % nulls, totalling
/// more than `i32::MAX` (about 2.26 · 10^9).
pub fn huge_sizes_case() -> Arc<SizesCase> {
    cached("huge_sizes_case", || {
        let label = format!("sizes/huge/rows={HUGE_ROWS}");
        let mut rng = Rng::from_label(&label);
        let values = (0..HUGE_ROWS)
            .map(|_| (!rng.chance(10)).then(|| rng.range_i64(0, 300) as i32))
            .collect();
        sizes_case(label, values)
    })
}

// ---------------------------------------------------------------------------------
// Masks
// ---------------------------------------------------------------------------------

/// The shape of a boolean mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaskShape {
    /// Half true, 10 % null.
    Random,
    /// Every entry valid and true.
    AllTrue,
    /// Every entry valid and false.
    AllFalse,
    /// Every entry null (with true value bits: a null entry never selects).
    AllNull,
    /// Random, built at a bit offset of 5 in its bitmaps.
    Sliced,
}

impl MaskShape {
    /// Every shape.
    pub const ALL: [MaskShape; 5] = [
        MaskShape::Random,
        MaskShape::AllTrue,
        MaskShape::AllFalse,
        MaskShape::AllNull,
        MaskShape::Sliced,
    ];
}

/// A mask of `rows` entries of `shape`: the host column and its entries as options.
pub fn mask(
    shape: MaskShape,
    rows: usize,
    rng: &mut Rng,
) -> (BooleanColumn<Host>, Vec<Option<bool>>) {
    let skip = if shape == MaskShape::Sliced { 5 } else { 0 };
    let total = rows + skip;
    let (bits, valid): (Vec<bool>, Vec<bool>) = (0..total)
        .map(|_| match shape {
            MaskShape::Random | MaskShape::Sliced => (rng.chance(50), !rng.chance(10)),
            MaskShape::AllTrue => (true, true),
            MaskShape::AllFalse => (false, true),
            MaskShape::AllNull => (true, false),
        })
        .unzip();
    let values = NullBuffer::new(BooleanBuffer::from(bits.clone())).slice(skip, rows);
    let validity = validity_from(&valid, false).map(|v| v.slice(skip, rows));
    let column = BooleanColumn::try_new(values, validity).expect("a valid mask");
    let entries = (skip..total).map(|i| valid[i].then_some(bits[i])).collect();
    (column, entries)
}
