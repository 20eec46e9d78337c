//! Parsing with tree-sitter, and turning `ERROR` / `MISSING` nodes into `SYNTAX` diagnostics.

use std::ops::Range;

use tree_sitter::{InputEdit, Language, Node, Parser, Point, Tree};

use crate::diagnostic::Diagnostic;
use crate::dialect::Dialect;
use crate::model::Primitive;
use crate::source::{ColumnUnit, SourceFile};

/// Parses `text`, reusing `old` (already `Tree::edit`ed) for an incremental reparse.
/// Returns `None` only if tree-sitter refuses the language, which would be a build bug.
///
/// Where the text is free of syntax errors the result is the one tree the grammar
/// allows, however it was reached. Where it is not, tree-sitter's error recovery can end
/// differently in an incremental parse than in a fresh one (other `ERROR` nodes, so
/// other syntax diagnostics while the text stays broken), as in every tree-sitter
/// editor. A fresh parse on every keystroke of a broken 5,000-struct file would cost
/// 150 ms instead of a few; the `reparse` fuzz target checks the equality that holds.
pub fn parse(dialect: Dialect, text: &str, old: Option<&Tree>) -> Option<Tree> {
    let mut parser = Parser::new();
    parser.set_language(&dialect.language()).ok()?;
    parser.parse(text, old)
}

/// Replaces the bytes `range` of `source` with `new_text` (`None`: the whole text) and
/// tells `tree` (the previous parse, if any) about it with [`Tree::edit`], so the next
/// [`parse`] is incremental. The language server applies each change of a
/// `didChange` this way; the `incremental` fuzz target checks that the result always
/// analyses like a fresh parse. A range past the end or inside a character is clamped
/// to the nearest character boundary before it.
pub fn apply_edit(source: &mut SourceFile, range: Option<Range<usize>>, new_text: &str, tree: Option<&mut Tree>) {
    let Some(range) = range else {
        *source = SourceFile::new(std::mem::take(&mut source.path), new_text);
        if let Some(t) = tree {
            // A full replacement: make the old tree describe nothing reusable.
            let old_end = t.root_node().end_byte();
            let old_end_position = t.root_node().end_position();
            t.edit(&InputEdit {
                start_byte: 0,
                old_end_byte: old_end,
                new_end_byte: new_text.len(),
                start_position: Point::new(0, 0),
                old_end_position,
                new_end_position: point(source, new_text.len()),
            });
        }
        return;
    };
    let floor = |mut i: usize| {
        i = i.min(source.text.len());
        while !source.text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let start = floor(range.start);
    let end = floor(range.end).max(start);
    let start_position = point(source, start);
    let old_end_position = point(source, end);
    let mut text = std::mem::take(&mut source.text);
    text.replace_range(start..end, new_text);
    *source = SourceFile::new(std::mem::take(&mut source.path), text);
    let new_end = start + new_text.len();
    if let Some(t) = tree {
        t.edit(&InputEdit {
            start_byte: start,
            old_end_byte: end,
            new_end_byte: new_end,
            start_position,
            old_end_position,
            new_end_position: point(source, new_end),
        });
    }
}

/// tree-sitter's point (row, byte column) of a byte offset.
fn point(source: &SourceFile, offset: usize) -> Point {
    let p = source.position(offset, ColumnUnit::Utf8);
    Point::new(p.line as usize, p.column as usize)
}

/// Every syntax error of the tree: each `ERROR` node (not the ones nested inside
/// another) and each `MISSING` node.
pub fn syntax_errors(dialect: Dialect, tree: &Tree, text: &str) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if dialect == Dialect::Ffi {
        out.extend(missing_declaration_separators(tree, text));
    }
    if !tree.root_node().has_error() {
        return out;
    }
    let language = tree.language();
    let mut cursor = tree.walk();
    // Tracked here: `Node::prev_sibling` and `Node::parent` walk down from the root on
    // every call, which is quadratic on a large file with many errors.
    let mut prev_sibling: Option<Node> = None;
    // Per level of the cursor, the brackets the node's ancestors open (see
    // [`Context::opened`]): each node's children are read once, when it is entered.
    // (Reading every ancestor's children again for each error was quadratic: 16,000
    // structs with a stray `;` each took 78 s.)
    let mut opened: Vec<u8> = vec![0];
    loop {
        let node = cursor.node();
        let mut descend = node.has_error();
        if node.is_missing() || node.is_error() {
            let ctx = Context {
                dialect,
                language: &language,
                opened: opened.last().copied().unwrap_or(0),
            };
            if node.is_missing() {
                out.push(missing(&ctx, node, prev_sibling, text));
            } else {
                unexpected(&ctx, node, prev_sibling, text, &mut out);
                // MISSING nodes inside an ERROR are still worth reporting; ERRORs are not.
                collect_missing(&ctx, node, text, &mut out);
            }
            descend = false;
        }
        if descend && cursor.goto_first_child() {
            let inherited = opened.last().copied().unwrap_or(0);
            opened.push(inherited | brackets_opened_by(node));
            prev_sibling = None;
            continue;
        }
        loop {
            let left = cursor.node();
            if cursor.goto_next_sibling() {
                prev_sibling = Some(left);
                break;
            }
            if !cursor.goto_parent() {
                out.sort_by_key(|d| (d.range.start, d.range.end));
                return out;
            }
            opened.pop();
        }
    }
}

