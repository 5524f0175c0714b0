//! libFuzzer target `frontends`: see `ndpad_fuzz::fuzz_frontends`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ndpad_fuzz::fuzz_frontends(data));
