//! `random-vectors --out DIR [--seed N] [--schemas K] [--cases M]`: writes a vectors
//! directory (the layout of `tests/vectors`) of random schemas of both dialects and
//! random values, encoded by the reference codec (`wirelens_core::codec`). Run through
//! `tests/conformance/run --vectors DIR --lang cli,c,cpp,rust`, it is the property test of
//! spec §9: every generated language must produce exactly these bytes and read them
//! back to the same values.
//!
//! Schemas cover what the golden vectors do not: nested arrays, arrays of optionals and
//! structs, `Box` (and nested `Option`/`Box`, which collapse as upstream collapses them),
//! every ffire optional kind, array and named-primitive roots, field names from the full set
//! upstream allows (leading `_`, `__`, trailing `_`, keywords of C, C++ and Rust that
//! upstream does not reserve, random identifiers, Unicode ffire names: the generated code
//! must compile warning-free for all of them), Unicode and NUL in strings, extreme integers, −0.0,
//! SDP message mode and back-to-back records. Each schema is checked with the real
//! checker and drawn again if it has errors. SDP schemas sometimes get a name upstream
//! reserves (issue #19's list, in a random case): the checker must report
//! `RESERVED_KEYWORD` exactly when one is present. Type names include case twins and a
//! leading `_` (`Point`, `point`, `_Point`, `POINT`) and the generated C++'s template
//! parameter names (`V`, `T`, `F`); field names GNU keywords (`typeof`, `asm`,
//! `__typeof__`); now and then a schema gets a deep `Option` chain (SDP, 50-110 levels)
//! and an array nested 9 to 31 deep (issue 36, 39).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap::Parser;
use serde_json::{json, Map, Value};
use wirelens_core::codec::{Codec, Mode};
use wirelens_core::layout::Wire;
use wirelens_core::model::{Primitive, Schema, TypeId};
use wirelens_core::{analyze, Dialect, FieldOrder, OrderChoice};

#[derive(Parser)]
struct Args {
    /// The directory to (re)create.
    #[arg(long)]
    out: PathBuf,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Schemas per dialect.
    #[arg(long, default_value_t = 6)]
    schemas: usize,
    /// Cases per schema.
    #[arg(long, default_value_t = 4)]
    cases: usize,
}

/// xorshift64*: deterministic for a seed, no dependency.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Field names: ordinary ones and keywords of the target languages (C, C++, Rust), which
/// the emitters must escape. SDP's checker rejects some of them; those schemas are drawn
/// again.
const SDP_NAMES: &[&str] = &[
    "id",
    "name",
    "value",
    "count",
    "flags",
    "items",
    "data",
    "offset",
    "gain_db",
    "label",
    "next",
    "kind",
    "mode",
    "int",
    "char",
    "default",
    "register",
    "new",
    "delete",
    "class",
    "namespace",
    "size",
    "len",
    "view",
    "result",
    "encode",
    "decode",
    "buf",
    "out",
    // Names upstream allows that need mapping or escaping in generated code (#19).
    "_edge",
    "x__y",
    "x_",
    "_",
    "__",
    "_1",
    "a_",
    "A",
    "Id",
    "nullptr",
    "constexpr",
    "alignas",
    "alignof",
    "static_assert",
    "thread_local",
    "template",
    "typename",
    "this",
    "operator",
    "friend",
    "explicit",
    "mutable",
    "noexcept",
    "decltype",
    "and",
    "or",
    "not",
    "xor",
    "bitand",
    "compl",
    "signed_",
    "errno",
    "assert",
    "std",
    "wl",
    "rt",
    "macro_rules",
    "union_",
    // GNU C/C++ keywords (issue 36 C1); the reserved ones are left out for SDP.
    "typeof",
    "asm",
    "inline",
    "restrict",
    "gen",
];
/// Names sdp-gen rejects as reserved (issue #19's list and some keywords); each must get
/// `RESERVED_KEYWORD`, in any case.
const SDP_RESERVED: &[&str] = &[
    "Arc",
    "Array",
    "Clone",
    "Dictionary",
    "EOF",
    "Err",
    "FILE",
    "IBAction",
    "IBOutlet",
    "NULL",
    "None",
    "Ok",
    "Option",
    "Optional",
    "Rc",
    "Result",
    "Send",
    "Set",
    "Sized",
    "Some",
    "Sync",
    "Vec",
    "didSet",
    "get",
    "int32_t",
    "lazy",
    "main",
    "nonobjc",
    "objc",
    "optional",
    "ptrdiff_t",
    "raw",
    "required",
    "set",
    "size_t",
    "uint8_t",
    "unknown",
    "unowned",
    "warn_unqualified_access",
    "wchar_t",
    "weak",
    "willSet",
    "type",
    "self",
    "fn",
    "int",
    "func",
    "_bool",
];
const FFI_NAMES: &[&str] = &[
    "ID",
    "Name",
    "Value",
    "Count",
    "Flags",
    "Items",
    "Data",
    "Offset",
    "GainDb",
    "Label",
    "Next",
    "Kind",
    "Mode",
    "Int",
    "Char",
    "Default",
    "Class",
    "Namespace",
    "Size",
    "Len",
    "View",
    "Result",
    "Encode",
    "Decode",
    "Self_",
    // Go identifiers upstream allows that need mapping or escaping in generated code (#19).
    "_under",
    "_x__y",
    "x_",
    "__",
    "Self",
    "self",
    "crate",
    "super",
    "nullptr",
    "class",
    "int",
    "string",
    "main",
    "NULL",
    "straße",
    "Größe",
    "Numéro",
    "名前",
    "Ä_",
    // GNU C/C++ keywords and their reserved spellings (issue 36 C1).
    "typeof",
    "asm",
    "inline",
    "restrict",
    "__typeof__",
    "__asm__",
    "Typeof",
];
/// Type names, with names that fold together in PascalCase (`Point`, `point`, `_Point`,
/// `POINT`) and names of the generated C++'s template parameters (`V`, `T`, `F`): every
/// language must give them distinct names that clash with nothing (issue 36 R2, C2).
const SDP_TYPES: &[&str] = &[
    "Record", "Entry", "Header", "Frame", "Sample", "Node", "Item", "Default", "Box2", "Point", "point", "_Point",
    "POINT", "V", "T", "F",
];
const FFI_TYPES: &[&str] = &[
    "Record",
    "Entry",
    "Header",
    "Frame",
    "Sample",
    "Node",
    "Item",
    "Default",
    "Vec",
    "Point",
    "point",
    "_Point",
    "POINT",
    "PointMessage",
    "V",
    "T",
    "F",
];

