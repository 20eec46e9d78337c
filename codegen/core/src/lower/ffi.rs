//! ffire CST → model. The grammar accepts a good part of Go so that everything ffire
//! rejects can be reported here with a precise message instead of a syntax error.

use std::ops::Range;

use tree_sitter::Node;

use super::{
    child, children_through_errors, comment_range, node_text, too_deep, top_kinds, Declarations, FieldName,
    OrderChoice, MAX_TYPE_NESTING,
};
use crate::diagnostic::Diagnostic;
use crate::dialect::Dialect;
use crate::model::FieldOrder;
use crate::model::{Field, OrderSource, Primitive, Schema, TypeDef, TypeExpr, TypeExprKind, TypeKind};

const DIRECTIVE: &str = "//wirelens:order";

pub(super) fn lower(
    text: &str,
    nodes: &[Node],
    choice: OrderChoice,
    diags: &mut Vec<Diagnostic>,
    decls: &mut Declarations,
) -> Schema {
    let mut types = Vec::with_capacity(decls.types_hint());
    let mut package: Option<(String, Range<usize>)> = None;
    let mut directive: Option<(FieldOrder, Range<usize>)> = None;
    let kinds = top_kinds(Dialect::Ffi);
    for (i, node) in nodes.iter().copied().enumerate() {
        let kind = node.kind_id();
        if kind != kinds.comment && kind != kinds.declaration {
            decls.other(node);
        }
        if kind == kinds.comment && !node_text(node, text).starts_with(DIRECTIVE) {
            continue; // the common case, decided without `kind()`
        }
        match node.kind() {
            "comment" => {
                let t = node_text(node, text).trim_end();
                if let Some(rest) = t.strip_prefix(DIRECTIVE) {
                    lower_directive(
                        rest,
                        comment_range(node, text),
                        package.is_some(),
                        &mut directive,
                        diags,
                    );
                }
            }
            "package_clause" => {
                let Some(name) = child(node, Dialect::Ffi, FieldName::Name).filter(|n| !n.is_missing()) else {
                    continue;
                };
                if let Some((_, first)) = &package {
                    diags.push(
                        Diagnostic::error(
                            "duplicate-package",
                            node.byte_range(),
                            "a Go file has exactly one package clause",
                        )
                        .with_related(first.clone(), "first package clause"),
                    );
                } else {
                    package = Some((node_text(name, text).to_string(), node.byte_range()));
                }
            }
            "type_declaration" => decls.declaration(node, text, &mut types, |diags| {
                let mut cursor = node.walk();
                let specs: Vec<Node> = node
                    .named_children(&mut cursor)
                    .flat_map(|c| {
                        if c.is_error() {
                            children_through_errors(c)
                        } else {
                            vec![c]
                        }
                    })
                    .filter(|c| matches!(c.kind(), "type_spec" | "type_alias"))
                    .collect();
                let grouped = specs.len() != 1 || node.child(1).is_some_and(|c| c.kind() == "(");
                let mut defs = Vec::new();
                for spec in specs {
                    // A lone `type T …` takes the comment above `type`; in a group, the one above the spec.
                    let doc_anchor = if grouped { spec } else { node };
                    let docs = doc_comments(&nodes[..i], doc_anchor, text, grouped.then_some(node));
                    if let Some(def) = lower_type_spec(spec, text, docs, diags) {
                        defs.push(def);
                    }
                }
                defs
            }),
            "import_declaration" | "const_declaration" | "var_declaration" | "function_declaration" => {
                let what = match node.kind() {
                    "import_declaration" => "imports",
                    "const_declaration" => "constants",
                    "var_declaration" => "variables",
                    _ => "functions",
                };
                let head = node.child(0).map_or(node.byte_range(), |k| k.byte_range());
                let end = child(node, Dialect::Ffi, FieldName::Name).map_or(head.end, |n| n.end_byte());
                diags.push(
                    Diagnostic::warning(
                        "ignored-declaration",
                        head.start..end,
                        format!("ffire ignores {what}; only type declarations describe the wire format"),
                    )
                    .with_label("ignored"),
                );
            }
            _ => {}
        }
    }
    if package.is_none() {
        let at = nodes
            .iter()
            .find(|n| n.kind() != "comment")
            .map_or(0..0, |n| n.start_byte()..n.start_byte());
        diags.push(
            Diagnostic::error(
                "missing-package",
                at,
                "a .ffi file is a Go source file and must start with `package NAME`",
            )
            .with_note("help: add `package schema` as the first declaration"),
        );
    }
    let (order, order_source) = match (choice, directive) {
        (
            OrderChoice {
                order: Some(o),
                overrides_directive: true,
            },
            _,
        ) => (o, OrderSource::Setting),
        (_, Some((o, range))) => (o, OrderSource::Directive(range)),
        (OrderChoice { order: Some(o), .. }, None) => (o, OrderSource::Setting),
        (OrderChoice { order: None, .. }, None) => (FieldOrder::default(), OrderSource::Default),
    };
    Schema {
        dialect: Dialect::Ffi,
        order,
        order_source,
        package,
        types,
    }
}

