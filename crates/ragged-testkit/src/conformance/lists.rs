//! The conformance suite of the lists family (`ragged_core::ListOps`), generic over
//! any [`Backend`].
//!
//! Every check uploads a host column with `Memory::to_device_*`, runs the op,
//! downloads with `to_host_*` and compares with [`oracle::lists`] (never with another
//! backend): list outputs row by row (validity, elements bit for bit, null rows
//! empty), element outputs element by element, reductions per list (integer sums and
//! products exactly, float sums within the rounding bound, extremes bit for bit), and
//! errors by kind and lowest index ([`compare_failure`]: for `Overflow` the message
//! names the same list or offset index).
//!
//! The inputs ([`crate::gen::list_ops`]) cover: the empty column, all-empty and
//! all-null lists, one list of 100 000 elements among tiny ones, lists of 1, 7, 8, 31,
//! 32, 127, 128, 2047, 2048 and 2049 elements and up to 5 000, null lists covering
//! elements and null elements, sliced columns (`offsets[0] != 0`) and sliced children;
//! views that overlap, run backwards, leave gaps, hold empty lists at odd positions
//! (starting at the child's end too) and sliced views; both offset widths; `i8`,
//! `i32`, `i64`, `u64`, `f32`, `f64` (NaN, `±inf`, `-0.0` among the special values),
//! `bool`, `Utf8` and `LargeUtf8` children. [`crate::lists_conformance_suite!`] turns
//! each suite function into a `#[test]`.

use arrow_buffer::{NullBuffer, ScalarBuffer};
use ragged_core::ops::{OffsetWidth, Offsets, OutOfRange};
use ragged_core::{
    Backend, Column, Error, Host, ListColumn, ListViewColumn, OffsetSize, PrimitiveColumn,
};

use super::backend_error;
use crate::check::{
    compare_column, compare_column_bits, compare_failure, compare_float_sums, compare_offsets,
    compare_outcome, float_close, Failures, Mismatch,
};
use crate::gen::list_ops::{
    list_ops_case_from, list_ops_cases, list_type_name, view_cases, LargeString, ListElement,
    ListOpsCase, Lists, ValueMode, ViewCase, ViewShape,
};
use crate::gen::Case;
use crate::native::TestNative;
use crate::oracle::lists::{self as oracle, ProdOracle};
use crate::oracle::{reduce_sum_f64, SumOracle};

// ---------------------------------------------------------------------------------
// Transfers and comparisons
// ---------------------------------------------------------------------------------

fn err(label: &str, step: &str, e: Error) -> Mismatch {
    Mismatch::new(label, None, format!("{step} failed: {e}"))
}

fn with_op(op: &str, m: Mismatch) -> Mismatch {
    Mismatch {
        detail: format!("{op}: {}", m.detail),
        ..m
    }
}

fn device_list<B: Backend, O: OffsetSize>(
    backend: &B,
    case: &impl Case,
    col: &ListColumn<O, Host>,
) -> Result<ListColumn<O, B::Loc>, Mismatch> {
    backend
        .to_device_list(col)
        .map_err(|e| backend_error(case, "to_device_list", e))
}

/// The rows of a downloaded list column: offsets, child (read as `E`) and validity.
/// Null rows must be empty when `null_empty`.
///
/// # Errors
/// A [`Mismatch`] when the child has another type or a null row is not empty.
pub fn read_lists<O: OffsetSize, E: ListElement>(
    label: &str,
    col: &ListColumn<O, Host>,
    null_empty: bool,
) -> Result<Lists<E>, Mismatch> {
    let ranges: Vec<(usize, usize)> = (0..col.len())
        .map(|i| (col.range(i).start, col.range(i).end))
        .collect();
    let valid: Vec<bool> = (0..col.len()).map(|i| col.is_valid(i)).collect();
    read_ranges(label, col.child(), &ranges, &valid, null_empty)
}

/// The rows of a downloaded list view (see [`read_lists`]).
///
/// # Errors
/// As [`read_lists`].
pub fn read_view<O: OffsetSize, E: ListElement>(
    label: &str,
    col: &ListViewColumn<O, Host>,
    null_empty: bool,
) -> Result<Lists<E>, Mismatch> {
    let ranges: Vec<(usize, usize)> = (0..col.len())
        .map(|i| (col.range(i).start, col.range(i).end))
        .collect();
    let valid: Vec<bool> = (0..col.len()).map(|i| col.is_valid(i)).collect();
    read_ranges(label, col.child(), &ranges, &valid, null_empty)
}

fn read_ranges<E: ListElement>(
    label: &str,
    child: &Column<Host>,
    ranges: &[(usize, usize)],
    valid: &[bool],
    null_empty: bool,
) -> Result<Lists<E>, Mismatch> {
    let elements = E::read_column(child).ok_or_else(|| {
        Mismatch::new(
            label,
            None,
            format!(
                "the child has type {}, expected {}",
                child.type_name(),
                E::NAME
            ),
        )
    })?;
    let mut rows = Vec::with_capacity(ranges.len());
    for (row, (&(a, b), &ok)) in ranges.iter().zip(valid).enumerate() {
        if b < a || b > elements.len() {
            return Err(Mismatch::new(
                label,
                Some(row),
                format!("range {a}..{b} is outside a child of {}", elements.len()),
            ));
        }
        if !ok {
            if null_empty && a != b {
                return Err(Mismatch::new(
                    label,
                    Some(row),
                    format!("a null list must be empty, it covers {a}..{b}"),
                ));
            }
            rows.push(None);
        } else {
            rows.push(Some(elements[a..b].to_vec()));
        }
    }
    Ok(rows)
}

/// Check lists against the oracle's: the same number, the same validity, and the same
/// elements (bit for bit) in every valid list.
///
/// # Errors
/// A [`Mismatch`] naming the first differing list.
pub fn compare_lists<E: ListElement>(
    label: &str,
    got: &Lists<E>,
    want: &Lists<E>,
) -> Result<(), Mismatch> {
    if got.len() != want.len() {
        return Err(Mismatch::new(
            label,
            None,
            format!("{} lists, expected {}", got.len(), want.len()),
        ));
    }
    for (row, (g, w)) in got.iter().zip(want).enumerate() {
        let same = match (g, w) {
            (None, None) => true,
            (Some(g), Some(w)) => {
                g.len() == w.len()
                    && g.iter().zip(w).all(|(a, b)| match (a, b) {
                        (None, None) => true,
                        (Some(a), Some(b)) => E::same(a, b),
                        _ => false,
                    })
            }
            _ => false,
        };
        if !same {
            return Err(Mismatch::new(
                label,
                Some(row),
                format!("expected {}, got {}", show(w), show(g)),
            ));
        }
    }
    Ok(())
}

