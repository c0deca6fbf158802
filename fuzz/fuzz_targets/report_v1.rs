//! libFuzzer target `report_v1`: feeds each input to `targets::report_v1` (fuzz/src/targets.rs).
#![no_main]

#[path = "../src/targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::report_v1(data));
