//! Wire-change awareness in the editor, driven over stdio against the real binary with
//! a real git repository: commit a schema, open an edited version, and read the
//! warnings, lenses and hover the editor would show.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{pos, Client};
use serde_json::{json, Value};

/// A git repository in a temporary folder: the canonical path, and the folder itself,
/// held only so that it is removed when the test ends.
struct Repo(PathBuf, #[allow(dead_code)] tempfile::TempDir);

impl Repo {
    fn new(name: &str) -> Repo {
        let tmp = tempfile::Builder::new()
            .prefix(&format!("wirelens-compat-{name}-"))
            .tempdir()
            .unwrap();
        let dir = std::fs::canonicalize(tmp.path()).unwrap();
        let repo = Repo(dir, tmp);
        repo.git(&["init", "-q"]);
        repo
    }

    fn git(&self, args: &[&str]) {
        let out = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .current_dir(&self.0)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn commit(&self, file: &str, text: &str) {
        std::fs::write(self.0.join(file), text).unwrap();
        self.git(&["add", file]);
        self.git(&["commit", "-q", "-m", "schema"]);
    }

    fn uri(&self, file: &str) -> String {
        format!("file://{}", self.0.join(file).display())
    }
}

fn start(root: &Path, options: Value) -> Client {
    let mut c = Client::start();
    c.request(
        "initialize",
        json!({"processId": null, "rootUri": format!("file://{}", root.display()),
               "capabilities": {"general": {"positionEncodings": ["utf-16"]}},
               "initializationOptions": options}),
    );
    c.notify("initialized", json!({}));
    c
}

/// The diagnostics once the baseline has been loaded: with a baseline, opening
/// publishes twice (after the edit's debounce and after the background load, in either
/// order); this returns the one with wire breaks, if any.
fn settled_diagnostics(c: &mut Client, uri: &str) -> Vec<Value> {
    let first = c.diagnostics(uri)["diagnostics"].as_array().unwrap().clone();
    let second = c.diagnostics(uri)["diagnostics"].as_array().unwrap().clone();
    if first.len() > second.len() {
        first
    } else {
        second
    }
}

fn lens_titles(c: &mut Client, uri: &str) -> Vec<String> {
    let lenses = c.request("textDocument/codeLens", json!({"textDocument": {"uri": uri}}));
    lenses
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["command"]["title"].as_str().unwrap().to_string())
        .filter(|t| !t.starts_with("Generate "))
        .collect()
}

fn hover(c: &mut Client, uri: &str, line: u32, character: u32) -> String {
    let h = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": pos(line, character)}),
    );
    h["contents"]["value"].as_str().unwrap_or_default().to_string()
}

/// `text` with a code action's edits applied the way an editor does (last first; they
/// do not overlap). Positions are UTF-16 and the tests' texts ASCII.
fn apply(text: &str, action: &Value, uri: &str) -> String {
    let mut edits: Vec<Value> = action["edit"]["changes"][uri]
        .as_array()
        .unwrap_or_else(|| panic!("{action:#}"))
        .clone();
    edits.sort_by_key(|e| {
        std::cmp::Reverse((
            e["range"]["start"]["line"].as_u64(),
            e["range"]["start"]["character"].as_u64(),
        ))
    });
    let mut text = text.to_string();
    for e in edits {
        let offset = |p: &Value| {
            let (l, ch) = (
                p["line"].as_u64().unwrap() as usize,
                p["character"].as_u64().unwrap() as usize,
            );
            let line_start: usize = text.split('\n').take(l).map(|x| x.len() + 1).sum();
            (line_start + ch).min(text.len())
        };
        let (a, b) = (offset(&e["range"]["start"]), offset(&e["range"]["end"]));
        text = format!("{}{}{}", &text[..a], e["newText"].as_str().unwrap(), &text[b..]);
    }
    text
}

/// The quick fix titled `title` offered at `at` (line, character) for the published
/// `diags`, applied to `text`; then the document is changed to the result and its
/// diagnostics are returned (the fix must leave none).
fn fix_and_recheck(
    c: &mut Client,
    uri: &str,
    text: &str,
    at: (u32, u32),
    diags: &[Value],
    title: &str,
) -> (String, Value) {
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": {"start": pos(at.0, at.1), "end": pos(at.0, at.1)},
               "context": {"diagnostics": diags}}),
    );
    let fix = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"] == title)
        .unwrap_or_else(|| panic!("no `{title}` in {actions:#}"))
        .clone();
    assert_eq!(fix["kind"], "quickfix");
    let fixed = apply(text, &fix, uri);
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": fixed}]}),
    );
    let d = c.diagnostics(uri);
    (fixed, d["diagnostics"].clone())
}

