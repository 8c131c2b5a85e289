//! Concatenating a column's record batches (Parquet row groups, IPC batches, CSV
//! chunks) into one array on every core: strings and fixed-width numbers copy their
//! pieces in parallel into one allocation; other types go through arrow-rs's `concat`.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type,
    UInt64Type, UInt8Type,
};
use arrow_array::{
    Array, ArrayRef, ArrowPrimitiveType, GenericStringArray, OffsetSizeTrait, PrimitiveArray,
};
use arrow_buffer::{BooleanBufferBuilder, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::DataType;
use ragged_core::host::split_by_lengths;
use ragged_core::{Error, Result};
use rayon::prelude::*;

/// `arrays` (of one type, at least two) as one array.
///
/// # Errors
/// [`Error::Overflow`] when a `Utf8` column's bytes exceed i32 offsets (as arrow-rs's
/// `concat` reports it), naming `column`.
pub(crate) fn concat(column: &str, arrays: &[&dyn Array]) -> Result<ArrayRef> {
    let overflow = |message: String| Error::Overflow {
        op: "read_table",
        message: format!("column '{column}': {message}"),
    };
    macro_rules! primitive {
        ($t:ty) => {
            Ok(concat_primitive::<$t>(arrays))
        };
    }
    match arrays.first().map(|a| a.data_type()) {
        Some(DataType::Utf8) => concat_strings::<i32>(arrays).ok_or_else(|| {
            overflow("the strings hold more than 2^31 - 1 bytes: read them as large_utf8".into())
        }),
        Some(DataType::LargeUtf8) => {
            concat_strings::<i64>(arrays).ok_or_else(|| overflow("too many bytes".into()))
        }
        Some(DataType::Int8) => primitive!(Int8Type),
        Some(DataType::Int16) => primitive!(Int16Type),
        Some(DataType::Int32) => primitive!(Int32Type),
        Some(DataType::Int64) => primitive!(Int64Type),
        Some(DataType::UInt8) => primitive!(UInt8Type),
        Some(DataType::UInt16) => primitive!(UInt16Type),
        Some(DataType::UInt32) => primitive!(UInt32Type),
        Some(DataType::UInt64) => primitive!(UInt64Type),
        Some(DataType::Float32) => primitive!(Float32Type),
        Some(DataType::Float64) => primitive!(Float64Type),
        _ => arrow_select::concat::concat(arrays).map_err(|e| overflow(e.to_string())),
    }
}

/// The validity of the pieces one after another; `None` when no piece has a null.
fn concat_nulls(arrays: &[&dyn Array], len: usize) -> Option<NullBuffer> {
    if arrays.iter().all(|a| a.null_count() == 0) {
        return None;
    }
    let mut bits = BooleanBufferBuilder::new(len);
    for array in arrays {
        match array.nulls() {
            Some(nulls) => bits.append_buffer(nulls.inner()),
            None => bits.append_n(array.len(), true),
        }
    }
    Some(NullBuffer::new(bits.finish()))
}

/// The start of each piece in the output, and the total.
fn starts(lengths: impl Iterator<Item = usize>) -> (Vec<usize>, usize) {
    let mut total = 0;
    let starts = lengths
        .map(|len| {
            let start = total;
            total += len;
            start
        })
        .collect();
    (starts, total)
}

fn concat_primitive<T: ArrowPrimitiveType>(arrays: &[&dyn Array]) -> ArrayRef {
    let pieces: Vec<&PrimitiveArray<T>> = arrays.iter().map(|a| a.as_primitive::<T>()).collect();
    let lengths: Vec<usize> = pieces.iter().map(|p| p.len()).collect();
    let (_, total) = starts(lengths.iter().copied());
    let mut values = vec![T::Native::default(); total];
    split_by_lengths(&mut values, &lengths)
        .into_par_iter()
        .zip(&pieces)
        .for_each(|(out, piece)| out.copy_from_slice(piece.values()));
    let nulls = concat_nulls(arrays, total);
    Arc::new(
        PrimitiveArray::<T>::new(ScalarBuffer::from(values), nulls)
            .with_data_type(arrays[0].data_type().clone()),
    )
}

/// Strings; `None` when the bytes do not fit `O`.
fn concat_strings<O: OffsetSizeTrait>(arrays: &[&dyn Array]) -> Option<ArrayRef> {
    let pieces: Vec<&GenericStringArray<O>> = arrays.iter().map(|a| a.as_string::<O>()).collect();
    let byte_ranges: Vec<(usize, usize)> = pieces
        .iter()
        .map(|p| {
            let offsets = p.value_offsets();
            let first = offsets.first().map_or(0, |o| o.as_usize());
            let last = offsets.last().map_or(0, |o| o.as_usize());
            (first, last)
        })
        .collect();
    let byte_lengths: Vec<usize> = byte_ranges.iter().map(|(a, b)| b - a).collect();
    let (byte_starts, bytes) = starts(byte_lengths.iter().copied());
    O::from_usize(bytes)?;
    let row_lengths: Vec<usize> = pieces.iter().map(|p| p.len()).collect();
    let (_, rows) = starts(row_lengths.iter().copied());
    let mut values = vec![0u8; bytes];
    let mut offsets = vec![O::usize_as(0); rows + 1];
    // Each piece's offsets, rebased, land at its rows; the last offset is the total.
    let (body, last) = offsets.split_at_mut(rows);
    last[0] = O::usize_as(bytes);
    split_by_lengths(&mut values, &byte_lengths)
        .into_par_iter()
        .zip(split_by_lengths(body, &row_lengths))
        .zip(pieces.par_iter().zip(&byte_ranges).zip(&byte_starts))
        .for_each(
            |((out_values, out_offsets), ((piece, &(first, last)), &start))| {
                out_values.copy_from_slice(&piece.value_data()[first..last]);
                for (out, &o) in out_offsets.iter_mut().zip(piece.value_offsets()) {
                    *out = O::usize_as(o.as_usize() - first + start);
                }
            },
        );
    let nulls = concat_nulls(arrays, rows);
    // SAFETY: the offsets ascend from 0 to the values' length (each piece's own
    // offsets, rebased onto where its bytes were copied), and every row's bytes are the
    // bytes of a row of a valid strings array, so they are UTF-8; `nulls` has one bit
    // per row. Validating again would be one more pass over every byte.
    let array = unsafe {
        GenericStringArray::<O>::new_unchecked(
            OffsetBuffer::new_unchecked(ScalarBuffer::from(offsets)),
            Buffer::from_vec(values),
            nulls,
        )
    };
    Some(Arc::new(array))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Float64Array, LargeStringArray, StringArray};

    #[test]
    fn strings_and_numbers_concatenate_as_arrow_does() {
        let a = StringArray::from(vec![Some("ab"), None, Some("")]);
        let b = StringArray::from(vec![Some("x"), Some("yz")]).slice(1, 1);
        let c = StringArray::from(vec![None::<&str>, Some("ü")]);
        let pieces: Vec<&dyn Array> = vec![&a, &b, &c];
        let ours = concat("s", &pieces).unwrap();
        let arrows = arrow_select::concat::concat(&pieces).unwrap();
        assert_eq!(ours.as_ref(), arrows.as_ref());
        let large: Vec<LargeStringArray> =
            vec![vec![Some("q")].into(), vec![None, Some("rr")].into()];
        let refs: Vec<&dyn Array> = large.iter().map(|a| a as &dyn Array).collect();
        assert_eq!(
            concat("l", &refs).unwrap().as_ref(),
            arrow_select::concat::concat(&refs).unwrap().as_ref()
        );
        let f: Vec<Float64Array> = vec![vec![1.5, f64::NAN].into(), vec![Some(2.0), None].into()];
        let refs: Vec<&dyn Array> = f.iter().map(|a| a as &dyn Array).collect();
        let out = concat("f", &refs).unwrap();
        let out = out.as_primitive::<Float64Type>();
        assert_eq!(out.len(), 4);
        assert_eq!(out.null_count(), 1);
        assert_eq!(out.value(0), 1.5);
        assert!(out.value(1).is_nan());
        assert_eq!(out.value(2), 2.0);
    }
}
