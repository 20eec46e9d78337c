//! The Rust emitter, used the way a user would: generate a module for every golden
//! schema (ffire in both field orders), put them in a throwaway cargo crate that
//! depends on `runtime/rust`, build it, lint it with `clippy -D warnings`, and run a
//! driver that round-trips every golden case through the generated code:
//! decode → re-encode gives the same bytes, `encoded_size` is exact, `encode_into`
//! works and refuses a short buffer, the view decoder agrees, every truncation (of the
//! first 256 bytes) and a trailing byte are rejected; SDP message cases go through the
//! message API and the `AnyMessage` dispatcher.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use wirelens_core::{analyze, Dialect, FieldOrder, OrderChoice};
use wirelens_generators::rust::{generate, generate_with, type_name, Memory, OwnedStrings, RustOptions};

mod build_common;
use build_common::{run, workspace};

/// Constructs the golden schemas do not cover (nested arrays, arrays of options, `Box`,
/// every ffire optional kind, keyword field names, array and named-primitive roots).
/// Their cases are encoded by the reference codec (`wirelens_core::codec`).
const EXTRA_SDP: &str = "/// A fixed-size struct.
struct Inner {
    v: u32,
    okay: bool,
}

/// Every SDP construct.
struct Holder {
    grid: [][]u32,
    names: [][]str,
    maybe: []Option<Inner>,
    boxed: Box<Inner>,
    opt_boxed: Option<Box<Inner>>,
    flags: []bool,
    inners: [][]Inner,
    tail: i8,
}

/// A variable-size struct: its parents' code calls its own (the plan does not inline it).
struct Label {
    text: str,
    size: u16,
}

/// Named like the view of `Label` (the view must be renamed, not collide: E0428).
struct LabelView {
    text: str,
}

struct Pair {
    first: Label,
    flag: bool,
    second: Option<Label>,
}

/// Variable-size structs inlined two levels deep.
struct Named {
    id: u32,
    label: Label,
    pair: Pair,
    tail: u16,
}

/// Fields named like the decoder's own locals (which hold fields under their names).
struct Locals {
    rd: u32,
    b0: str,
    n0: []u16,
    x: str,
    f_x: bool,
    i_0: u8,
    base0: Option<Label>,
}

/// Only an array of fixed structs: no view by default (the owned type), a view with
/// `memory = \"arena\"` (the array lives in the arena).
struct Points {
    pts: []Inner,
}
";

const EXTRA_FFI: &str = "package extra

type Id int64

type Matrix [][]float64

// Inner has keyword-named fields.
type Inner struct {
\tType string
\tSelf int32
\tFlag bool
}

type Point struct {
\tX float32
\tY float32
}

// Everything is a root with every optional kind.
type Everything struct {
\tPtr      *int32
\tPtrStr   *string
\tPtrArr   *[]int16
\tPtrInner *Inner
\tPtrPtr   **bool
\tArrPtr   []*Inner
\tNested   [][]string
\tFixed    Point
\tFn       []int8
\tMatch    Matrix
\tCount    Id
}

type Stamp int64

type Grid [][]int32
";

/// (schema file, root, message mode, JSON value) for the extra schemas.
fn extra_values() -> Vec<(&'static str, &'static str, bool, serde_json::Value)> {
    use serde_json::json;
    let holder = json!({
        "grid": [[1, 2, 3], [], [4294967295u32]],
        "names": [["a", "héllo"], [], ["\u{0}"]],
        "maybe": [{"v": 1, "okay": true}, null, {"v": 2, "okay": false}],
        "boxed": {"v": 7, "okay": true},
        "opt_boxed": {"v": 8, "okay": false},
        "flags": [true, false, true],
        "inners": [[{"v": 3, "okay": true}], []],
        "tail": -5
    });
    let holder_empty = json!({
        "grid": [], "names": [], "maybe": [], "boxed": {"v": 0, "okay": false},
        "opt_boxed": null, "flags": [], "inners": [], "tail": 0
    });
    let everything = json!({
        "Ptr": -3, "PtrStr": "s", "PtrArr": [1, -2, 32767], "PtrInner": {"Type": "t", "Self": 5, "Flag": true},
        "PtrPtr": false, "ArrPtr": [null, {"Type": "", "Self": -1, "Flag": false}],
        "Nested": [["x", "y"], []], "Fixed": {"X": 1.5, "Y": -0.0}, "Fn": [-128, 127],
        "Match": [[1.25, -2.5], []], "Count": 9007199254740993i64
    });
    let nothing = json!({
        "ArrPtr": [], "Nested": [], "Fixed": {"X": 0.0, "Y": 0.0}, "Fn": [], "Match": [], "Count": 0
    });
    let named = json!({
        "id": 7, "label": {"text": "héllo", "size": 3},
        "pair": {"first": {"text": "", "size": 65535}, "flag": true, "second": {"text": "x", "size": 1}},
        "tail": 9
    });
    vec![
        ("extra.sdp", "Named", false, named.clone()),
        ("extra.sdp", "Named", true, named),
        ("extra.sdp", "LabelView", false, json!({"text": "v"})),
        (
            "extra.sdp",
            "Locals",
            false,
            json!({"rd": 1, "b0": "b", "n0": [2, 3], "x": "x", "f_x": true, "i_0": 4, "base0": {"text": "t", "size": 5}}),
        ),
        ("extra.sdp", "Holder", false, holder.clone()),
        ("extra.sdp", "Holder", false, holder_empty),
        ("extra.sdp", "Holder", true, holder),
        ("extra.sdp", "Inner", true, json!({"v": 1, "okay": true})),
        (
            "extra.sdp",
            "Points",
            false,
            json!({"pts": [{"v": 1, "okay": true}, {"v": 2, "okay": false}]}),
        ),
        ("extra.sdp", "Points", true, json!({"pts": [{"v": 3, "okay": true}]})),
        ("extra.ffi", "Everything", false, everything),
        ("extra.ffi", "Everything", false, nothing),
        ("extra.ffi", "Stamp", false, json!(-42)),
        ("extra.ffi", "Grid", false, json!([[1, 2], [], [-3]])),
    ]
}

