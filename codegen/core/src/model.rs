//! The schema model: what a schema says, independent of its dialect's syntax, with the
//! source range of everything so every view can point back at the text.

use std::ops::Range;

use crate::dialect::Dialect;

/// Index into [`Schema::types`].
pub type TypeId = usize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Primitive {
    U8,
    U16,
    U32,
    U64,
    I8,
    I16,
    I32,
    I64,
    F32,
    F64,
    Bool,
    Str,
}

impl Primitive {
    pub const ALL: [Primitive; 12] = [
        Primitive::U8,
        Primitive::U16,
        Primitive::U32,
        Primitive::U64,
        Primitive::I8,
        Primitive::I16,
        Primitive::I32,
        Primitive::I64,
        Primitive::F32,
        Primitive::F64,
        Primitive::Bool,
        Primitive::Str,
    ];

    /// The spelling in a dialect, `None` where the dialect lacks the type (ffire has no
    /// unsigned integers).
    pub fn spelling(self, dialect: Dialect) -> Option<&'static str> {
        use Primitive::*;
        Some(match (dialect, self) {
            (Dialect::Sdp, U8) => "u8",
            (Dialect::Sdp, U16) => "u16",
            (Dialect::Sdp, U32) => "u32",
            (Dialect::Sdp, U64) => "u64",
            (Dialect::Sdp, I8) => "i8",
            (Dialect::Sdp, I16) => "i16",
            (Dialect::Sdp, I32) => "i32",
            (Dialect::Sdp, I64) => "i64",
            (Dialect::Sdp, F32) => "f32",
            (Dialect::Sdp, F64) => "f64",
            (Dialect::Sdp, Bool) => "bool",
            (Dialect::Sdp, Str) => "str",
            (Dialect::Ffi, I8) => "int8",
            (Dialect::Ffi, I16) => "int16",
            (Dialect::Ffi, I32) => "int32",
            (Dialect::Ffi, I64) => "int64",
            (Dialect::Ffi, F32) => "float32",
            (Dialect::Ffi, F64) => "float64",
            (Dialect::Ffi, Bool) => "bool",
            (Dialect::Ffi, Str) => "string",
            (Dialect::Ffi, U8 | U16 | U32 | U64) => return None,
        })
    }

    pub fn from_spelling(dialect: Dialect, name: &str) -> Option<Primitive> {
        Primitive::ALL.into_iter().find(|p| p.spelling(dialect) == Some(name))
    }

    /// Encoded size, `None` for strings.
    pub fn fixed_size(self) -> Option<u64> {
        use Primitive::*;
        match self {
            U8 | I8 | Bool => Some(1),
            U16 | I16 => Some(2),
            U32 | I32 | F32 => Some(4),
            U64 | I64 | F64 => Some(8),
            Str => None,
        }
    }
}

/// A type as written in a field or a type declaration.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeExpr {
    pub kind: TypeExprKind,
    pub range: Range<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum TypeExprKind {
    Primitive(Primitive),
    /// A reference to a declared type; `target` is filled by name resolution.
    Named {
        name: String,
        target: Option<TypeId>,
    },
    /// `[]T`
    Array(Box<TypeExpr>),
    /// SDP `Option<T>`, ffire `*T`.
    Optional(Box<TypeExpr>),
    /// SDP `Box<T>`: no effect on the wire.
    Boxed(Box<TypeExpr>),
    /// A construct the dialect does not support; already reported.
    Invalid,
}

impl TypeExpr {
    /// The type written in the dialect's own syntax, normalised (`[]Option<Item>`, `*[]string`).
    pub fn display(&self, dialect: Dialect) -> String {
        match &self.kind {
            TypeExprKind::Primitive(p) => p.spelling(dialect).unwrap_or("?").to_string(),
            TypeExprKind::Named { name, .. } => name.clone(),
            TypeExprKind::Array(e) => format!("[]{}", e.display(dialect)),
            TypeExprKind::Optional(e) => match dialect {
                Dialect::Sdp => format!("Option<{}>", e.display(dialect)),
                Dialect::Ffi => format!("*{}", e.display(dialect)),
            },
            TypeExprKind::Boxed(e) => format!("Box<{}>", e.display(dialect)),
            TypeExprKind::Invalid => "?".to_string(),
        }
    }

    /// Every named reference inside this expression, outermost first.
    pub fn named_refs(&self) -> Vec<(&str, Option<TypeId>, Range<usize>)> {
        self.named_ref().into_iter().collect()
    }

    /// Sets the target of the named reference inside, if any, to `lookup(name)`.
    fn resolve_with(&mut self, lookup: impl Fn(&str) -> Option<TypeId>) {
        let mut t = self;
        loop {
            match &mut t.kind {
                TypeExprKind::Named { name, target } => return *target = lookup(name),
                TypeExprKind::Array(e) | TypeExprKind::Optional(e) | TypeExprKind::Boxed(e) => t = e,
                TypeExprKind::Primitive(_) | TypeExprKind::Invalid => return,
            }
        }
    }

