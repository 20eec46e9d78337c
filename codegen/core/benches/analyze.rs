//! Schema analysis on the generated 5,000-struct schema (bench/gen-schema.py), against
//! a bare tree-sitter parse of the same text measured in the same run, and the reference
//! codec on the AudioUnit vector against a plain copy of its bytes.
//!
//! `cargo bench -p wirelens-core --bench analyze`

use std::path::Path;
use std::process::Command;

use criterion::{criterion_group, criterion_main, Criterion};
use wirelens_core::codec::{Codec, Mode};
use wirelens_core::{analyze, syntax, Dialect, OrderChoice};

fn generated(dialect: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = std::env::temp_dir().join(format!("wirelens-bench-5000.{dialect}"));
    let status = Command::new("python3")
        .arg(root.join("bench/gen-schema.py"))
        .args([dialect, "5000"])
        .arg(&out)
        .status()
        .expect("python3 runs");
    assert!(status.success());
    std::fs::read_to_string(out).expect("generated schema")
}

fn analysis(c: &mut Criterion) {
    for (name, dialect) in [("sdp", Dialect::Sdp), ("ffi", Dialect::Ffi)] {
        let text = generated(name);
        let mut g = c.benchmark_group(format!("check-5000-{name}"));
        g.sample_size(20);
        g.bench_function("baseline: tree-sitter parse only", |b| {
            b.iter(|| syntax::parse(dialect, std::hint::black_box(&text), None))
        });
        g.bench_function("analyze (parse, model, checks, layout)", |b| {
            b.iter(|| analyze(dialect, std::hint::black_box(&text), None, OrderChoice::default()))
        });
        // What the language server does per keystroke: one-byte edit in the middle,
        // incremental reparse with the edited old tree, then model, checks and layout.
        let old = analyze(dialect, &text, None, OrderChoice::default())
            .tree
            .expect("tree");
        let at = text.len() / 2;
        let at = (at..text.len()).find(|&i| text.as_bytes()[i] == b'\n').unwrap_or(at);
        let mut edited = text.clone();
        edited.insert(at, ' ');
        g.bench_function("re-analyze after a one-byte edit (incremental parse)", |b| {
            b.iter(|| {
                let mut tree = old.clone();
                let p = tree_sitter::Point::new(text[..at].matches('\n').count(), 0);
                tree.edit(&tree_sitter::InputEdit {
                    start_byte: at,
                    old_end_byte: at,
                    new_end_byte: at + 1,
                    start_position: p,
                    old_end_position: p,
                    new_end_position: tree_sitter::Point::new(p.row, 1),
                });
                analyze(
                    dialect,
                    std::hint::black_box(&edited),
                    Some(&tree),
                    OrderChoice::default(),
                )
            })
        });
        g.finish();
    }
}

fn codec(c: &mut Criterion) {
    let vectors = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors/sdp");
    let text = std::fs::read_to_string(vectors.join("schemas/audiounit.sdp")).expect("schema");
    let bytes = std::fs::read(vectors.join("cases/audiounit_full.bin")).expect("vector");
    let a = analyze(Dialect::Sdp, &text, None, OrderChoice::default());
    let codec = Codec::new(&a.schema, &a.layout);
    let root = codec.root("PluginRegistry").expect("root");
    let value = codec.decode(root, &bytes, Mode::Byte).expect("decodes");
    let mut g = c.benchmark_group("codec-audiounit-112KB");
    g.bench_function("baseline: copy the bytes", |b| {
        b.iter(|| std::hint::black_box(&bytes).to_vec())
    });
    g.bench_function("decode to JSON value", |b| {
        b.iter(|| codec.decode(root, std::hint::black_box(&bytes), Mode::Byte))
    });
    g.bench_function("encode JSON value", |b| {
        b.iter(|| codec.encode(root, std::hint::black_box(&value), Mode::Byte))
    });
    g.finish();
}

criterion_group!(benches, analysis, codec);
criterion_main!(benches);
