//! CSV: ragged's own reader and writer (RFC 4180, comma-separated, with a header).
//!
//! **Nulls and empty strings.** An empty unquoted field is null; a quoted empty field
//! (`""`) is the empty string. The writer writes a null as an empty field and an empty
//! string as `""`, so both survive a round trip. This is the convention of Polars'
//! `read_csv` / `write_csv` and of pyarrow's `write_csv` (pyarrow's `read_csv` reads
//! it so with `ConvertOptions(strings_can_be_null=True,
//! quoted_strings_can_be_null=False)`).
//!
//! **Reading** takes three steps:
//! 1. one pass finds where each record starts: a newline ends a record unless it is
//!    inside quotes, and a byte is inside quotes when an odd number of `"` precede it
//!    in the record (`memchr` jumps from one `"` or newline to the next);
//! 2. the records are parsed in parallel, in chunks of consecutive records, each
//!    chunk into one strings buffer per column (fields unquoted, `""` unescaped);
//! 3. each column's type is inferred over every chunk — `int64` when every non-null
//!    field is an integer that fits, `float64` when every one is a decimal number (or
//!    an integer too large for `int64`),
//!    `bool` when every one is `true` or `false` (any case), else `utf8` — and the
//!    chunks are converted to it, in parallel.
//!
//! The dialect is strict, so that the quote count of step 1 always agrees with the
//! parse: a `"` may only open a field or, doubled, stand inside a quoted field, and a
//! closing quote must be followed by a comma or the end of the record. Anything else
//! is an [`Error::Format`] naming the record (counted from 0 after the header) and its
//! byte offset, as are records whose field count differs from the header's, a quoted
//! field still open at the end of the file and bytes that are not UTF-8. A `\r` before
//! a record's newline is dropped. Blank lines are skipped when the header has more than
//! one column (with one column a blank line is a null row, as the writer writes it).
//!
//! **Writing** formats chunks of rows in parallel and writes them in order; strings
//! are quoted when they are empty or hold a comma, a quote, `\r` or `\n`; other types
//! are formatted as arrow-rs's CSV writer formats them.

use std::io::Write;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{
    Array, ArrayRef, BooleanArray, Float64Array, Int64Array, LargeStringArray, RecordBatch,
    RecordBatchOptions, StringArray,
};
use arrow_buffer::{BooleanBuffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field, Schema};
use ragged_core::trace::{measure, Phase};
use ragged_core::{Error, Result};
use rayon::prelude::*;

use super::Format;

/// Records per parallel chunk (fewer when the file is small).
const CHUNK_RECORDS: usize = 1 << 15;

/// Rows per chunk the writer formats at once.
const WRITE_CHUNK_ROWS: usize = 1 << 14;

/// A format error naming `path`.
fn format_error(path: &Path, message: String) -> Error {
    Error::Format {
        path: path.to_path_buf(),
        format: Format::Csv.label(),
        message,
    }
}

/// The positions of the newlines of `bytes` that end records (those outside quotes),
/// in order; afterwards `quoted` tells whether the bytes end inside quotes.
struct RecordEnds<'a> {
    bytes: &'a [u8],
    marks: memchr::Memchr2<'a>,
    quoted: bool,
}

impl<'a> RecordEnds<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        RecordEnds {
            bytes,
            marks: memchr::memchr2_iter(b'"', b'\n', bytes),
            quoted: false,
        }
    }
}

impl Iterator for RecordEnds<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        for at in self.marks.by_ref() {
            if self.bytes[at] == b'"' {
                self.quoted = !self.quoted;
            } else if !self.quoted {
                return Some(at);
            }
        }
        None
    }
}

/// The bytes of a CSV file up to and including the newline that ends its header.
pub(crate) fn header_bytes(bytes: &[u8]) -> &[u8] {
    RecordEnds::new(bytes)
        .next()
        .map_or(bytes, |end| &bytes[..=end])
}

