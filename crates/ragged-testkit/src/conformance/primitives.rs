//! The conformance suite of the primitives family beyond `reduce_sum`: reductions,
//! scans, `sizes_to_offsets`, select and segmented reductions, for every element type.
//!
//! Each `check_*` runs one case on the backend (upload with `Memory::to_device_*`, run,
//! download with `to_host_primitive` / `download`) and compares with the oracle; each
//! suite function loops over the shared case enumerations of [`crate::gen`]
//! ([`gen::op_cases`], [`gen::nan_cases`], [`gen::segment_cases`],
//! [`gen::sizes_cases`], the huge inputs) and panics with every mismatch.
//!
//! Parameters rotate over the cases so that every comparison, transform and mask
//! shape meets many sizes without running every combination: case `i` uses comparison
//! `i mod 6`, transform `i mod 3`, and so on. Both scan kinds run on every case.

use ragged_core::ops::{Comparison, OffsetWidth, Offsets, Predicate, ScanKind, Transform};
use ragged_core::{Backend, BooleanColumn, Error, Host, OffsetSize, PrimitiveColumn};

use super::backend_error;
use crate::check::{
    compare_column, compare_column_bits, compare_failure, compare_float_sums, compare_offsets,
    compare_option, compare_outcome, compare_selection, compare_sum, Failures, Mismatch,
};
use crate::gen::{self, Case, MaskShape, PrimitiveCase, PrimitiveSpec, SegmentsCase, SizesCase};
use crate::native::TestNative;
use crate::oracle::{self, SumOracle};
use crate::rng::Rng;

/// Every comparison, in declaration order.
pub const COMPARISONS: [Comparison; 6] = [
    Comparison::Eq,
    Comparison::Ne,
    Comparison::Lt,
    Comparison::Le,
    Comparison::Gt,
    Comparison::Ge,
];

/// Every transform.
pub const TRANSFORMS: [Transform; 3] = [Transform::Identity, Transform::Square, Transform::Abs];

/// Both scan kinds.
pub const SCAN_KINDS: [ScanKind; 2] = [ScanKind::Inclusive, ScanKind::Exclusive];

/// Cases with at most this many rows run every comparison (larger ones one each).
const ALL_PARAMETERS_UP_TO: usize = 257;

// ---------------------------------------------------------------------------------
// Transfers
// ---------------------------------------------------------------------------------

fn device<B: Backend, T: TestNative>(
    backend: &B,
    case: &impl Case,
    col: &PrimitiveColumn<T, Host>,
) -> Result<PrimitiveColumn<T, B::Loc>, Mismatch> {
    backend
        .to_device_primitive(col)
        .map_err(|e| backend_error(case, "to_device_primitive", e))
}

fn host<B: Backend, T: TestNative>(
    backend: &B,
    case: &impl Case,
    col: &PrimitiveColumn<T, B::Loc>,
) -> Result<PrimitiveColumn<T, Host>, Mismatch> {
    backend
        .to_host_primitive(col)
        .map_err(|e| backend_error(case, "to_host_primitive", e))
}

/// A result of the backend, downloaded (errors pass through for comparison).
fn host_result<B: Backend, T: TestNative>(
    backend: &B,
    case: &impl Case,
    out: Result<PrimitiveColumn<T, B::Loc>, Error>,
) -> Result<Result<PrimitiveColumn<T, Host>, Error>, Mismatch> {
    match out {
        Ok(col) => host(backend, case, &col).map(Ok),
        Err(e) => Ok(Err(e)),
    }
}

fn with_op(op: &str, m: Mismatch) -> Mismatch {
    Mismatch {
        detail: format!("{op}: {}", m.detail),
        ..m
    }
}

fn labelled(case: &impl Case, parameters: &str) -> String {
    format!("{} [{parameters}]", case.label())
}

// ---------------------------------------------------------------------------------
// Predicates
// ---------------------------------------------------------------------------------

/// The predicates case `index` is checked with: every comparison for small cases, one
/// (rotating) for the others; against the value of a valid row near the middle (so
/// that `Eq` selects something), or NaN for one float case in seven.
pub fn predicates_for<T: TestNative>(index: usize, values: &[Option<T>]) -> Vec<Predicate<T>> {
    let middle = values
        .iter()
        .skip(values.len() / 2)
        .chain(values.iter())
        .find_map(|v| *v)
        .or_else(|| T::from_i128(1))
        .or_else(|| T::from_f64(0.5))
        .expect("1 or 0.5 fits every type");
    let value = match T::from_f64(f64::NAN) {
        Some(nan) if index % 7 == 3 => nan,
        _ => middle,
    };
    if values.len() <= ALL_PARAMETERS_UP_TO {
        COMPARISONS
            .iter()
            .map(|&c| Predicate::new(c, value))
            .collect()
    } else {
        vec![Predicate::new(
            COMPARISONS[index % COMPARISONS.len()],
            value,
        )]
    }
}

/// The value cases of `T`: [`gen::op_cases`] and [`gen::nan_cases`].
fn for_each_value_case<T: TestNative>(mut f: impl FnMut(usize, &PrimitiveCase<T>)) {
    let cases = gen::op_cases::<T>();
    let nans = gen::nan_cases::<T>();
    for (i, case) in cases.iter().chain(nans.iter()).enumerate() {
        f(i, case);
    }
}

// ---------------------------------------------------------------------------------
// reduce: reduce_sum_f64, reduce_min/max/argmin/argmax, count_valid, count_if,
// reduce_any/all
// ---------------------------------------------------------------------------------

/// `Primitives::reduce_sum_f64` on one case against [`oracle::reduce_sum_f64`] (an `f64`
/// accumulator: within the `f64` rounding bound).
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_reduce_sum_f64<B: Backend, T: TestNative>(
    backend: &B,
    case: &PrimitiveCase<T>,
    transform: Transform,
) -> Result<(), Mismatch> {
    let label = labelled(case, &format!("{transform:?}"));
    let col = device(backend, case, &case.column)?;
    let got = backend
        .reduce_sum_f64(&col, transform)
        .map_err(|e| backend_error(case, "reduce_sum_f64", e))?;
    let want = oracle::reduce_sum_f64(&case.values, transform);
    let tolerance = want.tolerance(f64::EPSILON);
    if crate::check::float_close(got, want.value(), tolerance) {
        Ok(())
    } else {
        Err(Mismatch::new(
            &label,
            None,
            format!(
                "reduce_sum_f64: expected {:e} (± {tolerance:e}), got {got:e}",
                want.value()
            ),
        ))
    }
}

