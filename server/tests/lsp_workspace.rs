//! The workspace as the server sees it, over stdio (issue 38): file events applied in
//! order per file, what a big workspace leaves out said exactly, workspace folders
//! added and removed after `initialize`, and event storms coalesced.

mod common;

use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{pos, Client};
use serde_json::{json, Value};

fn uri_of(path: &Path) -> String {
    format!("file://{}", path.display())
}

fn start(root: &Path) -> Client {
    let mut c = Client::start();
    c.initialize_without_delay(Some(&uri_of(root)));
    c
}

fn symbols(c: &mut Client, query: &str) -> Vec<Value> {
    c.request("workspace/symbol", json!({"query": query}))
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// A schema of about 1.9 MB (under the 2 MiB analysis limit): `Marker` and 44,000
/// small structs, so that reading its symbols takes a while.
fn big_schema(comment: &str) -> String {
    let mut text = format!("// {comment}\nstruct Marker {{\n    a: u32,\n}}\n\n");
    for i in 0..44_000 {
        text.push_str(&format!("struct S{i} {{\n    a: u32,\n    b: str,\n}}\n\n"));
    }
    assert!(text.len() > 1_800_000 && text.len() < 2_000_000, "{}", text.len());
    text
}

/// Item 6: a `changed` event whose file is still being read when its `deleted` event
/// arrives must not bring the deleted file's symbols back.
#[test]
fn a_change_still_being_read_when_its_deletion_arrives_does_not_bring_the_file_back() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("small.sdp"), "struct Small { x: u8 }\n").unwrap();
    let mut c = start(dir.path());
    assert_eq!(symbols(&mut c, "small").len(), 1, "the index is built");
    let big = dir.path().join("big.sdp");
    let big_uri = uri_of(&big);

    // How long reading the big file takes here, now: created, then indexed.
    std::fs::write(&big, big_schema("one")).unwrap();
    let started = Instant::now();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": big_uri, "type": 1}]}),
    );
    while symbols(&mut c, "marker").is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the created file was never indexed"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let read_takes = started.elapsed();

    // Changed, then deleted while that change is being read.
    std::fs::write(&big, big_schema("two")).unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": big_uri, "type": 2}]}),
    );
    // The file is read at the start of that time and parsed for the rest of it: delete
    // it after the read, well before the parse ends.
    std::thread::sleep(read_takes / 3);
    std::fs::remove_file(&big).unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": big_uri, "type": 3}]}),
    );
    // Long enough for the change's read to finish (three times as long as one took).
    let watch = Instant::now();
    while watch.elapsed() < (read_takes * 3).max(Duration::from_secs(2)) {
        let found = symbols(&mut c, "marker");
        assert!(
            found.is_empty(),
            "the deleted file is back in the index after {:?} (one read takes {read_takes:?}): {found:?}",
            watch.elapsed()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(symbols(&mut c, "small").len(), 1);
}

/// `count` one-struct schemas `w00000.sdp`, … in `dir`.
fn many_schemas(dir: &Path, count: usize) {
    for f in 0..count {
        std::fs::write(
            dir.join(format!("w{f:05}.sdp")),
            format!("struct W{f:05} {{\n    a: u32,\n}}\n"),
        )
        .unwrap();
    }
}

/// Item 7: a workspace over the index's 5,000 files. Generation takes every schema
/// (the answer counts them all); the index takes the first 5,000 by path and tells
/// the user exactly which were left out.
#[test]
fn a_workspace_over_five_thousand_schemas_is_generated_whole_and_the_index_says_what_it_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let schemas = root.join("schemas");
    std::fs::create_dir(&schemas).unwrap();
    many_schemas(&schemas, 5_010);
    let mut c = start(&root);

    // The index: the first 5,000 in path order, the user told of the other 10.
    let is_left_out_message = |m: &Value| {
        m["method"] == "window/showMessage"
            && m["params"]["message"]
                .as_str()
                .is_some_and(|t| t.contains("workspace symbols"))
    };
    c.wait_for_message(is_left_out_message);
    let message = c.backlog.iter().find(|m| is_left_out_message(m)).unwrap()["params"]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        message.contains("first 5000") && message.contains(" 10 from ") && message.contains("w05000.sdp"),
        "{message}"
    );
    assert_eq!(symbols(&mut c, "w04999").len(), 1, "the 5,000th by path is indexed");
    assert_eq!(symbols(&mut c, "w05000").len(), 0, "the 5,001st is not");

    // Generation: all of them.
    let out = root.join("out");
    let r = c.request(
        "workspace/executeCommand",
        json!({"command": "wirelens.generateWorkspace",
               "arguments": [{"languages": ["c"], "outDir": out.display().to_string()}]}),
    );
    assert_eq!(r["schemas"], 5_010, "{}", r["summary"]);
    assert_eq!(r["failures"], json!([]), "{}", r["summary"]);
    assert_eq!(r["leftOut"], 0, "{}", r["summary"]);
    assert!(out.join("w05009.h").exists(), "the last schema by path was generated");
}

fn generate(c: &mut Client, schema: &Path, out: &Path) -> Value {
    c.request_raw(
        "workspace/executeCommand",
        json!({"command": "wirelens.generate",
               "arguments": [{"uri": uri_of(schema), "languages": ["c"], "outDir": out.display().to_string()}]}),
    )
}