/// The byte ranges of the records of `bytes` (each without its newline and a `\r`
/// before it), in order, and whether the last one ends inside quotes.
fn record_ranges(bytes: &[u8]) -> (Vec<Range<usize>>, bool) {
    let mut records = Vec::new();
    let mut start = 0;
    let mut ends = RecordEnds::new(bytes);
    for at in ends.by_ref() {
        records.push(start..trim_cr(bytes, start, at));
        start = at + 1;
    }
    if start < bytes.len() {
        records.push(start..trim_cr(bytes, start, bytes.len()));
    }
    (records, ends.quoted)
}

/// `end`, less one when the byte before it (at or after `start`) is `\r`.
fn trim_cr(bytes: &[u8], start: usize, end: usize) -> usize {
    if end > start && bytes[end - 1] == b'\r' {
        end - 1
    } else {
        end
    }
}

/// One field of a record: its bytes (still escaped when `quoted`) and whether it was
/// quoted.
struct RawField<'a> {
    bytes: &'a [u8],
    quoted: bool,
}

/// The fields of one record, strictly parsed; `Err` describes the first violation.
fn split_fields<'a>(
    record: &'a [u8],
    fields: &mut Vec<RawField<'a>>,
) -> std::result::Result<(), String> {
    fields.clear();
    let mut at = 0;
    loop {
        if record.get(at) == Some(&b'"') {
            // A quoted field: up to the quote that is not doubled.
            let open = at + 1;
            let mut i = open;
            loop {
                match memchr::memchr(b'"', &record[i..]) {
                    // Records end outside quotes, so only the last one can end inside.
                    None => {
                        return Err("a quoted field is not closed at the end of the file".into())
                    }
                    Some(q) if record.get(i + q + 1) == Some(&b'"') => i += q + 2,
                    Some(q) => {
                        i += q;
                        break;
                    }
                }
            }
            fields.push(RawField {
                bytes: &record[open..i],
                quoted: true,
            });
            match record.get(i + 1) {
                None => return Ok(()),
                Some(b',') => at = i + 2,
                Some(_) => {
                    return Err(format!(
                        "a closing quote is followed by {:?}, not a comma or the end of \
                         the record",
                        char::from(record[i + 1])
                    ))
                }
            }
        } else {
            let end = memchr::memchr2(b',', b'"', &record[at..]).map_or(record.len(), |e| at + e);
            if record.get(end) == Some(&b'"') {
                return Err(
                    "a quote inside an unquoted field (quote the whole field and \
                            double the quote)"
                        .into(),
                );
            }
            fields.push(RawField {
                bytes: &record[at..end],
                quoted: false,
            });
            if end == record.len() {
                return Ok(());
            }
            at = end + 1;
        }
    }
}

/// A field's text: unquoted, `""` unescaped.
fn unescape_into(field: &RawField<'_>, out: &mut Vec<u8>) {
    if !field.quoted {
        out.extend_from_slice(field.bytes);
        return;
    }
    let mut rest = field.bytes;
    while let Some(q) = memchr::memchr(b'"', rest) {
        // Inside a quoted field every quote is doubled (checked by `split_fields`).
        out.extend_from_slice(&rest[..=q]);
        rest = &rest[(q + 2).min(rest.len())..];
    }
    out.extend_from_slice(rest);
}

/// One column of one chunk of records, as text.
#[derive(Default)]
struct TextColumn {
    values: Vec<u8>,
    offsets: Vec<usize>,
    valid: Vec<bool>,
}

impl TextColumn {
    fn with_rows(rows: usize) -> Self {
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0);
        TextColumn {
            values: Vec::new(),
            offsets,
            valid: Vec::with_capacity(rows),
        }
    }

    fn len(&self) -> usize {
        self.valid.len()
    }

    fn field(&self, i: usize) -> &[u8] {
        &self.values[self.offsets[i]..self.offsets[i + 1]]
    }

    /// The valid fields' texts.
    fn valid_fields(&self) -> impl Iterator<Item = &[u8]> + '_ {
        (0..self.len())
            .filter(|&i| self.valid[i])
            .map(|i| self.field(i))
    }
}

