//! libFuzzer target `tensor_proto`: see `ndpad_fuzz::fuzz_tensor_proto`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ndpad_fuzz::fuzz_tensor_proto(data));
