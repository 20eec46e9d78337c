//! The language server driven over stdio the way an editor drives it: framed JSON-RPC
//! into `wirelens lsp`, requests answered, diagnostics pushed.

mod common;

use std::time::Duration;

use common::{pos, Client};
use serde_json::{json, Value};

const AUDIO: &str = "struct Parameter {\n    address: u64,\n    display_name: str,\n    min_value: f32,\n}\n\nstruct Plugin {\n    name: str,\n    parameters: []Parameter,\n}\n";

#[test]
fn negotiates_position_encoding() {
    let mut c = Client::start();
    assert_eq!(c.initialize(&["utf-16"])["capabilities"]["positionEncoding"], "utf-16");
    let mut c = Client::start();
    assert_eq!(
        c.initialize(&["utf-8", "utf-16"])["capabilities"]["positionEncoding"],
        "utf-8"
    );
    let mut c = Client::start();
    assert_eq!(
        c.initialize(&[])["capabilities"]["positionEncoding"],
        "utf-16",
        "the default"
    );
}

#[test]
fn diagnostics_follow_incremental_edits_and_clear_on_close() {
    let mut c = Client::start();
    c.initialize(&["utf-16"]);
    let uri = "file:///tmp/wirelens-lsp-test/a.sdp";
    c.open(uri, "sdp", "struct A {\n    x: Strng,\n}\n");
    let d = c.diagnostics(uri);
    assert_eq!(d["diagnostics"][0]["code"], "UNKNOWN_TYPE", "{d}");
    assert_eq!(d["diagnostics"][0]["range"]["start"], pos(1, 7));
    // Type "str" over "Strng" as two incremental edits, like keystrokes.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
            {"range": {"start": pos(1, 7), "end": pos(1, 12)}, "text": "st"}]}),
    );
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 3}, "contentChanges": [
            {"range": {"start": pos(1, 9), "end": pos(1, 9)}, "text": "r"}]}),
    );
    let d = c.diagnostics(uri);
    assert_eq!(d["version"], 3, "debounced: one publish for the final version: {d}");
    assert_eq!(d["diagnostics"], json!([]), "an empty list is published: {d}");
    c.notify("textDocument/didClose", json!({"textDocument": {"uri": uri}}));
    assert_eq!(c.diagnostics(uri)["diagnostics"], json!([]));
}

#[test]
fn related_locations_travel_with_the_diagnostic() {
    let mut c = Client::start();
    c.initialize(&["utf-16"]);
    let uri = "file:///tmp/wirelens-lsp-test/dup.sdp";
    c.open(uri, "sdp", "/// é𝄞\nstruct A { x: u8 }\nstruct A { y: u8 }\n");
    let d = c.diagnostics(uri);
    let dup = d["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["code"] == "DUPLICATE_STRUCT")
        .unwrap_or_else(|| panic!("no DUPLICATE_STRUCT: {d}"))
        .clone();
    assert_eq!(dup["range"]["start"], pos(2, 7), "{d}");
    let related = &dup["relatedInformation"][0];
    assert_eq!(related["message"], "first defined here", "{d}");
    assert_eq!(related["location"]["uri"], uri);
    assert_eq!(related["location"]["range"]["start"], pos(1, 7));
    assert_eq!(related["location"]["range"]["end"], pos(1, 8));
}

#[test]
fn utf16_positions_after_non_ascii_text() {
    let mut c = Client::start();
    c.initialize(&["utf-16"]);
    let uri = "file:///tmp/wirelens-lsp-test/u.sdp";
    // "𝄞" is 2 UTF-16 units, "é" one: the bad type starts at UTF-16 column 18.
    c.open(uri, "sdp", "struct A {\n    /* */\n}\nstruct B { x: u8, y: u8 }\n");
    c.diagnostics(uri);
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": "struct Aé𝄞 { x: Bad }\n"}]}),
    );
    let d = c.diagnostics(uri);
    let unknown = d["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["code"] == "UNKNOWN_TYPE")
        .unwrap()
        .clone();
    assert_eq!(unknown["range"]["start"], pos(0, 17), "{d}");
    assert_eq!(unknown["range"]["end"], pos(0, 20));
}

#[test]
fn layout_hover_inlay_hints_and_lenses() {
    let mut c = Client::start();
    c.initialize(&["utf-16"]);
    let uri = "file:///tmp/wirelens-lsp-test/audio.sdp";
    c.open(uri, "sdp", AUDIO);
    c.diagnostics(uri);
    let hover = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": pos(0, 9)}),
    );
    let text = hover["contents"]["value"].as_str().unwrap();
    assert!(text.contains("struct Parameter"), "{text}");
    assert!(text.contains("| 0 | `address` | `u64` | 0 (0x0) | 8 B |"), "{text}");
    assert!(
        text.contains("| 2 | `min_value` | `f32` | `12 + \\|display_name\\|` | 4 B |"),
        "{text}"
    );
    assert!(
        text.contains("message type id 1 (positional: the struct's place in the file)"),
        "{text}"
    );
    let field = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": pos(2, 6)}),
    );
    let text = field["contents"]["value"].as_str().unwrap();
    assert!(text.contains("size = 4+len B, offset = 8 (0x8)"), "{text}");

    let hints = c.request(
        "textDocument/inlayHint",
        json!({"textDocument": {"uri": uri}, "range": {"start": pos(0, 0), "end": pos(10, 0)}}),
    );
    let labels: Vec<&str> = hints
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["label"].as_str().unwrap())
        .collect();
    assert_eq!(
        labels,
        [
            "@0 · 8 B",
            "@8 · 4+len B",
            "@after display_name · 4 B",
            "@0 · 4+len B",
            "@after name · 4+n×≥16 B"
        ]
    );
    assert_eq!(hints[0]["position"], pos(1, 17), "after the comma");
    // The full offset and size are in the tooltip.
    assert_eq!(
        hints[2]["tooltip"],
        "offset 12 + |display_name| B\nsize 4 B\n|x| is the length of field x beyond its minimum size"
    );

    let lenses = c.request("textDocument/codeLens", json!({"textDocument": {"uri": uri}}));
    assert_eq!(
        lenses[1]["command"]["title"], "1 string + 1 array · min 8 B · message id 2 (position)",
        "no zero counts, plurals right, the id said to be positional"
    );
    // The lens runs a real command: the struct's layout as Markdown.
    let cmd = &lenses[1]["command"];
    assert_eq!(cmd["command"], "wirelens.showLayout");
    let shown = c.request(
        "workspace/executeCommand",
        json!({"command": cmd["command"], "arguments": cmd["arguments"]}),
    );
    assert!(
        shown.as_str().unwrap().contains("| 1 | `parameters` | `[]Parameter`"),
        "{shown}"
    );
    // The hover's diagram: boxes under a byte ruler, the array as count + open box.
    assert!(
        shown.as_str().unwrap().contains("|parameters: count × Parameter …"),
        "{shown}"
    );
    // The layout view asks for SVG too: the same Markdown, and a picture in which the
    // array of structs can be expanded.
    let mut args = cmd["arguments"].as_array().unwrap().clone();
    args.push(json!({"svg": true}));
    let view = c.request(
        "workspace/executeCommand",
        json!({"command": cmd["command"], "arguments": args}),
    );
    assert_eq!(view["markdown"], shown);
    let svg = view["svg"].as_str().unwrap();
    assert!(svg.starts_with("<svg"), "{svg}");
    assert!(
        svg.contains("<summary><code>parameters</code>: Parameter</summary><svg"),
        "{svg}"
    );
}