/// The four extreme reductions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExtremeOp {
    /// `reduce_min` / `segmented_min` / `scan_min`.
    Min,
    /// `reduce_max` / `segmented_max` / `scan_max`.
    Max,
    /// `reduce_argmin` / `segmented_argmin`.
    ArgMin,
    /// `reduce_argmax` / `segmented_argmax`.
    ArgMax,
}

impl ExtremeOp {
    fn max(self) -> bool {
        matches!(self, ExtremeOp::Max | ExtremeOp::ArgMax)
    }
}

/// `reduce_min`, `reduce_max`, `reduce_argmin` or `reduce_argmax` on one case against
/// [`oracle::extreme`]; values compared bit for bit.
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_reduce_extreme<B: Backend, T: TestNative>(
    backend: &B,
    case: &PrimitiveCase<T>,
    op: ExtremeOp,
) -> Result<(), Mismatch> {
    let col = device(backend, case, &case.column)?;
    let want = oracle::extreme(&case.values, op.max());
    let name = format!("reduce_{op:?}").to_lowercase();
    let fail = |e| backend_error(case, &name, e);
    match op {
        ExtremeOp::Min | ExtremeOp::Max => {
            let got = if op.max() {
                backend.reduce_max(&col)
            } else {
                backend.reduce_min(&col)
            }
            .map_err(fail)?;
            compare_option(&case.label, &name, got, want.map(|(_, v)| v))
        }
        ExtremeOp::ArgMin | ExtremeOp::ArgMax => {
            let got = if op.max() {
                backend.reduce_argmax(&col)
            } else {
                backend.reduce_argmin(&col)
            }
            .map_err(fail)?;
            let (got, want) = (got.map(|r| r as u64), want.map(|(r, _)| r as u64));
            compare_option(&case.label, &name, got, want)
        }
    }
}

/// `count_valid` on one case.
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_count_valid<B: Backend, T: TestNative>(
    backend: &B,
    case: &PrimitiveCase<T>,
) -> Result<(), Mismatch> {
    let col = device(backend, case, &case.column)?;
    let got = backend
        .count_valid(&col)
        .map_err(|e| backend_error(case, "count_valid", e))?;
    let want = oracle::count_valid(&case.values);
    compare_option(
        &case.label,
        "count_valid",
        Some(got as u64),
        Some(want as u64),
    )
}

/// `count_if` on one case with one predicate.
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_count_if<B: Backend, T: TestNative>(
    backend: &B,
    case: &PrimitiveCase<T>,
    predicate: Predicate<T>,
) -> Result<(), Mismatch> {
    let label = labelled(case, &format!("{predicate:?}"));
    let col = device(backend, case, &case.column)?;
    let got = backend
        .count_if(&col, predicate)
        .map_err(|e| backend_error(case, "count_if", e))?;
    let want = oracle::count_if(&case.values, predicate);
    compare_option(&label, "count_if", Some(got as u64), Some(want as u64))
}

/// `reduce_any` and `reduce_all` on one boolean column against the oracles.
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_reduce_any_all<B: Backend>(
    backend: &B,
    label: &str,
    col: &BooleanColumn<Host>,
    entries: &[Option<bool>],
) -> Result<(), Mismatch> {
    let fail = |op: &str, e: Error| Mismatch::new(label, None, format!("{op} failed: {e}"));
    let dev = backend
        .to_device_booleans(col)
        .map_err(|e| fail("to_device_booleans", e))?;
    let any = backend
        .reduce_any(&dev)
        .map_err(|e| fail("reduce_any", e))?;
    let all = backend
        .reduce_all(&dev)
        .map_err(|e| fail("reduce_all", e))?;
    let as_u8 = |b: Option<bool>| b.map(u8::from);
    compare_option(
        label,
        "reduce_any",
        as_u8(any),
        as_u8(oracle::reduce_any(entries)),
    )?;
    compare_option(
        label,
        "reduce_all",
        as_u8(all),
        as_u8(oracle::reduce_all(entries)),
    )
}

// ---------------------------------------------------------------------------------
// scan: scan_sum, scan_min/max, scan_sum_f64, scan_count_if
// ---------------------------------------------------------------------------------

/// `scan_sum` on one case with one kind: integers exactly, with `Overflow` exactly when
/// an output row's value does not fit (its message naming the lowest such row, see
/// [`oracle::scan_sum_exact`]); floats within the rounding bound of `T::Sum`.
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_scan_sum<B: Backend, T: TestNative>(
    backend: &B,
    case: &PrimitiveCase<T>,
    kind: ScanKind,
) -> Result<(), Mismatch>
where
    T::Sum: TestNative,
{
    let label = labelled(case, &format!("{kind:?}"));
    let col = device(backend, case, &case.column)?;
    let got = host_result(backend, case, backend.scan_sum(&col, kind))?;
    let op = |m| with_op("scan_sum", m);
    if T::EXACT {
        let want = oracle::scan_sum_exact(&case.values, kind);
        compare_outcome(&label, got, &want, |got, want| {
            compare_column(&label, &got, want)
        })
        .map_err(op)
    } else {
        let want = Ok(oracle::scan_sum_float(&case.values, kind));
        compare_outcome(&label, got, &want, |got, want| {
            compare_float_sums(&label, &got, want, <T::Sum as TestNative>::EPSILON)
        })
        .map_err(op)
    }
}

/// `scan_min` or `scan_max` on one case with one kind against
/// [`oracle::scan_extreme`]; values bit for bit, validity = input validity.
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_scan_extreme<B: Backend, T: TestNative>(
    backend: &B,
    case: &PrimitiveCase<T>,
    kind: ScanKind,
    max: bool,
) -> Result<(), Mismatch> {
    let name = if max { "scan_max" } else { "scan_min" };
    let label = labelled(case, &format!("{kind:?}"));
    let col = device(backend, case, &case.column)?;
    let out = if max {
        backend.scan_max(&col, kind)
    } else {
        backend.scan_min(&col, kind)
    }
    .map_err(|e| backend_error(case, name, e))?;
    let got = host(backend, case, &out)?;
    compare_column_bits(&label, &got, &oracle::scan_extreme(&case.values, kind, max))
        .map_err(|m| with_op(name, m))
}

