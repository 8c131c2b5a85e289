//! [`Table`]: named host columns read from or written to a file.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{
    new_empty_array, Array, ArrayRef, LargeStringArray, RecordBatch, RecordBatchOptions,
    StringArray, UInt64Array,
};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use ragged_core::{
    BooleanColumn, Column, Error, Host, ListColumn, PrimitiveColumn, Result, StringColumn,
};

/// A table: named [`Column`]s of equal length, in order, with an Arrow schema.
///
/// Reading concatenates every record batch (row group) of a file into one column
/// per name, zero-copy where the file holds a single batch. Names need not be unique;
/// lookups by name return the first match.
///
/// # Example
/// ```
/// use ragged::io::Table;
/// use ragged::{Column, PrimitiveColumn, StringColumn};
/// let table = Table::new(vec![
///     ("name".into(), Column::Utf8(StringColumn::from_options([Some("Ada"), None]))),
///     ("year".into(), Column::Int64(PrimitiveColumn::from_vec(vec![1815, 1906]))),
/// ])?;
/// assert_eq!(table.num_rows(), 2);
/// assert_eq!(table.strings("name")?.get(0), Some("Ada"));
/// assert!(table.strings("year").is_err()); // Error::TypeMismatch
/// # Ok::<(), ragged::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Table {
    schema: SchemaRef,
    columns: Vec<(String, Column<Host>)>,
    num_rows: usize,
}

/// A strings column of either offset width, borrowed from a [`Table`], as returned by
/// [`Table::strings`].
///
/// `Utf8` has i32 offsets, `LargeUtf8` i64 offsets. Match on it to run width-generic
/// code (clone the inner column to own it; buffers are shared, not copied), or use
/// the accessors, which work for both.
#[derive(Clone, Copy, Debug)]
pub enum StringsColumn<'a> {
    /// Arrow `Utf8`: i32 offsets.
    Utf8(&'a StringColumn<i32, Host>),
    /// Arrow `LargeUtf8`: i64 offsets.
    LargeUtf8(&'a StringColumn<i64, Host>),
}

impl<'a> StringsColumn<'a> {
    /// Number of rows.
    pub fn len(&self) -> usize {
        match self {
            StringsColumn::Utf8(c) => c.len(),
            StringsColumn::LargeUtf8(c) => c.len(),
        }
    }

    /// Whether the column has no row.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of null rows.
    pub fn null_count(&self) -> usize {
        match self {
            StringsColumn::Utf8(c) => c.null_count(),
            StringsColumn::LargeUtf8(c) => c.null_count(),
        }
    }

    /// Row `i` (`None` when null or out of range).
    pub fn get(&self, i: usize) -> Option<&'a str> {
        match *self {
            StringsColumn::Utf8(c) => c.get(i),
            StringsColumn::LargeUtf8(c) => c.get(i),
        }
    }

    /// Iterate over the rows as options (`None` for null).
    pub fn iter(&self) -> impl Iterator<Item = Option<&'a str>> + 'a {
        let this = *self;
        (0..self.len()).map(move |i| this.get(i))
    }

    /// The column as an owned [`Column`] (`Column::Utf8` or `Column::LargeUtf8`;
    /// buffers are shared, not copied).
    pub fn to_column(&self) -> Column<Host> {
        match *self {
            StringsColumn::Utf8(c) => Column::Utf8(c.clone()),
            StringsColumn::LargeUtf8(c) => Column::LargeUtf8(c.clone()),
        }
    }
}

/// A list column of either offset width, borrowed from a [`Table`], as returned by
/// [`Table::lists`].
#[derive(Clone, Copy, Debug)]
pub enum ListsColumn<'a> {
    /// Arrow `List`: i32 offsets.
    List(&'a ListColumn<i32, Host>),
    /// Arrow `LargeList`: i64 offsets.
    LargeList(&'a ListColumn<i64, Host>),
}

impl<'a> ListsColumn<'a> {
    /// Number of lists.
    pub fn len(&self) -> usize {
        match self {
            ListsColumn::List(c) => c.len(),
            ListsColumn::LargeList(c) => c.len(),
        }
    }

    /// Whether the column has no list.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The child column holding every list's elements.
    pub fn child(&self) -> &'a Column<Host> {
        match *self {
            ListsColumn::List(c) => c.child(),
            ListsColumn::LargeList(c) => c.child(),
        }
    }

    /// The column as an owned [`Column`] (`Column::List` or `Column::LargeList`;
    /// buffers are shared, not copied).
    pub fn to_column(&self) -> Column<Host> {
        match *self {
            ListsColumn::List(c) => Column::List(c.clone()),
            ListsColumn::LargeList(c) => Column::LargeList(c.clone()),
        }
    }
}

