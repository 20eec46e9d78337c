//! The header's frame and what is not per value type: the header comment (the API every
//! type has), the definitions of each type's functions in dependency order, and for SDP
//! `AnyMessage`, a switch over the type id calling a visitor with the decoded value
//! (`wirelens::Dispatcher` supplies its public members).

use super::names::{comment_text, guard, RUNTIME_HEADER};
use super::plan::Gen;
use crate::{Code, OwnedStrings, GENERATED_HEADER};
use wirelens_core::dialect::Dialect;
use wirelens_core::model::TypeId;

impl Gen<'_> {
    pub(super) fn header(&self, c: &mut Code, source: &str, ns: &str) {
        c.line(GENERATED_HEADER);
        let order = match self.schema.dialect {
            Dialect::Sdp => "SDP, declaration order".to_string(),
            Dialect::Ffi => format!("ffire, {} field order", self.layout.order.as_str()),
        };
        c.linef(format_args!("// Source: {} ({order}).", comment_text(source)));
        c.line("// C++17, header-only; needs only wirelens.hpp (runtime/cpp). No exceptions: encoders return");
        c.line("// wirelens::Status / wirelens::Result<size_t>, decoders wirelens::Result<T>.");
        c.line("//");
        c.line("// Every type has encoded_size, encode (appends to a reusable std::vector<uint8_t>), encode_into");
        c.line("// (a caller buffer), to_bytes, decode (rejects trailing bytes), decode_prefix (back-to-back");
        c.line("// records) and decode_view (zero-copy: strings and primitive arrays point into the input).");
        if self.sdp() {
            c.line("// Every struct is also a message (encode_message, decode_message); AnyMessage decodes any");
            c.line("// of them by type id and hands it to a visitor. Box<T> has no effect on the wire and is");
            c.line("// generated as T.");
        } else {
            c.line("// Strings and arrays are limited to 65,535 bytes / elements: encoders refuse longer ones.");
        }
        // Said once here rather than in each of the thousands of structs below.
        c.line("//");
        c.line("// Per struct T: `using View` (what decode_view returns; T itself, with to_owned() returning");
        c.line("// a copy, when T has no strings or arrays), SIZE (fixed-size types: the encoded size),");
        c.line("// MESSAGE_ID (SDP: 1-based position in the schema), max_len (the longest string or array a");
        c.line("// length prefix allows). WIRELENS_VALUE_API / WIRELENS_MESSAGE_API (wirelens.hpp) add the");
        c.line("// functions above and the message forms (\"SDP2\" header, type id, payload length; decoders");
        c.line("// check them all); they and operator== are templates (call them without template");
        c.line("// arguments) so that a translation unit compiles only those it uses. Building blocks:");
        c.line("// measure (the exact size, lengths checked by `f`), write_to / read_from (one value at");
        c.line("// the cursor), write_block / read_block (a fixed-size value inside a parent's fixed");
        c.line("// block). A TView borrows the decoded input, which must outlive it; its to_owned() copies");
        c.line("// it into a T. T::read_fields<V> is the one body that reads a T and a TView (their");
        c.line("// read_from).");
        if self.strings == OwnedStrings::Compact {
            c.line("//");
            c.line("// Owned strings are wirelens::CompactString ([generate.cpp] strings = \"compact\"): up to 31");
            c.line("// bytes inline; converts to std::string_view.");
        }
        if self.arena {
            c.line("//");
            c.line("// Views keep their arrays in a wirelens::Arena ([generate.cpp] memory = \"arena\"): the view");
            c.line("// decoders take one (`decode_view(data, len, arena)`), the View points into the input and");
            c.line("// the arena, and `arena.reset()` frees it all for the next decode (no allocation once warm).");
        }
        c.blank();
        let g = guard(ns);
        c.linef(format_args!("#ifndef {g}"));
        c.linef(format_args!("#define {g}"));
        c.blank();
        c.linef(format_args!("#include \"{RUNTIME_HEADER}\""));
        c.blank();
        c.linef(format_args!("namespace {ns} {{"));
        c.blank();
    }

    pub(super) fn definitions(&self, c: &mut Code, id: TypeId) {
        let (Some(t), Some(p)) = (self.layout.get(id), self.plan.get(id)) else {
            return;
        };
        if !self.is_value_type(id) {
            return;
        }
        let name = self.name(id).to_string();
        let members = self.members(id, t);
        c.blank();
        c.linef(format_args!("// --- {name}"));
        c.blank();
        self.measure(c, &name, p);
        self.write_to(c, &name, p);
        if p.size.fixed.is_some() && p.is_struct {
            self.block_fns(c, &name, p);
        }
        if let Some(Some(view)) = self.views.get(id) {
            // The value and its view read with one body (they differ only in the types of
            // nested structs): half the decoder source of a schema with strings or arrays.
            self.read_from(c, &name, p, true);
            c.blank();
            self.to_owned(c, &name, view, &members);
        } else {
            self.read_from(c, &name, p, false);
        }
    }

    fn messages(&self) -> Vec<(TypeId, String, u16)> {
        self.schema
            .types
            .iter()
            .enumerate()
            .filter_map(|(id, def)| {
                let p = self.plan.get(id)?;
                def.is_struct().then_some(())?;
                Some((id, self.name(id).to_string(), p.message_id?))
            })
            .collect()
    }

    /// `AnyMessage`: a switch over the type id handing the decoded value to a visitor
    /// (linear in the number of structs; the public members come from
    /// `wirelens::Dispatcher`).
    pub(super) fn dispatcher(&self, c: &mut Code) {
        let msgs = self.messages();
        if msgs.is_empty() {
            return;
        }
        c.blank();
        c.line("/// Decodes a message of any struct of this schema by its SDP type id and calls a visitor with");
        c.line("/// the value: `AnyMessage::decode(data, len, [&](auto& m) { ... })` returns the type id;");
        c.line("/// decode_prefix, decode_view and decode_view_prefix as for every struct (see");
        c.line("/// wirelens::Dispatcher). Encode with the struct's own encode_message.");
        let (base, arena) = if self.arena {
            ("ArenaDispatcher", ", wirelens::Arena* arena")
        } else {
            ("Dispatcher", "")
        };
        c.open(&format!("struct AnyMessage : wirelens::{base}<AnyMessage> {{"));
        c.line("template <bool Wl_View, class Wl_F>");
        c.open(&format!("static wirelens::Result<wirelens::Decoded<uint16_t>> dispatch(const uint8_t* data, size_t len, bool exact, Wl_F& visit, size_t budget{arena}) {{"));
        c.line("wirelens::Reader rd(data, len);");
        c.line("rd.set_budget(budget);");
        if self.arena {
            c.line("rd.set_arena(arena);");
        }
        c.line("wirelens::sdp::Header h;");
        c.open("if (!rd.open_message(0, h)) {");
        c.line("return rd.take_error();");
        c.close("}");
        c.open("switch (h.type_id) {");
        for (_, name, mid) in &msgs {
            c.linef(format_args!(
                "case {mid}: return wirelens::visit_message<wirelens::owned_or_view<Wl_View, {name}>>(rd, h, exact, visit);"
            ));
        }
        c.line("default: return wirelens::Reader::unknown_type_id(h.type_id);");
        c.close("}");
        c.close("}");
        c.close("};");
    }
}