/// `scan_sum_f64` on one case with one transform and kind (the `f64` rounding bound).
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_scan_sum_f64<B: Backend, T: TestNative>(
    backend: &B,
    case: &PrimitiveCase<T>,
    transform: Transform,
    kind: ScanKind,
) -> Result<(), Mismatch> {
    let label = labelled(case, &format!("{transform:?}, {kind:?}"));
    let col = device(backend, case, &case.column)?;
    let out = backend
        .scan_sum_f64(&col, transform, kind)
        .map_err(|e| backend_error(case, "scan_sum_f64", e))?;
    let got = host(backend, case, &out)?;
    let want = oracle::scan_sum_f64(&case.values, transform, kind);
    compare_float_sums(&label, &got, &want, f64::EPSILON).map_err(|m| with_op("scan_sum_f64", m))
}

/// `scan_count_if` on one case with one predicate and kind (every output row valid).
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_scan_count_if<B: Backend, T: TestNative>(
    backend: &B,
    case: &PrimitiveCase<T>,
    predicate: Predicate<T>,
    kind: ScanKind,
) -> Result<(), Mismatch> {
    let label = labelled(case, &format!("{predicate:?}, {kind:?}"));
    let col = device(backend, case, &case.column)?;
    let out = backend
        .scan_count_if(&col, predicate, kind)
        .map_err(|e| backend_error(case, "scan_count_if", e))?;
    let got = host(backend, case, &out)?;
    let want: Vec<Option<i64>> = oracle::scan_count_if(&case.values, predicate, kind)
        .into_iter()
        .map(Some)
        .collect();
    compare_column(&label, &got, &want).map_err(|m| with_op("scan_count_if", m))
}

/// `sizes_to_offsets` on one sizes case with one width: the same width, offsets and
/// total, or the same error (`NegativeSize` at the lowest row, `Overflow` naming the
/// first offset beyond `i32::MAX`).
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_sizes_to_offsets<B: Backend>(
    backend: &B,
    case: &SizesCase,
    width: OffsetWidth,
) -> Result<(), Mismatch> {
    let label = labelled(case, &format!("{width:?}"));
    let col = device(backend, case, &case.column)?;
    let got = match backend.sizes_to_offsets(&col, width) {
        Ok((Offsets::I32(o), total)) => Ok((
            Offsets::<Host>::I32(
                backend
                    .download(&o)
                    .map_err(|e| backend_error(case, "download", e))?,
            ),
            total,
        )),
        Ok((Offsets::I64(o), total)) => Ok((
            Offsets::<Host>::I64(
                backend
                    .download(&o)
                    .map_err(|e| backend_error(case, "download", e))?,
            ),
            total,
        )),
        Err(e) => Err(e),
    };
    compare_offsets(&label, got, &oracle::sizes_to_offsets(&case.values, width))
        .map_err(|m| with_op("sizes_to_offsets", m))
}

// ---------------------------------------------------------------------------------
// select: select_if, select_mask
// ---------------------------------------------------------------------------------

fn check_selection<B: Backend, T: TestNative>(
    backend: &B,
    case: &impl Case,
    label: &str,
    op: &str,
    out: ragged_core::ops::Selection<T, B::Loc>,
    with_indices: bool,
    expected: &[(usize, T)],
) -> Result<(), Mismatch> {
    let values = host(backend, case, &out.values)?;
    let indices = out
        .indices
        .as_ref()
        .map(|i| backend.download(i))
        .transpose()
        .map_err(|e| backend_error(case, "download", e))?;
    compare_selection(label, &values, indices.as_ref(), with_indices, expected)
        .map_err(|m| with_op(op, m))
}

/// `select_if` on one case with one predicate, with or without indices.
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_select_if<B: Backend, T: TestNative>(
    backend: &B,
    case: &PrimitiveCase<T>,
    predicate: Predicate<T>,
    with_indices: bool,
) -> Result<(), Mismatch> {
    let label = labelled(case, &format!("{predicate:?}, indices={with_indices}"));
    let col = device(backend, case, &case.column)?;
    let out = backend
        .select_if(&col, predicate, with_indices)
        .map_err(|e| backend_error(case, "select_if", e))?;
    let want = oracle::select_if(&case.values, predicate);
    check_selection(backend, case, &label, "select_if", out, with_indices, &want)
}

/// `select_mask` on one case with one mask (host column and its entries), with or
/// without indices; a mask of another length must give `LengthMismatch`.
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_select_mask<B: Backend, T: TestNative>(
    backend: &B,
    case: &PrimitiveCase<T>,
    mask: &BooleanColumn<Host>,
    entries: &[Option<bool>],
    with_indices: bool,
) -> Result<(), Mismatch> {
    let label = labelled(
        case,
        &format!("mask of {}, indices={with_indices}", entries.len()),
    );
    let col = device(backend, case, &case.column)?;
    let dev_mask = backend
        .to_device_booleans(mask)
        .map_err(|e| backend_error(case, "to_device_booleans", e))?;
    let want = oracle::select_mask(&case.values, entries);
    match backend.select_mask(&col, &dev_mask, with_indices) {
        Ok(out) => match &want {
            Ok(want) => check_selection(
                backend,
                case,
                &label,
                "select_mask",
                out,
                with_indices,
                want,
            ),
            Err(e) => Err(Mismatch::new(
                &label,
                None,
                format!("select_mask: expected error {e:?}, got a selection"),
            )),
        },
        Err(got) => match &want {
            Err(want) => compare_failure(&label, &got, want),
            Ok(_) => Err(Mismatch::new(
                &label,
                None,
                format!("select_mask: unexpected error: {got}"),
            )),
        },
    }
}

// ---------------------------------------------------------------------------------
// segmented reduce
// ---------------------------------------------------------------------------------

/// The six segmented reductions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegmentedOp {
    /// `segmented_sum`.
    Sum,
    /// `segmented_min`, `segmented_max`, `segmented_argmin`, `segmented_argmax`.
    Extreme(ExtremeOp),
    /// `segmented_count`.
    Count,
}

