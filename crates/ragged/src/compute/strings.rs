//! The strings family on arrow-rs arrays (`Utf8`, `LargeUtf8`; views and dictionaries
//! are cast first). Named as the ops of [`ragged_core::ops::StringOps`]; where
//! `pyarrow.compute` has an equivalent its name is given. Null rows stay null unless
//! an op says otherwise. Outputs whose byte lengths may change take the device's
//! offset width ([`Device::with_offset_width`]); the others keep the input's.

use arrow_array::{Array, ArrayRef};
use ragged_core::ops::{ConcatNulls, Search, Side, SliceBounds, SplitOn, StringArg};
use ragged_core::{Backend, Column, Host, Memory, Result, StringOps};

use super::{arrays, arrow, host_column, host_strings, Device, HostStrings, HostText, Text};
use crate::with_backend;

/// Run `$body` with `$b` the device's backend and `$c` the strings column `$array`
/// (either offset width) on that device; `$body` gives a host [`Column`].
macro_rules! on_strings {
    ($device:expr, $array:expr, |$b:ident, $c:ident| $body:expr) => {{
        let host = host_strings($array, "array")?;
        let column: Column<Host> = with_backend!($device.backend(), |$b| match &host {
            HostStrings::Utf8(h) => {
                let $c = &$b.to_device_strings(h)?;
                $body
            }
            HostStrings::LargeUtf8(h) => {
                let $c = &$b.to_device_strings(h)?;
                $body
            }
        });
        Ok(arrow(column))
    }};
}

/// Characters per row, as the input's offset type (`pyarrow.compute.utf8_length`).
///
/// # Errors
/// [`ragged_core::Error::TypeMismatch`] when `array` holds no strings; device errors.
pub fn length(array: &dyn Array, device: &Device) -> Result<ArrayRef> {
    on_strings!(device, array, |b, c| b.to_host(&b.length(c)?.into())?)
}

/// Bytes per row, as the input's offset type (`pyarrow.compute.binary_length`).
///
/// # Errors
/// As [`length`].
pub fn length_bytes(array: &dyn Array, device: &Device) -> Result<ArrayRef> {
    on_strings!(device, array, |b, c| b
        .to_host(&b.length_bytes(c)?.into())?)
}

/// One of the literal searches: whether each row contains, starts or ends with the
/// pattern (booleans), or where it is first or last found (-1 when not), or how many
/// non-overlapping times it occurs (the input's offset type). The pattern is one
/// literal for every row or an array of one per row; an empty pattern matches
/// everywhere.
///
/// # Errors
/// [`ragged_core::Error::TypeMismatch`] for non-strings;
/// [`ragged_core::Error::LengthMismatch`] when a pattern array has another length.
pub fn search<'a>(
    array: &dyn Array,
    op: Search,
    pattern: impl Into<Text<'a>>,
    device: &Device,
) -> Result<ArrayRef> {
    let pattern = HostText::new(pattern.into(), "pattern")?;
    on_strings!(device, array, |b, c| {
        let p = pattern.upload(b)?;
        let p = p.pattern();
        match op {
            Search::Contains => b.to_host(&b.contains(c, p)?.into())?,
            Search::StartsWith => b.to_host(&b.starts_with(c, p)?.into())?,
            Search::EndsWith => b.to_host(&b.ends_with(c, p)?.into())?,
            Search::Find => b.to_host(&b.find(c, p)?.into())?,
            Search::Rfind => b.to_host(&b.rfind(c, p)?.into())?,
            Search::CountMatches => b.to_host(&b.count_matches(c, p)?.into())?,
        }
    })
}

