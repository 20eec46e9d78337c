//! The C++ (C++17) emitter: one header-only file `<module>.hpp` per schema, everything in
//! `namespace <module>`, depending only on `wirelens.hpp` (`runtime/cpp`, written next to
//! it by `wirelens gen`). No exceptions anywhere (works with `-fno-exceptions`): encoders
//! return `wirelens::Status` / `wirelens::Result<size_t>`, decoders `wirelens::Result<T>`.
//!
//! Per value type `T` (every struct; for ffire also array and named-primitive roots, which
//! become structs with one member `value`) the header has `T` and, when `T` contains
//! strings or arrays, its zero-copy view `TView` (`types`); the functions generated per
//! type — `measure` (`size`), `write_to` (`write`), `read_from` (`read`), `operator==` —
//! and the API every type gets from the runtime's macros (`encoded_size`, `encode`,
//! `decode`, `decode_view`, …); for SDP, `AnyMessage` (`api`).
//!
//! Everything about the wire is rendered from [`wirelens_core::plan`] (read off the layout once):
//! each step of a type's plan in order; each fixed block is one bounds check and
//! little-endian loads/stores (`std::memcpy`) at its leaves' offsets (`blocks`); `measure` prints the
//! plan's exact-size formula; count plausibility uses the plan's element minimum; bulk
//! primitive arrays are copied in bulk on little-endian hosts. The declaration order of
//! the structs is [`wirelens_core::graph`]'s dependency order. Nothing here computes a size, an
//! order or an inlining decision (`codegen/generators/tests/plan_sizes.rs` checks the sizes).
//!
//! Modules, each using only those above it: `names` (namespace, type, view and member
//! names, escaping) ← `plan` (the generator, plan paths as C++ places) ← `blocks` (fixed
//! blocks, runs), `types` (declarations) ← `size`, `write`, `read` (the codec functions)
//! ← `api` (the header's frame, definitions, dispatcher) ← this module (the entry points
//! and options).

mod api;
mod blocks;
mod names;
mod plan;
mod read;
mod size;
mod types;
mod write;

#[cfg(test)]
mod tests;

use crate::{module_name, Code, EmitError, OutputFile, OUTPUT_BYTES_PER_TYPE};
use names::{guard, view_names};
use plan::Gen;
use wirelens_core::graph::Graph;
use wirelens_core::layout::Layout;
use wirelens_core::model::Schema;
use wirelens_core::plan::Plan;

pub(crate) use names::RESERVED;
pub use names::{field_names, ident, namespace, prim_type, type_name, type_names, RUNTIME_HEADER};

/// The C++ runtime header (`runtime/cpp/wirelens.hpp`).
pub const RUNTIME_SOURCE: &str = include_str!("../../runtime/cpp/wirelens.hpp");

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
pub use crate::OwnedStrings;

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
pub use crate::Memory;

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
    let mut c = Code::with_capacity(OUTPUT_BYTES_PER_TYPE * schema.types.len());
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
