//! The reference JSON ↔ wire codec (spec §4), driven entirely by the encoding plan
//! ([`crate::plan`], read off the [`Layout`]): field order, inlined structs, presence
//! bytes and length prefixes come from the same plan the emitters render, never from a
//! second description of the format. Unlike generated code it checks every leaf of a
//! block on its own, so its errors name the exact field. Used by `wirelens encode/decode`, the
//! conformance harness, and as the oracle every generated codec is tested against.

use std::fmt::Write as _;

use serde_json::{Map, Number, Value};

use crate::dialect::Dialect;
use crate::layout::{Layout, LeafKind, Wire};
use crate::model::{Primitive, Schema, TypeId};
use crate::plan::{self, Plan, Prefix, Step};

/// SDP message header: "SDP" magic, version `'2'`, u16 type id, u32 payload length.
pub const SDP_MAGIC: &[u8; 3] = b"SDP";
pub const SDP_VERSION: u8 = b'2';
pub const SDP_HEADER_LEN: usize = 10;

/// Deepest value nesting the codec follows (struct fields and array elements). Real
/// schemas are far shallower (ffire allows 32); this only stops hostile schemas from
/// exhausting the stack.
pub const MAX_DEPTH: usize = 512;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// The plain encoding.
    #[default]
    Byte,
    /// SDP only: the 10-byte header, then the plain encoding.
    Message,
}

/// A codec failure: where (byte offset for decoding, value path for both) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodecError {
    /// `plugins[3].parameters[17].unit`; empty at the root.
    pub path: String,
    /// Byte offset in the input (decoding) or output (encoding) where it went wrong.
    pub offset: usize,
    pub message: String,
}

impl std::fmt::Display for CodecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for CodecError {}

#[derive(Clone)]
enum Seg<'a> {
    /// The field's JSON name, and its declaration when known (for schema links).
    Field(&'a str, Option<&'a crate::model::Field>),
    Index(usize),
}

/// The value path being visited, formatted only when an error needs it.
#[derive(Default, Clone)]
struct Path<'a>(Vec<Seg<'a>>);

impl std::fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, seg) in self.0.iter().enumerate() {
            match seg {
                Seg::Field(name, _) if i == 0 => write!(f, "{name}")?,
                Seg::Field(name, _) => write!(f, ".{name}")?,
                Seg::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

/// Encoder and decoder for one analysed schema.
pub struct Codec<'s> {
    schema: &'s Schema,
    layout: &'s Layout,
    plan: Plan,
}

impl<'s> Codec<'s> {
    pub fn new(schema: &'s Schema, layout: &'s Layout) -> Codec<'s> {
        Codec {
            schema,
            layout,
            plan: Plan::new(layout),
        }
    }

    /// The type named `name`, if its layout is known.
    pub fn root(&self, name: &str) -> Result<TypeId, String> {
        let id = self.schema.type_id(name).ok_or_else(|| {
            let names: Vec<&str> = self.schema.types.iter().map(|t| t.name.as_str()).collect();
            format!("no type `{name}` in the schema (types: {})", names.join(", "))
        })?;
        self.layout
            .get(id)
            .map(|_| id)
            .ok_or_else(|| format!("type `{name}` has errors; fix the schema first"))
    }

    fn check_mode(&self, mode: Mode) -> Result<(), CodecError> {
        if mode == Mode::Message && self.schema.dialect != Dialect::Sdp {
            return Err(CodecError {
                path: String::new(),
                offset: 0,
                message: "message mode exists only for SDP".into(),
            });
        }
        Ok(())
    }

    /// How a value of type `root` is written: its struct, or the single value of an
    /// alias / ffire non-struct root.
    fn root_value(&self, root: TypeId, offset: usize) -> Result<plan::Value, CodecError> {
        self.layout
            .get(root)
            .map(|t| self.plan.value(self.layout, &t.wire))
            .ok_or_else(|| CodecError {
                path: String::new(),
                offset,
                message: "the root type has no layout".into(),
            })
    }

    /// The type of the struct reached by following `path` (declaration indices) from
    /// struct `owner`, and the field at its end.
    fn field_at(&self, owner: TypeId, path: &[usize]) -> Option<(TypeId, &'s crate::model::Field)> {
        let (&last, init) = path.split_last()?;
        let mut ty = owner;
        for &i in init {
            match self.layout.get(ty)?.field_by_decl(i)?.wire {
                Wire::Struct(s) => ty = s,
                _ => return None,
            }
        }
        let schema: &'s Schema = self.schema;
        Some((ty, schema.types.get(ty)?.fields().get(last)?))
    }

