//! The bodies of the fuzz targets (`fuzz_targets/*.rs` are one-line wrappers), so the
//! same code also runs as a plain stable `cargo test` (see `tests` below) over the seeds
//! and a few thousand pseudo-random inputs.
//!
//! - [`analyze`]: arbitrary text through parse, check, layout and the formatter.
//! - [`incremental`]: random edit sequences; every incremental reanalysis (the language
//!   server's `apply_edit` + `Tree::edit` + layout reuse) must analyse exactly like a
//!   fresh parse of the same text.
//! - [`decode`]: hostile bytes into the CLI's codec (`wirelens_core::codec`), every golden schema.
//! - [`rust_decode`]: hostile bytes into the generated Rust decoders of every golden schema.

use std::sync::OnceLock;

use wirelens_core::analysis::analyze_reusing;
use wirelens_core::codec::{Codec, Mode};
use wirelens_core::layout::Layout;
use wirelens_core::model::Schema;
use wirelens_core::syntax::apply_edit;
use wirelens_core::{analyze as analyze_text, Analysis, Dialect, FieldOrder, OrderChoice, SourceFile};

/// Every golden schema: (dialect, file name, text).
pub mod schemas {
    include!(concat!(env!("OUT_DIR"), "/schemas.rs"));
}

/// One generated decoder under test.
pub struct Target {
    pub name: &'static str,
    pub run: fn(&[u8]),
}

/// Byte mode: `decode`, `decode_view`, `decode_prefix` and `decode_view_prefix` must agree
/// with each other, and whatever decodes must encode back to the very same bytes (through
/// `to_bytes`, `encode_into` and the view's `to_owned_value`).
macro_rules! byte_mode {
    ($ty:ty, $b:expr) => {{
        let b: &[u8] = $b;
        let owned = <$ty>::decode(b);
        let view = <$ty>::decode_view(b);
        match (&owned, &view) {
            (Ok(v), Ok(w)) => {
                assert!(
                    v.to_bytes().expect("a decoded value encodes") == b,
                    "re-encoding differs"
                );
                assert_eq!(v.encoded_size(), b.len(), "encoded_size");
                let again = w.to_owned_value().to_bytes().expect("a viewed value encodes");
                assert!(again == b, "the view decodes to something else");
                let mut buf = vec![0u8; b.len()];
                assert_eq!(v.encode_into(&mut buf).expect("encode_into"), b.len());
                assert!(buf == b, "encode_into differs");
            }
            (Err(e), Err(f)) => assert_eq!(e.to_string(), f.to_string(), "decode and decode_view fail differently"),
            _ => panic!(
                "decode and decode_view disagree: {:?} / {:?}",
                owned.as_ref().err(),
                view.as_ref().err()
            ),
        }
        match (<$ty>::decode_prefix(b), <$ty>::decode_view_prefix(b)) {
            (Ok((v, used)), Ok((w, wused))) => {
                assert_eq!(
                    used, wused,
                    "decode_prefix and decode_view_prefix use different lengths"
                );
                assert!(used <= b.len());
                assert_eq!(owned.is_ok(), used == b.len(), "decode vs decode_prefix");
                assert!(
                    v.to_bytes().expect("encodes") == &b[..used],
                    "prefix re-encoding differs"
                );
                let again = w.to_owned_value().to_bytes().expect("encodes");
                assert!(again == &b[..used], "prefix view differs");
            }
            (Err(_), Err(_)) => assert!(owned.is_err()),
            (p, q) => panic!(
                "decode_prefix and decode_view_prefix disagree: {:?} / {:?}",
                p.err(),
                q.err()
            ),
        }
    }};
}

/// SDP message mode: the typed message decoders and the `AnyMessage` dispatcher.
macro_rules! message_mode {
    ($ty:ty, $any:ty, $b:expr) => {{
        let b: &[u8] = $b;
        let owned = <$ty>::decode_message(b);
        let view = <$ty>::decode_message_view(b);
        assert_eq!(
            owned.is_ok(),
            view.is_ok(),
            "decode_message and decode_message_view disagree"
        );
        if let Ok(v) = &owned {
            let mut out = Vec::new();
            v.encode_message(&mut out).expect("a decoded message encodes");
            assert!(out == b, "message re-encoding differs");
            let mut again = Vec::new();
            view.as_ref()
                .expect("checked")
                .to_owned_value()
                .encode_message(&mut again)
                .expect("encodes");
            assert!(again == b, "the message view decodes to something else");
        }
        match <$ty>::decode_message_prefix(b) {
            Ok((v, used)) => {
                assert!(used <= b.len());
                assert_eq!(
                    owned.is_ok(),
                    used == b.len(),
                    "decode_message vs decode_message_prefix"
                );
                let mut out = Vec::new();
                v.encode_message(&mut out).expect("encodes");
                assert!(out == &b[..used], "message prefix re-encoding differs");
            }
            Err(_) => assert!(owned.is_err()),
        }
        match <$any>::decode(b) {
            Ok(m) => {
                let mut out = Vec::new();
                m.encode(&mut out).expect("a dispatched message encodes");
                assert!(out == b, "AnyMessage re-encoding differs");
            }
            Err(_) => assert!(owned.is_err(), "AnyMessage refuses what decode_message accepts"),
        }
    }};
}

