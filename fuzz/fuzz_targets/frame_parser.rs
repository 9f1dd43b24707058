#![no_main]
//! Fuzz target frame_parser (filled in by its owner).
use libfuzzer_sys::fuzz_target;
fuzz_target!(|data: &[u8]| {
    let _ = data;
});
