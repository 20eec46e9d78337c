//! Arbitrary text into the whole schema pipeline (parse, lower, check, layout, format)
//! for both dialects: diagnostics are fine, panics are not.
//! Run: `cd fuzz && cargo +nightly fuzz run analyze -- -max_total_time=300`
#![no_main]

use codegen::{analyze, Dialect, OrderChoice};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    for dialect in [Dialect::Sdp, Dialect::Ffi] {
        let a = analyze(dialect, text, None, OrderChoice::default());
        let _ = codegen::report::layout_json(&a.schema, &a.layout, None);
        if let Ok(formatted) = codegen::fmt::format(dialect, text) {
            assert_eq!(codegen::fmt::format(dialect, &formatted).ok().as_deref(), Some(formatted.as_str()));
        }
    }
});
