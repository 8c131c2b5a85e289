//! Columns in Arrow layout: values + offsets (+ validity), generic over a [`Location`].
//!
//! - [`PrimitiveColumn`]: fixed-width numbers.
//! - [`BooleanColumn`]: bit-packed booleans (as Arrow, so conversion stays zero-copy).
//! - [`StringColumn`]: UTF-8 bytes + i32 or i64 offsets (`Utf8` / `LargeUtf8`).
//! - [`BinaryColumn`]: any bytes + i32 or i64 offsets (`Binary` / `LargeBinary`).
//! - [`ListColumn`]: offsets + any child [`Column`] (`List` / `LargeList`).
//! - [`ListViewColumn`]: starts + stops + any child [`Column`] (`ListView` /
//!   `LargeListView`, Awkward's `ListArray`).
//!
//! Host columns are built with checked constructors that validate every invariant
//! once and report the first offending index; `unsafe` unchecked constructors exist
//! for trusted producers (the backends' own outputs).

mod binary;
mod boolean;
mod list;
mod list_view;
mod primitive;
mod string;
pub(crate) mod validate;

pub use binary::BinaryColumn;
pub use boolean::BooleanColumn;
pub use list::ListColumn;
pub use list_view::ListViewColumn;
pub use primitive::PrimitiveColumn;
pub use string::StringColumn;
pub use validate::{starts_stops_error, validate_offsets, validate_starts_stops, validate_utf8};

use crate::location::{Host, Location, ValidityBitmap};
use crate::types::{Native, OffsetSize};
use crate::{Error, Result};

/// Any column, for the children of list columns and for IO.
#[derive(Clone, Debug)]
#[non_exhaustive]
#[allow(missing_docs)] // variants are named after their element types
pub enum Column<L: Location = Host> {
    Int8(PrimitiveColumn<i8, L>),
    Int16(PrimitiveColumn<i16, L>),
    Int32(PrimitiveColumn<i32, L>),
    Int64(PrimitiveColumn<i64, L>),
    UInt8(PrimitiveColumn<u8, L>),
    UInt16(PrimitiveColumn<u16, L>),
    UInt32(PrimitiveColumn<u32, L>),
    UInt64(PrimitiveColumn<u64, L>),
    Float32(PrimitiveColumn<f32, L>),
    Float64(PrimitiveColumn<f64, L>),
    Boolean(BooleanColumn<L>),
    Utf8(StringColumn<i32, L>),
    LargeUtf8(StringColumn<i64, L>),
    List(ListColumn<i32, L>),
    LargeList(ListColumn<i64, L>),
    ListView(ListViewColumn<i32, L>),
    LargeListView(ListViewColumn<i64, L>),
}

impl<L: Location> Column<L> {
    /// Number of rows.
    pub fn len(&self) -> usize {
        match self {
            Column::Int8(c) => c.len(),
            Column::Int16(c) => c.len(),
            Column::Int32(c) => c.len(),
            Column::Int64(c) => c.len(),
            Column::UInt8(c) => c.len(),
            Column::UInt16(c) => c.len(),
            Column::UInt32(c) => c.len(),
            Column::UInt64(c) => c.len(),
            Column::Float32(c) => c.len(),
            Column::Float64(c) => c.len(),
            Column::Boolean(c) => c.len(),
            Column::Utf8(c) => c.len(),
            Column::LargeUtf8(c) => c.len(),
            Column::List(c) => c.len(),
            Column::LargeList(c) => c.len(),
            Column::ListView(c) => c.len(),
            Column::LargeListView(c) => c.len(),
        }
    }

    /// The validity bitmap (`None`: every row is valid).
    pub fn validity(&self) -> Option<&L::Bitmap> {
        match self {
            Column::Int8(c) => c.validity(),
            Column::Int16(c) => c.validity(),
            Column::Int32(c) => c.validity(),
            Column::Int64(c) => c.validity(),
            Column::UInt8(c) => c.validity(),
            Column::UInt16(c) => c.validity(),
            Column::UInt32(c) => c.validity(),
            Column::UInt64(c) => c.validity(),
            Column::Float32(c) => c.validity(),
            Column::Float64(c) => c.validity(),
            Column::Boolean(c) => c.validity(),
            Column::Utf8(c) => c.validity(),
            Column::LargeUtf8(c) => c.validity(),
            Column::List(c) => c.validity(),
            Column::LargeList(c) => c.validity(),
            Column::ListView(c) => c.validity(),
            Column::LargeListView(c) => c.validity(),
        }
    }

