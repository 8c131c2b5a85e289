//! Framing checks for Arrow IPC files and streams before arrow-rs decodes them.
//!
//! arrow-ipc allocates each message's buffer from lengths stored in the file (the
//! footer's blocks, each message's `bodyLength`) before reading it. A corrupt length
//! can ask for petabytes, and a failed allocation aborts the process, which no
//! `catch_unwind` can stop. These checks read only the framing (lengths and the small
//! flatbuffer headers) and reject any length that reaches past the end of the file,
//! so every allocation arrow-ipc then makes is bounded by the file's size.
//!
//! Malformed framing that these checks do not understand is left to arrow-ipc, which
//! reports it as an error; only lengths are judged here.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use ragged_core::{Error, Result};

use super::Format;

/// The IPC stream continuation marker.
const CONTINUATION: [u8; 4] = [0xFF; 4];

/// A format error for `path`.
fn corrupt(path: &Path, format: Format, message: String) -> Error {
    Error::Format {
        path: path.to_path_buf(),
        format: format.label(),
        message,
    }
}

/// Read exactly `buf.len()` bytes at the current position; `Ok(false)` on a short read
/// (a truncated file, which arrow-ipc then reports).
fn read_fully(file: &mut &File, buf: &mut [u8]) -> io::Result<bool> {
    match file.read_exact(buf) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(false),
        Err(e) => Err(e),
    }
}

/// Check that every block listed in an IPC file's footer lies inside the file.
///
/// # Errors
/// [`Error::Format`] for a footer or block reaching past the end of the file;
/// [`Error::Io`] when reading fails.
pub(crate) fn check_file(mut file: &File, path: &Path) -> Result<()> {
    let format = Format::ArrowFile;
    let io_error = |e| Error::io("read", path, e);
    let len = file.metadata().map_err(io_error)?.len();
    if len < 10 {
        return Ok(()); // too short for a footer: arrow-ipc reports it
    }
    let mut tail = [0u8; 10];
    file.seek(SeekFrom::Start(len - 10)).map_err(io_error)?;
    if !read_fully(&mut file, &mut tail).map_err(io_error)? || &tail[4..] != b"ARROW1" {
        return Ok(());
    }
    let footer_len = i32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]);
    let footer_len = u64::try_from(footer_len)
        .ok()
        .filter(|&n| n + 10 <= len)
        .ok_or_else(|| {
            corrupt(
                path,
                format,
                format!("the footer length {footer_len} does not fit in the file of {len} bytes"),
            )
        })?;
    let mut footer = vec![0u8; usize::try_from(footer_len).unwrap_or(0)];
    file.seek(SeekFrom::Start(len - 10 - footer_len))
        .map_err(io_error)?;
    if !read_fully(&mut file, &mut footer).map_err(io_error)? {
        return Ok(());
    }
    let Ok(footer) = arrow_ipc::root_as_footer(&footer) else {
        return Ok(()); // an invalid footer: arrow-ipc reports it
    };
    let blocks = footer
        .recordBatches()
        .into_iter()
        .flatten()
        .map(|b| ("record batch", b))
        .chain(
            footer
                .dictionaries()
                .into_iter()
                .flatten()
                .map(|b| ("dictionary", b)),
        );
    for (index, (kind, block)) in blocks.enumerate() {
        let (offset, metadata, body) = (block.offset(), block.metaDataLength(), block.bodyLength());
        let end = i128::from(offset) + i128::from(metadata) + i128::from(body);
        if offset < 0 || metadata < 0 || body < 0 || end > i128::from(len) {
            return Err(corrupt(
                path,
                format,
                format!(
                    "{kind} block {index} (offset {offset}, metadata {metadata} bytes, body \
                     {body} bytes) does not fit in the file of {len} bytes"
                ),
            ));
        }
    }
    Ok(())
}

/// Check that every message of an IPC stream file declares a metadata and body
/// length that fits in the rest of the file. Leaves the file at its start.
///
/// # Errors
/// [`Error::Format`] for a length reaching past the end of the file; [`Error::Io`]
/// when reading fails.
pub(crate) fn check_stream(mut file: &File, path: &Path) -> Result<()> {
    let format = Format::ArrowStream;
    let io_error = |e| Error::io("read", path, e);
    let len = file.metadata().map_err(io_error)?.len();
    let mut position = 0u64;
    let mut index = 0usize;
    file.seek(SeekFrom::Start(0)).map_err(io_error)?;
    loop {
        // [continuation marker] metadata length, metadata flatbuffer, body.
        let mut word = [0u8; 4];
        if !read_fully(&mut file, &mut word).map_err(io_error)? {
            break;
        }
        position += 4;
        if word == CONTINUATION {
            if !read_fully(&mut file, &mut word).map_err(io_error)? {
                break;
            }
            position += 4;
        }
        let metadata_len = i32::from_le_bytes(word);
        if metadata_len == 0 {
            break; // end-of-stream marker
        }
        let metadata_len = u64::try_from(metadata_len)
            .ok()
            .filter(|&n| position.checked_add(n).is_some_and(|end| end <= len))
            .ok_or_else(|| {
                corrupt(
                    path,
                    format,
                    format!(
                        "message {index} at byte {position} declares {metadata_len} bytes of \
                         metadata; the file has {} left",
                        len.saturating_sub(position)
                    ),
                )
            })?;
        let mut metadata = vec![0u8; usize::try_from(metadata_len).unwrap_or(0)];
        if !read_fully(&mut file, &mut metadata).map_err(io_error)? {
            break;
        }
        position += metadata_len;
        let Ok(message) = arrow_ipc::root_as_message(&metadata) else {
            break; // an invalid message: arrow-ipc reports it
        };
        let body = message.bodyLength();
        let body = u64::try_from(body)
            .ok()
            .filter(|&n| position.checked_add(n).is_some_and(|end| end <= len))
            .ok_or_else(|| {
                corrupt(
                    path,
                    format,
                    format!(
                        "message {index} at byte {position} declares a body of {body} bytes; \
                         the file has {} left",
                        len.saturating_sub(position)
                    ),
                )
            })?;
        position += body;
        file.seek(SeekFrom::Start(position)).map_err(io_error)?;
        index += 1;
    }
    file.seek(SeekFrom::Start(0)).map_err(io_error)?;
    Ok(())
}
