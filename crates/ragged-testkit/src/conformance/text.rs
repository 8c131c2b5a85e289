//! The conformance suite of the text (lines) family: `split_lines`, `line_ends` and
//! `count_lines`, generic over any backend implementing [`TextOps`].
//!
//! Every check uploads the input with `Memory::upload`, runs the three ops with the
//! same plan, downloads, and compares with [`oracle::lines`] (never with another
//! backend): the records and their offset width, the boundaries, the count, and for
//! invalid UTF-8 the error's record and byte. The suites cover the lines semantics of
//! DESIGN.md §2 with the cases of its §4: edge inputs, every tile size from 1 byte on
//! small inputs (`\r\n` and multi-byte delimiters across tile boundaries at every
//! position, records longer than a tile), byte ranges split at every position
//! reproducing the whole, invalid UTF-8 (an error, or binary records when asked),
//! forced i64 offsets, self-overlapping delimiters, and large random text.
//! [`crate::text_conformance_suite!`] turns each into a `#[test]`.

use ragged_core::ops::{Delimiter, LineOptions, LinesColumn, TextOps};
use ragged_core::{BinaryColumn, Error, Host, ScalarBuffer};

use super::backend_error;
use crate::check::{Failures, Mismatch};
use crate::gen::text::{
    delimiter_label, delimiters, edge_inputs, long_delimiter, random_lines, straddle_input,
};
use crate::gen::{Case, TextCase};
use crate::oracle::{self, LinesOracle};
use crate::rng::Rng;

/// The records of a column of the backend, on the host.
fn host_lines<B: TextOps>(
    backend: &B,
    case: &TextCase,
    col: LinesColumn<B::Loc>,
) -> Result<LinesColumn<Host>, Mismatch> {
    let err = |e| backend_error(case, "download", e);
    Ok(match col {
        LinesColumn::Utf8(c) => LinesColumn::Utf8(backend.to_host_strings(&c).map_err(err)?),
        LinesColumn::LargeUtf8(c) => {
            LinesColumn::LargeUtf8(backend.to_host_strings(&c).map_err(err)?)
        }
        LinesColumn::Binary(c) => {
            let offsets = backend.download(c.offsets()).map_err(err)?;
            let values = backend.download(c.values()).map_err(err)?;
            LinesColumn::Binary(BinaryColumn::try_new(offsets, values, None).map_err(err)?)
        }
        LinesColumn::LargeBinary(c) => {
            let offsets = backend.download(c.offsets()).map_err(err)?;
            let values = backend.download(c.values()).map_err(err)?;
            LinesColumn::LargeBinary(BinaryColumn::try_new(offsets, values, None).map_err(err)?)
        }
    })
}

fn show(bytes: &[u8]) -> String {
    format!("{:?}", String::from_utf8_lossy(bytes))
}

/// Compare a downloaded records column with the oracle.
fn compare_lines(
    case: &TextCase,
    got: &LinesColumn<Host>,
    want: &LinesOracle,
) -> Result<(), Mismatch> {
    let label = case.label();
    if got.len() != want.records.len() {
        return Err(Mismatch::new(
            label,
            None,
            format!(
                "split_lines: {} records, expected {}",
                got.len(),
                want.records.len()
            ),
        ));
    }
    for (row, expected) in want.records.iter().enumerate() {
        if got.row_bytes(row) != expected.as_slice() {
            return Err(Mismatch::new(
                label,
                Some(row),
                format!(
                    "split_lines: expected {}, got {}",
                    show(expected),
                    show(got.row_bytes(row))
                ),
            ));
        }
    }
    if got.is_wide() != want.wide {
        return Err(Mismatch::new(
            label,
            None,
            format!(
                "split_lines: i64 offsets {}, expected {}",
                got.is_wide(),
                want.wide
            ),
        ));
    }
    if got.is_binary() != case.options.binary {
        return Err(Mismatch::new(
            label,
            None,
            format!(
                "split_lines: binary {}, expected {}",
                got.is_binary(),
                case.options.binary
            ),
        ));
    }
    Ok(())
}

