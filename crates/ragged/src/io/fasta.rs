//! Reading FASTA and FASTQ files into a names column and a [`SequenceColumn`].
//!
//! The whole input is mapped (or read, or decompressed when it starts with the gzip
//! magic bytes `1f 8b`) and parsed in one pass: sequence bytes go through the
//! alphabet's 256-entry code table straight into the codes buffer (bytes outside the
//! alphabet, such as `N`, IUPAC codes, digits, spaces and line ends, are dropped), and
//! large FASTA inputs are split at record boundaries into pieces parsed in parallel.
//!
//! # Format rules
//!
//! - The first byte that is not ASCII whitespace decides: `>` is FASTA, `@` FASTQ.
//! - A record's name is its whole header line after `>` or `@` (without the line end,
//!   `\r\n` included); it must be UTF-8.
//! - FASTA: a header line starting with `>`, then any number of sequence lines (none
//!   is an empty sequence). Blank lines anywhere are ignored. Text before the first
//!   header is an error.
//! - FASTQ: `@name`, sequence line(s), a `+` line (empty or repeating the name), then
//!   quality line(s) holding exactly as many bytes as the sequence lines (counted
//!   before bytes outside the alphabet are dropped). Blank lines between records are
//!   ignored.
//!
//! Errors are [`Error::Format`] (format `FASTA`, `FASTQ` or `gzip`) naming the record
//! by its 0-based index and name and the 1-based line, e.g.
//! `record 3 ('chr2'), line 17: quality has 9 bytes, the sequence 10`.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use memchr::{memchr, memmem};
use ragged_core::ops::{Alphabet, SequenceColumn, SKIP};
use ragged_core::{Error, Result, StringColumn};
use rayon::prelude::*;

use super::errors::is_a_directory;
use crate::mapped::{truncated_error, MappedFile};

/// Records read from a FASTA or FASTQ file: one name and one sequence per record, in
/// file order.
#[derive(Clone, Debug)]
pub struct SequenceRecords {
    /// Each record's header line after `>` or `@`, without the line end.
    pub names: StringColumn<i64>,
    /// Each record's sequence, encoded with the alphabet it was read with.
    pub sequences: SequenceColumn,
}

impl SequenceRecords {
    /// Number of records.
    pub fn len(&self) -> usize {
        self.sequences.len()
    }

    /// Whether there is no record.
    pub fn is_empty(&self) -> bool {
        self.sequences.is_empty()
    }
}

/// Inputs at least this large are parsed in parallel pieces (FASTA only).
const PARALLEL_FROM_BYTES: usize = 8 << 20;

/// Read a FASTA or FASTQ file (plain or gzip-compressed, by its magic bytes), or
/// standard input when `path` is `-`, encoding the sequences with `alphabet`.
///
/// Regular files are memory-mapped; gzip input (one member or several concatenated)
/// is decompressed into memory first.
///
/// # Errors
/// - [`Error::Io`] with action `read` naming `path`: missing, a directory, unreadable.
/// - [`Error::Format`] with format `gzip`: a corrupt or truncated gzip stream.
/// - [`Error::Format`] with format `FASTA` or `FASTQ`: see [`parse_sequences`].
///
/// # Example
/// ```
/// use ragged::io::read_sequences;
/// use ragged::ops::Alphabet;
/// let path = std::env::temp_dir().join(format!("ragged-doc-{}.fa", std::process::id()));
/// std::fs::write(&path, ">one\nACGT\nNNac\n>two\n")?;
/// let records = read_sequences(&path, &Alphabet::Dna)?;
/// assert_eq!(records.names.get(1), Some("two"));
/// assert_eq!(records.sequences.sequence(0), &[0, 1, 2, 3, 0, 1]);
/// assert!(records.sequences.sequence(1).is_empty());
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_sequences(path: &Path, alphabet: &Alphabet) -> Result<SequenceRecords> {
    let read_err = |e| Error::io("read", path, e);
    if super::is_stdio(path) {
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .map_err(read_err)?;
        return parse_maybe_gzip(&bytes, alphabet, path);
    }
    let metadata = std::fs::metadata(path).map_err(read_err)?;
    if metadata.is_dir() {
        return Err(is_a_directory("read", path));
    }
    let mut file = File::open(path).map_err(read_err)?;
    if metadata.is_file() && metadata.len() >= 1 << 20 {
        // The map lives only for this call. Another process truncating the file
        // meanwhile is caught (`MappedFile`): the records parsed from zeros are dropped.
        let map = MappedFile::map(&file).map_err(read_err)?;
        let records = parse_maybe_gzip(&map, alphabet, path);
        if map.truncated() {
            return Err(truncated_error(path));
        }
        return records;
    }
    let mut bytes = Vec::with_capacity(usize::try_from(metadata.len()).unwrap_or(0));
    file.read_to_end(&mut bytes).map_err(read_err)?;
    parse_maybe_gzip(&bytes, alphabet, path)
}

