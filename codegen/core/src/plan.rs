//! The encoding plan (issue #13): per type, the ordered steps that write and read its
//! encoding and the formula of its exact size, read off the [`Layout`] once. The JSON
//! codec and the C, C++ and Rust emitters walk a [`TypePlan`] and execute or print it;
//! none of them decides a size, an order, a prefix, a block or an inlining rule.
//!
//! A struct's plan is its [`TypeLayout::walk`] made executable:
//! - [`Step::Block`]: a fixed block of N bytes with primitive and fixed-struct leaves at
//!   constant offsets: one bounds check and one copy;
//! - [`Step::Value`]: one variable-size value, described by a [`Value`]: a
//!   length-prefixed string, a bulk primitive array, an array of anything else, a
//!   presence byte with its payload, or a call of a nested struct's own code.
//!
//! Non-struct types (ffire roots that are arrays or primitives, aliases) have one
//! `Step::Value` (or a one-leaf block) with the empty path.
//!
//! Speed decisions, shown by [`Plan::dump`]:
//! - what is one block, and that variable-size nested structs are *called*
//!   (`Value::Struct`), not inlined: both are the layout's decision
//!   ([`TypeLayout::walk`]), taken as they are, so hovers, lints and generated code
//!   agree. Inlining copied the nested struct's code into every parent (generated Rust
//!   for the 5,000-struct benchmark schema grew from 51.9 MB to 79.8 MB with inlining to
//!   depth 4) for a gain the project's own benchmark measured at 1.02× (issue #13);
//! - which arrays are copied in bulk ([`Value::BulkPrims`]: arrays of fixed primitives);
//! - the exact size as a constant plus one term per variable-size value
//!   ([`SizeFormula`]), so encoders can reserve exactly.

use std::fmt::Write as _;

use crate::dialect::Dialect;
use crate::layout::{FixedBlock, Layout, LeafKind, SizeInfo, TypeLayout, WalkItem, Wire};
use crate::model::{Primitive, Schema, TypeId};

/// The width of a length / count prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Prefix {
    /// ffire: u16, at most 65,535 bytes / elements.
    U16,
    /// SDP: u32.
    U32,
}

impl Prefix {
    pub fn of(dialect: Dialect) -> Prefix {
        match dialect {
            Dialect::Sdp => Prefix::U32,
            Dialect::Ffi => Prefix::U16,
        }
    }

    /// Bytes on the wire.
    pub fn bytes(self) -> u64 {
        match self {
            Prefix::U16 => 2,
            Prefix::U32 => 4,
        }
    }

    /// `32` or `16`: the suffix of the runtimes' prefix functions (`str32`, `count16`, …).
    pub fn bits(self) -> &'static str {
        match self {
            Prefix::U16 => "16",
            Prefix::U32 => "32",
        }
    }

    /// Largest length / count it can express.
    pub fn max(self) -> u64 {
        match self {
            Prefix::U16 => u64::from(u16::MAX),
            Prefix::U32 => u64::from(u32::MAX),
        }
    }
}

/// How one value is written and read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// A fixed-size primitive on its own (array elements, optional payloads, where no
    /// block holds it).
    Prim(Primitive),
    /// Length prefix, then UTF-8 bytes.
    Str(Prefix),
    /// Count prefix, then the elements' little-endian bytes, copied as one run.
    BulkPrims(Prefix, Primitive),
    /// Count prefix, then each element.
    Array {
        prefix: Prefix,
        elem: Box<Value>,
        /// The smallest encoded element (at least 1): decoders refuse counts the
        /// remaining input cannot hold (spec §4.3).
        elem_min: u64,
    },
    /// Presence byte (0 or 1), then the payload when 1.
    Optional(Box<Value>),
    /// A nested struct through its own write/read code.
    Struct { id: TypeId, size: SizeInfo },
}

/// A value's exact size: `constant` plus, when variable, one [`SizeTerm`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueSize {
    pub constant: u64,
    pub term: Option<SizeTerm>,
}