    /// Error-path segments for `path` inside struct `owner`.
    fn segments(&self, owner: TypeId, path: &[usize]) -> Vec<Seg<'s>> {
        (1..=path.len())
            .map(|k| match self.field_at(owner, &path[..k]) {
                Some((_, f)) => Seg::Field(f.json_name.as_str(), Some(f)),
                None => Seg::Field("?", None),
            })
            .collect()
    }

    /// The JSON object of struct `id` from its values by path (inlined structs' fields
    /// have longer paths): fields as written, absent optionals left out.
    fn assemble(&self, id: TypeId, entries: Vec<(&[usize], Value)>) -> Map<String, Value> {
        let schema: &'s Schema = self.schema;
        let fields = schema.types[id].fields();
        let mut direct: Vec<(usize, Value)> = Vec::new();
        let mut nested: std::collections::BTreeMap<usize, Vec<(&[usize], Value)>> = Default::default();
        for (path, v) in entries {
            match path {
                [i] => direct.push((*i, v)),
                [i, rest @ ..] => nested.entry(*i).or_default().push((rest, v)),
                [] => {}
            }
        }
        for (i, sub) in nested {
            let inner = self
                .layout
                .get(id)
                .and_then(|t| t.field_by_decl(i))
                .and_then(|f| match f.wire {
                    Wire::Struct(s) => Some(s),
                    _ => None,
                });
            if let Some(s) = inner {
                direct.push((i, Value::Object(self.assemble(s, sub))));
            }
        }
        direct.sort_by_key(|(d, _)| *d);
        let mut map = Map::with_capacity(direct.len());
        for (d, v) in direct {
            if v.is_null() {
                continue;
            }
            if let Some(f) = fields.get(d) {
                map.insert(f.json_name.clone(), v);
            }
        }
        map
    }

    fn message_id(&self, root: TypeId) -> Result<u16, CodecError> {
        self.layout
            .get(root)
            .and_then(|t| t.message_id)
            .ok_or_else(|| CodecError {
                path: String::new(),
                offset: 0,
                message: "this struct has no message id (more than 65,535 structs)".into(),
            })
    }

    /// Whether two JSON values denote the same value of type `root` (floats compared
    /// at their wire precision, absent = null). `Err` names the first difference.
    pub fn same_value(&self, root: TypeId, a: &Value, b: &Value) -> Result<(), String> {
        let wire = self
            .layout
            .get(root)
            .map(|t| t.wire.clone())
            .ok_or("the root type has no layout")?;
        let mut path = Path::default();
        self.same(&wire, a, b, &mut path, 0)
    }

    fn same<'p>(&'p self, wire: &Wire, a: &Value, b: &Value, path: &mut Path<'p>, depth: usize) -> Result<(), String> {
        let differ = |path: &Path| {
            Err(format!(
                "{}: {a} ≠ {b}",
                if path.0.is_empty() {
                    "value".to_string()
                } else {
                    path.to_string()
                }
            ))
        };
        if depth > MAX_DEPTH {
            return Err("nested too deeply".into());
        }
        match wire {
            Wire::Optional(inner) => match (a.is_null(), b.is_null()) {
                (true, true) => Ok(()),
                (false, false) => self.same(inner, a, b, path, depth),
                _ => differ(path),
            },
            Wire::Array(elem) => match (a, b) {
                (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
                    for (i, (p, q)) in x.iter().zip(y).enumerate() {
                        path.0.push(Seg::Index(i));
                        self.same(elem, p, q, path, depth + 1)?;
                        path.0.pop();
                    }
                    Ok(())
                }
                _ => differ(path),
            },
            Wire::Struct(id) => {
                let (Value::Object(x), Value::Object(y)) = (a, b) else {
                    return differ(path);
                };
                let Some(t) = self.layout.get(*id) else {
                    return Err("no layout".into());
                };
                let fields = self.schema.types[*id].fields();
                for k in x.keys().chain(y.keys()) {
                    if !fields.iter().any(|f| f.json_name == *k) {
                        return Err(format!("{path}: unknown field `{k}`"));
                    }
                }
                for f in &t.fields {
                    let name = fields[f.decl_index].json_name.as_str();
                    path.0.push(Seg::Field(name, fields.get(f.decl_index)));
                    let null = Value::Null;
                    self.same(
                        &f.wire,
                        x.get(name).unwrap_or(&null),
                        y.get(name).unwrap_or(&null),
                        path,
                        depth + 1,
                    )?;
                    path.0.pop();
                }
                Ok(())
            }
            Wire::Prim(Primitive::F32) => {
                match (float(a, |s| s.parse::<f32>().ok()), float(b, |s| s.parse::<f32>().ok())) {
                    (Some(x), Some(y)) if x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()) => Ok(()),
                    _ => differ(path),
                }
            }
            Wire::Prim(Primitive::F64) => {
                match (float(a, |s| s.parse::<f64>().ok()), float(b, |s| s.parse::<f64>().ok())) {
                    (Some(x), Some(y)) if x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()) => Ok(()),
                    _ => differ(path),
                }
            }
            Wire::Prim(_) => {
                let num = |v: &Value| match v {
                    Value::Number(n) => n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from)),
                    _ => None,
                };
                match (a, b) {
                    (Value::Number(_), Value::Number(_)) if num(a).is_some() && num(a) == num(b) => Ok(()),
                    (Value::Number(_), _) | (_, Value::Number(_)) => differ(path),
                    _ if a == b => Ok(()),
                    _ => differ(path),
                }
            }
        }
    }

    // ------------------------------------------------------------------ encode

    /// Encodes one JSON value of type `root`.
    pub fn encode(&self, root: TypeId, value: &Value, mode: Mode) -> Result<Vec<u8>, CodecError> {
        let mut out = Vec::new();
        self.encode_into(root, value, mode, &mut out)?;
        Ok(out)
    }

    /// Appends the encoding of `value` to `out` (back-to-back records).
    pub fn encode_into(&self, root: TypeId, value: &Value, mode: Mode, out: &mut Vec<u8>) -> Result<(), CodecError> {
        self.check_mode(mode)?;
        let start = out.len();
        let header_at = out.len();
        if mode == Mode::Message {
            out.extend_from_slice(SDP_MAGIC);
            out.push(SDP_VERSION);
            out.extend_from_slice(&self.message_id(root)?.to_le_bytes());
            out.extend_from_slice(&[0; 4]);
        }
        let plan = self.root_value(root, 0)?;
        let mut enc = Encoder {
            codec: self,
            out,
            path: Path::default(),
            base: start,
        };
        enc.value(&plan, value, 0)?;
        if mode == Mode::Message {
            let len = out.len() - header_at - SDP_HEADER_LEN;
            let len = u32::try_from(len).map_err(|_| CodecError {
                path: String::new(),
                offset: 0,
                message: "payload longer than 4 GiB".into(),
            })?;
            out[header_at + 6..header_at + 10].copy_from_slice(&len.to_le_bytes());
        }
        Ok(())
    }

    // ------------------------------------------------------------------ decode

    /// Decodes exactly one value of type `root`; trailing bytes are an error.
    pub fn decode(&self, root: TypeId, bytes: &[u8], mode: Mode) -> Result<Value, CodecError> {
        let (value, used) = self.decode_prefix(root, bytes, mode)?;
        if used != bytes.len() {
            return Err(CodecError {
                path: String::new(),
                offset: used,
                message: format!(
                    "{} trailing byte(s) after the value (use --all for back-to-back records)",
                    bytes.len() - used
                ),
            });
        }
        Ok(value)
    }

    /// Decodes one value from the start of `bytes`; returns it and the bytes used.
    pub fn decode_prefix(&self, root: TypeId, bytes: &[u8], mode: Mode) -> Result<(Value, usize), CodecError> {
        self.decode_at(root, bytes, 0, mode, None)
    }

    /// Decodes back-to-back records until the input ends.
    pub fn decode_all(&self, root: TypeId, bytes: &[u8], mode: Mode) -> Result<Vec<Value>, CodecError> {
        let mut values = Vec::new();
        self.decode_each(root, bytes, mode, |v| {
            values.push(v);
            Ok::<(), CodecError>(())
        })?;
        Ok(values)
    }

    /// Decodes back-to-back records until the input ends, handing each to `each` as it
    /// is decoded, so a caller can stream them instead of holding them all in memory.
    pub fn decode_each<E: From<CodecError>>(
        &self,
        root: TypeId,
        bytes: &[u8],
        mode: Mode,
        mut each: impl FnMut(Value) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut at = 0;
        while at < bytes.len() {
            let (v, used) = self.decode_at(root, bytes, at, mode, None)?;
            if used == at {
                // A type whose records take no bytes would repeat forever.
                return Err(CodecError {
                    path: String::new(),
                    offset: at,
                    message: "a record of this type takes no bytes, so records cannot be told apart".into(),
                }
                .into());
            }
            each(v)?;
            at = used;
        }
        Ok(())
    }

    /// An annotated hex dump: every field path with its offset, bytes and value. On
    /// malformed input, the dump up to the problem and the error.
    pub fn annotate(&self, root: TypeId, bytes: &[u8], mode: Mode, all: bool) -> (String, Option<CodecError>) {
        let mut dump = String::new();
        let error = self.annotate_each(root, bytes, mode, all, |piece| {
            dump.push_str(piece);
            Ok::<(), std::convert::Infallible>(())
        });
        match error {
            Ok(error) => (dump, error),
            Err(never) => match never {},
        }
    }

    /// [`Codec::annotate`], handing the dump to `out` a piece at a time (the heading,
    /// then each record's lines), so that memory holds one record's notes, not the
    /// whole input's (`decode --all --annotate` of 1 MB of records took 1.16 GB).
    /// Returns the error of malformed input, after the dump up to it.
    pub fn annotate_each<E>(
        &self,
        root: TypeId,
        bytes: &[u8],
        mode: Mode,
        all: bool,
        out: impl FnMut(&str) -> Result<(), E>,
    ) -> Result<Option<CodecError>, E> {
        self.annotate_walk(root, bytes, mode, all, Some(out))
    }

    /// The error [`Codec::annotate`] would report, found without building the dump
    /// (a first pass before printing it).
    pub fn annotate_error(&self, root: TypeId, bytes: &[u8], mode: Mode, all: bool) -> Option<CodecError> {
        type Sink = fn(&str) -> Result<(), std::convert::Infallible>;
        match self.annotate_walk(root, bytes, mode, all, None::<Sink>) {
            Ok(error) => error,
            Err(never) => match never {},
        }
    }

    /// The walk of [`Codec::annotate_each`]; without `out`, no notes are taken.
    fn annotate_walk<E>(
        &self,
        root: TypeId,
        bytes: &[u8],
        mode: Mode,
        all: bool,
        mut out: Option<impl FnMut(&str) -> Result<(), E>>,
    ) -> Result<Option<CodecError>, E> {
        if let Some(out) = out.as_mut() {
            out(&render_heading())?;
        }
        let mut notes = Notes::plain();
        let mut at = 0;
        let mut error = None;
        let mut record = 0;
        loop {
            notes.list.clear();
            if all {
                notes.list.push(Note {
                    offset: at,
                    len: 0,
                    depth: 0,
                    label: format!("record {record}"),
                    value: String::new(),
                    kind: NoteKind::Record,
                    path: Vec::new(),
                    ty: String::new(),
                    json: None,
                    end: None,
                });
            }
            let result = match out.as_mut() {
                Some(out) => {
                    let result = self.decode_at(root, bytes, at, mode, Some(&mut notes));
                    out(&render_notes(bytes, &notes.list))?;
                    result
                }
                None => self.decode_at(root, bytes, at, mode, None),
            };
            match result {
                Ok((_, used)) if all && used == at && at < bytes.len() => {
                    // A type whose records take no bytes would repeat forever.
                    error = Some(CodecError {
                        path: String::new(),
                        offset: at,
                        message: "a record of this type takes no bytes, so records cannot be told apart".into(),
                    });
                    break;
                }
                Ok((_, used)) => at = used,
                Err(e) => {
                    error = Some(e);
                    break;
                }
            }
            record += 1;
            if !all || at >= bytes.len() {
                break;
            }
        }
        if error.is_none() && at != bytes.len() {
            error = Some(CodecError {
                path: String::new(),
                offset: at,
                message: format!(
                    "{} trailing byte(s) after the value (use --all for back-to-back records)",
                    bytes.len() - at
                ),
            });
        }
        Ok(error)
    }

    /// The annotated decode as a tree of values with their byte ranges (the inspector's
    /// view; `decode --annotate` prints the same walk as text). Only values overlapping
    /// `window` are kept (with their ancestors), at most `max_nodes` notes; `truncated`
    /// says when the cap cut the tree. Malformed input gives the tree decoded up to the
    /// problem and the error; trailing bytes after the value are an error too.
    pub fn decode_tree(
        &self,
        root: TypeId,
        bytes: &[u8],
        mode: Mode,
        window: std::ops::Range<usize>,
        max_nodes: usize,
    ) -> DecodedTree {
        let mut notes = Notes {
            list: Vec::new(),
            rich: true,
            window,
            max: max_nodes,
            truncated: false,
        };
        let (used, error) = match self.decode_at(root, bytes, 0, mode, Some(&mut notes)) {
            Ok((_, used)) if used != bytes.len() => (
                used,
                Some(CodecError {
                    path: String::new(),
                    offset: used,
                    message: format!("{} trailing byte(s) after the value", bytes.len() - used),
                }),
            ),
            Ok((_, used)) => (used, None),
            Err(e) => (e.offset, Some(e)),
        };
        let name = self.schema.types.get(root).map_or("?", |t| t.name.as_str());
        DecodedTree {
            root: build_tree(name, &notes.list, used),
            error,
            truncated: notes.truncated,
        }
    }

    fn decode_at(
        &self,
        root: TypeId,
        bytes: &[u8],
        start: usize,
        mode: Mode,
        notes: Option<&mut Notes<'s>>,
    ) -> Result<(Value, usize), CodecError> {
        self.check_mode(mode)?;
        let plan = self.root_value(root, start)?;
        let mut dec = Decoder {
            codec: self,
            bytes,
            at: start,
            end: bytes.len(),
            path: Path::default(),
            notes,
        };
        if mode == Mode::Message {
            dec.header(self.message_id(root)?)?;
        }
        let payload_start = dec.at;
        let root_name = self.schema.types[root].name.clone();
        let open = dec.note_open(0, &root_name, &plan);
        let value = dec.value(&plan, 0)?;
        dec.note_close(open);
        if mode == Mode::Message && dec.at != dec.end {
            return Err(dec.err(format!(
                "the message header announces {} payload bytes but the value used {}",
                dec.end - payload_start,
                dec.at - payload_start
            )));
        }
        Ok((value, dec.at))
    }
}