/// Every wire break that has a compatible alternative gets it as a quick fix, and
/// applying it leaves nothing to warn about. (An SDP struct inserted above others: see
/// `an_inserted_struct_is_warned_about_and_moved_to_the_end`.)
#[test]
fn a_struct_moved_above_another_is_moved_back() {
    let repo = Repo::new("moved");
    let old = "struct A {\n    x: u8,\n}\n\n/// B.\nstruct B {\n    y: u16,\n}\n\nstruct C {\n    z: u32,\n}\n";
    repo.commit("m.sdp", old);
    let mut c = start(&repo.0, json!({}));
    let uri = repo.uri("m.sdp");
    // C moved to the top: every id changes.
    let edited = "struct C {\n    z: u32,\n}\n\nstruct A {\n    x: u8,\n}\n\n/// B.\nstruct B {\n    y: u16,\n}\n";
    c.open(&uri, "sdp", edited);
    let diags = settled_diagnostics(&mut c, &uri);
    let codes: Vec<&str> = diags.iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["message-id-changed"; 3], "{diags:#?}");
    let (fixed, after) = fix_and_recheck(
        &mut c,
        &uri,
        edited,
        (0, 8),
        &diags,
        "Move `C` back to where it was (keeps every message id)",
    );
    assert_eq!(fixed, old);
    assert_eq!(after, json!([]), "{fixed}");
}

#[test]
fn fields_moved_among_themselves_are_put_back_in_order() {
    let repo = Repo::new("reordered");
    repo.commit("shapes.sdp", SDP);
    let mut c = start(&repo.0, json!({}));
    let uri = repo.uri("shapes.sdp");
    let edited = SDP.replace("    x: u32,\n    y: u32,", "    y: u32,\n    // x\n    x: u32,");
    c.open(&uri, "sdp", &edited);
    let diags = settled_diagnostics(&mut c, &uri);
    assert!(diags.iter().all(|d| d["code"] == "field-reordered"), "{diags:#?}");
    let (fixed, after) = fix_and_recheck(
        &mut c,
        &uri,
        &edited,
        (2, 5),
        &diags,
        "Put `Point`'s fields back in their HEAD order (keeps the wire)",
    );
    assert_eq!(
        fixed,
        SDP.replace("    x: u32,", "    // x\n    x: u32,"),
        "comments move with their field"
    );
    assert_eq!(after, json!([]), "{fixed}");
}

#[test]
fn a_removed_field_is_restored_where_it_was() {
    let repo = Repo::new("field-removed");
    repo.commit("shapes.sdp", SDP);
    let mut c = start(&repo.0, json!({}));
    let uri = repo.uri("shapes.sdp");
    let edited = SDP.replace("    x: u32,\n", "");
    c.open(&uri, "sdp", &edited);
    let diags = settled_diagnostics(&mut c, &uri);
    let codes: Vec<&str> = diags.iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["field-removed"], "{diags:#?}");
    let (fixed, after) = fix_and_recheck(
        &mut c,
        &uri,
        &edited,
        (1, 8),
        &diags,
        "Restore field `Point.x` as in HEAD (keeps the wire)",
    );
    assert_eq!(fixed, SDP);
    assert_eq!(after, json!([]), "{fixed}");

    // ffire, with its tag.
    let ffi = "package s\n\ntype R struct {\n\tA int32 `json:\"a\"`\n\tB string\n}\n";
    repo.commit("r.ffi", ffi);
    let uri = repo.uri("r.ffi");
    let edited = ffi.replace("\tA int32 `json:\"a\"`\n", "");
    c.open(&uri, "ffi", &edited);
    let diags = settled_diagnostics(&mut c, &uri);
    let codes: Vec<&str> = diags.iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["field-removed"], "{diags:#?}");
    let (fixed, after) = fix_and_recheck(
        &mut c,
        &uri,
        &edited,
        (2, 6),
        &diags,
        "Restore field `R.A` as in HEAD (keeps the wire)",
    );
    assert_eq!(fixed, ffi);
    assert_eq!(after, json!([]), "{fixed}");
}

