//! LSP replay client for `bench/run`: starts a language server on stdio, opens one big
//! schema, types edits into it and measures what a user waits for.
//!
//! ```text
//! lsp-replay --file big.sdp [--edits 200] [--gap-ms 10] [--init JSON]
//!            [--workspace-files N] [--edits-only] [--keystrokes N] [--timeout-scale K]
//!            -- SERVER ARGS…
//! ```
//!
//! `--edits-only` skips the hovers, inlay hints and completions; `--timeout-scale K`
//! waits K times longer for every answer (for a server run under valgrind, as
//! `bench/lsp-instructions` does).
//!
//! Measured, each from just before the client writes the message to the moment the
//! last byte of the answer has arrived (so the time includes the pipe and the server's
//! JSON, not the client's parsing of it: the server's time, as the targets are set):
//! - `open_ms`: `didOpen` → first `publishDiagnostics` for the file;
//! - `edit_*`: every `didChange` (one edit each: a newline, single typed characters,
//!   deleting a line, removing a field and pasting it back; as a range, or as the whole
//!   text when the server asks for full sync) → the next `publishDiagnostics` for the
//!   file (of that version, when the server sends versions). Edits are sequential: the
//!   next is sent `--gap-ms` after the previous diagnostics;
//! - with `--workspace-files N` (wirelens only: needs `workspace/symbol`): N small
//!   schemas of 10 structs each are written to a temporary folder, a second workspace
//!   folder. `symbols_first_ms` is the first `workspace/symbol` query (it waits for the
//!   server's index of those files), sent after the file is open; then the `edit_*`
//!   edits run with nothing else in flight, and then as many edits again, `edit_sym_*`,
//!   while `workspace/symbol` queries (`s1`: one struct in every file) run back to back,
//!   a new one sent as soon as the previous answers (`symbols_*`: their latencies);
//! - `hover_*`: 100 hovers on type references (`Record123` used as a field type);
//! - `inlay_*`: inlay hints for 50 windows of 100 lines (when the server offers them);
//! - `completion_*`: 50 completions at a field's type;
//! - `keystroke_*` (with `--keystrokes N`, wirelens only): N more edits of the script, each
//!   followed by what VS Code asks after a keystroke, one request after the other: the
//!   inlay hints of 60 lines around the edit, the semantic-token delta, and the symbols,
//!   folding ranges and lenses of the whole file; `keystroke_*_ms` is each keystroke's
//!   `didChange` → the last of those answers and its diagnostics, `keystroke_cpu_ms` the
//!   server's CPU time (all threads: analysis, diagnostics, answers) per keystroke, and
//!   `keystroke_{hints,tokens_delta,symbols,folding,lenses}_*` each request's time;
//! - `rss_mb` / `hwm_mb`: VmRSS / VmHWM of the server process at the end.
//!
//! Prints one JSON object on stdout and a summary on stderr. Server-to-client requests
//! (`workspace/inlayHint/refresh`, `window/workDoneProgress/create`, …) get a null result.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// How long to wait for an answer, times `--timeout-scale`.
fn timeout(secs: u64) -> Duration {
    Duration::from_secs(secs * TIMEOUT_SCALE.load(std::sync::atomic::Ordering::Relaxed))
}

static TIMEOUT_SCALE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

struct Args {
    file: String,
    edits: usize,
    gap: Duration,
    init: Value,
    workspace_files: usize,
    edits_only: bool,
    keystrokes: usize,
    server: Vec<String>,
}

fn usage() -> ! {
    eprintln!(
        "usage: lsp-replay --file F [--edits N] [--gap-ms MS] [--init JSON] [--workspace-files N] [--edits-only] \
         [--keystrokes N] [--timeout-scale K] -- SERVER ARGS…"
    );
    std::process::exit(2);
}

