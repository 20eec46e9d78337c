//! The Rust emitter: one module per schema (Rust 2021), depending only on the
//! `wirelens-runtime` crate (`runtime/rust`).
//!
//! Per value type `T` (every struct; for ffire also array and named-primitive roots,
//! which become tuple structs) the module has only what must be per type:
//! - `T` (owned: `String`, `Vec<_>`, `Option<_>`) and, when `T` contains strings or
//!   arrays, `TView<'a>` (zero-copy: `&'a str`, `LeSlice<'a, _>` for primitive arrays);
//! - `impl rt::Message for T` (`encoded_size`, `write_to`), `impl rt::Decode for T` and
//!   for `TView` (`read_from`); SDP: `impl rt::SdpMessage` (`MESSAGE_ID`) and one
//!   `AnyMessage` enum with `impl rt::Dispatch`.
//!
//! `encode`, `encode_into`, `to_bytes`, `decode`, `decode_prefix`, `decode_view`, the
//! message methods and the dispatcher's `decode` are the traits' default methods in
//! `wirelens-runtime`, written once (as `prost::Message` does it).
//!
//! Fields are read and written in the order [`wirelens_core::layout`] gives; consecutive
//! fixed-size fields (nested fixed structs included) are one fixed block: one bounds
//! check and one copy.

use super::{field_ident, pascal_case, Code, EmitError, GENERATED_HEADER};
use wirelens_core::dialect::Dialect;
use wirelens_core::layout::{FixedBlock, Layout, Leaf, LeafKind, TypeLayout, Wire};
use wirelens_core::model::{Primitive, Schema, TypeId, TypeKind};
use wirelens_core::plan::{Boxed, Plan, Prefix, SizeTerm, Step, TypePlan, Value, ValueSize, MAX_INLINE_DEPTH};

/// Rust keywords (strict, reserved and 2018+), escaped as raw identifiers.
const KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "else", "enum", "extern", "false", "fn", "for", "if", "impl", "in", "let",
    "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "static", "struct", "trait", "true", "type",
    "unsafe", "use", "where", "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
];

/// Keywords that cannot be raw identifiers: suffixed with `_` instead.
const NOT_RAW: &[&str] = &["self", "Self", "super", "crate", "_"];

/// Type names the generated code itself relies on; a schema type with one of these
/// names gets the suffix `Type`.
const TAKEN_TYPES: &[&str] = &[
    "String",
    "Vec",
    "Option",
    "Some",
    "None",
    "Result",
    "Ok",
    "Err",
    "Box",
    "Self",
    "AnyMessage",
    "Default",
    "Clone",
    "Debug",
    "PartialEq",
];

/// A Rust identifier for `name`, keywords escaped (`r#type`, `self_`).
pub fn ident(name: &str) -> String {
    if NOT_RAW.contains(&name) {
        format!("{name}_")
    } else if KEYWORDS.contains(&name) {
        format!("r#{name}")
    } else {
        name.to_string()
    }
}

/// The Rust names of every schema type, indexed by [`TypeId`]: PascalCase (`my_thing` →
/// `MyThing`), ffire roots with `Message` appended, names the generated code uses
/// ([`TAKEN_TYPES`]) with `Type` appended; names that coincide after that (`Point`,
/// `point`, `_Point`) are numbered: the type whose name as written is the result keeps
/// it, the others get `Point2`, `Point3`, … in declaration order
/// ([`super::unique_type_names`]).
pub fn type_names(schema: &Schema, layout: &Layout) -> Vec<String> {
    let bases: Vec<String> = schema
        .types
        .iter()
        .enumerate()
        .map(|(id, def)| {
            let mut name = pascal_case(&def.name);
            if layout.get(id).is_some_and(|t| t.root) {
                name.push_str("Message");
            }
            if TAKEN_TYPES.contains(&name.as_str()) {
                name.push_str("Type");
            }
            name
        })
        .collect();
    let as_written: Vec<bool> = bases.iter().zip(&schema.types).map(|(b, d)| *b == d.name).collect();
    super::unique_type_names(bases, &as_written, |base, k| format!("{base}{k}"))
}

/// The Rust name of one schema type (see [`type_names`]).
pub fn type_name(schema: &Schema, layout: &Layout, id: TypeId) -> String {
    type_names(schema, layout)
        .get(id)
        .cloned()
        .unwrap_or_else(|| "Unknown".into())
}

/// Which optimizations the emitted code uses. [`generate`] uses [`RustOptions::default`]
/// (all on); [`RustOptions::PLAIN`] turns them all off, for the benchmarks in `bench/`
/// that measure what each one buys (spec §6). Every combination encodes and decodes
/// the same bytes and reports the same errors (paths may point at a field instead of the
/// start of its fixed block).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RustOptions {
    /// Consecutive fixed-size fields (nested fixed structs inlined) are one fixed block:
    /// one bounds check on decode, one stack buffer and one append on encode. Off: every
    /// field is read and written on its own, with its own bounds check, nested structs
    /// through calls.
    pub fixed_blocks: bool,
    /// Primitive arrays are appended with `put_prims` and decoded with one bounds check
    /// and one conversion pass. Off: one `put_prim` / checked read per element.
    pub bulk_arrays: bool,
    /// The owned type of string fields (views always borrow `&'a str`).
    pub strings: OwnedStrings,
    /// The decoders and `write_to` of structs that are array elements are
    /// `#[inline(always)]`, so each element is built in place in the loop instead of
    /// returned through memory and then moved into the `Vec` (measured: view and owned
    /// decode 0.6–0.87x the time, docs/benchmarks/history.md "#14 Rust, 2026-11-24 session
    /// 2"), and
    /// written with the writer kept in registers instead of returned through memory
    /// ("session 3"). Off: LLVM decides.
    pub inline_elements: bool,
    /// Where views keep their arrays of struct and string views ([`Memory`]).
    pub memory: Memory,
}

/// Where views keep their arrays ([`RustOptions::memory`]; `wirelens.toml`:
/// `[generate.rust] memory = "std" | "arena"`; `build.rs`: `Builder::rust_memory`).
/// Owned values are the same either way.
/// - `Std` (the default): a view's array of struct or string views is a `Vec`, one heap
///   allocation per array per decode.
/// - `Arena`: every array in a view is a `&'a [T]` (primitive arrays stay `LeSlice`)
///   built in place in an `rt::Arena` (`bumpalo::Bump`; needs the runtime's `arena`
///   feature) that the caller passes to `decode_view_in(bytes, &arena)` and resets
///   between decodes: no allocation per decode once the arena has grown. A struct whose
///   only borrowed part is an array of plain structs gets a view too. The arena-less
///   `decode_view` refuses these views (`DecodeErrorKind::NoArena`). Measured in
///   docs/benchmarks/history.md ("#14 Rust views, 2026-11-24 session 4").
pub use super::Memory;

/// The owned type of string fields ([`RustOptions::strings`]; `wirelens.toml`:
/// `[generate.rust] strings = "std" | "compact"`; `build.rs`: `Builder::rust_strings`).
/// - `Std` (the default): `String`, one heap allocation per decoded string.
/// - `Compact`: `compact_str::CompactString` (re-exported as
///   `wirelens_runtime::CompactString`; needs the runtime's `compact-strings` feature): the
///   same 24 bytes as a `String`, strings of up to 24 bytes stored inline, so decoding
///   allocates only for longer ones. Derefs to `str` like `String`; build one with `.into()`
///   or `CompactString::from`. Measured in docs/benchmarks/history.md ("#14 Rust").
pub use super::OwnedStrings;

impl RustOptions {
    /// Every optimization off: a straightforward field-by-field codec.
    pub const PLAIN: RustOptions = RustOptions {
        fixed_blocks: false,
        bulk_arrays: false,
        strings: OwnedStrings::Std,
        inline_elements: false,
        memory: Memory::Std,
    };
}

impl Default for RustOptions {
    fn default() -> Self {
        RustOptions {
            fixed_blocks: true,
            bulk_arrays: true,
            strings: OwnedStrings::Std,
            inline_elements: true,
            memory: Memory::Std,
        }
    }
}