#[test]
fn a_removed_struct_is_restored_with_its_message_id() {
    let repo = Repo::new("type-removed");
    repo.commit("shapes.sdp", SDP);
    let mut c = start(&repo.0, json!({}));
    let uri = repo.uri("shapes.sdp");
    // Point removed (Shape now holds a copy of its fields): Shape's id changes too.
    let edited = "struct Shape {\n    name: str,\n    at: u64,\n}\n";
    let edited_ok = SDP
        .replace("/// A point.\nstruct Point {\n    x: u32,\n    y: u32,\n}\n\n", "")
        .replace("at: Point", "at: u64");
    assert_eq!(edited, edited_ok);
    c.open(&uri, "sdp", edited);
    let diags = settled_diagnostics(&mut c, &uri);
    let mut codes: Vec<&str> = diags.iter().map(|d| d["code"].as_str().unwrap()).collect();
    codes.sort_unstable();
    assert_eq!(
        codes,
        ["message-id-changed", "type-changed", "type-removed"],
        "{diags:#?}"
    );
    // Restoring it keeps the ids: then only the field's own change is left.
    let (fixed, after) = fix_and_recheck(
        &mut c,
        &uri,
        edited,
        (0, 0),
        &diags,
        "Restore `Point` as in HEAD (keeps the wire)",
    );
    assert_eq!(fixed, SDP.replace("at: Point", "at: u64"));
    let after: Vec<&str> = after
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_eq!(after, ["type-changed"], "{fixed}");
}

#[test]
fn an_ffi_rename_that_moves_a_field_keeps_its_old_name() {
    let repo = Repo::new("ffi-rename");
    repo.commit("r.ffi", FFI);
    let uri = repo.uri("r.ffi");
    let mut c = start(&repo.0, json!({}));
    let edited = FFI.replace("High int32", "Top  int32");
    c.open(&uri, "ffi", &edited);
    let diags = settled_diagnostics(&mut c, &uri);
    assert_eq!(diags.len(), 2, "{diags:#?}");
    let (fixed, after) = fix_and_recheck(
        &mut c,
        &uri,
        &edited,
        (5, 2),
        &diags,
        "Keep the name `High` (renaming moves `Reading.High` on the wire)",
    );
    assert_eq!(fixed, FFI.replace("High int32", "High  int32"));
    assert_eq!(after, json!([]), "{fixed}");
}

const SDP: &str =
    "/// A point.\nstruct Point {\n    x: u32,\n    y: u32,\n}\n\nstruct Shape {\n    name: str,\n    at: Point,\n}\n";