/// ffire: two declarations (or the package clause and a declaration) with neither a line
/// end nor `;` between them, which Go rejects. The grammar leaves the separator optional
/// so that recovery can close an unclosed struct with a single invented `}` before the
/// next `type` (a required separator needed a second invented token, and recovery then
/// swallowed the declarations after it); this check reports the separator instead. A
/// declaration that holds a syntax error already has its error.
fn missing_declaration_separators(tree: &Tree, text: &str) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let root = tree.root_node();
    let mut cursor = root.walk();
    let mut previous: Option<Node> = None;
    for node in root.children(&mut cursor) {
        if node.is_extra() || node.is_error() || node.is_missing() {
            continue;
        }
        if node.kind() == ";" {
            previous = None;
            continue;
        }
        if let Some(prev) = previous.filter(|p| !p.has_error()) {
            let between = text.get(prev.end_byte()..node.start_byte()).unwrap_or_default();
            if !between.contains(['\n', '\r']) {
                let at = prev.end_byte();
                out.push(
                    Diagnostic::error(
                        "SYNTAX",
                        at..at,
                        "syntax error: missing a line end or `;` between declarations".to_string(),
                    )
                    .with_label("expected a line end or `;` here".to_string()),
                );
            }
        }
        previous = Some(node);
    }
    out
}

fn collect_missing(ctx: &Context, node: Node, text: &str, out: &mut Vec<Diagnostic>) {
    let mut cursor = node.walk();
    let mut previous = None;
    for child in node.children(&mut cursor) {
        if child.is_missing() {
            out.push(missing(ctx, child, previous, text));
        } else if child.has_error() {
            collect_missing(ctx, child, text, out);
        }
        previous = Some(child);
    }
}

fn missing(ctx: &Context, node: Node, previous: Option<Node>, text: &str) -> Diagnostic {
    let dialect = ctx.dialect;
    let what = node.kind();
    if what == "}" {
        if let Some(d) = unclosed_struct(node, previous, text) {
            return d;
        }
    }
    // Recovery inserts the cheapest token; a missing `u8` in `Option<>` is a missing type.
    // (SDP's grammar spells its primitives as keywords.)
    let what = if dialect == Dialect::Sdp && !node.is_named() && Primitive::from_spelling(dialect, what).is_some() {
        "type".to_string()
    } else if node.is_named() {
        // In the words of the parse state it is missing from: "type", "field name".
        let words = Words::new(ctx, node.parse_state(), previous);
        match words.word(what) {
            Some((_, word)) => word.trim_start_matches("a ").to_string(),
            None => what.replace('_', " "),
        }
    } else {
        format!("`{}`", what.escape_debug())
    };
    Diagnostic::error(
        "SYNTAX",
        node.start_byte()..node.start_byte(),
        format!("syntax error: missing {what}"),
    )
    .with_label(format!("expected {what} here"))
}

/// A struct's missing `}`: recovery puts it where the next token starts, after any
/// comments (usually the next struct's doc comment). Say which struct is open and point
/// just after its last field instead.
fn unclosed_struct(node: Node, previous: Option<Node>, text: &str) -> Option<Diagnostic> {
    let mut owner = node.parent();
    while let Some(n) = owner {
        if matches!(n.kind(), "struct_item" | "type_spec") {
            break;
        }
        owner = n.parent();
    }
    let name = owner?.child_by_field_name("name")?;
    let name_text = text.get(name.byte_range())?;
    let mut last = previous;
    while let Some(p) = last.filter(|p| p.is_extra()) {
        last = p.prev_sibling();
    }
    let at = last.map_or(node.start_byte(), |p| p.end_byte());
    Some(
        Diagnostic::error(
            "SYNTAX",
            at..at,
            format!("syntax error: missing `}}`: struct `{name_text}` is not closed"),
        )
        .with_label(format!("expected `}}` here, to close `{name_text}`"))
        .with_related(name.byte_range(), format!("`{name_text}` starts here")),
    )
}

