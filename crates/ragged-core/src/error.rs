//! The one structured error type of ragged.
//!
//! Every fallible operation in every crate returns [`Error`]. Variants carry the
//! operation name and the offending row, index or byte so that a message points at
//! the exact cause, and so that the CPU and GPU backends can be compared: for the
//! same bad input both report the same variant with the same lowest index.

use std::path::PathBuf;

/// The result type of every fallible ragged operation.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in ragged.
///
/// Input problems name the first (lowest) offending index; on the GPU this is found
/// through the device error word (an `atomicMin` per call), so both backends agree.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An offsets buffer breaks the Arrow invariants at `index`.
    #[error("invalid offsets at index {index}: {problem}")]
    InvalidOffsets {
        /// The offending position in the offsets buffer.
        index: usize,
        /// Which invariant is broken.
        problem: OffsetsProblem,
    },
    /// A strings column holds bytes that are not UTF-8.
    #[error("invalid UTF-8 in row {row} at byte {byte} of the row")]
    InvalidUtf8 {
        /// The row holding the invalid bytes.
        row: usize,
        /// The byte position, within the row, where decoding failed.
        byte: usize,
    },
    /// A list's stop precedes its start (starts/stops form).
    #[error("stop before start at index {index}: start {start}, stop {stop}")]
    StopsBeforeStarts {
        /// The lowest offending list.
        index: usize,
        /// Its start.
        start: i64,
        /// Its stop.
        stop: i64,
    },
    /// A list's start or stop lies outside its child (starts/stops form): the start is
    /// negative or the stop exceeds the child's length.
    #[error("list {index} out of bounds: start {start}, stop {stop}, child length {child_len}")]
    ListOutOfBounds {
        /// The lowest offending list.
        index: usize,
        /// Its start.
        start: i64,
        /// Its stop.
        stop: i64,
        /// The child's length.
        child_len: usize,
    },
    /// An element index is outside its list (`ListOps::get` with
    /// [`crate::ops::OutOfRange::Error`]).
    #[error("index {index} is out of range for list {row} of length {len}")]
    IndexOutOfRange {
        /// The lowest list too short for the index.
        row: usize,
        /// The index asked for (negative counts from the end).
        index: i64,
        /// The list's length.
        len: i64,
    },
    /// A size (of a row, list or segment) is negative.
    #[error("negative size at index {index}: {size}")]
    NegativeSize {
        /// The lowest offending row.
        index: usize,
        /// Its size.
        size: i64,
    },
    /// Two inputs that must have the same length do not.
    #[error("{op}: {what} has length {actual}, expected {expected}")]
    LengthMismatch {
        /// The operation or constructor that checked.
        op: &'static str,
        /// Which input is wrong.
        what: &'static str,
        /// The length required.
        expected: usize,
        /// The length found.
        actual: usize,
    },
    /// A column has a data type the operation does not accept.
    #[error("column '{column}' has type {actual}, expected {expected}")]
    TypeMismatch {
        /// The column's name (or a description of the input).
        column: String,
        /// What the operation accepts.
        expected: String,
        /// What was found.
        actual: String,
    },
    /// A column selected by name does not exist.
    #[error("no column named '{name}' (available: {})", available.join(", "))]
    ColumnNotFound {
        /// The name asked for.
        name: String,
        /// The columns that do exist.
        available: Vec<String>,
    },
    /// An argument is outside what the operation accepts.
    #[error("{op}: {message}")]
    InvalidArgument {
        /// The operation.
        op: &'static str,
        /// What is wrong with the argument.
        message: String,
    },
    /// A result does not fit its type (an integer sum, an i32 offset).
    #[error("{op}: overflow: {message}")]
    Overflow {
        /// The operation.
        op: &'static str,
        /// What overflowed.
        message: String,
    },
    /// A device allocation would exceed the memory limit or the device's memory.
    #[error("out of device memory: requested {requested} bytes, {available} available")]
    OutOfMemory {
        /// Bytes asked for.
        requested: usize,
        /// Bytes that could still be allocated under the limit.
        available: usize,
    },
    /// A file could not be read or written.
    #[error("cannot {action} '{}': {source}", path.display())]
    Io {
        /// What was being done: "read", "write", "create", "rename", …
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A file's contents are not valid in its format (corrupt, truncated, wrong format).
    #[error("cannot read '{}' as {format}: {message}", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// The format it was read as ("Parquet", "Arrow IPC file", "CSV", …).
        format: &'static str,
        /// The decoder's message.
        message: String,
    },
    /// The requested backend or device cannot be used here.
    #[error("device unavailable: {reason}")]
    DeviceUnavailable {
        /// Why (no driver, a stub library, no device with that ordinal, …).
        reason: String,
    },
    /// A device (driver, runtime or kernel) call failed.
    #[error("device error in {op}: {message}")]
    Device {
        /// The operation or driver call.
        op: &'static str,
        /// The driver's message.
        message: String,
    },
    /// A kernel failed to compile.
    #[error("kernel module '{module}' failed to compile:\n{log}")]
    KernelCompile {
        /// The module (file under `kernels/`).
        module: String,
        /// The compiler log, with file and line of our source.
        log: String,
    },
    /// The operation is not supported for these inputs or on this backend.
    #[error("{op}: not supported: {message}")]
    Unsupported {
        /// The operation.
        op: &'static str,
        /// What is not supported.
        message: String,
    },
    /// The caller stopped a long operation between two of its windows (Ctrl-C in the
    /// Python package); nothing it produced is returned.
    #[error("{op}: interrupted")]
    Interrupted {
        /// The operation.
        op: &'static str,
    },
}

