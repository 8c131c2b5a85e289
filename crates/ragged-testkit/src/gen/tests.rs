//! The generators produce what they claim.

use ragged_core::{Column, OffsetSize};

use super::*;
use crate::native::TestNative;
use crate::oracle::{self, SumOracle};
use crate::rng::Rng;

/// The column holds exactly the case's rows.
fn assert_string_case<O: OffsetSize>(case: &StringCase<O>) {
    let col = &case.column;
    assert_eq!(col.len(), case.rows.len(), "{}", case.label);
    for (i, want) in case.rows.iter().enumerate() {
        assert_eq!(col.get(i), want.as_deref(), "{} row {i}", case.label);
    }
}

#[test]
fn string_cases_hold_their_rows_and_cover_every_count() {
    for case in string_cases::<i32>() {
        assert_string_case(&case);
    }
    let labels: Vec<String> = string_cases::<i64>()
        .into_iter()
        .map(|c| {
            assert_string_case(&c);
            c.label
        })
        .collect();
    for n in row_counts() {
        assert!(labels.contains(&format!("large_utf8/mixed/rows={n}")));
        assert!(labels.contains(&format!("large_utf8/sliced/rows={n}")));
    }
}

#[test]
fn shards_parse_and_split_the_cases() {
    assert_eq!(parse_shard("0/1"), Some((0, 1)));
    assert_eq!(parse_shard(" 3 / 8 "), Some((3, 8)));
    for bad in ["", "1", "2/2", "5/3", "0/0", "-1/4", "a/4", "1/4/2"] {
        assert_eq!(parse_shard(bad), None, "{bad:?}");
    }
    // Unset in the suite's own runs: every case is in the one shard.
    if std::env::var(SHARD_ENV).is_err() {
        assert_eq!(shard(), (0, 1));
        assert_eq!(
            in_shard((0..10).collect::<Vec<i32>>()),
            (0..10).collect::<Vec<_>>()
        );
    }
}

#[test]
fn string_kinds_have_their_shape() {
    let width = |kind| {
        string_case::<i32>(kind, 257)
            .rows
            .iter()
            .flatten()
            .flat_map(|s| s.chars().map(char::len_utf8).collect::<Vec<_>>())
            .collect::<std::collections::BTreeSet<_>>()
    };
    assert_eq!(width(StringKind::Ascii), [1].into());
    assert_eq!(width(StringKind::TwoByte), [2].into());
    assert_eq!(width(StringKind::ThreeByte), [3].into());
    assert_eq!(width(StringKind::FourByte), [4].into());
    assert_eq!(width(StringKind::Mixed), [1, 2, 3, 4].into());
    assert_eq!(width(StringKind::BoundaryChars), [1, 2, 3, 4].into());

    let mixed = string_case::<i32>(StringKind::Mixed, 1025);
    assert!(mixed.rows.iter().any(Option::is_none));
    assert!(mixed.rows.iter().any(|r| r.as_deref() == Some("")));

    let all_null = string_case::<i32>(StringKind::AllNull, 33);
    assert_eq!(all_null.column.null_count(), 33);
    let all_empty = string_case::<i32>(StringKind::AllEmpty, 33);
    assert_eq!(
        (
            all_empty.column.null_count(),
            all_empty.column.total_bytes()
        ),
        (0, 0)
    );

    let long = string_case::<i32>(StringKind::LongRow, 257);
    let lengths = oracle::length(&long.rows);
    assert_eq!(lengths.iter().flatten().max(), Some(&100_000));

    let explicit = string_case::<i32>(StringKind::AllValidBitmap, 33);
    assert!(explicit.column.validity().is_some());
    assert_eq!(explicit.column.null_count(), 0);

    // Null rows with bytes, in the unsliced and the sliced kinds.
    for kind in [StringKind::NullBytes, StringKind::Sliced] {
        let case = string_case::<i64>(kind, 257);
        let c = &case.column;
        assert!(
            (0..c.len()).any(|i| !c.is_valid(i) && !c.row_bytes(i).is_empty()),
            "{}",
            case.label
        );
    }
    // Sliced: offsets[0] != 0 at every count, even 0 rows.
    for n in [0, 1, 33] {
        let sliced = string_case::<i32>(StringKind::Sliced, n);
        let offsets: &[i32] = sliced.column.offsets();
        assert_ne!(offsets[0], 0);
    }
}

