//! Hostile bytes into the reference decoder, for every root of the golden schemas and
//! both modes: it may return errors, never panic, hang or over-allocate.
//! Run: `cd fuzz && cargo +nightly fuzz run decode -- -max_total_time=300`
#![no_main]

use codegen::codec::{Codec, Mode};
use codegen::{analyze, Dialect, FieldOrder, OrderChoice};
use libfuzzer_sys::fuzz_target;

const SCHEMAS: &[(Dialect, &str)] = &[
    (Dialect::Sdp, include_str!("../../tests/vectors/sdp/schemas/audiounit.sdp")),
    (Dialect::Sdp, include_str!("../../tests/vectors/sdp/schemas/optional.sdp")),
    (Dialect::Sdp, include_str!("../../tests/vectors/sdp/schemas/arrays.sdp")),
    (Dialect::Sdp, include_str!("../../tests/vectors/sdp/schemas/primitives.sdp")),
    (Dialect::Ffi, include_str!("../../tests/vectors/ffi/schemas/complex.ffi")),
    (Dialect::Ffi, include_str!("../../tests/vectors/ffi/schemas/optional.ffi")),
    (Dialect::Ffi, include_str!("../../tests/vectors/ffi/schemas/nested.ffi")),
];

fuzz_target!(|data: &[u8]| {
    // First byte picks schema, root, mode and order; the rest is the input.
    let Some((&pick, bytes)) = data.split_first() else { return };
    let (dialect, text) = SCHEMAS[pick as usize % SCHEMAS.len()];
    let order = if pick & 0x80 != 0 { FieldOrder::Declaration } else { FieldOrder::Canonical };
    let analysis = analyze(dialect, text, None, OrderChoice { order: Some(order), overrides_directive: true });
    let codec = Codec::new(&analysis.schema, &analysis.layout);
    let types = &analysis.schema.types;
    let root = (pick as usize / SCHEMAS.len()) % types.len();
    let mode = if dialect == Dialect::Sdp && pick & 0x40 != 0 { Mode::Message } else { Mode::Byte };
    if let Ok(value) = codec.decode(root, bytes, mode) {
        // Whatever decodes must encode back to the same bytes.
        let again = codec.encode(root, &value, mode).expect("a decoded value encodes");
        assert_eq!(again, bytes);
    }
    let _ = codec.decode_all(root, bytes, mode);
    let _ = codec.annotate(root, bytes, mode, true);
});
