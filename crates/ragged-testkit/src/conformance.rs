//! The conformance suite's checks and test bodies, generic over [`Backend`].
//!
//! `check_*` functions run one case: upload the host column with the backend's
//! `Memory::to_device_*`, run the op, download with `to_host_*`, and compare with the
//! oracle (never with another backend). The suite functions (`length`, `reduce_sum`, …)
//! loop over a whole enumeration of [`crate::gen`] and panic with every mismatch; the
//! [`crate::conformance_suite!`] macro turns each into a `#[test]`.

use ragged_core::{Backend, Error, OffsetSize, ValidityBitmap};

use crate::check::{
    compare_column, compare_error, compare_sum, compare_validity, to_native, Failures, Mismatch,
};
use crate::gen::{
    self, Case, ListCase, ListKind, ListSpec, OffsetsCase, PrimitiveCase, PrimitiveKind,
    PrimitiveSpec, StringCase, StringKind, StringSpec,
};
use crate::native::TestNative;
use crate::oracle;
use crate::rng::Rng;

pub mod lists;
pub mod primitives;
pub mod sequences;
pub mod strings;
pub mod strings_transform;
pub mod text;

/// The proptest configuration of the suite's properties: 64 cases (override with
/// `PROPTEST_CASES`), no regression files written next to the caller's sources.
pub fn proptest_config() -> proptest::test_runner::Config {
    proptest::test_runner::Config {
        cases: 64,
        failure_persistence: None,
        ..proptest::test_runner::Config::default()
    }
}

/// A backend error where a value was expected, as a mismatch.
fn backend_error(case: &impl Case, step: &str, e: Error) -> Mismatch {
    Mismatch::new(case.label(), None, format!("{step} failed: {e}"))
}

/// Per-row validity of a host bitmap (`None` = all valid).
fn valid_bits<V: ValidityBitmap>(
    validity: Option<&V>,
    len: usize,
    is_valid: impl Fn(usize) -> bool,
) -> Vec<bool> {
    match validity {
        Some(_) => (0..len).map(is_valid).collect(),
        None => vec![true; len],
    }
}

// ---------------------------------------------------------------------------------
// strings: length, length_bytes
// ---------------------------------------------------------------------------------

/// `StringOps::length` on one case against [`oracle::length`]; also checks that the
/// output validity is the input validity.
///
/// # Errors
/// The first [`Mismatch`] (a differing row, validity, or a backend error).
pub fn check_length<B: Backend, O: OffsetSize + TestNative>(
    backend: &B,
    case: &StringCase<O>,
) -> Result<(), Mismatch> {
    let device = backend
        .to_device_strings(&case.column)
        .map_err(|e| backend_error(case, "to_device_strings", e))?;
    let out = backend
        .length(&device)
        .map_err(|e| backend_error(case, "length", e))?;
    let host = backend
        .to_host_primitive(&out)
        .map_err(|e| backend_error(case, "to_host_primitive", e))?;
    compare_column(
        &case.label,
        &host,
        &to_native::<O>(&oracle::length(&case.rows)),
    )
}

/// `StringOps::length_bytes` on one case against [`oracle::length_bytes`].
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_length_bytes<B: Backend, O: OffsetSize + TestNative>(
    backend: &B,
    case: &StringCase<O>,
) -> Result<(), Mismatch> {
    let device = backend
        .to_device_strings(&case.column)
        .map_err(|e| backend_error(case, "to_device_strings", e))?;
    let out = backend
        .length_bytes(&device)
        .map_err(|e| backend_error(case, "length_bytes", e))?;
    let host = backend
        .to_host_primitive(&out)
        .map_err(|e| backend_error(case, "to_host_primitive", e))?;
    compare_column(
        &case.label,
        &host,
        &to_native::<O>(&oracle::length_bytes(&case.rows)),
    )
}

/// Suite test: `length` over every strings case of offset width `O`.
///
/// # Panics
/// When any case differs from the oracle (listing the mismatches).
pub fn length<B: Backend, O: OffsetSize + TestNative>(backend: &B) {
    let mut failures = Failures::new();
    for case in gen::string_cases::<O>() {
        failures.record(check_length(backend, &case));
    }
    failures.finish(&format!("length<{}>", O::OFFSET_NAME));
}

