//! Semantic checks (spec §2, §3.1). Every error in one pass; upstream's codes where
//! upstream has one.

use rustc_hash::FxHashMap as HashMap;

use crate::diagnostic::Diagnostic;
use crate::dialect::Dialect;
use crate::graph::Graph;
use crate::layout::{referenced_types, Layout};
use crate::model::{Schema, TypeDef, TypeExpr, TypeExprKind, TypeKind};
use crate::reserved::reserved_in;

/// ffire's nesting limit: a root value is depth 0, each field or array element adds 1.
pub const MAX_FFI_DEPTH: u32 = 32;

/// Every check: [`check_type`] for each type, then [`check_schema`].
pub fn check(schema: &Schema, text_is_blank: bool) -> Vec<Diagnostic> {
    let mut d: Vec<Diagnostic> = schema
        .types
        .iter()
        .flat_map(|def| check_type(schema.dialect, def))
        .collect();
    d.extend(check_schema(schema, &Graph::new(schema), text_is_blank));
    d
}

/// The checks of one type on its own — its names, its fields, its wrappers: nothing an
/// edit elsewhere in the file can change, so the language server keeps their result for
/// the types an edit did not touch.
pub fn check_type(dialect: Dialect, def: &TypeDef) -> Vec<Diagnostic> {
    let mut d = Vec::new();
    duplicate_fields(dialect, def, &mut d);
    empty_struct(dialect, def, &mut d);
    match dialect {
        Dialect::Sdp => {
            sdp_identifiers(def, &mut d);
            sdp_wrappers(def, &mut d);
        }
        Dialect::Ffi => ffi_identifiers(def, &mut d),
    }
    d
}

/// The checks across types: duplicate names, unknown names, cycles and, for ffire, roots
/// and nesting depth. `graph` is `Graph::new(schema)`.
pub fn check_schema(schema: &Schema, graph: &Graph, text_is_blank: bool) -> Vec<Diagnostic> {
    let mut d = Vec::new();
    duplicate_types(schema, &mut d);
    unknown_types(schema, &mut d);
    cycles(schema, graph, &mut d);
    match schema.dialect {
        Dialect::Sdp => {
            if schema.types.is_empty() {
                d.push(
                    Diagnostic::error(
                        "EMPTY_SCHEMA",
                        0..0,
                        if text_is_blank {
                            "the schema is empty"
                        } else {
                            "the schema declares no structs"
                        },
                    )
                    .with_note("help: declare at least one `struct Name { field: type }`"),
                );
            }
        }
        Dialect::Ffi => {
            let referenced = referenced_types(graph);
            ffi_roots(schema, &referenced, &mut d);
            ffi_depth(schema, graph, &referenced, &mut d);
            ffi_ignored_pointers(schema, &mut d);
            ffi_false_cycles(schema, graph, &mut d);
        }
    }
    d
}

/// Lints that need the layout: SDP structs whose fixed fields are split by variable ones.
pub fn layout_lints(schema: &Schema, layout: &Layout) -> Vec<Diagnostic> {
    (0..schema.types.len())
        .filter_map(|id| layout_lint(schema, layout, id))
        .collect()
}

/// [`layout_lints`] for type `id`: a function of the type and its layout only.
pub fn layout_lint(schema: &Schema, layout: &Layout, id: usize) -> Option<Diagnostic> {
    if schema.dialect != Dialect::Sdp {
        return None;
    }
    {
        let def = schema.types.get(id)?;
        let t = layout.get(id)?;
        let fields = def.fields();
        // The layout's fixed blocks are the copies generated code makes; more than one
        // means a variable-size field splits the fixed-size fields.
        if t.blocks.len() < 2 {
            return None;
        }
        let total: u64 = t.blocks.iter().map(|b| b.size).sum();
        let stranded: Vec<&crate::model::Field> = t.blocks[1..]
            .iter()
            .flat_map(|b| &b.leaves)
            .filter_map(|l| fields.get(*l.path.first()?))
            .collect();
        let names: Vec<String> = stranded.iter().map(|f| format!("`{}`", f.name)).collect();
        let first = stranded.first()?;
        Some(
            Diagnostic::info(
                "split-fixed-block",
                first.name_range.clone(),
                format!("variable-size fields split the fixed-size fields of `{}` into {} blocks", def.name, t.blocks.len()),
            )
            .with_label(format!("fixed again after a variable-size field ({})", names.join(", ")))
            .with_note(format!(
                "help: declaring the fixed-size fields first gives one {total} B block that generated code reads and writes with one copy; this changes the wire format"
            )),
        )
    }
}

