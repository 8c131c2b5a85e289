//! The line splitter: the streaming reader ([`LineReader`]) and the CPU backend's
//! [`TextOps`] entry points, checked against a naive left-to-right split.
//!
//! Input layout: byte 0 holds flags (bits 0–3: one of [`FIXED`]; bit 4: a delimiter
//! taken from the input instead; bit 5: keep delimiters; bit 6: binary records), byte 1
//! the window size (1–64 bytes, or the 64 MiB default for 255), byte 2 the backend's
//! tile hint (none for 0), byte 3 where the byte range is cut; with bit 4, the next
//! byte is the delimiter's length − 1 (mod 64) and that many bytes follow. The rest is
//! the text. Every delimiter goes through [`parse_delimiter`], as the CLI's `-d` does
//! (`\n` and `\r\n` become the newline and CRLF modes).

use arrow_buffer::ScalarBuffer;
use ragged::lines::{parse_delimiter, LineReader, ReaderOptions, DEFAULT_CHUNK_SIZE};
use ragged::ops::{LineOptions, LinePlan, LinesColumn, TextOps};
use ragged::{CpuBackend, Error};

/// Delimiters picked by bits 0–3 of the first byte, as the CLI's `-d` takes them:
/// the two line modes, single bytes, multi-byte ones that can and cannot overlap
/// themselves, and the longest (64 bytes) of both kinds.
pub const FIXED: [&str; 16] = [
    r"\n",
    r"\r\n",
    r"\t",
    ",",
    ";",
    r"\0",
    "|",
    r"--\r\n",
    "aa",
    "abab",
    r"\n\n",
    r"\r\n\r\n",
    "<>",
    "aba",
    "x--------------------------------------------------------------y",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
];

/// Decode the input (see the module documentation) and check every entry point.
pub fn check(data: &[u8]) {
    let [flags, chunk, tile, cut, rest @ ..] = data else {
        return;
    };
    let (delimiter_text, text) = if flags & 0x10 == 0 {
        (FIXED[usize::from(flags & 0x0f)].to_owned(), rest)
    } else {
        let Some((&len, rest)) = rest.split_first() else {
            return;
        };
        let len = usize::from(len % 64) + 1;
        if rest.len() < len {
            return;
        }
        let escaped: String = rest[..len].iter().map(|b| format!("\\x{b:02x}")).collect();
        (escaped, &rest[len..])
    };
    let Ok(delimiter) = parse_delimiter(&delimiter_text) else {
        panic!("the CLI's delimiter parser rejected {delimiter_text:?}");
    };
    let options = LineOptions::new(delimiter)
        .with_keep_delimiter(flags & 0x20 != 0)
        .with_binary(flags & 0x40 != 0);
    let chunk_size = if *chunk == 255 {
        DEFAULT_CHUNK_SIZE
    } else {
        usize::from(chunk % 64) + 1
    };
    let reader = ReaderOptions {
        chunk_size,
        memory_map: false,
    };
    let plan = options.plan().expect("valid options");
    let tiled = match tile {
        0 => plan,
        &t => options
            .clone()
            .with_tile_bytes(usize::from(t))
            .plan()
            .expect("valid options"),
    };
    let cpu = CpuBackend::new();
    let split = Oracle::new(text, &plan);

    // The reader over the whole text.
    let expected = split.output(0, u64::MAX);
    check_reader(
        &cpu,
        text,
        plan,
        reader,
        &expected,
        split.count(0, u64::MAX),
    );
    // The backend over the whole text in one call, with the tile hint.
    let bytes = ScalarBuffer::from(text.to_vec());
    let direct = cpu.split_lines(&bytes, &tiled).map(|col| rows(&col));
    compare(&direct, &expected, "split_lines");
    let count = cpu
        .count_lines(&bytes, &tiled)
        .expect("count_lines does not fail");
    assert_eq!(count, split.records.len() as u64, "count_lines");
    // Two byte ranges cutting the text anywhere (past its end too).
    let k = (text.len() + 2) * usize::from(*cut) / 255;
    for (start, end) in [(0, k as u64), (k as u64, u64::MAX)] {
        let ranged = plan.with_byte_range(start, end).expect("start <= end");
        let (expected, count) = (split.output(start, end), split.count(start, end));
        check_reader(&cpu, text, ranged, reader, &expected, count);
    }
    // The structural invariants, on the naive split itself.
    split.check_invariants(text, &plan);
}

/// Records of a column, as byte strings.
fn rows(col: &LinesColumn) -> Vec<Vec<u8>> {
    (0..col.len()).map(|i| col.row_bytes(i).to_vec()).collect()
}

