//! The C++ (C++17) emitter: one header-only file `<module>.hpp` per schema, everything in
//! `namespace <module>`, depending only on `wirelens.hpp` (`runtime/cpp`, written next to
//! it by `wirelens gen`). No exceptions anywhere (works with `-fno-exceptions`): encoders
//! return `wirelens::Status` / `wirelens::Result<size_t>`, decoders `wirelens::Result<T>`.
//!
//! Per value type `T` (every struct; for ffire also array and named-primitive roots, which
//! become structs with one member `value`):
//! - `T` (owned: `std::string` or, with [`OwnedStrings::Compact`], `wirelens::CompactString`;
//!   `std::vector`, `std::optional`, `wirelens::Optional<S>` for an optional struct; SDP
//!   `Box<S>` is `S`) and,
//!   when `T` contains strings or arrays, `TView` (zero-copy: `std::string_view`,
//!   `wirelens::LeSpan<P>` for primitive arrays, `std::vector<SView>` for other arrays, or
//!   with [`Memory::Arena`] `wirelens::Span<SView>` allocated from a caller's
//!   `wirelens::Arena`);
//!   `T::View` names whichever type the view decoders return;
//! - generated per type: `measure` (the exact size, lengths checked), `write_to`,
//!   `read_from` (owned and view), `operator==`; SDP: `MESSAGE_ID`;
//! - from the runtime's `WIRELENS_VALUE_API` / `WIRELENS_MESSAGE_API` macros (bodies once
//!   in `wirelens.hpp`): `encoded_size` (0 when a string or array is too long),
//!   `encode` (appends to a reusable `std::vector<uint8_t>`), `encode_into` (caller
//!   buffer), `to_bytes`, `decode` (rejects trailing bytes), `decode_prefix`,
//!   `decode_view`, `decode_view_prefix`; SDP `encode_message`, `decode_message(_prefix)`,
//!   `decode_message_view`;
//! - SDP: `AnyMessage`, a switch over the type id calling a visitor with the decoded
//!   value (`wirelens::Dispatcher` supplies its public members).
//!
//! Everything about the wire is rendered from [`wirelens_core::plan`] (read off the layout once):
//! each step of a type's plan in order; each fixed block is one bounds check and
//! little-endian loads/stores (`std::memcpy`) at its leaves' offsets; `measure` prints the
//! plan's exact-size formula; count plausibility uses the plan's element minimum; bulk
//! primitive arrays are copied in bulk on little-endian hosts. The declaration order of
//! the structs is [`wirelens_core::graph`]'s dependency order. Nothing here computes a size, an
//! order or an inlining decision (`codegen/generators/tests/plan_sizes.rs` checks the sizes).

use std::fmt::Write as _;

use super::{field_ident, module_name, pascal_case, Code, EmitError, OutputFile, GENERATED_HEADER};
use wirelens_core::dialect::Dialect;
use wirelens_core::graph::Graph;
use wirelens_core::layout::{Layout, Leaf, LeafKind, TypeLayout, Wire};
use wirelens_core::model::{Primitive, Schema, TypeId};
use wirelens_core::plan::{Plan, SizeTerm, Step, StructUses, TypePlan, Value, ValueSize};

/// C++ keywords and alternative tokens (C++20 included), plus names the standard
/// library or common C headers define as macros or that generated code uses unqualified.
/// The C emitter escapes these too: its headers may be included from C++.
pub(crate) const RESERVED: &[&str] = &[
    "alignas",
    "alignof",
    "and",
    "and_eq",
    "asm",
    "auto",
    "bitand",
    "bitor",
    "bool",
    "break",
    "case",
    "catch",
    "char",
    "char8_t",
    "char16_t",
    "char32_t",
    "class",
    "compl",
    "concept",
    "const",
    "consteval",
    "constexpr",
    "constinit",
    "const_cast",
    "continue",
    "co_await",
    "co_return",
    "co_yield",
    "decltype",
    "default",
    "delete",
    "do",
    "double",
    "dynamic_cast",
    "else",
    "enum",
    "explicit",
    "export",
    "extern",
    "false",
    "final",
    "float",
    "for",
    "friend",
    "goto",
    "if",
    "import",
    "inline",
    "int",
    "long",
    "module",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "not",
    "not_eq",
    "nullptr",
    "operator",
    "or",
    "or_eq",
    "override",
    "private",
    "protected",
    "public",
    "register",
    "reinterpret_cast",
    "requires",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "static_assert",
    "static_cast",
    "struct",
    "switch",
    "template",
    "this",
    "thread_local",
    "throw",
    "true",
    "try",
    "typedef",
    "typeid",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "wchar_t",
    "while",
    "xor",
    "xor_eq",
    // GNU keywords (g++ and clang++ in their default `-std=gnu++NN` modes; the
    // `__typeof__`/`__asm__`/`__inline` spellings cannot arise: identifiers never start
    // with `_`)
    "typeof",
    "typeof_unqual",
    // macros and unqualified names
    "NULL",
    "EOF",
    "errno",
    "assert",
    "offsetof",
    "stdin",
    "stdout",
    "stderr",
    "linux",
    "unix",
    "major",
    "minor",
    "std",
    "wirelens",
    "size_t",
    "ptrdiff_t",
    "uint8_t",
    "uint16_t",
    "uint32_t",
    "uint64_t",
    "int8_t",
    "int16_t",
    "int32_t",
    "int64_t",
    "uintptr_t",
    "intptr_t",
];

/// Members every generated struct has: a field with one of these names gets a `_`.
const MEMBERS: &[&str] = &[
    "SIZE",
    "MESSAGE_ID",
    "View",
    "encoded_size",
    "encode",
    "encode_into",
    "to_bytes",
    "decode",
    "decode_prefix",
    "decode_view",
    "decode_view_prefix",
    "encode_message",
    "decode_message",
    "decode_message_prefix",
    "decode_message_view",
    "write_to",
    "read_from",
    "read_fields",
    "write_block",
    "read_block",
    "to_owned",
    "max_len",
    "measure",
    "bulk",
];

/// The C++ type of a primitive (owned strings: `std::string`); the conformance engine
/// uses it too.
pub fn prim_type(p: Primitive) -> &'static str {
    Gen::prim_ty(p)
}

/// Type names the generated code uses itself (or the runtime's, should a `using` bring
/// them in): a schema type with one of these names gets a `_`. The template parameters of
/// generated members are spelled `Wl_V`, `Wl_T`, `Wl_F`, `Wl_View`: an `_` followed by an
/// upper-case letter inside a name, which no generated name has ([`type_names`] and view
/// names are PascalCase with `_` only at the end, members and namespaces lower case), so
/// no schema type can shadow them or be shadowed by them (issue 36 C2: a struct `V`).
const TAKEN_TYPES: &[&str] = &[
    "AnyMessage",
    "WlSelf",
    "View",
    "Result",
    "Status",
    "Error",
    "ErrorKind",
    "Decoded",
    "Reader",
    "Writer",
    "LeSpan",
];

/// The header file the generated code includes (written next to it).
pub const RUNTIME_HEADER: &str = "wirelens.hpp";

/// The C++ runtime header (`runtime/cpp/wirelens.hpp`).
pub const RUNTIME_SOURCE: &str = include_str!("../../../runtime/cpp/wirelens.hpp");

/// A C++ identifier for a (field or namespace) name: reserved words get a trailing `_`.
pub fn ident(name: &str) -> String {
    if RESERVED.contains(&name) {
        format!("{name}_")
    } else {
        name.to_string()
    }
}

/// The namespace (and file stem) of a schema's generated code.
pub fn namespace(source: &str) -> String {
    ident(&module_name(source))
}

/// The C++ names of every schema type, indexed by [`TypeId`]: PascalCase, ffire roots
/// with `Message` appended; keywords and names the generated code uses get a `_`,
/// and names that coincide after that (`Point`, `point`, `_Point`) get more: the type
/// whose name as written is the result keeps it, the others get `Point_`, `Point__`, …
/// in declaration order ([`super::unique_type_names`]).
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
            if RESERVED.contains(&name.as_str()) || TAKEN_TYPES.contains(&name.as_str()) {
                name.push('_');
            }
            name
        })
        .collect();
    let as_written: Vec<bool> = bases.iter().zip(&schema.types).map(|(b, d)| *b == d.name).collect();
    super::unique_type_names(bases, &as_written, |base, k| format!("{base}{}", "_".repeat(k - 1)))
}

/// The C++ name of one schema type (see [`type_names`]).
pub fn type_name(schema: &Schema, layout: &Layout, id: TypeId) -> String {
    type_names(schema, layout)
        .get(id)
        .cloned()
        .unwrap_or_else(|| "Unknown".into())
}

/// The C++ member names of a struct's fields in declaration order: snake_case, reserved
/// words and generated member names with a trailing `_`, made unique.
pub fn field_names(schema: &Schema, id: TypeId) -> Vec<String> {
    let Some(def) = schema.types.get(id) else {
        return Vec::new();
    };
    let bases = def.fields().iter().map(|f| {
        let mut name = field_ident(&f.name);
        if RESERVED.contains(&name.as_str()) || MEMBERS.contains(&name.as_str()) {
            name.push('_');
        }
        name
    });
    super::unique_in_order(bases, |base, attempt| format!("{base}{}", "_".repeat(attempt)))
}