fn duplicate_types(schema: &Schema, d: &mut Vec<Diagnostic>) {
    let (code, what) = match schema.dialect {
        Dialect::Sdp => ("DUPLICATE_STRUCT", "struct"),
        Dialect::Ffi => ("duplicate-type", "type"),
    };
    let mut seen: HashMap<&str, &TypeDef> = HashMap::default();
    for def in &schema.types {
        if let Some(first) = seen.get(def.name.as_str()) {
            d.push(
                Diagnostic::error(
                    code,
                    def.name_range.clone(),
                    format!("{what} `{}` is defined more than once", def.name),
                )
                .with_label("redefined here")
                .with_related(first.name_range.clone(), "first defined here"),
            );
        } else {
            seen.insert(&def.name, def);
        }
    }
}

fn duplicate_fields(dialect: Dialect, def: &TypeDef, d: &mut Vec<Diagnostic>) {
    let code = match dialect {
        Dialect::Sdp => "DUPLICATE_FIELD",
        Dialect::Ffi => "duplicate-field",
    };
    let fields = def.fields();
    if fields.len() < 2 {
        return;
    }
    let mut names: HashMap<&str, &crate::model::Field> = HashMap::default();
    let mut json: HashMap<&str, &crate::model::Field> = HashMap::default();
    for f in fields {
        if let Some(first) = names.get(f.name.as_str()) {
            d.push(
                Diagnostic::error(
                    code,
                    f.name_range.clone(),
                    format!("field `{}` is declared more than once in `{}`", f.name, def.name),
                )
                .with_label("redeclared here")
                .with_related(first.name_range.clone(), "first declared here"),
            );
            continue;
        }
        names.insert(&f.name, f);
        if dialect == Dialect::Ffi {
            if let Some(first) = json.get(f.json_name.as_str()) {
                d.push(
                    Diagnostic::error(
                        "duplicate-json-name",
                        f.name_range.clone(),
                        format!(
                            "fields `{}` and `{}` of `{}` both use the JSON name `{}`",
                            first.name, f.name, def.name, f.json_name
                        ),
                    )
                    .with_label("same JSON name")
                    .with_related(first.name_range.clone(), "first used here"),
                );
            } else {
                json.insert(&f.json_name, f);
            }
        }
    }
}

fn each_type_expr(schema: &Schema) -> impl Iterator<Item = &TypeExpr> {
    schema.types.iter().flat_map(TypeDef::type_exprs)
}

fn unknown_types(schema: &Schema, d: &mut Vec<Diagnostic>) {
    let primitives: &[&str] = match schema.dialect {
        Dialect::Sdp => &SDP_PRIMITIVES,
        Dialect::Ffi => &FFI_PRIMITIVES,
    };
    // Built once, and only when some name is unknown: before, every unknown name was
    // compared with every type name (1.3 MB of schema, 14 s per keystroke).
    let mut suggest: Option<Suggestions> = None;
    for ty in each_type_expr(schema) {
        if let Some((name, None, range)) = ty.named_ref() {
            let builtin = crate::lower::unsupported_builtin(name);
            let suggest = suggest.get_or_insert_with(|| {
                Suggestions::new(
                    schema
                        .types
                        .iter()
                        .map(|t| t.name.as_str())
                        .chain(primitives.iter().copied()),
                )
            });
            let diag = match schema.dialect {
                Dialect::Sdp => {
                    let mut diag = Diagnostic::error("UNKNOWN_TYPE", range, format!("unknown type `{name}`"))
                        .with_label("not a primitive or a struct in this file");
                    if let Some(hint) = sdp_common_type(name).or_else(|| suggest.closest(name)) {
                        diag = diag.with_note(format!("help: did you mean `{hint}`?"));
                    }
                    diag
                }
                // `int`, `byte`, `any`, … that the file does not declare itself.
                Dialect::Ffi if builtin.is_some() => {
                    let why = builtin.unwrap_or_default();
                    Diagnostic::error("unsupported-type", range, format!("`{name}` {why}")).with_note(
                        "help: ffire's types are bool, int8, int16, int32, int64, float32, float64 and string",
                    )
                }
                Dialect::Ffi => {
                    let mut diag = Diagnostic::error("E005", range, format!("undefined type `{name}`"))
                        .with_label("not declared in this file");
                    if let Some(hint) = suggest.closest(name) {
                        diag = diag.with_note(format!("help: did you mean `{hint}`?"));
                    }
                    diag
                }
            };
            d.push(diag);
        }
    }
}

