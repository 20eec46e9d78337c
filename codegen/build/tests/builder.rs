//! `Builder` as a `build.rs` uses it: it writes what `wirelens gen` would (settings from
//! `wirelens.toml`, overridden by the builder's own), refuses colliding outputs without
//! writing anything, and reports every problem with its position.

use std::path::PathBuf;

use wirelens_build::{Builder, Lang, Memory};

fn root() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    (dir, root)
}

#[test]
fn compile_writes_every_language_asked_for() {
    let (_dir, root) = root();
    let schema = root.join("m.sdp");
    std::fs::write(&schema, "struct M { v: u32, name: str }\n").unwrap();
    let written = Builder::new()
        .cargo_rerun(false)
        .langs(&[Lang::Rust, Lang::C])
        .out_dir(root.join("gen"))
        .compile(&[&schema])
        .unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<String> = written
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    // C output carries its runtime header.
    assert_eq!(names, ["m.c", "m.h", "m.rs", "wirelens.h"], "{written:?}");
    let rust = std::fs::read_to_string(root.join("gen/m.rs")).unwrap();
    assert!(rust.contains("pub struct M"), "{rust}");
}

#[test]
fn colliding_outputs_are_refused_and_nothing_is_written() {
    let (_dir, root) = root();
    std::fs::write(root.join("wirelens.toml"), "[generate]\nout_dir = \"gen\"\n").unwrap();
    let mut schemas = Vec::new();
    for (sub, ty) in [("a", "A"), ("b", "B")] {
        std::fs::create_dir(root.join(sub)).unwrap();
        let path = root.join(sub).join("x.sdp");
        std::fs::write(&path, format!("struct {ty} {{ v: u32 }}\n")).unwrap();
        schemas.push(path);
    }
    let e = Builder::new()
        .cargo_rerun(false)
        .out_dir(root.join("gen"))
        .compile(&schemas)
        .unwrap_err();
    assert!(e.to_string().contains("would overwrite the one generated from"), "{e}");
    assert!(!root.join("gen").exists(), "something was written");
}

#[test]
fn a_broken_schema_is_reported_with_its_position() {
    let (_dir, root) = root();
    let schema = root.join("bad.sdp");
    std::fs::write(&schema, "struct M {\n    v: Nope,\n}\n").unwrap();
    let e = Builder::new()
        .cargo_rerun(false)
        .out_dir(root.join("gen"))
        .compile(&[&schema])
        .unwrap_err();
    assert!(e.to_string().contains("bad.sdp:2:"), "{e}");
    assert!(!root.join("gen").exists(), "something was written");
}

/// `[generate.rust] memory = "arena"` reaches the Rust generator through `Builder`, and
/// `Builder::rust_memory` beats it.
#[test]
fn rust_memory_comes_from_wirelens_toml_or_the_builder() {
    let d = tempfile::tempdir().unwrap();
    let schema = d.path().join("m.sdp");
    std::fs::write(&schema, "struct Item { name: str }\nstruct List { items: []Item }\n").unwrap();
    std::fs::write(d.path().join("wirelens.toml"), "[generate.rust]\nmemory = \"arena\"\n").unwrap();
    let out = d.path().join("out");
    let gen = |b: Builder| {
        b.out_dir(&out).cargo_rerun(false).compile(&[&schema]).unwrap();
        std::fs::read_to_string(out.join("m.rs")).unwrap()
    };
    let arena = gen(Builder::new());
    assert!(arena.contains("pub items: &'a [ItemView<'a>],"), "{arena}");
    assert!(arena.contains("rd.slots(n0)"), "{arena}");
    let std = gen(Builder::new().rust_memory(Memory::Std));
    assert!(std.contains("pub items: Vec<ItemView<'a>>,"), "{std}");
    assert!(!std.contains("slots") && !std.contains("VIEW_IN_ARENA"), "{std}");
}

/// The same for `[generate.cpp] memory` and `Builder::cpp_memory`.
#[test]
fn cpp_memory_comes_from_wirelens_toml_or_the_builder() {
    let d = tempfile::tempdir().unwrap();
    let schema = d.path().join("m.sdp");
    std::fs::write(&schema, "struct Item { name: str }\nstruct List { items: []Item }\n").unwrap();
    std::fs::write(d.path().join("wirelens.toml"), "[generate.cpp]\nmemory = \"arena\"\n").unwrap();
    let out = d.path().join("out");
    let gen = |b: Builder| {
        b.langs(&[Lang::Cpp])
            .out_dir(&out)
            .cargo_rerun(false)
            .compile(&[&schema])
            .unwrap();
        std::fs::read_to_string(out.join("m.hpp")).unwrap()
    };
    let arena = gen(Builder::new());
    assert!(arena.contains("wirelens::Span<ItemView>"), "{arena}");
    let std = gen(Builder::new().cpp_memory(Memory::Std));
    assert!(std.contains("std::vector<ItemView>"), "{std}");
    assert!(!std.contains("wirelens::Span<"), "{std}");
}