fn assert_list_case<O: OffsetSize, T: TestNative>(case: &ListCase<O, T>) {
    let col = &case.column;
    assert_eq!(col.len(), case.rows.len(), "{}", case.label);
    let child: Vec<Option<f64>> = match col.child() {
        Column::Int32(c) => c
            .to_options()
            .into_iter()
            .map(|v| v.map(f64::from))
            .collect(),
        Column::Float64(c) => c.to_options(),
        other => panic!("unexpected child {}", other.type_name()),
    };
    for (i, want) in case.rows.iter().enumerate() {
        assert_eq!(col.is_valid(i), want.is_some(), "{} list {i}", case.label);
        if let Some(want) = want {
            let want: Vec<Option<f64>> = want.iter().map(|v| v.map(T::to_f64)).collect();
            assert_eq!(child[col.range(i)], want[..], "{} list {i}", case.label);
        }
    }
}

#[test]
fn list_cases_hold_their_lists() {
    for case in list_cases::<i32, i32>() {
        assert_list_case(&case);
    }
    for kind in ListKind::ALL {
        for n in [0, 1, 33, 1025] {
            assert_list_case(&list_case::<i64, f64>(kind, n));
        }
    }
}

#[test]
fn list_kinds_have_their_shape() {
    let mixed = list_case::<i32, i32>(ListKind::Mixed, 1025);
    assert!(mixed.rows.iter().any(Option::is_none));
    assert!(mixed.rows.iter().flatten().any(Vec::is_empty));
    assert!(mixed.rows.iter().flatten().flatten().any(Option::is_none));

    let null_non_empty = list_case::<i32, i32>(ListKind::NullNonEmpty, 257);
    let c = &null_non_empty.column;
    assert!((0..c.len()).any(|i| !c.is_valid(i) && !c.range(i).is_empty()));

    for n in [0, 1, 33] {
        let sliced = list_case::<i64, i32>(ListKind::Sliced, n);
        let offsets: &[i64] = sliced.column.offsets();
        assert_ne!(offsets[0], 0);
    }
    let sliced_child = list_case::<i32, i32>(ListKind::SlicedChild, 33);
    let Column::Int32(child) = sliced_child.column.child() else {
        panic!("an i32 child");
    };
    // The child's values buffer is a slice of a longer one.
    let values: &[i32] = child.values();
    assert_eq!(values.len(), sliced_child.column.range(32).end);
}

#[test]
fn primitive_cases_hold_their_values_with_garbage_under_nulls() {
    fn check<T: TestNative>() {
        for case in primitive_cases::<T>() {
            let col = &case.column;
            assert_eq!(col.len(), case.values.len(), "{}", case.label);
            assert!(case.exact_sum);
            let values: &[T] = col.values();
            for (i, want) in case.values.iter().enumerate() {
                match want {
                    Some(v) => assert_eq!(col.get(i), Some(*v), "{} row {i}", case.label),
                    None => {
                        assert!(!col.is_valid(i), "{} row {i}", case.label);
                        let garbage = values[i];
                        assert!(
                            garbage == T::garbage() || garbage.to_f64().is_nan(),
                            "{} row {i}",
                            case.label
                        );
                    }
                }
            }
        }
    }
    check::<i8>();
    check::<i16>();
    check::<i32>();
    check::<i64>();
    check::<u8>();
    check::<u16>();
    check::<u32>();
    check::<u64>();
    check::<f32>();
    check::<f64>();
}

#[test]
fn overflow_cases_include_overflows_and_exact_limits() {
    fn count<T: TestNative>() -> (usize, usize)
    where
        T::Sum: TestNative,
    {
        let cases = sum_overflow_cases::<T>();
        let overflows = cases
            .iter()
            .filter(|c| oracle::reduce_sum(&c.values) == SumOracle::Int(None))
            .count();
        (overflows, cases.len() - overflows)
    }
    assert_eq!(count::<i64>(), (5, 7));
    assert_eq!(count::<u64>(), (3, 4));
}

