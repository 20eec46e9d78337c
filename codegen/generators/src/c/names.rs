//! Every C name of one schema's generated code. Identifiers are escaped, never rejected:
//! a schema name becomes ASCII (`_uXXXX` for anything else), C and C++ keywords and the
//! standard headers' macros get a trailing `_`, and a name that clashes with one the
//! generated code defines (`T_size`, `T_view`, the dispatcher's) gets more. [`Names`]
//! holds them all — the module prefix, type and field names, the derived array/option
//! types — and the type order: each type after the types its plan refers to (the order
//! C needs: a struct's members held by value are complete before it).

use std::fmt::Write as _;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::{field_ident, module_name};
use wirelens_core::dialect::Dialect;
use wirelens_core::layout::{Layout, LeafKind, Wire};
use wirelens_core::model::{Primitive, Schema, TypeId};
use wirelens_core::plan::{Plan, Step, Value};

/// C11 keywords, C23 keywords and the macros of the standard headers the generated code
/// includes, escaped with a trailing `_` when they name a field.
const KEYWORDS: &[&str] = &[
    "auto",
    "break",
    "case",
    "char",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "float",
    "for",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "register",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "typedef",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
    "_Alignas",
    "_Alignof",
    "_Atomic",
    "_Bool",
    "_Complex",
    "_Generic",
    "_Imaginary",
    "_Noreturn",
    "_Static_assert",
    "_Thread_local",
    "alignas",
    "alignof",
    "bool",
    "constexpr",
    "false",
    "nullptr",
    "static_assert",
    "thread_local",
    "true",
    "typeof",
    "typeof_unqual",
    "NULL",
    "offsetof",
    "errno",
    "assert",
    "stdin",
    "stdout",
    "stderr",
    "EOF",
    "complex",
    "imaginary",
    "noreturn",
    "size_t",
    "int8_t",
    "int16_t",
    "int32_t",
    "int64_t",
    "uint8_t",
    "uint16_t",
    "uint32_t",
    "uint64_t",
    "uintptr_t",
    "max_align_t",
    "ptrdiff_t",
    "wchar_t",
];

/// Per-type identifiers the generated code defines besides the type itself (`T_<suffix>`).
const TYPE_SUFFIXES: &[&str] = &[
    "type",
    "CODEC_",
    "view_type",
    "view",
    "size",
    "encode",
    "encode_buf",
    "decode",
    "decode_prefix",
    "decode_view",
    "decode_view_prefix",
    "view_size",
    "view_encode",
    "view_encode_buf",
    "SIZE",
    "MESSAGE_ID",
    "encode_message",
    "encode_message_buf",
    "decode_message",
    "decode_message_prefix",
    "decode_message_view",
    "decode_message_view_prefix",
    "measure",
    "write",
    "read",
    "get",
    "put",
    "view_measure",
    "view_write",
    "view_read",
    "measure_any",
    "write_any",
    "read_any",
    "view_measure_any",
    "view_write_any",
    "view_read_any",
];

/// Dispatcher identifiers (SDP), after the prefix.
const DISPATCH_NAMES: &[&str] = &[
    "Message",
    "MessageKind",
    "Message_NONE",
    "Message_decode",
    "Message_decode_prefix",
    "Message_encode",
    "Message_encode_buf",
    "Message_types",
];

/// A C identifier for a schema name: ASCII letters, digits and `_`; anything else
/// becomes `_uXXXX`; names reserved to the implementation (`__x`, `_X`) get an `x`.
fn sanitize(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for ch in name.chars() {
        if ch.is_ascii_alphanumeric() || ch == '_' {
            out.push(ch);
        } else {
            let _ = write!(out, "_u{:04X}", ch as u32);
        }
    }
    let b = out.as_bytes();
    if b.is_empty()
        || b[0].is_ascii_digit()
        || (b[0] == b'_' && b.get(1).is_some_and(|c| *c == b'_' || c.is_ascii_uppercase()))
    {
        out.insert(0, 'x');
    }
    out
}

