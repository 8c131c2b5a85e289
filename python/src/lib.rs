//! `ragged._ragged`: the extension module behind the `ragged` Python package. Each
//! function takes Arrow objects (anything with the Arrow PyCapsule interface, NumPy
//! arrays for numbers), a device name, and calls [`ragged::compute`] with the GIL
//! released; results are [`Array`]s, which export the PyCapsule interface themselves.
//! The Python modules (`python/ragged/`) give these functions their documented,
//! typed signatures; errors become the exception classes of `ragged.errors`.

use std::collections::HashMap;
use std::ptr::NonNull;
use std::sync::{Arc, Mutex};

use arrow_array::{Array as _, ArrayRef};
use arrow_schema::{DataType, Field};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyCapsule, PyDict, PyTuple};
use pyo3_arrow::input::AnyArray;
use ragged::compute::{lists, primitives, sequences, strings, text, Device, Text};
use ragged_core::ops::{ConcatNulls, OutOfRange, ScanKind, Search, Side, SplitOn};

/// An Arrow array produced by ragged, in host memory. It implements the Arrow
/// PyCapsule interface (`__arrow_c_array__`), so `pyarrow.array(x)`,
/// `polars.Series(x)` and other Arrow consumers take it without copying.
#[pyclass(module = "ragged", name = "Array", frozen)]
struct Array {
    array: ArrayRef,
}

#[pymethods]
impl Array {
    /// Export as a pair of PyCapsules (Arrow C schema, Arrow C array); the data is
    /// shared, not copied (unless `requested_schema` asks for a cast).
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyCapsule>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let field = Arc::new(Field::new("", self.array.data_type().clone(), true));
        Ok(pyo3_arrow::ffi::to_array_pycapsules(
            py,
            field,
            self.array.as_ref(),
            requested_schema,
        )?)
    }

    fn __len__(&self) -> usize {
        self.array.len()
    }

    /// The Arrow data type, as Arrow's Rust implementation prints it (`Utf8`, `Int64`,
    /// `List(Int32)`, …).
    #[getter]
    fn r#type(&self) -> String {
        self.array.data_type().to_string()
    }

    /// The number of null rows.
    #[getter]
    fn null_count(&self) -> usize {
        self.array.null_count()
    }

    /// The addresses of the array's buffers (the validity bitmap first when present,
    /// then offsets, values, …): for checking that data was shared rather than copied.
    fn buffer_addresses(&self) -> Vec<usize> {
        buffer_addresses(&self.array)
    }

    /// As a `pyarrow.Array`, sharing the buffers (pyarrow must be installed).
    fn to_pyarrow<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        slf.py().import("pyarrow")?.call_method1("array", (slf,))
    }

    /// As a `polars.Series` (Polars must be installed; Polars converts strings to its
    /// own view layout).
    fn to_polars<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        slf.py().import("polars")?.call_method1("Series", (slf,))
    }

    /// As a NumPy array, without copying when the type is a fixed-width number and
    /// there is no null (through pyarrow); other arrays are copied into an object or
    /// float array as pyarrow's `to_numpy(zero_copy_only=False)` does.
    fn to_numpy<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let array = Self::to_pyarrow(slf)?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("zero_copy_only", false)?;
        array.call_method("to_numpy", (), Some(&kwargs))
    }

    fn __repr__(&self) -> String {
        format!(
            "ragged.Array<{}>[{} rows, {} null]",
            self.array.data_type(),
            self.array.len(),
            self.array.null_count()
        )
    }
}

/// The addresses of `array`'s buffers: validity first when present, then the others
/// in Arrow's order (their own, not their children's).
fn buffer_addresses(array: &ArrayRef) -> Vec<usize> {
    let data = array.to_data();
    let mut out = Vec::new();
    if let Some(nulls) = data.nulls() {
        out.push(nulls.buffer().as_ptr() as usize);
    }
    out.extend(data.buffers().iter().map(|b| b.as_ptr() as usize));
    out
}

/// The buffer addresses of `ob` as ragged sees it on the way in
/// ([`Array::buffer_addresses`]): for tests that prove inputs are not copied.
#[pyfunction]
fn input_buffer_addresses(ob: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    Ok(buffer_addresses(&array_in(ob, "array")?))
}

fn wrap(array: ArrayRef) -> Array {
    Array { array }
}

