//! What the editor shows of a layout: hover text, inlay-hint labels, code-lens titles.
//! Pure presentation of `wirelens_core::layout` results; nothing here computes a size.

use std::fmt::Write as _;

use wirelens_core::layout::{FieldLayout, Layout, PartialField, TypeLayout, Wire};
use wirelens_core::model::Primitive;
use wirelens_core::model::{Schema, TypeId};
use wirelens_core::report::human_bytes;
use wirelens_core::Dialect;

use super::diagram::{self, offset_expr};

/// How numbers with two spellings read (the `wirelens.numberFormat` setting, as
/// rust-analyzer's hover): `8 (0x8)` decimal first, the default, or `0x8 (8)`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum NumberFormat {
    #[default]
    Decimal,
    Hex,
}

impl NumberFormat {
    pub fn parse(s: &str) -> Option<NumberFormat> {
        match s.trim().to_ascii_lowercase().as_str() {
            "decimal" | "dec" => Some(NumberFormat::Decimal),
            "hex" | "hexadecimal" => Some(NumberFormat::Hex),
            _ => None,
        }
    }

    /// `8 (0x8)` or `0x8 (8)`.
    pub fn both(self, n: u64) -> String {
        self.both_with(n, "")
    }

    /// `8 B (0x8)` or `0x8 B (8)`: the unit after the first spelling.
    pub fn both_with(self, n: u64, unit: &str) -> String {
        match self {
            NumberFormat::Decimal => format!("{n}{unit} ({n:#x})"),
            NumberFormat::Hex => format!("{n:#x}{unit} ({n})"),
        }
    }
}

/// `size = 8 (0x8), offset = 16 (0x10)`, symbolic when it must be.
fn offset_text(f: &wirelens_core::layout::FieldLayout, nf: NumberFormat) -> String {
    match f.offset.constant() {
        Some(n) => format!("offset = {}", nf.both(n)),
        None => format!("offset = {}", offset_expr(&f.offset, " + ")),
    }
}

fn size_text(layout: &Layout, f: &wirelens_core::layout::FieldLayout, nf: NumberFormat) -> String {
    match f.size.fixed {
        Some(n) => format!("size = {}", nf.both(n)),
        None => format!("size = {}", size_short(layout, &f.wire)),
    }
}

fn totals(t: &TypeLayout, nf: NumberFormat) -> String {
    match (t.size.fixed, t.size.max) {
        (Some(n), _) => format!("size = {}, fixed", nf.both_with(n, " B")),
        (None, Some(m)) => format!("size = {} B … {}", t.size.min, human_bytes(m)),
        (None, None) => format!("size ≥ {} B (unbounded)", t.size.min),
    }
}

