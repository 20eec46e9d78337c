//! The formatter behind `wirelens fmt` and the language server's formatting request.
//!
//! [`format`] refuses any text whose tree has an `ERROR` or `MISSING` node, and otherwise
//! returns the canonical text of the schema. It never changes what the schema says (the
//! same declarations, fields, types and tags, in the same order) and keeps every comment,
//! in the same order and in place relative to the code.
//!
//! Both dialects:
//! - the output uses `\n` line endings (a CRLF file formats to LF), ends with exactly one
//!   newline (an empty or all-whitespace file formats to the empty string), and has no
//!   trailing whitespace — except inside a multi-line raw string literal (a Go tag or a
//!   verbatim Go declaration), whose text is part of its value;
//! - blank lines between items and comments are kept, at most one in a row; blank lines
//!   right after `{`/`(` and right before `}`/`)` go; top-level declarations are separated
//!   by exactly one blank line;
//! - a comment on the line of a field, a declaration, or an opening/closing brace stays on
//!   that line; a comment on its own line stays on its own line, indented like the code
//!   around it; the text of a comment is kept, minus trailing whitespace on each line (the
//!   inner lines of a multi-line `/* … */` are not re-indented);
//! - a comment *inside* a field or declaration (`a: // c` ⏎ `u32,`, `type /* c */ T int`) is
//!   moved onto its own line right above that field or declaration (or right below it when
//!   that keeps the comments in order, e.g. after the closing brace of an anonymous struct
//!   type). In SDP such a `///` comment thereby becomes the field's doc comment.
//!
//! SDP (rustfmt-like): `struct Name {` on one line; each field on its own line, indented
//! four spaces, as `name: Type,` — always with a comma, also after the last field, so a
//! comment after an unterminated last field ends up after the comma; types written without
//! spaces (`Option<Foo>`, `[]u8`, `Box<Bar>`); `}` on its own line; an empty struct is
//! `struct A {}`. One space before a trailing comment.
//!
//! ffire (gofmt-like): one declaration per line; struct fields indented with one tab;
//! within a run of consecutive field lines (or specs of a `type ( … )` group) names, types,
//! tags and trailing comments are aligned in columns exactly as gofmt's tabwriter does it
//! (padding 1, spaces; a blank line, a comment-only line or a field spanning several lines
//! ends the run); `A, B T` keeps its `, `; types are written without spaces (`*T`, `[]T`,
//! `map[K]V`, `pkg.T`, `[N]T`) except where Go needs one (`chan T`, `func() T`). An empty
//! struct is `struct{}`. Where wirelens differs from gofmt: non-empty structs are always
//! written over several lines (gofmt keeps a one-line `struct{ X int }`), blank lines
//! before a closing brace go, and top-level declarations are always separated by one blank
//! line. Imports, constants, variables and functions (which ffire ignores) are reproduced
//! verbatim, only with trailing whitespace and repeated blank lines removed outside raw
//! strings; so are array lengths, function-type parameter lists and interface bodies.
//!
//! The printer walks the tree iteratively with an explicit stack, so deeply nested types
//! cannot overflow the call stack.

use tree_sitter::Node;

use crate::dialect::Dialect;
use crate::syntax;

/// Why [`format`] refused a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FormatError {
    /// The text has a syntax error: the 0-based line and the 0-based byte column within
    /// that line (tree-sitter's convention) of the first `ERROR` or `MISSING` node.
    Syntax { line: u32, column: u32 },
    /// Struct bodies nested deeper than [`MAX_FORMAT_NESTING`] (0-based position of the
    /// first one too deep). Indenting them would make the output, and the memory to
    /// build it, quadratic in the input: 40,000 levels of `struct {` would need GBs.
    TooDeep { line: u32, column: u32 },
}

/// Deepest struct body the formatter indents: the limit the checker applies to type
/// expressions (`type-too-deep`). Only ffire's anonymous structs (an error of their own)
/// nest this deep; named SDP and ffire structs never nest.
pub const MAX_FORMAT_NESTING: usize = crate::lower::MAX_TYPE_NESTING;