/// Keeps a Python object (a NumPy array) alive while Arrow shares its memory.
struct PythonOwner(#[allow(dead_code)] Py<PyAny>);

// Arrow asks its buffers' owners to be unwind-safe: this one only drops a reference.
impl std::panic::RefUnwindSafe for PythonOwner {}

/// `ob` as an Arrow array: shared, not copied, for ragged's own arrays, objects with
/// `__arrow_c_array__`, single-chunk `__arrow_c_stream__` objects and contiguous NumPy
/// arrays of numbers; a stream of several chunks is concatenated.
fn array_in(ob: &Bound<'_, PyAny>, what: &str) -> PyResult<ArrayRef> {
    if let Ok(own) = ob.cast::<Array>() {
        return Ok(Arc::clone(&own.get().array));
    }
    let py = ob.py();
    let arrow = ob.hasattr(pyo3::intern!(py, "__arrow_c_array__"))?
        || ob.hasattr(pyo3::intern!(py, "__arrow_c_stream__"))?;
    if !arrow && ob.hasattr(pyo3::intern!(py, "__array_interface__"))? {
        return numpy_in(ob, what);
    }
    let any: AnyArray = ob.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "{what}: expected an Arrow array (an object with __arrow_c_array__ or \
             __arrow_c_stream__, such as a pyarrow Array or a Polars Series) or a NumPy \
             array, got {}",
            ob.get_type().name().map_or("?".into(), |n| n.to_string())
        ))
    })?;
    let chunked = any.into_chunked_array()?;
    let chunks = chunked.chunks();
    match chunks.len() {
        1 => Ok(Arc::clone(&chunks[0])),
        0 => Ok(arrow_array::new_empty_array(chunked.field().data_type())),
        _ => {
            let parts: Vec<&dyn arrow_array::Array> = chunks.iter().map(|c| c.as_ref()).collect();
            arrow_select::concat::concat(&parts).map_err(|e| PyValueError::new_err(e.to_string()))
        }
    }
}

/// A one-dimensional, contiguous NumPy array of numbers as an Arrow array sharing its
/// memory (copied only when misaligned for its type).
fn numpy_in(ob: &Bound<'_, PyAny>, what: &str) -> PyResult<ArrayRef> {
    let interface = ob.getattr("__array_interface__")?;
    let interface = interface.cast::<PyDict>()?;
    let get = |key: &str| -> PyResult<Bound<'_, PyAny>> {
        interface
            .get_item(key)?
            .ok_or_else(|| PyValueError::new_err(format!("__array_interface__ has no {key}")))
    };
    let shape: Vec<usize> = get("shape")?.extract()?;
    let [len] = shape[..] else {
        return Err(PyValueError::new_err(format!(
            "{what}: a NumPy array must be one-dimensional, got shape {shape:?}"
        )));
    };
    let strides = get("strides")?;
    let typestr: String = get("typestr")?.extract()?;
    let (address, _readonly): (usize, bool) = get("data")?.extract()?;
    let (data_type, width) = match typestr.trim_start_matches(['<', '=', '|']) {
        "i1" => (DataType::Int8, 1),
        "i2" => (DataType::Int16, 2),
        "i4" => (DataType::Int32, 4),
        "i8" => (DataType::Int64, 8),
        "u1" => (DataType::UInt8, 1),
        "u2" => (DataType::UInt16, 2),
        "u4" => (DataType::UInt32, 4),
        "u8" => (DataType::UInt64, 8),
        "f4" => (DataType::Float32, 4),
        "f8" => (DataType::Float64, 8),
        "b1" => (DataType::Boolean, 1),
        other => {
            return Err(PyTypeError::new_err(format!(
                "{what}: NumPy dtype {other:?} is not a little-endian number ragged holds"
            )))
        }
    };
    let contiguous = strides.is_none() || strides.extract::<Vec<isize>>()? == [width as isize];
    if !contiguous {
        return Err(PyValueError::new_err(format!(
            "{what}: the NumPy array is not contiguous (pass numpy.ascontiguousarray(x))"
        )));
    }
    let bytes = len * width;
    let buffer = match NonNull::new(address as *mut u8) {
        Some(ptr) if address % width == 0 && bytes > 0 => {
            let owner = Arc::new(PythonOwner(ob.clone().unbind()));
            // SAFETY: NumPy's array interface promises `bytes` readable bytes at
            // `address` for as long as the array object lives; `owner` holds a
            // reference to it for as long as the buffer (and every array sharing it)
            // lives. The array is contiguous (checked above) and aligned for its type.
            unsafe { arrow_buffer::Buffer::from_custom_allocation(ptr, bytes, owner) }
        }
        _ => {
            // Empty, or misaligned for its type: copied.
            let slice = if bytes == 0 {
                &[][..]
            } else {
                // SAFETY: NumPy's array interface promises `bytes` readable bytes at
                // `address` while `ob` lives, which it does for this call.
                unsafe { std::slice::from_raw_parts(address as *const u8, bytes) }
            };
            arrow_buffer::Buffer::from(slice.to_vec())
        }
    };
    let data = if data_type == DataType::Boolean {
        // NumPy booleans are bytes; Arrow's are bits.
        let bits: arrow_array::BooleanArray =
            buffer.as_slice().iter().map(|&b| Some(b != 0)).collect();
        return Ok(Arc::new(bits));
    } else {
        arrow_data::ArrayData::builder(data_type)
            .len(len)
            .add_buffer(buffer)
            .build()
            .map_err(|e| PyValueError::new_err(e.to_string()))?
    };
    Ok(arrow_array::make_array(data))
}

/// A strings argument: a Python `str` for every row, or an array.
fn text_in<'a>(
    ob: &'a Bound<'_, PyAny>,
    what: &str,
    keep: &'a mut Option<ArrayRef>,
    value: &'a mut String,
) -> PyResult<Text<'a>> {
    if let Ok(s) = ob.extract::<String>() {
        *value = s;
        return Ok(Text::Scalar(value.as_str()));
    }
    let array: &'a ArrayRef = keep.insert(array_in(ob, what)?);
    Ok(Text::Array(array.as_ref()))
}

/// Devices by name, opened once per process.
static DEVICES: Mutex<Option<HashMap<String, Device>>> = Mutex::new(None);

