//! Where the cursor goes after a code action: LSP 3.18 snippet edits.
//!
//! A `WorkspaceEdit` has no cursor. LSP 3.18 lets a `TextDocumentEdit` carry a
//! `SnippetTextEdit` (`{range, snippet: {kind: "snippet", value}}`, `$0` being the final
//! cursor) for clients that advertise `workspace.workspaceEdit.snippetEditSupport`
//! (vscode-languageclient 10 and later do; Neovim 0.11 does not). The protocol types
//! tower-lsp-server uses predate 3.18 and drop that capability when they parse
//! `initialize`, so this layer in front of the `LspService` reads the capability from
//! the raw `initialize` request, and turns each code action that carries a snippet in
//! its `data` (set by `handlers::code_actions`) into a `documentChanges` edit with that
//! snippet. Other clients get the plain edit; the `data` is removed either way.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use serde_json::{json, Value};
use tower_lsp_server::jsonrpc::{Request, Response};
use tower_service::Service;

/// The key of a code action's `data` that holds `{"edit": index, "snippet": text}`.
pub const DATA_KEY: &str = "wirelensSnippet";

/// The snippet that inserts `text` and selects `select` (a byte range of it; empty: the
/// cursor goes there). `None` when the range is not inside `text`.
pub fn snippet(text: &str, select: std::ops::Range<usize>) -> Option<String> {
    let (before, chosen, after) = (
        text.get(..select.start)?,
        text.get(select.clone())?,
        text.get(select.end..)?,
    );
    let stop = if chosen.is_empty() {
        "$0".to_string()
    } else {
        format!("${{0:{}}}", escape(chosen))
    };
    Some(format!("{}{stop}{}", escape(before), escape(after)))
}

/// Snippet syntax escapes `$`, `}` and `\` in text.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '$' | '}' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The service in front of the `LspService` (see the module's documentation).
pub struct Snippets<S> {
    inner: S,
    supported: Arc<AtomicBool>,
}

impl<S> Snippets<S> {
    pub fn new(inner: S) -> Self {
        Snippets {
            inner,
            supported: Arc::new(AtomicBool::new(false)),
        }
    }
}

impl<S> Service<Request> for Snippets<S>
where
    S: Service<Request, Response = Option<Response>>,
    S::Future: Send + 'static,
{
    type Response = Option<Response>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Option<Response>, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let method = request.method();
        if method == "initialize" {
            let advertised = request
                .params()
                .and_then(|p| p.pointer("/capabilities/workspace/workspaceEdit/snippetEditSupport"))
                .and_then(Value::as_bool)
                .unwrap_or(false);
            self.supported.store(advertised, Ordering::Relaxed);
        }
        let code_action = method == "textDocument/codeAction";
        let supported = self.supported.load(Ordering::Relaxed);
        let answer = self.inner.call(request);
        Box::pin(async move {
            let response = answer.await?;
            Ok(match response {
                Some(r) if code_action => {
                    let (id, body) = r.into_parts();
                    Some(Response::from_parts(
                        id,
                        body.map(|mut v| {
                            rewrite(&mut v, supported);
                            v
                        }),
                    ))
                }
                other => other,
            })
        })
    }
}

/// Each code action with a snippet in its `data`: without it, and (where the client
/// takes snippets) its edit as a `documentChanges` edit whose chosen edit is a snippet.
fn rewrite(actions: &mut Value, supported: bool) {
    let Some(actions) = actions.as_array_mut() else {
        return;
    };
    for action in actions.iter_mut().filter_map(Value::as_object_mut) {
        if action.get("data").and_then(|d| d.get(DATA_KEY)).is_none() {
            continue;
        }
        let Some(data) = action.remove("data") else {
            continue;
        };
        if !supported {
            continue;
        }
        let (Some(index), Some(snippet)) = (data[DATA_KEY]["edit"].as_u64(), data[DATA_KEY]["snippet"].as_str()) else {
            continue;
        };
        let Some(changes) = action
            .get("edit")
            .and_then(|e| e.get("changes"))
            .and_then(Value::as_object)
        else {
            continue;
        };
        let Some((uri, edits)) = changes.iter().next() else {
            continue;
        };
        let Some(mut edits) = edits.as_array().cloned() else {
            continue;
        };
        let Some(chosen) = usize::try_from(index).ok().and_then(|i| edits.get_mut(i)) else {
            continue;
        };
        *chosen = json!({"range": chosen["range"].clone(), "snippet": {"kind": "snippet", "value": snippet}});
        let edit = json!({"documentChanges": [{"textDocument": {"uri": uri, "version": null}, "edits": edits}]});
        action.insert("edit".into(), edit);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippets_escape_and_select() {
        assert_eq!(
            snippet("struct A {\n    field: u32,\n}\n", 15..25).as_deref(),
            Some("struct A {\n    ${0:field: u32},\n\\}\n")
        );
        assert_eq!(snippet("a$b\\", 1..1).as_deref(), Some("a$0\\$b\\\\"));
        assert_eq!(snippet("é", 1..1), None, "inside a character");
    }
}