impl std::fmt::Display for FormatError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FormatError::Syntax { line, column } => write!(
                f,
                "not formatted: syntax error at line {}, column {}",
                u64::from(*line) + 1,
                u64::from(*column) + 1
            ),
            FormatError::TooDeep { line, column } => write!(
                f,
                "not formatted: structs nested more than {MAX_FORMAT_NESTING} levels deep at line {}, column {}",
                u64::from(*line) + 1,
                u64::from(*column) + 1
            ),
        }
    }
}

impl std::error::Error for FormatError {}

/// Formats a whole schema file. See the module documentation for the style.
pub fn format(dialect: Dialect, text: &str) -> Result<String, FormatError> {
    let Some(tree) = syntax::parse(dialect, text, None) else {
        return Err(FormatError::Syntax { line: 0, column: 0 });
    };
    let root = tree.root_node();
    let bad = first_error(root).map(|n| n.start_position());
    let bad = bad.or_else(|| (dialect == Dialect::Sdp).then(|| field_without_type(root)).flatten());
    if let Some(at) = bad {
        return Err(FormatError::Syntax {
            line: u32::try_from(at.row).unwrap_or(u32::MAX),
            column: u32::try_from(at.column).unwrap_or(u32::MAX),
        });
    }
    let mut printer = Printer::new(dialect, text);
    printer.walk(root);
    if let Some(at) = printer.too_deep {
        return Err(FormatError::TooDeep {
            line: u32::try_from(at.row).unwrap_or(u32::MAX),
            column: u32::try_from(at.column).unwrap_or(u32::MAX),
        });
    }
    Ok(printer.finish())
}

/// SDP: the end of the first field that has no type (the grammar accepts one so that
/// recovery can close the struct, `grammar/sdp/grammar.js`; it is a syntax error).
fn field_without_type(root: Node) -> Option<tree_sitter::Point> {
    let mut structs = root.walk();
    for item in root.children(&mut structs) {
        let Some(body) = item.child_by_field_name("body") else {
            continue;
        };
        let mut fields = body.walk();
        for f in body.children(&mut fields) {
            if f.kind() == "field_declaration" && f.child_by_field_name("type").is_none() {
                return Some(f.end_position());
            }
        }
    }
    None
}

/// The first `ERROR` or `MISSING` node in document order.
fn first_error(root: Node) -> Option<Node> {
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        if node.is_error() || node.is_missing() {
            return Some(node);
        }
        if node.has_error() && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return None;
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Output model: lines of tab-separated cells, aligned like Go's text/tabwriter.

/// One output line: `indent` levels, then aligned `cells`, then the unaligned `text`.
#[derive(Debug, Default)]
struct Line {
    indent: usize,
    /// An empty line precedes this one.
    blank_before: bool,
    cells: Vec<Cell>,
    text: String,
    /// Alignment stops after this line (gofmt's formfeed).
    ff: bool,
}

impl Line {
    fn is_empty(&self) -> bool {
        self.cells.is_empty() && self.text.is_empty()
    }

    fn is_multiline(&self) -> bool {
        self.text.contains('\n') || self.cells.iter().any(|c| c.text.contains('\n'))
    }
}

/// A tabwriter cell. `htab` cells (terminated by `\t` rather than `\v` in gofmt) keep
/// their column even when every cell in it is empty.
#[derive(Debug)]
struct Cell {
    text: String,
    htab: bool,
}

fn width(s: &str) -> usize {
    s.chars().count()
}

/// Renders the lines. Within a section (lines between blank lines, formfeeds and
/// multi-line lines), column `c` of consecutive lines that all have a cell there is padded
/// to the widest cell plus one, as text/tabwriter does with `DiscardEmptyColumns`.
fn render(lines: &[Line], indent_unit: &str) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < lines.len() {
        let mut j = i + 1;
        if !lines[i].is_multiline() {
            while j < lines.len() && !lines[j - 1].ff && !lines[j].blank_before && !lines[j].is_multiline() {
                j += 1;
            }
        }
        let section = &lines[i..j];
        let widths = column_widths(section);
        for (line, widths) in section.iter().zip(&widths) {
            if line.blank_before && !out.is_empty() {
                out.push('\n');
            }
            for _ in 0..line.indent {
                out.push_str(indent_unit);
            }
            for (cell, &w) in line.cells.iter().zip(widths) {
                out.push_str(&cell.text);
                let pad = w.saturating_sub(width(&cell.text));
                out.extend(std::iter::repeat_n(' ', pad));
            }
            out.push_str(&line.text);
            let end = out.trim_end_matches([' ', '\t']).len();
            out.truncate(end);
            out.push('\n');
        }
        i = j;
    }
    out
}

