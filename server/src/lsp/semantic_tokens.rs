//! `textDocument/semanticTokens/full/delta`: the last full set of tokens sent for each
//! document, and the one edit that turns it into the new set.
//!
//! A 5,000-struct schema has about 200,000 tokens, a 1 MB answer, and VS Code asks for
//! the whole document's tokens after every keystroke. The editor's extension host parsed
//! that answer while the inlay hints of the same keystroke waited behind it (the hints of
//! the edited line came 0.3–0.6 s after the keystroke). A keystroke changes the tokens of
//! one line, so the delta answer is a few bytes.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

use crate::ide::{self, Snapshot};
use tower_lsp_server::ls_types::{SemanticToken, SemanticTokensEdit, Uri};
use wirelens_core::source::ColumnUnit;

use super::convert;

/// The tokens last sent per document, under the result id they were sent with, and
/// each document's [`ItemCache`].
#[derive(Default)]
pub struct SentTokens {
    next_id: u64,
    by_doc: HashMap<Uri, (String, Arc<Vec<SemanticToken>>)>,
    caches: HashMap<Uri, Arc<Mutex<ItemCache>>>,
}

impl SentTokens {
    /// Remembers `tokens` as the set just sent for `uri`; returns its result id.
    pub fn remember(&mut self, uri: &Uri, tokens: Arc<Vec<SemanticToken>>) -> String {
        self.next_id += 1;
        let id = self.next_id.to_string();
        self.by_doc.insert(uri.clone(), (id.clone(), tokens));
        id
    }

    /// The set sent for `uri` under `result_id`, if it is still the last one sent (two
    /// requests in flight at once: the older id is gone, and its client gets full tokens).
    pub fn sent(&self, uri: &Uri, result_id: &str) -> Option<Arc<Vec<SemanticToken>>> {
        self.by_doc
            .get(uri)
            .filter(|(id, _)| id == result_id)
            .map(|(_, tokens)| Arc::clone(tokens))
    }

    /// The item cache of `uri`'s tokens (made on first use).
    pub fn cache(&mut self, uri: &Uri) -> Arc<Mutex<ItemCache>> {
        Arc::clone(self.caches.entry(uri.clone()).or_default())
    }

    pub fn forget(&mut self, uri: &Uri) {
        self.by_doc.remove(uri);
        self.caches.remove(uri);
    }
}

/// The encoded tokens of each top-level item (declaration, comment) of a document's last
/// computation, by the item's text and shape. A keystroke changes one item, and walking
/// the syntax tree of the other 4,999 of a 5,000-struct schema, then finding the line and
/// column of their 200,000 tokens, was most of the 30–60 ms of each token request.
#[derive(Default)]
pub struct ItemCache {
    /// What every entry also depends on: the snapshot's context key and the column unit.
    context: Option<(u64, ColumnUnit)>,
    items: HashMap<ItemKey, Arc<ItemTokens>>,
    /// How many items the last computation took from the cache.
    reused: usize,
}

#[derive(PartialEq, Eq, Hash)]
struct ItemKey {
    text_hash: u64,
    len: usize,
    shape: (u16, usize),
}

struct ItemTokens {
    /// Encoded as if the document started at the item: the first token's deltas are
    /// counted from the item's start.
    tokens: Vec<SemanticToken>,
    /// The last token's position: lines after the item's start, and its column, counted
    /// from the item's start column when on the item's first line.
    last: (u32, u32),
}

/// The whole document's tokens, as [`convert::semantic_tokens`] encodes
/// [`ide::semantic_tokens`], walking only the items `cache` does not hold.
pub fn document_tokens(snap: &Snapshot, unit: ColumnUnit, cache: &mut ItemCache) -> Vec<SemanticToken> {
    let source = &snap.source;
    let mut out = Vec::new();
    let Some(items) = ide::semantic_token_items(snap) else {
        *cache = ItemCache::default();
        return out;
    };
    let context = Some((items.context_key(), unit));
    if context != cache.context {
        // Made under other struct names or another column unit: none can be reused.
        *cache = ItemCache {
            context,
            ..ItemCache::default()
        };
    }
    // The entries of this computation only, so the cache does not grow with the edits.
    let mut kept = HashMap::with_capacity(cache.items.len());
    let mut reused = 0;
    let mut prev = (0u32, 0u32);
    items.for_each(|item| {
        let range = item.range();
        let key = ItemKey {
            text_hash: hash_text(source.text.get(range.clone()).unwrap_or("")),
            len: range.len(),
            shape: item.shape(),
        };
        let start = source.position(range.start, unit);
        let start = (start.line, start.column);
        let entry = kept.entry(key).or_insert_with_key(|key: &ItemKey| {
            if let Some(done) = cache.items.get(key) {
                reused += 1;
                return Arc::clone(done);
            }
            let (tokens, last) = convert::encode_tokens(source, &item.tokens(), unit, start);
            Arc::new(ItemTokens {
                tokens,
                last: relative(last, start),
            })
        });
        let Some((first, rest)) = entry.tokens.split_first() else {
            return;
        };
        // The first token's deltas, from the item's start to the previous token.
        let (delta_line, delta_start) = relative(absolute((first.delta_line, first.delta_start), start), prev);
        out.push(SemanticToken {
            delta_line,
            delta_start,
            ..*first
        });
        out.extend_from_slice(rest);
        prev = absolute(entry.last, start);
    });
    cache.items = kept;
    cache.reused = reused;
    out
}