struct Module {
    name: String,
    dialect: Dialect,
    schema_file: String,
    order: FieldOrder,
    code: String,
    /// The same module with `OwnedStrings::Compact` (owned strings as `CompactString`).
    compact_code: String,
    /// The same module with `Memory::Arena` (views' arrays in an arena).
    arena_code: String,
    /// Schema type name → generated Rust type name.
    names: Vec<(String, String)>,
    /// Extra cases: (root, message mode, bytes from the reference codec).
    bins: Vec<(String, bool, Vec<u8>)>,
}

fn extra_bins(a: &wirelens_core::Analysis, file: &str, order: FieldOrder) -> Vec<(String, bool, Vec<u8>)> {
    let codec = wirelens_core::codec::Codec::new(&a.schema, &a.layout);
    extra_values()
        .into_iter()
        .filter(|(f, ..)| *f == file)
        .map(|(_, root, message, value)| {
            let id = codec.root(root).expect("root");
            let mode = if message {
                wirelens_core::codec::Mode::Message
            } else {
                wirelens_core::codec::Mode::Byte
            };
            let bytes = codec
                .encode(id, &value, mode)
                .unwrap_or_else(|e| panic!("{file} {root} ({order:?}): {e}"));
            (root.to_string(), message, bytes)
        })
        .collect()
}

fn modules(vectors: &Path) -> Vec<Module> {
    let mut out = Vec::new();
    for (dialect, dir) in [(Dialect::Sdp, "sdp"), (Dialect::Ffi, "ffi")] {
        let mut files: Vec<(String, String, String)> = std::fs::read_dir(vectors.join(dir).join("schemas"))
            .expect("schemas dir")
            .map(|e| {
                let path = e.expect("entry").path();
                let stem = path.file_stem().and_then(|s| s.to_str()).expect("stem").to_string();
                let file = path.file_name().and_then(|s| s.to_str()).expect("name").to_string();
                (stem, file, std::fs::read_to_string(&path).expect("read schema"))
            })
            .collect();
        files.sort();
        let extra = if dialect == Dialect::Sdp { EXTRA_SDP } else { EXTRA_FFI };
        files.push(("extra".into(), format!("extra.{dir}"), extra.into()));
        for (stem, file, text) in files {
            let orders: &[(FieldOrder, &str)] = match dialect {
                Dialect::Sdp => &[(FieldOrder::Declaration, "")],
                Dialect::Ffi => &[(FieldOrder::Canonical, "_canon"), (FieldOrder::Declaration, "_decla")],
            };
            for &(order, suffix) in orders {
                let choice = OrderChoice {
                    order: Some(order),
                    overrides_directive: true,
                };
                let a = analyze(dialect, &text, None, choice);
                assert!(!a.has_errors(), "{file}: {:?}", a.diagnostics);
                let code = generate(&a.schema, &a.layout, &file).unwrap_or_else(|e| panic!("{file}: {e}"));
                let compact = RustOptions {
                    strings: OwnedStrings::Compact,
                    ..RustOptions::default()
                };
                let compact_code =
                    generate_with(&a.schema, &a.layout, &file, &compact).unwrap_or_else(|e| panic!("{file}: {e}"));
                let other = compact_code.replace("rt::CompactString", "");
                for std_string in [": String", "<String>", "(pub String)", "String::from"] {
                    assert!(!other.contains(std_string), "{file}: {std_string}");
                }
                let arena = RustOptions {
                    memory: Memory::Arena,
                    ..RustOptions::default()
                };
                let arena_code =
                    generate_with(&a.schema, &a.layout, &file, &arena).unwrap_or_else(|e| panic!("{file}: {e}"));
                let bins = extra_bins(&a, &file, order);
                assert!(code.starts_with(wirelens_generators::GENERATED_HEADER));
                let names = (0..a.schema.types.len())
                    .map(|id| (a.schema.types[id].name.clone(), type_name(&a.schema, &a.layout, id)))
                    .collect();
                out.push(Module {
                    name: format!("{dir}_{stem}{suffix}"),
                    dialect,
                    schema_file: file.clone(),
                    order,
                    code,
                    compact_code,
                    arena_code,
                    names,
                    bins,
                });
            }
        }
    }
    out
}

struct Case {
    name: String,
    module: String,
    ty: String,
    message: bool,
    bin: PathBuf,
}

