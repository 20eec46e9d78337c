//! Every size the generated C prints is the plan's (issue #13): over the golden schemas
//! and a few hundred pseudo-random ones, the `T_SIZE` defines, the constant of every
//! measure function, each number a measure adds or multiplies by, every fixed-block
//! bounds check and advance, every array's minimum element size, and the "Fixed blocks"
//! doc line of every struct equal what `codegen::plan` says for that type. An emitter
//! that computed a size itself (and got it different) fails here.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use codegen::emit::c::{generate, Names};
use codegen::plan::{Plan, SizeTerm, Step, TypePlan, Value, ValueSize};
use codegen::{analyze, Dialect, OrderChoice};

/// A small deterministic generator (xorshift), enough to vary shapes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// An SDP schema of 2–7 structs; struct `i` may use structs `< i`.
fn random_sdp(rng: &mut Rng) -> String {
    const PRIMS: [&str; 12] = [
        "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f32", "f64", "bool", "str",
    ];
    let n = 2 + rng.below(6) as usize;
    let mut out = String::new();
    for i in 0..n {
        out.push_str(&format!("struct S{i} {{\n"));
        for f in 0..1 + rng.below(6) {
            let base = if i > 0 && rng.below(3) == 0 {
                format!("S{}", rng.below(i as u64))
            } else {
                PRIMS[rng.below(PRIMS.len() as u64) as usize].to_string()
            };
            let ty = match rng.below(7) {
                0 => format!("[]{base}"),
                1 => format!("Option<{base}>"),
                2 => format!("[]Option<{base}>"),
                3 => format!("Option<[]{base}>"),
                _ => base,
            };
            out.push_str(&format!("    f{f}: {ty},\n"));
        }
        out.push_str("}\n");
    }
    out
}

/// The same in ffire (canonical order sorts fields by size class).
fn random_ffi(rng: &mut Rng) -> String {
    const PRIMS: [&str; 8] = [
        "int8", "int16", "int32", "int64", "float32", "float64", "bool", "string",
    ];
    let n = 2 + rng.below(6) as usize;
    let mut out = String::from("package p\n");
    for i in 0..n {
        out.push_str(&format!("type S{i} struct {{\n"));
        for f in 0..1 + rng.below(6) {
            let base = if i > 0 && rng.below(3) == 0 {
                format!("S{}", rng.below(i as u64))
            } else {
                PRIMS[rng.below(PRIMS.len() as u64) as usize].to_string()
            };
            let ty = match rng.below(6) {
                0 => format!("[]{base}"),
                1 => format!("*{base}"),
                2 => format!("[]*{base}"),
                _ => base,
            };
            out.push_str(&format!("\tF{f} {ty}\n"));
        }
        out.push_str("}\n");
    }
    out
}

fn number_after(line: &str, marker: &str) -> Option<u64> {
    let rest = &line[line.find(marker)? + marker.len()..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

fn block_sizes(p: &TypePlan) -> Vec<u64> {
    p.steps
        .iter()
        .filter_map(|s| match s {
            Step::Block { block, .. } => Some(block.size),
            _ => None,
        })
        .collect()
}

/// Every constant and scale of the plan's size formula (what measures may add or multiply by).
fn formula_numbers(p: &TypePlan) -> BTreeSet<u64> {
    fn term(t: &SizeTerm, out: &mut BTreeSet<u64>) {
        match t {
            SizeTerm::Len { scale } | SizeTerm::Present { scale } => {
                out.insert(*scale);
            }
            SizeTerm::IfPresent(vs) | SizeTerm::Each(vs) => value(vs, out),
            SizeTerm::Call(_) => {}
        }
    }
    fn value(vs: &ValueSize, out: &mut BTreeSet<u64>) {
        out.insert(vs.constant);
        if let Some(t) = &vs.term {
            term(t, out);
        }
    }
    let mut out = BTreeSet::new();
    for (_, t) in &p.exact_size.terms {
        term(t, &mut out);
    }
    out
}

/// The minimum element sizes of the plan's arrays.
fn elem_mins(p: &TypePlan) -> BTreeSet<u64> {
    fn value(v: &Value, out: &mut BTreeSet<u64>) {
        match v {
            Value::Array { elem, elem_min, .. } => {
                out.insert(*elem_min);
                value(elem, out);
            }
            Value::Optional(e) => value(e, out),
            _ => {}
        }
    }
    let mut out = BTreeSet::new();
    for s in &p.steps {
        if let Step::Value { value: v, .. } = s {
            value(v, &mut out);
        }
    }
    out
}

/// Checks one schema's generated C against its plan; returns the number of sizes checked.
fn check(dialect: Dialect, text: &str) -> usize {
    let a = analyze(dialect, text, None, OrderChoice::default());
    if a.schema
        .types
        .iter()
        .enumerate()
        .any(|(id, _)| a.layout.get(id).is_none())
    {
        return 0; // a random schema with an error (e.g. a name clash): nothing to generate
    }
    let plan = Plan::new(&a.layout);
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
                let expected: Vec<String> = p
                    .steps
                    .iter()
                    .filter_map(|s| match s {
                        Step::Block { block, .. } => Some(format!("{} B at {}", block.size, block.offset.expr())),
                        _ => None,
                    })
                    .collect();
                let expected = (!expected.is_empty()).then(|| expected.join(", "));
                assert_eq!(doc_blocks, expected, "doc of {name}\n{text}");
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
    let vectors = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors");
    for entry in walk(&vectors) {
        let Some(dialect) = Dialect::from_path(&entry) else {
            continue;
        };
        let text = std::fs::read_to_string(&entry).expect("read schema");
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

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}
