// Generates Rust for three schemas into $OUT_DIR on every build where one changed
// (the builder prints the `cargo:rerun-if-changed` lines).
fn main() {
    let schemas = [
        "../audiounit/plugin_registry.sdp",
        "../telemetry/telemetry.ffi",
        // The golden vectors' AudioUnit schema, so the tests can check real bytes.
        "../../tests/vectors/sdp/schemas/audiounit.sdp",
    ];
    if let Err(e) = wirelens_build::Builder::new().compile(&schemas) {
        // One `file:line:col: message` per problem; cargo shows them and stops.
        eprintln!("{e}");
        std::process::exit(1);
    }
    // The golden AudioUnit schema again with owned strings as `CompactString` (no
    // allocation for strings up to 24 bytes; needs the runtime's `compact-strings`).
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR")).join("compact");
    let compact = wirelens_build::Builder::new()
        .out_dir(out)
        .rust_strings(wirelens_build::OwnedStrings::Compact)
        .compile(&["../../tests/vectors/sdp/schemas/audiounit.sdp"]);
    if let Err(e) = compact {
        eprintln!("{e}");
        std::process::exit(1);
    }
}