impl SegmentedOp {
    /// Every segmented op.
    pub const ALL: [SegmentedOp; 6] = [
        SegmentedOp::Sum,
        SegmentedOp::Extreme(ExtremeOp::Min),
        SegmentedOp::Extreme(ExtremeOp::Max),
        SegmentedOp::Extreme(ExtremeOp::ArgMin),
        SegmentedOp::Extreme(ExtremeOp::ArgMax),
        SegmentedOp::Count,
    ];

    /// The op's name.
    pub fn name(self) -> String {
        match self {
            SegmentedOp::Sum => "segmented_sum".into(),
            SegmentedOp::Extreme(e) => format!("segmented_{e:?}").to_lowercase(),
            SegmentedOp::Count => "segmented_count".into(),
        }
    }
}

/// One segmented op on one case at offset width `O` against the oracles: the same
/// error as `validate_offsets` for invalid offsets, `Overflow` naming the lowest
/// overflowing segment, per-segment values (sums within the rounding bound, extremes
/// bit for bit, positions within the segment) with null exactly where a segment has
/// no valid value (minima, maxima, arg forms). Cases whose offsets do not fit `O` pass
/// trivially.
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_segmented<B: Backend, T: TestNative, O: OffsetSize>(
    backend: &B,
    case: &SegmentsCase<T>,
    op: SegmentedOp,
) -> Result<(), Mismatch>
where
    T::Sum: TestNative,
{
    let Some(offsets) = case.buffer::<O>() else {
        return Ok(());
    };
    let name = op.name();
    let label = labelled(case, &format!("{name}, {} offsets", O::OFFSET_NAME));
    let col = device(backend, case, &case.column)?;
    let offsets = backend
        .upload(&offsets)
        .map_err(|e| backend_error(case, "upload", e))?;
    let (values, starts) = (&case.values, &case.offsets);
    let outcome = match op {
        SegmentedOp::Sum => {
            let got = host_result(backend, case, backend.segmented_sum(&col, &offsets))?;
            let want = oracle::segmented_sum(values, starts);
            compare_outcome(&label, got, &want, |got, want| {
                if T::EXACT {
                    let want: Vec<Option<T::Sum>> = want
                        .iter()
                        .map(|s| match s {
                            SumOracle::Int(Some(v)) => <T::Sum as TestNative>::from_i128(*v),
                            _ => None,
                        })
                        .collect();
                    compare_column(&label, &got, &want)
                } else {
                    // Float segments: the oracle's per-segment sum, as a FloatSum.
                    let sums: Vec<Option<oracle::FloatSum>> = starts
                        .windows(2)
                        .map(|w| {
                            let segment = &values[w[0] as usize..w[1] as usize];
                            Some(oracle::reduce_sum_f64(segment, Transform::Identity))
                        })
                        .collect();
                    compare_float_sums(&label, &got, &sums, <T::Sum as TestNative>::EPSILON)
                }
            })
        }
        SegmentedOp::Extreme(e) => {
            let want = oracle::segmented_extreme(values, starts, e.max());
            match e {
                ExtremeOp::Min | ExtremeOp::Max => {
                    let out = if e.max() {
                        backend.segmented_max(&col, &offsets)
                    } else {
                        backend.segmented_min(&col, &offsets)
                    };
                    let got = host_result(backend, case, out)?;
                    compare_outcome(&label, got, &want, |got, want| {
                        let want: Vec<Option<T>> = want.iter().map(|b| b.map(|(_, v)| v)).collect();
                        compare_column_bits(&label, &got, &want)
                    })
                }
                ExtremeOp::ArgMin | ExtremeOp::ArgMax => {
                    let out = if e.max() {
                        backend.segmented_argmax(&col, &offsets)
                    } else {
                        backend.segmented_argmin(&col, &offsets)
                    };
                    let got = host_result(backend, case, out)?;
                    compare_outcome(&label, got, &want, |got, want| {
                        let want: Vec<Option<i64>> =
                            want.iter().map(|b| b.map(|(r, _)| r as i64)).collect();
                        compare_column(&label, &got, &want)
                    })
                }
            }
        }
        SegmentedOp::Count => {
            let got = host_result(backend, case, backend.segmented_count(&col, &offsets))?;
            let want = oracle::segmented_count(values, starts);
            compare_outcome(&label, got, &want, |got, want| {
                let want: Vec<Option<i64>> = want.iter().map(|&c| Some(c as i64)).collect();
                compare_column(&label, &got, &want)
            })
        }
    };
    outcome.map_err(|m| with_op(&name, m))
}

// ---------------------------------------------------------------------------------
// Suite tests, one per op and element type
// ---------------------------------------------------------------------------------

/// Suite test: `reduce_sum_f64` over every value case of `T` (transforms rotating).
///
/// # Panics
/// When any case differs from the oracle.
pub fn reduce_sum_f64<B: Backend, T: TestNative>(backend: &B) {
    let mut failures = Failures::new();
    for_each_value_case::<T>(|i, case| {
        let transform = TRANSFORMS[i % TRANSFORMS.len()];
        failures.record(check_reduce_sum_f64(backend, case, transform));
    });
    failures.finish(&format!("reduce_sum_f64<{}>", T::NAME));
}

fn reduce_extreme<B: Backend, T: TestNative>(backend: &B, op: ExtremeOp) {
    let mut failures = Failures::new();
    for_each_value_case::<T>(|_, case| failures.record(check_reduce_extreme(backend, case, op)));
    failures.finish(&format!("reduce_{op:?}<{}>", T::NAME).to_lowercase());
}

/// Suite test: `reduce_min` over every value case of `T` (NaN placements, ties, ±0).
///
/// # Panics
/// When any case differs from the oracle.
pub fn reduce_min<B: Backend, T: TestNative>(backend: &B) {
    reduce_extreme::<B, T>(backend, ExtremeOp::Min);
}

/// Suite test: `reduce_max` over every value case of `T`.
///
/// # Panics
/// When any case differs from the oracle.
pub fn reduce_max<B: Backend, T: TestNative>(backend: &B) {
    reduce_extreme::<B, T>(backend, ExtremeOp::Max);
}