const SDP_PRIMITIVES: [&str; 12] = [
    "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f32", "f64", "bool", "str",
];
const FFI_PRIMITIVES: [&str; 8] = [
    "bool", "int8", "int16", "int32", "int64", "float32", "float64", "string",
];

/// Other languages' names for SDP's primitives.
fn sdp_common_type(name: &str) -> Option<&'static str> {
    match name {
        "string" | "String" | "&str" => Some("str"),
        "usize" | "uint" => Some("u64"),
        "f" | "float" => Some("f32"),
        "double" => Some("f64"),
        "byte" => Some("u8"),
        _ => None,
    }
}

/// Longer unknown names get no suggestion: a name's limit is a third of its length, and
/// comparing two names costs the product of their lengths.
const MAX_SUGGESTED_LEN: usize = 64;

/// Most candidates compared with one unknown name. Where more names have a length within
/// reach, the ones nearest to it in alphabetical order and in the order of their reversed
/// spellings are compared (a typo rarely changes both ends of a name), so the cost per
/// unknown name is bounded however many types a schema declares.
const MAX_COMPARED: usize = 64;

/// "Did you mean": the known names (types, then primitives) within a small edit
/// distance of an unknown one, found in bounded time. Exactly the first nearest
/// candidate in declaration order where at most [`MAX_COMPARED`] names have a length
/// within reach, which is every ordinary schema.
struct Suggestions<'a> {
    /// Distinct names in declaration order, with their ASCII-lowercased characters;
    /// those longer than any suggestion can be are left out.
    names: Vec<(&'a str, Vec<char>)>,
    /// Per length in characters: indices into `names`, in declaration order, in the
    /// order of the lowercased spelling, and in the order of the reversed lowercased
    /// spelling.
    by_len: HashMap<usize, Bucket>,
    /// Unknown names already looked up (a misspelt name is often used more than once).
    memo: HashMap<&'a str, Option<&'a str>>,
}

#[derive(Default)]
struct Bucket {
    declared: Vec<u32>,
    forward: Vec<u32>,
    backward: Vec<u32>,
}

fn limit_for(len: usize) -> usize {
    (len / 3).max(1)
}

impl<'a> Suggestions<'a> {
    fn new(candidates: impl Iterator<Item = &'a str>) -> Self {
        let longest = MAX_SUGGESTED_LEN + limit_for(MAX_SUGGESTED_LEN);
        let mut seen: std::collections::HashSet<&str, rustc_hash::FxBuildHasher> = Default::default();
        let mut names = Vec::new();
        let mut by_len: HashMap<usize, Bucket> = HashMap::default();
        for c in candidates {
            if c.len() > 4 * longest || !seen.insert(c) {
                continue;
            }
            let lower: Vec<char> = c.chars().map(|ch| ch.to_ascii_lowercase()).collect();
            if lower.len() > longest {
                continue;
            }
            by_len.entry(lower.len()).or_default().declared.push(names.len() as u32);
            names.push((c, lower));
        }
        for bucket in by_len.values_mut() {
            let mut forward = bucket.declared.clone();
            forward.sort_by(|a, b| names[*a as usize].1.cmp(&names[*b as usize].1));
            let mut backward = bucket.declared.clone();
            backward.sort_by(|a, b| {
                let (x, y) = (&names[*a as usize].1, &names[*b as usize].1);
                x.iter().rev().cmp(y.iter().rev())
            });
            bucket.forward = forward;
            bucket.backward = backward;
        }
        Suggestions {
            names,
            by_len,
            memo: Default::default(),
        }
    }

