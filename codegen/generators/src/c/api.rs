//! The public API. The header lists the signatures once, then per type only its tables'
//! declarations and one-line macros over the runtime's generic `wl_size` / `wl_encode` /
//! `wl_encode_buf` / `wl_decode` (`T_size`, `T_encode` (caller buffer), `T_encode_buf`
//! (appends to a reusable `wl_buf`), `T_decode` (no trailing bytes), `T_decode_prefix`,
//! `T_decode_view`, `T_decode_view_prefix`, and `T_view_size`/`T_view_encode`/
//! `T_view_encode_buf` when `T_view` is its own type; SDP: `T_MESSAGE_ID`,
//! `T_encode_message(_buf)`, `T_decode_message(_prefix)`, `T_decode_message_view(_prefix)`).
//! The source compiles only `T_measure`, `T_write` and `T_read` (and their view variants)
//! per type, behind the tables `T_type` / `T_view_type`; the SDP dispatcher reads through
//! a table indexed by type id.

use std::collections::HashMap;

use super::names::comment;
use super::plan::{Gen, Item};
use super::share::shared_bodies;
use crate::{Code, GENERATED_HEADER, OUTPUT_BYTES_PER_TYPE};
use wirelens_core::dialect::Dialect;
use wirelens_core::layout::TypeLayout;
use wirelens_core::model::TypeId;

/// Helpers behind every per-type API macro (one line per type and function instead of a
/// full call: the header of the 5,000-struct benchmark schema halves). Guarded, so
/// several generated headers can be included together.
const API_HELPERS: [&str; 8] = [
    "#ifndef WL_GEN_API_",
    "#define WL_GEN_API_",
    "#define WL_SIZE_(T, v) wl_size(&T##_type, WL_TYPED(const T *, v))",
    "#define WL_ENC_(T, m, v, buf, cap, written, err) wl_encode(&T##_type, WL_TYPED(const T *, v), m, buf, cap, written, err)",
    "#define WL_ENCB_(T, m, v, out, err) wl_encode_buf(&T##_type, WL_TYPED(const T *, v), m, out, err)",
    "#define WL_DEC_(T, m, buf, len, out, arena, err) wl_decode(&T##_type, buf, len, m, WL_TYPED(T *, out), NULL, arena, err)",
    "#define WL_DECP_(T, m, buf, len, out, used, arena, err) wl_decode(&T##_type, buf, len, m, WL_TYPED(T *, out), used, arena, err)",
    "#endif",
];