/// The variable part of a value's size, evaluated on the value itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SizeTerm {
    /// `scale × len`: a string's bytes (scale 1) or the elements of an array of
    /// `scale`-byte elements.
    Len { scale: u64 },
    /// `scale` when the optional is present (fixed-size payload).
    Present { scale: u64 },
    /// The payload's size when the optional is present (variable-size payload).
    IfPresent(Box<ValueSize>),
    /// The sum of the elements' sizes (variable-size elements).
    Each(Box<ValueSize>),
    /// The nested struct's own exact size.
    Call(TypeId),
}

impl Value {
    /// The exact-size formula of this value.
    pub fn size(&self) -> ValueSize {
        let fixed = |n: u64| ValueSize {
            constant: n,
            term: None,
        };
        match self {
            Value::Prim(p) => fixed(p.fixed_size().unwrap_or(0)),
            Value::Str(pre) => ValueSize {
                constant: pre.bytes(),
                term: Some(SizeTerm::Len { scale: 1 }),
            },
            Value::BulkPrims(pre, p) => ValueSize {
                constant: pre.bytes(),
                term: Some(SizeTerm::Len {
                    scale: p.fixed_size().unwrap_or(0),
                }),
            },
            Value::Array { prefix, elem, .. } => {
                let e = elem.size();
                ValueSize {
                    constant: prefix.bytes(),
                    term: Some(match e.term {
                        None => SizeTerm::Len { scale: e.constant },
                        Some(_) => SizeTerm::Each(Box::new(e)),
                    }),
                }
            }
            Value::Optional(inner) => {
                let e = inner.size();
                ValueSize {
                    constant: 1,
                    term: Some(match e.term {
                        None => SizeTerm::Present { scale: e.constant },
                        Some(_) => SizeTerm::IfPresent(Box::new(e)),
                    }),
                }
            }
            Value::Struct { id, size } => match size.fixed {
                Some(n) => fixed(n),
                None => ValueSize {
                    constant: 0,
                    term: Some(SizeTerm::Call(*id)),
                },
            },
        }
    }

    /// The smallest encoding of this value.
    pub fn min_size(&self) -> u64 {
        match self {
            Value::Struct { size, .. } => size.min,
            other => other.size().constant,
        }
    }

    /// The fixed encoded size, when every value of this shape has one.
    pub fn fixed_size(&self) -> Option<u64> {
        let s = self.size();
        s.term.is_none().then_some(s.constant)
    }

    /// The length prefix this value starts with (strings and arrays).
    pub fn prefix(&self) -> Option<Prefix> {
        match self {
            Value::Str(p) | Value::BulkPrims(p, _) | Value::Array { prefix: p, .. } => Some(*p),
            _ => None,
        }
    }
}

/// One step of a struct's encoding, in wire order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Fixed bytes, written and read as one unit: `TypeLayout::blocks[index]`.
    Block { index: usize, block: FixedBlock },
    /// One value at `path` (declaration indices from the type down; empty for the value
    /// of a non-struct type).
    Value { path: Vec<usize>, value: Value },
}

/// The exact encoded size of a struct: `constant` plus one term per variable-size value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SizeFormula {
    pub constant: u64,
    /// (path of the value, its variable part).
    pub terms: Vec<(Vec<usize>, SizeTerm)>,
}

/// The plan of one type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypePlan {
    pub id: TypeId,
    /// Exact size when fixed, else bounds (from the layout).
    pub size: SizeInfo,
    pub steps: Vec<Step>,
    pub exact_size: SizeFormula,
    /// SDP message type id.
    pub message_id: Option<u16>,
    /// ffire root (message type).
    pub root: bool,
    /// A struct (else an alias or an ffire non-struct root, whose single value has the
    /// empty path).
    pub is_struct: bool,
}

/// Where a plan writes one struct as a value ([`Plan::struct_uses`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StructUses {
    /// How many [`Value::Struct`]s of the whole plan write it.
    pub count: usize,
    /// Every one of them is an array's element (coded many times per message).
    pub all_elements: bool,
    /// At least one of them is inside an array's element (directly or as an optional's
    /// payload there).
    pub in_an_array: bool,
}

impl StructUses {
    /// Written only as array elements (and at least once).
    pub fn only_as_elements(self) -> bool {
        self.count > 0 && self.all_elements
    }
}

