//! Layout diagrams in the style of RFC packet diagrams: boxes with the field names
//! inside under a byte ruler, one row per 8 bytes. Built once per struct from
//! `wirelens_core::layout` (a [`Diagram`]: sections of boxes in wire order), then drawn as text
//! for hovers (fits 80 columns) or as SVG for the layout view. Nothing here computes a
//! size or an offset; it only draws the ones the layout has.
//!
//! A section is a run of bytes at one known start: the struct's start, or (symbolic)
//! the end of a variable-size field. A variable-size field closes its section: its
//! length prefix (or presence byte) is drawn as a box, the bytes that follow as an open
//! box (`count: u32 | n × Item …`).

use std::fmt::Write as _;

use wirelens_core::layout::{Layout, Wire};
use wirelens_core::model::{Primitive, Schema, TypeId};

/// A symbolic offset for display: `12 + |a| + |b|`, shortened to its first and last
/// terms when long (it names every variable-size field before; printed in full, a struct
/// of 8,000 fields made hints and symbols quadratic).
pub(crate) fn offset_expr(o: &wirelens_core::layout::Offset, sep: &str) -> String {
    const MAX_TERMS: usize = 8;
    o.expr_with(MAX_TERMS, sep)
}

/// Bytes per row, as in the hex views.
const ROW: u64 = 8;
/// Characters per byte in the text drawing (`+-------`).
const CELL: usize = 8;
/// Characters of the offset column.
const GUTTER: usize = 6;
/// Rows drawn at most in text; the rest is summarised.
const MAX_ROWS: usize = 16;
/// Rows drawn at most in SVG (a struct of thousands of fields stays a small picture).
const MAX_SVG_ROWS: usize = 256;

/// A struct's diagram.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagram {
    pub title: String,
    pub sections: Vec<Section>,
}

/// Boxes from one known start on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// `None` at the struct's start; else the symbolic offset (`16 + |name|`) and the
    /// variable-size field it follows.
    pub after: Option<(String, String)>,
    pub boxes: Vec<BoxItem>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoxItem {
    /// Start inside the section.
    pub at: u64,
    /// Bytes; `None` for the open box of a variable-size part.
    pub len: Option<u64>,
    pub label: String,
    /// The field's declaration index in the struct (several boxes of one variable-size
    /// field share it).
    pub decl: usize,
    /// A fixed-size nested struct's own diagram (drawn inside the box in SVG).
    pub nested: Option<TypeId>,
}

