//! `wirelens/inspect` through the real server over stdio: golden vectors decoded into
//! trees with byte ranges, windows and node caps, malformed bytes (error + partial
//! tree, the same offset as `wirelens decode`), and unsaved schema edits re-decoding.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::Client;
use serde_json::{json, Value};

fn vectors() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors")
}

fn read(rel: &str) -> Vec<u8> {
    std::fs::read(vectors().join(rel)).unwrap()
}

fn text(rel: &str) -> String {
    String::from_utf8(read(rel)).unwrap()
}

fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | (u32::from(b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The node at `path` (`#count` etc. included), searched depth first.
fn node<'a>(tree: &'a Value, path: &str) -> Option<&'a Value> {
    if tree["path"] == path {
        return Some(tree);
    }
    tree["children"].as_array()?.iter().find_map(|c| node(c, path))
}

fn range(n: &Value) -> (u64, u64) {
    (n["start"].as_u64().unwrap(), n["end"].as_u64().unwrap())
}

fn count(tree: &Value) -> usize {
    1 + tree["children"].as_array().map_or(0, |c| c.iter().map(count).sum())
}

/// Every node lies inside its parent, and children follow each other in byte order.
fn check_nesting(tree: &Value) {
    let (s, e) = range(tree);
    assert!(s <= e, "{}", tree["path"]);
    let mut last = s;
    for c in tree["children"].as_array().into_iter().flatten() {
        let (cs, ce) = range(c);
        assert!(s <= cs && ce <= e, "{} in {}", c["path"], tree["path"]);
        assert!(cs >= last, "{} starts before its sibling ends", c["path"]);
        last = ce;
        check_nesting(c);
    }
}

const AUDIO_URI: &str = "file:///tmp/wirelens-inspect-test/audiounit.sdp";

fn audio_client() -> Client {
    let mut c = Client::start();
    c.initialize(&["utf-16"]);
    c.open(AUDIO_URI, "sdp", &text("sdp/schemas/audiounit.sdp"));
    c
}

#[test]
fn audiounit_vector_decodes_into_a_tree_with_byte_ranges_and_schema_links() {
    let mut c = audio_client();
    let path = vectors().join("sdp/cases/audiounit_full.bin");
    let r = c.request(
        "wirelens/inspect",
        json!({"uri": AUDIO_URI, "root": "PluginRegistry", "path": path.to_str().unwrap(), "maxNodes": 100_000}),
    );
    assert_eq!(r["length"], 112_490);
    assert_eq!(r["root"], "PluginRegistry");
    assert_eq!(r["mode"], "byte");
    assert!(r.get("error").is_none(), "{}", r["error"]);
    assert_eq!(r["truncated"], false);
    let tree = &r["tree"];
    assert_eq!(range(tree), (0, 112_490));
    assert_eq!(tree["name"], "PluginRegistry");
    // The layout `decode --annotate` prints for this vector.
    let count = node(tree, "plugins#count").unwrap();
    assert_eq!((range(count), &count["value"]), ((0, 4), &json!(62)));
    let plugins = node(tree, "plugins").unwrap();
    assert_eq!(plugins["type"], "[]Plugin");
    assert_eq!(
        plugins["children"].as_array().unwrap().len(),
        63,
        "(count) and 62 plugins"
    );
    let name = node(tree, "plugins[0].name").unwrap();
    assert_eq!(range(name), (0x04, 0x25));
    assert_eq!(name["value"], "Apple: AUNotQuiteSoSimpleTime");
    assert_eq!(name["type"], "str");
    assert_eq!(range(node(tree, "plugins[0]").unwrap()), (0x04, 0x74));
    let params = node(tree, "plugins[0].parameters").unwrap();
    assert_eq!(range(params), (0x3d, 0x74));
    let address = node(tree, "plugins[0].parameters[0].address").unwrap();
    assert_eq!((range(address), &address["value"]), ((0x41, 0x49), &json!(0)));
    assert_eq!(address["type"], "u64");
    // The declaration `address: u64,` is line 5 of the schema.
    assert_eq!(address["schemaRange"]["start"]["line"], 5, "{address}");
    let flags = node(tree, "plugins[0].parameters[0].raw_flags").unwrap();
    assert_eq!(
        (range(flags), &flags["value"]),
        ((0x6e, 0x72), &json!(3_233_808_384u64))
    );
    let min = node(tree, "plugins[0].parameters[0].min_value").unwrap();
    assert_eq!((range(min), &min["value"]), ((0x5e, 0x62), &json!(0.5)));
    let writable = node(tree, "plugins[0].parameters[0].is_writable").unwrap();
    assert_eq!((range(writable), &writable["value"]), ((0x72, 0x73), &json!(true)));
    assert_eq!(range(node(tree, "plugins[1].name").unwrap()).0, 0x74);
    let total = node(tree, "total_parameter_count").unwrap();
    assert_eq!(range(total), (112_486, 112_490));
    check_nesting(tree);
}