/// `at` (line, column) relative to `start`: lines after it, and the column counted from
/// `start`'s when on the same line.
fn relative(at: (u32, u32), start: (u32, u32)) -> (u32, u32) {
    let lines = at.0.saturating_sub(start.0);
    (lines, if lines == 0 { at.1.saturating_sub(start.1) } else { at.1 })
}

/// The inverse of [`relative`].
fn absolute(rel: (u32, u32), start: (u32, u32)) -> (u32, u32) {
    (start.0 + rel.0, if rel.0 == 0 { start.1 + rel.1 } else { rel.1 })
}

fn hash_text(text: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

/// The edits that turn `old` into `new`: none when they are equal, else one edit that
/// replaces what lies between their common head and common tail. Offsets count `u32`s
/// of the flat encoding (five per token), as the protocol has them. Tokens are encoded
/// relative to the one before, so an edit that moves lines changes only the token after
/// it, and the common tail is most of the file.
pub fn edits(old: &[SemanticToken], new: &[SemanticToken]) -> Vec<SemanticTokensEdit> {
    let head = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let tail = old[head..]
        .iter()
        .rev()
        .zip(new[head..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (removed, added) = (old.len() - head - tail, &new[head..new.len() - tail]);
    if removed == 0 && added.is_empty() {
        return Vec::new();
    }
    vec![SemanticTokensEdit {
        start: flat(head),
        delete_count: flat(removed),
        data: Some(added.to_vec()),
    }]
}

/// A token count as a count of `u32`s in the flat encoding.
fn flat(tokens: usize) -> u32 {
    u32::try_from(tokens.saturating_mul(5)).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use wirelens_core::source::SourceFile;
    use wirelens_core::Dialect;

    fn snapshot(dialect: Dialect, text: &str) -> Snapshot {
        let analysis = wirelens_core::analyze(dialect, text, None, wirelens_core::OrderChoice::default());
        Snapshot::new(dialect, 0, SourceFile::new("", text), analysis)
    }

    /// Each text in turn through one cache, in every column unit: the same tokens as a
    /// walk of the whole document; returns how many items each step reused.
    fn through_one_cache(dialect: Dialect, texts: &[String]) -> Vec<usize> {
        let mut reused = Vec::new();
        for unit in [ColumnUnit::Utf8, ColumnUnit::Utf16, ColumnUnit::Utf32] {
            let mut cache = ItemCache::default();
            reused.clear();
            for (step, text) in texts.iter().enumerate() {
                let snap = snapshot(dialect, text);
                let cached = document_tokens(&snap, unit, &mut cache);
                let walked = convert::semantic_tokens(&snap.source, &ide::semantic_tokens(&snap), unit);
                assert!(!walked.is_empty());
                assert_eq!(cached, walked, "step {step} ({unit:?}):\n{text}");
                reused.push(cache.reused);
            }
        }
        reused
    }

    #[test]
    fn cached_items_give_the_tokens_of_a_whole_walk_after_each_edit() {
        let base = "/// Ünïcode doc 😀\nstruct A { x: u8, é: u32 } struct B { a: A }\n\n\
                    // between\nstruct C {\n    b: B,\n    v: []A,\n}\n";
        let texts = [
            base.to_string(),
            // A field typed into C: A, B and the comments are reused.
            base.replace("    v: []A,", "    v: []A,\n    w: u16,"),
            // A line above everything: every item moves down one line.
            format!("\n{}", base.replace("    v: []A,", "    v: []A,\n    w: u16,")),
            // A renamed: B starts at another column of the same line (and refers to a name
            // that no longer exists, a change of context).
            format!("\n{}", base.replace("struct A {", "struct Apple {")),
            // A brace deleted: the items after it parse differently.
            base.replacen('}', "", 1),
            base.to_string(),
        ];
        let reused = through_one_cache(Dialect::Sdp, &texts);
        assert!(reused[1] >= 4, "the unchanged items are reused: {reused:?}");
        assert!(reused[2] >= 5, "and reused when moved: {reused:?}");
    }

    #[test]
    fn cached_multi_line_tokens_keep_their_pieces() {
        // ffire block comments and raw strings span lines: one piece per line.
        let base = "package p\n\n/* a block\n   comment ✓ */ type A struct {\n\tX int32 `json:\"x\nmore\"`\n}\n\n\
                    type B struct {\n\tA A\n}\n";
        let texts = [
            base.to_string(),
            base.replace("\tA A\n", "\tA A\n\tC int8\n"),
            format!("// top\n{base}"),
        ];
        let reused = through_one_cache(Dialect::Ffi, &texts);
        assert!(reused[1] >= 2, "{reused:?}");
    }

    fn t(delta_line: u32, delta_start: u32, length: u32) -> SemanticToken {
        SemanticToken {
            delta_line,
            delta_start,
            length,
            token_type: 0,
            token_modifiers_bitset: 0,
        }
    }

    /// The flat encoding the protocol sends: five `u32`s per token.
    fn flatten<'t>(tokens: impl IntoIterator<Item = &'t SemanticToken>) -> Vec<u32> {
        tokens
            .into_iter()
            .flat_map(|t| {
                [
                    t.delta_line,
                    t.delta_start,
                    t.length,
                    t.token_type,
                    t.token_modifiers_bitset,
                ]
            })
            .collect()
    }

    /// Applies `edits` to the flat encoding of `old`, as a client does.
    fn apply(old: &[SemanticToken], edits: &[SemanticTokensEdit]) -> Vec<u32> {
        let mut flat = flatten(old);
        for e in edits.iter().rev() {
            let data = flatten(e.data.iter().flatten());
            flat.splice(e.start as usize..(e.start + e.delete_count) as usize, data);
        }
        flat
    }

    #[test]
    fn the_edit_replaces_only_what_changed_and_applies_back() {
        let old = vec![t(0, 0, 6), t(0, 7, 1), t(1, 4, 1), t(0, 3, 3), t(1, 4, 2)];
        let cases = [
            (old.clone(), 0),                                                      // unchanged
            (vec![t(0, 0, 6), t(0, 7, 1), t(1, 4, 1), t(0, 3, 4), t(1, 4, 2)], 1), // one changed
            (vec![t(0, 0, 6), t(0, 7, 1), t(1, 4, 2)], 1),                         // two removed
            (
                vec![t(0, 0, 6), t(0, 7, 1), t(1, 4, 1), t(0, 3, 3), t(1, 0, 9), t(1, 4, 2)],
                1,
            ), // one added
            (Vec::new(), 1),                                                       // all removed
            (vec![t(2, 0, 1)], 1),                                                 // all different
        ];
        for (new, count) in cases {
            let e = edits(&old, &new);
            assert_eq!(e.len(), count, "{new:?}");
            assert_eq!(apply(&old, &e), flatten(&new), "{new:?}");
        }
        // One token changed in the middle: the edit holds that token only.
        let mut new = old.clone();
        new[2] = t(1, 4, 7);
        let e = edits(&old, &new);
        assert_eq!((e[0].start, e[0].delete_count), (10, 5));
        assert_eq!(e[0].data.as_deref(), Some(&[t(1, 4, 7)][..]));
    }

    #[test]
    fn only_the_last_result_id_of_a_document_is_known() {
        let uri: Uri = "file:///a.sdp".parse().unwrap();
        let mut sent = SentTokens::default();
        let first = sent.remember(&uri, Arc::new(vec![t(0, 0, 1)]));
        let second = sent.remember(&uri, Arc::new(vec![t(0, 0, 2)]));
        assert_ne!(first, second);
        assert!(sent.sent(&uri, &first).is_none());
        assert_eq!(sent.sent(&uri, &second).as_deref(), Some(&vec![t(0, 0, 2)]));
        sent.forget(&uri);
        assert!(sent.sent(&uri, &second).is_none());
    }
}
