//! The `rust` engine: the code the Rust emitter generates, compiled with cargo. Per
//! (schema, field order) it builds one small program: the generated module, plus a
//! driver with serde-free JSON ↔ generated-struct conversion (also generated here, from
//! the same layout), that encodes JSON from stdin or decodes bytes from stdin.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;

use serde_json::Value;
use wirelens_core::codec::Mode;
use wirelens_core::layout::{Layout, Wire};
use wirelens_core::model::{Primitive, Schema, TypeKind};
use wirelens_core::{analyze, Dialect, OrderChoice};
use wirelens_generators::rust::{generate, type_name};

use crate::{lock, Case, Engine};

pub struct RustEngine {
    root: PathBuf,
    built: Mutex<HashMap<(PathBuf, String), Result<PathBuf, String>>>,
}

impl RustEngine {
    pub fn new() -> RustEngine {
        RustEngine {
            root: Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."),
            built: Mutex::new(HashMap::new()),
        }
    }

    fn binary(&self, case: &Case) -> Result<PathBuf, String> {
        let key = (case.schema.clone(), case.order.as_str().to_string());
        if let Some(r) = lock(&self.built).get(&key) {
            return r.clone();
        }
        let r = self.build(case);
        lock(&self.built).insert(key, r.clone());
        r
    }

    fn build(&self, case: &Case) -> Result<PathBuf, String> {
        let text = std::fs::read_to_string(&case.schema).map_err(|e| format!("{}: {e}", case.schema.display()))?;
        let a = analyze(
            case.dialect,
            &text,
            None,
            OrderChoice {
                order: Some(case.order),
                overrides_directive: true,
            },
        );
        let file = case
            .schema
            .file_name()
            .and_then(|s| s.to_str())
            .unwrap_or("schema")
            .to_string();
        let code = generate(&a.schema, &a.layout, &file).map_err(|e| e.to_string())?;
        let stem: String = file
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let name = format!("{}_{}_{}", case.dialect.name(), stem, case.order.as_str());
        let dir = self.root.join("target/conformance-rust/crates").join(&name);
        let src = dir.join("src");
        std::fs::create_dir_all(&src).map_err(|e| e.to_string())?;
        let runtime = self.root.join("runtime/rust");
        let runtime = runtime.canonicalize().unwrap_or(runtime);
        let manifest = format!(
            "[package]\nname = \"c_{name}\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
             [dependencies]\nwirelens-runtime = {{ path = {:?} }}\n\n[workspace]\n",
            runtime.display().to_string()
        );
        write_if_changed(&dir.join("Cargo.toml"), &manifest)?;
        write_if_changed(&src.join("generated.rs"), &code)?;
        write_if_changed(&src.join("json.rs"), JSON_LIB)?;
        write_if_changed(&src.join("main.rs"), &driver(&a.schema, &a.layout))?;
        let target = self.root.join("target/conformance-rust/target");
        let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(["build", "--quiet", "--offline"])
            .current_dir(&dir)
            .env("CARGO_TARGET_DIR", &target)
            .output()
            .map_err(|e| format!("cargo: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "cargo build of the generated code failed:\n{}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(target.join("debug").join(format!("c_{name}")))
    }

    fn run(&self, case: &Case, command: &str, stdin: &[u8]) -> Result<Vec<u8>, String> {
        let bin = self.binary(case)?;
        let mode = if case.mode == Mode::Message { "message" } else { "byte" };
        let all = if case.all { "all" } else { "one" };
        let mut child = Command::new(&bin)
            .args([command, &case.root, mode, all])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("{}: {e}", bin.display()))?;
        let mut input = child.stdin.take().ok_or("no stdin")?;
        let data = stdin.to_vec();
        let writer = std::thread::spawn(move || input.write_all(&data));
        let out = child.wait_with_output().map_err(|e| e.to_string())?;
        let _ = writer.join();
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
        }
        Ok(out.stdout)
    }
}

impl Engine for RustEngine {
    fn name(&self) -> &str {
        "rust"
    }

    fn encode(&self, case: &Case) -> Result<Vec<u8>, String> {
        let json = serde_json::to_vec(&case.value).map_err(|e| e.to_string())?;
        self.run(case, "encode", &json)
    }

