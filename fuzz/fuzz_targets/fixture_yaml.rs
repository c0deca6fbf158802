//! libFuzzer target `fixture_yaml`: feeds each input to `targets::fixture_yaml` (fuzz/src/targets.rs).
#![no_main]

#[path = "../src/targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::fixture_yaml(data));
