//! Issue 39: generated Rust compiles at every depth the checker accepts. rustc computes a
//! type's layout (and its struct tail, its drop) by recursing through every field stored
//! inline; a chain `D0 { v: u8, n: Option<D1> }` … `D100` overflowed its query depth limit
//! and a plain chain of 200 its recursion limit. The plan boxes a field past
//! `wirelens_core::plan::MAX_INLINE_DEPTH` levels (`Option<Box<D53>>`), so these build in a
//! binary crate with `#![deny(warnings)]` and clippy `-D warnings`, and a value nested
//! all the way down round-trips (owned decode, view decode, `to_owned_value`,
//! `decode_into`) to the reference codec's bytes.

use std::fmt::Write as _;
use std::process::Command;

use wirelens_core::codec::{Codec, Mode};
use wirelens_core::plan::{Plan, MAX_INLINE_DEPTH};
use wirelens_core::{analyze, Dialect, OrderChoice};
use wirelens_generators::rust::generate;

mod build_common;
use build_common::{run, workspace};

/// (module, depth, the field of struct i: `n: <type>`, extra fields).
const CHAINS: [(&str, usize, &str, &str); 3] = [
    // The schema.
    ("options", 100, "Option<D{}>", ""),
    // With a string in every level, so the views are their own (borrowing) types.
    ("option_views", 100, "Option<D{}>", "s: str, "),
    // A plain chain: no options at all, the struct tail alone 200 levels deep.
    ("plain", 200, "D{}", ""),
];

fn schema(depth: usize, field: &str, extra: &str) -> String {
    let mut s = String::new();
    for i in 0..depth {
        let ty = field.replace("{}", &(i + 1).to_string());
        let _ = writeln!(s, "struct D{i} {{ v: u8, {extra}n: {ty} }}");
    }
    let _ = writeln!(s, "struct D{depth} {{ v: u8 }}");
    s
}

/// `{"v":0,"n":{"v":1,…}}` nested `depth` levels (with `"s"` when the chain has strings).
fn value(depth: usize, strings: bool) -> serde_json::Value {
    let mut v = serde_json::json!({ "v": depth });
    for i in (0..depth).rev() {
        v = if strings {
            serde_json::json!({ "v": i, "s": format!("level {i}"), "n": v })
        } else {
            serde_json::json!({ "v": i, "n": v })
        };
    }
    v
}

#[test]
fn deep_chains_are_boxed_only_past_the_limit() {
    for (_, depth, field, extra) in CHAINS {
        let a = analyze(Dialect::Sdp, &schema(depth, field, extra), None, OrderChoice::default());
        assert!(!a.has_errors(), "{:?}", a.diagnostics);
        let boxed = Plan::new(&a.layout).boxed(&a.layout);
        let per_option = if field.starts_with("Option") { 2 } else { 1 };
        let count = (0..=depth).filter(|&id| boxed.any(id)).count();
        // One box per MAX_INLINE_DEPTH / per_option levels, not one per level.
        let expected = depth / (MAX_INLINE_DEPTH as usize / per_option);
        assert!(
            count >= 1 && count <= expected,
            "{field}: {count} boxed, expected 1..={expected}"
        );
    }
    // A shallow chain has none: its code is what it always was.
    let a = analyze(
        Dialect::Sdp,
        &schema(40, "Option<D{}>", ""),
        None,
        OrderChoice::default(),
    );
    let boxed = Plan::new(&a.layout).boxed(&a.layout);
    assert!((0..=40).all(|id| !boxed.any(id)));
    let code = generate(&a.schema, &a.layout, "shallow.sdp").expect("generates");
    assert!(!code.contains("Box::new") && !code.contains("Box<D"), "{code}");
}

#[test]
fn deep_rust_chains_build_and_round_trip() {
    let root = workspace();
    let tmp = tempfile::Builder::new()
        .prefix("wirelens-deep-rust-")
        .tempdir()
        .expect("temp dir");
    let dir = tmp.path();
    let src = dir.join("src");
    std::fs::create_dir_all(&src).expect("mkdir");
    let mut main = String::from(
        "#![deny(warnings)]\nuse wirelens_runtime::Message;\n\nfn check<M: Message + PartialEq + Default>(wire: &[u8]) -> M {\n    \
         let m = M::decode(wire).expect(\"decodes\");\n    assert!(m.to_bytes().expect(\"encodes\") == wire);\n    \
         assert_eq!(m.encoded_size(), wire.len());\n    let mut again = M::default();\n    \
         again.decode_into(wire).expect(\"decodes into\");\n    assert!(again == m);\n    m\n}\n\n",
    );
    let mut body = String::new();
    for (module, depth, field, extra) in CHAINS {
        let text = schema(depth, field, extra);
        let a = analyze(Dialect::Sdp, &text, None, OrderChoice::default());
        assert!(!a.has_errors(), "{:?}", a.diagnostics);
        let code = generate(&a.schema, &a.layout, &format!("{module}.sdp")).expect("generates");
        assert!(code.contains("/// Boxed: "), "{module}: no boxed field documented");
        std::fs::write(src.join(format!("{module}.rs")), code).expect("write module");
        let codec = Codec::new(&a.schema, &a.layout);
        let id = codec.root("D0").expect("root");
        let bytes = codec
            .encode(id, &value(depth, !extra.is_empty()), Mode::Byte)
            .expect("the reference codec encodes");
        std::fs::write(dir.join(format!("{module}.bin")), &bytes).expect("write bytes");
        let _ = writeln!(main, "mod {module};");
        let _ = writeln!(
            body,
            "    {{\n        let wire = include_bytes!(\"../{module}.bin\");\n        \
             let m: {module}::D0 = check(wire);\n        \
             let view = {module}::D0::decode_view(wire).expect(\"view decodes\");\n        \
             assert!(view.to_owned_value() == m);\n        \
             println!(\"{module} {depth} levels, {{}} bytes\", wire.len());\n    }}"
        );
    }
    let main = format!("{main}\nfn main() {{\n{body}\n}}\n");
    std::fs::write(src.join("main.rs"), main).expect("write main.rs");
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"deep-check\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
             [dependencies]\nwirelens-runtime = {{ path = {:?} }}\n\n[workspace]\n",
            root.join("runtime/rust").display().to_string()
        ),
    )
    .expect("write Cargo.toml");
    let target = root.join("target/deep-nesting");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let cargo_cmd = |args: &[&str]| {
        let mut c = Command::new(&cargo);
        c.args(args)
            .current_dir(dir)
            .env("CARGO_TARGET_DIR", &target)
            .env_remove("RUSTFLAGS")
            .env_remove("CARGO_ENCODED_RUSTFLAGS");
        c
    };
    let out = run(
        &mut cargo_cmd(&["run", "--quiet", "--offline"]),
        "the deep chains binary",
    );
    print!("{out}");
    assert_eq!(out.lines().count(), CHAINS.len(), "{out}");
    run(
        &mut cargo_cmd(&["clippy", "--quiet", "--offline", "--", "-D", "warnings"]),
        "cargo clippy -D warnings (deep chains)",
    );
}
