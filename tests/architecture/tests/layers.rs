//! The crate graph is the architecture (ARCHITECTURE.md, "Layers"): every dependency
//! between this workspace's crates points down the table below, the core depends on no
//! I/O crate and names no `std::fs`, `std::process`, `std::thread`, `std::net` or
//! `std::env`, and no crate's modules import each other in a circle. (That the core
//! builds for `wasm32-unknown-unknown` is a phase of `./tests/run`.)

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use wirelens_architecture::{cycles, module_graph, std_modules};

/// Each workspace crate and the workspace crates it may depend on (any kind: normal,
/// build or dev). A new crate or a new edge must be added here, on purpose.
const ALLOWED: &[(&str, &[&str])] = &[
    ("tree-sitter-wirelens", &[]),
    ("wirelens-runtime", &[]),
    ("wirelens-core", &["tree-sitter-wirelens"]),
    ("wirelens-generators", &["wirelens-core"]),
    ("wirelens-ide", &["wirelens-core"]),
    ("wirelens-project", &["wirelens-core", "wirelens-generators"]),
    (
        "wirelens-build",
        &["wirelens-core", "wirelens-generators", "wirelens-project"],
    ),
    (
        "wirelens",
        &[
            "wirelens-core",
            "wirelens-generators",
            "wirelens-project",
            "wirelens-ide",
        ],
    ),
    // Tests, benchmarks and examples sit on top.
    (
        "wirelens-conformance",
        &["wirelens-core", "wirelens-generators", "wirelens-runtime"],
    ),
    ("wirelens-architecture", &[]),
    ("wirelens-example-build", &["wirelens-build", "wirelens-runtime"]),
    (
        "wirelens-bench-codec",
        &["wirelens-core", "wirelens-generators", "wirelens-runtime"],
    ),
    ("wirelens-bench-lsp", &[]),
];

/// The only crates the core may use: no file system, TOML, threads or emitters.
const CORE_DEPENDENCIES: &[&str] = &[
    "tree-sitter",
    "tree-sitter-wirelens",
    "line-index",
    "serde",
    "serde_json",
    "rustc-hash",
    // dev-dependencies
    "insta",
    "criterion",
];

const CORE_FORBIDDEN_STD: &[&str] = &["fs", "process", "thread", "net", "env"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `cargo metadata` for the workspace: the packages, each with its manifest path and
/// dependencies.
fn packages() -> Vec<Value> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline"])
        .current_dir(root())
        .output()
        .expect("run cargo metadata");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let meta: Value = serde_json::from_slice(&out.stdout).expect("metadata JSON");
    meta["packages"].as_array().expect("packages").clone()
}

fn name(p: &Value) -> &str {
    p["name"].as_str().unwrap_or_default()
}

#[test]
fn workspace_dependencies_point_down_the_layer_table() {
    let allowed: BTreeMap<&str, &[&str]> = ALLOWED.iter().copied().collect();
    let packages = packages();
    let ours: BTreeSet<&str> = packages.iter().map(name).collect();
    let mut wrong = Vec::new();
    for p in &packages {
        let Some(may) = allowed.get(name(p)) else {
            wrong.push(format!(
                "{}: not in the layer table of tests/architecture/tests/layers.rs",
                name(p)
            ));
            continue;
        };
        for d in p["dependencies"].as_array().into_iter().flatten() {
            let dep = d["name"].as_str().unwrap_or_default();
            if ours.contains(dep) && !may.contains(&dep) {
                let kind = d["kind"].as_str().unwrap_or("normal");
                wrong.push(format!("{} → {dep} ({kind}): not an allowed edge", name(p)));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // The table names no crate that is gone.
    for (crate_name, _) in ALLOWED {
        assert!(
            ours.contains(crate_name),
            "{crate_name} is in the table but not in the workspace"
        );
    }
}

#[test]
fn the_core_depends_on_no_io_crate_and_names_no_io_module() {
    let packages = packages();
    let core = packages
        .iter()
        .find(|p| name(p) == "wirelens-core")
        .expect("wirelens-core");
    let extra: Vec<&str> = core["dependencies"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| d["name"].as_str())
        .filter(|d| !CORE_DEPENDENCIES.contains(d))
        .collect();
    assert!(extra.is_empty(), "wirelens-core gained dependencies: {extra:?}");
    let src = root().join("codegen/core/src");
    let used = std_modules(&src).expect("read the core");
    assert!(used.len() > 15, "read only {} modules", used.len());
    let mut bad = Vec::new();
    for (module, names) in used {
        for m in names.iter().filter(|m| CORE_FORBIDDEN_STD.contains(&m.as_str())) {
            bad.push(format!("wirelens_core::{module} uses std::{m}"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn no_crate_has_an_import_cycle() {
    let mut found = Vec::new();
    let mut checked = 0;
    for p in packages() {
        let manifest = PathBuf::from(p["manifest_path"].as_str().unwrap_or_default());
        let src = manifest.parent().expect("package folder").join("src");
        if !src.is_dir() {
            continue;
        }
        let graph = module_graph(&src).expect("read sources");
        checked += graph.len();
        for cycle in cycles(&graph) {
            found.push(format!("{}: {}", name(&p), cycle.join(" ↔ ")));
        }
    }
    assert!(checked > 50, "read only {checked} modules");
    assert!(found.is_empty(), "import cycles:\n{}", found.join("\n"));
}