/// The diagram of struct `id`, or `None` when it has no layout (or is not a struct).
pub fn build(schema: &Schema, layout: &Layout, id: TypeId) -> Option<Diagram> {
    let def = schema.types.get(id)?;
    let t = layout.get(id)?;
    if !def.is_struct() {
        return None;
    }
    let d = schema.dialect;
    let fields = def.fields();
    let prefix = layout.length_prefix();
    let prefix_ty = match (d, prefix) {
        (wirelens_core::Dialect::Sdp, _) => "u32",
        _ => "u16",
    };
    let mut sections = vec![Section {
        after: None,
        boxes: Vec::new(),
    }];
    let mut at = 0u64;
    for f in &t.fields {
        let Some(decl) = fields.get(f.decl_index) else {
            continue;
        };
        let name = &decl.name;
        let ty = decl.ty.display(d);
        let Some(section) = sections.last_mut() else {
            break;
        };
        let mut push = |at: &mut u64, len: Option<u64>, label: String, nested: Option<TypeId>| {
            section.boxes.push(BoxItem {
                at: *at,
                len,
                label,
                decl: f.decl_index,
                nested,
            });
            *at += len.unwrap_or(0);
        };
        if let Some(n) = f.size.fixed {
            let nested = match &f.wire {
                Wire::Struct(inner) => Some(*inner),
                _ => None,
            };
            push(&mut at, Some(n), format!("{name}: {ty}"), nested);
            continue;
        }
        let elem = |w: &Wire| {
            let s = layout.size_of(w);
            s.fixed.map_or_else(|| format!("≥ {} B", s.min), |k| format!("{k} B"))
        };
        match &f.wire {
            Wire::Prim(Primitive::Str) => {
                push(&mut at, Some(prefix), format!("{name}.len: {prefix_ty}"), None);
                push(&mut at, None, format!("{name}: len bytes, UTF-8"), None);
            }
            Wire::Array(e) => {
                push(&mut at, Some(prefix), format!("{name}.count: {prefix_ty}"), None);
                let elem_ty = match &decl.ty.kind {
                    wirelens_core::model::TypeExprKind::Array(inner) => inner.display(d),
                    _ => String::from("element"),
                };
                push(
                    &mut at,
                    None,
                    format!("{name}: count × {elem_ty} ({} each)", elem(e)),
                    None,
                );
            }
            Wire::Optional(e) => {
                push(&mut at, Some(1), format!("{name}?: u8 0/1"), None);
                push(&mut at, None, format!("{name}: {ty}, if 1 ({})", elem(e)), None);
            }
            Wire::Struct(_) | Wire::Prim(_) => {
                push(&mut at, None, format!("{name}: {ty} ({})", elem(&f.wire)), None);
            }
        }
        // What follows starts after this field's variable bytes.
        if let Some(next) = t.fields.get(f.wire_index + 1) {
            sections.push(Section {
                after: Some((offset_expr(&next.offset, " + "), name.clone())),
                boxes: Vec::new(),
            });
            at = 0;
        }
    }
    sections.retain(|s| !s.boxes.is_empty());
    Some(Diagram {
        title: def.name.clone(),
        sections,
    })
}

/// A box's part in one row: byte columns `[from, to)` (`to` = ROW for an open box).
#[derive(Debug, Clone, Copy)]
struct Span {
    index: usize,
    from: u64,
    to: u64,
    first: bool,
    open: bool,
    /// The box's label goes in this span: its widest (the first of equals).
    label: bool,
}

/// The rows of a section: each row's spans, left to right.
fn rows(section: &Section) -> Vec<Vec<Span>> {
    let mut rows: Vec<Vec<Span>> = Vec::new();
    for (index, b) in section.boxes.iter().enumerate() {
        let mut start = b.at;
        match b.len {
            Some(len) => {
                let end = b.at + len;
                let mut first = true;
                while start < end {
                    let row = (start / ROW) as usize;
                    let to = end.min((row as u64 + 1) * ROW);
                    put(
                        &mut rows,
                        row,
                        Span {
                            index,
                            from: start % ROW,
                            to: (to - 1) % ROW + 1,
                            first,
                            open: false,
                            label: false,
                        },
                    );
                    first = false;
                    start = to;
                }
            }
            None => {
                // An open box needs room for its label: at least 3 bytes, else the next row.
                let mut row = (start / ROW) as usize;
                let mut from = start % ROW;
                if ROW - from < 3 {
                    row += 1;
                    from = 0;
                }
                put(
                    &mut rows,
                    row,
                    Span {
                        index,
                        from,
                        to: ROW,
                        first: true,
                        open: true,
                        label: false,
                    },
                );
            }
        }
    }
    let mut widest: Vec<Option<(u64, usize, usize)>> = vec![None; section.boxes.len()];
    for (r, row) in rows.iter().enumerate() {
        for (i, s) in row.iter().enumerate() {
            let w = s.to - s.from;
            if let Some(slot) = widest.get_mut(s.index) {
                if slot.is_none_or(|(best, _, _)| w > best) {
                    *slot = Some((w, r, i));
                }
            }
        }
    }
    for (_, r, i) in widest.into_iter().flatten() {
        if let Some(s) = rows.get_mut(r).and_then(|row| row.get_mut(i)) {
            s.label = true;
        }
    }
    rows
}

