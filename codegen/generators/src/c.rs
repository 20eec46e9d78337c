//! The C (C11) emitter: per schema one `<module>.h` and `<module>.c`, depending only on
//! `wirelens.h` (`runtime/c`, copied next to them by `wirelens gen`).
//!
//! Every symbol starts with the module prefix (`plugin_registry_`), so several schemas
//! link into one program. Per value type `T` (every struct; for ffire also array and
//! named-primitive roots, which are typedefs) the header declares:
//! - `T` (strings `wl_str`, arrays `{const E *ptr; size_t len;}`, optionals
//!   `{bool has; E value;}`) and `T_view`: the same shape, except that arrays of
//!   primitives are `wl_<p>_view` (the wire bytes); a typedef of `T` when they agree;
//! - `T_size`, `T_encode` (caller buffer), `T_encode_buf` (appends to a reusable
//!   `wl_buf`), `T_decode` (no trailing bytes), `T_decode_prefix`, `T_decode_view`,
//!   `T_decode_view_prefix`, and `T_view_size`/`T_view_encode`/`T_view_encode_buf` when
//!   `T_view` is its own type;
//! - SDP: `T_MESSAGE_ID`, `T_encode_message(_buf)`, `T_decode_message(_prefix)`,
//!   `T_decode_message_view(_prefix)`, and the dispatcher `Message` (a tagged union).
//!
//! Only `T_measure`, `T_write` and `T_read` (and their view variants) are compiled per
//! type, behind the tables `T_type` / `T_view_type` (when the view variants differ only
//! in names, their text is written once: a macro instantiated for `T` and `T_view`); the public functions above are
//! one-line macros over the runtime's generic `wl_size` / `wl_encode` / `wl_encode_buf` /
//! `wl_decode`, and the dispatcher reads through a table indexed by type id.
//!
//! Owned decodes copy strings (NUL-terminated) and arrays into a `wl_arena`; view
//! decodes point strings and primitive arrays into the input and put only arrays of
//! non-primitives in the arena.
//!
//! Everything about the wire comes from the encoding plan ([`wirelens_core::plan`]): the steps in
//! wire order (fixed blocks, each read with one bounds check and written with
//! constant-offset stores; inlined nested structs; variable-size values), the exact-size
//! formula the measure functions print, and the type order (each type after the types
//! its plan refers to). This file only renders them, with two C-specific choices for
//! structs coded as array elements: fields that the C struct lays out as the wire does
//! are copied as one run ([`runs`]), and a struct that is the element of a single array
//! has its functions inlined into that array's loop ([`inlined_elements`]).

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use rustc_hash::{FxHashMap, FxHashSet};

use super::{field_ident, module_name, Code, EmitError, OutputFile, GENERATED_HEADER};
use wirelens_core::dialect::Dialect;
use wirelens_core::layout::{Layout, LeafKind, TypeLayout, Wire};
use wirelens_core::model::{Primitive, Schema, TypeId, TypeKind};
use wirelens_core::plan::{Plan, SizeTerm, Step, TypePlan, Value, ValueSize};