const SDP_PRIMS: &[&str] = &[
    "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f32", "f64", "bool", "str",
];
const FFI_PRIMS: &[&str] = &[
    "int8", "int16", "int32", "int64", "float32", "float64", "bool", "string",
];

/// A type expression for a field of struct `i`, which may mention structs `0..i`.
fn sdp_type(rng: &mut Rng, structs: &[String], i: usize, depth: usize) -> String {
    let choice = if depth >= 3 { 0 } else { rng.below(10) };
    match choice {
        0..=3 => rng.pick(SDP_PRIMS).to_string(),
        4 | 5 => format!("[]{}", sdp_type(rng, structs, i, depth + 1)),
        6 if i > 0 => structs[rng.below(i)].clone(),
        7 if i > 0 => format!("Option<{}>", structs[rng.below(i)]),
        8 if i > 0 => format!("Box<{}>", structs[rng.below(i)]),
        9 if i > 0 && rng.chance(70) => format!("[]Option<{}>", structs[rng.below(i)]),
        // Nested wrappers, collapsed as upstream does (`nested-wrapper` is a warning).
        9 if i > 0 => {
            let wrap = rng.pick(&[
                "Box<Option<{}>>",
                "Option<Option<{}>>",
                "Option<Box<Option<{}>>>",
                "Box<Box<{}>>",
            ]);
            wrap.replace("{}", &structs[rng.below(i)])
        }
        _ => rng.pick(SDP_PRIMS).to_string(),
    }
}

fn ffi_type(rng: &mut Rng, structs: &[String], i: usize, depth: usize) -> String {
    let choice = if depth >= 3 { 0 } else { rng.below(10) };
    match choice {
        0..=3 => rng.pick(FFI_PRIMS).to_string(),
        4 | 5 => format!("[]{}", ffi_type(rng, structs, i, depth + 1)),
        6 | 7 => format!("*{}", ffi_type(rng, structs, i, depth + 1)),
        8 | 9 if i > 0 => structs[rng.below(i)].clone(),
        _ => rng.pick(FFI_PRIMS).to_string(),
    }
}

