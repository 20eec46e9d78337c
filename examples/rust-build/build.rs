// Generates Rust for three schemas into $OUT_DIR on every build where one changed
// (the builder prints the `cargo:rerun-if-changed` lines).
fn main() {
    let schemas = [
        "../audiounit/plugin_registry.sdp",
        "../telemetry/telemetry.ffi",
        // The golden vectors' AudioUnit schema, so the tests can check real bytes.
        "../../tests/vectors/sdp/schemas/audiounit.sdp",
    ];
    if let Err(e) = codegen::generate::Builder::new().compile(&schemas) {
        // One `file:line:col: message` per problem; cargo shows them and stops.
        eprintln!("{e}");
        std::process::exit(1);
    }
}
