//! The `c` engine: the code the C emitter generates, compiled with a C compiler
//! (`--cc` / `WIRELENS_CC`, default `gcc`, `-std=c11 -O1`; a cross compiler's programs
//! run through `--runner`, see `toolchain`). Per (schema, field order) the
//! generated `<module>.c` becomes one object file and one decoder program; per case an
//! encoder program is built around it.
//!
//! - encode: the case's JSON value is turned (here, from the layout) into a C
//!   initializer of the generated types; the program checks `_size` against the bytes
//!   appended by `_encode_buf` (or `_encode_message_buf`) and against `_encode` into an
//!   exactly sized buffer, then writes the bytes to stdout.
//! - decode: the decoder program reads stdin, decodes every record with the owned and
//!   the view decoders, prints both as JSON through printers generated here (u64/i64
//!   exact, `%.9g`/`%.17g` floats, NaN/±Infinity as strings) and requires them to agree.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use wirelens_core::codec::Mode;
use wirelens_core::layout::Wire;
use wirelens_core::model::{Primitive, TypeKind};
use wirelens_core::{analyze, Analysis, Dialect, OrderChoice};
use wirelens_generators::c::{c_string, generate, prim_c, runtime_files, Names};

use crate::toolchain::{Toolchain, BINARY_STDIO, BINARY_STDIO_INCLUDES};
use crate::{lock, Case, Engine};

struct Built {
    dir: PathBuf,
    analysis: Analysis,
    names: Names,
    module: String,
    object: PathBuf,
    decoder: PathBuf,
}

/// Builds per (schema file, field order).
type Cache = HashMap<(PathBuf, String), Result<Arc<Built>, String>>;

pub struct CEngine {
    root: PathBuf,
    cc: Toolchain,
    built: Mutex<Cache>,
}

impl CEngine {
    pub fn new(cc: Toolchain) -> CEngine {
        CEngine {
            root: Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."),
            cc,
            built: Mutex::new(HashMap::new()),
        }
    }

    /// Built once per key; the harness runs the cases of one schema on one thread.
    fn built(&self, case: &Case) -> Result<Arc<Built>, String> {
        let key = (case.schema.clone(), case.order.as_str().to_string());
        if let Some(r) = lock(&self.built).get(&key) {
            return r.clone();
        }
        let r = self.build(case).map(Arc::new);
        lock(&self.built).insert(key, r.clone());
        r
    }

    /// `object`: the generated module itself, compiled as users must be able to compile
    /// it (warnings are errors); the drivers, which are test code, without warnings.
    fn compile(&self, args: &[&Path], out: &Path, object: bool) -> Result<(), String> {
        let mut cmd = self.cc.compile();
        cmd.args(["-std=c11", "-O1"]);
        if object {
            cmd.args(["-Wall", "-Wextra", "-Werror", "-pedantic", "-c"]);
        } else {
            cmd.arg("-w");
        }
        cmd.args(args).arg("-o").arg(out);
        let o = cmd.output().map_err(|e| format!("{}: {e}", self.cc.name()))?;
        if !o.status.success() {
            return Err(format!(
                "{} failed on {}:\n{}",
                self.cc.name(),
                args.first().map(|p| p.display().to_string()).unwrap_or_default(),
                String::from_utf8_lossy(&o.stderr)
            ));
        }
        Ok(())
    }

