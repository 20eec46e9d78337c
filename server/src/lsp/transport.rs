//! The stdio transport in front of tower-lsp-server's `Server`.
//!
//! tower-lsp-server's codec ends the whole session on the first message it cannot
//! decode (tokio-util's `FramedRead` stops after a decoder error): a lone UTF-16
//! surrogate escape, an invalid UTF-8 byte, `charset=UTF-8`, a lower-case header name,
//! an id such as `1.5`, JSON nested deeper than serde_json's 128 levels, a batch. So the
//! server never reads the client directly. This layer reads stdin, frames messages
//! itself (header names case-insensitive, charset optional and case-insensitive),
//! repairs lone surrogate escapes (U+FFFD), and hands the `Server` only messages its
//! codec accepts, re-framed with a plain `Content-Length` header and a re-serialized
//! body. Everything else is answered with a JSON-RPC error (when the message is a
//! request, or its id cannot be recovered) or logged to stderr and dropped
//! (notifications, responses).
//!
//! The server writes into a pipe; a copier moves its output to stdout one whole frame
//! at a time, under the same lock as this layer's error responses, so the two never
//! interleave inside a frame.

use std::borrow::Cow;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::Mutex;
use tower_lsp_server::jsonrpc::{Request, Response};

/// Longest header block accepted; real headers are under 100 bytes.
const MAX_HEADER: usize = 8 * 1024;
/// Largest body accepted. Documents are limited to 256 MiB on disk; JSON escaping can
/// double that. Larger bodies are skipped, never buffered.
const MAX_BODY: usize = 1 << 30;
/// Size of the in-process pipes between this layer and the `Server`.
const PIPE: usize = 1 << 16;

/// Runs `server` (a tower-lsp-server `Server` built over the two given pipe ends) with
/// `input` as the client's stream and `output` as the stream to the client.
pub async fn serve<I, O, F, Fut>(input: I, output: O, server: F)
where
    I: AsyncRead + Unpin + Send + 'static,
    O: AsyncWrite + Unpin + Send + 'static,
    F: FnOnce(tokio::io::DuplexStream, tokio::io::DuplexStream) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let (server_in, feed) = tokio::io::duplex(PIPE);
    let (server_out, drain) = tokio::io::duplex(PIPE);
    let output = Arc::new(Mutex::new(output));
    let reader = tokio::spawn(read_client(input, feed, output.clone()));
    let copier = tokio::spawn(copy_server_output(drain, output));
    server(server_in, server_out).await;
    // The server has finished (end of input or `exit`): deliver what it wrote last.
    let _ = copier.await;
    reader.abort();
}

/// Reads framed messages from the client, forwarding the acceptable ones to the server.
async fn read_client<I, O>(mut input: I, mut feed: tokio::io::DuplexStream, output: Arc<Mutex<O>>)
where
    I: AsyncRead + Unpin,
    O: AsyncWrite + Unpin,
{
    let mut framer = Framer::default();
    let mut chunk = vec![0u8; PIPE];
    loop {
        while let Some(frame) = framer.next_frame() {
            let outcome = match frame {
                Frame::Body(body) => sanitize(&body),
                Frame::Bad(why) => Outcome::reply(Value::Null, PARSE_ERROR, why),
            };
            if let Some(line) = &outcome.log {
                eprintln!("wirelens lsp: {line}");
            }
            if let Some(msg) = outcome.forward {
                if feed.write_all(&frame_bytes(&msg)).await.is_err() {
                    return; // the server has stopped reading
                }
            }
            for reply in outcome.replies {
                let mut out = output.lock().await;
                if out.write_all(&frame_bytes(&reply)).await.is_err() || out.flush().await.is_err() {
                    return;
                }
            }
        }
        match input.read(&mut chunk).await {
            Ok(0) | Err(_) => return, // end of input: dropping `feed` ends the server
            Ok(n) => framer.push(&chunk[..n]),
        }
    }
}

