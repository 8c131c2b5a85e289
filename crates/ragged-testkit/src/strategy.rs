//! proptest strategies for the same shapes as [`crate::gen`]: arbitrary rows with
//! nulls and multi-byte characters, arbitrary lists, arbitrary primitive vectors with
//! nulls, arbitrary slicing, arbitrary (mostly valid) offsets.
//!
//! Strategies generate *specs* (plain values) and build the host column in a final
//! `prop_map`, so shrinking works on rows, not on buffers.

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::Index;
use ragged_core::ops::Predicate;
use ragged_core::OffsetSize;

use crate::conformance::primitives::COMPARISONS;
use crate::gen::{
    ListCase, ListSpec, OffsetsCase, PrimitiveCase, PrimitiveSpec, SegmentsCase, StringCase,
    StringSpec,
};
use crate::native::TestNative;

/// Any character, weighted towards ASCII, with every UTF-8 width represented: 1-byte
/// (U+0000..U+007F), 2-byte, 3-byte (surrogates excluded) and 4-byte.
pub fn string_char() -> impl Strategy<Value = char> {
    prop_oneof![
        4 => proptest::char::range('\u{0}', '\u{7F}'),
        2 => proptest::char::range('\u{80}', '\u{7FF}'),
        2 => proptest::char::range('\u{800}', '\u{FFFF}'),
        2 => proptest::char::range('\u{10000}', '\u{10FFFF}'),
    ]
}

/// A row's text: usually short (0 to 15 characters), sometimes up to 299 characters.
pub fn string_text() -> impl Strategy<Value = String> {
    prop_oneof![
        9 => vec(string_char(), 0..16).prop_map(String::from_iter),
        1 => vec(string_char(), 0..300).prop_map(String::from_iter),
    ]
}

/// An arbitrary row: `None` (null) with probability 0.15, otherwise any text.
pub fn string_row() -> impl Strategy<Value = Option<String>> {
    proptest::option::weighted(0.85, string_text())
}

/// An optional slice `(start, len)` of `n` rows, from two indexes: `None` half of the
/// time.
pub fn slice_of(n: usize, choice: Option<(Index, Index)>) -> Option<(usize, usize)> {
    choice.map(|(a, b)| {
        let start = a.index(n + 1);
        let len = b.index(n - start + 1);
        (start, len)
    })
}

fn slice_choice() -> impl Strategy<Value = Option<(Index, Index)>> {
    proptest::option::of((any::<Index>(), any::<Index>()))
}

/// A strings spec: 0 to 119 rows (15 % null, null rows keep their bytes half of the
/// time), sometimes an explicit all-valid bitmap, sometimes sliced.
pub fn string_spec() -> impl Strategy<Value = StringSpec> {
    (
        vec(
            (string_text(), proptest::bool::weighted(0.85), any::<bool>()),
            0..120,
        ),
        proptest::bool::weighted(0.1),
        slice_choice(),
    )
        .prop_map(|(rows, explicit_validity, choice)| {
            let rows: Vec<(String, bool)> = rows
                .into_iter()
                .map(|(text, valid, keep_bytes)| {
                    let text = if valid || keep_bytes {
                        text
                    } else {
                        String::new()
                    };
                    (text, valid)
                })
                .collect();
            let slice = slice_of(rows.len(), choice);
            StringSpec {
                rows,
                slice,
                explicit_validity,
            }
        })
}

/// A strings case of offset width `O` from [`string_spec`].
pub fn string_case<O: OffsetSize>() -> impl Strategy<Value = StringCase<O>> {
    string_spec().prop_map(|spec| {
        StringCase::from_spec(format!("proptest/{}", StringCase::<O>::type_name()), &spec)
    })
}

/// A list spec with children of `T`: 0 to 149 lists of 0 to 7 elements (10 % null
/// elements, 15 % null lists that keep their elements), sometimes a sliced child,
/// sometimes an explicit all-valid bitmap, sometimes sliced.
pub fn list_spec<T: TestNative>() -> impl Strategy<Value = ListSpec<T>> {
    (
        vec(
            (
                vec(proptest::option::weighted(0.9, T::arbitrary_value()), 0..8),
                proptest::bool::weighted(0.85),
            ),
            0..150,
        ),
        vec(proptest::option::of(T::arbitrary_value()), 0..4),
        proptest::bool::weighted(0.1),
        slice_choice(),
    )
        .prop_map(|(lists, child_prefix, explicit_validity, choice)| {
            let slice = slice_of(lists.len(), choice);
            ListSpec {
                lists,
                slice,
                explicit_validity,
                child_prefix,
            }
        })
}