fn cases(vectors: &Path, modules: &[Module], scratch: &Path) -> Vec<Case> {
    let mut out = Vec::new();
    for m in modules {
        for (i, (root, message, bytes)) in m.bins.iter().enumerate() {
            let bin = scratch.join(format!("{}_{i}.bin", m.name));
            std::fs::write(&bin, bytes).expect("write extra case");
            let ty = m
                .names
                .iter()
                .find(|(n, _)| n == root)
                .map(|(_, r)| r.clone())
                .expect("root type");
            out.push(Case {
                name: format!("{}/{i}-{root}", m.name),
                module: m.name.clone(),
                ty,
                message: *message,
                bin,
            });
        }
    }
    for dir in ["sdp", "ffi"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(vectors.join(dir).join("cases"))
            .expect("cases dir")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        for path in files {
            let json: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&path).expect("read case")).expect("case json");
            let schema = json["schema"].as_str().expect("schema");
            let root = json["root"].as_str().expect("root");
            let order = match json["order"].as_str() {
                Some("declaration") => FieldOrder::Declaration,
                _ if dir == "ffi" => FieldOrder::Canonical,
                _ => FieldOrder::Declaration,
            };
            let module = modules
                .iter()
                .find(|m| m.schema_file == schema && (m.dialect == Dialect::Sdp || m.order == order))
                .unwrap_or_else(|| panic!("{}: no module for {schema}", path.display()));
            let ty = module
                .names
                .iter()
                .find(|(n, _)| n == root)
                .map(|(_, r)| r.clone())
                .unwrap_or_else(|| panic!("{}: no type {root}", path.display()));
            out.push(Case {
                name: format!("{dir}/{}", path.file_stem().and_then(|s| s.to_str()).expect("stem")),
                module: module.name.clone(),
                ty,
                message: json["mode"].as_str() == Some("message"),
                bin: path.with_extension("bin"),
            });
        }
    }
    out
}

const DRIVER_PRELUDE: &str = r#"
use std::process::ExitCode;

/// Byte-mode case: back-to-back records of one type.
macro_rules! byte_case {
    ($ty:ty, $bytes:expr) => {{
        let bytes: &[u8] = $bytes;
        let mut out = Vec::new();
        let mut at = 0;
        let mut records = 0;
        // Every record decoded into this one value (decode_into, reusing its storage).
        let mut reused = <$ty>::default();
        while at < bytes.len() {
            let rest = &bytes[at..];
            let (value, used) = <$ty>::decode_prefix(rest).map_err(|e| format!("decode_prefix at {at}: {e}"))?;
            if used == 0 {
                return Err("a record used no bytes".into());
            }
            if reused.decode_prefix_into(rest).map_err(|e| format!("decode_prefix_into at {at}: {e}"))? != used
                || reused != value
            {
                return Err("decode_prefix_into a reused value differs from decode_prefix".into());
            }
            let record = &rest[..used];
            if value.encoded_size() != used {
                return Err(format!("encoded_size {} but the record has {used} bytes", value.encoded_size()));
            }
            value.encode(&mut out).map_err(|e| format!("encode: {e}"))?;
            let mut buf = vec![0u8; used + 3];
            let n = value.encode_into(&mut buf).map_err(|e| format!("encode_into: {e}"))?;
            if &buf[..n] != record {
                return Err("encode_into wrote different bytes".into());
            }
            if value.encode_into(&mut buf[..used - 1]).is_ok() {
                return Err("encode_into accepted a too-small buffer".into());
            }
            if value.to_bytes().map_err(|e| e.to_string())? != record {
                return Err("to_bytes differs".into());
            }
            let (view, vused) = <$ty>::decode_view_prefix(rest).map_err(|e| format!("decode_view_prefix: {e}"))?;
            if vused != used || view.to_owned_value() != value {
                return Err("the view decoder disagrees with the owned decoder".into());
            }
            if <$ty>::decode(record).map_err(|e| format!("decode: {e}"))? != value {
                return Err("decode differs from decode_prefix".into());
            }
            <$ty>::decode_view(record).map_err(|e| format!("decode_view: {e}"))?;
            if records == 0 {
                for k in 0..used.min(256) {
                    if <$ty>::decode(&record[..k]).is_ok() || <$ty>::decode_view(&record[..k]).is_ok() {
                        return Err(format!("decode accepted a truncation to {k} bytes"));
                    }
                    // Into a value that holds the whole record: the same error as decode.
                    let mut into = value.clone();
                    let fresh = <$ty>::decode(&record[..k]).err();
                    if into.decode_into(&record[..k]).err() != fresh {
                        return Err(format!("decode_into a truncation to {k} bytes differs from decode"));
                    }
                }
                // Hostile bytes: each of the first 256 flipped three ways; decode_into a value
                // holding the record must agree with decode (compared by their encodings: a
                // flip can make a float NaN).
                for k in 0..used.min(256) {
                    for b in [0x00, 0xff, record[k] ^ 0x80] {
                        let mut bad = record.to_vec();
                        bad[k] = b;
                        let fresh = <$ty>::decode(&bad);
                        let mut into = value.clone();
                        let got = into.decode_into(&bad);
                        match (fresh, got) {
                            (Ok(f), Ok(())) if f.to_bytes().ok() == into.to_bytes().ok() => {}
                            (Err(f), Err(g)) if f == g => {}
                            _ => return Err(format!("decode_into disagrees with decode on byte {k} = {b:#04x}")),
                        }
                    }
                }
                let mut longer = record.to_vec();
                longer.push(0);
                if <$ty>::decode(&longer).is_ok() || <$ty>::decode_view(&longer).is_ok() {
                    return Err("decode accepted a trailing byte".into());
                }
            }
            at += used;
            records += 1;
        }
        if out != bytes {
            return Err("re-encoding gave different bytes".into());
        }
        Ok::<usize, String>(records)
    }};
}