#[test]
fn wide_accumulator_cases_exceed_their_type_but_fit_64_bits() {
    fn check<T: TestNative>()
    where
        T::Sum: TestNative,
    {
        for case in wide_accumulator_cases::<T>() {
            let SumOracle::Int(Some(sum)) = oracle::reduce_sum(&case.values) else {
                panic!("{}: fits the accumulator", case.label);
            };
            assert!(T::from_i128(sum).is_none(), "{}", case.label);
        }
    }
    check::<i8>();
    check::<u8>();
    check::<i32>();
    check::<u32>();
}

#[test]
fn float_random_values_sum_exactly_in_any_order() {
    let case = primitive_case::<f32>(PrimitiveKind::Nulls, LARGE_ROWS);
    let forward: f32 = case.values.iter().flatten().sum();
    let backward: f32 = case.values.iter().rev().flatten().sum();
    let SumOracle::Float { sum, .. } = oracle::reduce_sum(&case.values) else {
        panic!("a float sum");
    };
    assert_eq!(f64::from(forward), sum);
    assert_eq!(f64::from(backward), sum);
}

#[test]
fn offsets_cases_convert_to_both_widths() {
    let cases = offsets_cases();
    assert!(cases.iter().all(|c| c.buffer::<i64>().is_some()));
    let narrow_only = cases.iter().filter(|c| c.buffer::<i32>().is_none()).count();
    assert_eq!(narrow_only, 2, "the beyond-i32 cases");
}

#[test]
fn the_cache_shares_values_by_key_and_type() {
    let a = cached("test/key", || 5u32);
    let b = cached("test/key", || 6u32);
    let c = cached("test/key", || 7u64);
    assert_eq!((*a, *b, *c), (5, 5, 7));
}

#[test]
fn op_cases_cover_every_count_and_shape() {
    let cases = op_cases::<f32>();
    let labels: Vec<&str> = cases.iter().map(|c| c.label.as_str()).collect();
    for n in OP_ROW_COUNTS {
        for shape in [
            "nulls", "no-nulls", "all-null", "sliced", "ties", "nanmixed",
        ] {
            let label = format!("f32/{shape}/rows={n}");
            assert!(labels.contains(&label.as_str()), "{label}");
        }
    }
    for case in cases.iter() {
        assert_eq!(
            case.column.to_options().len(),
            case.values.len(),
            "{}",
            case.label
        );
        let got = case.column.to_options();
        let same = got
            .iter()
            .zip(&case.values)
            .all(|(g, w)| g.map(f32::to_bits) == w.map(f32::to_bits));
        assert!(same, "{}", case.label);
    }
    let mixed = cases
        .iter()
        .find(|c| c.label == "f32/nanmixed/rows=8193")
        .unwrap();
    let flat: Vec<f32> = mixed.values.iter().flatten().copied().collect();
    assert!(flat.iter().any(|v| v.is_nan()));
    assert!(flat.contains(&f32::INFINITY) && flat.contains(&f32::NEG_INFINITY));
    let ties = cases
        .iter()
        .find(|c| c.label == "f32/ties/rows=1025")
        .unwrap();
    let flat: Vec<f32> = ties.values.iter().flatten().copied().collect();
    assert!(flat.iter().any(|v| *v == 0.0 && v.is_sign_negative()));
    assert!(flat.iter().any(|v| *v == 0.0 && v.is_sign_positive()));
    // Integers have no NaN shape and no NaN cases.
    assert!(op_cases::<i8>().iter().all(|c| !c.label.contains("nan")));
    assert!(nan_cases::<u32>().is_empty());
}

#[test]
fn nan_cases_place_their_nans() {
    let cases = nan_cases::<f64>();
    let find = |label: &str| {
        cases
            .iter()
            .find(|c| c.label == format!("f64/{label}"))
            .unwrap()
            .values
            .clone()
    };
    assert!(find("nan-first")[0].unwrap().is_nan());
    assert!(find("nan-last").last().unwrap().unwrap().is_nan());
    assert!(find("all-nan").iter().all(|v| v.unwrap().is_nan()));
    let run = cases
        .iter()
        .find(|c| c.label == format!("f64/nan-run-at-65536/rows={MULTI_CHUNK_ROWS}"))
        .unwrap();
    assert!(run.values[65536].unwrap().is_nan() && !run.values[65537].unwrap().is_nan());
}