/// Suite test: `reduce_argmin` over every value case of `T`.
///
/// # Panics
/// When any case differs from the oracle.
pub fn reduce_argmin<B: Backend, T: TestNative>(backend: &B) {
    reduce_extreme::<B, T>(backend, ExtremeOp::ArgMin);
}

/// Suite test: `reduce_argmax` over every value case of `T`.
///
/// # Panics
/// When any case differs from the oracle.
pub fn reduce_argmax<B: Backend, T: TestNative>(backend: &B) {
    reduce_extreme::<B, T>(backend, ExtremeOp::ArgMax);
}

/// Suite test: `count_valid` over every value case of `T`.
///
/// # Panics
/// When any case differs from the oracle.
pub fn count_valid<B: Backend, T: TestNative>(backend: &B) {
    let mut failures = Failures::new();
    for_each_value_case::<T>(|_, case| failures.record(check_count_valid(backend, case)));
    failures.finish(&format!("count_valid<{}>", T::NAME));
}

/// Suite test: `count_if` over every value case of `T` ([`predicates_for`]).
///
/// # Panics
/// When any case differs from the oracle.
pub fn count_if<B: Backend, T: TestNative>(backend: &B) {
    let mut failures = Failures::new();
    for_each_value_case::<T>(|i, case| {
        for predicate in predicates_for(i, &case.values) {
            failures.record(check_count_if(backend, case, predicate));
        }
    });
    failures.finish(&format!("count_if<{}>", T::NAME));
}

/// Suite test: `reduce_any` and `reduce_all` over masks of every shape and row count
/// (valid and true, valid and false, null entries, bit offsets, empty).
///
/// # Panics
/// When any case differs from the oracle.
pub fn reduce_any_all<B: Backend>(backend: &B) {
    let mut failures = Failures::new();
    for shape in MaskShape::ALL {
        for rows in gen::OP_ROW_COUNTS
            .into_iter()
            .chain([gen::MULTI_CHUNK_ROWS])
        {
            let label = format!("mask/{shape:?}/rows={rows}");
            let (col, entries) = gen::mask(shape, rows, &mut Rng::from_label(&label));
            failures.record(check_reduce_any_all(backend, &label, &col, &entries));
        }
    }
    // One false (or one true) hidden among the others, before and after a chunk end,
    // and hidden under a null entry (where it must not count).
    for rows in [1usize, 64, 65, 4097, gen::MULTI_CHUNK_ROWS] {
        for at in [0, rows / 2, rows - 1] {
            for base in [true, false] {
                let mut entries = vec![Some(base); rows];
                entries[at] = Some(!base);
                let label = format!("mask/one-{}-at-{at}/rows={rows}", !base);
                let col = BooleanColumn::from_options(entries.clone());
                failures.record(check_reduce_any_all(backend, &label, &col, &entries));
                entries[at] = None;
                let label = format!("mask/one-null-at-{at}/rows={rows}");
                let col = boolean_with_garbage(&entries, !base);
                failures.record(check_reduce_any_all(backend, &label, &col, &entries));
            }
        }
    }
    failures.finish("reduce_any_all");
}

/// A boolean column whose null entries hold the value bit `garbage`.
fn boolean_with_garbage(entries: &[Option<bool>], garbage: bool) -> BooleanColumn<Host> {
    let bits: Vec<bool> = entries.iter().map(|e| e.unwrap_or(garbage)).collect();
    let valid: Vec<bool> = entries.iter().map(Option::is_some).collect();
    BooleanColumn::try_new(
        arrow_buffer::NullBuffer::new(arrow_buffer::BooleanBuffer::from(bits)),
        Some(arrow_buffer::NullBuffer::from(valid)),
    )
    .expect("a valid boolean column")
}

/// Suite test: `scan_sum` (inclusive and exclusive) over every value case of `T`.
///
/// # Panics
/// When any case differs from the oracle.
pub fn scan_sum<B: Backend, T: TestNative>(backend: &B)
where
    T::Sum: TestNative,
{
    let mut failures = Failures::new();
    for_each_value_case::<T>(|_, case| {
        for kind in SCAN_KINDS {
            failures.record(check_scan_sum(backend, case, kind));
        }
    });
    failures.finish(&format!("scan_sum<{}>", T::NAME));
}

/// Suite test: `scan_sum` of `i64` or `u64` near the limits
/// ([`gen::sum_overflow_cases`]): running sums that leave the range fail even where
/// the total fits; the message names the lowest row whose value does not fit.
///
/// # Panics
/// When any case differs from the oracle.
pub fn scan_sum_overflow<B: Backend, T: TestNative>(backend: &B)
where
    T::Sum: TestNative,
{
    let mut failures = Failures::new();
    let cases = gen::sum_overflow_cases::<T>();
    let overflows = cases
        .iter()
        .filter(|c| oracle::scan_sum_exact(&c.values, ScanKind::Inclusive).is_err())
        .count();
    assert!(
        overflows > 0 && overflows < cases.len(),
        "cases that overflow and cases that fit"
    );
    for case in &cases {
        for kind in SCAN_KINDS {
            failures.record(check_scan_sum(backend, case, kind));
        }
    }
    failures.finish(&format!("scan_sum_overflow<{}>", T::NAME));
}

/// Suite test: `scan_min` (both kinds) over every value case of `T`.
///
/// # Panics
/// When any case differs from the oracle.
pub fn scan_min<B: Backend, T: TestNative>(backend: &B) {
    scan_extreme::<B, T>(backend, false);
}

/// Suite test: `scan_max` (both kinds) over every value case of `T`.
///
/// # Panics
/// When any case differs from the oracle.
pub fn scan_max<B: Backend, T: TestNative>(backend: &B) {
    scan_extreme::<B, T>(backend, true);
}

fn scan_extreme<B: Backend, T: TestNative>(backend: &B, max: bool) {
    let mut failures = Failures::new();
    for_each_value_case::<T>(|_, case| {
        for kind in SCAN_KINDS {
            failures.record(check_scan_extreme(backend, case, kind, max));
        }
    });
    let name = if max { "scan_max" } else { "scan_min" };
    failures.finish(&format!("{name}<{}>", T::NAME));
}

