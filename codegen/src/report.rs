//! Text and JSON views of a layout, for the CLI (`wirelens layout`) and tests. They
//! only print what [`crate::layout`] computed.

use serde_json::{json, Value};

use crate::dialect::Dialect;
use crate::layout::{size_expr, Layout, TypeLayout};
use crate::model::{Schema, TypeKind};

/// The `--format json` document of spec §10.
pub fn layout_json(schema: &Schema, layout: &Layout, only: Option<usize>) -> Value {
    let types: Vec<Value> = schema
        .types
        .iter()
        .enumerate()
        .filter(|(id, _)| only.is_none_or(|o| o == *id))
        .filter_map(|(id, def)| {
            let t = layout.get(id)?;
            let fields: Vec<Value> = t
                .fields
                .iter()
                .map(|f| {
                    let decl = &def.fields()[f.decl_index];
                    json!({
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
                    })
                })
                .collect();
            let blocks: Vec<Value> = t
                .blocks
                .iter()
                .map(|b| {
                    json!({
                        "offset": b.offset.constant(),
                        "offset_expr": b.offset.expr(),
                        "size": b.size,
                        "fields": b.leaves.iter().map(|l| l.name(layout, schema, id)).collect::<Vec<_>>(),
                    })
                })
                .collect();
            Some(json!({
                "name": def.name,
                "kind": kind_name(def, t),
                "fixed_size": t.size.fixed,
                "min_size": t.size.min,
                "max_size": t.size.max,
                "message_id": t.message_id,
                "root": (schema.dialect == Dialect::Ffi).then_some(t.root),
                "fields": fields,
                "fixed_blocks": blocks,
            }))
        })
        .collect();
    json!({
        "dialect": schema.dialect.name(),
        "order": schema.order.as_str(),
        "types": types,
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
