//! The cost of one keystroke's re-analysis on a big schema, both ways, after the same
//! incremental reparse: a fresh analysis (`full`) and one that reuses the previous
//! analysis (`reuse`, what the language server does). Wall times are printed; for
//! numbers that do not depend on how busy the machine is, count instructions of each
//! function with callgrind:
//!
//! ```sh
//! python3 bench/gen-schema.py sdp 5000 /tmp/big.sdp
//! cargo build --release -p wirelens-core --example keystroke_cost
//! valgrind --tool=callgrind --toggle-collect='keystroke_cost::reuse' \
//!     target/release/examples/keystroke_cost /tmp/big.sdp   # also: ::full
//! ```
use wirelens_core::*;

#[inline(never)]
fn full(d: Dialect, text: &str, old: &tree_sitter::Tree) -> Analysis {
    analyze(d, text, Some(old), OrderChoice::default())
}

#[inline(never)]
fn reuse(d: Dialect, text: &str, old: &tree_sitter::Tree, prev: Analysis) -> Analysis {
    analyze_reusing(d, text, Some(old), OrderChoice::default(), Some(prev))
}

fn main() {
    let path = std::env::args().nth(1).expect("usage: keystroke_cost SCHEMA");
    let text = std::fs::read_to_string(&path).expect("readable schema");
    let d = Dialect::from_path(std::path::Path::new(&path)).expect(".sdp or .ffi");
    let before = analyze(d, &text, None, OrderChoice::default());
    // Type an `x` at the start of a field name in the middle of the file.
    let mid = text.len() / 2;
    let at = text[mid..]
        .find("\n    ")
        .or_else(|| text[mid..].find("\n\t"))
        .map(|i| mid + i + 1 + text[mid + i + 1..].len() - text[mid + i + 1..].trim_start().len())
        .expect("an indented line after the middle");
    let mut source = SourceFile::new("", text.clone());
    let mut old = before.tree.clone().expect("parsed");
    syntax::apply_edit(&mut source, Some(at..at), "x", Some(&mut old));
    let t = std::time::Instant::now();
    let a = full(d, &source.text, &old);
    let t_full = t.elapsed();
    let t = std::time::Instant::now();
    let b = reuse(d, &source.text, &old, before);
    let t_reuse = t.elapsed();
    assert!(a.layout == b.layout && a.schema == b.schema && a.diagnostics == b.diagnostics);
    println!("full {t_full:?} reuse {t_reuse:?}");
    // `keystroke_cost SCHEMA N`: then type N more characters, for profilers.
    let n: usize = std::env::args().nth(2).and_then(|n| n.parse().ok()).unwrap_or(0);
    let mut analysis = b;
    let mut times = Vec::new();
    for i in 0..n {
        let at = at + 1 + i;
        let mut tree = analysis.tree.take();
        syntax::apply_edit(&mut source, Some(at..at), "y", tree.as_mut());
        let t = std::time::Instant::now();
        analysis = reuse(d, &source.text, tree.as_ref().expect("parsed"), analysis);
        times.push(t.elapsed());
    }
    times.sort();
    if let (Some(p50), Some(max)) = (times.get(n / 2), times.last()) {
        println!("{n} more keystrokes: p50 {p50:?} max {max:?}");
    }
}