/// Suite test: `scan_sum_f64` (both kinds, transforms rotating) over every value case.
///
/// # Panics
/// When any case differs from the oracle.
pub fn scan_sum_f64<B: Backend, T: TestNative>(backend: &B) {
    let mut failures = Failures::new();
    for_each_value_case::<T>(|i, case| {
        for kind in SCAN_KINDS {
            let transform = TRANSFORMS[i % TRANSFORMS.len()];
            failures.record(check_scan_sum_f64(backend, case, transform, kind));
        }
    });
    failures.finish(&format!("scan_sum_f64<{}>", T::NAME));
}

/// Suite test: `scan_count_if` (both kinds) over every value case ([`predicates_for`]).
///
/// # Panics
/// When any case differs from the oracle.
pub fn scan_count_if<B: Backend, T: TestNative>(backend: &B) {
    let mut failures = Failures::new();
    for_each_value_case::<T>(|i, case| {
        for predicate in predicates_for(i, &case.values) {
            for kind in SCAN_KINDS {
                failures.record(check_scan_count_if(backend, case, predicate, kind));
            }
        }
    });
    failures.finish(&format!("scan_count_if<{}>", T::NAME));
}

/// Suite test: `sizes_to_offsets` over every [`gen::sizes_cases`] case at every width
/// (random sizes, null sizes holding negative garbage, negative sizes, totals at and
/// beyond `i32::MAX`, `Auto` widening).
///
/// # Panics
/// When any case differs from the oracle.
pub fn sizes_to_offsets<B: Backend>(backend: &B) {
    let mut failures = Failures::new();
    for case in gen::sizes_cases().iter() {
        for width in [OffsetWidth::I32, OffsetWidth::I64, OffsetWidth::Auto] {
            failures.record(check_sizes_to_offsets(backend, case, width));
        }
    }
    failures.finish("sizes_to_offsets");
}

/// Suite test: `select_if` over every value case of `T` ([`predicates_for`], with and
/// without indices alternately).
///
/// # Panics
/// When any case differs from the oracle.
pub fn select_if<B: Backend, T: TestNative>(backend: &B) {
    let mut failures = Failures::new();
    for_each_value_case::<T>(|i, case| {
        for (j, predicate) in predicates_for(i, &case.values).into_iter().enumerate() {
            failures.record(check_select_if(backend, case, predicate, (i + j) % 2 == 0));
        }
    });
    failures.finish(&format!("select_if<{}>", T::NAME));
}

/// Suite test: `select_mask` over every value case of `T`, with a mask whose shape
/// rotates over [`MaskShape::ALL`], with and without indices alternately; and masks one
/// row shorter and one row longer (`LengthMismatch`).
///
/// # Panics
/// When any case differs from the oracle.
pub fn select_mask<B: Backend, T: TestNative>(backend: &B) {
    let mut failures = Failures::new();
    for_each_value_case::<T>(|i, case| {
        let shape = MaskShape::ALL[i % MaskShape::ALL.len()];
        let n = case.values.len();
        let mut rng = Rng::from_label(&case.label);
        let (mask, entries) = gen::mask(shape, n, &mut rng);
        failures.record(check_select_mask(
            backend,
            case,
            &mask,
            &entries,
            i % 2 == 0,
        ));
        if n <= ALL_PARAMETERS_UP_TO {
            for wrong in [n + 1, n.saturating_sub(1)] {
                if wrong != n {
                    let (mask, entries) = gen::mask(MaskShape::Random, wrong, &mut rng);
                    failures.record(check_select_mask(backend, case, &mask, &entries, true));
                }
            }
        }
    });
    failures.finish(&format!("select_mask<{}>", T::NAME));
}

fn segmented<B: Backend, T: TestNative>(backend: &B, op: SegmentedOp)
where
    T::Sum: TestNative,
{
    let mut failures = Failures::new();
    for case in gen::segment_cases::<T>().iter() {
        failures.record(check_segmented::<B, T, i32>(backend, case, op));
        if case.values.len() <= 8193 {
            failures.record(check_segmented::<B, T, i64>(backend, case, op));
        }
    }
    failures.finish(&format!("{}<{}>", op.name(), T::NAME));
}

/// Suite test: `segmented_sum` over every [`gen::segment_cases`] case of `T` (i32
/// offsets; i64 offsets up to 8193 rows).
///
/// # Panics
/// When any case differs from the oracle.
pub fn segmented_sum<B: Backend, T: TestNative>(backend: &B)
where
    T::Sum: TestNative,
{
    segmented::<B, T>(backend, SegmentedOp::Sum);
}

/// Suite test: `segmented_min` over every segmented case of `T`.
///
/// # Panics
/// When any case differs from the oracle.
pub fn segmented_min<B: Backend, T: TestNative>(backend: &B)
where
    T::Sum: TestNative,
{
    segmented::<B, T>(backend, SegmentedOp::Extreme(ExtremeOp::Min));
}

/// Suite test: `segmented_max` over every segmented case of `T`.
///
/// # Panics
/// When any case differs from the oracle.
pub fn segmented_max<B: Backend, T: TestNative>(backend: &B)
where
    T::Sum: TestNative,
{
    segmented::<B, T>(backend, SegmentedOp::Extreme(ExtremeOp::Max));
}

/// Suite test: `segmented_argmin` over every segmented case of `T`.
///
/// # Panics
/// When any case differs from the oracle.
pub fn segmented_argmin<B: Backend, T: TestNative>(backend: &B)
where
    T::Sum: TestNative,
{
    segmented::<B, T>(backend, SegmentedOp::Extreme(ExtremeOp::ArgMin));
}

/// Suite test: `segmented_argmax` over every segmented case of `T`.
///
/// # Panics
/// When any case differs from the oracle.
pub fn segmented_argmax<B: Backend, T: TestNative>(backend: &B)
where
    T::Sum: TestNative,
{
    segmented::<B, T>(backend, SegmentedOp::Extreme(ExtremeOp::ArgMax));
}

/// Suite test: `segmented_count` over every segmented case of `T`.
///
/// # Panics
/// When any case differs from the oracle.
pub fn segmented_count<B: Backend, T: TestNative>(backend: &B)
where
    T::Sum: TestNative,
{
    segmented::<B, T>(backend, SegmentedOp::Count);
}

