//! Text and JSON views of a layout, for the CLI (`wirelens layout`) and tests. They
//! only print what [`crate::layout`] computed.

use serde_json::{json, Value};

use crate::dialect::Dialect;
use crate::layout::{size_expr, Layout, TypeLayout};
use crate::model::{Schema, TypeKind};

/// The `--format json` document of spec §10.
pub fn layout_json(schema: &Schema, layout: &Layout, only: Option<usize>) -> Value {
    let types: Vec<Value> = listed(schema, layout, only)
        .map(|(id, def, t)| {
            let mut head = type_head(schema, def, t);
            head.insert("fields".into(), fields_json(schema, layout, def, t).collect());
            head.insert("fixed_blocks".into(), blocks_json(schema, layout, id, t).collect());
            Value::Object(head)
        })
        .collect();
    json!({
        "dialect": schema.dialect.name(),
        "order": schema.order.as_str(),
        "types": types,
    })
}

/// [`layout_json`] written to `out` as `serde_json::to_writer_pretty` writes its value
/// (the same bytes), one field at a time: the value of a struct of a million fields took
/// 15 times the memory of its text.
pub fn write_layout_json(
    schema: &Schema,
    layout: &Layout,
    only: Option<usize>,
    out: impl std::io::Write,
) -> serde_json::Result<()> {
    use serde::Serialize as _;
    let mut ser = serde_json::Serializer::with_formatter(out, serde_json::ser::PrettyFormatter::with_indent(b"  "));
    LayoutDoc { schema, layout, only }.serialize(&mut ser)
}

struct LayoutDoc<'a> {
    schema: &'a Schema,
    layout: &'a Layout,
    only: Option<usize>,
}

/// A sequence serialized from the iterator `F` makes, item by item (JSON streamed
/// without building it: `layout --format json`, `diff --format json`).
pub struct Seq<F>(pub F);

impl<F, I> serde::Serialize for Seq<F>
where
    F: Fn() -> I,
    I: Iterator,
    I::Item: serde::Serialize,
{
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq((self.0)())
    }
}

impl serde::Serialize for LayoutDoc<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        let (schema, layout) = (self.schema, self.layout);
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("dialect", schema.dialect.name())?;
        m.serialize_entry("order", schema.order.as_str())?;
        m.serialize_entry(
            "types",
            &Seq(|| {
                listed(schema, layout, self.only).map(|(id, def, t)| TypeDoc {
                    schema,
                    layout,
                    id,
                    def,
                    t,
                })
            }),
        )?;
        m.end()
    }
}

struct TypeDoc<'a> {
    schema: &'a Schema,
    layout: &'a Layout,
    id: usize,
    def: &'a crate::model::TypeDef,
    t: &'a TypeLayout,
}

impl serde::Serialize for TypeDoc<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        let (schema, layout, id, def, t) = (self.schema, self.layout, self.id, self.def, self.t);
        let head = type_head(schema, def, t);
        let mut m = s.serialize_map(Some(head.len() + 2))?;
        for (k, v) in &head {
            m.serialize_entry(k, v)?;
        }
        m.serialize_entry("fields", &Seq(|| fields_json(schema, layout, def, t)))?;
        m.serialize_entry("fixed_blocks", &Seq(|| blocks_json(schema, layout, id, t)))?;
        m.end()
    }
}

/// The types the document lists: all, or `only`, each with a layout.
fn listed<'a>(
    schema: &'a Schema,
    layout: &'a Layout,
    only: Option<usize>,
) -> impl Iterator<Item = (usize, &'a crate::model::TypeDef, &'a TypeLayout)> + 'a {
    schema
        .types
        .iter()
        .enumerate()
        .filter(move |(id, _)| only.is_none_or(|o| o == *id))
        .filter_map(|(id, def)| Some((id, def, layout.get(id)?)))
}

/// A type's entries before its fields.
fn type_head(schema: &Schema, def: &crate::model::TypeDef, t: &TypeLayout) -> serde_json::Map<String, Value> {
    let Value::Object(head) = json!({
        "name": def.name,
        "kind": kind_name(def, t),
        "fixed_size": t.size.fixed,
        "min_size": t.size.min,
        "max_size": t.size.max,
        "message_id": t.message_id,
        "root": (schema.dialect == Dialect::Ffi).then_some(t.root),
    }) else {
        return serde_json::Map::new();
    };
    head
}

fn fields_json<'a>(
    schema: &'a Schema,
    layout: &'a Layout,
    def: &'a crate::model::TypeDef,
    t: &'a TypeLayout,
) -> impl Iterator<Item = Value> + 'a {
    t.fields.iter().filter_map(move |f| {
        let decl = def.fields().get(f.decl_index)?;
        Some(json!({
            "name": decl.name,
            "type": decl.ty.display(schema.dialect),
            "wire_index": f.wire_index,
            "decl_index": f.decl_index,
            "offset": f.offset.constant(),
            "offset_expr": f.offset.expr(),
            "size": f.size.fixed,
            "size_expr": size_expr(layout, &f.wire),
            "min_size": f.size.min,
            "max_size": f.size.max,
        }))
    })
}

