//! Inputs the fuzzers (fuzz/, scripts/fuzz.sh) found crashing or hanging a reader, kept
//! in tests/fuzz/: each must now be an error, returned within a bound.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

use ragged::io::{read_table_from_reader, Format};
use ragged::Error;

fn input(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Read `name` as `format` on another thread: a format error within 60 seconds.
fn rejected(name: &str, format: Format) -> Error {
    let bytes = input(name);
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(read_table_from_reader(bytes.as_slice(), Some(format), None).err());
    });
    match receive.recv_timeout(Duration::from_secs(60)) {
        Ok(Some(error)) => error,
        Ok(None) => panic!("{name} read as a table"),
        Err(_) => panic!("{name}: no answer within 60 s"),
    }
}

/// A zstd-compressed buffer declaring 2^56 uncompressed bytes: arrow-ipc allocated
/// them before decompressing, and the failed allocation aborted the process.
#[test]
fn an_ipc_stream_buffer_declaring_petabytes_is_an_error() {
    let error = rejected("ipc_stream-zstd-declared-length", Format::ArrowStream);
    assert!(matches!(error, Error::Format { .. }), "{error}");
    assert!(error.to_string().contains("uncompressed bytes"), "{error}");
}

/// An LZ4-compressed dictionary buffer declaring 32 GiB: the same abort, in a file.
#[test]
fn an_ipc_file_buffer_declaring_gigabytes_is_an_error() {
    let error = rejected("ipc_file-lz4-declared-length", Format::ArrowFile);
    assert!(matches!(error, Error::Format { .. }), "{error}");
    assert!(error.to_string().contains("uncompressed bytes"), "{error}");
}

/// The same in a file whose message's flatbuffer reaches into the block's body, where
/// arrow-ipc parses it (over the whole block) and a check over the metadata alone
/// could not: a zstd buffer declaring 120 GB.
#[test]
fn an_ipc_file_message_parsed_over_its_body_is_checked() {
    let error = rejected("ipc_file-zstd-declared-length-in-body", Format::ArrowFile);
    assert!(matches!(error, Error::Format { .. }), "{error}");
    assert!(error.to_string().contains("uncompressed bytes"), "{error}");
}

/// A page header whose unknown field is a list of 2^31 doubles at the end of the
/// file: the Thrift decoder skipped each one with an empty read (minutes of system
/// calls).
#[test]
fn a_parquet_page_header_past_the_end_is_an_error() {
    let error = rejected("parquet-thrift-skip-past-end", Format::Parquet);
    assert!(matches!(error, Error::Format { .. }), "{error}");
}

/// An `int64` dictionary page declaring 2^31 values in a few bytes: parquet-rs zeroed
/// 16 GiB for them before decoding (the fuzzer's memory limit, or the machine's).
#[test]
fn a_parquet_dictionary_declaring_more_values_than_bytes_is_an_error() {
    let error = rejected("parquet-dictionary-count", Format::Parquet);
    assert!(matches!(error, Error::Format { .. }), "{error}");
    assert!(
        error.to_string().contains("dictionary page declares"),
        "{error}"
    );
}

/// A row group declaring 2^40 rows (three on disk): parquet-rs reserved the batch
/// size, which was the declared row count, before reading a page; the allocation
/// failed and aborted (and 2^62 rows was a capacity-overflow panic, found by the
/// fuzzer). Made from a pyarrow file by rewriting the count in its footer.
#[test]
fn a_parquet_row_group_declaring_more_rows_than_memory_is_an_error() {
    let error = rejected("parquet-row-group-2-40-rows", Format::Parquet);
    assert!(matches!(error, Error::Format { .. }), "{error}");
    assert!(!error.to_string().contains("panic"), "{error}");
}

/// A Snappy page declaring 1.2 GB uncompressed in a 716-byte file: parquet-rs zeroed
/// the declared size before decompressing (no error, but 1.2 GB of memory; up to
/// 2 GiB a page, past the fuzzers' limit). Found by the fuzzer as a corpus input of
/// outsized memory.
#[test]
fn a_parquet_page_declaring_more_than_its_codec_can_produce_is_an_error() {
    let error = rejected("parquet-page-size-1-2-gb", Format::Parquet);
    assert!(matches!(error, Error::Format { .. }), "{error}");
    assert!(
        error.to_string().contains("compressed bytes can hold"),
        "{error}"
    );
}

/// The check on declared lengths passes legitimate files at their codecs' largest
/// ratios: zeros (zstd's RLE blocks, LZ4's longest matches), files and streams.
#[test]
fn compressed_ipc_at_the_largest_ratios_reads() {
    use std::sync::Arc;

    use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
    use arrow_ipc::writer::{FileWriter, IpcWriteOptions, StreamWriter};
    use arrow_ipc::CompressionType;

    let rows = 1 << 20;
    let zeros: ArrayRef = Arc::new(Int64Array::from(vec![0i64; rows]));
    let text: ArrayRef = Arc::new(StringArray::from(vec!["ragged"; rows]));
    let batch = RecordBatch::try_from_iter([("zeros", zeros), ("text", text)]).unwrap();
    for codec in [CompressionType::LZ4_FRAME, CompressionType::ZSTD] {
        let options = IpcWriteOptions::default()
            .try_with_compression(Some(codec))
            .unwrap();
        let mut file = Vec::new();
        let mut writer =
            FileWriter::try_new_with_options(&mut file, &batch.schema(), options.clone()).unwrap();
        writer.write(&batch).unwrap();
        writer.finish().unwrap();
        drop(writer);
        let mut stream = Vec::new();
        let mut writer =
            StreamWriter::try_new_with_options(&mut stream, &batch.schema(), options).unwrap();
        writer.write(&batch).unwrap();
        writer.finish().unwrap();
        drop(writer);
        for (bytes, format) in [(file, Format::ArrowFile), (stream, Format::ArrowStream)] {
            let table = read_table_from_reader(bytes.as_slice(), Some(format), None)
                .unwrap_or_else(|e| panic!("{codec:?} {format:?} ({} bytes): {e}", bytes.len()));
            assert_eq!(table.num_rows(), rows);
            assert_eq!(table.strings("text").unwrap().get(rows - 1), Some("ragged"));
        }
    }
}
