//! What the editor shows of a layout: hover text, inlay-hint labels, code-lens titles.
//! Pure presentation of `codegen::layout` results; nothing here computes a size.

use std::fmt::Write as _;

use codegen::layout::{size_expr, FieldLayout, Layout, PartialField, TypeLayout};
use codegen::model::{Schema, TypeDef, TypeId};
use codegen::report::human_bytes;
use codegen::Dialect;

/// A symbolic offset for display: `12 + |a| + |b|`, shortened to its first and last
/// terms when long (it names every variable-size field before; printed in full, a struct
/// of 8,000 fields made hints and symbols quadratic).
fn offset_expr(o: &codegen::layout::Offset, sep: &str) -> String {
    const MAX_TERMS: usize = 8;
    let n = o.terms.len();
    if n <= MAX_TERMS {
        return o.expr().replace(" + ", sep);
    }
    format!(
        "{}{sep}|{}|{sep}…{sep}|{}| ({n} variable-size fields)",
        o.constant,
        o.terms[0],
        o.terms[n - 1]
    )
}

/// `size = 8, offset = 0x10 (16)` in rust-analyzer's style, symbolic when it must be.
fn offset_text(f: &codegen::layout::FieldLayout) -> String {
    match f.offset.constant() {
        Some(n) => format!("offset = {n:#x} ({n})"),
        None => format!("offset = {}", offset_expr(&f.offset, " + ")),
    }
}

fn size_text(layout: &Layout, f: &codegen::layout::FieldLayout) -> String {
    match f.size.fixed {
        Some(n) => format!("size = {n:#x} ({n})"),
        None => format!("size = {}", size_expr(layout, &f.wire)),
    }
}

fn totals(t: &TypeLayout) -> String {
    match (t.size.fixed, t.size.max) {
        (Some(n), _) => format!("size = {n} B ({n:#x}), fixed"),
        (None, Some(m)) => format!("size = {} B … {}", t.size.min, human_bytes(m)),
        (None, None) => format!("size ≥ {} B (unbounded)", t.size.min),
    }
}

/// Hover on a struct (or ffire alias) name: totals, the field table in wire order, fixed
/// blocks and a byte diagram of the fixed prefix.
pub fn type_hover(schema: &Schema, layout: &Layout, id: TypeId) -> Option<String> {
    let def = schema.types.get(id)?;
    let d = schema.dialect;
    let kind = if def.is_struct() { "struct" } else { "type" };
    let Some(t) = layout.get(id) else {
        return Some(format!(
            "```{}\n{kind} {}\n```\n\n*No wire layout: the type uses an unknown type, a cycle or an unsupported construct (see the diagnostics).*\n",
            d.name(),
            def.name
        ));
    };
    let mut s = String::new();
    let _ = write!(s, "```{}\n{kind} {}\n```\n\n{}", d.name(), def.name, totals(t));
    if let Some(mid) = t.message_id {
        let _ = write!(s, " · message id {mid}");
    }
    if d == Dialect::Ffi {
        s.push_str(if t.root {
            " · root (message type)"
        } else {
            " · helper type"
        });
    }
    s.push_str("\n\n");
    if !def.docs.is_empty() {
        let _ = writeln!(s, "{}\n", def.docs.join("\n"));
    }
    if !def.is_struct() {
        let _ = writeln!(s, "wire: `{}`", size_expr(layout, &t.wire));
        return Some(s);
    }
    let reordered = t.is_reordered();
    s.push_str(if reordered {
        "| wire | written | field | type | offset | size |\n|---:|---:|---|---|---|---|\n"
    } else {
        "| # | field | type | offset | size |\n|---:|---|---|---|---|\n"
    });
    for f in &t.fields {
        let decl = &def.fields()[f.decl_index];
        let written = if reordered {
            format!(" {} |", f.decl_index)
        } else {
            String::new()
        };
        // GitHub-flavoured tables split cells at `|`, even inside code spans.
        let cell = |t: String| t.replace('|', "\\|");
        let offset = f.offset.constant().map_or_else(
            || format!("`{}`", offset_expr(&f.offset, " + ")),
            |n| format!("{n} ({n:#x})"),
        );
        let _ = writeln!(
            s,
            "| {} |{written} `{}` | `{}` | {} | {} |",
            f.wire_index,
            decl.name,
            decl.ty.display(d),
            cell(offset),
            cell(size_expr(layout, &f.wire))
        );
    }
    if reordered {
        s.push_str("\n*Wire order differs from the order written (ffire canonical order: 8-byte, 4, 2, 1, variable, optional; then by name).*\n");
    }
    if !t.blocks.is_empty() {
        s.push_str("\nFixed blocks (one copy each in generated code):\n");
        for b in &t.blocks {
            let names: Vec<String> = b.leaves.iter().map(|l| l.name(layout, schema, id)).collect();
            let _ = writeln!(
                s,
                "- `@{}` · {} B: {}",
                offset_expr(&b.offset, " + "),
                b.size,
                names.join(", ")
            );
        }
    }
    if let Some(diagram) = prefix_diagram(schema, layout, def, t) {
        let _ = write!(s, "\nFixed prefix, byte by byte:\n```text\n{diagram}```\n");
    }
    Some(s)
}