/// A list for messages (long lists abbreviated).
fn show<E: std::fmt::Debug>(list: &Option<Vec<Option<E>>>) -> String {
    match list {
        None => "null".into(),
        Some(l) if l.len() > 12 => {
            format!("a list of {} elements starting {:?}", l.len(), &l[..12])
        }
        Some(l) => format!("{l:?}"),
    }
}

/// Check elements against the oracle's: the same number, validity and values.
///
/// # Errors
/// A [`Mismatch`] naming the first differing element.
pub fn compare_elements<E: ListElement>(
    label: &str,
    got: &[Option<E>],
    want: &[Option<E>],
) -> Result<(), Mismatch> {
    if got.len() != want.len() {
        return Err(Mismatch::new(
            label,
            None,
            format!("{} elements, expected {}", got.len(), want.len()),
        ));
    }
    for (row, (g, w)) in got.iter().zip(want).enumerate() {
        let same = match (g, w) {
            (None, None) => true,
            (Some(a), Some(b)) => E::same(a, b),
            _ => false,
        };
        if !same {
            return Err(Mismatch::new(
                label,
                Some(row),
                format!("expected {w:?}, got {g:?}"),
            ));
        }
    }
    Ok(())
}

fn download_offsets<B: Backend>(
    backend: &B,
    label: &str,
    out: Result<(Offsets<B::Loc>, i64), Error>,
) -> Result<Result<(Offsets<Host>, i64), Error>, Mismatch> {
    Ok(match out {
        Ok((Offsets::I32(o), total)) => Ok((
            Offsets::I32(
                backend
                    .download(&o)
                    .map_err(|e| err(label, "download", e))?,
            ),
            total,
        )),
        Ok((Offsets::I64(o), total)) => Ok((
            Offsets::I64(
                backend
                    .download(&o)
                    .map_err(|e| err(label, "download", e))?,
            ),
            total,
        )),
        Err(e) => Err(e),
    })
}

fn buffer<O: OffsetSize>(values: &[i64]) -> Option<ScalarBuffer<O>> {
    values
        .iter()
        .map(|&v| O::from_i64(v))
        .collect::<Option<Vec<O>>>()
        .map(ScalarBuffer::from)
}

// ---------------------------------------------------------------------------------
// compact_offsets, to_compact
// ---------------------------------------------------------------------------------

/// `compact_offsets` of starts/stops (as `O`) at `width` against
/// [`oracle::compact_offsets`]. Inputs that do not fit `O` pass trivially.
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_compact_offsets<B: Backend, O: OffsetSize>(
    backend: &B,
    label: &str,
    starts: &[i64],
    stops: &[i64],
    child_len: usize,
    width: OffsetWidth,
) -> Result<(), Mismatch> {
    let (Some(s), Some(t)) = (buffer::<O>(starts), buffer::<O>(stops)) else {
        return Ok(());
    };
    let label = format!("{label} [{} starts/stops, {width:?}]", O::OFFSET_NAME);
    let s = backend.upload(&s).map_err(|e| err(&label, "upload", e))?;
    let t = backend.upload(&t).map_err(|e| err(&label, "upload", e))?;
    let got = download_offsets(
        backend,
        &label,
        backend.compact_offsets(&s, &t, child_len, width),
    )?;
    let want = oracle::compact_offsets(starts, stops, child_len, width);
    compare_offsets(&label, got, &want).map_err(|m| with_op("compact_offsets", m))
}

/// `to_compact` of one view against [`oracle::view_rows`]: offsets from 0 to the
/// child's length, null lists null and empty, the same lists.
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_to_compact<B: Backend, O: OffsetSize, E: ListElement>(
    backend: &B,
    case: &ViewCase<O, E>,
) -> Result<(), Mismatch> {
    let label = &case.label;
    let device = backend
        .to_device_list_view(&case.column)
        .map_err(|e| backend_error(case, "to_device_list_view", e))?;
    let out = backend
        .to_compact(&device)
        .map_err(|e| backend_error(case, "to_compact", e))?;
    let host = backend
        .to_host_list(&out)
        .map_err(|e| backend_error(case, "to_host_list", e))?;
    let offsets: &[O] = host.offsets();
    let (first, last) = (offsets[0].as_usize(), offsets[offsets.len() - 1].as_usize());
    if first != 0 || last != host.child().len() {
        return Err(Mismatch::new(
            label,
            None,
            format!(
                "to_compact: offsets run {first}..{last}, expected 0..{} (the child's length)",
                host.child().len()
            ),
        ));
    }
    let got = read_lists::<O, E>(label, &host, true)?;
    let want = oracle::view_rows(&case.model.child, case.model.visible());
    compare_lists(label, &got, &want).map_err(|m| with_op("to_compact", m))
}

// ---------------------------------------------------------------------------------
// flatten, unflatten, local_index
// ---------------------------------------------------------------------------------

/// `flatten` of one case against [`oracle::flatten`].
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_flatten<B: Backend, O: OffsetSize, E: ListElement>(
    backend: &B,
    case: &ListOpsCase<O, E>,
) -> Result<(), Mismatch> {
    let device = device_list(backend, case, &case.column)?;
    let out = backend
        .flatten(&device)
        .map_err(|e| backend_error(case, "flatten", e))?;
    let host = backend
        .to_host(&out)
        .map_err(|e| backend_error(case, "to_host", e))?;
    let got = E::read_column(&host).ok_or_else(|| {
        Mismatch::new(
            &case.label,
            None,
            format!("flatten: got a {} column", host.type_name()),
        )
    })?;
    compare_elements(&case.label, &got, &oracle::flatten(&case.rows))
        .map_err(|m| with_op("flatten", m))
}