fn lower_directive(
    rest: &str,
    range: Range<usize>,
    after_package: bool,
    directive: &mut Option<(FieldOrder, Range<usize>)>,
    diags: &mut Vec<Diagnostic>,
) {
    let value = rest.trim();
    let spaced = rest.starts_with(' ') || rest.starts_with('\t');
    let Some(order) = FieldOrder::parse(value).filter(|_| spaced) else {
        let message = if value.is_empty() {
            format!("`{DIRECTIVE}` needs a field order")
        } else if !spaced && FieldOrder::parse(value).is_some() {
            format!("missing space between `{DIRECTIVE}` and `{value}`")
        } else {
            format!("unknown field order `{value}`")
        };
        diags.push(
            Diagnostic::warning("invalid-directive", range, message)
                .with_note("help: write `//wirelens:order canonical` or `//wirelens:order declaration`"),
        );
        return;
    };
    if after_package {
        diags.push(Diagnostic::warning(
            "invalid-directive",
            range,
            "`//wirelens:order` must come before `package`; it is ignored here",
        ));
    } else if let Some((_, first)) = directive {
        diags.push(
            Diagnostic::warning(
                "invalid-directive",
                range,
                "a second `//wirelens:order` directive is ignored",
            )
            .with_related(first.clone(), "the directive in effect"),
        );
    } else {
        *directive = Some((order, range));
    }
}

/// Go doc comments: the run of `//` lines ending on the line right above `anchor`.
/// `before` holds the siblings preceding the anchor's declaration; `within` limits the
/// search to the comments inside a grouped declaration.
fn doc_comments(before: &[Node], anchor: Node, text: &str, within: Option<Node>) -> Vec<String> {
    let group_children: Vec<Node>;
    let preceding: &[Node] = match within {
        Some(group) => {
            let mut cursor = group.walk();
            group_children = group
                .children(&mut cursor)
                .take_while(|c| c.end_byte() <= anchor.start_byte())
                .collect();
            &group_children
        }
        None => before,
    };
    let mut docs = Vec::new();
    let mut next_row = anchor.start_position().row;
    // Only the comments directly preceding the anchor can be its docs, and only those on
    // lines of their own (a comment ending a code line belongs to that code).
    for (i, c) in preceding.iter().enumerate().rev() {
        let t = node_text(*c, text).trim_end();
        let trailing = i > 0 && preceding[i - 1].end_position().row == c.start_position().row;
        if c.kind() != "comment"
            || trailing
            || c.end_position().row + 1 != next_row
            || !t.starts_with("//")
            || t.starts_with(DIRECTIVE)
        {
            break;
        }
        let line = &t[2..];
        docs.push(line.strip_prefix(' ').unwrap_or(line).to_string());
        next_row = c.start_position().row;
    }
    docs.reverse();
    docs
}

