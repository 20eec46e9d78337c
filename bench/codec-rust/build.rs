//! Generates every benchmarked schema three times into `$OUT_DIR`: `fast_<name>.rs` with
//! the emitter's defaults (what `wirelens_build::Builder` writes), `plain_<name>.rs`
//! with every optimization off (`RustOptions::PLAIN`), the field-by-field baseline, and
//! `compact_<name>.rs`: the defaults with `OwnedStrings::Compact`, and `arena_<name>.rs`:
//! the defaults with `Memory::Arena` (views' arrays in an arena).

use std::path::Path;

use wirelens_core::{analyze, Dialect, FieldOrder, OrderChoice};
use wirelens_generators::rust::{generate_with, Memory, OwnedStrings, RustOptions};

/// (module name, dialect, schema path relative to the workspace root).
const SCHEMAS: &[(&str, Dialect, &str)] = &[
    ("audiounit", Dialect::Sdp, "tests/vectors/sdp/schemas/audiounit.sdp"),
    ("arrays", Dialect::Sdp, "tests/vectors/sdp/schemas/arrays.sdp"),
    ("complex", Dialect::Ffi, "tests/vectors/ffi/schemas/complex.ffi"),
    ("array_int", Dialect::Ffi, "tests/vectors/ffi/schemas/array_int.ffi"),
    (
        "array_struct",
        Dialect::Ffi,
        "tests/vectors/ffi/schemas/array_struct.ffi",
    ),
    (
        "array_string",
        Dialect::Ffi,
        "tests/vectors/ffi/schemas/array_string.ffi",
    ),
    // The 64 MB messages of `benches/big.rs` (bench/big/run).
    ("big", Dialect::Sdp, "bench/big/big.sdp"),
];

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Path::new(&std::env::var_os("OUT_DIR").expect("OUT_DIR")).to_path_buf();
    for &(name, dialect, rel) in SCHEMAS {
        let path = root.join(rel);
        println!("cargo:rerun-if-changed={}", path.display());
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{rel}: {e}"));
        // The vectors' `.canon.bin` cases use ffire's canonical order.
        let choice = OrderChoice {
            order: Some(FieldOrder::Canonical),
            overrides_directive: true,
        };
        let a = analyze(dialect, &text, None, choice);
        assert!(!a.has_errors(), "{rel}: {:?}", a.diagnostics);
        let file = path.file_name().and_then(|f| f.to_str()).unwrap_or(rel);
        let compact = RustOptions {
            strings: OwnedStrings::Compact,
            ..RustOptions::default()
        };
        let arena = RustOptions {
            memory: Memory::Arena,
            ..RustOptions::default()
        };
        for (prefix, opts) in [
            ("fast", RustOptions::default()),
            ("plain", RustOptions::PLAIN),
            ("compact", compact),
            ("arena", arena),
        ] {
            let code = generate_with(&a.schema, &a.layout, file, &opts).unwrap_or_else(|e| panic!("{rel}: {e}"));
            std::fs::write(out.join(format!("{prefix}_{name}.rs")), code).expect("write generated code");
        }
    }
}
