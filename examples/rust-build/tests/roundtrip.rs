//! The code `build.rs` generated, used as an application would.

use wirelens_example_build::{audiounit, audiounit_compact, plugin_registry, sample_registry, telemetry};
use wirelens_runtime::{Dispatch as _, Message as _, SdpMessage as _};

fn vector(name: &str) -> Vec<u8> {
    let path = format!("{}/../../tests/vectors/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn golden_audiounit_bytes_decode_and_reencode_exactly() {
    let bytes = vector("sdp/cases/audiounit_full.bin");
    let registry = audiounit::PluginRegistry::decode(&bytes).expect("decode");
    assert!(!registry.plugins.is_empty());
    assert_eq!(registry.encoded_size(), bytes.len());
    assert_eq!(registry.to_bytes().expect("encode"), bytes);
    let view = audiounit::PluginRegistry::decode_view(&bytes).expect("view");
    assert_eq!(view.to_owned_value(), registry);
}

#[test]
fn compact_strings_decode_and_reencode_the_golden_bytes() {
    let bytes = vector("sdp/cases/audiounit_full.bin");
    let compact = audiounit_compact::PluginRegistry::decode(&bytes).expect("decode");
    let name: &wirelens_runtime::CompactString = &compact.plugins[0].name;
    let plain = audiounit::PluginRegistry::decode(&bytes).expect("decode");
    assert_eq!(name.as_str(), plain.plugins[0].name);
    assert_eq!(compact.to_bytes().expect("encode"), bytes);
    let mut out = Vec::new();
    compact.encode(&mut out).expect("encode");
    assert_eq!(out, bytes);
}

#[test]
fn sdp_message_roundtrip_through_the_dispatcher() {
    let registry = sample_registry();
    let mut buf = Vec::new();
    registry.encode_message(&mut buf).expect("encode");
    assert_eq!(&buf[..4], b"SDP2");
    match plugin_registry::AnyMessage::decode(&buf).expect("decode") {
        plugin_registry::AnyMessage::PluginRegistry(back) => assert_eq!(back, registry),
        other => panic!("wrong message: {}", other.message_id()),
    }
}

#[test]
fn ffire_frame_roundtrip_and_limits() {
    let frame = telemetry::FrameMessage {
        sequence: 7,
        device: "interface".into(),
        enabled: true,
        sample_hz: 48_000,
        channels: vec![telemetry::Channel {
            name: "In 1".into(),
            index: 0,
            gain_db: -3.5,
            muted: false,
            peak_db: -12.0,
            clipped: false,
        }],
        clock: telemetry::ClockState {
            drift_ppm: 0.25,
            locked: true,
        },
        last_error: None,
        meters: Some(telemetry::MeterHistory {
            peaks_db: vec![vec![-1.0, -2.0]],
        }),
    };
    let bytes = frame.to_bytes().expect("encode");
    assert_eq!(bytes.len(), frame.encoded_size());
    assert_eq!(telemetry::FrameMessage::decode(&bytes).expect("decode"), frame);
    let mut long = frame.clone();
    long.device = "x".repeat(65_536);
    assert!(
        long.to_bytes().is_err(),
        "ffire strings over 65,535 bytes must be refused"
    );
    assert!(telemetry::FrameMessage::decode(&bytes[..bytes.len() - 1]).is_err());
}

/// Generic code over every generated type, of either dialect (the runtime's `Message`).
fn send<M: wirelens_runtime::Message>(m: &M, wire: &mut Vec<u8>) -> usize {
    let before = wire.len();
    m.encode(wire).expect("encodes");
    wire.len() - before
}

fn receive<M: wirelens_runtime::Message>(wire: &[u8]) -> (M, usize) {
    M::decode_prefix(wire).expect("decodes")
}

#[test]
fn generic_code_sends_and_receives_any_generated_type() {
    let registry = sample_registry();
    let clock = telemetry::ClockState {
        drift_ppm: 0.5,
        locked: true,
    };
    let mut wire = Vec::new();
    let a = send(&registry, &mut wire);
    let b = send(&clock, &mut wire);
    assert_eq!((a, b), (registry.encoded_size(), clock.encoded_size()));
    let (r, used) = receive::<plugin_registry::PluginRegistry>(&wire);
    assert_eq!((r, used), (registry, a));
    let (c, used) = receive::<telemetry::ClockState>(&wire[a..]);
    assert_eq!((c, used), (clock, b));
}