#[test]
fn ffi_hints_show_the_wire_position_when_reordered() {
    let mut c = Client::start();
    c.initialize(&["utf-16"]);
    let uri = "file:///tmp/wirelens-lsp-test/m.ffi";
    c.open(
        uri,
        "ffi",
        "package p\n\ntype Msg struct {\n\tName string\n\tId   int64\n}\n",
    );
    c.diagnostics(uri);
    let hints = c.request(
        "textDocument/inlayHint",
        json!({"textDocument": {"uri": uri}, "range": {"start": pos(0, 0), "end": pos(9, 0)}}),
    );
    let labels: Vec<&str> = hints
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["@8 · 2+len B · wire #1", "@0 · 8 B · wire #0"]);
}

#[test]
fn navigation_symbols_and_formatting() {
    let mut c = Client::start();
    c.initialize(&["utf-16"]);
    let uri = "file:///tmp/wirelens-lsp-test/nav.sdp";
    c.open(uri, "sdp", AUDIO);
    c.diagnostics(uri);
    // `Parameter` in `parameters: []Parameter` (line 8).
    let def = c.request(
        "textDocument/definition",
        json!({"textDocument": {"uri": uri}, "position": pos(8, 20)}),
    );
    assert_eq!(def["range"]["start"], pos(0, 7));
    let refs = c.request(
        "textDocument/references",
        json!({"textDocument": {"uri": uri}, "position": pos(0, 8), "context": {"includeDeclaration": true}}),
    );
    assert_eq!(refs.as_array().unwrap().len(), 2);
    let symbols = c.request("textDocument/documentSymbol", json!({"textDocument": {"uri": uri}}));
    assert_eq!(symbols[0]["name"], "Parameter");
    assert_eq!(symbols[0]["children"][1]["name"], "display_name");
    let folds = c.request("textDocument/foldingRange", json!({"textDocument": {"uri": uri}}));
    assert_eq!(folds[0]["startLine"], 0);
    assert_eq!(folds[0]["endLine"], 4);
    assert!(
        folds[0].get("kind").is_none(),
        "a struct body is no `region`: {}",
        folds[0]
    );

    let messy = "file:///tmp/wirelens-lsp-test/messy.sdp";
    c.open(messy, "sdp", "struct A{x:u32}\n");
    let edits = c.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": messy}, "options": {"tabSize": 4, "insertSpaces": true}}),
    );
    assert_eq!(edits[0]["newText"], "struct A {\n    x: u32,\n}\n");
    let broken = "file:///tmp/wirelens-lsp-test/broken.sdp";
    c.open(broken, "sdp", "struct A{x u32}\n");
    let edits = c.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": broken}, "options": {"tabSize": 4, "insertSpaces": true}}),
    );
    assert_eq!(edits, Value::Null, "never formats a file with syntax errors");
}

#[test]
fn survives_a_burst_of_typing_and_odd_positions() {
    let mut c = Client::start();
    c.initialize(&["utf-16"]);
    let uri = "file:///tmp/wirelens-lsp-test/typing.sdp";
    c.open(uri, "sdp", "");
    c.diagnostics(uri);
    let text = "struct Item {\n    id: u32,\n    name: str,\n}\n";
    let (mut line, mut col) = (0u32, 0u32);
    for (i, ch) in text.chars().enumerate() {
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": i as i64 + 2}, "contentChanges": [
                {"range": {"start": pos(line, col), "end": pos(line, col)}, "text": ch.to_string()}]}),
        );
        if ch == '\n' {
            line += 1;
            col = 0;
        } else {
            col += 1;
        }
    }
    let last = text.chars().count() as i64 + 1;
    let mut d = c.diagnostics(uri);
    while d["version"] != last {
        d = c.diagnostics(uri);
    }
    assert_eq!(d["diagnostics"], json!([]), "{d}");
    // Positions past the end of lines and of the file are clamped, not fatal.
    let h = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": pos(99, 99)}),
    );
    assert_eq!(h, Value::Null);
    let hover = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": pos(0, 9)}),
    );
    assert!(hover["contents"]["value"].as_str().unwrap().contains("struct Item"));
}