/// The padded width of every cell of a section. A line with indent `k` has its cells in
/// columns `k..`; the columns before are its indentation (never empty, as in gofmt).
fn column_widths(section: &[Line]) -> Vec<Vec<usize>> {
    let mut widths: Vec<Vec<usize>> = section.iter().map(|l| vec![0; l.cells.len()]).collect();
    let lo = section.iter().map(|l| l.indent).min().unwrap_or(0);
    let hi = section.iter().map(|l| l.indent + l.cells.len()).max().unwrap_or(0);
    for column in lo..hi {
        let has = |l: &Line| column < l.indent + l.cells.len();
        let mut k = 0;
        while k < section.len() {
            if !has(&section[k]) {
                k += 1;
                continue;
            }
            let start = k;
            let mut w = 0;
            let mut discard = true;
            while k < section.len() && has(&section[k]) {
                let line = &section[k];
                match column.checked_sub(line.indent) {
                    Some(j) => {
                        let cell = &line.cells[j];
                        let cw = width(&cell.text);
                        w = w.max(cw + 1);
                        if cw > 0 || cell.htab {
                            discard = false;
                        }
                    }
                    None => {
                        w = w.max(1);
                        discard = false;
                    }
                }
                k += 1;
            }
            if discard {
                w = 0;
            }
            for m in start..k {
                if let Some(j) = column.checked_sub(section[m].indent) {
                    widths[m][j] = w;
                }
            }
        }
    }
    widths
}

// ---------------------------------------------------------------------------------------
// The printer: one pass over the leaves in document order.

/// How a comment on the same line as the code just printed is attached to that line.
#[derive(Debug, Clone, Copy)]
enum Trail {
    /// SDP: one space.
    Space,
    /// ffire: `0` ends the current cell with a tab; `n > 0` ends `n` cells with soft tabs
    /// (gofmt's `extraTabs`, which put the comment of an untagged field in the tag column).
    Tabs(u8),
}