fn unique_names<'a>(rng: &mut Rng, pool: &[&'a str], n: usize) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    while out.len() < n.min(pool.len()) {
        let name = *rng.pick(pool);
        if !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

/// A random identifier of the shape upstream allows, underscores where generators
/// stumble: `__a_1`, `x__Name_`, `_é_b` (non-ASCII only when `unicode`).
fn random_ident(rng: &mut Rng, unicode: bool) -> String {
    const WORDS: &[&str] = &["a", "x", "id", "Name", "v2", "Ab"];
    const UNICODE: &[&str] = &["é", "ß", "Ø", "名"];
    let mut out = rng.pick(&["", "_", "__"]).to_string();
    for i in 0..1 + rng.below(3) {
        if i > 0 {
            out.push_str(rng.pick::<&str>(&["_", "__", ""]));
        }
        if unicode && rng.chance(25) {
            out.push_str(rng.pick::<&str>(UNICODE));
        } else {
            out.push_str(rng.pick::<&str>(WORDS));
        }
    }
    out.push_str(rng.pick::<&str>(&["", "", "_", "__", "1"]));
    out
}

/// `count` distinct field names: from `fixed`, and now and then a random identifier.
/// For SDP, names upstream reserves are left out (see [`SDP_RESERVED`] for those).
fn field_names(rng: &mut Rng, fixed: &[&str], count: usize, dialect: Dialect) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut tries = 0;
    while out.len() < count && tries < 100 {
        tries += 1;
        let name = if rng.chance(25) {
            random_ident(rng, dialect == Dialect::Ffi)
        } else {
            rng.pick(fixed).to_string()
        };
        let usable = match dialect {
            Dialect::Sdp => wirelens_core::reserved::reserved_in(&name).is_empty(),
            // Go keywords are no identifiers; `_` is a blank field.
            Dialect::Ffi => name != "_",
        };
        if usable && !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

/// A name from [`SDP_RESERVED`] in a random case.
fn reserved_name(rng: &mut Rng) -> String {
    let name = rng.pick(SDP_RESERVED);
    match rng.below(3) {
        0 => name.to_string(),
        1 => name.to_ascii_uppercase(),
        _ => name.to_ascii_lowercase(),
    }
}

/// A random SDP schema, and whether it uses a name upstream reserves.
fn sdp_schema(rng: &mut Rng) -> (String, bool) {
    let n = 1 + rng.below(4);
    let structs: Vec<String> = unique_names(rng, SDP_TYPES, n).iter().map(|s| s.to_string()).collect();
    let mut text = String::from("// Random schema for the conformance property test.\n");
    // Some type names of the pool (`Default`) are reserved too.
    let mut reserved = structs
        .iter()
        .any(|s| !wirelens_core::reserved::reserved_in(s).is_empty());
    for (i, name) in structs.iter().enumerate() {
        let _ = writeln!(text, "\n/// Struct {i}.\nstruct {name} {{");
        let count = 1 + rng.below(6);
        let mut fields = field_names(rng, SDP_NAMES, count, Dialect::Sdp);
        if rng.chance(5) {
            fields.push(reserved_name(rng));
            reserved = true;
        }
        for field in fields {
            let _ = writeln!(text, "    {field}: {},", sdp_type(rng, &structs, i, 0));
        }
        text.push_str("}\n");
    }
    if rng.chance(15) {
        text.push_str(&sdp_deep(rng));
    }
    (text, reserved)
}

/// Deep shapes (issue 39), now and then: a chain of 50 to 110 structs each holding the
/// next in an `Option` (past the depth where generated Rust boxes a field), and an array
/// nested 9 to 24 deep (past the depth where generated C++ switches to
/// `wirelens::Nested`).
fn sdp_deep(rng: &mut Rng) -> String {
    let levels = 50 + rng.below(61);
    let mut text = String::from("\n/// A deep chain.\n");
    for k in 0..levels {
        let _ = writeln!(text, "struct Deep{k} {{ v: u8, n: Option<Deep{}> }}", k + 1);
    }
    let _ = writeln!(text, "struct Deep{levels} {{ v: u8 }}");
    let arrays = 9 + rng.below(16);
    let _ = writeln!(text, "struct Grid {{ cells: {}i32 }}", "[]".repeat(arrays));
    text
}

/// ffire's deep shapes: an array nested up to ffire's limit (a root's field is depth 1,
/// each array level 1 more, 32 at most), past the depth where generated C++ switches to
/// `wirelens::Nested`.
fn ffi_deep(rng: &mut Rng) -> String {
    let arrays = 9 + rng.below(23);
    format!("\ntype Grid struct {{\n\tCells {}int32\n}}\n", "[]".repeat(arrays))
}

fn ffi_schema(rng: &mut Rng) -> String {
    let n = 1 + rng.below(4);
    let structs: Vec<String> = unique_names(rng, FFI_TYPES, n).iter().map(|s| s.to_string()).collect();
    let mut text = String::from("// Random schema for the conformance property test.\npackage random\n");
    for (i, name) in structs.iter().enumerate() {
        let _ = writeln!(text, "\n// {name} is struct {i}.\ntype {name} struct {{");
        let count = 1 + rng.below(6);
        for field in field_names(rng, FFI_NAMES, count, Dialect::Ffi) {
            let ty = ffi_type(rng, &structs, i, 0);
            if rng.chance(50) {
                let _ = writeln!(text, "\t{field} {ty} `json:\"{}\"`", field.to_lowercase());
            } else {
                let _ = writeln!(text, "\t{field} {ty}");
            }
        }
        text.push_str("}\n");
    }
    // Array and named-primitive roots.
    if rng.chance(40) {
        let _ = writeln!(text, "\ntype List []{}", ffi_type(rng, &structs, structs.len(), 1));
    }
    if rng.chance(30) {
        let _ = writeln!(text, "\ntype Stamp {}", rng.pick(FFI_PRIMS));
    }
    if rng.chance(15) {
        text.push_str(&ffi_deep(rng));
    }
    text
}

const STRINGS: &[&str] = &[
    "",
    "a",
    "wirelens",
    "ä",
    "日本語",
    "🎛️ gain",
    "nul\u{0}inside",
    "quote\"back\\slash",
    "tab\tline\nend",
];

fn prim_value(rng: &mut Rng, p: Primitive) -> Value {
    let edge = rng.chance(30);
    macro_rules! int {
        ($t:ty) => {{
            let v: $t = if edge {
                *rng.pick(&[<$t>::MIN, <$t>::MAX, 0 as $t])
            } else {
                rng.next() as $t
            };
            json!(v)
        }};
    }
    match p {
        Primitive::U8 => int!(u8),
        Primitive::U16 => int!(u16),
        Primitive::U32 => int!(u32),
        Primitive::U64 => int!(u64),
        Primitive::I8 => int!(i8),
        Primitive::I16 => int!(i16),
        Primitive::I32 => int!(i32),
        Primitive::I64 => int!(i64),
        Primitive::Bool => json!(rng.chance(50)),
        Primitive::Str => json!(rng.pick(STRINGS)),
        Primitive::F32 => {
            let v = if edge {
                *rng.pick(&[0.0f32, -0.0, f32::MAX, f32::MIN_POSITIVE, 1.5])
            } else {
                f32::from_bits(rng.next() as u32)
            };
            let v = if v.is_finite() { v } else { 0.25 };
            // Shortest text that reads back as this f32.
            serde_json::from_str(&format!("{v:?}")).unwrap_or(json!(0))
        }
        Primitive::F64 => {
            let v = if edge {
                *rng.pick(&[0.0f64, -0.0, f64::MAX, f64::MIN_POSITIVE, -2.5])
            } else {
                f64::from_bits(rng.next())
            };
            let v = if v.is_finite() { v } else { -0.125 };
            serde_json::from_str(&format!("{v:?}")).unwrap_or(json!(0))
        }
    }
}

/// A random value of `wire`; `budget` bounds the total number of elements.
fn value(
    rng: &mut Rng,
    schema: &Schema,
    codec_layout: &wirelens_core::layout::Layout,
    wire: &Wire,
    budget: &mut usize,
) -> Value {
    match wire {
        Wire::Prim(p) => prim_value(rng, *p),
        Wire::Optional(inner) => {
            if rng.chance(40) {
                Value::Null
            } else {
                value(rng, schema, codec_layout, inner, budget)
            }
        }
        Wire::Array(elem) => {
            let n = if *budget == 0 { 0 } else { rng.below(4) };
            *budget = budget.saturating_sub(n);
            Value::Array((0..n).map(|_| value(rng, schema, codec_layout, elem, budget)).collect())
        }
        Wire::Struct(id) => struct_value(rng, schema, codec_layout, *id, budget),
    }
}

fn struct_value(
    rng: &mut Rng,
    schema: &Schema,
    layout: &wirelens_core::layout::Layout,
    id: TypeId,
    budget: &mut usize,
) -> Value {
    let Some(t) = layout.get(id) else { return Value::Null };
    if !matches!(t.wire, Wire::Struct(s) if s == id) {
        return value(rng, schema, layout, &t.wire.clone(), budget);
    }
    let mut obj = Map::new();
    for f in &t.fields {
        let def = &schema.types[id].fields()[f.decl_index];
        let v = value(rng, schema, layout, &f.wire, budget);
        // Absent and null both mean "no value"; exercise both.
        if v.is_null() && rng.chance(50) {
            continue;
        }
        obj.insert(def.json_name.clone(), v);
    }
    Value::Object(obj)
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

fn main() -> std::process::ExitCode {
    match run(&Args::parse()) {
        Ok(n) => {
            println!("random-vectors: {n} cases");
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("random-vectors: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> Result<usize, String> {
    let _ = std::fs::remove_dir_all(&args.out);
    let mut rng = Rng::new(args.seed);
    let mut total = 0;
    for dialect in [Dialect::Sdp, Dialect::Ffi] {
        let ext = match dialect {
            Dialect::Sdp => "sdp",
            Dialect::Ffi => "ffi",
        };
        let dir = args.out.join(ext);
        for sub in ["schemas", "cases"] {
            std::fs::create_dir_all(dir.join(sub)).map_err(|e| e.to_string())?;
        }
        for s in 0..args.schemas {
            let mut attempts = 0;
            let text = loop {
                attempts += 1;
                let (text, reserved) = match dialect {
                    Dialect::Sdp => sdp_schema(&mut rng),
                    Dialect::Ffi => (ffi_schema(&mut rng), false),
                };
                let a = analyze(dialect, &text, None, OrderChoice::default());
                let flagged = a.diagnostics.iter().any(|d| d.code == "RESERVED_KEYWORD");
                if flagged != reserved {
                    return Err(format!(
                        "RESERVED_KEYWORD {} for a schema {} a name upstream reserves:\n{text}",
                        if flagged { "reported" } else { "missing" },
                        if reserved { "with" } else { "without" }
                    ));
                }
                if !a.has_errors() && a.layout.types.iter().any(Option::is_some) {
                    break text;
                }
                if attempts > 200 {
                    return Err("no valid random schema in 200 attempts".into());
                }
            };
            let schema_name = format!("random_{s}.{ext}");
            write(&dir.join("schemas").join(&schema_name), text.as_bytes())?;
            for c in 0..args.cases {
                let order = match dialect {
                    Dialect::Sdp => FieldOrder::Declaration,
                    Dialect::Ffi if rng.chance(50) => FieldOrder::Declaration,
                    Dialect::Ffi => FieldOrder::Canonical,
                };
                let a = analyze(
                    dialect,
                    &text,
                    None,
                    OrderChoice {
                        order: Some(order),
                        overrides_directive: true,
                    },
                );
                let roots: Vec<TypeId> = (0..a.schema.types.len())
                    .filter(|&id| a.layout.get(id).is_some_and(|t| dialect == Dialect::Sdp || t.root))
                    .collect();
                if roots.is_empty() {
                    return Err(format!("{schema_name}: no root type"));
                }
                let root = *rng.pick(&roots);
                let mode = if dialect == Dialect::Sdp && rng.chance(30) {
                    Mode::Message
                } else {
                    Mode::Byte
                };
                let records = if rng.chance(20) { 1 + rng.below(3) } else { 0 };
                let codec = Codec::new(&a.schema, &a.layout);
                let mut values = Vec::new();
                let mut bytes = Vec::new();
                for _ in 0..records.max(1) {
                    let mut budget = 24;
                    let v = struct_value(&mut rng, &a.schema, &a.layout, root, &mut budget);
                    let encoded = codec
                        .encode(root, &v, mode)
                        .map_err(|e| format!("{schema_name}: the reference codec refused its own value: {e}"))?;
                    bytes.extend(encoded);
                    values.push(v);
                }
                let mut case = Map::new();
                case.insert("schema".into(), json!(schema_name));
                case.insert("root".into(), json!(a.schema.types[root].name));
                match dialect {
                    Dialect::Sdp => {
                        case.insert(
                            "mode".into(),
                            json!(if mode == Mode::Message { "message" } else { "byte" }),
                        );
                    }
                    Dialect::Ffi => {
                        case.insert("order".into(), json!(order.as_str()));
                    }
                }
                if records > 0 {
                    case.insert("values".into(), Value::Array(values));
                } else {
                    case.insert("value".into(), values.pop().unwrap_or(Value::Null));
                }
                let name = format!("random_{s}_{c}");
                let json = serde_json::to_string_pretty(&Value::Object(case)).map_err(|e| e.to_string())?;
                write(&dir.join("cases").join(format!("{name}.json")), json.as_bytes())?;
                write(&dir.join("cases").join(format!("{name}.bin")), &bytes)?;
                total += 1;
            }
        }
    }
    Ok(total)
}