/// The device named `name` (`auto`, `cpu`, `cuda`, `cuda:N`).
fn device(name: &str) -> PyResult<Device> {
    let mut devices = DEVICES
        .lock()
        .map_err(|_| PyValueError::new_err("the device registry is poisoned"))?;
    let devices = devices.get_or_insert_with(HashMap::new);
    if let Some(d) = devices.get(name) {
        return Ok(d.clone());
    }
    let d = Device::parse(name).map_err(error)?;
    devices.insert(name.to_string(), d.clone());
    Ok(d)
}

/// The exception of `ragged.errors` for a ragged error, carrying its message.
fn error(e: ragged_core::Error) -> PyErr {
    use ragged_core::Error as E;
    let class = match &e {
        E::InvalidOffsets { .. }
        | E::StopsBeforeStarts { .. }
        | E::ListOutOfBounds { .. }
        | E::NegativeSize { .. } => "InvalidOffsetsError",
        E::IndexOutOfRange { .. } => "IndexOutOfRangeError",
        E::LengthMismatch { .. } => "LengthMismatchError",
        E::TypeMismatch { .. } | E::Unsupported { .. } => "TypeMismatchError",
        E::ColumnNotFound { .. } => "ColumnNotFoundError",
        E::Overflow { .. } => "RaggedOverflowError",
        E::OutOfMemory { .. } => "RaggedMemoryError",
        E::Io { .. } => "RaggedIOError",
        E::Format { .. } => "FormatError",
        E::InvalidUtf8 { .. } => "InvalidUtf8Error",
        E::DeviceUnavailable { .. } => "DeviceUnavailableError",
        E::Device { .. } => "DeviceError",
        E::KernelCompile { .. } => "KernelCompileError",
        _ => "InvalidArgumentError",
    };
    let message = e.to_string();
    Python::attach(|py| {
        match py
            .import("ragged.errors")
            .and_then(|m| m.getattr(class))
            .and_then(|c| c.call1((message.clone(),)))
        {
            Ok(instance) => PyErr::from_value(instance),
            Err(import_error) => import_error,
        }
    })
}

/// `op` on the one Arrow input `array` on the device named `device_name`, without the
/// GIL: the shape of most calls.
fn unary(
    py: Python<'_>,
    array: &Bound<'_, PyAny>,
    device_name: &str,
    op: impl FnOnce(&dyn arrow_array::Array, &Device) -> ragged_core::Result<ArrayRef> + Send,
) -> PyResult<Array> {
    let (a, d) = (array_in(array, "array")?, device(device_name)?);
    run(py, || op(a.as_ref(), &d)).map(wrap)
}

/// Run `f` without the GIL, mapping its error.
fn run<T: Send>(py: Python<'_>, f: impl FnOnce() -> ragged_core::Result<T> + Send) -> PyResult<T> {
    py.detach(f).map_err(error)
}