/// A member name: keywords escaped with a trailing `_`, never rejected. C++ keywords
/// count too: the header has `extern "C"` guards and is meant to be included from C++.
pub fn ident(name: &str) -> String {
    let s = sanitize(name);
    if KEYWORDS.contains(&s.as_str()) || crate::cpp::RESERVED.contains(&s.as_str()) {
        format!("{s}_")
    } else {
        s
    }
}

/// A C string literal (octal escapes for anything outside printable ASCII; `?` escaped
/// so no trigraph can form).
pub fn c_string(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for b in s.bytes() {
        match b {
            b'"' => o.push_str("\\\""),
            b'\\' => o.push_str("\\\\"),
            b'?' => o.push_str("\\?"),
            0x20..=0x7e => o.push(b as char),
            _ => {
                let _ = write!(o, "\\{b:03o}");
            }
        }
    }
    o.push('"');
    o
}

/// Text safe inside a `//` comment: no line splice, no trigraph, no control characters.
pub(super) fn comment(s: &str) -> String {
    let mut t: String = s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    while t.contains("??") {
        t = t.replace("??", "? ?");
    }
    let mut t = t.trim_end().to_string();
    if t.ends_with('\\') {
        t.push('.');
    }
    t
}

/// The runtime's short name of a primitive (`wl_u32_view`, `wl_str`); the conformance
/// engines use it too.
pub fn prim_short(p: Primitive) -> &'static str {
    match p {
        Primitive::U8 => "u8",
        Primitive::U16 => "u16",
        Primitive::U32 => "u32",
        Primitive::U64 => "u64",
        Primitive::I8 => "i8",
        Primitive::I16 => "i16",
        Primitive::I32 => "i32",
        Primitive::I64 => "i64",
        Primitive::F32 => "f32",
        Primitive::F64 => "f64",
        Primitive::Bool => "bool",
        Primitive::Str => "str",
    }
}

/// The C type of a primitive.
pub fn prim_c(p: Primitive) -> &'static str {
    match p {
        Primitive::U8 => "uint8_t",
        Primitive::U16 => "uint16_t",
        Primitive::U32 => "uint32_t",
        Primitive::U64 => "uint64_t",
        Primitive::I8 => "int8_t",
        Primitive::I16 => "int16_t",
        Primitive::I32 => "int32_t",
        Primitive::I64 => "int64_t",
        Primitive::F32 => "float",
        Primitive::F64 => "double",
        Primitive::Bool => "bool",
        Primitive::Str => "wl_str",
    }
}

/// Every C name of one schema's generated code: the prefix, type names, field names and
/// the names of derived array/option types. Public so test drivers and the conformance
/// harness name things exactly as the emitter does.
pub struct Names {
    /// Prepended (with `_`) to every symbol.
    pub prefix: String,
    /// Per type: the name after the prefix (`AudioUnit`, `PluginListMessage`).
    short: Vec<String>,
    /// Per type: field identifiers in declaration order.
    fields: Vec<Vec<String>>,
    /// Per type: strings or arrays inside (decoders copy or borrow).
    borrows: Vec<bool>,
    /// Per type: the view type differs (arrays of primitives inside).
    has_view: Vec<bool>,
    /// Per type: encoding can fail (a string or array inside: length limits).
    can_fail: Vec<bool>,
    /// Derived array/option types: (wire, view) → full name.
    derived: FxHashMap<(Wire, bool), String>,
    /// Types in dependency order (a type after every type it mentions).
    pub order: Vec<TypeId>,
}

/// The symbols [`Names`] has given out: type names, each of which also claims
/// `NAME_SUFFIX` for every suffix in [`TYPE_SUFFIXES`], and other names (dispatch
/// functions, derived array/option types). The suffixed names are tested, not stored:
/// for a large schema a set of every symbol was a tenth of the C generator's time.
#[derive(Default)]
struct Taken {
    types: FxHashSet<String>,
    other: FxHashSet<String>,
}