/// A list of items on their own lines: the file, a struct body, a `type ( … )` group.
#[derive(Debug)]
struct Body {
    /// The node whose exit closes the body; `None` for a `type ( … )` group.
    node: Option<usize>,
    indent: usize,
    top: bool,
    /// Nothing printed on its own line in this body yet.
    first: bool,
    /// The last thing printed on its own line was an item (top level: forces a blank line).
    after_unit: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum UnitKind {
    /// SDP `struct`.
    Struct,
    /// SDP field.
    SdpField,
    /// ffire top-level declaration.
    Decl,
    /// ffire spec inside `type ( … )`.
    Spec,
    /// ffire struct field.
    Field,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Group {
    None,
    Empty,
    Open,
}

/// An item that starts on a line of its own: a declaration, a spec, a field.
#[derive(Debug)]
struct Unit {
    node: usize,
    kind: UnitKind,
    /// Its first token has been printed.
    started: bool,
    /// Index in `lines` its first line will have.
    first_line: usize,
    indent: usize,
    /// Comments met inside it after its first line was done; printed below it.
    deferred: Vec<String>,
    named: bool,
    tag: bool,
    group: Group,
    /// A verbatim piece with a comment in it was printed: later comments inside the
    /// item go below it, so that comments stay in order.
    sealed: bool,
}

impl Unit {
    fn new(node: Node, kind: UnitKind) -> Unit {
        Unit {
            node: node.id(),
            kind,
            started: false,
            first_line: 0,
            indent: 0,
            deferred: Vec::new(),
            named: false,
            tag: false,
            group: Group::None,
            sealed: false,
        }
    }
}

#[derive(Debug)]
enum Frame {
    Body(Body),
    Unit(Unit),
}

struct Printer<'t> {
    sdp: bool,
    text: &'t str,
    lines: Vec<Line>,
    cur: Option<Line>,
    /// Put a space before the next code text (unless it starts a cell).
    space: bool,
    /// A comment on the current source line may still go at the end of `cur`.
    trail: Option<Trail>,
    /// The source row where the last token or comment printed ends (`\n` tokens excluded).
    last_row: Option<usize>,
    frames: Vec<Frame>,
    /// The first struct body nested deeper than [`MAX_FORMAT_NESTING`].
    too_deep: Option<tree_sitter::Point>,
    /// Kinds of the nodes being walked through (the parent of a leaf is the last).
    parents: Vec<&'t str>,
}

impl<'t> Printer<'t> {
    fn new(dialect: Dialect, text: &'t str) -> Printer<'t> {
        Printer {
            sdp: dialect == Dialect::Sdp,
            text,
            lines: Vec::new(),
            cur: None,
            space: false,
            trail: None,
            last_row: None,
            frames: Vec::new(),
            parents: Vec::new(),
            too_deep: None,
        }
    }

    fn finish(mut self) -> String {
        self.close_cur();
        render(&self.lines, if self.sdp { "    " } else { "\t" })
    }

    fn walk(&mut self, root: Node<'t>) {
        let mut cursor = root.walk();
        'outer: loop {
            let node = cursor.node();
            if self.visit(node, cursor.field_name()) {
                if cursor.goto_first_child() {
                    continue;
                }
                self.exit(node);
            }
            loop {
                if cursor.goto_next_sibling() {
                    continue 'outer;
                }
                if !cursor.goto_parent() {
                    break 'outer;
                }
                self.exit(cursor.node());
            }
        }
    }

    fn src(&self, node: Node<'t>) -> &'t str {
        self.text.get(node.byte_range()).unwrap_or("")
    }

    fn parent(&self) -> &'t str {
        self.parents.last().copied().unwrap_or("")
    }

    /// Handles `node`; returns true when its children are to be walked.
    fn visit(&mut self, node: Node<'t>, field: Option<&'t str>) -> bool {
        let kind = node.kind();
        if kind == "comment" {
            self.comment(node);
            return false;
        }
        if self.sdp {
            if kind == "field_list" && is_empty_body(node) {
                self.code(node, " {}");
                return false;
            }
        } else if self.ffi_special(node, kind, field) {
            return false;
        }
        if node.child_count() == 0 {
            self.token(node, kind, field);
            return false;
        }
        self.enter(node, kind);
        self.parents.push(kind);
        true
    }

    fn enter(&mut self, node: Node<'t>, kind: &'t str) {
        let body = |indent: usize, top: bool| {
            Frame::Body(Body {
                node: Some(node.id()),
                indent,
                top,
                first: true,
                after_unit: false,
            })
        };
        let frame = match (self.sdp, kind) {
            (_, "source_file") => body(0, true),
            (true, "struct_item") => Frame::Unit(Unit::new(node, UnitKind::Struct)),
            (true, "field_list") | (false, "field_declaration_list") => {
                let indent = self.cur_indent() + 1;
                if indent > MAX_FORMAT_NESTING && self.too_deep.is_none() {
                    self.too_deep = Some(node.start_position());
                }
                body(indent, false)
            }
            (true, "field_declaration") => Frame::Unit(Unit::new(node, UnitKind::SdpField)),
            (false, "field_declaration") => Frame::Unit(Unit::new(node, UnitKind::Field)),
            (false, "package_clause") => Frame::Unit(Unit::new(node, UnitKind::Decl)),
            (false, "type_declaration") => {
                let mut unit = Unit::new(node, UnitKind::Decl);
                unit.group = group_state(node);
                Frame::Unit(unit)
            }
            (false, "type_spec" | "type_alias") if self.in_group() => Frame::Unit(Unit::new(node, UnitKind::Spec)),
            _ => return,
        };
        self.frames.push(frame);
    }

