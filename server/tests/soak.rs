//! Soak: `wirelens lsp` under a long stream of random edits over several open documents
//! of both dialects, interleaved with hovers, inlay hints, completions and renames (also
//! prepare-rename, code lenses and semantic tokens). The server must answer every request
//! in time, never exit, keep its memory flat (VmRSS sampled from /proc after a warm-up),
//! and finally publish, for every document whose final text is free of syntax errors,
//! exactly the diagnostics of a fresh open of it (and the codes `wirelens_core::analyze` gives
//! for that text); for a broken one, a syntax error.
//!
//! `./tests/run` runs the bounded version (`soak_bounded`, a few thousand edits). The full
//! run, whose numbers SECURITY.md records:
//!
//! ```sh
//! WIRELENS_SOAK_EDITS=100000 cargo test --release -p wirelens --test soak -- --ignored --nocapture
//! ```

mod common;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use common::Client;
use serde_json::{json, Value};
use wirelens_core::{Dialect, OrderChoice};

const SDP_SEEDS: &[&str] = &[
    include_str!("../../tests/vectors/sdp/schemas/audiounit.sdp"),
    include_str!("../../tests/vectors/sdp/schemas/optional.sdp"),
    include_str!("../../tests/vectors/sdp/schemas/valid_crlf.sdp"),
    "struct Aé𝄞 {\n    /// docs\n    x: u8,\n    y: []Option<Aé𝄞>,\n}\n",
];

const FFI_SEEDS: &[&str] = &[
    include_str!("../../tests/vectors/ffi/schemas/complex.ffi"),
    include_str!("../../tests/vectors/ffi/schemas/nested.ffi"),
    include_str!("../../tests/vectors/ffi/schemas/tags.ffi"),
    "//wirelens:order declaration\npackage p\n\ntype Ünïcode struct {\n\tA *[]string `json:\"a\"`\n}\n",
];

/// Inserted text: mostly tokens of both dialects, some awkward characters.
const TOKENS: &[&str] = &[
    "struct ",
    "type ",
    "package p\n",
    "{",
    "}",
    "(",
    ")",
    ":",
    ",",
    "[]",
    "Option<",
    "Box<",
    ">",
    "*",
    "u8",
    "u32",
    "str",
    "bool",
    "f64",
    "int32",
    "string",
    "float32",
    "\n",
    "\r\n",
    "\t",
    " ",
    "//",
    "/// d\n",
    "`json:\"n\"`",
    "\"",
    "é",
    "𝄞",
    "A",
    "B",
    "Item",
    "x",
    "y",
    ", z: u16",
    "\n}\n",
    "struct S { v: i64 }\n",
    "type T struct {\n\tX int64\n}\n",
    "//wirelens:order declaration\n",
    "Parameter",
    "Plugin",
];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

struct Doc {
    uri: String,
    lang: &'static str,
    dialect: Dialect,
    text: String,
    version: i32,
}

/// LSP position (UTF-16 columns) of a byte offset that is a char boundary.
fn position(text: &str, offset: usize) -> Value {
    let before = &text[..offset];
    let line = before.matches('\n').count();
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let character: usize = before[line_start..].chars().map(char::len_utf16).sum();
    json!({"line": line, "character": character})
}

/// A random offset on a char boundary, never between `\r` and `\n` (LSP positions cannot
/// address that point).
fn offset(rng: &mut Rng, text: &str) -> usize {
    addressable(text, rng.below(text.len() + 1))
}

fn addressable(text: &str, o: usize) -> usize {
    let mut o = o.min(text.len());
    while !text.is_char_boundary(o)
        || (o > 0 && text.as_bytes()[o - 1] == b'\r' && text.as_bytes().get(o) == Some(&b'\n'))
    {
        o -= 1;
    }
    o
}

fn random_text(rng: &mut Rng) -> String {
    let mut s = String::new();
    for _ in 0..rng.below(4) {
        if rng.below(3) == 0 {
            s.push((b'a' + rng.below(26) as u8) as char);
        } else {
            s.push_str(TOKENS[rng.below(TOKENS.len())]);
        }
    }
    s
}

