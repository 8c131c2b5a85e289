//! Inputs of the text (lines) family: byte buffers with their options.
//!
//! - [`edge_inputs`]: the named edge cases of the lines semantics (DESIGN.md §2):
//!   empty, one byte, no delimiter, only delimiters, trailing delimiter or none, `\r`
//!   without `\n`, invalid UTF-8, multi-byte characters, self-overlapping delimiter
//!   runs;
//! - [`delimiters`]: newline mode, `\r\n`, one byte, several bytes, self-overlapping
//!   ones and the longest allowed (64 bytes);
//! - [`random_lines`]: random printable text (ASCII with some 2-, 3- and 4-byte
//!   characters) in lines of a given mean length, ending in `\n` or `\r\n`;
//! - [`straddle_input`]: a delimiter placed at every position around a boundary.

use ragged_core::ops::{Delimiter, LineOptions, MAX_DELIMITER_BYTES};

use super::Case;
use crate::rng::Rng;

/// One input of the text family: bytes and options.
#[derive(Clone, Debug)]
pub struct TextCase {
    /// The case's name.
    pub label: String,
    /// The input.
    pub bytes: Vec<u8>,
    /// The options (validated into a plan by the check).
    pub options: LineOptions,
}

impl TextCase {
    /// A case.
    pub fn new(label: impl Into<String>, bytes: Vec<u8>, options: LineOptions) -> Self {
        Self {
            label: label.into(),
            bytes,
            options,
        }
    }
}

impl Case for TextCase {
    fn label(&self) -> &str {
        &self.label
    }
    fn row_count(&self) -> usize {
        self.bytes.len()
    }
}

/// The longest delimiter allowed: 64 bytes that do not overlap themselves.
pub fn long_delimiter() -> Vec<u8> {
    let mut d = b"--boundary-".to_vec();
    while d.len() < MAX_DELIMITER_BYTES - 1 {
        d.push(b'0' + (d.len() % 10) as u8);
    }
    d.push(b'|');
    d
}

/// Delimiters every suite runs: newline mode, `\r\n`, `\n` exactly, one other byte,
/// two bytes, the self-overlapping `aa` and `abab`, a NUL byte and 64 bytes.
pub fn delimiters() -> Vec<Delimiter> {
    vec![
        Delimiter::Newline,
        Delimiter::CrLf,
        Delimiter::Bytes(b"\n".to_vec()),
        Delimiter::Bytes(b";".to_vec()),
        Delimiter::Bytes(b"||".to_vec()),
        Delimiter::Bytes(b"aa".to_vec()),
        Delimiter::Bytes(b"abab".to_vec()),
        Delimiter::Bytes(vec![0]),
        Delimiter::Bytes(long_delimiter()),
    ]
}

/// A short name of a delimiter for labels.
pub fn delimiter_label(d: &Delimiter) -> String {
    match d {
        Delimiter::Newline => "newline".into(),
        Delimiter::CrLf => "crlf".into(),
        Delimiter::Bytes(b) if b.len() > 8 => format!("bytes{}", b.len()),
        Delimiter::Bytes(b) => format!("{:?}", String::from_utf8_lossy(b)),
    }
}

/// The named edge inputs (small: every tile size and split point runs on them).
pub fn edge_inputs() -> Vec<(&'static str, Vec<u8>)> {
    let long = long_delimiter();
    let mut with_long = b"first".to_vec();
    with_long.extend_from_slice(&long);
    with_long.extend_from_slice(b"second");
    with_long.extend_from_slice(&long);
    with_long.extend_from_slice(&long[..40]);
    vec![
        ("empty", vec![]),
        ("one_byte", b"a".to_vec()),
        ("one_newline", b"\n".to_vec()),
        ("one_cr", b"\r".to_vec()),
        ("one_nul", vec![0]),
        ("no_delimiter", b"no delimiter at all".to_vec()),
        ("only_newlines", b"\n\n\n\n".to_vec()),
        ("only_crlf", b"\r\n\r\n\r\n".to_vec()),
        ("only_semicolons", b";;;;;".to_vec()),
        ("trailing", b"alpha\nbeta\ngamma\n".to_vec()),
        ("not_trailing", b"alpha\nbeta\ngamma".to_vec()),
        ("crlf_lines", b"one\r\ntwo\r\n\r\nthree".to_vec()),
        ("cr_without_lf", b"a\rb\r\nc\r\rd\r".to_vec()),
        ("mixed_endings", b"x\n\r\ny\r\r\n\nz;w||v;;".to_vec()),
        (
            "multibyte_utf8",
            "héllo\nwörld\r\n€ 𝄞;ok||ß\n".as_bytes().to_vec(),
        ),
        ("invalid_utf8", b"ok\n\xff\xfe\nbad\xc3\nfine\n".to_vec()),
        ("invalid_in_second", b"good;\xe2\x82;x\n".to_vec()),
        ("runs_of_a", b"aaaaaaa".to_vec()),
        ("abab_runs", b"abababa;ababab\nabab".to_vec()),
        ("nul_separated", b"a\0bb\0\0ccc\0".to_vec()),
        ("long_delimiter", with_long),
    ]
}

/// Random printable text of about `bytes` bytes in lines of mean length
/// `mean_line` (uniform in `0..=2 * mean_line`), each ending in `\n` or, with
/// `crlf`, `\r\n`; one character in 16 is a 2-, 3- or 4-byte UTF-8 character.
pub fn random_lines(rng: &mut Rng, bytes: usize, mean_line: usize, crlf: bool) -> Vec<u8> {
    const WIDE: [&str; 3] = ["é", "€", "𝄞"];
    let mut out = Vec::with_capacity(bytes + 2 * mean_line + 8);
    while out.len() < bytes {
        let len = rng.index(2 * mean_line + 1);
        let end = out.len() + len;
        while out.len() < end {
            if rng.below(16) == 0 {
                out.extend_from_slice(WIDE[rng.index(3)].as_bytes());
            } else {
                out.push(b' ' + rng.below(95) as u8);
            }
        }
        if crlf {
            out.extend_from_slice(b"\r\n");
        } else {
            out.push(b'\n');
        }
    }
    out
}

/// `pad` bytes of `x`, the delimiter, then `tail`: with tiles of `pad + k` bytes the
/// tile boundary falls after the delimiter's `k`-th byte.
pub fn straddle_input(pad: usize, delimiter: &[u8], tail: &[u8]) -> Vec<u8> {
    let mut out = vec![b'x'; pad];
    out.extend_from_slice(delimiter);
    out.extend_from_slice(tail);
    out
}