/// Suite test: `length_bytes` over every strings case of offset width `O`.
///
/// # Panics
/// When any case differs from the oracle.
pub fn length_bytes<B: Backend, O: OffsetSize + TestNative>(backend: &B) {
    let mut failures = Failures::new();
    for case in gen::string_cases::<O>() {
        failures.record(check_length_bytes(backend, &case));
    }
    failures.finish(&format!("length_bytes<{}>", O::OFFSET_NAME));
}

// ---------------------------------------------------------------------------------
// lists: counts
// ---------------------------------------------------------------------------------

/// `ListOps::counts` on one case against [`oracle::counts`].
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_counts<B: Backend, O: OffsetSize + TestNative, T: TestNative>(
    backend: &B,
    case: &ListCase<O, T>,
) -> Result<(), Mismatch> {
    let device = backend
        .to_device_list(&case.column)
        .map_err(|e| backend_error(case, "to_device_list", e))?;
    let out = backend
        .counts(&device)
        .map_err(|e| backend_error(case, "counts", e))?;
    let host = backend
        .to_host_primitive(&out)
        .map_err(|e| backend_error(case, "to_host_primitive", e))?;
    compare_column(
        &case.label,
        &host,
        &to_native::<O>(&oracle::counts(&case.rows)),
    )
}

/// Suite test: `counts` over every list case of offset width `O`, with `i32` and with
/// `f64` children.
///
/// # Panics
/// When any case differs from the oracle.
pub fn counts<B: Backend, O: OffsetSize + TestNative>(backend: &B) {
    let mut failures = Failures::new();
    for case in gen::list_cases::<O, i32>() {
        failures.record(check_counts(backend, &case));
    }
    for kind in ListKind::ALL {
        for &rows in &gen::SMALL_ROW_COUNTS {
            failures.record(check_counts(backend, &gen::list_case::<O, f64>(kind, rows)));
        }
    }
    failures.finish(&format!("counts<{}>", O::OFFSET_NAME));
}

// ---------------------------------------------------------------------------------
// primitives: reduce_sum
// ---------------------------------------------------------------------------------

/// `Primitives::reduce_sum` on one case against [`oracle::reduce_sum`].
///
/// # Errors
/// The first [`Mismatch`] (a different sum, a missing or unexpected overflow).
pub fn check_reduce_sum<B: Backend, T: TestNative>(
    backend: &B,
    case: &PrimitiveCase<T>,
) -> Result<(), Mismatch>
where
    T::Sum: TestNative,
{
    let device = backend
        .to_device_primitive(&case.column)
        .map_err(|e| backend_error(case, "to_device_primitive", e))?;
    let got = backend.reduce_sum(&device);
    compare_sum::<T>(
        &case.label,
        &got,
        &oracle::reduce_sum(&case.values),
        case.exact_sum,
    )
}

/// Suite test: `reduce_sum` over every primitive case of `T` (nulls hold garbage that
/// must not be added).
///
/// # Panics
/// When any case differs from the oracle.
pub fn reduce_sum<B: Backend, T: TestNative>(backend: &B)
where
    T::Sum: TestNative,
{
    let mut failures = Failures::new();
    for case in gen::primitive_cases::<T>() {
        failures.record(check_reduce_sum(backend, &case));
    }
    failures.finish(&format!("reduce_sum<{}>", T::NAME));
}

/// Suite test: `reduce_sum` of `i64` or `u64` at and beyond the accumulator's range
/// ([`gen::sum_overflow_cases`]): `Error::Overflow` exactly when the oracle's sum does
/// not fit.
///
/// # Panics
/// When any case differs from the oracle, or when the cases do not include both an
/// overflowing and a fitting sum (a broken generator).
pub fn reduce_sum_overflow<B: Backend, T: TestNative>(backend: &B)
where
    T::Sum: TestNative,
{
    let cases = gen::sum_overflow_cases::<T>();
    let overflows = cases
        .iter()
        .filter(|c| oracle::reduce_sum(&c.values) == oracle::SumOracle::Int(None))
        .count();
    assert!(
        overflows > 0 && overflows < cases.len(),
        "overflow cases must include sums that overflow and sums that fit"
    );
    let mut failures = Failures::new();
    for case in &cases {
        failures.record(check_reduce_sum(backend, case));
    }
    failures.finish(&format!("reduce_sum_overflow<{}>", T::NAME));
}