fn parse_args() -> Args {
    let mut args = Args {
        file: String::new(),
        edits: 200,
        gap: Duration::from_millis(10),
        init: Value::Null,
        workspace_files: 0,
        edits_only: false,
        keystrokes: 0,
        server: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut val = || it.next().unwrap_or_else(|| usage());
        match a.as_str() {
            "--file" => args.file = val(),
            "--edits" => args.edits = val().parse().unwrap_or_else(|_| usage()),
            "--gap-ms" => args.gap = Duration::from_millis(val().parse().unwrap_or_else(|_| usage())),
            "--init" => args.init = serde_json::from_str(&val()).unwrap_or_else(|_| usage()),
            "--workspace-files" => args.workspace_files = val().parse().unwrap_or_else(|_| usage()),
            "--edits-only" => args.edits_only = true,
            "--keystrokes" => args.keystrokes = val().parse().unwrap_or_else(|_| usage()),
            "--timeout-scale" => TIMEOUT_SCALE.store(
                val().parse().ok().filter(|&k| k > 0).unwrap_or_else(|| usage()),
                std::sync::atomic::Ordering::Relaxed,
            ),
            "--" => {
                args.server = it.by_ref().collect();
                break;
            }
            _ => usage(),
        }
    }
    if args.file.is_empty() || args.server.is_empty() {
        usage();
    }
    args
}

/// A message from the server and when the reader thread finished parsing it.
type Incoming = (Instant, Value);

struct Conn {
    child: Child,
    writer: Arc<Mutex<ChildStdin>>,
    rx: Receiver<Incoming>,
    next_id: i64,
    /// Notifications that arrived while waiting for something else.
    pending: Vec<Incoming>,
}

fn send(writer: &Mutex<ChildStdin>, msg: &Value) {
    let body = msg.to_string();
    let mut w = writer.lock().expect("writer lock");
    // A server that died shows up as a timeout on the next wait.
    let _ = write!(w, "Content-Length: {}\r\n\r\n{body}", body.len());
    let _ = w.flush();
}

/// The next message and when its last byte arrived (before parsing it: the client's
/// JSON parsing is not the server's time).
fn read_message(r: &mut impl BufRead) -> Option<(Instant, Value)> {
    let mut len = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length:") {
            len = v.trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0u8; len?];
    r.read_exact(&mut body).ok()?;
    let arrived = Instant::now();
    serde_json::from_slice(&body).ok().map(|v| (arrived, v))
}

impl Conn {
    fn start(cmd: &[String]) -> Conn {
        let mut child = Command::new(&cmd[0])
            .args(&cmd[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{}: {e}", cmd[0]));
        let writer = Arc::new(Mutex::new(child.stdin.take().expect("stdin")));
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = channel();
        let w = writer.clone();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            while let Some((now, msg)) = read_message(&mut r) {
                if msg.get("method").is_some() {
                    if let Some(id) = msg.get("id") {
                        send(&w, &json!({"jsonrpc": "2.0", "id": id, "result": null}));
                        continue;
                    }
                }
                if std::env::var_os("LSP_REPLAY_DEBUG").is_some() {
                    let s = msg.to_string();
                    eprintln!("<- {}", &s[..s.len().min(200)]);
                }
                if tx.send((now, msg)).is_err() {
                    break;
                }
            }
        });
        Conn {
            child,
            writer,
            rx,
            next_id: 1,
            pending: Vec::new(),
        }
    }

    fn notify(&mut self, method: &str, params: Value) -> Instant {
        let msg = json!({"jsonrpc": "2.0", "method": method, "params": params});
        let t0 = Instant::now();
        send(&self.writer, &msg);
        t0
    }

    /// Sends a request without waiting: its id and when it was sent.
    fn start_request(&mut self, method: &str, params: Value) -> (i64, Instant) {
        let id = self.next_id;
        self.next_id += 1;
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let t0 = Instant::now();
        send(&self.writer, &msg);
        (id, t0)
    }

    /// Sends a request, waits for its response; returns the latency and the result.
    fn request(&mut self, method: &str, params: Value) -> (Duration, Value) {
        let (id, t0) = self.start_request(method, params);
        loop {
            match self.rx.recv_timeout(timeout(30)) {
                Ok((at, m)) if m.get("id").and_then(Value::as_i64) == Some(id) && m.get("method").is_none() => {
                    if let Some(e) = m.get("error") {
                        eprintln!("lsp-replay: {method}: error {e}");
                    }
                    return (at - t0, m.get("result").cloned().unwrap_or(Value::Null));
                }
                Ok(other) => self.pending.push(other),
                Err(_) => panic!("lsp-replay: no answer to {method} within {:?}", timeout(30)),
            }
        }
    }