/// `unflatten` of `child` by `counts` (a null count holds `-5`, which must be
/// ignored) against [`oracle::unflatten`].
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_unflatten<B: Backend, O: OffsetSize, E: ListElement>(
    backend: &B,
    label: &str,
    child: &[Option<E>],
    counts: &[Option<i64>],
) -> Result<(), Mismatch> {
    let label = format!("{label} [unflatten, {} counts]", O::OFFSET_NAME);
    let Some(values) = buffer::<O>(&counts.iter().map(|c| c.unwrap_or(-5)).collect::<Vec<_>>())
    else {
        return Ok(());
    };
    let valid: Vec<bool> = counts.iter().map(Option::is_some).collect();
    let validity = valid.iter().any(|v| !v).then(|| NullBuffer::from(valid));
    let counts_col =
        PrimitiveColumn::try_new(values, validity).map_err(|e| err(&label, "counts", e))?;
    let child_col = E::build_child(child, 0);
    let d_child = backend
        .to_device(&child_col)
        .map_err(|e| err(&label, "to_device", e))?;
    let d_counts = backend
        .to_device_primitive(&counts_col)
        .map_err(|e| err(&label, "to_device_primitive", e))?;
    let got = match backend.unflatten(&d_child, &d_counts) {
        Ok(col) => Ok(backend
            .to_host_list(&col)
            .map_err(|e| err(&label, "to_host_list", e))?),
        Err(e) => Err(e),
    };
    let want = oracle::unflatten(child, counts);
    compare_outcome(&label, got, &want, |host, want| {
        let offsets: &[O] = host.offsets();
        if offsets[0].as_usize() != 0 {
            return Err(Mismatch::new(
                &label,
                None,
                "unflatten: offsets must start at 0",
            ));
        }
        let got = read_lists::<O, E>(&label, &host, true)?;
        compare_lists(&label, &got, want)
    })
    .map_err(|m| with_op("unflatten", m))
}

/// `local_index` of one case against [`oracle::local_index`] (offsets from 0, null
/// lists empty).
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_local_index<B: Backend, O: OffsetSize, E: ListElement>(
    backend: &B,
    case: &ListOpsCase<O, E>,
) -> Result<(), Mismatch> {
    let device = device_list(backend, case, &case.column)?;
    let out = backend
        .local_index(&device)
        .map_err(|e| backend_error(case, "local_index", e))?;
    let host = backend
        .to_host_list(&out)
        .map_err(|e| backend_error(case, "to_host_list", e))?;
    let offsets: &[O] = host.offsets();
    if offsets[0].as_usize() != 0 {
        return Err(Mismatch::new(
            &case.label,
            None,
            "local_index: offsets must start at 0",
        ));
    }
    let got = read_lists::<O, i64>(&case.label, &host, true)?;
    compare_lists(&case.label, &got, &oracle::local_index(&case.rows))
        .map_err(|m| with_op("local_index", m))
}

// ---------------------------------------------------------------------------------
// get, slice
// ---------------------------------------------------------------------------------

/// `get(index, mode)` of one case against [`oracle::get`].
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_get<B: Backend, O: OffsetSize, E: ListElement>(
    backend: &B,
    case: &ListOpsCase<O, E>,
    index: i64,
    mode: OutOfRange,
) -> Result<(), Mismatch> {
    let label = format!("{} [get({index}, {mode:?})]", case.label);
    let device = device_list(backend, case, &case.column)?;
    let got = match backend.get(&device, index, mode) {
        Ok(col) => Ok(backend
            .to_host(&col)
            .map_err(|e| err(&label, "to_host", e))?),
        Err(e) => Err(e),
    };
    let want = oracle::get(&case.rows, index, mode);
    compare_outcome(&label, got, &want, |host, want| {
        let got = E::read_column(&host).ok_or_else(|| {
            Mismatch::new(&label, None, format!("got a {} column", host.type_name()))
        })?;
        compare_elements(&label, &got, want)
    })
}

/// `slice(start, stop)` of one case against [`oracle::slice`]: a view whose null lists
/// are empty, holding the same lists.
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_slice<B: Backend, O: OffsetSize, E: ListElement>(
    backend: &B,
    case: &ListOpsCase<O, E>,
    start: Option<i64>,
    stop: Option<i64>,
) -> Result<(), Mismatch> {
    let label = format!("{} [slice({start:?}, {stop:?})]", case.label);
    let device = device_list(backend, case, &case.column)?;
    let out = backend
        .slice(&device, start, stop)
        .map_err(|e| err(&label, "slice", e))?;
    let host = backend
        .to_host_list_view(&out)
        .map_err(|e| err(&label, "to_host_list_view", e))?;
    let got = read_view::<O, E>(&label, &host, true)?;
    compare_lists(&label, &got, &oracle::slice(&case.rows, start, stop))
}

// ---------------------------------------------------------------------------------
// Reductions
// ---------------------------------------------------------------------------------

/// The per-list reductions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    /// `list_sum`
    Sum,
    /// `list_prod`
    Prod,
    /// `list_min`
    Min,
    /// `list_max`
    Max,
    /// `list_argmin`
    ArgMin,
    /// `list_argmax`
    ArgMax,
    /// `list_count`
    Count,
    /// `list_count_nonzero`
    CountNonzero,
    /// `list_mean`
    Mean,
}

impl Reduction {
    /// Every numeric reduction.
    pub const ALL: [Reduction; 9] = [
        Reduction::Sum,
        Reduction::Prod,
        Reduction::Min,
        Reduction::Max,
        Reduction::ArgMin,
        Reduction::ArgMax,
        Reduction::Count,
        Reduction::CountNonzero,
        Reduction::Mean,
    ];
}

fn host_primitive<B: Backend, T: TestNative>(
    backend: &B,
    label: &str,
    out: Result<PrimitiveColumn<T, B::Loc>, Error>,
) -> Result<Result<PrimitiveColumn<T, Host>, Error>, Mismatch> {
    match out {
        Ok(col) => backend
            .to_host_primitive(&col)
            .map(Ok)
            .map_err(|e| err(label, "to_host_primitive", e)),
        Err(e) => Ok(Err(e)),
    }
}

fn counts_of(expected: &[Option<usize>]) -> Vec<Option<i64>> {
    expected.iter().map(|c| c.map(|c| c as i64)).collect()
}