    /// The candidate within a small edit distance of `name` (ASCII case ignored), if
    /// any: the nearest, the first declared among equals; never `name` itself.
    fn closest(&mut self, name: &'a str) -> Option<&'a str> {
        if let Some(known) = self.memo.get(name) {
            return *known;
        }
        let found = self.search(name);
        self.memo.insert(name, found);
        found
    }

    fn search(&self, name: &str) -> Option<&'a str> {
        if name.len() > 4 * MAX_SUGGESTED_LEN {
            return None;
        }
        let lower: Vec<char> = name.chars().map(|ch| ch.to_ascii_lowercase()).collect();
        if lower.len() > MAX_SUGGESTED_LEN {
            return None;
        }
        let limit = limit_for(lower.len());
        let lengths = lower.len().saturating_sub(limit)..=lower.len() + limit;
        let buckets: Vec<&Bucket> = lengths.filter_map(|l| self.by_len.get(&l)).collect();
        let total: usize = buckets.iter().map(|b| b.declared.len()).sum();
        let mut chosen: Vec<u32> = if total <= MAX_COMPARED {
            buckets.iter().flat_map(|b| b.declared.iter().copied()).collect()
        } else {
            // The neighbours of `name` in both orders of every bucket, a share each.
            let share = (MAX_COMPARED / (4 * buckets.len())).max(1);
            let mut chosen = Vec::with_capacity(MAX_COMPARED);
            for b in &buckets {
                let at = b.forward.partition_point(|i| self.names[*i as usize].1 < lower);
                take_around(&b.forward, at, share, &mut chosen);
                let at = b
                    .backward
                    .partition_point(|i| self.names[*i as usize].1.iter().rev().lt(lower.iter().rev()));
                take_around(&b.backward, at, share, &mut chosen);
            }
            chosen.sort_unstable();
            chosen.dedup();
            chosen
        };
        chosen.sort_unstable();
        let mut best: Option<(usize, &'a str)> = None;
        let mut rows = (Vec::new(), Vec::new());
        for i in chosen {
            let (candidate, spelling) = &self.names[i as usize];
            if *candidate == name {
                continue;
            }
            let bound = best.map_or(limit, |(d, _)| d.saturating_sub(1));
            if let Some(d) = bounded_edit_distance(&lower, spelling, bound, &mut rows) {
                if best.is_none_or(|(b, _)| d < b) {
                    best = Some((d, candidate));
                }
            }
        }
        best.map(|(_, c)| c)
    }
}

/// Up to `share` items of `sorted` on each side of position `at`.
fn take_around(sorted: &[u32], at: usize, share: usize, out: &mut Vec<u32>) {
    let start = at.saturating_sub(share);
    let end = (at + share).min(sorted.len());
    out.extend_from_slice(&sorted[start..end]);
}

/// The edit distance of `a` and `b` if it is at most `bound`: only the diagonal band
/// the bound allows is computed, and the search stops as soon as no cell of a row is
/// within it. `rows` is scratch space.
fn bounded_edit_distance(a: &[char], b: &[char], bound: usize, rows: &mut (Vec<usize>, Vec<usize>)) -> Option<usize> {
    if a.len().abs_diff(b.len()) > bound {
        return None;
    }
    let far = bound + 1;
    let (prev, cur) = rows;
    prev.clear();
    prev.extend((0..=b.len()).map(|j| j.min(far)));
    cur.clear();
    cur.resize(b.len() + 1, far);
    for (i, ca) in a.iter().enumerate() {
        let row = i + 1;
        let lo = row.saturating_sub(bound);
        let hi = (row + bound).min(b.len());
        cur.fill(far);
        if lo == 0 {
            cur[0] = row.min(far);
        }
        let mut row_min = cur[0];
        for j in lo.max(1)..=hi {
            let substitute = prev[j - 1] + usize::from(*ca != b[j - 1]);
            let v = substitute.min(prev[j] + 1).min(cur[j - 1] + 1).min(far);
            cur[j] = v;
            row_min = row_min.min(v);
        }
        if row_min > bound {
            return None;
        }
        std::mem::swap(prev, cur);
    }
    Some(prev[b.len()]).filter(|d| *d <= bound)
}

fn empty_struct(dialect: Dialect, def: &TypeDef, d: &mut Vec<Diagnostic>) {
    let code = match dialect {
        Dialect::Sdp => "EMPTY_STRUCT",
        Dialect::Ffi => "E006",
    };
    if let TypeKind::Struct { fields, .. } = &def.kind {
        if fields.is_empty() {
            d.push(
                Diagnostic::error(
                    code,
                    def.name_range.clone(),
                    format!("struct `{}` has no fields", def.name),
                )
                .with_label("empty struct")
                .with_note("help: an empty struct has no wire encoding; add a field or remove the struct"),
            );
        }
    }
}

/// Most types named in one cycle's message and related locations: a ring of thousands
/// of structs is still one readable diagnostic of bounded size.
const CYCLE_SHOWN: usize = 8;

fn cycles(schema: &Schema, graph: &Graph, d: &mut Vec<Diagnostic>) {
    let code = match schema.dialect {
        Dialect::Sdp => "CIRCULAR_REFERENCE",
        Dialect::Ffi => "E010",
    };
    let name = |t: usize| schema.types[t].name.as_str();
    for c in &graph.cycles {
        let mut names: Vec<&str> = c.path.iter().take(CYCLE_SHOWN).map(|&t| name(t)).collect();
        if c.path.len() > CYCLE_SHOWN {
            names.push("…");
        }
        names.push(name(c.path[0]));
        let mut message = format!("circular reference: {}", names.join(" → "));
        if c.path.len() > CYCLE_SHOWN {
            message.push_str(&format!(" (a cycle through {} types)", c.path.len()));
        }
        let mut diag = Diagnostic::error(code, c.closing.range.clone(), message)
            .with_label("this reference closes the cycle")
            .with_note(match schema.dialect {
                Dialect::Sdp => "help: SDP has no recursive types, not even through `Option`, `Box` or `[]`",
                Dialect::Ffi => "help: ffire has no recursive types, not even through `*T` or `[]T`",
            });
        if c.members.len() > c.path.len() {
            diag = diag.with_note(format!(
                "note: {} types depend on each other here; this is one of their cycles",
                c.members.len()
            ));
        }
        for &t in c.path.iter().take(CYCLE_SHOWN) {
            diag = diag.with_related(
                schema.types[t].name_range.clone(),
                format!("`{}` is part of the cycle", name(t)),
            );
        }
        d.push(diag);
    }
}

fn sdp_identifiers(def: &TypeDef, d: &mut Vec<Diagnostic>) {
    let mut check = |name: &str, range: &std::ops::Range<usize>, what: &str| {
        // sdp-gen's rule: `[A-Za-z_][A-Za-z0-9_]*` (`_edge`, `x__y` and `_` included).
        let valid = name
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if !valid {
            d.push(
                Diagnostic::error(
                    "INVALID_IDENTIFIER",
                    range.clone(),
                    format!("`{name}` is not a valid {what} name"),
                )
                .with_label("invalid identifier")
                .with_note(
                    "help: names start with an ASCII letter or `_` and contain only ASCII letters, digits and `_`",
                ),
            );
            return;
        }
        let langs = reserved_in(name);
        if !langs.is_empty() {
            let list = match langs.as_slice() {
                [one] => one.to_string(),
                [init @ .., last] => format!("{} and {last}", init.join(", ")),
                [] => String::new(),
            };
            d.push(
                Diagnostic::error(
                    "RESERVED_KEYWORD",
                    range.clone(),
                    format!("`{name}` is reserved in {list}"),
                )
                .with_label("reserved word")
                .with_note("help: rename it (sdp-gen rejects reserved words, compared case-insensitively)"),
            );
        }
    };
    check(&def.name, &def.name_range, "struct");
    for f in def.fields() {
        check(&f.name, &f.name_range, "field");
    }
}

/// `Option<T>` and `Box<T>` need a struct (nested ones were collapsed while lowering,
/// as sdp-gen does); nested arrays and arrays of options are fine on the wire but upstream's generators break on them (one warning per run of
/// nested arrays: `[][][]u8` is one problem, not two).
fn sdp_wrappers(def: &TypeDef, d: &mut Vec<Diagnostic>) {
    for ty in def.type_exprs() {
        // (expression, directly inside an array, a nested-array warning already covers it)
        let mut stack = vec![(ty, false, false)];
        while let Some((t, in_array, gap_reported)) = stack.pop() {
            match &t.kind {
                TypeExprKind::Optional(inner) => {
                    let unboxed = match &inner.kind {
                        TypeExprKind::Boxed(b) => b.as_ref(),
                        _ => inner.as_ref(),
                    };
                    match &unboxed.kind {
                        TypeExprKind::Primitive(p) => d.push(
                            Diagnostic::error("OPTION_PRIMITIVE", t.range.clone(), format!("`Option` needs a struct, not `{}`", p.spelling(Dialect::Sdp).unwrap_or("?")))
                                .with_label("option of a primitive")
                                .with_note("help: wrap the value in a struct, e.g. `struct MaybeValue { value: u32 }`, and use `Option<MaybeValue>`"),
                        ),
                        TypeExprKind::Array(_) => d.push(
                            Diagnostic::error("OPTION_ARRAY", t.range.clone(), "`Option` needs a struct, not an array")
                                .with_label("option of an array")
                                .with_note("help: wrap the array in a struct, e.g. `struct TagList { items: []str }`, and use `Option<TagList>`"),
                        ),
                        _ => {}
                    }
                    if in_array {
                        d.push(gap(t, "arrays of `Option`"));
                    }
                    stack.push((inner, false, false));
                }
                TypeExprKind::Boxed(inner) => {
                    if !matches!(inner.kind, TypeExprKind::Named { .. } | TypeExprKind::Invalid) {
                        d.push(
                            Diagnostic::error(
                                "BOX_NON_STRUCT",
                                t.range.clone(),
                                format!("`Box` needs a struct, not `{}`", inner.display(Dialect::Sdp)),
                            )
                            .with_label("box of a non-struct")
                            .with_note("help: `Box` has no effect on the wire; remove it"),
                        );
                    }
                    stack.push((inner, false, false));
                }
                TypeExprKind::Array(inner) => {
                    if in_array && !gap_reported {
                        d.push(gap(t, "nested arrays"));
                    }
                    stack.push((inner, true, in_array));
                }
                _ => {}
            }
        }
    }
}

fn gap(t: &TypeExpr, what: &str) -> Diagnostic {
    Diagnostic::warning(
        "upstream-generator-gap",
        t.range.clone(),
        format!("sdp-gen accepts {what} but its generators emit broken code for them"),
    )
    .with_label("fine in wirelens, broken in sdp-gen output")
}

/// Field names may be any Go identifier (`straße`, as upstream accepts; the generators
/// map them to ASCII); type names must be ASCII, since they name generated types and
/// decide which types are roots. `_` is never a usable name.
fn ffi_identifiers(def: &TypeDef, d: &mut Vec<Diagnostic>) {
    let mut check = |name: &str, range: &std::ops::Range<usize>, what: &str, ascii: bool| {
        let valid = if ascii {
            name.bytes()
                .next()
                .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
                && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        } else {
            // Go's rule; the grammar's identifiers already follow it.
            name.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_alphanumeric() || c == '_')
        } && name != "_";
        if !valid {
            d.push(
                Diagnostic::error(
                    "invalid-identifier",
                    range.clone(),
                    format!("`{name}` is not a usable {what} name"),
                )
                .with_label("invalid identifier")
                .with_note(if ascii {
                    "help: type names need ASCII letters, digits and `_` (they name the generated types)"
                } else {
                    "help: `_` is a blank field in Go and has no name to encode under"
                }),
            );
        }
    };
    check(&def.name, &def.name_range, "type", true);
    for f in def.fields() {
        check(&f.name, &f.name_range, "field", false);
    }
}

