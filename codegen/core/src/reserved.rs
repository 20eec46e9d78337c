//! SDP's reserved identifiers: upstream rejects any struct or field name that is,
//! case-insensitively, a keyword or builtin of one of its target languages. The lists
//! reproduce which names `sdp-gen -validate-only` rejects (issue #19): C's list has no
//! C23 keywords (`nullptr`, `constexpr`, … pass upstream), and each list has the
//! standard-library names upstream adds (`Option`, `size_t`, `didSet`, …). Which
//! language a library name is filed under is ours; only the union decides acceptance.

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
        ],
    ),
    (
        "Rust",
        &[
            "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for", "if", "impl",
            "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self", "static", "struct",
            "super", "trait", "true", "type", "unsafe", "use", "where", "while", "async", "await", "dyn", "abstract",
            "become", "box", "do", "final", "macro", "override", "priv", "typeof", "unsized", "virtual", "yield",
            "try", "raw", // standard-library names sdp-gen also rejects:
            "arc", "clone", "err", "none", "ok", "option", "rc", "result", "send", "sized", "some", "sync", "vec",
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
            // C23's, which upstream's list has (unlike `nullptr` or `constexpr`).
            "_bitint",
            "_decimal32",
            "_decimal64",
            "_decimal128",
            "bool",
            "true",
            "false",
            // Standard-library names sdp-gen also rejects.
            "main",
            "null",
            "eof",
            "file",
            "size_t",
            "ptrdiff_t",
            "wchar_t",
            "int8_t",
            "int16_t",
            "int32_t",
            "int64_t",
            "uint8_t",
            "uint16_t",
            "uint32_t",
            "uint64_t",
        ],
    ),
    (
        "Swift",
        &[
            "_",
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
            // Attributes, accessors and library names sdp-gen also rejects.
            "array",
            "dictionary",
            "optional",
            "set",
            "get",
            "didset",
            "willset",
            "lazy",
            "weak",
            "unowned",
            "mutating",
            "nonmutating",
            "dynamic",
            "required",
            "convenience",
            "main",
            "objc",
            "nonobjc",
            "autoclosure",
            "available",
            "convention",
            "discardableresult",
            "dynamiccallable",
            "dynamicmemberlookup",
            "escaping",
            "frozen",
            "testable",
            "unknown",
            "warn_unqualified_access",
            "ibaction",
            "ibdesignable",
            "ibinspectable",
            "iboutlet",
            "nsapplicationmain",
            "nscopying",
            "nsmanaged",
            "uiapplicationmain",
        ],
    ),
];

/// The length of the longest reserved word: longer names need no lookup.
const LONGEST: usize = "warn_unqualified_access".len();

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
    if name.len() > LONGEST {
        return Vec::new();
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

    /// Issue #19: exactly these names, each tried as a field, are rejected by
    /// `sdp-gen -validate-only` beyond the keyword lists (in any case, as upstream
    /// compares case-insensitively) …
    const UPSTREAM_LIBRARY_NAMES: &str = "Arc Array Clone Dictionary EOF Err FILE IBAction IBDesignable \
        IBInspectable IBOutlet NSApplicationMain NSCopying NSManaged NULL None Ok Option Optional Rc Result Send Set \
        Sized Some Sync UIApplicationMain Vec autoclosure available convenience convention didSet discardableResult \
        dynamic dynamicCallable dynamicMemberLookup escaping frozen get int16_t int32_t int64_t int8_t lazy main \
        mutating nonmutating nonobjc objc optional ptrdiff_t raw required set size_t testable uint16_t uint32_t \
        uint64_t uint8_t unknown unowned warn_unqualified_access wchar_t weak willSet";

    /// … and these, reserved in C23 and C++ only, pass it.
    const UPSTREAM_ACCEPTS: [&str; 6] = [
        "nullptr",
        "constexpr",
        "alignas",
        "alignof",
        "static_assert",
        "thread_local",
    ];

    #[test]
    fn upstream_library_names_are_reserved_in_any_case() {
        let names: Vec<&str> = UPSTREAM_LIBRARY_NAMES.split_whitespace().collect();
        assert_eq!(names.len(), 67);
        for name in names {
            for spelling in [name.to_string(), name.to_ascii_uppercase(), name.to_ascii_lowercase()] {
                assert!(!reserved_in(&spelling).is_empty(), "{spelling} must be reserved");
            }
        }
        assert_eq!(reserved_in("warn_unqualified_access"), ["Swift"]);
        assert_eq!(reserved_in("Option"), ["Rust"]);
        assert_eq!(reserved_in("SIZE_T"), ["C"]);
    }

    /// Issue #36: `_` (Swift) and C23's `_BitInt`, `_Decimal32/64/128` are refused
    /// upstream; `gen` and `comparable` pass it (wirelens escapes them in generated code).
    #[test]
    fn issue_36_names() {
        assert_eq!(reserved_in("_"), ["Swift"]);
        for name in ["_BitInt", "_bitint", "_DECIMAL32", "_Decimal64", "_decimal128"] {
            assert_eq!(reserved_in(name), ["C"], "{name}");
        }
        for name in ["gen", "Gen", "comparable", "COMPARABLE"] {
            assert!(reserved_in(name).is_empty(), "{name}");
        }
    }

    #[test]
    fn c23_keywords_pass_as_upstream() {
        for name in UPSTREAM_ACCEPTS {
            assert!(reserved_in(name).is_empty(), "{name}");
        }
    }

    #[test]
    fn lists_are_lower_case_and_short() {
        for (lang, words) in super::LISTS {
            for w in words {
                assert_eq!(*w, w.to_ascii_lowercase(), "{lang}: {w}");
                assert!(w.len() <= super::LONGEST, "{lang}: {w}");
            }
        }
    }
}