/// Hover on a struct (or ffire alias) name: totals, the field table in wire order, fixed
/// blocks and a byte diagram of the fixed prefix.
pub fn type_hover(schema: &Schema, layout: &Layout, id: TypeId, nf: NumberFormat) -> Option<String> {
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
    let _ = write!(s, "```{}\n{kind} {}\n```\n\n{}", d.name(), def.name, totals(t, nf));
    if let Some(mid) = t.message_id {
        let _ = write!(
            s,
            " · message type id {mid} (positional: the struct's place in the file)"
        );
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
        let _ = writeln!(s, "wire size: `{}`", size_short(layout, &t.wire));
        return Some(s);
    }
    if let Some(d) = diagram::build(schema, layout, id) {
        let _ = write!(s, "```text\n{}```\n\n", diagram::to_text(&d, None));
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
        let offset = f
            .offset
            .constant()
            .map_or_else(|| format!("`{}`", offset_expr(&f.offset, " + ")), |n| nf.both(n));
        let _ = writeln!(
            s,
            "| {} |{written} `{}` | `{}` | {} | {} |",
            f.wire_index,
            decl.name,
            decl.ty.display(d),
            cell(offset),
            cell(size_short(layout, &f.wire))
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
    Some(s)
}

/// Hover on a field: its offset/size line, then the layout of its type.
pub fn field_hover(
    schema: &Schema,
    layout: &Layout,
    id: TypeId,
    decl_index: usize,
    nf: NumberFormat,
) -> Option<String> {
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
        size_text(layout, f, nf),
        offset_text(f, nf)
    );
    if f.wire_index != f.decl_index {
        let _ = write!(s, " · wire #{} (written #{})", f.wire_index, f.decl_index);
    }
    if d == Dialect::Ffi && decl.json_name != decl.name {
        let _ = write!(s, " · JSON `{}`", decl.json_name);
    }
    s.push('\n');
    if !decl.docs.is_empty() {
        let _ = write!(s, "\n{}\n", decl.docs.join("\n"));
    }
    if let Some(d) = diagram::build(schema, layout, id) {
        let _ = write!(
            s,
            "\nIn `{}`:\n```text\n{}```\n",
            def.name,
            diagram::to_text(&d, Some(decl_index))
        );
    }
    if let wirelens_core::layout::Wire::Struct(inner) = &f.wire {
        if let Some(inner_hover) = type_hover(schema, layout, *inner, nf) {
            let _ = write!(s, "\n---\n\n{inner_hover}");
        }
    }
    Some(s)
}

/// Hover on a primitive type (`u32`, `int64`, `str`): its size, its range and how it is
/// written on the wire (spec §4).
pub fn primitive_hover(dialect: Dialect, p: Primitive, nf: NumberFormat) -> String {
    use Primitive::*;
    let name = p.spelling(dialect).unwrap_or("?");
    let prefix = dialect.length_prefix();
    let prefix_type = if prefix == 2 { "u16" } else { "u32" };
    let max_len: u64 = if prefix == 2 {
        u64::from(u16::MAX)
    } else {
        u64::from(u32::MAX)
    };
    let body = match p {
        Bool => "1 B · `00` = false, `01` = true; any other byte is a decode error".to_string(),
        Str => format!(
            "{prefix}+len B · a {prefix_type} byte length (at most {}), then that many bytes of UTF-8 (validated), no terminator",
            nf.both(max_len)
        ),
        F32 | F64 => {
            let bits = if p == F32 { 32 } else { 64 };
            format!(
                "{} B · IEEE 754 binary{bits}, little-endian (the bits as they are: −0.0 and NaN payloads kept)",
                p.fixed_size().unwrap_or(0)
            )
        }
        U8 | U16 | U32 | U64 => {
            let size = p.fixed_size().unwrap_or(0);
            let max = if size == 8 { u64::MAX } else { (1u64 << (8 * size)) - 1 };
            format!(
                "{size} B · unsigned, little-endian · range 0 ..= {}",
                nf.both(max)
            )
        }
        I8 | I16 | I32 | I64 => {
            let size = p.fixed_size().unwrap_or(0);
            let bits = 8 * size;
            let max = (1u64 << (bits - 1)) - 1;
            format!(
                "{size} B · two's complement, little-endian · range −{} ..= {}",
                max + 1,
                nf.both(max)
            )
        }
    };
    format!("```{}\n{name}\n```\n\n{body}\n", dialect.name())
}

/// A size in the editor's one notation: `+` for plus, ` or ` for alternatives, `n×` for
/// a count times an element, `len` for a string's byte length, `≥` for a minimum (no
/// `|`, which offsets use for "the length of"). Read off the layout; nothing computed.
pub fn size_short(layout: &Layout, wire: &Wire) -> String {
    wirelens_core::layout::size_short(layout, wire)
}

/// A hint's short offset: `@12`, or relative to the end of the nearest variable-size
/// field before it, `@after name` / `@after name+4` (the full expression goes to the
/// tooltip).
fn offset_short(o: &wirelens_core::layout::Offset, previous_end: Option<u64>) -> String {
    const MAX_NAME: usize = 18;
    let Some(last) = o.terms().last() else {
        return format!("@{}", o.constant);
    };
    let name: String = if last.chars().count() > MAX_NAME {
        last.chars().take(MAX_NAME - 1).chain(['…']).collect()
    } else {
        last.to_string()
    };
    match previous_end.map(|end| o.constant.saturating_sub(end)) {
        Some(0) | None => format!("@after {name}"),
        Some(k) => format!("@after {name}+{k}"),
    }
}

/// An inlay hint: a short label (at most ~40 characters) and a tooltip with the full
/// offset expression and size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hint {
    pub label: String,
    pub tooltip: String,
}