    fn exit(&mut self, node: Node<'t>) {
        self.parents.pop();
        let id = node.id();
        let closes = match self.frames.last() {
            Some(Frame::Body(b)) => b.node == Some(id),
            Some(Frame::Unit(u)) => u.node == id,
            None => false,
        };
        if closes {
            if let Some(Frame::Unit(unit)) = self.frames.pop() {
                self.end_unit(unit);
            }
        }
    }

    /// ffire nodes printed by their position rather than by their tokens. Returns true
    /// when `node` has been printed whole.
    fn ffi_special(&mut self, node: Node<'t>, kind: &'t str, field: Option<&'t str>) -> bool {
        let parent = self.parent();
        match (parent, field) {
            ("field_declaration", Some("type")) => {
                self.cell(false);
                if let Some(Frame::Unit(u)) = self.frames.last_mut() {
                    u.named = true;
                }
            }
            ("field_declaration", Some("tag")) => {
                self.cell(false);
                if let Some(Frame::Unit(u)) = self.frames.last_mut() {
                    u.tag = true;
                }
            }
            ("type_spec", Some("type")) => {
                if self.in_spec() {
                    self.cell(false);
                } else {
                    self.space = true;
                }
            }
            ("type_alias", Some("type")) | ("channel_type", Some("element")) | ("function_type", Some("result")) => {
                self.space = true
            }
            _ => {}
        }
        match kind {
            "import_declaration" | "const_declaration" | "var_declaration" | "function_declaration" => {
                self.frames.push(Frame::Unit(Unit::new(node, UnitKind::Decl)));
                let text = self.verbatim(node);
                self.code(node, &text);
                if let Some(Frame::Unit(unit)) = self.frames.pop() {
                    self.end_unit(unit);
                }
                true
            }
            "field_declaration_list" if is_empty_body(node) => {
                self.code(node, "{}");
                true
            }
            "parameter_list" if parent == "function_type" => {
                self.verbatim_piece(node, "");
                true
            }
            "block" if parent == "interface_type" => {
                if has_child(node, &["{", "}", "\n", ";"], false) {
                    self.verbatim_piece(node, " ");
                } else {
                    self.code(node, "{}");
                }
                true
            }
            _ if parent == "array_type" && field == Some("length") && node.is_named() => {
                self.verbatim_piece(node, "");
                true
            }
            _ => false,
        }
    }

    fn token(&mut self, node: Node<'t>, kind: &'t str, field: Option<&'t str>) {
        let parent = self.parent();
        let text = self.src(node);
        if self.sdp {
            match (parent, kind) {
                ("field_list", "{") => {
                    self.code(node, " {");
                    self.trail = Some(Trail::Space);
                }
                ("field_list", "}") => self.close_body(node, "}"),
                ("field_list", ",") => self.seen(node),
                ("struct_item", _) if field == Some("name") => {
                    self.space = true;
                    self.code(node, text);
                }
                ("field_declaration", ":") => {
                    self.code(node, ":");
                    self.space = true;
                }
                _ => self.code(node, text),
            }
            return;
        }
        match (parent, kind) {
            (_, "\n") => {}
            (_, ";") => self.seen(node),
            ("package_clause", _) if field == Some("name") => {
                self.space = true;
                self.code(node, text);
            }
            ("type_declaration", "(") => self.open_group(node),
            ("type_declaration", ")") => {
                if matches!(self.frames.last(), Some(Frame::Body(b)) if b.node.is_none()) {
                    self.close_body(node, ")");
                    self.frames.pop();
                } else {
                    self.seen(node);
                }
            }
            ("type_spec" | "type_alias", _) if field == Some("name") => {
                if !self.in_spec() {
                    self.space = true;
                }
                self.code(node, text);
            }
            ("type_alias", "=") => {
                if self.in_spec() {
                    self.cell(false);
                } else {
                    self.space = true;
                }
                self.code(node, "=");
                self.space = true;
            }
            ("field_declaration_list", "{") => {
                self.code(node, " {");
                self.set_ff();
                self.trail = Some(Trail::Tabs(0));
            }
            ("field_declaration_list", "}") => self.close_body(node, "}"),
            ("field_declaration", ",") => {
                self.code(node, ",");
                self.space = true;
            }
            (_, "raw_string_literal") => {
                // Go discards every `\r` inside a raw string; so does the formatter (all of
                // them, not only those of CRLF, or formatting twice would differ).
                let text = text.replace('\r', "");
                self.code(node, &text);
            }
            _ => self.code(node, text),
        }
    }