    /// The next `publishDiagnostics` for `uri` (with `version` when the server sends
    /// one) that arrives after `t0`; `None` after the timeout.
    fn diagnostics(&mut self, uri: &str, version: i64, t0: Instant, timeout: Duration) -> Option<Instant> {
        let wanted = |m: &Value| is_diagnostics_for(m, uri, version);
        let pending = std::mem::take(&mut self.pending);
        let mut found = None;
        for (at, m) in pending {
            if found.is_none() && at >= t0 && wanted(&m) {
                found = Some(at);
            }
        }
        if found.is_some() {
            return found;
        }
        let deadline = t0 + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok((at, m)) if wanted(&m) => return Some(at),
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => return None,
            }
        }
    }

    /// CPU time the server has used so far, all threads, in ms (`/proc/PID/stat`, in
    /// clock ticks of 10 ms).
    fn cpu_ms(&self) -> f64 {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap_or_default();
        // Fields after the command name (which may hold spaces) end with `)`; utime and
        // stime are the 14th and 15th fields, the 12th and 13th after it.
        let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
        let field = |i: usize| -> f64 {
            after
                .split_whitespace()
                .nth(i)
                .and_then(|v| v.parse().ok())
                .unwrap_or(0.0)
        };
        (field(11) + field(12)) * 10.0
    }

    fn memory_mb(&self) -> (f64, f64) {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap_or_default();
        let kb = |key: &str| {
            status
                .lines()
                .find(|l| l.starts_with(key))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<f64>().ok())
                .unwrap_or(0.0)
        };
        (kb("VmRSS:") / 1024.0, kb("VmHWM:") / 1024.0)
    }

    fn shutdown(mut self) {
        let id = self.next_id;
        send(
            &self.writer,
            &json!({"jsonrpc": "2.0", "id": id, "method": "shutdown", "params": null}),
        );
        let _ = self.rx.recv_timeout(timeout(5));
        self.notify("exit", Value::Null);
        let deadline = Instant::now() + timeout(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Waits for the response to request `id`: when it arrived and the message.
    fn response(&mut self, id: i64) -> (Instant, Value) {
        if let Some(i) = self.pending.iter().position(|(_, m)| is_response(m, id)) {
            return self.pending.remove(i);
        }
        loop {
            match self.rx.recv_timeout(timeout(30)) {
                Ok((at, m)) if is_response(&m, id) => return (at, m),
                Ok(other) => self.pending.push(other),
                Err(_) => panic!("lsp-replay: no answer to request {id} within {:?}", timeout(30)),
            }
        }
    }
}

fn is_response(m: &Value, id: i64) -> bool {
    m.get("id").and_then(Value::as_i64) == Some(id) && m.get("method").is_none()
}

/// The `workspace/symbol` query of `--workspace-files`: matches the struct `W{f}S1` of
/// every generated file (and nothing in `gen-schema.py` output).
const SYMBOL_QUERY: &str = "s1";

/// The generated workspace of `--workspace-files`, removed on drop.
struct Workspace(std::path::PathBuf);

impl Workspace {
    fn create(n: usize, flavour: Flavour) -> Workspace {
        let dir = std::env::temp_dir().join(format!("lsp-replay-ws-{}", std::process::id()));
        for f in 0..n {
            let sub = dir.join(format!("d{}", f / 100));
            std::fs::create_dir_all(&sub).expect("create workspace folder");
            let (ext, text): (&str, String) =
                match flavour {
                    Flavour::Ffi => (
                        "ffi",
                        std::iter::once("package ws\n\n".to_string())
                            .chain((0..10).map(|s| {
                                format!("type W{f}S{s} struct {{\n\tA int32\n\tB string\n\tC []int32\n}}\n\n")
                            }))
                            .collect(),
                    ),
                    _ => (
                        "sdp",
                        (0..10)
                            .map(|s| format!("struct W{f}S{s} {{\n    a: u32,\n    b: str,\n    c: []u8,\n}}\n\n"))
                            .collect(),
                    ),
                };
            std::fs::write(sub.join(format!("w{f}.{ext}")), text).expect("write workspace file");
        }
        Workspace(dir)
    }
}

impl Drop for Workspace {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `workspace/symbol` queries kept running during edits: one always in flight.
#[derive(Default)]
struct SymbolLoad {
    in_flight: Option<(i64, Instant)>,
    latencies: Vec<f64>,
    found: usize,
}

impl SymbolLoad {
    fn send(&mut self, conn: &mut Conn) {
        self.in_flight = Some(conn.start_request("workspace/symbol", json!({"query": SYMBOL_QUERY})));
    }

    /// If `m` answers the query in flight: records it and sends the next one.
    fn answered(&mut self, conn: &mut Conn, at: Instant, m: &Value) -> bool {
        match self.in_flight {
            Some((id, t0)) if is_response(m, id) => {
                self.latencies.push(ms(at - t0));
                self.found = m["result"].as_array().map_or(0, Vec::len);
                self.send(conn);
                true
            }
            _ => false,
        }
    }
}

/// The client's side of typing into the document.
struct Editing<'a> {
    uri: &'a str,
    sync: i64,
    gap: Duration,
    doc: &'a mut String,
    version: &'a mut i64,
}

impl Editing<'_> {
    /// Sends `edits` one at a time, each after the previous one's diagnostics and the
    /// gap; returns the edit → diagnostics latencies and how many got none in 10 s.
    /// With `load`, a `workspace/symbol` query is in flight all the while.
    fn run(&mut self, conn: &mut Conn, edits: &[Edit], mut load: Option<&mut SymbolLoad>) -> (Vec<f64>, usize) {
        let mut lat = Vec::new();
        let mut missed = 0;
        if let Some(l) = load.as_deref_mut() {
            l.send(conn);
        }
        for e in edits {
            std::thread::sleep(self.gap);
            let (version, t0) = self.send(conn, e);
            let got = match load.as_deref_mut() {
                None => conn.diagnostics(self.uri, version, t0, timeout(10)),
                Some(l) => diagnostics_under_load(conn, l, self.uri, version, t0),
            };
            match got {
                Some(at) => lat.push(ms(at - t0)),
                None => missed += 1,
            }
        }
        (lat, missed)
    }

    /// Sends `e` as the next version's `didChange`; returns that version and when it left.
    fn send(&mut self, conn: &mut Conn, e: &Edit) -> (i64, Instant) {
        *self.version += 1;
        let version = *self.version;
        let [l0, c0, l1, c1] = e.range;
        // Keep our copy in step (outside the timed part): full-sync servers get it
        // whole, and the requests after it must hit the positions they mean.
        apply(self.doc, e);
        let change = if self.sync == 1 {
            json!({"text": *self.doc})
        } else {
            json!({
                "range": {"start": {"line": l0, "character": c0}, "end": {"line": l1, "character": c1}},
                "text": e.text,
            })
        };
        let params = json!({"textDocument": {"uri": self.uri, "version": version}, "contentChanges": [change]});
        (version, conn.notify("textDocument/didChange", params))
    }
}