// ====================================================================== encoder

struct Encoder<'c, 's, 'o> {
    codec: &'c Codec<'s>,
    out: &'o mut Vec<u8>,
    path: Path<'s>,
    base: usize,
}

impl<'s> Encoder<'_, 's, '_> {
    fn err(&self, message: String) -> CodecError {
        CodecError {
            path: self.path.to_string(),
            offset: self.out.len() - self.base,
            message,
        }
    }

    fn value(&mut self, plan: &plan::Value, v: &Value, depth: usize) -> Result<(), CodecError> {
        if depth > MAX_DEPTH {
            return Err(self.err(format!("value nested deeper than {MAX_DEPTH} levels")));
        }
        match plan {
            plan::Value::Prim(p) => self.prim(*p, v),
            plan::Value::Str(prefix) => match v {
                Value::String(s) => {
                    self.length(*prefix, s.len(), "string is", "bytes long")?;
                    self.out.extend_from_slice(s.as_bytes());
                    Ok(())
                }
                _ => Err(self.err(format!("expected a string, found {}", kind(v)))),
            },
            plan::Value::Optional(inner) => {
                if v.is_null() {
                    self.out.push(0);
                    Ok(())
                } else {
                    self.out.push(1);
                    self.value(inner, v, depth)
                }
            }
            plan::Value::BulkPrims(prefix, p) => {
                let Value::Array(items) = v else {
                    return Err(self.err(format!("expected an array, found {}", kind(v))));
                };
                self.length(*prefix, items.len(), "array has", "elements")?;
                for (i, item) in items.iter().enumerate() {
                    self.path.0.push(Seg::Index(i));
                    self.prim(*p, item)?;
                    self.path.0.pop();
                }
                Ok(())
            }
            plan::Value::Array { prefix, elem, .. } => {
                let Value::Array(items) = v else {
                    return Err(self.err(format!("expected an array, found {}", kind(v))));
                };
                self.length(*prefix, items.len(), "array has", "elements")?;
                for (i, item) in items.iter().enumerate() {
                    self.path.0.push(Seg::Index(i));
                    self.value(elem, item, depth + 1)?;
                    self.path.0.pop();
                }
                Ok(())
            }
            plan::Value::Struct { id, .. } => self.strukt(*id, v, depth),
        }
    }