/// A list case of offset width `O` with children of `T`, from [`list_spec`].
pub fn list_case<O: OffsetSize, T: TestNative>() -> impl Strategy<Value = ListCase<O, T>> {
    list_spec::<T>().prop_map(|spec| {
        ListCase::from_spec(format!("proptest/{}", ListCase::<O, T>::type_name()), &spec)
    })
}

/// A primitive spec from a strategy of optional values, sometimes sliced, sometimes
/// with an explicit all-valid bitmap.
pub fn primitive_spec_from<T: TestNative>(
    values: impl Strategy<Value = Vec<Option<T>>>,
) -> impl Strategy<Value = PrimitiveSpec<T>> {
    (values, proptest::bool::weighted(0.1), slice_choice()).prop_map(
        |(values, explicit_validity, choice)| {
            let slice = slice_of(values.len(), choice);
            PrimitiveSpec {
                values,
                slice,
                explicit_validity,
            }
        },
    )
}

/// A primitive case of `T`: 0 to 299 values of [`TestNative::arbitrary_value`], 10 %
/// null. Float sums are compared within the rounding bound.
pub fn primitive_case<T: TestNative>() -> impl Strategy<Value = PrimitiveCase<T>> {
    primitive_spec_from(vec(
        proptest::option::weighted(0.9, T::arbitrary_value()),
        0..300,
    ))
    .prop_map(|spec| PrimitiveCase::from_spec(format!("proptest/{}", T::NAME), &spec, false))
}

/// `i64` values over the full range, biased towards the extremes: half of the cases
/// have values of one sign (sums that overflow), half mixed signs (partial sums that may
/// leave the range while the total fits, which is not an overflow).
pub fn full_range_i64_case() -> impl Strategy<Value = PrimitiveCase<i64>> {
    let magnitude = prop_oneof![
        0..=i64::MAX,
        0..1000i64,
        (i64::MAX - 1000)..=i64::MAX,
        (i64::MAX / 4)..=(i64::MAX / 2),
    ];
    let signed = (magnitude, any::<bool>());
    let values = (
        any::<bool>(),
        any::<bool>(),
        vec(proptest::option::weighted(0.9, signed), 0..40),
    )
        .prop_map(|(one_sign, negative, values)| {
            values
                .into_iter()
                .map(|v| {
                    v.map(|(x, own_sign)| {
                        let negative = if one_sign { negative } else { own_sign };
                        // -x - 1 maps 0..=MAX onto -1..=MIN.
                        if negative {
                            -x - 1
                        } else {
                            x
                        }
                    })
                })
                .collect::<Vec<_>>()
        });
    primitive_spec_from(values)
        .prop_map(|spec| PrimitiveCase::from_spec("proptest/i64-full-range", &spec, true))
}

/// `u64` values over the full range, biased towards the extremes.
pub fn full_range_u64_case() -> impl Strategy<Value = PrimitiveCase<u64>> {
    let value = prop_oneof![
        any::<u64>(),
        0..1000u64,
        (u64::MAX - 1000)..=u64::MAX,
        (u64::MAX / 4)..=(u64::MAX / 2),
    ];
    primitive_spec_from(vec(proptest::option::weighted(0.9, value), 0..40))
        .prop_map(|spec| PrimitiveCase::from_spec("proptest/u64-full-range", &spec, true))
}