/// What every valid field of a column can be read as, combined over chunks.
#[derive(Clone, Copy)]
struct Inferred {
    any_valid: bool,
    all_int: bool,
    all_float: bool,
    all_bool: bool,
}

impl Inferred {
    const ALL: Inferred = Inferred {
        any_valid: false,
        all_int: true,
        all_float: true,
        all_bool: true,
    };

    fn of(column: &TextColumn) -> Self {
        let mut inferred = Inferred::ALL;
        for field in column.valid_fields() {
            inferred.any_valid = true;
            if inferred.all_int && parse_int(field).is_none() {
                inferred.all_int = false;
            }
            if inferred.all_float && !is_decimal(field) {
                inferred.all_float = false;
            }
            if inferred.all_bool && parse_bool(field).is_none() {
                inferred.all_bool = false;
            }
            if !(inferred.all_int || inferred.all_float || inferred.all_bool) {
                break;
            }
        }
        inferred
    }

    fn and(self, other: Inferred) -> Inferred {
        Inferred {
            any_valid: self.any_valid || other.any_valid,
            all_int: self.all_int && other.all_int,
            all_float: self.all_float && other.all_float,
            all_bool: self.all_bool && other.all_bool,
        }
    }

    fn data_type(self) -> DataType {
        match self {
            Inferred {
                any_valid: false, ..
            } => DataType::Utf8,
            Inferred { all_int: true, .. } => DataType::Int64,
            Inferred {
                all_float: true, ..
            } => DataType::Float64,
            Inferred { all_bool: true, .. } => DataType::Boolean,
            _ => DataType::Utf8,
        }
    }
}

/// An integer field (`-?[0-9]+`) that fits `i64`.
fn parse_int(field: &[u8]) -> Option<i64> {
    let digits = field.strip_prefix(b"-").unwrap_or(field);
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(field).ok()?.parse().ok()
}

/// A decimal field: an integer, `-?(d*.d+|d+.d*)([eE][-+]?d+)?` or `-?d+[eE][-+]?d+`
/// (the forms arrow-rs's CSV reader infers as `float64`).
fn is_decimal(field: &[u8]) -> bool {
    let s = field.strip_prefix(b"-").unwrap_or(field);
    let digits = |s: &[u8]| s.iter().take_while(|b| b.is_ascii_digit()).count();
    let whole = digits(s);
    let mut rest = &s[whole..];
    let mut fraction = 0;
    let dot = rest.first() == Some(&b'.');
    if dot {
        fraction = digits(&rest[1..]);
        rest = &rest[1 + fraction..];
    }
    if whole + fraction == 0 {
        return false;
    }
    match rest.first() {
        None => true,
        Some(b'e' | b'E') => {
            let exponent = &rest[1..];
            let exponent = exponent
                .strip_prefix(b"-")
                .or_else(|| exponent.strip_prefix(b"+"))
                .unwrap_or(exponent);
            !exponent.is_empty() && digits(exponent) == exponent.len()
        }
        Some(_) => false,
    }
}

/// `true` or `false`, in any case.
fn parse_bool(field: &[u8]) -> Option<bool> {
    if field.eq_ignore_ascii_case(b"true") {
        Some(true)
    } else if field.eq_ignore_ascii_case(b"false") {
        Some(false)
    } else {
        None
    }
}

/// The header's column names.
fn header_names(path: &Path, record: &[u8]) -> Result<Vec<String>> {
    let mut fields = Vec::new();
    split_fields(record, &mut fields)
        .map_err(|m| format_error(path, format!("the header: {m}")))?;
    fields
        .iter()
        .map(|f| {
            let mut name = Vec::new();
            unescape_into(f, &mut name);
            String::from_utf8(name)
                .map_err(|_| format_error(path, "the header is not valid UTF-8".into()))
        })
        .collect()
}

