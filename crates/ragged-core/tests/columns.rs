//! Checked constructors report the first offending index; sliced columns and arrow-rs
//! conversion behave as documented.

use std::sync::Arc;

use arrow_array::{Array, StringArray};
use ragged_core::{
    Column, Error, ListColumn, NullBuffer, OffsetsProblem, PrimitiveColumn, ScalarBuffer,
    StringColumn,
};

fn strings(offsets: Vec<i32>, values: &[u8]) -> Result<StringColumn<i32>, Error> {
    StringColumn::try_new(
        ScalarBuffer::from(offsets),
        ScalarBuffer::from(values.to_vec()),
        None,
    )
}

#[test]
fn decreasing_offsets_name_the_index() {
    let err = strings(vec![0, 2, 4, 3, 5], b"abcde").unwrap_err();
    assert!(
        matches!(
            err,
            Error::InvalidOffsets {
                index: 3,
                problem: OffsetsProblem::Decreasing {
                    previous: 4,
                    value: 3
                }
            }
        ),
        "{err}"
    );
}

#[test]
fn offsets_beyond_the_values_name_the_index() {
    let err = strings(vec![0, 2, 9], b"abc").unwrap_err();
    assert!(
        matches!(
            err,
            Error::InvalidOffsets {
                index: 2,
                problem: OffsetsProblem::OutOfBounds {
                    value: 9,
                    values_len: 3
                }
            }
        ),
        "{err}"
    );
}

#[test]
fn empty_and_negative_offsets_are_errors() {
    assert!(matches!(
        strings(vec![], b""),
        Err(Error::InvalidOffsets {
            index: 0,
            problem: OffsetsProblem::Empty
        })
    ));
    assert!(matches!(
        strings(vec![-1, 0], b"a"),
        Err(Error::InvalidOffsets {
            index: 0,
            problem: OffsetsProblem::Negative { value: -1 }
        })
    ));
}

#[test]
fn invalid_utf8_names_row_and_byte() {
    // Row 1 is "a\xffb": invalid at byte 1 of the row.
    let err = strings(vec![0, 2, 5], &[b'o', b'k', b'a', 0xff, b'b']).unwrap_err();
    assert!(
        matches!(err, Error::InvalidUtf8 { row: 1, byte: 1 }),
        "{err}"
    );
}

#[test]
fn an_offset_inside_a_character_is_invalid_utf8() {
    // "é" is two bytes; cutting it between rows leaves both rows invalid; row 0 is first.
    let err = strings(vec![0, 1, 2], "é".as_bytes()).unwrap_err();
    assert!(
        matches!(err, Error::InvalidUtf8 { row: 0, byte: 0 }),
        "{err}"
    );
}

