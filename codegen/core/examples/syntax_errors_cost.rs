//! The cost of turning a tree's `ERROR` / `MISSING` nodes into diagnostics
//! (`syntax::syntax_errors`, run on every keystroke of a broken document) on a file made
//! of nothing but errors: 20,000 structs with two syntax errors each (SDP) and 20,000
//! with one (ffire). Prints the best of 7 runs; for numbers that do not depend on how
//! busy the machine is, count instructions with callgrind:
//!
//! ```sh
//! cargo build --release -p wirelens-core --example syntax_errors_cost
//! valgrind --tool=callgrind --toggle-collect='syntax_errors_cost::errors' \
//!     target/release/examples/syntax_errors_cost
//! ```
use std::time::Instant;

use wirelens_core::{syntax, Dialect};

#[inline(never)]
fn errors(d: Dialect, tree: &tree_sitter::Tree, text: &str) -> usize {
    syntax::syntax_errors(d, tree, text).len()
}

fn main() {
    const N: usize = 20_000;
    let mut sdp = String::new();
    let mut ffi = String::from("package p\n");
    for i in 0..N {
        sdp.push_str(&format!(
            "struct S{i} {{\n    a: u8,\n    b: Option<>,\n    z u8,\n}}\n"
        ));
        ffi.push_str(&format!(
            "\ntype T{i} struct {{\n\tID int32\n\ttype int32\n\tName string\n}}\n"
        ));
    }
    for (d, text) in [(Dialect::Sdp, &sdp), (Dialect::Ffi, &ffi)] {
        let Some(tree) = syntax::parse(d, text, None) else {
            panic!("the {d:?} grammar does not load");
        };
        let mut best = f64::MAX;
        let mut n = 0;
        for _ in 0..7 {
            let t = Instant::now();
            n = errors(d, &tree, text);
            best = best.min(t.elapsed().as_secs_f64());
        }
        println!(
            "{d:?}: {n} errors, best of 7: {:.1} ms ({:.2} µs per error)",
            best * 1e3,
            best * 1e6 / n as f64
        );
    }
}