fn lower_type_spec(spec: Node, text: &str, docs: Vec<String>, diags: &mut Vec<Diagnostic>) -> Option<TypeDef> {
    let name_node = child(spec, Dialect::Ffi, FieldName::Name).filter(|n| !n.is_missing())?;
    let ty = child(spec, Dialect::Ffi, FieldName::Type).filter(|n| !n.is_missing())?;
    if let Some(params) = type_parameters(spec, name_node, text) {
        // The grammar has no type parameters: `R[T any]` parsed as a broken array type,
        // which would be reported as a fixed-size array (issue #36).
        diags.push(
            Diagnostic::error(
                "unsupported-type",
                params,
                "ffire schemas have no type parameters (upstream ignores them; a generic type has no one wire layout)",
            )
            .with_note("help: remove the type parameters and use concrete types"),
        );
        return Some(TypeDef {
            name: node_text(name_node, text).to_string(),
            name_range: name_node.byte_range(),
            range: spec.byte_range(),
            docs,
            kind: TypeKind::Alias {
                target: TypeExpr {
                    kind: TypeExprKind::Invalid,
                    range: ty.byte_range(),
                },
                is_alias_decl: false,
            },
        });
    }
    let kind = if spec.kind() == "type_spec" && ty.kind() == "struct_type" {
        let body = child(ty, Dialect::Ffi, FieldName::Body)?;
        TypeKind::Struct {
            fields: lower_fields(body, text, diags),
            body_range: body.byte_range(),
        }
    } else {
        TypeKind::Alias {
            target: lower_type(ty, text, 0, diags),
            is_alias_decl: spec.kind() == "type_alias",
        }
    };
    Some(TypeDef {
        name: node_text(name_node, text).to_string(),
        name_range: name_node.byte_range(),
        range: spec.byte_range(),
        docs,
        kind,
    })
}

/// `[T any]` (or `[K comparable, V any]`) right after a type name in a declaration the
/// parser could not read: Go type parameters, never a fixed-size array length (one
/// expression). Its byte range.
fn type_parameters(spec: Node, name: Node, text: &str) -> Option<Range<usize>> {
    if !spec.has_error() {
        return None;
    }
    // The rest of the name's line (the parameters may lie past the declaration's node).
    let after = text.get(name.end_byte()..)?;
    let after = &after[..after.find(['\n', '\r']).unwrap_or(after.len())];
    let open = after.len() - after.trim_start().len();
    let rest = after[open..].strip_prefix('[')?;
    let close = rest.find(']')?;
    let first = rest[..close].split(',').next()?.trim();
    let mut words = first.split_whitespace();
    let is_ident = |w: &str| w.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_');
    match (words.next(), words.next()) {
        (Some(param), Some(constraint)) if is_ident(param) && !constraint.is_empty() => {
            let start = name.end_byte() + open;
            Some(start..start + close + 2)
        }
        _ => None,
    }
}

/// Error recovery glues what follows a syntax error into a field (`type int32` becomes
/// an embedded `int32`); such a field starts on the line where an `ERROR` sibling ends
/// and gets no diagnostics of its own. (Scanning siblings here, rather than calling
/// `Node::prev_sibling`, which walks down from the root each time.)
fn recovery_debris(body: Node) -> std::collections::HashSet<usize> {
    let mut debris = std::collections::HashSet::new();
    if !body.has_error() {
        return debris;
    }
    let mut stack = vec![body];
    while let Some(parent) = stack.pop() {
        let mut cursor = parent.walk();
        let mut prev: Option<Node> = None;
        for child in parent.children(&mut cursor) {
            if child.kind() == "field_declaration"
                && prev.is_some_and(|p| p.is_error() && p.end_position().row == child.start_position().row)
            {
                debris.insert(child.id());
            }
            if child.is_error() {
                stack.push(child);
            }
            prev = Some(child);
        }
    }
    debris
}