/// Whether `bytes` start with the gzip magic bytes.
fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0x1f, 0x8b])
}

fn parse_maybe_gzip(bytes: &[u8], alphabet: &Alphabet, path: &Path) -> Result<SequenceRecords> {
    if !is_gzip(bytes) {
        return parse_sequences(bytes, alphabet, path);
    }
    let mut text = Vec::with_capacity(bytes.len().saturating_mul(3));
    if let Err(e) = flate2::read::MultiGzDecoder::new(bytes).read_to_end(&mut text) {
        return Err(Error::Format {
            path: path.to_path_buf(),
            format: "gzip",
            message: format!(
                "corrupt or truncated gzip stream in {}, after {} decompressed bytes: {e}",
                record_at_end(&text, alphabet),
                text.len()
            ),
        });
    }
    parse_sequences(&text, alphabet, path)
}

/// The record that the decompressed text before a gzip failure ends in, as errors name
/// records (`record 3 ('chr2')`): the last record that text parses to, or the record
/// the parser stops in when the cut leaves it malformed.
fn record_at_end(text: &[u8], alphabet: &Alphabet) -> String {
    match parse_piece(text, alphabet).1 {
        Ok(piece) => match piece.name_offsets.len().checked_sub(2) {
            None => record_label(0, None),
            Some(last) => {
                let (from, to) = (piece.name_offsets[last], piece.name_offsets[last + 1]);
                let name = String::from_utf8_lossy(&piece.names[from as usize..to as usize]);
                record_label(last, Some(&name))
            }
        },
        Err(e) => record_label(e.record, e.name.as_deref()),
    }
}

/// How errors name a record: `record 3 ('chr2')`, or `record 3` before its name is known.
fn record_label(record: usize, name: Option<&str>) -> String {
    match name {
        Some(name) => format!("record {record} ('{name}')"),
        None => format!("record {record}"),
    }
}

/// Parse FASTA or FASTQ text held in memory (see the [module documentation](self) for
/// the rules); `source` only names the input in errors. Gzip data is not accepted here
/// ([`read_sequences`] decompresses it).
///
/// # Errors
/// [`Error::Format`] (format `FASTA` or `FASTQ`) naming the record and line: text
/// before the first header, a FASTQ record not starting with `@`, a FASTQ record cut
/// before its `+` line or its full quality, a quality of the wrong length, a `+` line
/// naming another record, a header that is not UTF-8.
///
/// # Example
/// ```
/// use ragged::io::parse_sequences;
/// use ragged::ops::Alphabet;
/// let fastq = b"@r1\nACGN\n+\nIIII\n@r2\nTT\n+r2\nII\n";
/// let records = parse_sequences(fastq, &Alphabet::Dna, "reads.fq".as_ref())?;
/// assert_eq!(records.len(), 2);
/// assert_eq!(records.sequences.sequence(0), &[0, 1, 2]);
/// let bad = parse_sequences(b"@r1\nACG\n+\nII\n", &Alphabet::Dna, "bad.fq".as_ref());
/// assert!(bad.unwrap_err().to_string().contains("record 0 ('r1'), line 4"));
/// # Ok::<(), ragged::Error>(())
/// ```
pub fn parse_sequences(
    bytes: &[u8],
    alphabet: &Alphabet,
    source: &Path,
) -> Result<SequenceRecords> {
    let (format, result) = parse_piece(bytes, alphabet);
    let piece = result.map_err(|e| e.into_error(bytes, source, format))?;
    piece.into_records(alphabet.size())
}