impl Taken {
    fn contains(&self, name: &str) -> bool {
        self.other.contains(name)
            || self.types.contains(name)
            || name
                .match_indices('_')
                .any(|(k, _)| TYPE_SUFFIXES.contains(&&name[k + 1..]) && self.types.contains(&name[..k]))
    }

    /// Whether `full`, or a name it would claim as a type name, is taken.
    fn clashes_as_type(&self, full: &str) -> bool {
        let mut probe = String::with_capacity(full.len() + 16);
        self.contains(full)
            || TYPE_SUFFIXES.iter().any(|s| {
                probe.clear();
                probe.push_str(full);
                probe.push('_');
                probe.push_str(s);
                self.contains(&probe)
            })
    }
}

impl Names {
    pub fn new(schema: &Schema, layout: &Layout, source: &str) -> Names {
        Names::with_plan(schema, layout, &Plan::new(layout), source)
    }

    /// [`Names::new`] for a plan already read off `layout`.
    pub fn with_plan(schema: &Schema, layout: &Layout, plan: &Plan, source: &str) -> Names {
        let module = module_name(source);
        let prefix = if module == "wl" || module.starts_with("wl_") {
            format!("x{module}")
        } else {
            module
        };
        let n = schema.types.len();
        let order = plan_order(plan);
        let mut names = Names {
            prefix,
            short: vec![String::new(); n],
            fields: vec![Vec::new(); n],
            borrows: vec![false; n],
            has_view: vec![false; n],
            can_fail: vec![false; n],
            derived: FxHashMap::default(),
            order,
        };
        // Flags, dependencies first (no recursion over the type graph).
        for &id in &names.order.clone() {
            let Some(t) = layout.get(id) else { continue };
            let wires: Vec<&Wire> = if schema.types[id].is_struct() {
                t.fields.iter().map(|f| &f.wire).collect()
            } else {
                vec![&t.wire]
            };
            names.borrows[id] = wires
                .iter()
                .any(|w| names.wire_flag(w, &names.borrows, FlagKind::Borrows));
            names.has_view[id] = wires
                .iter()
                .any(|w| names.wire_flag(w, &names.has_view, FlagKind::View));
            names.can_fail[id] = names.borrows[id];
        }
        let mut taken = Taken::default();
        let p = names.prefix.clone();
        if schema.dialect == Dialect::Sdp {
            for d in DISPATCH_NAMES {
                taken.other.insert(format!("{p}_{d}"));
            }
        }
        for (id, def) in schema.types.iter().enumerate() {
            let mut short = sanitize(&def.name);
            if layout.get(id).is_some_and(|t| t.root) {
                short.push_str("Message");
            }
            let full = loop {
                let full = format!("{p}_{short}");
                if !taken.clashes_as_type(&full) {
                    break full;
                }
                short.push('_');
            };
            taken.types.insert(full);
            names.short[id] = short;
            names.fields[id] = crate::unique_in_order(
                def.fields().iter().map(|f| ident(&field_ident(&f.name))),
                |base, attempt| format!("{base}{}", "_".repeat(attempt)),
            );
        }
        // Derived types, in a fixed order: types as written, fields as written.
        let mut wires: Vec<Wire> = Vec::new();
        for (id, def) in schema.types.iter().enumerate() {
            let Some(t) = layout.get(id) else { continue };
            if def.is_struct() {
                for i in 0..def.fields().len() {
                    if let Some(f) = t.field_by_decl(i) {
                        wires.push(f.wire.clone());
                    }
                }
            } else {
                wires.push(t.wire.clone());
            }
        }
        for w in wires {
            for view in [false, true] {
                let mut stack = vec![w.clone()];
                while let Some(w) = stack.pop() {
                    match &w {
                        Wire::Array(e) | Wire::Optional(e) => stack.push((**e).clone()),
                        _ => continue,
                    }
                    if names.runtime_type(&w, view).is_some() {
                        continue;
                    }
                    let key = (w.clone(), view && names.has_view_wire(&w));
                    if names.derived.contains_key(&key) {
                        continue;
                    }
                    let mut full = format!("{p}_{}", names.suffix_name(&w, key.1));
                    while taken.contains(&full) {
                        full.push('_');
                    }
                    taken.other.insert(full.clone());
                    names.derived.insert(key, full);
                }
            }
        }
        names
    }

