//! The reference codec against every golden vector (library level), and against
//! hostile bytes: every truncation, lengths and counts set to their maximum, bad bool and
//! presence bytes, invalid UTF-8, bad SDP headers. Every one must end in an error with a
//! path and an offset — never a panic — and decoding must never allocate more than the
//! input can justify (measured with a counting allocator).

use std::alloc::{GlobalAlloc, Layout as AllocLayout, System};
use std::cell::Cell;
use std::path::{Path, PathBuf};

use serde_json::Value;
use wirelens_core::codec::{Codec, Mode};
use wirelens_core::{analyze, Analysis, Dialect, FieldOrder, OrderChoice};

/// Tracks this thread's live and peak heap bytes (tests run in parallel threads) so a
/// test can bound what one decode allocates.
struct Counting;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: AllocLayout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let _ = LIVE.try_with(|live| {
                live.set(live.get() + layout.size() as isize);
                let _ = PEAK.try_with(|peak| peak.set(peak.get().max(live.get())));
            });
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: AllocLayout) {
        unsafe { System.dealloc(ptr, layout) };
        let _ = LIVE.try_with(|live| live.set(live.get() - layout.size() as isize));
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn vectors() -> PathBuf {
    std::env::var_os("WIRELENS_VECTORS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors"))
}

struct Case {
    name: String,
    analysis: Analysis,
    root: String,
    mode: Mode,
    all: bool,
    value: Value,
    bytes: Vec<u8>,
}

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for (dir, dialect) in [("sdp", Dialect::Sdp), ("ffi", Dialect::Ffi)] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(vectors().join(dir).join("cases"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        for path in files {
            let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let schema = vectors()
                .join(dir)
                .join("schemas")
                .join(doc["schema"].as_str().unwrap());
            let order = FieldOrder::parse(doc["order"].as_str().unwrap_or("canonical")).unwrap();
            let text = std::fs::read_to_string(&schema).unwrap();
            let analysis = analyze(
                dialect,
                &text,
                None,
                OrderChoice {
                    order: Some(order),
                    overrides_directive: true,
                },
            );
            assert!(!analysis.has_errors(), "{}", schema.display());
            let (all, value) = match doc.get("values") {
                Some(v) => (true, v.clone()),
                None => (false, doc["value"].clone()),
            };
            out.push(Case {
                name: path.file_stem().unwrap().to_string_lossy().into_owned(),
                analysis,
                root: doc["root"].as_str().unwrap().to_string(),
                mode: if doc["mode"] == "message" {
                    Mode::Message
                } else {
                    Mode::Byte
                },
                all,
                value,
                bytes: std::fs::read(path.with_extension("bin")).unwrap(),
            });
        }
    }
    assert!(out.len() >= 40, "expected the golden cases, found {}", out.len());
    out
}

fn decode(case: &Case, bytes: &[u8]) -> Result<Value, wirelens_core::codec::CodecError> {
    let codec = Codec::new(&case.analysis.schema, &case.analysis.layout);
    let root = codec.root(&case.root).unwrap();
    if case.all {
        codec.decode_all(root, bytes, case.mode).map(Value::Array)
    } else {
        codec.decode(root, bytes, case.mode)
    }
}

#[test]
fn every_vector_encodes_exactly_and_decodes_back() {
    for case in cases() {
        let codec = Codec::new(&case.analysis.schema, &case.analysis.layout);
        let root = codec.root(&case.root).unwrap();
        let mut bytes = Vec::new();
        let records: Vec<Value> = if case.all {
            case.value.as_array().unwrap().clone()
        } else {
            vec![case.value.clone()]
        };
        for r in &records {
            codec
                .encode_into(root, r, case.mode, &mut bytes)
                .unwrap_or_else(|e| panic!("{}: {e}", case.name));
        }
        assert_eq!(bytes, case.bytes, "{}: encoding differs", case.name);
        let decoded = decode(&case, &case.bytes).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        let decoded: Vec<Value> = if case.all {
            decoded.as_array().unwrap().clone()
        } else {
            vec![decoded]
        };
        for (want, got) in records.iter().zip(&decoded) {
            codec
                .same_value(root, want, got)
                .unwrap_or_else(|e| panic!("{}: {e}", case.name));
        }
    }
}