/// Suite test: `segmented_sum` of `i64` or `u64` near the limits: each
/// [`gen::sum_overflow_cases`] column as one segment, cut in two, and behind an empty
/// segment; `Overflow` naming the lowest overflowing segment.
///
/// # Panics
/// When any case differs from the oracle.
pub fn segmented_sum_overflow<B: Backend, T: TestNative>(backend: &B)
where
    T::Sum: TestNative,
{
    let mut failures = Failures::new();
    for values in gen::sum_overflow_cases::<T>() {
        let n = values.values.len() as i64;
        for (shape, offsets) in [
            ("one", vec![0, n]),
            ("halves", vec![0, n / 2, n]),
            ("empty-first", vec![0, 0, 1.min(n), n]),
        ] {
            let case = SegmentsCase::new(format!("{}/{shape}", values.label), &values, offsets);
            failures.record(check_segmented::<B, T, i32>(
                backend,
                &case,
                SegmentedOp::Sum,
            ));
            failures.record(check_segmented::<B, T, i64>(
                backend,
                &case,
                SegmentedOp::Sum,
            ));
        }
    }
    failures.finish(&format!("segmented_sum_overflow<{}>", T::NAME));
}

/// Suite test: every segmented op with invalid offsets ([`gen::offsets_cases`] against
/// a column of the case's values length) at width `O`: the same error kind and lowest
/// index as `validate_offsets`; valid offsets of up to 4096 segments are reduced too.
///
/// # Panics
/// When any case differs from the oracle.
pub fn segmented_invalid_offsets<B: Backend, O: OffsetSize>(backend: &B) {
    let mut failures = Failures::new();
    for offsets in gen::offsets_cases().iter() {
        let valid = oracle::validate_offsets(&offsets.offsets, offsets.values_len).is_ok();
        if valid && offsets.offsets.len() > 4097 {
            continue;
        }
        // Random values where the offsets are reduced; cheap ones under the large
        // invalid offsets (only the error matters there).
        let mut rng = Rng::from_label(&offsets.label);
        let values: Vec<Option<i32>> = if valid {
            (0..offsets.values_len)
                .map(|_| (!rng.chance(10)).then(|| rng.range_i64(-100, 100) as i32))
                .collect()
        } else {
            vec![Some(1); offsets.values_len]
        };
        let column =
            PrimitiveCase::from_spec(offsets.label.clone(), &PrimitiveSpec::new(values), true);
        let case = SegmentsCase::new(
            format!("offsets/{}", offsets.label),
            &column,
            offsets.offsets.clone(),
        );
        for op in SegmentedOp::ALL {
            failures.record(check_segmented::<B, i32, O>(backend, &case, op));
        }
    }
    failures.finish(&format!("segmented_invalid_offsets<{}>", O::OFFSET_NAME));
}

// ---------------------------------------------------------------------------------
// Huge inputs (2^24 + 3 rows), a few representative ops
// ---------------------------------------------------------------------------------

/// Suite test: `reduce_sum` of the huge `i32` input.
///
/// # Panics
/// When it differs from the oracle.
pub fn huge_reduce_sum_i32<B: Backend>(backend: &B) {
    let case = gen::huge_case::<i32>();
    let mut failures = Failures::new();
    failures.record((|| {
        let col = device(backend, &*case, &case.column)?;
        let got = backend.reduce_sum(&col);
        compare_sum::<i32>(&case.label, &got, &oracle::reduce_sum(&case.values), true)
    })());
    failures.finish("huge_reduce_sum_i32");
}

/// Suite test: `scan_sum` (inclusive and exclusive) of the huge `i32` input.
///
/// # Panics
/// When it differs from the oracle.
pub fn huge_scan_sum_i32<B: Backend>(backend: &B) {
    let case = gen::huge_case::<i32>();
    let mut failures = Failures::new();
    for kind in SCAN_KINDS {
        failures.record(check_scan_sum(backend, &*case, kind));
    }
    failures.finish("huge_scan_sum_i32");
}

/// Suite test: `select_if` of the huge `f32` input (`x > 0.5`, with indices).
///
/// # Panics
/// When it differs from the oracle.
pub fn huge_select_if_f32<B: Backend>(backend: &B) {
    let case = gen::huge_case::<f32>();
    let mut failures = Failures::new();
    failures.record(check_select_if(
        backend,
        &*case,
        Predicate::new(Comparison::Gt, 0.5),
        true,
    ));
    failures.finish("huge_select_if_f32");
}

/// Suite test: `segmented_sum` of the huge `i32` input cut into segments of about 64.
///
/// # Panics
/// When it differs from the oracle.
pub fn huge_segmented_sum_i32<B: Backend>(backend: &B) {
    let case = gen::huge_segments_case::<i32>();
    let mut failures = Failures::new();
    failures.record(check_segmented::<B, i32, i32>(
        backend,
        &case,
        SegmentedOp::Sum,
    ));
    failures.finish("huge_segmented_sum_i32");
}

/// Suite test: `sizes_to_offsets` of 2^24 + 3 sizes totalling more than `i32::MAX`:
/// `Auto` widens to i64 and `I32` overflows (`I64` is the `Auto` result, checked on
/// the smaller cases).
///
/// # Panics
/// When it differs from the oracle.
pub fn huge_sizes_to_offsets<B: Backend>(backend: &B) {
    let case = gen::huge_sizes_case();
    let mut failures = Failures::new();
    for width in [OffsetWidth::Auto, OffsetWidth::I32] {
        failures.record(check_sizes_to_offsets(backend, &case, width));
    }
    failures.finish("huge_sizes_to_offsets");
}

// ---------------------------------------------------------------------------------
// Property checks: several ops on one generated case
// ---------------------------------------------------------------------------------

/// `reduce_min`, `reduce_max`, `reduce_argmin`, `reduce_argmax`, `count_valid` and
/// `reduce_sum_f64` (every transform) on one case.
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_reductions<B: Backend, T: TestNative>(
    backend: &B,
    case: &PrimitiveCase<T>,
) -> Result<(), Mismatch> {
    for op in [
        ExtremeOp::Min,
        ExtremeOp::Max,
        ExtremeOp::ArgMin,
        ExtremeOp::ArgMax,
    ] {
        check_reduce_extreme(backend, case, op)?;
    }
    check_count_valid(backend, case)?;
    for transform in TRANSFORMS {
        check_reduce_sum_f64(backend, case, transform)?;
    }
    Ok(())
}