/// The reader's records (all its batches, and its count) against `expected`.
fn check_reader(
    cpu: &CpuBackend,
    text: &[u8],
    plan: LinePlan,
    options: ReaderOptions,
    expected: &Result<Vec<Vec<u8>>, (usize, usize)>,
    expected_count: u64,
) {
    let bytes = ScalarBuffer::from(text.to_vec());
    let read = (|| {
        let mut out = Vec::new();
        for batch in LineReader::from_bytes(cpu, bytes.clone(), plan, options)? {
            out.extend(rows(&batch?));
        }
        Ok::<_, Error>(out)
    })();
    compare(&read, expected, "LineReader");
    let count = LineReader::from_bytes(cpu, bytes, plan, options)
        .and_then(LineReader::count_records)
        .expect("counting does not fail");
    assert_eq!(count, expected_count, "count_records");
}

/// An entry point's result against the naive split's: the same records, or the same
/// first invalid UTF-8 record and byte.
fn compare(
    got: &ragged::Result<Vec<Vec<u8>>>,
    expected: &Result<Vec<Vec<u8>>, (usize, usize)>,
    what: &str,
) {
    match (got, expected) {
        (Ok(got), Ok(expected)) => assert!(got == expected, "{what}: records differ"),
        (Err(Error::InvalidUtf8 { row, byte }), Err(at)) => {
            assert_eq!((*row, *byte), *at, "{what}: UTF-8 error position");
        }
        (got, expected) => panic!(
            "{what}: got {:?}, expected {:?}",
            got.as_ref().map(Vec::len),
            expected.as_ref().map(Vec::len)
        ),
    }
}

/// The naive split: records with their delimiters, found left to right.
struct Oracle {
    /// `(start, end)` of each record with its delimiter.
    records: Vec<(usize, usize)>,
    /// Each record's output bytes (stripped or kept as the plan says).
    outputs: Vec<Vec<u8>>,
    /// Whether the records are binary (no UTF-8 check).
    binary: bool,
}

impl Oracle {
    fn new(text: &[u8], plan: &LinePlan) -> Self {
        let d = plan.delimiter();
        let mut records = Vec::new();
        let (mut start, mut i) = (0, 0);
        while i + d.len() <= text.len() {
            if &text[i..i + d.len()] == d {
                records.push((start, i + d.len()));
                i += d.len();
                start = i;
            } else {
                i += 1;
            }
        }
        if start < text.len() {
            records.push((start, text.len()));
        }
        let outputs = records
            .iter()
            .map(|&(s, e)| {
                let kept = &text[s..e];
                if plan.keep_delimiter() {
                    return kept.to_vec();
                }
                let mut body = kept.strip_suffix(d).unwrap_or(kept);
                if plan.strips_carriage_return() && body.len() < kept.len() {
                    body = body.strip_suffix(b"\r").unwrap_or(body);
                }
                body.to_vec()
            })
            .collect();
        Self {
            records,
            outputs,
            binary: plan.binary(),
        }
    }

    /// The records starting in `[start, end)`, or the first of them that is not UTF-8
    /// (its index among them and the byte) when the plan asks for strings.
    fn output(&self, start: u64, end: u64) -> Result<Vec<Vec<u8>>, (usize, usize)> {
        let selected: Vec<Vec<u8>> = self
            .records
            .iter()
            .zip(&self.outputs)
            .filter(|((s, _), _)| (start..end).contains(&(*s as u64)))
            .map(|(_, out)| out.clone())
            .collect();
        match utf8_error(&selected) {
            Some(at) if !self.binary => Err(at),
            _ => Ok(selected),
        }
    }

    /// How many records start in `[start, end)`.
    fn count(&self, start: u64, end: u64) -> u64 {
        let starts = self.records.iter().map(|&(s, _)| s as u64);
        starts.filter(|s| (start..end).contains(s)).count() as u64
    }

    /// Concatenated, the records with their delimiters are the text; no record's body
    /// holds the delimiter (and in newline mode no `\n`); only the last may lack one.
    fn check_invariants(&self, text: &[u8], plan: &LinePlan) {
        let d = plan.delimiter();
        let joined: Vec<u8> = self
            .records
            .iter()
            .flat_map(|&(s, e)| &text[s..e])
            .copied()
            .collect();
        assert!(joined == text, "the records do not give back the text");
        for (i, &(s, e)) in self.records.iter().enumerate() {
            let kept = &text[s..e];
            let body = match kept.strip_suffix(d) {
                Some(body) => body,
                None => {
                    assert_eq!(i + 1, self.records.len(), "an unterminated record");
                    kept
                }
            };
            assert!(
                memchr::memmem::find(body, d).is_none(),
                "a record holds the delimiter"
            );
            assert!(!kept.is_empty(), "an empty record with no delimiter");
        }
    }
}

/// The outputs checked as strings: the first record that is not UTF-8 is the error.
fn utf8_error(outputs: &[Vec<u8>]) -> Option<(usize, usize)> {
    outputs.iter().enumerate().find_map(|(row, out)| {
        std::str::from_utf8(out)
            .err()
            .map(|e| (row, e.valid_up_to()))
    })
}