#[test]
fn sdp_type_change_warns_lenses_and_hover_show_old_vs_new() {
    let repo = Repo::new("sdp");
    repo.commit("shapes.sdp", SDP);
    let mut c = start(&repo.0, json!({}));
    let uri = repo.uri("shapes.sdp");
    let edited = SDP.replace("    y: u32,", "    y: u64,");
    c.open(&uri, "sdp", &edited);
    let diags = settled_diagnostics(&mut c, &uri);
    assert_eq!(diags.len(), 1, "{diags:?}");
    let d = &diags[0];
    assert_eq!(d["severity"], 2, "a warning");
    assert_eq!(d["source"], "wirelens");
    assert_eq!(d["code"], "type-changed");
    assert_eq!(
        d["message"],
        "wire break against HEAD: field `Point.y` changed from `u32` to `u64`, size 4 B → 8 B"
    );
    assert_eq!(d["range"], json!({"start": pos(3, 7), "end": pos(3, 10)}));
    let related: Vec<(Value, Value)> = d["relatedInformation"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["location"]["range"]["start"].clone(), r["message"].clone()))
        .collect();
    assert_eq!(
        related,
        [
            (pos(1, 7), json!("message `Point` is encoded differently")),
            (pos(6, 7), json!("message `Shape` is encoded differently")),
        ]
    );

    assert_eq!(
        lens_titles(&mut c, &uri),
        [
            "fixed 12 B · message id 1 (position)",
            "fixed 12 B + 1 string · min 16 B · message id 2 (position)",
            "breaks 2 messages since HEAD",
            "wire changed by `Point` since HEAD",
        ]
    );

    // One row per line in Neovim, lenses ordered by start column (any order among
    // equal ones): the break first, the Generate lenses last, not past column 150.
    let lenses = c.request("textDocument/codeLens", json!({"textDocument": {"uri": uri}}));
    let mut row: Vec<(u64, String)> = lenses
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["range"]["start"]["line"] == 1)
        .map(|l| {
            (
                l["range"]["start"]["character"].as_u64().unwrap(),
                l["command"]["title"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    row.sort_by_key(|(c, _)| *c);
    let columns: Vec<u64> = row.iter().map(|(c, _)| *c).collect();
    let titles: Vec<&str> = row.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(
        titles[..2],
        ["breaks 2 messages since HEAD", "fixed 12 B · message id 1 (position)"],
        "{row:?}"
    );
    assert!(titles[2..].iter().all(|t| t.starts_with("Generate ")), "{row:?}");
    assert!(
        columns[0] < columns[1] && columns[1] < columns[2],
        "distinct columns: {row:?}"
    );

    let text = hover(&mut c, &uri, 1, 8);
    let section = text.split("\n---\n\n").nth(1).unwrap_or_default();
    assert_eq!(
        section,
        "**Wire changes since `HEAD`**\n\n\
         - field `Point.y` changed from `u32` to `u64`, size 4 B → 8 B\n\n\
         | field | HEAD | now |\n|---|---|---|\n\
         | `x` | #0 · @0 · 4 B | #0 · @0 · 4 B |\n\
         | `y` | #1 · @4 · 4 B | #1 · @4 · 8 B |\n",
        "{text}"
    );
    let text = hover(&mut c, &uri, 6, 8);
    assert!(
        text.contains("- contains changed `Point`"),
        "a user of a changed type says which: {text}"
    );
}

#[test]
fn sdp_struct_inserted_at_the_top_renumbers_every_later_message() {
    let repo = Repo::new("renumber");
    repo.commit("shapes.sdp", SDP);
    let mut c = start(&repo.0, json!({}));
    let uri = repo.uri("shapes.sdp");
    c.open(&uri, "sdp", &format!("struct Tag {{\n    id: u8,\n}}\n\n{SDP}"));
    let diags = settled_diagnostics(&mut c, &uri);
    let got: Vec<(&str, &str)> = diags
        .iter()
        .map(|d| (d["code"].as_str().unwrap(), d["message"].as_str().unwrap()))
        .collect();
    assert_eq!(
        got,
        [(
            "message-id-changed",
            "wire break against HEAD: inserting `Tag` here renumbers the 2 messages after it (SDP ids are positions in the file, and readers expect the old ids); move it to the end of the file to keep them"
        )]
    );
    assert_eq!(diags[0]["range"]["start"], pos(0, 7), "on the inserted struct");
    let titles = lens_titles(&mut c, &uri);
    assert_eq!(
        titles[3..],
        [
            "new since HEAD",
            "breaks 1 message since HEAD",
            "breaks 1 message since HEAD"
        ]
    );
    // The hover lists the id change once (it is one of the breaks), not again below.
    let text = hover(&mut c, &uri, 5, 8);
    let section = text.split("\n---\n\n").nth(1).unwrap_or_default();
    assert_eq!(
        section.matches("1 to 2").count() + section.matches("1 → 2").count(),
        1,
        "{section}"
    );
}

/// Sizes in the compat hover and messages are written as everywhere else (`4+len B`),
/// not as a numeric range up to the largest string.
#[test]
fn compat_sizes_use_the_editors_notation() {
    let repo = Repo::new("notation");
    repo.commit("shapes.sdp", SDP);
    let mut c = start(&repo.0, json!({}));
    let uri = repo.uri("shapes.sdp");
    c.open(&uri, "sdp", &SDP.replace("    name: str,", "    name: u32,"));
    let diags = settled_diagnostics(&mut c, &uri);
    assert_eq!(
        diags[0]["message"],
        "wire break against HEAD: field `Shape.name` changed from `str` to `u32`, size 4+len B → 4 B"
    );
    let text = hover(&mut c, &uri, 6, 8);
    let section = text.split("\n---\n\n").nth(1).unwrap_or_default();
    assert!(
        section.contains("| `name` | #0 · @0 · 4+len B | #0 · @0 · 4 B |"),
        "{section}"
    );
    assert!(!section.contains('–'), "{section}");
}

#[test]
fn many_renumbered_messages_are_one_warning_with_a_bounded_list() {
    let repo = Repo::new("renumber-many");
    let old: String = (0..30).map(|i| format!("struct S{i} {{\n    x: u8,\n}}\n\n")).collect();
    repo.commit("many.sdp", &old);
    let mut c = start(&repo.0, json!({}));
    let uri = repo.uri("many.sdp");
    c.open(&uri, "sdp", &format!("struct Tag {{\n    id: u8,\n}}\n\n{old}"));
    let diags = settled_diagnostics(&mut c, &uri);
    assert_eq!(diags.len(), 1, "{diags:#?}");
    let d = &diags[0];
    assert_eq!(d["code"], "message-id-changed");
    assert_eq!(
        d["message"],
        "wire break against HEAD: inserting `Tag` here renumbers the 30 messages after it (SDP ids are positions in the file, and readers expect the old ids); move it to the end of the file to keep them"
    );
    assert_eq!(
        d["range"]["start"],
        pos(0, 7),
        "at the inserted struct's name, where the fix is"
    );
    let related = d["relatedInformation"].as_array().unwrap();
    assert_eq!(related.len(), 20);
    assert_eq!(related[19]["message"], "`S19`: type id 20 → 21");
    assert_eq!(related[19]["location"]["range"]["start"], pos(4 + 19 * 4, 7));

    // Renumbered by a removal (no struct to move): one warning at the first of them.
    let uri = repo.uri("many-removed.sdp");
    repo.commit("many-removed.sdp", &old);
    c.open(&uri, "sdp", &old.replacen("struct S0 {\n    x: u8,\n}\n\n", "", 1));
    let diags = settled_diagnostics(&mut c, &uri);
    let renumbered: Vec<&Value> = diags.iter().filter(|d| d["code"] == "message-id-changed").collect();
    assert_eq!(renumbered.len(), 1, "{diags:#?}");
    assert_eq!(
        renumbered[0]["message"],
        "wire break against HEAD: 29 messages renumbered (the first: `S1`: type id 2 → 1): SDP ids are positions in the file, and readers expect the old ids"
    );
    assert_eq!(renumbered[0]["range"]["start"], pos(0, 7));
}

/// A struct inserted above others: the warning sits on it, and its quick fix moves it
/// to the end of the file, after which nothing breaks.
#[test]
fn an_inserted_struct_is_warned_about_and_moved_to_the_end() {
    let repo = Repo::new("move-to-end");
    repo.commit("shapes.sdp", SDP);
    let mut c = start(&repo.0, json!({}));
    let uri = repo.uri("shapes.sdp");
    let edited = format!("/// A tag.\nstruct Tag {{\n    id: u8,\n}}\n\n{SDP}");
    c.open(&uri, "sdp", &edited);
    let diags = settled_diagnostics(&mut c, &uri);
    assert_eq!(diags.len(), 1, "{diags:#?}");
    assert_eq!(diags[0]["range"]["start"], pos(1, 7), "on `Tag`");
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": {"start": pos(1, 8), "end": pos(1, 8)},
               "context": {"diagnostics": diags}}),
    );
    let fix = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"] == "Move `Tag` to the end of the file (keeps every message id)")
        .unwrap_or_else(|| panic!("{actions:#}"))
        .clone();
    assert_eq!(fix["isPreferred"], true);
    let fixed = apply(&edited, &fix, &uri);
    assert_eq!(fixed, format!("{SDP}\n/// A tag.\nstruct Tag {{\n    id: u8,\n}}\n"));
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": fixed}]}),
    );
    let d = c.diagnostics(&uri);
    assert_eq!(d["diagnostics"], json!([]), "nothing breaks once it is at the end: {d}");
}