/// Parse CSV `bytes` (the whole file) into a schema and one record batch per chunk of
/// records, with only the columns at `keep` (ascending indices of the header, or all).
pub(crate) fn parse(
    path: &Path,
    bytes: &[u8],
    keep: Option<&[usize]>,
) -> Result<(Arc<Schema>, Arc<Schema>, Vec<RecordBatch>)> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let (records, open) = record_ranges(bytes);
    if open {
        // The last record runs to the end of the file: a stray quote in it (or in
        // an earlier record, which then runs on to here) is the error to report.
        let last = records.last().cloned().unwrap_or(0..bytes.len());
        let which = match records.len() {
            0 | 1 => "the header".to_owned(),
            n => format!("record {} (byte {})", n - 2, last.start),
        };
        let message = split_fields(&bytes[last.start..], &mut Vec::new())
            .err()
            .unwrap_or_else(|| "a quoted field is not closed at the end of the file".into());
        return Err(format_error(path, format!("{which}: {message}")));
    }
    let Some((header, records)) = records.split_first() else {
        let empty = Arc::new(Schema::empty());
        return Ok((empty.clone(), empty, Vec::new()));
    };
    let names = header_names(path, &bytes[header.clone()])?;
    let width = names.len();
    let kept: Vec<usize> = keep.map_or_else(|| (0..width).collect(), <[usize]>::to_vec);
    // Column index → position among the kept columns.
    let mut slot = vec![None; width];
    for (k, &c) in kept.iter().enumerate() {
        if let Some(s) = slot.get_mut(c) {
            *s = Some(k);
        }
    }
    let skip_blank = width > 1;
    let chunks: Vec<(usize, &[Range<usize>])> = records
        .chunks(CHUNK_RECORDS)
        .enumerate()
        .map(|(i, c)| (i * CHUNK_RECORDS, c))
        .collect();
    let parsed: Vec<Vec<TextColumn>> = chunks
        .par_iter()
        .map(|&(first, chunk)| parse_chunk(path, bytes, first, chunk, width, &slot, skip_blank))
        .collect::<Result<_>>()?;
    let inferred: Vec<Inferred> = (0..kept.len())
        .map(|k| {
            parsed
                .iter()
                .map(|columns| Inferred::of(&columns[k]))
                .fold(Inferred::ALL, Inferred::and)
        })
        .collect();
    let fields: Vec<Field> = names
        .iter()
        .enumerate()
        .map(|(c, name)| {
            let data_type = slot[c].map_or(DataType::Utf8, |k| inferred[k].data_type());
            Field::new(name, data_type, true)
        })
        .collect();
    let full_schema = Arc::new(Schema::new(fields));
    let projected = Arc::new(Schema::new(
        kept.iter()
            .map(|&c| full_schema.field(c).clone())
            .collect::<Vec<_>>(),
    ));
    let batches = parsed
        .into_par_iter()
        .map(|columns| {
            let rows = columns.first().map_or(0, TextColumn::len);
            let arrays = columns
                .into_iter()
                .zip(projected.fields())
                .map(|(column, field)| to_array(column, field.data_type()))
                .collect();
            RecordBatch::try_new_with_options(
                projected.clone(),
                arrays,
                &RecordBatchOptions::new().with_row_count(Some(rows)),
            )
            .map_err(|e| format_error(path, e.to_string()))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((full_schema, projected, batches))
}

/// Parse the records `chunk` (record `first` onwards) into the kept columns' texts.
fn parse_chunk(
    path: &Path,
    bytes: &[u8],
    first: usize,
    chunk: &[Range<usize>],
    width: usize,
    slot: &[Option<usize>],
    skip_blank: bool,
) -> Result<Vec<TextColumn>> {
    let kept = slot.iter().flatten().count();
    let mut columns: Vec<TextColumn> = (0..kept)
        .map(|_| TextColumn::with_rows(chunk.len()))
        .collect();
    let mut fields = Vec::with_capacity(width);
    let mut rows = 0usize;
    for (i, range) in chunk.iter().enumerate() {
        let record = &bytes[range.clone()];
        if record.is_empty() && skip_blank {
            continue;
        }
        let fail = |message: String| {
            format_error(
                path,
                format!("record {} (byte {}): {message}", first + i, range.start),
            )
        };
        if let Err(e) = std::str::from_utf8(record) {
            return Err(fail(format!(
                "not valid UTF-8 at byte {} of the record",
                e.valid_up_to()
            )));
        }
        split_fields(record, &mut fields).map_err(fail)?;
        if fields.len() != width {
            return Err(fail(format!(
                "{} fields where the header has {width}",
                fields.len()
            )));
        }
        for (field, s) in fields.iter().zip(slot) {
            if let Some(k) = *s {
                let column = &mut columns[k];
                unescape_into(field, &mut column.values);
                column.offsets.push(column.values.len());
                column.valid.push(field.quoted || !field.bytes.is_empty());
            }
        }
        rows += 1;
    }
    debug_assert!(columns.iter().all(|c| c.len() == rows));
    Ok(columns)
}

/// The Arrow array of one chunk's column, as `data_type` (inferred so that every valid
/// field converts).
fn to_array(column: TextColumn, data_type: &DataType) -> ArrayRef {
    let nulls = NullBuffer::from(BooleanBuffer::from(column.valid.clone()));
    let nulls = (nulls.null_count() > 0).then_some(nulls);
    // Every valid field converts to `data_type` (inference checked each); the `0`s
    // below stand under nulls only.
    match data_type {
        DataType::Int64 => {
            let v: Vec<i64> = (0..column.len())
                .map(|i| {
                    if column.valid[i] {
                        parse_int(column.field(i)).unwrap_or(0)
                    } else {
                        0
                    }
                })
                .collect();
            Arc::new(Int64Array::new(ScalarBuffer::from(v), nulls))
        }
        DataType::Float64 => {
            let v: Vec<f64> = (0..column.len())
                .map(|i| {
                    if column.valid[i] {
                        std::str::from_utf8(column.field(i))
                            .ok()
                            .and_then(|s| s.parse().ok())
                            .unwrap_or(0.0)
                    } else {
                        0.0
                    }
                })
                .collect();
            Arc::new(Float64Array::new(ScalarBuffer::from(v), nulls))
        }
        DataType::Boolean => {
            let v: Vec<bool> = (0..column.len())
                .map(|i| column.valid[i] && parse_bool(column.field(i)) == Some(true))
                .collect();
            Arc::new(BooleanArray::new(BooleanBuffer::from(v), nulls))
        }
        _ if i32::try_from(column.values.len()).is_ok() => strings::<i32>(column, nulls),
        _ => strings::<i64>(column, nulls),
    }
}

/// One chunk's text column as a strings array with offsets `O` (which hold its bytes).
fn strings<O: arrow_array::OffsetSizeTrait>(
    column: TextColumn,
    nulls: Option<NullBuffer>,
) -> ArrayRef {
    let offsets: Vec<O> = column.offsets.iter().map(|&o| O::usize_as(o)).collect();
    // SAFETY: the offsets ascend from 0 to the values' length (each field appended at
    // the end) and fit `O` (the caller checked the length); every record was checked
    // to be UTF-8 and fields are cut at ASCII commas, so every row is UTF-8; `nulls`
    // has a bit per row.
    Arc::new(unsafe {
        arrow_array::GenericStringArray::<O>::new_unchecked(
            OffsetBuffer::new_unchecked(ScalarBuffer::from(offsets)),
            arrow_buffer::Buffer::from_vec(column.values),
            nulls,
        )
    })
}

/// Write `batch` as CSV with a header into `writer`: rows formatted in parallel
/// chunks, written in order.
pub(crate) fn write<W: Write>(mut writer: W, batch: &RecordBatch, path: &Path) -> Result<W> {
    let io = |e: std::io::Error| Error::io("write", path, e);
    let schema = batch.schema();
    let mut header = Vec::new();
    for (i, field) in schema.fields().iter().enumerate() {
        if i > 0 {
            header.push(b',');
        }
        // A lone empty name would read back as a null field: quote it like a value.
        push_text(&mut header, field.name().as_bytes());
    }
    header.push(b'\n');
    writer.write_all(&header).map_err(io)?;
    let unsupported = |e: String| Error::Unsupported {
        op: "write_table",
        message: format!("cannot write '{}' as CSV: {e}", path.display()),
    };
    // Formatters are not `Sync`: each chunk makes its own.
    let cells = || -> std::result::Result<Vec<Cell<'_>>, String> {
        batch
            .columns()
            .iter()
            .map(|array| Cell::new(array.as_ref()))
            .collect()
    };
    cells().map_err(unsupported)?;
    let starts: Vec<usize> = (0..batch.num_rows()).step_by(WRITE_CHUNK_ROWS).collect();
    // Format a few chunks per thread at a time so memory stays bounded.
    let window = rayon::current_num_threads().max(1) * 2;
    for group in starts.chunks(window) {
        let texts: Vec<Vec<u8>> = measure(Phase::Encode, 0, || {
            group
                .par_iter()
                .map(|&start| {
                    let cells = cells()?;
                    let end = (start + WRITE_CHUNK_ROWS).min(batch.num_rows());
                    let mut out = Vec::new();
                    for row in start..end {
                        for (c, cell) in cells.iter().enumerate() {
                            if c > 0 {
                                out.push(b',');
                            }
                            cell.write(row, &mut out);
                        }
                        out.push(b'\n');
                    }
                    Ok(out)
                })
                .collect::<std::result::Result<_, String>>()
        })
        .map_err(unsupported)?;
        measure(Phase::Write, 0, || {
            texts.iter().try_for_each(|text| writer.write_all(text))
        })
        .map_err(io)?;
    }
    Ok(writer)
}