/// Parse FASTA or FASTQ text (told by its first byte that is not whitespace) into a
/// piece, with the format's name for errors.
fn parse_piece(
    bytes: &[u8],
    alphabet: &Alphabet,
) -> (&'static str, std::result::Result<Piece, ParseError>) {
    let mut table = alphabet.code_table();
    // Line ends are never sequence symbols, even in a custom alphabet.
    table[usize::from(b'\n')] = SKIP;
    table[usize::from(b'\r')] = SKIP;
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    match bytes.get(start) {
        None => ("FASTA", Ok(Piece::default())),
        Some(b'>') => ("FASTA", parse_fasta(bytes, start, &table)),
        Some(b'@') => ("FASTQ", parse_fastq(bytes, start, &table)),
        Some(&other) => {
            let e = ParseError {
                record: 0,
                name: None,
                pos: start,
                message: format!(
                    "text before the first '>' (FASTA) or '@' (FASTQ) header (found {:?})",
                    char::from(other)
                ),
            };
            ("FASTA", Err(e))
        }
    }
}

/// Parsed records: the codes (the first `codes_len` bytes of `codes`), and offsets
/// into them, names and their offsets.
#[derive(Default)]
struct Piece {
    codes: Vec<u8>,
    codes_len: usize,
    offsets: Vec<i64>,
    names: Vec<u8>,
    name_offsets: Vec<i64>,
}

impl Piece {
    fn into_records(self, alphabet_size: usize) -> Result<SequenceRecords> {
        let Piece {
            mut codes,
            codes_len,
            mut offsets,
            names,
            mut name_offsets,
        } = self;
        if offsets.is_empty() {
            offsets.push(0);
            name_offsets.push(0);
        }
        codes.truncate(codes_len);
        let names = StringColumn::try_new(name_offsets.into(), names.into(), None)?;
        let codes_end = offsets.last().copied().unwrap_or(0);
        if alphabet_size == 0
            || alphabet_size > usize::from(SKIP)
            || codes_end != codes.len() as i64
        {
            // Not reachable from the parsers; the checked constructor reports it.
            let sequences = SequenceColumn::try_new(codes.into(), offsets.into(), alphabet_size)?;
            return Ok(SequenceRecords { names, sequences });
        }
        // SAFETY: the parsers push non-decreasing offsets from 0 to `codes.len()` (checked
        // just above for the end), and every kept code comes from the alphabet's code
        // table, whose entries are [`SKIP`] (never kept) or a symbol's index, below
        // `alphabet_size` (1..=254 here). This skips a validation pass over the codes.
        let sequences =
            unsafe { SequenceColumn::new_unchecked(codes.into(), offsets.into(), alphabet_size) };
        Ok(SequenceRecords { names, sequences })
    }
}

/// The records of one part of the input while it is parsed: codes are written into
/// the part's own region of the output, offsets are local to that region.
struct Part {
    codes_len: usize,
    offsets: Vec<i64>,
    names: Vec<u8>,
    name_offsets: Vec<i64>,
}

impl Part {
    fn new() -> Self {
        Part {
            codes_len: 0,
            offsets: vec![0],
            names: Vec::new(),
            name_offsets: vec![0],
        }
    }

    fn records(&self) -> usize {
        self.offsets.len() - 1
    }
}

/// A parse failure: the record (counted within its piece), its name when known, and
/// the byte position (in the whole input) where the problem is.
struct ParseError {
    record: usize,
    name: Option<String>,
    pos: usize,
    message: String,
}

impl ParseError {
    fn into_error(self, bytes: &[u8], path: &Path, format: &'static str) -> Error {
        // The end of the input counts as its last line.
        let end = self.pos.min(bytes.len().saturating_sub(1));
        let line = memchr::memchr_iter(b'\n', &bytes[..end]).count() + 1;
        let record = record_label(self.record, self.name.as_deref());
        Error::Format {
            path: path.to_path_buf(),
            format,
            message: format!("{record}, line {line}: {}", self.message),
        }
    }
}

/// The end of the line starting at `pos` (the position of its `\n`, or `end`).
fn line_end(bytes: &[u8], pos: usize, end: usize) -> usize {
    memchr(b'\n', &bytes[pos..end]).map_or(end, |i| pos + i)
}