/// `scan_sum`, `scan_min`, `scan_max` and `scan_sum_f64` (every transform), inclusive
/// and exclusive, on one case.
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_scans<B: Backend, T: TestNative>(
    backend: &B,
    case: &PrimitiveCase<T>,
) -> Result<(), Mismatch>
where
    T::Sum: TestNative,
{
    for kind in SCAN_KINDS {
        check_scan_sum(backend, case, kind)?;
        check_scan_extreme(backend, case, kind, false)?;
        check_scan_extreme(backend, case, kind, true)?;
        for transform in TRANSFORMS {
            check_scan_sum_f64(backend, case, transform, kind)?;
        }
    }
    Ok(())
}

/// `scan_sum` alone, both kinds (for the full-range overflow strategies).
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_scan_sums<B: Backend, T: TestNative>(
    backend: &B,
    case: &PrimitiveCase<T>,
) -> Result<(), Mismatch>
where
    T::Sum: TestNative,
{
    for kind in SCAN_KINDS {
        check_scan_sum(backend, case, kind)?;
    }
    Ok(())
}

/// `count_if`, `scan_count_if` (both kinds) and `select_if` (with and without
/// indices) with one predicate on one case.
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_predicate_ops<B: Backend, T: TestNative>(
    backend: &B,
    case: &PrimitiveCase<T>,
    predicate: Predicate<T>,
) -> Result<(), Mismatch> {
    check_count_if(backend, case, predicate)?;
    for kind in SCAN_KINDS {
        check_scan_count_if(backend, case, predicate, kind)?;
    }
    check_select_if(backend, case, predicate, true)?;
    check_select_if(backend, case, predicate, false)
}

/// `select_mask` with and without indices on one case and mask entries (built into a
/// column with `true` bits under the null entries, which must not select).
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_select_masks<B: Backend, T: TestNative>(
    backend: &B,
    case: &PrimitiveCase<T>,
    entries: &[Option<bool>],
) -> Result<(), Mismatch> {
    let mask = boolean_with_garbage(entries, true);
    check_select_mask(backend, case, &mask, entries, true)?;
    check_select_mask(backend, case, &mask, entries, false)
}

/// `reduce_any` and `reduce_all` on entries (null entries holding `true` bits, then
/// `false` bits).
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_any_all_entries<B: Backend>(
    backend: &B,
    entries: &[Option<bool>],
) -> Result<(), Mismatch> {
    for garbage in [true, false] {
        let col = boolean_with_garbage(entries, garbage);
        check_reduce_any_all(backend, "proptest/booleans", &col, entries)?;
    }
    Ok(())
}

/// Every segmented op on one case at offset width `O`.
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_segmented_all<B: Backend, T: TestNative, O: OffsetSize>(
    backend: &B,
    case: &SegmentsCase<T>,
) -> Result<(), Mismatch>
where
    T::Sum: TestNative,
{
    for op in SegmentedOp::ALL {
        check_segmented::<B, T, O>(backend, case, op)?;
    }
    Ok(())
}

/// `sizes_to_offsets` at every width on one sizes case.
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_sizes_all<B: Backend>(backend: &B, case: &SizesCase) -> Result<(), Mismatch> {
    for width in [OffsetWidth::I32, OffsetWidth::I64, OffsetWidth::Auto] {
        check_sizes_to_offsets(backend, case, width)?;
    }
    Ok(())
}

/// Suite test: every primitives op on every slice `start..start + len` of small `i32`
/// and `f64` columns with nulls, for `start` in 0..=17 (validity bitmaps at every bit
/// offset mod 8) and `len` in {0, 1, 2, all the rest}; masks at their own bit offsets;
/// segments over the slice.
///
/// # Panics
/// When any case differs from the oracle.
pub fn primitives_sliced_inputs<B: Backend>(backend: &B) {
    fn run<B: Backend, T: TestNative>(backend: &B, failures: &mut Failures)
    where
        T::Sum: TestNative,
    {
        const BASE: usize = 70;
        let label = format!("primitives_sliced_inputs/{}", T::NAME);
        let mut rng = Rng::from_label(&label);
        let spec = gen::shaped_spec::<T>(gen::ValueShape::Ties, BASE, &mut rng);
        let mask_entries: Vec<Option<bool>> = (0..BASE)
            .map(|_| (!rng.chance(10)).then(|| rng.chance(50)))
            .collect();
        for start in 0..=17 {
            for len in [0, 1, 2, BASE - start] {
                let slice = Some((start, len));
                let case = PrimitiveCase::from_spec(
                    format!("{}/slice={start}+{len}", T::NAME),
                    &PrimitiveSpec {
                        slice,
                        ..spec.clone()
                    },
                    false,
                );
                failures.record(check_reductions(backend, &case));
                failures.record(check_scans(backend, &case));
                for predicate in predicates_for(start, &case.values) {
                    failures.record(check_predicate_ops(backend, &case, predicate));
                }
                // The mask sliced at the same bit offset as the column.
                let full = boolean_with_garbage(&mask_entries, true);
                let (values, validity) = full.into_parts();
                let mask = BooleanColumn::try_new(
                    values.slice(start, len),
                    validity.map(|v| v.slice(start, len)),
                )
                .expect("a valid mask slice");
                let entries = &mask_entries[start..start + len];
                failures.record(check_select_mask(backend, &case, &mask, entries, true));
                // Segments of 0 to 3 elements over the slice, starting at row 1.
                let mut offsets = vec![len.min(1) as i64];
                while let Some(&last) = offsets.last() {
                    if last as usize >= len {
                        break;
                    }
                    offsets.push((last + rng.range_i64(0, 3)).min(len as i64));
                }
                let segments = SegmentsCase::new(case.label.clone(), &case, offsets);
                failures.record(check_segmented_all::<B, T, i32>(backend, &segments));
            }
        }
    }
    let mut failures = Failures::new();
    run::<B, i32>(backend, &mut failures);
    run::<B, f64>(backend, &mut failures);
    failures.finish("primitives_sliced_inputs");
}