/// One reduction of one case of numeric `T` against the oracles.
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_reduction<B: Backend, O: OffsetSize, T: TestNative>(
    backend: &B,
    case: &ListOpsCase<O, T>,
    op: Reduction,
) -> Result<(), Mismatch>
where
    T::Sum: TestNative,
{
    let label = format!("{} [{op:?}]", case.label);
    let label = label.as_str();
    let col = device_list(backend, case, &case.column)?;
    let rows = &case.rows;
    match op {
        Reduction::Sum => {
            let got = host_primitive(backend, label, backend.list_sum::<O, T>(&col))?;
            let want = oracle::list_sum(rows);
            compare_outcome(label, got, &want, |got, want| {
                if T::EXACT {
                    let want: Vec<Option<T::Sum>> = want
                        .iter()
                        .map(|s| match s {
                            Some(SumOracle::Int(Some(v))) => <T::Sum as TestNative>::from_i128(*v),
                            _ => None,
                        })
                        .collect();
                    compare_column(label, &got, &want)
                } else {
                    let sums: Vec<_> = rows
                        .iter()
                        .map(|l| {
                            l.as_ref()
                                .map(|l| reduce_sum_f64(l, ragged_core::ops::Transform::Identity))
                        })
                        .collect();
                    compare_float_sums(label, &got, &sums, <T::Sum as TestNative>::EPSILON)
                }
            })
        }
        Reduction::Prod => {
            let got = host_primitive(backend, label, backend.list_prod::<O, T>(&col))?;
            let want = oracle::list_prod(rows);
            compare_outcome(label, got, &want, |got, want| {
                compare_products::<T>(label, &got, want)
            })
        }
        Reduction::Min | Reduction::Max => {
            let max = op == Reduction::Max;
            let out = if max {
                backend.list_max::<O, T>(&col)
            } else {
                backend.list_min::<O, T>(&col)
            };
            let got = host_primitive(backend, label, out)?;
            let want: Vec<Option<T>> = oracle::list_extreme(rows, max)
                .iter()
                .map(|b| b.map(|(_, v)| v))
                .collect();
            compare_outcome(label, got, &Ok(want), |got, want| {
                compare_column_bits(label, &got, want)
            })
        }
        Reduction::ArgMin | Reduction::ArgMax => {
            let max = op == Reduction::ArgMax;
            let out = if max {
                backend.list_argmax::<O, T>(&col)
            } else {
                backend.list_argmin::<O, T>(&col)
            };
            let got = host_primitive(backend, label, out)?;
            let want: Vec<Option<i64>> = oracle::list_extreme(rows, max)
                .iter()
                .map(|b| b.map(|(r, _)| r as i64))
                .collect();
            compare_outcome(label, got, &Ok(want), |got, want| {
                compare_column(label, &got, want)
            })
        }
        Reduction::Count => {
            let got = host_primitive(backend, label, backend.list_count::<O>(&col))?;
            let want = counts_of(&oracle::list_count(rows));
            compare_outcome(label, got, &Ok(want), |got, want| {
                compare_column(label, &got, want)
            })
        }
        Reduction::CountNonzero => {
            let got = host_primitive(backend, label, backend.list_count_nonzero::<O, T>(&col))?;
            let want = counts_of(&oracle::list_count_nonzero(rows));
            compare_outcome(label, got, &Ok(want), |got, want| {
                compare_column(label, &got, want)
            })
        }
        Reduction::Mean => {
            let got = host_primitive(backend, label, backend.list_mean::<O, T>(&col))?;
            let want = oracle::list_mean(rows);
            compare_outcome(label, got, &Ok(want), |got, want| {
                let valid: Vec<Option<()>> = want.iter().map(|m| m.map(|_| ())).collect();
                let shape: Vec<Option<f64>> = valid.iter().map(|v| v.map(|()| 0.0)).collect();
                crate::check::compare_validity(
                    label,
                    got.validity(),
                    got.len(),
                    &shape.iter().map(Option::is_some).collect::<Vec<_>>(),
                )?;
                let values: &[f64] = got.values();
                for (row, (g, w)) in values.iter().zip(want).enumerate() {
                    if let Some(w) = w {
                        if !float_close(*g, w.value(), w.tolerance()) {
                            return Err(Mismatch::new(
                                label,
                                Some(row),
                                format!(
                                    "expected mean {:e} (± {:e}), got {g:e}",
                                    w.value(),
                                    w.tolerance()
                                ),
                            ));
                        }
                    }
                }
                Ok(())
            })
        }
    }
}

/// Products against [`ProdOracle`]s: integers exactly, floats within `terms · ε` of
/// the oracle's value relative to it (NaN and infinities exactly).
fn compare_products<T: TestNative>(
    label: &str,
    got: &PrimitiveColumn<T::Sum, Host>,
    want: &[Option<ProdOracle>],
) -> Result<(), Mismatch>
where
    T::Sum: TestNative,
{
    let valid: Vec<bool> = want.iter().map(Option::is_some).collect();
    crate::check::compare_validity(label, got.validity(), got.len(), &valid)?;
    let values: &[T::Sum] = got.values();
    for (row, (g, w)) in values.iter().zip(want).enumerate() {
        let ok = match w {
            None => true,
            Some(ProdOracle::Int(v)) => g.to_i128() == Some(*v),
            Some(ProdOracle::Float { value, terms }) => {
                let tolerance =
                    value.abs() * (*terms as f64 + 1.0) * <T::Sum as TestNative>::EPSILON;
                float_close(ragged_core::Native::to_f64(*g), *value, tolerance)
            }
        };
        if !ok {
            return Err(Mismatch::new(
                label,
                Some(row),
                format!("expected product {w:?}, got {g:?}"),
            ));
        }
    }
    Ok(())
}

/// `list_any` and `list_all` of one case of booleans against the oracles.
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_any_all<B: Backend, O: OffsetSize>(
    backend: &B,
    case: &ListOpsCase<O, bool>,
) -> Result<(), Mismatch> {
    let col = device_list(backend, case, &case.column)?;
    for (name, any) in [("list_any", true), ("list_all", false)] {
        let label = format!("{} [{name}]", case.label);
        let out = if any {
            backend.list_any(&col)
        } else {
            backend.list_all(&col)
        };
        let out = out.map_err(|e| err(&label, name, e))?;
        let host = backend
            .to_host_booleans(&out)
            .map_err(|e| err(&label, "to_host_booleans", e))?;
        let want = if any {
            oracle::list_any(&case.rows)
        } else {
            oracle::list_all(&case.rows)
        };
        let got = host.to_options();
        let valid: Vec<bool> = want.iter().map(Option::is_some).collect();
        crate::check::compare_validity(&label, host.validity(), host.len(), &valid)?;
        if let Some(row) = got
            .iter()
            .zip(&want)
            .position(|(g, w)| w.is_some() && g != w)
        {
            return Err(Mismatch::new(
                &label,
                Some(row),
                format!("expected {:?}, got {:?}", want[row], got[row]),
            ));
        }
    }
    Ok(())
}