    /// The JSON object `v` for struct `id`, refusing keys that are not its fields.
    fn object<'v>(&self, id: TypeId, v: &'v Value) -> Result<&'v Map<String, Value>, CodecError> {
        let def = &self.codec.schema.types[id];
        let Value::Object(map) = v else {
            return Err(self.err(format!("expected an object for `{}`, found {}", def.name, kind(v))));
        };
        let fields = def.fields();
        // A search per key is quadratic in a wide struct (`encode` of one record of
        // 80,000 fields took 26 s): past a few fields, a set of the names.
        let wide: Option<std::collections::HashSet<&str>> =
            (fields.len() > 16).then(|| fields.iter().map(|f| f.json_name.as_str()).collect());
        let known = |key: &str| match &wide {
            Some(names) => names.contains(key),
            None => fields.iter().any(|f| f.json_name == key),
        };
        for key in map.keys() {
            if !known(key) {
                let known: Vec<&str> = fields.iter().map(|f| f.json_name.as_str()).collect();
                return Err(self.err(format!(
                    "unknown field `{key}` in `{}` (fields: {})",
                    def.name,
                    known.join(", ")
                )));
            }
        }
        Ok(map)
    }

    /// Walks struct `id`'s plan: block leaves one by one, inlined structs by descending
    /// into their JSON objects.
    fn strukt(&mut self, id: TypeId, v: &Value, depth: usize) -> Result<(), CodecError> {
        let codec: &Codec<'s> = self.codec;
        // Fixed nested structs are block leaves that recurse here: the depth limit holds
        // for them too (a 2,000-struct chain must be an error, not 2,000 frames).
        if depth > MAX_DEPTH {
            return Err(self.err(format!("value nested deeper than {MAX_DEPTH} levels")));
        }
        let map = self.object(id, v)?;
        let Some(plan) = codec.plan.get(id) else {
            return Err(self.err("struct has no layout".into()));
        };
        let base = self.path.0.len();
        let missing = |e: &Self| Err(e.err("missing field (only optional fields may be left out)".into()));
        for step in &plan.steps {
            match step {
                Step::Block { block, .. } => {
                    for leaf in &block.leaves {
                        let Some(v) = self.field(id, base, map, &leaf.path)? else {
                            return missing(self);
                        };
                        match leaf.kind {
                            LeafKind::Prim(p) => self.prim(p, v)?,
                            LeafKind::Struct(s) => self.strukt(s, v, depth + leaf.path.len())?,
                        }
                    }
                }
                Step::Value { path, value } => match self.field(id, base, map, path)? {
                    Some(v) => self.value(value, v, depth + path.len())?,
                    None if matches!(value, plan::Value::Optional(_)) => self.out.push(0),
                    None => return missing(self),
                },
            }
        }
        self.path.0.truncate(base);
        Ok(())
    }

    /// Points the error path at `path` and returns its JSON value, if given. `path` may
    /// reach into inlined structs (a fixed block can take an inlined struct's leading
    /// fields before the plan's `Inline` step for it), so it is followed from the struct's
    /// own object, each inlined object checked on the way.
    fn field<'v>(
        &mut self,
        owner: TypeId,
        base: usize,
        root: &'v Map<String, Value>,
        path: &[usize],
    ) -> Result<Option<&'v Value>, CodecError> {
        let mut map = root;
        for k in 1..path.len() {
            self.path.0.truncate(base);
            let segs = self.codec.segments(owner, &path[..k]);
            self.path.0.extend(segs);
            let Some((container, f)) = self.codec.field_at(owner, &path[..k]) else {
                return Ok(None);
            };
            let Some(v) = map.get(&f.json_name) else {
                return Ok(None);
            };
            let inner = self
                .codec
                .layout
                .get(container)
                .and_then(|l| l.field_by_decl(path[k - 1]));
            let Some(Wire::Struct(inner_id)) = inner.map(|f| &f.wire) else {
                return Ok(None);
            };
            map = self.object(*inner_id, v)?;
        }
        self.path.0.truncate(base);
        let segs = self.codec.segments(owner, path);
        self.path.0.extend(segs);
        let Some((_, field)) = self.codec.field_at(owner, path) else {
            return Ok(None);
        };
        Ok(map.get(&field.json_name))
    }

    fn length(&mut self, prefix: Prefix, n: usize, what: &str, unit: &str) -> Result<(), CodecError> {
        match prefix {
            Prefix::U32 => {
                let n = u32::try_from(n)
                    .map_err(|_| self.err(format!("{what} {n} {unit}; SDP allows at most 4,294,967,295")))?;
                self.out.extend_from_slice(&n.to_le_bytes());
            }
            Prefix::U16 => {
                // Upstream silently truncates and corrupts the message; wirelens refuses.
                let n = u16::try_from(n)
                    .map_err(|_| self.err(format!("{what} {n} {unit}; ffire allows at most 65,535")))?;
                self.out.extend_from_slice(&n.to_le_bytes());
            }
        }
        Ok(())
    }

    fn prim(&mut self, p: Primitive, v: &Value) -> Result<(), CodecError> {
        let name = p.spelling(self.codec.schema.dialect).unwrap_or("?");
        match p {
            Primitive::Bool => match v {
                Value::Bool(b) => self.out.push(u8::from(*b)),
                _ => return Err(self.err(format!("expected a boolean for `bool`, found {}", kind(v)))),
            },
            Primitive::Str => return self.value(&plan::Value::Str(Prefix::of(self.codec.schema.dialect)), v, 0),
            Primitive::F32 => {
                let x = float(v, |s| s.parse::<f32>().ok())
                    .ok_or_else(|| self.err(format!("expected a number for `{name}`, found {}", kind(v))))?;
                self.out.extend_from_slice(&x.to_le_bytes());
            }
            Primitive::F64 => {
                let x = float(v, |s| s.parse::<f64>().ok())
                    .ok_or_else(|| self.err(format!("expected a number for `{name}`, found {}", kind(v))))?;
                self.out.extend_from_slice(&x.to_le_bytes());
            }
            _ => {
                let Value::Number(n) = v else {
                    return Err(self.err(format!("expected an integer for `{name}`, found {}", kind(v))));
                };
                let range = |lo: i128, hi: i128| -> Result<i128, CodecError> {
                    let x = n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from));
                    match x {
                        Some(x) if (lo..=hi).contains(&x) => Ok(x),
                        Some(x) => Err(self.err(format!("{x} is out of range for `{name}` ({lo}…{hi})"))),
                        None if is_integer_literal(&n.to_string()) => {
                            Err(self.err(format!("{n} is out of range for `{name}` ({lo}…{hi})")))
                        }
                        None => Err(self.err(format!("expected an integer for `{name}`, found {n}"))),
                    }
                };
                // Every integer is little-endian two's complement: the low `size` bytes of
                // the in-range i128 are its encoding, signed or not.
                let size = p.fixed_size().unwrap_or(0) as usize;
                let bits = 8 * size as u32;
                let (lo, hi) = if matches!(p, Primitive::I8 | Primitive::I16 | Primitive::I32 | Primitive::I64) {
                    (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
                } else {
                    (0, (1i128 << bits) - 1)
                };
                let x = range(lo, hi)?;
                self.out.extend_from_slice(&x.to_le_bytes()[..size]);
            }
        }
        Ok(())
    }
}