/// Which Arrow offsets invariant an offsets buffer breaks.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum OffsetsProblem {
    /// The buffer has no element (it needs `len + 1`, at least one).
    Empty,
    /// The offset is negative.
    Negative {
        /// The value found.
        value: i64,
    },
    /// The offset is smaller than the one before it.
    Decreasing {
        /// The previous offset.
        previous: i64,
        /// This offset.
        value: i64,
    },
    /// The offset points past the end of the values.
    OutOfBounds {
        /// The value found.
        value: i64,
        /// The values' length.
        values_len: usize,
    },
    /// The offset is not on a UTF-8 character boundary of the values.
    NotCharBoundary {
        /// The value found.
        value: i64,
    },
}

impl std::fmt::Display for OffsetsProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OffsetsProblem::Empty => write!(f, "offsets are empty (need at least one)"),
            OffsetsProblem::Negative { value } => write!(f, "offset {value} is negative"),
            OffsetsProblem::Decreasing { previous, value } => {
                write!(
                    f,
                    "offset {value} is less than the previous offset {previous}"
                )
            }
            OffsetsProblem::OutOfBounds { value, values_len } => {
                write!(f, "offset {value} exceeds the values length {values_len}")
            }
            OffsetsProblem::NotCharBoundary { value } => {
                write!(f, "offset {value} is not on a UTF-8 character boundary")
            }
        }
    }
}

impl Error {
    /// An [`Error::InvalidArgument`] for `op`.
    pub fn invalid_argument(op: &'static str, message: impl Into<String>) -> Self {
        Error::InvalidArgument {
            op,
            message: message.into(),
        }
    }

    /// The [`Error::Overflow`] of an op whose output row `row` would hold 2^31 bytes or
    /// more (the limit on one row of a strings output, on every backend).
    pub fn row_too_long(op: &'static str, row: usize) -> Self {
        Error::Overflow {
            op,
            message: format!("output row {row} has 2^31 bytes or more"),
        }
    }

    /// An [`Error::Io`] for `path`.
    pub fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            action,
            path: path.into(),
            source,
        }
    }

    /// Whether two errors are the same kind at the same index (ignoring message text):
    /// used by the conformance suite to compare backends.
    pub fn same_kind_and_index(&self, other: &Error) -> bool {
        use Error::*;
        match (self, other) {
            (
                InvalidOffsets {
                    index: a,
                    problem: p,
                },
                InvalidOffsets {
                    index: b,
                    problem: q,
                },
            ) => a == b && std::mem::discriminant(p) == std::mem::discriminant(q),
            (InvalidUtf8 { row: a, byte: x }, InvalidUtf8 { row: b, byte: y }) => a == b && x == y,
            (StopsBeforeStarts { index: a, .. }, StopsBeforeStarts { index: b, .. }) => a == b,
            (ListOutOfBounds { index: a, .. }, ListOutOfBounds { index: b, .. }) => a == b,
            (IndexOutOfRange { row: a, .. }, IndexOutOfRange { row: b, .. }) => a == b,
            (NegativeSize { index: a, .. }, NegativeSize { index: b, .. }) => a == b,
            _ => std::mem::discriminant(self) == std::mem::discriminant(other),
        }
    }
}
