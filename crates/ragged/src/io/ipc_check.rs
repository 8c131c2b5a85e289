//! Framing checks for Arrow IPC files and streams before arrow-rs decodes them.
//!
//! arrow-ipc allocates each message's buffer from lengths stored in the file (the
//! footer's blocks, each message's `bodyLength`) before reading it. A corrupt length
//! can ask for petabytes, and a failed allocation aborts the process, which no
//! `catch_unwind` can stop. These checks read only the framing (lengths and the small
//! flatbuffer headers) and reject any length that reaches past the end of the file,
//! so every allocation arrow-ipc then makes is bounded by the file's size.
//!
//! Compressed buffers (LZ4 frame or zstd bodies) start with the length they
//! decompress to, which arrow-ipc also allocates before decompressing: a length that
//! the buffer's compressed bytes cannot produce with its codec (at most 255 bytes per
//! byte for LZ4, 32 KiB per byte for zstd, whose 4-byte RLE block stands for up to
//! 128 KiB) is rejected too, so such allocations are bounded by what the file could
//! legitimately decompress to: in streams here, in files by [`check_block`] on each
//! block once the file is in memory (arrow-ipc parses a file's message over the whole
//! block, so only the block decides what it reads).
//!
//! Malformed framing that these checks do not understand is left to arrow-ipc, which
//! reports it as an error; only lengths are judged here.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::path::Path;

use arrow_ipc::{CompressionType, Message, MessageHeader};

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

/// Read exactly `buf.len()` bytes at `offset`; `Ok(false)` past the end of the file.
fn read_fully_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<bool> {
    match file.read_exact_at(buf, offset) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(false),
        Err(e) => Err(e),
    }
}

/// The most bytes one compressed byte can decompress to with `codec`: LZ4 (a match
/// grows by 255 per length byte) and zstd (a 4-byte RLE block stands for 128 KiB).
fn max_expansion(codec: CompressionType) -> u64 {
    match codec {
        CompressionType::LZ4_FRAME => 255,
        _ => 32 << 10,
    }
}

/// Check the uncompressed length that each compressed buffer of a record batch or
/// dictionary batch message declares in its first 8 bytes (arrow-ipc allocates it
/// before decompressing) against what its compressed bytes can decompress to.
/// `prefix(offset)` reads the 8 bytes at `offset` of the message's body of `body_len`
/// bytes (`None` past its end). Buffers that do not lie in the body are left to
/// arrow-ipc.
///
/// # Errors
/// [`Error::Format`] for a length the buffer cannot decompress to; `prefix`'s errors.
fn check_compressed_buffers(
    path: &Path,
    format: Format,
    message: &Message,
    body_len: u64,
    index: usize,
    mut prefix: impl FnMut(u64) -> Result<Option<[u8; 8]>>,
) -> Result<()> {
    let batch = match message.header_type() {
        MessageHeader::RecordBatch => message.header_as_record_batch(),
        MessageHeader::DictionaryBatch => message
            .header_as_dictionary_batch()
            .and_then(|dictionary| dictionary.data()),
        _ => None,
    };
    let Some((batch, compression)) = batch.and_then(|b| Some((b, b.compression()?))) else {
        return Ok(());
    };
    let expansion = max_expansion(compression.codec());
    for (number, buffer) in batch.buffers().into_iter().flatten().enumerate() {
        let (Ok(offset), Ok(length)) = (
            u64::try_from(buffer.offset()),
            u64::try_from(buffer.length()),
        ) else {
            continue;
        };
        if length < 8 || offset.checked_add(length).is_none_or(|end| end > body_len) {
            continue;
        }
        let Some(bytes) = prefix(offset)? else {
            continue;
        };
        // -1: stored uncompressed; 0: empty; other negative lengths arrow-ipc rejects.
        let declared = i64::from_le_bytes(bytes);
        let most = (length - 8).saturating_mul(expansion);
        if u64::try_from(declared).is_ok_and(|n| n > most) {
            return Err(corrupt(
                path,
                format,
                format!(
                    "message {index}: buffer {number} declares {declared} uncompressed bytes, \
                     more than its {} compressed bytes can hold ({most})",
                    length - 8
                ),
            ));
        }
    }
    Ok(())
}

/// Check the compressed buffers (see [`check_compressed_buffers`]) of an IPC file's
/// block held in memory: `data` is the block's message and body as arrow-ipc's
/// `FileDecoder` gets them, the message parsed as it parses it (over the whole block).
///
/// # Errors
/// [`Error::Format`] for a buffer declaring more bytes than it can decompress to.
pub(crate) fn check_block(
    data: &[u8],
    metadata_len: usize,
    path: &Path,
    index: usize,
) -> Result<()> {
    let flatbuffer = match data.get(..4) {
        Some(word) if word == CONTINUATION => data.get(8..),
        _ => data.get(4..),
    };
    let Some(Ok(message)) = flatbuffer.map(arrow_ipc::root_as_message) else {
        return Ok(()); // an invalid message: arrow-ipc reports it
    };
    let body = data.get(metadata_len..).unwrap_or_default();
    check_compressed_buffers(
        path,
        Format::ArrowFile,
        &message,
        body.len() as u64,
        index,
        |offset| {
            let at = usize::try_from(offset).unwrap_or(usize::MAX);
            Ok(body
                .get(at..at.saturating_add(8))
                .and_then(|b| b.try_into().ok()))
        },
    )
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
        check_compressed_buffers(path, format, &message, body, index, |offset| {
            let mut bytes = [0u8; 8];
            let at = position.saturating_add(offset);
            let read = read_fully_at(file, &mut bytes, at).map_err(io_error)?;
            Ok(read.then_some(bytes))
        })?;
        position += body;
        file.seek(SeekFrom::Start(position)).map_err(io_error)?;
        index += 1;
    }
    file.seek(SeekFrom::Start(0)).map_err(io_error)?;
    Ok(())
}
