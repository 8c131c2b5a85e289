//! Arrow-native compute: each op takes arrow-rs arrays and a [`Device`] and returns an
//! arrow-rs array, as arrow-rs's own kernels do — the API the CLI and the Python
//! package call.
//!
//! ```
//! use std::sync::Arc;
//! use arrow_array::{cast::AsArray, types::Int32Type, types::Int64Type};
//! use arrow_array::{Array, ArrayRef, ListArray, StringArray};
//! use ragged::compute::{lists, strings, Device};
//!
//! let names: ArrayRef = Arc::new(StringArray::from(vec![Some("Ada Lovelace"), None]));
//! let device = Device::cpu(); // or Device::parse("auto")?, Device::cuda(0, options)?
//! let upper = strings::upper(&names, &device)?;
//! assert_eq!(upper.as_string::<i32>().value(0), "ADA LOVELACE");
//! let redacted = strings::redact(&names, "public", &device)?;
//! assert_eq!(redacted.as_string::<i32>().value(0), "L Ada");
//! let found = strings::find(&names, "Love", &device)?;
//! assert_eq!(found.as_primitive::<Int32Type>().value(0), 4);
//! let visits: ArrayRef = Arc::new(ListArray::from_iter_primitive::<Int32Type, _, _>(vec![
//!     Some(vec![Some(1), Some(2)]),
//!     None,
//! ]));
//! let sums = lists::reduce(&visits, lists::Reduction::Sum, &device)?;
//! assert_eq!(sums.as_primitive::<Int64Type>().value(0), 3);
//! assert!(sums.is_null(1));
//! # Ok::<(), ragged::Error>(())
//! ```
//!
//! Inputs are borrowed without copying where ragged holds the layout (`Utf8`,
//! `LargeUtf8`, numeric, boolean, `List`, `LargeList`); `Utf8View` and dictionaries of
//! strings are first cast to `Utf8` (`LargeUtf8` beyond 2 GiB of bytes), and list
//! views are compacted — copies, since ragged's kernels read offsets. On the CPU the
//! results share nothing with the inputs but are not copied again on the way out; on a
//! GPU the inputs are uploaded and the results downloaded within the call.

use arrow_array::{Array, ArrayRef};
use arrow_schema::DataType;
use ragged_core::ops::{Pattern, StringArg};
use ragged_core::{Backend, Column, Error, Host, Result, StringColumn};

pub use crate::device::Device;

pub mod lists;
pub mod primitives;
pub mod sequences;
pub mod strings;
pub mod text;

/// A strings argument given as one value for every row or as an array of one value per
/// row (`Utf8`, `LargeUtf8`, `Utf8View`, dictionary of strings).
#[derive(Clone, Copy, Debug)]
pub enum Text<'a> {
    /// The same value for every row.
    Scalar(&'a str),
    /// Row `i`'s value is the array's row `i`.
    Array(&'a dyn Array),
}

impl<'a> From<&'a str> for Text<'a> {
    fn from(value: &'a str) -> Self {
        Text::Scalar(value)
    }
}

impl<'a> From<&'a String> for Text<'a> {
    fn from(value: &'a String) -> Self {
        Text::Scalar(value)
    }
}

impl<'a> From<&'a dyn Array> for Text<'a> {
    fn from(array: &'a dyn Array) -> Self {
        Text::Array(array)
    }
}

impl<'a> From<&'a ArrayRef> for Text<'a> {
    fn from(array: &'a ArrayRef) -> Self {
        Text::Array(array.as_ref())
    }
}

/// A strings column on the host, of either offset width.
#[derive(Clone, Debug)]
pub(crate) enum HostStrings {
    Utf8(StringColumn<i32, Host>),
    LargeUtf8(StringColumn<i64, Host>),
}

/// `array` as a column ragged holds: zero-copy for the layouts it shares with Arrow,
/// a cast for string views and dictionaries, a compaction for list views.
///
/// # Errors
/// [`Error::TypeMismatch`] naming `what` for a type ragged does not hold.
pub(crate) fn host_column(array: &dyn Array, what: &str) -> Result<Column<Host>> {
    let cast;
    let array = match array.data_type() {
        DataType::Utf8View | DataType::Dictionary(..) => {
            cast = cast_strings(array, what)?;
            cast.as_ref()
        }
        _ => array,
    };
    let column = Column::try_from_arrow(array).map_err(|e| rename(e, what))?;
    use ragged_core::ListOps;
    Ok(match column {
        Column::ListView(c) => Column::List(ragged_cpu::CpuBackend.to_compact(&c)?),
        Column::LargeListView(c) => Column::LargeList(ragged_cpu::CpuBackend.to_compact(&c)?),
        other => other,
    })
}

