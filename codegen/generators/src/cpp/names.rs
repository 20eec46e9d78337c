//! The C++ names of one schema's generated code: the namespace, type names (PascalCase,
//! made unique), view type names, member names, escaped so that no keyword, macro of a
//! common header, member of every generated struct or name the generated code uses
//! itself can clash; string literals and comment text.

use std::fmt::Write as _;

use crate::{field_ident, module_name, pascal_case};
use wirelens_core::layout::{Layout, Wire};
use wirelens_core::model::{Primitive, Schema, TypeId};

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
/// in declaration order ([`crate::unique_type_names`]).
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
    crate::unique_type_names(bases, &as_written, |base, k| format!("{base}{}", "_".repeat(k - 1)))
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
    crate::unique_in_order(bases, |base, attempt| format!("{base}{}", "_".repeat(attempt)))
}

pub(super) fn guard(ns: &str) -> String {
    format!("WIRELENS_GENERATED_{}_HPP", ns.to_ascii_uppercase())
}

/// View type names (`None` when the type has no strings or arrays: its view is itself).
pub(super) fn view_names(schema: &Schema, layout: &Layout, names: &[String]) -> Vec<Option<String>> {
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
pub(super) fn lit(s: &str) -> String {
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
pub(super) fn comment_text(s: &str) -> String {
    let mut t: String = s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    while t.ends_with(char::is_whitespace) {
        t.pop();
    }
    if t.ends_with('\\') {
        t.push('.');
    }
    t
}

/// Whether values of this wire contain strings or arrays (so their view borrows).
pub(super) fn borrows(layout: &Layout, w: &Wire) -> bool {
    match w {
        Wire::Prim(p) => *p == Primitive::Str,
        Wire::Array(_) => true,
        Wire::Optional(e) => borrows(layout, e),
        Wire::Struct(id) => layout
            .get(*id)
            .is_some_and(|t| t.fields.iter().any(|f| borrows(layout, &f.wire))),
    }
}
