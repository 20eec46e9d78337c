//! The module graph of one crate, read from its sources: which of its modules (one per
//! file) names which other through `crate::…`, `super::…` or `self::…` paths, and the
//! cycles in it. `tests/layers.rs` uses it to keep every crate free of import cycles.
//!
//! A light reading, not a compiler: comments, string and character literals and
//! `#[cfg(test)]` modules are skipped (tests may reach anywhere); a path names the
//! longest module prefix it has (`crate::lsp::backend::Backend` → `lsp::backend`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Module path (`""` for the crate root, `"lsp::backend"`) → the modules it uses.
pub type Graph = BTreeMap<String, BTreeSet<String>>;

/// Reads every `.rs` file under `src` (a crate's source folder) into its module graph.
/// Files reachable only as `#[cfg(test)] mod x;` are left out.
pub fn module_graph(src: &Path) -> std::io::Result<Graph> {
    let mut files = Vec::new();
    collect(src, &mut files)?;
    let mut texts = BTreeMap::new();
    for file in &files {
        let rel = file.strip_prefix(src).unwrap_or(file);
        texts.insert(module_of(rel), std::fs::read_to_string(file)?);
    }
    let mut test_only = BTreeSet::new();
    let mut tokens = BTreeMap::new();
    for (module, text) in &texts {
        let (toks, tests) = tokenize(text);
        for t in tests {
            test_only.insert(join(module, &t));
        }
        tokens.insert(module.clone(), toks);
    }
    let modules: BTreeSet<String> = texts.keys().filter(|m| !test_only.contains(*m)).cloned().collect();
    let mut graph = Graph::new();
    for module in &modules {
        let mut uses = BTreeSet::new();
        for path in paths(&tokens[module]) {
            if let Some(target) = resolve(module, &path, &modules) {
                if &target != module {
                    uses.insert(target);
                }
            }
        }
        graph.insert(module.clone(), uses);
    }
    Ok(graph)
}

/// Per module (test code left out), the `std` modules its paths name: `std::fs::read`
/// → `fs`. `tests/layers.rs` keeps the core off the file system, processes and threads.
pub fn std_modules(src: &Path) -> std::io::Result<BTreeMap<String, BTreeSet<String>>> {
    let mut files = Vec::new();
    collect(src, &mut files)?;
    let mut out = BTreeMap::new();
    for file in &files {
        let rel = file.strip_prefix(src).unwrap_or(file);
        let (toks, _) = tokenize(&std::fs::read_to_string(file)?);
        let mut used = BTreeSet::new();
        for w in toks.windows(3) {
            if let [Tok::Ident(a), Tok::PathSep, Tok::Ident(m)] = w {
                if a == "std" {
                    used.insert(m.clone());
                }
            }
        }
        // `use std::{fs, io}`: every first name in the group.
        used.extend(std_groups(&toks));
        out.insert(module_of(rel), used);
    }
    Ok(out)
}

/// The first names inside `std::{…}` groups.
fn std_groups(t: &[Tok]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, w) in t.windows(3).enumerate() {
        if matches!(w, [Tok::Ident(a), Tok::PathSep, Tok::Punct('{')] if a == "std") {
            let mut depth = 0;
            let mut expect_name = true;
            for tok in &t[i + 2..] {
                match tok {
                    Tok::Punct('{') => {
                        depth += 1;
                        expect_name = depth == 1;
                    }
                    Tok::Punct('}') => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    Tok::Punct(',') if depth == 1 => expect_name = true,
                    Tok::Ident(name) if expect_name && depth == 1 => {
                        out.push(name.clone());
                        expect_name = false;
                    }
                    _ => {}
                }
            }
        }
    }
    out
}