#[test]
fn completion_offers_types_in_type_position_and_snippets_elsewhere() {
    let mut c = Client::start();
    c.initialize(&["utf-16"]);
    let uri = "file:///tmp/wirelens-lsp-test/complete.sdp";
    c.open(
        uri,
        "sdp",
        "struct Point {\n    x: f32,\n}\nstruct Shape {\n    at: \n}\n",
    );
    c.diagnostics(uri);
    let items = c.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": uri}, "position": pos(4, 8)}),
    );
    assert_eq!(items["isIncomplete"], false);
    let items = &items["items"];
    let labels: Vec<&str> = items
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap())
        .collect();
    for want in ["u32", "str", "Point", "Option<…>", "[]"] {
        assert!(labels.contains(&want), "{want} missing from {labels:?}");
    }
    let point = items
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["label"] == "Point")
        .unwrap();
    assert_eq!(point["detail"], "4 B fixed");
    let top = c.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": uri}, "position": pos(3, 0)}),
    );
    assert!(top["items"]
        .as_array()
        .unwrap()
        .iter()
        .any(|i| i["label"] == "struct" && i["insertTextFormat"] == 2));
}

/// Issue 33 item 4: on a big schema a completion answer holds only the types the name
/// typed so far can become, at most 1,000 of them, and says when it left some out (the
/// editor then asks again as the user types on).
#[test]
fn completion_on_a_big_schema_offers_what_the_typed_name_can_become() {
    let mut c = Client::start();
    c.initialize(&["utf-16"]);
    let uri = "file:///tmp/wirelens-lsp-test/complete-big.sdp";
    let mut text: String = (0..1500)
        .map(|i| format!("struct Record{i} {{\n    x: u8,\n}}\n"))
        .collect();
    text.push_str("struct Zebra {\n    y: u8,\n}\nstruct Use {\n    a: Ze\n}\n");
    c.open(uri, "sdp", &text);
    c.diagnostics(uri);
    let line = 1500 * 3 + 4; // `    a: Ze`
    let at = |c: &mut Client, character: u32| {
        c.request(
            "textDocument/completion",
            json!({"textDocument": {"uri": uri}, "position": pos(line, character)}),
        )
    };
    let types = |answer: &Value| -> Vec<String> {
        answer["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["kind"] == 22) // CompletionItemKind::STRUCT
            .map(|i| i["label"].as_str().unwrap().to_string())
            .collect()
    };
    // After `Ze`: only Zebra (and `Use`, the struct itself, would be a cycle).
    let ze = at(&mut c, 9);
    assert_eq!(types(&ze), ["Zebra"]);
    assert_eq!(ze["isIncomplete"], false);
    // After `Z`: Zebra only.
    assert_eq!(types(&at(&mut c, 8)), ["Zebra"]);
    // Nothing typed yet: the first 1,000 types, marked incomplete.
    let all = at(&mut c, 7);
    assert_eq!(types(&all).len(), 1000);
    assert_eq!(all["isIncomplete"], true);
    assert!(all["items"].as_array().unwrap().iter().any(|i| i["label"] == "u32"));
}

#[test]
fn rename_with_prepare_refuses_keywords_and_collisions() {
    let mut c = Client::start();
    c.initialize(&["utf-16"]);
    let uri = "file:///tmp/wirelens-lsp-test/rename.sdp";
    c.open(uri, "sdp", AUDIO);
    c.diagnostics(uri);
    let prep = c.request(
        "textDocument/prepareRename",
        json!({"textDocument": {"uri": uri}, "position": pos(8, 20)}),
    );
    assert_eq!(prep["start"], pos(8, 18));
    let edit = c.request(
        "textDocument/rename",
        json!({"textDocument": {"uri": uri}, "position": pos(8, 20), "newName": "Param"}),
    );
    let edits = edit["changes"][uri].as_array().unwrap();
    assert_eq!(edits.len(), 2, "declaration and reference: {edit}");
    assert!(edits.iter().all(|e| e["newText"] == "Param"));
    for bad in ["Plugin", "type", "u8", "9lives"] {
        let id = c.next_id;
        c.next_id += 1;
        c.send(json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/rename",
            "params": {"textDocument": {"uri": uri}, "position": pos(0, 9), "newName": bad}}));
        let resp = loop {
            let m = c.rx.recv_timeout(Duration::from_secs(20)).unwrap();
            if m["id"] == id {
                break m;
            }
        };
        assert!(
            resp["error"]["message"].is_string(),
            "renaming to {bad} must be refused: {resp}"
        );
    }
}

