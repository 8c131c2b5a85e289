//! Zero-copy conversion between host columns and arrow-rs arrays.
//!
//! Buffers are shared (reference-counted), never copied: a `StringArray` becomes a
//! `StringColumn<i32>` holding the same offsets and bytes, and back.

use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, BooleanArray, GenericListArray, GenericListViewArray, GenericStringArray,
    PrimitiveArray,
};
use arrow_buffer::{OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field};

use crate::column::{
    BooleanColumn, Column, ListColumn, ListViewColumn, PrimitiveColumn, StringColumn,
};
use crate::error::{Error, Result};
use crate::location::Host;
use crate::types::{Native, OffsetSize};

impl<T: Native> From<PrimitiveArray<T::Arrow>> for PrimitiveColumn<T, Host> {
    fn from(array: PrimitiveArray<T::Arrow>) -> Self {
        let (_, values, nulls) = array.into_parts();
        // Lengths agree: arrow-rs checked them when it built the array.
        Self::try_new(values, nulls).unwrap_or_else(|_| unreachable!("arrow array lengths agree"))
    }
}

impl<T: Native> From<PrimitiveColumn<T, Host>> for PrimitiveArray<T::Arrow> {
    fn from(col: PrimitiveColumn<T, Host>) -> Self {
        let (values, validity) = col.into_parts();
        PrimitiveArray::new(values, validity)
    }
}

impl From<BooleanArray> for BooleanColumn<Host> {
    fn from(array: BooleanArray) -> Self {
        let (values, nulls) = array.into_parts();
        Self::try_new(arrow_buffer::NullBuffer::new(values), nulls)
            .unwrap_or_else(|_| unreachable!("arrow array lengths agree"))
    }
}

impl From<BooleanColumn<Host>> for BooleanArray {
    fn from(col: BooleanColumn<Host>) -> Self {
        let (values, validity) = col.into_parts();
        BooleanArray::new(values.into_inner(), validity)
    }
}

impl<O: OffsetSize> From<GenericStringArray<O>> for StringColumn<O, Host> {
    fn from(array: GenericStringArray<O>) -> Self {
        let (offsets, values, nulls) = array.into_parts();
        let values = arrow_buffer::ScalarBuffer::<u8>::from(values);
        // SAFETY: arrow-rs's GenericStringArray guarantees valid offsets (OffsetBuffer),
        // UTF-8 rows and a validity of the array's length: our invariants exactly.
        unsafe { StringColumn::new_unchecked(offsets.into_inner(), values, nulls) }
    }
}

impl<O: OffsetSize> From<StringColumn<O, Host>> for GenericStringArray<O> {
    fn from(col: StringColumn<O, Host>) -> Self {
        let (offsets, values, validity) = col.into_parts();
        // SAFETY: a host StringColumn holds non-empty, non-negative, non-decreasing
        // offsets (checked or promised at construction), which is OffsetBuffer's
        // invariant.
        let offsets = unsafe { OffsetBuffer::new_unchecked(offsets) };
        // SAFETY: the same invariants make every row an in-bounds UTF-8 slice and the
        // validity as long as the column, which is what new_unchecked requires.
        unsafe { GenericStringArray::new_unchecked(offsets, values.into_inner(), validity) }
    }
}

impl<O: OffsetSize> TryFrom<GenericListArray<O>> for ListColumn<O, Host> {
    type Error = Error;
    fn try_from(array: GenericListArray<O>) -> Result<Self> {
        let (_, offsets, values, nulls) = array.into_parts();
        let child = Column::try_from_arrow(values.as_ref())?;
        // SAFETY: arrow-rs's GenericListArray guarantees offsets within its values and
        // a validity of its length.
        Ok(unsafe { ListColumn::new_unchecked(offsets.into_inner(), Arc::new(child), nulls) })
    }
}

impl<O: OffsetSize> TryFrom<GenericListViewArray<O>> for ListViewColumn<O, Host> {
    type Error = Error;
    /// The view of an arrow-rs list-view array: the starts are its offsets (shared),
    /// the stops `offsets[i] + sizes[i]` (computed), validated like
    /// [`ListViewColumn::try_new`].
    fn try_from(array: GenericListViewArray<O>) -> Result<Self> {
        let child = Column::try_from_arrow(array.values().as_ref())?;
        let starts = array.offsets().clone();
        let mut stops = Vec::with_capacity(starts.len());
        for (i, (start, size)) in starts.iter().zip(array.sizes().iter()).enumerate() {
            let stop = start.as_i64().saturating_add(size.as_i64());
            // A stop beyond the offset type cannot be inside the child either.
            let Some(stop) = O::from_i64(stop) else {
                return Err(Error::ListOutOfBounds {
                    index: i,
                    start: start.as_i64(),
                    stop,
                    child_len: child.len(),
                });
            };
            stops.push(stop);
        }
        let nulls = array.nulls().cloned();
        ListViewColumn::try_new(starts, ScalarBuffer::from(stops), child, nulls)
    }
}

impl<O: OffsetSize> ListViewColumn<O, Host> {
    /// The column as an arrow-rs list-view array (the starts shared, the sizes
    /// computed; the child converts recursively and zero-copy).
    pub fn to_arrow(&self) -> GenericListViewArray<O> {
        let child = self.child().to_arrow();
        let field = Arc::new(Field::new_list_field(child.data_type().clone(), true));
        let sizes: Vec<O> = self
            .starts()
            .iter()
            .zip(self.stops().iter())
            .map(|(&a, &b)| b - a)
            .collect();
        // SAFETY: 0 <= start <= stop <= child length for every list (checked or
        // promised at construction), so offset + size stays inside the values.
        unsafe {
            GenericListViewArray::new_unchecked(
                field,
                self.starts().clone(),
                ScalarBuffer::from(sizes),
                child,
                self.validity().cloned(),
            )
        }
    }
}