/// Offsets that are mostly valid (a start of 0 to 3 and sizes of 0 to 4), checked
/// against a values length a little above or below their end, with one value
/// overwritten by an arbitrary (possibly negative or too large) one half of the time;
/// sometimes an empty buffer.
pub fn offsets_case() -> impl Strategy<Value = OffsetsCase> {
    let built = (
        0i64..4,
        vec(0i64..5, 0..64),
        -2i64..4,
        proptest::option::of((any::<Index>(), -3i64..300)),
    )
        .prop_map(|(start, sizes, slack, perturb)| {
            let mut offsets = Vec::with_capacity(sizes.len() + 1);
            let mut end = start;
            offsets.push(end);
            for s in sizes {
                end += s;
                offsets.push(end);
            }
            if let Some((at, value)) = perturb {
                let at = at.index(offsets.len());
                offsets[at] = value;
            }
            let values_len = (end + slack).max(0) as usize;
            OffsetsCase::new("proptest/offsets", offsets, values_len)
        });
    prop_oneof![
        1 => (0usize..3).prop_map(|len| OffsetsCase::new("proptest/empty-offsets", vec![], len)),
        30 => built,
    ]
}

/// A primitive case of `T` for the primitives family: 0 to 299 values mixing
/// [`TestNative::arbitrary_value`] and [`TestNative::special_value`] (NaN, `±inf`, `±0.0`
/// for floats; extremes and small values, hence ties, for integers), 10 % null,
/// sometimes sliced. Float sums are compared within the rounding bound.
pub fn special_primitive_case<T: TestNative>() -> impl Strategy<Value = PrimitiveCase<T>> {
    let value = prop_oneof![T::arbitrary_value(), T::special_value()];
    primitive_spec_from(vec(proptest::option::weighted(0.9, value), 0..300)).prop_map(|spec| {
        PrimitiveCase::from_spec(format!("proptest/{}/special", T::NAME), &spec, false)
    })
}

/// A predicate for a case's values: any comparison, against a special value or one of
/// the case's own values (so that `Eq` matches).
pub fn predicate_for<T: TestNative>(values: &[Option<T>]) -> BoxedStrategy<Predicate<T>> {
    let own: Vec<T> = values.iter().flatten().copied().collect();
    let comparison = proptest::sample::select(COMPARISONS.to_vec());
    let value = if own.is_empty() {
        T::special_value()
    } else {
        prop_oneof![T::special_value(), proptest::sample::select(own)].boxed()
    };
    (comparison, value)
        .prop_map(|(c, v)| Predicate::new(c, v))
        .boxed()
}

/// A [`special_primitive_case`] with a predicate ([`predicate_for`]).
pub fn predicate_case<T: TestNative>() -> impl Strategy<Value = (PrimitiveCase<T>, Predicate<T>)> {
    special_primitive_case::<T>().prop_flat_map(|case| {
        let predicate = predicate_for(&case.values);
        (Just(case), predicate)
    })
}

/// A [`primitive_case`] with a mask of the same length (10 % null entries), or, one
/// time in twenty, of a length one longer (`LengthMismatch`).
pub fn mask_case<T: TestNative>() -> impl Strategy<Value = (PrimitiveCase<T>, Vec<Option<bool>>)> {
    primitive_case::<T>().prop_flat_map(|case| {
        let n = case.values.len();
        let len = prop_oneof![19 => Just(n), 1 => Just(n + 1)];
        let entries =
            len.prop_flat_map(|len| vec(proptest::option::weighted(0.9, any::<bool>()), len..=len));
        (Just(case), entries)
    })
}

/// A segmented case of `T`: [`special_primitive_case`] values cut at 0 to 39 sorted
/// points (so empty segments, a first offset above 0 and a last one below the end are
/// common); one time in five an offset is overwritten by an arbitrary one (possibly
/// negative, decreasing or out of bounds: the error path).
pub fn segments_case<T: TestNative>() -> impl Strategy<Value = SegmentsCase<T>> {
    (
        special_primitive_case::<T>(),
        vec(any::<Index>(), 1..40),
        proptest::option::weighted(0.2, (any::<Index>(), -3i64..400)),
    )
        .prop_map(|(values, cuts, perturb)| {
            let n = values.values.len();
            let mut offsets: Vec<i64> = cuts.iter().map(|c| c.index(n + 1) as i64).collect();
            offsets.sort_unstable();
            if let Some((at, value)) = perturb {
                let at = at.index(offsets.len());
                offsets[at] = value;
            }
            SegmentsCase::new(format!("proptest/segments/{}", T::NAME), &values, offsets)
        })
}