#[test]
fn semantic_tokens_classify_declarations_types_fields_and_comments() {
    let mut c = Client::start();
    let init = c.initialize(&["utf-16"]);
    let legend = &init["capabilities"]["semanticTokensProvider"]["legend"]["tokenTypes"];
    let uri = "file:///tmp/wirelens-lsp-test/tokens.sdp";
    c.open(uri, "sdp", "/// Doc.\nstruct A {\n    b: []B,\n}\nstruct B { x: u8 }\n");
    c.diagnostics(uri);
    let t = c.request(
        "textDocument/semanticTokens/full",
        json!({"textDocument": {"uri": uri}}),
    );
    let data: Vec<u64> = t["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    // Decode the relative encoding back to (line, col, len, type name).
    let (mut line, mut col) = (0, 0);
    let mut tokens = Vec::new();
    for chunk in data.chunks(5) {
        if chunk[0] > 0 {
            col = 0;
        }
        line += chunk[0];
        col += chunk[1];
        tokens.push((
            line,
            col,
            chunk[2],
            legend[chunk[3] as usize].as_str().unwrap().to_string(),
        ));
    }
    assert!(tokens.contains(&(0, 0, 8, "comment".into())), "{tokens:?}");
    assert!(tokens.contains(&(1, 0, 6, "keyword".into())), "{tokens:?}");
    assert!(tokens.contains(&(1, 7, 1, "struct".into())), "{tokens:?}");
    assert!(tokens.contains(&(2, 4, 1, "property".into())), "{tokens:?}");
    assert!(tokens.contains(&(2, 9, 1, "struct".into())), "{tokens:?}");
    assert!(tokens.contains(&(4, 14, 2, "type".into())), "{tokens:?}");

    // `semanticTokens/range` (what editors ask for the visible lines): exactly the
    // full answer's tokens on those lines, and none from the others.
    assert_eq!(init["capabilities"]["semanticTokensProvider"]["range"], true);
    let ranged = c.request(
        "textDocument/semanticTokens/range",
        json!({"textDocument": {"uri": uri}, "range": {"start": pos(2, 0), "end": pos(3, 1)}}),
    );
    let (mut line, mut col) = (0, 0);
    let mut in_range = Vec::new();
    for chunk in ranged["data"].as_array().unwrap().chunks(5) {
        let v: Vec<u64> = chunk.iter().map(|x| x.as_u64().unwrap()).collect();
        if v[0] > 0 {
            col = 0;
        }
        line += v[0];
        col += v[1];
        in_range.push((line, col, v[2], legend[v[3] as usize].as_str().unwrap().to_string()));
    }
    let expected: Vec<_> = tokens.iter().filter(|t| (2..=3).contains(&t.0)).cloned().collect();
    assert!(!expected.is_empty());
    assert_eq!(in_range, expected);
}

/// `semanticTokens/full/delta`: after an edit, the answer is the edit from the tokens last
/// sent to the new ones (small: the one changed token), and applying it to the old tokens
/// gives exactly what a full request gives; an unknown `previousResultId` gets full tokens.
#[test]
fn semantic_token_deltas_apply_to_the_full_tokens() {
    let mut c = Client::start();
    let init = c.initialize(&["utf-16"]);
    assert_eq!(init["capabilities"]["semanticTokensProvider"]["full"]["delta"], true);
    let uri = "file:///tmp/wirelens-lsp-test/delta.sdp";
    let mut text = String::new();
    for i in 0..200u32 {
        let b = if i == 0 {
            "u8".to_string()
        } else {
            format!("S{}", i - 1)
        };
        text.push_str(&format!(
            "/// Doc {i}.\nstruct S{i} {{\n    a: u64,\n    b: []{b},\n}}\n"
        ));
    }
    c.open(uri, "sdp", &text);
    c.diagnostics(uri);
    let numbers = |v: &Value| -> Vec<u64> { v.as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect() };
    let first = c.request(
        "textDocument/semanticTokens/full",
        json!({"textDocument": {"uri": uri}}),
    );
    let old = numbers(&first["data"]);
    let id = first["resultId"].as_str().expect("a result id").to_string();

    // `u64` → `u8` on line 102 (struct S20.s field a), and struct S30 renamed.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
            {"range": {"start": pos(102, 7), "end": pos(102, 10)}, "text": "u8"},
            {"range": {"start": pos(151, 7), "end": pos(151, 10)}, "text": "S30Renamed"},
        ]}),
    );
    c.diagnostics(uri);
    let delta = c.request(
        "textDocument/semanticTokens/full/delta",
        json!({"textDocument": {"uri": uri}, "previousResultId": id}),
    );
    let edits = delta["edits"].as_array().expect("a delta, not full tokens");
    assert_eq!(edits.len(), 1, "{delta}");
    let mut applied = old.clone();
    for e in edits.iter().rev() {
        let (start, count) = (
            e["start"].as_u64().unwrap() as usize,
            e["deleteCount"].as_u64().unwrap() as usize,
        );
        applied.splice(start..start + count, numbers(&e["data"]));
    }
    // The edit spans the tokens from line 102 to line 151 only, not the whole file.
    assert!(numbers(&edits[0]["data"]).len() < old.len() / 3, "{}", edits[0]);
    let full = c.request(
        "textDocument/semanticTokens/full",
        json!({"textDocument": {"uri": uri}}),
    );
    assert_eq!(applied, numbers(&full["data"]));
    assert_ne!(applied, old);

    // The id of an older answer (a full request came since): full tokens again.
    let again = c.request(
        "textDocument/semanticTokens/full/delta",
        json!({"textDocument": {"uri": uri}, "previousResultId": id}),
    );
    assert_eq!(numbers(&again["data"]), numbers(&full["data"]));
    assert!(again.get("edits").is_none());
    // Nothing changed since the last answer: no edits.
    let same = c.request(
        "textDocument/semanticTokens/full/delta",
        json!({"textDocument": {"uri": uri}, "previousResultId": again["resultId"]}),
    );
    assert_eq!(same["edits"], json!([]));
}

/// Sends one incremental edit of `uri` and returns the diagnostics published for it.
fn change(c: &mut Client, uri: &str, version: i32, range: Value, new: &str) -> Vec<Value> {
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": version},
               "contentChanges": [{"range": range, "text": new}]}),
    );
    c.diagnostics(uri)["diagnostics"].as_array().unwrap().clone()
}

/// Each diagnostic's message and where it starts.
fn messages_and_starts(diags: &[Value]) -> Vec<(&str, &Value)> {
    diags
        .iter()
        .map(|d| (d["message"].as_str().unwrap(), &d["range"]["start"]))
        .collect()
}

/// Issue 33: delete a struct's `}` and type a new last field `extra: ` (incremental
/// edits, as an editor sends them): the errors are at that field and the open struct,
/// the next struct is not swallowed and no cycle is invented through it.
#[test]
fn a_half_typed_field_in_an_open_struct_keeps_the_next_struct() {
    let mut c = Client::start();
    c.initialize_without_delay(None);
    let uri = "file:///tmp/wirelens-lsp-test/recovery.sdp";
    let text = "struct LoopRange {\n    start: u32,\n}\n\n/// The next one.\nstruct Other {\n    r: LoopRange,\n}\n";
    c.open(uri, "sdp", text);
    assert_eq!(c.diagnostics(uri)["diagnostics"], json!([]));
    change(&mut c, uri, 2, json!({"start": pos(2, 0), "end": pos(2, 1)}), "");
    let diags = change(
        &mut c,
        uri,
        3,
        json!({"start": pos(2, 0), "end": pos(2, 0)}),
        "    extra: ",
    );
    let got = messages_and_starts(&diags);
    assert_eq!(
        got,
        [
            (
                "syntax error: missing `}`: struct `LoopRange` is not closed",
                &pos(2, 10)
            ),
            ("syntax error: missing type", &pos(2, 10)),
        ],
        "{diags:#?}"
    );
}