    fn wire_flag(&self, w: &Wire, per_type: &[bool], kind: FlagKind) -> bool {
        match w {
            Wire::Prim(p) => kind == FlagKind::Borrows && *p == Primitive::Str,
            Wire::Array(e) => match &**e {
                Wire::Prim(p) if *p != Primitive::Str => true,
                e => kind == FlagKind::Borrows || self.wire_flag(e, per_type, kind),
            },
            Wire::Optional(e) => self.wire_flag(e, per_type, kind),
            Wire::Struct(id) => per_type.get(*id).copied().unwrap_or(false),
        }
    }

    /// Whether values of `w` contain strings or arrays.
    pub fn borrows_wire(&self, w: &Wire) -> bool {
        self.wire_flag(w, &self.borrows, FlagKind::Borrows)
    }

    /// Whether the view type of `w` differs from its owned type.
    pub fn has_view_wire(&self, w: &Wire) -> bool {
        self.wire_flag(w, &self.has_view, FlagKind::View)
    }

    /// Whether type `id` has its own `_view` struct (else `T_view` is a typedef of `T`).
    pub fn has_view(&self, id: TypeId) -> bool {
        self.has_view.get(id).copied().unwrap_or(false)
    }

    /// Whether type `id` contains strings or arrays.
    pub fn borrows(&self, id: TypeId) -> bool {
        self.borrows.get(id).copied().unwrap_or(false)
    }

    pub(super) fn can_fail_wire(&self, w: &Wire) -> bool {
        match w {
            Wire::Prim(p) => *p == Primitive::Str,
            Wire::Array(_) => true,
            Wire::Optional(e) => self.can_fail_wire(e),
            Wire::Struct(id) => self.can_fail.get(*id).copied().unwrap_or(false),
        }
    }

    /// The full C name of type `id` (`plugin_registry_AudioUnit`).
    pub fn type_name(&self, id: TypeId) -> String {
        format!(
            "{}_{}",
            self.prefix,
            self.short.get(id).map_or("Unknown", String::as_str)
        )
    }

    /// The name after the prefix (`AudioUnit`): the dispatcher's union member.
    pub fn short_name(&self, id: TypeId) -> &str {
        self.short.get(id).map_or("Unknown", String::as_str)
    }

    /// The full name of the view type of `id` (`…_AudioUnit_view`).
    pub fn view_name(&self, id: TypeId) -> String {
        format!("{}_view", self.type_name(id))
    }

    /// Field identifiers of type `id`, declaration order.
    pub fn fields(&self, id: TypeId) -> &[String] {
        self.fields.get(id).map_or(&[], Vec::as_slice)
    }

    /// `{prefix}_Message`: the SDP dispatcher type.
    pub fn message_type(&self) -> String {
        format!("{}_Message", self.prefix)
    }

    pub(super) fn runtime_type(&self, w: &Wire, view: bool) -> Option<String> {
        match w {
            Wire::Array(e) => match &**e {
                Wire::Prim(Primitive::Str) => Some("wl_str_array".into()),
                Wire::Prim(p) if view => Some(format!("wl_{}_view", prim_short(*p))),
                Wire::Prim(p) => Some(format!("wl_{}_array", prim_short(*p))),
                _ => None,
            },
            Wire::Optional(e) => match &**e {
                Wire::Prim(p) => Some(format!("wl_{}_opt", prim_short(*p))),
                _ => None,
            },
            _ => None,
        }
    }