/// `split_lines`, `line_ends` and `count_lines` on one case against [`oracle::lines`].
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_lines<B: TextOps>(backend: &B, case: &TextCase) -> Result<(), Mismatch> {
    let label = case.label();
    let want = oracle::lines(&case.bytes, &case.options);
    let plan = case
        .options
        .plan()
        .map_err(|e| backend_error(case, "plan", e))?;
    let device = backend
        .upload(&ScalarBuffer::from(case.bytes.clone()))
        .map_err(|e| backend_error(case, "upload", e))?;

    match (backend.split_lines(&device, &plan), want.utf8_error) {
        (Ok(col), None) => compare_lines(case, &host_lines(backend, case, col)?, &want)?,
        (Err(Error::InvalidUtf8 { row, byte }), Some(expected)) if (row, byte) == expected => {}
        (Err(e), None) => return Err(backend_error(case, "split_lines", e)),
        (Err(e), Some((row, byte))) => {
            return Err(Mismatch::new(
                label,
                Some(row),
                format!("split_lines: expected invalid UTF-8 at record {row} byte {byte}, got {e}"),
            ))
        }
        (Ok(_), Some((row, byte))) => {
            return Err(Mismatch::new(
                label,
                Some(row),
                format!(
                    "split_lines: expected invalid UTF-8 at record {row} byte {byte}, got records"
                ),
            ))
        }
    }

    let ends = backend
        .line_ends(&device, &plan)
        .map_err(|e| backend_error(case, "line_ends", e))?;
    let ends = backend
        .download(ends.values())
        .map_err(|e| backend_error(case, "download", e))?;
    if ends.as_ref() != want.boundaries.as_slice() {
        return Err(Mismatch::new(
            label,
            None,
            format!(
                "line_ends: expected {:?}, got {:?}",
                want.boundaries,
                ends.as_ref()
            ),
        ));
    }

    let count = backend
        .count_lines(&device, &plan)
        .map_err(|e| backend_error(case, "count_lines", e))?;
    if count != want.records.len() as u64 {
        return Err(Mismatch::new(
            label,
            None,
            format!("count_lines: expected {}, got {count}", want.records.len()),
        ));
    }
    Ok(())
}

/// Byte ranges `[0, k)` and `[k, ∞)` for every `k` in `0..=len + 1` give, together,
/// the records of the whole input (and each agrees with the oracle). Records are
/// compared as binary (UTF-8 errors are [`check_lines`]'s subject); the case's own
/// byte range is ignored.
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_split_points<B: TextOps>(backend: &B, case: &TextCase) -> Result<(), Mismatch> {
    let case = &TextCase {
        options: LineOptions {
            byte_range: None,
            ..case.options.clone().with_binary(true)
        },
        ..case.clone()
    };
    let whole = oracle::lines(&case.bytes, &case.options);
    let plan = case
        .options
        .plan()
        .map_err(|e| backend_error(case, "plan", e))?;
    let device = backend
        .upload(&ScalarBuffer::from(case.bytes.clone()))
        .map_err(|e| backend_error(case, "upload", e))?;
    let records = |start: u64, end: u64| -> Result<Vec<Vec<u8>>, Mismatch> {
        let plan = plan
            .with_byte_range(start, end)
            .map_err(|e| backend_error(case, "plan", e))?;
        let col = backend
            .split_lines(&device, &plan)
            .map_err(|e| backend_error(case, "split_lines", e))?;
        let col = host_lines(backend, case, col)?;
        Ok((0..col.len()).map(|i| col.row_bytes(i).to_vec()).collect())
    };
    for k in 0..=case.bytes.len() as u64 + 1 {
        let mut joined = records(0, k)?;
        joined.extend(records(k, u64::MAX)?);
        if joined != whole.records {
            return Err(Mismatch::new(
                case.label(),
                None,
                format!(
                    "ranges [0, {k}) + [{k}, end) give {} records, the whole input {}",
                    joined.len(),
                    whole.records.len()
                ),
            ));
        }
        let mut ranged = case.clone();
        ranged.label = format!("{} [range {k}..]", case.label);
        ranged.options.byte_range = Some((k, u64::MAX));
        check_lines(backend, &ranged)?;
        ranged.label = format!("{} [range ..{k}]", case.label);
        ranged.options.byte_range = Some((0, k));
        check_lines(backend, &ranged)?;
    }
    Ok(())
}

