//! The owned and the view codec functions of a type as one text: a macro instantiated for
//! `T` and `T_view` when they differ only in names ([`shared_bodies`]).

use std::fmt::Write as _;

/// A token of generated C: an identifier or number, a string literal, or one other character.
fn c_tokens(s: &str) -> Option<Vec<&str>> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        if b[i].is_ascii_alphanumeric() || b[i] == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            if i > b.len() {
                return None;
            }
        } else {
            // One character (UTF-8 only ever occurs inside string literals).
            i += s[i..].chars().next().map_or(1, char::len_utf8);
        }
        out.push(&s[start..i]);
    }
    Some(out)
}

/// The owned and the view functions of a type as one macro instantiated twice, when
/// their texts differ only in identifiers (the view's type, its nested functions and
/// `wl_*_view` helpers): the view functions were ~40 % of the generated C of a large
/// schema. A name that differs by an inserted `_view` is pasted with parameter `WL_V`
/// (empty or `_view`), one with `array` in place of `view` with `WL_K`, any other pair
/// becomes a parameter of its own. None (emit both texts) when the texts differ otherwise.
pub(super) fn shared_bodies(macro_name: &str, owned: &str, view: &str) -> Option<String> {
    if owned.contains("//") || owned.lines().any(|l| l.ends_with('\\')) {
        return None; // a comment or a line splice cannot go inside a macro body
    }
    let ident = |t: &str| t.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
    // Parameter names that occur nowhere in the texts (not even inside a longer name).
    let fresh = |base: &str| {
        let mut name = base.to_string();
        while owned.contains(name.as_str()) || view.contains(name.as_str()) {
            name.push('_');
        }
        name
    };
    let (pv, pk) = (fresh("WL_V"), fresh("WL_K"));
    let paste = |out: &mut String, pre: &str, param: &str, post: &str| {
        let mut first = true;
        for part in [pre, param, post].into_iter().filter(|x| !x.is_empty()) {
            if !first {
                out.push_str("##");
            }
            out.push_str(part);
            first = false;
        }
    };
    let mut extra: Vec<(String, &str, &str)> = Vec::new();
    let mut body = String::with_capacity(owned.len() + owned.len() / 8);
    let (mut la, mut lb) = (owned.lines(), view.lines());
    loop {
        let (x, y) = match (la.next(), lb.next()) {
            (None, None) => break,
            (Some(x), Some(y)) => (x, y),
            _ => return None,
        };
        if x.is_empty() && y.is_empty() {
            continue;
        }
        body.push_str(" \\\n");
        // Most lines are the same; only the others are compared token by token.
        if x == y {
            body.push_str(x);
            continue;
        }
        let (a, b) = (c_tokens(x)?, c_tokens(y)?);
        if a.len() != b.len() {
            return None;
        }
        for (x, y) in a.into_iter().zip(b) {
            if x == y {
                body.push_str(x);
                continue;
            }
            if !ident(x) || !ident(y) {
                return None;
            }
            let inserted = (y.len() == x.len() + 5)
                .then(|| {
                    (0..=x.len()).find(|&i| {
                        x.is_char_boundary(i)
                            && y.starts_with(&x[..i])
                            && y[i..].starts_with("_view")
                            && y[i + 5..] == x[i..]
                    })
                })
                .flatten();
            if let Some(i) = inserted {
                paste(&mut body, &x[..i], &pv, &x[i..]);
                continue;
            }
            let swapped = x.match_indices("array").map(|(i, _)| i).find(|&i| {
                y.len() + 1 == x.len()
                    && y.starts_with(&x[..i])
                    && y[i..].starts_with("view")
                    && y[i + 4..] == x[i + 5..]
            });
            if let Some(i) = swapped {
                paste(&mut body, &x[..i], &pk, &x[i + 5..]);
                continue;
            }
            let k = match extra.iter().position(|(_, o, v)| *o == x && *v == y) {
                Some(k) => k,
                None => {
                    extra.push((fresh(&format!("WL_P{}", extra.len())), x, y));
                    extra.len() - 1
                }
            };
            body.push_str(&extra[k].0);
        }
    }
    let mut params = vec![pv, pk];
    params.extend(extra.iter().map(|(p, _, _)| p.clone()));
    let mut out = format!("#define {macro_name}({})", params.join(", "));
    out.push_str(&body);
    out.push('\n');
    for (v, k, pick) in [("", "array", 0), ("_view", "view", 1)] {
        let mut args = vec![v.to_string(), k.to_string()];
        args.extend(
            extra
                .iter()
                .map(|(_, o, w)| if pick == 0 { o.to_string() } else { w.to_string() }),
        );
        let _ = writeln!(out, "{macro_name}({})", args.join(", "));
    }
    let _ = writeln!(out, "#undef {macro_name}");
    Some(out)
}