impl Gen<'_> {
    fn file_intro(&self, c: &mut Code, source: &str) {
        c.line(GENERATED_HEADER);
        let order = match self.schema.dialect {
            Dialect::Sdp => "SDP, declaration order".to_string(),
            Dialect::Ffi => format!("ffire, {} field order", self.layout.order.as_str()),
        };
        c.linef(format_args!(
            "// Source: {} ({order}). Runtime: wirelens.h (runtime/c).",
            comment(source)
        ));
    }

    pub(super) fn header(&self, source: &str, module: &str) -> String {
        let mut c = Code::with_capacity(OUTPUT_BYTES_PER_TYPE * self.schema.types.len());
        self.file_intro(&mut c, source);
        c.line("//");
        c.line("// Per type T: T_size, T_encode (caller buffer), T_encode_buf (appends to a reusable");
        c.line("// wl_buf), T_decode (no trailing bytes), T_decode_prefix (back-to-back records),");
        c.line("// T_decode_view / T_decode_view_prefix (zero-copy: strings and primitive arrays point");
        c.line("// into the input). Owned decodes copy strings (NUL-terminated) and arrays into the");
        c.line("// wl_arena; views put only arrays of non-primitives there. Every function returns a");
        c.line("// wl_status; pass a wl_error (or NULL) for the offset and value path of a failure.");
        c.line("// They are macros over the runtime's wl_size / wl_encode / wl_encode_buf / wl_decode");
        c.line("// with the type's table T_type (views: T_view_type); see runtime/README.md.");
        c.line("// Signatures (T_view_size / T_view_encode / T_view_encode_buf: types whose view differs):");
        if let Some((id, t)) = self.n.order.iter().find_map(|&id| Some((id, self.layout.get(id)?))) {
            let (n, v) = (self.n.type_name(id), self.n.view_name(id));
            let mut sigs = self.signatures(id, t);
            if !sigs.iter().any(|(s, _)| s.contains("_view_size(")) {
                sigs.push((format!("size_t {n}_view_size(const {v} *v)"), ""));
                sigs.push((format!("wl_status {n}_view_encode(const {v} *v, uint8_t *buf, size_t cap, size_t *written, wl_error *err)"), ""));
                sigs.push((
                    format!("wl_status {n}_view_encode_buf(const {v} *v, wl_buf *out, wl_error *err)"),
                    "",
                ));
            }
            for (sig, _) in sigs {
                // Longest first: `n` is a prefix of `v`.
                c.linef(format_args!("//   {}", sig.replace(&v, "T_view").replace(&n, "T")));
            }
        }
        if self.sdp() {
            c.line("// Every struct is also an SDP message (T_MESSAGE_ID, T_encode_message,");
            c.linef(format_args!(
                "// T_decode_message); {} decodes any of them by type id.",
                self.n.message_type()
            ));
            c.line("// Box<T> has no effect on the wire and is generated as T.");
        } else {
            c.line("// Strings and arrays are limited to 65,535 bytes / elements: encoders refuse longer ones.");
        }
        let guard = format!("WIRELENS_GEN_{}_H", module.to_ascii_uppercase());
        c.blank();
        c.linef(format_args!("#ifndef {guard}"));
        c.linef(format_args!("#define {guard}"));
        c.blank();
        c.line("#include \"wirelens.h\"");
        c.blank();
        c.line("// The per-type API macros expand to these (shared by every generated header).");
        for l in API_HELPERS {
            c.line(l);
        }
        c.blank();
        c.line("#ifdef __cplusplus");
        c.line("extern \"C\" {");
        c.line("#endif");
        c.blank();
        self.declarations(&mut c);
        if self.sdp() {
            self.dispatcher_types(&mut c);
        }
        // Functions.
        for &id in &self.n.order {
            if !self.is_value_type(id) {
                continue;
            }
            let Some(t) = self.layout.get(id) else { continue };
            c.blank();
            self.prototypes(&mut c, id, t);
        }
        if self.sdp() {
            c.blank();
            let docs = [
                "Decodes exactly one SDP message of any type of this schema (trailing bytes are an error).",
                "Decodes one SDP message of any type from the start of buf; *used gets its length.",
                "Encodes msg->as.<kind> as an SDP message into buf[0..cap).",
                "Appends msg->as.<kind> as an SDP message to out.",
            ];
            for (p, doc) in self.dispatcher_prototypes().iter().zip(docs) {
                c.linef(format_args!("// {doc}"));
                self.long_line(&mut c, &format!("{p};"));
            }
        }
        c.blank();
        c.line("#ifdef __cplusplus");
        c.line("}");
        c.line("#endif");
        c.blank();
        c.linef(format_args!("#endif // {guard}"));
        c.out
    }

    /// (signature, what it does) of every public function of value type `id`.
    fn signatures(&self, id: TypeId, t: &TypeLayout) -> Vec<(String, &'static str)> {
        let n = self.n.type_name(id);
        let v = self.n.view_name(id);
        let mut out = vec![
            (
                format!("size_t {n}_size(const {n} *v)"),
                "The exact encoded size (0: a string or array is too long to encode).",
            ),
            (
                format!("wl_status {n}_encode(const {n} *v, uint8_t *buf, size_t cap, size_t *written, wl_error *err)"),
                "Encodes into buf[0..cap); refuses a buffer smaller than the encoding.",
            ),
            (
                format!("wl_status {n}_encode_buf(const {n} *v, wl_buf *out, wl_error *err)"),
                "Appends the encoding to out (no allocation once it is large enough).",
            ),
            (
                format!("wl_status {n}_decode(const uint8_t *buf, size_t len, {n} *out, wl_arena *arena, wl_error *err)"),
                "Decodes exactly one value (trailing bytes are an error); strings and arrays go to the arena.",
            ),
            (
                format!("wl_status {n}_decode_prefix(const uint8_t *buf, size_t len, {n} *out, size_t *used, wl_arena *arena, wl_error *err)"),
                "Decodes one value from the start of buf; *used gets the bytes it took.",
            ),
            (
                format!("wl_status {n}_decode_view(const uint8_t *buf, size_t len, {v} *out, wl_arena *arena, wl_error *err)"),
                "Zero-copy decode of exactly one value: strings and primitive arrays point into buf.",
            ),
            (
                format!("wl_status {n}_decode_view_prefix(const uint8_t *buf, size_t len, {v} *out, size_t *used, wl_arena *arena, wl_error *err)"),
                "Zero-copy decode of one value from the start of buf.",
            ),
        ];
        if self.n.has_view(id) || (!self.schema.types[id].is_struct() && self.n.has_view_wire(&t.wire)) {
            out.push((
                format!("size_t {n}_view_size(const {v} *v)"),
                "The exact encoded size of a view.",
            ));
            out.push((
                format!(
                    "wl_status {n}_view_encode(const {v} *v, uint8_t *buf, size_t cap, size_t *written, wl_error *err)"
                ),
                "Encodes a view into buf[0..cap).",
            ));
            out.push((
                format!("wl_status {n}_view_encode_buf(const {v} *v, wl_buf *out, wl_error *err)"),
                "Appends the encoding of a view to out.",
            ));
        }
        if t.message_id.is_some() {
            out.push((
                format!("wl_status {n}_encode_message(const {n} *v, uint8_t *buf, size_t cap, size_t *written, wl_error *err)"),
                "Encodes an SDP message: the 10-byte header (\"SDP2\", type id, payload length), then the value.",
            ));
            out.push((
                format!("wl_status {n}_encode_message_buf(const {n} *v, wl_buf *out, wl_error *err)"),
                "Appends an SDP message to out.",
            ));
            out.push((
                format!("wl_status {n}_decode_message(const uint8_t *buf, size_t len, {n} *out, wl_arena *arena, wl_error *err)"),
                "Decodes exactly one SDP message of this type (magic, version, type id and length checked).",
            ));
            out.push((
                format!("wl_status {n}_decode_message_prefix(const uint8_t *buf, size_t len, {n} *out, size_t *used, wl_arena *arena, wl_error *err)"),
                "Decodes one SDP message of this type from the start of buf.",
            ));
            out.push((
                format!("wl_status {n}_decode_message_view(const uint8_t *buf, size_t len, {v} *out, wl_arena *arena, wl_error *err)"),
                "Zero-copy decode of exactly one SDP message of this type.",
            ));
            out.push((
                format!("wl_status {n}_decode_message_view_prefix(const uint8_t *buf, size_t len, {v} *out, size_t *used, wl_arena *arena, wl_error *err)"),
                "Zero-copy decode of one SDP message of this type from the start of buf.",
            ));
        }
        out
    }

    fn prototypes(&self, c: &mut Code, id: TypeId, t: &TypeLayout) {
        let n = self.n.type_name(id);
        let fixed = self
            .plan
            .get(id)
            .and_then(|p| p.exact_size.terms.is_empty().then_some(p.exact_size.constant));
        if let Some(size) = fixed {
            c.linef(format_args!("// Every {n} encodes to {size} bytes."));
            c.linef(format_args!("#define {n}_SIZE ((size_t){size})"));
        }
        c.linef(format_args!("extern const wl_type {n}_type, {n}_view_type;"));
        for (sig, _) in self.signatures(id, t) {
            if let Some(m) = Self::api_macro(&n, &sig) {
                c.line(&m); // one line: a macro cannot wrap without a backslash
            }
        }
    }

    /// The macro that implements one public function (`sig`) of type `n` through one of
    /// the header's shared helpers (`API_HELPERS`): `#define n_encode(...) WL_ENC_(n,
    /// false, __VA_ARGS__)`. The signatures are listed once at the top of the header.
    fn api_macro(n: &str, sig: &str) -> Option<String> {
        let (head, _) = sig.split_once('(')?;
        let name = head.rsplit(' ').next()?;
        let what = name.strip_prefix(n)?.strip_prefix('_')?;
        let ty = if what.contains("view") {
            format!("{n}_view")
        } else {
            n.to_string()
        };
        if what.ends_with("size") {
            return Some(format!("#define {name}(v) WL_SIZE_({ty}, v)"));
        }
        let message = what.contains("message");
        let helper = if what.ends_with("_buf") {
            "WL_ENCB_"
        } else if what.contains("encode") {
            "WL_ENC_"
        } else if what.ends_with("prefix") {
            "WL_DECP_"
        } else {
            "WL_DEC_"
        };
        Some(format!("#define {name}(...) {helper}({ty}, {message}, __VA_ARGS__)"))
    }

    /// A declaration, wrapped after a comma when longer than 110 columns.
    fn long_line(&self, c: &mut Code, s: &str) {
        if s.len() + 4 * c.depth <= 110 {
            c.line(s);
            return;
        }
        let Some(open) = s.find('(') else {
            c.line(s);
            return;
        };
        let indent = " ".repeat(open + 1);
        let mut line = String::new();
        let mut first = true;
        for part in s[open + 1..].split(", ") {
            let piece = if first {
                format!("{}{part}", &s[..=open])
            } else {
                format!(", {part}")
            };
            if !line.is_empty() && line.len() + piece.len() > 110 {
                line.push(',');
                c.line(&line);
                line = format!("{indent}{}", piece.trim_start_matches(", "));
            } else {
                line.push_str(&piece);
            }
            first = false;
        }
        c.line(&line);
    }

    fn dispatcher_prototypes(&self) -> Vec<String> {
        if self.sdp_structs().is_empty() {
            return Vec::new();
        }
        let m = self.n.message_type();
        vec![
            format!("wl_status {m}_decode(const uint8_t *buf, size_t len, {m} *out, wl_arena *arena, wl_error *err)"),
            format!("wl_status {m}_decode_prefix(const uint8_t *buf, size_t len, {m} *out, size_t *used, wl_arena *arena, wl_error *err)"),
            format!("wl_status {m}_encode(const {m} *msg, uint8_t *buf, size_t cap, size_t *written, wl_error *err)"),
            format!("wl_status {m}_encode_buf(const {m} *msg, wl_buf *out, wl_error *err)"),
        ]
    }

    // ------------------------------------------------------------------ source

    pub(super) fn source(&self, source: &str, module: &str, all_items: &HashMap<TypeId, Vec<Item>>) -> String {
        let mut c = Code::with_capacity(OUTPUT_BYTES_PER_TYPE * self.schema.types.len());
        self.file_intro(&mut c, source);
        // Said once here rather than above each of the thousands of functions below.
        c.line("//");
        c.line("// Per type T, behind its tables T_type / T_view_type (see the header):");
        c.line("// T_measure returns the encoded size (0 and WL_ERR_TOO_LONG for an oversized string");
        c.line("// or array); T_write writes the encoding at p (the caller made room: measure first)");
        c.line("// and returns the end; T_read reads one value at rd's position (strings copied into");
        c.line("// the arena when rd->copy, else pointing into the input; arrays go to the arena).");
        c.line("// T_view_* do the same for the zero-copy view (primitive arrays point into the input).");
        c.line("// `size_t n = K;` starts a size at the constant part: fixed blocks, length prefixes");
        c.line("// and presence bytes.");
        c.blank();
        c.linef(format_args!("#include \"{module}.h\""));
        let blockers = self.block_structs();
        for &id in &self.n.order {
            let Some(t) = self.layout.get(id) else { continue };
            let Some(p) = self.plan.get(id) else { continue };
            let Some(items) = all_items.get(&id) else { continue };
            let n = self.n.type_name(id);
            c.blank();
            c.linef(format_args!(
                "// ---------------------------------------------------------------- {n}"
            ));
            if blockers.contains(&id) {
                self.get_put(&mut c, p);
            }
            let fns = |view: bool| {
                let mut f = Code::default();
                self.measure_fn(&mut f, p, view);
                self.write_fn(&mut f, id, items, view);
                self.read_fn(&mut f, id, items, view);
                f.out
            };
            let owned = fns(false);
            if !self.n.has_view_wire(&t.wire) {
                c.out.push_str(&owned);
            } else {
                let view = fns(true);
                match shared_bodies(&format!("{n}_CODEC_"), &owned, &view) {
                    Some(text) => {
                        c.blank();
                        c.linef(format_args!(
                            "// {n} and {n}_view share one text of these functions (the view's differ only in names)."
                        ));
                        c.out.push_str(&text);
                    }
                    None => {
                        c.out.push_str(&owned);
                        c.out.push_str(&view);
                    }
                }
            }
            self.tables(&mut c, id, t);
        }
        if self.sdp() {
            self.dispatcher_fns(&mut c);
        }
        c.out
    }

    /// The type's tables for the runtime's generic encode/decode functions (the public
    /// API is macros over them, in the header).
    fn tables(&self, c: &mut Code, id: TypeId, t: &TypeLayout) {
        let n = self.n.type_name(id);
        let mid = t.message_id.map_or("0".to_string(), |_| format!("{n}_MESSAGE_ID"));
        c.blank();
        for view in [false, true] {
            let ty = self.tname(id, view);
            let (m, w, r) = (
                self.fname(id, view, "measure"),
                self.fname(id, view, "write"),
                self.fname(id, view, "read"),
            );
            let table = if view {
                format!("{n}_view_type")
            } else {
                format!("{n}_type")
            };
            // One line: `long_line` would wrap at the `(` of `sizeof`.
            c.linef(format_args!(
                "const wl_type {table} = {{{m}, {w}, {r}, sizeof({ty}), {mid}, {}}};",
                !view
            ));
        }
    }

    fn dispatcher_fns(&self, c: &mut Code) {
        let structs = self.sdp_structs();
        if structs.is_empty() {
            return;
        }
        let m = self.n.message_type();
        let protos = self.dispatcher_prototypes();
        let count = structs.iter().map(|(_, mid)| usize::from(*mid)).max().unwrap_or(0) + 1;
        let mut by_id = vec![None; count];
        for (id, mid) in &structs {
            by_id[usize::from(*mid)] = Some(*id);
        }
        c.blank();
        c.linef(format_args!(
            "// ---------------------------------------------------------------- {m}"
        ));
        c.blank();
        c.line("// The table of every message type, by type id.");
        c.open(&format!("static const wl_type *const {m}_types[{count}] = {{"));
        for t in &by_id {
            match t {
                Some(id) => c.linef(format_args!("&{}_type,", self.n.type_name(*id))),
                None => c.line("NULL,"),
            }
        }
        c.close("};");
        c.blank();
        self.long_line(c, &format!("{} {{", protos[0]));
        c.depth += 1;
        c.linef(format_args!(
            "return {m}_decode_prefix(buf, len, out, NULL, arena, err);"
        ));
        c.close("}");
        c.blank();
        self.long_line(c, &format!("{} {{", protos[1]));
        c.depth += 1;
        c.line("uint16_t id = 0;");
        c.line("wl_status st;");
        c.line("memset(out, 0, sizeof *out);");
        self.long_line(
            c,
            &format!(
                "st = wl_decode_any({m}_types, {count}, buf, len, &id, &out->as, sizeof out->as, used, arena, err);"
            ),
        );
        c.linef(format_args!("if (st == WL_OK) {{ out->kind = ({m}Kind)id; }}"));
        c.line("return st;");
        c.close("}");
        for (k, call) in [
            (2, "wl_encode(t, &msg->as, true, buf, cap, written, err)"),
            (3, "wl_encode_buf(t, &msg->as, true, out, err)"),
        ] {
            c.blank();
            self.long_line(c, &format!("{} {{", protos[k]));
            c.depth += 1;
            c.linef(format_args!(
                "const wl_type *t = wl_type_of({m}_types, {count}, (unsigned)msg->kind, err);"
            ));
            c.linef(format_args!("return t ? {call} : WL_ERR_TYPE_ID;"));
            c.close("}");
        }
    }
}