/// One public function per literal search, each [`search`] with its [`Search`].
macro_rules! searches {
    ($($(#[doc = $doc:literal])* $name:ident => $op:ident;)*) => {$(
        $(#[doc = $doc])*
        ///
        /// # Errors
        /// As [`search`].
        pub fn $name<'a>(
            array: &dyn Array,
            pattern: impl Into<Text<'a>>,
            device: &Device,
        ) -> Result<ArrayRef> {
            search(array, Search::$op, pattern, device)
        }
    )*};
}

searches! {
    /// Whether each row contains the pattern (`pyarrow.compute.match_substring`).
    contains => Contains;
    /// Whether each row starts with the pattern (`pyarrow.compute.starts_with`).
    starts_with => StartsWith;
    /// Whether each row ends with the pattern (`pyarrow.compute.ends_with`).
    ends_with => EndsWith;
    /// The character position of the pattern's first occurrence, -1 when absent
    /// (`pyarrow.compute.find_substring` counts bytes; this counts characters).
    find => Find;
    /// The character position of the pattern's last occurrence, -1 when absent.
    rfind => Rfind;
    /// Non-overlapping occurrences of the pattern per row
    /// (`pyarrow.compute.count_substring`).
    count_matches => CountMatches;
}

/// SQL `LIKE` (`%` any run, `_` one character, `escape` before either takes it
/// literally) over whole rows (`pyarrow.compute.match_like`).
///
/// # Errors
/// [`ragged_core::Error::InvalidArgument`] for a pattern ending in the escape.
pub fn like(
    array: &dyn Array,
    pattern: &str,
    escape: Option<char>,
    device: &Device,
) -> Result<ArrayRef> {
    on_strings!(device, array, |b, c| b
        .to_host(&b.like(c, pattern, escape)?.into())?)
}

/// `row[start:stop]` by characters, Python's rules (negative counts from the end,
/// `None` the start or end; `pyarrow.compute.utf8_slice_codeunits`).
///
/// # Errors
/// As [`length`].
pub fn slice_chars(
    array: &dyn Array,
    start: Option<i64>,
    stop: Option<i64>,
    device: &Device,
) -> Result<ArrayRef> {
    on_strings!(device, array, |b, c| b.to_host(
        &b.slice_chars(c, SliceBounds::Scalar { start, stop })?
            .into()
    )?)
}

/// `row[start:stop]` by bytes (`pyarrow.compute.binary_slice`); a cut inside a
/// character is an error, as the result must stay UTF-8.
///
/// # Errors
/// [`ragged_core::Error::InvalidUtf8`] when a bound cuts a character.
pub fn slice_bytes(
    array: &dyn Array,
    start: Option<i64>,
    stop: Option<i64>,
    device: &Device,
) -> Result<ArrayRef> {
    on_strings!(device, array, |b, c| b.to_host(
        &b.slice_bytes(c, SliceBounds::Scalar { start, stop })?
            .into()
    )?)
}

/// Unicode simple uppercase mapping of every character (`pyarrow.compute.utf8_upper`,
/// which differs only in "ß").
///
/// # Errors
/// [`ragged_core::Error::Overflow`] when the output passes the offset width.
pub fn upper(array: &dyn Array, device: &Device) -> Result<ArrayRef> {
    let w = device.offset_width();
    on_strings!(device, array, |b, c| b
        .to_host(&b.upper(c, w)?.into_column())?)
}

/// Unicode simple lowercase mapping of every character (`pyarrow.compute.utf8_lower`).
///
/// # Errors
/// As [`upper`].
pub fn lower(array: &dyn Array, device: &Device) -> Result<ArrayRef> {
    let w = device.offset_width();
    on_strings!(device, array, |b, c| b
        .to_host(&b.lower(c, w)?.into_column())?)
}

/// The row without leading (`Side::Left`), trailing or both runs of `chars` (`None`:
/// ASCII whitespace; `pyarrow.compute.utf8_trim`, `utf8_trim_whitespace`).
///
/// # Errors
/// As [`length`].
pub fn strip(
    array: &dyn Array,
    side: Side,
    chars: Option<&str>,
    device: &Device,
) -> Result<ArrayRef> {
    on_strings!(device, array, |b, c| b
        .to_host(&b.strip(c, side, chars)?.into())?)
}

/// The row padded with `fill` to `width_chars` characters (`Side::Left` right-aligns;
/// `pyarrow.compute.utf8_lpad`, `utf8_rpad`, `utf8_center`).
///
/// # Errors
/// As [`upper`].
pub fn pad(
    array: &dyn Array,
    width_chars: usize,
    side: Side,
    fill: char,
    device: &Device,
) -> Result<ArrayRef> {
    let w = device.offset_width();
    on_strings!(device, array, |b, c| b
        .to_host(&b.pad(c, width_chars, side, fill, w)?.into_column())?)
}

/// The row repeated `times` times (`pyarrow.compute.binary_repeat`).
///
/// # Errors
/// As [`upper`].
pub fn repeat(array: &dyn Array, times: usize, device: &Device) -> Result<ArrayRef> {
    let w = device.offset_width();
    on_strings!(device, array, |b, c| b
        .to_host(&b.repeat(c, times, w)?.into_column())?)
}

/// Occurrences of the literal `pattern` replaced by `replacement`, at most `max_count`
/// per row (`pyarrow.compute.replace_substring`).
///
/// # Errors
/// [`ragged_core::Error::InvalidArgument`] for an empty pattern; as [`upper`].
pub fn replace(
    array: &dyn Array,
    pattern: &str,
    replacement: &str,
    max_count: Option<usize>,
    device: &Device,
) -> Result<ArrayRef> {
    let w = device.offset_width();
    on_strings!(device, array, |b, c| b.to_host(
        &b.replace(c, pattern, replacement, max_count, w)?
            .into_column()
    )?)
}

/// The parts of each row cut at `on` (at most `max_splits` cuts, from the right with
/// `from_right`), as one list per row (`pyarrow.compute.split_pattern`,
/// `utf8_split_whitespace`).
///
/// # Errors
/// [`ragged_core::Error::InvalidArgument`] for an empty literal; as [`length`].
pub fn split_record(
    array: &dyn Array,
    on: SplitOn<'_>,
    max_splits: Option<usize>,
    from_right: bool,
    device: &Device,
) -> Result<ArrayRef> {
    on_strings!(device, array, |b, c| {
        let lists = if from_right {
            b.rsplit_record(c, on, max_splits)?
        } else {
            b.split_record(c, on, max_splits)?
        };
        b.to_host(&lists.into())?
    })
}

/// The parts of each row cut at `on` as columns: part `k` of every row in column `k`
/// (null where a row has fewer parts), as cuDF's `split`.
///
/// # Errors
/// As [`split_record`].
pub fn split(
    array: &dyn Array,
    on: SplitOn<'_>,
    max_splits: Option<usize>,
    from_right: bool,
    device: &Device,
) -> Result<Vec<ArrayRef>> {
    let host = host_strings(array, "array")?;
    let columns: Vec<Column<Host>> = with_backend!(device.backend(), |b| {
        macro_rules! parts {
            ($h:expr) => {{
                let c = b.to_device_strings($h)?;
                let parts = if from_right {
                    b.rsplit(&c, on, max_splits)?
                } else {
                    b.split(&c, on, max_splits)?
                };
                parts
                    .into_iter()
                    .map(|p| b.to_host(&p.into()))
                    .collect::<Result<Vec<_>>>()?
            }};
        }
        match &host {
            HostStrings::Utf8(h) => parts!(h),
            HostStrings::LargeUtf8(h) => parts!(h),
        }
    });
    Ok(arrays(columns))
}

/// The valid rows joined by `separator` into one row (libcudf's `join_strings`).
///
/// # Errors
/// As [`upper`].
pub fn join(array: &dyn Array, separator: &str, device: &Device) -> Result<ArrayRef> {
    let w = device.offset_width();
    on_strings!(device, array, |b, c| b
        .to_host(&b.join(c, separator, w)?.into_column())?)
}

/// The redaction of "First Last" names by a visibility: "L First" where the
/// visibility contains "public", "X X" elsewhere ([`ragged_core::ops::redact_row`]).
///
/// # Errors
/// [`ragged_core::Error::LengthMismatch`] when a visibility array's length differs; as
/// [`upper`].
pub fn redact<'a>(
    names: &dyn Array,
    visibility: impl Into<Text<'a>>,
    device: &Device,
) -> Result<ArrayRef> {
    let w = device.offset_width();
    let visibility = HostText::new(visibility.into(), "visibility")?;
    on_strings!(device, names, |b, c| {
        let v = visibility.upload(b)?;
        b.to_host(&b.redact(c, v.arg(), w)?.into_column())?
    })
}