/// Upstream ffire reports `E010 circular reference detected: ` (with an empty name) for
/// some acyclic schemas: its resolver copies a struct referenced as `*S` (or `[]*S`)
/// before `S`'s own declaration has been processed, and the copy has no name; two such
/// copies on one path of its cycle search look like the same type. So a path of
/// references with two of these forward `*` edges is refused upstream. wirelens accepts
/// the schema (it is acyclic and the wire is well defined) and warns at the first edge.
fn ffi_false_cycles(schema: &Schema, graph: &Graph, d: &mut Vec<Diagnostic>) {
    if !graph.cycles.is_empty() {
        return; // E010 already, and `order` is not a dependency order
    }
    let forward_pointer = |from: usize, e: &crate::graph::Edge| {
        let Some(f) = e.field.and_then(|i| schema.types.get(from)?.fields().get(i)) else {
            return false;
        };
        let mut t = &f.ty;
        while let TypeExprKind::Array(inner) = &t.kind {
            t = inner;
        }
        matches!(&t.kind, TypeExprKind::Optional(inner) if matches!(inner.kind, TypeExprKind::Named { .. }))
            && e.to > from
            && matches!(schema.types.get(e.to).map(|t| &t.kind), Some(TypeKind::Struct { .. }))
    };
    // The most forward `*` edges on any path from each type (dependencies come first).
    let mut most = vec![0u32; schema.types.len()];
    for &t in &graph.order {
        let m = graph
            .edges(t)
            .iter()
            .map(|e| u32::from(forward_pointer(t, e)) + most.get(e.to).copied().unwrap_or(0))
            .max()
            .unwrap_or(0);
        if let Some(slot) = most.get_mut(t) {
            *slot = m;
        }
    }
    for t in 0..schema.types.len() {
        for e in graph.edges(t) {
            if forward_pointer(t, e) && most.get(e.to).is_some_and(|&m| m >= 1) {
                let name = |id: usize| schema.types.get(id).map_or("?", |t| t.name.as_str());
                d.push(
                    Diagnostic::warning(
                        "upstream-false-cycle",
                        e.range.clone(),
                        format!(
                            "upstream ffire refuses this declaration order (`E010 circular reference detected: ` with no name): `{}` is declared after `{}`, which points to it",
                            name(e.to),
                            name(t)
                        ),
                    )
                    .with_label("wirelens accepts it; ffire does not")
                    .with_note(format!("help: declare `{}` before `{}`", name(e.to), name(t))),
                );
            }
        }
    }
}