#[test]
fn segment_offsets_have_their_shape() {
    let mut rng = Rng::new(3);
    for shape in SegmentShape::ALL {
        for rows in [0usize, 1, 33, 20_497] {
            let offsets = segment_offsets(shape, rows, &mut rng);
            assert!(
                oracle::validate_offsets(&offsets, rows).is_ok(),
                "{shape:?} rows={rows}"
            );
            let (first, last) = (offsets[0], *offsets.last().unwrap());
            match shape {
                SegmentShape::Sliced if rows > 5 => {
                    assert_eq!((first, last), (3, rows as i64 - 2));
                }
                SegmentShape::AllEmpty => {
                    assert_eq!(offsets.len(), 38);
                    assert!(offsets.windows(2).all(|w| w[0] == w[1]));
                }
                SegmentShape::NoSegments => assert_eq!(offsets.len(), 1),
                SegmentShape::Sliced => {}
                _ => assert_eq!((first, last), (0, rows as i64)),
            }
        }
    }
    let huge = segment_offsets(SegmentShape::OneHuge, 20_000, &mut rng);
    let largest = huge.windows(2).map(|w| w[1] - w[0]).max().unwrap();
    assert_eq!(largest, 18_000);
    let average = segment_offsets(SegmentShape::Average10000, 1_000_000, &mut rng);
    let mean = 1_000_000 / (average.len() - 1);
    assert!((8_000..12_000).contains(&mean), "{mean}");
}

#[test]
fn segment_cases_are_valid_and_cover_both_offset_widths() {
    for case in segment_cases::<i16>().iter() {
        assert!(
            oracle::validate_offsets(&case.offsets, case.values.len()).is_ok(),
            "{}",
            case.label
        );
        assert!(case.buffer::<i32>().is_some() && case.buffer::<i64>().is_some());
        assert_eq!(case.column.to_options(), case.values, "{}", case.label);
    }
    let f = segment_cases::<f64>();
    assert!(f.iter().any(|c| c.label.contains("nan-mixed")));
    assert!(f.iter().any(|c| c.label.ends_with("all-nan/pairs")));
}

#[test]
fn sizes_cases_reach_the_i32_limits() {
    use ragged_core::ops::OffsetWidth;
    let cases = sizes_cases();
    let total = |label: &str| {
        let case = cases.iter().find(|c| c.label == label).unwrap();
        oracle::sizes_to_offsets(&case.values, OffsetWidth::I64)
            .unwrap()
            .total
    };
    let max = i64::from(i32::MAX);
    assert_eq!(total("sizes/exactly-i32-max"), max);
    assert_eq!(total("sizes/one-above-i32-max"), max + 1);
    assert_eq!(total("sizes/2^30x3"), 3 << 30);
    assert!(total("sizes/spread-above-i32-max") > max);
    assert_eq!(total("sizes/spread-exactly-i32-max"), max);
    // Null sizes hold negative garbage in the column, not in the values.
    let garbage = cases
        .iter()
        .find(|c| c.label == "sizes/negative-under-nulls")
        .unwrap();
    let raw: &[i32] = garbage.column.values();
    assert!(raw.iter().any(|&v| v < 0));
    assert!(garbage.values.iter().flatten().all(|&v| v >= 0));
}

#[test]
fn masks_hold_their_entries() {
    let mut rng = Rng::new(9);
    for shape in MaskShape::ALL {
        for rows in [0usize, 1, 33, 1025] {
            let (col, entries) = mask(shape, rows, &mut rng);
            assert_eq!(col.to_options(), entries, "{shape:?} rows={rows}");
        }
    }
    let (col, _) = mask(MaskShape::Sliced, 40, &mut rng);
    assert_eq!(col.values().inner().offset(), 5);
}