/// Message-mode case: one SDP message, through the type's message API and the dispatcher.
macro_rules! message_case {
    ($ty:ty, $any:ty, $bytes:expr) => {{
        let bytes: &[u8] = $bytes;
        let value = <$ty>::decode_message(bytes).map_err(|e| format!("decode_message: {e}"))?;
        let mut out = Vec::new();
        value.encode_message(&mut out).map_err(|e| format!("encode_message: {e}"))?;
        if out != bytes {
            return Err("encode_message gave different bytes".into());
        }
        if value.encoded_size() + 10 != bytes.len() {
            return Err("encoded_size + header differs from the message length".into());
        }
        let view = <$ty>::decode_message_view(bytes).map_err(|e| format!("decode_message_view: {e}"))?;
        if view.to_owned_value() != value {
            return Err("the view decoder disagrees".into());
        }
        let mut reused = <$ty>::default();
        reused.decode_message_into(bytes).map_err(|e| format!("decode_message_into: {e}"))?;
        if reused != value || reused.decode_message_into(&bytes[..bytes.len() - 1]).is_ok() {
            return Err("decode_message_into a reused value".into());
        }
        let any = <$any>::decode(bytes).map_err(|e| format!("AnyMessage::decode: {e}"))?;
        if any.message_id() != <$ty>::MESSAGE_ID {
            return Err(format!("dispatcher picked type id {}", any.message_id()));
        }
        let mut again = Vec::new();
        any.encode(&mut again).map_err(|e| e.to_string())?;
        if again != bytes {
            return Err("AnyMessage::encode gave different bytes".into());
        }
        for k in 0..bytes.len().min(256) {
            if <$ty>::decode_message(&bytes[..k]).is_ok() || <$any>::decode(&bytes[..k]).is_ok() {
                return Err(format!("decode accepted a truncation to {k} bytes"));
            }
        }
        let mut longer = bytes.to_vec();
        longer.push(0);
        if <$ty>::decode_message(&longer).is_ok() || <$any>::decode(&longer).is_ok() {
            return Err("decode accepted a trailing byte".into());
        }
        Ok::<usize, String>(1)
    }};
}
"#;

const ARENA_PRELUDE: &str = r#"
/// Byte-mode case through the views generated with `memory = "arena"` (`$ty`): every record
/// decoded into one arena, reset before each record and reused, against the owned decoder;
/// the first record's truncations fail with the same error (offset, kind, path) as the
/// `Vec` views of the default code (`$std`).
macro_rules! arena_case {
    ($std:ty, $ty:ty, $bytes:expr) => {{
        let bytes: &[u8] = $bytes;
        let mut arena = wirelens_runtime::Arena::new();
        let mut at = 0;
        let mut records = 0;
        while at < bytes.len() {
            let rest = &bytes[at..];
            let (value, used) = <$ty>::decode_prefix(rest).map_err(|e| format!("decode_prefix at {at}: {e}"))?;
            arena.reset();
            let (view, vused) =
                <$ty>::decode_view_prefix_in(rest, &arena).map_err(|e| format!("decode_view_prefix_in at {at}: {e}"))?;
            if vused != used || view.to_owned_value() != value {
                return Err("the arena view disagrees with the owned decoder".into());
            }
            let record = &rest[..used];
            let again = <$ty>::decode_view_in(record, &arena).map_err(|e| format!("decode_view_in: {e}"))?;
            if again != view {
                return Err("a second decode into the same arena differs".into());
            }
            if <$ty>::VIEW_IN_ARENA {
                match <$ty>::decode_view(record) {
                    Err(e) if e.kind == wirelens_runtime::DecodeErrorKind::NoArena => {}
                    other => return Err(format!("decode_view without an arena: {:?}", other.map(|_| ()))),
                }
            }
            if records == 0 {
                for k in 0..used.min(256) {
                    let want = <$std>::decode_view(&record[..k]).err().ok_or("the Vec view accepted a truncation")?;
                    let got = <$ty>::decode_view_in(&record[..k], &arena)
                        .err()
                        .ok_or_else(|| format!("the arena view accepted a truncation to {k} bytes"))?;
                    if got != want {
                        return Err(format!("truncation to {k}: arena view error {got:?}, Vec view error {want:?}"));
                    }
                }
                let mut longer = record.to_vec();
                longer.push(0);
                if <$ty>::decode_view_in(&longer, &arena).is_ok() {
                    return Err("decode_view_in accepted a trailing byte".into());
                }
            }
            at += used;
            records += 1;
        }
        Ok::<usize, String>(records)
    }};
}

/// Message-mode case through the arena views.
macro_rules! arena_message_case {
    ($ty:ty, $bytes:expr) => {{
        let bytes: &[u8] = $bytes;
        let value = <$ty>::decode_message(bytes).map_err(|e| format!("decode_message: {e}"))?;
        let arena = wirelens_runtime::Arena::new();
        let view = <$ty>::decode_message_view_in(bytes, &arena).map_err(|e| format!("decode_message_view_in: {e}"))?;
        if view.to_owned_value() != value {
            return Err("the arena view decoder disagrees".into());
        }
        for k in 0..bytes.len().min(256) {
            if <$ty>::decode_message_view_in(&bytes[..k], &arena).is_ok() {
                return Err(format!("decode_message_view_in accepted a truncation to {k} bytes"));
            }
        }
        Ok::<usize, String>(1)
    }};
}

