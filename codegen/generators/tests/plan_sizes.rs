//! Every size the generated Rust prints is the plan's (issue #13): over the golden
//! schemas and a few hundred pseudo-random ones, `SIZE` constants, the constant of each
//! `encoded_size`, every fixed-block buffer and bounds check, and the "Fixed blocks"
//! doc line of every struct equal what `wirelens_core::plan` says for that type. An emitter
//! that computed a size itself (and got it different) fails here.

use std::collections::HashMap;

use wirelens_core::plan::TypePlan;
use wirelens_core::Dialect;
use wirelens_generators::rust::{generate, type_name};

mod plan_common;
use plan_common::*;

/// Checks one schema's generated Rust against its plan; returns the number of sizes checked.
fn check(dialect: Dialect, text: &str) -> usize {
    let Some((a, plan)) = analyzed(dialect, text) else {
        return 0;
    };
    let code = generate(&a.schema, &a.layout, "t").unwrap_or_else(|e| panic!("{e}\n{text}"));
    let by_name: HashMap<String, usize> = (0..a.schema.types.len())
        .map(|id| (type_name(&a.schema, &a.layout, id), id))
        .collect();
    let mut checked = 0;
    let mut current: Option<&TypePlan> = None;
    let mut doc_blocks: Option<String> = None;
    let mut in_size_fn = false;
    for line in code.lines() {
        let l = line.trim();
        if line == "}" {
            current = None; // the end of an impl
        }
        if let Some(rest) = l.strip_prefix("/// Fixed blocks: ") {
            doc_blocks = Some(rest.trim_end_matches('.').to_string());
        }
        if let Some(rest) = l.strip_prefix("pub struct ") {
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if let Some(p) = by_name.get(&name).and_then(|id| plan.get(*id)) {
                assert_eq!(doc_blocks, expected_doc_blocks(p), "doc of {name}\n{text}");
                checked += 1;
            }
            doc_blocks = None;
        }
        if let Some(rest) = l.strip_prefix("impl ").or_else(|| l.strip_prefix("impl<'a> ")) {
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            let owner = by_name.get(&name).copied().or_else(|| {
                // a view: `NameView`, `NameView2`…
                let base = name.trim_end_matches(|c: char| c.is_ascii_digit());
                base.strip_suffix("View").and_then(|b| by_name.get(b).copied())
            });
            current = owner.and_then(|id| plan.get(id));
        }
        let Some(p) = current else { continue };
        if in_size_fn {
            in_size_fn = false;
            let first = l.split(' ').next().unwrap_or("");
            match first.parse::<u64>() {
                Ok(n) => assert_eq!(n, p.exact_size.constant, "encoded_size constant\n{text}"),
                Err(_) => assert_eq!(p.exact_size.constant, 0, "encoded_size `{l}`\n{text}"),
            }
            checked += 1;
        }
        if l == "pub fn encoded_size(&self) -> usize {" {
            in_size_fn = true;
        }
        if let Some(n) = number_after(l, "pub const SIZE: usize = ") {
            assert_eq!(Some(n), p.size.fixed, "SIZE\n{text}");
            checked += 1;
        }
        for marker in ["rd.fixed::<", "[0u8; "] {
            if let Some(n) = number_after(l, marker) {
                assert!(
                    block_sizes(p).contains(&n),
                    "`{l}`: no block of {n} B in the plan\n{text}"
                );
                checked += 1;
            }
        }
    }
    checked
}

#[test]
fn generated_rust_prints_only_the_plans_sizes() {
    let mut checked = 0;
    for (dialect, text) in golden_schemas() {
        checked += check(dialect, &text);
    }
    let golden = checked;
    assert!(golden > 50, "golden sizes checked: {golden}");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..150 {
        checked += check(Dialect::Sdp, &random_sdp(&mut rng));
        checked += check(Dialect::Ffi, &random_ffi(&mut rng));
    }
    assert!(checked > golden + 1000, "sizes checked: {checked}");
}