/// The plans of every type of a schema whose layout is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub dialect: Dialect,
    pub prefix: Prefix,
    /// Indexed by [`TypeId`]; `None` where the layout is `None`.
    pub types: Vec<Option<TypePlan>>,
}

impl Plan {
    /// Reads the plan of every type off `layout`.
    pub fn new(layout: &Layout) -> Plan {
        let prefix = Prefix::of(layout.dialect);
        let types = layout
            .types
            .iter()
            .map(|t| t.as_ref().map(|t| type_plan(layout, prefix, t)))
            .collect();
        Plan {
            dialect: layout.dialect,
            prefix,
            types,
        }
    }

    pub fn get(&self, id: TypeId) -> Option<&TypePlan> {
        self.types.get(id).and_then(Option::as_ref)
    }

    /// By type: the places in the whole plan that write it as a struct value
    /// ([`Value::Struct`]). The generators' inlining and fixed-field-run decisions read
    /// this one count.
    pub fn struct_uses(&self) -> Vec<StructUses> {
        // `element`: the value is an array's element itself; `in_array`: it is inside one.
        fn walk(v: &Value, element: bool, in_array: bool, uses: &mut [StructUses]) {
            match v {
                Value::Struct { id, .. } => {
                    if let Some(u) = uses.get_mut(*id) {
                        u.count += 1;
                        u.all_elements &= element;
                        u.in_an_array |= in_array;
                    }
                }
                Value::Array { elem, .. } => walk(elem, true, true, uses),
                Value::Optional(inner) => walk(inner, false, in_array, uses),
                Value::Prim(_) | Value::Str(_) | Value::BulkPrims(..) => {}
            }
        }
        let mut uses = vec![
            StructUses {
                count: 0,
                all_elements: true,
                in_an_array: false,
            };
            self.types.len()
        ];
        for p in self.types.iter().flatten() {
            for step in &p.steps {
                if let Step::Value { value, .. } = step {
                    walk(value, false, false, &mut uses);
                }
            }
        }
        uses
    }

    /// Which struct fields an owned representation stores behind a pointer ([`Boxed`]),
    /// decided once here for every generator that needs it (Rust).
    pub fn boxed(&self, layout: &Layout) -> Boxed {
        Boxed::new(layout)
    }

    /// How `wire` is written and read, as a [`Value`].
    pub fn value(&self, layout: &Layout, wire: &Wire) -> Value {
        value_of(layout, self.prefix, wire)
    }

    /// A human-readable listing of every type's plan (`wirelens` debug output, tests,
    /// reviews of the speed decisions).
    pub fn dump(&self, schema: &Schema) -> String {
        let mut out = String::new();
        for p in self.types.iter().flatten() {
            out.push_str(&p.dump(schema));
        }
        out
    }
}

impl TypePlan {
    /// `Fixed blocks: 12 B at 0, 3 B at 16 + |name|` (`None` without blocks): the line
    /// every generated language puts in a type's layout comment, so they say the same.
    pub fn fixed_blocks_line(&self) -> Option<String> {
        let list: Vec<String> = self
            .steps
            .iter()
            .filter_map(|s| match s {
                Step::Block { block, .. } => Some(format!("{} B at {}", block.size, block.offset.expr())),
                _ => None,
            })
            .collect();
        (!list.is_empty()).then(|| format!("Fixed blocks: {}", list.join(", ")))
    }