/// Hostile input and budgets through the arena views (`memory = "arena"`).
fn arena_checks() -> Result<(), String> {
    use emitted_arena::sdp_extra::Holder;
    use wirelens_runtime::{Arena, DecodeErrorKind as K};
    let mut arena = Arena::new();
    // Invalid UTF-8 in the second string of an array: the same error and path as the Vec view.
    let list = emitted_arena::ffi_array_string_canon::StringListMessage(vec!["ab".into(), "cd".into()]);
    let mut bytes = list.to_bytes().map_err(|e| e.to_string())?;
    let last = bytes.len() - 1;
    bytes[last] = 0xff;
    let e = emitted_arena::ffi_array_string_canon::StringListMessage::decode_view_in(&bytes, &arena)
        .err()
        .ok_or("the arena view accepted bad UTF-8")?;
    let want = emitted::ffi_array_string_canon::StringListMessage::decode_view(&bytes).err().ok_or("Vec view")?;
    if e.kind != K::InvalidUtf8 || e.offset != last || e.path() != "[1]" || e != want {
        return Err(format!("bad UTF-8 in an arena view: {e:?} {}", e.path()));
    }
    // The budget counts what the arena gives the arrays: 1,000,000 absent optionals.
    let big = Holder { maybe: vec![None; 1_000_000], ..Default::default() };
    let bytes = big.to_bytes().map_err(|e| e.to_string())?;
    arena.reset();
    let e = Holder::decode_view_in_with_budget(&bytes, &arena, 1 << 20).err().ok_or("over the budget accepted")?;
    if !matches!(e.kind, K::OverBudget { left: 1_048_576, .. }) || e.path() != "maybe" {
        return Err(format!("arena view over the budget: {e:?} {}", e.path()));
    }
    let view = Holder::decode_view_in_with_budget(&bytes, &arena, 64 << 20).map_err(|e| e.to_string())?;
    if view.maybe.len() != 1_000_000 || view.to_owned_value() != big {
        return Err("arena view within the budget".into());
    }
    let mut msg = Vec::new();
    big.encode_message(&mut msg).map_err(|e| e.to_string())?;
    let e = Holder::decode_message_view_in_with_budget(&msg, &arena, 1 << 20).err().ok_or("message over the budget")?;
    if !matches!(e.kind, K::OverBudget { .. }) || e.path() != "maybe" {
        return Err(format!("arena message view over the budget: {e:?}"));
    }
    // Without an arena the arena views are refused, whatever the input (here: no arrays at all).
    let empty = Holder::default().to_bytes().map_err(|e| e.to_string())?;
    for e in [Holder::decode_view(&empty).err(), Holder::decode_view_prefix(&empty).err(), Holder::decode_view_with_budget(&empty, 1 << 20).err()] {
        if e.map(|e| e.kind) != Some(K::NoArena) {
            return Err("an arena view was decoded without an arena".into());
        }
    }
    let mut msg = Vec::new();
    Holder::default().encode_message(&mut msg).map_err(|e| e.to_string())?;
    if Holder::decode_message_view(&msg).err().map(|e| e.kind) != Some(K::NoArena) {
        return Err("an arena message view was decoded without an arena".into());
    }
    // A reader with an arena decodes a view by hand too.
    let mut rd = wirelens_runtime::Reader::new(&empty).with_arena(&arena);
    let v = <emitted_arena::sdp_extra::HolderView<'_> as wirelens_runtime::Decode<'_>>::read_from(&mut rd).map_err(|e| e.to_string())?;
    rd.finish().map_err(|e| e.to_string())?;
    if v.to_owned_value() != Holder::default() {
        return Err("Reader::with_arena".into());
    }
    Ok(())
}
"#;