/// The generated modules, `TARGETS` and `SEEDS` (see `build.rs`).
pub mod rust_targets {
    #[allow(unused_imports)] // the generated types' API: trait methods
    use wirelens_runtime::{Dispatch as _, Message as _, SdpMessage as _};
    use super::Target;
    include!(concat!(env!("OUT_DIR"), "/rust_targets.rs"));
}

/// The targets [`rust_decode`] picks from: all, or those whose name contains
/// `WIRELENS_FUZZ_ONLY` (e.g. `ffi_complex_canon.` or `message`) to focus a run.
pub fn rust_targets_selected() -> &'static [&'static Target] {
    static SELECTED: OnceLock<Vec<&'static Target>> = OnceLock::new();
    SELECTED.get_or_init(|| {
        let only = std::env::var("WIRELENS_FUZZ_ONLY").unwrap_or_default();
        let v: Vec<&Target> = rust_targets::TARGETS
            .iter()
            .filter(|t| t.name.contains(&only))
            .collect();
        assert!(!v.is_empty(), "WIRELENS_FUZZ_ONLY={only} matches no target");
        v
    })
}

/// Two bytes (little-endian) pick the decoder; the rest is its input.
pub fn rust_decode(data: &[u8]) {
    let [lo, hi, input @ ..] = data else { return };
    let targets = rust_targets_selected();
    let t = targets[u16::from_le_bytes([*lo, *hi]) as usize % targets.len()];
    (t.run)(input);
}

/// Seeds for [`rust_decode`]: every golden case with its decoder's index.
pub fn rust_decode_seeds() -> Vec<Vec<u8>> {
    rust_targets::SEEDS
        .iter()
        .map(|(i, bytes)| {
            let mut v = (*i as u16).to_le_bytes().to_vec();
            v.extend_from_slice(bytes);
            v
        })
        .collect()
}

/// Arbitrary text into the whole schema pipeline of both dialects: diagnostics are
/// fine, panics are not; formatting is idempotent.
pub fn analyze(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    for dialect in [Dialect::Sdp, Dialect::Ffi] {
        let a = analyze_text(dialect, text, None, OrderChoice::default());
        let _ = wirelens_core::report::layout_json(&a.schema, &a.layout, None);
        if let Ok(formatted) = wirelens_core::fmt::format(dialect, text) {
            assert_eq!(
                wirelens_core::fmt::format(dialect, &formatted).ok().as_deref(),
                Some(formatted.as_str()),
                "formatting is not idempotent"
            );
        }
    }
}

/// Each golden schema analysed once, in both field orders: (dialect, schema, layout).
fn analysed() -> &'static [(Dialect, FieldOrder, Schema, Layout)] {
    static ALL: OnceLock<Vec<(Dialect, FieldOrder, Schema, Layout)>> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut v = Vec::new();
        for &(dialect, _, text) in schemas::SCHEMAS {
            for order in [FieldOrder::Canonical, FieldOrder::Declaration] {
                let a = analyze_text(
                    dialect,
                    text,
                    None,
                    OrderChoice {
                        order: Some(order),
                        overrides_directive: true,
                    },
                );
                v.push((dialect, order, a.schema, a.layout));
            }
        }
        v
    })
}