/// The same walk in ffire, through the real server with incremental edits: the error names
/// the open struct after its last field, and the struct after it keeps no error of its own
/// (before, it was swallowed and the missing `}` was reported at the end of the file).
#[test]
fn ffi_a_half_typed_field_in_an_open_struct_keeps_the_next_struct() {
    let mut c = Client::start();
    c.initialize_without_delay(None);
    let uri = "file:///tmp/wirelens-lsp-test/recovery.ffi";
    let text = "package p\n\ntype LoopRange struct {\n\tStart int32\n}\n\n// The next one.\ntype Other struct {\n\tR LoopRange\n}\n";
    c.open(uri, "ffi", text);
    assert_eq!(c.diagnostics(uri)["diagnostics"], json!([]));
    change(&mut c, uri, 2, json!({"start": pos(4, 0), "end": pos(4, 1)}), "");
    let diags = change(
        &mut c,
        uri,
        3,
        json!({"start": pos(4, 0), "end": pos(4, 0)}),
        "\tExtra int32",
    );
    let got = messages_and_starts(&diags);
    assert_eq!(
        got,
        [(
            "syntax error: missing `}`: struct `LoopRange` is not closed",
            &pos(4, 12)
        )],
        "{diags:#?}"
    );
}

/// Create struct puts the cursor in the new struct, its stub field selected, for a client
/// that takes LSP 3.18 snippet edits (`workspace.workspaceEdit.snippetEditSupport`, as
/// vscode-languageclient advertises); one blank line before it. Others get the plain
/// edit and no `data`.
#[test]
fn create_struct_puts_the_cursor_in_the_new_struct_for_clients_with_snippet_edits() {
    let uri = "file:///tmp/wirelens-lsp-test/snippet.sdp";
    let text = "struct A {\n    m: Missing,\n}\n\n\n";
    let ask = |c: &mut Client| {
        c.open(uri, "sdp", text);
        c.diagnostics(uri);
        let actions = c.request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": {"start": pos(1, 8), "end": pos(1, 8)}, "context": {"diagnostics": []}}),
        );
        actions
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["title"] == "Create struct `Missing`")
            .unwrap()
            .clone()
    };
    let mut c = Client::start();
    c.request(
        "initialize",
        json!({"processId": null, "rootUri": null,
               "capabilities": {"workspace": {"workspaceEdit": {"documentChanges": true, "snippetEditSupport": true}}}}),
    );
    c.notify("initialized", json!({}));
    let create = ask(&mut c);
    assert!(create.get("data").is_none(), "{create:#}");
    let change = &create["edit"]["documentChanges"][0];
    assert_eq!(change["textDocument"]["uri"], uri);
    assert_eq!(
        change["edits"][0]["range"],
        json!({"start": pos(2, 1), "end": pos(5, 0)})
    );
    assert_eq!(
        change["edits"][0]["snippet"],
        json!({"kind": "snippet", "value": "\n\nstruct Missing {\n    ${0:field: u32},\n\\}\n"})
    );

    let mut c = Client::start();
    c.initialize(&["utf-16"]);
    let create = ask(&mut c);
    assert!(create.get("data").is_none(), "{create:#}");
    assert_eq!(
        create["edit"]["changes"][uri][0]["newText"],
        "\n\nstruct Missing {\n    field: u32,\n}\n"
    );
}

#[test]
fn code_actions_create_missing_struct_rename_reserved_and_switch_order() {
    let mut c = Client::start();
    c.initialize(&["utf-16"]);
    let uri = "file:///tmp/wirelens-lsp-test/actions.sdp";
    c.open(uri, "sdp", "struct A {\n    type: u8,\n    m: Missing,\n}\n");
    c.diagnostics(uri);
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": {"start": pos(1, 0), "end": pos(2, 20)}, "context": {"diagnostics": []}}),
    );
    let titles: Vec<&str> = actions
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    assert!(titles.contains(&"Create struct `Missing`"), "{titles:?}");
    assert!(titles.contains(&"Rename `type` to `type_`"), "{titles:?}");
    let create = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"] == "Create struct `Missing`")
        .unwrap();
    assert!(create["edit"]["changes"][uri][0]["newText"]
        .as_str()
        .unwrap()
        .contains("struct Missing {"));

    let split = "file:///tmp/wirelens-lsp-test/split.sdp";
    c.open(
        split,
        "sdp",
        "struct P {\n    id: u32,\n    name: str,\n    x: f32,\n}\n",
    );
    // `split-fixed-block` is not published (ARCHITECTURE.md): only offered as an action.
    let published = c.diagnostics(split);
    assert!(!published.to_string().contains("split-fixed-block"), "{published}");
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": split}, "range": {"start": pos(3, 4), "end": pos(3, 5)}, "context": {"diagnostics": []}}),
    );
    let reorder = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"].as_str().unwrap().contains("fixed-size fields first"))
        .unwrap();
    assert_eq!(
        reorder["edit"]["changes"][split][0]["newText"], "    id: u32,\n    x: f32,\n    name: str,\n",
        "whole lines move, so comments move with their fields"
    );
    // And with the cursor anywhere in the struct, not only on the field that splits it.
    for at in [pos(0, 8), pos(1, 5)] {
        let actions = c.request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": split}, "range": {"start": at, "end": at}, "context": {"diagnostics": []}}),
        );
        assert!(
            actions.to_string().contains("fixed-size fields first"),
            "at {at}: {actions}"
        );
    }

    let ffi = "file:///tmp/wirelens-lsp-test/order.ffi";
    c.open(
        ffi,
        "ffi",
        "package p\n\ntype Msg struct {\n\tName string\n\tId int64\n}\n",
    );
    c.diagnostics(ffi);
    // Offered where the order is decided (the package line), not at every position.
    let in_struct = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": ffi}, "range": {"start": pos(2, 0), "end": pos(2, 0)}, "context": {"diagnostics": []}}),
    );
    assert!(
        !in_struct.to_string().contains("field order"),
        "not offered inside a struct: {in_struct}"
    );
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": ffi}, "range": {"start": pos(0, 3), "end": pos(0, 3)}, "context": {"diagnostics": []}}),
    );
    let switch = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"].as_str().unwrap().contains("declaration field order"))
        .unwrap();
    assert_eq!(
        switch["edit"]["changes"][ffi][0]["newText"],
        "//wirelens:order declaration\n"
    );
}