/// The bytes at constant offsets from the start, 16 per row, each labelled with the
/// letter of its field.
fn prefix_diagram(schema: &Schema, layout: &Layout, def: &TypeDef, t: &TypeLayout) -> Option<String> {
    const MAX_BYTES: u64 = 128;
    let first = t.blocks.first().filter(|b| b.offset.constant() == Some(0))?;
    let len = first.size.min(MAX_BYTES);
    let mut cells: Vec<char> = Vec::with_capacity(len as usize);
    let mut legend = Vec::new();
    for (i, leaf) in first.leaves.iter().enumerate() {
        let letter = char::from_digit((i % 26 + 10) as u32, 36).unwrap_or('?');
        legend.push(format!("{letter} = {}", leaf.name(layout, schema, t.id)));
        for _ in 0..leaf.size {
            if (cells.len() as u64) < len {
                cells.push(letter);
            }
        }
    }
    let _ = def;
    let mut out = String::from("     ");
    for c in 0..16.min(len) {
        let _ = write!(out, " {c:x}");
    }
    out.push('\n');
    for (row, chunk) in cells.chunks(16).enumerate() {
        let _ = write!(out, "{:#04x} ", row * 16);
        for c in chunk {
            let _ = write!(out, " {c}");
        }
        out.push('\n');
    }
    if first.size > MAX_BYTES {
        let _ = writeln!(out, "… {} more fixed bytes", first.size - MAX_BYTES);
    }
    let _ = writeln!(out, "{}", legend.join(", "));
    Some(out)
}

/// Hover on a field: its offset/size line, then the layout of its type.
pub fn field_hover(schema: &Schema, layout: &Layout, id: TypeId, decl_index: usize) -> Option<String> {
    let def = schema.types.get(id)?;
    let t = layout.get(id)?;
    let f = t.field_by_decl(decl_index)?;
    let decl = def.fields().get(decl_index)?;
    let d = schema.dialect;
    let mut s = format!(
        "```{}\n{}: {}\n```\n\n{}, {}",
        d.name(),
        decl.name,
        decl.ty.display(d),
        size_text(layout, f),
        offset_text(f)
    );
    if f.wire_index != f.decl_index {
        let _ = write!(s, " · wire position {} (written {})", f.wire_index, f.decl_index);
    }
    if d == Dialect::Ffi && decl.json_name != decl.name {
        let _ = write!(s, " · JSON `{}`", decl.json_name);
    }
    s.push('\n');
    if !decl.docs.is_empty() {
        let _ = write!(s, "\n{}\n", decl.docs.join("\n"));
    }
    if let codegen::layout::Wire::Struct(inner) = &f.wire {
        if let Some(inner_hover) = type_hover(schema, layout, *inner) {
            let _ = write!(s, "\n---\n\n{inner_hover}");
        }
    }
    Some(s)
}

