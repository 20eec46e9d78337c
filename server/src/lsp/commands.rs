//! The server's `workspace/executeCommand` commands: their names, the arguments they
//! take and the `Command` values lenses and code actions carry. Plain data, used by the
//! handlers (which offer commands), the backend (which dispatches them) and generation.

use std::path::PathBuf;

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use wirelens_project::project::Flags;

use super::settings;

/// `wirelens.showLayout [uri, typeName]`: the layout of one type as Markdown (the code
/// lens runs it; editors may show the result).
pub const SHOW_LAYOUT: &str = "wirelens.showLayout";

/// `wirelens.generate [{uri, languages?, outDir?}]` (also `[uri, languages?]`): writes
/// the generated code for one schema; answers `{outDir, written, unchanged}`.
pub const GENERATE: &str = "wirelens.generate";

/// `wirelens.generateWorkspace [{languages?, outDir?}?]`: every schema under the
/// workspace folders, with `$/progress`.
pub const GENERATE_WORKSPACE: &str = "wirelens.generateWorkspace";

/// `[{uri, languages?, outDir?}]` or `[uri, languages?]`.
pub fn generate_arguments(args: &[LSPAny]) -> Result<(Uri, Flags)> {
    let bad = || tower_lsp_server::jsonrpc::Error::invalid_params("expected [{uri, languages?, outDir?}]");
    let first = args.first().ok_or_else(bad)?;
    let (uri, request) = match first {
        serde_json::Value::String(uri) => (
            uri.as_str(),
            Flags {
                languages: args.get(1).and_then(settings::languages),
                ..Flags::default()
            },
        ),
        obj => (
            obj.get("uri").and_then(|u| u.as_str()).ok_or_else(bad)?,
            generate_request(obj),
        ),
    };
    Ok((uri.parse::<Uri>().map_err(|_| bad())?, request))
}

pub fn generate_request(v: &LSPAny) -> Flags {
    Flags {
        languages: v.get("languages").and_then(settings::languages),
        out_dir: v
            .get("outDir")
            .and_then(|d| d.as_str())
            .filter(|d| !d.trim().is_empty())
            .map(|d| PathBuf::from(d.trim())),
        // Like `--order` on the command line: beats even the file's directive.
        order: v
            .get("order")
            .and_then(|o| o.as_str())
            .and_then(wirelens_core::FieldOrder::parse),
    }
}

/// What a code action or lens runs to generate `langs` for `uri`.
pub fn generate_command(title: &str, uri: &Uri, langs: &[wirelens_generators::Lang]) -> Command {
    let langs: Vec<&str> = langs.iter().map(|l| l.as_str()).collect();
    Command {
        title: title.into(),
        command: GENERATE.into(),
        arguments: Some(vec![serde_json::json!({"uri": uri.as_str(), "languages": langs})]),
    }
}

pub fn lang_label(lang: wirelens_generators::Lang) -> &'static str {
    match lang {
        wirelens_generators::Lang::C => "C",
        wirelens_generators::Lang::Cpp => "C++",
        wirelens_generators::Lang::Rust => "Rust",
    }
}
