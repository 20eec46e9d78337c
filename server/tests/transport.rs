//! Protocol robustness over stdio: a corpus of malformed frames, headers, ids,
//! encodings, lone surrogates, deep nesting, batches and out-of-range positions. After
//! EACH one the server must still answer a hover on a real document. Before the
//! sanitizing transport (server/src/lsp/transport.rs) most of these ended the server.

mod common;

use std::io::Write;

use common::{pos, Client};
use serde_json::{json, Value};

const URI: &str = "file:///tmp/wirelens-transport-test/audio.sdp";
const AUDIO: &str = "struct Parameter {\n    address: u64,\n    display_name: str,\n}\n";

fn start() -> Client {
    let mut c = Client::start();
    c.initialize(&["utf-16"]);
    c.open(URI, "sdp", AUDIO);
    c.diagnostics(URI);
    c
}

/// The session is alive: a hover on the real document is answered with its layout.
fn assert_alive(c: &mut Client, after: &str) {
    assert!(c.child.try_wait().unwrap().is_none(), "the server exited after {after}");
    let hover = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": URI}, "position": pos(0, 9)}),
    );
    let text = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(text.contains("struct Parameter"), "after {after}: {hover}");
}

fn raw(c: &mut Client, bytes: &[u8]) {
    c.stdin.write_all(bytes).unwrap();
    c.stdin.flush().unwrap();
}

fn framed(body: &[u8]) -> Vec<u8> {
    let mut v = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    v.extend_from_slice(body);
    v
}

/// Waits for the error response with this id (taken out of the backlog).
fn error_for(c: &mut Client, id: &Value) -> Value {
    let is_it = |m: &Value| m.get("id") == Some(id) && m.get("error").is_some() && m.get("method").is_none();
    c.wait_for_message(is_it);
    let i = c.backlog.iter().position(is_it).unwrap();
    c.backlog.remove(i)["error"].clone()
}