/// As [`run`], for the calls that work in windows (`read_lines`, `count_lines`,
/// `split_lines`, `sketch`): between windows they take the GIL back for a moment to run
/// Python's pending signal handlers, so that Ctrl-C raises `KeyboardInterrupt` (the
/// handler's own exception) there instead of after the whole call.
fn run_interruptible<T: Send>(
    py: Python<'_>,
    f: impl FnOnce(ragged::compute::Interrupt<'_>) -> ragged_core::Result<T> + Send,
) -> PyResult<T> {
    let raised: Mutex<Option<PyErr>> = Mutex::new(None);
    let check = || -> ragged_core::Result<()> {
        Python::attach(|py| py.check_signals()).map_err(|e| {
            if let Ok(mut slot) = raised.lock() {
                *slot = Some(e);
            }
            ragged_core::Error::Interrupted { op: "python call" }
        })
    };
    match py.detach(|| f(Some(&check))) {
        Ok(value) => Ok(value),
        Err(e) => match raised.lock().ok().and_then(|mut slot| slot.take()) {
            Some(signal) => Err(signal),
            None => Err(error(e)),
        },
    }
}

fn side(name: &str) -> PyResult<Side> {
    match name {
        "left" => Ok(Side::Left),
        "right" => Ok(Side::Right),
        "both" => Ok(Side::Both),
        other => Err(PyValueError::new_err(format!(
            "side must be 'left', 'right' or 'both', got {other:?}"
        ))),
    }
}

// ---- strings ---------------------------------------------------------------------

#[pyfunction]
fn strings_length(
    py: Python<'_>,
    array: &Bound<'_, PyAny>,
    bytes: bool,
    device_name: &str,
) -> PyResult<Array> {
    unary(py, array, device_name, |a, d| {
        if bytes {
            strings::length_bytes(a, d)
        } else {
            strings::length(a, d)
        }
    })
}

#[pyfunction]
fn strings_search(
    py: Python<'_>,
    array: &Bound<'_, PyAny>,
    op: &str,
    pattern: &Bound<'_, PyAny>,
    device_name: &str,
) -> PyResult<Array> {
    let op = match op {
        "contains" => Search::Contains,
        "starts_with" => Search::StartsWith,
        "ends_with" => Search::EndsWith,
        "find" => Search::Find,
        "rfind" => Search::Rfind,
        "count_matches" => Search::CountMatches,
        other => return Err(PyValueError::new_err(format!("unknown search {other:?}"))),
    };
    let (a, d) = (array_in(array, "array")?, device(device_name)?);
    let (mut keep, mut value) = (None, String::new());
    let p = text_in(pattern, "pattern", &mut keep, &mut value)?;
    run(py, || strings::search(&a, op, p, &d)).map(wrap)
}

#[pyfunction]
#[pyo3(signature = (array, pattern, escape, device_name))]
fn strings_like(
    py: Python<'_>,
    array: &Bound<'_, PyAny>,
    pattern: &str,
    escape: Option<char>,
    device_name: &str,
) -> PyResult<Array> {
    unary(py, array, device_name, |a, d| {
        strings::like(a, pattern, escape, d)
    })
}

#[pyfunction]
#[pyo3(signature = (array, start, stop, bytes, device_name))]
fn strings_slice(
    py: Python<'_>,
    array: &Bound<'_, PyAny>,
    start: Option<i64>,
    stop: Option<i64>,
    bytes: bool,
    device_name: &str,
) -> PyResult<Array> {
    unary(py, array, device_name, |a, d| {
        if bytes {
            strings::slice_bytes(a, start, stop, d)
        } else {
            strings::slice_chars(a, start, stop, d)
        }
    })
}

#[pyfunction]
fn strings_case(
    py: Python<'_>,
    array: &Bound<'_, PyAny>,
    upper: bool,
    device_name: &str,
) -> PyResult<Array> {
    unary(py, array, device_name, |a, d| {
        if upper {
            strings::upper(a, d)
        } else {
            strings::lower(a, d)
        }
    })
}

#[pyfunction]
#[pyo3(signature = (array, side_name, chars, device_name))]
fn strings_strip(
    py: Python<'_>,
    array: &Bound<'_, PyAny>,
    side_name: &str,
    chars: Option<String>,
    device_name: &str,
) -> PyResult<Array> {
    let s = side(side_name)?;
    unary(py, array, device_name, |a, d| {
        strings::strip(a, s, chars.as_deref(), d)
    })
}

#[pyfunction]
fn strings_pad(
    py: Python<'_>,
    array: &Bound<'_, PyAny>,
    width: usize,
    side_name: &str,
    fill: char,
    device_name: &str,
) -> PyResult<Array> {
    let s = side(side_name)?;
    unary(py, array, device_name, |a, d| {
        strings::pad(a, width, s, fill, d)
    })
}

#[pyfunction]
fn strings_repeat(
    py: Python<'_>,
    array: &Bound<'_, PyAny>,
    times: usize,
    device_name: &str,
) -> PyResult<Array> {
    unary(py, array, device_name, |a, d| strings::repeat(a, times, d))
}

#[pyfunction]
#[pyo3(signature = (array, pattern, replacement, max_count, device_name))]
fn strings_replace(
    py: Python<'_>,
    array: &Bound<'_, PyAny>,
    pattern: &str,
    replacement: &str,
    max_count: Option<usize>,
    device_name: &str,
) -> PyResult<Array> {
    unary(py, array, device_name, |a, d| {
        strings::replace(a, pattern, replacement, max_count, d)
    })
}

/// Where to cut: a literal, or runs of ASCII whitespace for `None`.
fn split_on(separator: Option<&str>) -> SplitOn<'_> {
    match separator {
        Some(s) => SplitOn::Literal(s),
        None => SplitOn::Whitespace,
    }
}

#[pyfunction]
#[pyo3(signature = (array, separator, max_splits, from_right, device_name))]
fn strings_split(
    py: Python<'_>,
    array: &Bound<'_, PyAny>,
    separator: Option<String>,
    max_splits: Option<usize>,
    from_right: bool,
    device_name: &str,
) -> PyResult<Vec<Array>> {
    let (a, d) = (array_in(array, "array")?, device(device_name)?);
    let on = split_on(separator.as_deref());
    let parts = run(py, || strings::split(&a, on, max_splits, from_right, &d))?;
    Ok(parts.into_iter().map(wrap).collect())
}

#[pyfunction]
#[pyo3(signature = (array, separator, max_splits, from_right, device_name))]
fn strings_split_record(
    py: Python<'_>,
    array: &Bound<'_, PyAny>,
    separator: Option<String>,
    max_splits: Option<usize>,
    from_right: bool,
    device_name: &str,
) -> PyResult<Array> {
    let on = split_on(separator.as_deref());
    unary(py, array, device_name, |a, d| {
        strings::split_record(a, on, max_splits, from_right, d)
    })
}

#[pyfunction]
fn strings_join(
    py: Python<'_>,
    array: &Bound<'_, PyAny>,
    separator: &str,
    device_name: &str,
) -> PyResult<Array> {
    unary(py, array, device_name, |a, d| {
        strings::join(a, separator, d)
    })
}

#[pyfunction]
fn redact(
    py: Python<'_>,
    names: &Bound<'_, PyAny>,
    visibility: &Bound<'_, PyAny>,
    device_name: &str,
) -> PyResult<Array> {
    let (a, d) = (array_in(names, "names")?, device(device_name)?);
    let (mut keep, mut value) = (None, String::new());
    let v = text_in(visibility, "visibility", &mut keep, &mut value)?;
    run(py, || strings::redact(&a, v, &d)).map(wrap)
}