/// Record boundaries of a back-to-back case, where a shorter input is legitimately valid.
fn boundaries(case: &Case) -> Vec<usize> {
    let codec = Codec::new(&case.analysis.schema, &case.analysis.layout);
    let root = codec.root(&case.root).unwrap();
    let mut at = 0;
    let mut out = vec![0];
    while at < case.bytes.len() {
        let (_, used) = codec.decode_prefix(root, &case.bytes[at..], case.mode).unwrap();
        at += used;
        out.push(at);
    }
    out
}

#[test]
fn every_truncation_of_every_vector_is_an_error() {
    let mut checked = 0usize;
    for case in cases() {
        let valid_ends = if case.all { boundaries(&case) } else { vec![] };
        let len = case.bytes.len();
        for n in 0..len {
            // Every truncation of vectors up to 4 KiB; of larger ones, every one in the
            // first 2 KiB and the last 512 bytes and about 1,000 spread in between with an
            // odd stride (decoding a prefix costs its length, so all 112,490 truncations
            // of audiounit_full would take minutes).
            let stride = (len / 1024).max(7) | 1;
            let sampled = len <= 4 << 10 || n < 2 << 10 || n + 512 >= len || n % stride == 0;
            if !sampled || valid_ends.contains(&n) {
                continue;
            }
            let err = decode(&case, &case.bytes[..n])
                .err()
                .unwrap_or_else(|| panic!("{}: truncated to {n} bytes decoded", case.name));
            assert!(
                !err.message.is_empty() && err.offset <= n,
                "{}[..{n}]: {err:?}",
                case.name
            );
            checked += 1;
        }
    }
    assert!(checked > 30_000, "only {checked} truncations");
}

/// Overwrites `width` bytes at every offset with `fill` and decodes: errors are fine,
/// panics are not, and the peak heap during a decode stays within a fixed multiple of
/// the input size.
fn mutate_everywhere(width: usize, fill: u8, max_len: usize) -> usize {
    let mut decoded_anyway = 0;
    for case in cases() {
        if case.bytes.len() > max_len {
            continue;
        }
        for at in 0..case.bytes.len().saturating_sub(width - 1) {
            let mut bytes = case.bytes.clone();
            bytes[at..at + width].fill(fill);
            let before = LIVE.with(Cell::get);
            PEAK.with(|p| p.set(before));
            let result = decode(&case, &bytes);
            let peak = (PEAK.with(Cell::get) - before) as usize;
            let bound = 512 * bytes.len() + (64 << 10);
            assert!(
                peak <= bound,
                "{} with {width}×{fill:#04x} at {at}: {peak} bytes allocated for {} input bytes",
                case.name,
                bytes.len()
            );
            match result {
                Ok(_) => decoded_anyway += 1,
                Err(e) => assert!(!e.message.is_empty()),
            }
        }
    }
    decoded_anyway
}

#[test]
fn max_lengths_and_counts_never_over_allocate() {
    mutate_everywhere(4, 0xff, 8 << 10); // SDP u32 prefixes = 4294967295
    mutate_everywhere(2, 0xff, 8 << 10); // ffire u16 prefixes = 65535
}

#[test]
fn bool_and_presence_bytes_must_be_0_or_1() {
    mutate_everywhere(1, 2, 8 << 10);
    let c = case_named("optional_config_both");
    let codec = Codec::new(&c.analysis.schema, &c.analysis.layout);
    let root = codec.root(&c.root).unwrap();
    // Config: name (str), then the presence byte of `database`.
    let name_len = u32::from_le_bytes(c.bytes[0..4].try_into().unwrap()) as usize;
    let mut bytes = c.bytes.clone();
    bytes[4 + name_len] = 2;
    let err = codec.decode(root, &bytes, Mode::Byte).unwrap_err();
    assert_eq!(err.path, "database");
    assert_eq!(err.offset, 4 + name_len);
    assert!(err.message.contains("presence byte 0x02"), "{err}");
}