    fn build(&self, case: &Case) -> Result<Built, String> {
        let text = std::fs::read_to_string(&case.schema).map_err(|e| format!("{}: {e}", case.schema.display()))?;
        let analysis = analyze(
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
        let files = generate(&analysis.schema, &analysis.layout, &file).map_err(|e| e.to_string())?;
        let names = Names::new(&analysis.schema, &analysis.layout, &file);
        let module = wirelens_generators::module_name(&file);
        let dir = self.cc.build_dir(&self.root.join("target/conformance-c")).join(format!(
            "{}_{}_{}",
            case.dialect.name(),
            module,
            case.order.as_str()
        ));
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let mut changed = false;
        for f in runtime_files().into_iter().chain(files) {
            changed |= write_if_changed(&dir.join(&f.name), &f.contents)?;
        }
        let driver = decoder_driver(&analysis, &names, &module);
        changed |= write_if_changed(&dir.join("decoder.c"), &driver)?;
        let object = dir.join(format!("{module}.o"));
        let decoder = self.cc.exe(&dir, "decoder");
        if changed || !object.exists() || !decoder.exists() {
            self.compile(&[&dir.join(format!("{module}.c"))], &object, true)?;
            self.compile(&[&dir.join("decoder.c"), &object], &decoder, false)?;
        }
        Ok(Built {
            dir,
            analysis,
            names,
            module,
            object,
            decoder,
        })
    }

    fn run(&self, bin: &Path, args: &[&str], stdin: &[u8]) -> Result<Vec<u8>, String> {
        let mut child = self
            .cc
            .run(bin)
            .args(args)
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

impl Engine for CEngine {
    fn name(&self) -> &str {
        "c"
    }

    fn encode(&self, case: &Case) -> Result<Vec<u8>, String> {
        let b = self.built(case)?;
        let program = encoder_program(&b, case)?;
        let stem: String = case
            .name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let src = b.dir.join(format!("enc_{stem}.c"));
        let exe = self.cc.exe(&b.dir, &format!("enc_{stem}"));
        if write_if_changed(&src, &program)? || !exe.exists() {
            self.compile(&[&src, &b.object], &exe, false)?;
        }
        self.run(&exe, &[], &[])
    }

    fn decode(&self, case: &Case) -> Result<Value, String> {
        let b = self.built(case)?;
        let mode = if case.mode == Mode::Message { "message" } else { "byte" };
        let all = if case.all { "all" } else { "one" };
        let out = self.run(&b.decoder, &[&case.root, mode, all], &case.bytes)?;
        serde_json::from_slice(&out).map_err(|e| format!("the decoder printed invalid JSON: {e}"))
    }
}

/// Writes `text` unless the file already holds it; returns whether it wrote.
fn write_if_changed(path: &Path, text: &str) -> Result<bool, String> {
    if std::fs::read_to_string(path).ok().as_deref() == Some(text) {
        return Ok(false);
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(true)
}

// ---------------------------------------------------------------- encode: JSON → C initializer

fn encoder_program(b: &Built, case: &Case) -> Result<String, String> {
    let schema = &b.analysis.schema;
    let id = schema
        .type_id(&case.root)
        .filter(|&id| b.analysis.layout.get(id).is_some())
        .ok_or_else(|| format!("no type `{}`", case.root))?;
    let wire = b.analysis.layout.get(id).map(|t| t.wire.clone()).ok_or("no layout")?;
    let t = b.names.type_name(id);
    let records: Vec<&Value> = if case.all {
        case.value
            .as_array()
            .ok_or("`values` is not an array")?
            .iter()
            .collect()
    } else {
        vec![&case.value]
    };
    let message = case.mode == Mode::Message;
    let (enc_buf, enc, header) = if message {
        (format!("{t}_encode_message_buf"), format!("{t}_encode_message"), 10)
    } else {
        (format!("{t}_encode_buf"), format!("{t}_encode"), 0)
    };
    let mut s = format!(
        "#include \"{}.h\"\n#include <stdio.h>\n{BINARY_STDIO_INCLUDES}\nint main(void) {{\n    wl_buf out;\n    wl_error err;\n    char msg[512];\n{BINARY_STDIO}    wl_buf_init(&out);\n",
        b.module
    );
    for (i, v) in records.iter().enumerate() {
        let init = initializer(b, &wire, v, "value").map_err(|e| format!("record {i}: {e}"))?;
        let _ = write!(
            s,
            "    {{\n        const {t} v = {init};\n        size_t start = out.len, n = {t}_size(&v), w = 0;\n        uint8_t *tmp;\n\
             \x20       if ({enc_buf}(&v, &out, &err) != WL_OK) goto fail;\n\
             \x20       if (out.len - start != n + {header}) {{ fprintf(stderr, \"record {i}: _size %zu but %zu bytes\\n\", n, out.len - start - {header}); return 1; }}\n\
             \x20       tmp = (uint8_t *)malloc(n + {header});\n\
             \x20       if ({enc}(&v, tmp, n + {header}, &w, &err) != WL_OK) goto fail;\n\
             \x20       if (w != n + {header} || memcmp(tmp, out.data + start, w) != 0) {{ fprintf(stderr, \"record {i}: _encode and _encode_buf differ\\n\"); return 1; }}\n\
             \x20       free(tmp);\n    }}\n"
        );
    }
    s.push_str(
        "    fwrite(out.data, 1, out.len, stdout);\n    wl_buf_free(&out);\n    return 0;\nfail:\n    wl_error_format(&err, msg, sizeof msg);\n    fprintf(stderr, \"%s\\n\", msg);\n    return 1;\n}\n",
    );
    Ok(s)
}

fn number_text(v: &Value) -> Option<String> {
    match v {
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A C initializer for the JSON value `v` of wire type `w` (owned types).
fn initializer(b: &Built, w: &Wire, v: &Value, path: &str) -> Result<String, String> {
    let bad = |what: &str| Err(format!("{path}: expected {what}, found {v}"));
    match w {
        Wire::Prim(Primitive::Bool) => match v {
            Value::Bool(x) => Ok(x.to_string()),
            _ => bad("a boolean"),
        },
        Wire::Prim(Primitive::Str) => match v {
            Value::String(x) => Ok(format!("{{{}, {}}}", c_string(x), x.len())),
            _ => bad("a string"),
        },
        Wire::Prim(p @ (Primitive::F32 | Primitive::F64)) => {
            let text = match v {
                Value::String(s) if matches!(s.as_str(), "NaN" | "Infinity" | "-Infinity") => {
                    s.replace("Infinity", "inf")
                }
                _ => number_text(v).ok_or_else(|| format!("{path}: expected a number, found {v}"))?,
            };
            if *p == Primitive::F32 {
                let x: f32 = text.parse().map_err(|_| format!("{path}: bad number {text}"))?;
                Ok(format!("wl_f32_from_bits(0x{:08x}u)", x.to_bits()))
            } else {
                let x: f64 = text.parse().map_err(|_| format!("{path}: bad number {text}"))?;
                Ok(format!("wl_f64_from_bits(UINT64_C(0x{:016x}))", x.to_bits()))
            }
        }
        Wire::Prim(p) => {
            let text = number_text(v).ok_or_else(|| format!("{path}: expected an integer, found {v}"))?;
            let x: i128 = text.parse().map_err(|_| format!("{path}: bad integer {text}"))?;
            let (lo, hi): (i128, i128) = match p {
                Primitive::U8 => (0, u8::MAX.into()),
                Primitive::U16 => (0, u16::MAX.into()),
                Primitive::U32 => (0, u32::MAX.into()),
                Primitive::U64 => (0, u64::MAX.into()),
                Primitive::I8 => (i8::MIN.into(), i8::MAX.into()),
                Primitive::I16 => (i16::MIN.into(), i16::MAX.into()),
                Primitive::I32 => (i32::MIN.into(), i32::MAX.into()),
                _ => (i64::MIN.into(), i64::MAX.into()),
            };
            if x < lo || x > hi {
                return Err(format!("{path}: {x} is out of range for {}", prim_c(*p)));
            }
            Ok(match p {
                Primitive::U64 => format!("UINT64_C({x})"),
                Primitive::U8 | Primitive::U16 | Primitive::U32 => format!("{x}u"),
                Primitive::I64 if x == lo => format!("(INT64_C({}) - 1)", x + 1),
                Primitive::I64 => format!("INT64_C({x})"),
                _ if x == lo => format!("({} - 1)", x + 1),
                _ => x.to_string(),
            })
        }
        Wire::Array(e) => {
            let Value::Array(items) = v else {
                return bad("an array");
            };
            if items.is_empty() {
                return Ok("{NULL, 0}".into());
            }
            let elems = items
                .iter()
                .enumerate()
                .map(|(i, x)| initializer(b, e, x, &format!("{path}[{i}]")))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(format!(
                "{{(const {}[]){{{}}}, {}}}",
                b.names.c_type(e, false),
                elems.join(", "),
                items.len()
            ))
        }
        Wire::Optional(e) => {
            if v.is_null() {
                Ok("{false}".into())
            } else {
                Ok(format!("{{true, {}}}", initializer(b, e, v, path)?))
            }
        }
        Wire::Struct(id) => {
            let Value::Object(obj) = v else {
                return bad("an object");
            };
            let def = &b.analysis.schema.types[*id];
            let t = b.analysis.layout.get(*id).ok_or("no layout")?;
            for k in obj.keys() {
                if !def.fields().iter().any(|f| f.json_name == *k) {
                    return Err(format!("{path}: unknown field `{k}`"));
                }
            }
            let names = b.names.fields(*id);
            let mut parts = Vec::new();
            for (i, f) in def.fields().iter().enumerate() {
                let Some(fl) = t.field_by_decl(i) else { continue };
                let x = obj.get(&f.json_name).unwrap_or(&Value::Null);
                if x.is_null() {
                    if matches!(fl.wire, Wire::Optional(_)) {
                        continue;
                    }
                    return Err(format!("{path}.{}: missing", f.json_name));
                }
                let init = initializer(b, &fl.wire, x, &format!("{path}.{}", f.json_name))?;
                parts.push(format!(".{} = {init}", names[i]));
            }
            Ok(format!("{{{}}}", parts.join(", ")))
        }
    }
}

// ---------------------------------------------------------------- decode: C values → JSON

const PRINT_PRELUDE: &str = r#"#include <inttypes.h>
#include <math.h>
#include <stdio.h>

static void js_raw(wl_buf *o, const char *s) { wl_buf_append(o, s, strlen(s)); }

static void js_str(wl_buf *o, wl_str s) {
    size_t i;
    char esc[8];
    js_raw(o, "\"");
    for (i = 0; i < s.len; i++) {
        unsigned char c = (unsigned char)s.ptr[i];
        if (c == '"') js_raw(o, "\\\"");
        else if (c == '\\') js_raw(o, "\\\\");
        else if (c < 0x20) { snprintf(esc, sizeof esc, "\\u%04x", c); js_raw(o, esc); }
        else wl_buf_append(o, &c, 1);
    }
    js_raw(o, "\"");
}

static void js_u64(wl_buf *o, uint64_t v) { char b[32]; snprintf(b, sizeof b, "%" PRIu64, v); js_raw(o, b); }
static void js_i64(wl_buf *o, int64_t v) { char b[32]; snprintf(b, sizeof b, "%" PRId64, v); js_raw(o, b); }
static void js_bool(wl_buf *o, bool v) { js_raw(o, v ? "true" : "false"); }

/* The shortest round-trip digits are not needed: 9 (f32) / 17 (f64) significant
   digits read back to the same value; NaN and infinities are strings. */
static void js_float(wl_buf *o, double v, int digits) {
    char b[64];
    if (isnan(v)) { js_raw(o, "\"NaN\""); return; }
    if (isinf(v)) { js_raw(o, v > 0 ? "\"Infinity\"" : "\"-Infinity\""); return; }
    snprintf(b, sizeof b, "%.*g", digits, v);
    js_raw(o, b);
    if (!strpbrk(b, ".e")) js_raw(o, ".0");
}
"#;

/// Statements printing the value at `place` of wire `w` to `o`.
fn print_stmts(names: &Names, w: &Wire, place: &str, view: bool, d: usize, out: &mut String, indent: usize) {
    let pad = "    ".repeat(indent);
    match w {
        Wire::Prim(p) => {
            let call = match p {
                Primitive::Str => format!("js_str(o, {place});"),
                Primitive::Bool => format!("js_bool(o, {place});"),
                Primitive::F32 => format!("js_float(o, {place}, 9);"),
                Primitive::F64 => format!("js_float(o, {place}, 17);"),
                Primitive::U8 | Primitive::U16 | Primitive::U32 | Primitive::U64 => {
                    format!("js_u64(o, (uint64_t){place});")
                }
                _ => format!("js_i64(o, (int64_t){place});"),
            };
            let _ = writeln!(out, "{pad}{call}");
        }
        Wire::Array(e) => {
            let i = format!("i{d}");
            let _ = writeln!(out, "{pad}{{\n{pad}    size_t {i};\n{pad}    js_raw(o, \"[\");");
            let _ = writeln!(out, "{pad}    for ({i} = 0; {i} < {place}.len; {i}++) {{");
            let _ = writeln!(out, "{pad}        if ({i} > 0) js_raw(o, \",\");");
            let elem = match &**e {
                Wire::Prim(p) if view && *p != Primitive::Str => {
                    format!("wl_{}_view_get({place}, {i})", wirelens_generators::c::prim_short(*p))
                }
                _ => format!("{place}.ptr[{i}]"),
            };
            print_stmts(names, e, &elem, view, d + 1, out, indent + 2);
            let _ = writeln!(out, "{pad}    }}\n{pad}    js_raw(o, \"]\");\n{pad}}}");
        }
        Wire::Optional(e) => {
            let _ = writeln!(out, "{pad}if (!{place}.has) js_raw(o, \"null\");\n{pad}else {{");
            print_stmts(names, e, &format!("{place}.value"), view, d + 1, out, indent + 1);
            let _ = writeln!(out, "{pad}}}");
        }
        Wire::Struct(id) => {
            let f = if view && names.has_view(*id) { "prv" } else { "pr" };
            let _ = writeln!(out, "{pad}{f}_{}(o, &{place});", names.type_name(*id));
        }
    }
}

fn decoder_driver(a: &Analysis, names: &Names, module: &str) -> String {
    let mut s = format!("#include \"{module}.h\"\n{BINARY_STDIO_INCLUDES}{PRINT_PRELUDE}");
    // Printers, dependencies first (owned, and views where the view type differs).
    for &id in &names.order {
        let Some(t) = a.layout.get(id) else { continue };
        let def = &a.schema.types[id];
        let TypeKind::Struct { fields, .. } = &def.kind else {
            continue;
        };
        let views: &[bool] = if names.has_view(id) { &[false, true] } else { &[false] };
        for &view in views {
            let (f, ty) = if view {
                ("prv", names.view_name(id))
            } else {
                ("pr", names.type_name(id))
            };
            let _ = writeln!(
                s,
                "\nstatic void {f}_{}(wl_buf *o, const {ty} *v) {{",
                names.type_name(id)
            );
            let _ = writeln!(s, "    js_raw(o, \"{{\");");
            for (i, fd) in fields.iter().enumerate() {
                let Some(fl) = t.field_by_decl(i) else { continue };
                let key = serde_json::to_string(&fd.json_name).unwrap_or_default();
                let sep = if i > 0 { "," } else { "" };
                let _ = writeln!(s, "    js_raw(o, {});", c_string(&format!("{sep}{key}:")));
                print_stmts(
                    names,
                    &fl.wire,
                    &format!("v->{}", names.fields(id)[i]),
                    view,
                    0,
                    &mut s,
                    1,
                );
            }
            let _ = writeln!(s, "    js_raw(o, \"}}\");\n}}");
        }
    }
    // One runner per value type.
    let mut dispatch = String::new();
    for &id in &names.order {
        let Some(t) = a.layout.get(id) else { continue };
        let def = &a.schema.types[id];
        if !(def.is_struct() || t.root) {
            continue;
        }
        let n = names.type_name(id);
        let view_distinct = names.has_view_wire(&t.wire);
        let _ = writeln!(s, "\nstatic void print_{n}(wl_buf *o, const {n} *v) {{");
        print_stmts(names, &t.wire, "(*v)", false, 0, &mut s, 1);
        let _ = writeln!(s, "}}\n\nstatic void printv_{n}(wl_buf *o, const {n}_view *v) {{");
        print_stmts(names, &t.wire, "(*v)", view_distinct, 0, &mut s, 1);
        let _ = writeln!(s, "}}");
        let message = a.schema.dialect == Dialect::Sdp;
        // The decode API is function-like macros: call them, never take their address.
        let call = |plain: &str, msg: &str, args: &str| {
            if message {
                format!("(message ? {n}_{msg}({args}) : {n}_{plain}({args}))")
            } else {
                format!("{n}_{plain}({args})")
            }
        };
        let dec = call(
            "decode_prefix",
            "decode_message_prefix",
            "buf + at, len - at, &v, &used, &arena, &err",
        );
        let decv = call(
            "decode_view_prefix",
            "decode_message_view_prefix",
            "buf + at, len - at, &w, &vused, &arena, &err",
        );
        let exact = call("decode", "decode_message", "buf, len, &v, &arena, &err");
        let _ = write!(
            s,
            r#"
static int run_{n}(const uint8_t *buf, size_t len, int message, int all) {{
    wl_buf out, a, b;
    wl_arena arena;
    size_t at = 0, records = 0;
    int status = 1;
    wl_buf_init(&out);
    wl_buf_init(&a);
    wl_buf_init(&b);
    wl_arena_init_heap(&arena);
    (void)message;
    js_raw(&out, "[");
    while (at < len || records == 0) {{
        {n} v;
        {n}_view w;
        size_t used = 0, vused = 0;
        wl_error err;
        char msg[512];
        if ({dec} != WL_OK ||
            {decv} != WL_OK) {{
            wl_error_format(&err, msg, sizeof msg);
            fprintf(stderr, "record %zu: %s\n", records, msg);
            goto done;
        }}
        if (used != vused || used == 0) {{
            fprintf(stderr, "record %zu: the owned decoder used %zu bytes, the view %zu\n", records, used, vused);
            goto done;
        }}
        if (!all && {exact} != WL_OK) {{
            wl_error_format(&err, msg, sizeof msg);
            fprintf(stderr, "exact decode: %s\n", msg);
            goto done;
        }}
        wl_buf_clear(&a);
        wl_buf_clear(&b);
        print_{n}(&a, &v);
        printv_{n}(&b, &w);
        if (a.len != b.len || memcmp(a.data, b.data, a.len) != 0) {{
            fprintf(stderr, "record %zu: the view decoder disagrees with the owned decoder\n", records);
            goto done;
        }}
        if (records > 0) js_raw(&out, ",");
        wl_buf_append(&out, a.data, a.len);
        wl_arena_reset(&arena);
        at += used;
        records++;
        if (!all) break;
    }}
    if (at != len) {{
        fprintf(stderr, "%zu trailing bytes\n", len - at);
        goto done;
    }}
    js_raw(&out, "]");
    if (all) fwrite(out.data, 1, out.len, stdout);
    else fwrite(out.data + 1, 1, out.len - 2, stdout);
    status = 0;
done:
    wl_buf_free(&out);
    wl_buf_free(&a);
    wl_buf_free(&b);
    wl_arena_free(&arena);
    return status;
}}
"#
        );
        let _ = writeln!(
            dispatch,
            "    if (strcmp(argv[1], {}) == 0) status = run_{n}(in.data, in.len, message, all);",
            c_string(&def.name)
        );
    }
    let _ = write!(
        s,
        r#"
int main(int argc, char **argv) {{
    wl_buf in;
    int message, all, status = 2;
    if (argc != 4) {{
        fprintf(stderr, "usage: decoder TYPE byte|message one|all < bytes\n");
        return 2;
    }}
{BINARY_STDIO}    message = strcmp(argv[2], "message") == 0;
    all = strcmp(argv[3], "all") == 0;
    wl_buf_init(&in);
    if (wl_buf_reserve(&in, 1 << 16) != WL_OK) return 2;
    for (;;) {{
        size_t got;
        if (wl_buf_reserve(&in, 1 << 16) != WL_OK) return 2;
        got = fread(in.data + in.len, 1, in.cap - in.len, stdin);
        if (got == 0) break;
        in.len += got;
    }}
{dispatch}    if (status == 2) fprintf(stderr, "no type %s\n", argv[1]);
    wl_buf_free(&in);
    return status;
}}
"#
    );
    s
}