/// Options with a delimiter and keep flag, binary when the input is not UTF-8 half
/// of the time (the other half checks the error).
fn options(delimiter: &Delimiter, keep: bool) -> LineOptions {
    LineOptions::new(delimiter.clone()).with_keep_delimiter(keep)
}

/// Every edge input × delimiter × keep/strip × UTF-8/binary, with the default tile
/// and with 1-byte tiles.
///
/// # Panics
/// When any case differs from the oracle.
pub fn edge_cases<B: TextOps>(backend: &B) {
    let mut failures = Failures::new();
    for (name, bytes) in edge_inputs() {
        for delimiter in delimiters() {
            for keep in [false, true] {
                for binary in [false, true] {
                    for tile in [None, Some(1)] {
                        let mut o = options(&delimiter, keep).with_binary(binary);
                        o.tile_bytes = tile;
                        let label = format!(
                            "{name}/{}/keep={keep}/binary={binary}/tile={tile:?}",
                            delimiter_label(&delimiter)
                        );
                        failures.record(check_lines(
                            backend,
                            &TextCase::new(label, bytes.clone(), o),
                        ));
                    }
                }
            }
        }
    }
    failures.finish("lines_edge_cases");
}

/// Every tile size from 1 byte to past the input, on every edge input and delimiter:
/// the same records as the oracle (so a tile boundary at every position: inside
/// `\r\n`, inside every multi-byte delimiter, inside records longer than a tile).
///
/// # Panics
/// When any case differs from the oracle.
pub fn tile_sizes<B: TextOps>(backend: &B) {
    let mut failures = Failures::new();
    for (name, bytes) in edge_inputs() {
        for delimiter in delimiters() {
            for tile in 1..=bytes.len() + 1 {
                let keep = tile % 2 == 0;
                let o = options(&delimiter, keep)
                    .with_binary(true)
                    .with_tile_bytes(tile);
                let label = format!(
                    "{name}/{}/keep={keep}/tile={tile}",
                    delimiter_label(&delimiter)
                );
                failures.record(check_lines(
                    backend,
                    &TextCase::new(label, bytes.clone(), o),
                ));
            }
        }
    }
    failures.finish("lines_tile_sizes");
}

/// A multi-byte delimiter (`\r\n`, `||`, `abab`, 64 bytes) split by a tile boundary
/// after each of its bytes (small tiles, and the default tiles at power-of-two
/// boundaries), and records much longer than a tile.
///
/// # Panics
/// When any case differs from the oracle.
pub fn delimiters_across_tiles<B: TextOps>(backend: &B) {
    let mut failures = Failures::new();
    let multi: Vec<Delimiter> = vec![
        Delimiter::Newline,
        Delimiter::CrLf,
        Delimiter::Bytes(b"||".to_vec()),
        Delimiter::Bytes(b"abab".to_vec()),
        Delimiter::Bytes(long_delimiter()),
    ];
    for delimiter in &multi {
        let d = match delimiter {
            Delimiter::Newline => b"\r\n".to_vec(),
            other => other.bytes().to_vec(),
        };
        for pad in [0, 1, 7] {
            for k in 0..=d.len() {
                let tile = pad + k;
                if tile == 0 {
                    continue;
                }
                let bytes = straddle_input(pad, &d, b"tail");
                for keep in [false, true] {
                    let o = options(delimiter, keep).with_tile_bytes(tile);
                    let label = format!(
                        "straddle/{}/pad={pad}/split after {k}/keep={keep}",
                        delimiter_label(delimiter)
                    );
                    failures.record(check_lines(
                        backend,
                        &TextCase::new(label, bytes.clone(), o),
                    ));
                }
            }
        }
        // The default tiles: the delimiter across each power-of-two boundary from 4 KiB
        // to 64 KiB (the GPU's tiles and the sub-tiles within them) after each of its
        // bytes, in 70 000 bytes of filler.
        let filler: Vec<u8> = (0..70_000)
            .map(|i| if i % 97 == 96 { b';' } else { b'x' })
            .collect();
        for k in 0..=d.len() {
            let mut bytes = filler.clone();
            for boundary in [4096usize, 8192, 16384, 32768, 65536] {
                bytes[boundary - k..boundary - k + d.len()].copy_from_slice(&d);
            }
            let label = format!(
                "default_tiles/{}/split after {k}",
                delimiter_label(delimiter)
            );
            failures.record(check_lines(
                backend,
                &TextCase::new(label, bytes, options(delimiter, false)),
            ));
        }
        // A record of 1000 bytes among short ones, with tiles of 1, 3 and 64 bytes.
        let mut bytes = b"short".to_vec();
        bytes.extend_from_slice(&d);
        bytes.extend(std::iter::repeat_n(b'L', 1000));
        bytes.extend_from_slice(&d);
        bytes.extend_from_slice(b"end");
        for tile in [1, 3, 64] {
            let o = options(delimiter, false).with_tile_bytes(tile);
            let label = format!("long_record/{}/tile={tile}", delimiter_label(delimiter));
            failures.record(check_lines(
                backend,
                &TextCase::new(label, bytes.clone(), o),
            ));
        }
    }
    failures.finish("lines_delimiters_across_tiles");
}

