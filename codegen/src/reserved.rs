//! SDP's reserved identifiers: upstream rejects any struct or field name that is,
//! case-insensitively, a keyword or builtin of one of its target languages.

/// (language, words). Go's list is the keywords and predeclared identifiers as of Go
/// 1.20: upstream predates the `min`/`max`/`clear` builtins, and its own test schema
/// `complex.sdp` has fields named `min` and `max`.
const LISTS: [(&str, &[&str]); 4] = [
    (
        "Go",
        &[
            "break",
            "case",
            "chan",
            "const",
            "continue",
            "default",
            "defer",
            "else",
            "fallthrough",
            "for",
            "func",
            "go",
            "goto",
            "if",
            "import",
            "interface",
            "map",
            "package",
            "range",
            "return",
            "select",
            "struct",
            "switch",
            "type",
            "var",
            "bool",
            "byte",
            "complex64",
            "complex128",
            "error",
            "float32",
            "float64",
            "int",
            "int8",
            "int16",
            "int32",
            "int64",
            "rune",
            "string",
            "uint",
            "uint8",
            "uint16",
            "uint32",
            "uint64",
            "uintptr",
            "true",
            "false",
            "iota",
            "nil",
            "append",
            "cap",
            "close",
            "complex",
            "copy",
            "delete",
            "imag",
            "len",
            "make",
            "new",
            "panic",
            "print",
            "println",
            "real",
            "recover",
            "any",
            "comparable",
        ],
    ),
    (
        "Rust",
        &[
            "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for", "if", "impl",
            "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self", "static", "struct",
            "super", "trait", "true", "type", "unsafe", "use", "where", "while", "async", "await", "dyn", "abstract",
            "become", "box", "do", "final", "macro", "override", "priv", "typeof", "unsized", "virtual", "yield",
            "try", "gen",
        ],
    ),
    (
        "C",
        &[
            "auto",
            "break",
            "case",
            "char",
            "const",
            "continue",
            "default",
            "do",
            "double",
            "else",
            "enum",
            "extern",
            "float",
            "for",
            "goto",
            "if",
            "inline",
            "int",
            "long",
            "register",
            "restrict",
            "return",
            "short",
            "signed",
            "sizeof",
            "static",
            "struct",
            "switch",
            "typedef",
            "union",
            "unsigned",
            "void",
            "volatile",
            "while",
            "_bool",
            "_complex",
            "_imaginary",
            "_alignas",
            "_alignof",
            "_atomic",
            "_generic",
            "_noreturn",
            "_static_assert",
            "_thread_local",
            "bool",
            "true",
            "false",
            "nullptr",
            "alignas",
            "alignof",
            "constexpr",
            "static_assert",
            "thread_local",
        ],
    ),
    (
        "Swift",
        &[
            "associatedtype",
            "class",
            "deinit",
            "enum",
            "extension",
            "fileprivate",
            "func",
            "import",
            "init",
            "inout",
            "internal",
            "let",
            "open",
            "operator",
            "private",
            "precedencegroup",
            "protocol",
            "public",
            "rethrows",
            "static",
            "struct",
            "subscript",
            "typealias",
            "var",
            "break",
            "case",
            "catch",
            "continue",
            "default",
            "defer",
            "do",
            "else",
            "fallthrough",
            "for",
            "guard",
            "if",
            "in",
            "repeat",
            "return",
            "throw",
            "switch",
            "where",
            "while",
            "any",
            "as",
            "await",
            "false",
            "is",
            "nil",
            "self",
            "super",
            "throws",
            "true",
            "try",
            "type",
            "int",
            "double",
            "float",
            "string",
            "bool",
            "character",
        ],
    ),
];

/// The languages in which `name` is reserved (case-insensitively), in a fixed order.
pub fn reserved_in(name: &str) -> Vec<&'static str> {
    // Every identifier of a schema is looked up: index the lists once.
    static INDEX: std::sync::OnceLock<rustc_hash::FxHashMap<&'static str, Vec<&'static str>>> =
        std::sync::OnceLock::new();
    let index = INDEX.get_or_init(|| {
        let mut map: rustc_hash::FxHashMap<&'static str, Vec<&'static str>> = Default::default();
        for (lang, words) in LISTS {
            for word in words {
                let langs = map.entry(*word).or_default();
                if !langs.contains(&lang) {
                    langs.push(lang);
                }
            }
        }
        map
    });
    if name.len() > 20 {
        return Vec::new(); // longer than any reserved word
    }
    index
        .get(name.to_ascii_lowercase().as_str())
        .cloned()
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::reserved_in;

    #[test]
    fn case_insensitive_union() {
        assert_eq!(reserved_in("type"), ["Go", "Rust", "Swift"]);
        assert_eq!(reserved_in("Self"), ["Rust", "Swift"]);
        assert_eq!(reserved_in("DOUBLE"), ["C", "Swift"]);
        assert!(reserved_in("min").is_empty());
        assert!(reserved_in("display_name").is_empty());
    }
}
