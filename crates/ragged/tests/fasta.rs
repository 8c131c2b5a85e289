//! FASTA and FASTQ reading: formats, alphabets, gzip, errors, and a randomized round
//! trip against `Alphabet::encode`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::path::Path;

use flate2::write::GzEncoder;
use flate2::Compression;
use ragged::io::{parse_sequences, read_sequences, SequenceRecords};
use ragged::ops::Alphabet;
use ragged::Error;

fn parse(text: &[u8], alphabet: &Alphabet) -> SequenceRecords {
    parse_sequences(text, alphabet, Path::new("test.fa"))
        .unwrap_or_else(|e| panic!("parse failed: {e}"))
}

fn names(r: &SequenceRecords) -> Vec<String> {
    r.names
        .iter()
        .map(|n| n.unwrap_or("").to_string())
        .collect()
}

fn seqs(r: &SequenceRecords) -> Vec<Vec<u8>> {
    (0..r.len())
        .map(|i| r.sequences.sequence(i).to_vec())
        .collect()
}

/// The error's message, checking that it is `Error::Format` of `format`.
fn format_error(result: ragged::Result<SequenceRecords>, format: &str) -> String {
    match result {
        Err(Error::Format {
            format: f, message, ..
        }) => {
            assert_eq!(f, format, "{message}");
            message
        }
        Err(other) => panic!("expected a {format} format error, got {other:?}"),
        Ok(r) => panic!("expected an error, parsed {} records", r.len()),
    }
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

#[test]
fn fasta_multi_line_crlf_lowercase_and_n_removal() {
    let text = b">chr1 the first\r\nACGT\r\nacgN\r\n\r\n>chr2\nnnnT\n>empty\n>last\nG";
    let r = parse(text, &Alphabet::Dna);
    assert_eq!(names(&r), ["chr1 the first", "chr2", "empty", "last"]);
    assert_eq!(
        seqs(&r),
        [vec![0, 1, 2, 3, 0, 1, 2], vec![3], vec![], vec![2]]
    );
    assert_eq!(r.sequences.alphabet_size(), 4);
}

#[test]
fn fasta_blank_lines_whitespace_and_iupac_are_dropped() {
    let text = b"\n\n  >a\nAC GT\tRYKM 12\n\n\n>b\n\n  \nT\n\n";
    let r = parse(text, &Alphabet::Dna);
    assert_eq!(names(&r), ["a", "b"]);
    assert_eq!(seqs(&r), [vec![0, 1, 2, 3], vec![3]]);
}

#[test]
fn empty_input_and_header_only() {
    assert_eq!(parse(b"", &Alphabet::Dna).len(), 0);
    assert_eq!(parse(b"\n \r\n", &Alphabet::Dna).len(), 0);
    let r = parse(b">only", &Alphabet::Dna);
    assert_eq!(names(&r), ["only"]);
    assert_eq!(seqs(&r), [Vec::<u8>::new()]);
    let r = parse(b">\n>\r\n", &Alphabet::Dna);
    assert_eq!(names(&r), ["", ""]);
}

#[test]
fn fastq_single_and_multi_line() {
    let single = b"@r1 lane=1\nACGTN\n+\nIIIII\n@r2\nTT\n+r2\n!!\n";
    let r = parse(single, &Alphabet::Dna);
    assert_eq!(names(&r), ["r1 lane=1", "r2"]);
    assert_eq!(seqs(&r), [vec![0, 1, 2, 3], vec![3, 3]]);

    // Quality lines may start with '@' or '+'; lines are wrapped differently.
    let multi = b"@m1\r\nACG\r\nTA\r\n+\r\n@@+\r\nII\r\n\r\n@m2\nC\nC\nC\n+m2\n+@\n@\n";
    let r = parse(multi, &Alphabet::Dna);
    assert_eq!(names(&r), ["m1", "m2"]);
    assert_eq!(seqs(&r), [vec![0, 1, 2, 3, 0], vec![1, 1, 1]]);
}

#[test]
fn fastq_empty_sequence() {
    let r = parse(b"@e\n\n+\n\n@f\nA\n+\nI", &Alphabet::Dna);
    assert_eq!(names(&r), ["e", "f"]);
    assert_eq!(seqs(&r), [vec![], vec![0]]);
    let r = parse(b"@e\n+\n", &Alphabet::Dna);
    assert_eq!(seqs(&r), [Vec::<u8>::new()]);
}

#[test]
fn fastq_quality_counts_raw_bytes() {
    // N is dropped from the codes but counts for the quality length.
    let r = parse(b"@q\nANNA\n+\nIIII\n", &Alphabet::Dna);
    assert_eq!(seqs(&r), [vec![0, 0]]);
}

#[test]
fn text_before_the_first_header() {
    let m = format_error(
        parse_sequences(b"ACGT\n>a\nA\n", &Alphabet::Dna, Path::new("x.fa")),
        "FASTA",
    );
    assert!(m.contains("record 0, line 1"), "{m}");
    assert!(m.contains("before the first"), "{m}");
    let m = format_error(
        parse_sequences(b"\n\nx>a\n", &Alphabet::Dna, Path::new("x.fa")),
        "FASTA",
    );
    assert!(m.contains("line 3"), "{m}");
}

#[test]
fn fastq_record_not_starting_with_at() {
    let text = b"@a\nAC\n+\nII\n>b\nAC\n+\nII\n";
    let m = format_error(
        parse_sequences(text, &Alphabet::Dna, Path::new("x.fq")),
        "FASTQ",
    );
    assert!(m.starts_with("record 1, line 5:"), "{m}");
    assert!(m.contains("'@'"), "{m}");
}

#[test]
fn fastq_truncated_records() {
    let m = format_error(
        parse_sequences(b"@a\nAC\n+\nII\n@b\nACGT\n", &Alphabet::Dna, Path::new("x")),
        "FASTQ",
    );
    assert!(m.starts_with("record 1 ('b'), line 6:"), "{m}");
    assert!(m.contains("'+'") && m.contains("truncated"), "{m}");

    let m = format_error(
        parse_sequences(b"@a\nACGTACGT\n+\nIII\nII", &Alphabet::Dna, Path::new("x")),
        "FASTQ",
    );
    assert!(m.starts_with("record 0 ('a'), line 5:"), "{m}");
    assert!(m.contains("5 of the 8 quality bytes"), "{m}");
}

#[test]
fn fastq_quality_of_the_wrong_length() {
    let mut text = Vec::new();
    for i in 0..3 {
        writeln!(text, "@r{i}\nACGTACGTAC\n+\nIIIIIIIIII").unwrap();
    }
    text.extend_from_slice(b"@chr2\nACGTACGTAC\n+\nIIIIIIIII\n@r4\nA\n+\nI\n");
    let m = format_error(
        parse_sequences(&text, &Alphabet::Dna, Path::new("x")),
        "FASTQ",
    );
    assert_eq!(
        m,
        "record 3 ('chr2'), line 16: quality has 9 bytes, the sequence 10"
    );

    let m = format_error(
        parse_sequences(b"@a\nACG\n+\nIIII\n", &Alphabet::Dna, Path::new("x")),
        "FASTQ",
    );
    assert_eq!(
        m,
        "record 0 ('a'), line 4: quality has 4 bytes, the sequence 3"
    );

    let m = format_error(
        parse_sequences(b"@a\nACG\n+b\nIII\n", &Alphabet::Dna, Path::new("x")),
        "FASTQ",
    );
    assert!(m.starts_with("record 0 ('a'), line 3:"), "{m}");
}

#[test]
fn header_must_be_utf8() {
    let m = format_error(
        parse_sequences(b">ok\nA\n>bad\xff\nA\n", &Alphabet::Dna, Path::new("x")),
        "FASTA",
    );
    assert!(m.starts_with("record 1 ("), "{m}");
    assert!(m.contains("line 3") && m.contains("UTF-8"), "{m}");
}

#[test]
fn protein_and_custom_alphabets() {
    let r = parse(b">p\nMKWx*\nacd\n", &Alphabet::Protein);
    assert_eq!(r.sequences.alphabet_size(), 20);
    assert_eq!(seqs(&r), [Alphabet::Protein.encode(b"MKWx*acd")]);

    let binary = Alphabet::custom(b"01").unwrap();
    let r = parse(b">b\n0110\n2\n1\n", &binary);
    assert_eq!(r.sequences.alphabet_size(), 2);
    assert_eq!(seqs(&r), [vec![0, 1, 1, 0, 1]]);

    // A custom alphabet holding both cases keeps them apart; '>' inside a line is a
    // symbol, at a line start a header.
    let custom = Alphabet::custom(b"aA>").unwrap();
    let r = parse(b">x\naA>a\n>y\nA\n", &custom);
    assert_eq!(seqs(&r), [vec![0, 1, 2, 0], vec![1]]);
}

#[test]
fn files_plain_gzip_and_concatenated_members() {
    let dir = tempfile::tempdir().unwrap();
    let text = b">a\nACGT\n>b\nGG\n";
    let plain = dir.path().join("x.fa");
    std::fs::write(&plain, text).unwrap();
    let r = read_sequences(&plain, &Alphabet::Dna).unwrap();
    assert_eq!(seqs(&r), [vec![0, 1, 2, 3], vec![2, 2]]);

    let gz = dir.path().join("x.fa.gz");
    std::fs::write(&gz, gzip(text)).unwrap();
    let r = read_sequences(&gz, &Alphabet::Dna).unwrap();
    assert_eq!(names(&r), ["a", "b"]);
    assert_eq!(seqs(&r), [vec![0, 1, 2, 3], vec![2, 2]]);

    // Two members (as `cat a.gz b.gz`), the record cut across them.
    let mut two = gzip(b">a\nAC");
    two.extend(gzip(b"GT\n>b\nGG\n"));
    let cat = dir.path().join("cat.gz");
    std::fs::write(&cat, two).unwrap();
    let r = read_sequences(&cat, &Alphabet::Dna).unwrap();
    assert_eq!(seqs(&r), [vec![0, 1, 2, 3], vec![2, 2]]);

    // FASTQ through gzip too, with an extension that says nothing.
    let fq = dir.path().join("reads.data");
    std::fs::write(&fq, gzip(b"@r\nAC\n+\nII\n")).unwrap();
    assert_eq!(
        seqs(&read_sequences(&fq, &Alphabet::Dna).unwrap()),
        [vec![0, 1]]
    );
}

#[test]
fn corrupt_and_truncated_gzip_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = Vec::new();
    for i in 0..2000 {
        writeln!(text, ">r{i}\nACGTTGCAACGTAGCTAGCTAGCTAGCATCGAT{i}").unwrap();
    }
    let good = gzip(&text);
    let mut corrupt = good.clone();
    let mid = corrupt.len() / 2;
    for b in &mut corrupt[mid..mid + 16] {
        *b ^= 0x5a;
    }
    let path = dir.path().join("corrupt.fa.gz");
    std::fs::write(&path, &corrupt).unwrap();
    let m = format_error(read_sequences(&path, &Alphabet::Dna), "gzip");
    assert!(m.contains("corrupt or truncated"), "{m}");
    // The record the stream breaks in is named (its header was decompressed).
    assert!(m.contains("in record ") && m.contains("('r"), "{m}");

    for cut in [good.len() - 4, good.len() / 2, 11] {
        std::fs::write(&path, &good[..cut]).unwrap();
        let m = format_error(read_sequences(&path, &Alphabet::Dna), "gzip");
        assert!(m.contains("in record "), "{m}");
    }
    // FASTQ cut inside a record: the record the parser stops in.
    let mut fastq = Vec::new();
    for i in 0..3000 {
        writeln!(fastq, "@q{i}\nACGTACGTAC\n+\nIIIIIIIIII").unwrap();
    }
    let good = gzip(&fastq);
    std::fs::write(&path, &good[..good.len() / 2]).unwrap();
    let m = format_error(read_sequences(&path, &Alphabet::Dna), "gzip");
    assert!(m.contains("in record ") && m.contains("('q"), "{m}");
}