/// ffire `*Count` where `Count` names a primitive (`type Count int32`, `type Name
/// string`): upstream drops the `*` (no presence byte, the value is required), and so
/// does the layout (`layout::wire_of`). Say so where the user wrote it.
fn ffi_ignored_pointers(schema: &Schema, d: &mut Vec<Diagnostic>) {
    // The primitive a named type stands for, following `type A B` chains (bounded: a
    // cycle of aliases is reported elsewhere).
    let primitive_of = |mut id: usize| {
        for _ in 0..=schema.types.len() {
            match &schema.types.get(id)?.kind {
                TypeKind::Alias { target, .. } => match &target.kind {
                    TypeExprKind::Primitive(p) => return Some(*p),
                    TypeExprKind::Named { target: Some(next), .. } => id = *next,
                    _ => return None,
                },
                TypeKind::Struct { .. } => return None,
            }
        }
        None
    };
    for ty in each_type_expr(schema) {
        let mut stack = vec![ty];
        while let Some(t) = stack.pop() {
            match &t.kind {
                TypeExprKind::Optional(inner) => {
                    if let TypeExprKind::Named { name, target: Some(id) } = &inner.kind {
                        if let Some(p) = primitive_of(*id) {
                            let spelled = p.spelling(Dialect::Ffi).unwrap_or("?");
                            d.push(
                                Diagnostic::warning(
                                    "ignored-pointer",
                                    t.range.start..inner.range.start,
                                    format!("`*` does nothing here: `{name}` is `{spelled}`, and ffire writes `*{name}` as a plain, required `{spelled}`"),
                                )
                                .with_label("no presence byte on the wire")
                                .with_note(format!("help: write `{name}`; for an optional value use `*{spelled}`")),
                            );
                        }
                    }
                    stack.push(inner);
                }
                TypeExprKind::Array(inner) | TypeExprKind::Boxed(inner) => stack.push(inner),
                _ => {}
            }
        }
    }
}