#[test]
fn a_window_keeps_only_the_values_it_overlaps_and_a_cap_truncates() {
    let mut c = audio_client();
    let bytes = read("sdp/cases/audiounit_full.bin");
    let data = base64(&bytes);
    let r = c.request(
        "wirelens/inspect",
        json!({"uri": AUDIO_URI, "root": "PluginRegistry", "data": data, "start": 0x74, "length": 16}),
    );
    assert_eq!(r["window"], json!({"start": 0x74, "end": 0x84}));
    let tree = &r["tree"];
    assert!(node(tree, "plugins[0]").is_none(), "before the window");
    assert!(node(tree, "plugins[2]").is_none(), "after the window");
    assert_eq!(range(node(tree, "plugins[1].name").unwrap()), (0x74, 0x87));
    let plugin = node(tree, "plugins[1]").unwrap();
    assert_eq!(plugin["type"], "Plugin");
    assert!(range(plugin).1 > 0x87, "the element's true end, past the window");
    assert!(count(tree) < 10, "{tree}");
    check_nesting(tree);

    let r = c.request(
        "wirelens/inspect",
        json!({"uri": AUDIO_URI, "root": "PluginRegistry", "data": data, "maxNodes": 50}),
    );
    assert_eq!(r["truncated"], true);
    assert!(count(&r["tree"]) <= 60, "{}", count(&r["tree"]));
    assert!(r.get("error").is_none());
}

/// `wirelens decode` on `bytes`: its error offset (`at offset N: …` on stderr).
fn cli_error_offset(schema: &Path, root: &str, bytes: &[u8]) -> u64 {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.bin");
    std::fs::write(&input, bytes).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_wirelens"))
        .args([
            "decode",
            "--annotate",
            "--schema",
            schema.to_str().unwrap(),
            "--root",
            root,
        ])
        .arg("--input")
        .arg(&input)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let last = stderr.lines().last().expect("an error");
    let at = last.find("at offset ").expect("an error");
    last[at + 10..].split(':').next().unwrap().trim().parse().unwrap()
}

#[test]
fn truncated_and_corrupted_bytes_give_the_partial_tree_and_the_error() {
    let mut c = audio_client();
    let bytes = read("sdp/cases/audiounit_full.bin");
    let schema = vectors().join("sdp/schemas/audiounit.sdp");

    // Cut short: the 62 plugins' minimum size still fits (else the count is the
    // error, at offset 0), the bytes run out inside a later plugin.
    let cut = &bytes[..2000];
    let r = c.request(
        "wirelens/inspect",
        json!({"uri": AUDIO_URI, "root": "PluginRegistry", "data": base64(cut)}),
    );
    let e = &r["error"];
    let offset = e["offset"].as_u64().unwrap();
    assert_eq!(offset, cli_error_offset(&schema, "PluginRegistry", cut), "{e}");
    assert!(offset > 0x74 && offset < 2000, "{e}");
    assert!(e["path"].as_str().unwrap().starts_with("plugins["), "{e}");
    assert!(e["message"].as_str().unwrap().contains("left"), "{e}");
    let tree = &r["tree"];
    assert_eq!(range(node(tree, "plugins[0]").unwrap()), (0x04, 0x74));
    assert_eq!(node(tree, "plugins[0].parameters[0].can_ramp").unwrap()["value"], false);
    assert!(range(tree).1 <= offset.max(2000));
    check_nesting(tree);
    // A count that cannot fit fails at its own offset: the tree is the root alone.
    let r = c.request(
        "wirelens/inspect",
        json!({"uri": AUDIO_URI, "root": "PluginRegistry", "data": base64(&bytes[..0x80])}),
    );
    assert_eq!(
        (&r["error"]["offset"], &r["error"]["path"]),
        (&json!(0), &json!("plugins"))
    );
    assert!(r["tree"].is_object());

    // A bool byte of 05.
    let mut bad = bytes.clone();
    bad[0x72] = 5;
    let r = c.request(
        "wirelens/inspect",
        json!({"uri": AUDIO_URI, "root": "PluginRegistry", "data": base64(&bad)}),
    );
    let e = &r["error"];
    assert_eq!(e["offset"], 0x72, "{e}");
    assert_eq!(e["offset"], cli_error_offset(&schema, "PluginRegistry", &bad));
    assert_eq!(e["path"], "plugins[0].parameters[0].is_writable");
    assert!(e["message"].as_str().unwrap().contains("bool byte 0x05"), "{e}");
    assert!(node(&r["tree"], "plugins[0].parameters[0].raw_flags").is_some());

    // A hostile count: 0xffffffff plugins.
    let mut bad = bytes.clone();
    bad[..4].copy_from_slice(&[0xff; 4]);
    let r = c.request(
        "wirelens/inspect",
        json!({"uri": AUDIO_URI, "root": "PluginRegistry", "data": base64(&bad)}),
    );
    assert_eq!(r["error"]["offset"], 0, "{}", r["error"]);
    assert_eq!(r["error"]["path"], "plugins");

    // Trailing bytes are an error after a whole tree.
    let mut long = bytes.clone();
    long.extend_from_slice(&[1, 2, 3]);
    let r = c.request(
        "wirelens/inspect",
        json!({"uri": AUDIO_URI, "root": "PluginRegistry", "data": base64(&long)}),
    );
    assert_eq!(r["error"]["offset"], 112_490);
    assert_eq!(range(&r["tree"]), (0, 112_490));

    // Random garbage never fails the request.
    let mut seed = 7u64;
    for len in [0usize, 1, 5, 64, 999] {
        let junk: Vec<u8> = (0..len)
            .map(|_| {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                (seed >> 56) as u8
            })
            .collect();
        let r = c.request(
            "wirelens/inspect",
            json!({"uri": AUDIO_URI, "root": "PluginRegistry", "data": base64(&junk)}),
        );
        assert!(r.get("error").is_some() || len == 0 || r["tree"].is_object(), "{r}");
    }
}

