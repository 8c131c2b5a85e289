//! # ragged-testkit
//!
//! Test support for every ragged backend (DESIGN.md §4, Testing): deterministic
//! generators of host columns ([`gen`]), proptest strategies ([`strategy`]), naive
//! sequential reference implementations ([`oracle`]), comparison helpers with case/row
//! messages ([`check`]) and the backend conformance suite ([`conformance`],
//! [`conformance_suite!`]).
//!
//! A backend crate instantiates the suite in one line of `tests/conformance.rs`:
//!
//! ```text
//! ragged_testkit::conformance_suite!(Ok::<_, String>(ragged_cpu::CpuBackend::new()));
//! ```
//!
//! The expression evaluates to `Result<B, String>`; `Err(reason)` means the backend is
//! unavailable here (no GPU): each test then prints `skipped: <reason>` to stderr and
//! returns, unless `RAGGED_REQUIRE_CUDA=1` is set, in which case it fails with the
//! reason (see [`backend_or_skip`]).

// This crate is test support code: panicking on a failed check or on generator misuse
// is its purpose, and every such panic is documented on the function.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod check;
pub mod conformance;
pub mod gen;
pub mod native;
pub mod oracle;
pub mod rng;
pub mod strategy;

use std::io::Write;

pub use check::{describe_case, Mismatch};
pub use native::TestNative;

/// Re-exported so that [`conformance_suite!`] works in crates without a proptest
/// dependency of their own.
pub use proptest;

/// The environment variable that turns "backend unavailable" from a skip into a test
/// failure (set on GPU machines so that a missing device fails loudly).
pub const REQUIRE_ENV: &str = "RAGGED_REQUIRE_CUDA";

/// Whether [`REQUIRE_ENV`] asks for the backend to be required (`1` or `true`).
pub fn backend_required() -> bool {
    std::env::var(REQUIRE_ENV)
        .map(|v| matches!(v.trim(), "1" | "true"))
        .unwrap_or(false)
}

/// The backend of a conformance test, or `None` when it is unavailable and the test
/// should be skipped.
///
/// On `Err(reason)`, writes `skipped: <reason> (test <test>)` straight to the process's
/// stderr (bypassing the test harness's capture, so a skip is visible in a normal
/// `cargo test` run) and returns `None` — unless `RAGGED_REQUIRE_CUDA=1`.
///
/// # Panics
/// When the backend is unavailable and `RAGGED_REQUIRE_CUDA=1` is set.
///
/// ```
/// let backend = ragged_testkit::backend_or_skip("demo", Ok::<_, String>(42));
/// assert_eq!(backend, Some(42));
/// ```
pub fn backend_or_skip<B>(test: &str, made: Result<B, String>) -> Option<B> {
    backend_or_skip_with(test, made, backend_required())
}

/// [`backend_or_skip`] with the "required" decision passed in (for testing the
/// decision without touching the environment).
///
/// # Panics
/// When the backend is unavailable and `required` is true.
pub fn backend_or_skip_with<B>(test: &str, made: Result<B, String>, required: bool) -> Option<B> {
    match made {
        Ok(backend) => Some(backend),
        Err(reason) if required => {
            panic!("{test}: backend unavailable and {REQUIRE_ENV}=1: {reason}")
        }
        Err(reason) => {
            // A failed write to stderr cannot be reported anywhere better.
            let _ = writeln!(std::io::stderr(), "skipped: {reason} (test {test})");
            None
        }
    }
}

/// Run one suite body with the backend made by `made`, or skip (see
/// [`backend_or_skip`]). Used by [`conformance_suite!`].
///
/// # Panics
/// As [`backend_or_skip`], and when `body` panics (a failed check).
pub fn run_suite_test<B>(test: &str, made: Result<B, String>, body: impl FnOnce(&B)) {
    if let Some(backend) = backend_or_skip(test, made) {
        body(&backend);
    }
}

