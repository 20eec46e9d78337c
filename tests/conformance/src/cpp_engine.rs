//! The `cpp` engine: the code the C++ emitter generates, compiled with `g++` (or `--cxx`,
//! `$WIRELENS_CXX`, `$CXX`; a cross compiler's programs run through `--runner`, see
//! `toolchain`) `-std=c++17 -O1 -Wall -Wextra -Werror -pedantic -fno-exceptions`. Per schema it builds
//! one program holding the generated header for each field order the dialect has (one
//! namespace each) plus a driver generated here from the same layout: JSON → generated
//! struct (a small JSON reader in C++, numbers kept as text so 64-bit integers are exact)
//! and generated struct → JSON. `encode` reads the case's JSON on stdin and writes the
//! bytes through the generated encoder; `decode` reads the bytes, decodes them with the
//! owned decoders (`decode_prefix`, and `decode` for single records) and the view
//! decoders (which must agree), and prints JSON. Programs are rebuilt only when a source
//! changed.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Mutex;

use serde_json::Value;
use wirelens_core::codec::Mode;
use wirelens_core::layout::{Layout, Wire};
use wirelens_core::model::{Primitive, Schema};
use wirelens_core::{analyze, Dialect, FieldOrder, OrderChoice};
use wirelens_generators::cpp::{
    field_names, generate_with, namespace, runtime_files, type_names, CppOptions, Memory, OwnedStrings,
};

use crate::toolchain::{Toolchain, BINARY_STDIO, BINARY_STDIO_INCLUDES};
use crate::{lock, Case, Engine};

pub struct CppEngine {
    root: PathBuf,
    /// `cpp-compact`: owned strings are `wirelens::CompactString`.
    strings: OwnedStrings,
    /// `cpp-arena`: views keep their arrays in a `wirelens::Arena`.
    memory: Memory,
    cxx: Toolchain,
    built: Mutex<HashMap<PathBuf, Result<PathBuf, String>>>,
}

impl CppEngine {
    pub fn new(strings: OwnedStrings, memory: Memory, cxx: Toolchain) -> CppEngine {
        CppEngine {
            root: Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."),
            strings,
            memory,
            cxx,
            built: Mutex::new(HashMap::new()),
        }
    }

    fn binary(&self, case: &Case) -> Result<PathBuf, String> {
        if let Some(r) = lock(&self.built).get(&case.schema) {
            return r.clone();
        }
        let r = self.build(case);
        lock(&self.built).insert(case.schema.clone(), r.clone());
        r
    }

