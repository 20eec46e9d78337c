//! Characters the grammars take as white space but upstream's lexers refuse (issue #36):
//! SDP's `sdp-gen` fails on a form feed, a vertical tab or a byte-order mark; ffire reads
//! a `.ffi` file with Go's scanner, which calls a form feed an illegal character and a
//! lone carriage return white space (not a line end, so the declarations around it run
//! together). Comments (and, in Go, string literals) may hold anything. One linear pass.

use crate::diagnostic::Diagnostic;
use crate::dialect::Dialect;

/// At most this many diagnostics per file: a file of form feeds gets one per kind, not
/// one per byte.
const MAX_REPORTED: usize = 1;

pub(super) fn check(dialect: Dialect, text: &str, diags: &mut Vec<Diagnostic>) {
    let bytes = text.as_bytes();
    // The quick answer for nearly every file: none of the bytes in question. Tested 64
    // bytes at a time without an early exit inside a block, which the compiler turns into
    // vector compares (a byte-by-byte `any` was 5 instructions a byte: 10 M per edit of a
    // 1.8 MB schema, on the path of every keystroke).
    let suspect = |b: u8| matches!(b, 0x0B | 0x0C | b'\r' | 0xEF);
    if !bytes
        .chunks(64)
        .any(|block| block.iter().fold(false, |seen, &b| seen | suspect(b)))
    {
        return;
    }
    let mut reported = [0usize; 4]; // form feed, vertical tab, BOM, lone CR
    let mut found = |kind: usize, at: usize, diags: &mut Vec<Diagnostic>| {
        if reported[kind] >= MAX_REPORTED {
            return;
        }
        reported[kind] += 1;
        let what = [
            "a form feed (U+000C)",
            "a vertical tab (U+000B)",
            "a byte-order mark (U+FEFF)",
        ];
        let len = if kind == 2 { 3 } else { 1 };
        diags.push(match (dialect, what.get(kind)) {
            (Dialect::Sdp, Some(what)) => {
                Diagnostic::warning("upstream-parse", at..at + len, format!("sdp-gen rejects {what}"))
                    .with_label("sdp-gen fails to parse this file")
                    .with_note("help: remove it (use spaces, tabs and line ends only)")
            }
            (Dialect::Ffi, Some(what)) => Diagnostic::error(
                "SYNTAX",
                at..at + len,
                format!("Go (which ffire parses `.ffi` files with) rejects {what} outside comments and strings"),
            )
            .with_label("illegal character")
            .with_note("help: remove it"),
            _ => Diagnostic::error(
                "SYNTAX",
                at..at + 1,
                "a lone carriage return is not a line end in Go (which ffire parses `.ffi` files with)",
            )
            .with_label("lone CR")
            .with_note("help: end lines with `\\n` or `\\r\\n`"),
        });
    };
    #[derive(PartialEq)]
    enum State {
        Code,
        LineComment,
        BlockComment,
        Interpreted,
        Raw,
        Rune,
    }
    let go = dialect == Dialect::Ffi;
    let mut state = State::Code;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let next = bytes.get(i + 1).copied();
        match state {
            State::Code => match b {
                b'/' if next == Some(b'/') => {
                    state = State::LineComment;
                    i += 1;
                }
                b'/' if go && next == Some(b'*') => {
                    state = State::BlockComment;
                    i += 1;
                }
                b'"' if go => state = State::Interpreted,
                b'`' if go => state = State::Raw,
                b'\'' if go => state = State::Rune,
                0x0C => found(0, i, diags),
                0x0B => found(1, i, diags),
                // Go allows a byte-order mark first in a file, SDP nowhere.
                0xEF if (!go || i > 0) && bytes.get(i + 1..i + 3) == Some(&[0xBB, 0xBF]) => found(2, i, diags),
                b'\r' if go && next != Some(b'\n') => found(3, i, diags),
                _ => {}
            },
            // A comment ends at any line end the grammars know (`\n`, `\r\n`, a lone `\r`).
            State::LineComment if b == b'\n' || b == b'\r' => state = State::Code,
            State::BlockComment if b == b'*' && next == Some(b'/') => {
                state = State::Code;
                i += 1;
            }
            State::Interpreted | State::Rune if b == b'\\' => i += 1,
            State::Interpreted if b == b'"' || b == b'\n' => state = State::Code,
            State::Rune if b == b'\'' || b == b'\n' => state = State::Code,
            State::Raw if b == b'`' => state = State::Code,
            _ => {}
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(dialect: Dialect, text: &str) -> Vec<(String, usize)> {
        let mut d = Vec::new();
        check(dialect, text, &mut d);
        d.into_iter().map(|d| (d.code.to_string(), d.range.start)).collect()
    }

    #[test]
    fn sdp_form_feed_vertical_tab_and_bom() {
        assert_eq!(codes(Dialect::Sdp, "struct A { a: u8 }\n"), []);
        assert_eq!(
            codes(Dialect::Sdp, "\u{feff}struct A { a: u8 }"),
            [("upstream-parse".into(), 0)]
        );
        assert_eq!(
            codes(Dialect::Sdp, "struct A {\x0c a: u8 }"),
            [("upstream-parse".into(), 10)]
        );
        assert_eq!(
            codes(Dialect::Sdp, "struct A {\x0b a: u8 }"),
            [("upstream-parse".into(), 10)]
        );
        // In a comment they are text.
        assert_eq!(codes(Dialect::Sdp, "// \x0c\x0b\u{feff}\nstruct A { a: u8 }"), []);
        // One report per kind.
        assert_eq!(codes(Dialect::Sdp, "\x0c\x0c\x0c").len(), 1);
        // A lone CR is a line end in SDP.
        assert_eq!(codes(Dialect::Sdp, "struct A {\r a: u8 }"), []);
    }

    #[test]
    fn found_in_any_block_of_the_quick_test() {
        // The quick test reads 64-byte blocks: first, middle and last byte of a block, and
        // the short block at the end.
        let filler = "struct A { a: u8 }\n".repeat(10); // 190 bytes
        for at in [0, 63, 64, 100, 127, 128, 189] {
            let mut text = filler.clone().into_bytes();
            text[at] = 0x0c;
            let text = String::from_utf8(text).unwrap_or_default();
            assert_eq!(codes(Dialect::Sdp, &text), [("upstream-parse".into(), at)], "at {at}");
        }
    }

    #[test]
    fn go_form_feed_and_lone_cr() {
        assert_eq!(codes(Dialect::Ffi, "package p\r\ntype A int8\n"), []);
        assert_eq!(codes(Dialect::Ffi, "package p\rtype A int8\n"), [("SYNTAX".into(), 9)]);
        assert_eq!(
            codes(Dialect::Ffi, "package p\n\x0ctype A int8\n"),
            [("SYNTAX".into(), 10)]
        );
        assert_eq!(
            codes(Dialect::Ffi, "package p\n\x0btype A int8\n"),
            [("SYNTAX".into(), 10)]
        );
        // Go allows a byte-order mark first, nowhere else.
        assert_eq!(codes(Dialect::Ffi, "\u{feff}package p\n"), []);
        assert_eq!(codes(Dialect::Ffi, "package p\n\u{feff}\n"), [("SYNTAX".into(), 10)]);
        // Comments and string literals may hold them.
        assert_eq!(
            codes(
                Dialect::Ffi,
                "package p /* \x0c\r */\ntype A struct { X int8 `\x0c\r` }\n// \x0c\n"
            ),
            []
        );
    }
}
