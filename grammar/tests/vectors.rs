//! Every golden schema in `tests/vectors/{sdp,ffi}/schemas` (a copy of the upstream golden vectors) must parse without a
//! single `ERROR` or `MISSING` node. The directory can be overridden with the
//! environment variable `WIRELENS_VECTORS` (the directory that holds `sdp/` and `ffi/`).

use std::{fs, path::PathBuf};

use tree_sitter::{Language, Node, Parser};

fn vectors_dir() -> PathBuf {
    match std::env::var_os("WIRELENS_VECTORS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/vectors")),
    }
}

fn schemas(dialect: &str) -> Vec<PathBuf> {
    let dir = vectors_dir().join(dialect).join("schemas");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| {
            panic!(
                "cannot read {} ({e}); set WIRELENS_VECTORS to the vectors directory",
                dir.display()
            )
        })
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == dialect))
        .collect();
    files.sort();
    files
}

/// Every `ERROR` and `MISSING` node in the tree, named and anonymous, as
/// `kind at row:col` descriptions. Walks with a cursor so no node is skipped.
fn problems(root: Node<'_>) -> Vec<String> {
    let mut found = Vec::new();
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        if node.is_error() || node.is_missing() {
            let pos = node.start_position();
            found.push(format!(
                "{}{} at {}:{}",
                if node.is_missing() { "MISSING " } else { "" },
                node.kind(),
                pos.row + 1,
                pos.column + 1
            ));
        }
        if cursor.goto_first_child() || cursor.goto_next_sibling() {
            continue;
        }
        loop {
            if !cursor.goto_parent() {
                return found;
            }
            if cursor.goto_next_sibling() {
                break;
            }
        }
    }
}

fn check_dialect(dialect: &str, language: Language) -> usize {
    let files = schemas(dialect);
    assert!(
        !files.is_empty(),
        "no {dialect} schemas found in {}",
        vectors_dir().display()
    );
    let mut parser = Parser::new();
    parser.set_language(&language).unwrap();
    let mut failures = Vec::new();
    for file in &files {
        let source = fs::read(file).unwrap();
        let tree = parser.parse(&source, None).expect("parse returned no tree");
        let root = tree.root_node();
        let found = problems(root);
        // `has_error` also covers MISSING nodes; both checks must agree.
        if !found.is_empty() || root.has_error() {
            failures.push(format!("{}: {}\n{}", file.display(), found.join(", "), root.to_sexp()));
        }
        // A schema is never empty: the tree must actually contain declarations.
        assert!(
            root.named_child_count() > 0,
            "{} parsed to an empty tree",
            file.display()
        );
    }
    assert!(
        failures.is_empty(),
        "schemas with syntax errors:\n{}",
        failures.join("\n\n")
    );
    files.len()
}

#[test]
fn sdp_vectors_parse_cleanly() {
    let n = check_dialect("sdp", tree_sitter_wirelens::LANGUAGE_SDP.into());
    eprintln!("{n} sdp schemas parsed without errors");
}

#[test]
fn ffi_vectors_parse_cleanly() {
    let n = check_dialect("ffi", tree_sitter_wirelens::LANGUAGE_FFI.into());
    eprintln!("{n} ffi schemas parsed without errors");
}

#[test]
fn the_walk_finds_missing_and_error_nodes() {
    // Guards the checker above: broken input must be reported.
    let mut parser = Parser::new();
    parser.set_language(&tree_sitter_wirelens::LANGUAGE_SDP.into()).unwrap();
    let tree = parser.parse("struct A { a: Option<B }", None).unwrap();
    assert_eq!(problems(tree.root_node()), ["MISSING > at 1:23"]);
    let tree = parser.parse("struct A { a: u8, ; }", None).unwrap();
    // The ERROR node and the unexpected `;` leaf inside it (itself an error node).
    assert_eq!(problems(tree.root_node()), ["ERROR at 1:19", "ERROR at 1:19"]);

    parser.set_language(&tree_sitter_wirelens::LANGUAGE_FFI.into()).unwrap();
    let tree = parser.parse("package p\ntype A struct {\n\tX int32\n", None).unwrap();
    assert_eq!(problems(tree.root_node()), ["MISSING } at 4:1"]);
    let tree = parser.parse("package p\ntype A int32\n", None).unwrap();
    assert!(problems(tree.root_node()).is_empty());
}

#[test]
fn vectors_dir_points_at_the_shared_vectors() {
    let dir = vectors_dir();
    assert!(
        dir.join("sdp").join("schemas").is_dir(),
        "{} has no sdp/schemas",
        dir.display()
    );
    assert!(
        dir.join("ffi").join("schemas").is_dir(),
        "{} has no ffi/schemas",
        dir.display()
    );
}