#[test]
fn comment_and_formatting_edits_are_compatible_and_untracked_files_show_nothing() {
    let repo = Repo::new("compatible");
    repo.commit("shapes.sdp", SDP);
    let mut c = start(&repo.0, json!({}));
    let uri = repo.uri("shapes.sdp");
    let edited = SDP
        .replace("/// A point.", "/// A point on the plane.")
        .replace("    x: u32,\n    y: u32,", "  x:u32, // across\n\n  y :  u32,");
    c.open(&uri, "sdp", &edited);
    assert_eq!(settled_diagnostics(&mut c, &uri), Vec::<Value>::new());
    // Compatible structs get no wire lens (noise once a file has a baseline, issue 33):
    // the hover says it.
    let titles = lens_titles(&mut c, &uri);
    assert_eq!(titles.len(), 2, "layout lenses only: {titles:?}");
    assert!(hover(&mut c, &uri, 1, 8).ends_with("Wire-compatible with `HEAD`.\n"));

    // Not committed: no baseline, nothing shown, no error (and no second publish).
    std::fs::write(repo.0.join("new.sdp"), SDP).unwrap();
    let new = repo.uri("new.sdp");
    c.open(&new, "sdp", &SDP.replace("u32", "u64"));
    assert_eq!(c.diagnostics(&new)["diagnostics"], json!([]));
    assert_eq!(lens_titles(&mut c, &new).len(), 2, "layout lenses only");
    assert!(!hover(&mut c, &new, 1, 8).contains("\n---\n"));
}