#[test]
fn client_settings_choose_the_ffi_order_and_workspace_symbols_cover_files_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("other.sdp"), "struct OnDisk { x: u8 }\n").unwrap();
    let root = format!("file://{}", dir.path().display());
    let mut c = Client::start();
    c.request(
        "initialize",
        json!({"processId": null, "rootUri": root, "capabilities": {}, "initializationOptions": {"ffi": {"order": "declaration"}}}),
    );
    c.notify("initialized", json!({}));
    let uri = format!("{root}/m.ffi");
    c.open(
        &uri,
        "ffi",
        "package p\n\ntype Msg struct {\n\tName string\n\tId int64\n}\n",
    );
    c.diagnostics(&uri);
    let hint = |c: &mut Client| {
        let hints = c.request(
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": uri}, "range": {"start": pos(0, 0), "end": pos(9, 0)}}),
        );
        hints[0]["label"].as_str().unwrap().to_string()
    };
    assert_eq!(
        hint(&mut c),
        "@0 · 2+len B",
        "declaration order from initializationOptions"
    );
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"wirelens": {"ffi": {"order": "canonical"}}}}),
    );
    assert_eq!(
        hint(&mut c),
        "@8 · 2+len B · wire #1",
        "canonical after didChangeConfiguration"
    );

    let symbols = c.request("workspace/symbol", json!({"query": "disk"}));
    assert_eq!(symbols[0]["name"], "OnDisk", "{symbols}");
    assert!(symbols[0]["location"]["uri"].as_str().unwrap().ends_with("other.sdp"));
}

#[test]
fn wirelens_toml_changes_are_picked_up() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("wirelens.toml"), "[ffi]\norder = \"declaration\"\n").unwrap();
    let root = format!("file://{}", dir.path().display());
    let mut c = Client::start();
    c.request(
        "initialize",
        json!({"processId": null, "rootUri": root,
               "capabilities": {"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": false}}}}),
    );
    c.notify("initialized", json!({}));
    let uri = format!("{root}/m.ffi");
    c.open(
        &uri,
        "ffi",
        "package p\n\ntype Msg struct {\n\tName string\n\tId int64\n}\n",
    );
    c.diagnostics(&uri);
    let hint = |c: &mut Client| {
        let hints = c.request(
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": uri}, "range": {"start": pos(0, 0), "end": pos(9, 0)}}),
        );
        hints[0]["label"].as_str().unwrap().to_string()
    };
    assert_eq!(hint(&mut c), "@0 · 2+len B", "declaration order from wirelens.toml");
    std::fs::write(dir.path().join("wirelens.toml"), "[ffi]\norder = \"canonical\"\n").unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": format!("{root}/wirelens.toml"), "type": 2}]}),
    );
    c.diagnostics(&uri);
    assert_eq!(
        hint(&mut c),
        "@8 · 2+len B · wire #1",
        "canonical after the file changed"
    );
}

#[test]
fn a_thousand_rapid_changes_end_in_the_right_state() {
    let mut c = Client::start();
    c.initialize(&["utf-16"]);
    let uri = "file:///tmp/wirelens-lsp-test/thousand.sdp";
    c.open(uri, "sdp", "");
    c.diagnostics(uri);
    // 250 structs' worth of typing: insert each line, then retype its last character
    // (delete + insert), so edits both insert and replace, 1,000 changes in all.
    let mut version = 1;
    let mut expected = String::new();
    for i in 0..250u32 {
        let line = i;
        let text = format!("struct S{i:03} {{ a: u32, b: S{:03} }}\n", (i + 1) % 250);
        let text = if i == 249 {
            format!("struct S{i:03} {{ a: u32 }}\n")
        } else {
            text
        };
        for change in [
            json!({"range": {"start": pos(line, 0), "end": pos(line, 0)}, "text": text}),
            json!({"range": {"start": pos(line, 0), "end": pos(line, 6)}, "text": ""}),
            json!({"range": {"start": pos(line, 0), "end": pos(line, 0)}, "text": "struct"}),
            json!({"range": {"start": pos(line, 7), "end": pos(line, 8)}, "text": "S"}),
        ] {
            version += 1;
            c.notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}),
            );
        }
        expected.push_str(&text);
    }
    assert_eq!(version, 1001);
    let mut d = c.diagnostics(uri);
    while d["version"] != version {
        d = c.diagnostics(uri);
    }
    assert_eq!(d["diagnostics"], json!([]), "{d}");
    let symbols = c.request("textDocument/documentSymbol", json!({"textDocument": {"uri": uri}}));
    let names: Vec<&str> = symbols
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 250);
    assert_eq!(names[0], "S000");
    assert_eq!(names[249], "S249");
    // The server's text is exactly what was typed: formatting it equals formatting ours.
    let edits = c.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": uri}, "options": {"tabSize": 4, "insertSpaces": true}}),
    );
    let thousand = tempfile::tempdir().unwrap();
    let ours = std::process::Command::new(env!("CARGO_BIN_EXE_wirelens"))
        .args(["fmt", "--check"])
        .arg({
            let p = thousand.path().join("thousand.sdp");
            std::fs::write(&p, &expected).unwrap();
            p
        })
        .output()
        .unwrap();
    assert_eq!(
        ours.status.code(),
        Some(1),
        "the typed text is not in canonical style, so formatting must change it"
    );
    assert_eq!(
        edits[0]["range"]["end"],
        pos(250, 0),
        "the server's text has exactly 250 lines"
    );
}