const SPECIAL_CHECKS: &str = r##"
/// Limits and hostile input (spec §4.2, §4.3), on a few generated types.
fn special_checks() -> Result<(), String> {
    use emitted::ffi_array_int_canon::IntListMessage;
    use emitted::ffi_array_string_canon::StringListMessage;
    use emitted::sdp_arrays::{AnyMessage, ArraysOfPrimitives, Item};
    use emitted::sdp_optional::Request;
    use wirelens_runtime::{DecodeErrorKind as K, Dispatch, EncodeErrorKind, SdpMessage};

    // ffire: 65,535 is the limit for strings and arrays; encoders refuse more.
    let mut out = vec![7u8];
    let long = StringListMessage(vec!["x".repeat(65_536)]);
    match long.encode(&mut out) {
        Err(e) if e.kind == (EncodeErrorKind::TooLong { len: 65_536, max: 65_535 }) => {}
        other => return Err(format!("a 65,536-byte ffire string: {other:?}")),
    }
    if out != [7] {
        return Err("a failed encode left bytes in the buffer".into());
    }
    StringListMessage(vec!["x".repeat(65_535)]).to_bytes().map_err(|e| e.to_string())?;
    if IntListMessage(vec![0; 65_536]).to_bytes().is_ok() {
        return Err("a 65,536-element ffire array was encoded".into());
    }
    let ok = IntListMessage(vec![0; 65_535]);
    let mut buf = vec![0u8; ok.encoded_size()];
    if ok.encode_into(&mut buf).map_err(|e| e.to_string())? != 2 + 4 * 65_535 {
        return Err("encode_into size".into());
    }
    if IntListMessage(vec![0; 65_536]).encode_into(&mut vec![0u8; 1 << 20]).is_ok() {
        return Err("encode_into wrote a 65,536-element ffire array".into());
    }

    // Issue 17: a legal message of 1,000,000 absent optionals (1 byte each on the wire)
    // asks for `size_of::<Option<Inner>>()` per byte; a memory budget refuses it before
    // allocating, owned and view, and decodes it when the budget allows.
    {
        use emitted::sdp_extra::Holder;
        let big = Holder { maybe: vec![None; 1_000_000], ..Default::default() };
        let bytes = big.to_bytes().map_err(|e| e.to_string())?;
        let e = Holder::decode_with_budget(&bytes, 1 << 20).err().ok_or("over the budget accepted")?;
        if !matches!(e.kind, K::OverBudget { left: 1_048_576, .. }) || e.path() != "maybe" {
            return Err(format!("owned decode over the budget: {e:?} {}", e.path()));
        }
        let e = Holder::decode_view_with_budget(&bytes, 1 << 20).err().ok_or("view over the budget accepted")?;
        if !matches!(e.kind, K::OverBudget { .. }) || e.path() != "maybe" {
            return Err(format!("view decode over the budget: {e:?}"));
        }
        if Holder::decode_with_budget(&bytes, 64 << 20).map_err(|e| e.to_string())? != big {
            return Err("decode within the budget".into());
        }
        let view = Holder::decode_view_with_budget(&bytes, 64 << 20).map_err(|e| e.to_string())?;
        if view.maybe.len() != 1_000_000 {
            return Err("view decode within the budget".into());
        }
        // The same budget through the SDP message decoders and the schema's dispatcher.
        let mut msg = Vec::new();
        big.encode_message(&mut msg).map_err(|e| e.to_string())?;
        let e = Holder::decode_message_with_budget(&msg, 1 << 20).err().ok_or("message over the budget accepted")?;
        if !matches!(e.kind, K::OverBudget { left: 1_048_576, .. }) || e.path() != "maybe" {
            return Err(format!("message decode over the budget: {e:?} {}", e.path()));
        }
        let e = Holder::decode_message_view_with_budget(&msg, 1 << 20).err().ok_or("message view over the budget")?;
        if !matches!(e.kind, K::OverBudget { .. }) {
            return Err(format!("message view decode over the budget: {e:?}"));
        }
        let e = emitted::sdp_extra::AnyMessage::decode_with_budget(&msg, 1 << 20)
            .err()
            .ok_or("dispatcher over the budget accepted")?;
        if !matches!(e.kind, K::OverBudget { .. }) || e.path() != "maybe" {
            return Err(format!("dispatcher decode over the budget: {e:?} {}", e.path()));
        }
        match emitted::sdp_extra::AnyMessage::decode_prefix_with_budget(&msg, 64 << 20) {
            Ok((emitted::sdp_extra::AnyMessage::Holder(h), used)) if h == big && used == msg.len() => {}
            other => return Err(format!("dispatcher decode within the budget: {:?}", other.map(|(_, n)| n))),
        }
        if Holder::decode_message_with_budget(&msg, 64 << 20).map_err(|e| e.to_string())? != big {
            return Err("message decode within the budget".into());
        }
        // Strings are charged too: 3 bytes of budget cannot hold "abcd".
        let item = Item { id: 1, name: "abcd".into() }.to_bytes().map_err(|e| e.to_string())?;
        if !matches!(Item::decode_with_budget(&item, 3).map_err(|e| e.kind), Err(K::OverBudget { needed: 4, left: 3 })) {
            return Err("a string over the budget".into());
        }
    }

    // A count the input cannot justify.
    let e = ArraysOfPrimitives::decode(&[0xff, 0xff, 0xff, 0xff]).err().ok_or("huge count accepted")?;
    if !matches!(e.kind, K::ImplausibleCount { count: 4294967295, .. }) || e.offset != 0 || e.path() != "u8_array" {
        return Err(format!("huge count: {e:?}"));
    }
    // bool bytes other than 0/1.
    let v = ArraysOfPrimitives { bool_array: vec![true], ..Default::default() };
    let mut bytes = v.to_bytes().map_err(|e| e.to_string())?;
    let last = bytes.len() - 1;
    bytes[last] = 2;
    let e = ArraysOfPrimitives::decode(&bytes).err().ok_or("bool 2 accepted")?;
    if e.kind != K::InvalidBool(2) || e.offset != last || e.path() != "bool_array[0]" {
        return Err(format!("bad bool: {e:?} {}", e.path()));
    }
    if ArraysOfPrimitives::decode_view(&bytes).is_ok() {
        return Err("the view accepted bool 2".into());
    }
    // Invalid UTF-8.
    let mut bytes = Item { id: 1, name: "ab".into() }.to_bytes().map_err(|e| e.to_string())?;
    bytes[9] = 0xff;
    let e = Item::decode(&bytes).err().ok_or("bad UTF-8 accepted")?;
    if e.kind != K::InvalidUtf8 || e.offset != 9 || e.path() != "name" {
        return Err(format!("bad UTF-8: {e:?}"));
    }
    // Presence bytes other than 0/1.
    let mut bytes = Request { id: 1, metadata: None }.to_bytes().map_err(|e| e.to_string())?;
    bytes[4] = 2;
    let e = Request::decode(&bytes).err().ok_or("presence 2 accepted")?;
    if e.kind != K::InvalidPresence(2) || e.offset != 4 || e.path() != "metadata" {
        return Err(format!("bad presence: {e:?}"));
    }
    // Message headers: magic, version, type id, length.
    let mut msg = Vec::new();
    Item { id: 5, name: "five".into() }.encode_message(&mut msg).map_err(|e| e.to_string())?;
    let bad = |at: usize, byte: u8| {
        let mut m = msg.clone();
        m[at] = byte;
        (Item::decode_message(&m).err(), AnyMessage::decode(&m).err())
    };
    for (at, byte, kind) in [
        (0, b'X', K::BadMagic),
        (3, b'1', K::BadVersion(b'1')),
        (4, 99, K::WrongTypeId { found: 99, expected: 2 }),
    ] {
        let (a, b) = bad(at, byte);
        let a = a.ok_or("a bad header was accepted")?;
        let b = b.ok_or("a bad header was accepted by AnyMessage")?;
        if a.kind != kind || (kind != (K::WrongTypeId { found: 99, expected: 2 }) && b.kind != kind) {
            return Err(format!("bad header byte {at}: {a:?} / {b:?}"));
        }
    }
    let (a, b) = bad(6, msg[6] + 1);
    if a.is_none() || b.is_none() {
        return Err("a too-long payload length was accepted".into());
    }
    let (a, b) = bad(6, msg[6] - 1);
    if a.is_none() || b.is_none() {
        return Err("a too-short payload length was accepted".into());
    }
    Ok(())
}
"##;

