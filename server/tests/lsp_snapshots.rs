//! insta snapshots of what an editor shows for every golden schema: diagnostics, a hover
//! per type, inlay hints, code lenses, document symbols and semantic tokens — requested
//! over stdio from the real server.

mod common;

use std::path::{Path, PathBuf};

use common::{pos, Client};
use serde_json::{json, Value};

fn schemas() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors");
    let mut out = Vec::new();
    for d in ["sdp", "ffi"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root.join(d).join("schemas"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        out.extend(files);
    }
    assert!(out.len() >= 20);
    out
}

/// Semantic tokens decoded to `line:col len type` lines, readable in a snapshot.
fn decode_tokens(data: &Value, legend: &Value) -> Vec<String> {
    let data: Vec<u64> = data.as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
    let (mut line, mut col) = (0, 0);
    data.chunks(5)
        .map(|c| {
            if c[0] > 0 {
                col = 0;
            }
            line += c[0];
            col += c[1];
            format!("{line}:{col} {} {}", c[2], legend[c[3] as usize].as_str().unwrap())
        })
        .collect()
}

#[test]
fn editor_views_of_every_golden_schema() {
    let mut c = Client::start();
    // The documents' folder is the workspace: generation (and its lenses) is offered only
    // for files inside a workspace folder.
    let init = c.request(
        "initialize",
        json!({"processId": null, "rootUri": "file:///wirelens-snapshots",
            "capabilities": {"general": {"positionEncodings": ["utf-16"]}}}),
    );
    c.notify("initialized", json!({}));
    let legend = init["capabilities"]["semanticTokensProvider"]["legend"]["tokenTypes"].clone();
    for path in schemas() {
        let text = std::fs::read_to_string(&path).unwrap();
        let ext = path.extension().unwrap().to_str().unwrap().to_string();
        let stem = path.file_stem().unwrap().to_str().unwrap().to_string();
        // Not a real path on disk: no wirelens.toml applies, ffire uses canonical order.
        let uri = format!("file:///wirelens-snapshots/{stem}.{ext}");
        c.open(&uri, &ext, &text);
        let diagnostics = c.diagnostics(&uri)["diagnostics"].clone();
        let doc = json!({"uri": uri});
        let symbols = c.request("textDocument/documentSymbol", json!({"textDocument": doc}));
        let mut hovers = Vec::new();
        for s in symbols.as_array().unwrap() {
            let at = &s["selectionRange"]["start"];
            let h = c.request("textDocument/hover", json!({"textDocument": doc, "position": at}));
            hovers.push(h["contents"]["value"].as_str().unwrap_or("").to_string());
        }
        let lines = text.lines().count() as u32 + 1;
        let hints = c.request(
            "textDocument/inlayHint",
            json!({"textDocument": doc, "range": {"start": pos(0, 0), "end": pos(lines, 0)}}),
        );
        let hints: Vec<String> = hints
            .as_array()
            .unwrap()
            .iter()
            .map(|h| {
                format!(
                    "{}:{} {}",
                    h["position"]["line"],
                    h["position"]["character"],
                    h["label"].as_str().unwrap()
                )
            })
            .collect();
        let lenses = c.request("textDocument/codeLens", json!({"textDocument": doc}));
        let lenses: Vec<String> = lenses
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                format!(
                    "{}: {}",
                    l["range"]["start"]["line"],
                    l["command"]["title"].as_str().unwrap()
                )
            })
            .collect();
        let tokens = c.request("textDocument/semanticTokens/full", json!({"textDocument": doc}));
        let snapshot = json!({
            "diagnostics": diagnostics,
            "inlay_hints": hints,
            "code_lenses": lenses,
            "symbols": symbols,
            "semantic_tokens": decode_tokens(&tokens["data"], &legend),
        });
        insta::assert_json_snapshot!(format!("lsp_{ext}_{stem}"), snapshot);
        insta::assert_snapshot!(format!("hover_{ext}_{stem}"), hovers.join("\n\n=====\n\n"));
    }
}