fn lower_fields(body: Node, text: &str, diags: &mut Vec<Diagnostic>) -> Vec<Field> {
    let mut fields = Vec::new();
    let items = children_through_errors(body);
    let debris = recovery_debris(body);
    for (i, decl) in items.iter().copied().enumerate() {
        if decl.kind() != "field_declaration" || debris.contains(&decl.id()) {
            continue;
        }
        let docs = doc_comments(&items[..i], decl, text, None);
        // One walk over the declaration's children instead of a lookup per field name.
        let (mut names, mut ty_node, mut tag_node, mut embedded) = (Vec::new(), None, None, None);
        let mut cursor = decl.walk();
        if cursor.goto_first_child() {
            loop {
                match cursor.field_name() {
                    Some("name") => names.push(cursor.node()),
                    Some("type") => ty_node = Some(cursor.node()),
                    Some("tag") => tag_node = Some(cursor.node()),
                    Some("embedded") => embedded = Some(cursor.node()),
                    _ => {}
                }
                if !cursor.goto_next_sibling() {
                    break;
                }
            }
        }
        // Go discards `\r` inside raw strings (and so does the formatter).
        let tag = tag_node.map(|t| node_text(t, text).trim_matches('`').replace('\r', ""));
        if let Some(embedded) = embedded {
            let name = node_text(embedded, text);
            let field_name = name.rsplit('.').next().unwrap_or(name);
            diags.push(
                Diagnostic::error(
                    "embedded-field",
                    decl.byte_range(),
                    "ffire does not support embedded fields",
                )
                .with_label("embedded field")
                .with_note(format!("help: give it a name: `{field_name} {name}`")),
            );
            continue;
        }
        let Some(ty_node) = ty_node else {
            continue;
        };
        let ty = lower_type(ty_node, text, 0, diags);
        for name_node in names {
            if name_node.is_missing() {
                continue;
            }
            let name = node_text(name_node, text).to_string();
            let json_name = tag
                .as_deref()
                .and_then(|t| json_tag_name(t, decl, diags))
                .unwrap_or_else(|| name.clone());
            fields.push(Field {
                name,
                name_range: name_node.byte_range(),
                range: decl.byte_range(),
                ty: ty.clone(),
                docs: docs.clone(),
                tag: tag.clone(),
                json_name,
            });
        }
    }
    fields
}

/// The name part of a `json:"name,opts"` struct tag, following Go's `reflect.StructTag` syntax.
fn json_tag_name(tag: &str, decl: Node, diags: &mut Vec<Diagnostic>) -> Option<String> {
    let mut rest = tag.trim_start();
    while !rest.is_empty() {
        let Some(colon) = rest.find(':') else { break };
        let key = &rest[..colon];
        let after = &rest[colon + 1..];
        if key.is_empty() || key.contains(|c: char| c.is_whitespace() || c == '"') || !after.starts_with('"') {
            break;
        }
        let mut end = None;
        let mut escaped = false;
        for (i, c) in after.char_indices().skip(1) {
            match c {
                '\\' if !escaped => escaped = true,
                '"' if !escaped => {
                    end = Some(i);
                    break;
                }
                _ => escaped = false,
            }
        }
        let Some(end) = end else { break };
        if key == "json" {
            let value = &after[1..end];
            let name = value.split(',').next().unwrap_or("");
            return (!name.is_empty()).then(|| name.to_string());
        }
        rest = after[end + 1..].trim_start();
    }
    if !rest.trim().is_empty() {
        let range = decl
            .child_by_field_name("tag")
            .map_or(decl.byte_range(), |t| t.byte_range());
        diags.push(
            Diagnostic::warning("malformed-tag", range, "struct tag is not in Go's `key:\"value\"` form")
                .with_note("help: write e.g. `json:\"name,omitempty\"`"),
        );
    }
    None
}