/// One `ERROR` node. Recovery often wraps complete fields together with the stray
/// tokens after them (`r: u8; g: u8;`): the fields are fine, each run of other tokens
/// between them is an error of its own, and a field followed by another field (or by
/// whatever ended the ERROR) without a separator is a missing separator.
fn unexpected(ctx: &Context, node: Node, prev_sibling: Option<Node>, text: &str, out: &mut Vec<Diagnostic>) {
    let dialect = ctx.dialect;
    let mut cursor = node.walk();
    let children: Vec<Node> = node.children(&mut cursor).collect();
    let complete_field = |n: &Node| n.kind() == "field_declaration" && !n.has_error();
    if let [only] = children.as_slice() {
        if only.kind() == "field_declaration" {
            out.push(missing_separator(dialect, *only, text));
            return;
        }
    }
    if !children.iter().any(complete_field) {
        // SDP: an ERROR that starts a new `name: type` right after a field, with no `,`
        // between them.
        let after_field = prev_sibling.filter(|prev| {
            dialect == Dialect::Sdp
                && complete_field(prev)
                && matches!(
                    first_leaf(node).kind(),
                    "identifier" | "type_identifier" | "field_identifier"
                )
        });
        out.push(match after_field {
            Some(field) => missing_separator(dialect, field, text),
            None => stray(ctx, &[node], text),
        });
        return;
    }
    let mut run: Vec<Node> = Vec::new();
    let mut last_field: Option<Node> = None;
    for child in children {
        if complete_field(&child) {
            if !run.is_empty() {
                out.push(stray(ctx, &run, text));
                run.clear();
            } else if let Some(field) = last_field {
                out.push(missing_separator(dialect, field, text));
            }
            last_field = Some(child);
        } else {
            run.push(child);
        }
    }
    if !run.is_empty() {
        out.push(stray(ctx, &run, text));
    } else if let Some(field) = last_field {
        out.push(missing_separator(dialect, field, text));
    }
}

fn missing_separator(dialect: Dialect, field: Node, text: &str) -> Diagnostic {
    let name = field
        .child_by_field_name("name")
        .and_then(|n| text.get(n.byte_range()))
        .unwrap_or("");
    let end = field.end_byte();
    let sep = match dialect {
        Dialect::Ffi => "a newline or `;`",
        Dialect::Sdp => "`,`",
    };
    Diagnostic::error(
        "SYNTAX",
        end..end,
        format!("syntax error: missing {sep} after field `{name}`"),
    )
    .with_label(format!("expected {sep} here"))
}

/// What an `ERROR` node needs besides itself: its dialect, the language's parse table,
/// and the brackets its ancestors open (a bit per entry of [`BRACKETS`]).
struct Context<'a> {
    dialect: Dialect,
    language: &'a Language,
    opened: u8,
}

/// The opening brackets [`Context::opened`] knows.
const BRACKETS: [&str; 4] = ["{", "(", "[", "<"];

/// The brackets among `node`'s own (anonymous) children, as bits of [`BRACKETS`].
fn brackets_opened_by(node: Node) -> u8 {
    let mut cursor = node.walk();
    let mut mask = 0;
    for child in node.children(&mut cursor) {
        if !child.is_named() {
            if let Some(bit) = BRACKETS.iter().position(|b| *b == child.kind()) {
                mask |= 1 << bit;
            }
        }
    }
    mask
}

/// Consecutive nodes the parser could not place (non-empty).
fn stray(ctx: &Context, nodes: &[Node], text: &str) -> Diagnostic {
    let end = nodes[nodes.len() - 1];
    let (first, expected, incomplete) = match first_unexpected(ctx, nodes) {
        Found::Unexpected(token, expected) => (token, expected, false),
        Found::Incomplete(last, expected) => (last, Some(expected), true),
    };
    let token = text.get(first.byte_range()).unwrap_or("").trim();
    let shown: String = token.chars().take(24).collect();
    let shown = if shown.len() < token.len() {
        format!("{shown}…")
    } else {
        shown
    };
    // Keep the squiggle on one line: an ERROR can swallow the rest of a file.
    let first = if incomplete { first_leaf(nodes[0]) } else { first };
    let range = if first.start_position().row == end.end_position().row {
        first.start_byte()..end.end_byte()
    } else {
        first.byte_range()
    };
    let message = match (&expected, shown.is_empty()) {
        (Some(expected), false) if incomplete => format!("syntax error: expected {expected} after `{shown}`"),
        (Some(expected), false) => format!("syntax error: unexpected `{shown}`: expected {expected}"),
        (Some(expected), true) => format!("syntax error: expected {expected}"),
        (None, false) => format!("syntax error: unexpected `{shown}`"),
        (None, true) => "syntax error".to_string(),
    };
    let label = match &expected {
        Some(expected) => format!("expected {expected}"),
        None => "not expected here".to_string(),
    };
    Diagnostic::error("SYNTAX", range, message).with_label(label)
}