/// Generates the module for one schema. `source` names the schema file in the header.
pub fn generate(schema: &Schema, layout: &Layout, source: &str) -> Result<String, EmitError> {
    generate_with(schema, layout, source, &RustOptions::default())
}

/// [`generate`] with a choice of optimizations.
pub fn generate_with(schema: &Schema, layout: &Layout, source: &str, opts: &RustOptions) -> Result<String, EmitError> {
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
    let elements = plan.struct_uses().iter().map(|u| u.in_an_array).collect();
    let names = type_names(schema, layout);
    let boxed = plan.boxed(layout);
    let g = Gen {
        schema,
        layout,
        plan,
        boxed,
        elements,
        opts: *opts,
        type_names: names.iter().cloned().collect(),
        names,
        struct_borrows: struct_borrows(layout, opts.memory),
        field_names: (0..schema.types.len()).map(|id| field_names(schema, id)).collect(),
    };
    let mut c = Code::with_capacity(super::OUTPUT_BYTES_PER_TYPE * schema.types.len());
    g.header(&mut c, source);
    for (id, def) in schema.types.iter().enumerate() {
        let Some(t) = layout.get(id) else { continue };
        match &def.kind {
            TypeKind::Struct { .. } => g.value_type(&mut c, id, t),
            TypeKind::Alias { .. } if t.root => g.value_type(&mut c, id, t),
            TypeKind::Alias { .. } => {
                c.blank();
                g.docs(&mut c, &def.docs);
                let ty = g.owned_ty(&t.wire);
                c.line(DEAD_CODE);
                acronym_allow(&mut c, &g.name(id));
                c.linef(format_args!("pub type {} = {ty};", g.name(id)));
            }
        }
    }
    if schema.dialect == Dialect::Sdp {
        g.dispatcher(&mut c);
    }
    Ok(c.out)
}

/// Whether clippy's `upper_case_acronyms` lints a type or variant named `name`: upper
/// case only (`POINT`, `ID3`), more than one letter.
fn is_acronym(name: &str) -> bool {
    name.chars().filter(|c| c.is_alphabetic()).count() > 1 && !name.chars().any(char::is_lowercase)
}

/// `#[allow(clippy::upper_case_acronyms)]` above an item (or the dispatcher enum, whose
/// variants are the type names) named `name` when clippy would lint it: the schema chose
/// the name (`POINT`), and generated code passes clippy `-D warnings`.
fn acronym_allow(c: &mut Code, name: &str) {
    if is_acronym(name) {
        c.line("#[allow(clippy::upper_case_acronyms)] // the schema's own name");
    }
}

/// On every generated item: a crate may use only part of a schema (`clippy -D warnings`
/// in a binary crate must still pass). Explained once in the file's header comment.
const DEAD_CODE: &str = "#[allow(dead_code)]";

/// The Rust names of struct `id`'s fields: identifiers, duplicates numbered (not yet
/// escaped with [`ident`]). Public for the conformance engine, which fills the same
/// structs.
pub fn field_names(schema: &Schema, id: TypeId) -> Vec<String> {
    super::unique_in_order(
        schema.types[id].fields().iter().map(|f| field_ident(&f.name)),
        |base, attempt| format!("{base}_{}", attempt + 1),
    )
}

/// The Rust type of a primitive (owned strings: `String`); the conformance engine uses
/// it too.
pub fn prim_type(p: Primitive) -> &'static str {
    Gen::prim_ty(p)
}

/// Whether a decoder may hold field `name` (a [`field_names`] entry) in a local of the
/// same name: lowercase (never a pattern such as `None`) and not one of the decoder's
/// own locals (`rd`, `b0`, `base0`, `n0`, `i0`, `x0`, `i_0_1`) or of the `f_`-prefixed
/// ones the other fields get.
fn local_is_field_name(name: &str) -> bool {
    let lower = name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    let numbered = ["b", "base", "n", "i", "x"].iter().any(|p| {
        name.strip_prefix(p)
            .is_some_and(|rest| rest.chars().all(|c| c.is_ascii_digit()))
    });
    lower && !numbered && name != "rd" && !name.starts_with("f_") && !name.starts_with("i_")
}

/// Drops blank lines before a closing brace.
fn trim_blank(c: &mut Code) {
    while c.out.ends_with("\n\n") {
        c.out.pop();
    }
}

/// [`Gen::borrows`] for one wire, given which structs borrow. With an arena every array
/// borrows (from the arena).
fn wire_borrows(w: &Wire, structs: &[bool], memory: Memory) -> bool {
    match w {
        Wire::Prim(p) => *p == Primitive::Str,
        Wire::Array(e) => memory == Memory::Arena || matches!(&**e, Wire::Prim(_)) || wire_borrows(e, structs, memory),
        Wire::Optional(e) => wire_borrows(e, structs, memory),
        Wire::Struct(id) => structs.get(*id).copied().unwrap_or(false),
    }
}

/// Which structs' views borrow from the input, per type id: a fixpoint over the fields
/// (no recursion through nested structs, which re-walked shared structs once per path:
/// exponential on schemas where structs reuse earlier ones).
fn struct_borrows(layout: &Layout, memory: Memory) -> Vec<bool> {
    let mut b = vec![false; layout.types.len()];
    loop {
        let mut changed = false;
        for (id, t) in layout.types.iter().enumerate() {
            let Some(t) = t else { continue };
            if !b[id] && t.fields.iter().any(|f| wire_borrows(&f.wire, &b, memory)) {
                b[id] = true;
                changed = true;
            }
        }
        if !changed {
            return b;
        }
    }
}

/// One segment of an error path in generated code.
#[derive(Debug, Clone)]
enum Seg {
    /// A field, by its quoted schema name (`"name"`).
    Field(String),
    /// An array element, by the loop variable holding its index.
    Index(String),
}

/// The path a read's error gets, innermost segment first.
#[derive(Debug, Clone, Default)]
struct Ctx(Vec<Seg>);

impl Ctx {
    /// The context of an element (index variable `var`) of the array read in `self`.
    fn in_element(&self, var: String) -> Ctx {
        let mut segs = Vec::with_capacity(self.0.len() + 1);
        segs.push(Seg::Index(var));
        segs.extend(self.0.iter().cloned());
        Ctx(segs)
    }
}

/// One member of a value type: a struct field, or the single `0` of a tuple root.
struct Member {
    /// `self.{access}` (`name`, `r#type`, `0`).
    access: String,
    wire: Wire,
    /// The field's declaration index (`None`: the `0` of a tuple root).
    decl: Option<usize>,
}

struct Gen<'s> {
    schema: &'s Schema,
    layout: &'s Layout,
    plan: Plan,
    opts: RustOptions,
    /// The Rust names of every schema type.
    type_names: std::collections::HashSet<String>,
    /// Per type id: its Rust name ([`type_names`]).
    names: Vec<String>,
    /// Per type id: its view borrows from the input.
    struct_borrows: Vec<bool>,
    /// Per type id: its fields' Rust names (computed once: the emitters ask per field).
    field_names: Vec<Vec<String>>,
    /// Per type id: a struct decoded as an array element somewhere in the schema.
    elements: Vec<bool>,
    /// The struct fields stored behind a `Box` (the plan's decision, issue 39).
    boxed: Boxed,
}