/// Suite test: sums of 8- to 32-bit integers that exceed their own type but fit the
/// 64-bit accumulator ([`gen::wide_accumulator_cases`]) must not overflow.
///
/// # Panics
/// When any case differs from the oracle.
pub fn reduce_sum_wide_accumulator<B: Backend>(backend: &B) {
    fn run<B: Backend, T: TestNative>(backend: &B, failures: &mut Failures)
    where
        T::Sum: TestNative,
    {
        for case in gen::wide_accumulator_cases::<T>() {
            failures.record(check_reduce_sum(backend, &case));
        }
    }
    let mut failures = Failures::new();
    run::<B, i8>(backend, &mut failures);
    run::<B, u8>(backend, &mut failures);
    run::<B, i16>(backend, &mut failures);
    run::<B, u16>(backend, &mut failures);
    run::<B, i32>(backend, &mut failures);
    run::<B, u32>(backend, &mut failures);
    failures.finish("reduce_sum_wide_accumulator");
}

// ---------------------------------------------------------------------------------
// memory: validate_offsets
// ---------------------------------------------------------------------------------

/// `Memory::validate_offsets` on uploaded offsets of width `O` against
/// [`oracle::validate_offsets`]: both valid, or errors of the same kind at the same
/// index. Cases whose values do not fit `O` pass trivially.
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_validate_offsets<B: Backend, O: OffsetSize>(
    backend: &B,
    case: &OffsetsCase,
) -> Result<(), Mismatch> {
    let Some(host) = case.buffer::<O>() else {
        return Ok(());
    };
    let device = backend
        .upload(&host)
        .map_err(|e| backend_error(case, "upload", e))?;
    let got = backend.validate_offsets::<O>(&device, case.values_len);
    let want = oracle::validate_offsets(&case.offsets, case.values_len);
    compare_error(&case.label, &got, &want)
}

/// Suite test: `validate_offsets` over every [`gen::offsets_cases`] case at width `O`.
///
/// # Panics
/// When any case differs from the oracle.
pub fn validate_offsets<B: Backend, O: OffsetSize>(backend: &B) {
    let mut failures = Failures::new();
    for case in gen::offsets_cases().iter() {
        failures.record(check_validate_offsets::<B, O>(backend, case));
    }
    failures.finish(&format!("validate_offsets<{}>", O::OFFSET_NAME));
}

// ---------------------------------------------------------------------------------
// cross-cutting properties
// ---------------------------------------------------------------------------------

/// Output validity equals the input column's validity bitmap, bit for bit (read from
/// the host column itself, not from the spec).
fn check_same_validity(
    case: &impl Case,
    input_valid: &[bool],
    output: &ragged_core::PrimitiveColumn<impl TestNative, ragged_core::Host>,
) -> Result<(), Mismatch> {
    compare_validity(case.label(), output.validity(), output.len(), input_valid)
}