/// A string view or dictionary array cast to `Utf8` (`LargeUtf8` when its bytes pass
/// `i32::MAX`).
fn cast_strings(array: &dyn Array, what: &str) -> Result<ArrayRef> {
    let value_type = match array.data_type() {
        DataType::Dictionary(_, value) => value.as_ref().clone(),
        other => other.clone(),
    };
    if !matches!(
        value_type,
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
    ) {
        return Err(type_mismatch(what, "strings", array.data_type()));
    }
    let bytes: usize = array
        .to_data()
        .buffers()
        .iter()
        .map(arrow_buffer::Buffer::len)
        .sum();
    let target = if bytes < i32::MAX as usize {
        DataType::Utf8
    } else {
        DataType::LargeUtf8
    };
    arrow_cast::cast(array, &target).map_err(|e| Error::invalid_argument("cast", e.to_string()))
}

/// `array` as a strings column.
///
/// # Errors
/// [`Error::TypeMismatch`] when it holds no strings.
pub(crate) fn host_strings(array: &dyn Array, what: &str) -> Result<HostStrings> {
    match host_column(array, what)? {
        Column::Utf8(c) => Ok(HostStrings::Utf8(c)),
        Column::LargeUtf8(c) => Ok(HostStrings::LargeUtf8(c)),
        _ => Err(type_mismatch(what, "strings", array.data_type())),
    }
}

fn type_mismatch(what: &str, expected: &str, actual: &DataType) -> Error {
    Error::TypeMismatch {
        column: what.into(),
        expected: expected.into(),
        actual: actual.to_string(),
    }
}

/// A type error from the conversion, naming the argument instead of "array".
fn rename(e: Error, what: &str) -> Error {
    match e {
        Error::TypeMismatch {
            expected, actual, ..
        } => Error::TypeMismatch {
            column: what.into(),
            expected,
            actual,
        },
        other => other,
    }
}

/// A check a long call makes between two of its windows (`read_lines`, `count_lines`,
/// `split_lines`, `sketch`): an `Err` stops the call with that error. The Python package
/// passes one that raises `KeyboardInterrupt` when Ctrl-C was pressed; `None` never
/// stops.
pub type Interrupt<'a> = Option<&'a (dyn Fn() -> Result<()> + Sync)>;

/// Runs `interrupt` when there is one.
pub(crate) fn check(interrupt: Interrupt<'_>) -> Result<()> {
    interrupt.map_or(Ok(()), |f| f())
}

/// A [`Text`] on the host, before the upload.
pub(crate) enum HostText<'a> {
    Scalar(&'a str),
    Column(HostStrings),
}

impl<'a> HostText<'a> {
    pub(crate) fn new(text: Text<'a>, what: &str) -> Result<Self> {
        Ok(match text {
            Text::Scalar(s) => HostText::Scalar(s),
            Text::Array(a) => HostText::Column(host_strings(a, what)?),
        })
    }

    /// On the backend's device (columns uploaded; a scalar stays borrowed).
    pub(crate) fn upload<B: Backend>(&self, b: &B) -> Result<DeviceText<'a, B>> {
        Ok(match self {
            HostText::Scalar(s) => DeviceText::Scalar(s),
            HostText::Column(HostStrings::Utf8(c)) => DeviceText::Utf8(b.to_device_strings(c)?),
            HostText::Column(HostStrings::LargeUtf8(c)) => {
                DeviceText::LargeUtf8(b.to_device_strings(c)?)
            }
        })
    }
}

/// A [`Text`] on a backend's device.
pub(crate) enum DeviceText<'a, B: Backend> {
    Scalar(&'a str),
    Utf8(StringColumn<i32, B::Loc>),
    LargeUtf8(StringColumn<i64, B::Loc>),
}

impl<B: Backend> DeviceText<'_, B> {
    /// As a search pattern.
    pub(crate) fn pattern(&self) -> Pattern<'_, B::Loc> {
        match self {
            DeviceText::Scalar(s) => Pattern::Scalar(s),
            DeviceText::Utf8(c) => Pattern::Utf8(c),
            DeviceText::LargeUtf8(c) => Pattern::LargeUtf8(c),
        }
    }

    /// As a strings argument.
    pub(crate) fn arg(&self) -> StringArg<'_, B::Loc> {
        match self {
            DeviceText::Scalar(s) => StringArg::Scalar(Some(s)),
            DeviceText::Utf8(c) => StringArg::Utf8(c),
            DeviceText::LargeUtf8(c) => StringArg::LargeUtf8(c),
        }
    }
}

/// A host column as an arrow-rs array.
pub(crate) fn arrow(column: Column<Host>) -> ArrayRef {
    column.to_arrow()
}

/// Several arrays, shared.
pub(crate) fn arrays(columns: Vec<Column<Host>>) -> Vec<ArrayRef> {
    columns.iter().map(Column::to_arrow).collect()
}