/// `m` publishes the diagnostics of `uri` at `version` or later (or without a version).
fn is_diagnostics_for(m: &Value, uri: &str, version: i64) -> bool {
    m.get("method").and_then(Value::as_str) == Some("textDocument/publishDiagnostics")
        && m["params"]["uri"].as_str() == Some(uri)
        && m["params"]
            .get("version")
            .and_then(Value::as_i64)
            .is_none_or(|v| v >= version)
}

/// [`Conn::diagnostics`] while `load` keeps its query running.
fn diagnostics_under_load(
    conn: &mut Conn,
    load: &mut SymbolLoad,
    uri: &str,
    version: i64,
    t0: Instant,
) -> Option<Instant> {
    let wanted = |m: &Value| is_diagnostics_for(m, uri, version);
    let deadline = t0 + timeout(10);
    let mut found = None;
    for (at, m) in std::mem::take(&mut conn.pending) {
        if load.answered(conn, at, &m) {
            continue;
        }
        if found.is_none() && at >= t0 && wanted(&m) {
            found = Some(at);
        }
    }
    while found.is_none() {
        let left = deadline.saturating_duration_since(Instant::now());
        match conn.rx.recv_timeout(left) {
            Ok((at, m)) if load.answered(conn, at, &m) => {}
            Ok((at, m)) if wanted(&m) => found = Some(at),
            Ok(_) => {}
            Err(_) => return None,
        }
    }
    found
}

