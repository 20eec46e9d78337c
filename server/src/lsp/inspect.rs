//! `wirelens/inspect`: decodes bytes against the open schema document (its current,
//! unsaved text) into a tree of values with their byte ranges, for the editors'
//! binary inspectors. The tree is the annotated decode of `wirelens decode --annotate`
//! ([`wirelens_core::codec::Codec::decode_tree`]), not a second decoder.
//!
//! Params: `{uri, root?, data? (base64) | path?, mode? ("byte" | "message"), start?,
//! length?, maxNodes?}`. Result: `{length, root, mode, window: {start, end}, tree,
//! truncated, error?: {offset, path, message}}`; every tree node is `{path, name, type,
//! start, end, value?, schemaRange?, children?}` (docs/spec.md §5).

use serde::Deserialize;
use serde_json::{json, Map, Value};
use wirelens_core::codec::{Codec, Mode, TreeNode, SDP_HEADER_LEN, SDP_MAGIC, SDP_VERSION};
use wirelens_core::source::ColumnUnit;
use wirelens_core::Dialect;

use super::convert::range_to_lsp;
use crate::ide::Snapshot;

/// The request's method name.
pub const INSPECT: &str = "wirelens/inspect";

/// Most nodes one answer holds unless the client asks for fewer (or more, up to
/// [`MAX_NODES_LIMIT`]); past it the tree is cut and `truncated` is set.
pub const DEFAULT_MAX_NODES: usize = 20_000;
pub const MAX_NODES_LIMIT: usize = 200_000;

/// Largest input read from `path` (or sent as `data`): 256 MiB.
const MAX_INPUT: u64 = 256 << 20;

#[derive(Deserialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct InspectParams {
    pub uri: String,
    #[serde(default)]
    pub root: Option<String>,
    #[serde(default)]
    pub data: Option<String>,
    #[serde(default)]
    pub path: Option<String>,
    #[serde(default)]
    pub mode: Option<String>,
    #[serde(default)]
    pub start: Option<u64>,
    #[serde(default)]
    pub length: Option<u64>,
    #[serde(default)]
    pub max_nodes: Option<u64>,
}

/// The input bytes: `data` (base64) or the file at `path`.
pub fn read_input(p: &InspectParams) -> Result<Vec<u8>, String> {
    match (&p.data, &p.path) {
        (Some(data), _) => {
            if data.len() as u64 > MAX_INPUT / 3 * 4 + 4 {
                return Err("data is larger than 256 MiB".into());
            }
            base64_decode(data)
        }
        (None, Some(path)) => {
            let path = std::path::Path::new(path);
            let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            if meta.len() > MAX_INPUT {
                return Err(format!("{} is larger than 256 MiB", path.display()));
            }
            std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
        }
        (None, None) => Err("expected `data` (base64) or `path`".into()),
    }
}

/// Standard base64 (with or without padding; whitespace ignored).
pub fn base64_decode(text: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let mut acc: u32 = 0;
    let mut bits = 0u32;
    for (i, c) in text.bytes().enumerate() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            b' ' | b'\n' | b'\r' | b'\t' => continue,
            _ => return Err(format!("data is not base64 (character {i})")),
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Ok(out)
}