/// The arguments of `concatenate` / `copy_if_else` held for the call.
struct Texts {
    arrays: Vec<Option<ArrayRef>>,
    values: Vec<Option<String>>,
}

impl Texts {
    fn new(items: &[Bound<'_, PyAny>], what: &str) -> PyResult<Self> {
        let mut texts = Texts {
            arrays: Vec::new(),
            values: Vec::new(),
        };
        for item in items {
            if let Ok(s) = item.extract::<String>() {
                texts.arrays.push(None);
                texts.values.push(Some(s));
            } else {
                texts.arrays.push(Some(array_in(item, what)?));
                texts.values.push(None);
            }
        }
        Ok(texts)
    }

    fn get(&self) -> Vec<Text<'_>> {
        self.arrays
            .iter()
            .zip(&self.values)
            .map(|(a, v)| match (a, v) {
                (Some(a), _) => Text::Array(a.as_ref()),
                (None, Some(v)) => Text::Scalar(v.as_str()),
                (None, None) => Text::Scalar(""),
            })
            .collect()
    }
}

#[pyfunction]
#[pyo3(signature = (columns, separator, nulls, null_replacement, device_name))]
fn strings_concatenate(
    py: Python<'_>,
    columns: Vec<Bound<'_, PyAny>>,
    separator: &str,
    nulls: &str,
    null_replacement: Option<String>,
    device_name: &str,
) -> PyResult<Array> {
    let d = device(device_name)?;
    let texts = Texts::new(&columns, "columns")?;
    let nulls = match (nulls, null_replacement.as_deref()) {
        ("null", _) => ConcatNulls::Null,
        ("skip", _) => ConcatNulls::Skip,
        ("replace", Some(r)) => ConcatNulls::Replace(r),
        _ => {
            return Err(PyValueError::new_err(
                "nulls must be 'null', 'skip', or a replacement string",
            ))
        }
    };
    let args = texts.get();
    run(py, || strings::concatenate(&args, separator, nulls, &d)).map(wrap)
}

#[pyfunction]
#[pyo3(signature = (source, inputs, rows, device_name))]
fn strings_transform(
    py: Python<'_>,
    source: &str,
    inputs: Vec<Bound<'_, PyAny>>,
    rows: Option<usize>,
    device_name: &str,
) -> PyResult<Array> {
    let d = device(device_name)?;
    let texts = Texts::new(&inputs, "inputs")?;
    let args = texts.get();
    run(py, || strings::transform_strings(source, &args, rows, &d)).map(wrap)
}

#[pyfunction]
fn strings_append(
    py: Python<'_>,
    columns: Vec<Bound<'_, PyAny>>,
    device_name: &str,
) -> PyResult<Array> {
    let d = device(device_name)?;
    let arrays = columns
        .iter()
        .map(|c| array_in(c, "columns"))
        .collect::<PyResult<Vec<_>>>()?;
    let refs: Vec<&dyn arrow_array::Array> = arrays.iter().map(|a| a.as_ref()).collect();
    run(py, || strings::append(&refs, &d)).map(wrap)
}

#[pyfunction]
fn strings_copy_if_else(
    py: Python<'_>,
    mask: &Bound<'_, PyAny>,
    then: Bound<'_, PyAny>,
    otherwise: Bound<'_, PyAny>,
    device_name: &str,
) -> PyResult<Array> {
    let (m, d) = (array_in(mask, "mask")?, device(device_name)?);
    let texts = Texts::new(&[then, otherwise], "then/otherwise")?;
    let args = texts.get();
    run(py, || strings::copy_if_else(&m, args[0], args[1], &d)).map(wrap)
}

// ---- lists -----------------------------------------------------------------------

#[pyfunction]
fn lists_op(
    py: Python<'_>,
    array: &Bound<'_, PyAny>,
    op: &str,
    device_name: &str,
) -> PyResult<Array> {
    use lists::Reduction as R;
    let reduction = match op {
        "counts" | "flatten" | "local_index" => None,
        "sum" => Some(R::Sum),
        "prod" => Some(R::Prod),
        "min" => Some(R::Min),
        "max" => Some(R::Max),
        "argmin" => Some(R::Argmin),
        "argmax" => Some(R::Argmax),
        "count" => Some(R::Count),
        "count_nonzero" => Some(R::CountNonzero),
        "any" => Some(R::Any),
        "all" => Some(R::All),
        "mean" => Some(R::Mean),
        other => return Err(PyValueError::new_err(format!("unknown lists op {other:?}"))),
    };
    unary(py, array, device_name, |a, d| match (reduction, op) {
        (Some(r), _) => lists::reduce(a, r, d),
        (None, "counts") => lists::counts(a, d),
        (None, "flatten") => lists::flatten(a, d),
        (None, _) => lists::local_index(a, d),
    })
}

#[pyfunction]
fn lists_get(
    py: Python<'_>,
    array: &Bound<'_, PyAny>,
    index: i64,
    strict: bool,
    device_name: &str,
) -> PyResult<Array> {
    let mode = if strict {
        OutOfRange::Error
    } else {
        OutOfRange::Null
    };
    unary(py, array, device_name, |a, d| lists::get(a, index, mode, d))
}