/// Moves the server's (well-formed) output to the client, one whole frame per write.
async fn copy_server_output<O: AsyncWrite + Unpin>(mut drain: tokio::io::DuplexStream, output: Arc<Mutex<O>>) {
    let mut framer = Framer::default();
    let mut chunk = vec![0u8; PIPE];
    loop {
        while let Some(frame) = framer.next_frame() {
            if let Frame::Body(body) = frame {
                let mut out = output.lock().await;
                if out.write_all(&frame_bytes(&body)).await.is_err() || out.flush().await.is_err() {
                    return;
                }
            }
        }
        match drain.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => framer.push(&chunk[..n]),
        }
    }
}

fn frame_bytes(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

/// One unit read from the byte stream.
#[derive(Debug, PartialEq)]
pub enum Frame {
    Body(Vec<u8>),
    /// Bytes that could not be framed, and why; the framer has resynchronized.
    Bad(String),
}

/// Splits a byte stream into `Content-Length`-framed bodies.
#[derive(Default)]
pub struct Framer {
    buf: Vec<u8>,
    /// Start of unconsumed bytes in `buf`.
    start: usize,
    /// Body length of the frame whose header has been read.
    body: Option<usize>,
    /// Bytes still to discard (the body of a frame that is too large).
    skip: usize,
}

impl Framer {
    pub fn push(&mut self, data: &[u8]) {
        let dropped = self.skip.min(data.len());
        self.skip -= dropped;
        let data = &data[dropped..];
        if self.start > 0 && self.start >= self.buf.len() / 2 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        self.buf.extend_from_slice(data);
    }

    pub fn next_frame(&mut self) -> Option<Frame> {
        if let Some(len) = self.body {
            let rest = &self.buf[self.start..];
            if rest.len() < len {
                return None;
            }
            let body = rest[..len].to_vec();
            self.start += len;
            self.body = None;
            return Some(Frame::Body(body));
        }
        // Blank lines between messages are tolerated.
        while matches!(self.buf.get(self.start), Some(b'\r' | b'\n')) {
            self.start += 1;
        }
        let rest = &self.buf[self.start..];
        let window = &rest[..rest.len().min(MAX_HEADER + 4)];
        let Some(end) = find(window, b"\r\n\r\n") else {
            if rest.len() > MAX_HEADER {
                self.resync(rest.len().saturating_sub(13));
                return Some(Frame::Bad(format!("no end of header within {MAX_HEADER} bytes")));
            }
            return None;
        };
        let header = String::from_utf8_lossy(&rest[..end]).into_owned();
        let header_len = end + 4;
        match parse_header(&header) {
            Ok(len) if len > MAX_BODY => {
                self.skip_body(header_len, len);
                Some(Frame::Bad(format!("message of {len} bytes is larger than {MAX_BODY}")))
            }
            Ok(len) => {
                self.start += header_len;
                self.body = Some(len);
                self.next_frame()
            }
            Err((why, Some(len))) => {
                // Well framed but unacceptable: skip exactly its body.
                self.skip_body(header_len, len);
                Some(Frame::Bad(why))
            }
            Err((why, None)) => {
                // Skip to the next thing that looks like a header (as tower-lsp-server
                // does), which may be inside this block (`{}Content-Length: …`).
                self.resync(header_len);
                Some(Frame::Bad(why))
            }
        }
    }

    fn skip_body(&mut self, header_len: usize, len: usize) {
        self.start += header_len;
        let buffered = (self.buf.len() - self.start).min(len);
        self.start += buffered;
        self.skip = len - buffered;
    }

    /// Drops bytes up to the next `Content-Length` after the first byte, or else the
    /// first `otherwise` bytes.
    fn resync(&mut self, otherwise: usize) {
        let rest = &self.buf[self.start..];
        let lower: Vec<u8> = rest.get(1..).unwrap_or_default().to_ascii_lowercase();
        self.start += match find(&lower, b"content-length") {
            Some(i) => 1 + i,
            None => otherwise.max(1).min(rest.len()),
        };
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The body length a header block announces; on error, why, and the length if known.
fn parse_header(header: &str) -> Result<usize, (String, Option<usize>)> {
    let mut len = None;
    let mut problem = None;
    for line in header.split("\r\n") {
        let name_ok = |n: &str| !n.is_empty() && n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
        let Some((name, value)) = line.split_once(':').filter(|(n, _)| name_ok(n.trim())) else {
            return Err((format!("malformed header line {line:?}"), None));
        };
        let (name, value) = (name.trim(), value.trim());
        if name.eq_ignore_ascii_case("content-length") {
            let n = value
                .parse::<usize>()
                .map_err(|_| (format!("invalid Content-Length {value:?}"), None))?;
            len = Some(n);
        } else if name.eq_ignore_ascii_case("content-type") {
            let charset = value
                .split(';')
                .skip(1)
                .filter_map(|p| p.trim().split_once('='))
                .find(|(k, _)| k.trim().eq_ignore_ascii_case("charset"))
                .map(|(_, v)| v.trim().trim_matches('"'));
            // LSP: the default is utf-8, and `utf8` is accepted for compatibility.
            if let Some(cs) = charset {
                if !cs.eq_ignore_ascii_case("utf-8") && !cs.eq_ignore_ascii_case("utf8") {
                    problem = Some(format!("unsupported charset {cs:?} (only utf-8)"));
                }
            }
        }
    }
    match (len, problem) {
        (Some(len), None) => Ok(len),
        (len, Some(why)) => Err((why, len)),
        (None, None) => Err(("header without Content-Length".to_string(), None)),
    }
}

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;

/// What to do with one received body.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The body to hand to the server.
    pub forward: Option<Vec<u8>>,
    /// Error responses for the client.
    pub replies: Vec<Vec<u8>>,
    pub log: Option<String>,
}

impl Outcome {
    fn reply(id: Value, code: i64, why: String) -> Outcome {
        let msg = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": why}});
        Outcome {
            forward: None,
            replies: vec![msg.to_string().into_bytes()],
            log: Some(format!("rejected a message: {why}")),
        }
    }

    fn drop(why: String) -> Outcome {
        Outcome {
            log: Some(format!("dropped a message: {why}")),
            ..Outcome::default()
        }
    }

    /// A reply when the message may be a request (it has an id, or none could be
    /// found), a log line when it is a notification or a response.
    fn reject(id: Lookup, code: i64, why: String) -> Outcome {
        match id {
            Lookup::Id(id) => Outcome::reply(id, code, why),
            Lookup::NotARequest => Outcome::drop(why),
            Lookup::Unknown => Outcome::reply(Value::Null, code, why),
        }
    }
}

/// Decides what happens to one message body.
pub fn sanitize(body: &[u8]) -> Outcome {
    let text = match std::str::from_utf8(body) {
        Ok(t) => Cow::Borrowed(t),
        Err(e) => {
            let lossy = String::from_utf8_lossy(body);
            let why = format!("the message is not valid UTF-8 ({e})");
            return Outcome::reject(lookup_id(&repair_surrogates(&lossy)), PARSE_ERROR, why);
        }
    };
    let text = repair_surrogates(&text);
    let value: Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => return Outcome::reject(lookup_id(&text), PARSE_ERROR, format!("invalid JSON: {e}")),
    };
    match &value {
        Value::Array(items) => {
            let why = "batches are not part of the Language Server Protocol".to_string();
            let mut out = Outcome::drop(why.clone());
            for item in items {
                if let Lookup::Id(id) = message_id(item) {
                    out.replies
                        .extend(Outcome::reply(id, INVALID_REQUEST, why.clone()).replies);
                }
            }
            if items.is_empty() {
                return Outcome::reply(Value::Null, INVALID_REQUEST, why);
            }
            out
        }
        Value::Object(_) => {
            if Request::deserialize(&value).is_ok() || Response::deserialize(&value).is_ok() {
                match serde_json::to_vec(&value) {
                    Ok(bytes) => Outcome {
                        forward: Some(bytes),
                        ..Outcome::default()
                    },
                    Err(e) => Outcome::reject(message_id(&value), PARSE_ERROR, e.to_string()),
                }
            } else {
                let why = "not a JSON-RPC 2.0 request, notification or response (check `jsonrpc`, `id`, \
                           `method`)"
                    .to_string();
                Outcome::reject(message_id(&value), INVALID_REQUEST, why)
            }
        }
        _ => Outcome::reply(Value::Null, INVALID_REQUEST, "a message must be a JSON object".into()),
    }
}

/// The id to answer a malformed message with.
#[derive(Debug, PartialEq)]
enum Lookup {
    Id(Value),
    /// A notification or a response: nothing to answer.
    NotARequest,
    /// Could not tell.
    Unknown,
}

fn message_id(v: &Value) -> Lookup {
    let Some(obj) = v.as_object() else {
        return Lookup::Unknown;
    };
    let is_response = !obj.contains_key("method") && (obj.contains_key("result") || obj.contains_key("error"));
    match obj.get("id") {
        _ if is_response => Lookup::NotARequest,
        // Echoed as sent (even `1.5`), so the client can match the answer.
        Some(id) => Lookup::Id(id.clone()),
        None if obj.contains_key("method") => Lookup::NotARequest,
        None => Lookup::Unknown,
    }
}

/// The id of a message that does not parse as a whole (too deep, a syntax error deep
/// inside): a shallow scan of the top-level object's members, never recursing.
fn lookup_id(text: &str) -> Lookup {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    // In the top-level object, whether the next string is a member name.
    let mut expect_key = false;
    let (mut has_method, mut is_response, mut has_id, mut id) = (false, false, false, None);
    let skip_ws = |mut i: usize| {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    i = skip_ws(i);
    if b.first().copied() != Some(b'{') {
        return Lookup::Unknown;
    }
    while i < b.len() {
        match b[i] {
            b'"' => {
                let start = i;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                if depth == 1 && expect_key {
                    expect_key = false;
                    let key = text.get(start..i.min(b.len())).unwrap_or("");
                    let after = skip_ws(i);
                    if b.get(after) != Some(&b':') {
                        continue;
                    }
                    match key {
                        "\"method\"" => has_method = true,
                        "\"result\"" | "\"error\"" => is_response = true,
                        "\"id\"" => {
                            has_id = true;
                            let v = skip_ws(after + 1);
                            let mut end = v;
                            if b.get(v) == Some(&b'"') {
                                end += 1;
                                while end < b.len() && b[end] != b'"' {
                                    end += if b[end] == b'\\' { 2 } else { 1 };
                                }
                                end += 1;
                            } else {
                                while end < b.len() && !matches!(b[end], b',' | b'}' | b' ' | b'\t' | b'\r' | b'\n') {
                                    end += 1;
                                }
                            }
                            id = text
                                .get(v..end.min(b.len()))
                                .and_then(|s| serde_json::from_str::<Value>(s).ok());
                        }
                        _ => {}
                    }
                    continue;
                }
                continue;
            }
            b'{' | b'[' => {
                depth += 1;
                expect_key = depth == 1;
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            b',' => expect_key = depth == 1,
            _ => {}
        }
        i += 1;
    }
    match id {
        _ if is_response && !has_method => Lookup::NotARequest,
        Some(id) => Lookup::Id(id),
        // A request whose id cannot be read (`1e400`): JSON-RPC answers with id null.
        None if has_method && !has_id => Lookup::NotARequest,
        None => Lookup::Unknown,
    }
}

/// Replaces each `\uXXXX` escape of a lone UTF-16 surrogate with `\uFFFD`. Editors
/// send these while an edit splits a surrogate pair (JavaScript strings are UTF-16);
/// serde_json rejects them. Same length, so offsets in the body do not move.
pub fn repair_surrogates(text: &str) -> Cow<'_, str> {
    let b = text.as_bytes();
    let unit = |at: usize| -> Option<u16> {
        if b.get(at) != Some(&b'\\') || b.get(at + 1) != Some(&b'u') {
            return None;
        }
        let hex = text.get(at + 2..at + 6)?;
        u16::from_str_radix(hex, 16).ok()
    };
    let mut out: Option<Vec<u8>> = None;
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        let Some(u) = unit(i) else {
            i += 2; // any other escape, including `\\`
            continue;
        };
        let lone = match u {
            0xD800..=0xDBFF => match unit(i + 6) {
                Some(0xDC00..=0xDFFF) => {
                    i += 12;
                    continue;
                }
                _ => true,
            },
            0xDC00..=0xDFFF => true,
            _ => false,
        };
        if lone {
            out.get_or_insert_with(|| b.to_vec())[i..i + 6].copy_from_slice(b"\\uFFFD");
        }
        i += 6;
    }
    match out {
        // Only ASCII bytes were replaced by ASCII bytes.
        Some(bytes) => {
            Cow::Owned(String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
        }
        None => Cow::Borrowed(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8], chunk: usize) -> Vec<Frame> {
        let mut f = Framer::default();
        let mut out = Vec::new();
        for c in input.chunks(chunk) {
            f.push(c);
            while let Some(fr) = f.next_frame() {
                out.push(fr);
            }
        }
        out
    }

    #[test]
    fn framing_is_case_insensitive_and_resynchronizes() {
        let input = b"content-length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=UTF-8\r\n\r\n{}\
garbage\r\n\r\nContent-Length: 3\r\n\r\n[1]Content-Length: 2\r\nContent-Type: x; charset=latin1\r\n\r\n{}\
Content-Length: 1\r\n\r\n7";
        for chunk in [1, 3, 1000] {
            let got = frames(input, chunk);
            assert_eq!(
                got,
                vec![
                    Frame::Body(b"{}".to_vec()),
                    Frame::Bad("malformed header line \"garbage\"".into()),
                    Frame::Body(b"[1]".to_vec()),
                    Frame::Bad("unsupported charset \"latin1\" (only utf-8)".into()),
                    Frame::Body(b"7".to_vec()),
                ],
                "chunk {chunk}"
            );
        }
    }

    #[test]
    fn oversized_bodies_are_skipped_not_buffered() {
        let mut f = Framer::default();
        f.push(format!("Content-Length: {}\r\n\r\nabc", MAX_BODY + 10).as_bytes());
        assert!(matches!(f.next_frame(), Some(Frame::Bad(_))));
        f.push(&vec![b'x'; MAX_BODY + 7 - PIPE]);
        f.push(&vec![b'x'; PIPE]);
        f.push(b"Content-Length: 2\r\n\r\n{}");
        assert_eq!(f.next_frame(), Some(Frame::Body(b"{}".to_vec())));
        assert!(f.buf.len() < 1024);
    }

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        assert_eq!(repair_surrogates(r#""a\ud83d""#), r#""a\uFFFD""#);
        assert_eq!(
            repair_surrogates(r#""\ude00x\ud83d\ude00""#),
            r#""\uFFFDx\ud83d\ude00""#
        );
        assert_eq!(repair_surrogates(r#""\\ud83d""#), r#""\\ud83d""#);
        assert_eq!(repair_surrogates(r#""\ud83d\u0041""#), r#""\uFFFD\u0041""#);
    }

    #[test]
    fn ids_are_recovered_from_unparseable_messages() {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":"x\"y","method":"m","params":{}}}"#,
            "[".repeat(500)
        );
        assert_eq!(lookup_id(&deep), Lookup::Id(json!("x\"y")));
        assert_eq!(lookup_id(r#"{"params":{"id":3},"method":"m","#), Lookup::NotARequest);
        assert_eq!(lookup_id(r#"{"id": 1.5 , "method":"m""#), Lookup::Id(json!(1.5)));
        assert_eq!(lookup_id("nonsense"), Lookup::Unknown);
    }

    #[test]
    fn messages_the_server_codec_would_choke_on_are_answered() {
        let out = sanitize(br#"{"jsonrpc":"2.0","id":1.5,"method":"textDocument/hover"}"#);
        assert!(out.forward.is_none());
        let reply: Value = serde_json::from_slice(&out.replies[0]).unwrap();
        assert_eq!(reply["id"], json!(1.5));
        assert_eq!(reply["error"]["code"], json!(INVALID_REQUEST));
        let out = sanitize(br#"{"jsonrpc":"2.0","method":"x","params":{"t":"\ud83d"}}"#);
        assert_eq!(
            out.forward.as_deref(),
            Some(r#"{"jsonrpc":"2.0","method":"x","params":{"t":"�"}}"#.as_bytes())
        );
        let out = sanitize(br#"[{"jsonrpc":"2.0","id":4,"method":"x"},{"jsonrpc":"2.0","method":"y"}]"#);
        assert_eq!(out.replies.len(), 1);
    }
}
