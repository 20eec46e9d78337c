//! The declarations. Per value type `T` (every struct; for ffire also array and
//! named-primitive roots, which become structs with one member `value`):
//! - `T` (owned: `std::string` or, with [`OwnedStrings::Compact`], `wirelens::CompactString`;
//!   `std::vector`, `std::optional`, `wirelens::Optional<S>` for an optional struct; SDP
//!   `Box<S>` is `S`) and,
//!   when `T` contains strings or arrays, `TView` (zero-copy: `std::string_view`,
//!   `wirelens::LeSpan<P>` for primitive arrays, `std::vector<SView>` for other arrays, or
//!   with [`crate::Memory::Arena`] `wirelens::Span<SView>` allocated from a caller's
//!   `wirelens::Arena`);
//!   `T::View` names whichever type the view decoders return;
//! - the declarations of what is generated per type (`measure`, `write_to`, `read_from`,
//!   `operator==`; SDP: `MESSAGE_ID`) and the runtime's `WIRELENS_VALUE_API` /
//!   `WIRELENS_MESSAGE_API` macros (bodies once in `wirelens.hpp`): `encoded_size` (0 when
//!   a string or array is too long), `encode` (appends to a reusable
//!   `std::vector<uint8_t>`), `encode_into` (caller buffer), `to_bytes`, `decode` (rejects
//!   trailing bytes), `decode_prefix`, `decode_view`, `decode_view_prefix`; SDP
//!   `encode_message`, `decode_message(_prefix)`, `decode_message_view`.
//!
//! Non-root ffire aliases are a `using`.

use super::names::{borrows, comment_text, prim_type};
use super::plan::Gen;
use crate::{Code, OwnedStrings};
use wirelens_core::layout::{TypeLayout, Wire};
use wirelens_core::model::{Primitive, TypeId};
use wirelens_core::plan::{Step, TypePlan, Value};

/// The optional template for a payload: `wirelens::Optional` for a struct (g++ compiles
/// each `std::optional<S>` in time that grows with the schema's structs; see the runtime),
/// `std::optional` otherwise.
fn optional_ty(payload: &Wire) -> &'static str {
    match payload {
        Wire::Struct(_) => "wirelens::Optional",
        _ => "std::optional",
    }
}

/// Array levels (inside one type expression) that are plain `std::vector`s; the levels
/// above them are `wirelens::Nested` (issue 39). g++ visits the element type of a
/// `std::vector` twice per level in every argument-dependent lookup of an operator on it
/// (once as the vector's argument, once as its allocator's): compile time doubled with
/// each level (24 levels: 20 s for a file that includes the header, 32: never finished).
/// A `Nested` level is visited once, so a lookup costs 2^8 at most. 8 levels cost nothing
/// measurable, and no schema nesting less changes.
const PLAIN_ARRAY_LEVELS: usize = 8;

/// How many arrays nest in `w` (through optionals, not through structs): `[][]int32` 2.
fn array_height(w: &Wire) -> usize {
    let mut w = w;
    let mut h = 0;
    loop {
        match w {
            Wire::Array(e) => {
                h += 1;
                w = e;
            }
            Wire::Optional(e) => w = e,
            _ => return h,
        }
    }
}

/// Whether the array `w` is spelled `wirelens::Nested` ([`PLAIN_ARRAY_LEVELS`]).
fn nested(w: &Wire) -> bool {
    array_height(w) > PLAIN_ARRAY_LEVELS
}