/// The runtime header, written next to the generated code.
pub fn runtime_files() -> Vec<OutputFile> {
    vec![OutputFile {
        name: RUNTIME_HEADER.into(),
        contents: RUNTIME_SOURCE.into(),
    }]
}

/// The owned type of string fields in generated C++ ([`CppOptions::strings`];
/// `wirelens.toml`: `[generate.cpp] strings = "std" | "compact"`; `build.rs`:
/// `Builder::cpp_strings`). Views always borrow `std::string_view`.
/// - `Std` (the default): `std::string`; libstdc++ keeps up to 15 bytes inline, decoding
///   a longer string allocates.
/// - `Compact`: `wirelens::CompactString` (runtime/cpp): the same 32 bytes as a libstdc++
///   `std::string`, up to 31 bytes inline, and decoding a short string is inline code (no
///   allocation, no library call). Converts to `std::string_view`; build one from a
///   `std::string_view`, `std::string` or C string. Measured in docs/benchmarks/history.md
///   ("#14 C++").
pub use super::OwnedStrings;

/// Where generated C++ views keep their arrays of structs and of strings
/// (`wirelens.toml`: `[generate.cpp] memory = "std" | "arena"`).
/// - `Std` (the default): `std::vector`, one allocation from the heap per array.
/// - `Arena`: `wirelens::Span` in a `wirelens::Arena` the caller passes to the view
///   decoders (`decode_view(data, len, arena)`) and resets between decodes, so a warm decode
///   allocates nothing. The views are then trivially copyable and destructible. Owned
///   arrays are `wirelens::ArenaVector<T>` and (with `strings = "std"`) strings
///   `wirelens::ArenaString`: std containers whose allocator takes from the arena given to
///   `decode(data, len, arena)` and from the heap otherwise. Measured in
///   docs/benchmarks/history.md ("#14 C++ arena").
pub use super::Memory;

/// The C++ generator's options (`[generate.cpp]` in `wirelens.toml`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CppOptions {
    /// The owned type of string fields.
    pub strings: OwnedStrings,
    /// Where views keep their arrays.
    pub memory: Memory,
}

/// Generates `<module>.hpp` for one schema. `source` names the schema file (it names the
/// output, the namespace, and appears in the header comment).
pub fn generate(schema: &Schema, layout: &Layout, source: &str) -> Result<Vec<OutputFile>, EmitError> {
    generate_with(schema, layout, source, &CppOptions::default())
}

/// [`generate`] with the generator's options.
pub fn generate_with(
    schema: &Schema,
    layout: &Layout,
    source: &str,
    opts: &CppOptions,
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
    // Declaration order of the C++ structs: each after every type its members contain.
    let graph = Graph::new(schema);
    if let Some(cycle) = graph.cycles.first() {
        let first = cycle.path.first().and_then(|&id| schema.types.get(id));
        return Err(EmitError(format!(
            "{source}: type `{}` contains itself",
            first.map_or("?", |t| t.name.as_str())
        )));
    }
    let names = type_names(schema, layout);
    let views = view_names(schema, layout, &names);
    let plan = Plan::new(layout);
    let uses = plan.struct_uses();
    let g = Gen {
        schema,
        layout,
        plan,
        names,
        views,
        members: (0..schema.types.len()).map(|id| field_names(schema, id)).collect(),
        strings: opts.strings,
        arena: opts.memory == Memory::Arena,
        uses,
    };
    let order = graph.order;
    let ns = namespace(source);
    let mut c = Code::with_capacity(super::OUTPUT_BYTES_PER_TYPE * schema.types.len());
    g.header(&mut c, source, &ns);
    g.forward_decls(&mut c);
    // One `!=` for every value type of the header (found by argument-dependent lookup),
    // not one per type.
    c.blank();
    c.line("/// `a != b` for the value types of this header (each defines operator==).");
    c.line("template <class Wl_T, class = decltype(Wl_T::max_len)>");
    c.open("bool operator!=(const Wl_T& a, const Wl_T& b) {");
    c.line("return !(a == b);");
    c.close("}");
    for &id in &order {
        g.type_defs(&mut c, id);
    }
    for &id in &order {
        g.alias(&mut c, id);
    }
    c.blank();
    c.line("// ------------------------------------------------------------------ definitions");
    for &id in &order {
        g.definitions(&mut c, id);
    }
    if g.sdp() {
        g.dispatcher(&mut c);
    }
    c.blank();
    c.linef(format_args!("}}  // namespace {ns}"));
    c.blank();
    c.linef(format_args!("#endif  // {}", guard(&ns)));
    Ok(vec![OutputFile {
        name: format!("{}.hpp", module_name(source)),
        contents: c.out,
    }])
}

/// [`super::member_runs`] of a block's leaves, members of the struct itself only (not of a
/// nested one); stored with one copy under `offsetof` (see `Gen::write_to`), as the C
/// generator does.
fn runs(leaves: &[Leaf]) -> Vec<std::ops::Range<usize>> {
    super::member_runs(leaves, |l| {
        let size = match l.kind {
            LeafKind::Prim(p) if l.path.len() == 1 => p.fixed_size(),
            _ => None,
        };
        (size, l.path.as_slice(), l.at)
    })
}

/// The address `at` bytes into block `b` (`b` itself at 0).
fn at_in(b: &str, at: u64) -> String {
    if at == 0 {
        b.to_string()
    } else {
        format!("{b} + {at}")
    }
}

fn guard(ns: &str) -> String {
    format!("WIRELENS_GENERATED_{}_HPP", ns.to_ascii_uppercase())
}

/// View type names (`None` when the type has no strings or arrays: its view is itself).
fn view_names(schema: &Schema, layout: &Layout, names: &[String]) -> Vec<Option<String>> {
    let mut out: Vec<Option<String>> = Vec::with_capacity(names.len());
    for (id, def) in schema.types.iter().enumerate() {
        let Some(t) = layout.get(id) else {
            out.push(None);
            continue;
        };
        if !(def.is_struct() || t.root) || !borrows(layout, &t.wire) {
            out.push(None);
            continue;
        }
        let mut v = format!("{}View", names[id]);
        while names.contains(&v) || out.iter().flatten().any(|o| *o == v) {
            v.push('_');
        }
        out.push(Some(v));
    }
    out
}

/// A C++ string literal.
fn lit(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '?' => out.push_str("\\?"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\{:03o}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A comment line's text made safe: no control characters, no trailing backslash (which
/// would continue the comment onto the next line of code).
fn comment_text(s: &str) -> String {
    let mut t: String = s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    while t.ends_with(char::is_whitespace) {
        t.pop();
    }
    if t.ends_with('\\') {
        t.push('.');
    }
    t
}

/// One member of a value type: a struct field, or the single `value` of a root alias.
struct Member {
    /// The C++ member name.
    access: String,
    wire: Wire,
}

/// The optional template for a payload: `wirelens::Optional` for a struct (g++ compiles
/// each `std::optional<S>` in time that grows with the schema's structs; see the runtime),
/// `std::optional` otherwise.
fn optional_ty(payload: &Wire) -> &'static str {
    match payload {
        Wire::Struct(_) => "wirelens::Optional",
        _ => "std::optional",
    }
}

/// Array levels (inside one type expression) that are plain `std::vector`s; the levels
/// above them are `wirelens::Nested` (issue 39). g++ visits the element type of a
/// `std::vector` twice per level in every argument-dependent lookup of an operator on it
/// (once as the vector's argument, once as its allocator's): compile time doubled with
/// each level (24 levels: 20 s for a file that includes the header, 32: never finished).
/// A `Nested` level is visited once, so a lookup costs 2^8 at most. 8 levels cost nothing
/// measurable, and no schema nesting less changes.
const PLAIN_ARRAY_LEVELS: usize = 8;

/// How many arrays nest in `w` (through optionals, not through structs): `[][]int32` 2.
fn array_height(w: &Wire) -> usize {
    let mut w = w;
    let mut h = 0;
    loop {
        match w {
            Wire::Array(e) => {
                h += 1;
                w = e;
            }
            Wire::Optional(e) => w = e,
            _ => return h,
        }
    }
}

/// Whether the array `w` is spelled `wirelens::Nested` ([`PLAIN_ARRAY_LEVELS`]).
fn nested(w: &Wire) -> bool {
    array_height(w) > PLAIN_ARRAY_LEVELS
}

/// Whether values of this wire contain strings or arrays (so their view borrows).
fn borrows(layout: &Layout, w: &Wire) -> bool {
    match w {
        Wire::Prim(p) => *p == Primitive::Str,
        Wire::Array(_) => true,
        Wire::Optional(e) => borrows(layout, e),
        Wire::Struct(id) => layout
            .get(*id)
            .is_some_and(|t| t.fields.iter().any(|f| borrows(layout, &f.wire))),
    }
}

/// `n += 4 * x.size();` without the `1 *`.
fn scaled(scale: u64, what: &str) -> String {
    if scale == 1 {
        what.to_string()
    } else {
        format!("{scale} * {what}")
    }
}

/// Where a plan path lands in the generated value: the member access below it
/// (`.holder.x`) and the JSON names from the struct down (for error paths; empty for
/// the `value` of a non-struct type).
struct Place {
    access: String,
    names: Vec<String>,
}

struct Gen<'s> {
    schema: &'s Schema,
    layout: &'s Layout,
    /// The encoding plan every size, order, block and prefix is rendered from.
    plan: Plan,
    names: Vec<String>,
    views: Vec<Option<String>>,
    /// The C++ member names of each type's fields, by declaration index.
    members: Vec<Vec<String>>,
    strings: OwnedStrings,
    /// [`Memory::Arena`]: view arrays are `wirelens::Span`s in a caller's arena.
    arena: bool,
    /// By type, where the plan writes it ([`Plan::struct_uses`]). Written from exactly one
    /// place (one field, element or payload in the whole schema): its write_to can be
    /// inlined there at no cost in size (see `write_to`). Written only as array elements:
    /// its blocks are stored in [`runs`].
    uses: Vec<StructUses>,
}

