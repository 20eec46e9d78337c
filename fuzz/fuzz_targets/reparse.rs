//! Random edit sequences applied the way the language server applies them
//! (`wirelens_core::syntax::apply_edit`, `Tree::edit`, incremental reparse, layout reuse): after every edit
//! the diagnostics and the layout must equal those of a fresh parse.
//! Run: `cd fuzz && cargo +nightly fuzz run reparse -- -max_total_time=300`
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| wirelens_fuzz::incremental(data));