/// `list_count` of one case of any element type.
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_count<B: Backend, O: OffsetSize, E: ListElement>(
    backend: &B,
    case: &ListOpsCase<O, E>,
) -> Result<(), Mismatch> {
    let label = format!("{} [list_count]", case.label);
    let col = device_list(backend, case, &case.column)?;
    let got = host_primitive(backend, &label, backend.list_count::<O>(&col))?;
    let want = counts_of(&oracle::list_count(&case.rows));
    compare_outcome(&label, got, &Ok(want), |got, want| {
        compare_column(&label, &got, want)
    })
}

// ---------------------------------------------------------------------------------
// Suite tests
// ---------------------------------------------------------------------------------

/// Run `f` for the element-moving types: `i8`, `i32`, `i64`, `u64`, `f32`, `f64`,
/// `bool`, `Utf8`, `LargeUtf8`.
macro_rules! for_element_types {
    ($f:ident, $b:expr, $failures:expr) => {
        $f::<B, O, i8>($b, $failures);
        $f::<B, O, i32>($b, $failures);
        $f::<B, O, i64>($b, $failures);
        $f::<B, O, u64>($b, $failures);
        $f::<B, O, f32>($b, $failures);
        $f::<B, O, f64>($b, $failures);
        $f::<B, O, bool>($b, $failures);
        $f::<B, O, String>($b, $failures);
        $f::<B, O, LargeString>($b, $failures);
    };
}

/// Run `f` for the numeric reduction types: `i8`, `i32`, `i64`, `u64`, `f32`, `f64`.
macro_rules! for_numeric_types {
    ($f:ident, $b:expr, $failures:expr) => {
        $f::<B, O, i8>($b, $failures);
        $f::<B, O, i32>($b, $failures);
        $f::<B, O, i64>($b, $failures);
        $f::<B, O, u64>($b, $failures);
        $f::<B, O, f32>($b, $failures);
        $f::<B, O, f64>($b, $failures);
    };
}

/// Suite test: `compact_offsets` of every view shape's starts/stops (null lists
/// included: the op has no validity) at the three widths, and the error cases: `stop
/// < start` at two lists (the lowest is reported), `stop > child_len`, `start < 0`,
/// both kinds (the lowest wins whatever its kind), different lengths.
///
/// # Panics
/// When any case differs from the oracle.
pub fn compact_offsets<B: Backend, O: OffsetSize>(backend: &B) {
    let mut failures = Failures::new();
    let widths = [OffsetWidth::I32, OffsetWidth::I64, OffsetWidth::Auto];
    for case in view_cases::<O, i32>(ValueMode::Random) {
        let starts: Vec<i64> = case.model.visible().iter().map(|l| l.0).collect();
        let stops: Vec<i64> = case.model.visible().iter().map(|l| l.1).collect();
        for width in widths {
            failures.record(check_compact_offsets::<B, O>(
                backend,
                &case.label,
                &starts,
                &stops,
                case.model.child.len(),
                width,
            ));
        }
    }
    // (label, starts, stops, child_len)
    let errors: Vec<(&str, Vec<i64>, Vec<i64>, usize)> = vec![
        (
            "stop-before-start-twice",
            vec![0, 3, 1, 5, 2],
            vec![2, 3, 0, 4, 2],
            6,
        ),
        ("stop-beyond-child", vec![0, 1, 2, 0], vec![1, 2, 7, 9], 6),
        ("negative-start", vec![0, 1, -1, -2], vec![1, 2, 1, 0], 6),
        (
            "out-of-bounds-before-reversed",
            vec![0, -1, 4, 0],
            vec![1, 1, 3, 9],
            6,
        ),
        (
            "reversed-before-out-of-bounds",
            vec![0, 4, -1, 0],
            vec![1, 3, 1, 9],
            6,
        ),
        ("stop-equals-child", vec![0, 6, 3], vec![6, 6, 6], 6),
        ("empty-at-end", vec![6, 0], vec![6, 0], 6),
        ("length-mismatch", vec![0, 1, 2], vec![1, 2], 6),
        ("empty", vec![], vec![], 0),
    ];
    for (label, starts, stops, child_len) in &errors {
        for width in widths {
            failures.record(check_compact_offsets::<B, O>(
                backend, label, starts, stops, *child_len, width,
            ));
        }
    }
    // The lowest bad list deep in a long input (beyond the first chunk of a block).
    for at in [0usize, 31, 32, 2047, 2048, 70_000] {
        let n = 70_003;
        let mut starts: Vec<i64> = (0..n as i64).map(|i| i % 5).collect();
        let mut stops: Vec<i64> = starts.iter().map(|s| s + 3).collect();
        stops[at] = starts[at] - 1;
        starts[n - 1] = -4;
        let label = format!("long-error-at-{at}");
        failures.record(check_compact_offsets::<B, O>(
            backend,
            &label,
            &starts,
            &stops,
            8,
            OffsetWidth::Auto,
        ));
    }
    failures.finish(&format!("compact_offsets<{}>", O::OFFSET_NAME));
}

/// Suite test: offsets beyond `i32::MAX` from few lists over a modest child (2 100
/// lists covering the same 2^20 elements): `compact_offsets` at `I32` fails naming the
/// first offset beyond (`index 2048`), `Auto` widens to i64, `I64` succeeds; and
/// `to_compact` of such an `i32` view fails with the same `Overflow` (before moving
/// any element).
///
/// # Panics
/// When any case differs from the oracle.
pub fn offsets_overflow<B: Backend>(backend: &B) {
    let mut failures = Failures::new();
    let child_len = 1usize << 20;
    let n = 2100;
    let starts = vec![0i64; n];
    let stops = vec![child_len as i64; n];
    for width in [OffsetWidth::I32, OffsetWidth::Auto, OffsetWidth::I64] {
        failures.record(check_compact_offsets::<B, i32>(
            backend, "overflow", &starts, &stops, child_len, width,
        ));
        failures.record(check_compact_offsets::<B, i64>(
            backend, "overflow", &starts, &stops, child_len, width,
        ));
    }
    // to_compact of the i32 view: Overflow naming the same offset.
    let label = "list_view<i8>/overflow [to_compact]";
    let outcome = (|| {
        let child = Column::Int8(PrimitiveColumn::from_vec(vec![1i8; child_len]));
        let view = ListViewColumn::<i32>::try_new(
            ScalarBuffer::from(vec![0i32; n]),
            ScalarBuffer::from(vec![child_len as i32; n]),
            child,
            None,
        )
        .map_err(|e| err(label, "ListViewColumn::try_new", e))?;
        let device = backend
            .to_device_list_view(&view)
            .map_err(|e| err(label, "to_device_list_view", e))?;
        let want = oracle::offsets_of("to_compact", &stops, OffsetWidth::I32)
            .expect_err("the total exceeds i32::MAX");
        match backend.to_compact(&device) {
            Ok(_) => Err(Mismatch::new(
                label,
                None,
                format!("expected {want:?}, got a result"),
            )),
            Err(got) => compare_failure(label, &got, &want),
        }
    })();
    failures.record(outcome);
    failures.finish("offsets_overflow");
}