impl Gen<'_> {
    fn sdp(&self) -> bool {
        self.schema.dialect == Dialect::Sdp
    }

    /// `"WIRELENS_HOT "` (forced inline) for the `read_fields` and the view's `read_from`
    /// of a struct read only as the element of one array whose own values have no loop over
    /// structs (AudioUnit's and complex's `Parameter`, array_struct's `Device`, arrays'
    /// `Item`); `""` for every other type. Inlined into that one loop, the `Reader`'s
    /// cursor stays in a register from one element to the next (out of line, each call
    /// reloads it from memory) and the call's prologue goes: AudioUnit arena view 0.90x,
    /// array_struct's 0.80x, with the string read storing its view before the cursor. A
    /// struct that loops over structs itself stays a call: inlining AudioUnit's `Plugin`
    /// (with `Parameter`'s loop inside) into the registry made that view 1.25x slower
    /// (docs/benchmarks/history.md, "#14 session 6").
    fn read_hot(&self, id: TypeId) -> &'static str {
        fn loops_over_structs(v: &Value) -> bool {
            match v {
                Value::Array { elem, .. } => matches!(**elem, Value::Struct { .. }) || loops_over_structs(elem),
                Value::Optional(inner) => loops_over_structs(inner),
                Value::Prim(_) | Value::Str(_) | Value::BulkPrims(..) | Value::Struct { .. } => false,
            }
        }
        let one_loop = self.uses.get(id).is_some_and(|u| u.only_as_elements() && u.count == 1);
        let leaf = self.plan.get(id).is_some_and(|p| {
            !p.steps
                .iter()
                .any(|s| matches!(s, Step::Value { value, .. } if loops_over_structs(value)))
        });
        if one_loop && leaf {
            "WIRELENS_HOT "
        } else {
            ""
        }
    }

    fn is_value_type(&self, id: TypeId) -> bool {
        self.schema.types[id].is_struct() || self.plan.get(id).is_some_and(|p| p.root)
    }

    fn name(&self, id: TypeId) -> &str {
        &self.names[id]
    }

    /// The type the view decoders of `id` return.
    fn view_name(&self, id: TypeId) -> &str {
        self.views.get(id).and_then(|v| v.as_deref()).unwrap_or(&self.names[id])
    }

    /// The member access and JSON names of a plan path inside type `owner`.
    fn place(&self, owner: TypeId, path: &[usize]) -> Place {
        if path.is_empty() {
            return Place {
                access: ".value".into(),
                names: Vec::new(),
            };
        }
        let mut access = String::new();
        let mut names = Vec::with_capacity(path.len());
        let mut ty = Some(owner);
        for &i in path {
            let Some(t) = ty else { break };
            access.push('.');
            access.push_str(
                self.members
                    .get(t)
                    .and_then(|m| m.get(i))
                    .map_or("unknown_", String::as_str),
            );
            names.push(
                self.schema.types[t]
                    .fields()
                    .get(i)
                    .map_or_else(String::new, |f| f.json_name.clone()),
            );
            ty = self
                .layout
                .get(t)
                .and_then(|l| l.field_by_decl(i))
                .and_then(|f| match f.wire {
                    Wire::Struct(n) => Some(n),
                    _ => None,
                });
        }
        Place { access, names }
    }

    fn header(&self, c: &mut Code, source: &str, ns: &str) {
        c.line(GENERATED_HEADER);
        let order = match self.schema.dialect {
            Dialect::Sdp => "SDP, declaration order".to_string(),
            Dialect::Ffi => format!("ffire, {} field order", self.layout.order.as_str()),
        };
        c.linef(format_args!("// Source: {} ({order}).", comment_text(source)));
        c.line("// C++17, header-only; needs only wirelens.hpp (runtime/cpp). No exceptions: encoders return");
        c.line("// wirelens::Status / wirelens::Result<size_t>, decoders wirelens::Result<T>.");
        c.line("//");
        c.line("// Every type has encoded_size, encode (appends to a reusable std::vector<uint8_t>), encode_into");
        c.line("// (a caller buffer), to_bytes, decode (rejects trailing bytes), decode_prefix (back-to-back");
        c.line("// records) and decode_view (zero-copy: strings and primitive arrays point into the input).");
        if self.sdp() {
            c.line("// Every struct is also a message (encode_message, decode_message); AnyMessage decodes any");
            c.line("// of them by type id and hands it to a visitor. Box<T> has no effect on the wire and is");
            c.line("// generated as T.");
        } else {
            c.line("// Strings and arrays are limited to 65,535 bytes / elements: encoders refuse longer ones.");
        }
        // Said once here rather than in each of the thousands of structs below.
        c.line("//");
        c.line("// Per struct T: `using View` (what decode_view returns; T itself, with to_owned() returning");
        c.line("// a copy, when T has no strings or arrays), SIZE (fixed-size types: the encoded size),");
        c.line("// MESSAGE_ID (SDP: 1-based position in the schema), max_len (the longest string or array a");
        c.line("// length prefix allows). WIRELENS_VALUE_API / WIRELENS_MESSAGE_API (wirelens.hpp) add the");
        c.line("// functions above and the message forms (\"SDP2\" header, type id, payload length; decoders");
        c.line("// check them all); they and operator== are templates (call them without template");
        c.line("// arguments) so that a translation unit compiles only those it uses. Building blocks:");
        c.line("// measure (the exact size, lengths checked by `f`), write_to / read_from (one value at");
        c.line("// the cursor), write_block / read_block (a fixed-size value inside a parent's fixed");
        c.line("// block). A TView borrows the decoded input, which must outlive it; its to_owned() copies");
        c.line("// it into a T. T::read_fields<V> is the one body that reads a T and a TView (their");
        c.line("// read_from).");
        if self.strings == OwnedStrings::Compact {
            c.line("//");
            c.line("// Owned strings are wirelens::CompactString ([generate.cpp] strings = \"compact\"): up to 31");
            c.line("// bytes inline; converts to std::string_view.");
        }
        if self.arena {
            c.line("//");
            c.line("// Views keep their arrays in a wirelens::Arena ([generate.cpp] memory = \"arena\"): the view");
            c.line("// decoders take one (`decode_view(data, len, arena)`), the View points into the input and");
            c.line("// the arena, and `arena.reset()` frees it all for the next decode (no allocation once warm).");
        }
        c.blank();
        let g = guard(ns);
        c.linef(format_args!("#ifndef {g}"));
        c.linef(format_args!("#define {g}"));
        c.blank();
        c.linef(format_args!("#include \"{RUNTIME_HEADER}\""));
        c.blank();
        c.linef(format_args!("namespace {ns} {{"));
        c.blank();
    }

    fn forward_decls(&self, c: &mut Code) {
        for (id, def) in self.schema.types.iter().enumerate() {
            // Only views: a type's owned struct (which names its view) comes before its view,
            // and every struct after the types its members contain.
            if def.is_struct() || self.is_value_type(id) {
                if let Some(Some(v)) = self.views.get(id) {
                    c.linef(format_args!("struct {v};"));
                }
            }
        }
    }

    fn docs(&self, c: &mut Code, docs: &[String]) {
        for d in docs {
            let d = comment_text(d.trim());
            if d.is_empty() {
                c.line("///");
            } else {
                c.linef(format_args!("/// {d}"));
            }
        }
    }

    fn prim_ty(p: Primitive) -> &'static str {
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
            Primitive::Str => "std::string",
        }
    }

    /// The owned string type ([`OwnedStrings`]).
    fn string_ty(&self) -> &'static str {
        match self.strings {
            OwnedStrings::Std if self.arena => "wirelens::ArenaString",
            OwnedStrings::Std => "std::string",
            OwnedStrings::Compact => "wirelens::CompactString",
        }
    }

    fn owned_ty(&self, w: &Wire) -> String {
        match w {
            Wire::Prim(Primitive::Str) => self.string_ty().into(),
            Wire::Prim(p) => Self::prim_ty(*p).into(),
            Wire::Array(e) if self.arena && nested(w) => format!("wirelens::ArenaNested<{}>", self.owned_ty(e)),
            Wire::Array(e) if self.arena => format!("wirelens::ArenaVector<{}>", self.owned_ty(e)),
            Wire::Array(e) if nested(w) => format!("wirelens::Nested<{}>", self.owned_ty(e)),
            Wire::Array(e) => format!("std::vector<{}>", self.owned_ty(e)),
            Wire::Optional(e) => format!("{}<{}>", optional_ty(e), self.owned_ty(e)),
            Wire::Struct(id) => self.name(*id).into(),
        }
    }

    fn view_ty(&self, w: &Wire) -> String {
        if !borrows(self.layout, w) {
            return self.owned_ty(w);
        }
        match w {
            Wire::Prim(_) => "std::string_view".into(),
            Wire::Array(e) => match &**e {
                Wire::Prim(p) if *p != Primitive::Str => format!("wirelens::LeSpan<{}>", Self::prim_ty(*p)),
                e if self.arena => format!("wirelens::Span<{}>", self.view_ty(e)),
                e if nested(w) => format!("wirelens::Nested<{}>", self.view_ty(e)),
                e => format!("std::vector<{}>", self.view_ty(e)),
            },
            Wire::Optional(e) => format!("{}<{}>", optional_ty(e), self.view_ty(e)),
            Wire::Struct(id) => self.view_name(*id).into(),
        }
    }

    fn members(&self, id: TypeId, t: &TypeLayout) -> Vec<Member> {
        let def = &self.schema.types[id];
        if !def.is_struct() {
            return vec![Member {
                access: "value".into(),
                wire: t.wire.clone(),
            }];
        }
        t.fields
            .iter()
            .map(|f| Member {
                access: self.members[id][f.decl_index].clone(),
                wire: f.wire.clone(),
            })
            .collect()
    }

    /// Members in declaration order (how the C++ struct declares them): (name, docs, wire).
    fn declared(&self, id: TypeId, t: &TypeLayout) -> Vec<(String, Vec<String>, Wire)> {
        let def = &self.schema.types[id];
        if !def.is_struct() {
            return vec![("value".into(), vec![], t.wire.clone())];
        }
        def.fields()
            .iter()
            .enumerate()
            .filter_map(|(i, f)| {
                let fl = t.field_by_decl(i)?;
                Some((self.members[id][i].clone(), f.docs.clone(), fl.wire.clone()))
            })
            .collect()
    }

    // ------------------------------------------------------------------ types

    /// The layout table, and the fixed blocks from the plan this code is rendered from (so
    /// the comment cannot contradict the code).
    fn layout_doc(&self, c: &mut Code, id: TypeId, t: &TypeLayout) {
        let d = super::layout_doc(self.schema, self.layout, id, t);
        c.linef(format_args!("/// Wire layout ({}): {}.", d.order, d.size));
        if let Some(wire) = &d.wire_type {
            c.line("///");
            c.linef(format_args!("/// {wire}."));
            return;
        }
        c.line("///");
        for row in &d.table {
            c.linef(format_args!("///   {}", comment_text(row)));
        }
        if let Some(line) = self.plan.get(id).and_then(TypePlan::fixed_blocks_line) {
            c.line("///");
            c.linef(format_args!("/// {}.", comment_text(&line)));
        }
    }

    /// The view (when the type has one) and the owned struct, with member declarations and
    /// the runtime's API macros. The owned struct comes first so the view's read_from can
    /// call its read_fields (the API's view decoders are templates: they need the view
    /// complete only where they are called).
    fn type_defs(&self, c: &mut Code, id: TypeId) {
        let (Some(t), Some(p)) = (self.layout.get(id), self.plan.get(id)) else {
            return;
        };
        if !self.is_value_type(id) {
            return;
        }
        let def = &self.schema.types[id];
        let name = self.name(id).to_string();
        let view = self.views.get(id).cloned().flatten();
        let fixed = p.size.fixed.is_some() && p.is_struct;
        let members = self.declared(id, t);
        c.blank();
        self.docs(c, &def.docs);
        if !def.docs.is_empty() {
            c.line("///");
        }
        self.layout_doc(c, id, t);
        c.open(&format!("struct {name} {{"));
        for (member, docs, wire) in &members {
            self.docs(c, docs);
            c.linef(format_args!("{} {member}{{}};", self.owned_ty(wire)));
        }
        c.blank();
        c.linef(format_args!("using View = {};", view.as_deref().unwrap_or(&name)));
        if let Some(n) = p.size.fixed {
            c.linef(format_args!("static constexpr size_t SIZE = {n};"));
        }
        if let Some(mid) = p.message_id {
            c.linef(format_args!("static constexpr uint16_t MESSAGE_ID = {mid};"));
        }
        c.linef(format_args!(
            "static constexpr size_t max_len = {};",
            self.plan.prefix.max()
        ));
        if let [Step::Value {
            path,
            value: Value::BulkPrims(_, prim),
        }] = p.steps.as_slice()
        {
            if *prim != Primitive::Bool {
                // One array of primitives: encode() appends its elements with one copy
                // instead of zero-filling them first.
                let place = self.place(p.id, path);
                c.linef(format_args!(
                    "static const auto& bulk(const {name}& v) noexcept {{ return v{}; }}",
                    place.access
                ));
            }
        }
        c.blank();
        let arena = if self.arena { "ARENA_" } else { "" };
        c.linef(format_args!("WIRELENS_{arena}VALUE_API({name})"));
        if p.message_id.is_some() {
            c.linef(format_args!("WIRELENS_{arena}MESSAGE_API({name})"));
        }
        if view.is_none() {
            c.linef(format_args!("{name} to_owned() const {{ return *this; }}"));
        }
        c.blank();
        if let Some(n) = p.size.fixed {
            c.linef(format_args!(
                "static size_t measure(const {name}&, wirelens::Fits&) noexcept {{ return {n}; }}"
            ));
        } else {
            c.linef(format_args!(
                "static size_t measure(const {name}& v, wirelens::Fits& f) noexcept;"
            ));
        }
        c.linef(format_args!(
            "static bool write_to(wirelens::Writer& w, const {name}& v);"
        ));
        if view.is_some() {
            // The owned read_from is inlined where the view's is: array_struct's owned decode
            // 5 % faster (issue 32; the 2 % loss measured before came from decoders g++
            // compiled as cold, see Reader::fail_at in runtime/cpp).
            c.linef(format_args!(
                "{}static bool read_from(wirelens::Reader& rd, {name}& v) {{ return read_fields(rd, v); }}",
                self.read_hot(p.id)
            ));
            c.line("template <class Wl_V>");
            c.linef(format_args!(
                "{}static bool read_fields(wirelens::Reader& rd, Wl_V& v);",
                self.read_hot(p.id)
            ));
        } else {
            c.linef(format_args!("static bool read_from(wirelens::Reader& rd, {name}& v);"));
        }
        if fixed {
            c.linef(format_args!("static void write_block(uint8_t* b, const {name}& v);"));
            c.linef(format_args!(
                "static bool read_block(wirelens::Reader& rd, const uint8_t* b, {name}& v);"
            ));
        }
        c.blank();
        let eq: Vec<String> = members.iter().map(|(m, ..)| format!("a.{m} == b.{m}")).collect();
        // A member, not a friend: N friends named `operator==` in one namespace make every
        // `==` of the header search all N (quadratic). A template so that it is compiled
        // only where it is used (#13: compile cost linear in the number of structs).
        c.linef(format_args!("template <class WlSelf = {name}>"));
        c.open(&format!("bool operator==(const {name}& b) const {{"));
        c.line("const WlSelf& a = *this;");
        let one_line = format!("return {};", eq.join(" && "));
        if eq.is_empty() {
            c.line("(void)a;");
            c.line("(void)b;");
            c.line("return true;");
        } else if one_line.len() + 4 * c.depth <= 100 {
            c.line(&one_line);
        } else if members.len() >= 4 {
            // Member-wise (same order and short-circuit as `&&`), each name written once:
            // half the text of the `a.x == b.x && …` chain (#13: generated size).
            c.line("auto t = [](const WlSelf& x) {");
            c.depth += 1;
            let items: Vec<String> = members.iter().map(|(m, ..)| format!("x.{m}")).collect();
            let (top, mut line) = (c.depth, "return std::tie(".to_string());
            for (i, item) in items.iter().enumerate() {
                let sep = if i + 1 == items.len() { ");" } else { "," };
                if line.len() + item.len() + sep.len() + 1 + 4 * c.depth > 100 && !line.ends_with('(') {
                    c.line(line.trim_end());
                    c.depth = top + 1;
                    line = String::new();
                } else if !line.ends_with('(') {
                    line.push(' ');
                }
                line.push_str(item);
                line.push_str(sep);
            }
            c.line(&line);
            c.depth = top - 1;
            c.line("};");
            c.line("return t(a) == t(b);");
        } else {
            // Several comparisons per line, wrapped at 100 columns.
            let mut line = format!("return {}", eq[0]);
            let (top, mut first) = (c.depth, true);
            for e in &eq[1..] {
                if line.len() + e.len() + 4 + 4 * (top + 1) > 100 {
                    c.depth = if first { top } else { top + 1 };
                    c.line(&line);
                    first = false;
                    line = format!("&& {e}");
                } else {
                    line.push_str(" && ");
                    line.push_str(e);
                }
            }
            line.push(';');
            c.depth = if first { top } else { top + 1 };
            c.line(&line);
            c.depth = top;
        }
        c.close("}");
        c.close("};");
        if let Some(view) = &view {
            c.blank();
            c.linef(format_args!("/// Zero-copy view of {name}."));
            c.open(&format!("struct {view} {{"));
            for (member, docs, wire) in &members {
                self.docs(c, docs);
                c.linef(format_args!("{} {member}{{}};", self.view_ty(wire)));
            }
            c.blank();
            c.linef(format_args!("{name} to_owned() const;"));
            c.linef(format_args!(
                "{}static bool read_from(wirelens::Reader& rd, {view}& v) {{ return {name}::read_fields(rd, v); }}",
                self.read_hot(p.id)
            ));
            c.close("};");
        }
    }

    /// Non-root ffire aliases: a `using` for the user's convenience (generated code uses
    /// the resolved types).
    fn alias(&self, c: &mut Code, id: TypeId) {
        let Some(t) = self.layout.get(id) else { return };
        let def = &self.schema.types[id];
        if def.is_struct() || t.root {
            return;
        }
        c.blank();
        self.docs(c, &def.docs);
        c.linef(format_args!("using {} = {};", self.name(id), self.owned_ty(&t.wire)));
    }

    // ------------------------------------------------------------------ definitions

    fn definitions(&self, c: &mut Code, id: TypeId) {
        let (Some(t), Some(p)) = (self.layout.get(id), self.plan.get(id)) else {
            return;
        };
        if !self.is_value_type(id) {
            return;
        }
        let name = self.name(id).to_string();
        let members = self.members(id, t);
        c.blank();
        c.linef(format_args!("// --- {name}"));
        c.blank();
        self.measure(c, &name, p);
        self.write_to(c, &name, p);
        if p.size.fixed.is_some() && p.is_struct {
            self.block_fns(c, &name, p);
        }
        if let Some(Some(view)) = self.views.get(id) {
            // The value and its view read with one body (they differ only in the types of
            // nested structs): half the decoder source of a schema with strings or arrays.
            self.read_from(c, &name, p, true);
            c.blank();
            self.to_owned(c, &name, view, &members);
        } else {
            self.read_from(c, &name, p, false);
        }
    }

    // ------------------------------------------------------------------ size

    /// The plan's exact-size formula: its constant plus one term per variable-size value;
    /// every string and array length goes through `f`.
    fn measure(&self, c: &mut Code, name: &str, p: &TypePlan) {
        if p.size.fixed.is_some() {
            return;
        }
        let mut body = Code {
            depth: c.depth + 1,
            ..Code::default()
        };
        body.linef(format_args!("size_t n = {};", p.exact_size.constant));
        let mut k = 0;
        for (path, term) in &p.exact_size.terms {
            let place = self.place(p.id, path);
            self.size_term(&mut body, &format!("v{}", place.access), term, &mut k);
        }
        body.line("return n;");
        // `f` is unnamed when only optionals vary (no length to check, no nested measure).
        let f = if body.out.contains("f.len(") || body.out.contains(", f)") {
            " f"
        } else {
            ""
        };
        c.open(&format!(
            "inline size_t {name}::measure(const {name}& v, wirelens::Fits&{f}) noexcept {{"
        ));
        c.out.push_str(&body.out);
        c.close("}");
        c.blank();
    }

    /// Statements adding one size term of the value at `place` to `n`.
    fn size_term(&self, c: &mut Code, place: &str, term: &SizeTerm, k: &mut usize) {
        match term {
            SizeTerm::Len { scale } => {
                c.linef(format_args!("f.len({place}.size());"));
                c.linef(format_args!("n += {};", scaled(*scale, &format!("{place}.size()"))));
            }
            SizeTerm::Present { scale } => c.linef(format_args!("if ({place}) n += {scale};")),
            SizeTerm::IfPresent(inner) => {
                let x = format!("x{k}");
                *k += 1;
                c.open(&format!("if ({place}) {{"));
                c.linef(format_args!("const auto& {x} = *{place};"));
                self.value_size(c, &x, inner, k);
                c.close("}");
            }
            SizeTerm::Each(each) => {
                c.linef(format_args!("f.len({place}.size());"));
                if each.constant != 0 {
                    c.linef(format_args!(
                        "n += {};",
                        scaled(each.constant, &format!("{place}.size()"))
                    ));
                }
                if let Some(t) = &each.term {
                    let x = format!("x{k}");
                    *k += 1;
                    c.open(&format!("for (const auto& {x} : {place}) {{"));
                    self.size_term(c, &x, t, k);
                    c.close("}");
                }
            }
            SizeTerm::Call(id) => c.linef(format_args!("n += {}::measure({place}, f);", self.name(*id))),
        }
    }

    /// Statements adding a whole value's size (constant and term) to `n`.
    fn value_size(&self, c: &mut Code, place: &str, s: &ValueSize, k: &mut usize) {
        if s.constant != 0 {
            c.linef(format_args!("n += {};", s.constant));
        }
        if let Some(t) = &s.term {
            self.size_term(c, place, t, k);
        }
    }

    // ------------------------------------------------------------------ encode

    /// A fixed-size struct whose plan is one block of its own fields: its write_to and
    /// read_from are its write_block / read_block at the cursor (same stores, loads and
    /// error paths), not second copies of those bodies (#13: generated size).
    fn one_block(p: &TypePlan) -> Option<u64> {
        if p.size.fixed.is_none() || !p.is_struct {
            return None;
        }
        match p.steps.as_slice() {
            [Step::Block { block, .. }]
                if !block.leaves.is_empty() && block.leaves.iter().all(|l| l.path.len() == 1) =>
            {
                Some(block.size)
            }
            _ => None,
        }
    }

    fn write_to(&self, c: &mut Code, name: &str, p: &TypePlan) {
        // Written from one place only: inlined there, as gcc does with a C `static`
        // function called once (an `inline` C++ function may have callers in other
        // translation units, so g++ -O2 kept AudioUnit's Parameter::write_to out of the
        // array loop: a call and a six-register prologue per element, 1.6x the encode).
        // Inlining adds no code, since there is no second caller in the schema.
        // Only with two or more variable-size values: a smaller write_to (array_struct's
        // Device: one string) g++ inlines by itself, and forcing it there reordered the
        // copy's branches (3 % slower).
        let values = p.steps.iter().filter(|s| matches!(s, Step::Value { .. })).count();
        let inl = if values >= 2 && self.uses.get(p.id).is_some_and(|u| u.count == 1) {
            "WIRELENS_HOT"
        } else {
            "inline"
        };
        c.open(&format!(
            "{inl} bool {name}::write_to(wirelens::Writer& out, const {name}& v) {{"
        ));
        if let Some(size) = Self::one_block(p) {
            c.linef(format_args!("write_block(out.block({size}), v);"));
            c.line("return true;");
            c.close("}");
            c.blank();
            return;
        }
        // The cursor in a register, not reloaded after every store (see wirelens::Writer).
        c.line("wirelens::Writer w = out;");
        let mut k = 0;
        let mut bn = 0;
        let mut rn = 0;
        for step in &p.steps {
            match step {
                Step::Block { block, .. } => {
                    if block.leaves.is_empty() {
                        continue;
                    }
                    let bv = format!("b{bn}");
                    bn += 1;
                    c.linef(format_args!("uint8_t* {bv} = w.block({});", block.size));
                    for r in self.runs(p.id, &block.leaves, true) {
                        self.store_run(c, &bv, name, p.id, &block.leaves[r], &mut rn);
                    }
                }
                Step::Value { path, value } => {
                    let place = self.place(p.id, path);
                    self.write_value(c, &format!("v{}", place.access), value, &mut k);
                }
            }
        }
        c.line("out = w;");
        c.line("return true;");
        c.close("}");
        c.blank();
    }

    /// The runs of a block of `id` ([`runs`]) where `allowed` and `id` is only an array
    /// element, else each leaf alone.
    fn runs(&self, id: TypeId, leaves: &[Leaf], allowed: bool) -> Vec<std::ops::Range<usize>> {
        if allowed && self.uses.get(id).is_some_and(|u| u.only_as_elements()) {
            runs(leaves)
        } else {
            (0..leaves.len()).map(|i| i..i + 1).collect()
        }
    }

    /// Declares `constexpr size_t rN`: where run `run` (two or more leaves) starts in the
    /// struct type `ty` when `offsetof` confirms it holds the run as the wire does, else
    /// `wirelens::no_run`. Returns `rN`.
    fn run_start(&self, c: &mut Code, ty: &str, id: TypeId, run: &[Leaf], rn: &mut usize) -> String {
        let member = |l: &Leaf| self.place(id, &l.path).access.trim_start_matches('.').to_string();
        let first_at = run.first().map_or(0, |l| l.at);
        let mut cond = Vec::new();
        if run.iter().any(|l| l.kind == LeafKind::Prim(Primitive::Bool)) {
            cond.push("sizeof(bool) == 1".to_string());
        }
        for l in run.iter().skip(1) {
            cond.push(format!("offsetof(T, {}) == a + {}", member(l), l.at - first_at));
        }
        let r = format!("r{rn}");
        *rn += 1;
        c.open(&format!(
            "constexpr size_t {r} = wirelens::run_start<{ty}>([](auto t) {{"
        ));
        c.line("using T = typename decltype(t)::type;");
        if let Some(first) = run.first() {
            c.linef(format_args!("const size_t a = offsetof(T, {});", member(first)));
        }
        c.linef(format_args!("return {} ? a : wirelens::no_run;", cond.join(" && ")));
        c.close("});");
        r
    }

    /// Stores leaves of block `b`: a run of two or more ([`runs`]) with one copy of the
    /// members when `offsetof` confirms the struct holds them as the wire does (a constant;
    /// the field-by-field stores are the fallback, e.g. another ABI or a big-endian host).
    fn store_run(&self, c: &mut Code, b: &str, name: &str, id: TypeId, run: &[Leaf], rn: &mut usize) {
        let each = |c: &mut Code| {
            for leaf in run {
                let place = self.place(id, &leaf.path);
                self.store(c, b, leaf.at, &format!("v{}", place.access), leaf.kind);
            }
        };
        let (Some(first), Some(last), true) = (run.first(), run.last(), run.len() > 1) else {
            return each(c);
        };
        let r = self.run_start(c, name, id, run, rn);
        c.open(&format!("if constexpr ({r} != wirelens::no_run) {{"));
        c.linef(format_args!(
            "wirelens::store_run({}, v, {r}, {});",
            at_in(b, first.at),
            last.at + last.size - first.at
        ));
        c.close("} else {");
        c.depth += 1;
        each(c);
        c.close("}");
    }

    fn store(&self, c: &mut Code, b: &str, at: u64, place: &str, kind: LeafKind) {
        let off = at_in(b, at);
        match kind {
            // The member's type is the primitive's: store_le deduces it.
            LeafKind::Prim(_) => c.linef(format_args!("wirelens::store_le({off}, {place});")),
            LeafKind::Struct(id) => c.linef(format_args!("{}::write_block({off}, {place});", self.name(id))),
        }
    }

    fn write_value(&self, c: &mut Code, place: &str, value: &Value, k: &mut usize) {
        match value {
            Value::Str(pre) => c.linef(format_args!("if (!w.str{}({place})) return false;", pre.bits())),
            Value::Prim(p) => c.linef(format_args!("w.prim<{}>({place});", Self::prim_ty(*p))),
            Value::BulkPrims(pre, _) => c.linef(format_args!("if (!w.prims{}({place})) return false;", pre.bits())),
            Value::Array { prefix, elem, .. } => {
                c.linef(format_args!(
                    "if (!w.len{}({place}.size())) return false;",
                    prefix.bits()
                ));
                let x = format!("x{k}");
                *k += 1;
                c.open(&format!("for (const auto& {x} : {place}) {{"));
                self.write_value(c, &x, elem, k);
                c.close("}");
            }
            Value::Optional(inner) => {
                c.open(&format!("if ({place}) {{"));
                c.line("w.put_u8(1);");
                if matches!(&**inner, Value::Array { .. } | Value::Optional(_)) {
                    let x = format!("x{k}");
                    *k += 1;
                    c.linef(format_args!("const auto& {x} = *{place};"));
                    self.write_value(c, &x, inner, k);
                } else {
                    self.write_value(c, &format!("*{place}"), inner, k);
                }
                c.close("} else {");
                c.depth += 1;
                c.line("w.put_u8(0);");
                c.close("}");
            }
            Value::Struct { .. } => c.linef(format_args!("if (!w.value({place})) return false;")),
        }
    }

    /// Fixed-size structs: store / load the whole value inside a parent's block, at the
    /// offsets of the plan's leaves.
    fn block_fns(&self, c: &mut Code, name: &str, p: &TypePlan) {
        // (offset inside the value, place, leaf kind), from the plan's steps in order.
        let mut leaves = Vec::new();
        let mut at = 0;
        for step in &p.steps {
            match step {
                Step::Block { block, .. } => {
                    for l in &block.leaves {
                        leaves.push((at + l.at, self.place(p.id, &l.path), l.kind));
                    }
                    at += block.size;
                }
                // A fixed value the layout left outside every block.
                Step::Value { path, value } => {
                    let kind = match value {
                        Value::Prim(p) => Some(LeafKind::Prim(*p)),
                        Value::Struct { id, .. } => Some(LeafKind::Struct(*id)),
                        _ => None,
                    };
                    if let Some(kind) = kind {
                        leaves.push((at, self.place(p.id, path), kind));
                    }
                    at += value.fixed_size().unwrap_or(0);
                }
            }
        }
        let (b, v) = if leaves.is_empty() {
            ("/*b*/", "/*v*/")
        } else {
            ("b", "v")
        };
        c.open(&format!(
            "inline void {name}::write_block(uint8_t* {b}, const {name}& {v}) {{"
        ));
        for (at, place, kind) in &leaves {
            self.store(c, "b", *at, &format!("v{}", place.access), *kind);
        }
        c.close("}");
        c.blank();
        let needs_rd = leaves
            .iter()
            .any(|(_, _, k)| matches!(k, LeafKind::Prim(Primitive::Bool) | LeafKind::Struct(_)));
        let rd = if needs_rd { "rd" } else { "/*rd*/" };
        c.open(&format!(
            "inline bool {name}::read_block(wirelens::Reader& {rd}, const uint8_t* {b}, {name}& {v}) {{"
        ));
        for (at, place, kind) in &leaves {
            // Inside a parent's block the error path is the parent's field: name only this level.
            let names: Vec<String> = place.names.iter().take(1).cloned().collect();
            self.load(c, "b", *at, &format!("v{}", place.access), *kind, &names);
        }
        c.line("return true;");
        c.close("}");
        c.blank();
    }

    /// Loads leaves of block `b` into `v` (of template type `V`, owned or view): a run of
    /// two or more ([`runs`]) has its bools checked first, in wire order, then one copy when
    /// `offsetof` confirms `V` holds it as the wire does (as [`Gen::store_run`]).
    fn load_run(&self, c: &mut Code, b: &str, id: TypeId, run: &[Leaf], rn: &mut usize) {
        let each = |c: &mut Code, checked: bool| {
            for leaf in run {
                let place = self.place(id, &leaf.path);
                let place_v = format!("v{}", place.access);
                if checked && leaf.kind == LeafKind::Prim(Primitive::Bool) {
                    c.linef(format_args!("wirelens::load_le({}, {place_v});", at_in(b, leaf.at)));
                } else {
                    self.load(c, b, leaf.at, &place_v, leaf.kind, &place.names);
                }
            }
        };
        let (Some(first), Some(last), true) = (run.first(), run.last(), run.len() > 1) else {
            return each(c, false);
        };
        for l in run.iter().filter(|l| l.kind == LeafKind::Prim(Primitive::Bool)) {
            let place = self.place(id, &l.path);
            c.linef(format_args!(
                "if (!rd.block_bool_ok({})) {}",
                at_in(b, l.at),
                Self::err(&place.names, "")
            ));
        }
        let r = self.run_start(c, "Wl_V", id, run, rn);
        c.open(&format!("if constexpr ({r} != wirelens::no_run) {{"));
        c.linef(format_args!(
            "wirelens::load_run({}, v, {r}, {});",
            at_in(b, first.at),
            last.at + last.size - first.at
        ));
        c.close("} else {");
        c.depth += 1;
        each(c, true);
        c.close("}");
    }

    /// Loads a fixed-size leaf at `at` inside block `b`.
    fn load(&self, c: &mut Code, b: &str, at: u64, place: &str, kind: LeafKind, names: &[String]) {
        let off = at_in(b, at);
        let err = Self::err(names, "");
        match kind {
            LeafKind::Prim(Primitive::Bool) => c.linef(format_args!("if (!rd.block_bool({off}, {place})) {err}")),
            LeafKind::Prim(_) => c.linef(format_args!("wirelens::load_le({off}, {place});")),
            LeafKind::Struct(id) => c.linef(format_args!(
                "if (!{}::read_block(rd, {off}, {place})) {err}",
                self.name(id)
            )),
        }
    }

    // ------------------------------------------------------------------ decode

    /// `return rd<chain>.in_field("x").field("holder");` — the error path of an item:
    /// `chain` holds its array indices (innermost first), `names` the JSON names from the
    /// struct down (empty at a root alias: `.fail()`).
    fn err(names: &[String], chain: &str) -> String {
        let Some((outer, inner)) = names.split_first() else {
            return format!("return rd{chain}.fail();");
        };
        let mut s = format!("return rd{chain}");
        for n in inner.iter().rev() {
            let _ = write!(s, ".in_field({})", lit(n));
        }
        let _ = write!(s, ".field({});", lit(outer));
        s
    }

    /// `T::read_from`, or with `generic` the template `T::read_fields<V>` that reads a T
    /// and a TView alike.
    fn read_from(&self, c: &mut Code, name: &str, p: &TypePlan, generic: bool) {
        if generic {
            c.line("template <class Wl_V>");
            let hot = self.read_hot(p.id);
            c.open(&format!(
                "{hot}bool {name}::read_fields(wirelens::Reader& rd, Wl_V& v) {{"
            ));
        } else {
            c.open(&format!(
                "inline bool {name}::read_from(wirelens::Reader& rd, {name}& v) {{"
            ));
        }
        if let (Some(size), false) = (Self::one_block(p), generic) {
            let first = p.steps.iter().find_map(|s| match s {
                Step::Block { block, .. } => block.leaves.first().map(|l| self.place(p.id, &l.path).names),
                Step::Value { .. } => None,
            });
            c.linef(format_args!("const uint8_t* b = rd.fixed({size});"));
            c.linef(format_args!(
                "if (b == nullptr) {}",
                Self::err(first.as_deref().unwrap_or(&[]), "")
            ));
            c.line("return read_block(rd, b, v);");
            c.close("}");
            c.blank();
            return;
        }
        let mut k = 0;
        let mut bn = 0;
        let mut rn = 0;
        for step in &p.steps {
            match step {
                Step::Block { block, .. } => {
                    if block.leaves.is_empty() {
                        continue;
                    }
                    let bv = format!("b{bn}");
                    bn += 1;
                    c.linef(format_args!("const uint8_t* {bv} = rd.fixed({});", block.size));
                    let first = block.leaves.first().map(|l| self.place(p.id, &l.path).names);
                    c.linef(format_args!(
                        "if ({bv} == nullptr) {}",
                        Self::err(first.as_deref().unwrap_or(&[]), "")
                    ));
                    for r in self.runs(p.id, &block.leaves, generic) {
                        self.load_run(c, &bv, p.id, &block.leaves[r], &mut rn);
                    }
                }
                Step::Value { path, value } => {
                    let place = self.place(p.id, path);
                    self.read_value(
                        c,
                        &format!("v{}", place.access),
                        value,
                        &place.names,
                        "",
                        &mut k,
                        generic,
                    );
                }
            }
        }
        c.line("return true;");
        c.close("}");
        c.blank();
    }

    #[allow(clippy::too_many_arguments)]
    fn read_value(
        &self,
        c: &mut Code,
        place: &str,
        value: &Value,
        names: &[String],
        chain: &str,
        k: &mut usize,
        generic: bool,
    ) {
        let err = Self::err(names, chain);
        match value {
            Value::Str(pre) => c.linef(format_args!("if (!rd.str{}({place})) {err}", pre.bits())),
            Value::Prim(_) => c.linef(format_args!("if (!rd.prim({place})) {err}")),
            Value::BulkPrims(pre, _) => c.linef(format_args!("if (!rd.prims{}({place})) {err}", pre.bits())),
            Value::Array { prefix, elem, elem_min } => {
                let j = *k;
                *k += 1;
                c.linef(format_args!("size_t n{j} = 0;"));
                c.linef(format_args!("if (!rd.count{}({elem_min}, n{j})) {err}", prefix.bits()));
                // Element memory is charged against the caller's budget (Reader::set_budget).
                // wirelens::Fill picks how the elements are constructed (runtime/cpp).
                let compact = self.strings == OwnedStrings::Compact;
                c.linef(format_args!(
                    "wirelens::Fill<decltype({place}), {compact}> f{j}({place});"
                ));
                c.linef(format_args!("if (!rd.elements(f{j}, n{j})) {err}"));
                c.open(&format!("for (size_t i{j} = 0; i{j} < n{j}; ++i{j}) {{"));
                c.linef(format_args!("auto& x{j} = f{j}.at(i{j});"));
                let inner = format!(".index(i{j}){chain}");
                self.read_value(c, &format!("x{j}"), elem, names, &inner, k, generic);
                c.linef(format_args!("f{j}.done();"));
                c.close("}");
            }
            Value::Optional(inner) => {
                let j = *k;
                *k += 1;
                c.linef(format_args!("bool p{j} = false;"));
                c.linef(format_args!("if (!rd.presence(p{j})) {err}"));
                c.open(&format!("if (p{j}) {{"));
                // A present optional is read into the value it holds (its storage reused).
                c.linef(format_args!("auto& x{j} = {place} ? *{place} : {place}.emplace();"));
                self.read_value(c, &format!("x{j}"), inner, names, chain, k, generic);
                // A value reused for decoding must not keep an optional the wire says is absent.
                c.close("} else {");
                c.depth += 1;
                c.linef(format_args!("{place}.reset();"));
                c.close("}");
            }
            Value::Struct { id, .. } => {
                // In the shared body the nested type is the value's or the view's.
                let ty = if generic {
                    format!("std::decay_t<decltype({place})>")
                } else {
                    self.name(*id).to_string()
                };
                c.linef(format_args!("if (!{ty}::read_from(rd, {place})) {err}"));
            }
        }
    }

    fn to_owned(&self, c: &mut Code, name: &str, view: &str, members: &[Member]) {
        c.open(&format!("inline {name} {view}::to_owned() const {{"));
        c.line("const auto& v = *this;");
        c.linef(format_args!("{name} o;"));
        let mut k = 0;
        for m in members {
            self.conv(
                c,
                &format!("o.{}", m.access),
                &format!("v.{}", m.access),
                &m.wire,
                &mut k,
            );
        }
        c.line("return o;");
        c.close("}");
        c.blank();
    }

    /// Statements converting the view value at `src` into the owned value at `dst`.
    fn conv(&self, c: &mut Code, dst: &str, src: &str, w: &Wire, k: &mut usize) {
        if !borrows(self.layout, w) {
            c.linef(format_args!("{dst} = {src};"));
            return;
        }
        match w {
            Wire::Prim(_) => c.linef(format_args!("{dst} = {}({src});", self.string_ty())),
            Wire::Array(e) => match &**e {
                Wire::Prim(p) if *p != Primitive::Str && self.arena => {
                    c.linef(format_args!("{dst} = {src}.to_vector<{}>();", self.owned_ty(w)))
                }
                Wire::Prim(p) if *p != Primitive::Str => c.linef(format_args!("{dst} = {src}.to_vector();")),
                e => {
                    let j = *k;
                    *k += 1;
                    c.linef(format_args!("{dst}.resize({src}.size());"));
                    c.open(&format!("for (size_t i{j} = 0; i{j} < {src}.size(); ++i{j}) {{"));
                    self.conv(c, &format!("{dst}[i{j}]"), &format!("{src}[i{j}]"), e, k);
                    c.close("}");
                }
            },
            Wire::Optional(e) => {
                let j = *k;
                *k += 1;
                c.open(&format!("if ({src}) {{"));
                c.linef(format_args!("auto& x{j} = {dst}.emplace();"));
                self.conv(c, &format!("x{j}"), &format!("(*{src})"), e, k);
                c.close("}");
            }
            Wire::Struct(_) => c.linef(format_args!("{dst} = {src}.to_owned();")),
        }
    }

    // ------------------------------------------------------------------ SDP dispatcher

    fn messages(&self) -> Vec<(TypeId, String, u16)> {
        self.schema
            .types
            .iter()
            .enumerate()
            .filter_map(|(id, def)| {
                let p = self.plan.get(id)?;
                def.is_struct().then_some(())?;
                Some((id, self.name(id).to_string(), p.message_id?))
            })
            .collect()
    }

    /// `AnyMessage`: a switch over the type id handing the decoded value to a visitor
    /// (linear in the number of structs; the public members come from
    /// `wirelens::Dispatcher`).
    fn dispatcher(&self, c: &mut Code) {
        let msgs = self.messages();
        if msgs.is_empty() {
            return;
        }
        c.blank();
        c.line("/// Decodes a message of any struct of this schema by its SDP type id and calls a visitor with");
        c.line("/// the value: `AnyMessage::decode(data, len, [&](auto& m) { ... })` returns the type id;");
        c.line("/// decode_prefix, decode_view and decode_view_prefix as for every struct (see");
        c.line("/// wirelens::Dispatcher). Encode with the struct's own encode_message.");
        let (base, arena) = if self.arena {
            ("ArenaDispatcher", ", wirelens::Arena* arena")
        } else {
            ("Dispatcher", "")
        };
        c.open(&format!("struct AnyMessage : wirelens::{base}<AnyMessage> {{"));
        c.line("template <bool Wl_View, class Wl_F>");
        c.open(&format!("static wirelens::Result<wirelens::Decoded<uint16_t>> dispatch(const uint8_t* data, size_t len, bool exact, Wl_F& visit, size_t budget{arena}) {{"));
        c.line("wirelens::Reader rd(data, len);");
        c.line("rd.set_budget(budget);");
        if self.arena {
            c.line("rd.set_arena(arena);");
        }
        c.line("wirelens::sdp::Header h;");
        c.open("if (!rd.open_message(0, h)) {");
        c.line("return rd.take_error();");
        c.close("}");
        c.open("switch (h.type_id) {");
        for (_, name, mid) in &msgs {
            c.linef(format_args!(
                "case {mid}: return wirelens::visit_message<wirelens::owned_or_view<Wl_View, {name}>>(rd, h, exact, visit);"
            ));
        }
        c.line("default: return wirelens::Reader::unknown_type_id(h.type_id);");
        c.close("}");
        c.close("}");
        c.close("};");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wirelens_core::{analyze, OrderChoice};

    fn gen(dialect: Dialect, text: &str) -> Result<String, EmitError> {
        let a = analyze(dialect, text, None, OrderChoice::default());
        let files = generate(&a.schema, &a.layout, "test.x")?;
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].name, "test.hpp");
        Ok(files[0].contents.clone())
    }

    #[test]
    fn keywords_and_member_names_are_escaped_never_rejected() {
        assert_eq!(ident("class"), "class_");
        assert_eq!(ident("uint8_t"), "uint8_t_");
        assert_eq!(ident("name"), "name");
        let code = gen(
            Dialect::Ffi,
            "package p\ntype Thing struct {\n\tClass string\n\tDefault int32\n\tEncode bool\n\tNamespace int8\n}\n",
        )
        .expect("generates");
        assert!(code.starts_with(GENERATED_HEADER));
        assert!(code.contains("std::string class_{};"), "{code}");
        assert!(code.contains("int32_t default_{};"), "{code}");
        assert!(code.contains("bool encode_{};"), "{code}");
        assert!(code.contains("int8_t namespace_{};"), "{code}");
        assert!(code.contains("struct ThingMessage {"), "{code}");
        assert!(code.contains("namespace test {"), "{code}");
        assert!(!code.contains("throw"), "{code}");
    }

    #[test]
    fn write_to_is_forced_inline_only_where_it_has_one_writer_and_several_values() {
        let code = gen(
            Dialect::Sdp,
            "struct Once { a: str, b: str }\nstruct Twice { a: str, b: str }\n\
             struct Small { a: str }\n\
             struct Root { once: []Once, t1: Twice, t2: []Twice, small: []Small }\n",
        )
        .expect("generates");
        assert!(code.contains("WIRELENS_HOT bool Once::write_to("), "{code}");
        assert!(code.contains("inline bool Twice::write_to("), "{code}");
        assert!(code.contains("inline bool Small::write_to("), "{code}");
        assert!(code.contains("inline bool Root::write_to("), "{code}");
    }

    #[test]
    fn reads_are_forced_inline_only_for_leaf_structs_read_in_one_loop() {
        // Leaf: only element of one array, no loop over structs inside. Twice: two loops.
        // Field: not an element. Outer: loops over Leaf itself. Opt: element whose optional
        // array of strings is a loop, but not over structs.
        let code = gen(
            Dialect::Sdp,
            "struct Leaf { a: str, b: u32 }\nstruct Twice { a: str }\nstruct Field { a: str }\n\
             struct Opt { a: ?[]str }\nstruct Outer { leaves: []Leaf, a: str }\n\
             struct Root { outers: []Outer, t1: []Twice, t2: []Twice, f: Field, opts: []Opt }\n",
        )
        .expect("generates");
        for hot in ["Leaf", "Opt"] {
            assert!(
                code.contains(&format!("WIRELENS_HOT bool {hot}::read_fields(")),
                "{hot}: {code}"
            );
            assert!(
                code.contains(&format!(
                    "WIRELENS_HOT static bool read_from(wirelens::Reader& rd, {hot}View& v)"
                )),
                "{hot}: {code}"
            );
            // The owned read_from too.
            assert!(
                code.contains(&format!(
                    "    WIRELENS_HOT static bool read_from(wirelens::Reader& rd, {hot}& v) {{"
                )),
                "{hot}: {code}"
            );
        }
        for call in ["Twice", "Field", "Outer", "Root"] {
            assert!(code.contains(&format!("\nbool {call}::read_fields(")), "{call}: {code}");
            assert!(
                !code.contains(&format!(
                    "WIRELENS_HOT static bool read_from(wirelens::Reader& rd, {call}View& v)"
                )),
                "{call}: {code}"
            );
        }
    }

    #[test]
    fn runs_of_members_laid_out_as_on_the_wire_are_one_copy_in_array_elements_both_ways() {
        // R's a..d: one run (a u64, then narrower members at multiples of their size); x is
        // alone (e is wider than x, so the compiler may pad before it); e..f a run; g..i a
        // run with bools. Top has the same fields but is not only an array element.
        let fields = "a: u64, b: u32, c: u16, d: u8, s: str, x: u8, e: u32, f: f32, t: str, g: u8, h: bool, i: bool";
        let code = gen(
            Dialect::Sdp,
            &format!("struct R {{ {fields} }}\nstruct Top {{ {fields} }}\nstruct Root {{ rs: []R, top: Top }}\n"),
        )
        .expect("generates");
        let r = &code[code.find("bool R::write_to(").expect("R::write_to")..];
        let r = &r[..r.find("\n}\n").expect("end of R::write_to")];
        assert!(r.contains("wirelens::run_start<R>("), "{r}");
        assert!(r.contains("const size_t a = offsetof(T, a);"), "{r}");
        assert!(
            r.contains("return offsetof(T, b) == a + 8 && offsetof(T, c) == a + 12 && offsetof(T, d) == a + 14 ? a : wirelens::no_run;"),
            "{r}"
        );
        assert!(r.contains("wirelens::store_run(b0, v, r0, 15);"), "{r}");
        assert!(
            r.contains("return offsetof(T, f) == a + 4 ? a : wirelens::no_run;"),
            "{r}"
        );
        assert!(r.contains("wirelens::store_run(b1 + 1, v, r1, 8);"), "{r}");
        assert!(!r.contains("offsetof(T, x)"), "{r}");
        assert!(
            r.contains("return sizeof(bool) == 1 && offsetof(T, h) == a + 1 && offsetof(T, i) == a + 2 ? a : wirelens::no_run;"),
            "{r}"
        );
        assert!(r.contains("wirelens::store_run(b2, v, r2, 3);"), "{r}");
        // The member-by-member stores stay as the fallback (another ABI, a big-endian host).
        assert!(
            r.contains("} else {\n        wirelens::store_le(b0, v.a);\n        wirelens::store_le(b0 + 8, v.b);"),
            "{r}"
        );
        // Reading: the bools are checked first, in wire order, then one copy into V.
        let r = &code[code.find("bool R::read_fields(").expect("R::read_fields")..];
        let r = &r[..r.find("\n}\n").expect("end of R::read_fields")];
        assert!(r.contains("wirelens::run_start<Wl_V>("), "{r}");
        assert!(r.contains("wirelens::load_run(b0, v, r0, 15);"), "{r}");
        let (h, i, copy) = (
            r.find("if (!rd.block_bool_ok(b2 + 1)) return rd.field(\"h\");")
                .expect("h"),
            r.find("if (!rd.block_bool_ok(b2 + 2)) return rd.field(\"i\");")
                .expect("i"),
            r.find("wirelens::load_run(b2, v, r2, 3);").expect("bool run copy"),
        );
        assert!(h < i && i < copy, "{r}");
        let top = &code[code.find("bool Top::write_to(").expect("Top::write_to")..];
        let top = &top[..top.find("\n}\n").expect("end of Top::write_to")];
        assert!(!top.contains("run_start"), "{top}");
        assert!(top.contains("wirelens::store_le(b0 + 12, v.c);"), "{top}");
    }

    #[test]
    fn wire_order_and_blocks_come_from_the_layout() {
        let code = gen(
            Dialect::Ffi,
            "package p\ntype Rec struct {\n\tName string\n\tFlag bool\n\tId int64\n}\n",
        )
        .expect("generates");
        // canonical: Id (8-byte), Flag (1-byte), Name (variable)
        assert!(code.contains("Fixed blocks: 9 B at 0."), "{code}");
        assert!(code.contains("const uint8_t* b0 = rd.fixed(9);"), "{code}");
        let id = code.find("wirelens::load_le(b0, v.id);").expect("id");
        let flag = code.find("rd.block_bool(b0 + 8, v.flag)").expect("flag");
        let name = code.find("rd.str16(v.name)").expect("name");
        assert!(id < flag && flag < name, "{code}");
    }

    #[test]
    fn schemas_with_errors_are_refused() {
        let err = gen(Dialect::Sdp, "struct A { b: Missing }").expect_err("refused");
        assert!(err.0.contains("no layout for A"), "{err}");
    }

    #[test]
    fn sdp_structs_are_messages_with_a_dispatcher() {
        let code = gen(Dialect::Sdp, "struct AnyMessage { x: u8 }\nstruct B { s: str }").expect("generates");
        assert!(code.contains("struct AnyMessage_ {"), "{code}");
        assert!(code.contains("static constexpr uint16_t MESSAGE_ID = 2;"), "{code}");
        assert!(!code.contains("std::variant"), "{code}");
        assert!(
            code.contains(
                "case 2: return wirelens::visit_message<wirelens::owned_or_view<Wl_View, B>>(rd, h, exact, visit);"
            ),
            "{code}"
        );
    }

    #[test]
    fn dependencies_come_first() {
        let code = gen(
            Dialect::Sdp,
            "struct A { b: B }\nstruct B { c: []C }\nstruct C { x: u8 }",
        )
        .expect("generates");
        let a = code.find("\nstruct A {").expect("A");
        let b = code.find("\nstruct B {").expect("B");
        let c = code.find("\nstruct C {").expect("C");
        assert!(c < b && b < a, "{code}");
    }

    #[test]
    fn runtime_is_the_header() {
        let files = runtime_files();
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].name, "wirelens.hpp");
        assert!(files[0].contents.contains("namespace wirelens"));
        // No `throw` statement (traits like `is_nothrow_move_constructible` are fine).
        let throws = files[0]
            .contents
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(|token| token == "throw");
        assert!(!throws);
    }
}