fn put(rows: &mut Vec<Vec<Span>>, row: usize, span: Span) {
    if rows.len() <= row {
        rows.resize_with(row + 1, Vec::new);
    }
    if let Some(r) = rows.get_mut(row) {
        r.push(span);
    }
}

/// `text` cut to at most `width` characters, with `…` where it was cut.
fn cut(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        text.to_string()
    } else if width >= 2 {
        text.chars().take(width - 1).chain(['…']).collect()
    } else {
        text.chars().take(width).collect()
    }
}

/// `label` cut to `width` characters, centred.
fn centred(label: &str, width: usize) -> String {
    let text = cut(label, width);
    let n = text.chars().count();
    let left = (width - n) / 2;
    format!("{}{text}{}", " ".repeat(left), " ".repeat(width - n - left))
}

/// The label that fits: `name: type`, else `name`, else cut.
fn fitting(label: &str, width: usize) -> String {
    let short = label.split(": ").next().unwrap_or(label);
    if label.chars().count() + 2 <= width {
        centred(label, width)
    } else {
        centred(short, width)
    }
}

/// The diagram as text, at most 80 columns wide; `highlight` marks one field's boxes
/// (`*name*` and `=` borders).
pub fn to_text(diagram: &Diagram, highlight: Option<usize>) -> String {
    let mut out = String::new();
    let _ = write!(out, "{:GUTTER$} ", "");
    for c in 0..ROW {
        let _ = write!(out, "{c:<CELL$}");
    }
    let trimmed = out.trim_end_matches(' ').len();
    out.truncate(trimmed);
    out.push('\n');
    let mut drawn = 0usize;
    for section in &diagram.sections {
        // A later section starts under the previous one's bottom line, with its start.
        if let Some((offset, _)) = &section.after {
            let head = format!("at {offset}:");
            let _ = writeln!(out, "{:GUTTER$} {}", "", cut(&head, 80 - (GUTTER + 1)));
        }
        let rows = rows(section);
        let mut previous: Vec<Span> = Vec::new();
        for (r, row) in rows.iter().enumerate() {
            if drawn >= MAX_ROWS {
                let _ = writeln!(out, "{:GUTTER$} … (the rest: see the table)", "");
                return out;
            }
            if r > 0 || section.after.is_none() {
                out.push_str(&border(section, &previous, row, highlight));
            }
            let gutter = if section.after.is_some() {
                format!("+{}", r as u64 * ROW)
            } else {
                (r as u64 * ROW).to_string()
            };
            let _ = write!(out, "{gutter:>GUTTER$} ");
            let mut col = 0u64;
            for s in row {
                if s.from > col {
                    out.push_str(&" ".repeat(((s.from - col) as usize) * CELL));
                }
                let b = &section.boxes[s.index];
                let width = ((s.to - s.from) as usize) * CELL - 1;
                let marked = highlight == Some(b.decl);
                let label = if !s.label {
                    String::new()
                } else if marked {
                    format!("*{}*", b.label)
                } else {
                    b.label.clone()
                };
                out.push('|');
                out.push_str(&if s.open {
                    // An open box runs to the right margin (80 columns).
                    let room = 80 - (GUTTER + 2) - (s.from as usize) * CELL;
                    let full = format!("{label} …");
                    if full.chars().count() <= room {
                        full
                    } else {
                        // Without the element size (`(≥ 16 B each)`) before cutting.
                        let short = label.split(" (").next().unwrap_or(&label);
                        cut(&format!("{short} …"), room)
                    }
                } else {
                    fitting(&label, width)
                });
                col = s.to;
            }
            if row.last().is_some_and(|s| !s.open) {
                out.push('|');
            }
            let trimmed = out.trim_end_matches(' ').len();
            out.truncate(trimmed);
            out.push('\n');
            drawn += 1;
            previous = row.clone();
        }
        out.push_str(&border(section, &previous, &[], highlight));
    }
    out
}

