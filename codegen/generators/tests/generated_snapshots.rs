//! insta snapshots of the generated code for every shared schema (ffire in its default,
//! canonical order), per language: a change to any emitter shows up in review as a diff
//! of the code users get. Compiling and running that code is tested in `emit_*.rs`.

use std::path::{Path, PathBuf};

use wirelens_core::{analyze, Dialect, OrderChoice};
use wirelens_generators::{generate, Lang};

fn schemas() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors");
    let mut out = Vec::new();
    for dir in ["sdp/schemas", "ffi/schemas"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .expect("vectors")
            .flatten()
            .map(|e| e.path())
            .collect();
        files.sort();
        out.extend(files);
    }
    out
}

fn snapshot(lang: Lang) {
    let schemas = schemas();
    assert!(schemas.len() >= 20, "expected the 20 shared schemas");
    for path in schemas {
        let text = std::fs::read_to_string(&path).expect("schema");
        let dialect = Dialect::from_path(&path).expect("dialect");
        let a = analyze(dialect, &text, None, OrderChoice::default());
        let name = path.file_name().and_then(|n| n.to_str()).expect("name");
        let files = generate(lang, &a.schema, &a.layout, name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!files.is_empty());
        for f in files {
            let stem = name.replace('.', "_");
            insta::assert_snapshot!(format!("{}__{stem}__{}", lang.as_str(), f.name), f.contents);
        }
    }
}

#[test]
fn rust() {
    snapshot(Lang::Rust);
}

#[test]
fn c() {
    snapshot(Lang::C);
}