fn percentile(sorted_ms: &[f64], p: f64) -> f64 {
    if sorted_ms.is_empty() {
        return f64::NAN;
    }
    let rank = (p / 100.0 * (sorted_ms.len() - 1) as f64).round() as usize;
    sorted_ms[rank.min(sorted_ms.len() - 1)]
}

fn stats(name: &str, mut ms: Vec<f64>, out: &mut serde_json::Map<String, Value>) {
    ms.sort_by(f64::total_cmp);
    out.insert(format!("{name}_n"), json!(ms.len()));
    for (suffix, p) in [("p50", 50.0), ("p95", 95.0), ("max", 100.0)] {
        let v = percentile(&ms, p);
        out.insert(
            format!("{name}_{suffix}_ms"),
            if v.is_nan() { Value::Null } else { json!(v) },
        );
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

#[derive(Clone, Copy, PartialEq)]
enum Flavour {
    Sdp,
    Ffi,
    Proto,
}

/// One incremental change: replace `(l0,c0)..(l1,c1)` with `text`.
struct Edit {
    range: [u32; 4],
    text: String,
}

/// The edit script: episodes at struct headers spread over the file. Each episode opens
/// a new line, types a field character by character, deletes that line, then removes
/// the struct's first field and pastes it back, so line numbers are restored after it.
fn edit_script(lines: &[&str], flavour: Flavour, n: usize) -> Vec<Edit> {
    let headers: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| {
            l.starts_with("struct Record") || l.starts_with("type Record") || l.starts_with("message Record")
        })
        .map(|(i, _)| i)
        .collect();
    assert!(
        !headers.is_empty(),
        "no struct headers (use bench/gen-schema.py output)"
    );
    let mut edits = Vec::new();
    let mut episode = 0usize;
    while edits.len() < n {
        // Spread over the whole file, deterministic.
        let h = headers[(episode * 7919 + headers.len() / 3) % headers.len()];
        let hl = lines[h].len() as u32;
        let h = h as u32;
        let (indent, typed) = match flavour {
            Flavour::Sdp => ("    ", format!("extra_{episode}: u32,")),
            Flavour::Ffi => ("\t", format!("Extra{episode} int32")),
            Flavour::Proto => ("  ", format!("uint32 extra_{episode} = {};", 900 + episode)),
        };
        edits.push(Edit {
            range: [h, hl, h, hl],
            text: format!("\n{indent}"),
        });
        let mut col = indent.len() as u32;
        for ch in typed.chars() {
            edits.push(Edit {
                range: [h + 1, col, h + 1, col],
                text: ch.to_string(),
            });
            col += 1;
        }
        edits.push(Edit {
            range: [h, hl, h + 1, col],
            text: String::new(),
        });
        let first = lines[h as usize + 1];
        edits.push(Edit {
            range: [h, hl, h + 1, first.len() as u32],
            text: String::new(),
        });
        edits.push(Edit {
            range: [h, hl, h, hl],
            text: format!("\n{first}"),
        });
        episode += 1;
    }
    edits.truncate(n);
    edits
}

/// Applies an edit to the client's copy of the text (ASCII: characters are bytes).
fn apply(doc: &mut String, e: &Edit) {
    let offset = |line: u32, character: u32| {
        let start: usize = doc.split('\n').take(line as usize).map(|l| l.len() + 1).sum();
        start + character as usize
    };
    let [l0, c0, l1, c1] = e.range;
    let (a, b) = (offset(l0, c0), offset(l1, c1));
    doc.replace_range(a..b, &e.text);
}

/// Positions (line, character) of type references used as field types.
fn ref_positions(lines: &[&str], flavour: Flavour, n: usize) -> Vec<(u32, u32)> {
    let all: Vec<(u32, u32)> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.contains("_ref") && !l.trim_start().starts_with("//"))
        .filter_map(|(i, l)| {
            let col = match flavour {
                // `    f1_ref: Record12,` / `\tF1_ref Record12 `json…`` / `  Record12 f1_ref = 2;`
                Flavour::Sdp | Flavour::Ffi => l.find(" Record").map(|c| c + 1)?,
                Flavour::Proto => l.find("Record")?,
            };
            Some((i as u32, col as u32 + 3))
        })
        .collect();
    spread(&all, n)
}