/// The line between two rows: `+` at every byte edge, `-` under closed boxes, `- ` under
/// open ones, blank inside a box that goes on in the next row, `=` around `highlight`.
fn border(section: &Section, above: &[Span], below: &[Span], highlight: Option<usize>) -> String {
    let width = [above, below]
        .iter()
        .filter_map(|r| r.last())
        .map(|s| s.to)
        .max()
        .unwrap_or(0);
    let at = |row: &[Span], c: u64| row.iter().find(|s| s.from <= c && c < s.to).copied();
    let mut line = format!("{:GUTTER$} ", "");
    for c in 0..width {
        let (a, b) = (at(above, c), at(below, c));
        let same = matches!((a, b), (Some(a), Some(b)) if a.index == b.index && !b.first);
        let open = a.is_some_and(|s| s.open) || b.is_some_and(|s| s.open);
        let marked = [a, b]
            .iter()
            .flatten()
            .any(|s| highlight == Some(section.boxes[s.index].decl));
        let edge = c == 0 || [a, b].iter().flatten().any(|s| s.from == c);
        line.push(if same && !edge { ' ' } else { '+' });
        line.push_str(if same {
            "       "
        } else if marked {
            "======="
        } else if open {
            "- - - -"
        } else {
            "-------"
        });
    }
    if [above, below]
        .iter()
        .filter_map(|r| r.last())
        .any(|s| s.to == width && !s.open)
    {
        line.push('+');
    }
    line.push('\n');
    line
}

/// SVG escapes.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Pixels per byte and per row in SVG.
const PX: u64 = 56;
const ROW_PX: u64 = 44;
const GUTTER_PX: u64 = 64;