#[test]
fn positions_after_non_ascii_in_every_encoding_and_both_dialects() {
    // The bad type name starts after `é` (2 UTF-8 bytes, 1 UTF-16 unit) and `𝒜`
    // (a letter outside the BMP: 4 bytes, 2 units, 1 char).
    let cases = [
        ("sdp", "struct Aé𝒜 { x: Bad }\n", "UNKNOWN_TYPE"),
        ("ffi", "package p\ntype Aé𝒜 struct { X /* ä */ Bad }\n", "E005"),
    ];
    for (ext, text, code) in cases {
        let line = text.lines().position(|l| l.contains("Bad")).unwrap();
        let before = &text.lines().nth(line).unwrap()[..text.lines().nth(line).unwrap().find("Bad").unwrap()];
        for (encoding, col) in [
            ("utf-8", before.len()),
            ("utf-16", before.encode_utf16().count()),
            ("utf-32", before.chars().count()),
        ] {
            let mut c = Client::start();
            let init = c.initialize(&[encoding]);
            assert_eq!(init["capabilities"]["positionEncoding"], encoding);
            let uri = format!("file:///tmp/wirelens-lsp-test/pos-{encoding}.{ext}");
            c.open(&uri, ext, text);
            let d = c.diagnostics(&uri);
            let diag = d["diagnostics"]
                .as_array()
                .unwrap()
                .iter()
                .find(|x| x["code"] == code)
                .unwrap()
                .clone();
            assert_eq!(
                diag["range"]["start"],
                pos(line as u32, col as u32),
                "{ext} {encoding}: {d}"
            );
            assert_eq!(
                diag["range"]["end"],
                pos(line as u32, col as u32 + 3),
                "{ext} {encoding}"
            );
            // And the other way: a hover requested at that position finds the reference.
            let def = c.request(
                "textDocument/definition",
                json!({"textDocument": {"uri": uri}, "position": pos(line as u32, col as u32 + 1)}),
            );
            assert_eq!(def, Value::Null, "an unknown type has no definition");
            // Hovering the struct name (after the keyword) works in every encoding.
            let name_col = if ext == "sdp" { 8 } else { 6 };
            let h = c.request(
                "textDocument/hover",
                json!({"textDocument": {"uri": uri}, "position": pos(line as u32, name_col)}),
            );
            assert!(
                h["contents"]["value"].as_str().unwrap_or("").contains("Aé𝒜"),
                "{ext} {encoding}: {h}"
            );
        }
    }
}

/// Polls until `path` exists (generation on save runs in the background).
fn wait_for(path: &std::path::Path) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    while std::time::Instant::now() < deadline {
        if path.exists() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    false
}

#[test]
fn generation_from_code_actions_commands_and_on_save_with_progress_and_failures_as_diagnostics() {
    let dir = tempfile::tempdir().unwrap();
    let root_path = std::fs::canonicalize(dir.path()).unwrap();
    let schema = "struct Reg {\n    id: u32,\n    name: str,\n}\n";
    std::fs::write(root_path.join("reg.sdp"), schema).unwrap();
    let root = format!("file://{}", root_path.display());
    let uri = format!("{root}/reg.sdp");
    let mut c = Client::start();
    let init = c.request(
        "initialize",
        json!({"processId": null, "rootUri": root, "capabilities": {"window": {"workDoneProgress": true}}}),
    );
    let commands = &init["capabilities"]["executeCommandProvider"]["commands"];
    assert!(
        commands.as_array().unwrap().contains(&json!("wirelens.generate")),
        "{commands}"
    );
    c.notify("initialized", json!({}));
    c.open(&uri, "sdp", schema);
    assert_eq!(c.diagnostics(&uri)["diagnostics"], json!([]));

    // The code action a user picks, run as the editor runs it.
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": {"start": pos(0, 0), "end": pos(0, 0)}, "context": {"diagnostics": []}}),
    );
    let action = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"] == "Generate Rust for this file")
        .unwrap_or_else(|| panic!("no generate action in {actions}"))
        .clone();
    let result = c.request("workspace/executeCommand", action["command"].clone());
    let generated = root_path.join("generated/reg.rs");
    assert_eq!(result["written"], json!([generated.display().to_string()]), "{result}");
    let text = std::fs::read_to_string(&generated).unwrap();
    assert!(text.starts_with("// @generated by wirelens") && text.contains("pub struct Reg"));
    c.wait_for_message(|m| m["method"] == "$/progress" && m["params"]["value"]["kind"] == "end");
    let progress: Vec<&Value> = c.backlog.iter().filter(|m| m["method"] == "$/progress").collect();
    let kinds: Vec<&str> = progress
        .iter()
        .filter_map(|m| m["params"]["value"]["kind"].as_str())
        .collect();
    assert_eq!(kinds, ["begin", "end"], "{progress:?}");
    assert!(c
        .backlog
        .iter()
        .any(|m| m["method"] == "window/workDoneProgress/create"));

    // A file the user wrote is never overwritten; the failure shows on the schema.
    std::fs::write(&generated, "// mine\n").unwrap();
    let failed = c.request_raw(
        "workspace/executeCommand",
        json!({"command": "wirelens.generate", "arguments": [{"uri": uri, "languages": ["rust"]}]}),
    );
    let message = failed["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("not generated by wirelens"), "{failed}");
    // LSP's RequestFailed with one line to show, not a raw internal error (-32603).
    assert_eq!(failed["error"]["code"], -32803, "{failed}");
    assert!(
        message.starts_with("wirelens: code generation failed: ") && !message.contains('\n'),
        "{message}"
    );
    assert_eq!(std::fs::read_to_string(&generated).unwrap(), "// mine\n");
    let diags = c.diagnostics(&uri)["diagnostics"].clone();
    assert_eq!(diags[0]["code"], "generate", "{diags}");
    std::fs::remove_file(&generated).unwrap();
    c.request(
        "workspace/executeCommand",
        json!({"command": "wirelens.generate", "arguments": [{"uri": uri, "languages": ["rust"]}]}),
    );
    assert_eq!(c.diagnostics(&uri)["diagnostics"], json!([]), "the failure is cleared");

    // Output directories outside the workspace are refused.
    let escaped = c.request_raw(
        "workspace/executeCommand",
        json!({"command": "wirelens.generate", "arguments": [{"uri": uri, "outDir": "../../escape"}]}),
    );
    assert!(
        escaped["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("outside"),
        "{escaped}"
    );

    // Generation on save, configured by the client.
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"wirelens": {"generate": {"onSave": true, "languages": ["rust"], "outDir": "onsave"}}}}),
    );
    c.notify("textDocument/didSave", json!({"textDocument": {"uri": uri}}));
    assert!(wait_for(&root_path.join("onsave/reg.rs")), "nothing generated on save");
}