impl<O: OffsetSize> ListColumn<O, Host> {
    /// The column as an arrow-rs list array (zero-copy; the child converts recursively).
    pub fn to_arrow(&self) -> GenericListArray<O> {
        let child = self.child().to_arrow();
        let field = Arc::new(Field::new_list_field(child.data_type().clone(), true));
        // SAFETY: offsets are valid (checked or promised at construction).
        let offsets = unsafe { OffsetBuffer::new_unchecked(self.offsets().clone()) };
        GenericListArray::new(field, offsets, child, self.validity().cloned())
    }
}

macro_rules! downcast {
    ($array:expr, $ty:ty) => {
        $array
            .as_any()
            .downcast_ref::<$ty>()
            .cloned()
            .ok_or_else(|| Error::TypeMismatch {
                column: "array".into(),
                expected: stringify!($ty).into(),
                actual: $array.data_type().to_string(),
            })?
    };
}

impl Column<Host> {
    /// The column of an arrow-rs array (zero-copy).
    ///
    /// # Errors
    /// [`Error::TypeMismatch`] for data types ragged does not hold (dates, decimals,
    /// structs, …).
    pub fn try_from_arrow(array: &dyn Array) -> Result<Self> {
        use arrow_array::types::*;
        Ok(match array.data_type() {
            DataType::Int8 => Column::Int8(downcast!(array, PrimitiveArray<Int8Type>).into()),
            DataType::Int16 => Column::Int16(downcast!(array, PrimitiveArray<Int16Type>).into()),
            DataType::Int32 => Column::Int32(downcast!(array, PrimitiveArray<Int32Type>).into()),
            DataType::Int64 => Column::Int64(downcast!(array, PrimitiveArray<Int64Type>).into()),
            DataType::UInt8 => Column::UInt8(downcast!(array, PrimitiveArray<UInt8Type>).into()),
            DataType::UInt16 => Column::UInt16(downcast!(array, PrimitiveArray<UInt16Type>).into()),
            DataType::UInt32 => Column::UInt32(downcast!(array, PrimitiveArray<UInt32Type>).into()),
            DataType::UInt64 => Column::UInt64(downcast!(array, PrimitiveArray<UInt64Type>).into()),
            DataType::Float32 => {
                Column::Float32(downcast!(array, PrimitiveArray<Float32Type>).into())
            }
            DataType::Float64 => {
                Column::Float64(downcast!(array, PrimitiveArray<Float64Type>).into())
            }
            DataType::Boolean => Column::Boolean(downcast!(array, BooleanArray).into()),
            DataType::Utf8 => Column::Utf8(downcast!(array, GenericStringArray<i32>).into()),
            DataType::LargeUtf8 => {
                Column::LargeUtf8(downcast!(array, GenericStringArray<i64>).into())
            }
            DataType::List(_) => Column::List(ListColumn::try_from(downcast!(
                array,
                GenericListArray<i32>
            ))?),
            DataType::LargeList(_) => Column::LargeList(ListColumn::try_from(downcast!(
                array,
                GenericListArray<i64>
            ))?),
            DataType::ListView(_) => Column::ListView(ListViewColumn::try_from(downcast!(
                array,
                GenericListViewArray<i32>
            ))?),
            DataType::LargeListView(_) => Column::LargeListView(ListViewColumn::try_from(
                downcast!(array, GenericListViewArray<i64>),
            )?),
            other => {
                return Err(Error::TypeMismatch {
                    column: "array".into(),
                    expected: "a numeric, boolean, utf8, list or list-view type".into(),
                    actual: other.to_string(),
                })
            }
        })
    }

    /// The column as an arrow-rs array (zero-copy).
    pub fn to_arrow(&self) -> ArrayRef {
        match self {
            Column::Int8(c) => Arc::new(PrimitiveArray::from(c.clone())),
            Column::Int16(c) => Arc::new(PrimitiveArray::from(c.clone())),
            Column::Int32(c) => Arc::new(PrimitiveArray::from(c.clone())),
            Column::Int64(c) => Arc::new(PrimitiveArray::from(c.clone())),
            Column::UInt8(c) => Arc::new(PrimitiveArray::from(c.clone())),
            Column::UInt16(c) => Arc::new(PrimitiveArray::from(c.clone())),
            Column::UInt32(c) => Arc::new(PrimitiveArray::from(c.clone())),
            Column::UInt64(c) => Arc::new(PrimitiveArray::from(c.clone())),
            Column::Float32(c) => Arc::new(PrimitiveArray::from(c.clone())),
            Column::Float64(c) => Arc::new(PrimitiveArray::from(c.clone())),
            Column::Boolean(c) => Arc::new(BooleanArray::from(c.clone())),
            Column::Utf8(c) => Arc::new(GenericStringArray::from(c.clone())),
            Column::LargeUtf8(c) => Arc::new(GenericStringArray::from(c.clone())),
            Column::List(c) => Arc::new(c.to_arrow()),
            Column::LargeList(c) => Arc::new(c.to_arrow()),
            Column::ListView(c) => Arc::new(c.to_arrow()),
            Column::LargeListView(c) => Arc::new(c.to_arrow()),
        }
    }
}
