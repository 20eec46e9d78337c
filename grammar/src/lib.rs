//! tree-sitter grammars for the two wirelens schema dialects, SDP (`.sdp`) and
//! ffire (`.ffi`), with their queries. Depends only on `tree-sitter-language`.

use tree_sitter_language::LanguageFn;

extern "C" {
    fn tree_sitter_sdp() -> *const ();
    fn tree_sitter_ffi() -> *const ();
}

/// The SDP grammar (spec §2).
pub const LANGUAGE_SDP: LanguageFn = unsafe { LanguageFn::from_raw(tree_sitter_sdp) };
/// The ffire grammar (spec §3.1).
pub const LANGUAGE_FFI: LanguageFn = unsafe { LanguageFn::from_raw(tree_sitter_ffi) };

/// Node types, for tools that inspect the tree generically.
pub const NODE_TYPES_SDP: &str = include_str!("../sdp/src/node-types.json");
pub const NODE_TYPES_FFI: &str = include_str!("../ffi/src/node-types.json");

pub const HIGHLIGHTS_QUERY_SDP: &str = include_str!("../sdp/queries/highlights.scm");
pub const FOLDS_QUERY_SDP: &str = include_str!("../sdp/queries/folds.scm");
pub const INDENTS_QUERY_SDP: &str = include_str!("../sdp/queries/indents.scm");
pub const LOCALS_QUERY_SDP: &str = include_str!("../sdp/queries/locals.scm");

pub const HIGHLIGHTS_QUERY_FFI: &str = include_str!("../ffi/queries/highlights.scm");
pub const FOLDS_QUERY_FFI: &str = include_str!("../ffi/queries/folds.scm");
pub const INDENTS_QUERY_FFI: &str = include_str!("../ffi/queries/indents.scm");
pub const LOCALS_QUERY_FFI: &str = include_str!("../ffi/queries/locals.scm");