    /// Prints a loosely parsed part of a type (parameters, an interface body, an array
    /// length) as written.
    fn verbatim_piece(&mut self, node: Node<'t>, prefix: &str) {
        let text = self.verbatim(node);
        self.code(node, &(prefix.to_string() + &text));
        if (text.contains("//") || text.contains("/*")) && has_comment(node) {
            if let Some(Frame::Unit(u)) = self.frames.last_mut() {
                u.sealed = true;
            }
        }
    }

    fn open_group(&mut self, node: Node<'t>) {
        let group = match self.frames.last() {
            Some(Frame::Unit(u)) => u.group,
            _ => Group::Open,
        };
        self.space = true;
        if group == Group::Empty {
            self.code(node, "()");
            return;
        }
        self.code(node, "(");
        self.set_ff();
        self.trail = Some(Trail::Tabs(0));
        let indent = self.cur_indent() + 1;
        self.frames.push(Frame::Body(Body {
            node: None,
            indent,
            top: false,
            first: true,
            after_unit: false,
        }));
    }

    fn in_group(&self) -> bool {
        matches!(self.frames.last(), Some(Frame::Body(b)) if b.node.is_none())
    }

    fn in_spec(&self) -> bool {
        matches!(self.frames.last(), Some(Frame::Unit(u)) if u.kind == UnitKind::Spec)
    }

    // ---- output primitives ----

    fn close_cur(&mut self) {
        if let Some(line) = self.cur.take() {
            if !line.is_empty() {
                self.lines.push(line);
            }
        }
    }

    fn cur_indent(&self) -> usize {
        self.cur.as_ref().map_or_else(|| self.body_indent(), |l| l.indent)
    }

    fn body_indent(&self) -> usize {
        self.frames
            .iter()
            .rev()
            .find_map(|f| match f {
                Frame::Body(b) => Some(b.indent),
                Frame::Unit(_) => None,
            })
            .unwrap_or(0)
    }

    fn set_ff(&mut self) {
        if let Some(cur) = self.cur.as_mut() {
            cur.ff = true;
        }
    }

    /// Ends the current cell (`htab`: with a hard tab).
    fn cell(&mut self, htab: bool) {
        self.space = false;
        if let Some(cur) = self.cur.as_mut() {
            let text = std::mem::take(&mut cur.text);
            cur.cells.push(Cell { text, htab });
        }
    }

    fn put(&mut self, s: &str) {
        let space = std::mem::take(&mut self.space);
        let indent = self.body_indent();
        let cur = self.cur.get_or_insert_with(|| Line {
            indent,
            ..Line::default()
        });
        if space && !cur.text.is_empty() {
            cur.text.push(' ');
        }
        cur.text.push_str(s);
    }

    fn seen(&mut self, node: Node<'t>) {
        self.last_row = Some(node.end_position().row);
    }

    /// Prints code text for `node`, starting its item's line if this is its first token.
    fn code(&mut self, node: Node<'t>, s: &str) {
        self.ensure_started(node.start_position().row);
        self.put(s);
        self.seen(node);
    }

