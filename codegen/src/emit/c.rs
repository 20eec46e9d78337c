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
//! Owned decodes copy strings (NUL-terminated) and arrays into a `wl_arena`; view
//! decodes point strings and primitive arrays into the input and put only arrays of
//! non-primitives in the arena.
//!
//! Everything about the wire comes from [`crate::layout`]: fields in wire order, their
//! sizes, and the fixed blocks, each read with one bounds check and written with
//! constant-offset stores (nested variable-size structs that the layout inlines into a
//! block are inlined here too).

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use super::{field_ident, module_name, Code, EmitError, OutputFile, GENERATED_HEADER};
use crate::dialect::Dialect;
use crate::graph::Graph;
use crate::layout::{FixedBlock, Layout, LeafKind, SizeInfo, TypeLayout, Wire};
use crate::model::{Primitive, Schema, TypeId, TypeKind};

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

fn prim_short(p: Primitive) -> &'static str {
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
    derived: HashMap<(Wire, bool), String>,
    /// Types in dependency order (a type after every type it mentions).
    pub order: Vec<TypeId>,
}

impl Names {
    pub fn new(schema: &Schema, layout: &Layout, source: &str) -> Names {
        let module = module_name(source);
        let prefix = if module == "wl" || module.starts_with("wl_") {
            format!("x{module}")
        } else {
            module
        };
        let n = schema.types.len();
        let order = Graph::new(schema).order;
        let order: Vec<TypeId> = order.into_iter().filter(|&id| layout.get(id).is_some()).collect();
        let mut names = Names {
            prefix,
            short: vec![String::new(); n],
            fields: vec![Vec::new(); n],
            borrows: vec![false; n],
            has_view: vec![false; n],
            can_fail: vec![false; n],
            derived: HashMap::new(),
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
        let mut taken: HashSet<String> = HashSet::new();
        let p = names.prefix.clone();
        if schema.dialect == Dialect::Sdp {
            for d in DISPATCH_NAMES {
                taken.insert(format!("{p}_{d}"));
            }
        }
        for (id, def) in schema.types.iter().enumerate() {
            let mut short = sanitize(&def.name);
            if layout.get(id).is_some_and(|t| t.root) {
                short.push_str("Message");
            }
            loop {
                let full = format!("{p}_{short}");
                let clash =
                    taken.contains(&full) || TYPE_SUFFIXES.iter().any(|s| taken.contains(&format!("{full}_{s}")));
                if !clash {
                    break;
                }
                short.push('_');
            }
            let full = format!("{p}_{short}");
            for s in TYPE_SUFFIXES {
                taken.insert(format!("{full}_{s}"));
            }
            taken.insert(full);
            names.short[id] = short;
            let mut seen: Vec<String> = Vec::new();
            for f in def.fields() {
                let mut name = ident(&field_ident(&f.name));
                while seen.contains(&name) {
                    name.push('_');
                }
                seen.push(name);
            }
            names.fields[id] = seen;
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
                    taken.insert(full.clone());
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

/// Generates `<module>.h` and `<module>.c` for one schema.
pub fn generate(schema: &Schema, layout: &Layout, source: &str) -> Result<Vec<OutputFile>, EmitError> {
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
    let names = Names::new(schema, layout, source);
    let g = Gen {
        schema,
        layout,
        n: &names,
        prefix: layout.dialect.length_prefix(),
    };
    let mut plans = HashMap::new();
    for &id in &names.order {
        if let Some(t) = layout.get(id) {
            if schema.types[id].is_struct() || t.root {
                plans.insert(id, g.items(id, t)?);
            }
        }
    }
    let module = module_name(source);
    let header = g.header(source, &module, &plans);
    let code = g.source(source, &module, &plans);
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
}

/// One step of a struct's encoding, in wire order.
enum Item {
    /// A fixed block: one bounds check, constant-offset loads and stores.
    Block { size: u64, leaves: Vec<BLeaf> },
    /// A variable-size value (string, array, optional, nested struct not inlined); for
    /// alias roots the whole value (`access` empty).
    Var { access: String, json: String, wire: Wire },
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
    n: &'s Names,
    /// Length prefix bytes: 4 (SDP) or 2 (ffire).
    prefix: u64,
}

impl Gen<'_> {
    fn sdp(&self) -> bool {
        self.schema.dialect == Dialect::Sdp
    }

    fn size_of(&self, w: &Wire) -> SizeInfo {
        match w {
            Wire::Prim(p) => p.fixed_size().map_or(
                SizeInfo {
                    fixed: None,
                    min: self.prefix,
                    max: None,
                },
                SizeInfo::fixed,
            ),
            Wire::Struct(id) => self.layout.get(*id).map_or(SizeInfo::fixed(0), |t| t.size),
            Wire::Array(_) => SizeInfo {
                fixed: None,
                min: self.prefix,
                max: None,
            },
            Wire::Optional(_) => SizeInfo {
                fixed: None,
                min: 1,
                max: None,
            },
        }
    }

    /// The part of a value's size every value of `w` has (prefixes, presence bytes,
    /// fixed sizes); 0 for variable-size structs, whose size is measured whole.
    fn const_part(&self, w: &Wire) -> u64 {
        match w {
            Wire::Prim(p) => p.fixed_size().unwrap_or(self.prefix),
            Wire::Array(_) => self.prefix,
            Wire::Optional(_) => 1,
            Wire::Struct(_) => self.size_of(w).fixed.unwrap_or(0),
        }
    }

    // ------------------------------------------------------------------ plan

    /// The encoding of value type `id` as fixed blocks and variable items, read off the
    /// layout: fields in wire order, nested variable structs inlined where the layout
    /// put their fixed fields into this struct's blocks.
    fn items(&self, id: TypeId, t: &TypeLayout) -> Result<Vec<Item>, EmitError> {
        let def = &self.schema.types[id];
        if !def.is_struct() {
            return Ok(vec![Item::Var {
                access: String::new(),
                json: String::new(),
                wire: t.wire.clone(),
            }]);
        }
        let internal = |what: &str| {
            EmitError(format!(
                "internal error: the fixed blocks of `{}` do not match its fields ({what})",
                def.name
            ))
        };
        // Where each block leaf is: path → (block, leaf index).
        let mut leaf_at: HashMap<&[usize], (usize, usize)> = HashMap::new();
        for (b, block) in t.blocks.iter().enumerate() {
            for (j, leaf) in block.leaves.iter().enumerate() {
                leaf_at.insert(leaf.path.as_slice(), (b, j));
            }
        }
        let inlined = |path: &[usize]| {
            t.blocks.iter().any(|b| {
                b.leaves
                    .iter()
                    .any(|l| l.path.len() > path.len() && l.path.starts_with(path))
            })
        };
        let mut items = Vec::new();
        // (path, owner type, wire, size) still to visit, reversed.
        struct Todo {
            path: Vec<usize>,
            access: String,
            json: String,
            wire: Wire,
            size: SizeInfo,
        }
        let mut todo: Vec<Todo> = Vec::new();
        let push_fields = |todo: &mut Vec<Todo>, owner: TypeId, path: &[usize], access: &str, json: &str| {
            let Some(ol) = self.layout.get(owner) else { return };
            let fields = self.schema.types[owner].fields();
            let names = self.n.fields(owner);
            for f in ol.fields.iter().rev() {
                let mut p = path.to_vec();
                p.push(f.decl_index);
                let name = names.get(f.decl_index).cloned().unwrap_or_default();
                let jn = fields.get(f.decl_index).map_or("", |x| x.json_name.as_str());
                todo.push(Todo {
                    path: p,
                    access: if access.is_empty() {
                        name
                    } else {
                        format!("{access}.{name}")
                    },
                    json: if json.is_empty() {
                        jn.to_string()
                    } else {
                        format!("{json}.{jn}")
                    },
                    wire: f.wire.clone(),
                    size: f.size,
                });
            }
        };
        push_fields(&mut todo, id, &[], "", "");
        // The block being emitted and the next leaf expected in it.
        let mut open: Option<(usize, usize)> = None;
        while let Some(item) = todo.pop() {
            if let Wire::Struct(nested) = item.wire {
                if item.size.fixed.is_none() && inlined(&item.path) {
                    push_fields(&mut todo, nested, &item.path, &item.access, &item.json);
                    continue;
                }
            }
            let is_leaf = item.size.fixed.is_some() && matches!(item.wire, Wire::Prim(_) | Wire::Struct(_));
            if let Some((b, next)) = open {
                let block: &FixedBlock = &t.blocks[b];
                if next < block.leaves.len() {
                    if !is_leaf || leaf_at.get(item.path.as_slice()) != Some(&(b, next)) {
                        return Err(internal("a block is interrupted"));
                    }
                    open = Some((b, next + 1));
                    continue;
                }
                open = None;
            }
            if is_leaf {
                match leaf_at.get(item.path.as_slice()) {
                    Some(&(b, 0)) => {
                        let block = &t.blocks[b];
                        let leaves = block
                            .leaves
                            .iter()
                            .map(|l| self.leaf(id, &l.path, l.kind, l.at))
                            .collect::<Result<Vec<_>, _>>()?;
                        items.push(Item::Block {
                            size: block.size,
                            leaves,
                        });
                        open = Some((b, 1));
                    }
                    Some(_) => return Err(internal("a block starts in the middle")),
                    None => {
                        // Not in a block (the layout gave up on a pathological struct):
                        // a block of its own.
                        let kind = match &item.wire {
                            Wire::Prim(p) => LeafKind::Prim(*p),
                            Wire::Struct(s) => LeafKind::Struct(*s),
                            _ => return Err(internal("a fixed leaf is neither primitive nor struct")),
                        };
                        items.push(Item::Block {
                            size: item.size.fixed.unwrap_or(0),
                            leaves: vec![BLeaf {
                                access: item.access,
                                json: item.json,
                                kind,
                                at: 0,
                            }],
                        });
                    }
                }
                continue;
            }
            items.push(Item::Var {
                access: item.access,
                json: item.json,
                wire: item.wire,
            });
        }
        if let Some((b, next)) = open {
            if next < t.blocks[b].leaves.len() {
                return Err(internal("a block is cut short"));
            }
        }
        Ok(items)
    }

    /// Resolves a block leaf's path (declaration indices from `owner`) to C and JSON names.
    fn leaf(&self, owner: TypeId, path: &[usize], kind: LeafKind, at: u64) -> Result<BLeaf, EmitError> {
        let mut access = Vec::new();
        let mut json = Vec::new();
        let mut ty = owner;
        for (k, &i) in path.iter().enumerate() {
            let def = &self.schema.types[ty];
            let f = def
                .fields()
                .get(i)
                .ok_or_else(|| EmitError(format!("internal error: bad leaf path in `{}`", def.name)))?;
            access.push(self.n.fields(ty).get(i).cloned().unwrap_or_default());
            json.push(f.json_name.clone());
            if k + 1 < path.len() {
                ty = match self.layout.get(ty).and_then(|t| t.field_by_decl(i)).map(|f| &f.wire) {
                    Some(Wire::Struct(n)) => *n,
                    _ => return Err(EmitError(format!("internal error: bad leaf path in `{}`", def.name))),
                };
            }
        }
        Ok(BLeaf {
            access: access.join("."),
            json: json.join("."),
            kind,
            at,
        })
    }

    /// Fixed-size structs used whole inside some block (they get `_get`/`_put`).
    fn block_structs(&self, plans: &HashMap<TypeId, Vec<Item>>) -> HashSet<TypeId> {
        let mut out = HashSet::new();
        for items in plans.values() {
            for it in items {
                if let Item::Block { leaves, .. } = it {
                    for l in leaves {
                        if let LeafKind::Struct(s) = l.kind {
                            out.insert(s);
                        }
                    }
                }
            }
        }
        // A struct's get/put call those of the fixed structs inside it.
        let mut stack: Vec<TypeId> = out.iter().copied().collect();
        while let Some(s) = stack.pop() {
            if let Some(t) = self.layout.get(s) {
                for b in &t.blocks {
                    for l in &b.leaves {
                        if let LeafKind::Struct(inner) = l.kind {
                            if out.insert(inner) {
                                stack.push(inner);
                            }
                        }
                    }
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
        c.line(&format!(
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
                c.line(&format!("// {d}"));
            }
        }
    }

    fn layout_doc(&self, c: &mut Code, id: TypeId, t: &TypeLayout) {
        let d = super::layout_doc(self.schema, self.layout, id, t);
        c.line(&format!(
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
        if let Some(blocks) = &d.blocks {
            c.line("//");
            c.line(&comment(&format!("// {blocks}.")));
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
                c.line(&format!("const {elem} *ptr;"));
                c.line("size_t len;");
            }
            _ => {
                c.open(&format!("typedef struct {name} {{"));
                c.line("bool has;");
                c.line(&format!("{elem} value;"));
            }
        }
        c.close(&format!("}} {name};"));
    }

    fn is_value_type(&self, id: TypeId) -> bool {
        self.schema.types[id].is_struct() || self.layout.get(id).is_some_and(|t| t.root)
    }

    fn header(&self, source: &str, module: &str, plans: &HashMap<TypeId, Vec<Item>>) -> String {
        let _ = plans;
        let mut c = Code::default();
        self.file_intro(&mut c, source);
        c.line("//");
        c.line("// Per type T: T_size, T_encode (caller buffer), T_encode_buf (appends to a reusable");
        c.line("// wl_buf), T_decode (no trailing bytes), T_decode_prefix (back-to-back records),");
        c.line("// T_decode_view / T_decode_view_prefix (zero-copy: strings and primitive arrays point");
        c.line("// into the input). Owned decodes copy strings (NUL-terminated) and arrays into the");
        c.line("// wl_arena; views put only arrays of non-primitives there. Every function returns a");
        c.line("// wl_status; pass a wl_error (or NULL) for the offset and value path of a failure.");
        if self.sdp() {
            c.line("// Every struct is also an SDP message (T_MESSAGE_ID, T_encode_message,");
            c.line(&format!(
                "// T_decode_message); {} decodes any of them by type id.",
                self.n.message_type()
            ));
            c.line("// Box<T> has no effect on the wire and is generated as T.");
        } else {
            c.line("// Strings and arrays are limited to 65,535 bytes / elements: encoders refuse longer ones.");
        }
        let guard = format!("WIRELENS_GEN_{}_H", module.to_ascii_uppercase());
        c.blank();
        c.line(&format!("#ifndef {guard}"));
        c.line(&format!("#define {guard}"));
        c.blank();
        c.line("#include \"wirelens.h\"");
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
            c.line(&format!("typedef struct {name} {name};"));
            if self.n.has_view(id) {
                let v = self.n.view_name(id);
                c.line(&format!("typedef struct {v} {v};"));
            } else {
                c.line(&format!("typedef {name} {};", self.n.view_name(id)));
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
                            c.line(&format!(
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
                            c.line(&format!("{} {};", self.n.c_type(&fl.wire, view), names[i]));
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
                    c.line(&format!("typedef {} {name};", self.n.c_type(&t.wire, false)));
                    if t.root {
                        if self.n.has_view_wire(&t.wire) {
                            self.ensure_derived(&mut c, &t.wire, true, &mut done);
                            c.line(&format!(
                                "typedef {} {};",
                                self.n.c_type(&t.wire, true),
                                self.n.view_name(id)
                            ));
                        } else {
                            c.line(&format!("typedef {name} {};", self.n.view_name(id)));
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
                c.line(&format!("// {doc}"));
                self.long_line(&mut c, &format!("{p};"));
            }
        }
        c.blank();
        c.line("#ifdef __cplusplus");
        c.line("}");
        c.line("#endif");
        c.blank();
        c.line(&format!("#endif // {guard}"));
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
        if let Some(size) = t.size.fixed {
            c.line(&format!("// Every {n} encodes to {size} bytes."));
            c.line(&format!("#define {n}_SIZE ((size_t){size})"));
        }
        for (sig, doc) in self.signatures(id, t) {
            c.line(&format!("// {doc}"));
            self.long_line(c, &format!("{sig};"));
        }
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
        c.line(&format!("{m}_NONE = 0,"));
        for (id, mid) in &structs {
            c.line(&format!("{}_MESSAGE_ID = {mid},", self.n.type_name(*id)));
        }
        c.close(&format!("}} {m}Kind;"));
        c.blank();
        c.line("// Any message of this schema: `kind` is the type id, `as` holds the value.");
        c.open(&format!("typedef struct {m} {{"));
        c.line(&format!("{m}Kind kind;"));
        c.open("union {");
        for (id, _) in &structs {
            c.line(&format!("{} {};", self.n.type_name(*id), ident(self.n.short_name(*id))));
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

    fn source(&self, source: &str, module: &str, plans: &HashMap<TypeId, Vec<Item>>) -> String {
        let mut c = Code::default();
        self.file_intro(&mut c, source);
        c.blank();
        c.line(&format!("#include \"{module}.h\""));
        let blockers = self.block_structs(plans);
        for &id in &self.n.order {
            let Some(t) = self.layout.get(id) else { continue };
            let Some(items) = plans.get(&id) else { continue };
            let n = self.n.type_name(id);
            c.blank();
            c.line(&format!(
                "// ---------------------------------------------------------------- {n}"
            ));
            if blockers.contains(&id) {
                self.get_put(&mut c, id, t);
            }
            let views: &[bool] = if self.n.has_view_wire(&t.wire) {
                &[false, true]
            } else {
                &[false]
            };
            for &view in views {
                self.measure_fn(&mut c, id, items, view);
                self.write_fn(&mut c, id, items, view);
                self.read_fn(&mut c, id, items, view);
            }
            self.adapters(&mut c, id, t);
            self.public_fns(&mut c, id, t);
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

    fn get_put(&self, c: &mut Code, id: TypeId, t: &TypeLayout) {
        let n = self.n.type_name(id);
        let leaves: Vec<BLeaf> = t
            .blocks
            .iter()
            .flat_map(|b| b.leaves.iter().map(move |l| (b, l)))
            .filter_map(|(_, l)| self.leaf(id, &l.path, l.kind, l.at).ok())
            .collect();
        c.blank();
        c.line(&format!("// Stores a {n} at p (inside a parent's fixed block)."));
        c.open(&format!("static void {n}_put(uint8_t *p, const {n} *v) {{"));
        for l in &leaves {
            self.put_leaf(c, "p", 0, "v", l);
        }
        c.close("}");
        c.blank();
        c.line(&format!(
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
            LeafKind::Prim(pr) => c.line(&format!("wl_put_{}({at}, {place});", prim_short(pr))),
            LeafKind::Struct(s) => c.line(&format!("{}_put({at}, &{place});", self.n.type_name(s))),
        }
    }

    /// Loads a leaf at p + at; `off` is the input offset of p, `err` the wl_error.
    fn get_leaf(&self, c: &mut Code, p: &str, off: &str, err: &str, l: &BLeaf) {
        let at = Self::at(p, l.at);
        let place = Self::place("out", &l.access);
        let json = c_string(&l.json);
        match l.kind {
            LeafKind::Prim(Primitive::Bool) => {
                c.line(&format!(
                    "if ({p}[{}] > 1) return wl_bad_bool({err}, {}, {p}[{}], {json});",
                    l.at,
                    Self::at(off, l.at),
                    l.at
                ));
                c.line(&format!("{place} = {p}[{}] != 0;", l.at));
            }
            LeafKind::Prim(pr) => c.line(&format!("{place} = wl_get_{}({at});", prim_short(pr))),
            LeafKind::Struct(s) => c.line(&format!(
                "if ({}_get({at}, {}, &{place}, {err}) != WL_OK) return wl_err_field({err}, {json});",
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
                c.line(&format!("if ({cond}) return wl_too_long(err, {len}, {p}, NULL);"));
                return;
            }
            (Some((len, p)), [Ctx::Field(j)]) => {
                c.line(&format!(
                    "if ({cond}) return wl_too_long(err, {len}, {p}, {});",
                    c_string(j)
                ));
                return;
            }
            (None, []) => {
                c.line(&format!("if ({cond}) return 0;"));
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

    fn measure_fn(&self, c: &mut Code, id: TypeId, items: &[Item], view: bool) {
        let ty = self.tname(id, view);
        let fname = self.fname(id, view, "measure");
        let mut constant = 0u64;
        for it in items {
            constant += match it {
                Item::Block { size, .. } => *size,
                Item::Var { wire, .. } => self.const_part(wire),
            };
        }
        c.blank();
        c.line("// The encoded size; records WL_ERR_TOO_LONG (and returns 0) for an oversized string or array.");
        c.open(&format!("static size_t {fname}(const {ty} *v, wl_error *err) {{"));
        let vars: Vec<(&String, &String, &Wire)> = items
            .iter()
            .filter_map(|it| match it {
                Item::Var { access, json, wire } => Some((access, json, wire)),
                Item::Block { .. } => None,
            })
            .collect();
        let mut body = Code {
            out: String::new(),
            depth: c.depth,
        };
        for (access, json, wire) in &vars {
            let ctx = if json.is_empty() {
                vec![]
            } else {
                vec![Ctx::Field((*json).clone())]
            };
            self.measure_var(&mut body, &Self::place("v", access), wire, &ctx, 0, view);
        }
        let uses_v = !body.out.is_empty();
        let uses_err = vars.iter().any(|(_, _, w)| self.n.can_fail_wire(w));
        if !uses_v {
            c.line("(void)v;");
        }
        if !uses_err {
            c.line("(void)err;");
        }
        if body.out.is_empty() {
            c.line(&format!("return {constant};"));
        } else {
            c.line(&format!(
                "size_t n = {constant}; // fixed blocks, length prefixes, presence bytes"
            ));
            c.out.push_str(&body.out);
            c.line("return n;");
        }
        c.close("}");
    }

    /// Adds to `n` the size of `place` beyond [`Self::const_part`].
    fn measure_var(&self, c: &mut Code, place: &str, w: &Wire, ctx: &[Ctx], d: usize, view: bool) {
        let p = self.prefix;
        let too_long = |c: &mut Code, len: String| {
            Self::measure_fail(c, &format!("!wl_len_ok({len}, {p})"), ctx, Some((&len, p)));
        };
        match w {
            Wire::Prim(Primitive::Str) => {
                too_long(c, format!("{place}.len"));
                c.line(&format!("n = wl_add(n, {place}.len);"));
            }
            Wire::Prim(_) => {}
            Wire::Array(e) => {
                too_long(c, format!("{place}.len"));
                match self.size_of(e).fixed {
                    Some(1) => c.line(&format!("n = wl_add(n, {place}.len);")),
                    Some(k) => c.line(&format!("n = wl_add(n, wl_mul({place}.len, {k}));")),
                    None => {
                        let k = self.const_part(e);
                        if k > 0 {
                            c.line(&format!("n = wl_add(n, wl_mul({place}.len, {k}));"));
                        }
                        let i = format!("i{d}");
                        c.open("{");
                        c.line(&format!("size_t {i};"));
                        c.open(&format!("for ({i} = 0; {i} < {place}.len; {i}++) {{"));
                        let mut inner = vec![Ctx::Index(i.clone())];
                        inner.extend_from_slice(ctx);
                        self.measure_var(c, &format!("{place}.ptr[{i}]"), e, &inner, d + 1, view);
                        c.close("}");
                        c.close("}");
                    }
                }
            }
            Wire::Optional(e) => {
                let k = self.const_part(e);
                let mut body = Code {
                    out: String::new(),
                    depth: c.depth + 1,
                };
                if k > 0 {
                    body.line(&format!("n = wl_add(n, {k});"));
                }
                self.measure_var(&mut body, &format!("{place}.value"), e, ctx, d + 1, view);
                if !body.out.is_empty() {
                    c.line(&format!("if ({place}.has) {{"));
                    c.out.push_str(&body.out);
                    c.line("}");
                }
            }
            Wire::Struct(s) => {
                if self.size_of(w).fixed.is_some() {
                    return;
                }
                c.line(&format!(
                    "n = wl_add(n, {}(&{place}, err));",
                    self.fname(*s, view, "measure")
                ));
                if self.n.can_fail_wire(w) {
                    Self::measure_fail(c, "err->status != WL_OK", ctx, None);
                }
            }
        }
    }

    // ------------------------------------------------------------------ write

    fn write_fn(&self, c: &mut Code, id: TypeId, items: &[Item], view: bool) {
        let ty = self.tname(id, view);
        let fname = self.fname(id, view, "write");
        c.blank();
        c.line("// Writes the encoding at p (the caller made room: measure first); returns the end.");
        c.open(&format!("static uint8_t *{fname}(const {ty} *v, uint8_t *p) {{"));
        for it in items {
            match it {
                Item::Block { size, leaves } => {
                    for l in leaves {
                        self.put_leaf(c, "p", 0, "v", l);
                    }
                    c.line(&format!("p += {size};"));
                }
                Item::Var { access, wire, .. } => self.write_var(c, &Self::place("v", access), wire, 0, view),
            }
        }
        c.line("return p;");
        c.close("}");
    }

    fn write_var(&self, c: &mut Code, place: &str, w: &Wire, d: usize, view: bool) {
        let pf = self.prefix;
        match w {
            Wire::Prim(Primitive::Str) => c.line(&format!("p = wl_put_str(p, {pf}, {place});")),
            Wire::Prim(pr) => {
                c.line(&format!("wl_put_{}(p, {place});", prim_short(*pr)));
                c.line(&format!("p += {};", pr.fixed_size().unwrap_or(0)));
            }
            Wire::Array(e) => match &**e {
                Wire::Prim(pr) if *pr != Primitive::Str => {
                    let kind = if view { "view" } else { "array" };
                    c.line(&format!("p = wl_put_{}_{kind}(p, {pf}, {place});", prim_short(*pr)));
                }
                e => {
                    let i = format!("i{d}");
                    c.open("{");
                    c.line(&format!("size_t {i};"));
                    c.line(&format!("p = wl_put_len(p, {pf}, {place}.len);"));
                    c.open(&format!("for ({i} = 0; {i} < {place}.len; {i}++) {{"));
                    self.write_var(c, &format!("{place}.ptr[{i}]"), e, d + 1, view);
                    c.close("}");
                    c.close("}");
                }
            },
            Wire::Optional(e) => {
                c.open(&format!("if ({place}.has) {{"));
                c.line("*p++ = 1;");
                self.write_var(c, &format!("{place}.value"), e, d + 1, view);
                c.close("} else {");
                c.depth += 1;
                c.line("*p++ = 0;");
                c.close("}");
            }
            Wire::Struct(s) => c.line(&format!("p = {}(&{place}, p);", self.fname(*s, view, "write"))),
        }
    }

    // ------------------------------------------------------------------ read

    /// Error exit of a read step that already recorded its error: add the context,
    /// return the status.
    fn read_fail(ctx: &[Ctx]) -> String {
        match ctx {
            [] => "return rd->err->status;".into(),
            [only] => format!("return {};", Self::ctx_call(only)),
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
        if view {
            c.line("// Reads a view at rd's position: strings and primitive arrays point into the input.");
        } else {
            c.line("// Reads one value at rd's position: strings are copied into the arena (rd->copy) or");
            c.line("// point into the input; arrays go to the arena.");
        }
        c.open(&format!("static wl_status {fname}(wl_reader *rd, {ty} *out) {{"));
        for it in items {
            match it {
                Item::Block { size, leaves } => {
                    let first = leaves.first().map_or("NULL".to_string(), |l| c_string(&l.json));
                    c.open("{");
                    c.line("const uint8_t *p;");
                    c.line(&format!(
                        "if (rd->len - rd->at < {size}) return wl_rd_end(rd, {size}, {first});"
                    ));
                    c.line("p = rd->buf + rd->at;");
                    for l in leaves {
                        self.get_leaf(c, "p", "rd->at", "rd->err", l);
                    }
                    c.line(&format!("rd->at += {size};"));
                    c.close("}");
                }
                Item::Var { access, json, wire } => {
                    let ctx = if json.is_empty() {
                        vec![]
                    } else {
                        vec![Ctx::Field(json.clone())]
                    };
                    self.read_var(c, &Self::place("out", access), wire, &ctx, 0, view);
                }
            }
        }
        c.line("return WL_OK;");
        c.close("}");
    }

    fn read_var(&self, c: &mut Code, place: &str, w: &Wire, ctx: &[Ctx], d: usize, view: bool) {
        let pf = self.prefix;
        let fail = Self::read_fail(ctx);
        match w {
            Wire::Prim(Primitive::Str) => c.line(&format!("if (wl_rd_str(rd, {pf}, &{place}) != WL_OK) {fail}")),
            Wire::Prim(pr) => c.line(&format!("if (wl_rd_{}(rd, &{place}) != WL_OK) {fail}", prim_short(*pr))),
            Wire::Array(e) => match &**e {
                Wire::Prim(pr) if *pr != Primitive::Str => {
                    let kind = if view { "view" } else { "array" };
                    c.line(&format!(
                        "if (wl_rd_{}_{kind}(rd, {pf}, &{place}) != WL_OK) {fail}",
                        prim_short(*pr)
                    ));
                }
                e => {
                    let elem = self.n.c_type(e, view);
                    let (n, i, a) = (format!("n{d}"), format!("i{d}"), format!("a{d}"));
                    let min = self.size_of(e).min.max(1);
                    c.open("{");
                    c.line(&format!("size_t {n}, {i};"));
                    c.line(&format!("{elem} *{a} = NULL;"));
                    c.line(&format!("if (wl_rd_count(rd, {pf}, {min}, &{n}) != WL_OK) {fail}"));
                    c.open(&format!("if ({n} > 0) {{"));
                    c.line(&format!(
                        "{a} = ({elem} *)wl_rd_alloc_zero(rd, {n}, sizeof *{a}, WL_ALIGNOF({elem}));"
                    ));
                    c.line(&format!("if (!{a}) {fail}"));
                    c.close("}");
                    c.open(&format!("for ({i} = 0; {i} < {n}; {i}++) {{"));
                    let mut inner = vec![Ctx::Index(i.clone())];
                    inner.extend_from_slice(ctx);
                    self.read_var(c, &format!("{a}[{i}]"), e, &inner, d + 1, view);
                    c.close("}");
                    c.line(&format!("{place}.ptr = {a};"));
                    c.line(&format!("{place}.len = {n};"));
                    c.close("}");
                }
            },
            Wire::Optional(e) => {
                let h = format!("h{d}");
                c.open("{");
                c.line(&format!("bool {h};"));
                c.line(&format!("if (wl_rd_presence(rd, &{h}) != WL_OK) {fail}"));
                c.line(&format!("{place}.has = {h};"));
                c.open(&format!("if ({h}) {{"));
                self.read_var(c, &format!("{place}.value"), e, ctx, d + 1, view);
                c.close("}");
                c.close("}");
            }
            Wire::Struct(s) => c.line(&format!(
                "if ({}(rd, &{place}) != WL_OK) {fail}",
                self.fname(*s, view, "read")
            )),
        }
    }

    // ------------------------------------------------------------------ public API

    fn adapters(&self, c: &mut Code, id: TypeId, t: &TypeLayout) {
        c.blank();
        c.line("// Adapters for the runtime's generic entry points.");
        let views: &[bool] = if self.n.has_view_wire(&t.wire) {
            &[false, true]
        } else {
            &[false]
        };
        for &view in views {
            let ty = self.tname(id, view);
            let (m, w) = (self.fname(id, view, "measure"), self.fname(id, view, "write"));
            let r = self.fname(id, view, "read");
            c.open(&format!("static size_t {m}_any(const void *v, wl_error *err) {{"));
            c.line(&format!("return {m}((const {ty} *)v, err);"));
            c.close("}");
            c.open(&format!("static uint8_t *{w}_any(const void *v, uint8_t *p) {{"));
            c.line(&format!("return {w}((const {ty} *)v, p);"));
            c.close("}");
            c.open(&format!("static wl_status {r}_any(wl_reader *rd, void *out) {{"));
            c.line(&format!("return {r}(rd, ({ty} *)out);"));
            c.close("}");
        }
    }

    fn public_fns(&self, c: &mut Code, id: TypeId, t: &TypeLayout) {
        let mid = t
            .message_id
            .map_or("0".to_string(), |_| format!("{}_MESSAGE_ID", self.n.type_name(id)));
        for (sig, _) in self.signatures(id, t) {
            let name = sig
                .split('(')
                .next()
                .and_then(|h| h.rsplit(' ').next())
                .unwrap_or_default()
                .to_string();
            let n = self.n.type_name(id);
            let what = name.strip_prefix(&format!("{n}_")).unwrap_or_default();
            let view = what.starts_with("view_") || what.contains("_view");
            let m = format!("{}_any", self.fname(id, view, "measure"));
            let w = format!("{}_any", self.fname(id, view, "write"));
            let r = format!("{}_any", self.fname(id, view, "read"));
            let copy = if view { "false" } else { "true" };
            let body = match what {
                "size" | "view_size" => format!("return wl_size(v, {m});"),
                "encode" | "view_encode" => format!("return wl_encode(v, {m}, {w}, 0, buf, cap, written, err);"),
                "encode_buf" | "view_encode_buf" => format!("return wl_encode_buf(v, {m}, {w}, 0, out, err);"),
                "encode_message" => format!("return wl_encode(v, {m}, {w}, {mid}, buf, cap, written, err);"),
                "encode_message_buf" => format!("return wl_encode_buf(v, {m}, {w}, {mid}, out, err);"),
                "decode" | "decode_view" => {
                    format!("return wl_decode(buf, len, out, sizeof *out, {r}, 0, {copy}, arena, NULL, err);")
                }
                "decode_prefix" | "decode_view_prefix" => {
                    format!("return wl_decode(buf, len, out, sizeof *out, {r}, 0, {copy}, arena, used, err);")
                }
                "decode_message" | "decode_message_view" => {
                    format!("return wl_decode(buf, len, out, sizeof *out, {r}, {mid}, {copy}, arena, NULL, err);")
                }
                "decode_message_prefix" | "decode_message_view_prefix" => {
                    format!("return wl_decode(buf, len, out, sizeof *out, {r}, {mid}, {copy}, arena, used, err);")
                }
                _ => continue,
            };
            c.blank();
            self.long_line(c, &format!("{sig} {{"));
            c.depth += 1;
            self.long_line(c, &body);
            c.close("}");
        }
    }

    fn dispatcher_fns(&self, c: &mut Code) {
        let structs = self.sdp_structs();
        if structs.is_empty() {
            return;
        }
        let m = self.n.message_type();
        let protos = self.dispatcher_prototypes();
        c.blank();
        c.line(&format!(
            "// ---------------------------------------------------------------- {m}"
        ));
        c.blank();
        self.long_line(c, &format!("{} {{", protos[0]));
        c.depth += 1;
        c.line(&format!("return {m}_decode_prefix(buf, len, out, NULL, arena, err);"));
        c.close("}");
        c.blank();
        self.long_line(c, &format!("{} {{", protos[1]));
        c.depth += 1;
        c.line("wl_error local;");
        c.line("wl_reader r;");
        c.line("uint16_t id = 0;");
        c.line("size_t total;");
        c.line("wl_status st;");
        c.line("if (!err) err = &local;");
        c.line("wl_reader_init(&r, buf, len, arena, true, err);");
        c.line("memset(out, 0, sizeof *out);");
        c.line("total = r.len;");
        c.line("if (wl_sdp_open(&r, 0, &id) != WL_OK) return err->status;");
        c.open("switch (id) {");
        for (id, mid) in &structs {
            c.line(&format!("case {mid}:"));
            c.depth += 1;
            c.line(&format!("out->kind = {}_MESSAGE_ID;", self.n.type_name(*id)));
            c.line(&format!(
                "st = {}(&r, &out->as.{});",
                self.fname(*id, false, "read"),
                ident(self.n.short_name(*id))
            ));
            c.line("break;");
            c.depth -= 1;
        }
        c.line("default:");
        c.depth += 1;
        c.line("return wl_fail(err, WL_ERR_TYPE_ID, 4, id, 0, 0);");
        c.depth -= 1;
        c.close("}");
        c.line("if (st != WL_OK) return st;");
        c.line("if (wl_sdp_close(&r) != WL_OK) return err->status;");
        c.line("r.len = total;");
        c.line("return wl_reader_finish(&r, used);");
        c.close("}");
        for (k, tail) in [(2, "buf, cap, written, err"), (3, "out, err")] {
            c.blank();
            self.long_line(c, &format!("{} {{", protos[k]));
            c.depth += 1;
            c.open("switch (msg->kind) {");
            for (id, _) in &structs {
                let n = self.n.type_name(*id);
                let f = if k == 2 { "encode_message" } else { "encode_message_buf" };
                c.line(&format!(
                    "case {n}_MESSAGE_ID: return {n}_{f}(&msg->as.{}, {tail});",
                    ident(self.n.short_name(*id))
                ));
            }
            c.line(&format!("case {m}_NONE:"));
            c.line("default: break;");
            c.close("}");
            c.line("if (err) wl_fail(err, WL_ERR_TYPE_ID, 0, (uint64_t)msg->kind, 0, 0);");
            c.line("return WL_ERR_TYPE_ID;");
            c.close("}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{analyze, OrderChoice};

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
            c.contains("if (rd->len - rd->at < 9) return wl_rd_end(rd, 9, \"Id\");"),
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
    fn c_strings_escape_everything_unusual() {
        assert_eq!(c_string("a\"b\\c??=\n\u{e9}"), "\"a\\\"b\\\\c\\?\\?=\\012\\303\\251\"");
        assert_eq!(comment("x ??/ y\\"), "x ? ?/ y\\.");
    }
}