impl Gen<'_> {
    pub(super) fn forward_decls(&self, c: &mut Code) {
        for (id, def) in self.schema.types.iter().enumerate() {
            // Only views: a type's owned struct (which names its view) comes before its view,
            // and every struct after the types its members contain.
            if def.is_struct() || self.is_value_type(id) {
                if let Some(Some(v)) = self.views.get(id) {
                    c.linef(format_args!("struct {v};"));
                }
            }
        }
    }

    pub(super) fn docs(&self, c: &mut Code, docs: &[String]) {
        for d in docs {
            let d = comment_text(d.trim());
            if d.is_empty() {
                c.line("///");
            } else {
                c.linef(format_args!("/// {d}"));
            }
        }
    }

    /// The owned string type ([`OwnedStrings`]).
    pub(super) fn string_ty(&self) -> &'static str {
        match self.strings {
            OwnedStrings::Std if self.arena => "wirelens::ArenaString",
            OwnedStrings::Std => "std::string",
            OwnedStrings::Compact => "wirelens::CompactString",
        }
    }

    pub(super) fn owned_ty(&self, w: &Wire) -> String {
        match w {
            Wire::Prim(Primitive::Str) => self.string_ty().into(),
            Wire::Prim(p) => prim_type(*p).into(),
            Wire::Array(e) if self.arena && nested(w) => format!("wirelens::ArenaNested<{}>", self.owned_ty(e)),
            Wire::Array(e) if self.arena => format!("wirelens::ArenaVector<{}>", self.owned_ty(e)),
            Wire::Array(e) if nested(w) => format!("wirelens::Nested<{}>", self.owned_ty(e)),
            Wire::Array(e) => format!("std::vector<{}>", self.owned_ty(e)),
            Wire::Optional(e) => format!("{}<{}>", optional_ty(e), self.owned_ty(e)),
            Wire::Struct(id) => self.name(*id).into(),
        }
    }

    fn view_ty(&self, w: &Wire) -> String {
        if !borrows(self.layout, w) {
            return self.owned_ty(w);
        }
        match w {
            Wire::Prim(_) => "std::string_view".into(),
            Wire::Array(e) => match &**e {
                Wire::Prim(p) if *p != Primitive::Str => format!("wirelens::LeSpan<{}>", prim_type(*p)),
                e if self.arena => format!("wirelens::Span<{}>", self.view_ty(e)),
                e if nested(w) => format!("wirelens::Nested<{}>", self.view_ty(e)),
                e => format!("std::vector<{}>", self.view_ty(e)),
            },
            Wire::Optional(e) => format!("{}<{}>", optional_ty(e), self.view_ty(e)),
            Wire::Struct(id) => self.view_name(*id).into(),
        }
    }

    /// The layout table, and the fixed blocks from the plan this code is rendered from (so
    /// the comment cannot contradict the code).
    fn layout_doc(&self, c: &mut Code, id: TypeId, t: &TypeLayout) {
        let d = crate::layout_doc(self.schema, self.layout, id, t);
        c.linef(format_args!("/// Wire layout ({}): {}.", d.order, d.size));
        if let Some(wire) = &d.wire_type {
            c.line("///");
            c.linef(format_args!("/// {wire}."));
            return;
        }
        c.line("///");
        for row in &d.table {
            c.linef(format_args!("///   {}", comment_text(row)));
        }
        if let Some(line) = self.plan.get(id).and_then(TypePlan::fixed_blocks_line) {
            c.line("///");
            c.linef(format_args!("/// {}.", comment_text(&line)));
        }
    }

    /// The view (when the type has one) and the owned struct, with member declarations and
    /// the runtime's API macros. The owned struct comes first so the view's read_from can
    /// call its read_fields (the API's view decoders are templates: they need the view
    /// complete only where they are called).
    pub(super) fn type_defs(&self, c: &mut Code, id: TypeId) {
        let (Some(t), Some(p)) = (self.layout.get(id), self.plan.get(id)) else {
            return;
        };
        if !self.is_value_type(id) {
            return;
        }
        let def = &self.schema.types[id];
        let name = self.name(id).to_string();
        let view = self.views.get(id).cloned().flatten();
        let fixed = p.size.fixed.is_some() && p.is_struct;
        let members = self.declared(id, t);
        c.blank();
        self.docs(c, &def.docs);
        if !def.docs.is_empty() {
            c.line("///");
        }
        self.layout_doc(c, id, t);
        c.open(&format!("struct {name} {{"));
        for (member, docs, wire) in &members {
            self.docs(c, docs);
            c.linef(format_args!("{} {member}{{}};", self.owned_ty(wire)));
        }
        c.blank();
        c.linef(format_args!("using View = {};", view.as_deref().unwrap_or(&name)));
        if let Some(n) = p.size.fixed {
            c.linef(format_args!("static constexpr size_t SIZE = {n};"));
        }
        if let Some(mid) = p.message_id {
            c.linef(format_args!("static constexpr uint16_t MESSAGE_ID = {mid};"));
        }
        c.linef(format_args!(
            "static constexpr size_t max_len = {};",
            self.plan.prefix.max()
        ));
        if let [Step::Value {
            path,
            value: Value::BulkPrims(_, prim),
        }] = p.steps.as_slice()
        {
            if *prim != Primitive::Bool {
                // One array of primitives: encode() appends its elements with one copy
                // instead of zero-filling them first.
                let place = self.place(p.id, path);
                c.linef(format_args!(
                    "static const auto& bulk(const {name}& v) noexcept {{ return v{}; }}",
                    place.access
                ));
            }
        }
        c.blank();
        let arena = if self.arena { "ARENA_" } else { "" };
        c.linef(format_args!("WIRELENS_{arena}VALUE_API({name})"));
        if p.message_id.is_some() {
            c.linef(format_args!("WIRELENS_{arena}MESSAGE_API({name})"));
        }
        if view.is_none() {
            c.linef(format_args!("{name} to_owned() const {{ return *this; }}"));
        }
        c.blank();
        if let Some(n) = p.size.fixed {
            c.linef(format_args!(
                "static size_t measure(const {name}&, wirelens::Fits&) noexcept {{ return {n}; }}"
            ));
        } else {
            c.linef(format_args!(
                "static size_t measure(const {name}& v, wirelens::Fits& f) noexcept;"
            ));
        }
        c.linef(format_args!(
            "static bool write_to(wirelens::Writer& w, const {name}& v);"
        ));
        if view.is_some() {
            // The owned read_from is inlined where the view's is: array_struct's owned decode
            // 5 % faster (issue 32; the 2 % loss measured before came from decoders g++
            // compiled as cold, see Reader::fail_at in runtime/cpp).
            c.linef(format_args!(
                "{}static bool read_from(wirelens::Reader& rd, {name}& v) {{ return read_fields(rd, v); }}",
                self.read_hot(p.id)
            ));
            c.line("template <class Wl_V>");
            c.linef(format_args!(
                "{}static bool read_fields(wirelens::Reader& rd, Wl_V& v);",
                self.read_hot(p.id)
            ));
        } else {
            c.linef(format_args!("static bool read_from(wirelens::Reader& rd, {name}& v);"));
        }
        if fixed {
            c.linef(format_args!("static void write_block(uint8_t* b, const {name}& v);"));
            c.linef(format_args!(
                "static bool read_block(wirelens::Reader& rd, const uint8_t* b, {name}& v);"
            ));
        }
        c.blank();
        let eq: Vec<String> = members.iter().map(|(m, ..)| format!("a.{m} == b.{m}")).collect();
        // A member, not a friend: N friends named `operator==` in one namespace make every
        // `==` of the header search all N (quadratic). A template so that it is compiled
        // only where it is used (#13: compile cost linear in the number of structs).
        c.linef(format_args!("template <class WlSelf = {name}>"));
        c.open(&format!("bool operator==(const {name}& b) const {{"));
        c.line("const WlSelf& a = *this;");
        let one_line = format!("return {};", eq.join(" && "));
        if eq.is_empty() {
            c.line("(void)a;");
            c.line("(void)b;");
            c.line("return true;");
        } else if one_line.len() + 4 * c.depth <= 100 {
            c.line(&one_line);
        } else if members.len() >= 4 {
            // Member-wise (same order and short-circuit as `&&`), each name written once:
            // half the text of the `a.x == b.x && …` chain (#13: generated size).
            c.line("auto t = [](const WlSelf& x) {");
            c.depth += 1;
            let items: Vec<String> = members.iter().map(|(m, ..)| format!("x.{m}")).collect();
            let (top, mut line) = (c.depth, "return std::tie(".to_string());
            for (i, item) in items.iter().enumerate() {
                let sep = if i + 1 == items.len() { ");" } else { "," };
                if line.len() + item.len() + sep.len() + 1 + 4 * c.depth > 100 && !line.ends_with('(') {
                    c.line(line.trim_end());
                    c.depth = top + 1;
                    line = String::new();
                } else if !line.ends_with('(') {
                    line.push(' ');
                }
                line.push_str(item);
                line.push_str(sep);
            }
            c.line(&line);
            c.depth = top - 1;
            c.line("};");
            c.line("return t(a) == t(b);");
        } else {
            // Several comparisons per line, wrapped at 100 columns.
            let mut line = format!("return {}", eq[0]);
            let (top, mut first) = (c.depth, true);
            for e in &eq[1..] {
                if line.len() + e.len() + 4 + 4 * (top + 1) > 100 {
                    c.depth = if first { top } else { top + 1 };
                    c.line(&line);
                    first = false;
                    line = format!("&& {e}");
                } else {
                    line.push_str(" && ");
                    line.push_str(e);
                }
            }
            line.push(';');
            c.depth = if first { top } else { top + 1 };
            c.line(&line);
            c.depth = top;
        }
        c.close("}");
        c.close("};");
        if let Some(view) = &view {
            c.blank();
            c.linef(format_args!("/// Zero-copy view of {name}."));
            c.open(&format!("struct {view} {{"));
            for (member, docs, wire) in &members {
                self.docs(c, docs);
                c.linef(format_args!("{} {member}{{}};", self.view_ty(wire)));
            }
            c.blank();
            c.linef(format_args!("{name} to_owned() const;"));
            c.linef(format_args!(
                "{}static bool read_from(wirelens::Reader& rd, {view}& v) {{ return {name}::read_fields(rd, v); }}",
                self.read_hot(p.id)
            ));
            c.close("};");
        }
    }

    /// Non-root ffire aliases: a `using` for the user's convenience (generated code uses
    /// the resolved types).
    pub(super) fn alias(&self, c: &mut Code, id: TypeId) {
        let Some(t) = self.layout.get(id) else { return };
        let def = &self.schema.types[id];
        if def.is_struct() || t.root {
            return;
        }
        c.blank();
        self.docs(c, &def.docs);
        c.linef(format_args!("using {} = {};", self.name(id), self.owned_ty(&t.wire)));
    }
}