/// `bytes[from..to]` without a final `\r`.
fn trim_cr(bytes: &[u8], from: usize, to: usize) -> &[u8] {
    let line = &bytes[from..to];
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Append the codes of `src` to `codes` at `*len` (`codes` has room for all of `src`),
/// dropping bytes whose code is [`SKIP`].
#[inline]
fn encode_into(src: &[u8], table: &[u8; 256], codes: &mut [u8], len: &mut usize) {
    let out = &mut codes[*len..*len + src.len()];
    let mut n = 0usize;
    // Branch-light: every byte is written, the position advances only for kept ones
    // (`n` never passes the byte's own index, so the slot always exists).
    for &b in src {
        let c = table[usize::from(b)];
        if let Some(slot) = out.get_mut(n) {
            *slot = c;
        }
        n += usize::from(c != SKIP);
    }
    *len += n;
}

/// Append a header line to the names, checking UTF-8.
fn push_name(
    part: &mut Part,
    header: &[u8],
    record: usize,
    pos: usize,
) -> std::result::Result<(), ParseError> {
    if let Err(e) = std::str::from_utf8(header) {
        return Err(ParseError {
            record,
            name: Some(String::from_utf8_lossy(header).into_owned()),
            pos,
            message: format!("the header is not UTF-8 (byte {})", e.valid_up_to() + 1),
        });
    }
    part.names.extend_from_slice(header);
    part.name_offsets.push(part.names.len() as i64);
    Ok(())
}

/// The output buffer for the codes of `len` input bytes (codes never outnumber them).
fn codes_buffer(len: usize) -> Vec<u8> {
    // A zeroed allocation this large comes from fresh pages: no write pass here, and
    // each part's pages are first touched by the thread that fills them — as huge pages
    // where the system allows (a 4 KiB page fault per 4 KiB of codes cost more than
    // encoding them: parsing 101 MB took 78 ms of which the faults were about half).
    let mut codes = vec![0; len];
    ragged_core::host::advise_huge_pages(&mut codes);
    codes
}

/// Parse FASTA from `start` (a `>`), in parallel parts when the input is large.
fn parse_fasta(
    bytes: &[u8],
    start: usize,
    table: &[u8; 256],
) -> std::result::Result<Piece, ParseError> {
    let len = bytes.len() - start;
    let mut codes = codes_buffer(len);
    let threads = rayon::current_num_threads();
    if len < PARALLEL_FROM_BYTES || threads < 2 {
        let part = fasta_part(bytes, start, bytes.len(), table, &mut codes)?;
        return Ok(Piece {
            codes,
            codes_len: part.codes_len,
            offsets: part.offsets,
            names: part.names,
            name_offsets: part.name_offsets,
        });
    }
    // Cut at record starts (`\n>`) near equal positions; each part starts at a `>`.
    let parts = (threads * 4).min(len / (1 << 20)).max(2);
    let finder = memmem::Finder::new(b"\n>");
    let mut cuts = vec![start];
    for k in 1..parts {
        let last = cuts[cuts.len() - 1];
        let target = (start + len * k / parts).max(last + 1);
        if target >= bytes.len() {
            break;
        }
        match finder.find(&bytes[target..]) {
            Some(i) => cuts.push(target + i + 1),
            None => break,
        }
    }
    cuts.push(bytes.len());
    cuts.dedup();
    // Each part writes its codes into the region of the output that matches its input
    // bytes; the regions are then closed up in order.
    let mut regions = Vec::with_capacity(cuts.len());
    let mut rest: &mut [u8] = &mut codes;
    for w in cuts.windows(2) {
        let (head, tail) = rest.split_at_mut(w[1] - w[0]);
        regions.push((w[0], w[1], head));
        rest = tail;
    }
    let results: Vec<std::result::Result<Part, ParseError>> = regions
        .into_par_iter()
        .map(|(from, to, region)| fasta_part(bytes, from, to, table, region))
        .collect();
    let mut done = Vec::with_capacity(results.len());
    let mut records = 0;
    for result in results {
        match result {
            Ok(part) => {
                records += part.records();
                done.push(part);
            }
            Err(mut e) => {
                e.record += records;
                return Err(e);
            }
        }
    }
    let mut piece = Piece {
        codes: Vec::new(),
        codes_len: 0,
        offsets: Vec::with_capacity(records + 1),
        names: Vec::with_capacity(done.iter().map(|p| p.names.len()).sum()),
        name_offsets: Vec::with_capacity(records + 1),
    };
    piece.offsets.push(0);
    piece.name_offsets.push(0);
    let lens: Vec<usize> = done.iter().map(|p| p.codes_len).collect();
    let regions: Vec<usize> = cuts.windows(2).map(|w| w[1] - w[0]).collect();
    close_up(&mut codes, &regions, &lens);
    let mut name_base = 0i64;
    for part in &done {
        let code_base = piece.codes_len;
        piece.codes_len += part.codes_len;
        piece
            .offsets
            .extend(part.offsets.iter().skip(1).map(|o| o + code_base as i64));
        piece
            .name_offsets
            .extend(part.name_offsets.iter().skip(1).map(|o| o + name_base));
        piece.names.extend_from_slice(&part.names);
        name_base += part.names.len() as i64;
    }
    piece.codes = codes;
    Ok(piece)
}

/// Close up the parts' codes in place: part `k` wrote `lens[k]` codes at the start of
/// its region (`regions[k]` bytes, the regions back to back from 0); afterwards the
/// codes of all parts lie back to back from 0. Part `k` moves left by `d_k`, the bytes
/// its predecessors left unused, and its destination overlaps only the last `d_{k-1}`
/// codes of part `k − 1`: those tails are saved first, then every part moves its codes
/// in parallel within its own slice `[start_k − d_k, start_k + lens[k] − d_k)` (the
/// slices are disjoint) and writes its saved tail. When a part holds fewer codes than
/// it moves by (inputs that are mostly skipped bytes), the parts move one after the
/// other instead.
fn close_up(codes: &mut [u8], regions: &[usize], lens: &[usize]) {
    // d[k]: unused bytes before part k; start[k]: its region's start.
    let mut d = Vec::with_capacity(lens.len());
    let mut start = Vec::with_capacity(lens.len());
    let (mut unused, mut at) = (0usize, 0usize);
    for (&region, &len) in regions.iter().zip(lens) {
        d.push(unused);
        start.push(at);
        unused += region - len;
        at += region;
    }
    if lens.iter().zip(&d).any(|(&len, &shift)| shift > len) {
        for ((&s, &len), &shift) in start.iter().zip(lens).zip(&d) {
            codes.copy_within(s..s + len, s - shift);
        }
        return;
    }
    // The codes of part k that lie in part k + 1's slice: its last d[k].
    let tails: Vec<Vec<u8>> = (0..lens.len())
        .map(|k| codes[start[k] + lens[k] - d[k]..start[k] + lens[k]].to_vec())
        .collect();
    // Part k's slice starts where part k − 1's ends (start[k] − d[k] is the sum of the
    // earlier lens), so the slices are consecutive pieces of the buffer.
    let mut slices = Vec::with_capacity(lens.len());
    let mut rest: &mut [u8] = codes;
    for &len in lens {
        let (slice, tail) = rest.split_at_mut(len);
        slices.push(slice);
        rest = tail;
    }
    slices
        .into_par_iter()
        .zip(tails.par_iter())
        .zip(d.par_iter())
        .for_each(|((slice, tail), &shift)| {
            let len = slice.len();
            slice.copy_within(shift..len, 0);
            slice[len - shift..].copy_from_slice(tail);
        });
}

/// Parse the FASTA records of `bytes[start..end]` (`start` is at a `>` at a line
/// start), writing their codes into `codes` (at least `end - start` long).
fn fasta_part(
    bytes: &[u8],
    start: usize,
    end: usize,
    table: &[u8; 256],
    codes: &mut [u8],
) -> std::result::Result<Part, ParseError> {
    let mut part = Part::new();
    let mut pos = start;
    while pos < end {
        // `bytes[pos]` is the `>` of a header.
        let record = part.records();
        let header_end = line_end(bytes, pos, end);
        push_name(&mut part, trim_cr(bytes, pos + 1, header_end), record, pos)?;
        // The sequence runs to the next `>` at a line start.
        let seq_start = (header_end + 1).min(end);
        let mut seq_end = end;
        let mut search = seq_start;
        while search < end {
            match memchr(b'>', &bytes[search..end]) {
                Some(i) => {
                    let at = search + i;
                    if at == seq_start || bytes[at - 1] == b'\n' {
                        seq_end = at;
                        break;
                    }
                    search = at + 1;
                }
                None => break,
            }
        }
        encode_into(
            &bytes[seq_start..seq_end],
            table,
            codes,
            &mut part.codes_len,
        );
        part.offsets.push(part.codes_len as i64);
        pos = seq_end;
    }
    Ok(part)
}

/// Parse FASTQ records from `start` (an `@`) to the end.
fn parse_fastq(
    bytes: &[u8],
    start: usize,
    table: &[u8; 256],
) -> std::result::Result<Piece, ParseError> {
    let end = bytes.len();
    let mut codes = codes_buffer(end - start);
    let mut part = Part::new();
    let mut pos = start;
    loop {
        // Skip blank lines between records.
        while pos < end && (bytes[pos] == b'\n' || bytes[pos] == b'\r') {
            pos += 1;
        }
        if pos >= end {
            break;
        }
        let record = part.records();
        let header_end = line_end(bytes, pos, end);
        if bytes[pos] != b'@' {
            let line = trim_cr(bytes, pos, header_end);
            let shown = String::from_utf8_lossy(&line[..line.len().min(40)]).into_owned();
            return Err(ParseError {
                record,
                name: None,
                pos,
                message: format!("expected a header starting with '@', found '{shown}'"),
            });
        }
        let header = trim_cr(bytes, pos + 1, header_end);
        let name = || Some(String::from_utf8_lossy(header).into_owned());
        push_name(&mut part, header, record, pos)?;
        // Sequence lines up to the `+` line.
        pos = header_end + 1;
        let mut raw = 0usize;
        let plus_end = loop {
            if pos >= end {
                return Err(ParseError {
                    record,
                    name: name(),
                    pos: end,
                    message: "the file ends before the '+' line (truncated record)".into(),
                });
            }
            let e = line_end(bytes, pos, end);
            if bytes[pos] == b'+' {
                break e;
            }
            let line = trim_cr(bytes, pos, e);
            raw += line.len();
            encode_into(line, table, &mut codes, &mut part.codes_len);
            pos = e + 1;
        };
        let repeated = trim_cr(bytes, pos + 1, plus_end);
        if !repeated.is_empty() && repeated != header {
            return Err(ParseError {
                record,
                name: name(),
                pos,
                message: format!(
                    "the '+' line names '{}', not the record's header",
                    String::from_utf8_lossy(repeated)
                ),
            });
        }
        part.offsets.push(part.codes_len as i64);
        // Quality lines until they hold as many bytes as the sequence.
        pos = plus_end + 1;
        let mut quality = 0usize;
        let mut last_line = pos;
        if raw == 0 {
            // An empty sequence's quality line is empty, when there is one.
            if pos < end && (bytes[pos] == b'\n' || bytes[pos] == b'\r') {
                pos = line_end(bytes, pos, end) + 1;
            }
            continue;
        }
        while quality < raw {
            if pos >= end {
                return Err(ParseError {
                    record,
                    name: name(),
                    pos: end,
                    message: format!(
                        "the file ends after {quality} of the {raw} quality bytes \
                         (truncated record)"
                    ),
                });
            }
            let e = line_end(bytes, pos, end);
            let before = quality;
            quality += trim_cr(bytes, pos, e).len();
            if quality > raw {
                // A short quality followed by the next record reads as one too long:
                // report the quality lines before the `@` line.
                let (pos, quality) = if before > 0 && bytes[pos] == b'@' {
                    (last_line, before)
                } else {
                    (pos, quality)
                };
                return Err(ParseError {
                    record,
                    name: name(),
                    pos,
                    message: format!("quality has {quality} bytes, the sequence {raw}"),
                });
            }
            last_line = pos;
            pos = e + 1;
        }
    }
    Ok(Piece {
        codes,
        codes_len: part.codes_len,
        offsets: part.offsets,
        names: part.names,
        name_offsets: part.name_offsets,
    })
}

#[cfg(test)]
mod tests {
    use super::close_up;
    use ragged_testkit::rng::Rng;

    /// Closing up in parallel (and by the one-after-the-other fallback, when a part
    /// holds fewer codes than it moves by) gives the parts' codes back to back.
    #[test]
    fn close_up_puts_parts_back_to_back() {
        let mut rng = Rng::new(5);
        let mut next = move |m: usize| rng.index(m);
        for case in 0..200 {
            let parts = 1 + next(9);
            let regions: Vec<usize> = (0..parts).map(|_| next(300)).collect();
            // Mostly full regions; every fourth case with some nearly empty parts.
            let lens: Vec<usize> = regions
                .iter()
                .map(|&r| {
                    if case % 4 == 0 {
                        next(r + 1)
                    } else {
                        r - next(r / 10 + 1)
                    }
                })
                .collect();
            let mut codes = vec![0u8; regions.iter().sum()];
            let mut expected = Vec::new();
            let mut at = 0;
            for (&region, &len) in regions.iter().zip(&lens) {
                for i in 0..len {
                    let v = (next(250) + 1) as u8;
                    codes[at + i] = v;
                    expected.push(v);
                }
                at += region;
            }
            close_up(&mut codes, &regions, &lens);
            assert_eq!(&codes[..expected.len()], &expected[..], "case {case}");
        }
    }
}