fn ffi_roots(schema: &Schema, referenced: &[bool], d: &mut Vec<Diagnostic>) {
    let mut roots = 0;
    for (id, def) in schema.types.iter().enumerate() {
        if referenced[id] {
            continue;
        }
        if def.is_exported() {
            roots += 1;
        } else {
            d.push(
                Diagnostic::warning("unused-type", def.name_range.clone(), format!("type `{}` is neither used nor a root", def.name))
                    .with_label("unused")
                    .with_note("help: roots are exported (upper-case) types that no other type uses; capitalise the name to make it a message type"),
            );
        }
    }
    if roots == 0 {
        let at = schema.package.as_ref().map_or(0..0, |(_, r)| r.clone());
        d.push(
            Diagnostic::error("E002", at, "no root type: ffire needs at least one exported type that no other type uses")
                .with_note("help: roots are the message types; declare e.g. `type Message struct { … }` and do not reference it elsewhere"),
        );
    }
}

/// E011: the deepest value under each root, computed bottom-up in dependency order.
fn ffi_depth(schema: &Schema, graph: &Graph, referenced: &[bool], d: &mut Vec<Diagnostic>) {
    let (order, bad) = (&graph.order, &graph.unresolvable);
    // depth[t] = how many levels a value of type t adds below itself.
    let mut depth: Vec<u32> = vec![0; schema.types.len()];
    fn expr_depth(t: &TypeExpr, depth: &[u32]) -> u32 {
        match &t.kind {
            TypeExprKind::Named { target: Some(id), .. } => depth[*id],
            TypeExprKind::Array(e) => 1 + expr_depth(e, depth),
            TypeExprKind::Optional(e) | TypeExprKind::Boxed(e) => expr_depth(e, depth),
            _ => 0,
        }
    }
    for &id in order {
        if bad[id] {
            continue;
        }
        depth[id] = match &schema.types[id].kind {
            TypeKind::Struct { fields, .. } => fields.iter().map(|f| 1 + expr_depth(&f.ty, &depth)).max().unwrap_or(0),
            TypeKind::Alias { target, .. } => expr_depth(target, &depth),
        };
    }
    for (id, def) in schema.types.iter().enumerate() {
        if !bad[id] && !referenced[id] && depth[id] > MAX_FFI_DEPTH {
            d.push(
                Diagnostic::error(
                    "E011",
                    def.name_range.clone(),
                    format!(
                        "`{}` nests {} levels deep; ffire allows {MAX_FFI_DEPTH}",
                        def.name, depth[id]
                    ),
                )
                .with_label("too deep")
                .with_note("help: each field and each array element is one level; flatten the structure"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    /// The plain dynamic programme, for comparison.
    fn edit_distance(a: &[char], b: &[char]) -> usize {
        let mut prev: Vec<usize> = (0..=b.len()).collect();
        for (i, ca) in a.iter().enumerate() {
            let mut cur = vec![i + 1];
            for (j, cb) in b.iter().enumerate() {
                cur.push((prev[j] + usize::from(ca != cb)).min(prev[j + 1] + 1).min(cur[j] + 1));
            }
            prev = cur;
        }
        prev[b.len()]
    }

    #[test]
    fn the_bounded_distance_is_the_distance_within_its_bound() {
        let words = [
            "", "a", "ab", "ba", "abc", "kitten", "sitting", "Option", "optoin", "u32", "u8", "string", "str",
        ];
        for a in words {
            for b in words {
                let (a, b) = (chars(a), chars(b));
                let exact = edit_distance(&a, &b);
                for bound in 0..8 {
                    let expected = Some(exact).filter(|d| *d <= bound);
                    let mut rows = Default::default();
                    assert_eq!(
                        bounded_edit_distance(&a, &b, bound, &mut rows),
                        expected,
                        "{a:?} {b:?} {bound}"
                    );
                }
            }
        }
    }

    #[test]
    fn suggestions_are_the_first_nearest_name_and_found_among_many() {
        let mut few = Suggestions::new(["Pointt", "Point", "Paint", "u32"].into_iter());
        assert_eq!(few.closest("Pont"), Some("Point"));
        assert_eq!(few.closest("Point"), Some("Pointt"));
        assert_eq!(few.closest("u23"), None);
        assert_eq!(few.closest("U32"), Some("u32"));
        assert_eq!(few.closest("Zzzzzz"), None);
        // Thousands of names of the same length: the misspelt one's own is still found,
        // wherever the typo is.
        let names: Vec<String> = (0..20_000).map(|i| format!("Type{i:06}")).collect();
        let mut many = Suggestions::new(names.iter().map(String::as_str));
        assert_eq!(many.closest("Typo004321"), Some("Type004321"));
        assert_eq!(many.closest("xype004321"), Some("Type004321"));
        assert_eq!(many.closest(&"T".repeat(100)), None);
    }
}
