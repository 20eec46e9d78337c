//! Limits, each with a clear message and bounded memory (a per-thread counting allocator
//! measures what one call allocates):
//! - a 10 MB schema of each dialect is analysed in bounded time and memory (a file over
//!   `MAX_SOURCE_BYTES` is refused before it is read: `wirelens-project`'s `read_limits.rs`);
//! - ffire nesting depth 32 is accepted and 33 is `E011`; values at depth 32 decode;
//!   schemas nested deeper than the codec follows give an error, not a stack overflow;
//! - ffire strings and arrays of exactly 65,535 bytes/elements decode and encode, 65,536
//!   are refused by the encoder;
//! - SDP counts and lengths near 2^32 in inputs of a few bytes are refused before any
//!   allocation they would imply.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use wirelens_core::codec::{Codec, Mode};
use wirelens_core::{analyze, Analysis, Dialect, OrderChoice};

mod counting;
use counting::peak_of;

fn analysed(dialect: Dialect, text: &str) -> Analysis {
    let a = analyze(dialect, text, None, OrderChoice::default());
    let errors: Vec<_> = a
        .diagnostics
        .iter()
        .filter(|d| d.severity == wirelens_core::Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    a
}

fn codec_decode(a: &Analysis, root: &str, bytes: &[u8]) -> Result<Value, wirelens_core::codec::CodecError> {
    let codec = Codec::new(&a.schema, &a.layout);
    codec.decode(codec.root(root).unwrap(), bytes, Mode::Byte)
}

fn codec_encode(a: &Analysis, root: &str, value: &Value) -> Result<Vec<u8>, wirelens_core::codec::CodecError> {
    let codec = Codec::new(&a.schema, &a.layout);
    codec.encode(codec.root(root).unwrap(), value, Mode::Byte)
}

// ------------------------------------------------------------------ 10 MB schemas

fn ten_megabytes(dialect: Dialect) -> String {
    let mut s = String::with_capacity(10 << 20);
    if dialect == Dialect::Ffi {
        s.push_str("package big\n\ntype Root struct {\n\tFirst T0\n}\n\n");
    }
    let mut i = 0;
    while s.len() < 10 << 20 {
        match dialect {
            Dialect::Sdp => s.push_str(&format!(
                "/// Struct number {i}.\nstruct T{i} {{\n    id: u64,\n    name: str,\n    next: []T{},\n    flag: bool,\n}}\n\n",
                i + 1
            )),
            Dialect::Ffi => s.push_str(&format!(
                "// T{i} is one of many.\ntype T{i} struct {{\n\tID   int64  `json:\"id\"`\n\tName string\n\tNext []T{}\n\tOn   *bool\n}}\n\n",
                i + 1
            )),
        }
        i += 1;
    }
    match dialect {
        Dialect::Sdp => s.push_str(&format!("struct T{i} {{\n    last: u8,\n}}\n")),
        Dialect::Ffi => s.push_str(&format!("type T{i} struct {{\n\tLast int8\n}}\n")),
    }
    s
}

#[test]
fn a_ten_megabyte_schema_is_analysed_in_bounded_time_and_memory() {
    for dialect in [Dialect::Sdp, Dialect::Ffi] {
        let text = ten_megabytes(dialect);
        assert!(text.len() >= 10 << 20);
        let start = Instant::now();
        let (a, peak) = peak_of(|| analyze(dialect, &text, None, OrderChoice::default()));
        let took = start.elapsed();
        eprintln!(
            "{dialect:?}: {} bytes, {} types, {} diagnostics in {took:?}, peak {} MiB",
            text.len(),
            a.schema.types.len(),
            a.diagnostics.len(),
            peak >> 20
        );
        assert!(a.schema.types.len() > 50_000);
        // The chain is ~60,000 types deep: fine for SDP; ffire's E011 names the root.
        let codes: Vec<&str> = a.diagnostics.iter().map(|d| d.code).collect();
        match dialect {
            Dialect::Sdp => assert!(!a.has_errors(), "{:?}", &codes[..codes.len().min(5)]),
            Dialect::Ffi => assert_eq!(codes, ["E011"], "{:?}", &codes[..codes.len().min(5)]),
        }
        assert!(took < Duration::from_secs(60), "{dialect:?}: {took:?}");
        assert!(
            peak < 1 << 30,
            "{dialect:?}: peak {} MiB for a 10 MB schema",
            peak >> 20
        );
    }
}

// ------------------------------------------------------------------ nesting depth

/// `type T0 struct { A T1 }` … `type T{n-1} struct { V int32 }`: a `T0` value nests `n`
/// levels (each field adds one).
fn ffi_chain(n: usize) -> String {
    let mut s = String::from("package deep\n\n");
    for i in 0..n - 1 {
        s.push_str(&format!("type T{i} struct {{\n\tA T{}\n}}\n\n", i + 1));
    }
    s.push_str(&format!("type T{} struct {{\n\tV int32\n}}\n", n - 1));
    s
}

fn nested_value(levels: usize, leaf: Value) -> Value {
    let mut v = json!({ "V": leaf });
    for _ in 1..levels {
        v = json!({ "A": v });
    }
    v
}

#[test]
fn ffire_depth_32_is_accepted_and_33_is_e011() {
    let a = analysed(Dialect::Ffi, &ffi_chain(32));
    let value = nested_value(32, json!(-7));
    let bytes = codec_encode(&a, "T0", &value).unwrap();
    assert_eq!(bytes, (-7i32).to_le_bytes());
    assert_eq!(codec_decode(&a, "T0", &bytes).unwrap(), value);

    let b = analyze(Dialect::Ffi, &ffi_chain(33), None, OrderChoice::default());
    let e011: Vec<_> = b.diagnostics.iter().filter(|d| d.code == "E011").collect();
    assert_eq!(e011.len(), 1, "{:?}", b.diagnostics);
    assert_eq!(e011[0].message, "`T0` nests 33 levels deep; ffire allows 32");
    assert_eq!(&ffi_chain(33)[e011[0].range.clone()], "T0", "points at the root's name");

    // Arrays count too: `[][]…int32` 32 deep under one field is 33 levels.
    let arrays = |n: usize| format!("package p\n\ntype R struct {{\n\tV {}int32\n}}\n", "[]".repeat(n));
    assert!(!analyze(Dialect::Ffi, &arrays(31), None, OrderChoice::default()).has_errors());
    let c = analyze(Dialect::Ffi, &arrays(32), None, OrderChoice::default());
    assert!(c.diagnostics.iter().any(|d| d.code == "E011"), "{:?}", c.diagnostics);
}

#[test]
fn schemas_deeper_than_the_codec_follows_are_an_error_not_a_stack_overflow() {
    // SDP has no depth rule; a 2,000-struct chain is valid. The codec stops at its limit
    // with a message instead of recursing 2,000 frames deep (tests run on 2 MiB stacks).
    let n = 2000;
    let mut s = String::new();
    for i in 0..n - 1 {
        s.push_str(&format!("struct S{i} {{\n    a: S{},\n}}\n", i + 1));
    }
    s.push_str(&format!("struct S{} {{\n    v: u8,\n}}\n", n - 1));
    let a = analysed(Dialect::Sdp, &s);
    let err = codec_decode(&a, "S0", &[5]).unwrap_err();
    assert!(err.message.contains("nested deeper than"), "{err:?}");
    let err = codec_encode(&a, "S0", &json!({})).unwrap_err();
    assert!(
        err.message.contains("nested deeper than") || err.message.contains("missing"),
        "{err:?}"
    );
    // Within the limit it works.
    assert_eq!(
        codec_decode(&a, "S1500", &[5])
            .unwrap()
            .to_string()
            .matches('{')
            .count(),
        500
    );
}

// ------------------------------------------------------------------ 65,535

#[test]
fn ffire_strings_and_arrays_of_65535_decode_and_65536_are_refused() {
    let a = analysed(
        Dialect::Ffi,
        "package p\n\ntype M struct {\n\tName  string\n\tItems []int16\n\tBytes []int8\n}\n",
    );
    // Canonical order: every field is variable-size, so name order: Bytes, Items, Name.
    let value = json!({"Name": "é".repeat(32767) + "x", "Items": vec![-1; 65535], "Bytes": vec![7; 65535]});
    let bytes = codec_encode(&a, "M", &value).unwrap();
    assert_eq!(bytes.len(), 2 + 65535 + 2 + 2 * 65535 + 2 + 65535);
    assert_eq!(&bytes[..2], &[0xff, 0xff]);
    let (decoded, peak) = peak_of(|| codec_decode(&a, "M", &bytes).unwrap());
    assert_eq!(decoded, value);
    assert!(peak < 64 << 20, "{peak}");

    for (field, long) in [
        ("Name", json!("x".repeat(65536))),
        ("Items", json!(vec![0; 65536])),
        ("Bytes", json!(vec![0; 65536])),
    ] {
        let mut v = value.clone();
        v[field] = long;
        let err = codec_encode(&a, "M", &v).unwrap_err();
        assert!(
            err.message.contains("65536") && err.message.contains("65,535") && err.path == field,
            "{field}: {err:?}"
        );
    }
    // The wire cannot say 65,536: a 65,535 prefix with one byte less is truncated input.
    let mut short = bytes.clone();
    short.pop();
    let err = codec_decode(&a, "M", &short).unwrap_err();
    assert!(err.path == "Name", "{err:?}");
}

// ------------------------------------------------------------------ SDP counts near 2^32

#[test]
fn sdp_counts_near_2_pow_32_in_small_inputs_are_refused_without_allocating() {
    let a = analysed(
        Dialect::Sdp,
        "struct Item {\n    id: u64,\n    name: str,\n}\n\nstruct M {\n    bytes: []u8,\n    names: []str,\n    grid: [][]u64,\n    items: []Item,\n    text: str,\n}\n",
    );
    let codec = Codec::new(&a.schema, &a.layout);
    let m = codec.root("M").unwrap();
    let empty = |skip: usize| -> Vec<u8> { vec![0u8; 4 * skip] };
    for count in [u32::MAX, u32::MAX - 1, 1 << 31, (1 << 31) - 1, 1 << 24] {
        for (slot, field) in ["bytes", "names", "grid", "items", "text"].iter().enumerate() {
            // Earlier fields empty, then the huge count, then 16 bytes of payload.
            let mut input = empty(slot);
            input.extend(count.to_le_bytes());
            input.extend([0x41; 16]);
            let (r, peak) = peak_of(|| codec.decode(m, &input, Mode::Byte));
            let err = r.expect_err("a count the input cannot hold");
            assert_eq!(err.path, *field, "{count}: {err:?}");
            assert!(
                err.message.contains(&count.to_string()) && err.message.contains("16 bytes left"),
                "{field} {count}: {}",
                err.message
            );
            assert!(peak < 16 << 10, "{field} {count}: allocated {peak} bytes");
            let (_, peak) = peak_of(|| codec.annotate(m, &input, Mode::Byte, true));
            assert!(peak < 64 << 10, "annotate {field} {count}: allocated {peak} bytes");
        }
    }
    // A count the input can hold is fine: 2^24 one-byte elements.
    let mut big = 0x0100_0000u32.to_le_bytes().to_vec();
    big.extend(vec![1u8; 1 << 24]);
    big.extend(empty(4));
    let v = codec.decode(m, &big, Mode::Byte).unwrap();
    assert_eq!(v["bytes"].as_array().unwrap().len(), 1 << 24);

    // The message header's payload length near 2^32 is checked against the input too.
    let mut msg = b"SDP2".to_vec();
    msg.extend(2u16.to_le_bytes());
    msg.extend(u32::MAX.to_le_bytes());
    msg.extend(empty(5));
    let (r, peak) = peak_of(|| codec.decode(m, &msg, Mode::Message));
    let err = r.unwrap_err();
    assert!(err.message.contains("4294967295"), "{err:?}");
    assert!(peak < 16 << 10, "{peak}");
}

// ------------------------------------------------------------------ no recursion on depth

/// ARCHITECTURE.md: "no recursion on user-controlled depth". A chain of 200,000 structs,
/// each holding the next (SDP: variable-size at the end, so every level is a call
/// boundary too), is analysed — lowered, checked, laid out, planned — on a thread with a
/// 256 KiB stack: one stack frame per level would overflow it hundreds of times over.
#[test]
fn a_200000_struct_chain_is_analysed_on_a_small_stack() {
    let n = 200_000;
    let mut text = String::with_capacity(n * 40);
    for i in 0..n - 1 {
        text.push_str(&format!("struct S{i} {{ a: u8, next: S{} }}\n", i + 1));
    }
    text.push_str(&format!("struct S{} {{ name: str }}\n", n - 1));
    let analysis = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || {
            let a = analyze(Dialect::Sdp, &text, None, OrderChoice::default());
            let errors = a
                .diagnostics
                .iter()
                .filter(|d| d.severity == wirelens_core::Severity::Error)
                .count();
            let plan = wirelens_core::plan::Plan::new(&a.layout);
            let planned = plan.types.iter().filter(|t| t.is_some()).count();
            // The Rust emitter's boxing decision walks the chain too.
            let boxed = wirelens_core::plan::Boxed::new(&a.layout);
            drop(boxed);
            (errors, a.schema.types.len(), planned)
        })
        .expect("spawn")
        .join()
        .expect("no stack overflow");
    assert_eq!(analysis, (0, n, n));
}
