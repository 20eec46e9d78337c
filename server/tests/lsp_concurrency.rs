//! Long requests do not hold up typing, and the client can cancel them: a stdio client
//! against a workspace of 2,000 schema files. Also: line endings as LSP counts them.

mod common;

use std::time::{Duration, Instant};

use common::{pos, Client};
use serde_json::{json, Value};

/// 2,000 schema files of 10 structs each.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for f in 0..2000 {
        let sub = dir.path().join(format!("d{}", f % 20));
        std::fs::create_dir_all(&sub).unwrap();
        let text: String = (0..10)
            .map(|s| format!("struct F{f}S{s} {{\n    a: u32,\n    b: str,\n    c: []u8,\n}}\n\n"))
            .collect();
        std::fs::write(sub.join(format!("f{f}.sdp")), text).unwrap();
    }
    dir
}

fn start(root: &std::path::Path) -> Client {
    let mut c = Client::start();
    let uri = format!("file://{}", root.display());
    c.request(
        "initialize",
        json!({"processId": null, "rootUri": uri, "capabilities": {},
               "initializationOptions": {"diagnostics": {"delayMs": 0}}}),
    );
    c.notify("initialized", json!({}));
    c
}

fn send_request(c: &mut Client, method: &str, params: Value) -> i64 {
    let id = c.next_id;
    c.next_id += 1;
    c.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
    id
}

/// Waits for the response to `id` (keeping everything else in the backlog).
fn response(c: &mut Client, id: i64) -> Value {
    let is_it = |m: &Value| m.get("id") == Some(&json!(id)) && m.get("method").is_none();
    c.wait_for_message(is_it);
    let i = c.backlog.iter().position(is_it).unwrap();
    c.backlog.remove(i)
}

#[test]
fn a_workspace_symbol_query_over_2000_files_does_not_delay_diagnostics() {
    let dir = workspace();
    let mut c = start(dir.path());
    let started = Instant::now();
    let symbols = send_request(&mut c, "workspace/symbol", json!({"query": "s3"}));
    let uri = format!("file://{}/open.sdp", dir.path().display());
    c.open(&uri, "sdp", "struct A { x: u32 }\n");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2},
               "contentChanges": [{"range": {"start": pos(0, 14), "end": pos(0, 17)}, "text": "Missing"}]}),
    );
    let mut d = c.diagnostics(&uri);
    while d["version"] != 2 {
        d = c.diagnostics(&uri);
    }
    let diagnostics_after = started.elapsed();
    assert_eq!(d["diagnostics"][0]["code"], "UNKNOWN_TYPE", "{d}");
    let answered_before = c.backlog.iter().any(|m| m.get("id") == Some(&json!(symbols)));
    let r = response(&mut c, symbols);
    let symbols_after = started.elapsed();
    let found = r["result"].as_array().expect("a symbol list");
    assert_eq!(found.len(), 2000, "one `…S3` per file");
    assert!(
        !answered_before && diagnostics_after < symbols_after,
        "the edit's diagnostics ({diagnostics_after:?}) came before the long query's answer ({symbols_after:?})"
    );
    // Cached: a second query reads no file.
    let again = Instant::now();
    let r = c.request("workspace/symbol", json!({"query": "s1"}));
    assert_eq!(r.as_array().unwrap().len(), 2000);
    assert!(again.elapsed() < symbols_after, "the index is reused");
}

#[test]
fn a_cancelled_workspace_symbol_query_answers_request_cancelled_and_the_server_goes_on() {
    let dir = workspace();
    let mut c = start(dir.path());
    let id = send_request(&mut c, "workspace/symbol", json!({"query": ""}));
    c.notify("$/cancelRequest", json!({"id": id}));
    let r = response(&mut c, id);
    assert_eq!(r["error"]["code"], -32800, "RequestCancelled: {r}");
    let uri = format!("file://{}/open.sdp", dir.path().display());
    c.open(&uri, "sdp", "struct A { x: u32 }\nstruct B { a: A }\n");
    let h = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": pos(1, 14)}),
    );
    assert!(h["contents"]["value"].as_str().unwrap().contains("struct A"), "{h}");
}

#[test]
fn a_file_event_refreshes_the_symbol_index() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.sdp"), "struct Old { x: u8 }\n").unwrap();
    let mut c = start(dir.path());
    assert_eq!(
        c.request("workspace/symbol", json!({"query": "old"}))
            .as_array()
            .unwrap()
            .len(),
        1
    );
    std::fs::write(dir.path().join("a.sdp"), "struct New { x: u8 }\n").unwrap();
    let uri = format!("file://{}/a.sdp", dir.path().display());
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri, "type": 2}]}),
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let r = c.request("workspace/symbol", json!({"query": "new"}));
        if r.as_array().unwrap().len() == 1 {
            break;
        }
        assert!(Instant::now() < deadline, "the index never saw the change");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(c.request("workspace/symbol", json!({"query": "old"})), json!([]));
}

/// Semantic tokens as `(line, col, len)`.
fn tokens(data: &Value) -> Vec<(u64, u64, u64)> {
    let data: Vec<u64> = data.as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
    let (mut line, mut col) = (0, 0);
    data.chunks(5)
        .map(|c| {
            if c[0] > 0 {
                col = 0;
            }
            line += c[0];
            col += c[1];
            (line, col, c[2])
        })
        .collect()
}

#[test]
fn crlf_and_lone_cr_end_lines_and_no_range_includes_the_cr() {
    let mut c = Client::start();
    c.initialize(&["utf-16"]);
    let uri = "file:///tmp/wirelens-lsp-test/crlf.sdp";
    // (A lone `\r` after a `//` comment is not tested: the grammars' comment token runs
    // to the next `\n`, a grammar matter.)
    let text = "// c\r\nstruct A {\r\n    x: Missing,\r\n}\rstruct B { y: A }\r\n";
    c.open(uri, "sdp", text);
    let d = c.diagnostics(uri);
    let range = &d["diagnostics"][0]["range"];
    assert_eq!(range["start"], pos(2, 7), "{d}");
    assert_eq!(range["end"], pos(2, 14), "{d}");
    let t = c.request(
        "textDocument/semanticTokens/full",
        json!({"textDocument": {"uri": uri}}),
    );
    let t = tokens(&t["data"]);
    assert!(t.contains(&(0, 0, 4)), "`// c` without its \\r: {t:?}");
    assert!(
        t.contains(&(4, 0, 6)),
        "`struct` on its own line after a lone \\r: {t:?}"
    );
    let def = c.request(
        "textDocument/definition",
        json!({"textDocument": {"uri": uri}, "position": pos(4, 14)}),
    );
    assert_eq!(def["range"]["start"], pos(1, 7), "{def}");
}