fn blocks_json<'a>(
    schema: &'a Schema,
    layout: &'a Layout,
    id: usize,
    t: &'a TypeLayout,
) -> impl Iterator<Item = Value> + 'a {
    t.blocks.iter().map(move |b| {
        json!({
            "offset": b.offset.constant(),
            "offset_expr": b.offset.expr(),
            "size": b.size,
            "fields": b.leaves.iter().map(|l| l.name(layout, schema, id)).collect::<Vec<_>>(),
        })
    })
}

fn kind_name(def: &crate::model::TypeDef, t: &TypeLayout) -> &'static str {
    match (&def.kind, &t.wire) {
        (TypeKind::Struct { .. }, _) => "struct",
        (_, crate::layout::Wire::Array(_)) => "array",
        (_, crate::layout::Wire::Struct(_)) => "alias",
        (_, crate::layout::Wire::Optional(_)) => "optional",
        (_, crate::layout::Wire::Prim(_)) => "primitive",
    }
}

fn size_text(min: u64, max: Option<u64>, fixed: Option<u64>) -> String {
    match (fixed, max) {
        (Some(n), _) => format!("{n} B (fixed)"),
        (None, Some(m)) => format!("{min} B … {}", human_bytes(m)),
        (None, None) => format!("≥ {min} B"),
    }
}

/// `812 B`, `64.0 KiB`, `256.0 TiB`: exact below 10,000 bytes.
pub fn human_bytes(n: u64) -> String {
    if n < 10_000 {
        return format!("{n} B");
    }
    let units = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut v = n as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < units.len() {
        v /= 1024.0;
        unit += 1;
    }
    format!("{v:.1} {}", units[unit])
}

/// The human table: per type, its totals, then fields in wire order with offsets and
/// sizes, the written position when it differs, and the fixed blocks.
pub fn layout_table(schema: &Schema, layout: &Layout, only: Option<usize>) -> String {
    let mut out = String::new();
    let dialect = schema.dialect;
    out.push_str(&format!(
        "{} schema, {} field order\n",
        dialect.name(),
        schema.order.as_str()
    ));
    for (id, def) in schema.types.iter().enumerate() {
        if only.is_some_and(|o| o != id) {
            continue;
        }
        let Some(t) = layout.get(id) else { continue };
        out.push('\n');
        let mut head = format!("{} {}", kind_name(def, t), def.name);
        if let Some(mid) = t.message_id {
            head.push_str(&format!(" · message id {mid}"));
        }
        if dialect == Dialect::Ffi {
            head.push_str(if t.root {
                " · root (message type)"
            } else {
                " · helper"
            });
        }
        head.push_str(&format!(" · {}", size_text(t.size.min, t.size.max, t.size.fixed)));
        out.push_str(&head);
        out.push('\n');
        if let TypeKind::Alias { target, .. } = &def.kind {
            out.push_str(&format!(
                "  = {}  ({})\n",
                target.display(dialect),
                size_expr(layout, &t.wire)
            ));
            continue;
        }
        let reordered = t.is_reordered();
        let mut rows: Vec<[String; 6]> = vec![[
            "wire".into(),
            if reordered { "written".into() } else { String::new() },
            "field".into(),
            "type".into(),
            "offset".into(),
            "size".into(),
        ]];
        for f in &t.fields {
            let decl = &def.fields()[f.decl_index];
            rows.push([
                format!("#{}", f.wire_index),
                if reordered {
                    format!("#{}", f.decl_index)
                } else {
                    String::new()
                },
                decl.name.clone(),
                decl.ty.display(dialect),
                f.offset.expr(),
                size_expr(layout, &f.wire),
            ]);
        }
        let widths: Vec<usize> = (0..6)
            .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
            .collect();
        for r in &rows {
            let mut line = String::from(" ");
            for (c, cell) in r.iter().enumerate() {
                if widths[c] == 0 {
                    continue;
                }
                line.push(' ');
                line.push_str(cell);
                line.extend(std::iter::repeat_n(' ', widths[c] - cell.chars().count()));
                line.push(' ');
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        if reordered {
            out.push_str("  note: wire order differs from the order written (ffire canonical order: 8-byte, 4, 2, 1, variable, optional; then by name)\n");
        }
        for b in &t.blocks {
            let names: Vec<String> = b.leaves.iter().map(|l| l.name(layout, schema, id)).collect();
            let shown = if names.len() > 6 {
                format!(
                    "{} … {} ({} fields)",
                    names[..3].join(", "),
                    names[names.len() - 1],
                    names.len()
                )
            } else {
                names.join(", ")
            };
            out.push_str(&format!(
                "  fixed block @{} · {} B: {}\n",
                b.offset.expr(),
                b.size,
                shown
            ));
        }
    }
    out
}