/// How one column's cells are written.
enum Cell<'a> {
    /// Strings, quoted where needed.
    Utf8(&'a StringArray),
    /// Large strings, quoted where needed.
    LargeUtf8(&'a LargeStringArray),
    /// Anything else, as arrow-rs formats it (nulls as an empty field).
    Other(&'a dyn Array, arrow_cast::display::ArrayFormatter<'a>),
}

impl<'a> Cell<'a> {
    fn new(array: &'a dyn Array) -> std::result::Result<Self, String> {
        Ok(match array.data_type() {
            DataType::Utf8 => Cell::Utf8(array.as_string::<i32>()),
            DataType::LargeUtf8 => Cell::LargeUtf8(array.as_string::<i64>()),
            _ => {
                let options = arrow_cast::display::FormatOptions::default();
                let formatter = arrow_cast::display::ArrayFormatter::try_new(array, &options)
                    .map_err(|e| e.to_string())?;
                Cell::Other(array, formatter)
            }
        })
    }

    fn write(&self, row: usize, out: &mut Vec<u8>) {
        match self {
            Cell::Utf8(a) if a.is_valid(row) => push_text(out, a.value(row).as_bytes()),
            Cell::LargeUtf8(a) if a.is_valid(row) => push_text(out, a.value(row).as_bytes()),
            Cell::Other(a, f) if a.is_valid(row) => {
                use std::fmt::Write as _;
                let mut text = String::new();
                // Writing into a String cannot fail; a formatter error leaves the cell
                // as far as it got.
                let _ = write!(text, "{}", f.value(row));
                push_text(out, text.as_bytes());
            }
            _ => {}
        }
    }
}

/// Append `text` as one field: quoted (with `"` doubled) when it is empty or holds a
/// comma, a quote, `\r` or `\n`.
fn push_text(out: &mut Vec<u8>, text: &[u8]) {
    let needs_quotes = text.is_empty()
        || text
            .iter()
            .any(|&b| matches!(b, b',' | b'"' | b'\r' | b'\n'));
    if !needs_quotes {
        out.extend_from_slice(text);
        return;
    }
    out.push(b'"');
    let mut rest = text;
    while let Some(q) = memchr::memchr(b'"', rest) {
        out.extend_from_slice(&rest[..=q]);
        out.push(b'"');
        rest = &rest[q + 1..];
    }
    out.extend_from_slice(rest);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_text(text: &str) -> Result<Vec<RecordBatch>> {
        parse(Path::new("t.csv"), text.as_bytes(), None).map(|(_, _, b)| b)
    }

    fn strings(batch: &RecordBatch, c: usize) -> Vec<Option<String>> {
        let a = batch.column(c).as_string::<i32>();
        (0..a.len())
            .map(|i| a.is_valid(i).then(|| a.value(i).to_owned()))
            .collect()
    }

    #[test]
    fn empty_quoted_is_empty_and_unquoted_is_null() {
        let b = parse_text("a,b\n\"\",x\n,\"y,\"\"z\"\"\"\r\n").unwrap();
        assert_eq!(strings(&b[0], 0), [Some(String::new()), None]);
        assert_eq!(
            strings(&b[0], 1),
            [Some("x".to_owned()), Some("y,\"z\"".to_owned())]
        );
    }

    #[test]
    fn newlines_inside_quotes_stay_in_the_field() {
        let b = parse_text("a\n\"x\ny\"\n\nz\n").unwrap();
        assert_eq!(
            strings(&b[0], 0),
            [Some("x\ny".to_owned()), None, Some("z".to_owned())]
        );
    }

    #[test]
    fn types_are_inferred_over_all_rows() {
        let (schema, _, _) = parse(
            Path::new("t"),
            b"i,f,b,s,n\n1,1.5,true,1,\n-2,3,FALSE,x,\n",
            None,
        )
        .unwrap();
        let types: Vec<_> = schema
            .fields()
            .iter()
            .map(|f| f.data_type().clone())
            .collect();
        assert_eq!(
            types,
            [
                DataType::Int64,
                DataType::Float64,
                DataType::Boolean,
                DataType::Utf8,
                DataType::Utf8
            ]
        );
        // An integer beyond i64 keeps the column as text... unless it is a decimal.
        let (schema, _, _) = parse(Path::new("t"), b"i\n99999999999999999999\n", None).unwrap();
        assert_eq!(schema.field(0).data_type(), &DataType::Float64);
    }

    #[test]
    fn malformed_records_name_the_record() {
        for (text, wanted) in [
            (
                "a,b\n1,2\n3\n",
                "record 1 (byte 8): 1 fields where the header has 2",
            ),
            (
                "a\nx\"y\n",
                "record 0 (byte 2): a quote inside an unquoted field",
            ),
            (
                "a\n\"x\"y\n",
                "record 0 (byte 2): a closing quote is followed by 'y'",
            ),
            (
                "a\n1\n\"open\n",
                "record 1 (byte 4): a quoted field is not closed",
            ),
        ] {
            match parse_text(text) {
                Err(e) => assert!(e.to_string().contains(wanted), "{text:?}: {e}"),
                Ok(_) => panic!("{text:?} was accepted"),
            }
        }
        let bad = [b"a\n".as_slice(), b"\xff\n"].concat();
        let e = parse(Path::new("t"), &bad, None).unwrap_err();
        assert!(
            e.to_string().contains("record 0 (byte 2): not valid UTF-8"),
            "{e}"
        );
    }

    #[test]
    fn written_text_reads_back() {
        let rows = [Some(""), None, Some("a,\"b\"\n"), Some("plain")];
        let array: ArrayRef = Arc::new(StringArray::from(rows.to_vec()));
        let batch = RecordBatch::try_from_iter([("s", array.clone()), ("t", array)]).unwrap();
        let out = write(Vec::new(), &batch, Path::new("t.csv")).unwrap();
        let back = parse(Path::new("t.csv"), &out, None).unwrap().2;
        let want: Vec<Option<String>> = rows.iter().map(|r| r.map(str::to_owned)).collect();
        assert_eq!(strings(&back[0], 0), want);
        assert_eq!(strings(&back[0], 1), want);
    }
}
