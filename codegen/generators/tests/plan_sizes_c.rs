//! Every size the generated C prints is the plan's (issue #13): over the golden schemas
//! and a few hundred pseudo-random ones, the `T_SIZE` defines, the constant of every
//! measure function, each number a measure adds or multiplies by, every fixed-block
//! bounds check and advance, every array's minimum element size, and the "Fixed blocks"
//! doc line of every struct equal what `wirelens_core::plan` says for that type. An emitter
//! that computed a size itself (and got it different) fails here.

use std::collections::HashMap;

use wirelens_core::plan::TypePlan;
use wirelens_core::Dialect;
use wirelens_generators::c::{generate, Names};

mod plan_common;
use plan_common::*;

/// Checks one schema's generated C against its plan; returns the number of sizes checked.
fn check(dialect: Dialect, text: &str) -> usize {
    let Some((a, plan)) = analyzed(dialect, text) else {
        return 0;
    };
    let files = generate(&a.schema, &a.layout, "t.x").unwrap_or_else(|e| panic!("{e}\n{text}"));
    let names = Names::new(&a.schema, &a.layout, "t.x");
    let by_name: HashMap<String, usize> = (0..a.schema.types.len()).map(|id| (names.type_name(id), id)).collect();
    let mut checked = 0;
    // The header: SIZE defines and the layout comment above each struct.
    let mut doc_blocks: Option<String> = None;
    for line in files[0].contents.lines() {
        let l = line.trim();
        if let Some(rest) = l.strip_prefix("// Fixed blocks: ") {
            doc_blocks = Some(rest.trim_end_matches('.').to_string());
        }
        if let Some(rest) = l.strip_prefix("struct ") {
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if let Some(p) = by_name.get(&name).and_then(|id| plan.get(*id)) {
                assert_eq!(doc_blocks, expected_doc_blocks(p), "doc of {name}\n{text}");
                checked += 1;
            }
            doc_blocks = None;
        }
        if let Some(rest) = l.strip_prefix("#define ") {
            if let Some(name) = rest.split(' ').next().and_then(|n| n.strip_suffix("_SIZE")) {
                let p = by_name.get(name).and_then(|id| plan.get(*id)).expect("SIZE of a type");
                let n = number_after(l, "((size_t)").expect("a number");
                assert_eq!(Some(n), p.size.fixed, "{l}\n{text}");
                assert!(
                    p.exact_size.terms.is_empty() && p.exact_size.constant == n,
                    "{l}\n{text}"
                );
                checked += 1;
            }
        }
    }
    // The source: each type's section, from its banner to the next.
    let mut current: Option<&TypePlan> = None;
    let mut in_measure = false;
    for line in files[1].contents.lines() {
        let l = line.trim();
        if let Some(name) = l.strip_prefix("// ---------------------------------------------------------------- ") {
            current = by_name.get(name).and_then(|id| plan.get(*id));
            continue;
        }
        let Some(p) = current else { continue };
        if l.starts_with("static size_t ") && l.contains("_measure(") {
            in_measure = true;
            continue;
        }
        if in_measure {
            if let Some(n) = number_after(l, "size_t n = ").or_else(|| number_after(l, "return ")) {
                assert_eq!(n, p.exact_size.constant, "measure constant `{l}`\n{text}");
                checked += 1;
                in_measure = false;
            } else if l.starts_with("return ") && l != "return 0;" {
                panic!("measure of {} returns `{l}`\n{text}", p.id);
            }
        }
        let numbers = formula_numbers(p);
        for marker in ["n = wl_add(n, ", ".len, "] {
            if let Some(n) = number_after(l, marker) {
                if l.contains("wl_len_ok") || l.contains("wl_too_long") {
                    continue; // the prefix, checked below
                }
                assert!(numbers.contains(&n), "`{l}`: {n} is not in the plan's formula\n{text}");
                checked += 1;
            }
        }
        if let Some(n) = number_after(l, "wl_len_ok(").and_then(|_| number_after(l, ".len, ")) {
            assert_eq!(n, plan.prefix.bytes(), "`{l}`\n{text}");
            checked += 1;
        }
        for marker in ["rd->len - rd->at < ", "rd->at += "] {
            if let Some(n) = number_after(l, marker) {
                assert!(
                    block_sizes(p).contains(&n),
                    "`{l}`: no block of {n} B in the plan\n{text}"
                );
                checked += 1;
            }
        }
        if l.contains("wl_rd_count(") {
            let args: Vec<&str> = l.split("wl_rd_count(rd, ").nth(1).unwrap_or("").split(", ").collect();
            let pre: u64 = args.first().and_then(|s| s.parse().ok()).expect("prefix");
            let min: u64 = args.get(1).and_then(|s| s.parse().ok()).expect("min");
            assert_eq!(pre, plan.prefix.bytes(), "`{l}`\n{text}");
            assert!(
                elem_mins(p).contains(&min),
                "`{l}`: no array with {min} B elements\n{text}"
            );
            checked += 2;
        }
    }
    checked
}

#[test]
fn generated_c_prints_only_the_plans_sizes() {
    let mut checked = 0;
    for (dialect, text) in golden_schemas() {
        checked += check(dialect, &text);
    }
    let golden = checked;
    assert!(golden > 50, "golden sizes checked: {golden}");
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for _ in 0..150 {
        checked += check(Dialect::Sdp, &random_sdp(&mut rng));
        checked += check(Dialect::Ffi, &random_ffi(&mut rng));
    }
    assert!(checked > golden + 1000, "sizes checked: {checked}");
}