/// Getters for the fixed-width column types: `&PrimitiveColumn<T>` or a type mismatch.
macro_rules! typed_getters {
    ($($(#[$doc:meta])* $method:ident => $variant:ident : $ty:ty, $expected:literal;)*) => {
        $(
            $(#[$doc])*
            ///
            /// # Errors
            /// [`Error::ColumnNotFound`] when no column has that name,
            /// [`Error::TypeMismatch`] naming the column when it has another type.
            pub fn $method(&self, name: &str) -> Result<&$ty> {
                match self.column(name)? {
                    Column::$variant(c) => Ok(c),
                    other => Err(type_mismatch(name, $expected, other)),
                }
            }
        )*
    };
}

impl Table {
    /// A table from named columns.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the columns when their lengths differ.
    pub fn new(columns: Vec<(String, Column<Host>)>) -> Result<Self> {
        let num_rows = columns.first().map_or(0, |(_, c)| c.len());
        if let Some((name, column)) = columns.iter().find(|(_, c)| c.len() != num_rows) {
            let first = columns.first().map_or("", |(n, _)| n.as_str());
            return Err(Error::invalid_argument(
                "Table::new",
                format!(
                    "column '{name}' has {} rows but column '{first}' has {num_rows}",
                    column.len()
                ),
            ));
        }
        let fields: Vec<Field> = columns
            .iter()
            .map(|(name, column)| Field::new(name, column.to_arrow().data_type().clone(), true))
            .collect();
        Ok(Self {
            schema: Arc::new(Schema::new(fields)),
            columns,
            num_rows,
        })
    }

    /// A table from record batches of one schema, each column concatenated across the
    /// batches (zero-copy for a single batch).
    ///
    /// Dictionary-encoded columns are decoded and `Utf8View` becomes `Utf8` (or
    /// `LargeUtf8` beyond 2 GiB), at the top level of the schema.
    ///
    /// # Errors
    /// [`Error::TypeMismatch`] naming a column whose type ragged does not hold (dates,
    /// decimals, structs, …); [`Error::Overflow`] when a `Utf8` or `List` column's
    /// concatenation exceeds i32 offsets; [`Error::InvalidArgument`] when a batch does
    /// not match the schema.
    pub fn try_from_batches(schema: &Schema, batches: &[RecordBatch]) -> Result<Self> {
        let all: Vec<usize> = (0..schema.fields().len()).collect();
        Self::from_batches_selected(schema, batches, &all)
    }

    /// Like [`Table::try_from_batches`] for the fields at `indices` (in that order).
    pub(crate) fn from_batches_selected(
        schema: &Schema,
        batches: &[RecordBatch],
        indices: &[usize],
    ) -> Result<Self> {
        let mut columns = Vec::with_capacity(indices.len());
        for &index in indices {
            let field = schema.fields().get(index).ok_or_else(|| {
                Error::invalid_argument("Table", format!("no field at index {index}"))
            })?;
            let mut arrays: Vec<&dyn Array> = Vec::with_capacity(batches.len());
            for batch in batches {
                let array = batch.columns().get(index).ok_or_else(|| {
                    Error::invalid_argument(
                        "Table",
                        format!("a record batch has no column '{}'", field.name()),
                    )
                })?;
                arrays.push(array.as_ref());
            }
            let array: ArrayRef = match arrays.as_slice() {
                [] => new_empty_array(field.data_type()),
                [single] => single.slice(0, single.len()),
                many => super::concat::concat(field.name(), many)?,
            };
            let array = normalize(field.name(), array)?;
            let column = Column::try_from_arrow(array.as_ref())
                .map_err(|e| rename_mismatch(e, field.name()))?;
            columns.push((field.name().clone(), column));
        }
        Self::new(columns)
    }

    /// The Arrow schema: one nullable field per column, with the column's Arrow type.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// Number of rows (0 for a table without columns).
    pub fn num_rows(&self) -> usize {
        self.num_rows
    }

    /// Number of columns.
    pub fn num_columns(&self) -> usize {
        self.columns.len()
    }

    /// The column names, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> + '_ {
        self.columns.iter().map(|(name, _)| name.as_str())
    }

    /// The named columns, in order (the form [`super::write_table`] takes).
    pub fn columns(&self) -> &[(String, Column<Host>)] {
        &self.columns
    }

    /// The named columns, in order.
    pub fn into_columns(self) -> Vec<(String, Column<Host>)> {
        self.columns
    }

    /// The first column named `name`.
    ///
    /// # Errors
    /// [`Error::ColumnNotFound`] listing the columns that exist.
    pub fn column(&self, name: &str) -> Result<&Column<Host>> {
        self.columns
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, c)| c)
            .ok_or_else(|| Error::ColumnNotFound {
                name: name.to_owned(),
                available: self.names().map(str::to_owned).collect(),
            })
    }

    /// The strings column `name`, of either offset width.
    ///
    /// # Errors
    /// [`Error::ColumnNotFound`], or [`Error::TypeMismatch`] naming the column when it
    /// is not `utf8` or `large_utf8`.
    pub fn strings(&self, name: &str) -> Result<StringsColumn<'_>> {
        match self.column(name)? {
            Column::Utf8(c) => Ok(StringsColumn::Utf8(c)),
            Column::LargeUtf8(c) => Ok(StringsColumn::LargeUtf8(c)),
            other => Err(type_mismatch(name, "utf8 or large_utf8", other)),
        }
    }

    /// The list column `name`, of either offset width.
    ///
    /// # Errors
    /// [`Error::ColumnNotFound`], or [`Error::TypeMismatch`] naming the column when it
    /// is not a list or large list.
    pub fn lists(&self, name: &str) -> Result<ListsColumn<'_>> {
        match self.column(name)? {
            Column::List(c) => Ok(ListsColumn::List(c)),
            Column::LargeList(c) => Ok(ListsColumn::LargeList(c)),
            other => Err(type_mismatch(name, "list or large_list", other)),
        }
    }

    typed_getters! {
        /// The `int8` column `name`.
        int8 => Int8: PrimitiveColumn<i8, Host>, "int8";
        /// The `int16` column `name`.
        int16 => Int16: PrimitiveColumn<i16, Host>, "int16";
        /// The `int32` column `name`.
        int32 => Int32: PrimitiveColumn<i32, Host>, "int32";
        /// The `int64` column `name`.
        int64 => Int64: PrimitiveColumn<i64, Host>, "int64";
        /// The `uint8` column `name`.
        uint8 => UInt8: PrimitiveColumn<u8, Host>, "uint8";
        /// The `uint16` column `name`.
        uint16 => UInt16: PrimitiveColumn<u16, Host>, "uint16";
        /// The `uint32` column `name`.
        uint32 => UInt32: PrimitiveColumn<u32, Host>, "uint32";
        /// The `uint64` column `name`.
        uint64 => UInt64: PrimitiveColumn<u64, Host>, "uint64";
        /// The `float32` column `name`.
        float32 => Float32: PrimitiveColumn<f32, Host>, "float32";
        /// The `float64` column `name`.
        float64 => Float64: PrimitiveColumn<f64, Host>, "float64";
        /// The `bool` column `name`.
        boolean => Boolean: BooleanColumn<Host>, "bool";
    }

    /// A table of the named columns, in the order given (cheap: buffers are shared).
    ///
    /// # Errors
    /// [`Error::ColumnNotFound`] for the first name that does not exist.
    pub fn select(&self, names: &[&str]) -> Result<Table> {
        let columns = names
            .iter()
            .map(|&name| Ok((name.to_owned(), self.column(name)?.clone())))
            .collect::<Result<Vec<_>>>()?;
        Table::new(columns)
    }

    /// The table as one Arrow record batch (zero-copy).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when Arrow rejects the batch (it should not: the
    /// schema is built from the columns).
    pub fn to_record_batch(&self) -> Result<RecordBatch> {
        let arrays: Vec<ArrayRef> = self.columns.iter().map(|(_, c)| c.to_arrow()).collect();
        let options = RecordBatchOptions::new().with_row_count(Some(self.num_rows));
        RecordBatch::try_new_with_options(self.schema.clone(), arrays, &options)
            .map_err(|e| Error::invalid_argument("Table::to_record_batch", e.to_string()))
    }
}

