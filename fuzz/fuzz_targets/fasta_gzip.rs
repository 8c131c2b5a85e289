//! Gzip-compressed FASTA/FASTQ through `ragged::io::read_sequences` (the CLI's entry
//! point; a file in the temporary directory): the input gets the gzip magic bytes
//! `1f 8b` in front unless it starts with them, so every input is decompressed.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    ragged_fuzz::init();
    if data.starts_with(&[0x1f, 0x8b]) {
        ragged_fuzz::read_sequences_file(data);
    } else {
        let mut gz = Vec::with_capacity(data.len() + 2);
        gz.extend_from_slice(&[0x1f, 0x8b]);
        gz.extend_from_slice(data);
        ragged_fuzz::read_sequences_file(&gz);
    }
});
