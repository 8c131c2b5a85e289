//! Mapping decoder and encoder errors onto ragged's structured [`Error`].
//!
//! arrow-rs and parquet wrap operating-system errors in their own error types; an
//! error whose source chain holds an `std::io::Error` is an [`Error::Io`] (the disk
//! failed), anything else is about the bytes: [`Error::Format`] when reading. An
//! unexpected end of file is a truncated file, and an invalid seek or invalid data
//! comes from offsets read out of the file, so those are format errors too.

use std::error::Error as StdError;
use std::io;
use std::path::Path;

use ragged_core::Error;

use super::Format;

/// The operating-system error in `error`'s source chain, if any, rebuilt as an owned
/// value (the chain only lends it).
fn find_io_error(error: &(dyn StdError + 'static)) -> Option<io::Error> {
    let mut current = Some(error);
    while let Some(e) = current {
        if let Some(io_error) = e.downcast_ref::<io::Error>() {
            return Some(match io_error.raw_os_error() {
                Some(code) => io::Error::from_raw_os_error(code),
                None => io::Error::new(io_error.kind(), io_error.to_string()),
            });
        }
        current = e.source();
    }
    None
}

/// A read error: [`Error::Io`] when the operating system failed, otherwise (and for
/// truncation) [`Error::Format`].
pub(crate) fn read_error(path: &Path, format: Format, error: &(dyn StdError + 'static)) -> Error {
    match find_io_error(error) {
        Some(io_error)
            if !matches!(
                io_error.kind(),
                io::ErrorKind::UnexpectedEof
                    | io::ErrorKind::InvalidData
                    | io::ErrorKind::InvalidInput
            ) =>
        {
            Error::io("read", path, io_error)
        }
        _ => Error::Format {
            path: path.to_path_buf(),
            format: format.label(),
            message: message_of(error),
        },
    }
}

/// A write error: [`Error::Io`] when the operating system failed, otherwise
/// [`Error::Unsupported`] (the encoder rejected the data).
pub(crate) fn write_error(path: &Path, format: Format, error: &(dyn StdError + 'static)) -> Error {
    match find_io_error(error) {
        Some(io_error) => Error::io("write", path, io_error),
        None => Error::Unsupported {
            op: "write_table",
            message: format!(
                "cannot write '{}' as {}: {}",
                path.display(),
                format.label(),
                message_of(error)
            ),
        },
    }
}

/// The error's message with its sources, `a: b: c`, skipping repeats (arrow-rs often
/// prints its source inside its own message).
fn message_of(error: &(dyn StdError + 'static)) -> String {
    let mut message = error.to_string();
    let mut current = error.source();
    while let Some(e) = current {
        let part = e.to_string();
        if !message.contains(&part) {
            message.push_str(": ");
            message.push_str(&part);
        }
        current = e.source();
    }
    message
}

/// The error for a decoder that panicked on malformed input.
pub(crate) fn panic_error(
    path: &Path,
    format: Format,
    payload: &(dyn std::any::Any + Send),
) -> Error {
    let detail = panic_message(payload);
    Error::Format {
        path: path.to_path_buf(),
        format: format.label(),
        message: format!("the decoder failed on malformed input: {detail}"),
    }
}

/// The message of a caught panic.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_owned())
}

/// The error for a path that is a directory where a file is needed.
pub(crate) fn is_a_directory(action: &'static str, path: &Path) -> Error {
    Error::io(
        action,
        path,
        io::Error::new(io::ErrorKind::IsADirectory, "Is a directory"),
    )
}