/// The diagram as an SVG picture (theme colours through CSS variables, with fallbacks),
/// a fixed-size nested struct's fields drawn as boxes inside its field's box.
/// `highlight`: one field's declaration index.
pub fn to_svg(schema: &Schema, layout: &Layout, diagram: &Diagram, highlight: Option<usize>) -> String {
    let mut body = String::new();
    let mut y = 24u64;
    // Ruler.
    for c in 0..ROW {
        let _ = write!(
            body,
            r#"<text x="{}" y="16" class="ruler">{c}</text>"#,
            GUTTER_PX + c * PX + 4
        );
    }
    let mut drawn = 0usize;
    'sections: for section in &diagram.sections {
        if let Some((offset, name)) = &section.after {
            y += 6;
            let _ = write!(
                body,
                r#"<text x="4" y="{}" class="note">after {}: at {}</text>"#,
                y + 12,
                esc(name),
                esc(offset)
            );
            y += 20;
        }
        for (r, row) in rows(section).iter().enumerate() {
            if drawn >= MAX_SVG_ROWS {
                let _ = write!(
                    body,
                    r#"<text x="4" y="{}" class="note">… the rest: see the table below</text>"#,
                    y + 16
                );
                y += 24;
                break 'sections;
            }
            drawn += 1;
            let gutter = if section.after.is_some() {
                format!("+{}", r as u64 * ROW)
            } else {
                (r as u64 * ROW).to_string()
            };
            let _ = write!(
                body,
                r#"<text x="{}" y="{}" class="off" text-anchor="end">{gutter}</text>"#,
                GUTTER_PX - 8,
                y + ROW_PX / 2 + 4
            );
            for s in row {
                let b = &section.boxes[s.index];
                let x = GUTTER_PX + s.from * PX;
                let w = (s.to - s.from) * PX;
                let class = match (s.open, highlight == Some(b.decl)) {
                    (_, true) => "box hl",
                    (true, false) => "box open",
                    (false, false) => "box",
                };
                let _ = write!(
                    body,
                    r#"<rect x="{x}" y="{y}" width="{w}" height="{ROW_PX}" class="{class}"><title>{}</title></rect>"#,
                    esc(&b.label)
                );
                if s.label {
                    let label = b.label.clone() + if s.open { " …" } else { "" };
                    let chars = (w / 7).max(1) as usize;
                    let text: String = if label.chars().count() > chars {
                        label.chars().take(chars.saturating_sub(1)).chain(['…']).collect()
                    } else {
                        label
                    };
                    let ty = if b.nested.is_some() { y + 14 } else { y + ROW_PX / 2 + 4 };
                    let _ = write!(
                        body,
                        r#"<text x="{}" y="{ty}" class="label">{}</text>"#,
                        x + 6,
                        esc(&text)
                    );
                }
                if let Some(inner) = b.nested {
                    nested_boxes(schema, layout, inner, b.at, r as u64 * ROW, s, y, &mut body);
                }
            }
            y += ROW_PX;
        }
    }
    let width = GUTTER_PX + ROW * PX + 8;
    format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="wirelens-layout" width="{width}" height="{}" viewBox="0 0 {width} {}" role="img" aria-label="wire layout of {}"><style>.box{{fill:var(--vscode-editor-background,#fff);stroke:var(--vscode-foreground,#333);stroke-width:1}}.open{{stroke-dasharray:4 3}}.hl{{fill:var(--vscode-editor-selectionBackground,#add6ff)}}.inner{{fill:none;stroke:var(--vscode-descriptionForeground,#888);stroke-width:1}}text{{font:12px var(--vscode-editor-font-family,monospace);fill:var(--vscode-foreground,#333)}}.ruler,.off,.note,.small{{fill:var(--vscode-descriptionForeground,#888)}}.small{{font-size:10px}}</style>{body}</svg>"#,
        y + 8,
        y + 8,
        esc(&diagram.title)
    )
}

/// The fields of fixed-size struct `inner` (its field's box starts at byte `base` of the
/// section) as boxes inside the part of that box that span `s` of the row starting at
/// byte `row_base` draws.
#[allow(clippy::too_many_arguments)]
fn nested_boxes(
    schema: &Schema,
    layout: &Layout,
    inner: TypeId,
    base: u64,
    row_base: u64,
    s: &Span,
    y: u64,
    body: &mut String,
) {
    let Some(section) = build(schema, layout, inner).and_then(|d| d.sections.into_iter().next()) else {
        return;
    };
    let (top, h) = (y + 20, ROW_PX - 24);
    for b in &section.boxes {
        let Some(len) = b.len else { continue };
        // The inner field's bytes in section coordinates, clipped to this row's span.
        let from = (base + b.at).max(row_base + s.from);
        let to = (base + b.at + len).min(row_base + s.to);
        if from >= to {
            continue;
        }
        let x = GUTTER_PX + (from - row_base) * PX + 3;
        let w = ((to - from) * PX).saturating_sub(6).max(4);
        let name = b.label.split(": ").next().unwrap_or(&b.label);
        let chars = (w / 6).max(1) as usize;
        let text: String = if name.chars().count() > chars {
            name.chars().take(chars.saturating_sub(1)).chain(['…']).collect()
        } else {
            name.to_string()
        };
        let _ = write!(
            body,
            r#"<rect x="{x}" y="{top}" width="{w}" height="{h}" class="inner"><title>{}</title></rect><text x="{}" y="{}" class="small">{}</text>"#,
            esc(&b.label),
            x + 3,
            top + h / 2 + 4,
            esc(&text)
        );
    }
}

/// The layout view's picture of struct `id`: its SVG, then each struct-typed field's
/// own picture in a `<details>` (collapsed; opening it expands that nested box), down to
/// `depth` levels. HTML for a webview; every text in it is escaped.
pub fn to_html(schema: &Schema, layout: &Layout, id: TypeId, depth: usize) -> Option<String> {
    let d = build(schema, layout, id)?;
    let mut html = to_svg(schema, layout, &d, None);
    if depth == 0 {
        return Some(html);
    }
    let (def, t) = (schema.types.get(id)?, layout.get(id)?);
    for f in &t.fields {
        let inner = match &f.wire {
            Wire::Struct(inner) => *inner,
            Wire::Array(e) | Wire::Optional(e) => match e.as_ref() {
                Wire::Struct(inner) => *inner,
                _ => continue,
            },
            Wire::Prim(_) => continue,
        };
        let (Some(decl), Some(inner_def)) = (def.fields().get(f.decl_index), schema.types.get(inner)) else {
            continue;
        };
        if let Some(nested) = to_html(schema, layout, inner, depth - 1) {
            let _ = write!(
                html,
                "<details class=\"nested\"><summary><code>{}</code>: {}</summary>{nested}</details>",
                esc(&decl.name),
                esc(&inner_def.name)
            );
        }
    }
    Some(html)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diagram_of(dialect: wirelens_core::Dialect, text: &str, name: &str) -> (wirelens_core::Analysis, Diagram) {
        let a = wirelens_core::analyze(dialect, text, None, wirelens_core::OrderChoice::default());
        let id = a.schema.type_id(name).expect("type");
        let d = build(&a.schema, &a.layout, id).expect("diagram");
        (a, d)
    }

    const AUDIO: &str = "struct Voice { id: u32, muted: bool, ch: u16, name: str, gain: f32 }";

    #[test]
    fn fixed_fields_are_boxes_under_a_byte_ruler_and_a_string_is_prefix_plus_open_box() {
        let (_, d) = diagram_of(wirelens_core::Dialect::Sdp, AUDIO, "Voice");
        let text = to_text(&d, None);
        let expected = "       0       1       2       3       4       5       6       7
       +-------+-------+-------+-------+-------+-------+-------+-------+
     0 |            id: u32            | muted |    ch: u16    |       |
       +-------+-------+-------+- - - -+- - - -+- - - -+- - - -+- - - -+
     8 |     name.len: u32     |name: len bytes, UTF-8 …
       +-------+-------+-------+- - - -+- - - -+- - - -+- - - -+- - - -
       at 11 + |name|:
    +0 |           gain: f32           |
       +-------+-------+-------+-------+
";
        assert_eq!(text, expected, "\n{text}");
    }

    #[test]
    fn the_field_under_the_cursor_is_marked_and_no_other() {
        let (_, d) = diagram_of(wirelens_core::Dialect::Sdp, AUDIO, "Voice");
        let text = to_text(&d, Some(2));
        assert!(text.contains("*ch: u16*"), "{text}");
        assert_eq!(text.matches('*').count(), 2, "{text}");
        // `=` borders above and below `ch` (bytes 5 and 6), nowhere else.
        let rows: Vec<&str> = text.lines().collect();
        assert_eq!(&rows[1][7 + 5 * 8..7 + 7 * 8 + 1], "+=======+=======+", "{text}");
        assert_eq!(&rows[3][7 + 5 * 8..7 + 7 * 8 + 1], "+=======+=======+", "{text}");
        assert_eq!(text.matches("=======").count(), 4, "{text}");
    }

    #[test]
    fn arrays_optionals_and_nested_structs_in_ffire() {
        let src = "package p\ntype Vec struct {\n X float32\n Y float32\n}\ntype M struct {\n Pos Vec\n Tags []string\n Next *Vec\n N int16\n}\n";
        let (a, d) = diagram_of(wirelens_core::Dialect::Ffi, src, "M");
        let text = to_text(&d, None);
        for want in [
            "Pos: Vec",
            "Tags.count",
            "Tags: count × string (≥ 2 B each) …",
            "| Next? |",
            "Next: *Vec, if 1 (8 B) …",
            "N: int16",
        ] {
            assert!(text.contains(want), "{want} in\n{text}");
        }
        // The nested struct's fields are boxes inside its box in SVG.
        let id = a.schema.type_id("M").expect("M");
        let svg = to_svg(&a.schema, &a.layout, &d, None);
        assert!(svg.contains(r#"class="inner"><title>X: float32</title>"#), "{svg}");
        assert!(svg.contains(r#"class="inner"><title>Y: float32</title>"#), "{svg}");
        let _ = id;
    }

    /// Every golden schema's every struct: text within 80 columns, boxes that tile each
    /// section's fixed bytes without gaps, and well-formed SVG.
    #[test]
    fn every_golden_struct_fits_80_columns_and_gives_well_formed_svg() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors");
        let mut seen = 0;
        for (dir, dialect) in [
            ("sdp", wirelens_core::Dialect::Sdp),
            ("ffi", wirelens_core::Dialect::Ffi),
        ] {
            let mut files: Vec<_> = std::fs::read_dir(root.join(dir).join("schemas"))
                .expect("golden schemas")
                .map(|e| e.expect("entry").path())
                .collect();
            files.sort();
            for file in files {
                let text = std::fs::read_to_string(&file).expect("schema");
                let a = wirelens_core::analyze(dialect, &text, None, wirelens_core::OrderChoice::default());
                for id in 0..a.schema.types.len() {
                    let Some(d) = build(&a.schema, &a.layout, id) else {
                        continue;
                    };
                    seen += 1;
                    for section in &d.sections {
                        let mut at = 0;
                        for b in &section.boxes {
                            assert_eq!(b.at, at, "{} in {}", b.label, file.display());
                            at += b.len.unwrap_or(0);
                        }
                    }
                    let drawn = to_text(&d, Some(0));
                    for line in drawn.lines() {
                        assert!(
                            line.chars().count() <= 80,
                            "{} is {} wide:\n{drawn}",
                            file.display(),
                            line.chars().count()
                        );
                    }
                    let svg = to_svg(&a.schema, &a.layout, &d, Some(0));
                    roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{}: {e}\n{svg}", file.display()));
                }
            }
        }
        assert!(seen >= 30, "{seen} structs");
    }
}

#[cfg(test)]
mod html_tests {
    use super::*;

    #[test]
    fn the_layout_view_expands_nested_structs_in_details() {
        let src = "struct Rect { x: u16, y: u16 }\nstruct Param { id: u32, bounds: Rect, rects: []Rect, next: Option<Rect> }\n";
        let a = wirelens_core::analyze(
            wirelens_core::Dialect::Sdp,
            src,
            None,
            wirelens_core::OrderChoice::default(),
        );
        let id = a.schema.type_id("Param").expect("Param");
        let html = to_html(&a.schema, &a.layout, id, 3).expect("html");
        assert_eq!(html.matches("<details").count(), 3, "{html}");
        assert_eq!(html.matches("<svg").count(), 4, "{html}");
        for name in ["bounds", "rects", "next"] {
            assert!(
                html.contains(&format!("<summary><code>{name}</code>: Rect</summary><svg")),
                "{name}: {html}"
            );
        }
        roxmltree::Document::parse(&format!("<div>{html}</div>")).expect("well-formed");
        assert_eq!(
            to_html(&a.schema, &a.layout, id, 0)
                .expect("svg")
                .matches("<details")
                .count(),
            0
        );
    }

    #[test]
    fn a_struct_of_thousands_of_fields_draws_a_bounded_picture() {
        let body: String = (0..5000).map(|i| format!("f{i}: str, ")).collect();
        let src = format!("struct Wide {{ {body} }}");
        let a = wirelens_core::analyze(
            wirelens_core::Dialect::Sdp,
            &src,
            None,
            wirelens_core::OrderChoice::default(),
        );
        let d = build(&a.schema, &a.layout, 0).expect("diagram");
        let svg = to_svg(&a.schema, &a.layout, &d, None);
        assert!(svg.len() < 200_000, "{} bytes", svg.len());
        assert!(svg.contains("the rest: see the table below"));
        let text = to_text(&d, None);
        assert!(text.lines().count() < 60, "{text}");
        roxmltree::Document::parse(&svg).expect("well-formed");
    }
}