/// Suite test: `to_compact` of every view shape, for every element type.
///
/// # Panics
/// When any case differs from the oracle.
pub fn to_compact<B: Backend, O: OffsetSize>(backend: &B) {
    fn run<B: Backend, O: OffsetSize, E: ListElement>(backend: &B, failures: &mut Failures) {
        for case in view_cases::<O, E>(ValueMode::Random) {
            failures.record(check_to_compact(backend, &case));
        }
    }
    let mut failures = Failures::new();
    for_element_types!(run, backend, &mut failures);
    failures.finish(&format!("to_compact<{}>", O::OFFSET_NAME));
}

/// Suite test: `flatten` of every list shape, for every element type.
///
/// # Panics
/// When any case differs from the oracle.
pub fn flatten<B: Backend, O: OffsetSize>(backend: &B) {
    fn run<B: Backend, O: OffsetSize, E: ListElement>(backend: &B, failures: &mut Failures) {
        for case in list_ops_cases::<O, E>(ValueMode::Random) {
            failures.record(check_flatten(backend, &case));
        }
    }
    let mut failures = Failures::new();
    for_element_types!(run, backend, &mut failures);
    failures.finish(&format!("flatten<{}>", O::OFFSET_NAME));
}

/// Suite test: `unflatten` of every list shape's flattening by its counts (null counts
/// holding `-5`), for `i32`, `f64`, `bool` and `Utf8` children; and the errors: a
/// negative count at two rows (the lowest is reported, even when the sum is also
/// wrong), counts summing to one more or one less than the child.
///
/// # Panics
/// When any case differs from the oracle.
pub fn unflatten<B: Backend, O: OffsetSize>(backend: &B) {
    fn run<B: Backend, O: OffsetSize, E: ListElement>(backend: &B, failures: &mut Failures) {
        for case in list_ops_cases::<O, E>(ValueMode::Random) {
            let child = oracle::flatten(&case.rows);
            let counts: Vec<Option<i64>> = case
                .rows
                .iter()
                .map(|l| l.as_ref().map(|l| l.len() as i64))
                .collect();
            failures.record(check_unflatten::<B, O, E>(
                backend,
                &case.label,
                &child,
                &counts,
            ));
            if counts.len() >= 3 {
                let mut more = counts.clone();
                more[counts.len() / 2] = Some(more[counts.len() / 2].unwrap_or(0) + 1);
                failures.record(check_unflatten::<B, O, E>(
                    backend,
                    &format!("{}/one-more", case.label),
                    &child,
                    &more,
                ));
                let mut negative = counts.clone();
                negative[1] = Some(-1);
                negative[counts.len() - 1] = Some(-3);
                failures.record(check_unflatten::<B, O, E>(
                    backend,
                    &format!("{}/negative", case.label),
                    &child,
                    &negative,
                ));
            }
            if !child.is_empty() {
                let fewer = &child[..child.len() - 1];
                failures.record(check_unflatten::<B, O, E>(
                    backend,
                    &format!("{}/one-less", case.label),
                    fewer,
                    &counts,
                ));
            }
        }
    }
    let mut failures = Failures::new();
    run::<B, O, i32>(backend, &mut failures);
    run::<B, O, f64>(backend, &mut failures);
    run::<B, O, bool>(backend, &mut failures);
    run::<B, O, String>(backend, &mut failures);
    failures.finish(&format!("unflatten<{}>", O::OFFSET_NAME));
}

/// Suite test: `local_index` of every list shape (`i32` and `Utf8` children).
///
/// # Panics
/// When any case differs from the oracle.
pub fn local_index<B: Backend, O: OffsetSize>(backend: &B) {
    let mut failures = Failures::new();
    for case in list_ops_cases::<O, i32>(ValueMode::Random) {
        failures.record(check_local_index(backend, &case));
    }
    for case in list_ops_cases::<O, String>(ValueMode::Random) {
        failures.record(check_local_index(backend, &case));
    }
    failures.finish(&format!("local_index<{}>", O::OFFSET_NAME));
}

/// The indices `get` is checked with.
pub const GET_INDICES: [i64; 14] = [
    0,
    1,
    2,
    -1,
    -2,
    -3,
    7,
    -8,
    2047,
    -2048,
    99_999,
    -100_001,
    i64::MAX,
    i64::MIN,
];

/// Suite test: `get` at every index of [`GET_INDICES`] (in and out of range, negative,
/// extreme) under both [`OutOfRange`] modes, over every list shape; all indices for
/// `i32`, `bool` and `Utf8` children, four for the other element types.
///
/// # Panics
/// When any case differs from the oracle.
pub fn get<B: Backend, O: OffsetSize>(backend: &B) {
    fn run<B: Backend, O: OffsetSize, E: ListElement>(backend: &B, failures: &mut Failures) {
        let all = matches!(E::NAME, "i32" | "bool" | "utf8");
        for (k, case) in list_ops_cases::<O, E>(ValueMode::Random).iter().enumerate() {
            for (j, &index) in GET_INDICES.iter().enumerate() {
                if !all && (j + k) % 4 != 0 {
                    continue;
                }
                for mode in [OutOfRange::Null, OutOfRange::Error] {
                    failures.record(check_get(backend, case, index, mode));
                }
            }
        }
    }
    let mut failures = Failures::new();
    for_element_types!(run, backend, &mut failures);
    failures.finish(&format!("get<{}>", O::OFFSET_NAME));
}

/// The bounds `slice` is checked with (every pair on small cases).
pub const SLICE_BOUNDS: [Option<i64>; 12] = [
    None,
    Some(0),
    Some(1),
    Some(2),
    Some(-1),
    Some(-2),
    Some(-3),
    Some(5),
    Some(-100),
    Some(3000),
    Some(i64::MIN),
    Some(i64::MAX),
];