    fn decode(&self, case: &Case) -> Result<Value, String> {
        let out = self.run(case, "decode", &case.bytes)?;
        serde_json::from_slice(&out).map_err(|e| format!("the driver printed invalid JSON: {e}"))
    }
}

fn write_if_changed(path: &Path, text: &str) -> Result<(), String> {
    if std::fs::read_to_string(path).ok().as_deref() == Some(text) {
        return Ok(());
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// An expression converting the `json::J` reference `v` to a value of `wire`.
fn from_json(schema: &Schema, layout: &Layout, wire: &Wire, v: &str, d: usize) -> String {
    match wire {
        Wire::Prim(Primitive::Str) => format!("json::string({v})?"),
        Wire::Prim(Primitive::Bool) => format!("json::boolean({v})?"),
        Wire::Prim(Primitive::F32) => format!("json::float::<f32>({v})?"),
        Wire::Prim(Primitive::F64) => format!("json::float::<f64>({v})?"),
        Wire::Prim(p) => format!("json::int::<{}>({v})?", wirelens_generators::rust::prim_type(*p)),
        Wire::Array(e) => {
            let x = format!("x{d}");
            format!(
                "json::array({v})?.iter().map(|{x}| Ok::<_, String>({})).collect::<Result<Vec<_>, String>>()?",
                from_json(schema, layout, e, &x, d + 1)
            )
        }
        Wire::Optional(e) => format!(
            "if json::is_null({v}) {{ None }} else {{ Some({}) }}",
            from_json(schema, layout, e, v, d + 1)
        ),
        Wire::Struct(id) => format!("from_{}({v})?", type_name(schema, layout, *id)),
    }
}

/// Statements writing the value at place `x` (a reference) as JSON to `out`.
fn to_json(schema: &Schema, layout: &Layout, wire: &Wire, x: &str, d: usize) -> String {
    match wire {
        Wire::Prim(Primitive::Str) => format!("json::write_str(out, {x});"),
        Wire::Prim(Primitive::F32 | Primitive::F64) => format!("json::write_float(out, *{x} as f64, {x}.to_string());"),
        Wire::Prim(_) => format!("out.push_str(&{x}.to_string());"),
        Wire::Array(e) => {
            let y = format!("y{d}");
            format!(
                "out.push('['); for (i{d}, {y}) in {x}.iter().enumerate() {{ if i{d} > 0 {{ out.push(','); }} {} }} out.push(']');",
                to_json(schema, layout, e, y.as_str(), d + 1)
            )
        }
        Wire::Optional(e) => {
            let y = format!("y{d}");
            format!(
                "match {x} {{ None => out.push_str(\"null\"), Some({y}) => {{ {} }} }}",
                to_json(schema, layout, e, &y, d + 1)
            )
        }
        Wire::Struct(id) => format!("to_{}({x}, out);", type_name(schema, layout, *id)),
    }
}

/// A value of a field's unboxed type as the value of the field the generator boxed
/// (`wirelens_core::plan::Boxed`: `Box<S>`, `Option<Box<S>>`).
fn rebox(wire: &Wire, value: String) -> String {
    match wire {
        Wire::Optional(e) => format!("({value}).map(|b| {})", rebox(e, "b".into())),
        _ => format!("Box::new({value})"),
    }
}

fn driver(schema: &Schema, layout: &Layout) -> String {
    let boxed = wirelens_core::plan::Plan::new(layout).boxed(layout);
    let mut s = String::from(
        "#![allow(warnings)]\n// The generated module must compile warning-free, also where the driver uses only part of it.\n#[deny(warnings)]\nmod generated;\nmod json;\nuse generated::*;\nuse std::io::{Read, Write};\nuse wirelens_runtime::{Message, SdpMessage};\n\n",
    );
    let mut dispatch = String::new();
    for (id, def) in schema.types.iter().enumerate() {
        let Some(t) = layout.get(id) else { continue };
        let name = type_name(schema, layout, id);
        let is_value_type = def.is_struct() || t.root;
        if !is_value_type {
            continue;
        }
        // from_json
        let _ = writeln!(s, "fn from_{name}(v: &json::J) -> Result<{name}, String> {{");
        match &def.kind {
            TypeKind::Struct { fields, .. } => {
                let _ = writeln!(s, "    json::known_keys(v, &[{}])?;", {
                    let keys: Vec<String> = fields.iter().map(|f| format!("{:?}", f.json_name)).collect();
                    keys.join(", ")
                });
                let _ = writeln!(s, "    Ok({name} {{");
                let names = field_idents(schema, id);
                for (i, f) in fields.iter().enumerate() {
                    let Some(fl) = t.field_by_decl(i) else { continue };
                    let getter = format!("json::get(v, {:?})?", f.json_name);
                    let mut value = from_json(schema, layout, &fl.wire, "fv", 0);
                    if boxed.field(id, i) {
                        value = rebox(&fl.wire, value);
                    }
                    let _ = writeln!(s, "        {}: {{ let fv = {getter}; {value} }},", names[i]);
                }
                let _ = writeln!(s, "    }})\n}}\n");
            }
            TypeKind::Alias { .. } => {
                let _ = writeln!(
                    s,
                    "    Ok({name}({}))\n}}\n",
                    from_json(schema, layout, &t.wire, "v", 0)
                );
            }
        }
        // to_json
        let _ = writeln!(s, "fn to_{name}(x: &{name}, out: &mut String) {{");
        match &def.kind {
            TypeKind::Struct { fields, .. } => {
                let names = field_idents(schema, id);
                let _ = writeln!(s, "    out.push('{{');");
                for (i, f) in fields.iter().enumerate() {
                    let Some(fl) = t.field_by_decl(i) else { continue };
                    if i > 0 {
                        let _ = writeln!(s, "    out.push(',');");
                    }
                    let _ = writeln!(s, "    json::write_str(out, {:?}); out.push(':');", f.json_name);
                    let _ = writeln!(
                        s,
                        "    {{ let fx = &x.{}; {} }}",
                        names[i],
                        to_json(schema, layout, &fl.wire, "fx", 0)
                    );
                }
                let _ = writeln!(s, "    out.push('}}');\n}}\n");
            }
            TypeKind::Alias { .. } => {
                let _ = writeln!(
                    s,
                    "    {{ let fx = &x.0; {} }}\n}}\n",
                    to_json(schema, layout, &t.wire, "fx", 0)
                );
            }
        }
        let message = schema.dialect == Dialect::Sdp;
        let _ = writeln!(
            dispatch,
            "        {:?} => {{\n            if cmd == \"encode\" {{\n                let mut out = Vec::new();\n                for v in &records {{\n                    let value = from_{name}(v)?;\n                    {}\n                }}\n                return Ok(out);\n            }}\n            let mut at = 0;\n            let mut text = String::from(\"[\");\n            while at < input.len() || at == 0 {{\n                let (value, used) = {};\n                if used == 0 {{ return Err(\"no progress\".into()); }}\n                let record = &input[at..at + used];\n                let viewed = {};\n                if viewed.to_bytes().map_err(|e| e.to_string())? != value.to_bytes().map_err(|e| e.to_string())? {{ return Err(\"the view decoder disagrees with the owned decoder\".into()); }}\n                if at > 0 {{ text.push(','); }}\n                to_{name}(&value, &mut text);\n                at += used;\n                if !all {{ break; }}\n            }}\n            if at != input.len() {{ return Err(format!(\"{{}} trailing bytes\", input.len() - at)); }}\n            text.push(']');\n            return Ok(if all {{ text.into_bytes() }} else {{ text[1..text.len() - 1].as_bytes().to_vec() }});\n        }}",
            def.name,
            if message {
                "if message { value.encode_message(&mut out) } else { value.encode(&mut out) }.map_err(|e| e.to_string())?;"
            } else {
                "value.encode(&mut out).map_err(|e| e.to_string())?;"
            },
            if message {
                format!("if message {{ {name}::decode_message_prefix(&input[at..]) }} else {{ {name}::decode_prefix(&input[at..]) }}.map_err(|e| e.to_string())?")
            } else {
                format!("{name}::decode_prefix(&input[at..]).map_err(|e| e.to_string())?")
            },
            if message {
                format!("if message {{ {name}::decode_message_view(record).map(|v| v.to_owned_value()) }} else {{ {name}::decode_view(record).map(|v| v.to_owned_value()) }}.map_err(|e| e.to_string())?")
            } else {
                format!("{name}::decode_view(record).map(|v| v.to_owned_value()).map_err(|e| e.to_string())?")
            }
        );
    }
    let _ = write!(
        s,
        "fn run(cmd: &str, root: &str, message: bool, all: bool, input: &[u8]) -> Result<Vec<u8>, String> {{\n    let parsed = if cmd == \"encode\" {{ json::parse(std::str::from_utf8(input).map_err(|e| e.to_string())?)? }} else {{ json::J::Null }};\n    let records: Vec<json::J> = if cmd != \"encode\" {{ Vec::new() }} else if all {{ json::array(&parsed)?.to_vec() }} else {{ vec![parsed] }};\n    match root {{\n{dispatch}\n        other => Err(format!(\"no type {{other}}\")),\n    }}\n}}\n\nfn main() {{\n    let args: Vec<String> = std::env::args().collect();\n    let mut input = Vec::new();\n    std::io::stdin().read_to_end(&mut input).expect(\"stdin\");\n    match run(&args[1], &args[2], args[3] == \"message\", args[4] == \"all\", &input) {{\n        Ok(out) => {{ std::io::stdout().write_all(&out).expect(\"stdout\"); }}\n        Err(e) => {{ eprintln!(\"{{e}}\"); std::process::exit(1); }}\n    }}\n}}\n"
    );
    s
}

/// The generated field identifiers, in declaration order: the emitter's names, escaped.
fn field_idents(schema: &Schema, id: usize) -> Vec<String> {
    wirelens_generators::rust::field_names(schema, id)
        .iter()
        .map(|n| wirelens_generators::rust::ident(n))
        .collect()
}

/// A minimal JSON reader/writer for the driver (the generated code has no serde).
const JSON_LIB: &str = r#####"
#[derive(Clone, Debug)]
pub enum J { Null, Bool(bool), Num(String), Str(String), Arr(Vec<J>), Obj(Vec<(String, J)>) }

pub fn parse(s: &str) -> Result<J, String> {
    let b = s.as_bytes();
    let mut at = 0;
    let v = value(b, &mut at)?;
    ws(b, &mut at);
    if at != b.len() { return Err("trailing JSON".into()); }
    Ok(v)
}

fn ws(b: &[u8], at: &mut usize) { while *at < b.len() && b[*at].is_ascii_whitespace() { *at += 1; } }

fn value(b: &[u8], at: &mut usize) -> Result<J, String> {
    ws(b, at);
    match b.get(*at) {
        Some(b'{') => {
            *at += 1;
            let mut m = Vec::new();
            ws(b, at);
            if b.get(*at) == Some(&b'}') { *at += 1; return Ok(J::Obj(m)); }
            loop {
                ws(b, at);
                let k = parse_string(b, at)?;
                ws(b, at);
                if b.get(*at) != Some(&b':') { return Err("expected :".into()); }
                *at += 1;
                let v = value(b, at)?;
                m.push((k, v));
                ws(b, at);
                match b.get(*at) { Some(b',') => *at += 1, Some(b'}') => { *at += 1; return Ok(J::Obj(m)); } _ => return Err("expected , or }".into()) }
            }
        }
        Some(b'[') => {
            *at += 1;
            let mut a = Vec::new();
            ws(b, at);
            if b.get(*at) == Some(&b']') { *at += 1; return Ok(J::Arr(a)); }
            loop {
                a.push(value(b, at)?);
                ws(b, at);
                match b.get(*at) { Some(b',') => *at += 1, Some(b']') => { *at += 1; return Ok(J::Arr(a)); } _ => return Err("expected , or ]".into()) }
            }
        }
        Some(b'"') => Ok(J::Str(parse_string(b, at)?)),
        Some(b't') if b[*at..].starts_with(b"true") => { *at += 4; Ok(J::Bool(true)) }
        Some(b'f') if b[*at..].starts_with(b"false") => { *at += 5; Ok(J::Bool(false)) }
        Some(b'n') if b[*at..].starts_with(b"null") => { *at += 4; Ok(J::Null) }
        Some(_) => {
            let start = *at;
            while *at < b.len() && matches!(b[*at], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') { *at += 1; }
            if start == *at { return Err("unexpected character".into()); }
            Ok(J::Num(String::from_utf8_lossy(&b[start..*at]).into_owned()))
        }
        None => Err("unexpected end".into()),
    }
}

fn hex4(b: &[u8], at: &mut usize) -> Result<u32, String> {
    let s = b.get(*at..*at + 4).ok_or("short \\u")?;
    *at += 4;
    u32::from_str_radix(std::str::from_utf8(s).map_err(|e| e.to_string())?, 16).map_err(|e| e.to_string())
}

fn parse_string(b: &[u8], at: &mut usize) -> Result<String, String> {
    if b.get(*at) != Some(&b'"') { return Err("expected string".into()); }
    *at += 1;
    let mut out: Vec<u8> = Vec::new();
    loop {
        let c = *b.get(*at).ok_or("unterminated string")?;
        *at += 1;
        match c {
            b'"' => break,
            b'\\' => {
                let e = *b.get(*at).ok_or("bad escape")?;
                *at += 1;
                let ch = match e {
                    b'"' => '"', b'\\' => '\\', b'/' => '/', b'b' => '\u{8}', b'f' => '\u{c}',
                    b'n' => '\n', b'r' => '\r', b't' => '\t',
                    b'u' => {
                        let hi = hex4(b, at)?;
                        let cp = if (0xd800..0xdc00).contains(&hi) && b.get(*at..*at + 2) == Some(b"\\u") {
                            *at += 2;
                            let lo = hex4(b, at)?;
                            0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00)
                        } else { hi };
                        char::from_u32(cp).ok_or("bad code point")?
                    }
                    _ => return Err("bad escape".into()),
                };
                let mut buf = [0u8; 4];
                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
            }
            c => out.push(c),
        }
    }
    String::from_utf8(out).map_err(|e| e.to_string())
}

static NULL: J = J::Null;

pub fn known_keys(v: &J, keys: &[&str]) -> Result<(), String> {
    match v {
        J::Obj(m) => { for (k, _) in m { if !keys.contains(&k.as_str()) { return Err(format!("unknown field {k}")); } } Ok(()) }
        _ => Err("expected an object".into()),
    }
}
pub fn get<'a>(v: &'a J, key: &str) -> Result<&'a J, String> {
    match v { J::Obj(m) => Ok(m.iter().find(|(k, _)| k == key).map(|(_, v)| v).unwrap_or(&NULL)), _ => Err("expected an object".into()) }
}
pub fn is_null(v: &J) -> bool { matches!(v, J::Null) }
pub fn array(v: &J) -> Result<&[J], String> { match v { J::Arr(a) => Ok(a), _ => Err("expected an array".into()) } }
pub fn string(v: &J) -> Result<String, String> { match v { J::Str(s) => Ok(s.clone()), _ => Err("expected a string".into()) } }
pub fn boolean(v: &J) -> Result<bool, String> { match v { J::Bool(b) => Ok(*b), _ => Err("expected a boolean".into()) } }
pub fn int<T: TryFrom<i128>>(v: &J) -> Result<T, String> {
    match v {
        J::Num(n) => n.parse::<i128>().ok().and_then(|x| T::try_from(x).ok()).ok_or_else(|| format!("bad integer {n}")),
        _ => Err("expected an integer".into()),
    }
}
pub fn float<T: std::str::FromStr>(v: &J) -> Result<T, String> {
    let text = match v {
        J::Num(n) => n.clone(),
        J::Str(s) if s == "NaN" => "NaN".into(),
        J::Str(s) if s == "Infinity" => "inf".into(),
        J::Str(s) if s == "-Infinity" => "-inf".into(),
        _ => return Err("expected a number".into()),
    };
    text.parse::<T>().map_err(|_| format!("bad number {text}"))
}
pub fn write_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}
pub fn write_float(out: &mut String, x: f64, text: String) {
    if x.is_nan() { out.push_str("\"NaN\""); }
    else if x.is_infinite() { out.push_str(if x > 0.0 { "\"Infinity\"" } else { "\"-Infinity\"" }); }
    else if text.contains('.') || text.contains('e') { out.push_str(&text); }
    else { out.push_str(&text); out.push_str(".0"); }
}
"#####;
