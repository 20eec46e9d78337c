//! `textDocument/semanticTokens/full/delta`: the last full set of tokens sent for each
//! document, and the one edit that turns it into the new set.
//!
//! A 5,000-struct schema has about 200,000 tokens, a 1 MB answer, and VS Code asks for
//! the whole document's tokens after every keystroke. The editor's extension host parsed
//! that answer while the inlay hints of the same keystroke waited behind it (the hints of
//! the edited line came 0.3–0.6 s after the keystroke). A keystroke changes the tokens of
//! one line, so the delta answer is a few bytes.

use std::collections::HashMap;
use std::sync::Arc;

use tower_lsp_server::ls_types::{SemanticToken, SemanticTokensEdit, Uri};

/// The tokens last sent per document, under the result id they were sent with.
#[derive(Default)]
pub struct SentTokens {
    next_id: u64,
    by_doc: HashMap<Uri, (String, Arc<Vec<SemanticToken>>)>,
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

    pub fn forget(&mut self, uri: &Uri) {
        self.by_doc.remove(uri);
    }
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