#[pyfunction]
#[pyo3(signature = (array, start, stop, device_name))]
fn lists_slice(
    py: Python<'_>,
    array: &Bound<'_, PyAny>,
    start: Option<i64>,
    stop: Option<i64>,
    device_name: &str,
) -> PyResult<Array> {
    unary(py, array, device_name, |a, d| {
        lists::slice(a, start, stop, d)
    })
}

#[pyfunction]
fn lists_compact_offsets(
    py: Python<'_>,
    starts: &Bound<'_, PyAny>,
    stops: &Bound<'_, PyAny>,
    child_len: usize,
    device_name: &str,
) -> PyResult<(Array, i64)> {
    let (a, z, d) = (
        array_in(starts, "starts")?,
        array_in(stops, "stops")?,
        device(device_name)?,
    );
    let (offsets, total) = run(py, || lists::compact_offsets(&a, &z, child_len, &d))?;
    Ok((wrap(offsets), total))
}

// ---- primitives ------------------------------------------------------------------

/// Row 0 of a one-row numeric array as a Python number (`None` when null).
fn scalar(py: Python<'_>, array: &ArrayRef) -> PyResult<Py<PyAny>> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::*;
    if array.is_null(0) {
        return Ok(py.None());
    }
    macro_rules! num {
        ($t:ty) => {
            array
                .as_primitive::<$t>()
                .value(0)
                .into_pyobject(py)?
                .into_any()
                .unbind()
        };
    }
    Ok(match array.data_type() {
        DataType::Int8 => num!(Int8Type),
        DataType::Int16 => num!(Int16Type),
        DataType::Int32 => num!(Int32Type),
        DataType::Int64 => num!(Int64Type),
        DataType::UInt8 => num!(UInt8Type),
        DataType::UInt16 => num!(UInt16Type),
        DataType::UInt32 => num!(UInt32Type),
        DataType::UInt64 => num!(UInt64Type),
        DataType::Float32 => num!(Float32Type),
        DataType::Float64 => num!(Float64Type),
        other => {
            return Err(PyTypeError::new_err(format!(
                "no Python number for {other}"
            )))
        }
    })
}

#[pyfunction]
fn reduce(
    py: Python<'_>,
    array: &Bound<'_, PyAny>,
    op: &str,
    device_name: &str,
) -> PyResult<Py<PyAny>> {
    let aggregate = aggregate(op)?;
    let (a, d) = (array_in(array, "array")?, device(device_name)?);
    let one = run(py, || primitives::reduce(&a, aggregate, &d))?;
    scalar(py, &one)
}

/// The aggregate named `op`.
fn aggregate(op: &str) -> PyResult<primitives::Aggregate> {
    use primitives::Aggregate as A;
    Ok(match op {
        "sum" => A::Sum,
        "min" => A::Min,
        "max" => A::Max,
        "argmin" => A::Argmin,
        "argmax" => A::Argmax,
        "count" => A::Count,
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown reduction {other:?}"
            )))
        }
    })
}

#[pyfunction]
fn select(
    py: Python<'_>,
    array: &Bound<'_, PyAny>,
    mask: &Bound<'_, PyAny>,
    device_name: &str,
) -> PyResult<Array> {
    let (a, m, d) = (
        array_in(array, "array")?,
        array_in(mask, "mask")?,
        device(device_name)?,
    );
    run(py, || primitives::select(&a, &m, &d)).map(wrap)
}

#[pyfunction]
fn segmented(
    py: Python<'_>,
    array: &Bound<'_, PyAny>,
    offsets: &Bound<'_, PyAny>,
    op: &str,
    device_name: &str,
) -> PyResult<Array> {
    let agg = aggregate(op)?;
    let (a, o, d) = (
        array_in(array, "array")?,
        array_in(offsets, "offsets")?,
        device(device_name)?,
    );
    run(py, || primitives::segmented(&a, &o, agg, &d)).map(wrap)
}

#[pyfunction]
fn scan(
    py: Python<'_>,
    array: &Bound<'_, PyAny>,
    op: &str,
    exclusive: bool,
    device_name: &str,
) -> PyResult<Array> {
    use primitives::Scan as S;
    let scan = match op {
        "sum" => S::Sum,
        "min" => S::Min,
        "max" => S::Max,
        other => return Err(PyValueError::new_err(format!("unknown scan {other:?}"))),
    };
    let kind = if exclusive {
        ScanKind::Exclusive
    } else {
        ScanKind::Inclusive
    };
    unary(py, array, device_name, |a, d| {
        primitives::scan(a, scan, kind, d)
    })
}

// ---- lines -----------------------------------------------------------------------

/// The line options of a Python call: the delimiter as given (`"\n"` is newline mode,
/// stripping a `\r` before it; `"\r\n"` exactly that; anything else its bytes).
fn line_options(
    delimiter: &Bound<'_, PyAny>,
    keep_delimiter: bool,
    byte_range: Option<(u64, u64)>,
) -> PyResult<ragged_core::ops::LineOptions> {
    use ragged_core::ops::{Delimiter, LineOptions};
    let bytes: Vec<u8> = match delimiter.extract::<String>() {
        Ok(s) => s.into_bytes(),
        Err(_) => delimiter
            .extract::<Vec<u8>>()
            .map_err(|_| PyTypeError::new_err("delimiter must be a str or bytes"))?,
    };
    let delimiter = match bytes.as_slice() {
        b"\n" => Delimiter::Newline,
        b"\r\n" => Delimiter::CrLf,
        _ => Delimiter::Bytes(bytes),
    };
    let mut options = LineOptions::new(delimiter).with_keep_delimiter(keep_delimiter);
    if let Some((start, end)) = byte_range {
        options = options.with_byte_range(start, end);
    }
    Ok(options)
}