/// The strings arguments uploaded, then `f` over them as [`StringArg`]s.
fn with_args<'a, B: Backend, R>(
    b: &B,
    args: &[HostText<'a>],
    f: impl FnOnce(&[StringArg<'_, B::Loc>]) -> Result<R>,
) -> Result<R> {
    let uploaded = args
        .iter()
        .map(|a| a.upload(b))
        .collect::<Result<Vec<_>>>()?;
    let args: Vec<StringArg<'_, B::Loc>> = uploaded.iter().map(|u| u.arg()).collect();
    f(&args)
}

/// Row `i` of every argument joined by `separator` (arrays or one value for every row;
/// `pyarrow.compute.binary_join_element_wise`), nulls as `nulls` says.
///
/// # Errors
/// [`ragged_core::Error::LengthMismatch`] when the arrays' lengths differ;
/// [`ragged_core::Error::InvalidArgument`] when no argument is an array; as [`upper`].
pub fn concatenate<'a>(
    columns: &[Text<'a>],
    separator: &str,
    nulls: ConcatNulls<'_>,
    device: &Device,
) -> Result<ArrayRef> {
    let w = device.offset_width();
    let host = columns
        .iter()
        .map(|c| HostText::new(*c, "columns"))
        .collect::<Result<Vec<_>>>()?;
    let column = with_backend!(device.backend(), |b| with_args(b, &host, |args| b
        .to_host(&b.concatenate(args, separator, nulls, w)?.into_column()))?);
    Ok(arrow(column))
}

/// A strings column of `rows` rows built on a CUDA device by a CUDA C++ device function
/// (`ragged_cuda::CudaBackend::transform_strings`: `source` defines `__device__ bool
/// transform(uint64_t row, const ragged::StringInput* inputs, ragged::Writer& out)`,
/// compiled once by NVRTC and cached; `inputs[k]` is `inputs[k]` here, a scalar serving
/// every row). `rows` defaults to the length of the first array among `inputs`.
///
/// # Errors
/// [`ragged_core::Error::InvalidArgument`] on the CPU (a C++ transform needs a CUDA
/// device; Rust code passes a closure to `CpuBackend::transform_strings`) and when
/// `rows` is `None` with no array among `inputs`; [`ragged_core::Error::KernelCompile`]
/// with NVRTC's log; [`ragged_core::Error::LengthMismatch`] when an array has another
/// length; as [`upper`].
pub fn transform_strings(
    source: &str,
    inputs: &[Text<'_>],
    rows: Option<usize>,
    device: &Device,
) -> Result<ArrayRef> {
    let crate::device::AnyBackend::Cuda(b) = device.backend() else {
        return Err(ragged_core::Error::invalid_argument(
            "transform_strings",
            "a CUDA C++ transform runs on a CUDA device (device cuda or cuda:N)",
        ));
    };
    let rows = match rows {
        Some(rows) => rows,
        None => inputs
            .iter()
            .find_map(|t| match t {
                Text::Array(a) => Some(a.len()),
                Text::Scalar(_) => None,
            })
            .ok_or_else(|| {
                ragged_core::Error::invalid_argument(
                    "transform_strings",
                    "rows must be given when no input is an array",
                )
            })?,
    };
    let host = inputs
        .iter()
        .map(|c| HostText::new(*c, "inputs"))
        .collect::<Result<Vec<_>>>()?;
    let w = device.offset_width();
    let column = with_args(b, &host, |args| {
        b.to_host(&b.transform_strings(source, args, rows, w)?.into_column())
    })?;
    Ok(arrow(column))
}

/// The arrays' rows one after another (`pyarrow.concat_arrays`).
///
/// # Errors
/// As [`upper`].
pub fn append(columns: &[&dyn Array], device: &Device) -> Result<ArrayRef> {
    let w = device.offset_width();
    let host = columns
        .iter()
        .map(|c| HostText::new(Text::Array(*c), "columns"))
        .collect::<Result<Vec<_>>>()?;
    let column = with_backend!(device.backend(), |b| with_args(b, &host, |args| b
        .to_host(&b.append(args, w)?.into_column()))?);
    Ok(arrow(column))
}

/// Row `i` of `then` where `mask[i]` is true, else of `otherwise` (a null mask row
/// too, as libcudf's `copy_if_else`; `pyarrow.compute.if_else` gives null there).
///
/// # Errors
/// [`ragged_core::Error::TypeMismatch`] when the mask is not boolean;
/// [`ragged_core::Error::LengthMismatch`] when lengths differ; as [`upper`].
pub fn copy_if_else<'a>(
    mask: &dyn Array,
    then: impl Into<Text<'a>>,
    otherwise: impl Into<Text<'a>>,
    device: &Device,
) -> Result<ArrayRef> {
    let w = device.offset_width();
    let Column::Boolean(mask) = host_column(mask, "mask")? else {
        return Err(super::type_mismatch("mask", "booleans", mask.data_type()));
    };
    let host = [
        HostText::new(then.into(), "then")?,
        HostText::new(otherwise.into(), "otherwise")?,
    ];
    let column = with_backend!(device.backend(), |b| {
        let mask = b.to_device_booleans(&mask)?;
        with_args(b, &host, |args| {
            b.to_host(&b.copy_if_else(&mask, args[0], args[1], w)?.into_column())
        })?
    });
    Ok(arrow(column))
}
