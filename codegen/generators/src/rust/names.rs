//! The Rust names of one schema's generated code: type names (PascalCase, made unique),
//! field identifiers (keywords escaped as raw identifiers), the decoder's locals, and
//! the lint attributes the generated items carry because the schema chose their names
//! (`upper_case_acronyms`) or because a crate may use only part of a schema
//! (`dead_code`).

use crate::{field_ident, pascal_case, Code};
use wirelens_core::layout::Layout;
use wirelens_core::model::{Primitive, Schema, TypeId};

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
/// ([`crate::unique_type_names`]).
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
    crate::unique_type_names(bases, &as_written, |base, k| format!("{base}{k}"))
}

/// The Rust name of one schema type (see [`type_names`]).
pub fn type_name(schema: &Schema, layout: &Layout, id: TypeId) -> String {
    type_names(schema, layout)
        .get(id)
        .cloned()
        .unwrap_or_else(|| "Unknown".into())
}

/// Whether clippy's `upper_case_acronyms` lints a type or variant named `name`: upper
/// case only (`POINT`, `ID3`), more than one letter.
pub(super) fn is_acronym(name: &str) -> bool {
    name.chars().filter(|c| c.is_alphabetic()).count() > 1 && !name.chars().any(char::is_lowercase)
}

/// `#[allow(clippy::upper_case_acronyms)]` above an item (or the dispatcher enum, whose
/// variants are the type names) named `name` when clippy would lint it: the schema chose
/// the name (`POINT`), and generated code passes clippy `-D warnings`.
pub(super) fn acronym_allow(c: &mut Code, name: &str) {
    if is_acronym(name) {
        c.line("#[allow(clippy::upper_case_acronyms)] // the schema's own name");
    }
}

/// On every generated item: a crate may use only part of a schema (`clippy -D warnings`
/// in a binary crate must still pass). Explained once in the file's header comment.
pub(super) const DEAD_CODE: &str = "#[allow(dead_code)]";

/// The Rust names of struct `id`'s fields: identifiers, duplicates numbered (not yet
/// escaped with [`ident`]). Public for the conformance engine, which fills the same
/// structs.
pub fn field_names(schema: &Schema, id: TypeId) -> Vec<String> {
    crate::unique_in_order(
        schema.types[id].fields().iter().map(|f| field_ident(&f.name)),
        |base, attempt| format!("{base}_{}", attempt + 1),
    )
}

/// The Rust type of a primitive (owned strings: `String`); the conformance engine uses
/// it too.
pub fn prim_type(p: Primitive) -> &'static str {
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

/// Whether a decoder may hold field `name` (a [`field_names`] entry) in a local of the
/// same name: lowercase (never a pattern such as `None`) and not one of the decoder's
/// own locals (`rd`, `b0`, `base0`, `n0`, `i0`, `x0`, `i_0_1`) or of the `f_`-prefixed
/// ones the other fields get.
pub(super) fn local_is_field_name(name: &str) -> bool {
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