    fn build(&self, case: &Case) -> Result<PathBuf, String> {
        let text = std::fs::read_to_string(&case.schema).map_err(|e| format!("{}: {e}", case.schema.display()))?;
        let file = case
            .schema
            .file_name()
            .and_then(|s| s.to_str())
            .unwrap_or("schema")
            .to_string();
        let (stem, ext) = file.rsplit_once('.').unwrap_or((&file, "x"));
        let orders: &[FieldOrder] = match case.dialect {
            Dialect::Sdp => &[FieldOrder::Declaration],
            Dialect::Ffi => &[FieldOrder::Canonical, FieldOrder::Declaration],
        };
        let flavour = match (self.strings, self.memory) {
            (OwnedStrings::Std, Memory::Std) => "",
            (OwnedStrings::Compact, Memory::Std) => "compact_",
            (OwnedStrings::Std, Memory::Arena) => "arena_",
            (OwnedStrings::Compact, Memory::Arena) => "compact_arena_",
        };
        let dir_name: String = format!("{flavour}{}_{stem}", case.dialect.name())
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let dir = self
            .cxx
            .build_dir(&self.root.join("target/conformance-cpp"))
            .join(&dir_name);
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        for f in runtime_files() {
            write_if_changed(&dir.join(&f.name), &f.contents)?;
        }
        write_if_changed(&dir.join("json.hpp"), JSON_LIB)?;
        let mut includes = String::new();
        let mut body = String::new();
        let mut dispatch = String::new();
        for &order in orders {
            let a = analyze(
                case.dialect,
                &text,
                None,
                OrderChoice {
                    order: Some(order),
                    overrides_directive: true,
                },
            );
            // One namespace per order: the source name picks it.
            let source = format!("{stem}_{}.{ext}", order.as_str());
            let opts = CppOptions {
                strings: self.strings,
                memory: self.memory,
            };
            let files = generate_with(&a.schema, &a.layout, &source, &opts).map_err(|e| e.to_string())?;
            for f in &files {
                write_if_changed(&dir.join(&f.name), &f.contents)?;
                let _ = writeln!(includes, "#include \"{}\"", f.name);
            }
            let ns = namespace(&source);
            json_functions(&a.schema, &a.layout, &ns, &mut body);
            // SDP has one order; ffire's programs hold both and pick by the case's.
            let cond = match case.dialect {
                Dialect::Sdp => "true".to_string(),
                Dialect::Ffi => format!("order == \"{}\"", order.as_str()),
            };
            let _ = writeln!(dispatch, "    if ({cond}) {{");
            let names = type_names(&a.schema, &a.layout);
            for (id, def) in a.schema.types.iter().enumerate() {
                let Some(t) = a.layout.get(id) else { continue };
                if !(def.is_struct() || t.root) {
                    continue;
                }
                let _ = writeln!(
                    dispatch,
                    "        if (root == {:?}) return run<{ns}::{}, {}>(cmd, message, all, input, out);",
                    def.name,
                    names[id],
                    t.message_id.is_some()
                );
            }
            dispatch.push_str("    }\n");
        }
        let arena = if self.memory == Memory::Arena {
            "#define WL_ARENA 1\n"
        } else {
            ""
        };
        let main = format!(
            "{arena}{includes}#include \"json.hpp\"\n{BINARY_STDIO_INCLUDES}{body}{DRIVER_RUN}{}{}",
            {
                format!("\nstatic bool dispatch(const std::string& order, const std::string& root, const std::string& cmd, bool message, bool all, const Bytes& input, Bytes& out) {{\n    (void)order;\n{dispatch}    return fail(\"no type \" + root);\n}}\n")
            },
            DRIVER_MAIN.replace("BINARY_STDIO\n", BINARY_STDIO)
        );
        write_if_changed(&dir.join("main.cpp"), &main)?;
        let exe = self.cxx.exe(&dir, "driver");
        if needs_rebuild(&exe, &dir)? {
            let out = self
                .cxx
                .compile()
                .args([
                    "-std=c++17",
                    "-O1",
                    "-Wall",
                    "-Wextra",
                    "-Werror",
                    "-pedantic",
                    "-fno-exceptions",
                    "main.cpp",
                    "-o",
                    "driver.tmp",
                ])
                .current_dir(&dir)
                .output()
                .map_err(|e| {
                    format!(
                        "{}: {e} (the cpp engine needs a C++17 compiler; set CXX)",
                        self.cxx.name()
                    )
                })?;
            if !out.status.success() {
                return Err(format!(
                    "{} failed on the generated code:\n{}",
                    self.cxx.name(),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
            std::fs::rename(dir.join("driver.tmp"), &exe).map_err(|e| e.to_string())?;
        }
        Ok(exe)
    }

    fn run(&self, case: &Case, command: &str, stdin: &[u8]) -> Result<Vec<u8>, String> {
        let bin = self.binary(case)?;
        let mode = if case.mode == Mode::Message { "message" } else { "byte" };
        let all = if case.all { "all" } else { "one" };
        let mut child = self
            .cxx
            .run(&bin)
            .args([command, case.order.as_str(), &case.root, mode, all])
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

impl Engine for CppEngine {
    fn name(&self) -> &str {
        match (self.strings, self.memory) {
            (OwnedStrings::Std, Memory::Std) => "cpp",
            (OwnedStrings::Compact, Memory::Std) => "cpp-compact",
            (OwnedStrings::Std, Memory::Arena) => "cpp-arena",
            (OwnedStrings::Compact, Memory::Arena) => "cpp-compact-arena",
        }
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

/// Whether `exe` is missing or older than a source file in `dir`.
fn needs_rebuild(exe: &Path, dir: &Path) -> Result<bool, String> {
    let Ok(built) = std::fs::metadata(exe).and_then(|m| m.modified()) else {
        return Ok(true);
    };
    for entry in std::fs::read_dir(dir).map_err(|e| e.to_string())?.flatten() {
        let p = entry.path();
        if p.extension().is_some_and(|e| e == "hpp" || e == "cpp") {
            let changed = entry.metadata().and_then(|m| m.modified()).map_err(|e| e.to_string())?;
            if changed > built {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// Per value type of one namespace: `read_json(const json::Value&, T&)` and
/// `write_json(const T&, std::string&)`, declared first, then defined.
fn json_functions(schema: &Schema, layout: &Layout, ns: &str, out: &mut String) {
    let names = type_names(schema, layout);
    let mut decls = String::new();
    let mut defs = String::new();
    for (id, def) in schema.types.iter().enumerate() {
        let Some(t) = layout.get(id) else { continue };
        if !(def.is_struct() || t.root) {
            continue;
        }
        let ty = format!("{ns}::{}", names[id]);
        let _ = writeln!(decls, "static bool read_json(const json::Value& j, {ty}& v);");
        let _ = writeln!(decls, "static void write_json(const {ty}& v, std::string& out);");
        let mut k = 0;
        let _ = writeln!(defs, "\nstatic bool read_json(const json::Value& j, {ty}& v) {{");
        let mut w = String::from("\nstatic void write_json(const ");
        let _ = writeln!(w, "{ty}& v, std::string& out) {{");
        if def.is_struct() {
            let keys: Vec<String> = def.fields().iter().map(|f| format!("{:?}", f.json_name)).collect();
            let _ = writeln!(
                defs,
                "    static const char* const keys[] = {{{}}};\n    if (!json::known_keys(j, keys, {})) return false;",
                keys.join(", "),
                keys.len()
            );
            let members = field_names(schema, id);
            w.push_str("    out += '{';\n");
            for (i, f) in def.fields().iter().enumerate() {
                let Some(fl) = t.field_by_decl(i) else { continue };
                let _ = writeln!(
                    defs,
                    "    {{\n        const json::Value& f = json::get(j, {:?});",
                    f.json_name
                );
                from_json(&mut defs, &format!("v.{}", members[i]), &fl.wire, "f", &mut k, 2);
                defs.push_str("    }\n");
                if i > 0 {
                    w.push_str("    out += ',';\n");
                }
                let _ = writeln!(w, "    json::put_string(out, {:?});\n    out += ':';", f.json_name);
                to_json(&mut w, &format!("v.{}", members[i]), &fl.wire, &mut k, 1);
            }
            w.push_str("    out += '}';\n");
        } else {
            from_json(&mut defs, "v.value", &t.wire, "j", &mut k, 1);
            to_json(&mut w, "v.value", &t.wire, &mut k, 1);
        }
        defs.push_str("    return true;\n}\n");
        w.push_str("}\n");
        defs.push_str(&w);
    }
    out.push_str(&decls);
    out.push_str(&defs);
}

fn pad(d: usize) -> String {
    "    ".repeat(d)
}

/// Statements reading JSON value `j` into `place`.
fn from_json(s: &mut String, place: &str, wire: &Wire, j: &str, k: &mut usize, d: usize) {
    let p = pad(d);
    match wire {
        Wire::Prim(Primitive::Str) => {
            let _ = writeln!(s, "{p}if (!json::get_string({j}, {place})) return false;");
        }
        Wire::Prim(_) => {
            let _ = writeln!(s, "{p}if (!json::get_prim({j}, {place})) return false;");
        }
        Wire::Array(e) => match &**e {
            Wire::Prim(q) if *q != Primitive::Str => {
                let _ = writeln!(s, "{p}if (!json::get_prims({j}, {place})) return false;");
            }
            e => {
                let n = *k;
                *k += 1;
                let _ = writeln!(
                    s,
                    "{p}if ({j}.kind != json::Value::Array) return json::bad(\"expected an array\");"
                );
                let _ = writeln!(s, "{p}{place}.resize({j}.items.size());");
                let _ = writeln!(s, "{p}for (size_t i{n} = 0; i{n} < {j}.items.size(); ++i{n}) {{");
                let _ = writeln!(s, "{p}    const json::Value& e{n} = {j}.items[i{n}];");
                from_json(s, &format!("{place}[i{n}]"), e, &format!("e{n}"), k, d + 1);
                let _ = writeln!(s, "{p}}}");
            }
        },
        Wire::Optional(e) => {
            let n = *k;
            *k += 1;
            let _ = writeln!(s, "{p}if ({j}.kind != json::Value::Null) {{");
            let _ = writeln!(s, "{p}    auto& x{n} = {place}.emplace();");
            from_json(s, &format!("x{n}"), e, j, k, d + 1);
            let _ = writeln!(s, "{p}}}");
        }
        Wire::Struct(_) => {
            let _ = writeln!(s, "{p}if (!read_json({j}, {place})) return false;");
        }
    }
}

/// Statements writing `place` as JSON to `out`.
fn to_json(s: &mut String, place: &str, wire: &Wire, k: &mut usize, d: usize) {
    let p = pad(d);
    match wire {
        Wire::Prim(Primitive::Str) => {
            let _ = writeln!(s, "{p}json::put_string(out, {place});");
        }
        Wire::Prim(Primitive::Bool) => {
            let _ = writeln!(s, "{p}out += ({place}) ? \"true\" : \"false\";");
        }
        Wire::Prim(q) => {
            let _ = writeln!(
                s,
                "{p}json::put_number(out, static_cast<{}>({place}));",
                wirelens_generators::cpp::prim_type(*q)
            );
        }
        Wire::Array(e) => {
            let n = *k;
            *k += 1;
            let _ = writeln!(s, "{p}out += '[';");
            let _ = writeln!(s, "{p}for (size_t i{n} = 0; i{n} < {place}.size(); ++i{n}) {{");
            let _ = writeln!(s, "{p}    if (i{n} > 0) out += ',';");
            to_json(s, &format!("{place}[i{n}]"), e, k, d + 1);
            let _ = writeln!(s, "{p}}}");
            let _ = writeln!(s, "{p}out += ']';");
        }
        Wire::Optional(e) => {
            let _ = writeln!(s, "{p}if ({place}) {{");
            to_json(s, &format!("(*{place})"), e, k, d + 1);
            let _ = writeln!(s, "{p}}} else {{");
            let _ = writeln!(s, "{p}    out += \"null\";");
            let _ = writeln!(s, "{p}}}");
        }
        Wire::Struct(_) => {
            let _ = writeln!(s, "{p}write_json({place}, out);");
        }
    }
}

/// Encode and decode through one generated type (SDP types also in message mode).
const DRIVER_RUN: &str = r#"
using Bytes = std::vector<uint8_t>;

static std::string g_error;

static bool fail(const std::string& what) {
    g_error = what;
    return false;
}

template <class T>
static bool encode_bytes(const T& v, Bytes& out) {
    wirelens::Status s = v.encode(out);
    return s ? true : fail("encode: " + s.error().message());
}

template <class T, bool Sdp>
static bool run(const std::string& cmd, bool message, bool all, const Bytes& input, Bytes& out) {
    if (cmd == "encode") {
        json::Value doc;
        std::string text(input.begin(), input.end());
        if (!json::parse(text, doc)) {
            return fail("bad JSON: " + json::g_error);
        }
        std::vector<const json::Value*> records;
        if (all) {
            if (doc.kind != json::Value::Array) {
                return fail("expected an array of records");
            }
            for (const json::Value& r : doc.items) {
                records.push_back(&r);
            }
        } else {
            records.push_back(&doc);
        }
        for (const json::Value* r : records) {
            T value;
            if (!read_json(*r, value)) {
                return fail("JSON does not fit the type: " + json::g_error);
            }
            wirelens::Status s;
            if constexpr (Sdp) {
                s = message ? value.encode_message(out) : value.encode(out);
            } else {
                s = value.encode(out);
            }
            if (!s) {
                return fail(s.error().message());
            }
        }
        return true;
    }
    std::string text = "[";
    size_t at = 0;
    do {
        const uint8_t* p = input.data() + at;
        const size_t left = input.size() - at;
        auto r = T::decode_prefix(p, left);
        if constexpr (Sdp) {
            if (message) {
                r = T::decode_message_prefix(p, left);
            }
        }
        if (!r) {
            return fail("decode at " + std::to_string(at) + ": " + r.error().message());
        }
        const size_t used = r->used;
        if (used == 0) {
            return fail("a record used no bytes");
        }
        // The record alone, in its own allocation.
        const Bytes record(p, p + used);
#ifdef WL_ARENA
        // One arena for every record, reset before each: a small first block, so views grow
        // it and reset() merges the blocks; a second decode after reset() must give the same
        // value and take no more memory (the steady state allocates nothing).
        static wirelens::Arena arena(16);
        Bytes again;
        for (int round = 0; round < 2; ++round) {
            arena.reset();
            const size_t held = arena.capacity();
            auto w = T::decode_view(record.data(), record.size(), arena);
            if constexpr (Sdp) {
                if (message) {
                    w = T::decode_message_view(record.data(), record.size(), arena);
                }
            }
            if (!w) {
                return fail("the arena view decoder failed: " + w.error().message());
            }
            Bytes e;
            if (!encode_bytes(w->to_owned(), e)) {
                return false;
            }
            if (round == 1 && (e != again || arena.capacity() != held)) {
                return fail("a view decoded again into the reset arena differs or took more memory");
            }
            again = e;
        }
        arena.reset();
        auto v = T::decode_view(record.data(), record.size(), arena);
        if constexpr (Sdp) {
            if (message) {
                v = T::decode_message_view(record.data(), record.size(), arena);
            }
        }
#else
        auto v = T::decode_view(record.data(), record.size());
        if constexpr (Sdp) {
            if (message) {
                v = T::decode_message_view(record.data(), record.size());
            }
        }
#endif
        if (!v) {
            return fail("the view decoder failed: " + v.error().message());
        }
        auto exact = T::decode(record.data(), record.size());
        if constexpr (Sdp) {
            if (message) {
                exact = T::decode_message(record.data(), record.size());
            }
        }
        if (!exact) {
            return fail("decode failed: " + exact.error().message());
        }
        Bytes a, b, c;
        if (!encode_bytes(v->to_owned(), a) || !encode_bytes(r->value, b) || !encode_bytes(*exact, c)) {
            return false;
        }
        if (a != b) {
            return fail("the view decoder disagrees with the owned decoder");
        }
        if (c != b) {
            return fail("decode disagrees with decode_prefix");
        }
#ifdef WL_ARENA
        // The owned decoders with an arena (strings and arrays in it), twice into one
        // arena reset in between: the same bytes again, and no more memory the second time.
        {
            static wirelens::Arena owned_arena(16);
            Bytes first;
            for (int round = 0; round < 2; ++round) {
                owned_arena.reset();
                const size_t held = owned_arena.capacity();
                auto o = T::decode(record.data(), record.size(), owned_arena);
                if constexpr (Sdp) {
                    if (message) {
                        o = T::decode_message(record.data(), record.size(), owned_arena);
                    }
                }
                if (!o) {
                    return fail("the owned decoder with an arena failed: " + o.error().message());
                }
                Bytes e;
                if (!encode_bytes(*o, e) || e != b) {
                    return fail("the owned decoder with an arena disagrees with decode_prefix");
                }
                if (round == 1 && owned_arena.capacity() != held) {
                    return fail("an owned decode into the reset arena took more memory");
                }
            }
        }
#endif
        if (at > 0) {
            text += ',';
        }
        write_json(r->value, text);
        at += used;
    } while (all && at < input.size());
    if (at != input.size()) {
        return fail(std::to_string(input.size() - at) + " trailing bytes");
    }
    text += ']';
    if (!all) {
        text = text.substr(1, text.size() - 2);
    }
    out.assign(text.begin(), text.end());
    return true;
}
"#;

const DRIVER_MAIN: &str = r#"
int main(int argc, char** argv) {
    if (argc != 6) {
        std::fprintf(stderr, "usage: driver encode|decode ORDER ROOT byte|message one|all < input\n");
        return 2;
    }
BINARY_STDIO
    Bytes input;
    uint8_t buf[65536];
    size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, stdin)) > 0) {
        input.insert(input.end(), buf, buf + n);
    }
    Bytes out;
    const std::string mode = argv[4];
    if (!dispatch(argv[2], argv[3], argv[1], mode == "message", std::string(argv[5]) == "all", input, out)) {
        std::fprintf(stderr, "%s\n", g_error.c_str());
        return 1;
    }
    if (!out.empty() && std::fwrite(out.data(), 1, out.size(), stdout) != out.size()) {
        return 1;
    }
    return 0;
}
"#;

/// A minimal JSON reader/writer for the driver (the generated code has no JSON).
const JSON_LIB: &str = r#####"// JSON for the conformance driver: numbers are kept as text and converted exactly.
#ifndef CONFORMANCE_JSON_HPP
#define CONFORMANCE_JSON_HPP

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace json {

inline std::string g_error;

inline bool bad(const std::string& what) {
    g_error = what;
    return false;
}

struct Value {
    enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
    bool boolean = false;
    std::string text;  // a number's literal text, or a string's UTF-8
    std::vector<Value> items;  // array elements, or object values
    std::vector<std::string> keys;  // object keys (parallel to items)
};

struct Parser {
    const std::string& s;
    size_t at = 0;

    void ws() {
        while (at < s.size() && (s[at] == ' ' || s[at] == '\n' || s[at] == '\r' || s[at] == '\t')) {
            ++at;
        }
    }

    bool literal(const char* word) {
        const size_t n = std::strlen(word);
        if (s.compare(at, n, word) != 0) {
            return bad("unexpected character");
        }
        at += n;
        return true;
    }

    bool hex4(unsigned& out) {
        if (at + 4 > s.size()) {
            return bad("short \\u escape");
        }
        out = 0;
        for (int i = 0; i < 4; ++i) {
            const char c = s[at++];
            out <<= 4;
            if (c >= '0' && c <= '9') {
                out |= static_cast<unsigned>(c - '0');
            } else if (c >= 'a' && c <= 'f') {
                out |= static_cast<unsigned>(c - 'a' + 10);
            } else if (c >= 'A' && c <= 'F') {
                out |= static_cast<unsigned>(c - 'A' + 10);
            } else {
                return bad("bad \\u escape");
            }
        }
        return true;
    }

    static void utf8(std::string& out, unsigned cp) {
        if (cp < 0x80) {
            out += static_cast<char>(cp);
        } else if (cp < 0x800) {
            out += static_cast<char>(0xC0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out += static_cast<char>(0xE0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (cp >> 18));
            out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        }
    }

    bool string(std::string& out) {
        if (at >= s.size() || s[at] != '"') {
            return bad("expected a string");
        }
        ++at;
        while (true) {
            if (at >= s.size()) {
                return bad("unterminated string");
            }
            const char c = s[at++];
            if (c == '"') {
                return true;
            }
            if (c != '\\') {
                out += c;
                continue;
            }
            if (at >= s.size()) {
                return bad("bad escape");
            }
            const char e = s[at++];
            switch (e) {
                case '"': out += '"'; break;
                case '\\': out += '\\'; break;
                case '/': out += '/'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': {
                    unsigned hi = 0;
                    if (!hex4(hi)) {
                        return false;
                    }
                    unsigned cp = hi;
                    if (hi >= 0xD800 && hi < 0xDC00 && s.compare(at, 2, "\\u") == 0) {
                        at += 2;
                        unsigned lo = 0;
                        if (!hex4(lo)) {
                            return false;
                        }
                        cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                    }
                    utf8(out, cp);
                    break;
                }
                default:
                    return bad("bad escape");
            }
        }
    }

    bool value(Value& v, int depth) {
        if (depth > 200) {
            return bad("nested too deeply");
        }
        ws();
        if (at >= s.size()) {
            return bad("unexpected end");
        }
        const char c = s[at];
        if (c == '{') {
            ++at;
            v.kind = Value::Object;
            ws();
            if (at < s.size() && s[at] == '}') {
                ++at;
                return true;
            }
            while (true) {
                ws();
                v.keys.emplace_back();
                if (!string(v.keys.back())) {
                    return false;
                }
                ws();
                if (at >= s.size() || s[at] != ':') {
                    return bad("expected :");
                }
                ++at;
                v.items.emplace_back();
                if (!value(v.items.back(), depth + 1)) {
                    return false;
                }
                ws();
                if (at < s.size() && s[at] == ',') {
                    ++at;
                } else if (at < s.size() && s[at] == '}') {
                    ++at;
                    return true;
                } else {
                    return bad("expected , or }");
                }
            }
        }
        if (c == '[') {
            ++at;
            v.kind = Value::Array;
            ws();
            if (at < s.size() && s[at] == ']') {
                ++at;
                return true;
            }
            while (true) {
                v.items.emplace_back();
                if (!value(v.items.back(), depth + 1)) {
                    return false;
                }
                ws();
                if (at < s.size() && s[at] == ',') {
                    ++at;
                } else if (at < s.size() && s[at] == ']') {
                    ++at;
                    return true;
                } else {
                    return bad("expected , or ]");
                }
            }
        }
        if (c == '"') {
            v.kind = Value::String;
            return string(v.text);
        }
        if (c == 't') {
            v.kind = Value::Bool;
            v.boolean = true;
            return literal("true");
        }
        if (c == 'f') {
            v.kind = Value::Bool;
            return literal("false");
        }
        if (c == 'n') {
            return literal("null");
        }
        const size_t start = at;
        while (at < s.size() && (std::strchr("+-.eE0123456789", s[at]) != nullptr) && s[at] != '\0') {
            ++at;
        }
        if (start == at) {
            return bad("unexpected character");
        }
        v.kind = Value::Number;
        v.text = s.substr(start, at - start);
        return true;
    }
};

inline bool parse(const std::string& text, Value& out) {
    Parser p{text};
    if (!p.value(out, 0)) {
        return false;
    }
    p.ws();
    return p.at == text.size() ? true : bad("trailing JSON");
}

inline const Value& get(const Value& obj, const char* key) {
    static const Value null_value;
    for (size_t i = 0; i < obj.keys.size(); ++i) {
        if (obj.keys[i] == key) {
            return obj.items[i];
        }
    }
    return null_value;
}

inline bool known_keys(const Value& obj, const char* const* keys, size_t n) {
    if (obj.kind != Value::Object) {
        return bad("expected an object");
    }
    for (const std::string& k : obj.keys) {
        bool found = false;
        for (size_t i = 0; i < n; ++i) {
            found = found || k == keys[i];
        }
        if (!found) {
            return bad("unknown field " + k);
        }
    }
    return true;
}

template <class S>
inline bool get_string(const Value& v, S& out) {
    if (v.kind != Value::String) {
        return bad("expected a string");
    }
    out.assign(v.text.data(), v.text.size());
    return true;
}

inline bool integer_text(const std::string& t) {
    size_t i = (!t.empty() && t[0] == '-') ? 1 : 0;
    if (i == t.size()) {
        return false;
    }
    for (; i < t.size(); ++i) {
        if (t[i] < '0' || t[i] > '9') {
            return false;
        }
    }
    return true;
}

template <class T>
inline bool get_prim(const Value& v, T& out) {
    if constexpr (std::is_same_v<T, bool>) {
        if (v.kind != Value::Bool) {
            return bad("expected a boolean");
        }
        out = v.boolean;
        return true;
    } else if constexpr (std::is_floating_point_v<T>) {
        const char* text = nullptr;
        if (v.kind == Value::Number) {
            text = v.text.c_str();
        } else if (v.kind == Value::String && v.text == "NaN") {
            text = "nan";
        } else if (v.kind == Value::String && v.text == "Infinity") {
            text = "inf";
        } else if (v.kind == Value::String && v.text == "-Infinity") {
            text = "-inf";
        } else {
            return bad("expected a number");
        }
        char* end = nullptr;
        // strtof rounds the decimal text once, straight to binary32.
        if constexpr (std::is_same_v<T, float>) {
            out = std::strtof(text, &end);
        } else {
            out = std::strtod(text, &end);
        }
        return *end == '\0' ? true : bad(std::string("bad number ") + text);
    } else {
        if (v.kind != Value::Number || !integer_text(v.text)) {
            return bad("expected an integer");
        }
        errno = 0;
        char* end = nullptr;
        if constexpr (std::is_signed_v<T>) {
            const long long x = std::strtoll(v.text.c_str(), &end, 10);
            if (errno != 0 || x < static_cast<long long>(std::numeric_limits<T>::min()) ||
                x > static_cast<long long>(std::numeric_limits<T>::max())) {
                return bad("integer out of range: " + v.text);
            }
            out = static_cast<T>(x);
        } else {
            if (v.text[0] == '-') {
                return bad("negative value for an unsigned type: " + v.text);
            }
            const unsigned long long x = std::strtoull(v.text.c_str(), &end, 10);
            if (errno != 0 || x > static_cast<unsigned long long>(std::numeric_limits<T>::max())) {
                return bad("integer out of range: " + v.text);
            }
            out = static_cast<T>(x);
        }
        return true;
    }
}

template <class T, class A>
inline bool get_prims(const Value& v, std::vector<T, A>& out) {
    if (v.kind != Value::Array) {
        return bad("expected an array");
    }
    out.resize(v.items.size());
    for (size_t i = 0; i < v.items.size(); ++i) {
        T x{};
        if (!get_prim(v.items[i], x)) {
            return false;
        }
        out[i] = x;
    }
    return true;
}

inline void put_string(std::string& out, std::string_view s) {
    out += '"';
    for (const char ch : s) {
        const unsigned char c = static_cast<unsigned char>(ch);
        if (c == '"') {
            out += "\\\"";
        } else if (c == '\\') {
            out += "\\\\";
        } else if (c < 0x20) {
            char esc[8];
            std::snprintf(esc, sizeof esc, "\\u%04x", c);
            out += esc;
        } else {
            out += ch;
        }
    }
    out += '"';
}

template <class T>
inline void put_number(std::string& out, T x) {
    char buf[64];
    if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(x)) {
            out += "\"NaN\"";
            return;
        }
        if (std::isinf(x)) {
            out += x > 0 ? "\"Infinity\"" : "\"-Infinity\"";
            return;
        }
        // 9 / 17 significant digits read back to the same float / double.
        std::snprintf(buf, sizeof buf, "%.*g", std::is_same_v<T, float> ? 9 : 17, static_cast<double>(x));
        out += buf;
        if (std::strpbrk(buf, ".e") == nullptr) {
            out += ".0";
        }
    } else if constexpr (std::is_signed_v<T>) {
        std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(x));
        out += buf;
    } else {
        std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(x));
        out += buf;
    }
}

}  // namespace json

#endif
"#####;