/// Hostile bytes into the reference decoder. Byte 0 picks the schema and order, byte 1
/// the type, byte 2 the mode (SDP message mode when odd); the rest is the input. Errors
/// are fine; whatever decodes must encode back to the same bytes.
pub fn decode(data: &[u8]) {
    let [s, t, m, bytes @ ..] = data else { return };
    let all = analysed();
    let (dialect, _, schema, layout) = &all[*s as usize % all.len()];
    if schema.types.is_empty() {
        return;
    }
    let codec = Codec::new(schema, layout);
    let root = *t as usize % schema.types.len();
    let mode = if *dialect == Dialect::Sdp && m & 1 == 1 {
        Mode::Message
    } else {
        Mode::Byte
    };
    if let Ok(value) = codec.decode(root, bytes, mode) {
        let again = codec.encode(root, &value, mode).expect("a decoded value encodes");
        same_bytes(&codec, root, mode, &value, &again, bytes);
    }
    if let Ok(values) = codec.decode_all(root, bytes, mode) {
        let mut at = 0;
        for v in &values {
            let again = codec.encode(root, v, mode).expect("a decoded value encodes");
            let end = (at + again.len()).min(bytes.len());
            same_bytes(&codec, root, mode, v, &again, &bytes[at..end]);
            at += again.len();
        }
        assert!(at == bytes.len(), "decode_all: the records do not cover the input");
    }
    let _ = codec.annotate(root, bytes, mode, true);
}

/// A decoded value re-encodes to the bytes it came from — except NaN payloads, which
/// the JSON mapping cannot carry (every NaN is `"NaN"`): then the value must survive.
fn same_bytes(codec: &Codec, root: usize, mode: Mode, value: &serde_json::Value, again: &[u8], bytes: &[u8]) {
    if again == bytes {
        return;
    }
    assert!(
        again.len() == bytes.len() && value.to_string().contains("\"NaN\""),
        "re-encoding differs from the input: {value}"
    );
    let back = codec.decode(root, again, mode).expect("a re-encoded value decodes");
    assert!(
        &back == value,
        "the re-encoded value decodes differently: {value} / {back}"
    );
}

/// Seeds for [`decode`]: the golden cases (schema, order, root and mode bytes first).
pub fn decode_seeds() -> Vec<Vec<u8>> {
    // The Rust seeds name the same cases; map each back to its schema and type.
    let all = analysed();
    let mut out = Vec::new();
    for (i, bytes) in rust_targets::SEEDS {
        let name = rust_targets::TARGETS[*i].name; // `sdp_arrays.ArraysOfPrimitives message`
        let (module, rest) = name.split_once('.').expect("module.type");
        let (ty, message) = match rest.strip_suffix(" message") {
            Some(t) => (t, true),
            None => (rest, false),
        };
        let order = if module.ends_with("_canon") {
            FieldOrder::Canonical
        } else {
            FieldOrder::Declaration
        };
        let file_stem = module
            .trim_start_matches("sdp_")
            .trim_start_matches("ffi_")
            .trim_end_matches("_canon")
            .trim_end_matches("_decla");
        let dialect = if module.starts_with("sdp_") {
            Dialect::Sdp
        } else {
            Dialect::Ffi
        };
        let Some(s) = schemas::SCHEMAS
            .iter()
            .position(|(d, f, _)| *d == dialect && wirelens_generators::module_name(f) == file_stem)
        else {
            continue;
        };
        let s = s * 2 + usize::from(order == FieldOrder::Declaration);
        let Some(t) = all[s].2.type_id(ty) else { continue };
        let mut v = vec![s as u8, t as u8, u8::from(message)];
        v.extend_from_slice(bytes);
        out.push(v);
    }
    out
}

/// Text inserted by [`incremental`] edits: printable ASCII as is, other bytes become
/// tokens of either dialect or awkward characters.
const TOKENS: &[&str] = &[
    "struct ",
    "type ",
    "package p\n",
    "{",
    "}",
    "(",
    ")",
    ":",
    ",",
    "[]",
    "Option<",
    "Box<",
    ">",
    "*",
    "u8",
    "u32",
    "u64",
    "i16",
    "f32",
    "str",
    "bool",
    "int32",
    "int64",
    "float64",
    "string",
    "\n",
    "\r\n",
    "\t",
    "//",
    "///",
    "// x\n",
    "`json:\"n\"`",
    "`",
    "\"",
    "é",
    "𝄞",
    "\u{feff}",
    "A",
    "B",
    "Item",
    "x",
    " ",
    "\n}\n",
    "struct A { x: u8 }\n",
    "type T struct {\n\tX int32\n}\n",
    "//wirelens:order declaration\n",
];

fn render(bytes: &[u8]) -> String {
    let mut s = String::new();
    for &b in bytes {
        if (0x20..0x7f).contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(TOKENS[b as usize % TOKENS.len()]);
        }
    }
    s
}

/// What the user sees of an analysis: every diagnostic and the whole layout.
/// Everything a view can see of an analysis: diagnostics, layout and the whole model
/// (names, docs, every source range).
fn observable(a: &Analysis) -> (Vec<wirelens_core::Diagnostic>, String, Schema) {
    (
        a.diagnostics.clone(),
        wirelens_core::report::layout_json(&a.schema, &a.layout, None).to_string(),
        a.schema.clone(),
    )
}