fn vm_rss_kb(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// Drains what the server sent meanwhile: answers its requests (inlay-hint refreshes),
/// keeps the latest diagnostics per document and drops the rest, so the client's memory
/// stays flat too.
fn pump(c: &mut Client, latest: &mut HashMap<String, Value>) {
    let mut keep = |m: Value| {
        if m["method"] == "textDocument/publishDiagnostics" {
            let uri = m["params"]["uri"].as_str().unwrap_or_default().to_string();
            latest.insert(uri, m["params"].clone());
        }
    };
    for m in c.backlog.drain(..) {
        keep(m);
    }
    while let Ok(m) = c.rx.try_recv() {
        if m.get("id").is_some() && m.get("method").is_some() {
            c.send(json!({"jsonrpc": "2.0", "id": m["id"], "result": null}));
        }
        keep(m);
    }
}

/// The published diagnostics of `uri` for exactly `version`.
fn diagnostics_for(c: &mut Client, latest: &HashMap<String, Value>, uri: &str, version: i32) -> Value {
    if let Some(d) = latest.get(uri).filter(|d| d["version"] == json!(version)) {
        return d["diagnostics"].clone();
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        assert!(Instant::now() < deadline, "no diagnostics for {uri} v{version}");
        let d = c.diagnostics(uri);
        if d["version"] == json!(version) {
            return d["diagnostics"].clone();
        }
    }
}

struct Stats {
    edits: usize,
    requests: usize,
    elapsed: Duration,
    rss_warm_kb: u64,
    rss_max_kb: u64,
    rss_end_kb: u64,
}

fn soak(edits: usize, seed: u64) -> Stats {
    let mut rng = Rng(seed | 1);
    let mut c = Client::start();
    let pid = c.child.id();
    c.initialize(&["utf-16"]);
    let mut docs: Vec<Doc> = Vec::new();
    for (i, (lang, dialect, seeds)) in [
        ("sdp", Dialect::Sdp, SDP_SEEDS),
        ("ffi", Dialect::Ffi, FFI_SEEDS),
        ("sdp", Dialect::Sdp, SDP_SEEDS),
        ("ffi", Dialect::Ffi, FFI_SEEDS),
    ]
    .into_iter()
    .enumerate()
    {
        let uri = format!("file:///tmp/wirelens-soak/doc{i}.{lang}");
        let text = seeds[i % seeds.len()].to_string();
        c.open(&uri, lang, &text);
        docs.push(Doc {
            uri,
            lang,
            dialect,
            text,
            version: 1,
        });
    }

    let start = Instant::now();
    let warm_up = edits / 10;
    let (mut rss_warm, mut rss_max) = (0u64, 0u64);
    let mut requests = 0usize;
    let mut latest = HashMap::new();
    for n in 0..edits {
        let d = rng.below(docs.len());
        let doc = &mut docs[d];
        // One to three changes per didChange, each against the text after the previous.
        let mut changes = Vec::new();
        for _ in 0..=rng.below(3) {
            if rng.below(400) == 0 || doc.text.len() > 6000 {
                // Whole-document replacement (a reload, or a paste over everything).
                let seeds = if doc.dialect == Dialect::Sdp {
                    SDP_SEEDS
                } else {
                    FFI_SEEDS
                };
                doc.text = seeds[rng.below(seeds.len())].to_string();
                changes.push(json!({"text": doc.text}));
                continue;
            }
            let a = offset(&mut rng, &doc.text);
            let len = if rng.below(3) == 0 { 0 } else { rng.below(12) };
            let b = addressable(&doc.text, a + len).max(a);
            let insert = random_text(&mut rng);
            let range = json!({"start": position(&doc.text, a), "end": position(&doc.text, b)});
            doc.text.replace_range(a..b, &insert);
            changes.push(json!({"range": range, "text": insert}));
        }
        doc.version += 1;
        let (uri, version) = (doc.uri.clone(), doc.version);
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": changes}),
        );

        if n % 8 == 7 {
            let doc = &docs[d];
            let at = position(&doc.text, offset(&mut rng, &doc.text));
            let td = json!({"uri": doc.uri});
            let end = position(&doc.text, doc.text.len());
            match rng.below(8) {
                0 | 1 => {
                    c.request("textDocument/hover", json!({"textDocument": td, "position": at}));
                }
                2 | 3 => {
                    c.request(
                        "textDocument/inlayHint",
                        json!({"textDocument": td, "range": {"start": {"line": 0, "character": 0}, "end": end}}),
                    );
                }
                4 => {
                    c.request("textDocument/completion", json!({"textDocument": td, "position": at}));
                }
                5 => {
                    c.request(
                        "textDocument/prepareRename",
                        json!({"textDocument": td, "position": at}),
                    );
                    // Rename may be refused (not a name, a keyword, a collision): that is an
                    // error response, not a failure.
                    let name = ["Renamed", "x2", "struct", "Plugin", "é"][rng.below(5)];
                    let r = c.request_raw(
                        "textDocument/rename",
                        json!({"textDocument": td, "position": at, "newName": name}),
                    );
                    assert!(r.get("result").is_some() || r.get("error").is_some(), "{r}");
                }
                6 => {
                    c.request("textDocument/codeLens", json!({"textDocument": td}));
                }
                _ => {
                    c.request("textDocument/semanticTokens/full", json!({"textDocument": td}));
                }
            }
            requests += 1;
            pump(&mut c, &mut latest);
        }
        if n % 500 == 499 {
            assert!(
                c.child.try_wait().unwrap().is_none(),
                "the server exited after {n} edits"
            );
            let rss = vm_rss_kb(pid);
            if n < warm_up {
                rss_warm = rss_warm.max(rss);
            }
            rss_max = rss_max.max(rss);
        }
    }
    // Everything sent has been handled once a request behind it is answered.
    c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": docs[0].uri}, "position": {"line": 0, "character": 0}}),
    );
    let elapsed = start.elapsed();
    let rss_end = vm_rss_kb(pid);
    rss_max = rss_max.max(rss_end);
    pump(&mut c, &mut latest);

    // Where the final text has no syntax errors, its diagnostics equal those of a fresh
    // open of it. Where it has some, tree-sitter's error recovery after an incremental
    // reparse may place them otherwise than a fresh parse (see `wirelens_core::syntax::parse`):
    // the edited document must then still report a syntax error.
    for (i, doc) in docs.iter().enumerate() {
        let edited = diagnostics_for(&mut c, &latest, &doc.uri, doc.version);
        let fresh_uri = format!("file:///tmp/wirelens-soak/fresh{i}.{}", doc.lang);
        c.open(&fresh_uri, doc.lang, &doc.text);
        let fresh = diagnostics_for(&mut c, &latest, &fresh_uri, 1);
        let has_syntax = |d: &Value| d.as_array().unwrap().iter().any(|x| x["code"] == "SYNTAX");
        if has_syntax(&fresh) {
            assert!(
                has_syntax(&edited),
                "doc{i}: no syntax error reported after {edits} edits for broken text:\n{}",
                doc.text
            );
            continue;
        }
        assert_eq!(
            edited, fresh,
            "doc{i}: diagnostics after {edits} edits differ from a fresh parse of:\n{}",
            doc.text
        );
        let mut codes: Vec<String> = wirelens_core::analyze(doc.dialect, &doc.text, None, OrderChoice::default())
            .diagnostics
            .iter()
            .map(|d| d.code.to_string())
            .collect();
        let mut seen: Vec<String> = fresh
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["code"].as_str().unwrap_or_default().to_string())
            .collect();
        codes.sort();
        seen.sort();
        assert_eq!(
            seen, codes,
            "doc{i}: the server's codes differ from wirelens_core::analyze"
        );
    }
    assert!(c.child.try_wait().unwrap().is_none(), "the server exited");
    Stats {
        edits,
        requests,
        elapsed,
        rss_warm_kb: rss_warm,
        rss_max_kb: rss_max,
        rss_end_kb: rss_end,
    }
}