/// Byte ranges splitting every edge input at every position reproduce the whole
/// (and agree with the oracle), with the default tile and 2-byte tiles.
///
/// # Panics
/// When any case differs.
pub fn byte_ranges<B: TextOps>(backend: &B) {
    let mut failures = Failures::new();
    for (name, bytes) in edge_inputs() {
        for delimiter in delimiters() {
            for tile in [None, Some(2)] {
                let mut o = options(&delimiter, tile.is_some()).with_binary(true);
                o.tile_bytes = tile;
                let label = format!("{name}/{}/tile={tile:?}", delimiter_label(&delimiter));
                failures.record(check_split_points(
                    backend,
                    &TextCase::new(label, bytes.clone(), o),
                ));
            }
        }
    }
    failures.finish("lines_byte_ranges");
}

/// Invalid UTF-8: an error naming the record (counted from the range's first record)
/// and the byte, or binary records when asked; at several tile sizes and ranges.
///
/// # Panics
/// When any case differs from the oracle.
pub fn invalid_utf8<B: TextOps>(backend: &B) {
    let mut failures = Failures::new();
    let inputs: [&[u8]; 4] = [
        b"ok\nfine\n\xffbad\nlater\xfe\n",
        b"a\nb\nc\r\n\xe2\x82\xac\xe2\x82\n",
        b"\xc3",
        b"good\n\xed\xa0\x80 surrogate\n",
    ];
    for (i, bytes) in inputs.iter().enumerate() {
        for keep in [false, true] {
            for binary in [false, true] {
                for tile in [1, 4, 1 << 20] {
                    for start in [0, 3] {
                        let o = options(&Delimiter::Newline, keep)
                            .with_binary(binary)
                            .with_tile_bytes(tile)
                            .with_byte_range(start, u64::MAX);
                        let label = format!("invalid_utf8/{i}/keep={keep}/binary={binary}/tile={tile}/start={start}");
                        failures.record(check_lines(
                            backend,
                            &TextCase::new(label, bytes.to_vec(), o),
                        ));
                    }
                }
            }
        }
    }
    failures.finish("lines_invalid_utf8");
}

/// i64 offsets forced by a low `wide_offsets_above` (0, 1, 10 bytes), kept and
/// stripped, UTF-8 and binary.
///
/// # Panics
/// When any case differs from the oracle.
pub fn wide_offsets<B: TextOps>(backend: &B) {
    let mut failures = Failures::new();
    for (name, bytes) in edge_inputs() {
        for above in [0, 1, 10] {
            for keep in [false, true] {
                for binary in [false, true] {
                    let o = options(&Delimiter::Newline, keep)
                        .with_binary(binary)
                        .with_wide_offsets_above(above);
                    let label = format!("{name}/above={above}/keep={keep}/binary={binary}");
                    failures.record(check_lines(
                        backend,
                        &TextCase::new(label, bytes.clone(), o),
                    ));
                }
            }
        }
    }
    failures.finish("lines_wide_offsets");
}