#[test]
fn validity_of_the_wrong_length_is_an_error() {
    let err = StringColumn::<i32>::try_new(
        ScalarBuffer::from(vec![0, 1, 2]),
        ScalarBuffer::from(b"ab".to_vec()),
        Some(NullBuffer::from(vec![true, false, true])),
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            Error::LengthMismatch {
                expected: 2,
                actual: 3,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn list_offsets_are_checked_against_the_child() {
    let child = Column::Int32(PrimitiveColumn::from_vec(vec![1, 2, 3]));
    let err = ListColumn::<i64>::try_new(ScalarBuffer::from(vec![0i64, 2, 1]), child.clone(), None)
        .unwrap_err();
    assert!(
        matches!(err, Error::InvalidOffsets { index: 2, .. }),
        "{err}"
    );
    let err =
        ListColumn::<i64>::try_new(ScalarBuffer::from(vec![0i64, 4]), child, None).unwrap_err();
    assert!(
        matches!(
            err,
            Error::InvalidOffsets {
                index: 1,
                problem: OffsetsProblem::OutOfBounds { .. }
            }
        ),
        "{err}"
    );
}

#[test]
fn sliced_columns_keep_their_rows_and_convert_to_arrow() {
    let col =
        StringColumn::<i32>::from_options([Some("zero"), None, Some("två"), Some(""), Some("四")]);
    let sliced = col.slice(1, 3).unwrap();
    assert_eq!(sliced.offsets()[0], 4, "a slice starts at offsets[0] != 0");
    assert_eq!(
        sliced.iter().collect::<Vec<_>>(),
        vec![None, Some("två"), Some("")]
    );
    let array: StringArray = sliced.clone().into();
    assert_eq!(array.len(), 3);
    assert!(array.is_null(0));
    assert_eq!(array.value(1), "två");
    let back: StringColumn<i32> = array.into();
    assert_eq!(
        back.iter().collect::<Vec<_>>(),
        sliced.iter().collect::<Vec<_>>()
    );
}

#[test]
fn arrow_conversion_shares_buffers() {
    let col = StringColumn::<i64>::from_options([Some("a"), Some("bc")]);
    let values_ptr = col.values().as_ptr();
    let array: arrow_array::LargeStringArray = col.into();
    assert_eq!(
        array.values().as_ptr(),
        values_ptr,
        "no copy on the way out"
    );
    let back: StringColumn<i64> = array.into();
    assert_eq!(
        back.values().as_ptr(),
        values_ptr,
        "no copy on the way back"
    );
    let list = ListColumn::<i32>::try_new_shared(
        ScalarBuffer::from(vec![0, 1, 3]),
        Arc::new(Column::Float64(PrimitiveColumn::from_vec(vec![
            1.0, 2.0, 3.0,
        ]))),
        None,
    )
    .unwrap();
    let arrow = Column::List(list).to_arrow();
    let again = Column::try_from_arrow(arrow.as_ref()).unwrap();
    assert_eq!(again.type_name(), "list<float64>");
}

#[test]
fn list_views_name_the_lowest_bad_list_and_round_trip_through_arrow() {
    use ragged_core::ListViewColumn;
    let child = || Column::Int32(PrimitiveColumn::from_vec(vec![1, 2, 3, 4]));
    let view = |starts: Vec<i32>, stops: Vec<i32>| {
        ListViewColumn::<i32>::try_new(
            ScalarBuffer::from(starts),
            ScalarBuffer::from(stops),
            child(),
            None,
        )
    };
    let err = view(vec![0, 3, 2, 1], vec![1, 2, 5, 0]).unwrap_err();
    assert!(
        matches!(
            err,
            Error::StopsBeforeStarts {
                index: 1,
                start: 3,
                stop: 2
            }
        ),
        "{err}"
    );
    let err = view(vec![0, 2, -1], vec![1, 5, 0]).unwrap_err();
    assert!(
        matches!(err, Error::ListOutOfBounds { index: 1, .. }),
        "{err}"
    );
    let err = view(vec![0, 1], vec![1]).unwrap_err();
    assert!(matches!(err, Error::LengthMismatch { .. }), "{err}");

    // Overlapping, unordered lists with a gap survive a round trip through arrow-rs.
    let ok = view(vec![2, 0, 1, 4], vec![4, 3, 1, 4]).unwrap();
    let back = Column::try_from_arrow(&Column::ListView(ok.clone()).to_arrow()).unwrap();
    let Column::ListView(back) = back else {
        panic!(
            "a ListView comes back as a ListView, got {}",
            back.type_name()
        );
    };
    assert_eq!(back.starts(), ok.starts());
    assert_eq!(back.stops(), ok.stops());
    assert_eq!(
        (0..4).map(|i| back.range(i)).collect::<Vec<_>>(),
        vec![2..4, 0..3, 1..1, 4..4]
    );

    // The view of a sliced list column shares its offsets.
    let list = ListColumn::<i64>::try_new(ScalarBuffer::from(vec![0i64, 1, 1, 4]), child(), None)
        .unwrap()
        .slice(1, 2)
        .unwrap();
    let v = ListViewColumn::from_list(&list);
    assert_eq!(
        (0..2).map(|i| v.range(i)).collect::<Vec<_>>(),
        vec![1..1, 1..4]
    );
}