enum Found<'t> {
    /// The first token the parser could not take, and what it would have taken.
    Unexpected(Node<'t>, Option<String>),
    /// Every token was fine but the last (this node) needs more: what it needs.
    Incomplete(Node<'t>, String),
}

/// The first token of `nodes` the parser could not take, and what it would have taken
/// instead (`None` when that cannot be told). Recovery often puts tokens that were fine
/// in the ERROR too (`a u8` for `a: u8`): follow the parse table through them, from the
/// state before the first one (tree-sitter's `parse_state` of the first leaf), to the
/// first that has no transition. A token counts as valid only where
/// [`expected_words`] would list it, so a merged state's stray tokens are unexpected.
fn first_unexpected<'t>(ctx: &Context, nodes: &[Node<'t>]) -> Found<'t> {
    let first = first_leaf(nodes[0]);
    let mut state = first.parse_state();
    let mut previous: Option<Node> = None;
    // Depth-first over the nodes, entering ERROR nodes (recovery nests them).
    let mut stack: Vec<Node> = nodes.iter().rev().copied().collect();
    while let Some(item) = stack.pop() {
        // (Recovery marks the tokens it skips as extras too: only comments are passed.)
        if item.is_extra() && !item.is_error() && !item.has_error() {
            continue;
        }
        if item.is_error() && item.child_count() > 0 {
            let mut cursor = item.walk();
            let children: Vec<Node> = item.children(&mut cursor).collect();
            stack.extend(children.into_iter().rev());
            continue;
        }
        let symbol = item.grammar_id();
        let words = Words::new(ctx, state, previous);
        if item.is_error() || item.is_missing() || !words.accepts(symbol) {
            return Found::Unexpected(first_leaf(item), words.list());
        }
        let next = ctx.language.next_state(state, symbol);
        if next == 0 {
            // A token that reduces before it shifts: the table alone cannot follow it.
            return Found::Unexpected(first, None);
        }
        state = next;
        previous = Some(item);
    }
    match (previous, Words::new(ctx, state, previous).list()) {
        (Some(last), Some(expected)) => Found::Incomplete(last, expected),
        _ => Found::Unexpected(first, None),
    }
}

/// How many alternatives a message lists before "or another token".
const MAX_EXPECTED: usize = 4;

impl Words<'_> {
    /// The tokens valid in the state, in a user's words ("a field name, `,` or `}`"), most
    /// useful first, at most [`MAX_EXPECTED`] and "another token".
    fn list(&self) -> Option<String> {
        let mut listed: Vec<(u8, &str)> = Vec::new();
        for (_, kind) in &self.symbols {
            if let Some(w) = self.word(kind) {
                if !listed.iter().any(|(_, seen)| *seen == w.1) {
                    listed.push(w);
                }
            }
        }
        listed.sort_by_key(|(rank, _)| *rank);
        let mut listed: Vec<String> = listed
            .into_iter()
            .map(|(_, w)| if w.len() == 1 { format!("`{w}`") } else { w.to_string() })
            .collect();
        if listed.len() > MAX_EXPECTED {
            listed.truncate(MAX_EXPECTED);
            listed.push("another token".to_string());
        }
        Some(match listed.as_slice() {
            [] => return None,
            [one] => one.clone(),
            [init @ .., last] => format!("{} or {last}", init.join(", ")),
        })
    }

    /// Whether a node of grammar symbol `symbol` may come here (as the user sees it).
    fn accepts(&self, symbol: u16) -> bool {
        self.symbols
            .iter()
            .any(|(s, kind)| *s == symbol && self.word(kind).is_some())
    }
}

/// The symbols of one parse state and how each reads to a user. tree-sitter merges
/// parse states that agree on their actions, so a state can accept tokens of another
/// context (`>` after `a: u8` because `Option<u8` shares the state, `=` after an ffire
/// field because `var x T = …` does): those get no word, and a closing bracket is kept
/// only inside a node that opened it.
struct Words<'a> {
    ctx: &'a Context<'a>,
    /// The valid symbols and their names.
    symbols: Vec<(u16, &'a str)>,
    previous: Option<&'a str>,
    name: &'static str,
    type_context: bool,
    field_context: bool,
    terminator: bool,
    has_struct: bool,
}