/// Self-overlapping delimiters (`aa`, `aaa`, `aba`, `abab`) on random `a`/`b` text:
/// every tile size and every split point give the sequential left-to-right answer.
///
/// # Panics
/// When any case differs from the oracle.
pub fn overlapping_delimiters<B: TextOps>(backend: &B) {
    let mut failures = Failures::new();
    let mut rng = Rng::from_label("overlapping_delimiters");
    for d in [&b"aa"[..], b"aaa", b"aba", b"abab"] {
        for round in 0..6 {
            let len = 10 + rng.index(30);
            let bytes: Vec<u8> = (0..len)
                .map(|_| if rng.below(4) == 0 { b'b' } else { b'a' })
                .collect();
            let delimiter = Delimiter::Bytes(d.to_vec());
            for tile in 1..=len {
                let o = options(&delimiter, round % 2 == 0).with_tile_bytes(tile);
                let label = format!("{}/round={round}/tile={tile}", delimiter_label(&delimiter));
                failures.record(check_lines(
                    backend,
                    &TextCase::new(label, bytes.clone(), o),
                ));
            }
            let o = options(&delimiter, false).with_tile_bytes(1 + round);
            let label = format!("{}/round={round}/ranges", delimiter_label(&delimiter));
            failures.record(check_split_points(backend, &TextCase::new(label, bytes, o)));
        }
    }
    failures.finish("lines_overlapping_delimiters");
}

/// Random printable text (lines of mean 16, 80 and 1000 bytes, `\n` and `\r\n`) of
/// about 3 MiB with the default tile (several tiles), and 64 KiB with 4 KiB tiles;
/// 1 MiB of short lines ending in delimiters of 2 to 4 bytes with the default tile.
///
/// # Panics
/// When any case differs from the oracle.
pub fn random_text<B: TextOps>(backend: &B) {
    let mut failures = Failures::new();
    for mean in [16, 80, 1000] {
        for crlf in [false, true] {
            for (bytes, tile) in [(3 << 20, None), (64 << 10, Some(4096))] {
                let label = format!("random/mean={mean}/crlf={crlf}/bytes={bytes}");
                let mut rng = Rng::from_label(&label);
                let data = random_lines(&mut rng, bytes, mean, crlf);
                for delimiter in [Delimiter::Newline, Delimiter::CrLf] {
                    let mut o = options(&delimiter, false);
                    o.tile_bytes = tile;
                    let label = format!("{label}/{}", delimiter_label(&delimiter));
                    failures.record(check_lines(backend, &TextCase::new(label, data.clone(), o)));
                }
                let o = options(&Delimiter::Newline, true)
                    .with_byte_range(data.len() as u64 / 3, 2 * data.len() as u64 / 3);
                failures.record(check_lines(
                    backend,
                    &TextCase::new(format!("{label}/middle third"), data, o),
                ));
            }
        }
    }
    // Delimiters of 2 to 4 bytes (some self-overlapping) in random text with the
    // default tile: matches straddle runs, warps and tiles at random positions.
    for d in [&b"<>"[..], b"<=>", b"|#|", b"<==>", b"abab", b"\0\r\n\0"] {
        let label = format!("random/short delimiter {d:?}");
        let mut rng = Rng::from_label(&label);
        let mut data = Vec::new();
        for byte in random_lines(&mut rng, 1 << 20, 12, false) {
            if byte == b'\n' {
                data.extend_from_slice(d);
            } else {
                data.push(byte);
            }
        }
        let delimiter = Delimiter::Bytes(d.to_vec());
        for keep in [false, true] {
            let o = options(&delimiter, keep);
            let label = format!("{label}/keep={keep}");
            failures.record(check_lines(backend, &TextCase::new(label, data.clone(), o)));
        }
    }
    failures.finish("lines_random_text");
}
