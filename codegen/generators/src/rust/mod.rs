//! The Rust emitter: one module per schema (Rust 2021), depending only on the
//! `wirelens-runtime` crate (`runtime/rust`).
//!
//! Per value type `T` (every struct; for ffire also array and named-primitive roots,
//! which become tuple structs) the module has only what must be per type: `T` and, when
//! `T` contains strings or arrays, its zero-copy view `TView<'a>` (`types`);
//! `impl rt::Message for T` (`encoded_size`: `size`, `write_to`: `write`),
//! `impl rt::Decode` for `T` and `TView` (`read_from`: `read`); SDP: `impl rt::SdpMessage`
//! and one `AnyMessage` enum with `impl rt::Dispatch` (`api`). Everything else is the
//! traits' default methods in `wirelens-runtime`, written once (as `prost::Message` does
//! it).
//!
//! Fields are read and written in the order [`wirelens_core::layout`] gives; consecutive
//! fixed-size fields (nested fixed structs included) are one fixed block: one bounds
//! check and one copy (`blocks`).
//!
//! Modules, each using only those above it: `names` (type and field names, escaping) and
//! `options` ([`RustOptions`]) ← `plan` (the generator, plan paths as places, locals and
//! error paths) ← `blocks` (fixed blocks), `types` (declarations) ← `size`, `write`,
//! `read` (the codec) ← `api` (the header, the trait impls, the dispatcher) ← this module
//! (the entry points).

mod api;
mod blocks;
mod names;
mod options;
mod plan;
mod read;
mod size;
mod types;
mod write;

#[cfg(test)]
mod tests;

use crate::{Code, EmitError, OUTPUT_BYTES_PER_TYPE};
use names::{acronym_allow, DEAD_CODE};
use plan::{struct_borrows, Gen};
use wirelens_core::dialect::Dialect;
use wirelens_core::layout::Layout;
use wirelens_core::model::{Schema, TypeKind};
use wirelens_core::plan::Plan;

pub use names::{field_names, ident, prim_type, type_name, type_names};
pub use options::RustOptions;

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
pub use crate::Memory;

/// The owned type of string fields ([`RustOptions::strings`]; `wirelens.toml`:
/// `[generate.rust] strings = "std" | "compact"`; `build.rs`: `Builder::rust_strings`).
/// - `Std` (the default): `String`, one heap allocation per decoded string.
/// - `Compact`: `compact_str::CompactString` (re-exported as
///   `wirelens_runtime::CompactString`; needs the runtime's `compact-strings` feature): the
///   same 24 bytes as a `String`, strings of up to 24 bytes stored inline, so decoding
///   allocates only for longer ones. Derefs to `str` like `String`; build one with `.into()`
///   or `CompactString::from`. Measured in docs/benchmarks/history.md ("#14 Rust").
pub use crate::OwnedStrings;

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
    let mut c = Code::with_capacity(OUTPUT_BYTES_PER_TYPE * schema.types.len());
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