/// The inlay hint after a field: `@12 · 4 B`, `@16+|name| · 4+len B`, plus `wire #3`
/// when ffire's canonical order moved it.
pub fn field_hint(layout: &Layout, f: &FieldLayout) -> String {
    let offset = offset_expr(&f.offset, "+");
    let size = match f.size.fixed {
        Some(n) => format!("{n} B"),
        None => format!("{} B", size_expr(layout, &f.wire).replace(" + ", "+")),
    };
    let mut s = format!("@{offset} · {size}");
    if f.wire_index != f.decl_index {
        let _ = write!(s, " · wire #{}", f.wire_index);
    }
    s
}

/// The inlay hint after a field of a struct that has no layout (it uses an unknown or
/// broken type): what is still known, `?` for what depends on the broken part.
pub fn partial_hint(layout: &Layout, f: &PartialField) -> String {
    let offset = f
        .offset
        .as_ref()
        .map_or_else(|| "?".to_string(), |o| offset_expr(o, "+"));
    let size = match (&f.wire, f.size.and_then(|s| s.fixed)) {
        (_, Some(n)) => format!("{n} B"),
        (Some(w), None) => format!("{} B", size_expr(layout, w).replace(" + ", "+")),
        (None, None) => "? B".to_string(),
    };
    format!("@{offset} · {size}")
}

/// The code lens above a struct that has no layout: which field it stops at, and the
/// fixed prefix still known before it.
pub fn partial_lens_title(schema: &Schema, layout: &Layout, id: TypeId) -> Option<String> {
    let fields = layout.partial(schema, id)?;
    let def = schema.types.get(id)?;
    let Some(broken) = fields.iter().find(|f| f.size.is_none()) else {
        return Some("layout unknown (see the diagnostics)".into());
    };
    let name = &def.fields().get(broken.decl_index)?.name;
    let mut s = format!("layout unknown from `{name}` (its type has no layout)");
    if let Some(n) = broken.offset.as_ref().and_then(|o| o.constant()).filter(|n| *n > 0) {
        let _ = write!(s, " · first {n} B fixed");
    }
    Some(s)
}

/// The code lens above a struct: its totals, then its id (SDP) or role (ffire).
pub fn lens_title(schema: &Schema, layout: &Layout, id: TypeId) -> Option<String> {
    let t = layout.get(id)?;
    let def = schema.types.get(id)?;
    let fixed: u64 = t.fields.iter().filter_map(|f| f.size.fixed).sum();
    let strings = t
        .fields
        .iter()
        .filter(|f| f.wire == codegen::layout::Wire::Prim(codegen::model::Primitive::Str))
        .count();
    let arrays = t
        .fields
        .iter()
        .filter(|f| matches!(f.wire, codegen::layout::Wire::Array(_)))
        .count();
    let optionals = t
        .fields
        .iter()
        .filter(|f| matches!(f.wire, codegen::layout::Wire::Optional(_)))
        .count();
    let mut s = if def.is_struct() {
        match t.size.fixed {
            Some(n) => format!("fixed {n} B"),
            None => format!(
                "fixed {fixed} B + {strings} str + {arrays} arrays + {optionals} optional · min {} B",
                t.size.min
            ),
        }
    } else {
        format!("{} · min {} B", size_expr(layout, &t.wire), t.size.min)
    };
    if let Some(mid) = t.message_id {
        let _ = write!(s, " · id {mid}");
    }
    if schema.dialect == Dialect::Ffi {
        s.push_str(if t.root { " · root" } else { " · helper" });
        if t.is_reordered() {
            s.push_str(" · reordered on the wire");
        }
    }
    Some(s)
}
