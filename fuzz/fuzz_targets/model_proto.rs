//! libFuzzer target `model_proto`: see `ndpad_fuzz::fuzz_model_proto`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ndpad_fuzz::fuzz_model_proto(data));