/// A JSON number (parsed from its exact decimal text, so f32 rounds once, correctly)
/// or one of the strings `"NaN"`, `"Infinity"`, `"-Infinity"`.
fn float<T: std::str::FromStr>(v: &Value, parse: impl Fn(&str) -> Option<T>) -> Option<T> {
    match v {
        Value::Number(n) => parse(&n.to_string()),
        Value::String(s) if matches!(s.as_str(), "NaN" | "Infinity" | "-Infinity") => {
            parse(&s.replace("Infinity", "inf"))
        }
        _ => None,
    }
}

fn is_integer_literal(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

// ====================================================================== tree

/// One decoded value of [`Codec::decode_tree`]: its path (as in error messages; a
/// count, presence byte or message header is a child whose path ends in `#count`,
/// `#presence`, `#header`), its name (the field's schema name, `[i]`, or the root
/// type's name), its type as written, its bytes `start..end`, its value (scalars), and
/// the source range of its field's declaration.
#[derive(Debug, Clone, PartialEq)]
pub struct TreeNode {
    pub path: String,
    pub name: String,
    pub ty: String,
    pub start: usize,
    pub end: usize,
    pub value: Option<Value>,
    pub field: Option<std::ops::Range<usize>>,
    pub children: Vec<TreeNode>,
}

/// The result of [`Codec::decode_tree`].
#[derive(Debug, Clone, PartialEq)]
pub struct DecodedTree {
    pub root: Option<TreeNode>,
    pub error: Option<CodecError>,
    /// The node cap cut the tree short.
    pub truncated: bool,
}

impl TreeNode {
    /// How many nodes this one and its descendants are.
    pub fn count(&self) -> usize {
        1 + self.children.iter().map(TreeNode::count).sum::<usize>()
    }
}

struct Growing {
    node: TreeNode,
    kids: Vec<usize>,
}

impl Growing {
    /// A node with no bytes yet (its notes widen the span) and no children.
    fn new(path: String, name: String, ty: String, field: Option<std::ops::Range<usize>>) -> Growing {
        Growing {
            node: TreeNode {
                path,
                name,
                ty,
                start: usize::MAX,
                end: 0,
                value: None,
                field,
                children: Vec::new(),
            },
            kids: Vec::new(),
        }
    }
}

/// Builds the tree from rich notes: each note lands on the node of its path (made with
/// its ancestors on first sight, children in the order first seen, which is wire
/// order); a node's bytes span its own notes and its children's.
fn build_tree(root_name: &str, notes: &[Note<'_>], used: usize) -> Option<TreeNode> {
    let mut arena = vec![Growing::new(
        String::new(),
        root_name.to_string(),
        root_name.to_string(),
        None,
    )];
    let mut index: std::collections::HashMap<String, usize> = Default::default();
    fn node_for(
        arena: &mut Vec<Growing>,
        index: &mut std::collections::HashMap<String, usize>,
        segs: &[Seg<'_>],
    ) -> usize {
        let Some((last, init)) = segs.split_last() else {
            return 0;
        };
        let key = Path(segs.to_vec()).to_string();
        if let Some(&i) = index.get(&key) {
            return i;
        }
        let parent = node_for(arena, index, init);
        let (name, field) = match last {
            Seg::Field(json, f) => (
                f.map_or_else(|| json.to_string(), |f| f.name.clone()),
                f.map(|f| f.range.clone()),
            ),
            Seg::Index(i) => (format!("[{i}]"), None),
        };
        arena.push(Growing::new(key.clone(), name, String::new(), field));
        let i = arena.len() - 1;
        arena[parent].kids.push(i);
        index.insert(key, i);
        i
    }
    let touch = |n: &mut TreeNode, start: usize, end: usize| {
        n.start = n.start.min(start);
        n.end = n.end.max(end);
    };
    for note in notes {
        match note.kind {
            NoteKind::Record => {}
            NoteKind::Open => {
                let i = node_for(&mut arena, &mut index, &note.path);
                let n = &mut arena[i].node;
                if !note.ty.is_empty() {
                    n.ty = note.ty.clone();
                }
                touch(n, note.offset, note.end.unwrap_or(note.offset));
            }
            NoteKind::Value => {
                let i = node_for(&mut arena, &mut index, &note.path);
                let n = &mut arena[i].node;
                if n.ty.is_empty() {
                    n.ty = note.ty.clone();
                }
                n.value = note.json.clone();
                touch(n, note.offset, note.offset + note.len);
            }
            NoteKind::Aux(what) => {
                let parent = node_for(&mut arena, &mut index, &note.path);
                let path = format!("{}#{what}", arena[parent].node.path);
                let i = match index.get(&path) {
                    Some(&i) => i,
                    None => {
                        arena.push(Growing::new(path.clone(), format!("({what})"), note.ty.clone(), None));
                        let i = arena.len() - 1;
                        arena[parent].kids.push(i);
                        index.insert(path, i);
                        i
                    }
                };
                let n = &mut arena[i].node;
                n.value = note.json.clone();
                touch(n, note.offset, note.offset + note.len);
            }
        }
    }
    // Children were made after their parents: one backward pass spans every parent
    // over its children, then the nodes move into place, last first.
    for i in (0..arena.len()).rev() {
        let kids = std::mem::take(&mut arena[i].kids);
        for &k in &kids {
            let (s, e) = (arena[k].node.start, arena[k].node.end);
            touch(&mut arena[i].node, s, e);
        }
        arena[i].kids = kids;
    }
    if arena[0].node.start == usize::MAX {
        // Nothing noted (an empty window): the root alone, over the bytes decoded.
        arena[0].node.start = 0;
        arena[0].node.end = used;
    }
    let mut slots: Vec<Option<TreeNode>> = Vec::with_capacity(arena.len());
    let mut kids_of: Vec<Vec<usize>> = Vec::with_capacity(arena.len());
    for g in arena {
        slots.push(Some(g.node));
        kids_of.push(g.kids);
    }
    for i in (0..slots.len()).rev() {
        let children: Vec<TreeNode> = kids_of[i].iter().filter_map(|&k| slots[k].take()).collect();
        if let Some(n) = slots[i].as_mut() {
            n.children = children;
        }
    }
    slots.first_mut().and_then(Option::take)
}

// ====================================================================== decoder

/// One line of an annotated dump, and (when [`Notes::rich`]) one event of the tree
/// [`Codec::decode_tree`] builds: the same walk serves both.
struct Note<'s> {
    offset: usize,
    len: usize,
    depth: usize,
    label: String,
    value: String,
    kind: NoteKind,
    /// Rich notes only: the value path, the type as written, the value as JSON (scalars).
    path: Vec<Seg<'s>>,
    ty: String,
    json: Option<Value>,
    /// Rich notes only, for `Open`: where the value ended (unset if decoding failed in it).
    end: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NoteKind {
    /// A composite value starts (struct, array, optional field): its bytes follow.
    Open,
    /// A scalar and its bytes.
    Value,
    /// Bytes that are no value of their own: a count or length prefix, a presence
    /// byte, the message header.
    Aux(&'static str),
    /// `--all`: a record starts.
    Record,
}

/// The notes of one record. Rich notes (the inspector's tree) carry paths, types and
/// JSON values, and only those overlapping `window` are kept, at most `max`.
struct Notes<'s> {
    list: Vec<Note<'s>>,
    rich: bool,
    window: std::ops::Range<usize>,
    max: usize,
    truncated: bool,
}

impl<'s> Notes<'s> {
    fn plain() -> Notes<'s> {
        Notes {
            list: Vec::new(),
            rich: false,
            window: 0..usize::MAX,
            max: usize::MAX,
            truncated: false,
        }
    }
}

struct Decoder<'c, 's, 'b, 'n> {
    codec: &'c Codec<'s>,
    bytes: &'b [u8],
    at: usize,
    /// End of the readable region (the announced payload end in message mode).
    end: usize,
    path: Path<'s>,
    notes: Option<&'n mut Notes<'s>>,
}

impl<'s> Decoder<'_, 's, '_, '_> {
    fn err(&self, message: String) -> CodecError {
        CodecError {
            path: self.path.to_string(),
            offset: self.at,
            message,
        }
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&[u8], CodecError> {
        let left = self.end - self.at;
        if n > left {
            let message = format!(
                "{what} needs {n} byte(s) but only {left} are left at offset {}{}",
                self.at,
                self.payload_hint()
            );
            return Err(self.err(message));
        }
        let s = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(s)
    }

    /// When a message header limits the readable region, say so in bounds errors.
    fn payload_hint(&self) -> String {
        if self.end < self.bytes.len() {
            format!(
                " (the message header announces a payload ending at offset {})",
                self.end
            )
        } else {
            String::new()
        }
    }

    /// Notes the bytes from `offset` to here. `rich` gives the type and JSON value for
    /// the inspector's tree (called only for rich notes). Returns the note's index.
    fn note(
        &mut self,
        offset: usize,
        depth: usize,
        label: String,
        value: String,
        kind: NoteKind,
        rich: impl FnOnce(&Self) -> (String, Option<Value>),
    ) -> Option<usize> {
        let len = self.at - offset;
        let is_rich = self.notes.as_ref()?.rich;
        let (path, ty, json) = if is_rich {
            let notes = self.notes.as_deref_mut()?;
            let window = &notes.window;
            let inside = if kind == NoteKind::Open {
                offset < window.end
            } else if len == 0 {
                window.contains(&offset)
            } else {
                offset < window.end && offset + len > window.start
            };
            if !inside {
                return None;
            }
            if notes.list.len() >= notes.max {
                notes.truncated = true;
                return None;
            }
            let (ty, json) = rich(self);
            (self.path.0.clone(), ty, json)
        } else {
            (Vec::new(), String::new(), None)
        };
        let notes = self.notes.as_deref_mut()?;
        notes.list.push(Note {
            offset,
            len,
            depth,
            label,
            value,
            kind,
            path,
            ty,
            json,
            end: None,
        });
        Some(notes.list.len() - 1)
    }

    fn note_open(&mut self, depth: usize, label: &str, value: &plan::Value) -> Option<usize> {
        if self.notes.is_some() {
            let desc = self.describe(value);
            let desc = if desc == label { String::new() } else { desc };
            let at = self.at;
            let ty = desc.clone();
            return self.note(at, depth, label.to_string(), desc, NoteKind::Open, |_| (ty, None));
        }
        None
    }

    /// The value opened by note `open` ended here. A rich note of a value wholly
    /// outside the window, with nothing noted inside it, is dropped.
    fn note_close(&mut self, open: Option<usize>) {
        let at = self.at;
        let Some(notes) = self.notes.as_deref_mut().filter(|n| n.rich) else {
            return;
        };
        let Some(i) = open else { return };
        let outside =
            |n: &Note| !(n.offset < notes.window.end && (at > notes.window.start || n.offset >= notes.window.start));
        if i + 1 == notes.list.len() && notes.list.get(i).is_some_and(outside) {
            notes.list.pop();
        } else if let Some(n) = notes.list.get_mut(i) {
            n.end = Some(at);
        }
    }

    fn describe(&self, value: &plan::Value) -> String {
        let spell = |p: &Primitive| p.spelling(self.codec.schema.dialect).unwrap_or("?").to_string();
        match value {
            plan::Value::Struct { id, .. } => self.codec.schema.types[*id].name.clone(),
            plan::Value::Array { elem, .. } => format!("[]{}", self.describe(elem)),
            plan::Value::BulkPrims(_, p) => format!("[]{}", spell(p)),
            plan::Value::Optional(e) => format!("optional {}", self.describe(e)),
            plan::Value::Prim(p) => spell(p),
            plan::Value::Str(_) => spell(&Primitive::Str),
        }
    }

    fn header(&mut self, expected_id: u16) -> Result<(), CodecError> {
        let start = self.at;
        let magic = self.take(3, "the message header")?;
        if magic != SDP_MAGIC {
            return Err(CodecError {
                path: String::new(),
                offset: start,
                message: format!("bad message magic {magic:02x?}; expected \"SDP\" (53 44 50)"),
            });
        }
        let version = self.take(1, "the message header")?[0];
        if version != SDP_VERSION {
            return Err(CodecError {
                path: String::new(),
                offset: start + 3,
                message: format!("unsupported message version 0x{version:02x}; expected '2' (0x32)"),
            });
        }
        let id = u16::from_le_bytes(self.fixed::<2>("the message type id")?);
        if id != expected_id {
            return Err(CodecError {
                path: String::new(),
                offset: start + 4,
                message: format!("message type id {id}; expected {expected_id}"),
            });
        }
        let len = u32::from_le_bytes(self.fixed::<4>("the message length")?) as usize;
        let left = self.end - self.at;
        if len > left {
            return Err(CodecError {
                path: String::new(),
                offset: start + 6,
                message: format!(
                    "message length {len} exceeds the {left} bytes left at offset {}",
                    self.at
                ),
            });
        }
        self.note(
            start,
            0,
            "message header".into(),
            format!("SDP2 · type id {id} · payload {len} B"),
            NoteKind::Aux("header"),
            |_| {
                (
                    "SDP message header".into(),
                    Some(serde_json::json!({ "typeId": id, "payload": len })),
                )
            },
        );
        self.end = self.at + len;
        Ok(())
    }

    fn fixed<const N: usize>(&mut self, what: &str) -> Result<[u8; N], CodecError> {
        let s = self.take(N, what)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    /// A length or count prefix; `min_each` bytes per unit must still be available.
    fn length(&mut self, prefix: Prefix, what: &str, min_each: u64) -> Result<usize, CodecError> {
        let start = self.at;
        let n: u64 = match prefix {
            Prefix::U32 => u32::from_le_bytes(self.fixed::<4>(what)?).into(),
            Prefix::U16 => u16::from_le_bytes(self.fixed::<2>(what)?).into(),
        };
        let left = (self.end - self.at) as u64;
        if n.saturating_mul(min_each.max(1)) > left {
            self.at = start;
            let need = if min_each > 1 {
                format!(" × {min_each} bytes")
            } else {
                String::new()
            };
            let hint = self.payload_hint();
            return Err(self.err(format!(
                "{what} {n}{need} exceeds the {left} bytes left at offset {start}{hint}"
            )));
        }
        Ok(n as usize)
    }

    fn value(&mut self, plan: &plan::Value, depth: usize) -> Result<Value, CodecError> {
        if depth > MAX_DEPTH {
            return Err(self.err(format!("value nested deeper than {MAX_DEPTH} levels")));
        }
        match plan {
            plan::Value::Prim(p) => self.prim(*p, depth),
            plan::Value::Str(prefix) => self.string(*prefix, depth),
            plan::Value::Optional(inner) => {
                let start = self.at;
                let flag = self.take(1, "a presence byte")?[0];
                match flag {
                    0 => {
                        let presence = |_: &Self| ("presence byte".to_string(), Some(Value::Bool(false)));
                        self.note(
                            start,
                            depth,
                            String::new(),
                            "absent".into(),
                            NoteKind::Aux("presence"),
                            presence,
                        );
                        Ok(Value::Null)
                    }
                    1 => {
                        let presence = |_: &Self| ("presence byte".to_string(), Some(Value::Bool(true)));
                        self.note(
                            start,
                            depth,
                            String::new(),
                            "present".into(),
                            NoteKind::Aux("presence"),
                            presence,
                        );
                        self.value(inner, depth)
                    }
                    b => {
                        self.at = start;
                        Err(self.err(format!("presence byte 0x{b:02x} at offset {start}; expected 00 or 01")))
                    }
                }
            }
            plan::Value::BulkPrims(prefix, p) => {
                let start = self.at;
                let n = self.length(*prefix, "array count", p.fixed_size().unwrap_or(1))?;
                self.note_count(start, depth, *prefix, n);
                let mut items = Vec::with_capacity(n);
                for i in 0..n {
                    self.path.0.push(Seg::Index(i));
                    items.push(self.prim(*p, depth + 1)?);
                    self.path.0.pop();
                }
                Ok(Value::Array(items))
            }
            plan::Value::Array { prefix, elem, elem_min } => {
                let start = self.at;
                let n = self.length(*prefix, "array count", *elem_min)?;
                self.note_count(start, depth, *prefix, n);
                let mut items = Vec::with_capacity(n);
                for i in 0..n {
                    self.path.0.push(Seg::Index(i));
                    let mut open = None;
                    if self.notes.is_some()
                        && matches!(
                            **elem,
                            plan::Value::Struct { .. } | plan::Value::Array { .. } | plan::Value::BulkPrims(..)
                        )
                    {
                        let label = format!("[{i}]");
                        open = self.note_open(depth + 1, &label, elem);
                    }
                    items.push(self.value(elem, depth + 1)?);
                    self.note_close(open);
                    self.path.0.pop();
                }
                Ok(Value::Array(items))
            }
            plan::Value::Struct { id, .. } => self.strukt(*id, depth),
        }
    }

    /// Walks struct `id`'s plan; block leaves are read one by one, so errors name the
    /// exact field. The JSON object lists fields as written, whatever the wire order.
    fn strukt(&mut self, id: TypeId, depth: usize) -> Result<Value, CodecError> {
        let codec: &Codec<'s> = self.codec;
        // Fixed nested structs are block leaves that recurse here: the depth limit holds
        // for them too (a 2,000-struct chain must be an error, not 2,000 frames).
        if depth > MAX_DEPTH {
            return Err(self.err(format!("value nested deeper than {MAX_DEPTH} levels")));
        }
        let Some(plan) = codec.plan.get(id) else {
            return Err(self.err("struct has no layout".into()));
        };
        let base = self.path.0.len();
        let mut entries: Vec<(&[usize], Value)> = Vec::new();
        for step in &plan.steps {
            match step {
                Step::Block { block, .. } => {
                    for leaf in &block.leaves {
                        let label = self.enter(id, base, &leaf.path);
                        let d = depth + leaf.path.len();
                        let v = match leaf.kind {
                            LeafKind::Prim(p) => self.scalar(&label, d, |dec| dec.prim(p, d))?,
                            LeafKind::Struct(s) => {
                                let size = codec
                                    .layout
                                    .get(s)
                                    .map_or(crate::layout::SizeInfo::fixed(0), |t| t.size);
                                let open = self.note_open(d, &label, &plan::Value::Struct { id: s, size });
                                let v = self.strukt(s, d)?;
                                self.note_close(open);
                                v
                            }
                        };
                        entries.push((&leaf.path, v));
                    }
                }
                Step::Value { path, value } => {
                    let label = self.enter(id, base, path);
                    let d = depth + path.len();
                    let v = match value {
                        plan::Value::Prim(_) | plan::Value::Str(_) => {
                            self.scalar(&label, d, |dec| dec.value(value, d))?
                        }
                        _ => {
                            let open = self.note_open(d, &label, value);
                            let v = self.value(value, d)?;
                            self.note_close(open);
                            v
                        }
                    };
                    entries.push((path, v));
                }
            }
        }
        self.path.0.truncate(base);
        Ok(Value::Object(codec.assemble(id, entries)))
    }

    /// Points the error path at `path`; returns the field's schema name.
    fn enter(&mut self, owner: TypeId, base: usize, path: &[usize]) -> String {
        self.path.0.truncate(base);
        let segs = self.codec.segments(owner, path);
        self.path.0.extend(segs);
        self.codec
            .field_at(owner, path)
            .map_or_else(|| "?".to_string(), |(_, f)| f.name.clone())
    }

    /// Reads a scalar; its note gets the field's name on its own line.
    fn scalar(
        &mut self,
        label: &str,
        _depth: usize,
        read: impl FnOnce(&mut Self) -> Result<Value, CodecError>,
    ) -> Result<Value, CodecError> {
        let start = self.at;
        let before = self.notes.as_ref().map_or(0, |n| n.list.len());
        let v = read(self)?;
        if let Some(notes) = self.notes.as_deref_mut() {
            if notes.list.len() == before + 1 {
                if let Some(n) = notes.list.last_mut() {
                    n.label = label.to_string();
                    n.offset = start;
                }
            }
        }
        Ok(v)
    }

    fn string(&mut self, prefix: Prefix, depth: usize) -> Result<Value, CodecError> {
        let start = self.at;
        let n = self.length(prefix, "string length", 1)?;
        let s = self.take(n, "a string")?;
        let v = match std::str::from_utf8(s) {
            Ok(s) => Value::String(s.to_string()),
            Err(e) => {
                self.at = start;
                return Err(self.err(format!(
                    "string is not valid UTF-8 (at byte {} of the string)",
                    e.valid_up_to()
                )));
            }
        };
        if self.notes.is_some() {
            let shown = match &v {
                Value::String(s) => preview(s),
                other => other.to_string(),
            };
            self.note(start, depth, String::new(), shown, NoteKind::Value, |dec| {
                (dec.spell(Primitive::Str), Some(clip(&v)))
            });
        }
        Ok(v)
    }

    fn prim(&mut self, p: Primitive, depth: usize) -> Result<Value, CodecError> {
        let start = self.at;
        let name = p.spelling(self.codec.schema.dialect).unwrap_or("?");
        let v = match p {
            Primitive::Bool => match self.take(1, "a bool")?[0] {
                0 => Value::Bool(false),
                1 => Value::Bool(true),
                b => {
                    self.at = start;
                    return Err(self.err(format!("bool byte 0x{b:02x} at offset {start}; expected 00 or 01")));
                }
            },
            Primitive::Str => return self.string(Prefix::of(self.codec.schema.dialect), depth),
            Primitive::U8 => Value::from(self.fixed::<1>(name)?[0]),
            Primitive::I8 => Value::from(i8::from_le_bytes(self.fixed::<1>(name)?)),
            Primitive::U16 => Value::from(u16::from_le_bytes(self.fixed::<2>(name)?)),
            Primitive::I16 => Value::from(i16::from_le_bytes(self.fixed::<2>(name)?)),
            Primitive::U32 => Value::from(u32::from_le_bytes(self.fixed::<4>(name)?)),
            Primitive::I32 => Value::from(i32::from_le_bytes(self.fixed::<4>(name)?)),
            Primitive::U64 => Value::from(u64::from_le_bytes(self.fixed::<8>(name)?)),
            Primitive::I64 => Value::from(i64::from_le_bytes(self.fixed::<8>(name)?)),
            Primitive::F32 => float_value(f32::from_le_bytes(self.fixed::<4>(name)?)),
            Primitive::F64 => float_value(f64::from_le_bytes(self.fixed::<8>(name)?)),
        };
        if self.notes.is_some() {
            let shown = match &v {
                Value::String(s) => preview(s),
                other => other.to_string(),
            };
            self.note(start, depth, String::new(), shown, NoteKind::Value, |dec| {
                (dec.spell(p), Some(v.clone()))
            });
        }
        Ok(v)
    }

    fn spell(&self, p: Primitive) -> String {
        p.spelling(self.codec.schema.dialect).unwrap_or("?").to_string()
    }

    fn note_count(&mut self, start: usize, depth: usize, prefix: Prefix, n: usize) {
        let ty = match prefix {
            Prefix::U32 => "u32 count",
            Prefix::U16 => "u16 count",
        };
        self.note(
            start,
            depth,
            String::new(),
            format!("count {n}"),
            NoteKind::Aux("count"),
            |_| (ty.to_string(), Some(Value::from(n))),
        );
    }
}

/// Longest string value a rich note carries, in characters (the rest is cut, `…` added).
const MAX_STRING_VALUE: usize = 1024;

/// `v`, with a long string cut to [`MAX_STRING_VALUE`] characters.
fn clip(v: &Value) -> Value {
    match v {
        Value::String(s) if s.len() > MAX_STRING_VALUE => {
            let mut cut: String = s.chars().take(MAX_STRING_VALUE).collect();
            if cut.len() < s.len() {
                cut.push('…');
            }
            Value::String(cut)
        }
        other => other.clone(),
    }
}

/// A float as JSON: the shortest decimal that reads back to the same value (`-0.0`
/// keeps its sign; NaN and infinities, which JSON lacks, become strings).
fn float_value<T: std::fmt::Display + Into<f64> + Copy>(x: T) -> Value {
    let f: f64 = x.into();
    if f.is_nan() {
        return Value::String("NaN".into());
    }
    if f.is_infinite() {
        return Value::String(if f > 0.0 { "Infinity" } else { "-Infinity" }.into());
    }
    let mut text = x.to_string();
    if !text.contains(['.', 'e', 'E']) {
        text.push_str(".0");
    }
    serde_json::from_str::<Number>(&text)
        .map(Value::Number)
        .unwrap_or(Value::Null)
}

fn preview(s: &str) -> String {
    const MAX: usize = 48;
    let shown: String = s.chars().take(MAX).collect();
    let mut q = serde_json::to_string(&shown).unwrap_or_default();
    if shown.len() < s.len() {
        q.insert(q.len() - 1, '…');
    }
    q
}

/// The first line of an annotated dump.
fn render_heading() -> String {
    format!("{:<8}  {:<36}  field = value\n", "offset", "bytes")
}

/// The lines of an annotated dump for `notes`.
fn render_notes(bytes: &[u8], notes: &[Note<'_>]) -> String {
    const PER_LINE: usize = 12;
    let mut out = String::new();
    for n in notes {
        let chunk = &bytes[n.offset.min(bytes.len())..(n.offset + n.len).min(bytes.len())];
        let mut hex: Vec<String> = chunk
            .chunks(PER_LINE)
            .map(|c| c.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(" "))
            .collect();
        if hex.len() > 4 {
            let more = chunk.len() - 3 * PER_LINE;
            hex.truncate(3);
            hex.push(format!("… {more} more bytes"));
        }
        let indent = "  ".repeat(n.depth);
        let what = match (n.label.is_empty(), n.value.is_empty()) {
            (false, false) if n.len == 0 => format!("{indent}{}: {}", n.label, n.value),
            (false, false) => format!("{indent}{} = {}", n.label, n.value),
            (false, true) => format!("{indent}{}", n.label),
            (true, _) => format!("{indent}  ({})", n.value),
        };
        let first = hex.first().cloned().unwrap_or_default();
        let _ = writeln!(out, "{:08x}  {:<36}  {}", n.offset, first, what);
        for h in hex.iter().skip(1) {
            let _ = writeln!(out, "{:8}  {h}", "");
        }
    }
    out
}
