//! The line splitter (`ragged::lines::LineReader` and the CPU backend's `split_lines`
//! and `count_lines`) with every kind of delimiter the CLI takes, checked against a
//! naive split; the input layout is in `src/lines.rs`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    ragged_fuzz::init();
    ragged_fuzz::lines::check(data);
});
