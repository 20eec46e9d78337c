//! A document over the size limit (`LARGE_DOCUMENT_BYTES`, 2 MiB) degrades gracefully
//! over stdio: one `window/showMessage` warning naming the limit, syntax diagnostics
//! after every edit within a bounded time, no inlay hints, semantic tokens or code
//! lenses for it, other documents still answer promptly, and full analysis returns
//! when it shrinks below the limit.

mod common;

use std::time::{Duration, Instant};

use common::{pos, Client};
use serde_json::{json, Value};

const LIMIT: usize = 2 * 1024 * 1024;

/// About `bytes` of valid SDP: many small structs.
fn schema(bytes: usize) -> String {
    let mut out = String::with_capacity(bytes + 100);
    let mut i = 0;
    while out.len() < bytes {
        if i == 0 {
            out.push_str("struct S0 {\n    a: u32,\n    c: u16,\n    b: str\n}\n");
        } else {
            out.push_str(&format!(
                "struct S{i} {{\n    a: u32,\n    c: u16,\n    p: S0,\n    b: str\n}}\n"
            ));
        }
        i += 1;
    }
    out
}

fn is_warning(m: &Value) -> bool {
    m["method"] == "window/showMessage" && m["params"]["type"] == 2
}

fn warnings(c: &Client) -> Vec<String> {
    c.backlog
        .iter()
        .filter(|m| is_warning(m))
        .map(|m| m["params"]["message"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// The `publishDiagnostics` of `uri` for `version`, and how long it took.
fn diagnostics_of(c: &mut Client, uri: &str, version: i64) -> (Value, Duration) {
    let t = Instant::now();
    loop {
        let d = c.diagnostics(uri);
        if d["version"] == version {
            return (d, t.elapsed());
        }
    }
}

fn codes(d: &Value) -> Vec<String> {
    d["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// How many diagnostics, and the first (never the whole list: it may be huge).
fn summary(d: &Value) -> String {
    let all = d["diagnostics"].as_array().map_or(0, Vec::len);
    format!("{all} diagnostics, first: {}", d["diagnostics"][0])
}

#[test]
fn big_document_gets_syntax_diagnostics_and_a_warning_and_recovers_when_small() {
    let mut c = Client::start();
    c.initialize_without_delay(None);
    let big = "file:///tmp/wirelens-bigdoc/big.sdp";
    let text = schema(LIMIT + LIMIT / 2); // 3 MiB, generated
    let lines = text.lines().count() as u32;
    c.open(big, "sdp", &text);
    let (d, _) = diagnostics_of(&mut c, big, 1);
    assert!(codes(&d).is_empty(), "valid schema: {}", summary(&d));
    c.wait_for_message(is_warning);
    let shown = warnings(&c);
    assert_eq!(shown.len(), 1, "{shown:?}");
    assert!(
        shown[0].contains("big.sdp") && shown[0].contains("2 MiB") && shown[0].contains("syntax"),
        "{}",
        shown[0]
    );

    // Keystrokes: each publishes diagnostics of its version in bounded time; one of
    // them breaks the syntax, the next repairs it.
    let mut slowest = Duration::ZERO;
    for version in 2..=6i64 {
        let (line, text) = match version {
            4 => (lines / 2, "{"), // inserts a stray brace mid-file
            5 => (lines / 2, ""),  // removes it again
            _ => (1, if version % 2 == 0 { "ab" } else { "a" }),
        };
        let range = match version {
            5 => json!({"start": pos(line, 0), "end": pos(line, 1)}),
            4 => json!({"start": pos(line, 0), "end": pos(line, 0)}),
            _ => json!({"start": pos(line, 4), "end": pos(line, 5)}),
        };
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": big, "version": version},
                   "contentChanges": [{"range": range, "text": text}]}),
        );
        let (d, took) = diagnostics_of(&mut c, big, version);
        slowest = slowest.max(took);
        let codes = codes(&d);
        if version == 4 {
            assert!(
                codes.iter().any(|c| c == "SYNTAX"),
                "stray brace not reported: {}",
                summary(&d)
            );
        } else {
            assert!(codes.is_empty(), "version {version}: {}", summary(&d));
        }
    }
    eprintln!("big document (3 MiB): slowest edit → diagnostics {slowest:?}");
    // Full analysis of 3 MiB takes seconds per keystroke even in a release build; the
    // syntax-only path is an incremental reparse.
    assert!(slowest < Duration::from_secs(3), "edit → diagnostics took {slowest:?}");
    assert_eq!(warnings(&c).len(), 1, "the warning is shown once");

    // The per-keystroke features answer empty for the big document.
    let doc = json!({"uri": big});
    let hints = c.request(
        "textDocument/inlayHint",
        json!({"textDocument": doc, "range": {"start": pos(0, 0), "end": pos(60, 0)}}),
    );
    assert_eq!(hints, json!([]));
    assert_eq!(
        c.request("textDocument/codeLens", json!({"textDocument": doc})),
        json!([])
    );
    assert_eq!(
        c.request("textDocument/semanticTokens/full", json!({"textDocument": doc})),
        Value::Null
    );

    // A small document next to it answers promptly with full analysis.
    let small = "file:///tmp/wirelens-bigdoc/small.sdp";
    c.open(small, "sdp", "struct P {\n    x: u32,\n    y: u16,\n}\n");
    c.diagnostics(small);
    let t = Instant::now();
    let hover = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": small}, "position": pos(0, 7)}),
    );
    let took = t.elapsed();
    assert!(
        hover["contents"]["value"].as_str().unwrap_or_default().contains("6"),
        "{hover}"
    );
    assert!(took < Duration::from_secs(1), "hover took {took:?}");

    // Memory stays bounded: no copy of the text per edit (before, 4 MiB peaked at 741 MiB).
    let hwm = c.vm_hwm_kb() / 1024;
    eprintln!("peak resident memory {hwm} MiB");
    assert!(hwm < 400, "peak resident memory {hwm} MiB");

    // Shrinks below the limit (whole-text changes): full analysis again — a semantic
    // error is reported, then inlay hints come back for a valid schema.
    c.backlog.retain(|m| !is_warning(m));
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": big, "version": 7},
               "contentChanges": [{"text": "struct A {\n    x: u32,\n    y: Missing,\n}\n"}]}),
    );
    let (d, _) = diagnostics_of(&mut c, big, 7);
    let found = codes(&d);
    assert!(!found.is_empty() && !found.iter().any(|c| c == "SYNTAX"), "{d}");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": big, "version": 8},
               "contentChanges": [{"text": "struct A {\n    x: u32,\n    y: u16,\n}\n"}]}),
    );
    diagnostics_of(&mut c, big, 8);
    let hints = c.request(
        "textDocument/inlayHint",
        json!({"textDocument": doc, "range": {"start": pos(0, 0), "end": pos(4, 0)}}),
    );
    assert!(hints.as_array().is_some_and(|h| !h.is_empty()), "{hints}");
    assert!(warnings(&c).is_empty(), "no warning while small");

    // Grows again: the warning is shown again.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": big, "version": 9},
               "contentChanges": [{"text": text}]}),
    );
    diagnostics_of(&mut c, big, 9);
    c.wait_for_message(is_warning);
    assert_eq!(warnings(&c).len(), 1, "warned again after growing past the limit");
}