#[test]
fn malformed_frames_and_headers_get_an_error_and_the_session_goes_on() {
    let mut c = start();
    let hover = |id: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"textDocument/hover","params":{{"textDocument":{{"uri":"{URI}"}},"position":{{"line":0,"character":9}}}}}}"#
        )
    };
    // Headers the LSP allows and tower-lsp-server's codec refused: answered normally.
    let accepted: Vec<(&str, Vec<u8>)> = vec![
        ("charset=UTF-8", {
            let b = hover("101");
            format!(
                "Content-Length: {}\r\nContent-Type: application/vscode-jsonrpc; charset=UTF-8\r\n\r\n{b}",
                b.len()
            )
            .into_bytes()
        }),
        ("Content-Type without charset", {
            let b = hover("102");
            format!(
                "Content-Length: {}\r\nContent-Type: application/vscode-jsonrpc\r\n\r\n{b}",
                b.len()
            )
            .into_bytes()
        }),
        ("lower-case content-length", {
            let b = hover("103");
            format!("content-length: {}\r\n\r\n{b}", b.len()).into_bytes()
        }),
    ];
    for (id, (what, bytes)) in (101..).zip(accepted) {
        raw(&mut c, &bytes);
        c.wait_for_message(|m| m["id"] == json!(id));
        let i = c.backlog.iter().position(|m| m["id"] == json!(id)).unwrap();
        let reply = c.backlog.remove(i);
        let text = reply["result"]["contents"]["value"].as_str().unwrap_or_default();
        assert!(text.contains("struct Parameter"), "{what}: {reply}");
        assert_alive(&mut c, what);
    }

    // Malformed messages with a recoverable id: an error response for that id.
    let mut deep = String::from(r#"{"jsonrpc":"2.0","id":204,"method":"textDocument/hover","params":"#);
    deep.push_str(&"[".repeat(10_000));
    deep.push_str(&"]".repeat(10_000));
    deep.push('}');
    let mut bad_utf8 = hover("205").into_bytes();
    bad_utf8.insert(bad_utf8.len() - 3, 0xff);
    let with_id: Vec<(&str, Value, Vec<u8>)> = vec![
        ("id 1.5", json!(1.5), framed(hover("1.5").as_bytes())),
        (
            "id beyond i64",
            serde_json::from_str("18446744073709551616").unwrap(),
            framed(hover("18446744073709551616").as_bytes()),
        ),
        ("id 1e400", json!(206.5), framed(hover("1e400").as_bytes())),
        ("id true", json!(true), framed(hover("true").as_bytes())),
        ("id object", json!({"a": 1}), framed(hover(r#"{"a":1}"#).as_bytes())),
        ("JSON nested 10,000 deep", json!(204), framed(deep.as_bytes())),
        ("invalid UTF-8 byte", json!(205), framed(&bad_utf8)),
        (
            "jsonrpc 1.0",
            json!(206),
            framed(br#"{"jsonrpc":"1.0","id":206,"method":"textDocument/hover"}"#),
        ),
        ("no jsonrpc", json!(207), framed(br#"{"id":207,"method":"shutdown"}"#)),
        (
            "truncated JSON",
            json!(208),
            framed(br#"{"jsonrpc":"2.0","id":208,"method":"x","params":{"#),
        ),
        (
            "method not a string",
            json!(209),
            framed(br#"{"jsonrpc":"2.0","id":209,"method":7}"#),
        ),
        (
            "batch",
            json!(210),
            framed(format!("[{},{}]", hover("210"), r#"{"jsonrpc":"2.0","method":"initialized"}"#).as_bytes()),
        ),
    ];
    for (what, id, bytes) in with_id {
        raw(&mut c, &bytes);
        if id == json!(206.5) {
            // Echoed as sent; how serde_json spells it back does not matter here.
            c.wait_for_message(|m| m["id"].to_string().starts_with("1e") && m.get("error").is_some());
        } else {
            let e = error_for(&mut c, &id);
            assert!(e["code"] == -32600 || e["code"] == -32700, "{what}: {e}");
        }
        assert_alive(&mut c, what);
    }

    // Nothing to answer (no id can be recovered, or a notification): logged, dropped, or
    // answered with id null; in every case the session goes on.
    let mut deep_note = String::from(r#"{"jsonrpc":"2.0","method":"textDocument/didChange","params":"#);
    deep_note.push_str(&"{\"a\":".repeat(300));
    deep_note.push_str(&"}".repeat(301));
    let dropped: Vec<(&str, Vec<u8>)> = vec![
        ("garbage without a header", b"hello world\r\n\r\n".to_vec()),
        (
            "header without Content-Length",
            b"Content-Type: application/json\r\n\r\n{}".to_vec(),
        ),
        ("Content-Length abc", b"Content-Length: abc\r\n\r\n".to_vec()),
        ("negative Content-Length", b"Content-Length: -5\r\n\r\n".to_vec()),
        (
            "overflowing Content-Length",
            b"Content-Length: 99999999999999999999999\r\n\r\n".to_vec(),
        ),
        (
            "charset latin1",
            b"Content-Length: 2\r\nContent-Type: text/plain; charset=latin1\r\n\r\n{}".to_vec(),
        ),
        ("empty body", framed(b"")),
        ("a number", framed(b"42")),
        ("null", framed(b"null")),
        ("empty batch", framed(b"[]")),
        ("a notification nested 300 deep", framed(deep_note.as_bytes())),
        (
            "an unknown notification",
            framed(br#"{"jsonrpc":"2.0","method":"$/whatever","params":[1,2]}"#),
        ),
        (
            "a response nobody asked for",
            framed(br#"{"jsonrpc":"2.0","id":999,"result":{"x":1}}"#),
        ),
        (
            "a response with a bad id",
            framed(br#"{"jsonrpc":"2.0","id":[1],"result":null}"#),
        ),
        ("binary junk", (0u8..=255).cycle().take(5000).collect()),
        ("junk ending in a split header", b"xyzContent-Len".to_vec()),
        (
            "a header block of 20 KB",
            [b"X-A: ".to_vec(), vec![b'a'; 20_000]].concat(),
        ),
    ];
    for (what, bytes) in dropped {
        raw(&mut c, &bytes);
        // Frames can be mixed into garbage: separate the next request from the junk.
        raw(&mut c, b"\r\n\r\n");
        assert_alive(&mut c, what);
    }
}

#[test]
fn lone_surrogates_are_replaced_and_the_document_stays_usable() {
    let mut c = start();
    let uri = "file:///tmp/wirelens-transport-test/emoji.sdp";
    // What VS Code sends while an edit splits 😀 (U+1F600 = \ud83d\ude00) in a comment.
    let body = format!(
        r#"{{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{{"textDocument":{{"uri":"{uri}","languageId":"sdp","version":1,"text":"// \ud83d\nstruct A {{\n    x: u8,\n}}\n// \ude00 \ud83d\ude00\n"}}}}}}"#
    );
    raw(&mut c, &framed(body.as_bytes()));
    let d = c.diagnostics(uri);
    assert_eq!(d["diagnostics"], json!([]), "{d}");
    let hover = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": pos(1, 7)}),
    );
    let text = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(text.contains("struct A"), "{hover}");
    // The replacement is one UTF-16 unit, like the lone surrogate: positions after it
    // on the same line stay where the client thinks they are.
    let body = format!(
        r#"{{"jsonrpc":"2.0","method":"textDocument/didChange","params":{{"textDocument":{{"uri":"{uri}","version":2}},"contentChanges":[{{"range":{{"start":{{"line":0,"character":4}},"end":{{"line":0,"character":4}}}},"text":"\ude00"}}]}}}}"#
    );
    raw(&mut c, &framed(body.as_bytes()));
    let d = c.diagnostics(uri);
    assert_eq!(d["diagnostics"], json!([]), "{d}");
    assert_alive(&mut c, "lone surrogates");
}

#[test]
fn out_of_range_positions_are_answered() {
    let mut c = start();
    let td = json!({"uri": URI});
    let huge = [
        json!(1_000_000_000u64),
        json!(u32::MAX),
        json!(4_294_967_296u64),
        json!(-1),
        json!(1e9),
        json!("0"),
        json!(null),
    ];
    for v in &huge {
        let positions = [
            json!({"line": v, "character": 0}),
            json!({"line": 0, "character": v}),
            json!({"line": v, "character": v}),
        ];
        for p in &positions {
            let range = json!({"start": {"line": 0, "character": 0}, "end": p});
            let backwards = json!({"start": p, "end": {"line": 0, "character": 0}});
            let requests = [
                ("textDocument/hover", json!({"textDocument": td, "position": p})),
                ("textDocument/definition", json!({"textDocument": td, "position": p})),
                (
                    "textDocument/references",
                    json!({"textDocument": td, "position": p, "context": {"includeDeclaration": true}}),
                ),
                ("textDocument/completion", json!({"textDocument": td, "position": p})),
                ("textDocument/prepareRename", json!({"textDocument": td, "position": p})),
                ("textDocument/inlayHint", json!({"textDocument": td, "range": range})),
                (
                    "textDocument/inlayHint",
                    json!({"textDocument": td, "range": backwards}),
                ),
                (
                    "textDocument/semanticTokens/range",
                    json!({"textDocument": td, "range": range}),
                ),
                (
                    "textDocument/codeAction",
                    json!({"textDocument": td, "range": range, "context": {"diagnostics": []}}),
                ),
                (
                    "textDocument/rangeFormatting",
                    json!({"textDocument": td, "range": range, "options": {"tabSize": 4, "insertSpaces": true}}),
                ),
            ];
            for (method, params) in requests {
                // An answer (a result, or an error such as invalid params) is all we ask.
                let reply = c.request_raw(method, params.clone());
                assert!(
                    reply.get("result").is_some() || reply.get("error").is_some(),
                    "{method} {params}: {reply}"
                );
                assert_alive(&mut c, &format!("{method} {params}"));
            }
        }
        // An edit at an impossible position must not corrupt or kill the document.
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": URI, "version": 2}, "contentChanges": [{"range": {"start": {"line": v, "character": v}, "end": {"line": v, "character": v}}, "text": "x"}]}),
        );
        assert_alive(&mut c, &format!("didChange at {v}"));
    }
    let full = c.request("textDocument/semanticTokens/full", json!({"textDocument": td}));
    assert!(full["data"].as_array().is_some_and(|d| !d.is_empty()), "{full}");
}