fn tooltip(offset: Option<&wirelens_core::layout::Offset>, size: Option<String>, why_unknown: bool) -> String {
    let mut t = match offset {
        Some(o) => format!("offset {} B", offset_expr(o, " + ")),
        None => "offset unknown".to_string(),
    };
    let _ = write!(t, "\nsize {}", size.as_deref().unwrap_or("unknown"));
    if offset.is_some_and(|o| o.constant().is_none()) {
        t.push_str("\n|x| is the length of field x beyond its minimum size");
    }
    if why_unknown {
        t.push_str("\nunknown: depends on a type that has no layout (see the diagnostics)");
    }
    t
}

/// Per field in wire order, the end of the last variable-size field before it, as a
/// constant: what its short offset counts from. One pass per type.
pub fn variable_ends(t: &TypeLayout) -> Vec<Option<u64>> {
    let mut end = None;
    t.fields
        .iter()
        .map(|f| {
            let before = end;
            if f.size.fixed.is_none() {
                end = Some(f.offset.constant.saturating_add(f.size.min));
            }
            before
        })
        .collect()
}

/// The inlay hint after a field: `@12 · 4 B`, `@after name+4 · 4 B`, plus `wire #3`
/// when ffire's canonical order moved it. `ends` is [`variable_ends`] of its type.
pub fn field_hint(layout: &Layout, ends: &[Option<u64>], f: &FieldLayout) -> Hint {
    let size = size_short(layout, &f.wire);
    let previous_end = ends.get(f.wire_index).copied().flatten();
    let mut label = format!("{} · {size}", offset_short(&f.offset, previous_end));
    if f.wire_index != f.decl_index {
        let _ = write!(label, " · wire #{}", f.wire_index);
    }
    Hint {
        label,
        tooltip: tooltip(Some(&f.offset), Some(size), false),
    }
}

/// The inlay hint after a field of a struct that has no layout (it uses an unknown or
/// broken type): what is still known, `?` for what depends on the broken part.
/// `previous_end`: the end of the last variable-size field before it, when known.
pub fn partial_hint(layout: &Layout, previous_end: Option<u64>, f: &PartialField) -> Hint {
    let offset = f
        .offset
        .as_ref()
        .map_or_else(|| "@?".to_string(), |o| offset_short(o, previous_end));
    let size = f.wire.as_ref().map(|w| size_short(layout, w));
    Hint {
        label: format!("{offset} · {}", size.as_deref().unwrap_or("? B")),
        tooltip: tooltip(f.offset.as_ref(), size, true),
    }
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

fn count(n: usize, one: &str, many: &str) -> Option<String> {
    match n {
        0 => None,
        1 => Some(format!("1 {one}")),
        n => Some(format!("{n} {many}")),
    }
}

/// The code lens above a struct: its totals (no zero counts), then its message type id
/// (SDP: its position in the file) or role (ffire).
pub fn lens_title(schema: &Schema, layout: &Layout, id: TypeId) -> Option<String> {
    let t = layout.get(id)?;
    let def = schema.types.get(id)?;
    let fixed: u64 = t.fields.iter().filter_map(|f| f.size.fixed).sum();
    let kinds = |pred: fn(&Wire) -> bool| {
        t.fields
            .iter()
            .filter(|f| f.size.fixed.is_none() && pred(&f.wire))
            .count()
    };
    let strings = kinds(|w| *w == Wire::Prim(Primitive::Str));
    let arrays = kinds(|w| matches!(w, Wire::Array(_)));
    let optionals = kinds(|w| matches!(w, Wire::Optional(_)));
    let others = t.fields.iter().filter(|f| f.size.fixed.is_none()).count() - strings - arrays - optionals;
    let mut s = if def.is_struct() {
        match t.size.fixed {
            Some(n) => format!("fixed {n} B"),
            None => {
                let parts: Vec<String> = [
                    (fixed > 0).then(|| format!("fixed {fixed} B")),
                    count(strings, "string", "strings"),
                    count(arrays, "array", "arrays"),
                    count(optionals, "optional", "optionals"),
                    count(others, "variable struct", "variable structs"),
                ]
                .into_iter()
                .flatten()
                .collect();
                format!("{} · min {} B", parts.join(" + "), t.size.min)
            }
        }
    } else {
        format!("{} · min {} B", size_short(layout, &t.wire), t.size.min)
    };
    if let Some(mid) = t.message_id {
        let _ = write!(s, " · message id {mid} (position)");
    }
    if schema.dialect == Dialect::Ffi {
        s.push_str(if t.root { " · root" } else { " · helper" });
        if t.is_reordered() {
            s.push_str(" · reordered on the wire");
        }
    }
    Some(s)
}