/// Helpers behind every per-type API macro (one line per type and function instead of a
/// full call: the header of the 5,000-struct benchmark schema halves). Guarded, so
/// several generated headers can be included together.
const API_HELPERS: [&str; 8] = [
    "#ifndef WL_GEN_API_",
    "#define WL_GEN_API_",
    "#define WL_SIZE_(T, v) wl_size(&T##_type, WL_TYPED(const T *, v))",
    "#define WL_ENC_(T, m, v, buf, cap, written, err) wl_encode(&T##_type, WL_TYPED(const T *, v), m, buf, cap, written, err)",
    "#define WL_ENCB_(T, m, v, out, err) wl_encode_buf(&T##_type, WL_TYPED(const T *, v), m, out, err)",
    "#define WL_DEC_(T, m, buf, len, out, arena, err) wl_decode(&T##_type, buf, len, m, WL_TYPED(T *, out), NULL, arena, err)",
    "#define WL_DECP_(T, m, buf, len, out, used, arena, err) wl_decode(&T##_type, buf, len, m, WL_TYPED(T *, out), used, arena, err)",
    "#endif",
];

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
    if KEYWORDS.contains(&s.as_str()) || super::cpp::RESERVED.contains(&s.as_str()) {
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
fn comment(s: &str) -> String {
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
            names.fields[id] = super::unique_in_order(
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

    fn can_fail_wire(&self, w: &Wire) -> bool {
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

    fn runtime_type(&self, w: &Wire, view: bool) -> Option<String> {
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

/// (inlined, elements): `elements` are the structs whose every use as a value is as the
/// element of an array (coded many times per message); `inlined`, those of them with a
/// single use, get their measure, write and read functions forced inline (`WL__ELEM`;
/// schemas have no cycles, so none inlines itself). gcc -O2 kept AudioUnit's
/// `Parameter_read` out of line (the table takes its address): a call, a 6-register
/// prologue and the reader reloaded per element; inlined, view decode 0.83×. One use
/// keeps the code growth to one copy per type.
fn inlined_elements(plan: &Plan) -> (HashSet<TypeId>, HashSet<TypeId>) {
    let (mut inlined, mut elements) = (HashSet::new(), HashSet::new());
    for (id, u) in plan.struct_uses().into_iter().enumerate() {
        if u.only_as_elements() {
            elements.insert(id);
            if u.count == 1 {
                inlined.insert(id);
            }
        }
    }
    (inlined, elements)
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

/// Generates `<module>.h` and `<module>.c` for one schema.
pub fn generate(schema: &Schema, layout: &Layout, source: &str) -> Result<Vec<OutputFile>, EmitError> {
    generate_in(schema, layout, source, false)
}

/// [`generate`], writing the header and the source on two threads when `parallel`.
pub fn generate_in(
    schema: &Schema,
    layout: &Layout,
    source: &str,
    parallel: bool,
) -> Result<Vec<OutputFile>, EmitError> {
    let missing: Vec<&str> = schema
        .types
        .iter()
        .enumerate()
        .filter(|(id, _)| layout.get(*id).is_none())
        .map(|(_, t)| t.name.as_str())
        .collect();
    if !missing.is_empty() {
        return Err(EmitError(format!(
            "{source}: no layout for {} (fix the schema's errors first)",
            missing.join(", ")
        )));
    }
    if schema.types.is_empty() {
        return Err(EmitError(format!("{source}: the schema declares no types")));
    }
    let plan = Plan::new(layout);
    let names = Names::with_plan(schema, layout, &plan, source);
    let (inlined, elements) = inlined_elements(&plan);
    let g = Gen {
        schema,
        layout,
        plan: &plan,
        n: &names,
        inlined,
        elements,
    };
    let mut items = HashMap::new();
    for &id in &names.order {
        if let Some(p) = plan.get(id) {
            if p.is_struct || p.root {
                items.insert(id, g.items(p)?);
            }
        }
    }
    let module = module_name(source);
    let (header, code) = if parallel {
        // The header and the source only read the plan and the names: for a large
        // schema the C generator is the longest of the three, and this halves it.
        std::thread::scope(|scope| {
            let header = scope.spawn(|| g.header(source, &module));
            let code = g.source(source, &module, &items);
            let header = header.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (header, code)
        })
    } else {
        (g.header(source, &module), g.source(source, &module, &items))
    };
    Ok(vec![
        OutputFile {
            name: format!("{module}.h"),
            contents: header,
        },
        OutputFile {
            name: format!("{module}.c"),
            contents: code,
        },
    ])
}

/// The runtime header, written next to the generated files.
pub fn runtime_files() -> Vec<OutputFile> {
    vec![OutputFile {
        name: "wirelens.h".into(),
        contents: include_str!("../../../runtime/c/wirelens.h").into(),
    }]
}

/// A leaf of a fixed block, resolved to C.
struct BLeaf {
    /// Member access from the struct (`info.vendor`).
    access: String,
    /// JSON path for errors (`info.vendor`).
    json: String,
    kind: LeafKind,
    at: u64,
    /// Declaration indices from the owner (adjacency in the C struct, see [`runs`]).
    path: Vec<usize>,
}

/// [`super::member_runs`] of a block's leaves: gcc does not merge the separate loads and
/// stores of such a run itself (AudioUnit `Parameter`: 7 of each for 22 bytes); the
/// condition is [`Gen::run_cond`].
fn runs(leaves: &[BLeaf]) -> Vec<std::ops::Range<usize>> {
    super::member_runs(leaves, |l| (run_size(l), l.path.as_slice(), l.at))
}

/// Size in bytes of a primitive leaf that [`runs`] may join, else `None`.
fn run_size(l: &BLeaf) -> Option<u64> {
    match l.kind {
        LeafKind::Prim(p) if !l.access.is_empty() => p.fixed_size(),
        _ => None,
    }
}

/// A plan step with its paths resolved to C member accesses and JSON names.
enum Item {
    /// [`Step::Block`]: one bounds check, constant-offset loads and stores.
    Block { size: u64, leaves: Vec<BLeaf> },
    /// [`Step::Value`]; for non-struct types the whole value (`access` empty).
    Var { access: String, json: String, value: Value },
}

/// An error-context step: pushed onto a failed decode's path, innermost first.
#[derive(Clone)]
enum Ctx {
    Field(String),
    Index(String),
}

struct Gen<'s> {
    schema: &'s Schema,
    layout: &'s Layout,
    plan: &'s Plan,
    n: &'s Names,
    /// [`inlined_elements`].
    inlined: HashSet<TypeId>,
    /// Structs only used as array elements: their blocks are copied in runs ([`runs`];
    /// a run's fallback text costs gen time and output size, so only where a struct is
    /// coded many times per message).
    elements: HashSet<TypeId>,
}

/// The C type shape of a planned value (to name array elements and optionals).
fn wire_of(v: &Value) -> Wire {
    match v {
        Value::Prim(p) => Wire::Prim(*p),
        Value::Str(_) => Wire::Prim(Primitive::Str),
        Value::BulkPrims(_, p) => Wire::Array(Box::new(Wire::Prim(*p))),
        Value::Array { elem, .. } => Wire::Array(Box::new(wire_of(elem))),
        Value::Optional(e) => Wire::Optional(Box::new(wire_of(e))),
        Value::Struct { id, .. } => Wire::Struct(*id),
    }
}

impl Gen<'_> {
    fn sdp(&self) -> bool {
        self.schema.dialect == Dialect::Sdp
    }

    /// Length / count prefix bytes: 4 (SDP) or 2 (ffire).
    fn prefix(&self) -> u64 {
        self.plan.prefix.bytes()
    }

    // ------------------------------------------------------------------ plan

    /// The plan's steps with their paths resolved.
    fn items(&self, p: &TypePlan) -> Result<Vec<Item>, EmitError> {
        let mut items = Vec::with_capacity(p.steps.len());
        for step in &p.steps {
            match step {
                Step::Block { block, .. } => items.push(Item::Block {
                    size: block.size,
                    leaves: block
                        .leaves
                        .iter()
                        .map(|l| self.leaf(p.id, &l.path, l.kind, l.at))
                        .collect::<Result<Vec<_>, _>>()?,
                }),
                Step::Value { path, value } => {
                    let (access, json) = self.path_names(p.id, path)?;
                    items.push(Item::Var {
                        access,
                        json,
                        value: value.clone(),
                    });
                }
            }
        }
        Ok(items)
    }

    /// Resolves a block leaf's path (declaration indices from `owner`) to C and JSON names.
    fn leaf(&self, owner: TypeId, path: &[usize], kind: LeafKind, at: u64) -> Result<BLeaf, EmitError> {
        let (access, json) = self.path_names(owner, path)?;
        Ok(BLeaf {
            access,
            json,
            kind,
            at,
            path: path.to_vec(),
        })
    }

    /// (C member access, JSON path) of a plan path; both empty for the empty path.
    fn path_names(&self, owner: TypeId, path: &[usize]) -> Result<(String, String), EmitError> {
        let mut access = Vec::with_capacity(path.len());
        let mut json = Vec::with_capacity(path.len());
        let mut ty = owner;
        for (k, &i) in path.iter().enumerate() {
            let def = &self.schema.types[ty];
            let bad = || EmitError(format!("internal error: bad plan path in `{}`", def.name));
            let f = def.fields().get(i).ok_or_else(bad)?;
            access.push(self.n.fields(ty).get(i).cloned().unwrap_or_default());
            json.push(f.json_name.clone());
            if k + 1 < path.len() {
                ty = match self.layout.get(ty).and_then(|t| t.field_by_decl(i)).map(|f| &f.wire) {
                    Some(Wire::Struct(n)) => *n,
                    _ => return Err(bad()),
                };
            }
        }
        Ok((access.join("."), json.join(".")))
    }

    /// Fixed-size structs used whole inside some block (they get `_get`/`_put`).
    fn block_structs(&self) -> HashSet<TypeId> {
        let leaf_structs = |p: &TypePlan| -> Vec<TypeId> {
            p.steps
                .iter()
                .flat_map(|s| match s {
                    Step::Block { block, .. } => block.leaves.as_slice(),
                    _ => &[],
                })
                .filter_map(|l| match l.kind {
                    LeafKind::Struct(s) => Some(s),
                    LeafKind::Prim(_) => None,
                })
                .collect()
        };
        let mut out = HashSet::new();
        let mut stack: Vec<TypeId> = Vec::new();
        for p in self.plan.types.iter().flatten() {
            if p.is_struct || p.root {
                for s in leaf_structs(p) {
                    if out.insert(s) {
                        stack.push(s);
                    }
                }
            }
        }
        // A struct's get/put call those of the fixed structs inside it.
        while let Some(s) = stack.pop() {
            for inner in self.plan.get(s).map(leaf_structs).unwrap_or_default() {
                if out.insert(inner) {
                    stack.push(inner);
                }
            }
        }
        out
    }

    // ------------------------------------------------------------------ header

    fn file_intro(&self, c: &mut Code, source: &str) {
        c.line(GENERATED_HEADER);
        let order = match self.schema.dialect {
            Dialect::Sdp => "SDP, declaration order".to_string(),
            Dialect::Ffi => format!("ffire, {} field order", self.layout.order.as_str()),
        };
        c.linef(format_args!(
            "// Source: {} ({order}). Runtime: wirelens.h (runtime/c).",
            comment(source)
        ));
    }

    fn docs(&self, c: &mut Code, docs: &[String]) {
        for d in docs {
            let d = comment(d.trim());
            if d.is_empty() {
                c.line("//");
            } else {
                c.linef(format_args!("// {d}"));
            }
        }
    }

    fn layout_doc(&self, c: &mut Code, id: TypeId, t: &TypeLayout) {
        let d = super::layout_doc(self.schema, self.layout, id, t);
        c.linef(format_args!(
            "// Wire layout of `{}` ({}): {}.",
            comment(&self.schema.types[id].name),
            d.order,
            d.size
        ));
        if let Some(wire) = &d.wire_type {
            c.line(&comment(&format!("// {wire}.")));
            return;
        }
        c.line("//");
        for row in &d.table {
            c.line(&comment(&format!("//   {row}")));
        }
        // From the plan this code is rendered from, so the comment cannot contradict it.
        if let Some(line) = self.plan.get(id).and_then(TypePlan::fixed_blocks_line) {
            c.line("//");
            c.line(&comment(&format!("// {line}.")));
        }
    }

    /// Defines the derived array/option types `w` needs (innermost first).
    fn ensure_derived(&self, c: &mut Code, w: &Wire, view: bool, done: &mut HashSet<String>) {
        let inner = match w {
            Wire::Array(e) | Wire::Optional(e) => e,
            _ => return,
        };
        self.ensure_derived(c, inner, view, done);
        if self.n.runtime_type(w, view).is_some() {
            return;
        }
        let name = self.n.c_type(w, view);
        if !done.insert(name.clone()) {
            return;
        }
        let elem = self.n.c_type(inner, view);
        c.blank();
        match w {
            Wire::Array(_) => {
                c.open(&format!("typedef struct {name} {{"));
                c.linef(format_args!("const {elem} *ptr;"));
                c.line("size_t len;");
            }
            _ => {
                c.open(&format!("typedef struct {name} {{"));
                c.line("bool has;");
                c.linef(format_args!("{elem} value;"));
            }
        }
        c.close(&format!("}} {name};"));
    }

    fn is_value_type(&self, id: TypeId) -> bool {
        self.schema.types[id].is_struct() || self.layout.get(id).is_some_and(|t| t.root)
    }

    fn header(&self, source: &str, module: &str) -> String {
        let mut c = Code::with_capacity(super::OUTPUT_BYTES_PER_TYPE * self.schema.types.len());
        self.file_intro(&mut c, source);
        c.line("//");
        c.line("// Per type T: T_size, T_encode (caller buffer), T_encode_buf (appends to a reusable");
        c.line("// wl_buf), T_decode (no trailing bytes), T_decode_prefix (back-to-back records),");
        c.line("// T_decode_view / T_decode_view_prefix (zero-copy: strings and primitive arrays point");
        c.line("// into the input). Owned decodes copy strings (NUL-terminated) and arrays into the");
        c.line("// wl_arena; views put only arrays of non-primitives there. Every function returns a");
        c.line("// wl_status; pass a wl_error (or NULL) for the offset and value path of a failure.");
        c.line("// They are macros over the runtime's wl_size / wl_encode / wl_encode_buf / wl_decode");
        c.line("// with the type's table T_type (views: T_view_type); see runtime/README.md.");
        c.line("// Signatures (T_view_size / T_view_encode / T_view_encode_buf: types whose view differs):");
        if let Some((id, t)) = self.n.order.iter().find_map(|&id| Some((id, self.layout.get(id)?))) {
            let (n, v) = (self.n.type_name(id), self.n.view_name(id));
            let mut sigs = self.signatures(id, t);
            if !sigs.iter().any(|(s, _)| s.contains("_view_size(")) {
                sigs.push((format!("size_t {n}_view_size(const {v} *v)"), ""));
                sigs.push((format!("wl_status {n}_view_encode(const {v} *v, uint8_t *buf, size_t cap, size_t *written, wl_error *err)"), ""));
                sigs.push((
                    format!("wl_status {n}_view_encode_buf(const {v} *v, wl_buf *out, wl_error *err)"),
                    "",
                ));
            }
            for (sig, _) in sigs {
                // Longest first: `n` is a prefix of `v`.
                c.linef(format_args!("//   {}", sig.replace(&v, "T_view").replace(&n, "T")));
            }
        }
        if self.sdp() {
            c.line("// Every struct is also an SDP message (T_MESSAGE_ID, T_encode_message,");
            c.linef(format_args!(
                "// T_decode_message); {} decodes any of them by type id.",
                self.n.message_type()
            ));
            c.line("// Box<T> has no effect on the wire and is generated as T.");
        } else {
            c.line("// Strings and arrays are limited to 65,535 bytes / elements: encoders refuse longer ones.");
        }
        let guard = format!("WIRELENS_GEN_{}_H", module.to_ascii_uppercase());
        c.blank();
        c.linef(format_args!("#ifndef {guard}"));
        c.linef(format_args!("#define {guard}"));
        c.blank();
        c.line("#include \"wirelens.h\"");
        c.blank();
        c.line("// The per-type API macros expand to these (shared by every generated header).");
        for l in API_HELPERS {
            c.line(l);
        }
        c.blank();
        c.line("#ifdef __cplusplus");
        c.line("extern \"C\" {");
        c.line("#endif");
        c.blank();
        // Forward declarations: every struct and view.
        for &id in &self.n.order {
            if !self.schema.types[id].is_struct() {
                continue;
            }
            let name = self.n.type_name(id);
            c.linef(format_args!("typedef struct {name} {name};"));
            if self.n.has_view(id) {
                let v = self.n.view_name(id);
                c.linef(format_args!("typedef struct {v} {v};"));
            } else {
                c.linef(format_args!("typedef {name} {};", self.n.view_name(id)));
            }
        }
        let mut done = HashSet::new();
        for &id in &self.n.order {
            let Some(t) = self.layout.get(id) else { continue };
            let def = &self.schema.types[id];
            match &def.kind {
                TypeKind::Struct { fields, .. } => {
                    for view in [false, true] {
                        if view && !self.n.has_view(id) {
                            continue;
                        }
                        for f in &t.fields {
                            self.ensure_derived(&mut c, &f.wire, view, &mut done);
                        }
                        c.blank();
                        let name = if view {
                            self.n.view_name(id)
                        } else {
                            self.n.type_name(id)
                        };
                        if view {
                            c.linef(format_args!(
                                "// Zero-copy view of {}: arrays of primitives are the wire bytes.",
                                self.n.type_name(id)
                            ));
                        } else {
                            self.docs(&mut c, &def.docs);
                            if !def.docs.is_empty() {
                                c.line("//");
                            }
                            self.layout_doc(&mut c, id, t);
                        }
                        c.open(&format!("struct {name} {{"));
                        let names = self.n.fields(id);
                        for (i, f) in fields.iter().enumerate() {
                            let Some(fl) = t.field_by_decl(i) else { continue };
                            if !view {
                                self.docs(&mut c, &f.docs);
                            }
                            c.linef(format_args!("{} {};", self.n.c_type(&fl.wire, view), names[i]));
                        }
                        c.close("};");
                    }
                }
                TypeKind::Alias { .. } => {
                    self.ensure_derived(&mut c, &t.wire, false, &mut done);
                    c.blank();
                    self.docs(&mut c, &def.docs);
                    let name = self.n.type_name(id);
                    if t.root {
                        if !def.docs.is_empty() {
                            c.line("//");
                        }
                        self.layout_doc(&mut c, id, t);
                    }
                    c.linef(format_args!("typedef {} {name};", self.n.c_type(&t.wire, false)));
                    if t.root {
                        if self.n.has_view_wire(&t.wire) {
                            self.ensure_derived(&mut c, &t.wire, true, &mut done);
                            c.linef(format_args!(
                                "typedef {} {};",
                                self.n.c_type(&t.wire, true),
                                self.n.view_name(id)
                            ));
                        } else {
                            c.linef(format_args!("typedef {name} {};", self.n.view_name(id)));
                        }
                    }
                }
            }
        }
        if self.sdp() {
            self.dispatcher_types(&mut c);
        }
        // Functions.
        for &id in &self.n.order {
            if !self.is_value_type(id) {
                continue;
            }
            let Some(t) = self.layout.get(id) else { continue };
            c.blank();
            self.prototypes(&mut c, id, t);
        }
        if self.sdp() {
            c.blank();
            let docs = [
                "Decodes exactly one SDP message of any type of this schema (trailing bytes are an error).",
                "Decodes one SDP message of any type from the start of buf; *used gets its length.",
                "Encodes msg->as.<kind> as an SDP message into buf[0..cap).",
                "Appends msg->as.<kind> as an SDP message to out.",
            ];
            for (p, doc) in self.dispatcher_prototypes().iter().zip(docs) {
                c.linef(format_args!("// {doc}"));
                self.long_line(&mut c, &format!("{p};"));
            }
        }
        c.blank();
        c.line("#ifdef __cplusplus");
        c.line("}");
        c.line("#endif");
        c.blank();
        c.linef(format_args!("#endif // {guard}"));
        c.out
    }

    /// (signature, what it does) of every public function of value type `id`.
    fn signatures(&self, id: TypeId, t: &TypeLayout) -> Vec<(String, &'static str)> {
        let n = self.n.type_name(id);
        let v = self.n.view_name(id);
        let mut out = vec![
            (
                format!("size_t {n}_size(const {n} *v)"),
                "The exact encoded size (0: a string or array is too long to encode).",
            ),
            (
                format!("wl_status {n}_encode(const {n} *v, uint8_t *buf, size_t cap, size_t *written, wl_error *err)"),
                "Encodes into buf[0..cap); refuses a buffer smaller than the encoding.",
            ),
            (
                format!("wl_status {n}_encode_buf(const {n} *v, wl_buf *out, wl_error *err)"),
                "Appends the encoding to out (no allocation once it is large enough).",
            ),
            (
                format!("wl_status {n}_decode(const uint8_t *buf, size_t len, {n} *out, wl_arena *arena, wl_error *err)"),
                "Decodes exactly one value (trailing bytes are an error); strings and arrays go to the arena.",
            ),
            (
                format!("wl_status {n}_decode_prefix(const uint8_t *buf, size_t len, {n} *out, size_t *used, wl_arena *arena, wl_error *err)"),
                "Decodes one value from the start of buf; *used gets the bytes it took.",
            ),
            (
                format!("wl_status {n}_decode_view(const uint8_t *buf, size_t len, {v} *out, wl_arena *arena, wl_error *err)"),
                "Zero-copy decode of exactly one value: strings and primitive arrays point into buf.",
            ),
            (
                format!("wl_status {n}_decode_view_prefix(const uint8_t *buf, size_t len, {v} *out, size_t *used, wl_arena *arena, wl_error *err)"),
                "Zero-copy decode of one value from the start of buf.",
            ),
        ];
        if self.n.has_view(id) || (!self.schema.types[id].is_struct() && self.n.has_view_wire(&t.wire)) {
            out.push((
                format!("size_t {n}_view_size(const {v} *v)"),
                "The exact encoded size of a view.",
            ));
            out.push((
                format!(
                    "wl_status {n}_view_encode(const {v} *v, uint8_t *buf, size_t cap, size_t *written, wl_error *err)"
                ),
                "Encodes a view into buf[0..cap).",
            ));
            out.push((
                format!("wl_status {n}_view_encode_buf(const {v} *v, wl_buf *out, wl_error *err)"),
                "Appends the encoding of a view to out.",
            ));
        }
        if t.message_id.is_some() {
            out.push((
                format!("wl_status {n}_encode_message(const {n} *v, uint8_t *buf, size_t cap, size_t *written, wl_error *err)"),
                "Encodes an SDP message: the 10-byte header (\"SDP2\", type id, payload length), then the value.",
            ));
            out.push((
                format!("wl_status {n}_encode_message_buf(const {n} *v, wl_buf *out, wl_error *err)"),
                "Appends an SDP message to out.",
            ));
            out.push((
                format!("wl_status {n}_decode_message(const uint8_t *buf, size_t len, {n} *out, wl_arena *arena, wl_error *err)"),
                "Decodes exactly one SDP message of this type (magic, version, type id and length checked).",
            ));
            out.push((
                format!("wl_status {n}_decode_message_prefix(const uint8_t *buf, size_t len, {n} *out, size_t *used, wl_arena *arena, wl_error *err)"),
                "Decodes one SDP message of this type from the start of buf.",
            ));
            out.push((
                format!("wl_status {n}_decode_message_view(const uint8_t *buf, size_t len, {v} *out, wl_arena *arena, wl_error *err)"),
                "Zero-copy decode of exactly one SDP message of this type.",
            ));
            out.push((
                format!("wl_status {n}_decode_message_view_prefix(const uint8_t *buf, size_t len, {v} *out, size_t *used, wl_arena *arena, wl_error *err)"),
                "Zero-copy decode of one SDP message of this type from the start of buf.",
            ));
        }
        out
    }

    fn prototypes(&self, c: &mut Code, id: TypeId, t: &TypeLayout) {
        let n = self.n.type_name(id);
        let fixed = self
            .plan
            .get(id)
            .and_then(|p| p.exact_size.terms.is_empty().then_some(p.exact_size.constant));
        if let Some(size) = fixed {
            c.linef(format_args!("// Every {n} encodes to {size} bytes."));
            c.linef(format_args!("#define {n}_SIZE ((size_t){size})"));
        }
        c.linef(format_args!("extern const wl_type {n}_type, {n}_view_type;"));
        for (sig, _) in self.signatures(id, t) {
            if let Some(m) = Self::api_macro(&n, &sig) {
                c.line(&m); // one line: a macro cannot wrap without a backslash
            }
        }
    }

    /// The macro that implements one public function (`sig`) of type `n` through one of
    /// the header's shared helpers (`API_HELPERS`): `#define n_encode(...) WL_ENC_(n,
    /// false, __VA_ARGS__)`. The signatures are listed once at the top of the header.
    fn api_macro(n: &str, sig: &str) -> Option<String> {
        let (head, _) = sig.split_once('(')?;
        let name = head.rsplit(' ').next()?;
        let what = name.strip_prefix(n)?.strip_prefix('_')?;
        let ty = if what.contains("view") {
            format!("{n}_view")
        } else {
            n.to_string()
        };
        if what.ends_with("size") {
            return Some(format!("#define {name}(v) WL_SIZE_({ty}, v)"));
        }
        let message = what.contains("message");
        let helper = if what.ends_with("_buf") {
            "WL_ENCB_"
        } else if what.contains("encode") {
            "WL_ENC_"
        } else if what.ends_with("prefix") {
            "WL_DECP_"
        } else {
            "WL_DEC_"
        };
        Some(format!("#define {name}(...) {helper}({ty}, {message}, __VA_ARGS__)"))
    }

    /// A declaration, wrapped after a comma when longer than 110 columns.
    fn long_line(&self, c: &mut Code, s: &str) {
        if s.len() + 4 * c.depth <= 110 {
            c.line(s);
            return;
        }
        let Some(open) = s.find('(') else {
            c.line(s);
            return;
        };
        let indent = " ".repeat(open + 1);
        let mut line = String::new();
        let mut first = true;
        for part in s[open + 1..].split(", ") {
            let piece = if first {
                format!("{}{part}", &s[..=open])
            } else {
                format!(", {part}")
            };
            if !line.is_empty() && line.len() + piece.len() > 110 {
                line.push(',');
                c.line(&line);
                line = format!("{indent}{}", piece.trim_start_matches(", "));
            } else {
                line.push_str(&piece);
            }
            first = false;
        }
        c.line(&line);
    }

    fn sdp_structs(&self) -> Vec<(TypeId, u16)> {
        self.schema
            .types
            .iter()
            .enumerate()
            .filter_map(|(id, _)| Some((id, self.layout.get(id)?.message_id?)))
            .collect()
    }

    fn dispatcher_types(&self, c: &mut Code) {
        let structs = self.sdp_structs();
        if structs.is_empty() {
            return;
        }
        let m = self.n.message_type();
        c.blank();
        c.line("// SDP message type ids (the 1-based position of each struct in the schema).");
        c.open(&format!("typedef enum {m}Kind {{"));
        c.linef(format_args!("{m}_NONE = 0,"));
        for (id, mid) in &structs {
            c.linef(format_args!("{}_MESSAGE_ID = {mid},", self.n.type_name(*id)));
        }
        c.close(&format!("}} {m}Kind;"));
        c.blank();
        c.line("// Any message of this schema: `kind` is the type id, `as` holds the value.");
        c.open(&format!("typedef struct {m} {{"));
        c.linef(format_args!("{m}Kind kind;"));
        c.open("union {");
        for (id, _) in &structs {
            c.linef(format_args!(
                "{} {};",
                self.n.type_name(*id),
                ident(self.n.short_name(*id))
            ));
        }
        c.close("} as;");
        c.close(&format!("}} {m};"));
    }

    fn dispatcher_prototypes(&self) -> Vec<String> {
        if self.sdp_structs().is_empty() {
            return Vec::new();
        }
        let m = self.n.message_type();
        vec![
            format!("wl_status {m}_decode(const uint8_t *buf, size_t len, {m} *out, wl_arena *arena, wl_error *err)"),
            format!("wl_status {m}_decode_prefix(const uint8_t *buf, size_t len, {m} *out, size_t *used, wl_arena *arena, wl_error *err)"),
            format!("wl_status {m}_encode(const {m} *msg, uint8_t *buf, size_t cap, size_t *written, wl_error *err)"),
            format!("wl_status {m}_encode_buf(const {m} *msg, wl_buf *out, wl_error *err)"),
        ]
    }

    // ------------------------------------------------------------------ source

    fn source(&self, source: &str, module: &str, all_items: &HashMap<TypeId, Vec<Item>>) -> String {
        let mut c = Code::with_capacity(super::OUTPUT_BYTES_PER_TYPE * self.schema.types.len());
        self.file_intro(&mut c, source);
        // Said once here rather than above each of the thousands of functions below.
        c.line("//");
        c.line("// Per type T, behind its tables T_type / T_view_type (see the header):");
        c.line("// T_measure returns the encoded size (0 and WL_ERR_TOO_LONG for an oversized string");
        c.line("// or array); T_write writes the encoding at p (the caller made room: measure first)");
        c.line("// and returns the end; T_read reads one value at rd's position (strings copied into");
        c.line("// the arena when rd->copy, else pointing into the input; arrays go to the arena).");
        c.line("// T_view_* do the same for the zero-copy view (primitive arrays point into the input).");
        c.line("// `size_t n = K;` starts a size at the constant part: fixed blocks, length prefixes");
        c.line("// and presence bytes.");
        c.blank();
        c.linef(format_args!("#include \"{module}.h\""));
        let blockers = self.block_structs();
        for &id in &self.n.order {
            let Some(t) = self.layout.get(id) else { continue };
            let Some(p) = self.plan.get(id) else { continue };
            let Some(items) = all_items.get(&id) else { continue };
            let n = self.n.type_name(id);
            c.blank();
            c.linef(format_args!(
                "// ---------------------------------------------------------------- {n}"
            ));
            if blockers.contains(&id) {
                self.get_put(&mut c, p);
            }
            let fns = |view: bool| {
                let mut f = Code::default();
                self.measure_fn(&mut f, p, view);
                self.write_fn(&mut f, id, items, view);
                self.read_fn(&mut f, id, items, view);
                f.out
            };
            let owned = fns(false);
            if !self.n.has_view_wire(&t.wire) {
                c.out.push_str(&owned);
            } else {
                let view = fns(true);
                match shared_bodies(&format!("{n}_CODEC_"), &owned, &view) {
                    Some(text) => {
                        c.blank();
                        c.linef(format_args!(
                            "// {n} and {n}_view share one text of these functions (the view's differ only in names)."
                        ));
                        c.out.push_str(&text);
                    }
                    None => {
                        c.out.push_str(&owned);
                        c.out.push_str(&view);
                    }
                }
            }
            self.tables(&mut c, id, t);
        }
        if self.sdp() {
            self.dispatcher_fns(&mut c);
        }
        c.out
    }

    /// The owned or view C type of value type `id`.
    fn tname(&self, id: TypeId, view: bool) -> String {
        let t = self.layout.get(id);
        if view && t.is_some_and(|t| self.n.has_view_wire(&t.wire)) {
            self.n.view_name(id)
        } else {
            self.n.type_name(id)
        }
    }

    /// The runs of a block of `id` ([`runs`]), or each leaf alone when `id` is not only
    /// an array element.
    fn runs(&self, id: TypeId, leaves: &[BLeaf]) -> Vec<std::ops::Range<usize>> {
        if self.elements.contains(&id) {
            runs(leaves)
        } else {
            (0..leaves.len()).map(|i| i..i + 1).collect()
        }
    }

    /// How a codec function of `id` is declared: `WL__ELEM` for [`inlined_elements`].
    fn storage(&self, id: TypeId, default: &'static str) -> &'static str {
        if self.inlined.contains(&id) {
            "WL__ELEM"
        } else {
            default
        }
    }

    /// The name of a per-type function, `T_measure` or `T_view_measure`.
    fn fname(&self, id: TypeId, view: bool, what: &str) -> String {
        let distinct = self.layout.get(id).is_some_and(|t| self.n.has_view_wire(&t.wire));
        if view && distinct {
            format!("{}_view_{what}", self.n.type_name(id))
        } else {
            format!("{}_{what}", self.n.type_name(id))
        }
    }

    fn place(base: &str, access: &str) -> String {
        if access.is_empty() {
            format!("(*{base})")
        } else {
            format!("{base}->{access}")
        }
    }

    /// For a fixed-size struct: its plan's blocks as one run of leaves at constant offsets.
    fn get_put(&self, c: &mut Code, p: &TypePlan) {
        let n = self.n.type_name(p.id);
        let leaves: Vec<BLeaf> = p
            .steps
            .iter()
            .flat_map(|s| match s {
                Step::Block { block, .. } => block
                    .leaves
                    .iter()
                    .map(|l| (block.offset.constant().unwrap_or(0) + l.at, l))
                    .collect(),
                _ => Vec::new(),
            })
            .filter_map(|(at, l)| self.leaf(p.id, &l.path, l.kind, at).ok())
            .collect();
        c.blank();
        c.linef(format_args!("// Stores a {n} at p (inside a parent's fixed block)."));
        c.open(&format!("static void {n}_put(uint8_t *p, const {n} *v) {{"));
        for l in &leaves {
            self.put_leaf(c, "p", 0, "v", l);
        }
        c.close("}");
        c.blank();
        c.linef(format_args!(
            "// Loads a {n} from p, which is at input offset `off` (inside a parent's fixed block)."
        ));
        c.open(&format!(
            "static wl_status {n}_get(const uint8_t *p, size_t off, {n} *out, wl_error *err) {{"
        ));
        if !leaves
            .iter()
            .any(|l| matches!(l.kind, LeafKind::Prim(Primitive::Bool) | LeafKind::Struct(_)))
        {
            c.line("(void)off;");
            c.line("(void)err;");
        }
        for l in &leaves {
            self.get_leaf(c, "p", "off", "err", l);
        }
        c.line("return WL_OK;");
        c.close("}");
    }

    fn at(base: &str, at: u64) -> String {
        if at == 0 {
            base.to_string()
        } else {
            format!("{base} + {at}")
        }
    }

    fn put_leaf(&self, c: &mut Code, p: &str, base: u64, v: &str, l: &BLeaf) {
        let at = Self::at(p, base + l.at);
        let place = Self::place(v, &l.access);
        match l.kind {
            LeafKind::Prim(pr) => c.linef(format_args!("wl_put_{}({at}, {place});", prim_short(pr))),
            LeafKind::Struct(s) => c.linef(format_args!("{}_put({at}, &{place});", self.n.type_name(s))),
        }
    }

    /// For a run of two or more leaves ([`runs`]): the C condition under which the C
    /// struct `ty` holds them exactly as the wire does (little-endian host, one-byte
    /// bools, each member at its wire distance from the first; a constant the compiler
    /// folds), the first leaf and the run's length in bytes.
    fn run_cond<'l>(ty: &str, run: &'l [BLeaf]) -> Option<(String, &'l BLeaf, u64)> {
        let (first, last) = (run.first()?, run.last()?);
        if run.len() < 2 {
            return None;
        }
        let mut cond = String::from("WL_LITTLE_ENDIAN");
        if run.iter().any(|l| l.kind == LeafKind::Prim(Primitive::Bool)) {
            cond.push_str(" && sizeof(bool) == 1");
        }
        for l in &run[1..] {
            let _ = write!(
                cond,
                " && WL_AT({ty}, {}, {}, {})",
                first.access,
                l.access,
                l.at - first.at
            );
        }
        Some((cond, first, last.at + run_size(last)? - first.at))
    }

    /// The bounds check of a bool leaf at p + at (`off`: p's input offset).
    fn check_bool(&self, c: &mut Code, p: &str, off: &str, err: &str, l: &BLeaf) {
        c.linef(format_args!(
            "if ({p}[{}] > 1) {{ return wl_bad_bool({err}, {}, {p}[{}], {}); }}",
            l.at,
            Self::at(off, l.at),
            l.at,
            c_string(&l.json)
        ));
    }

    /// Loads a primitive leaf at p + at (a bool already checked).
    fn load_leaf(&self, c: &mut Code, p: &str, l: &BLeaf) {
        let place = Self::place("out", &l.access);
        match l.kind {
            LeafKind::Prim(Primitive::Bool) => c.linef(format_args!("{place} = {p}[{}] != 0;", l.at)),
            LeafKind::Prim(pr) => c.linef(format_args!(
                "{place} = wl_get_{}({});",
                prim_short(pr),
                Self::at(p, l.at)
            )),
            LeafKind::Struct(_) => {}
        }
    }

    /// Loads a leaf at p + at; `off` is the input offset of p, `err` the wl_error.
    fn get_leaf(&self, c: &mut Code, p: &str, off: &str, err: &str, l: &BLeaf) {
        let at = Self::at(p, l.at);
        let place = Self::place("out", &l.access);
        let json = c_string(&l.json);
        match l.kind {
            LeafKind::Prim(Primitive::Bool) => {
                self.check_bool(c, p, off, err, l);
                self.load_leaf(c, p, l);
            }
            LeafKind::Prim(_) => self.load_leaf(c, p, l),
            LeafKind::Struct(s) => c.linef(format_args!(
                "if ({}_get({at}, {}, &{place}, {err}) != WL_OK) {{ return wl_err_field({err}, {json}); }}",
                self.n.type_name(s),
                Self::at(off, l.at)
            )),
        }
    }

    // ------------------------------------------------------------------ measure

    /// `if (cond) <error exit>` in a measure function: record the error (`too_long`:
    /// WL_ERR_TOO_LONG for that length and prefix; else the failed call did), add the
    /// context, return 0.
    fn measure_fail(c: &mut Code, cond: &str, ctx: &[Ctx], too_long: Option<(&str, u64)>) {
        let mut steps: Vec<String> = Vec::new();
        match (too_long, ctx) {
            (Some((len, p)), []) => {
                c.linef(format_args!(
                    "if ({cond}) {{ return wl_too_long(err, {len}, {p}, NULL); }}"
                ));
                return;
            }
            (Some((len, p)), [Ctx::Field(j)]) => {
                c.linef(format_args!(
                    "if ({cond}) {{ return wl_too_long(err, {len}, {p}, {}); }}",
                    c_string(j)
                ));
                return;
            }
            (None, []) => {
                c.linef(format_args!("if ({cond}) {{ return 0; }}"));
                return;
            }
            (Some((len, p)), _) => steps.push(format!("wl_too_long(err, {len}, {p}, NULL);")),
            (None, _) => {}
        }
        for x in ctx {
            steps.push(match x {
                Ctx::Field(j) => format!("wl_err_field(err, {});", c_string(j)),
                Ctx::Index(i) => format!("wl_err_index(err, {i});"),
            });
        }
        c.open(&format!("if ({cond}) {{"));
        for st in steps {
            c.line(&st);
        }
        c.line("return 0;");
        c.close("}");
    }

    /// The measure function, rendered from the plan's exact-size formula: its constant,
    /// then one statement per variable-size term (with the length checks the prefixes
    /// impose).
    fn measure_fn(&self, c: &mut Code, p: &TypePlan, view: bool) {
        let ty = self.tname(p.id, view);
        let fname = self.fname(p.id, view, "measure");
        let constant = p.exact_size.constant;
        c.blank();
        let st = self.storage(p.id, "static");
        c.open(&format!("{st} size_t {fname}(const void *vp, wl_error *err) {{"));
        let mut body = Code {
            out: String::new(),
            depth: c.depth,
        };
        let mut uses_err = false;
        for (path, term) in &p.exact_size.terms {
            let (access, json) = match self.path_names(p.id, path) {
                Ok(x) => x,
                Err(_) => continue,
            };
            let ctx = if json.is_empty() {
                vec![]
            } else {
                vec![Ctx::Field(json)]
            };
            uses_err |= self.term_can_fail(term);
            self.measure_term(&mut body, &Self::place("v", &access), term, &ctx, 0, view);
        }
        if body.out.is_empty() {
            c.line("(void)vp;");
        } else {
            c.linef(format_args!("const {ty} *v = (const {ty} *)vp;"));
        }
        if !uses_err {
            c.line("(void)err;");
        }
        if body.out.is_empty() {
            c.linef(format_args!("return {constant};"));
        } else {
            c.linef(format_args!("size_t n = {constant};"));
            c.out.push_str(&body.out);
            c.line("return n;");
        }
        c.close("}");
    }

    /// Whether measuring a term can fail (a length to check, or a call that can).
    fn term_can_fail(&self, t: &SizeTerm) -> bool {
        match t {
            SizeTerm::Len { .. } | SizeTerm::Each(_) => true,
            SizeTerm::Present { .. } => false,
            SizeTerm::IfPresent(vs) => vs.term.as_ref().is_some_and(|t| self.term_can_fail(t)),
            SizeTerm::Call(id) => self.n.can_fail_wire(&Wire::Struct(*id)),
        }
    }

    /// Adds the term `t` of `place` to `n`. Every `Len` and `Each` term is a string's or
    /// an array's length, checked against the prefix first.
    fn measure_term(&self, c: &mut Code, place: &str, t: &SizeTerm, ctx: &[Ctx], d: usize, view: bool) {
        let p = self.prefix();
        let too_long = |c: &mut Code| {
            let len = format!("{place}.len");
            Self::measure_fail(c, &format!("!wl_len_ok({len}, {p})"), ctx, Some((&len, p)));
        };
        let add_scaled = |c: &mut Code, k: u64| match k {
            0 => {}
            1 => c.linef(format_args!("n = wl_add(n, {place}.len);")),
            k => c.linef(format_args!("n = wl_add(n, wl_mul({place}.len, {k}));")),
        };
        match t {
            SizeTerm::Len { scale } => {
                too_long(c);
                add_scaled(c, *scale);
            }
            SizeTerm::Each(vs) => {
                too_long(c);
                add_scaled(c, vs.constant);
                if let Some(inner) = &vs.term {
                    let i = format!("i{d}");
                    c.open("{");
                    c.linef(format_args!("size_t {i};"));
                    c.open(&format!("for ({i} = 0; {i} < {place}.len; {i}++) {{"));
                    let mut ictx = vec![Ctx::Index(i.clone())];
                    ictx.extend_from_slice(ctx);
                    self.measure_term(c, &format!("{place}.ptr[{i}]"), inner, &ictx, d + 1, view);
                    c.close("}");
                    c.close("}");
                }
            }
            SizeTerm::Present { scale } => {
                if *scale > 0 {
                    c.linef(format_args!("if ({place}.has) {{"));
                    c.depth += 1;
                    c.linef(format_args!("n = wl_add(n, {scale});"));
                    c.depth -= 1;
                    c.line("}");
                }
            }
            SizeTerm::IfPresent(vs) => {
                c.linef(format_args!("if ({place}.has) {{"));
                c.depth += 1;
                self.measure_value(c, &format!("{place}.value"), vs, ctx, d + 1, view);
                c.depth -= 1;
                c.line("}");
            }
            SizeTerm::Call(id) => {
                c.linef(format_args!(
                    "n = wl_add(n, {}(&{place}, err));",
                    self.fname(*id, view, "measure")
                ));
                if self.n.can_fail_wire(&Wire::Struct(*id)) {
                    Self::measure_fail(c, "err->status != WL_OK", ctx, None);
                }
            }
        }
    }

    /// Adds a whole value's size (its constant, then its term) to `n`.
    fn measure_value(&self, c: &mut Code, place: &str, vs: &ValueSize, ctx: &[Ctx], d: usize, view: bool) {
        if vs.constant > 0 {
            c.linef(format_args!("n = wl_add(n, {});", vs.constant));
        }
        if let Some(t) = &vs.term {
            self.measure_term(c, place, t, ctx, d, view);
        }
    }

    // ------------------------------------------------------------------ write

    fn write_fn(&self, c: &mut Code, id: TypeId, items: &[Item], view: bool) {
        let ty = self.tname(id, view);
        let fname = self.fname(id, view, "write");
        c.blank();
        // `inline`: a hint that gcc -O2 needs to inline a small element's write into an
        // array loop (without it the decision flips with unrelated runtime changes; the
        // call cost 1.25× on arrays of small structs). Large writes stay calls, but for
        // the element of a single array (`WL__ELEM`, forced).
        let st = self.storage(id, "static inline");
        c.open(&format!("{st} uint8_t *{fname}(const void *vp, uint8_t *p) {{"));
        if items.is_empty() {
            c.line("(void)vp;");
        } else {
            c.linef(format_args!("const {ty} *v = (const {ty} *)vp;"));
        }
        for it in items {
            match it {
                Item::Block { size, leaves } => {
                    for r in self.runs(id, leaves) {
                        let run = &leaves[r];
                        if let Some((cond, first, len)) = Self::run_cond(&ty, run) {
                            c.open(&format!("if ({cond}) {{"));
                            c.linef(format_args!(
                                "memcpy({}, (const uint8_t *)v + offsetof({ty}, {}), {len});",
                                Self::at("p", first.at),
                                first.access
                            ));
                            c.close("} else {");
                            c.depth += 1;
                            for l in run {
                                self.put_leaf(c, "p", 0, "v", l);
                            }
                            c.close("}");
                        } else {
                            for l in run {
                                self.put_leaf(c, "p", 0, "v", l);
                            }
                        }
                    }
                    c.linef(format_args!("p += {size};"));
                }
                Item::Var { access, value, .. } => self.write_value(c, &Self::place("v", access), value, 0, view),
            }
        }
        c.line("return p;");
        c.close("}");
    }

    fn write_value(&self, c: &mut Code, place: &str, v: &Value, d: usize, view: bool) {
        match v {
            Value::Str(pre) => c.linef(format_args!("p = wl_put_str(p, {}, {place});", pre.bytes())),
            Value::Prim(pr) => {
                c.linef(format_args!("wl_put_{}(p, {place});", prim_short(*pr)));
                c.linef(format_args!("p += {};", pr.fixed_size().unwrap_or(0)));
            }
            Value::BulkPrims(pre, pr) => {
                let kind = if view { "view" } else { "array" };
                c.linef(format_args!(
                    "p = wl_put_{}_{kind}(p, {}, {place});",
                    prim_short(*pr),
                    pre.bytes()
                ));
            }
            Value::Array { prefix, elem, .. } => {
                let i = format!("i{d}");
                c.open("{");
                c.linef(format_args!("size_t {i};"));
                c.linef(format_args!("p = wl_put_len(p, {}, {place}.len);", prefix.bytes()));
                c.open(&format!("for ({i} = 0; {i} < {place}.len; {i}++) {{"));
                self.write_value(c, &format!("{place}.ptr[{i}]"), elem, d + 1, view);
                c.close("}");
                c.close("}");
            }
            Value::Optional(e) => {
                c.open(&format!("if ({place}.has) {{"));
                c.line("*p++ = 1;");
                self.write_value(c, &format!("{place}.value"), e, d + 1, view);
                c.close("} else {");
                c.depth += 1;
                c.line("*p++ = 0;");
                c.close("}");
            }
            Value::Struct { id, .. } => c.linef(format_args!("p = {}(&{place}, p);", self.fname(*id, view, "write"))),
        }
    }

    // ------------------------------------------------------------------ read

    /// Error exit of a read step that already recorded its error: add the context,
    /// return the status.
    ///
    /// Braced, as every `if` body in the generated C: for an unbraced one gcc's
    /// `-Wmisleading-indentation` (in `-Wall`) looks up source lines at a cost that grows
    /// with the file (500-struct schema, `gcc -Wall -fsyntax-only`: 7.3 s, braced 0.44 s).
    fn read_fail(ctx: &[Ctx]) -> String {
        match ctx {
            [] => "{ return rd->err->status; }".into(),
            [only] => format!("{{ return {}; }}", Self::ctx_call(only)),
            _ => {
                let mut s = String::from("{ ");
                for x in &ctx[..ctx.len() - 1] {
                    s.push_str(&Self::ctx_call(x));
                    s.push_str("; ");
                }
                let _ = write!(s, "return {}; }}", Self::ctx_call(&ctx[ctx.len() - 1]));
                s
            }
        }
    }

    fn ctx_call(x: &Ctx) -> String {
        match x {
            Ctx::Field(j) => format!("wl_err_field(rd->err, {})", c_string(j)),
            Ctx::Index(i) => format!("wl_err_index(rd->err, {i})"),
        }
    }

    fn read_fn(&self, c: &mut Code, id: TypeId, items: &[Item], view: bool) {
        let ty = self.tname(id, view);
        let fname = self.fname(id, view, "read");
        c.blank();
        let st = self.storage(id, "static");
        c.open(&format!("{st} wl_status {fname}(wl_reader *rd, void *outp) {{"));
        if items.is_empty() {
            c.line("(void)rd;");
            c.line("(void)outp;");
        } else {
            c.linef(format_args!("{ty} *out = ({ty} *)outp;"));
        }
        for it in items {
            match it {
                Item::Block { size, leaves } => {
                    let first = leaves.first().map_or("NULL".to_string(), |l| c_string(&l.json));
                    c.open("{");
                    c.line("const uint8_t *p;");
                    c.linef(format_args!(
                        "if (rd->len - rd->at < {size}) {{ return wl_rd_end(rd, {size}, {first}); }}"
                    ));
                    c.line("p = rd->buf + rd->at;");
                    for r in self.runs(id, leaves) {
                        let run = &leaves[r];
                        if let Some((cond, first, len)) = Self::run_cond(&ty, run) {
                            // The bools' checks first, in wire order; then one copy.
                            for l in run {
                                if l.kind == LeafKind::Prim(Primitive::Bool) {
                                    self.check_bool(c, "p", "rd->at", "rd->err", l);
                                }
                            }
                            c.open(&format!("if ({cond}) {{"));
                            c.linef(format_args!(
                                "memcpy((uint8_t *)out + offsetof({ty}, {}), {}, {len});",
                                first.access,
                                Self::at("p", first.at)
                            ));
                            c.close("} else {");
                            c.depth += 1;
                            for l in run {
                                self.load_leaf(c, "p", l);
                            }
                            c.close("}");
                        } else {
                            for l in run {
                                self.get_leaf(c, "p", "rd->at", "rd->err", l);
                            }
                        }
                    }
                    c.linef(format_args!("rd->at += {size};"));
                    c.close("}");
                }
                Item::Var { access, json, value } => {
                    let ctx = if json.is_empty() {
                        vec![]
                    } else {
                        vec![Ctx::Field(json.clone())]
                    };
                    self.read_value(c, &Self::place("out", access), value, &ctx, 0, view);
                }
            }
        }
        c.line("return WL_OK;");
        c.close("}");
    }

    /// Whether a successful read of a value of this wire writes every member of its C
    /// type: everything but an absent optional's payload (and the placeholder of a struct
    /// without fields) is always written.
    fn read_writes_all(&self, w: &Wire, depth: usize) -> bool {
        match w {
            Wire::Prim(_) | Wire::Array(_) => true,
            Wire::Optional(_) => false,
            Wire::Struct(id) => {
                let Some(t) = self.layout.get(*id) else { return false };
                if depth > 64 {
                    false
                } else if t.wire != Wire::Struct(*id) {
                    self.read_writes_all(&t.wire, depth + 1)
                } else {
                    !t.fields.is_empty() && t.fields.iter().all(|f| self.read_writes_all(&f.wire, depth + 1))
                }
            }
        }
    }

    fn read_value(&self, c: &mut Code, place: &str, v: &Value, ctx: &[Ctx], d: usize, view: bool) {
        let fail = Self::read_fail(ctx);
        match v {
            Value::Str(pre) => c.linef(format_args!(
                "if (wl_rd_str(rd, {}, &{place}) != WL_OK) {fail}",
                pre.bytes()
            )),
            Value::Prim(pr) => c.linef(format_args!(
                "if (wl_rd_{}(rd, &{place}) != WL_OK) {fail}",
                prim_short(*pr)
            )),
            Value::BulkPrims(pre, pr) => {
                let kind = if view { "view" } else { "array" };
                c.linef(format_args!(
                    "if (wl_rd_{}_{kind}(rd, {}, &{place}) != WL_OK) {fail}",
                    prim_short(*pr),
                    pre.bytes()
                ));
            }
            Value::Array { prefix, elem, elem_min } => {
                let ty = self.n.c_type(&wire_of(elem), view);
                let (n, i, a) = (format!("n{d}"), format!("i{d}"), format!("a{d}"));
                c.open("{");
                c.linef(format_args!("size_t {n}, {i};"));
                c.linef(format_args!("{ty} *{a} = NULL;"));
                c.linef(format_args!(
                    "if (wl_rd_count(rd, {}, {elem_min}, &{n}) != WL_OK) {fail}",
                    prefix.bytes()
                ));
                // Zero-filled only when reading leaves members unwritten (the payload of an
                // absent optional); else the fill would be a second pass over the array.
                let alloc = if self.read_writes_all(&wire_of(elem), 0) {
                    "wl_rd_alloc"
                } else {
                    "wl_rd_alloc_zero"
                };
                c.open(&format!("if ({n} > 0) {{"));
                c.linef(format_args!(
                    "{a} = ({ty} *){alloc}(rd, {n}, sizeof *{a}, WL_ALIGNOF({ty}));"
                ));
                c.linef(format_args!("if (!{a}) {fail}"));
                c.close("}");
                c.open(&format!("for ({i} = 0; {i} < {n}; {i}++) {{"));
                let mut inner = vec![Ctx::Index(i.clone())];
                inner.extend_from_slice(ctx);
                self.read_value(c, &format!("{a}[{i}]"), elem, &inner, d + 1, view);
                c.close("}");
                c.linef(format_args!("{place}.ptr = {a};"));
                c.linef(format_args!("{place}.len = {n};"));
                c.close("}");
            }
            Value::Optional(e) => {
                let h = format!("h{d}");
                c.open("{");
                c.linef(format_args!("bool {h};"));
                c.linef(format_args!("if (wl_rd_presence(rd, &{h}) != WL_OK) {fail}"));
                c.linef(format_args!("{place}.has = {h};"));
                c.open(&format!("if ({h}) {{"));
                self.read_value(c, &format!("{place}.value"), e, ctx, d + 1, view);
                c.close("}");
                c.close("}");
            }
            Value::Struct { id, .. } => c.linef(format_args!(
                "if ({}(rd, &{place}) != WL_OK) {fail}",
                self.fname(*id, view, "read")
            )),
        }
    }

    // ------------------------------------------------------------------ public API

    /// The type's tables for the runtime's generic encode/decode functions (the public
    /// API is macros over them, in the header).
    fn tables(&self, c: &mut Code, id: TypeId, t: &TypeLayout) {
        let n = self.n.type_name(id);
        let mid = t.message_id.map_or("0".to_string(), |_| format!("{n}_MESSAGE_ID"));
        c.blank();
        for view in [false, true] {
            let ty = self.tname(id, view);
            let (m, w, r) = (
                self.fname(id, view, "measure"),
                self.fname(id, view, "write"),
                self.fname(id, view, "read"),
            );
            let table = if view {
                format!("{n}_view_type")
            } else {
                format!("{n}_type")
            };
            // One line: `long_line` would wrap at the `(` of `sizeof`.
            c.linef(format_args!(
                "const wl_type {table} = {{{m}, {w}, {r}, sizeof({ty}), {mid}, {}}};",
                !view
            ));
        }
    }

    fn dispatcher_fns(&self, c: &mut Code) {
        let structs = self.sdp_structs();
        if structs.is_empty() {
            return;
        }
        let m = self.n.message_type();
        let protos = self.dispatcher_prototypes();
        let count = structs.iter().map(|(_, mid)| usize::from(*mid)).max().unwrap_or(0) + 1;
        let mut by_id = vec![None; count];
        for (id, mid) in &structs {
            by_id[usize::from(*mid)] = Some(*id);
        }
        c.blank();
        c.linef(format_args!(
            "// ---------------------------------------------------------------- {m}"
        ));
        c.blank();
        c.line("// The table of every message type, by type id.");
        c.open(&format!("static const wl_type *const {m}_types[{count}] = {{"));
        for t in &by_id {
            match t {
                Some(id) => c.linef(format_args!("&{}_type,", self.n.type_name(*id))),
                None => c.line("NULL,"),
            }
        }
        c.close("};");
        c.blank();
        self.long_line(c, &format!("{} {{", protos[0]));
        c.depth += 1;
        c.linef(format_args!(
            "return {m}_decode_prefix(buf, len, out, NULL, arena, err);"
        ));
        c.close("}");
        c.blank();
        self.long_line(c, &format!("{} {{", protos[1]));
        c.depth += 1;
        c.line("uint16_t id = 0;");
        c.line("wl_status st;");
        c.line("memset(out, 0, sizeof *out);");
        self.long_line(
            c,
            &format!(
                "st = wl_decode_any({m}_types, {count}, buf, len, &id, &out->as, sizeof out->as, used, arena, err);"
            ),
        );
        c.linef(format_args!("if (st == WL_OK) {{ out->kind = ({m}Kind)id; }}"));
        c.line("return st;");
        c.close("}");
        for (k, call) in [
            (2, "wl_encode(t, &msg->as, true, buf, cap, written, err)"),
            (3, "wl_encode_buf(t, &msg->as, true, out, err)"),
        ] {
            c.blank();
            self.long_line(c, &format!("{} {{", protos[k]));
            c.depth += 1;
            c.linef(format_args!(
                "const wl_type *t = wl_type_of({m}_types, {count}, (unsigned)msg->kind, err);"
            ));
            c.linef(format_args!("return t ? {call} : WL_ERR_TYPE_ID;"));
            c.close("}");
        }
    }
}

/// A token of generated C: an identifier or number, a string literal, or one other character.
fn c_tokens(s: &str) -> Option<Vec<&str>> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        if b[i].is_ascii_alphanumeric() || b[i] == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            if i > b.len() {
                return None;
            }
        } else {
            // One character (UTF-8 only ever occurs inside string literals).
            i += s[i..].chars().next().map_or(1, char::len_utf8);
        }
        out.push(&s[start..i]);
    }
    Some(out)
}

/// The owned and the view functions of a type as one macro instantiated twice, when
/// their texts differ only in identifiers (the view's type, its nested functions and
/// `wl_*_view` helpers): the view functions were ~40 % of the generated C of a large
/// schema. A name that differs by an inserted `_view` is pasted with parameter `WL_V`
/// (empty or `_view`), one with `array` in place of `view` with `WL_K`, any other pair
/// becomes a parameter of its own. None (emit both texts) when the texts differ otherwise.
fn shared_bodies(macro_name: &str, owned: &str, view: &str) -> Option<String> {
    if owned.contains("//") || owned.lines().any(|l| l.ends_with('\\')) {
        return None; // a comment or a line splice cannot go inside a macro body
    }
    let ident = |t: &str| t.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
    // Parameter names that occur nowhere in the texts (not even inside a longer name).
    let fresh = |base: &str| {
        let mut name = base.to_string();
        while owned.contains(name.as_str()) || view.contains(name.as_str()) {
            name.push('_');
        }
        name
    };
    let (pv, pk) = (fresh("WL_V"), fresh("WL_K"));
    let paste = |out: &mut String, pre: &str, param: &str, post: &str| {
        let mut first = true;
        for part in [pre, param, post].into_iter().filter(|x| !x.is_empty()) {
            if !first {
                out.push_str("##");
            }
            out.push_str(part);
            first = false;
        }
    };
    let mut extra: Vec<(String, &str, &str)> = Vec::new();
    let mut body = String::with_capacity(owned.len() + owned.len() / 8);
    let (mut la, mut lb) = (owned.lines(), view.lines());
    loop {
        let (x, y) = match (la.next(), lb.next()) {
            (None, None) => break,
            (Some(x), Some(y)) => (x, y),
            _ => return None,
        };
        if x.is_empty() && y.is_empty() {
            continue;
        }
        body.push_str(" \\\n");
        // Most lines are the same; only the others are compared token by token.
        if x == y {
            body.push_str(x);
            continue;
        }
        let (a, b) = (c_tokens(x)?, c_tokens(y)?);
        if a.len() != b.len() {
            return None;
        }
        for (x, y) in a.into_iter().zip(b) {
            if x == y {
                body.push_str(x);
                continue;
            }
            if !ident(x) || !ident(y) {
                return None;
            }
            let inserted = (y.len() == x.len() + 5)
                .then(|| {
                    (0..=x.len()).find(|&i| {
                        x.is_char_boundary(i)
                            && y.starts_with(&x[..i])
                            && y[i..].starts_with("_view")
                            && y[i + 5..] == x[i..]
                    })
                })
                .flatten();
            if let Some(i) = inserted {
                paste(&mut body, &x[..i], &pv, &x[i..]);
                continue;
            }
            let swapped = x.match_indices("array").map(|(i, _)| i).find(|&i| {
                y.len() + 1 == x.len()
                    && y.starts_with(&x[..i])
                    && y[i..].starts_with("view")
                    && y[i + 4..] == x[i + 5..]
            });
            if let Some(i) = swapped {
                paste(&mut body, &x[..i], &pk, &x[i + 5..]);
                continue;
            }
            let k = match extra.iter().position(|(_, o, v)| *o == x && *v == y) {
                Some(k) => k,
                None => {
                    extra.push((fresh(&format!("WL_P{}", extra.len())), x, y));
                    extra.len() - 1
                }
            };
            body.push_str(&extra[k].0);
        }
    }
    let mut params = vec![pv, pk];
    params.extend(extra.iter().map(|(p, _, _)| p.clone()));
    let mut out = format!("#define {macro_name}({})", params.join(", "));
    out.push_str(&body);
    out.push('\n');
    for (v, k, pick) in [("", "array", 0), ("_view", "view", 1)] {
        let mut args = vec![v.to_string(), k.to_string()];
        args.extend(
            extra
                .iter()
                .map(|(_, o, w)| if pick == 0 { o.to_string() } else { w.to_string() }),
        );
        let _ = writeln!(out, "{macro_name}({})", args.join(", "));
    }
    let _ = writeln!(out, "#undef {macro_name}");
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use wirelens_core::{analyze, OrderChoice};

    fn gen(dialect: Dialect, text: &str) -> Result<(String, String), EmitError> {
        let a = analyze(dialect, text, None, OrderChoice::default());
        let files = generate(&a.schema, &a.layout, "test.x")?;
        Ok((files[0].contents.clone(), files[1].contents.clone()))
    }

    #[test]
    fn keywords_are_escaped_never_rejected() {
        assert_eq!(ident("int"), "int_");
        assert_eq!(ident("default"), "default_");
        assert_eq!(ident("bool"), "bool_");
        assert_eq!(ident("name"), "name");
        assert_eq!(ident("__x"), "x__x");
        assert_eq!(ident("größe"), "gr_u00F6_u00DFe");
        let (h, c) = gen(
            Dialect::Ffi,
            "package p\ntype Thing struct {\n\tInt string\n\tStruct int32\n\tDefault bool\n}\n",
        )
        .expect("generates");
        assert!(h.starts_with(GENERATED_HEADER) && c.starts_with(GENERATED_HEADER));
        assert!(h.contains("wl_str int_;"), "{h}");
        assert!(h.contains("int32_t struct_;"), "{h}");
        assert!(h.contains("bool default_;"), "{h}");
        assert!(h.contains("struct test_ThingMessage {"), "{h}");
    }

    #[test]
    fn wire_order_and_blocks_come_from_the_layout() {
        let (h, c) = gen(
            Dialect::Ffi,
            "package p\ntype Rec struct {\n\tName string\n\tFlag bool\n\tId int64\n}\n",
        )
        .expect("generates");
        // canonical: Id (8-byte), Flag (1-byte), Name (variable); one 9-byte block.
        assert!(h.contains("Fixed blocks: 9 B at 0."), "{h}");
        let id = c.find("out->id = wl_get_i64(p);").expect("id");
        let flag = c.find("out->flag = p[8] != 0;").expect("flag");
        let name = c.find("&out->name) != WL_OK").expect("name");
        assert!(id < flag && flag < name, "{c}");
        assert!(
            c.contains("if (rd->len - rd->at < 9) { return wl_rd_end(rd, 9, \"Id\"); }"),
            "{c}"
        );
    }

    #[test]
    fn schemas_with_errors_are_refused() {
        let err = gen(Dialect::Sdp, "struct A { b: Missing }").expect_err("refused");
        assert!(err.0.contains("no layout for A"), "{err}");
    }

    #[test]
    fn names_that_clash_with_generated_ones_are_escaped() {
        let (h, _) = gen(
            Dialect::Sdp,
            "struct A { x: u8 }\nstruct A_size { y: u8 }\nstruct Message { z: [][]A }\n",
        )
        .expect("generates");
        assert!(h.contains("struct test_A_size_ {"), "{h}");
        assert!(h.contains("struct test_Message_ {"), "{h}");
        assert!(h.contains("typedef struct test_Message {"), "{h}");
        assert!(h.contains("typedef struct test_A_array_array {"), "{h}");
        assert!(h.contains("test_A_size__MESSAGE_ID = 2,"), "{h}");
    }

    #[test]
    fn the_public_api_is_macros_over_the_runtime_tables() {
        let (h, c) = gen(
            Dialect::Sdp,
            "struct A { s: str, v: []u16 }\nstruct B { a: A, n: u8 }\n",
        )
        .expect("generates");
        // Per type only measure/write/read are compiled, behind two tables.
        assert!(c.contains("const wl_type test_A_type = {test_A_measure, test_A_write, test_A_read, sizeof(test_A), test_A_MESSAGE_ID,"), "{c}");
        assert!(c.contains("const wl_type test_A_view_type = {test_A_view_measure, test_A_view_write, test_A_view_read, sizeof(test_A_view),"), "{c}");
        assert!(
            !c.contains("_measure_any") && !c.contains("_read_any"),
            "no adapters: {c}"
        );
        assert!(
            !c.contains("wl_status test_A_encode") && !c.contains("wl_status test_A_decode"),
            "no per-type wrappers: {c}"
        );
        assert!(h.contains("extern const wl_type test_A_type, test_A_view_type;"), "{h}");
        assert!(
            h.contains("#define test_A_encode_buf(...) WL_ENCB_(test_A, false, __VA_ARGS__)\n"),
            "{h}"
        );
        assert!(
            h.contains("#define test_B_decode_message_view_prefix(...) WL_DECP_(test_B_view, true, __VA_ARGS__)\n"),
            "{h}"
        );
        assert!(h.contains("//   wl_status T_decode_prefix(const uint8_t *buf, size_t len, T *out, size_t *used, wl_arena *arena, wl_error *err)\n"), "{h}");
        // The dispatcher: one table by type id, no switch.
        assert!(
            c.contains("static const wl_type *const test_Message_types[3] = {"),
            "{c}"
        );
        assert!(!c.contains("switch"), "{c}");
    }

    #[test]
    fn every_if_body_is_braced() {
        let schema = "struct A { s: str, v: []u16, b: bool, o: ?B, l: [][]B }\nstruct B { x: u8, y: bool }\nstruct C { a: A, b: B }\n";
        let (_, c) = gen(Dialect::Sdp, schema).expect("generates");
        for line in c.lines() {
            let l = line.trim_end_matches(" \\");
            if l.trim_start().starts_with("if (") {
                assert!(l.ends_with('{') || l.ends_with('}'), "unbraced: {line}");
            }
        }
    }

    #[test]
    fn runs_of_fields_laid_out_as_on_the_wire_are_one_copy() {
        // R's a..d: one run (a u64, then narrower members at multiples of their size); x is
        // alone (e is wider than x, so the C compiler may pad before it); e..f a run;
        // g..i a run with bools.
        let (_, c) = gen(
            Dialect::Sdp,
            "struct R { a: u64, b: u32, c: u16, d: u8, s: str, x: u8, e: u32, f: f32, t: str, g: u8, h: bool, i: bool }\n\
             struct Top { rs: []R, a: u64, b: u32 }\n",
        )
        .expect("generates");
        let run = "WL_LITTLE_ENDIAN && WL_AT(test_R, a, b, 8) && WL_AT(test_R, a, c, 12) && WL_AT(test_R, a, d, 14)";
        assert!(c.contains(&format!("if ({run}) {{")), "{c}");
        assert!(
            c.contains("memcpy(p, (const uint8_t *)v + offsetof(test_R, a), 15);"),
            "{c}"
        );
        assert!(
            c.contains("memcpy((uint8_t *)out + offsetof(test_R, a), p, 15);"),
            "{c}"
        );
        assert!(c.contains("if (WL_LITTLE_ENDIAN && WL_AT(test_R, e, f, 4)) {"), "{c}");
        assert!(
            c.contains("memcpy(p + 1, (const uint8_t *)v + offsetof(test_R, e), 8);"),
            "{c}"
        );
        assert!(!c.contains("WL_AT(test_R, x,"), "{c}");
        // Bools are checked before the copy, in wire order.
        let bools = "WL_LITTLE_ENDIAN && sizeof(bool) == 1 && WL_AT(test_R, g, h, 1) && WL_AT(test_R, g, i, 2)";
        let copy = c
            .find(&format!("if ({bools}) {{\n            memcpy((uint8_t *)out"))
            .expect("bool run read");
        let (h, i) = (
            c.find("\"h\"); }").expect("h check"),
            c.find("\"i\"); }").expect("i check"),
        );
        assert!(h < i && i < copy, "{c}");
        // The field-by-field code stays as the fallback (another ABI, a big-endian host).
        assert!(c.contains("wl_put_u16(p + 12, v->c);"), "{c}");
        // Only array elements get runs (coded many times; the fallback costs text).
        assert!(!c.contains("WL_AT(test_Top,"), "{c}");
    }

    #[test]
    fn only_elements_of_one_array_are_forced_inline() {
        let (_, c) = gen(
            Dialect::Sdp,
            "struct E { s: str }\nstruct Twice { s: str }\nstruct Also { s: str }\n\
             struct R { es: []E, t1: []Twice, t2: []Twice, a: []Also, a1: Also }\n",
        )
        .expect("generates");
        for f in [
            "size_t test_E_measure(",
            "uint8_t *test_E_write(",
            "wl_status test_E_read(",
        ] {
            assert!(c.contains(&format!("WL__ELEM {f}")), "{f}: {c}");
        }
        // Two arrays, an array and a field: left to the compiler.
        for t in ["Twice", "Also"] {
            assert!(c.contains(&format!("static size_t test_{t}_measure(")), "{t}: {c}");
            assert!(!c.contains(&format!("WL__ELEM wl_status test_{t}")), "{t}: {c}");
        }
    }

    #[test]
    fn arrays_are_zero_filled_only_when_reading_leaves_members_unwritten() {
        let (_, c) = gen(
            Dialect::Sdp,
            "struct P { x: i32, s: str, l: []u8 }\nstruct O { o: Option<i32> }\nstruct N { p: P, o: O }\n\
             struct R { ps: []P, os: []O, ns: []N, ss: []str, ls: [][]P, opts: []Option<P> }\n",
        )
        .expect("generates");
        // Every member of P (and of strings and arrays) is written by a successful read.
        // (P has a view: its functions are one text over `WL_V`, see shared_bodies.)
        for ty in ["test_P##WL_V", "wl_str", "test_P##WL_V##_array"] {
            assert!(c.contains(&format!("({ty} *)wl_rd_alloc(rd, ")), "{ty}: {c}");
        }
        // An absent optional leaves its payload unwritten, also inside a nested struct.
        for ty in ["test_O", "test_N##WL_V", "test_P##WL_V##_opt"] {
            assert!(c.contains(&format!("({ty} *)wl_rd_alloc_zero(rd, ")), "{ty}: {c}");
        }
    }

    #[test]
    fn view_functions_share_the_owned_text() {
        let (_, c) = gen(
            Dialect::Sdp,
            "struct A { s: str, v: []u16 }\nstruct B { a: A, l: []A }\n",
        )
        .expect("generates");
        assert!(c.contains("#define test_B_CODEC_(WL_V, WL_K) \\\n"), "{c}");
        assert!(c.contains("    p = wl_put_u16_##WL_K(p, 4, v->v); \\\n"), "{c}");
        assert!(c.contains("test_A##WL_V##_read(rd, &out->a)"), "{c}");
        assert!(c.contains("test_A##WL_V *a0 = NULL;"), "{c}");
        assert!(
            c.contains("test_B_CODEC_(, array)\ntest_B_CODEC_(_view, view)\n#undef test_B_CODEC_\n"),
            "{c}"
        );
        assert!(
            !c.contains("static wl_status test_A_view_read"),
            "one text per function: {c}"
        );
        // A pair of names without either pattern is a parameter; parameter names avoid the body's.
        let t = shared_bodies("M", "int WL_V = f(x_array);\n", "int WL_V = g(x_view);\n").expect("shares");
        assert_eq!(t, "#define M(WL_V_, WL_K, WL_P0) \\\nint WL_V = WL_P0(x_##WL_K);\nM(, array, f)\nM(_view, view, g)\n#undef M\n");
        // Texts that differ in anything but identifiers, or hold a comment, stay apart.
        assert_eq!(shared_bodies("M", "f(1);\n", "f(2);\n"), None);
        assert_eq!(shared_bodies("M", "f(a);\n", "f(a, b);\n"), None);
        assert_eq!(shared_bodies("M", "f(a); // x\n", "f(b); // x\n"), None);
    }

    #[test]
    fn c_strings_escape_everything_unusual() {
        assert_eq!(c_string("a\"b\\c??=\n\u{e9}"), "\"a\\\"b\\\\c\\?\\?=\\012\\303\\251\"");
        assert_eq!(comment("x ??/ y\\"), "x ? ?/ y\\.");
    }
}