/// Sizes for `sizes_to_offsets`: 0 to 99 sizes, 10 % null, mostly small, sometimes
/// negative, sometimes 2^29 or more (totals beyond `i32::MAX`).
pub fn sizes_case() -> impl Strategy<Value = PrimitiveCase<i32>> {
    let size = prop_oneof![
        16 => 0..100i32,
        1 => -5..0i32,
        2 => (1i32 << 29)..=i32::MAX,
    ];
    primitive_spec_from(vec(proptest::option::weighted(0.9, size), 0..100))
        .prop_map(|spec| PrimitiveCase::from_spec("proptest/sizes", &spec, true))
}

/// Boolean entries for `reduce_any`/`reduce_all`: 0 to 199, mostly one value, some
/// null.
pub fn boolean_entries() -> impl Strategy<Value = Vec<Option<bool>>> {
    (any::<bool>(), 1u32..4).prop_flat_map(|(common, rare)| {
        let entry = prop_oneof![
            8 => Just(Some(common)),
            rare => Just(Some(!common)),
            2 => Just(None),
        ];
        vec(entry, 0..200)
    })
}

/// A text-family input: up to 120 bytes over a small alphabet (so delimiters,
/// `\r`, `\n`, UTF-8 lead and continuation bytes and invalid bytes meet often), a
/// delimiter among newline mode, `\r\n`, `a`, `ab`, `aa`, `aba` and `\r\n\r\n`, keep or
/// strip, UTF-8 or binary, a tile of 1 to 40 bytes, an optional byte range (ends up to
/// 2 past the input) and sometimes forced i64 offsets.
pub fn text_case() -> impl Strategy<Value = crate::gen::TextCase> {
    use ragged_core::ops::{Delimiter, LineOptions};
    let alphabet = proptest::sample::select(vec![b'a', b'b', b'\r', b'\n', b';', 0xc3, 0xa9, 0xff]);
    let delimiters = vec![
        Delimiter::Newline,
        Delimiter::CrLf,
        Delimiter::Bytes(b"a".to_vec()),
        Delimiter::Bytes(b"ab".to_vec()),
        Delimiter::Bytes(b"aa".to_vec()),
        Delimiter::Bytes(b"aba".to_vec()),
        Delimiter::Bytes(b"\r\n\r\n".to_vec()),
    ];
    (
        vec(alphabet, 0..120),
        proptest::sample::select(delimiters),
        any::<bool>(),
        any::<bool>(),
        1..40usize,
        proptest::option::of((0..124u64, 0..124u64)),
        any::<bool>(),
    )
        .prop_map(|(bytes, delimiter, keep, binary, tile, range, wide)| {
            let mut options = LineOptions::new(delimiter)
                .with_keep_delimiter(keep)
                .with_binary(binary)
                .with_tile_bytes(tile);
            if let Some((a, b)) = range {
                options = options.with_byte_range(a.min(b), a.max(b));
            }
            if wide {
                options = options.with_wide_offsets_above(8);
            }
            crate::gen::TextCase::new("prop", bytes, options)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn string_cases_hold_their_rows(case in string_case::<i32>()) {
            prop_assert_eq!(case.column.len(), case.rows.len());
            for (i, want) in case.rows.iter().enumerate() {
                prop_assert_eq!(case.column.get(i), want.as_deref());
            }
        }

        #[test]
        fn list_cases_hold_their_lists(case in list_case::<i64, u8>()) {
            prop_assert_eq!(case.column.len(), case.rows.len());
            for (i, want) in case.rows.iter().enumerate() {
                prop_assert_eq!(case.column.is_valid(i), want.is_some());
                if let Some(want) = want {
                    prop_assert_eq!(case.column.range(i).len(), want.len());
                }
            }
        }

        #[test]
        fn primitive_cases_hold_their_values(case in primitive_case::<i16>()) {
            prop_assert_eq!(case.column.to_options(), case.values);
        }

        #[test]
        fn full_range_cases_reach_the_extremes(case in full_range_i64_case()) {
            prop_assert_eq!(case.column.to_options(), case.values);
        }
    }
}
