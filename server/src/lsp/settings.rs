//! Settings the client sends (`initializationOptions`,
//! `workspace/didChangeConfiguration`). Only values present in the message count as
//! set: an absent value never hides `wirelens.toml`. How they combine with flags, the
//! file's directive, `wirelens.toml` and defaults is decided in one place, the project
//! service (`wirelens_project::project`).

use serde_json::Value;
use wirelens_core::FieldOrder;
use wirelens_generators::Lang;
use wirelens_project::project;

use crate::ide::views::NumberFormat;

/// What the client may set, all optional. Accepted shapes: `{ "ffi": { "order" },
/// "compat": { "against" }, "numberFormat",
/// "generate": { "onSave", "languages", "outDir" }, "inlayHints": { "enabled" } }`,
/// also nested under a `wirelens` key (VS Code's style) and with snake_case keys (as in
/// `wirelens.toml`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClientSettings {
    /// What the project service needs: ffire order and generation.
    pub project: project::ClientSettings,
    pub inlay_hints: Option<bool>,
    /// `diagnostics.delayMs`: how long diagnostics wait for more edits (at most 2 s).
    pub diagnostics_delay_ms: Option<u64>,
    /// `numberFormat`: `decimal` (`8 (0x8)`, the default) or `hex` (`0x8 (8)`) in hovers.
    pub number_format: Option<NumberFormat>,
}

fn get<'v>(v: &'v Value, keys: &[&str]) -> Option<&'v Value> {
    keys.iter().find_map(|k| v.get(k))
}

/// `["c", "rust"]` → languages; unknown names are ignored, an empty result is `None`.
pub fn languages(v: &Value) -> Option<Vec<Lang>> {
    let mut langs: Vec<Lang> = v
        .as_array()?
        .iter()
        .filter_map(|l| l.as_str().and_then(Lang::parse))
        .collect();
    langs.sort();
    langs.dedup();
    (!langs.is_empty()).then_some(langs)
}

impl ClientSettings {
    pub fn parse(settings: &Value) -> ClientSettings {
        let s = settings.get("wirelens").unwrap_or(settings);
        let generate = s.get("generate");
        ClientSettings {
            project: project::ClientSettings {
                order: s
                    .get("ffi")
                    .and_then(|f| f.get("order"))
                    .and_then(Value::as_str)
                    .and_then(FieldOrder::parse),
                on_save: generate
                    .and_then(|g| get(g, &["onSave", "on_save"]))
                    .and_then(Value::as_bool),
                languages: generate.and_then(|g| g.get("languages")).and_then(languages),
                out_dir: generate
                    .and_then(|g| get(g, &["outDir", "out_dir"]))
                    .and_then(Value::as_str)
                    .map(str::trim)
                    .filter(|d| !d.is_empty())
                    .map(String::from),
                against: s
                    .get("compat")
                    .and_then(|c| c.get("against"))
                    .and_then(Value::as_str)
                    .map(str::trim)
                    .filter(|a| !a.is_empty())
                    .map(String::from),
            },
            inlay_hints: get(s, &["inlayHints", "inlay_hints"])
                .and_then(|i| i.get("enabled"))
                .and_then(Value::as_bool),
            diagnostics_delay_ms: s
                .get("diagnostics")
                .and_then(|d| get(d, &["delayMs", "delay_ms"]))
                .and_then(Value::as_u64)
                .map(|ms| ms.min(2000)),
            number_format: get(s, &["numberFormat", "number_format"])
                .and_then(Value::as_str)
                .and_then(NumberFormat::parse),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_vscode_nvim_and_toml_style_settings() {
        let v = json!({"wirelens": {"ffi": {"order": "declaration"}, "generate": {"onSave": true,
            "languages": ["rust", "c", "go"], "outDir": " gen "}, "inlayHints": {"enabled": false}}});
        let s = ClientSettings::parse(&v);
        assert_eq!(s.project.order, Some(FieldOrder::Declaration));
        assert_eq!(s.project.on_save, Some(true));
        assert_eq!(s.project.languages, Some(vec![Lang::C, Lang::Rust]));
        assert_eq!(s.project.out_dir.as_deref(), Some("gen"));
        assert_eq!(s.inlay_hints, Some(false));
        assert_eq!(s.project.against, None);
        let s = ClientSettings::parse(&json!({"wirelens": {"compat": {"against": " main "}}}));
        assert_eq!(s.project.against.as_deref(), Some("main"));
        let s = ClientSettings::parse(&json!({"diagnostics": {"delayMs": 0}}));
        assert_eq!(s.diagnostics_delay_ms, Some(0));
        let s = ClientSettings::parse(&json!({"diagnostics": {"delayMs": 999999}}));
        assert_eq!(s.diagnostics_delay_ms, Some(2000));
        let s = ClientSettings::parse(&json!({"generate": {"on_save": false, "out_dir": "x", "languages": []}}));
        assert_eq!(
            (s.project.on_save, s.project.out_dir.as_deref(), s.project.languages),
            (Some(false), Some("x"), None)
        );
        assert_eq!(ClientSettings::parse(&json!(null)), ClientSettings::default());
        let s = ClientSettings::parse(&json!({"wirelens": {"numberFormat": "hex"}}));
        assert_eq!(s.number_format, Some(NumberFormat::Hex));
        let s = ClientSettings::parse(&json!({"number_format": "decimal"}));
        assert_eq!(s.number_format, Some(NumberFormat::Decimal));
        assert_eq!(
            ClientSettings::parse(&json!({"numberFormat": "octal"})).number_format,
            None
        );
    }
}