    /// This type's plan as text: one line per step, then the size formula.
    pub fn dump(&self, schema: &Schema) -> String {
        let name = |id: TypeId| schema.types.get(id).map_or("?", |t| t.name.as_str());
        let mut out = String::new();
        let size = match self.size.fixed {
            Some(n) => format!("fixed {n} B"),
            None => format!("min {} B", self.size.min),
        };
        let _ = write!(out, "{} ({size}", name(self.id));
        if let Some(m) = self.message_id {
            let _ = write!(out, ", message id {m}");
        }
        if self.root {
            out.push_str(", root");
        }
        out.push_str(")\n");
        for step in &self.steps {
            match step {
                Step::Block { index, block } => {
                    let _ = writeln!(
                        out,
                        "  block #{index}: {} B at {}, one bounds check",
                        block.size,
                        block.offset.expr()
                    );
                    for l in &block.leaves {
                        let what = match l.kind {
                            LeafKind::Prim(p) => format!("{p:?}").to_lowercase(),
                            LeafKind::Struct(id) => format!("struct {} (block leaf)", name(id)),
                        };
                        let _ = writeln!(out, "    +{} {}: {what}", l.at, path_name(schema, self.id, &l.path));
                    }
                }
                Step::Value { path, value } => {
                    let at = if path.is_empty() {
                        "value".to_string()
                    } else {
                        path_name(schema, self.id, path)
                    };
                    let _ = writeln!(out, "  {at}: {}", value_text(schema, value));
                }
            }
        }
        let _ = write!(out, "  size = {}", self.exact_size.constant);
        for (path, term) in &self.exact_size.terms {
            let at = if path.is_empty() {
                "value".to_string()
            } else {
                path_name(schema, self.id, path)
            };
            let _ = write!(out, " + {}", term_text(schema, &at, term));
        }
        out.push('\n');
        out
    }
}

fn value_text(schema: &Schema, v: &Value) -> String {
    let name = |id: TypeId| schema.types.get(id).map_or("?", |t| t.name.as_str());
    let pre = |p: &Prefix| match p {
        Prefix::U16 => "u16",
        Prefix::U32 => "u32",
    };
    match v {
        Value::Prim(p) => format!("{p:?}").to_lowercase(),
        Value::Str(p) => format!("string, {} length", pre(p)),
        Value::BulkPrims(p, e) => format!("bulk {} array, {} count", format!("{e:?}").to_lowercase(), pre(p)),
        Value::Array { prefix, elem, elem_min } => format!(
            "array, {} count, each (min {elem_min} B): {}",
            pre(prefix),
            value_text(schema, elem)
        ),
        Value::Optional(inner) => format!("presence byte, then {}", value_text(schema, inner)),
        Value::Struct { id, size } => match size.fixed {
            Some(n) => format!("call struct {} ({n} B)", name(*id)),
            None => format!("call struct {}", name(*id)),
        },
    }
}

fn term_text(schema: &Schema, at: &str, t: &SizeTerm) -> String {
    let name = |id: TypeId| schema.types.get(id).map_or("?", |t| t.name.as_str());
    let inner = |s: &ValueSize| match &s.term {
        None => s.constant.to_string(),
        Some(t) if s.constant == 0 => term_text(schema, "x", t),
        Some(t) => format!("{} + {}", s.constant, term_text(schema, "x", t)),
    };
    match t {
        SizeTerm::Len { scale: 1 } => format!("len({at})"),
        SizeTerm::Len { scale } => format!("{scale}·len({at})"),
        SizeTerm::Present { scale } => format!("{scale}·present({at})"),
        SizeTerm::IfPresent(s) => format!("({}, if {at} present)", inner(s)),
        SizeTerm::Each(s) => format!("Σ x in {at}: ({})", inner(s)),
        SizeTerm::Call(id) => format!("size<{}>({at})", name(*id)),
    }
}

/// Dotted field names along a path of declaration indices.
pub fn path_name(schema: &Schema, owner: TypeId, path: &[usize]) -> String {
    let layout_free = |t: TypeId, i: usize| -> Option<(String, Option<TypeId>)> {
        let f = schema.types.get(t)?.fields().get(i)?;
        let next = match &f.ty.kind {
            crate::model::TypeExprKind::Named { target, .. } => *target,
            crate::model::TypeExprKind::Boxed(inner) => match &inner.kind {
                crate::model::TypeExprKind::Named { target, .. } => *target,
                _ => None,
            },
            _ => None,
        };
        Some((f.name.clone(), next))
    };
    let mut names = Vec::with_capacity(path.len());
    let mut ty = Some(owner);
    for &i in path {
        let Some((n, next)) = ty.and_then(|t| layout_free(t, i)) else {
            names.push("?".to_string());
            ty = None;
            continue;
        };
        names.push(n);
        // Follow aliases to the struct they name.
        ty = next.and_then(|t| match &schema.types.get(t)?.kind {
            crate::model::TypeKind::Struct { .. } => Some(t),
            crate::model::TypeKind::Alias { .. } => None,
        });
    }
    names.join(".")
}

