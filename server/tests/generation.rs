//! Generation through the real server over stdio, against the project service's
//! promises: the same bytes whether a schema is open or closed, for every precedence
//! combination; colliding outputs refused; unset client settings never hide
//! `wirelens.toml`; no generation for documents that are not files in the workspace;
//! concurrent generations into one folder end in the newest complete set.

mod common;

use std::path::{Path, PathBuf};

use common::{pos, Client};
use serde_json::{json, Value};

const BODY: &str = "package p\n\ntype T struct {\n\tA bool\n\tB int64\n\tC int16\n}\n";

fn workspace() -> (tempfile::TempDir, PathBuf, String) {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let uri = format!("file://{}", root.display());
    (dir, root, uri)
}

fn start(root_uri: &str, options: Value) -> Client {
    let mut c = Client::start();
    c.request(
        "initialize",
        json!({"processId": null, "rootUri": root_uri, "capabilities": {}, "initializationOptions": options}),
    );
    c.notify("initialized", json!({}));
    c
}

fn generate(c: &mut Client, args: Value) -> Value {
    c.request_raw(
        "workspace/executeCommand",
        json!({"command": "wirelens.generate", "arguments": [args]}),
    )
}

fn generate_workspace(c: &mut Client, args: Value) -> Value {
    c.request(
        "workspace/executeCommand",
        json!({"command": "wirelens.generateWorkspace", "arguments": [args]}),
    )
}

/// Flag (command argument), directive, client setting and `wirelens.toml`, each unset or
/// set to either order: the open file (`wirelens.generate`) and the closed one
/// (`wirelens.generateWorkspace`) give the same bytes, and the highest layer set wins.
#[test]
fn open_and_closed_generation_give_the_same_bytes_for_every_precedence_combination() {
    let (_dir, root, root_uri) = workspace();
    let schema = root.join("t.ffi");
    let uri = format!("{root_uri}/t.ffi");
    let out = root.join("generated/t.rs");
    let mut c = start(&root_uri, json!({}));
    let orders = [None, Some("canonical"), Some("declaration")];
    let mut reference = std::collections::HashMap::new();
    for order in ["canonical", "declaration"] {
        std::fs::write(&schema, BODY).unwrap();
        generate_workspace(&mut c, json!({"languages": ["rust"], "order": order}));
        reference.insert(order, std::fs::read_to_string(&out).unwrap());
    }
    assert_ne!(reference["canonical"], reference["declaration"]);
    let mut version = 1;
    for flag in orders {
        for directive in orders {
            for client in orders {
                for toml in orders {
                    let case = format!("flag {flag:?}, directive {directive:?}, client {client:?}, toml {toml:?}");
                    let text = match directive {
                        Some(o) => format!("//wirelens:order {o}\n{BODY}"),
                        None => BODY.to_string(),
                    };
                    std::fs::write(&schema, &text).unwrap();
                    match toml {
                        Some(o) => {
                            std::fs::write(root.join("wirelens.toml"), format!("[ffi]\norder = \"{o}\"\n")).unwrap()
                        }
                        None => {
                            let _ = std::fs::remove_file(root.join("wirelens.toml"));
                        }
                    }
                    let settings = match client {
                        Some(o) => json!({"wirelens": {"ffi": {"order": o}}}),
                        None => json!({}),
                    };
                    c.notify("workspace/didChangeConfiguration", json!({"settings": settings}));
                    c.notify("workspace/didChangeWatchedFiles", json!({"changes": []}));
                    let mut args = json!({"languages": ["rust"]});
                    if let Some(o) = flag {
                        args["order"] = json!(o);
                    }
                    // Closed.
                    let r = generate_workspace(&mut c, args.clone());
                    assert_eq!(r["failures"], json!([]), "{case}: {r}");
                    let closed = std::fs::read_to_string(&out).unwrap();
                    // Open, with the same text.
                    version += 1;
                    c.notify(
                        "textDocument/didOpen",
                        json!({"textDocument": {"uri": uri, "languageId": "ffi", "version": version, "text": text}}),
                    );
                    args["uri"] = json!(uri);
                    let r = generate(&mut c, args);
                    assert!(r.get("error").is_none(), "{case}: {r}");
                    let open = std::fs::read_to_string(&out).unwrap();
                    c.notify("textDocument/didClose", json!({"textDocument": {"uri": uri}}));
                    assert!(open == closed, "open and closed differ: {case}");
                    let winner = flag.or(directive).or(client).or(toml).unwrap_or("canonical");
                    assert!(closed == reference[winner], "{winner} should win: {case}");
                }
            }
        }
    }
}

#[test]
fn colliding_outputs_are_refused_and_nothing_is_written() {
    let (_dir, root, root_uri) = workspace();
    std::fs::write(root.join("wirelens.toml"), "[generate]\nout_dir = \"gen\"\n").unwrap();
    for (sub, ty) in [("a", "A"), ("b", "B")] {
        std::fs::create_dir(root.join(sub)).unwrap();
        std::fs::write(root.join(sub).join("x.sdp"), format!("struct {ty} {{ v: u32 }}\n")).unwrap();
    }
    let mut c = start(&root_uri, json!({}));
    let r = generate_workspace(&mut c, json!({"languages": ["rust"]}));
    let failures = r["failures"].to_string();
    assert!(failures.contains("would overwrite the one generated from"), "{r}");
    assert_eq!(r["written"], json!(0), "{r}");
    assert!(!root.join("gen/x.rs").exists(), "one schema's output silently won");
}