/// Suite test: the output validity of `length`, `length_bytes` and `counts` equals the
/// input validity on null-heavy cases (null rows with bytes, sliced bitmaps at a bit
/// offset, all-null), at both offset widths.
///
/// # Panics
/// When any case differs.
pub fn nulls_preserved<B: Backend>(backend: &B) {
    fn strings<B: Backend, O: OffsetSize + TestNative>(backend: &B, failures: &mut Failures) {
        for kind in [
            StringKind::NullBytes,
            StringKind::Sliced,
            StringKind::AllNull,
            StringKind::AllValidBitmap,
        ] {
            for rows in [1, 33, 257, 1025] {
                let case = gen::string_case::<O>(kind, rows);
                let c = &case.column;
                let valid = valid_bits(c.validity(), c.len(), |i| c.is_valid(i));
                let outcome = (|| {
                    let device = backend
                        .to_device_strings(c)
                        .map_err(|e| backend_error(&case, "to_device_strings", e))?;
                    for (op, out) in [
                        ("length", backend.length(&device)),
                        ("length_bytes", backend.length_bytes(&device)),
                    ] {
                        let out = out.map_err(|e| backend_error(&case, op, e))?;
                        let host = backend
                            .to_host_primitive(&out)
                            .map_err(|e| backend_error(&case, "to_host_primitive", e))?;
                        check_same_validity(&case, &valid, &host).map_err(|m| Mismatch {
                            detail: format!("{op}: {}", m.detail),
                            ..m
                        })?;
                    }
                    Ok(())
                })();
                failures.record(outcome);
            }
        }
    }
    fn lists<B: Backend, O: OffsetSize + TestNative>(backend: &B, failures: &mut Failures) {
        for kind in [
            ListKind::NullNonEmpty,
            ListKind::Sliced,
            ListKind::AllNull,
            ListKind::AllValidBitmap,
        ] {
            for rows in [1, 33, 257, 1025] {
                let case = gen::list_case::<O, i32>(kind, rows);
                let c = &case.column;
                let valid = valid_bits(c.validity(), c.len(), |i| c.is_valid(i));
                let outcome = (|| {
                    let device = backend
                        .to_device_list(c)
                        .map_err(|e| backend_error(&case, "to_device_list", e))?;
                    let out = backend
                        .counts(&device)
                        .map_err(|e| backend_error(&case, "counts", e))?;
                    let host = backend
                        .to_host_primitive(&out)
                        .map_err(|e| backend_error(&case, "to_host_primitive", e))?;
                    check_same_validity(&case, &valid, &host)
                })();
                failures.record(outcome);
            }
        }
    }
    let mut failures = Failures::new();
    strings::<B, i32>(backend, &mut failures);
    strings::<B, i64>(backend, &mut failures);
    lists::<B, i32>(backend, &mut failures);
    lists::<B, i64>(backend, &mut failures);
    failures.finish("nulls_preserved");
}

/// Suite test: every slice `start..start + len` of small columns, for `start` in 0..=17
/// (so validity bitmaps start at every bit offset mod 8 and `offsets[0]` varies) and
/// `len` in {0, 1, 2, all the rest}: `length` and `length_bytes` at both widths,
/// `counts` at both widths, `reduce_sum` of `i32` and `f64`.
///
/// # Panics
/// When any case differs from the oracle.
pub fn sliced_inputs<B: Backend>(backend: &B) {
    const BASE: usize = 70;
    let mut rng = Rng::from_label("sliced_inputs");
    let strings = StringSpec::generate(StringKind::NullBytes, BASE, &mut rng);
    let lists = ListSpec::<i32>::generate(ListKind::NullNonEmpty, BASE, &mut rng);
    let ints = PrimitiveSpec::<i32>::generate(PrimitiveKind::Nulls, BASE, &mut rng);
    let floats = PrimitiveSpec::<f64>::generate(PrimitiveKind::Nulls, BASE, &mut rng);
    let mut failures = Failures::new();
    for start in 0..=17 {
        for len in [0, 1, 2, BASE - start] {
            let slice = Some((start, len));
            let label = |what: &str| format!("{what}/slice={start}+{len}");

            let spec = StringSpec {
                slice,
                ..strings.clone()
            };
            let narrow = StringCase::<i32>::from_spec(label("utf8"), &spec);
            let wide = StringCase::<i64>::from_spec(label("large_utf8"), &spec);
            failures.record(check_length(backend, &narrow));
            failures.record(check_length_bytes(backend, &narrow));
            failures.record(check_length(backend, &wide));
            failures.record(check_length_bytes(backend, &wide));

            let spec = ListSpec {
                slice,
                ..lists.clone()
            };
            failures.record(check_counts(
                backend,
                &ListCase::<i32, i32>::from_spec(label("list<i32>"), &spec),
            ));
            failures.record(check_counts(
                backend,
                &ListCase::<i64, i32>::from_spec(label("large_list<i32>"), &spec),
            ));

            let spec = PrimitiveSpec {
                slice,
                ..ints.clone()
            };
            failures.record(check_reduce_sum(
                backend,
                &PrimitiveCase::from_spec(label("i32"), &spec, true),
            ));
            let spec = PrimitiveSpec {
                slice,
                ..floats.clone()
            };
            failures.record(check_reduce_sum(
                backend,
                &PrimitiveCase::from_spec(label("f64"), &spec, true),
            ));
        }
    }
    failures.finish("sliced_inputs");
}
