//! The Parquet reader (`ragged::io::read_table_from_reader`, as the CLI reads standard
//! input) over arbitrary bytes: it returns `Ok` or `Err`, nothing else.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ragged::io::Format;

fuzz_target!(|data: &[u8]| {
    ragged_fuzz::init();
    ragged_fuzz::read_table_bytes(data, Format::Parquet);
});
