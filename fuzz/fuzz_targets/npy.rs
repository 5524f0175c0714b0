//! libFuzzer target `npy`: see `ndpad_fuzz::fuzz_npy`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ndpad_fuzz::fuzz_npy(data));