/// Expands to the conformance suite of the text (lines) family, for a backend that
/// implements `ragged_core::TextOps` (every `Backend`; a separate macro so each
/// backend's text tests form one test binary). `$make` is as for
/// [`conformance_suite!`]; one line plugs a backend in:
///
/// ```text
/// ragged_testkit::text_conformance_suite!(Ok::<_, String>(ragged_cpu::CpuBackend::new()));
/// ```
///
/// Tests: `lines_edge_cases`, `lines_tile_sizes`, `lines_delimiters_across_tiles`,
/// `lines_byte_ranges`, `lines_invalid_utf8`, `lines_wide_offsets`,
/// `lines_overlapping_delimiters`, `lines_random_text` and the properties
/// `prop_lines` (every op against the oracle) and `prop_lines_split_points` (ranges
/// split at every position reproduce the whole).
#[macro_export]
macro_rules! text_conformance_suite {
    (#[$attr:meta] $make:expr) => {
        $crate::conformance_suite!(@tests #[$attr] $make;
            lines_edge_cases => |b| $crate::conformance::text::edge_cases(b);
            lines_tile_sizes => |b| $crate::conformance::text::tile_sizes(b);
            lines_delimiters_across_tiles => |b| $crate::conformance::text::delimiters_across_tiles(b);
            lines_byte_ranges => |b| $crate::conformance::text::byte_ranges(b);
            lines_invalid_utf8 => |b| $crate::conformance::text::invalid_utf8(b);
            lines_wide_offsets => |b| $crate::conformance::text::wide_offsets(b);
            lines_overlapping_delimiters => |b| $crate::conformance::text::overlapping_delimiters(b);
            lines_random_text => |b| $crate::conformance::text::random_text(b);
        );
        $crate::conformance_suite!(@props #[$attr] $make;
            prop_lines => case in $crate::strategy::text_case()
                => |b| $crate::conformance::text::check_lines(b, &case);
            prop_lines_split_points => case in $crate::strategy::text_case()
                => |b| $crate::conformance::text::check_split_points(b, &case);
        );
    };

    // Without an attribute: plain tests (`cfg(all())` is always true). After the
    // attribute arm, which must see a leading `#` first.
    ($make:expr) => {
        $crate::text_conformance_suite!(#[cfg(all())] $make);
    };
}

/// Expands to the conformance suite of the strings family's searches
/// (`ragged_core::StringOps`), for any `Backend` (a separate macro so each backend's
/// strings tests form one test binary). `$make` is as for [`conformance_suite!`]. One
/// line plugs a backend in:
///
/// ```text
/// ragged_testkit::strings_conformance_suite!(Ok::<_, String>(ragged_cpu::CpuBackend::new()));
/// ```
#[macro_export]
macro_rules! strings_conformance_suite {
    (#[$attr:meta] $make:expr) => {
        $crate::conformance_suite!(@tests #[$attr] $make;
            strings_search_scalar_utf8 => |b| $crate::conformance::strings::search_scalar::<_, i32>(b);
            strings_search_scalar_large_utf8 => |b| $crate::conformance::strings::search_scalar::<_, i64>(b);
            strings_search_per_row_utf8 => |b| $crate::conformance::strings::search_per_row::<_, i32>(b);
            strings_search_per_row_large_utf8 => |b| $crate::conformance::strings::search_per_row::<_, i64>(b);
            strings_search_overlaps => |b| $crate::conformance::strings::search_overlaps(b);
            strings_search_pattern_lengths => |b| $crate::conformance::strings::search_pattern_lengths(b);
            strings_search_short_rows => |b| $crate::conformance::strings::search_short_rows(b);
            strings_search_errors => |b| $crate::conformance::strings::search_errors(b);
            strings_slice_utf8 => |b| $crate::conformance::strings::slice::<_, i32>(b);
            strings_slice_large_utf8 => |b| $crate::conformance::strings::slice::<_, i64>(b);
            strings_slice_errors => |b| $crate::conformance::strings::slice_errors(b);
            strings_like_utf8 => |b| $crate::conformance::strings::like::<_, i32>(b);
            strings_like_large_utf8 => |b| $crate::conformance::strings::like::<_, i64>(b);
            strings_like_errors => |b| $crate::conformance::strings::like_errors(b);
            strings_copy_if_else_utf8 => |b| $crate::conformance::strings_transform::copy_if_else::<_, i32>(b);
            strings_copy_if_else_large_utf8 => |b| $crate::conformance::strings_transform::copy_if_else::<_, i64>(b);
            strings_concatenate_utf8 => |b| $crate::conformance::strings_transform::concatenate::<_, i32>(b);
            strings_concatenate_large_utf8 => |b| $crate::conformance::strings_transform::concatenate::<_, i64>(b);
            strings_split_utf8 => |b| $crate::conformance::strings_transform::split::<_, i32>(b);
            strings_split_large_utf8 => |b| $crate::conformance::strings_transform::split::<_, i64>(b);
            strings_split_record_utf8 => |b| $crate::conformance::strings_transform::split_record::<_, i32>(b);
            strings_split_record_large_utf8 => |b| $crate::conformance::strings_transform::split_record::<_, i64>(b);
            strings_redact_utf8 => |b| $crate::conformance::strings_transform::redact::<_, i32>(b);
            strings_redact_large_utf8 => |b| $crate::conformance::strings_transform::redact::<_, i64>(b);
            strings_transform_errors => |b| $crate::conformance::strings_transform::transform_errors(b);
            strings_modify_utf8 => |b| $crate::conformance::strings_transform::modify::<_, i32>(b);
            strings_modify_large_utf8 => |b| $crate::conformance::strings_transform::modify::<_, i64>(b);
            strings_case_map_layouts_utf8 => |b| $crate::conformance::strings_transform::case_map_layouts::<_, i32>(b);
            strings_case_map_layouts_large_utf8 => |b| $crate::conformance::strings_transform::case_map_layouts::<_, i64>(b);
            strings_join_append_utf8 => |b| $crate::conformance::strings_transform::join_append::<_, i32>(b);
            strings_join_append_large_utf8 => |b| $crate::conformance::strings_transform::join_append::<_, i64>(b);
            strings_modify_errors => |b| $crate::conformance::strings_transform::modify_errors(b);
        );
    };

    // Without an attribute: plain tests (`cfg(all())` is always true). After the
    // attribute arm, which must see a leading `#` first.
    ($make:expr) => {
        $crate::strings_conformance_suite!(#[cfg(all())] $make);
    };
}

/// Expands to the conformance suite of the sequences family
/// (`ragged_core::SequenceOps`), for any `Backend` (a separate macro so each backend's
/// sequence tests form one test binary). `$make` is as for [`conformance_suite!`]:
///
/// ```text
/// ragged_testkit::sequences_conformance_suite!(Ok::<_, String>(ragged_cpu::CpuBackend::new()));
/// ```
///
/// Tests: `sketch_properties`, `sketch_random`, `sketch_long`, `sketch_errors` and
/// `sketch_distances` (see [`conformance::sequences`]).
#[macro_export]
macro_rules! sequences_conformance_suite {
    (#[$attr:meta] $make:expr) => {
        $crate::conformance_suite!(@tests #[$attr] $make;
            sketch_properties => |b| $crate::conformance::sequences::sketch_properties(b);
            sketch_random => |b| $crate::conformance::sequences::sketch_random(b);
            sketch_long => |b| $crate::conformance::sequences::sketch_long(b);
            sketch_errors => |b| $crate::conformance::sequences::sketch_errors(b);
            sketch_distances => |b| $crate::conformance::sequences::distances(b);
        );
    };

    // Without an attribute: plain tests (`cfg(all())` is always true). After the
    // attribute arm, which must see a leading `#` first.
    ($make:expr) => {
        $crate::sequences_conformance_suite!(#[cfg(all())] $make);
    };
}

/// Expands to the conformance suite of the lists family (`ragged_core::ListOps`), for
/// any `Backend` (a separate macro so each backend's list tests form one test
/// binary). `$make` is as for [`conformance_suite!`]: a `Result<B, String>`, where
/// `Err(reason)` skips each test with `skipped: <reason>` (or fails it when
/// `RAGGED_REQUIRE_CUDA=1`). One line plugs a backend in:
///
/// ```text
/// ragged_testkit::lists_conformance_suite!(Ok::<_, String>(ragged_cpu::CpuBackend::new()));
/// ```
///
/// Tests (each at both offset widths, `_list` for i32 and `_large_list` for i64; see
/// [`conformance::lists`]): `lists_compact_offsets_*`, `lists_to_compact_*`,
/// `lists_sliced_views_*`, `lists_flatten_*`, `lists_unflatten_*`,
/// `lists_local_index_*`, `lists_get_*`, `lists_slice_*`, `lists_reductions_*`,
/// `lists_any_all_count_*`, `lists_overflow_*`, `lists_child_type_errors_*`, and
/// `lists_offsets_overflow` (offsets beyond `i32::MAX`).
#[macro_export]
macro_rules! lists_conformance_suite {
    (#[$attr:meta] $make:expr) => {
        $crate::conformance_suite!(@tests #[$attr] $make;
            lists_compact_offsets_list => |b| $crate::conformance::lists::compact_offsets::<_, i32>(b);
            lists_compact_offsets_large_list => |b| $crate::conformance::lists::compact_offsets::<_, i64>(b);
            lists_offsets_overflow => |b| $crate::conformance::lists::offsets_overflow(b);
            lists_to_compact_list => |b| $crate::conformance::lists::to_compact::<_, i32>(b);
            lists_to_compact_large_list => |b| $crate::conformance::lists::to_compact::<_, i64>(b);
            lists_sliced_views_list => |b| $crate::conformance::lists::sliced_views::<_, i32>(b);
            lists_sliced_views_large_list => |b| $crate::conformance::lists::sliced_views::<_, i64>(b);
            lists_flatten_list => |b| $crate::conformance::lists::flatten::<_, i32>(b);
            lists_flatten_large_list => |b| $crate::conformance::lists::flatten::<_, i64>(b);
            lists_unflatten_list => |b| $crate::conformance::lists::unflatten::<_, i32>(b);
            lists_unflatten_large_list => |b| $crate::conformance::lists::unflatten::<_, i64>(b);
            lists_local_index_list => |b| $crate::conformance::lists::local_index::<_, i32>(b);
            lists_local_index_large_list => |b| $crate::conformance::lists::local_index::<_, i64>(b);
            lists_get_list => |b| $crate::conformance::lists::get::<_, i32>(b);
            lists_get_large_list => |b| $crate::conformance::lists::get::<_, i64>(b);
            lists_slice_list => |b| $crate::conformance::lists::slice::<_, i32>(b);
            lists_slice_large_list => |b| $crate::conformance::lists::slice::<_, i64>(b);
            lists_reductions_list => |b| $crate::conformance::lists::reductions::<_, i32>(b);
            lists_reductions_large_list => |b| $crate::conformance::lists::reductions::<_, i64>(b);
            lists_any_all_count_list => |b| $crate::conformance::lists::any_all_count::<_, i32>(b);
            lists_any_all_count_large_list => |b| $crate::conformance::lists::any_all_count::<_, i64>(b);
            lists_overflow_list => |b| $crate::conformance::lists::overflow::<_, i32>(b);
            lists_overflow_large_list => |b| $crate::conformance::lists::overflow::<_, i64>(b);
            lists_child_type_errors_list => |b| $crate::conformance::lists::child_type_errors::<_, i32>(b);
            lists_child_type_errors_large_list => |b| $crate::conformance::lists::child_type_errors::<_, i64>(b);
        );
    };

    // Without an attribute: plain tests (`cfg(all())` is always true). After the
    // attribute arm, which must see a leading `#` first.
    ($make:expr) => {
        $crate::lists_conformance_suite!(#[cfg(all())] $make);
    };
}

/// Expands to the conformance suite: one `#[test]` per property, each comparing the
/// backend against the testkit's oracles.
///
/// `$make` is an expression of type `Result<B, String>` where `B: ragged_core::Backend`;
/// it is evaluated once per test. `Err(reason)` skips the test with `skipped: <reason>`
/// on stderr, or fails it when `RAGGED_REQUIRE_CUDA=1` ([`backend_or_skip`]).
///
/// Tests: `length_*`, `length_bytes_*`, `counts_*` (both offset widths), `reduce_sum_*`
/// (all ten element types), `reduce_sum_overflow_{i64,u64}`,
/// `reduce_sum_wide_accumulator`, `validate_offsets_{i32,i64}`, `nulls_preserved`,
/// `sliced_inputs`; for the rest of the primitives family one module per op with one
/// test per element type (`reduce_min::f32`, `scan_sum::i64`, `segmented_argmax::u8`,
/// …: `reduce_sum_f64`, `reduce_{min,max,argmin,argmax}`, `count_valid`, `count_if`,
/// `scan_{sum,min,max,sum_f64,count_if}`, `select_{mask,if}`,
/// `segmented_{sum,min,max,argmin,argmax,count}`), plus `primitives_sliced_inputs`,
/// `reduce_any_all`, `sizes_to_offsets`, `scan_sum_overflow_{i64,u64}`,
/// `segmented_sum_overflow_{i64,u64}`, `segmented_invalid_offsets_{i32,i64}` and the
/// `huge_*` tests on 2^24 + 3 rows; and `prop_*` properties (64 proptest cases each,
/// more with `PROPTEST_CASES`).
///
/// ```text
/// ragged_testkit::conformance_suite!(Ok::<_, String>(ragged_cpu::CpuBackend::new()));
/// ```
#[macro_export]
macro_rules! conformance_suite {
    (#[$attr:meta] $make:expr) => {
        $crate::conformance_suite!(@tests #[$attr] $make;
            length_utf8 => |b| $crate::conformance::length::<_, i32>(b);
            length_large_utf8 => |b| $crate::conformance::length::<_, i64>(b);
            length_bytes_utf8 => |b| $crate::conformance::length_bytes::<_, i32>(b);
            length_bytes_large_utf8 => |b| $crate::conformance::length_bytes::<_, i64>(b);
            counts_list => |b| $crate::conformance::counts::<_, i32>(b);
            counts_large_list => |b| $crate::conformance::counts::<_, i64>(b);
            reduce_sum_i8 => |b| $crate::conformance::reduce_sum::<_, i8>(b);
            reduce_sum_i16 => |b| $crate::conformance::reduce_sum::<_, i16>(b);
            reduce_sum_i32 => |b| $crate::conformance::reduce_sum::<_, i32>(b);
            reduce_sum_i64 => |b| $crate::conformance::reduce_sum::<_, i64>(b);
            reduce_sum_u8 => |b| $crate::conformance::reduce_sum::<_, u8>(b);
            reduce_sum_u16 => |b| $crate::conformance::reduce_sum::<_, u16>(b);
            reduce_sum_u32 => |b| $crate::conformance::reduce_sum::<_, u32>(b);
            reduce_sum_u64 => |b| $crate::conformance::reduce_sum::<_, u64>(b);
            reduce_sum_f32 => |b| $crate::conformance::reduce_sum::<_, f32>(b);
            reduce_sum_f64 => |b| $crate::conformance::reduce_sum::<_, f64>(b);
            reduce_sum_overflow_i64 => |b| $crate::conformance::reduce_sum_overflow::<_, i64>(b);
            reduce_sum_overflow_u64 => |b| $crate::conformance::reduce_sum_overflow::<_, u64>(b);
            reduce_sum_wide_accumulator => |b| $crate::conformance::reduce_sum_wide_accumulator(b);
            validate_offsets_i32 => |b| $crate::conformance::validate_offsets::<_, i32>(b);
            validate_offsets_i64 => |b| $crate::conformance::validate_offsets::<_, i64>(b);
            nulls_preserved => |b| $crate::conformance::nulls_preserved(b);
            sliced_inputs => |b| $crate::conformance::sliced_inputs(b);
            primitives_sliced_inputs => |b| $crate::conformance::primitives::primitives_sliced_inputs(b);
            reduce_any_all => |b| $crate::conformance::primitives::reduce_any_all(b);
            sizes_to_offsets => |b| $crate::conformance::primitives::sizes_to_offsets(b);
            scan_sum_overflow_i64 => |b| $crate::conformance::primitives::scan_sum_overflow::<_, i64>(b);
            scan_sum_overflow_u64 => |b| $crate::conformance::primitives::scan_sum_overflow::<_, u64>(b);
            segmented_sum_overflow_i64 => |b| $crate::conformance::primitives::segmented_sum_overflow::<_, i64>(b);
            segmented_sum_overflow_u64 => |b| $crate::conformance::primitives::segmented_sum_overflow::<_, u64>(b);
            segmented_invalid_offsets_i32 => |b| $crate::conformance::primitives::segmented_invalid_offsets::<_, i32>(b);
            segmented_invalid_offsets_i64 => |b| $crate::conformance::primitives::segmented_invalid_offsets::<_, i64>(b);
            huge_reduce_sum_i32 => |b| $crate::conformance::primitives::huge_reduce_sum_i32(b);
            huge_scan_sum_i32 => |b| $crate::conformance::primitives::huge_scan_sum_i32(b);
            huge_select_if_f32 => |b| $crate::conformance::primitives::huge_select_if_f32(b);
            huge_segmented_sum_i32 => |b| $crate::conformance::primitives::huge_segmented_sum_i32(b);
            huge_sizes_to_offsets => |b| $crate::conformance::primitives::huge_sizes_to_offsets(b);
        );
        // One module per primitives op, one test per element type: `scan_sum::i32`.
        $crate::conformance_suite!(@typed #[$attr] $make;
            reduce_sum_f64 reduce_min reduce_max reduce_argmin reduce_argmax count_valid count_if
            scan_sum scan_min scan_max scan_sum_f64 scan_count_if select_mask select_if
            segmented_sum segmented_min segmented_max segmented_argmin segmented_argmax
            segmented_count
        );
        $crate::conformance_suite!(@props #[$attr] $make;
            prop_length_utf8 => case in $crate::strategy::string_case::<i32>()
                => |b| $crate::conformance::check_length(b, &case);
            prop_length_large_utf8 => case in $crate::strategy::string_case::<i64>()
                => |b| $crate::conformance::check_length(b, &case);
            prop_length_bytes_utf8 => case in $crate::strategy::string_case::<i32>()
                => |b| $crate::conformance::check_length_bytes(b, &case);
            prop_length_bytes_large_utf8 => case in $crate::strategy::string_case::<i64>()
                => |b| $crate::conformance::check_length_bytes(b, &case);
            prop_counts_list => case in $crate::strategy::list_case::<i32, i32>()
                => |b| $crate::conformance::check_counts(b, &case);
            prop_counts_large_list => case in $crate::strategy::list_case::<i64, f64>()
                => |b| $crate::conformance::check_counts(b, &case);
            prop_reduce_sum_i8 => case in $crate::strategy::primitive_case::<i8>()
                => |b| $crate::conformance::check_reduce_sum(b, &case);
            prop_reduce_sum_i16 => case in $crate::strategy::primitive_case::<i16>()
                => |b| $crate::conformance::check_reduce_sum(b, &case);
            prop_reduce_sum_i32 => case in $crate::strategy::primitive_case::<i32>()
                => |b| $crate::conformance::check_reduce_sum(b, &case);
            prop_reduce_sum_i64 => case in $crate::strategy::primitive_case::<i64>()
                => |b| $crate::conformance::check_reduce_sum(b, &case);
            prop_reduce_sum_u8 => case in $crate::strategy::primitive_case::<u8>()
                => |b| $crate::conformance::check_reduce_sum(b, &case);
            prop_reduce_sum_u16 => case in $crate::strategy::primitive_case::<u16>()
                => |b| $crate::conformance::check_reduce_sum(b, &case);
            prop_reduce_sum_u32 => case in $crate::strategy::primitive_case::<u32>()
                => |b| $crate::conformance::check_reduce_sum(b, &case);
            prop_reduce_sum_u64 => case in $crate::strategy::primitive_case::<u64>()
                => |b| $crate::conformance::check_reduce_sum(b, &case);
            prop_reduce_sum_f32 => case in $crate::strategy::primitive_case::<f32>()
                => |b| $crate::conformance::check_reduce_sum(b, &case);
            prop_reduce_sum_f64 => case in $crate::strategy::primitive_case::<f64>()
                => |b| $crate::conformance::check_reduce_sum(b, &case);
            prop_reduce_sum_overflow_i64 => case in $crate::strategy::full_range_i64_case()
                => |b| $crate::conformance::check_reduce_sum(b, &case);
            prop_reduce_sum_overflow_u64 => case in $crate::strategy::full_range_u64_case()
                => |b| $crate::conformance::check_reduce_sum(b, &case);
            prop_validate_offsets_i32 => case in $crate::strategy::offsets_case()
                => |b| $crate::conformance::check_validate_offsets::<_, i32>(b, &case);
            prop_validate_offsets_i64 => case in $crate::strategy::offsets_case()
                => |b| $crate::conformance::check_validate_offsets::<_, i64>(b, &case);
            prop_reductions_i8 => case in $crate::strategy::special_primitive_case::<i8>()
                => |b| $crate::conformance::primitives::check_reductions(b, &case);
            prop_reductions_u64 => case in $crate::strategy::special_primitive_case::<u64>()
                => |b| $crate::conformance::primitives::check_reductions(b, &case);
            prop_reductions_f32 => case in $crate::strategy::special_primitive_case::<f32>()
                => |b| $crate::conformance::primitives::check_reductions(b, &case);
            prop_reductions_f64 => case in $crate::strategy::special_primitive_case::<f64>()
                => |b| $crate::conformance::primitives::check_reductions(b, &case);
            prop_reduce_any_all => case in $crate::strategy::boolean_entries()
                => |b| $crate::conformance::primitives::check_any_all_entries(b, &case);
            prop_scans_i16 => case in $crate::strategy::special_primitive_case::<i16>()
                => |b| $crate::conformance::primitives::check_scans(b, &case);
            prop_scans_u32 => case in $crate::strategy::special_primitive_case::<u32>()
                => |b| $crate::conformance::primitives::check_scans(b, &case);
            prop_scans_f32 => case in $crate::strategy::special_primitive_case::<f32>()
                => |b| $crate::conformance::primitives::check_scans(b, &case);
            prop_scans_f64 => case in $crate::strategy::special_primitive_case::<f64>()
                => |b| $crate::conformance::primitives::check_scans(b, &case);
            prop_scan_sum_overflow_i64 => case in $crate::strategy::full_range_i64_case()
                => |b| $crate::conformance::primitives::check_scan_sums(b, &case);
            prop_scan_sum_overflow_u64 => case in $crate::strategy::full_range_u64_case()
                => |b| $crate::conformance::primitives::check_scan_sums(b, &case);
            prop_predicates_i32 => case in $crate::strategy::predicate_case::<i32>()
                => |b| $crate::conformance::primitives::check_predicate_ops(b, &case.0, case.1);
            prop_predicates_u8 => case in $crate::strategy::predicate_case::<u8>()
                => |b| $crate::conformance::primitives::check_predicate_ops(b, &case.0, case.1);
            prop_predicates_f32 => case in $crate::strategy::predicate_case::<f32>()
                => |b| $crate::conformance::primitives::check_predicate_ops(b, &case.0, case.1);
            prop_predicates_f64 => case in $crate::strategy::predicate_case::<f64>()
                => |b| $crate::conformance::primitives::check_predicate_ops(b, &case.0, case.1);
            prop_select_mask_i64 => case in $crate::strategy::mask_case::<i64>()
                => |b| $crate::conformance::primitives::check_select_masks(b, &case.0, &case.1);
            prop_select_mask_f32 => case in $crate::strategy::mask_case::<f32>()
                => |b| $crate::conformance::primitives::check_select_masks(b, &case.0, &case.1);
            prop_sizes_to_offsets => case in $crate::strategy::sizes_case()
                => |b| $crate::conformance::primitives::check_sizes_all(b, &case);
            prop_segmented_i32 => case in $crate::strategy::segments_case::<i32>()
                => |b| $crate::conformance::primitives::check_segmented_all::<_, _, i32>(b, &case);
            prop_segmented_u16 => case in $crate::strategy::segments_case::<u16>()
                => |b| $crate::conformance::primitives::check_segmented_all::<_, _, i64>(b, &case);
            prop_segmented_i64 => case in $crate::strategy::segments_case::<i64>()
                => |b| $crate::conformance::primitives::check_segmented_all::<_, _, i32>(b, &case);
            prop_segmented_f32 => case in $crate::strategy::segments_case::<f32>()
                => |b| $crate::conformance::primitives::check_segmented_all::<_, _, i64>(b, &case);
            prop_segmented_f64 => case in $crate::strategy::segments_case::<f64>()
                => |b| $crate::conformance::primitives::check_segmented_all::<_, _, i32>(b, &case);
        );
    };

    // A module per op of `conformance::primitives`, with a test per element type.
    (@typed #[$attr:meta] $make:expr; $($op:ident)*) => {
        $(
            mod $op {
                #[allow(unused_imports)]
                use super::*;
                $crate::conformance_suite!(@typed_op #[$attr] $make; $op; i8 i16 i32 i64 u8 u16 u32 u64 f32 f64);
            }
        )*
    };
    (@typed_op #[$attr:meta] $make:expr; $op:ident; $($t:ident)*) => {
        $(
            #[test]
            #[$attr]
            fn $t() {
                $crate::run_suite_test(
                    concat!(stringify!($op), "::", stringify!($t)),
                    $make,
                    |b| $crate::conformance::primitives::$op::<_, $t>(b),
                );
            }
        )*
    };

    // One plain test per suite body.
    (@tests #[$attr:meta] $make:expr; $($name:ident => |$b:ident| $body:expr;)*) => {
        $(
            #[test]
            #[$attr]
            fn $name() {
                $crate::run_suite_test(stringify!($name), $make, |$b| $body);
            }
        )*
    };

    // One property per check: the backend is made once per test, then proptest runs
    // the check on each generated case and shrinks a failure to a minimal one.
    (@props #[$attr:meta] $make:expr; $($name:ident => $case:ident in $strategy:expr => |$b:ident| $check:expr;)*) => {
        $(
            #[test]
            #[$attr]
            fn $name() {
                let Some(backend) = $crate::backend_or_skip(stringify!($name), $make) else {
                    return;
                };
                let $b = &backend;
                $crate::proptest::proptest!(
                    $crate::conformance::proptest_config(),
                    |($case in $strategy)| {
                        $check?;
                    }
                );
            }
        )*
    };

    // Without an attribute: plain tests (`cfg(all())` is always true). After the
    // attribute arm, which must see a leading `#` first.
    ($make:expr) => {
        $crate::conformance_suite!(#[cfg(all())] $make);
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_available_backend_is_used() {
        assert_eq!(
            backend_or_skip_with("t", Ok::<_, String>(1), false),
            Some(1)
        );
        assert_eq!(backend_or_skip_with("t", Ok::<_, String>(1), true), Some(1));
    }

    #[test]
    fn an_unavailable_backend_is_skipped() {
        assert_eq!(
            backend_or_skip_with::<u8>("t", Err("no GPU".into()), false),
            None
        );
        let mut ran = false;
        if !backend_required() {
            run_suite_test::<u8>("t", Err("no GPU".into()), |_| ran = true);
        }
        assert!(!ran);
    }

    #[test]
    #[should_panic(expected = "t: backend unavailable and RAGGED_REQUIRE_CUDA=1: no GPU")]
    fn an_unavailable_backend_fails_when_required() {
        let _ = backend_or_skip_with::<u8>("t", Err("no GPU".into()), true);
    }
}
