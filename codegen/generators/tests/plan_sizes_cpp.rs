//! Every size the generated C++ prints is the plan's (issue #13): over the golden
//! schemas and a few hundred pseudo-random ones, `SIZE` and `MESSAGE_ID`, the constant of
//! each `measure`, every multiplier and constant it adds, the fixed blocks that
//! `write_to` / `read_from` reserve and check (in the plan's order), every count
//! minimum, and the "Fixed blocks" doc line of every struct equal what `wirelens_core::plan`
//! says for that type. An emitter that computed a size itself (and got it different)
//! fails here.

use std::collections::HashMap;

use wirelens_core::plan::TypePlan;
use wirelens_core::Dialect;
use wirelens_generators::cpp::{generate, type_name};

mod plan_common;
use plan_common::*;

/// Checks one schema's generated C++ against its plan; returns the number of sizes checked.
fn check(dialect: Dialect, text: &str) -> usize {
    let Some((a, plan)) = analyzed(dialect, text) else {
        return 0;
    };
    let files = generate(&a.schema, &a.layout, "t.x").unwrap_or_else(|e| panic!("{e}\n{text}"));
    let code = &files[0].contents;
    let by_name: HashMap<String, usize> = (0..a.schema.types.len())
        .map(|id| (type_name(&a.schema, &a.layout, id), id))
        .collect();
    // `NameView` / `NameView_` → the type's plan.
    let owner = |name: &str| -> Option<&TypePlan> {
        let id = by_name.get(name).copied().or_else(|| {
            let base = name.trim_end_matches('_');
            base.strip_suffix("View").and_then(|b| by_name.get(b).copied())
        })?;
        plan.get(id)
    };
    let ident = |s: &str| -> String { s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect() };
    let mut checked = 0;
    let mut doc_blocks: Option<String> = None;
    let mut current: Option<&TypePlan> = None;
    // Blocks seen so far in the current write_to / read_from, checked against the plan's at its end.
    let mut blocks: Option<Vec<u64>> = None;
    let mut in_measure = false;
    for line in code.lines() {
        let l = line.trim();
        if let Some(rest) = l.strip_prefix("/// Fixed blocks: ") {
            doc_blocks = Some(rest.trim_end_matches('.').to_string());
        }
        if let Some(rest) = line.strip_prefix("struct ").filter(|r| r.ends_with(" {")) {
            let name = ident(rest);
            if let Some(p) = by_name.get(&name).and_then(|id| plan.get(*id)) {
                assert_eq!(doc_blocks, expected_doc_blocks(p), "doc of {name}\n{text}");
                checked += 1;
                current = Some(p);
            } else {
                current = None; // a view: its members have no sizes
            }
            doc_blocks = None;
        }
        // `inline bool Name::write_to(` etc. (and `bool Name::read_fields(` after its
        // `template` line): the definitions of one type.
        let def = line
            .strip_prefix("inline ")
            .map(|rest| rest.split_once(' ').map_or("", |(_, r)| r))
            .or_else(|| line.strip_prefix("bool "));
        if let Some(after_ty) = def {
            current = owner(&ident(after_ty));
            let func = after_ty.split_once("::").map_or("", |(_, f)| f);
            in_measure = func.starts_with("measure(");
            blocks = (func.starts_with("write_to(") || func.starts_with("read_from(")).then(Vec::new);
        }
        if line == "}" {
            if let (Some(seen), Some(p)) = (blocks.take(), current) {
                assert_eq!(seen, block_sizes(p), "blocks of a write_to/read_from\n{text}\n{code}");
                checked += 1;
            }
        }
        let Some(p) = current else { continue };
        if let Some(n) = number_after(l, "static constexpr size_t SIZE = ") {
            assert_eq!(Some(n), p.size.fixed, "SIZE\n{text}");
            checked += 1;
        }
        if let Some(n) = number_after(l, "wirelens::Fits&) noexcept { return ") {
            assert_eq!(Some(n), p.size.fixed, "fixed measure\n{text}");
            checked += 1;
        }
        if let Some(n) = number_after(l, "static constexpr uint16_t MESSAGE_ID = ") {
            assert_eq!(Some(n as u16), p.message_id, "MESSAGE_ID\n{text}");
            checked += 1;
        }
        if in_measure {
            if let Some(n) = number_after(l, "size_t n = ") {
                assert_eq!(n, p.exact_size.constant, "measure constant\n{text}");
                checked += 1;
            } else if let Some(n) = number_after(l, "n += ") {
                assert!(
                    formula_numbers(p).contains(&n),
                    "`{l}`: not in the plan's formula\n{text}"
                );
                checked += 1;
            }
        }
        for marker in ["w.block(", "out.block(", "rd.fixed("] {
            if let Some(n) = number_after(l, marker) {
                if let Some(seen) = blocks.as_mut() {
                    seen.push(n);
                }
            }
        }
        for marker in ["rd.count32(", "rd.count16("] {
            if let Some(n) = number_after(l, marker) {
                assert!(
                    elem_mins(p).contains(&n),
                    "`{l}`: no element minimum {n} in the plan\n{text}"
                );
                checked += 1;
            }
        }
    }
    checked
}

#[test]
fn generated_cpp_prints_only_the_plans_sizes() {
    let mut checked = 0;
    for (dialect, text) in golden_schemas() {
        checked += check(dialect, &text);
    }
    let golden = checked;
    assert!(golden > 100, "golden sizes checked: {golden}");
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut schemas = 0;
    for _ in 0..150 {
        for dialect in [Dialect::Sdp, Dialect::Ffi] {
            let n = check(dialect, &random_schema(&mut rng, dialect));
            schemas += usize::from(n > 0);
            checked += n;
        }
    }
    assert!(schemas > 250, "random schemas generated: {schemas}");
    assert!(checked > golden + 3000, "sizes checked: {checked}");
}