/// Random edit sequences over a golden schema (or nothing), as the language server
/// applies them (edited tree, previous analysis reused where unchanged). After every
/// edit, the result must equal an analysis of the same incremental parse that reuses
/// nothing; and, whenever the text has no syntax errors, a fresh analysis (only error
/// recovery may depend on the edit history, see `syntax::parse`). Byte 0: dialect, order, starting text. Then per edit: u16 start, delete
/// length, insert length (high nibble 0xf: replace the whole text), the inserted bytes.
pub fn incremental(data: &[u8]) {
    let [head, tail @ ..] = data else { return };
    let mut rest: &[u8] = tail;
    let dialect = if head & 1 == 0 { Dialect::Sdp } else { Dialect::Ffi };
    let order = OrderChoice {
        order: Some(if head & 2 == 0 {
            FieldOrder::Canonical
        } else {
            FieldOrder::Declaration
        }),
        overrides_directive: head & 4 != 0,
    };
    let starts: Vec<&str> = schemas::SCHEMAS
        .iter()
        .filter(|s| s.0 == dialect)
        .map(|s| s.2)
        .chain([""])
        .collect();
    let text = starts[(head >> 3) as usize % starts.len()];
    let mut source = SourceFile::new("", text);
    let mut analysis = analyze_text(dialect, text, None, order);
    let mut steps = 0;
    while let &[a, b, del, ins, ref tail @ ..] = rest {
        if steps == 48 {
            break;
        }
        let n = (ins as usize & 0x0f).min(tail.len());
        let insert = render(&tail[..n]);
        rest = &tail[n..];
        let len = source.text.len();
        let start = u16::from_le_bytes([a, b]) as usize % (len + 1);
        let range = (ins & 0xf0 != 0xf0).then(|| start..start + (del as usize & 0x1f));
        // As the server's `Document::change`: the edited tree, and the previous analysis
        // whose unchanged declarations and layouts may be reused.
        let mut tree = analysis.tree.take();
        apply_edit(&mut source, range, &insert, tree.as_mut());
        let previous = std::mem::replace(&mut analysis, Analysis::placeholder(dialect));
        analysis = analyze_reusing(dialect, &source.text, tree.as_ref(), order, Some(previous));
        let same_parse = analyze_text(dialect, &source.text, tree.as_ref(), order);
        let (inc, plain) = (observable(&analysis), observable(&same_parse));
        if inc != plain {
            panic!(
                "reusing the previous analysis changed the result after {} edit(s)\ntext: {:?}\nreusing: {:#?}\nplain: {:#?}",
                steps + 1,
                source.text,
                inc.0,
                plain.0
            );
        }
        let fresh = analyze_text(dialect, &source.text, None, order);
        if !fresh.has_syntax_errors() {
            let full = observable(&fresh);
            if inc != full {
                panic!(
                    "incremental reparse differs from a fresh parse of error-free text after {} edit(s)\ntext: {:?}\nincremental: {:#?}\nfresh: {:#?}",
                    steps + 1,
                    source.text,
                    inc.0,
                    full.0
                );
            }
        }
        steps += 1;
    }
}

#[cfg(test)]
mod tests {
    //! The fuzz bodies on stable: seeds, then pseudo-random inputs (mutations of the seeds
    //! and plain noise). `WIRELENS_FUZZ_ITERS` sets how many (default 2,000 per target).