fn value_of(layout: &Layout, prefix: Prefix, wire: &Wire) -> Value {
    match wire {
        Wire::Prim(Primitive::Str) => Value::Str(prefix),
        Wire::Prim(p) => Value::Prim(*p),
        Wire::Array(e) => match &**e {
            Wire::Prim(p) if *p != Primitive::Str => Value::BulkPrims(prefix, *p),
            e => Value::Array {
                prefix,
                elem: Box::new(value_of(layout, prefix, e)),
                elem_min: layout.size_of(e).min.max(1),
            },
        },
        Wire::Optional(e) => Value::Optional(Box::new(value_of(layout, prefix, e))),
        Wire::Struct(id) => Value::Struct {
            id: *id,
            size: layout.size_of(wire),
        },
    }
}

fn type_plan(layout: &Layout, prefix: Prefix, t: &TypeLayout) -> TypePlan {
    let is_struct = matches!(t.wire, Wire::Struct(s) if s == t.id);
    let steps: Vec<Step> = if is_struct {
        t.walk
            .iter()
            .filter_map(|item| match item {
                WalkItem::Block(i) => t.blocks.get(*i).map(|b| Step::Block {
                    index: *i,
                    block: b.clone(),
                }),
                WalkItem::Item { path, wire } => Some(Step::Value {
                    path: path.clone(),
                    value: value_of(layout, prefix, wire),
                }),
            })
            .collect()
    } else {
        vec![Step::Value {
            path: vec![],
            value: value_of(layout, prefix, &t.wire),
        }]
    };
    let mut exact_size = SizeFormula {
        constant: 0,
        terms: Vec::new(),
    };
    for s in &steps {
        match s {
            Step::Block { block, .. } => exact_size.constant += block.size,
            Step::Value { path, value } => {
                let vs = value.size();
                exact_size.constant += vs.constant;
                if let Some(term) = vs.term {
                    exact_size.terms.push((path.clone(), term));
                }
            }
        }
    }
    TypePlan {
        id: t.id,
        size: t.size,
        steps,
        exact_size,
        message_id: t.message_id,
        root: t.root,
        is_struct,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{analyze, OrderChoice};

    fn plan(dialect: Dialect, text: &str) -> (crate::Analysis, Plan) {
        let a = analyze(dialect, text, None, OrderChoice::default());
        let p = Plan::new(&a.layout);
        (a, p)
    }

    #[test]
    fn fixed_struct_is_one_block_and_its_size_is_a_constant() {
        let (a, p) = plan(Dialect::Sdp, "struct P { x: u32, ok: bool, y: f64 }");
        let t = p.get(0).expect("plan");
        assert_eq!(t.steps.len(), 1, "{}", p.dump(&a.schema));
        assert!(matches!(&t.steps[0], Step::Block { block, .. } if block.size == 13 && block.leaves.len() == 3));
        assert_eq!(t.exact_size.constant, 13);
        assert!(t.exact_size.terms.is_empty());
        assert_eq!(t.size.fixed, Some(13));
    }

    #[test]
    fn steps_follow_wire_order_with_prefixes_and_presence() {
        // ffire canonical order: Id (8), Flag (1), then Name, Tags, Opt.
        let (a, p) = plan(
            Dialect::Ffi,
            "package p\ntype Rec struct {\n\tName string\n\tOpt *int32\n\tFlag bool\n\tTags []int16\n\tId int64\n}\n",
        );
        assert_eq!(
            p.dump(&a.schema),
            "Rec (min 14 B, root)\n  block #0: 9 B at 0, one bounds check\n    +0 Id: i64\n    +8 Flag: bool\n  Name: string, u16 length\n  Tags: bulk i16 array, u16 count\n  Opt: presence byte, then i32\n  size = 14 + len(Name) + 2·len(Tags) + 4·present(Opt)\n",
        );
    }

    #[test]
    fn variable_nested_structs_are_called_and_fixed_ones_are_block_leaves() {
        let (a, p) = plan(
            Dialect::Sdp,
            "struct In { x: u32, s: str, y: u32 }\nstruct Fx { a: u8, b: u16 }\nstruct Out { a: u32, f: Fx, i: In, b: u16, v: []In, o: Option<In> }",
        );
        let dump = p.dump(&a.schema);
        assert_eq!(
            dump.split("Out (").nth(1).map(|s| format!("Out ({s}")),
            Some(
                "Out (min 26 B, message id 3)\n  block #0: 7 B at 0, one bounds check\n    +0 a: u32\n    +4 f: struct Fx (block leaf)\n  i: call struct In\n  block #1: 2 B at 19 + |i|, one bounds check\n    +0 b: u16\n  v: array, u32 count, each (min 12 B): call struct In\n  o: presence byte, then call struct In\n  size = 14 + size<In>(i) + Σ x in v: (size<In>(x)) + (size<In>(x), if o present)\n"
                    .to_string()
            ),
            "{dump}"
        );
    }

    #[test]
    fn the_plan_takes_the_layouts_blocks_as_they_are() {
        let (a, p) = plan(
            Dialect::Sdp,
            "struct In { x: u32, s: str, y: u32 }\nstruct Fx { a: u8, b: u16 }\nstruct Out { a: u32, f: Fx, i: In, b: u16, v: []In, o: Option<In> }",
        );
        for (id, t) in p.types.iter().enumerate() {
            let t = t.as_ref().expect("plan");
            let l = a.layout.get(id).expect("layout");
            let blocks: Vec<&FixedBlock> = t
                .steps
                .iter()
                .filter_map(|s| match s {
                    Step::Block { block, .. } => Some(block),
                    _ => None,
                })
                .collect();
            assert_eq!(blocks, l.blocks.iter().collect::<Vec<_>>(), "{}", t.dump(&a.schema));
        }
        // `In` is variable: one block before it, one after, never fields of it.
        assert_eq!(a.layout.get(2).map(|l| l.blocks.len()), Some(2));
    }

    #[test]
    fn the_formula_constant_plus_called_minimums_is_the_layout_minimum() {
        let (a, p) = plan(
            Dialect::Sdp,
            "struct A { s: str, n: Option<u8>, k: [][]u8, f: Fx }\nstruct Fx { a: u8, b: u64 }\nstruct B { a: A, x: u8 }",
        );
        for (id, t) in p.types.iter().enumerate() {
            let t = t.as_ref().expect("plan");
            let l = a.layout.get(id).expect("layout");
            let called: u64 = t
                .exact_size
                .terms
                .iter()
                .map(|(_, term)| match term {
                    SizeTerm::Call(c) => a.layout.get(*c).map_or(0, |c| c.size.min),
                    _ => 0,
                })
                .sum();
            assert_eq!(t.exact_size.constant + called, l.size.min, "{}", t.dump(&a.schema));
            assert_eq!(t.exact_size.terms.is_empty(), l.size.fixed.is_some());
        }
    }

    #[test]
    fn non_struct_roots_are_one_value() {
        let (a, p) = plan(Dialect::Ffi, "package p\ntype Ints []int32\n");
        assert_eq!(
            p.dump(&a.schema),
            "Ints (min 2 B, root)\n  value: bulk i32 array, u16 count\n  size = 2 + 4·len(value)\n"
        );
        let t = p.get(0).expect("plan");
        assert!(!t.is_struct);
    }

    #[test]
    fn value_sizes() {
        let v = Value::Array {
            prefix: Prefix::U32,
            elem: Box::new(Value::Optional(Box::new(Value::Str(Prefix::U32)))),
            elem_min: 1,
        };
        assert_eq!(v.min_size(), 4);
        assert_eq!(v.fixed_size(), None);
        assert_eq!(
            Value::Optional(Box::new(Value::Prim(Primitive::U16))).size().constant,
            1
        );
        assert_eq!(Value::Prim(Primitive::F64).fixed_size(), Some(8));
        assert_eq!(Prefix::U16.max(), 65_535);
    }
}

/// How deep values may nest *inline* (a struct stored in its parent, directly or inside
/// `Option`s, not behind an array's heap storage) before a field is stored behind a
/// pointer: rustc computes a type's layout, its drop and its struct tail by recursing
/// through every inline field, and its query depth limit (`recursion_limit`, 128) is
/// reached by a chain of about 128 plain structs or 64 `Option<struct>` levels (issue 39:
/// an SDP chain `D0 { n: Option<D1> }` … `D100` did not compile). Each inline struct
/// counts 1 and each `Option` around it 1 more; 96 leaves a margin for what the user's
/// own code nests around a generated type.
pub const MAX_INLINE_DEPTH: u32 = 96;

/// The fields whose struct (alone or inside `Option`s: `Option<S>`, `Option<Option<S>>`)
/// an owned representation stores behind a pointer (Rust: `Box<S>`, `Option<Box<S>>`), so
/// that no type nests more than [`MAX_INLINE_DEPTH`] levels inline. Greedy, dependencies
/// first: a field is boxed when storing it inline would take its struct past the limit;
/// a boxed field counts as one level. Schemas that nest less are unaffected (nothing is
/// boxed). Arrays are never boxed: their elements are on the heap already. The wire is the
/// same either way.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Boxed {
    /// Per type id, per field in declaration order: boxed.
    fields: Vec<Vec<bool>>,
}