    fn suffix_name(&self, w: &Wire, view: bool) -> String {
        match w {
            Wire::Prim(p) => prim_short(*p).into(),
            Wire::Array(e) => match &**e {
                Wire::Prim(p) if view && *p != Primitive::Str => format!("{}_view", prim_short(*p)),
                e => format!("{}_array", self.suffix_name(e, view)),
            },
            Wire::Optional(e) => format!("{}_opt", self.suffix_name(e, view)),
            Wire::Struct(id) => {
                let s = self.short_name(*id).to_string();
                if view && self.has_view(*id) {
                    format!("{s}_view")
                } else {
                    s
                }
            }
        }
    }

    /// The C type of a value of `w`, owned or view.
    pub fn c_type(&self, w: &Wire, view: bool) -> String {
        match w {
            Wire::Prim(p) => prim_c(*p).into(),
            Wire::Struct(id) => {
                if view && self.has_view(*id) {
                    self.view_name(*id)
                } else {
                    self.type_name(*id)
                }
            }
            _ => {
                if let Some(t) = self.runtime_type(w, view) {
                    return t;
                }
                let key = (w.clone(), view && self.has_view_wire(w));
                self.derived
                    .get(&key)
                    .cloned()
                    .unwrap_or_else(|| format!("{}_{}", self.prefix, self.suffix_name(w, key.1)))
            }
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum FlagKind {
    Borrows,
    View,
}

/// The types a type's plan refers to (nested structs in blocks, struct values), in order.
fn plan_deps(plan: &Plan, id: TypeId) -> Vec<TypeId> {
    fn value_refs(v: &Value, out: &mut Vec<TypeId>) {
        match v {
            Value::Struct { id, .. } => out.push(*id),
            Value::Array { elem, .. } | Value::Optional(elem) => value_refs(elem, out),
            Value::Prim(_) | Value::Str(_) | Value::BulkPrims(..) => {}
        }
    }
    let mut out = Vec::new();
    for step in plan.get(id).map_or(&[][..], |t| t.steps.as_slice()) {
        match step {
            Step::Block { block, .. } => out.extend(block.leaves.iter().filter_map(|l| match l.kind {
                LeafKind::Struct(s) => Some(s),
                LeafKind::Prim(_) => None,
            })),
            Step::Value { value, .. } => value_refs(value, &mut out),
        }
    }
    out
}

/// Every type that has a plan, each after the types its plan refers to: the order C
/// needs (a struct's members held by value are complete before it). Iterative, so a
/// chain of thousands of nested structs is not thousands of stack frames.
fn plan_order(plan: &Plan) -> Vec<TypeId> {
    let deps = |id: TypeId| plan_deps(plan, id);
    let n = plan.types.len();
    let mut seen = vec![false; n];
    let mut order = Vec::with_capacity(n);
    for root in 0..n {
        if seen[root] || plan.get(root).is_none() {
            continue;
        }
        seen[root] = true;
        // (type, its dependencies, the next one to visit)
        let mut stack = vec![(root, deps(root), 0usize)];
        loop {
            let next = match stack.last_mut() {
                None => break,
                Some((id, ds, i)) => {
                    if let Some(&d) = ds.get(*i) {
                        *i += 1;
                        Some(d)
                    } else {
                        order.push(*id);
                        None
                    }
                }
            };
            match next {
                Some(d) if d < n && !seen[d] && plan.get(d).is_some() => {
                    seen[d] = true;
                    stack.push((d, deps(d), 0));
                }
                Some(_) => {}
                None => {
                    stack.pop();
                }
            }
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_strings_escape_everything_unusual() {
        assert_eq!(c_string("a\"b\\c??=\n\u{e9}"), "\"a\\\"b\\\\c\\?\\?=\\012\\303\\251\"");
        assert_eq!(comment("x ??/ y\\"), "x ? ?/ y\\.");
    }
}
