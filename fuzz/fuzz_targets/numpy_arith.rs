//! libFuzzer target `numpy_arith`: see `ndpad_fuzz::fuzz_numpy_arith`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ndpad_fuzz::fuzz_numpy_arith(data));