/// Opening the committed text unchanged (the usual case) gives the baseline a copy of
/// the open document's analysis instead of a second analysis; later edits compare
/// against it like against any other.
#[test]
fn a_baseline_equal_to_the_open_text_then_an_edit_that_breaks() {
    let repo = Repo::new("unchanged");
    repo.commit("shapes.sdp", SDP);
    let mut c = start(&repo.0, json!({}));
    let uri = repo.uri("shapes.sdp");
    c.open(&uri, "sdp", SDP);
    assert_eq!(settled_diagnostics(&mut c, &uri), Vec::<Value>::new());
    let titles = lens_titles(&mut c, &uri);
    assert_eq!(titles.len(), 2, "no wire lens on compatible structs: {titles:?}");
    assert!(hover(&mut c, &uri, 1, 8).ends_with("Wire-compatible with `HEAD`.\n"));

    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2},
               "contentChanges": [{"text": SDP.replace("    y: u32,", "    y: u64,")}]}),
    );
    let diags = c.diagnostics(&uri)["diagnostics"].as_array().unwrap().clone();
    let codes: Vec<&Value> = diags.iter().map(|d| &d["code"]).collect();
    assert_eq!(codes, [&json!("type-changed")], "{diags:?}");
    assert!(hover(&mut c, &uri, 1, 8).contains("| `y` | #1 · @4 · 4 B | #1 · @4 · 8 B |"));
}

const FFI: &str =
    "package s\n\ntype Reading struct {\n\tName string\n\tLow  int32\n\tHigh int32\n}\n\ntype Readings []Reading\n";

#[test]
fn ffi_rename_that_moves_a_field_and_the_client_setting_for_the_baseline() {
    let repo = Repo::new("ffi");
    repo.commit("r.ffi", FFI);
    let uri = repo.uri("r.ffi");

    // HEAD by default. Canonical order sorts fields of one size class by name: renaming
    // `High` to `Top` moves it behind `Low`.
    let mut c = start(&repo.0, json!({}));
    c.open(&uri, "ffi", &FFI.replace("High int32", "Top  int32"));
    let diags = settled_diagnostics(&mut c, &uri);
    let got: Vec<(&str, &str)> = diags
        .iter()
        .map(|d| (d["code"].as_str().unwrap(), d["message"].as_str().unwrap()))
        .collect();
    assert_eq!(
        got,
        [
            (
                "field-reordered",
                "wire break against HEAD: field `Reading.Low` moved from wire #1 to #0"
            ),
            (
                "rename-moved",
                "wire break against HEAD: renaming `Reading.High` to `Top` moves it from wire #0 to #1 \
                 (canonical order sorts by name)"
            ),
        ],
        "{diags:?}"
    );
    assert_eq!(
        diags[0]["relatedInformation"][0]["message"],
        "root type `Readings` is encoded differently"
    );
    let titles = lens_titles(&mut c, &uri);
    assert_eq!(
        titles[2..],
        ["breaks 1 root type since HEAD", "wire changed by `Reading` since HEAD"]
    );

    // The client's setting beats the default: a file, relative to the workspace folder.
    std::fs::write(repo.0.join("old.ffi"), FFI.replace("\tHigh int32\n", "")).unwrap();
    let mut c = start(&repo.0, json!({"wirelens": {"compat": {"against": "file:old.ffi"}}}));
    c.open(&uri, "ffi", FFI);
    let diags = settled_diagnostics(&mut c, &uri);
    let codes: Vec<&str> = diags.iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["field-added"], "{diags:?}");
    let titles = lens_titles(&mut c, &uri);
    assert_eq!(
        titles[2..],
        [
            "breaks 1 root type since file:old.ffi",
            "wire changed by `Reading` since file:old.ffi"
        ]
    );
}