impl Boxed {
    /// Computed off the layout, without recursion (an iterative depth-first order of the
    /// inline references; cycles, which the checks reject, are cut).
    pub fn new(layout: &Layout) -> Boxed {
        let n = layout.types.len();
        // The struct a field stores inline, and how many `Option`s wrap it.
        let inline = |w: &Wire| -> Option<(TypeId, u32)> {
            let mut w = w;
            let mut options = 0;
            loop {
                match w {
                    Wire::Optional(e) => {
                        options += 1;
                        w = e;
                    }
                    Wire::Struct(id) => return Some((*id, options)),
                    _ => return None,
                }
            }
        };
        let deps = |id: TypeId| -> Vec<TypeId> {
            layout
                .get(id)
                .map(|t| {
                    t.fields
                        .iter()
                        .filter_map(|f| inline(&f.wire).map(|(s, _)| s))
                        .collect()
                })
                .unwrap_or_default()
        };
        // Post-order: every type after the structs it stores inline.
        let mut order = Vec::with_capacity(n);
        let mut seen = vec![false; n];
        for root in 0..n {
            if seen[root] || layout.get(root).is_none() {
                continue;
            }
            seen[root] = true;
            let mut stack = vec![(root, deps(root), 0usize)];
            while let Some((id, ds, i)) = stack.last_mut() {
                if let Some(&d) = ds.get(*i) {
                    *i += 1;
                    if d < n && !seen[d] && layout.get(d).is_some() {
                        seen[d] = true;
                        stack.push((d, deps(d), 0));
                    }
                } else {
                    order.push(*id);
                    stack.pop();
                }
            }
        }
        let mut depth = vec![1u32; n];
        let mut fields: Vec<Vec<bool>> = vec![Vec::new(); n];
        for id in order {
            let Some(t) = layout.get(id) else { continue };
            let count = t.fields.iter().map(|f| f.decl_index + 1).max().unwrap_or(0);
            let mut boxed = vec![false; count];
            let mut deepest = 0u32;
            for f in &t.fields {
                let Some((s, options)) = inline(&f.wire) else { continue };
                let through = options + 1 + depth.get(s).copied().unwrap_or(1);
                if through > MAX_INLINE_DEPTH {
                    boxed[f.decl_index] = true;
                    deepest = deepest.max(options + 1);
                } else {
                    deepest = deepest.max(through);
                }
            }
            depth[id] = deepest.max(1);
            fields[id] = boxed;
        }
        Boxed { fields }
    }

    /// Field `decl_index` of struct `id` is stored behind a pointer.
    pub fn field(&self, id: TypeId, decl_index: usize) -> bool {
        self.fields
            .get(id)
            .and_then(|f| f.get(decl_index))
            .copied()
            .unwrap_or(false)
    }

    /// Some field of struct `id` is.
    pub fn any(&self, id: TypeId) -> bool {
        self.fields.get(id).is_some_and(|f| f.contains(&true))
    }
}