#[test]
fn a_missing_brace_shows_the_syntax_error_not_unknown_types_after_it() {
    let mut c = Client::start();
    c.initialize(&["utf-16"]);
    let uri = "file:///tmp/wirelens-lsp-test/brace.sdp";
    c.open(
        uri,
        "sdp",
        "struct A {\n    x: Option<B>\n\nstruct B {\n    y: u32,\n}\nstruct C {\n    z: B,\n}\n",
    );
    let d = c.diagnostics(uri);
    let got: Vec<(&str, &str)> = d["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["code"].as_str().unwrap(), d["message"].as_str().unwrap()))
        .collect();
    assert_eq!(
        got,
        [(
            "SYNTAX",
            "syntax error: unexpected `struct`: expected `}` to close the declaration before it"
        )],
        "{d}"
    );
}

/// Emacs' eglot without a Markdown renderer asks for `contentFormat: ["plaintext"]`: the
/// hover is plain text then, with no fences, table pipes or emphasis markers; a client
/// that prefers Markdown gets Markdown.
#[test]
fn hover_honours_the_clients_content_format() {
    let hover_with = |formats: Value| {
        let mut c = Client::start();
        c.request(
            "initialize",
            json!({"processId": null, "rootUri": null,
                   "capabilities": {"textDocument": {"hover": {"contentFormat": formats}}}}),
        );
        c.notify("initialized", json!({}));
        let uri = "file:///tmp/wirelens-lsp-test/plain.sdp";
        c.open(uri, "sdp", AUDIO);
        c.diagnostics(uri);
        let struct_hover = c.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": pos(0, 9)}),
        );
        let field_hover = c.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": pos(2, 6)}),
        );
        (struct_hover["contents"].clone(), field_hover["contents"].clone())
    };
    for (formats, kind) in [
        (json!(["plaintext"]), "plaintext"),
        (json!(["plaintext", "markdown"]), "plaintext"),
        (json!(["markdown", "plaintext"]), "markdown"),
    ] {
        let (s, f) = hover_with(formats.clone());
        for h in [&s, &f] {
            assert_eq!(h["kind"], kind, "{formats}: {h}");
        }
        let text = s["value"].as_str().unwrap();
        if kind == "markdown" {
            assert!(text.contains("| 0 | `address` | `u64` |"), "{text}");
            continue;
        }
        for h in [&s, &f] {
            let text = h["value"].as_str().unwrap();
            for markup in ["```", "|---", "**", "`"] {
                assert!(!text.contains(markup), "`{markup}` in a plain-text hover:\n{text}");
            }
        }
        // The field table is still a table: one aligned row per field (the diagram above
        // it names the field too, so look for the table's row by its size column).
        let row = text
            .lines()
            .find(|l| l.contains("min_value") && l.ends_with(" B"))
            .unwrap_or_else(|| panic!("{text}"));
        assert!(row.contains("f32") && row.contains("12 + |display_name|"), "{text}");
        assert!(!row.trim_start().starts_with('|'), "{text}");
        assert!(text.contains("struct Parameter"), "{text}");
    }
}

/// Numbers read decimal first (`8 (0x8)`) unless the client sets
/// `wirelens.numberFormat` to `hex`, at start or later; primitives have a hover too.
#[test]
fn number_format_setting_and_primitive_hovers() {
    let mut c = Client::start();
    c.request(
        "initialize",
        json!({"processId": null, "rootUri": null, "capabilities": {},
               "initializationOptions": {"wirelens": {"numberFormat": "hex"}}}),
    );
    c.notify("initialized", json!({}));
    let uri = "file:///tmp/wirelens-lsp-test/numbers.sdp";
    c.open(uri, "sdp", AUDIO);
    c.diagnostics(uri);
    let hover = |c: &mut Client, line: u32, character: u32| {
        let h = c.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": pos(line, character)}),
        );
        h["contents"]["value"].as_str().unwrap_or_default().to_string()
    };
    let text = hover(&mut c, 2, 6);
    assert!(text.contains("offset = 0x8 (8)"), "{text}");
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"wirelens": {"numberFormat": "decimal"}}}),
    );
    let text = hover(&mut c, 2, 6);
    assert!(text.contains("offset = 8 (0x8)"), "{text}");
    // `u64` of `address: u64`, `f32` of `min_value: f32`, `str`.
    let text = hover(&mut c, 1, 15);
    assert!(
        text.contains("u64") && text.contains("8 B · unsigned, little-endian"),
        "{text}"
    );
    assert!(text.contains("18446744073709551615 (0xffffffffffffffff)"), "{text}");
    let text = hover(&mut c, 3, 16);
    assert!(text.contains("IEEE 754 binary32"), "{text}");
    let text = hover(&mut c, 2, 19);
    assert!(text.contains("4+len B · a u32 byte length"), "{text}");
}