/// Suite test: `slice` with every pair of [`SLICE_BOUNDS`] (None, negative, beyond
/// the end, stop before start, extremes) on cases of at most 128 lists, a rotating
/// few on the others; `i32`, `f64`, `bool`, `Utf8` children.
///
/// # Panics
/// When any case differs from the oracle.
pub fn slice<B: Backend, O: OffsetSize>(backend: &B) {
    fn run<B: Backend, O: OffsetSize, E: ListElement>(backend: &B, failures: &mut Failures) {
        for (k, case) in list_ops_cases::<O, E>(ValueMode::Random).iter().enumerate() {
            let small = case.rows.len() <= 128 && case.column.child().len() <= 10_000;
            let mut p = 0usize;
            for &start in &SLICE_BOUNDS {
                for &stop in &SLICE_BOUNDS {
                    p += 1;
                    if small || (p + k) % 37 == 0 {
                        failures.record(check_slice(backend, case, start, stop));
                    }
                }
            }
        }
    }
    let mut failures = Failures::new();
    run::<B, O, i32>(backend, &mut failures);
    run::<B, O, f64>(backend, &mut failures);
    run::<B, O, bool>(backend, &mut failures);
    run::<B, O, String>(backend, &mut failures);
    failures.finish(&format!("slice<{}>", O::OFFSET_NAME));
}

/// Suite test: every numeric reduction (sum, prod, min, max, argmin, argmax, count,
/// count_nonzero, mean) of every list shape, for `i8`, `i32`, `i64`, `u64`, `f32`,
/// `f64`, with random values (sums exact in any order), tame values (products exact)
/// and special values (extremes, NaN, `±inf`, `-0.0`: integer sums and products then
/// often overflow, naming the lowest list).
///
/// # Panics
/// When any case differs from the oracle.
pub fn reductions<B: Backend, O: OffsetSize>(backend: &B) {
    fn run<B: Backend, O: OffsetSize, T: TestNative>(backend: &B, failures: &mut Failures)
    where
        T::Sum: TestNative,
    {
        for mode in [ValueMode::Random, ValueMode::Tame, ValueMode::Special] {
            for case in list_ops_cases::<O, T>(mode) {
                for op in Reduction::ALL {
                    // Random values overflow products; tame ones make dull extremes.
                    let skip = match mode {
                        ValueMode::Random => op == Reduction::Prod,
                        ValueMode::Tame => !matches!(op, Reduction::Prod | Reduction::Sum),
                        ValueMode::Special => false,
                    };
                    if !skip {
                        failures.record(check_reduction(backend, &case, op));
                    }
                }
            }
        }
    }
    let mut failures = Failures::new();
    for_numeric_types!(run, backend, &mut failures);
    failures.finish(&format!("reductions<{}>", O::OFFSET_NAME));
}

/// Suite test: `list_any` and `list_all` of every list shape of booleans (random and
/// mostly-true values; null elements hold `true`), and `list_count` of `bool`, `Utf8`
/// and `LargeUtf8` children.
///
/// # Panics
/// When any case differs from the oracle.
pub fn any_all_count<B: Backend, O: OffsetSize>(backend: &B) {
    let mut failures = Failures::new();
    for mode in [ValueMode::Random, ValueMode::Tame] {
        for case in list_ops_cases::<O, bool>(mode) {
            failures.record(check_any_all(backend, &case));
            failures.record(check_count(backend, &case));
        }
    }
    for case in list_ops_cases::<O, String>(ValueMode::Random) {
        failures.record(check_count(backend, &case));
    }
    for case in list_ops_cases::<O, LargeString>(ValueMode::Random) {
        failures.record(check_count(backend, &case));
    }
    failures.finish(&format!("any_all_count<{}>", O::OFFSET_NAME));
}

/// Suite test: integer overflow of `list_sum` and `list_prod` on hand-written lists:
/// the lowest overflowing valid list is named, a null list that would overflow is
/// ignored, a zero makes a product 0 however large the others, `i64::MIN` fits, and
/// sums beyond the element type but within the accumulator do not overflow.
///
/// # Panics
/// When any case differs from the oracle.
pub fn overflow<B: Backend, O: OffsetSize>(backend: &B) {
    let mut failures = Failures::new();
    let max = i64::MAX;
    let i64_cases: Vec<(&str, Lists<i64>)> = vec![
        (
            "sum-overflow-lowest",
            vec![
                Some(vec![Some(1), Some(2)]),
                None,
                Some(vec![Some(max), None, Some(1)]),
                Some(vec![Some(max), Some(max)]),
            ],
        ),
        (
            "null-list-overflow-ignored",
            vec![Some(vec![Some(1)]), None, Some(vec![Some(max), Some(-max)])],
        ),
        (
            "prod-zero-and-min",
            vec![
                Some(vec![Some(max), Some(max), Some(0)]),
                Some(vec![Some(i64::MIN), Some(1)]),
                Some(vec![Some(-(1 << 31)), Some(1 << 32)]),
                Some(vec![]),
                None,
            ],
        ),
        (
            "prod-overflow",
            vec![
                Some(vec![Some(3), Some(5)]),
                Some(vec![Some(1 << 32), Some(1 << 31)]),
                Some(vec![Some(max), Some(2)]),
            ],
        ),
    ];
    // The null list of the second case really covers an overflowing range.
    let mut null_covering = list_ops_case_from::<O, i64>(
        "null-covering-overflow",
        &[
            Some(vec![Some(1)]),
            Some(vec![Some(max), Some(max)]),
            Some(vec![Some(2)]),
        ],
    );
    let (offsets, child, _) = null_covering.column.clone().into_parts();
    null_covering.column = ListColumn::try_new_shared(
        offsets,
        child,
        Some(NullBuffer::from(vec![true, false, true])),
    )
    .expect("valid column");
    null_covering.rows[1] = None;
    let mut cases: Vec<ListOpsCase<O, i64>> = i64_cases
        .iter()
        .map(|(label, rows)| list_ops_case_from::<O, i64>(label, rows))
        .collect();
    cases.push(null_covering);
    for case in &cases {
        for op in [Reduction::Sum, Reduction::Prod] {
            failures.record(check_reduction(backend, case, op));
        }
    }
    let u64_rows: Lists<u64> = vec![
        Some(vec![Some(u64::MAX), Some(0)]),
        Some(vec![Some(u64::MAX), Some(1)]),
        Some(vec![Some(u64::MAX)]),
        Some(vec![Some(1 << 32), Some(1 << 32)]),
    ];
    let u64_case = list_ops_case_from::<O, u64>("u64-overflow", &u64_rows);
    for op in [Reduction::Sum, Reduction::Prod] {
        failures.record(check_reduction(backend, &u64_case, op));
    }
    let i8_rows: Lists<i8> = vec![
        Some(vec![Some(127); 300]),
        Some(vec![Some(-128); 9]),
        Some(vec![Some(-128), Some(-128), Some(-128)]),
    ];
    let i8_case = list_ops_case_from::<O, i8>("i8-wide", &i8_rows);
    for op in [Reduction::Sum, Reduction::Prod] {
        failures.record(check_reduction(backend, &i8_case, op));
    }
    failures.finish(&format!("overflow<{}>", O::OFFSET_NAME));
}

