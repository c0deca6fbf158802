//! libFuzzer target `results`: feeds each input to `targets::results` (fuzz/src/targets.rs).
#![no_main]

#[path = "../src/targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::results(data));