/// Every cycle of the graph, as its strongly connected components of more than one
/// module (each sorted), found without recursion.
pub fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    let names: Vec<&String> = graph.keys().collect();
    let index_of: BTreeMap<&String, usize> = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let edges: Vec<Vec<usize>> = names
        .iter()
        .map(|n| graph[*n].iter().filter_map(|t| index_of.get(t).copied()).collect())
        .collect();
    // Tarjan's algorithm with an explicit stack.
    let n = names.len();
    let (mut index, mut low, mut on_stack) = (vec![usize::MAX; n], vec![0; n], vec![false; n]);
    let (mut stack, mut out, mut next) = (Vec::new(), Vec::new(), 0);
    for start in 0..n {
        if index[start] != usize::MAX {
            continue;
        }
        let mut work = vec![(start, 0usize)];
        while let Some(&mut (v, ref mut child)) = work.last_mut() {
            if *child == 0 && index[v] == usize::MAX {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = edges[v].get(*child) {
                *child += 1;
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component.push(names[w].clone());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    out.push(component);
                }
            }
        }
    }
    out.sort();
    out
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            // `src/bin/*` are crates of their own.
            if path.file_name().is_some_and(|n| n != "bin") {
                collect(&path, out)?;
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

/// `lib.rs`/`main.rs` → `""`, `lsp/mod.rs` → `"lsp"`, `lsp/backend.rs` → `"lsp::backend"`.
fn module_of(rel: &Path) -> String {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    parts.join("::")
}

fn join(module: &str, child: &str) -> String {
    if module.is_empty() {
        child.to_string()
    } else {
        format!("{module}::{child}")
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Ident(String),
    PathSep,
    Punct(char),
}

/// The tokens of a file without comments, literals and `#[cfg(test)]` items, and the
/// names of the file modules it declares under `#[cfg(test)]`.
fn tokenize(text: &str) -> (Vec<Tok>, Vec<String>) {
    let raw = lex(text);
    let mut out = Vec::new();
    let mut tests = Vec::new();
    let mut i = 0;
    while i < raw.len() {
        if is_cfg_test(&raw[i..]) {
            // Skip the attribute, any further attributes, and the item it guards.
            let mut j = i + 7;
            while raw.get(j) == Some(&Tok::Punct('#')) {
                j = skip_group(&raw, j + 1);
            }
            let mut k = j;
            while let Some(Tok::Ident(word)) = raw.get(k) {
                if word == "mod" {
                    if let (Some(Tok::Ident(name)), Some(Tok::Punct(';'))) = (raw.get(k + 1), raw.get(k + 2)) {
                        tests.push(name.clone());
                    }
                }
                k += 1;
            }
            i = skip_item(&raw, j);
            continue;
        }
        out.push(raw[i].clone());
        i += 1;
    }
    (out, tests)
}

/// `# [ cfg ( test ) ]`
fn is_cfg_test(t: &[Tok]) -> bool {
    t.len() >= 7
        && t[0] == Tok::Punct('#')
        && t[1] == Tok::Punct('[')
        && t[2] == Tok::Ident("cfg".into())
        && t[3] == Tok::Punct('(')
        && t[4] == Tok::Ident("test".into())
        && t[5] == Tok::Punct(')')
        && t[6] == Tok::Punct(']')
}

/// From an opening bracket at `i`, the index after its matching closing one.
fn skip_group(t: &[Tok], i: usize) -> usize {
    let mut depth = 0i32;
    let mut j = i;
    while j < t.len() {
        match t[j] {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => {
                depth -= 1;
                if depth <= 0 {
                    return j + 1;
                }
            }
            _ => {}
        }
        j += 1;
    }
    j
}

/// From the start of an item, the index after it: its `;` or its `{ … }` block at depth 0.
fn skip_item(t: &[Tok], i: usize) -> usize {
    let mut j = i;
    while j < t.len() {
        match t[j] {
            Tok::Punct(';') => return j + 1,
            Tok::Punct('{') => return skip_group(t, j),
            Tok::Punct('(' | '[') => j = skip_group(t, j),
            _ => j += 1,
        }
    }
    j
}

/// Identifiers, `::` and single punctuation; comments, strings, raw strings, byte
/// strings and character literals are dropped (lifetimes are kept apart from chars).
fn lex(text: &str) -> Vec<Tok> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == b'"' {
            i = skip_string(b, i + 1);
        } else if (c == b'r' || c == b'b') && raw_string_start(b, i).is_some() {
            let (hashes, body) = raw_string_start(b, i).unwrap_or((0, i));
            let close: Vec<u8> = std::iter::once(b'"').chain(std::iter::repeat_n(b'#', hashes)).collect();
            let mut j = body;
            while j < b.len() && !b[j..].starts_with(&close) {
                j += 1;
            }
            i = j + close.len();
        } else if c == b'b' && b.get(i + 1) == Some(&b'"') {
            i = skip_string(b, i + 2);
        } else if c == b'\'' {
            // A char literal closes within a few bytes; a lifetime does not.
            let end = if b.get(i + 1) == Some(&b'\\') {
                b[i + 2..].iter().position(|&x| x == b'\'').map(|p| i + 2 + p)
            } else {
                let len = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                (b.get(i + 1 + len) == Some(&b'\'')).then_some(i + 1 + len)
            };
            i = end.map_or(i + 1, |e| e + 1);
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Tok::Ident(text[start..i].to_string()));
        } else if c == b':' && b.get(i + 1) == Some(&b':') {
            out.push(Tok::PathSep);
            i += 2;
        } else if c.is_ascii_whitespace() || c.is_ascii_digit() {
            i += 1;
        } else {
            out.push(Tok::Punct(c as char));
            i += 1;
        }
    }
    out
}

fn skip_string(b: &[u8], mut i: usize) -> usize {
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    i
}

/// `r"`, `r#"`, `br##"` …: the number of hashes and where the body starts.
fn raw_string_start(b: &[u8], i: usize) -> Option<(usize, usize)> {
    if i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_') {
        return None;
    }
    let mut j = i;
    if b[j] == b'b' {
        j += 1;
    }
    if b.get(j) != Some(&b'r') {
        return None;
    }
    j += 1;
    let hashes = b[j..].iter().take_while(|&&x| x == b'#').count();
    (b.get(j + hashes) == Some(&b'"')).then_some((hashes, j + hashes + 1))
}