/// Item 8: folders added after `initialize` can be generated into; removed ones no
/// longer can, and the symbol index follows.
#[test]
fn workspace_folders_added_and_removed_after_initialize_are_followed() {
    let a_dir = tempfile::tempdir().unwrap();
    let b_dir = tempfile::tempdir().unwrap();
    let a = std::fs::canonicalize(a_dir.path()).unwrap();
    let b = std::fs::canonicalize(b_dir.path()).unwrap();
    std::fs::write(a.join("a.sdp"), "struct InA { x: u8 }\n").unwrap();
    std::fs::write(b.join("b.sdp"), "struct InB { x: u8 }\n").unwrap();
    let mut c = Client::start();
    let init = c.request(
        "initialize",
        json!({"processId": null, "rootUri": uri_of(&a),
               "workspaceFolders": [{"uri": uri_of(&a), "name": "a"}],
               "capabilities": {"workspace": {"workspaceFolders": true}}}),
    );
    c.notify("initialized", json!({}));
    assert_eq!(
        init["capabilities"]["workspace"]["workspaceFolders"],
        json!({"supported": true, "changeNotifications": true}),
        "{init}"
    );
    assert_eq!(symbols(&mut c, "in").len(), 1);
    let r = generate(&mut c, &b.join("b.sdp"), &b.join("out"));
    assert!(
        r["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("not inside a workspace folder")),
        "{r}"
    );

    c.notify(
        "workspace/didChangeWorkspaceFolders",
        json!({"event": {"added": [{"uri": uri_of(&b), "name": "b"}],
                         "removed": [{"uri": uri_of(&a), "name": "a"}]}}),
    );
    let r = generate(&mut c, &b.join("b.sdp"), &b.join("out"));
    assert!(
        r.get("error").is_none(),
        "a schema of an added folder is generated: {r}"
    );
    assert!(b.join("out/b.h").exists());
    let r = generate(&mut c, &a.join("a.sdp"), &a.join("out"));
    assert!(
        r["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("not inside a workspace folder")),
        "nothing is written into a removed folder: {r}"
    );
    assert!(!a.join("out").exists());
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let names: Vec<String> = symbols(&mut c, "in")
            .iter()
            .map(|s| s["name"].as_str().unwrap_or_default().to_string())
            .collect();
        if names == ["InB"] {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the index never followed the folders: {names:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn threads_of(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Threads:"))
                .and_then(|v| v.trim().parse().ok())
        })
        .unwrap_or(0)
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Item 5: 400 `.git/HEAD` events (`WIRELENS_STORM_EVENTS`) with 10 documents open: at
/// most one baseline load in flight and one pending per document, so the server neither
/// spawns a thread per event and document nor keeps a hover waiting.
#[test]
fn a_storm_of_git_events_is_coalesced() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    git(&root, &["init", "-q"]);
    let texts: Vec<String> = (0..10)
        .map(|d| {
            (0..50)
                .map(|s| format!("struct D{d}S{s} {{\n    a: u32,\n    b: str,\n}}\n\n"))
                .collect()
        })
        .collect();
    for (d, text) in texts.iter().enumerate() {
        std::fs::write(root.join(format!("d{d}.sdp")), text).unwrap();
    }
    git(&root, &["add", "."]);
    git(&root, &["commit", "-q", "-m", "schemas"]);

    let mut c = Client::start();
    c.request(
        "initialize",
        json!({"processId": null, "rootUri": uri_of(&root),
               "capabilities": {"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": false}}},
               "initializationOptions": {"diagnostics": {"delayMs": 0}}}),
    );
    c.notify("initialized", json!({}));
    let uris: Vec<String> = (0..10).map(|d| uri_of(&root.join(format!("d{d}.sdp")))).collect();
    for (uri, text) in uris.iter().zip(&texts) {
        c.open(uri, "sdp", text);
    }
    for uri in &uris {
        c.diagnostics(uri);
    }
    let hover = |c: &mut Client| {
        let t = Instant::now();
        let h = c.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uris[0]}, "position": pos(0, 8)}),
        );
        assert!(
            h["contents"]["value"].as_str().unwrap_or_default().contains("D0S0"),
            "{h}"
        );
        t.elapsed()
    };
    hover(&mut c);
    std::thread::sleep(Duration::from_millis(500));

    // Count the server's threads while the storm lasts.
    let pid = c.child.id();
    let before = threads_of(pid);
    let (stop, peak) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicU64::new(0)));
    let sampler = {
        let (stop, peak) = (stop.clone(), peak.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                peak.fetch_max(threads_of(pid), Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(2));
            }
        })
    };
    let head = uri_of(&root.join(".git/HEAD"));
    let events: usize = std::env::var("WIRELENS_STORM_EVENTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(400);
    for _ in 0..events {
        c.notify(
            "workspace/didChangeWatchedFiles",
            json!({"changes": [{"uri": head, "type": 2}]}),
        );
    }
    let waited = hover(&mut c);
    // Until the storm's loads are done: diagnostics settle.
    std::thread::sleep(Duration::from_secs(2));
    stop.store(true, Ordering::Relaxed);
    sampler.join().unwrap();
    let peak = peak.load(Ordering::Relaxed);
    eprintln!("{events} events, 10 documents: threads {before} → peak {peak}, a hover waited {waited:?}");
    assert!(
        peak <= before + 12,
        "the storm raised the server's threads from {before} to {peak} (10 documents: at most one load each)"
    );
    assert!(
        waited < Duration::from_secs(5),
        "a hover waited {waited:?} during the storm"
    );
    hover(&mut c);
}
