//! A minimal LSP client over stdio for the tests: framed JSON-RPC into `wirelens lsp`.
#![allow(dead_code)] // each test binary uses a different part

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

pub struct Client {
    pub child: Child,
    pub stdin: ChildStdin,
    pub rx: Receiver<Value>,
    pub next_id: i64,
    /// Notifications received while waiting for responses.
    pub backlog: Vec<Value>,
}

impl Client {
    pub fn start() -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_wirelens"))
            .args(["lsp", "--stdio"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut len = 0usize;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(v) = line.strip_prefix("Content-Length: ") {
                        len = v.parse().unwrap();
                    }
                }
                let mut body = vec![0; len];
                reader.read_exact(&mut body).unwrap();
                if tx.send(serde_json::from_slice(&body).unwrap()).is_err() {
                    return;
                }
            }
        });
        Client {
            child,
            stdin,
            rx,
            next_id: 1,
            backlog: Vec::new(),
        }
    }

    pub fn send(&mut self, msg: Value) {
        let body = msg.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let msg = self.request_raw(method, params);
        assert!(msg.get("error").is_none(), "{method}: {msg}");
        msg["result"].clone()
    }

    /// The whole response (`result` or `error`). Requests the server sends meanwhile
    /// (`window/workDoneProgress/create`, refreshes) are answered with `null`, as a
    /// real client would, and kept in the backlog.
    pub fn request_raw(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let msg = self
                .rx
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
                .expect("response in time");
            if msg.get("id") == Some(&json!(id)) && msg.get("method").is_none() {
                return msg;
            }
            if msg.get("id").is_some() && msg.get("method").is_some() {
                self.send(json!({"jsonrpc": "2.0", "id": msg["id"], "result": null}));
            }
            self.backlog.push(msg);
        }
    }

    /// The next `publishDiagnostics` for `uri` (from the backlog first).
    pub fn diagnostics(&mut self, uri: &str) -> Value {
        let is_it = |m: &Value| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri;
        if let Some(i) = self.backlog.iter().position(is_it) {
            return self.backlog.remove(i)["params"].clone();
        }
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            match self.rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(m) if is_it(&m) => return m["params"].clone(),
                Ok(m) => self.backlog.push(m),
                Err(RecvTimeoutError::Timeout) => panic!("no diagnostics for {uri}"),
                Err(e) => panic!("{e}"),
            }
        }
    }

    /// Waits (up to 20 s) until a message matching `pred` has arrived; it stays in the
    /// backlog.
    pub fn wait_for_message(&mut self, pred: impl Fn(&Value) -> bool) {
        if self.backlog.iter().any(&pred) {
            return;
        }
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let m = self
                .rx
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
                .expect("the expected message in time");
            let done = pred(&m);
            self.backlog.push(m);
            if done {
                return;
            }
        }
    }

    pub fn initialize(&mut self, encodings: &[&str]) -> Value {
        let r = self.request(
            "initialize",
            json!({"processId": null, "rootUri": null, "capabilities": {"general": {"positionEncodings": encodings}}}),
        );
        self.notify("initialized", json!({}));
        r
    }

    /// `initialize` + `initialized` with diagnostics published at once (`delayMs` 0, no
    /// debounce), as the tests that time or count publications need; `root_uri` is the
    /// workspace folder, if any.
    pub fn initialize_without_delay(&mut self, root_uri: Option<&str>) {
        self.request(
            "initialize",
            json!({"processId": null, "rootUri": root_uri, "capabilities": {},
                   "initializationOptions": {"diagnostics": {"delayMs": 0}}}),
        );
        self.notify("initialized", json!({}));
    }

    /// Peak resident memory of the server in kB (`VmHWM` in `/proc/PID/status`).
    pub fn vm_hwm_kb(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap()
    }

    pub fn open(&mut self, uri: &str, lang: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": lang, "version": 1, "text": text}}),
        );
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

pub fn pos(line: u32, character: u32) -> Value {
    json!({"line": line, "character": character})
}