/// A binary crate that includes one generated module privately and uses only part of it,
/// through generic code over `Message`: the unused types, views and methods must not fail
/// `clippy -D warnings` (dead_code).
const PARTIAL_BIN: &str = r#"//! Uses `Parameter` and `Plugin` of the AudioUnit schema, not `PluginRegistry`.
#[path = "../emitted/sdp_audiounit.rs"]
mod audiounit;

use wirelens_runtime::{Message, SdpMessage};

/// Generic over every generated type.
fn send<M: Message>(m: &M, wire: &mut Vec<u8>) -> usize {
    let before = wire.len();
    m.encode(wire).expect("encodes");
    wire.len() - before
}

fn main() {
    let p = audiounit::Parameter { display_name: "Mix".into(), ..Default::default() };
    let mut wire = Vec::new();
    let a = send(&p, &mut wire);
    let b = send(&audiounit::Plugin::default(), &mut Vec::new());
    assert_eq!(audiounit::Parameter::decode(&wire).expect("decodes"), p);
    let mut msg = Vec::new();
    p.encode_message(&mut msg).expect("encodes");
    assert_eq!(audiounit::Parameter::decode_message(&msg).expect("decodes"), p);
    println!("partial ok: 2 types of 3 used, {a} + {b} bytes");
}
"#;

fn driver(cases: &[Case]) -> String {
    let mut s = String::from(DRIVER_PRELUDE);
    s.push_str(ARENA_PRELUDE);
    s.push_str(SPECIAL_CHECKS);
    s.push_str("\nfn main() -> ExitCode {\n    let mut passed = 0;\n    let mut failed = 0;\n");
    s.push_str(
        "    match special_checks() {\n        Ok(()) => { passed += 1; println!(\"ok special/limits-and-hostile-input\"); }\n        Err(e) => { failed += 1; println!(\"FAIL special/limits-and-hostile-input: {e}\"); }\n    }\n",
    );
    s.push_str(
        "    match arena_checks() {\n        Ok(()) => { passed += 1; println!(\"ok special/arena-hostile-input\"); }\n        Err(e) => { failed += 1; println!(\"FAIL special/arena-hostile-input: {e}\"); }\n    }\n",
    );
    for (c, root, prefix) in cases
        .iter()
        .map(|c| (c, "emitted", ""))
        .chain(cases.iter().map(|c| (c, "emitted_compact", "compact:")))
        .chain(cases.iter().map(|c| (c, "emitted_arena", "arena:")))
    {
        let bin = c.bin.display();
        let body = if root == "emitted_arena" && c.message {
            format!(
                "arena_message_case!({root}::{m}::{t}, include_bytes!({bin:?}))",
                m = c.module,
                t = c.ty
            )
        } else if root == "emitted_arena" {
            format!(
                "arena_case!(emitted::{m}::{t}, {root}::{m}::{t}, include_bytes!({bin:?}))",
                m = c.module,
                t = c.ty
            )
        } else if c.message {
            format!(
                "message_case!({root}::{m}::{t}, {root}::{m}::AnyMessage, include_bytes!({bin:?}))",
                m = c.module,
                t = c.ty
            )
        } else {
            format!(
                "byte_case!({root}::{m}::{t}, include_bytes!({bin:?}))",
                m = c.module,
                t = c.ty
            )
        };
        let _ = writeln!(
            s,
            "    let result = (|| -> Result<usize, String> {{ {body} }})();\n    match result {{\n        Ok(n) => {{ passed += 1; println!(\"ok {name} ({{n}} record(s))\"); }}\n        Err(e) => {{ failed += 1; println!(\"FAIL {name}: {{e}}\"); }}\n    }}",
            name = format!("{prefix}{}", c.name)
        );
    }
    s.push_str(
        "    println!(\"passed {passed} failed {failed}\");\n    if failed == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE }\n}\n",
    );
    s
}