/// What to say about a predeclared Go type ffire has no wire encoding for.
pub(crate) fn unsupported_builtin(name: &str) -> Option<&'static str> {
    Some(match name {
        "int" | "uint" | "uintptr" => "has a platform-dependent size; use int32 or int64",
        "byte" | "uint8" => "is unsigned and ffire has no unsigned types; use int8 (or int16 for 0…255)",
        "uint16" => "is unsigned and ffire has no unsigned types; use int32",
        "uint32" => "is unsigned and ffire has no unsigned types; use int64",
        "uint64" => "is unsigned and ffire has no unsigned types; use int64",
        "rune" => "has no ffire encoding; use int32 or string",
        "complex64" | "complex128" => "has no ffire encoding; use a struct of two floats",
        "error" | "any" => "is an interface and has no ffire encoding",
        _ => return None,
    })
}

fn lower_type(node: Node, text: &str, depth: usize, diags: &mut Vec<Diagnostic>) -> TypeExpr {
    let range = node.byte_range();
    if depth > MAX_TYPE_NESTING {
        diags.push(too_deep(range.clone()));
        return TypeExpr {
            kind: TypeExprKind::Invalid,
            range,
        };
    }
    let mut unsupported = |msg: String, help: &str| {
        diags.push(Diagnostic::error("unsupported-type", range.clone(), msg).with_note(format!("help: {help}")));
        TypeExprKind::Invalid
    };
    let kind = match node.kind() {
        _ if node.is_missing() => TypeExprKind::Invalid,
        "type_identifier" => {
            let name = node_text(node, text);
            // `int`, `byte`, `any`, … are names like any other until resolution: a file
            // may declare `type any struct {…}`, and upstream then uses it (issue #36).
            // An unresolved one is `unsupported-type` (`check::unknown_types`).
            if let Some(p) = Primitive::from_spelling(Dialect::Ffi, name) {
                TypeExprKind::Primitive(p)
            } else {
                TypeExprKind::Named {
                    name: name.to_string(),
                    target: None,
                }
            }
        }
        // Valid Go, but ffire's parser has no case for `(T)` and fails (issue #36).
        "parenthesized_type" => {
            let inner = node.named_child(0).map_or("T", |n| node_text(n, text));
            unsupported(
                format!("ffire does not accept a parenthesised type `{}`", node_text(node, text)),
                &format!("write `{inner}`"),
            )
        }
        "pointer_type" => match child(node, Dialect::Ffi, FieldName::Element) {
            Some(e) => {
                let inner = lower_type(e, text, depth + 1, diags);
                // `**T` means the same as `*T` on the wire.
                if matches!(inner.kind, TypeExprKind::Optional(_)) {
                    return TypeExpr {
                        kind: inner.kind,
                        range,
                    };
                }
                TypeExprKind::Optional(Box::new(inner))
            }
            None => TypeExprKind::Invalid,
        },
        "slice_type" => match child(node, Dialect::Ffi, FieldName::Element) {
            Some(e) => TypeExprKind::Array(Box::new(lower_type(e, text, depth + 1, diags))),
            None => TypeExprKind::Invalid,
        },
        "array_type" => unsupported(
            "fixed-size arrays are not supported by ffire".into(),
            "use a slice `[]T`",
        ),
        "map_type" => unsupported(
            "maps are not supported by ffire".into(),
            "use a slice of key/value structs",
        ),
        "channel_type" => unsupported("channels have no wire encoding".into(), "remove the field"),
        "function_type" => unsupported("functions have no wire encoding".into(), "remove the field"),
        "interface_type" => unsupported("interfaces have no wire encoding".into(), "use a concrete struct type"),
        "struct_type" => unsupported(
            "anonymous structs are not supported by ffire".into(),
            "declare a named struct type and use its name",
        ),
        "qualified_type" => unsupported(
            format!(
                "`{}` comes from another package; ffire schemas are self-contained",
                node_text(node, text)
            ),
            "declare the type in this file",
        ),
        _ => TypeExprKind::Invalid,
    };
    TypeExpr { kind, range }
}