#[test]
fn wirelens_toml_names_the_baseline_and_the_client_setting_beats_it() {
    let repo = Repo::new("toml");
    repo.commit("shapes.sdp", SDP);
    std::fs::write(repo.0.join("old.sdp"), SDP.replace("    y: u32,\n", "")).unwrap();
    std::fs::write(repo.0.join("wirelens.toml"), "[compat]\nagainst = \"file:old.sdp\"\n").unwrap();
    let uri = repo.uri("shapes.sdp");

    let mut c = start(&repo.0, json!({}));
    c.open(&uri, "sdp", SDP);
    let codes: Vec<Value> = settled_diagnostics(&mut c, &uri)
        .iter()
        .map(|d| d["code"].clone())
        .collect();
    assert_eq!(codes, [json!("field-added")], "against old.sdp, which has no `y`");
    assert_eq!(lens_titles(&mut c, &uri)[2], "breaks 2 messages since file:old.sdp");

    let mut c = start(&repo.0, json!({"compat": {"against": "HEAD"}}));
    c.open(&uri, "sdp", SDP);
    assert_eq!(settled_diagnostics(&mut c, &uri), Vec::<Value>::new());
    assert_eq!(lens_titles(&mut c, &uri).len(), 2, "compatible: no wire lens");
    assert!(hover(&mut c, &uri, 1, 8).ends_with("Wire-compatible with `HEAD`.\n"));
}

/// Issue 38 item 2: a committed chain of N structs, each holding `[]` and `Option` of
/// the one before, then `a: u32` → `a: u64` in every struct: the change in `T_i`
/// affects N − i messages, N(N+1)/2 related locations in all. One publication lists a
/// bounded number of them and says how many each warning affects. N:
/// `WIRELENS_CHAIN_N` (default 300).
#[test]
fn a_change_in_every_struct_of_a_nested_chain_publishes_a_bounded_list() {
    let n: usize = std::env::var("WIRELENS_CHAIN_N")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(300);
    let started = std::time::Instant::now();
    let mut text = String::from("struct T0 {\n    a: u32,\n}\n\n");
    for i in 1..n {
        text.push_str(&format!(
            "struct T{i} {{\n    a: u32,\n    all: []T{p},\n    one: Option<T{p}>,\n}}\n\n",
            p = i - 1
        ));
    }
    let repo = Repo::new("chain");
    repo.commit("chain.sdp", &text);
    let mut c = start(&repo.0, json!({}));
    let uri = repo.uri("chain.sdp");
    c.open(&uri, "sdp", &text.replace("a: u32", "a: u64"));
    let diags = settled_diagnostics(&mut c, &uri);
    assert_eq!(diags.len(), n, "one warning per changed struct");
    let related: usize = diags
        .iter()
        .map(|d| d["relatedInformation"].as_array().map_or(0, Vec::len))
        .sum();
    let bytes: usize = diags.iter().map(|d| d.to_string().len()).sum();
    eprintln!(
        "chain of {n}: {related} related locations, {bytes} bytes of diagnostics, settled after {:?}",
        started.elapsed()
    );
    assert!(
        related <= 500,
        "{related} related locations in one publication (unbounded: {})",
        n * (n + 1) / 2
    );
    let first = diags
        .iter()
        .find(|d| d["message"].as_str().unwrap_or_default().contains("`T0.a`"))
        .expect("the warning on T0");
    assert!(
        first["message"]
            .as_str()
            .unwrap()
            .contains(&format!("affects {n} messages")),
        "{}",
        first["message"]
    );
    assert!(first["relatedInformation"].as_array().map_or(0, Vec::len) <= 20);
}