/// A [`Error::TypeMismatch`] for column `name`.
fn type_mismatch(name: &str, expected: &str, actual: &Column<Host>) -> Error {
    Error::TypeMismatch {
        column: name.to_owned(),
        expected: expected.to_owned(),
        actual: actual.type_name(),
    }
}

/// Put the column's name into a type mismatch from `Column::try_from_arrow`.
fn rename_mismatch(error: Error, name: &str) -> Error {
    match error {
        Error::TypeMismatch {
            expected, actual, ..
        } => Error::TypeMismatch {
            column: name.to_owned(),
            expected,
            actual,
        },
        other => other,
    }
}

/// Turn the top-level Arrow encodings ragged does not hold into ones it does:
/// dictionaries are decoded, `Utf8View` becomes `Utf8` (`LargeUtf8` beyond 2 GiB).
fn normalize(name: &str, array: ArrayRef) -> Result<ArrayRef> {
    if let Some(dictionary) = array.as_any_dictionary_opt() {
        let keys: Vec<u64> = dictionary
            .normalized_keys()
            .into_iter()
            .map(|k| k as u64)
            .collect();
        let indices = UInt64Array::new(keys.into(), dictionary.keys().nulls().cloned());
        let values = arrow_select::take::take(dictionary.values().as_ref(), &indices, None)
            .map_err(|e| Error::TypeMismatch {
                column: name.to_owned(),
                expected: "a decodable dictionary".into(),
                actual: format!("{} ({e})", array.data_type()),
            })?;
        return normalize(name, values);
    }
    if let DataType::Utf8View = array.data_type() {
        let view = array.as_string_view();
        let bytes: usize = view.iter().map(|s| s.map_or(0, str::len)).sum();
        return Ok(if i32::try_from(bytes).is_ok() {
            Arc::new(view.iter().collect::<StringArray>())
        } else {
            Arc::new(view.iter().collect::<LargeStringArray>())
        });
    }
    Ok(array)
}