    /// Whether an item or comment starting on source row `row` on a line of its own gets
    /// a blank line above it.
    fn blank_before(&mut self, row: usize) -> bool {
        let last_row = self.last_row;
        let body = self.frames.iter_mut().rev().find_map(|f| match f {
            Frame::Body(b) => Some(b),
            Frame::Unit(_) => None,
        });
        let Some(body) = body else {
            return false;
        };
        let blank = if body.first {
            false
        } else if body.top && body.after_unit {
            true
        } else {
            last_row.is_some_and(|r| row > r + 1)
        };
        body.first = false;
        body.after_unit = false;
        blank
    }

    fn ensure_started(&mut self, row: usize) {
        match self.frames.last() {
            Some(Frame::Unit(u)) if !u.started => {}
            _ => return,
        }
        let indent = self.body_indent();
        let blank = self.blank_before(row);
        self.close_cur();
        self.cur = Some(Line {
            indent,
            blank_before: blank,
            ..Line::default()
        });
        self.trail = None;
        self.space = false;
        let first_line = self.lines.len();
        if let Some(Frame::Unit(u)) = self.frames.last_mut() {
            u.started = true;
            u.first_line = first_line;
            u.indent = indent;
        }
    }

    fn close_body(&mut self, node: Node<'t>, s: &str) {
        let indent = match self.frames.last() {
            Some(Frame::Body(b)) => b.indent.saturating_sub(1),
            _ => self.cur_indent(),
        };
        self.close_cur();
        if let Some(last) = self.lines.last_mut() {
            last.ff = true;
        }
        self.cur = Some(Line {
            indent,
            text: s.to_string(),
            ..Line::default()
        });
        self.trail = None;
        self.space = false;
        self.seen(node);
    }

    fn end_unit(&mut self, unit: Unit) {
        if !unit.started {
            return;
        }
        self.space = false;
        self.trail = Some(match unit.kind {
            UnitKind::SdpField => {
                self.put(",");
                Trail::Space
            }
            UnitKind::Struct => Trail::Space,
            UnitKind::Field if unit.tag => Trail::Tabs(0),
            UnitKind::Field if unit.named => Trail::Tabs(1),
            UnitKind::Field => Trail::Tabs(2),
            UnitKind::Decl | UnitKind::Spec => Trail::Tabs(0),
        });
        if self.lines.len() > unit.first_line {
            self.set_ff();
        }
        let body = self.frames.iter_mut().rev().find_map(|f| match f {
            Frame::Body(b) => Some(b),
            Frame::Unit(_) => None,
        });
        if let Some(body) = body {
            body.after_unit = true;
        }
        for text in unit.deferred {
            // Right below the item, as a comment of the body (a blank line at top level).
            let blank_before = self.blank_before(self.last_row.unwrap_or(0));
            self.close_cur();
            self.lines.push(Line {
                indent: unit.indent,
                blank_before,
                text,
                ..Line::default()
            });
            self.trail = None;
        }
    }

    fn comment(&mut self, node: Node<'t>) {
        let text = clean_comment(self.src(node));
        let row = node.start_position().row;
        let end_row = node.end_position().row;
        let single_block = text.starts_with("/*") && !text.contains('\n');
        // Inside an item: above it while its first line is still open, else below it.
        if let Some(Frame::Unit(unit)) = self.frames.last_mut() {
            if unit.started {
                match self.cur.as_mut() {
                    Some(cur) if self.lines.len() == unit.first_line && !unit.sealed => {
                        let blank_before = std::mem::take(&mut cur.blank_before);
                        self.lines.push(Line {
                            indent: cur.indent,
                            blank_before,
                            text,
                            ..Line::default()
                        });
                        unit.first_line += 1;
                    }
                    _ => unit.deferred.push(text),
                }
                self.last_row = Some(end_row);
                return;
            }
        }
        let trailing = match (self.trail, self.cur.is_some()) {
            (Some(t), true) if self.last_row == Some(row) => Some(t),
            _ => None,
        };
        if let Some(t) = trailing {
            match t {
                Trail::Space => {
                    if let Some(cur) = self.cur.as_mut() {
                        cur.text.push(' ');
                        cur.text.push_str(&text);
                    }
                }
                Trail::Tabs(n) => {
                    if n == 0 {
                        self.cell(true);
                    }
                    for _ in 0..n {
                        self.cell(false);
                    }
                    if let Some(cur) = self.cur.as_mut() {
                        cur.text = text;
                    }
                }
            }
            self.trail = single_block.then_some(if self.sdp { Trail::Space } else { Trail::Tabs(0) });
        } else {
            let blank_before = self.blank_before(row);
            let indent = self.body_indent();
            self.close_cur();
            self.cur = Some(Line {
                indent,
                blank_before,
                text,
                ..Line::default()
            });
            self.trail = single_block.then_some(if self.sdp { Trail::Space } else { Trail::Tabs(0) });
        }
        self.last_row = Some(end_row);
    }