#[test]
fn unsaved_schema_edits_change_the_decode() {
    let mut c = audio_client();
    let bytes = read("sdp/cases/audiounit_full.bin");
    let params = json!({"uri": AUDIO_URI, "root": "PluginRegistry", "data": base64(&bytes), "length": 256});
    let r = c.request("wirelens/inspect", params.clone());
    assert_eq!(
        range(node(&r["tree"], "plugins[0].parameters[0].address").unwrap()),
        (0x41, 0x49)
    );
    // `address: u64` -> `address: u32` (line 5), not saved.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": AUDIO_URI, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": 5, "character": 13}, "end": {"line": 5, "character": 16}}, "text": "u32"}]}),
    );
    let r = c.request("wirelens/inspect", params.clone());
    let address = node(&r["tree"], "plugins[0].parameters[0].address").unwrap();
    assert_eq!(range(address), (0x41, 0x45));
    assert_eq!(address["type"], "u32");
    assert_eq!(
        range(node(&r["tree"], "plugins[0].parameters[0].display_name").unwrap()).0,
        0x45
    );
    // A schema with errors: no tree, the reason in `error`.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": AUDIO_URI, "version": 3}, "contentChanges": [
            {"range": {"start": {"line": 5, "character": 13}, "end": {"line": 5, "character": 16}}, "text": "Nope"}]}),
    );
    let r = c.request("wirelens/inspect", params);
    assert!(r["tree"].is_null(), "{r}");
    assert!(r["error"]["message"].as_str().unwrap().contains("errors"), "{r}");
}

#[test]
fn ffire_vector_in_both_orders_and_sdp_messages_without_a_root() {
    let mut c = Client::start();
    c.request(
        "initialize",
        json!({"processId": null, "rootUri": null, "capabilities": {},
               "initializationOptions": {"ffi": {"order": "canonical"}}}),
    );
    c.notify("initialized", json!({}));
    let uri = "file:///tmp/wirelens-inspect-test/struct.ffi";
    c.open(uri, "ffi", &text("ffi/schemas/struct.ffi"));
    let r = c.request(
        "wirelens/inspect",
        json!({"uri": uri, "root": "Config", "data": base64(&read("ffi/cases/struct.canon.bin"))}),
    );
    assert!(r.get("error").is_none(), "{r}");
    let tree = &r["tree"];
    let names: Vec<&str> = tree["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["MaxRetries", "Port", "Timeout", "EnableSSL", "Host"],
        "wire order"
    );
    let host = node(tree, "host").unwrap();
    assert_eq!((range(host), &host["value"]), ((13, 24), &json!("localhost")));
    assert_eq!(host["schemaRange"]["start"]["line"], 4);
    assert_eq!(range(node(tree, "maxRetries").unwrap()), (0, 4));
    check_nesting(tree);

    // SDP message: the header names the type.
    let uri = "file:///tmp/wirelens-inspect-test/arrays.sdp";
    c.open(uri, "sdp", &text("sdp/schemas/arrays.sdp"));
    let bytes = read("sdp/cases/message_item.bin");
    let r = c.request("wirelens/inspect", json!({"uri": uri, "data": base64(&bytes)}));
    assert_eq!((&r["root"], &r["mode"]), (&json!("Item"), &json!("message")), "{r}");
    let header = node(&r["tree"], "#header").unwrap();
    assert_eq!(range(header), (0, 10));
    assert_eq!(header["value"]["typeId"], 2);
    assert_eq!(range(node(&r["tree"], "name").unwrap()), (14, 22));
    // Plain bytes without a root: an error, no tree.
    let r = c.request("wirelens/inspect", json!({"uri": uri, "data": base64(&bytes[10..])}));
    assert!(r["tree"].is_null());
    assert!(r["error"]["message"].as_str().unwrap().contains("root"), "{r}");

    // Bad requests are JSON-RPC errors.
    let bad = c.request_raw("wirelens/inspect", json!({"uri": uri, "data": "**"}));
    assert!(bad["error"]["message"].as_str().unwrap().contains("base64"), "{bad}");
    let bad = c.request_raw("wirelens/inspect", json!({"uri": "file:///nowhere.sdp", "data": ""}));
    assert!(bad.get("error").is_some(), "{bad}");
    let bad = c.request_raw("wirelens/inspect", json!({"uri": uri}));
    assert!(bad.get("error").is_some(), "{bad}");
}