#[test]
fn generated_rust_round_trips_every_golden_case() {
    let root = workspace();
    let vectors = root.join("tests/vectors");
    let modules = modules(&vectors);
    // Removed with its contents when `tmp` drops (also when the test fails).
    let tmp = tempfile::Builder::new()
        .prefix("wirelens-emit-rust-")
        .tempdir()
        .expect("temp dir");
    let dir = tmp.path().to_path_buf();
    let src = dir.join("src");
    let emitted = src.join("emitted");
    std::fs::create_dir_all(&emitted).expect("mkdir");
    let cases = cases(&vectors, &modules, &dir);
    let golden = cases.iter().filter(|c| !c.name.contains("extra")).count();
    assert_eq!(golden, 41, "golden cases found");
    let runtime = root.join("runtime/rust");
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"emit-rust-check\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
             [dependencies]\nwirelens-runtime = {{ path = {:?}, features = [\"compact-strings\", \"arena\"] }}\n\n[workspace]\n",
            runtime.display().to_string()
        ),
    )
    .expect("write Cargo.toml");
    // A `no_std` library (with `alloc`): generated code must not need std.
    let mut lib = String::from(
        "#![no_std]\nextern crate alloc;\npub mod emitted;\npub mod emitted_compact;\npub mod emitted_arena;\n",
    );
    let mut emitted_mod = String::new();
    let compact_dir = src.join("emitted_compact");
    std::fs::create_dir_all(&compact_dir).expect("mkdir");
    let arena_dir = src.join("emitted_arena");
    std::fs::create_dir_all(&arena_dir).expect("mkdir");
    for m in &modules {
        std::fs::write(arena_dir.join(format!("{}.rs", m.name)), &m.arena_code).expect("write module");
        std::fs::write(emitted.join(format!("{}.rs", m.name)), &m.code).expect("write module");
        std::fs::write(compact_dir.join(format!("{}.rs", m.name)), &m.compact_code).expect("write module");
        let _ = writeln!(emitted_mod, "pub mod {};", m.name);
    }
    std::fs::write(src.join("emitted_compact.rs"), &emitted_mod).expect("write emitted_compact.rs");
    std::fs::write(src.join("emitted_arena.rs"), &emitted_mod).expect("write emitted_arena.rs");
    lib.push('\n');
    std::fs::write(src.join("lib.rs"), lib).expect("write lib.rs");
    std::fs::write(src.join("emitted.rs"), emitted_mod).expect("write emitted.rs");
    std::fs::write(
        src.join("main.rs"),
        format!(
            "use emit_rust_check::{{emitted, emitted_arena, emitted_compact}};\nuse wirelens_runtime::{{Dispatch, Message, SdpMessage}};\n{}",
            driver(&cases)
        ),
    )
    .expect("write main.rs");
    std::fs::create_dir_all(src.join("bin")).expect("mkdir bin");
    std::fs::write(src.join("bin/partial.rs"), PARTIAL_BIN).expect("write partial.rs");

    let target = root.join("target/emit-rust");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let cargo_cmd = |args: &[&str]| {
        let mut c = Command::new(&cargo);
        c.args(args)
            .current_dir(&dir)
            .env("CARGO_TARGET_DIR", &target)
            .env_remove("RUSTFLAGS")
            .env_remove("CARGO_ENCODED_RUSTFLAGS");
        c
    };
    run(
        &mut cargo_cmd(&["build", "--quiet", "--offline"]),
        "cargo build (generated crate)",
    );
    let stdout = run(
        &mut cargo_cmd(&["run", "--quiet", "--offline", "--bin", "emit-rust-check"]),
        "the driver (generated crate)",
    );
    print!("{stdout}");
    // Every case with both string types and through the arena views, plus the
    // limits-and-hostile-input checks (default and arena code).
    let ok = stdout.lines().filter(|l| l.starts_with("ok ")).count();
    assert_eq!(ok, 3 * cases.len() + 2, "{stdout}");
    assert!(
        stdout.contains(&format!("passed {} failed 0", 3 * cases.len() + 2)),
        "{stdout}"
    );
    let partial = run(
        &mut cargo_cmd(&["run", "--quiet", "--offline", "--bin", "partial"]),
        "the partial binary (generated crate)",
    );
    assert_eq!(
        partial.trim(),
        "partial ok: 2 types of 3 used, 45 + 20 bytes",
        "{partial}"
    );
    run(
        &mut cargo_cmd(&[
            "clippy",
            "--quiet",
            "--offline",
            "--lib",
            "--bin",
            "partial",
            "--",
            "-D",
            "warnings",
        ]),
        "cargo clippy -D warnings (generated crate: the no_std library, a binary using part of a schema)",
    );
    if std::env::var_os("WIRELENS_KEEP_EMIT").is_some() {
        eprintln!("kept {}", tmp.keep().display());
    }
}