#[pyfunction]
#[pyo3(signature = (path, delimiter, keep_delimiter, byte_range, chunk_size, batch, device_name))]
#[allow(clippy::too_many_arguments)]
fn read_lines(
    py: Python<'_>,
    path: std::path::PathBuf,
    delimiter: &Bound<'_, PyAny>,
    keep_delimiter: bool,
    byte_range: Option<(u64, u64)>,
    chunk_size: usize,
    batch: bool,
    device_name: &str,
) -> PyResult<Array> {
    let options = line_options(delimiter, keep_delimiter, byte_range)?;
    let d = device(device_name)?;
    run_interruptible(py, |stop| {
        if batch {
            text::read_lines_batch(&path, &options, chunk_size, &d, stop)
        } else {
            text::read_lines(&path, &options, chunk_size, &d, stop)
        }
    })
    .map(wrap)
}

/// `ob`'s bytes as an Arrow buffer: a `bytes` object shared, not copied (kept alive by
/// the buffer); any other bytes-like object (`bytearray`, `memoryview`, …) copied once
/// through `bytes(ob)`, since the stable ABI of Python 3.10 has no buffer protocol.
fn bytes_in(ob: &Bound<'_, PyAny>) -> PyResult<arrow_buffer::ScalarBuffer<u8>> {
    let bytes = match ob.cast::<PyBytes>() {
        Ok(b) => b.clone(),
        Err(_) => {
            let builtins = ob.py().import("builtins")?;
            builtins
                .getattr("bytes")?
                .call1((ob,))
                .map_err(|_| {
                    PyTypeError::new_err(format!(
                        "data: expected bytes or a bytes-like object, got {}",
                        ob.get_type().name().map_or("?".into(), |n| n.to_string())
                    ))
                })?
                .cast_into::<PyBytes>()?
        }
    };
    let slice = bytes.as_bytes();
    let buffer = match NonNull::new(slice.as_ptr().cast_mut()) {
        Some(ptr) if !slice.is_empty() => {
            let len = slice.len();
            let owner = Arc::new(PythonOwner(bytes.into_any().unbind()));
            // SAFETY: a `bytes` object is immutable and its `len` bytes stay at `ptr`
            // for as long as the object lives; `owner` holds a reference to it for as
            // long as the buffer (and every slice of it) lives.
            unsafe { arrow_buffer::Buffer::from_custom_allocation(ptr, len, owner) }
        }
        _ => arrow_buffer::Buffer::from(Vec::<u8>::new()),
    };
    Ok(arrow_buffer::ScalarBuffer::from(buffer))
}

#[pyfunction]
#[pyo3(signature = (data, delimiter, keep_delimiter, byte_range, chunk_size, device_name))]
#[allow(clippy::too_many_arguments)]
fn split_lines(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    delimiter: &Bound<'_, PyAny>,
    keep_delimiter: bool,
    byte_range: Option<(u64, u64)>,
    chunk_size: usize,
    device_name: &str,
) -> PyResult<Array> {
    let options = line_options(delimiter, keep_delimiter, byte_range)?;
    let d = device(device_name)?;
    let bytes = bytes_in(data)?;
    run_interruptible(py, |stop| {
        text::split_lines(bytes, &options, chunk_size, &d, stop)
    })
    .map(wrap)
}

#[pyfunction]
#[pyo3(signature = (path, delimiter, byte_range, chunk_size, device_name))]
fn count_lines(
    py: Python<'_>,
    path: std::path::PathBuf,
    delimiter: &Bound<'_, PyAny>,
    byte_range: Option<(u64, u64)>,
    chunk_size: usize,
    device_name: &str,
) -> PyResult<u64> {
    let options = line_options(delimiter, false, byte_range)?;
    let d = device(device_name)?;
    run_interruptible(py, |stop| {
        text::count_lines(&path, &options, chunk_size, &d, stop)
    })
}

// ---- sequences -------------------------------------------------------------------

fn sketch_options(
    t: usize,
    dim: usize,
    seed: u64,
    alphabet: &str,
) -> PyResult<sequences::SketchOptions> {
    Ok(sequences::SketchOptions {
        t,
        dim,
        seed,
        alphabet: ragged_core::ops::Alphabet::parse(alphabet).map_err(error)?,
    })
}

#[pyfunction]
fn sketch(
    py: Python<'_>,
    sequences_array: &Bound<'_, PyAny>,
    t: usize,
    dim: usize,
    seed: u64,
    alphabet: &str,
    device_name: &str,
) -> PyResult<Array> {
    let options = sketch_options(t, dim, seed, alphabet)?;
    let (a, d) = (
        array_in(sequences_array, "sequences")?,
        device(device_name)?,
    );
    run_interruptible(py, |stop| sequences::sketch(&a, &options, &d, stop)).map(wrap)
}

