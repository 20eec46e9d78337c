//! The C (C11) emitter: per schema one `<module>.h` and `<module>.c`, depending only on
//! `wirelens.h` (`runtime/c`, copied next to them by `wirelens gen`).
//!
//! Every symbol starts with the module prefix (`plugin_registry_`), so several schemas
//! link into one program. Per value type `T` (every struct; for ffire also array and
//! named-primitive roots, which are typedefs) the header declares `T` and its zero-copy
//! view `T_view` (`types`) and the public functions (`api`): `T_size`, `T_encode`,
//! `T_decode`, their view and (SDP) message forms, and the dispatcher `Message`. They are
//! one-line macros over the runtime's generic functions; only `T_measure` (`size`),
//! `T_write` (`write`) and `T_read` (`read`) are compiled per type, behind the tables
//! `T_type` / `T_view_type` (when the view variants differ only in names, their text is
//! written once: `share`).
//!
//! Everything about the wire comes from the encoding plan ([`wirelens_core::plan`]): the steps in
//! wire order (fixed blocks, each read with one bounds check and written with
//! constant-offset stores; inlined nested structs; variable-size values), the exact-size
//! formula the measure functions print, and the type order (each type after the types
//! its plan refers to). These modules only render them (`plan` resolves its paths to C
//! names), with two C-specific choices for structs coded as array elements: fields that
//! the C struct lays out as the wire does are copied as one run (`blocks`), and a struct
//! that is the element of a single array has its functions inlined into that array's
//! loop (`plan`).
//!
//! Modules, each using only those above it: `names` (identifiers, [`Names`]) ← `plan`
//! (the generator, plan paths as C names) ← `blocks` (fixed blocks), `types`
//! (declarations), `share` (one text for owned and view) ← `size`, `write`, `read` (the
//! codec functions) ← `api` (header, source, tables, dispatcher) ← this module (the entry
//! points).

mod api;
mod blocks;
mod names;
mod plan;
mod read;
mod share;
mod size;
mod types;
mod write;

#[cfg(test)]
mod tests;

use std::collections::HashMap;

use crate::{module_name, EmitError, OutputFile};
use plan::{inlined_elements, Gen};
use wirelens_core::layout::Layout;
use wirelens_core::model::Schema;
use wirelens_core::plan::Plan;

pub use names::{c_string, ident, prim_c, prim_short, Names};

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
        contents: include_str!("../../runtime/c/wirelens.h").into(),
    }]
}
