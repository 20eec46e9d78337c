//! Generates, from the golden schemas in `tests/vectors`:
//! - `schemas.rs`: every schema's text (the `decode`, `analyze` and `incremental` targets);
//! - one Rust module per schema and field order, by the Rust emitter (`wirelens_generators::rust`),
//!   written with `wirelens_project::generate::write_files` like `wirelens gen` does;
//! - `rust_targets.rs`: `TARGETS`, one entry per decoder of those modules (every struct
//!   and root type; SDP also each message decoder and the `AnyMessage` dispatcher), and
//!   `SEEDS`, the golden cases' bytes with the entry that reads them.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use wirelens_core::{analyze, Dialect, FieldOrder, OrderChoice};
use wirelens_generators::{self as emit, rust::type_name, Lang};

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let vectors = root.join("tests/vectors");
    println!("cargo:rerun-if-changed={}", vectors.display());
    println!("cargo:rerun-if-changed={}", root.join("codegen").display());
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));

    let mut schemas = String::from("pub const SCHEMAS: &[(wirelens_core::Dialect, &str, &str)] = &[\n");
    let mut modules = String::new();
    let mut targets = String::from("pub static TARGETS: &[Target] = &[\n");
    let mut seeds = String::from("pub static SEEDS: &[(usize, &[u8])] = &[\n");
    let mut files = Vec::new();
    let mut index = 0usize;
    // (schema file, order, root, message) → target index, for the seeds.
    let mut entries: Vec<(String, FieldOrder, String, bool, usize)> = Vec::new();

    for (dialect, dir) in [(Dialect::Sdp, "sdp"), (Dialect::Ffi, "ffi")] {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(vectors.join(dir).join("schemas"))
            .expect("schemas")
            .map(|e| e.expect("entry").path())
            .collect();
        paths.sort();
        for path in paths {
            let file = path.file_name().and_then(|n| n.to_str()).expect("name").to_string();
            let text = std::fs::read_to_string(&path).expect("schema");
            writeln!(
                schemas,
                "    (wirelens_core::Dialect::{dialect:?}, {file:?}, include_str!({:?})),",
                path.display().to_string()
            )
            .unwrap();
            let orders: &[(FieldOrder, &str)] = match dialect {
                Dialect::Sdp => &[(FieldOrder::Declaration, "")],
                Dialect::Ffi => &[(FieldOrder::Canonical, "_canon"), (FieldOrder::Declaration, "_decla")],
            };
            for &(order, suffix) in orders {
                let a = analyze(
                    dialect,
                    &text,
                    None,
                    OrderChoice {
                        order: Some(order),
                        overrides_directive: true,
                    },
                );
                assert!(!a.has_errors(), "{file}: {:?}", a.diagnostics);
                let module = format!("{dir}_{}{suffix}", emit::module_name(&file));
                let mut generated = emit::generate(Lang::Rust, &a.schema, &a.layout, &file).expect("generates");
                assert_eq!(generated.len(), 1);
                let mut f = generated.remove(0);
                f.name = format!("{module}.rs");
                files.push(f);
                writeln!(
                    modules,
                    "#[allow(dead_code, clippy::all)]\npub mod {module} {{ include!(concat!(env!(\"OUT_DIR\"), \"/{module}.rs\")); }}"
                )
                .unwrap();
                for (id, t) in a.schema.types.iter().enumerate() {
                    let Some(lt) = a.layout.get(id) else { continue };
                    if !t.is_struct() && !lt.root {
                        continue;
                    }
                    let ty = format!("{module}::{}", type_name(&a.schema, &a.layout, id));
                    writeln!(
                        targets,
                        "    Target {{ name: {:?}, run: |b| byte_mode!({ty}, b) }},",
                        format!("{module}.{}", t.name)
                    )
                    .unwrap();
                    entries.push((file.clone(), order, t.name.clone(), false, index));
                    index += 1;
                    if dialect == Dialect::Sdp {
                        writeln!(
                            targets,
                            "    Target {{ name: {:?}, run: |b| message_mode!({ty}, {module}::AnyMessage, b) }},",
                            format!("{module}.{} message", t.name)
                        )
                        .unwrap();
                        entries.push((file.clone(), order, t.name.clone(), true, index));
                        index += 1;
                    }
                }
            }
        }
        // Seeds: every golden case, prefixed by the index of the entry that reads it.
        let mut cases: Vec<PathBuf> = std::fs::read_dir(vectors.join(dir).join("cases"))
            .expect("cases")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        cases.sort();
        for case in cases {
            let json = std::fs::read_to_string(&case).expect("case");
            let field = |key: &str| {
                let at = json.find(&format!("\"{key}\""))?;
                let rest = &json[at + key.len() + 2..];
                let rest = &rest[rest.find('"')? + 1..];
                Some(rest[..rest.find('"')?].to_string())
            };
            let schema = field("schema").expect("schema");
            let root = field("root").expect("root");
            let message = field("mode").as_deref() == Some("message");
            let order = match (dialect, field("order").as_deref()) {
                (Dialect::Sdp, _) | (_, Some("declaration")) => FieldOrder::Declaration,
                _ => FieldOrder::Canonical,
            };
            if let Some(e) = entries
                .iter()
                .find(|e| e.0 == schema && e.1 == order && e.2 == root && e.3 == message)
            {
                writeln!(
                    seeds,
                    "    ({}, include_bytes!({:?})),",
                    e.4,
                    case.with_extension("bin").display().to_string()
                )
                .unwrap();
            }
        }
    }
    schemas.push_str("];\n");
    targets.push_str("];\n");
    seeds.push_str("];\n");
    wirelens_project::generate::write_files(&out, &files).expect("write the generated modules");
    std::fs::write(out.join("schemas.rs"), schemas).unwrap();
    std::fs::write(out.join("rust_targets.rs"), format!("{modules}\n{targets}\n{seeds}")).unwrap();
}
