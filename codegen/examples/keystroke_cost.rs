//! The cost of one keystroke's re-analysis on a big schema, both ways: a fresh analysis
//! after an incremental reparse (`full`) and one that reuses the previous layout
//! (`reuse`). Wall times are printed; for numbers that do not depend on how busy the
//! machine is, count instructions of each function with callgrind:
//!
//! ```sh
//! python3 bench/gen-schema.py sdp 1000 /tmp/mid.sdp
//! cargo build --release -p wirelens-codegen --example keystroke_cost
//! valgrind --tool=callgrind --toggle-collect='keystroke_cost::reuse' \
//!     target/release/examples/keystroke_cost /tmp/mid.sdp   # also: ::full
//! ```
use codegen::*;

#[inline(never)]
fn full(d: Dialect, text: &str, old: &tree_sitter::Tree) -> Analysis {
    analyze(d, text, Some(old), OrderChoice::default())
}

#[inline(never)]
fn reuse(d: Dialect, text: &str, old: &tree_sitter::Tree, prev: layout::Layout) -> Analysis {
    analyze_reusing(d, text, Some(old), OrderChoice::default(), Some(prev))
}

fn main() {
    let path = std::env::args().nth(1).expect("usage: keystroke_cost SCHEMA");
    let text = std::fs::read_to_string(&path).expect("readable schema");
    let d = Dialect::from_path(std::path::Path::new(&path)).expect(".sdp or .ffi");
    let a0 = analyze(d, &text, None, OrderChoice::default());
    let tree = a0.tree.clone().expect("parsed");
    let mid = text.len() / 2;
    let mid = text[mid..]
        .find("\n\t")
        .or_else(|| text[mid..].find("\n    "))
        .map(|i| mid + i + 2)
        .unwrap();
    let mut new_text = text.clone();
    new_text.insert(mid, 'x');
    let mut old = tree.clone();
    let pt = |off: usize| {
        let before = &text[..off];
        let row = before.matches('\n').count();
        let col = off - before.rfind('\n').map_or(0, |i| i + 1);
        tree_sitter::Point { row, column: col }
    };
    let p = pt(mid);
    old.edit(&tree_sitter::InputEdit {
        start_byte: mid,
        old_end_byte: mid,
        new_end_byte: mid + 1,
        start_position: p,
        old_end_position: p,
        new_end_position: tree_sitter::Point {
            row: p.row,
            column: p.column + 1,
        },
    });
    let t = std::time::Instant::now();
    let a = full(d, &new_text, &old);
    let t_full = t.elapsed();
    let t = std::time::Instant::now();
    let b = reuse(d, &new_text, &old, a0.layout);
    let t_reuse = t.elapsed();
    assert!(a.layout == b.layout);
    println!("full {t_full:?} reuse {t_reuse:?}");
}