fn report_and_check(s: &Stats) {
    println!(
        "soak: {} edits, {} requests in {:.1} s ({:.0} edits/s); VmRSS after warm-up {} KiB, max {} KiB, end {} KiB",
        s.edits,
        s.requests,
        s.elapsed.as_secs_f64(),
        s.edits as f64 / s.elapsed.as_secs_f64(),
        s.rss_warm_kb,
        s.rss_max_kb,
        s.rss_end_kb
    );
    if s.rss_warm_kb > 0 {
        // Flat: no growth beyond allocator slack once the documents have their working size.
        let limit = s.rss_warm_kb + s.rss_warm_kb / 2 + 16 * 1024;
        assert!(
            s.rss_max_kb <= limit,
            "memory grew: {} KiB after warm-up, {} KiB at most (limit {limit} KiB)",
            s.rss_warm_kb,
            s.rss_max_kb
        );
    }
}

fn edits_from_env(default: usize) -> usize {
    std::env::var("WIRELENS_SOAK_EDITS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The bounded soak of `./tests/run`.
#[test]
fn soak_bounded() {
    let s = soak(5_000, 0x5eed_0001);
    report_and_check(&s);
    assert!(s.elapsed < Duration::from_secs(60), "took {:?}", s.elapsed);
}

/// The full soak (100,000 edits by default; `WIRELENS_SOAK_EDITS` overrides).
#[test]
#[ignore]
fn soak_full() {
    let s = soak(edits_from_env(100_000), 0x5eed_0002);
    report_and_check(&s);
}