impl Gen<'_> {
    fn sdp(&self) -> bool {
        self.schema.dialect == Dialect::Sdp
    }

    fn header(&self, c: &mut Code, source: &str) {
        c.line(GENERATED_HEADER);
        let order = match self.schema.dialect {
            Dialect::Sdp => "SDP, declaration order".to_string(),
            Dialect::Ffi => format!("ffire, {} field order", self.layout.order.as_str()),
        };
        c.linef(format_args!(
            "// Source: {source} ({order}). Runtime: the `wirelens-runtime` crate."
        ));
        c.linef(format_args!("// Encoders and decoders for `{source}` ({order})."));
        c.line("//");
        c.line("// Every type implements `wirelens_runtime::Message` (`encoded_size`, `encode` appending to a");
        c.line("// reusable `Vec<u8>`, `encode_into` a caller buffer, `to_bytes`, `decode` rejecting trailing");
        c.line("// bytes, `decode_prefix` for back-to-back records, `decode_view`: zero-copy, strings and");
        c.line("// primitive arrays borrow the input); bring the trait into scope to call them.");
        if self.sdp() {
            c.line("// Every struct is also an `SdpMessage` (`encode_message`, `decode_message`); `AnyMessage`");
            c.line("// (`Dispatch`) decodes any of them by type id. `Box<T>` has no effect on the wire and is");
            c.line("// generated as `T`.");
        } else {
            c.linef(format_args!(
                "// Strings and arrays are limited to {} bytes / elements: encoders refuse longer ones.",
                "65,535"
            ));
        }
        c.line("// `#[allow(dead_code)]` on the items: a crate may use only part of a schema.");
        if self.opts.strings == OwnedStrings::Compact {
            c.line("// Owned strings are `rt::CompactString` (inline up to 24 bytes): enable the runtime's");
            c.line("// `compact-strings` feature.");
        }
        if self.arena() {
            c.line("// Views keep their arrays in an `rt::Arena` (`memory = \"arena\"`): enable the runtime's `arena`");
            c.line("// feature and decode them with `decode_view_in(bytes, &arena)`; `arena.reset()` between decodes.");
        }
        c.blank();
        c.line("use wirelens_runtime as rt;");
        c.line("#[allow(unused_imports)] // `Vec`/`String` for `no_std` crates; the std prelude has them too");
        c.line("use rt::prelude::*;");
        let traits = if self.sdp() {
            "At as _, Decode as _, Message as _, SdpMessage as _"
        } else {
            "At as _, Decode as _, Message as _"
        };
        c.line("#[allow(unused_imports)] // the traits whose methods this module calls");
        c.linef(format_args!("use rt::{{{traits}}};"));
    }

    fn docs(&self, c: &mut Code, docs: &[String]) {
        for d in docs {
            let d = d.trim();
            if d.is_empty() {
                c.line("///");
            } else {
                c.linef(format_args!("/// {d}"));
            }
        }
    }

    fn name(&self, id: TypeId) -> String {
        self.names.get(id).cloned().unwrap_or_else(|| "Unknown".into())
    }

    /// `FooView`, or `FooView2`, `FooView3`… when the schema itself has a type of that
    /// name (which would otherwise not compile: E0428).
    fn view_name(&self, id: TypeId) -> String {
        let n = self.name(id);
        let mut view = format!("{n}View");
        let mut k = 2;
        while self.type_names.contains(&view) {
            view = format!("{n}View{k}");
            k += 1;
        }
        view
    }

    /// Whether the view of this wire borrows from the input: it holds a string or a
    /// primitive array somewhere (an array of non-borrowing values is an owned `Vec`), or
    /// with an arena, any array.
    fn borrows(&self, w: &Wire) -> bool {
        wire_borrows(w, &self.struct_borrows, self.opts.memory)
    }

    fn arena(&self) -> bool {
        self.opts.memory == Memory::Arena
    }

    fn prim_ty(p: Primitive) -> &'static str {
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
            Primitive::Str => "String",
        }
    }

    /// The owned string type's name ([`OwnedStrings`]).
    fn string_ty(&self) -> &'static str {
        match self.opts.strings {
            OwnedStrings::Std => "String",
            OwnedStrings::Compact => "rt::CompactString",
        }
    }

    fn owned_ty(&self, w: &Wire) -> String {
        match w {
            Wire::Prim(Primitive::Str) => self.string_ty().into(),
            Wire::Prim(p) => Self::prim_ty(*p).into(),
            Wire::Array(e) => format!("Vec<{}>", self.owned_ty(e)),
            Wire::Optional(e) => format!("Option<{}>", self.owned_ty(e)),
            Wire::Struct(id) => self.name(*id),
        }
    }

    fn view_ty(&self, w: &Wire) -> String {
        if !self.borrows(w) {
            return self.owned_ty(w);
        }
        match w {
            Wire::Prim(_) => "&'a str".into(),
            Wire::Array(e) => match &**e {
                Wire::Prim(p) if *p != Primitive::Str => format!("rt::LeSlice<'a, {}>", Self::prim_ty(*p)),
                e if self.arena() => format!("&'a [{}]", self.view_ty(e)),
                e => format!("Vec<{}>", self.view_ty(e)),
            },
            Wire::Optional(e) => format!("Option<{}>", self.view_ty(e)),
            Wire::Struct(id) => format!("{}<'a>", self.view_name(*id)),
        }
    }

    /// The type of a boxed field ([`Boxed`]): the owned or view type with the struct inside
    /// its `Option`s in a `Box` (`Option<Box<S>>`).
    fn boxed_ty(&self, w: &Wire, view: bool) -> String {
        match w {
            Wire::Optional(e) => format!("Option<{}>", self.boxed_ty(e, view)),
            w if view => format!("Box<{}>", self.view_ty(w)),
            w => format!("Box<{}>", self.owned_ty(w)),
        }
    }

    /// The doc line of a boxed field (after its own docs).
    fn box_doc(&self, c: &mut Code, docs: &[String]) {
        if !docs.is_empty() {
            c.line("///");
        }
        c.linef(format_args!(
            "/// Boxed: the struct nests too deep to be stored inline (more than {MAX_INLINE_DEPTH} levels, past"
        ));
        c.line("/// rustc's layout recursion limit); the wire is the same.");
    }

    /// `expr` (a value of field `decl_index`'s unboxed type) as the boxed field's value.
    fn rebox(&self, owner: TypeId, decl_index: usize, expr: String) -> String {
        if !self.boxed.field(owner, decl_index) {
            return expr;
        }
        let mut options = 0;
        let mut w = self
            .layout
            .get(owner)
            .and_then(|t| t.field_by_decl(decl_index))
            .map(|f| &f.wire);
        while let Some(Wire::Optional(e)) = w {
            options += 1;
            w = Some(e);
        }
        match options {
            0 => format!("Box::new({expr})"),
            1 => format!("{expr}.map(Box::new)"),
            n => {
                let mut f = "Box::new".to_string();
                for d in 1..n {
                    f = format!("|b{d}: Option<_>| b{d}.map({f})");
                }
                format!("{expr}.map({f})")
            }
        }
    }

    fn members(&self, id: TypeId, t: &TypeLayout) -> Vec<Member> {
        let def = &self.schema.types[id];
        if !def.is_struct() {
            return vec![Member {
                access: "0".into(),
                wire: t.wire.clone(),
                decl: None,
            }];
        }
        let names = self.field_names(id);
        t.fields
            .iter()
            .map(|f| {
                let base = &names[f.decl_index];
                Member {
                    access: ident(base),
                    wire: f.wire.clone(),
                    decl: Some(f.decl_index),
                }
            })
            .collect()
    }

    /// snake_case field names in declaration order, made unique, not yet escaped.
    fn field_names(&self, id: TypeId) -> &[String] {
        self.field_names.get(id).map_or(&[], Vec::as_slice)
    }

    // ------------------------------------------------------------------ types

    fn layout_doc(&self, c: &mut Code, id: TypeId, t: &TypeLayout) {
        let d = super::layout_doc(self.schema, self.layout, id, t);
        c.linef(format_args!("/// Wire layout ({}): {}.", d.order, d.size));
        if let Some(wire) = &d.wire_type {
            c.line("///");
            c.linef(format_args!("/// {wire}."));
            return;
        }
        c.line("///");
        c.line("/// ```text");
        for row in &d.table {
            c.line(format!("/// {row}").trim_end());
        }
        c.line("/// ```");
        // From the plan this code is rendered from, so the comment cannot contradict it.
        let blocks = self.plan_of(id).and_then(TypePlan::fixed_blocks_line);
        if let Some(line) = blocks.filter(|_| self.opts.fixed_blocks) {
            c.line("///");
            c.linef(format_args!("/// {line}."));
        }
    }

    fn value_type(&self, c: &mut Code, id: TypeId, t: &TypeLayout) {
        let def = &self.schema.types[id];
        let name = self.name(id);
        let members = self.members(id, t);
        let borrows = self.borrows(&t.wire);
        c.blank();
        self.docs(c, &def.docs);
        if !def.docs.is_empty() {
            c.line("///");
        }
        self.layout_doc(c, id, t);
        c.line("#[derive(Debug, Clone, PartialEq, Default)]");
        c.line(DEAD_CODE);
        acronym_allow(c, &name);
        if def.is_struct() {
            c.open(&format!("pub struct {name} {{"));
            let names = self.field_names(id);
            for (i, f) in def.fields().iter().enumerate() {
                let Some(fl) = t.field_by_decl(i) else { continue };
                self.docs(c, &f.docs);
                let ty = if self.boxed.field(id, i) {
                    self.box_doc(c, &f.docs);
                    self.boxed_ty(&fl.wire, false)
                } else {
                    self.owned_ty(&fl.wire)
                };
                c.linef(format_args!("pub {}: {ty},", ident(&names[i])));
            }
            c.close("}");
        } else {
            c.linef(format_args!("pub struct {name}(pub {});", self.owned_ty(&t.wire)));
        }
        if borrows {
            let view = self.view_name(id);
            c.blank();
            c.linef(format_args!(
                "/// Zero-copy view of [`{name}`] (strings and primitive arrays borrow the input)."
            ));
            c.line("#[derive(Debug, Clone, PartialEq)]");
            c.line(DEAD_CODE);
            if def.is_struct() {
                c.open(&format!("pub struct {view}<'a> {{"));
                let names = self.field_names(id);
                for (i, f) in def.fields().iter().enumerate() {
                    let Some(fl) = t.field_by_decl(i) else { continue };
                    self.docs(c, &f.docs);
                    let ty = if self.boxed.field(id, i) {
                        self.box_doc(c, &f.docs);
                        self.boxed_ty(&fl.wire, true)
                    } else {
                        self.view_ty(&fl.wire)
                    };
                    c.linef(format_args!("pub {}: {ty},", ident(&names[i])));
                }
                c.close("}");
            } else {
                c.linef(format_args!("pub struct {view}<'a>(pub {});", self.view_ty(&t.wire)));
            }
        }
        let Some(p) = self.plan_of(id) else {
            return;
        };
        let fixed_struct = t.size.fixed.is_some() && def.is_struct();
        if t.size.fixed.is_some() || fixed_struct || !borrows {
            c.blank();
            c.line(DEAD_CODE);
            c.open(&format!("impl {name} {{"));
            if let Some(n) = t.size.fixed {
                c.line("/// The encoded size (every value has it).");
                c.linef(format_args!("pub const SIZE: usize = {n};"));
                c.blank();
            }
            if fixed_struct {
                self.block_fns(c, p);
            }
            if !borrows {
                c.line("/// Views of types without strings or arrays are the owned values.");
                c.open("pub fn to_owned_value(&self) -> Self {");
                c.line("self.clone()");
                c.close("}");
            }
            trim_blank(c);
            c.close("}");
        }
        let view = if borrows {
            format!("{}<'a>", self.view_name(id))
        } else {
            "Self".into()
        };
        c.blank();
        c.open(&format!("impl rt::Message for {name} {{"));
        c.linef(format_args!("type View<'a> = {view};"));
        if borrows && self.arena() {
            c.line("const VIEW_IN_ARENA: bool = true;");
        }
        c.blank();
        self.encoded_size(c, p);
        self.write_to(c, p);
        trim_blank(c);
        c.close("}");
        c.blank();
        c.open(&format!("impl<'a> rt::Decode<'a> for {name} {{"));
        self.read_from(c, p, false);
        c.blank();
        self.read_into(c, p);
        trim_blank(c);
        c.close("}");
        if let Some(mid) = t.message_id {
            c.blank();
            c.open(&format!("impl rt::SdpMessage for {name} {{"));
            c.linef(format_args!("const MESSAGE_ID: u16 = {mid};"));
            c.close("}");
        }
        if borrows {
            let view = self.view_name(id);
            c.blank();
            c.open(&format!("impl<'a> rt::Decode<'a> for {view}<'a> {{"));
            self.read_from(c, p, true);
            c.close("}");
            c.blank();
            c.line(DEAD_CODE);
            c.open(&format!("impl {view}<'_> {{"));
            c.line("/// Copies the view into an owned value.");
            c.open(&format!("pub fn to_owned_value(&self) -> {name} {{"));
            if def.is_struct() {
                c.open(&format!("{name} {{"));
                for m in &members {
                    let mut conv = self.conv(&format!("self.{}", m.access), false, &m.wire, 0);
                    // A boxed field's view holds a boxed view: converted, then boxed.
                    if let (Some(i), true) = (m.decl, self.view_ty(&m.wire) != self.owned_ty(&m.wire)) {
                        conv = self.rebox(id, i, conv);
                    }
                    c.linef(format_args!("{}: {conv},", m.access));
                }
                c.close("}");
            } else {
                c.linef(format_args!("{name}({})", self.conv("self.0", false, &t.wire, 0)));
            }
            c.close("}");
            c.close("}");
        }
    }

    // ------------------------------------------------------------------ plan paths

    /// The plan of type `id` (every type with a layout has one).
    fn plan_of(&self, id: TypeId) -> Option<&TypePlan> {
        self.plan.get(id)
    }

    /// The struct reached through field `i` of struct `ty`.
    fn nested(&self, ty: TypeId, i: usize) -> Option<TypeId> {
        match self.layout.get(ty)?.field_by_decl(i)?.wire {
            Wire::Struct(s) => Some(s),
            _ => None,
        }
    }

    /// `self.`-relative place of a plan path: `0` for a non-struct type's value,
    /// `inner.name` for a field of an inlined struct.
    fn access(&self, owner: TypeId, path: &[usize]) -> String {
        if path.is_empty() {
            return "0".into();
        }
        let mut ty = owner;
        let mut parts = Vec::with_capacity(path.len());
        for &i in path {
            parts.push(self.field_names(ty).get(i).map_or_else(|| "_".into(), |n| ident(n)));
            ty = self.nested(ty, i).unwrap_or(ty);
        }
        parts.join(".")
    }

    /// The decoder's local variable for a plan path: a field's own name where that is
    /// safe (so the struct literal can use the shorthand `Self { name, .. }`), else
    /// `f_name`.
    fn local(&self, owner: TypeId, path: &[usize]) -> String {
        match path {
            [] => "f_0".into(),
            [i] => {
                let name = self.field_names(owner).get(*i).map_or("", |s| s.as_str());
                if local_is_field_name(name) {
                    ident(name)
                } else {
                    format!("f_{name}")
                }
            }
            _ => {
                let idx: Vec<String> = path.iter().map(|i| i.to_string()).collect();
                format!("i_{}", idx.join("_"))
            }
        }
    }

    /// The error-path context of a plan path (innermost field first).
    fn ctx(&self, owner: TypeId, path: &[usize]) -> Ctx {
        let mut ty = owner;
        let mut segs = Vec::with_capacity(path.len());
        for &i in path {
            let name = self.schema.types[ty]
                .fields()
                .get(i)
                .map_or("?", |f| f.json_name.as_str());
            segs.push(Seg::Field(format!("{name:?}")));
            ty = self.nested(ty, i).unwrap_or(ty);
        }
        segs.reverse();
        Ctx(segs)
    }

    // ------------------------------------------------------------------ size

    fn encoded_size(&self, c: &mut Code, p: &TypePlan) {
        let f = &p.exact_size;
        let mut parts = Vec::new();
        if f.constant > 0 || f.terms.is_empty() {
            parts.push(f.constant.to_string());
        }
        for (path, term) in &f.terms {
            parts.push(self.term(&format!("self.{}", self.access(p.id, path)), term, 0));
        }
        c.open("fn encoded_size(&self) -> usize {");
        let one_line = parts.join(" + ");
        if one_line.len() + 4 * c.depth <= 100 {
            c.line(&one_line);
        } else {
            c.line(&parts[0]);
            c.depth += 1;
            for p in &parts[1..] {
                c.linef(format_args!("+ {p}"));
            }
            c.depth -= 1;
        }
        c.close("}");
        c.blank();
    }

    /// A plan size term as an expression over `place`.
    fn term(&self, place: &str, t: &SizeTerm, d: usize) -> String {
        let scaled = |k: u64, e: String| if k == 1 { e } else { format!("{k} * {e}") };
        match t {
            SizeTerm::Len { scale } => scaled(*scale, format!("{place}.len()")),
            SizeTerm::Present { scale } => scaled(*scale, format!("usize::from({place}.is_some())")),
            SizeTerm::IfPresent(vs) => {
                let x = format!("x{d}");
                format!("{place}.as_ref().map_or(0, |{x}| {})", self.value_size(&x, vs, d + 1))
            }
            SizeTerm::Each(vs) => {
                let x = format!("x{d}");
                format!(
                    "{place}.iter().map(|{x}| {}).sum::<usize>()",
                    self.value_size(&x, vs, d + 1)
                )
            }
            SizeTerm::Call(_) => format!("{place}.encoded_size()"),
        }
    }

    fn value_size(&self, place: &str, vs: &ValueSize, d: usize) -> String {
        match &vs.term {
            None => vs.constant.to_string(),
            Some(t) if vs.constant == 0 => self.term(place, t, d),
            Some(t) => format!("{} + {}", vs.constant, self.term(place, t, d)),
        }
    }

    // ------------------------------------------------------------------ encode

    fn write_to(&self, c: &mut Code, p: &TypePlan) {
        // The writer goes in and out by value (two registers), so it is not reloaded from
        // memory after every output store; a struct with nothing to write leaves it as is.
        let w = if p.steps.is_empty() { "w" } else { "mut w" };
        if self.opts.inline_elements && self.elements.get(p.id).copied().unwrap_or(false) {
            c.line("#[inline(always)]");
        }
        c.open(&format!(
            "fn write_to<'w>(&self, {w}: rt::Writer<'w>) -> rt::Written<'w> {{"
        ));
        let mut block = 0;
        for step in &p.steps {
            match step {
                Step::Block { block: b, .. } => {
                    let single_prim = b.leaves.len() == 1 && matches!(b.leaves[0].kind, LeafKind::Prim(_));
                    if !self.opts.fixed_blocks || single_prim {
                        for l in &b.leaves {
                            let place = format!("self.{}", self.access(p.id, &l.path));
                            match l.kind {
                                LeafKind::Prim(_) => c.linef(format_args!("w.put_prim({place});")),
                                LeafKind::Struct(_) => c.linef(format_args!("w = {place}.write_to(w)?;")),
                            }
                        }
                        continue;
                    }
                    let name = format!("b{block}");
                    block += 1;
                    c.linef(format_args!("let mut {name} = [0u8; {}];", b.size));
                    for l in &b.leaves {
                        let place = format!("self.{}", self.access(p.id, &l.path));
                        self.put_leaf(c, &format!("&mut {name}"), &l.at.to_string(), &place, l.kind);
                    }
                    c.linef(format_args!("w.put(&{name});"));
                }
                Step::Value { path, value } => {
                    self.write_value(c, &format!("self.{}", self.access(p.id, path)), false, value, 0)
                }
            }
        }
        c.line("Ok(w)");
        c.close("}");
        c.blank();
    }

    /// Stores a fixed-size leaf at `at` in block `b`.
    fn put_leaf(&self, c: &mut Code, b: &str, at: &str, place: &str, kind: LeafKind) {
        match kind {
            LeafKind::Prim(p) => {
                let f = Self::prim_ty(p);
                c.linef(format_args!("rt::le::put_{f}({b}, {at}, {place});"));
            }
            LeafKind::Struct(_) => c.linef(format_args!("{place}.write_block({b}, {at});")),
        }
    }

    fn write_value(&self, c: &mut Code, place: &str, is_ref: bool, v: &Value, d: usize) {
        let by_ref = if is_ref { place.to_string() } else { format!("&{place}") };
        let by_val = if is_ref { format!("*{place}") } else { place.to_string() };
        match v {
            Value::Str(pre) => c.linef(format_args!("w.str{}({by_ref})?;", pre.bits())),
            Value::Prim(_) => c.linef(format_args!("w.put_prim({by_val});")),
            Value::BulkPrims(pre, _) if self.opts.bulk_arrays => {
                c.linef(format_args!("w.len{}({place}.len())?;", pre.bits()));
                c.linef(format_args!("w.put_prims({place}.as_slice());"));
            }
            Value::BulkPrims(pre, p) => {
                c.linef(format_args!("w.len{}({place}.len())?;", pre.bits()));
                let x = format!("x{d}");
                c.open(&format!("for {x} in {by_ref} {{"));
                self.write_value(c, &x, true, &Value::Prim(*p), d + 1);
                c.close("}");
            }
            Value::Array { prefix, elem, .. } => {
                c.linef(format_args!("w.len{}({place}.len())?;", prefix.bits()));
                let x = format!("x{d}");
                c.open(&format!("for {x} in {by_ref} {{"));
                self.write_value(c, &x, true, elem, d + 1);
                c.close("}");
            }
            Value::Optional(e) => {
                let x = format!("x{d}");
                if matches!(&**e, Value::Prim(_)) {
                    c.open(&format!("if let Some({x}) = {by_val} {{"));
                    c.line("w.put_u8(1);");
                    self.write_value(c, &x, false, e, d + 1);
                } else {
                    c.open(&format!("if let Some({x}) = {by_ref} {{"));
                    c.line("w.put_u8(1);");
                    self.write_value(c, &x, true, e, d + 1);
                }
                c.close("} else {");
                c.depth += 1;
                c.line("w.put_u8(0);");
                c.close("}");
            }
            Value::Struct { .. } => c.linef(format_args!("w = {place}.write_to(w)?;")),
        }
    }

    /// Fixed-size structs: read/write the whole value inside a parent's fixed block, at
    /// the leaf offsets of the plan's single block.
    fn block_fns(&self, c: &mut Code, p: &TypePlan) {
        let leaves: Vec<&Leaf> = p
            .steps
            .iter()
            .flat_map(|s| match s {
                Step::Block { block, .. } => block.leaves.iter().collect(),
                _ => Vec::new(),
            })
            .collect();
        let off = |at: u64| {
            if at == 0 {
                "at".to_string()
            } else {
                format!("at + {at}")
            }
        };
        c.line("/// Writes this fixed-size value at `at` inside a fixed block.");
        c.line("#[inline]");
        c.open("pub fn write_block(&self, b: &mut [u8], at: usize) {");
        for l in &leaves {
            let place = format!("self.{}", self.access(p.id, &l.path));
            self.put_leaf(c, "b", &off(l.at), &place, l.kind);
        }
        c.close("}");
        c.blank();
        c.line("/// Reads this fixed-size value at `at` inside a fixed block that starts at input offset `base`.");
        c.line("#[inline]");
        let needs_base = leaves
            .iter()
            .any(|l| matches!(l.kind, LeafKind::Prim(Primitive::Bool) | LeafKind::Struct(_)));
        let base = if needs_base { "base" } else { "_base" };
        c.open(&format!(
            "pub fn read_block(b: &[u8], at: usize, {base}: usize) -> Result<Self, rt::DecodeError> {{"
        ));
        let mut inits = Vec::new();
        for l in &leaves {
            let me = Self::map_err(&self.ctx(p.id, &l.path));
            let mut expr = self.get_leaf("b", &off(l.at), "base", l.kind, &me);
            if let [i] = l.path.as_slice() {
                expr = self.rebox(p.id, *i, expr);
            }
            inits.push(format!("{}: {expr},", self.access(p.id, &l.path)));
        }
        c.open("Ok(Self {");
        for i in inits {
            c.line(&i);
        }
        c.close("})");
        c.close("}");
        c.blank();
    }

    /// Loads a fixed-size leaf at `at` of block `b` (input offset `base`).
    fn get_leaf(&self, b: &str, at: &str, base: &str, kind: LeafKind, me: &str) -> String {
        match kind {
            LeafKind::Prim(Primitive::Bool) => format!("rt::le::get_bool({b}, {at}, {base}){me}?"),
            LeafKind::Prim(p) => format!("rt::le::get_{}({b}, {at})", Self::prim_ty(p)),
            LeafKind::Struct(id) => format!("{}::read_block({b}, {at}, {base}){me}?", self.name(id)),
        }
    }

    // ------------------------------------------------------------------ decode

    /// What a read's result is followed by to add `ctx` to an error's path: the runtime's
    /// `At` methods for the common shapes (shorter source), `map_err` otherwise.
    fn map_err(ctx: &Ctx) -> String {
        match ctx.0.as_slice() {
            [] => String::new(),
            [Seg::Field(name)] => format!(".at({name})"),
            [Seg::Index(i), Seg::Field(name)] => format!(".at_index({i}, {name})"),
            segs => {
                let calls: Vec<String> = segs
                    .iter()
                    .map(|s| match s {
                        Seg::Field(name) => format!(".field({name})"),
                        Seg::Index(i) => format!(".index({i})"),
                    })
                    .collect();
                format!(".map_err(|e| e{})", calls.concat())
            }
        }
    }

    fn read_from(&self, c: &mut Code, p: &TypePlan, view: bool) {
        if self.opts.inline_elements && self.elements.get(p.id).copied().unwrap_or(false) {
            c.line("#[inline(always)]");
        }
        c.open("fn read_from(rd: &mut rt::Reader<'a>) -> Result<Self, rt::DecodeError> {");
        let mut block = 0;
        for step in &p.steps {
            match step {
                Step::Block { block: b, .. } => self.read_block_step(c, p, b, &mut block),
                Step::Value { path, value } => {
                    let ctx = self.ctx(p.id, path);
                    self.read_value(c, &self.local(p.id, path), value, &ctx, 0, view);
                }
            }
        }
        if p.is_struct {
            let inits = self.literal_fields(p);
            let one_line = inits.join(", ");
            if one_line.len() <= 18 {
                c.linef(format_args!("Ok(Self {{ {one_line} }})"));
            } else {
                // Several fields per line, wrapped at 100 columns.
                c.open("Ok(Self {");
                let mut line = String::new();
                for i in &inits {
                    if !line.is_empty() && line.len() + i.len() + 2 + 4 * c.depth > 100 {
                        c.line(line.trim_end());
                        line.clear();
                    }
                    line.push_str(i);
                    line.push_str(", ");
                }
                c.line(line.trim_end());
                c.close("})");
            }
        } else {
            c.line("Ok(Self(f_0))");
        }
        c.close("}");
    }

    /// The `let`s of a fixed block's leaves (one bounds check for the block, or one read
    /// per leaf without `fixed_blocks`); `block` numbers the blocks of one function.
    fn read_block_step(&self, c: &mut Code, p: &TypePlan, b: &FixedBlock, block: &mut usize) {
        self.read_block_into(c, p, b, block, &|path| format!("let {}", self.local(p.id, path)));
    }

    /// [`Self::read_block_step`] with each leaf stored to `dest(path)` (`let local`, or a
    /// place of `read_into`).
    fn read_block_into(
        &self,
        c: &mut Code,
        p: &TypePlan,
        b: &FixedBlock,
        block: &mut usize,
        dest: &dyn Fn(&[usize]) -> String,
    ) {
        let single_prim = b.leaves.len() == 1 && matches!(b.leaves[0].kind, LeafKind::Prim(_));
        if !self.opts.fixed_blocks || single_prim {
            for l in &b.leaves {
                let me = Self::map_err(&self.ctx(p.id, &l.path));
                let expr = match l.kind {
                    LeafKind::Prim(q) => format!("rd.{}(){me}?", Self::prim_ty(q)),
                    LeafKind::Struct(id) => format!("{}::read_from(rd){me}?", self.name(id)),
                };
                c.linef(format_args!("{} = {expr};", dest(&l.path)));
            }
            return;
        }
        let name = format!("b{block}");
        let base = format!("base{block}");
        *block += 1;
        let needs_base = b
            .leaves
            .iter()
            .any(|l| matches!(l.kind, LeafKind::Prim(Primitive::Bool) | LeafKind::Struct(_)));
        if needs_base {
            c.linef(format_args!("let {base} = rd.position();"));
        }
        let first = b.leaves.first().map_or_else(Ctx::default, |l| self.ctx(p.id, &l.path));
        c.linef(format_args!(
            "let {name} = rd.fixed::<{}>(){}?;",
            b.size,
            Self::map_err(&first)
        ));
        for l in &b.leaves {
            let me = Self::map_err(&self.ctx(p.id, &l.path));
            let expr = self.get_leaf(&name, &l.at.to_string(), &base, l.kind, &me);
            c.linef(format_args!("{} = {expr};", dest(&l.path)));
        }
    }

    /// The owned type's `read_into`: the decode into an existing value, in place where the
    /// storage can be reused (strings, arrays and their elements, optionals' payloads,
    /// nested structs); fixed blocks are read as in `read_from` and assigned. Not emitted
    /// (the trait's fresh read stays) for a struct with nothing to reuse, or a plan whose
    /// values are not all top-level members.
    fn read_into(&self, c: &mut Code, p: &TypePlan) {
        let place = |path: &[usize]| -> Option<String> {
            match path {
                [] if !p.is_struct => Some("self.0".to_string()),
                [i] if p.is_struct => self.field_names(p.id).get(*i).map(|n| format!("self.{}", ident(n))),
                _ => None,
            }
        };
        let paths = p.steps.iter().flat_map(|s| match s {
            Step::Block { block, .. } => block.leaves.iter().map(|l| l.path.clone()).collect(),
            Step::Value { path, .. } => vec![path.clone()],
        });
        // Nothing to reuse (only fixed-size members): the trait's fresh read is the same.
        let reuses = p.steps.iter().any(|s| match s {
            Step::Value { value, .. } => !matches!(value, Value::Prim(_)),
            Step::Block { .. } => false,
        });
        // A boxed field is read afresh too (the trait's default): deep chains only.
        if !reuses || self.boxed.any(p.id) || paths.clone().any(|path| place(&path).is_none()) {
            return;
        }
        c.line("#[inline]");
        c.open("fn read_into(&mut self, rd: &mut rt::Reader<'a>) -> Result<(), rt::DecodeError> {");
        let mut block = 0;
        for step in &p.steps {
            match step {
                Step::Block { block: b, .. } => {
                    self.read_block_into(c, p, b, &mut block, &|path| place(path).unwrap_or_default());
                }
                Step::Value { path, value } => {
                    let to = place(path).unwrap_or_default();
                    self.read_value_into(c, &to, value, &self.ctx(p.id, path), 0);
                }
            }
        }
        c.line("Ok(())");
        c.close("}");
    }

    /// Reads `v` into the owned place `to` (`self.field`, or `*x` of a `&mut` binding),
    /// reusing its storage.
    fn read_value_into(&self, c: &mut Code, to: &str, v: &Value, ctx: &Ctx, d: usize) {
        let me = Self::map_err(ctx);
        let (by_ref, recv) = Self::place_refs(to);
        match v {
            Value::Str(pre) => {
                let kind = match self.opts.strings {
                    OwnedStrings::Std => "string",
                    OwnedStrings::Compact => "compact",
                };
                c.linef(format_args!("rd.{kind}{}_into({by_ref}){me}?;", pre.bits()));
            }
            Value::BulkPrims(pre, q) if self.opts.bulk_arrays => {
                let t = Self::prim_ty(*q);
                c.linef(format_args!("rd.prims{}_into::<{t}>({by_ref}){me}?;", pre.bits()));
            }
            Value::Struct { .. } => c.linef(format_args!("rt::Decode::read_into({by_ref}, rd){me}?;")),
            Value::BulkPrims(pre, q) => {
                let elem = Value::Prim(*q);
                self.read_array_into(c, to, pre, &elem, q.fixed_size().unwrap_or(1), ctx, d);
            }
            Value::Array { prefix, elem, elem_min } => {
                self.read_array_into(c, to, prefix, elem, *elem_min, ctx, d);
            }
            Value::Optional(e) => {
                let x = format!("x{d}");
                c.open(&format!("if rd.presence(){me}? {{"));
                c.open(&format!("if let Some({x}) = {recv}.as_mut() {{"));
                self.read_value_into(c, &format!("*{x}"), e, ctx, d + 1);
                c.close("} else {");
                c.depth += 1;
                self.read_value(c, &x, e, ctx, d + 1, false);
                c.linef(format_args!("{to} = Some({x});"));
                c.close("}");
                c.close("} else {");
                c.depth += 1;
                c.linef(format_args!("{to} = None;"));
                c.close("}");
            }
            Value::Prim(_) => {
                if let Some(e) = self.simple_read(v, ctx, false) {
                    c.linef(format_args!("{to} = {e};"));
                }
            }
        }
    }

    /// A place's `&mut` and method receiver: `&mut self.f` / `self.f`, or for `*x` (a
    /// `&mut` binding) `x` / `x`.
    fn place_refs(to: &str) -> (String, String) {
        match to.strip_prefix('*') {
            Some(binding) => (binding.to_string(), binding.to_string()),
            None => (format!("&mut {to}"), to.to_string()),
        }
    }

    /// An array read into the `Vec` at `to`: the elements it keeps are read into, the
    /// others read and pushed.
    #[allow(clippy::too_many_arguments)]
    fn read_array_into(&self, c: &mut Code, to: &str, pre: &Prefix, elem: &Value, min: u64, ctx: &Ctx, d: usize) {
        let me = Self::map_err(ctx);
        let bits = pre.bits();
        let inner = ctx.in_element(format!("i{d}"));
        let x = format!("x{d}");
        c.linef(format_args!("let n{d} = rd.count{bits}({min}){me}?;"));
        let (by_ref, recv) = Self::place_refs(to);
        c.linef(format_args!("rd.vec_into({by_ref}, n{d}){me}?;"));
        c.open(&format!("for i{d} in 0..n{d} {{"));
        c.open(&format!("if let Some({x}) = {recv}.get_mut(i{d}) {{"));
        self.read_value_into(c, &format!("*{x}"), elem, &inner, d + 1);
        c.close("} else {");
        c.depth += 1;
        self.read_value(c, &x, elem, &inner, d + 1, false);
        c.linef(format_args!("{recv}.push({x});"));
        c.close("}");
        c.close("}");
    }

    /// `field: local` for every field of the struct planned by `p`.
    fn literal_fields(&self, p: &TypePlan) -> Vec<String> {
        let names = self.field_names(p.id);
        let Some(t) = self.layout.get(p.id) else {
            return Vec::new();
        };
        t.fields
            .iter()
            .map(|f| {
                let value = self.rebox(p.id, f.decl_index, self.local(p.id, &[f.decl_index]));
                let field = ident(&names[f.decl_index]);
                if value == field {
                    field
                } else {
                    format!("{field}: {value}")
                }
            })
            .collect()
    }

    /// A single-expression read, when there is one.
    fn simple_read(&self, v: &Value, ctx: &Ctx, view: bool) -> Option<String> {
        let me = Self::map_err(ctx);
        Some(match v {
            Value::Str(pre) if view => format!("rd.str{}(){me}?", pre.bits()),
            Value::Str(pre) => match self.opts.strings {
                OwnedStrings::Std => format!("rd.string{}(){me}?", pre.bits()),
                OwnedStrings::Compact => format!("rd.compact{}(){me}?", pre.bits()),
            },
            Value::Prim(p) => format!("rd.{}(){me}?", Self::prim_ty(*p)),
            Value::BulkPrims(pre, p) if view || self.opts.bulk_arrays => {
                let t = Self::prim_ty(*p);
                let n = pre.bits();
                if view {
                    format!("rd.prims{n}::<{t}>(){me}?")
                } else {
                    format!("rd.prims{n}_vec::<{t}>(){me}?")
                }
            }
            Value::Struct { id, .. } => {
                if view && self.borrows(&Wire::Struct(*id)) {
                    format!("{}::read_from(rd){me}?", self.view_name(*id))
                } else {
                    format!("{}::read_from(rd){me}?", self.name(*id))
                }
            }
            Value::BulkPrims(..) | Value::Array { .. } | Value::Optional(_) => return None,
        })
    }

    fn read_value(&self, c: &mut Code, var: &str, v: &Value, ctx: &Ctx, d: usize, view: bool) {
        if let Some(e) = self.simple_read(v, ctx, view) {
            c.linef(format_args!("let {var} = {e};"));
            return;
        }
        let me = Self::map_err(ctx);
        let array = |c: &mut Code, pre: &Prefix, elem: &Value, min: u64| {
            c.linef(format_args!("let n{d} = rd.count{}({min}){me}?;", pre.bits()));
            let inner_ctx = ctx.in_element(format!("i{d}"));
            if view && self.arena() {
                // Built in place in the arena: `fill` calls the closure per element.
                c.open(&format!("let {var} = rd.slots(n{d}){me}?.fill(|i{d}| {{"));
                match self.simple_read(elem, &inner_ctx, view) {
                    Some(expr) => c.line(expr.strip_suffix('?').unwrap_or(&expr)),
                    None => {
                        let x = format!("x{d}");
                        self.read_value(c, &x, elem, &inner_ctx, d + 1, view);
                        c.linef(format_args!("Ok({x})"));
                    }
                }
                c.close("})?;");
                return;
            }
            c.linef(format_args!("let mut {var} = rd.vec(n{d}){me}?;"));
            c.open(&format!("for i{d} in 0..n{d} {{"));
            match self.simple_read(elem, &inner_ctx, view) {
                Some(expr) => c.linef(format_args!("{var}.push({expr});")),
                None => {
                    let x = format!("x{d}");
                    self.read_value(c, &x, elem, &inner_ctx, d + 1, view);
                    c.linef(format_args!("{var}.push({x});"));
                }
            }
            c.close("}");
        };
        match v {
            Value::BulkPrims(pre, p) => array(c, pre, &Value::Prim(*p), p.fixed_size().unwrap_or(1)),
            Value::Array { prefix, elem, elem_min } => array(c, prefix, elem, *elem_min),
            Value::Optional(e) => {
                c.open(&format!("let {var} = if rd.presence(){me}? {{"));
                match self.simple_read(e, ctx, view) {
                    Some(expr) => c.linef(format_args!("Some({expr})")),
                    None => {
                        let x = format!("x{d}");
                        self.read_value(c, &x, e, ctx, d + 1, view);
                        c.linef(format_args!("Some({x})"));
                    }
                }
                c.close("} else {");
                c.depth += 1;
                c.line("None");
                c.close("};");
            }
            _ => {}
        }
    }

    /// View → owned conversion of one value.
    fn conv(&self, place: &str, is_ref: bool, w: &Wire, d: usize) -> String {
        let by_val = if is_ref { format!("*{place}") } else { place.to_string() };
        if !self.borrows(w) || self.view_ty(w) == self.owned_ty(w) {
            let copy = match w {
                Wire::Prim(_) => true,
                Wire::Optional(e) => matches!(&**e, Wire::Prim(_)),
                _ => false,
            };
            return if copy { by_val } else { format!("{place}.clone()") };
        }
        match w {
            Wire::Prim(_) => format!("{}::from({by_val})", self.string_ty()),
            Wire::Array(e) => match &**e {
                Wire::Prim(p) if *p != Primitive::Str => format!("{place}.to_vec()"),
                e if !self.borrows(e) => format!("{place}.to_vec()"),
                e => {
                    let x = format!("x{d}");
                    format!("{place}.iter().map(|{x}| {}).collect()", self.conv(&x, true, e, d + 1))
                }
            },
            Wire::Optional(e) => match &**e {
                Wire::Prim(_) => format!("({by_val}).map({}::from)", self.string_ty()),
                e => {
                    let x = format!("x{d}");
                    format!("{place}.as_ref().map(|{x}| {})", self.conv(&x, true, e, d + 1))
                }
            },
            Wire::Struct(_) => format!("{place}.to_owned_value()"),
        }
    }

    // ------------------------------------------------------------------ SDP dispatcher

    fn dispatcher(&self, c: &mut Code) {
        let structs: Vec<(TypeId, String, u16)> = self
            .schema
            .types
            .iter()
            .enumerate()
            .filter_map(|(id, _)| {
                let t = self.layout.get(id)?;
                Some((id, self.name(id), t.message_id?))
            })
            .collect();
        if structs.is_empty() {
            return;
        }
        c.blank();
        c.line("/// Any message of this schema, by SDP type id (`rt::Dispatch`: `decode`, `decode_prefix`,");
        c.line("/// `encode`, `message_id`).");
        c.line("#[derive(Debug, Clone, PartialEq)]");
        c.line("#[allow(clippy::large_enum_variant)] // values are built once and matched, not stored in bulk");
        c.line(DEAD_CODE);
        if let Some((_, name, _)) = structs.iter().find(|(_, n, _)| is_acronym(n)) {
            acronym_allow(c, name);
        }
        c.open("pub enum AnyMessage {");
        for (_, name, id) in &structs {
            c.linef(format_args!("/// Type id {id}."));
            c.linef(format_args!("{name}({name}),"));
        }
        c.close("}");
        c.blank();
        c.open("impl rt::Dispatch for AnyMessage {");
        c.open("fn message_id(&self) -> u16 {");
        c.open("match self {");
        for (_, name, id) in &structs {
            c.linef(format_args!("Self::{name}(_) => {id},"));
        }
        c.close("}");
        c.close("}");
        c.blank();
        c.open("fn encode(&self, out: &mut Vec<u8>) -> Result<(), rt::EncodeError> {");
        c.open("match self {");
        for (_, name, _) in &structs {
            c.linef(format_args!("Self::{name}(m) => m.encode_message(out),"));
        }
        c.close("}");
        c.close("}");
        c.blank();
        c.open("fn read_payload(type_id: u16, rd: &mut rt::Reader<'_>) -> Result<Self, rt::DecodeError> {");
        c.open("match type_id {");
        for (_, name, id) in &structs {
            c.linef(format_args!("{id} => {name}::read_from(rd).map(Self::{name}),"));
        }
        c.line("other => Err(rt::sdp::unknown_type_id(other)),");
        c.close("}");
        c.close("}");
        c.close("}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wirelens_core::{analyze, OrderChoice};

    fn gen(dialect: Dialect, text: &str) -> Result<String, EmitError> {
        let a = analyze(dialect, text, None, OrderChoice::default());
        generate(&a.schema, &a.layout, "test")
    }

    #[test]
    fn keywords_are_escaped_never_rejected() {
        assert_eq!(ident("type"), "r#type");
        assert_eq!(ident("self"), "self_");
        assert_eq!(ident("Self"), "Self_");
        assert_eq!(ident("name"), "name");
        let code = gen(
            Dialect::Ffi,
            "package p\ntype Thing struct {\n\tType string\n\tSelf int32\n\tMatch bool\n}\n",
        )
        .expect("generates");
        assert!(code.starts_with(GENERATED_HEADER));
        assert!(code.contains("pub r#type: String,"), "{code}");
        assert!(code.contains("pub self_: i32,"), "{code}");
        assert!(code.contains("pub r#match: bool,"), "{code}");
        assert!(code.contains("pub struct ThingMessage {"), "{code}");
    }

    #[test]
    fn wire_order_and_layout_comment_come_from_the_layout() {
        let code = gen(
            Dialect::Ffi,
            "package p\ntype Rec struct {\n\tName string\n\tFlag bool\n\tId int64\n}\n",
        )
        .expect("generates");
        // canonical: Id (8-byte), Flag (1-byte), Name (variable)
        let id = code.find("let id = ").expect("id");
        let flag = code.find("let flag = ").expect("flag");
        let name = code.find("let name = ").expect("name");
        assert!(id < flag && flag < name, "{code}");
        assert!(code.contains("Fixed blocks: 9 B at 0."), "{code}");
        assert!(code.contains("let b0 = rd.fixed::<9>()"), "{code}");
    }

    #[test]
    fn schemas_with_errors_are_refused() {
        let err = gen(Dialect::Sdp, "struct A { b: Missing }").expect_err("refused");
        assert!(err.0.contains("no layout for A"), "{err}");
    }

    #[test]
    fn plain_options_write_field_by_field() {
        let text = "struct P { x: u32, ok: bool, vs: []f64 }";
        let a = analyze(Dialect::Sdp, text, None, OrderChoice::default());
        let fast = generate(&a.schema, &a.layout, "test").expect("generates");
        let plain = generate_with(&a.schema, &a.layout, "test", &RustOptions::PLAIN).expect("generates");
        assert!(
            fast.contains("rd.fixed::<5>()") && fast.contains("w.put_prims(self.vs.as_slice());"),
            "{fast}"
        );
        assert!(
            !plain.contains("rd.fixed::<") && !plain.contains("put_prims("),
            "{plain}"
        );
        assert!(plain.contains("let f_x = rd.u32()"), "{plain}"); // `x` is reserved (x0, x1…)
        assert!(plain.contains("let ok = rd.bool()"), "{plain}");
        assert!(plain.contains("w.put_prim(*x0);"), "{plain}");
    }

    #[test]
    fn decoders_and_writers_of_array_elements_are_inlined() {
        // `E` is an element (inside an option too: `O`), `N` only a nested field.
        let text = "struct E { s: str }\nstruct O { s: str }\nstruct N { s: str }\n\
                    struct H { es: []E, os: []Option<O>, n: N }";
        let a = analyze(Dialect::Sdp, text, None, OrderChoice::default());
        let fast = generate(&a.schema, &a.layout, "test").expect("generates");
        let inlined = |code: &str, ty: &str| {
            let head = format!("for {ty} {{\n    #[inline(always)]\n    fn read_from(");
            let view = format!("for {ty}View<'a> {{\n    #[inline(always)]\n    fn read_from(");
            let write = "    #[inline(always)]\n    fn write_to<'w>(&self, mut w: rt::Writer<'w>)";
            let write = code.split(&format!("impl rt::Message for {ty} {{")).nth(1).map(|rest| {
                let body = rest.split("\n}\n").next().unwrap_or("");
                body.contains(write)
            });
            (code.contains(&head), code.contains(&view), write == Some(true))
        };
        assert_eq!(inlined(&fast, "E"), (true, true, true), "{fast}");
        assert_eq!(inlined(&fast, "O"), (true, true, true), "{fast}");
        assert_eq!(inlined(&fast, "N"), (false, false, false), "{fast}");
        assert_eq!(inlined(&fast, "H"), (false, false, false), "{fast}");
        let plain = generate_with(&a.schema, &a.layout, "test", &RustOptions::PLAIN).expect("generates");
        assert!(!plain.contains("#[inline(always)]"), "{plain}");
    }

    #[test]
    fn sdp_structs_are_messages_with_a_dispatcher() {
        let code = gen(Dialect::Sdp, "struct AnyMessage { x: u8 }\nstruct B { s: str }").expect("generates");
        assert!(code.contains("pub struct AnyMessageType {"), "{code}");
        assert!(
            code.contains("impl rt::SdpMessage for B {\n    const MESSAGE_ID: u16 = 2;"),
            "{code}"
        );
        assert!(code.contains("pub enum AnyMessage {"), "{code}");
        assert!(code.contains("impl rt::Dispatch for AnyMessage {"), "{code}");
        assert!(code.contains("2 => B::read_from(rd).map(Self::B),"), "{code}");
    }
}