    /// The source text of `node` with LF line endings, without trailing whitespace and
    /// with at most one blank line in a row — except where a line ends inside a raw
    /// string literal, whose text is its value.
    fn verbatim(&self, node: Node<'t>) -> String {
        let src = self.src(node);
        if !src.contains('\n') {
            return src.to_string();
        }
        let raws = raw_strings(node);
        let base = node.start_byte();
        let mut out = String::with_capacity(src.len());
        let mut start = 0;
        let mut blank = false;
        for (i, _) in src.match_indices('\n') {
            let line = &src[start..i];
            start = i + 1;
            let at = base + i;
            // `raws` is sorted and disjoint: the last one starting before `at`.
            let k = raws.partition_point(|r| r.0 < at);
            let in_raw = k > 0 && at < raws[k - 1].1;
            if in_raw {
                out.push_str(&line.replace('\r', ""));
                blank = false;
            } else {
                let line = line.trim_end();
                // At most one blank line in a row, as everywhere else.
                if line.is_empty() && blank {
                    continue;
                }
                blank = line.is_empty();
                out.push_str(line);
            }
            out.push('\n');
        }
        out.push_str(&src[start..]);
        out
    }
}

/// Comment text without trailing whitespace on any line (nor the `\r` of CRLF).
fn clean_comment(s: &str) -> String {
    if !s.contains('\n') {
        return s.trim_end().to_string();
    }
    let lines: Vec<&str> = s.split('\n').map(str::trim_end).collect();
    lines.join("\n")
}

/// Byte ranges of the raw string literals under `node`, in order.
fn raw_strings(node: Node) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut cursor = node.walk();
    loop {
        let n = cursor.node();
        if n.kind() == "raw_string_literal" {
            out.push((n.start_byte(), n.end_byte()));
        } else if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.node() == node {
                return out;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return out;
            }
        }
    }
}

/// Whether a comment is under `node`.
fn has_comment(node: Node) -> bool {
    let mut cursor = node.walk();
    loop {
        let n = cursor.node();
        if n.kind() == "comment" {
            return true;
        }
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.node() == node {
                return false;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return false;
            }
        }
    }
}

/// A struct body with no field and no comment.
fn is_empty_body(node: Node) -> bool {
    !has_child(node, &["field_declaration", "comment"], true)
}

/// Whether `node` has a child whose kind is (`matching`) or is not (`!matching`) in `kinds`.
fn has_child(node: Node, kinds: &[&str], matching: bool) -> bool {
    let mut cursor = node.walk();
    if !cursor.goto_first_child() {
        return false;
    }
    loop {
        if kinds.contains(&cursor.node().kind()) == matching {
            return true;
        }
        if !cursor.goto_next_sibling() {
            return false;
        }
    }
}

/// Whether a `type_declaration` is a `( … )` group, and an empty one.
fn group_state(node: Node) -> Group {
    let mut cursor = node.walk();
    let mut group = Group::None;
    if !cursor.goto_first_child() {
        return group;
    }
    loop {
        match cursor.node().kind() {
            "(" => group = Group::Empty,
            "type_spec" | "type_alias" | "comment" if group == Group::Empty => {
                return Group::Open;
            }
            _ => {}
        }
        if !cursor.goto_next_sibling() {
            return group;
        }
    }
}