fn wait_for(path: &Path) -> bool {
    for _ in 0..200 {
        if path.exists() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    false
}

/// What VS Code sent before it sent only user-set values is now read as set; a client
/// that sends nothing leaves `wirelens.toml` in charge of generation on save.
#[test]
fn unset_client_settings_leave_wirelens_toml_in_charge() {
    let (_dir, root, root_uri) = workspace();
    std::fs::write(
        root.join("wirelens.toml"),
        "[generate]\non_save = true\nlanguages = [\"c\"]\nout_dir = \"from-toml\"\n",
    )
    .unwrap();
    let text = "struct Reg { id: u32 }\n";
    std::fs::write(root.join("reg.sdp"), text).unwrap();
    let uri = format!("{root_uri}/reg.sdp");
    let mut c = start(&root_uri, json!({"wirelens": {"inlayHints": {"enabled": true}}}));
    c.open(&uri, "sdp", text);
    c.notify("textDocument/didSave", json!({"textDocument": {"uri": uri}}));
    assert!(
        wait_for(&root.join("from-toml/reg.h")),
        "wirelens.toml's on_save was ignored"
    );
    assert!(
        !root.join("from-toml/reg.rs").exists(),
        "languages were not taken from wirelens.toml"
    );
    // A value the user set does win.
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"wirelens": {"generate": {"languages": ["rust"]}}}}),
    );
    c.notify("textDocument/didSave", json!({"textDocument": {"uri": uri}}));
    assert!(wait_for(&root.join("from-toml/reg.rs")));
}

#[test]
fn documents_that_are_not_workspace_files_are_never_generated() {
    let (_dir, root, root_uri) = workspace();
    let (_other, outside, _) = workspace();
    let text = "struct Reg { id: u32 }\n";
    std::fs::write(outside.join("o.sdp"), text).unwrap();
    let mut c = start(&root_uri, json!({}));
    let outside_uri = format!("file://{}/o.sdp", outside.display());
    for (uri, why) in [
        ("untitled:Untitled-1", "not a file on disk"),
        ("http://example.com/x.sdp", "not a file on disk"),
        (outside_uri.as_str(), "not inside a workspace folder"),
    ] {
        c.open(uri, "sdp", text);
        let lenses = c.request("textDocument/codeLens", json!({"textDocument": {"uri": uri}}));
        assert!(!lenses.to_string().contains("wirelens.generate"), "{uri}: {lenses}");
        let actions = c.request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": {"start": pos(0, 0), "end": pos(0, 0)}, "context": {"diagnostics": []}}),
        );
        assert!(!actions.to_string().contains("wirelens.generate"), "{uri}: {actions}");
        let r = generate(&mut c, json!({"uri": uri}));
        let message = r["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(why), "{uri}: {r}");
    }
    let cwd_generated = std::env::current_dir().unwrap().join("generated/Untitled-1.rs");
    assert!(!cwd_generated.exists());
    assert!(!Path::new("/generated").exists());
    assert!(!outside.join("generated").exists());
    // A file inside the workspace still gets both.
    std::fs::write(root.join("in.sdp"), text).unwrap();
    let uri = format!("{root_uri}/in.sdp");
    c.open(&uri, "sdp", text);
    let lenses = c.request("textDocument/codeLens", json!({"textDocument": {"uri": uri}}));
    assert!(lenses.to_string().contains("wirelens.generate"), "{lenses}");
}

/// Edits and `wirelens.generate` requests sent back to back without waiting (as
/// save-all with generation on save does): every request succeeds and the folder ends
/// with the set generated from the last text, runtime headers included.
#[test]
fn concurrent_generations_into_one_folder_succeed_and_the_newest_wins() {
    let (_dir, root, root_uri) = workspace();
    let text = |i: usize| format!("struct Reg {{\n    field{i}: u32,\n}}\n");
    std::fs::write(root.join("reg.sdp"), text(0)).unwrap();
    let uri = format!("{root_uri}/reg.sdp");
    let mut c = start(&root_uri, json!({}));
    c.open(&uri, "sdp", &text(0));
    let rounds = 16;
    let mut ids = Vec::new();
    for i in 1..=rounds {
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": i + 1}, "contentChanges": [{"text": text(i)}]}),
        );
        let id = 1000 + i as i64;
        c.send(json!({"jsonrpc": "2.0", "id": id, "method": "workspace/executeCommand",
            "params": {"command": "wirelens.generate", "arguments": [{"uri": uri}]}}));
        ids.push(id);
    }
    let mut answered = Vec::new();
    while answered.len() < ids.len() {
        let m =
            c.rx.recv_timeout(std::time::Duration::from_secs(60))
                .expect("answers in time");
        if let Some(id) = m.get("id").and_then(Value::as_i64).filter(|id| ids.contains(id)) {
            assert!(m.get("error").is_none(), "request {id} failed: {m}");
            answered.push(id);
        }
    }
    let newest = format!("field{rounds}");
    for name in ["reg.h", "reg.hpp", "reg.rs"] {
        let body = std::fs::read_to_string(root.join("generated").join(name)).unwrap();
        assert!(body.contains(&newest), "{name} is not from the newest text");
    }
    let temps: Vec<_> = std::fs::read_dir(root.join("generated"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(temps.is_empty(), "{temps:?}");
}
