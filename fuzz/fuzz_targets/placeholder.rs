//! libFuzzer target `placeholder`: feeds each input to `targets::placeholder` (fuzz/src/targets.rs).
#![no_main]

#[path = "../src/targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::placeholder(data));
