//! Arbitrary text into the whole schema pipeline (parse, lower, check, layout, format)
//! for both dialects: diagnostics are fine, panics are not.
//! Run: `cd fuzz && cargo +nightly fuzz run analyze seeds/analyze -- -max_total_time=300`
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| wirelens_fuzz::analyze(data));