    use super::*;

    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            // xorshift64*
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n.max(1) as u64) as usize
        }
    }

    fn iters() -> usize {
        std::env::var("WIRELENS_FUZZ_ITERS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(2000)
    }

    fn mutate(rng: &mut Rng, seed: &[u8]) -> Vec<u8> {
        let mut v = seed.to_vec();
        for _ in 0..=rng.below(4) {
            match rng.below(5) {
                0 if !v.is_empty() => {
                    let i = rng.below(v.len());
                    v[i] = rng.next() as u8;
                }
                1 if !v.is_empty() => {
                    let i = rng.below(v.len());
                    v.truncate(i);
                }
                2 => {
                    let i = rng.below(v.len() + 1);
                    v.insert(i, rng.next() as u8);
                }
                3 if v.len() > 3 => {
                    // A large length or count somewhere.
                    let i = rng.below(v.len() - 3);
                    v[i..i + 4].copy_from_slice(&[0xff, 0xff, 0xff, 0x7f][..4]);
                }
                _ => v.extend((0..rng.below(8)).map(|_| rng.next() as u8)),
            }
        }
        v
    }

    /// The committed seeds of a target (`seeds/<target>/`, regressions included) and `extra`.
    fn with_committed(target: &str, mut extra: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("seeds")
            .join(target);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        files.sort();
        extra.extend(files.iter().map(|f| std::fs::read(f).unwrap()));
        extra
    }

    fn run(body: fn(&[u8]), seeds: &[Vec<u8>], salt: u64) {
        for s in seeds {
            body(s);
        }
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ salt);
        for i in 0..iters() {
            let input = if !seeds.is_empty() && i % 4 != 0 {
                let pick = rng.below(seeds.len());
                mutate(&mut rng, &seeds[pick])
            } else {
                (0..rng.below(64)).map(|_| rng.next() as u8).collect()
            };
            body(&input);
        }
    }

    fn schema_texts() -> Vec<Vec<u8>> {
        schemas::SCHEMAS.iter().map(|s| s.2.as_bytes().to_vec()).collect()
    }

    #[test]
    fn analyze_smoke() {
        run(analyze, &with_committed("analyze", schema_texts()), 1);
    }

    /// Every dialect/order/start text, with a few edits: delete a span, type a field,
    /// join lines.
    fn incremental_seeds() -> Vec<Vec<u8>> {
        (0..64u8)
            .map(|h| {
                let mut v = vec![h];
                v.extend([10, 0, 3, 2, b'x', 0x8b]);
                v.extend([200, 0, 0, 5, 0x83, b'q', b':', 0x94, b',']);
                v.extend([40, 1, 9, 0]);
                v
            })
            .collect()
    }

    #[test]
    fn incremental_smoke() {
        run(incremental, &with_committed("reparse", incremental_seeds()), 2);
    }

    #[test]
    fn decode_smoke() {
        let seeds = decode_seeds();
        assert!(seeds.len() >= 40, "{} seeds", seeds.len());
        run(decode, &with_committed("decode", seeds), 3);
    }

    #[test]
    fn rust_decode_smoke() {
        let seeds = rust_decode_seeds();
        assert!(seeds.len() >= 40, "{} seeds", seeds.len());
        // The golden cases themselves must decode (else the table is wrong).
        for (i, bytes) in rust_targets::SEEDS {
            let t = &rust_targets::TARGETS[*i];
            let ok = std::panic::catch_unwind(|| (t.run)(bytes));
            assert!(ok.is_ok(), "{}", t.name);
        }
        run(rust_decode, &with_committed("rust_decode", seeds), 4);
    }

    #[test]
    fn every_rust_decoder_is_reachable() {
        assert!(rust_targets::TARGETS.len() < 65536);
        let names: std::collections::BTreeSet<&str> = rust_targets::TARGETS.iter().map(|t| t.name).collect();
        assert_eq!(names.len(), rust_targets::TARGETS.len(), "duplicate target names");
    }

    /// Runs one input through a body: `WIRELENS_FUZZ_REPLAY=reparse:artifacts/reparse/crash-…`.
    #[test]
    #[ignore]
    fn replay() {
        let Ok(spec) = std::env::var("WIRELENS_FUZZ_REPLAY") else {
            return;
        };
        let (target, path) = spec.split_once(':').expect("target:path");
        let data = std::fs::read(path).expect("input");
        let body: fn(&[u8]) = match target {
            "analyze" => analyze,
            "reparse" => incremental,
            "decode" => decode,
            "rust_decode" => rust_decode,
            other => panic!("unknown target {other}"),
        };
        body(&data);
    }

    /// Writes the seeds as files for libFuzzer (`fuzz/seeds/<target>/`), when
    /// `WIRELENS_WRITE_SEEDS` names the folder.
    #[test]
    #[ignore]
    fn write_seeds() {
        let Some(dir) = std::env::var_os("WIRELENS_WRITE_SEEDS") else {
            return;
        };
        let dir = std::path::PathBuf::from(dir);
        let sets: [(&str, Vec<Vec<u8>>); 4] = [
            ("analyze", schema_texts()),
            ("reparse", incremental_seeds()),
            ("decode", decode_seeds()),
            ("rust_decode", rust_decode_seeds()),
        ];
        for (target, seeds) in sets {
            let d = dir.join(target);
            std::fs::create_dir_all(&d).unwrap();
            for (i, s) in seeds.iter().enumerate() {
                std::fs::write(d.join(format!("seed-{i:03}")), s).unwrap();
            }
        }
    }
}
