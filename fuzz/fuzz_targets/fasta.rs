//! The FASTA parser (`ragged::io::parse_sequences`) over `>` followed by arbitrary
//! bytes (so that every input is read as FASTA): it returns `Ok` or `Err`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    ragged_fuzz::init();
    let mut text = Vec::with_capacity(data.len() + 1);
    text.push(b'>');
    text.extend_from_slice(data);
    ragged_fuzz::parse_sequences_bytes(&text);
});