/// Positions inside a primitive field type (after its first character).
fn type_positions(lines: &[&str], flavour: Flavour, n: usize) -> Vec<(u32, u32)> {
    let all: Vec<(u32, u32)> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.contains("_val"))
        .filter_map(|(i, l)| {
            let col = match flavour {
                Flavour::Sdp => l.find(": ")? + 2,
                Flavour::Ffi => l.find("_val ")? + 5,
                Flavour::Proto => l.len() - l.trim_start().len(),
            };
            Some((i as u32, col as u32 + 1))
        })
        .collect();
    spread(&all, n)
}

fn spread<T: Copy>(all: &[T], n: usize) -> Vec<T> {
    if all.is_empty() {
        return Vec::new();
    }
    (0..n).map(|i| all[(i * 7919 + all.len() / 5) % all.len()]).collect()
}

fn main() {
    let args = parse_args();
    let path = std::fs::canonicalize(&args.file).unwrap_or_else(|e| panic!("{}: {e}", args.file));
    let text = std::fs::read_to_string(&path).expect("read file");
    let flavour = match path.extension().and_then(|e| e.to_str()) {
        Some("sdp") => Flavour::Sdp,
        Some("ffi") => Flavour::Ffi,
        Some("proto") => Flavour::Proto,
        _ => panic!("{}: expected .sdp, .ffi or .proto", path.display()),
    };
    let language = match flavour {
        Flavour::Sdp => "sdp",
        Flavour::Ffi => "ffi",
        Flavour::Proto => "proto",
    };
    let lines: Vec<&str> = text.split('\n').collect();
    let uri = format!("file://{}", path.display());
    let root = format!("file://{}", path.parent().expect("parent").display());
    let workspace = (args.workspace_files > 0).then(|| Workspace::create(args.workspace_files, flavour));
    let mut folders = vec![json!({"uri": root, "name": "bench"})];
    if let Some(w) = &workspace {
        folders.push(json!({"uri": format!("file://{}", w.0.display()), "name": "symbols"}));
    }
    let mut out = serde_json::Map::new();
    out.insert("server".into(), json!(args.server.join(" ")));
    out.insert("file".into(), json!(path.display().to_string()));
    out.insert("lines".into(), json!(lines.len()));
    out.insert("workspace_files".into(), json!(args.workspace_files));

    let mut conn = Conn::start(&args.server);
    let caps = json!({
        "general": {"positionEncodings": ["utf-16"]},
        "textDocument": {
            "synchronization": {"didSave": true},
            "publishDiagnostics": {"versionSupport": true},
            "hover": {"contentFormat": ["markdown", "plaintext"]},
            "inlayHint": {},
            "completion": {"completionItem": {"snippetSupport": true}},
        },
        "workspace": {"configuration": false, "workspaceFolders": true},
        "window": {"workDoneProgress": false},
    });
    let (init_time, init) = conn.request(
        "initialize",
        json!({
            "processId": std::process::id(),
            "rootUri": root,
            "workspaceFolders": folders,
            "capabilities": caps,
            "initializationOptions": args.init,
        }),
    );
    out.insert("initialize_ms".into(), json!(ms(init_time)));
    let server_caps = &init["capabilities"];
    // 1 = full text on every change (protols), 2 = incremental (wirelens).
    let sync = match &server_caps["textDocumentSync"] {
        Value::Number(n) => n.as_i64().unwrap_or(2),
        v => v["change"].as_i64().unwrap_or(2),
    };
    out.insert("sync".into(), json!(if sync == 1 { "full" } else { "incremental" }));
    let has_inlay = server_caps
        .get("inlayHintProvider")
        .is_some_and(|v| !v.is_null() && v != false);
    conn.notify("initialized", json!({}));

    let t0 = conn.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}}),
    );
    let opened = conn.diagnostics(&uri, 1, t0, timeout(60));
    out.insert("open_ms".into(), json!(opened.map(|at| ms(at - t0))));
    if workspace.is_some() {
        let (d, r) = conn.request("workspace/symbol", json!({"query": SYMBOL_QUERY}));
        out.insert("symbols_first_ms".into(), json!(ms(d)));
        out.insert("symbols_first_found".into(), json!(r.as_array().map_or(0, Vec::len)));
    }

    // Edits: alone, then (with --workspace-files) as many again while workspace symbol
    // queries run. One script, so the text stays what the script expects.
    let n_sym = if workspace.is_some() { args.edits } else { 0 };
    let edits = edit_script(&lines, flavour, args.edits + n_sym + args.keystrokes);
    let mut doc = text.clone();
    let mut version = 1i64;
    let mut ed = Editing {
        uri: &uri,
        sync,
        gap: args.gap,
        doc: &mut doc,
        version: &mut version,
    };
    let (lat, missed) = ed.run(&mut conn, &edits[..args.edits], None);
    out.insert("edits".into(), json!(args.edits));
    out.insert("edits_without_diagnostics".into(), json!(missed));
    stats("edit", lat, &mut out);
    if n_sym > 0 {
        let mut load = SymbolLoad::default();
        let (lat, missed) = ed.run(&mut conn, &edits[args.edits..], Some(&mut load));
        // Let the last query finish before the next phase.
        if let Some((id, t0)) = load.in_flight.take() {
            let (at, _) = conn.response(id);
            load.latencies.push(ms(at - t0));
        }
        out.insert("edits_sym".into(), json!(n_sym));
        out.insert("edits_sym_without_diagnostics".into(), json!(missed));
        out.insert("symbol_queries".into(), json!(load.latencies.len()));
        out.insert("symbols_found".into(), json!(load.found));
        stats("edit_sym", lat, &mut out);
        stats("symbols", load.latencies, &mut out);
    }
    let lines: Vec<&str> = doc.split('\n').collect();
    std::thread::sleep(Duration::from_millis(200));
    // How many hovers, inlay-hint windows and completions (none with --edits-only).
    let requests = |n: usize| if args.edits_only { 0 } else { n };

    // Hovers on type references.
    let mut lat = Vec::new();
    let mut answered = 0;
    for (line, character) in ref_positions(&lines, flavour, requests(100)) {
        let (d, r) = conn.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}),
        );
        answered += usize::from(!r.is_null());
        if r.is_null() && std::env::var_os("LSP_REPLAY_DEBUG").is_some() {
            eprintln!("no hover at {line}:{character}: {:?}", lines.get(line as usize));
        }
        lat.push(ms(d));
    }
    out.insert("hover_answered".into(), json!(answered));
    stats("hover", lat, &mut out);

    // Inlay hints for 100-line windows.
    let mut lat = Vec::new();
    let mut hints = 0;
    if has_inlay {
        let n = lines.len() as u32;
        for i in 0..requests(50) as u32 {
            let start = (i * 7919 + n / 7) % n.saturating_sub(100).max(1);
            let (d, r) = conn.request(
                "textDocument/inlayHint",
                json!({"textDocument": {"uri": uri}, "range": {
                    "start": {"line": start, "character": 0}, "end": {"line": start + 100, "character": 0}}}),
            );
            hints += r.as_array().map_or(0, Vec::len);
            lat.push(ms(d));
        }
    }
    out.insert("inlay_hints_per_window".into(), json!(hints as f64 / 50.0));
    stats("inlay", lat, &mut out);

    // Completion at a field type.
    let mut lat = Vec::new();
    let mut items = 0usize;
    for (line, character) in type_positions(&lines, flavour, requests(50)) {
        let (d, r) = conn.request(
            "textDocument/completion",
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}),
        );
        items += match &r {
            Value::Array(a) => a.len(),
            Value::Object(o) => o.get("items").and_then(Value::as_array).map_or(0, Vec::len),
            _ => 0,
        };
        lat.push(ms(d));
    }
    out.insert("completion_items".into(), json!(items as f64 / 50.0));
    stats("completion", lat, &mut out);

    // Keystrokes as VS Code follows them (see the header).
    if args.keystrokes > 0 {
        let doc_id = json!({"uri": uri});
        let (_, full) = conn.request("textDocument/semanticTokens/full", json!({"textDocument": doc_id}));
        let mut result_id = full.get("resultId").cloned().unwrap_or(Value::Null);
        const WHOLE_FILE: [&str; 3] = [
            "textDocument/documentSymbol",
            "textDocument/foldingRange",
            "textDocument/codeLens",
        ];
        let mut lat = Vec::new();
        // Each request's time: hints (they wait for the keystroke's analysis), the token
        // delta, then the WHOLE_FILE answers.
        let mut each: [Vec<f64>; 5] = Default::default();
        let mut ed = Editing {
            uri: &uri,
            sync,
            gap: args.gap,
            doc: &mut doc,
            version: &mut version,
        };
        let cpu0 = conn.cpu_ms();
        for e in &edits[args.edits + n_sym..] {
            let (version, t0) = ed.send(&mut conn, e);
            let l0 = e.range[0];
            let visible = json!({"start": {"line": l0.saturating_sub(30), "character": 0}, "end": {"line": l0 + 30, "character": 0}});
            let (d, _) = conn.request(
                "textDocument/inlayHint",
                json!({"textDocument": doc_id, "range": visible}),
            );
            each[0].push(ms(d));
            let (d, delta) = conn.request(
                "textDocument/semanticTokens/full/delta",
                json!({"textDocument": doc_id, "previousResultId": result_id}),
            );
            each[1].push(ms(d));
            result_id = delta.get("resultId").cloned().unwrap_or(Value::Null);
            for (i, method) in WHOLE_FILE.iter().enumerate() {
                let (d, _) = conn.request(method, json!({"textDocument": doc_id}));
                each[2 + i].push(ms(d));
            }
            // Its diagnostics (published after the analysis) may have come before the answers.
            conn.diagnostics(&uri, version, t0, timeout(10));
            lat.push(ms(t0.elapsed()));
        }
        out.insert("keystrokes".into(), json!(args.keystrokes));
        out.insert(
            "keystroke_cpu_ms".into(),
            json!((conn.cpu_ms() - cpu0) / args.keystrokes as f64),
        );
        stats("keystroke", lat, &mut out);
        for (name, ms) in ["hints", "tokens_delta", "symbols", "folding", "lenses"]
            .iter()
            .zip(each)
        {
            stats(&format!("keystroke_{name}"), ms, &mut out);
        }
    }

    let (rss, hwm) = conn.memory_mb();
    out.insert("rss_mb".into(), json!(rss));
    out.insert("hwm_mb".into(), json!(hwm));
    conn.shutdown();
    drop(workspace);

    let out = Value::Object(out);
    let f = |k: &str| {
        out.get(k)
            .and_then(Value::as_f64)
            .map_or("-".into(), |v| format!("{v:.2}"))
    };
    eprintln!(
        "lsp-replay {}: open {} ms; edit→diagnostics p50 {} p95 {} max {} ms ({} without); hover p50 {} ms \
         ({} answered); inlay p50 {} ms; completion p50 {} ms; RSS {} MB (peak {})",
        path.display(),
        f("open_ms"),
        f("edit_p50_ms"),
        f("edit_p95_ms"),
        f("edit_max_ms"),
        out["edits_without_diagnostics"],
        f("hover_p50_ms"),
        out["hover_answered"],
        f("inlay_p50_ms"),
        f("completion_p50_ms"),
        f("rss_mb"),
        f("hwm_mb"),
    );
    println!("{out}");
}
