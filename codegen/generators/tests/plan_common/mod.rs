//! What the `plan_sizes*` tests share: pseudo-random schemas, and the sizes a plan
//! holds, gathered the way each test compares them with what an emitter printed.
// Each test binary uses a different part of this module.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::path::Path;

use wirelens_core::plan::{Plan, SizeTerm, Step, TypePlan, Value, ValueSize};
use wirelens_core::{analyze, Analysis, Dialect, OrderChoice};

/// A small deterministic generator (xorshift), enough to vary shapes.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// An SDP schema of 2–7 structs; struct `i` may use structs `< i`.
pub fn random_sdp(rng: &mut Rng) -> String {
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
pub fn random_ffi(rng: &mut Rng) -> String {
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

/// A schema of 2–8 structs; struct `i` may use structs `< i` (so nested variable structs
/// chain deep enough to reach the layout's inlining limit).
pub fn random_schema(rng: &mut Rng, dialect: Dialect) -> String {
    let prims: &[&str] = match dialect {
        Dialect::Sdp => &[
            "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f32", "f64", "bool", "str",
        ],
        Dialect::Ffi => &[
            "int8", "int16", "int32", "int64", "float32", "float64", "bool", "string",
        ],
    };
    let n = 2 + rng.below(7) as usize;
    let mut out = String::new();
    if dialect == Dialect::Ffi {
        out.push_str("package p\n");
    }
    for i in 0..n {
        match dialect {
            Dialect::Sdp => out.push_str(&format!("struct S{i} {{\n")),
            Dialect::Ffi => out.push_str(&format!("type S{i} struct {{\n")),
        }
        for f in 0..1 + rng.below(6) {
            let base = if i > 0 && rng.below(2) == 0 {
                format!("S{}", i - 1 - rng.below(i.min(2) as u64) as usize)
            } else {
                prims[rng.below(prims.len() as u64) as usize].to_string()
            };
            let ty = match (dialect, rng.below(7)) {
                (_, 0) => format!("[]{base}"),
                (_, 1) => format!("[][]{base}"),
                (Dialect::Sdp, 2) => format!("Option<{base}>"),
                (Dialect::Sdp, 3) => format!("[]Option<{base}>"),
                (Dialect::Ffi, 2) => format!("*{base}"),
                (Dialect::Ffi, 3) => format!("[]*{base}"),
                _ => base,
            };
            match dialect {
                Dialect::Sdp => out.push_str(&format!("    f{f}: {ty},\n")),
                Dialect::Ffi => out.push_str(&format!("\tF{f} {ty}\n")),
            }
        }
        out.push_str("}\n");
    }
    out
}

pub fn number_after(line: &str, marker: &str) -> Option<u64> {
    let rest = &line[line.find(marker)? + marker.len()..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

pub fn block_sizes(p: &TypePlan) -> Vec<u64> {
    p.steps
        .iter()
        .filter_map(|s| match s {
            Step::Block { block, .. } => Some(block.size),
            _ => None,
        })
        .collect()
}

/// Every constant and scale of the plan's size formula (what measures may add or multiply by).
pub fn formula_numbers(p: &TypePlan) -> BTreeSet<u64> {
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
pub fn elem_mins(p: &TypePlan) -> BTreeSet<u64> {
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

pub fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
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

/// Every schema among the golden vectors, with its dialect.
pub fn golden_schemas() -> Vec<(Dialect, String)> {
    let vectors = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors");
    walk(&vectors)
        .into_iter()
        .filter_map(|p| {
            Some((
                Dialect::from_path(&p)?,
                std::fs::read_to_string(&p).expect("read schema"),
            ))
        })
        .collect()
}

/// `text` analysed, with its plan; `None` when a type has no layout (a random schema with
/// an error, e.g. a name clash): nothing to generate.
pub fn analyzed(dialect: Dialect, text: &str) -> Option<(Analysis, Plan)> {
    let a = analyze(dialect, text, None, OrderChoice::default());
    if (0..a.schema.types.len()).any(|id| a.layout.get(id).is_none()) {
        return None;
    }
    let plan = Plan::new(&a.layout);
    Some((a, plan))
}

/// What a type's "Fixed blocks: …" comment must list: the plan's blocks in order
/// (written out here rather than by `TypePlan::fixed_blocks_line`, so the tests check
/// the emitters against the plan's steps, not against the function they call).
pub fn expected_doc_blocks(p: &TypePlan) -> Option<String> {
    let list: Vec<String> = p
        .steps
        .iter()
        .filter_map(|s| match s {
            Step::Block { block, .. } => Some(format!("{} B at {}", block.size, block.offset.expr())),
            _ => None,
        })
        .collect();
    (!list.is_empty()).then(|| list.join(", "))
}