/// Every path that starts with `crate`, `super` or `self`, with `use` groups expanded:
/// `use crate::{a, b::{c, d}}` gives `crate::a`, `crate::b::c`, `crate::b::d`.
fn paths(t: &[Tok]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < t.len() {
        let starts = matches!(&t[i], Tok::Ident(w) if w == "crate" || w == "super" || w == "self")
            && t.get(i + 1) == Some(&Tok::PathSep)
            && !(i > 0 && t[i - 1] == Tok::PathSep);
        if starts {
            i = path_tree(t, i, Vec::new(), &mut out);
        } else {
            i += 1;
        }
    }
    out
}

/// Reads one path (with groups) from `i`, prefixed by `prefix`; returns the index after it.
fn path_tree(t: &[Tok], mut i: usize, mut prefix: Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
    loop {
        match t.get(i) {
            Some(Tok::Ident(w)) => {
                prefix.push(w.clone());
                i += 1;
            }
            Some(Tok::Punct('{')) => {
                i += 1;
                loop {
                    match t.get(i) {
                        Some(Tok::Punct('}')) | None => return i + 1,
                        Some(Tok::Punct(',')) => i += 1,
                        _ => {
                            let before = i;
                            i = path_tree(t, i, prefix.clone(), out);
                            if i == before {
                                i += 1;
                            }
                        }
                    }
                }
            }
            _ => {
                if !prefix.is_empty() {
                    out.push(prefix);
                }
                return i;
            }
        }
        if t.get(i) == Some(&Tok::PathSep) {
            i += 1;
        } else {
            // `as alias` and anything else ends the path.
            if t.get(i) == Some(&Tok::Ident("as".into())) {
                i += 2;
            }
            out.push(prefix);
            return i;
        }
    }
}

/// The module a path names: its longest prefix that is a module of the crate.
fn resolve(from: &str, path: &[String], modules: &BTreeSet<String>) -> Option<String> {
    let mut base: Vec<String> = if from.is_empty() {
        Vec::new()
    } else {
        from.split("::").map(String::from).collect()
    };
    let mut rest = path;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest = &rest[1..];
        }
        Some("self") | Some("super") => {
            while let Some(w) = rest.first() {
                match w.as_str() {
                    "self" => {}
                    "super" => {
                        base.pop()?;
                    }
                    _ => break,
                }
                rest = &rest[1..];
            }
        }
        _ => return None,
    }
    let mut best = base.join("::");
    let mut current = base;
    for w in rest {
        current.push(w.clone());
        let name = current.join("::");
        if modules.contains(&name) {
            best = name;
        } else {
            break;
        }
    }
    modules.contains(&best).then_some(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph_of(files: &[(&str, &str)]) -> Graph {
        let dir = std::env::temp_dir().join(format!("wirelens-arch-{}-{}", std::process::id(), files.len()));
        let _ = std::fs::remove_dir_all(&dir);
        for (name, text) in files {
            let path = dir.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let g = module_graph(&dir).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        g
    }

    #[test]
    fn finds_a_cycle_through_groups_super_and_nested_modules() {
        let g = graph_of(&[
            ("lib.rs", "mod a; mod b; mod c;\n"),
            ("a.rs", "use crate::{b::Thing, c};\n"),
            ("b/mod.rs", "pub mod inner;\npub struct Thing;\n"),
            ("b/inner.rs", "use super::super::a::X; // crate::c in a comment\n"),
            (
                "c.rs",
                "const S: &str = \"crate::a\"; fn f<'a>(x: &'a u8) -> char { 'x' }\n",
            ),
        ]);
        assert_eq!(g["a"], BTreeSet::from(["b".to_string(), "c".to_string()]));
        assert_eq!(g["b::inner"], BTreeSet::from(["a".to_string()]));
        assert!(g["c"].is_empty(), "{g:?}");
        // a → b only; b::inner → a; no cycle yet (b does not use b::inner through a path).
        assert!(cycles(&g).is_empty(), "{:?}", cycles(&g));
        let g = graph_of(&[
            ("lib.rs", "mod a; mod b;\n"),
            ("a.rs", "use crate::b::inner::f;\n"),
            ("b/mod.rs", "pub mod inner;\n"),
            ("b/inner.rs", "pub fn f() { crate::a::g() }\n"),
        ]);
        assert_eq!(cycles(&g), vec![vec!["a".to_string(), "b::inner".to_string()]]);
    }

    #[test]
    fn test_modules_are_not_edges() {
        let g = graph_of(&[
            ("lib.rs", "mod a; mod b;\n#[cfg(test)]\nmod tests;\n"),
            ("a.rs", "pub fn f() {}\n#[cfg(test)]\nmod tests { use crate::b::g; }\n"),
            ("b.rs", "pub fn g() { crate::a::f() }\n"),
            ("tests.rs", "use crate::a;\n"),
        ]);
        assert!(!g.contains_key("tests"), "{g:?}");
        assert!(g["a"].is_empty(), "{g:?}");
        assert_eq!(g["b"], BTreeSet::from(["a".to_string()]));
    }
}