    /// The named reference inside this expression, if any: there is at most one, since
    /// every wrapper (`[]`, `Option`, `*`, `Box`) holds exactly one type.
    pub fn named_ref(&self) -> Option<(&str, Option<TypeId>, Range<usize>)> {
        let mut t = self;
        loop {
            match &t.kind {
                TypeExprKind::Named { name, target } => return Some((name.as_str(), *target, t.range.clone())),
                TypeExprKind::Array(e) | TypeExprKind::Optional(e) | TypeExprKind::Boxed(e) => t = e,
                TypeExprKind::Primitive(_) | TypeExprKind::Invalid => return None,
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    pub name_range: Range<usize>,
    /// The whole declaration (`name: type`, or `Name Type \`tag\`` — for `A, B T` each
    /// name's field covers the whole line).
    pub range: Range<usize>,
    pub ty: TypeExpr,
    /// `///` (SDP) or `//` (ffire) comment lines directly above, without the markers.
    pub docs: Vec<String>,
    /// ffire: the raw struct tag between backquotes.
    pub tag: Option<String>,
    /// The key used in JSON: ffire's `json:"name"` tag, else the field name.
    pub json_name: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum TypeKind {
    Struct {
        fields: Vec<Field>,
        body_range: Range<usize>,
    },
    /// ffire `type L []T`, `type Id int64`, `type X = Y`.
    Alias { target: TypeExpr, is_alias_decl: bool },
}

#[derive(Debug, Clone, PartialEq)]
pub struct TypeDef {
    pub name: String,
    pub name_range: Range<usize>,
    /// The whole declaration, doc comments excluded.
    pub range: Range<usize>,
    pub docs: Vec<String>,
    pub kind: TypeKind,
}

impl TypeDef {
    pub fn fields(&self) -> &[Field] {
        match &self.kind {
            TypeKind::Struct { fields, .. } => fields,
            TypeKind::Alias { .. } => &[],
        }
    }

    /// The type expressions it is made of: its fields' types, or an alias's target.
    pub fn type_exprs(&self) -> impl Iterator<Item = &TypeExpr> {
        let target = match &self.kind {
            TypeKind::Alias { target, .. } => Some(target),
            TypeKind::Struct { .. } => None,
        };
        self.fields().iter().map(|f| &f.ty).chain(target)
    }

    pub fn is_struct(&self) -> bool {
        matches!(self.kind, TypeKind::Struct { .. })
    }

    /// Go's rule, as ffire applies it: an ASCII upper-case first letter.
    pub fn is_exported(&self) -> bool {
        self.name.as_bytes().first().is_some_and(|b| b.is_ascii_uppercase())
    }
}

/// Where the effective ffire field order came from (so the editor can say why).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OrderSource {
    /// SDP: always declaration order.
    Dialect,
    Default,
    /// `wirelens.toml`, the client's settings or a command-line flag.
    Setting,
    /// `//wirelens:order …` in the file.
    Directive(Range<usize>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Schema {
    pub dialect: Dialect,
    pub order: FieldOrder,
    pub order_source: OrderSource,
    /// ffire `package` name.
    pub package: Option<(String, Range<usize>)>,
    pub types: Vec<TypeDef>,
}

impl Schema {
    /// The first type with this name (duplicates are diagnosed separately).
    pub fn type_id(&self, name: &str) -> Option<TypeId> {
        self.types.iter().position(|t| t.name == name)
    }

    /// Fills `target` of every named reference. Unknown names stay `None`.
    pub fn resolve(&mut self) {
        self.resolve_reusing(&mut Names::default(), &[]);
    }

    /// [`Schema::resolve`] after an edit. `names` is the table the previous analysis
    /// resolved against, and `resolved[id]` says type `id` was taken over from it with
    /// its references. While the names of all types are the same as then, only the
    /// other types are resolved; otherwise `names` is rebuilt and every type resolved.
    pub(crate) fn resolve_reusing(&mut self, names: &mut Names, resolved: &[bool]) {
        let unchanged =
            names.names.len() == self.types.len() && names.names.iter().zip(&self.types).all(|(n, t)| *n == t.name);
        if !unchanged {
            *names = Names::of(self);
        }
        for (id, def) in self.types.iter_mut().enumerate() {
            if unchanged && resolved.get(id) == Some(&true) {
                continue;
            }
            let lookup = |name: &str| names.first.get(name).copied();
            match &mut def.kind {
                TypeKind::Struct { fields, .. } => fields.iter_mut().for_each(|f| f.ty.resolve_with(lookup)),
                TypeKind::Alias { target, .. } => target.resolve_with(lookup),
            }
        }
    }
}

/// Every type's name in order, and the first type with each name: what references are
/// resolved against.
#[derive(Debug, Default, Clone)]
pub(crate) struct Names {
    names: Vec<String>,
    first: rustc_hash::FxHashMap<String, TypeId>,
}

impl Names {
    fn of(schema: &Schema) -> Names {
        let mut first = rustc_hash::FxHashMap::default();
        first.reserve(schema.types.len());
        for (id, t) in schema.types.iter().enumerate() {
            first.entry(t.name.clone()).or_insert(id);
        }
        Names {
            names: schema.types.iter().map(|t| t.name.clone()).collect(),
            first,
        }
    }
}

/// Struct field order on the wire (ffire only; SDP is always declaration order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FieldOrder {
    /// Size-class sorted (ffire's wire-format spec and its Go/Rust generators).
    #[default]
    Canonical,
    /// As written (ffire's fixture/inspect tools, its C++ generator).
    Declaration,
}

impl FieldOrder {
    pub fn as_str(self) -> &'static str {
        match self {
            FieldOrder::Canonical => "canonical",
            FieldOrder::Declaration => "declaration",
        }
    }

    pub fn parse(s: &str) -> Option<FieldOrder> {
        match s {
            "canonical" => Some(FieldOrder::Canonical),
            "declaration" => Some(FieldOrder::Declaration),
            _ => None,
        }
    }
}
