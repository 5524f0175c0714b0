//! libFuzzer target `core`: see `ndpad_fuzz::fuzz_core`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ndpad_fuzz::fuzz_core(data));