#[pyfunction]
fn sketch_file(
    py: Python<'_>,
    path: std::path::PathBuf,
    t: usize,
    dim: usize,
    seed: u64,
    alphabet: &str,
    device_name: &str,
) -> PyResult<(Array, Array)> {
    let options = sketch_options(t, dim, seed, alphabet)?;
    let d = device(device_name)?;
    let (names, sketches) =
        run_interruptible(py, |stop| sequences::sketch_file(&path, &options, &d, stop))?;
    Ok((wrap(names), wrap(sketches)))
}

#[pyfunction]
#[pyo3(signature = (queries, references, device_name))]
fn pairwise_distances(
    py: Python<'_>,
    queries: &Bound<'_, PyAny>,
    references: Option<&Bound<'_, PyAny>>,
    device_name: &str,
) -> PyResult<Array> {
    let q = array_in(queries, "queries")?;
    let r = references.map(|r| array_in(r, "references")).transpose()?;
    let d = device(device_name)?;
    run(py, || sequences::pairwise_distances(&q, r.as_deref(), &d)).map(wrap)
}

// ---- benchmarks --------------------------------------------------------------------

/// The median nanoseconds of `repeats` calls of `ragged::compute::strings::length` on
/// `array`, timed inside Rust: the floor the Python call's overhead is measured
/// against (`python/benchmarks/bench.py`).
#[pyfunction]
fn time_length_ns(
    py: Python<'_>,
    array: &Bound<'_, PyAny>,
    repeats: usize,
    device_name: &str,
) -> PyResult<u64> {
    let (a, d) = (array_in(array, "array")?, device(device_name)?);
    run(py, || {
        let mut times = Vec::with_capacity(repeats.max(1));
        for _ in 0..repeats.max(1) {
            let started = std::time::Instant::now();
            strings::length(&a, &d)?;
            times.push(started.elapsed().as_nanos() as u64);
        }
        times.sort_unstable();
        Ok(times[times.len() / 2])
    })
}

// ---- the rest --------------------------------------------------------------------

/// The report of `ragged info`: version, backends, devices or why none, toolkit.
#[pyfunction]
fn info(py: Python<'_>) -> String {
    py.detach(|| ragged::info::system_info(&ragged::CudaOptions::default(), false).text)
}

/// A one-line description of the device named `device_name`.
#[pyfunction]
fn describe_device(device_name: &str) -> PyResult<String> {
    Ok(device(device_name)?.describe())
}

#[pymodule]
fn _ragged(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<Array>()?;
    m.add_function(wrap_pyfunction!(strings_length, m)?)?;
    m.add_function(wrap_pyfunction!(strings_search, m)?)?;
    m.add_function(wrap_pyfunction!(strings_like, m)?)?;
    m.add_function(wrap_pyfunction!(strings_slice, m)?)?;
    m.add_function(wrap_pyfunction!(strings_case, m)?)?;
    m.add_function(wrap_pyfunction!(strings_strip, m)?)?;
    m.add_function(wrap_pyfunction!(strings_pad, m)?)?;
    m.add_function(wrap_pyfunction!(strings_repeat, m)?)?;
    m.add_function(wrap_pyfunction!(strings_replace, m)?)?;
    m.add_function(wrap_pyfunction!(strings_split, m)?)?;
    m.add_function(wrap_pyfunction!(strings_split_record, m)?)?;
    m.add_function(wrap_pyfunction!(strings_join, m)?)?;
    m.add_function(wrap_pyfunction!(strings_concatenate, m)?)?;
    m.add_function(wrap_pyfunction!(strings_append, m)?)?;
    m.add_function(wrap_pyfunction!(strings_transform, m)?)?;
    m.add_function(wrap_pyfunction!(strings_copy_if_else, m)?)?;
    m.add_function(wrap_pyfunction!(redact, m)?)?;
    m.add_function(wrap_pyfunction!(lists_op, m)?)?;
    m.add_function(wrap_pyfunction!(lists_get, m)?)?;
    m.add_function(wrap_pyfunction!(lists_slice, m)?)?;
    m.add_function(wrap_pyfunction!(lists_compact_offsets, m)?)?;
    m.add_function(wrap_pyfunction!(reduce, m)?)?;
    m.add_function(wrap_pyfunction!(scan, m)?)?;
    m.add_function(wrap_pyfunction!(select, m)?)?;
    m.add_function(wrap_pyfunction!(segmented, m)?)?;
    m.add_function(wrap_pyfunction!(read_lines, m)?)?;
    m.add_function(wrap_pyfunction!(count_lines, m)?)?;
    m.add_function(wrap_pyfunction!(split_lines, m)?)?;
    m.add_function(wrap_pyfunction!(sketch, m)?)?;
    m.add_function(wrap_pyfunction!(sketch_file, m)?)?;
    m.add_function(wrap_pyfunction!(pairwise_distances, m)?)?;
    m.add_function(wrap_pyfunction!(time_length_ns, m)?)?;
    m.add_function(wrap_pyfunction!(info, m)?)?;
    m.add_function(wrap_pyfunction!(input_buffer_addresses, m)?)?;
    m.add_function(wrap_pyfunction!(describe_device, m)?)?;
    Ok(())
}
