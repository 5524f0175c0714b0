//! libFuzzer target `zarr`: see `ndpad_fuzz::fuzz_zarr`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ndpad_fuzz::fuzz_zarr(data));