/// Suite test: the child-type errors: a reduction of another numeric type or of
/// strings is `TypeMismatch`, `any`/`all` of numbers and `count_nonzero` of booleans
/// too; `to_compact`, `flatten` and `get` of a list of lists are `Unsupported`.
///
/// # Panics
/// When any case differs.
pub fn child_type_errors<B: Backend, O: OffsetSize>(backend: &B) {
    let mut failures = Failures::new();
    let mismatch = || Error::TypeMismatch {
        column: String::new(),
        expected: String::new(),
        actual: String::new(),
    };
    let unsupported = || Error::Unsupported {
        op: "",
        message: String::new(),
    };
    let check = |label: &str, got: Result<(), Error>, want: Error| match got {
        Ok(()) => Err(Mismatch::new(
            label,
            None,
            format!("expected {want:?}, got a result"),
        )),
        Err(e) => compare_failure(label, &e, &want),
    };
    let ints = list_ops_case_from::<O, i32>("ints", &[Some(vec![Some(1), None]), None]);
    let strings = list_ops_case_from::<O, String>("strings", &[Some(vec![Some("a".into())])]);
    let bools = list_ops_case_from::<O, bool>("bools", &[Some(vec![Some(true)])]);
    let outcome = (|| {
        let i = device_list(backend, &ints, &ints.column)?;
        let s = device_list(backend, &strings, &strings.column)?;
        let b = device_list(backend, &bools, &bools.column)?;
        check(
            "list_sum<i64> of i32",
            backend.list_sum::<O, i64>(&i).map(drop),
            mismatch(),
        )?;
        check(
            "list_prod<f64> of i32",
            backend.list_prod::<O, f64>(&i).map(drop),
            mismatch(),
        )?;
        check(
            "list_min<i32> of utf8",
            backend.list_min::<O, i32>(&s).map(drop),
            mismatch(),
        )?;
        check(
            "list_max<u8> of i32",
            backend.list_max::<O, u8>(&i).map(drop),
            mismatch(),
        )?;
        check(
            "list_argmin<f32> of i32",
            backend.list_argmin::<O, f32>(&i).map(drop),
            mismatch(),
        )?;
        check(
            "list_argmax<i16> of bool",
            backend.list_argmax::<O, i16>(&b).map(drop),
            mismatch(),
        )?;
        check(
            "list_mean<u32> of utf8",
            backend.list_mean::<O, u32>(&s).map(drop),
            mismatch(),
        )?;
        check(
            "list_count_nonzero<i32> of bool",
            backend.list_count_nonzero::<O, i32>(&b).map(drop),
            mismatch(),
        )?;
        check(
            "list_any of i32",
            backend.list_any(&i).map(drop),
            mismatch(),
        )?;
        check(
            "list_all of utf8",
            backend.list_all(&s).map(drop),
            mismatch(),
        )?;
        // list<list<i32>>: element-moving ops cannot gather a list child.
        let nested = ListColumn::<O>::try_new(
            ScalarBuffer::from(vec![O::usize_as(0), O::usize_as(1), O::usize_as(2)]),
            wrap_list(ints.column.clone()),
            None,
        )
        .map_err(|e| err("nested", "ListColumn::try_new", e))?;
        let n = device_list(backend, &ints, &nested)?;
        check(
            "flatten of list<list>",
            backend.flatten(&n).map(drop),
            unsupported(),
        )?;
        check(
            "get of list<list>",
            backend.get(&n, 0, OutOfRange::Null).map(drop),
            unsupported(),
        )?;
        let view = ListViewColumn::from_list(&nested);
        let v = backend
            .to_device_list_view(&view)
            .map_err(|e| err("nested", "to_device_list_view", e))?;
        check(
            "to_compact of list_view<list>",
            backend.to_compact(&v).map(drop),
            unsupported(),
        )?;
        // list_count takes any child (the second inner list is null).
        let counts = host_primitive(backend, "list_count of list<list>", backend.list_count(&n))?
            .map_err(|e| err("nested", "list_count", e))?;
        compare_column("list_count of list<list>", &counts, &[Some(1), Some(0)])
    })();
    failures.record(outcome);
    failures.finish(&format!("child_type_errors<{}>", list_type_name::<O>()));
}

/// A list column as a child column.
fn wrap_list<O: OffsetSize>(col: ListColumn<O, Host>) -> Column<Host> {
    let (offsets, child, validity) = col.into_parts();
    let offsets: Vec<i64> = offsets.iter().map(|o| o.as_i64()).collect();
    let col = ListColumn::<i64>::try_new_shared(ScalarBuffer::from(offsets), child, validity)
        .expect("a valid column stays valid");
    Column::LargeList(col)
}

/// Suite test: one view shape per element type checked through both `to_compact` and
/// `compact_offsets` on a view sliced from a larger one (a rotating check that the
/// view's own buffers, not its parent's, are read).
///
/// # Panics
/// When any case differs from the oracle.
pub fn sliced_views<B: Backend, O: OffsetSize>(backend: &B) {
    let mut failures = Failures::new();
    for n in [1usize, 7, 64, 1000] {
        let shape = ViewShape::Sliced(n);
        let case = crate::gen::list_ops::view_case::<O, String>(shape, ValueMode::Random);
        failures.record(check_to_compact(backend, &case));
        let case = crate::gen::list_ops::view_case::<O, f32>(shape, ValueMode::Special);
        failures.record(check_to_compact(backend, &case));
        let starts: Vec<i64> = case.model.visible().iter().map(|l| l.0).collect();
        let stops: Vec<i64> = case.model.visible().iter().map(|l| l.1).collect();
        failures.record(check_compact_offsets::<B, O>(
            backend,
            &case.label,
            &starts,
            &stops,
            case.model.child.len(),
            OffsetWidth::Auto,
        ));
    }
    failures.finish(&format!("sliced_views<{}>", O::OFFSET_NAME));
}