impl<'a> Words<'a> {
    fn new(ctx: &'a Context<'a>, state: u16, previous: Option<Node<'a>>) -> Self {
        let symbols: Vec<(u16, &'a str)> = ctx
            .language
            .lookahead_iterator(state)
            .map(|it| {
                it.filter_map(|s| Some((s, ctx.language.node_kind_for_id(s)?)))
                    .collect()
            })
            .unwrap_or_default();
        let has = |k: &str| symbols.iter().any(|(_, kind)| *kind == k);
        let type_context = match ctx.dialect {
            Dialect::Sdp => has("Option") || has("u8"),
            Dialect::Ffi => has("map") || has("chan"),
        };
        let field_context = has("field_declaration");
        let previous = previous.map(|p| p.kind());
        let name = if type_context {
            "a type"
        } else if field_context {
            "a field name"
        } else {
            match previous {
                Some("struct") => "a struct name",
                Some("type") => "a type name",
                Some("package") => "a package name",
                _ => "a name",
            }
        };
        Words {
            ctx,
            terminator: has("_newline"),
            has_struct: has("struct"),
            symbols,
            previous,
            name,
            type_context,
            field_context,
        }
    }

    /// `(rank, word)`: names and types first, then separators, closing brackets, keywords.
    fn word(&self, kind: &str) -> Option<(u8, &'static str)> {
        let ffi = self.ctx.dialect == Dialect::Ffi;
        Some(match kind {
            "identifier" | "type_identifier" | "field_identifier" | "field_declaration" => (0, self.name),
            k if self.type_context && !ffi && is_sdp_type_start(k) => (0, "a type"),
            k if self.type_context && ffi && is_ffi_type_start(k) => (0, "a type"),
            ":" if !ffi => (1, "`:`"),
            "," => (1, "`,`"),
            "_newline" if ffi => (1, "a newline"),
            ";" if ffi => (1, "`;`"),
            // A tag follows a field's type, inside a struct's braces (the parse state after a type is
            // shared with top-level type declarations, where no tag may follow).
            "raw_string_literal" if ffi && (self.field_context || (self.terminator && self.ctx.opened("{"))) => {
                (1, "a tag")
            }
            "}" if self.ctx.opened("{") => (2, "}"),
            ")" if self.ctx.opened("(") => (2, ")"),
            "]" if self.ctx.opened("[") => (2, "]"),
            ">" if self.ctx.opened("<") => (2, ">"),
            "{" if !ffi || !self.terminator => (3, "{"),
            "<" if !ffi => (3, "<"),
            "struct" | "struct_item" if !ffi => (3, "`struct`"),
            // A declaration may follow one without a separator in the grammar (for error
            // recovery; the separator is checked on its own), not in Go: where a line end
            // is valid, a keyword is not what is expected.
            "type" | "type_declaration" if ffi && !self.terminator => (3, "`type`"),
            "package" | "package_clause" if ffi && !self.has_struct && !self.terminator => (3, "`package`"),
            "(" if ffi && !self.terminator => (3, "("),
            "=" if ffi && self.previous == Some("type_identifier") => (3, "`=`"),
            _ => return None,
        })
    }
}

fn is_sdp_type_start(kind: &str) -> bool {
    matches!(
        kind,
        "[" | "Option" | "Box" | "_type" | "primitive_type" | "array_type" | "option_type" | "box_type"
    ) || Primitive::from_spelling(Dialect::Sdp, kind).is_some()
}

fn is_ffi_type_start(kind: &str) -> bool {
    matches!(
        kind,
        "*" | "["
            | "("
            | "map"
            | "chan"
            | "<-"
            | "func"
            | "interface"
            | "struct"
            | "_type"
            | "_simple_type"
            | "_type_name"
            | "qualified_type"
            | "pointer_type"
            | "slice_type"
            | "array_type"
            | "map_type"
            | "channel_type"
            | "function_type"
            | "struct_type"
            | "interface_type"
            | "parenthesized_type"
    )
}

impl Context<'_> {
    /// Whether an ancestor of the ERROR node has the bracket `opener` (so its closing
    /// bracket may come).
    fn opened(&self, opener: &str) -> bool {
        BRACKETS
            .iter()
            .position(|b| *b == opener)
            .is_some_and(|bit| self.opened & (1 << bit) != 0)
    }
}

fn first_leaf(node: Node) -> Node {
    let mut n = node;
    while let Some(child) = n.child(0) {
        n = child;
    }
    n
}