    /// Number of null rows.
    pub fn null_count(&self) -> usize {
        match self {
            Column::Int8(c) => c.null_count(),
            Column::Int16(c) => c.null_count(),
            Column::Int32(c) => c.null_count(),
            Column::Int64(c) => c.null_count(),
            Column::UInt8(c) => c.null_count(),
            Column::UInt16(c) => c.null_count(),
            Column::UInt32(c) => c.null_count(),
            Column::UInt64(c) => c.null_count(),
            Column::Float32(c) => c.null_count(),
            Column::Float64(c) => c.null_count(),
            Column::Boolean(c) => c.null_count(),
            Column::Utf8(c) => c.null_count(),
            Column::LargeUtf8(c) => c.null_count(),
            Column::List(c) => c.null_count(),
            Column::LargeList(c) => c.null_count(),
            Column::ListView(c) => c.null_count(),
            Column::LargeListView(c) => c.null_count(),
        }
    }

    /// Whether the column has no row.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The column as a primitive column of `T`.
    ///
    /// # Errors
    /// [`Error::TypeMismatch`] naming `what` when the column holds another type.
    pub fn as_primitive<T: Native>(&self, what: &str) -> Result<&PrimitiveColumn<T, L>> {
        T::column_ref(self).ok_or_else(|| Error::TypeMismatch {
            column: what.into(),
            expected: type_name_of::<T>().into(),
            actual: self.type_name(),
        })
    }

    /// The column as a boolean column.
    ///
    /// # Errors
    /// [`Error::TypeMismatch`] naming `what` when the column holds another type.
    pub fn as_boolean(&self, what: &str) -> Result<&BooleanColumn<L>> {
        match self {
            Column::Boolean(c) => Ok(c),
            other => Err(Error::TypeMismatch {
                column: what.into(),
                expected: "bool".into(),
                actual: other.type_name(),
            }),
        }
    }

    /// A short type name for messages: `int32`, `utf8`, `list<float64>`, …
    pub fn type_name(&self) -> String {
        match self {
            Column::Int8(_) => "int8".into(),
            Column::Int16(_) => "int16".into(),
            Column::Int32(_) => "int32".into(),
            Column::Int64(_) => "int64".into(),
            Column::UInt8(_) => "uint8".into(),
            Column::UInt16(_) => "uint16".into(),
            Column::UInt32(_) => "uint32".into(),
            Column::UInt64(_) => "uint64".into(),
            Column::Float32(_) => "float32".into(),
            Column::Float64(_) => "float64".into(),
            Column::Boolean(_) => "bool".into(),
            Column::Utf8(_) => "utf8".into(),
            Column::LargeUtf8(_) => "large_utf8".into(),
            Column::List(c) => format!("list<{}>", c.child().type_name()),
            Column::LargeList(c) => format!("large_list<{}>", c.child().type_name()),
            Column::ListView(c) => format!("list_view<{}>", c.child().type_name()),
            Column::LargeListView(c) => format!("large_list_view<{}>", c.child().type_name()),
        }
    }
}

impl<T: Native, L: Location> From<PrimitiveColumn<T, L>> for Column<L> {
    fn from(col: PrimitiveColumn<T, L>) -> Self {
        T::into_column(col)
    }
}

impl<L: Location> From<BooleanColumn<L>> for Column<L> {
    fn from(col: BooleanColumn<L>) -> Self {
        Column::Boolean(col)
    }
}

impl<O: OffsetSize, L: Location> From<StringColumn<O, L>> for Column<L> {
    fn from(col: StringColumn<O, L>) -> Self {
        O::into_strings_column(col)
    }
}

impl<O: OffsetSize, L: Location> From<ListColumn<O, L>> for Column<L> {
    fn from(col: ListColumn<O, L>) -> Self {
        O::into_list_column(col)
    }
}

/// The [`Column::type_name`] of a primitive column of `T`.
fn type_name_of<T: Native>() -> &'static str {
    match T::NAME {
        "i8" => "int8",
        "i16" => "int16",
        "i32" => "int32",
        "i64" => "int64",
        "u8" => "uint8",
        "u16" => "uint16",
        "u32" => "uint32",
        "u64" => "uint64",
        "f32" => "float32",
        _ => "float64",
    }
}

/// Check that an optional validity bitmap covers exactly `len` rows.
pub(crate) fn check_validity_len<B: ValidityBitmap>(
    op: &'static str,
    validity: Option<&B>,
    len: usize,
) -> Result<()> {
    match validity {
        Some(v) if v.len() != len => Err(Error::LengthMismatch {
            op,
            what: "validity",
            expected: len,
            actual: v.len(),
        }),
        _ => Ok(()),
    }
}