/// The answer for `bytes` decoded against `snap`; `Err` only for a bad request.
pub fn inspect(snap: &Snapshot, unit: ColumnUnit, p: &InspectParams, bytes: &[u8]) -> Result<Value, String> {
    let a = &snap.analysis;
    let codec = Codec::new(&a.schema, &a.layout);
    let looks_like_message = snap.dialect == Dialect::Sdp
        && bytes.len() >= SDP_HEADER_LEN
        && bytes.starts_with(SDP_MAGIC)
        && bytes[3] == SDP_VERSION;
    let mode = match p.mode.as_deref() {
        Some("byte") => Mode::Byte,
        Some("message") => Mode::Message,
        None if looks_like_message => Mode::Message,
        None => Mode::Byte,
        Some(other) => return Err(format!("unknown mode `{other}` (byte or message)")),
    };
    let start = usize::try_from(p.start.unwrap_or(0)).unwrap_or(usize::MAX);
    let end = match p.length {
        Some(n) => start.saturating_add(usize::try_from(n).unwrap_or(usize::MAX)),
        None => usize::MAX,
    };
    let window = start..end.max(start);
    let max_nodes = p
        .max_nodes
        .map_or(DEFAULT_MAX_NODES, |n| usize::try_from(n).unwrap_or(usize::MAX))
        .clamp(1, MAX_NODES_LIMIT);
    let mut answer = Map::new();
    answer.insert("length".into(), json!(bytes.len()));
    answer.insert(
        "mode".into(),
        json!(if mode == Mode::Message { "message" } else { "byte" }),
    );
    answer.insert(
        "window".into(),
        json!({"start": window.start.min(bytes.len()), "end": window.end.min(bytes.len())}),
    );
    // The root: as asked, or (SDP message) the struct whose message id the header names.
    let root = match &p.root {
        Some(name) => codec.root(name),
        None if mode == Mode::Message && bytes.len() >= 6 => {
            let id = u16::from_le_bytes([bytes[4], bytes[5]]);
            (0..a.schema.types.len())
                .find(|&t| a.layout.get(t).and_then(|l| l.message_id) == Some(id))
                .ok_or_else(|| format!("no struct has message type id {id}"))
        }
        None => Err("which type? give `root` (only an SDP message names its type)".into()),
    };
    let root = match root {
        Ok(r) => r,
        Err(message) => {
            answer.insert("root".into(), Value::Null);
            answer.insert("tree".into(), Value::Null);
            answer.insert("truncated".into(), json!(false));
            answer.insert("error".into(), json!({"offset": 0, "path": "", "message": message}));
            return Ok(Value::Object(answer));
        }
    };
    let decoded = codec.decode_tree(root, bytes, mode, window, max_nodes);
    answer.insert("root".into(), json!(a.schema.types[root].name));
    answer.insert(
        "tree".into(),
        decoded.root.as_ref().map_or(Value::Null, |n| node_json(snap, unit, n)),
    );
    answer.insert("truncated".into(), json!(decoded.truncated));
    if let Some(e) = decoded.error {
        answer.insert(
            "error".into(),
            json!({"offset": e.offset, "path": e.path, "message": e.message}),
        );
    }
    Ok(Value::Object(answer))
}

fn node_json(snap: &Snapshot, unit: ColumnUnit, n: &TreeNode) -> Value {
    let mut o = Map::new();
    o.insert("path".into(), json!(n.path));
    o.insert("name".into(), json!(n.name));
    o.insert("type".into(), json!(n.ty));
    o.insert("start".into(), json!(n.start));
    o.insert("end".into(), json!(n.end));
    if let Some(v) = &n.value {
        o.insert("value".into(), v.clone());
    }
    if let Some(r) = &n.field {
        if r.end <= snap.source.text.len() {
            o.insert("schemaRange".into(), json!(range_to_lsp(&snap.source, r, unit)));
        }
    }
    if !n.children.is_empty() {
        let kids: Vec<Value> = n.children.iter().map(|c| node_json(snap, unit, c)).collect();
        o.insert("children".into(), Value::Array(kids));
    }
    Value::Object(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips_and_refuses_garbage() {
        assert_eq!(base64_decode("AAEC/w==").unwrap(), vec![0, 1, 2, 255]);
        assert_eq!(base64_decode("AAEC/w").unwrap(), vec![0, 1, 2, 255]);
        assert_eq!(base64_decode("U0RQ").unwrap(), b"SDP".to_vec());
        assert_eq!(base64_decode("").unwrap(), Vec::<u8>::new());
        assert!(base64_decode("AA*A").is_err());
    }
}