fn case_named(name: &str) -> Case {
    cases()
        .into_iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no case {name}"))
}

#[test]
fn length_errors_name_the_path_the_length_and_what_is_left() {
    let c = case_named("audiounit_small");
    let codec = Codec::new(&c.analysis.schema, &c.analysis.layout);
    let root = codec.root(&c.root).unwrap();
    // PluginRegistry.plugins[0].name's length prefix sits right after the plugin count.
    let mut bytes = c.bytes.clone();
    bytes[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
    let err = codec.decode(root, &bytes, Mode::Byte).unwrap_err();
    assert_eq!(err.path, "plugins[0].name");
    assert_eq!(
        err.to_string(),
        format!(
            "plugins[0].name: string length 4294967295 exceeds the {} bytes left at offset 4",
            bytes.len() - 8
        )
    );
}

#[test]
fn invalid_utf8_and_trailing_bytes() {
    let c = case_named("prim_mixed");
    let codec = Codec::new(&c.analysis.schema, &c.analysis.layout);
    let root = codec.root(&c.root).unwrap();
    let mut bytes = c.bytes.clone();
    let last = bytes.len() - 1; // str_field is last: "hello"
    bytes[last] = 0xff;
    let err = codec.decode(root, &bytes, Mode::Byte).unwrap_err();
    assert_eq!(err.path, "str_field");
    assert!(err.message.contains("UTF-8"), "{err}");
    let mut longer = c.bytes.clone();
    longer.push(0);
    let err = codec.decode(root, &longer, Mode::Byte).unwrap_err();
    assert_eq!(err.offset, c.bytes.len());
    assert!(err.message.contains("1 trailing byte"), "{err}");
    // decode_prefix reports how much it used instead.
    assert_eq!(codec.decode_prefix(root, &longer, Mode::Byte).unwrap().1, c.bytes.len());
}

#[test]
fn sdp_message_header_is_checked_field_by_field() {
    let c = case_named("message_item");
    let codec = Codec::new(&c.analysis.schema, &c.analysis.layout);
    let root = codec.root(&c.root).unwrap();
    let expect = |patch: &dyn Fn(&mut Vec<u8>), needle: &str| {
        let mut bytes = c.bytes.clone();
        patch(&mut bytes);
        let err = codec.decode(root, &bytes, Mode::Message).unwrap_err();
        assert!(err.message.contains(needle), "expected `{needle}` in `{err}`");
    };
    expect(&|b| b[0] = b'X', "bad message magic");
    expect(&|b| b[3] = b'3', "unsupported message version 0x33");
    expect(&|b| b[4] = 9, "message type id 9; expected 2");
    expect(&|b| b[6] = 0xff, "message length 255 exceeds");
    expect(
        &|b| b[6] = 4,
        "the message header announces a payload ending at offset 14",
    );
    expect(&|b| b[6] = 11, "announces a payload ending at offset 21");
    expect(&|b| b.truncate(7), "message length");
}

#[test]
fn ffi_encoders_refuse_strings_and_arrays_over_65535() {
    let text = "package p\ntype Msg struct {\n\tName string `json:\"name\"`\n\tItems []int8 `json:\"items\"`\n}\n";
    let a = analyze(Dialect::Ffi, text, None, OrderChoice::default());
    let codec = Codec::new(&a.schema, &a.layout);
    let root = codec.root("Msg").unwrap();
    let ok = serde_json::json!({"name": "x".repeat(65535), "items": vec![1; 65535]});
    assert_eq!(
        codec.encode(root, &ok, Mode::Byte).unwrap().len(),
        2 + 65535 + 2 + 65535
    );
    let long = serde_json::json!({"name": "x".repeat(65536), "items": []});
    let err = codec.encode(root, &long, Mode::Byte).unwrap_err();
    assert_eq!(err.path, "name");
    assert!(
        err.message.contains("65536") && err.message.contains("at most 65,535"),
        "{err}"
    );
    let many = serde_json::json!({"name": "", "items": vec![0; 65536]});
    assert_eq!(codec.encode(root, &many, Mode::Byte).unwrap_err().path, "items");
}

#[test]
fn json_mapping_edges() {
    let text = "struct T {\n    a: u64,\n    b: i64,\n    c: f32,\n    d: f64,\n    s: str,\n}\n";
    let a = analyze(Dialect::Sdp, text, None, OrderChoice::default());
    let codec = Codec::new(&a.schema, &a.layout);
    let root = codec.root("T").unwrap();
    let v: Value = serde_json::from_str(
        r#"{"a": 18446744073709551615, "b": -9223372036854775808, "c": 0.1, "d": -0.0, "s": "nul\u0000 é"}"#,
    )
    .unwrap();
    let bytes = codec.encode(root, &v, Mode::Byte).unwrap();
    assert_eq!(&bytes[0..8], &u64::MAX.to_le_bytes());
    assert_eq!(&bytes[8..16], &i64::MIN.to_le_bytes());
    assert_eq!(
        &bytes[16..20],
        &0.1f32.to_le_bytes(),
        "f32 rounds once, from the decimal text"
    );
    assert_eq!(&bytes[20..28], &(-0.0f64).to_le_bytes());
    let back = codec.decode(root, &bytes, Mode::Byte).unwrap();
    assert_eq!(back["a"].to_string(), "18446744073709551615");
    assert_eq!(back["b"].to_string(), "-9223372036854775808");
    assert_eq!(back["c"].to_string(), "0.1");
    assert_eq!(back["d"].to_string(), "-0.0");
    assert_eq!(back["s"], "nul\u{0} é");
    for (bad, what) in [
        (
            r#"{"a": 18446744073709551616, "b": 0, "c": 0, "d": 0, "s": ""}"#,
            "out of range",
        ),
        (r#"{"a": 1.5, "b": 0, "c": 0, "d": 0, "s": ""}"#, "expected an integer"),
        (r#"{"a": 1, "b": 0, "c": 0, "d": 0}"#, "missing field"),
        (
            r#"{"a": 1, "b": 0, "c": 0, "d": 0, "s": "", "extra": 1}"#,
            "unknown field `extra`",
        ),
    ] {
        let err = codec
            .encode(root, &serde_json::from_str(bad).unwrap(), Mode::Byte)
            .unwrap_err();
        assert!(err.to_string().contains(what), "{bad}: {err}");
    }
}

/// A fixed block that starts in the parent and takes an inlined struct's leading fields
/// (`tail, label.id` after a variable field) comes before the plan's step for the inlined
/// struct: the codec must still find `label.id` (it reported it missing), and still check
/// the inlined object.
#[test]
fn a_block_reaching_into_an_inlined_struct_before_its_step() {
    let schema = "struct Label { id: u16, text: str, weight: f32 }
struct Holder { flags: []bool, tail: i8, label: Label, after: u64 }";
    let a = analyze(Dialect::Sdp, schema, None, OrderChoice::default());
    assert!(!a.has_errors());
    let codec = Codec::new(&a.schema, &a.layout);
    let root = codec.root("Holder").expect("root");
    let value: Value =
        serde_json::from_str(r#"{"flags":[true],"tail":-5,"label":{"id":300,"text":"lbl","weight":0.5},"after":1}"#)
            .unwrap();
    let bytes = codec.encode(root, &value, Mode::Byte).expect("encodes");
    let mut want = vec![1, 0, 0, 0, 1, 0xfb, 0x2c, 0x01, 3, 0, 0, 0, b'l', b'b', b'l'];
    want.extend_from_slice(&0.5f32.to_le_bytes());
    want.extend_from_slice(&1u64.to_le_bytes());
    assert_eq!(bytes, want);
    assert!(codec
        .same_value(root, &codec.decode(root, &bytes, Mode::Byte).expect("decodes"), &value)
        .is_ok());
    let bad: Value = serde_json::from_str(r#"{"flags":[],"tail":0,"label":5,"after":1}"#).unwrap();
    let e = codec.encode(root, &bad, Mode::Byte).unwrap_err().to_string();
    assert!(e.contains("label: expected an object for `Label`"), "{e}");
}