#[test]
fn unreadable_files_are_io_errors() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.fa");
    assert!(matches!(
        read_sequences(&missing, &Alphabet::Dna),
        Err(Error::Io { action: "read", .. })
    ));
    assert!(matches!(
        read_sequences(dir.path(), &Alphabet::Dna),
        Err(Error::Io { action: "read", .. })
    ));
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Random records written as FASTA with random wrapping, line ends and blank lines,
/// parsed back and compared with `Alphabet::encode` of each sequence.
fn round_trip(seed: u64, alphabet: &Alphabet, records: usize, max_len: usize) {
    let mut rng = Rng(seed | 1);
    let symbols: Vec<u8> = b"ACGTacgtNnRYKM-*. 0123456789XBZWEFHILPQSVmkwyf"
        .iter()
        .copied()
        .chain(alphabet.symbols().iter().copied())
        .collect();
    let mut text = Vec::new();
    let mut expected = Vec::new();
    let mut expected_names = Vec::new();
    for i in 0..records {
        let len = rng.below(max_len + 1);
        let seq: Vec<u8> = (0..len)
            .map(|_| symbols[rng.below(symbols.len())])
            .filter(|&b| b != b'>')
            .collect();
        let crlf = rng.below(2) == 0;
        let eol: &[u8] = if crlf { b"\r\n" } else { b"\n" };
        let name = format!("seq{i} desc={}", rng.below(1000));
        text.push(b'>');
        text.extend_from_slice(name.as_bytes());
        text.extend_from_slice(eol);
        let width = 1 + rng.below(80);
        for line in seq.chunks(width) {
            text.extend_from_slice(line);
            text.extend_from_slice(eol);
            if rng.below(20) == 0 {
                text.extend_from_slice(eol);
            }
        }
        expected.push(alphabet.encode(&seq));
        expected_names.push(name);
    }
    if rng.below(2) == 0 {
        // No final line end.
        while text.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
            text.pop();
        }
    }
    let r = parse(&text, alphabet);
    assert_eq!(names(&r), expected_names, "seed {seed}");
    assert_eq!(seqs(&r), expected, "seed {seed}");
}

#[test]
fn round_trip_random_records() {
    let custom = Alphabet::custom(b"xyzXq").unwrap();
    for seed in 0..40 {
        let alphabet = match seed % 3 {
            0 => &Alphabet::Dna,
            1 => &Alphabet::Protein,
            _ => &custom,
        };
        round_trip(seed, alphabet, 1 + (seed as usize % 7) * 5, 300);
    }
}

#[test]
fn round_trip_large_input_parsed_in_pieces() {
    // Above the parallel threshold (8 MiB): pieces cut at record starts.
    round_trip(7, &Alphabet::Dna, 40_000, 600);
    round_trip(8, &Alphabet::Dna, 3, 6_000_000);
}
