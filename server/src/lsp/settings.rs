//! Settings: what the client sends (`initializationOptions`,
//! `workspace/didChangeConfiguration`, command arguments) over what `wirelens.toml`
//! says, over defaults. And where generated code may go: the server trusts nothing it
//! is sent, so an output directory must stay inside the schema's workspace folder.

use std::path::{Component, Path, PathBuf};

use codegen::emit::Lang;
use codegen::{Config, FieldOrder};
use serde_json::Value;

/// The default output folder, beside the schema.
pub const DEFAULT_OUT_DIR: &str = "generated";

/// What the client may set, all optional. Accepted shapes: `{ "ffi": { "order" },
/// "generate": { "onSave", "languages", "outDir" }, "inlayHints": { "enabled" } }`,
/// also nested under a `wirelens` key (VS Code's style) and with snake_case keys (as in
/// `wirelens.toml`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClientSettings {
    pub order: Option<FieldOrder>,
    pub on_save: Option<bool>,
    pub languages: Option<Vec<Lang>>,
    pub out_dir: Option<String>,
    pub inlay_hints: Option<bool>,
    /// `diagnostics.delayMs`: how long diagnostics wait for more edits (at most 2 s).
    pub diagnostics_delay_ms: Option<u64>,
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
            inlay_hints: get(s, &["inlayHints", "inlay_hints"])
                .and_then(|i| i.get("enabled"))
                .and_then(Value::as_bool),
            diagnostics_delay_ms: s
                .get("diagnostics")
                .and_then(|d| get(d, &["delayMs", "delay_ms"]))
                .and_then(Value::as_u64)
                .map(|ms| ms.min(2000)),
        }
    }
}

/// Where and what to generate for one schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenPlan {
    pub langs: Vec<Lang>,
    pub out_dir: PathBuf,
    pub on_save: bool,
}

/// Overrides that come with one request (`wirelens.generate` arguments).
#[derive(Debug, Clone, Default)]
pub struct GenRequest {
    pub languages: Option<Vec<Lang>>,
    pub out_dir: Option<String>,
}

/// Resolves the plan for `schema`: request over client over `wirelens.toml` over
/// defaults (all three languages, `generated/` beside the schema, no generation on
/// save). Relative directories are resolved against the folder that set them: the
/// workspace folder for client settings, the `wirelens.toml`'s folder for the file's.
/// The result must lie inside the schema's workspace folder (or, outside any, inside
/// the folder of its `wirelens.toml` or of the schema itself).
pub fn plan(
    schema: &Path,
    roots: &[PathBuf],
    client: &ClientSettings,
    request: &GenRequest,
) -> Result<GenPlan, String> {
    let schema_dir = schema.parent().unwrap_or(Path::new("/")).to_path_buf();
    let toml = Config::find(&schema_dir);
    let toml_dir = toml.as_ref().and_then(|p| p.parent()).map(Path::to_path_buf);
    let config = match &toml {
        Some(path) => Config::load(path).map_err(|e| e.to_string())?,
        None => Config::default(),
    };
    let root = roots
        .iter()
        .filter(|r| schema.starts_with(r))
        .max_by_key(|r| r.components().count())
        .cloned();
    let base = root
        .clone()
        .or_else(|| toml_dir.clone())
        .unwrap_or_else(|| schema_dir.clone());

    let langs = request
        .languages
        .clone()
        .or_else(|| client.languages.clone())
        .or_else(|| {
            let names = config.generate.languages.as_ref()?;
            let mut l: Vec<Lang> = names.iter().filter_map(|n| Lang::parse(n)).collect();
            l.sort();
            l.dedup();
            (!l.is_empty()).then_some(l)
        })
        .unwrap_or_else(|| Lang::ALL.to_vec());
    let client_base = root.clone().unwrap_or_else(|| schema_dir.clone());
    let out_dir = match (&request.out_dir, &client.out_dir, &config.generate.out_dir, &toml_dir) {
        (Some(d), _, _, _) | (None, Some(d), _, _) => client_base.join(d),
        (None, None, Some(d), Some(dir)) => dir.join(d),
        _ => schema_dir.join(DEFAULT_OUT_DIR),
    };
    let out_dir = confine(&out_dir, &base)?;
    Ok(GenPlan {
        langs,
        out_dir,
        on_save: client.on_save.or(config.generate.on_save).unwrap_or(false),
    })
}

/// `dir` with `.`/`..` resolved lexically, if it stays inside `base` — also after
/// following symbolic links of the part that exists.
fn confine(dir: &Path, base: &Path) -> Result<PathBuf, String> {
    let normal = normalize(dir);
    let refuse = || {
        format!(
            "output directory {} is outside {}; generated code stays inside the workspace",
            normal.display(),
            base.display()
        )
    };
    let base_normal = normalize(base);
    if !normal.starts_with(&base_normal) {
        return Err(refuse());
    }
    // The longest existing ancestor, resolved, must still be inside the resolved base.
    let real_base = std::fs::canonicalize(&base_normal).unwrap_or(base_normal);
    if let Some(existing) = normal.ancestors().find(|a| a.exists()) {
        let real = std::fs::canonicalize(existing).map_err(|e| format!("{}: {e}", existing.display()))?;
        if !real.starts_with(&real_base) {
            return Err(refuse());
        }
    }
    Ok(normal)
}

fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
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
        assert_eq!(s.order, Some(FieldOrder::Declaration));
        assert_eq!(s.on_save, Some(true));
        assert_eq!(s.languages, Some(vec![Lang::C, Lang::Rust]));
        assert_eq!(s.out_dir.as_deref(), Some("gen"));
        assert_eq!(s.inlay_hints, Some(false));
        let s = ClientSettings::parse(&json!({"diagnostics": {"delayMs": 0}}));
        assert_eq!(s.diagnostics_delay_ms, Some(0));
        let s = ClientSettings::parse(&json!({"diagnostics": {"delayMs": 999999}}));
        assert_eq!(s.diagnostics_delay_ms, Some(2000));
        let s = ClientSettings::parse(&json!({"generate": {"on_save": false, "out_dir": "x", "languages": []}}));
        assert_eq!(
            (s.on_save, s.out_dir.as_deref(), s.languages),
            (Some(false), Some("x"), None)
        );
        assert_eq!(ClientSettings::parse(&json!(null)), ClientSettings::default());
    }

    #[test]
    fn plan_precedence_and_confinement() {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        let schemas = root.join("schemas");
        std::fs::create_dir_all(&schemas).unwrap();
        let schema = schemas.join("a.sdp");
        let roots = vec![root.clone()];
        let none = ClientSettings::default();

        let p = plan(&schema, &roots, &none, &GenRequest::default()).unwrap();
        assert_eq!(p.out_dir, schemas.join("generated"));
        assert_eq!(p.langs, Lang::ALL.to_vec());
        assert!(!p.on_save);

        std::fs::write(
            schemas.join("wirelens.toml"),
            "[generate]\non_save = true\nlanguages = [\"c\"]\nout_dir = \"../out\"\n",
        )
        .unwrap();
        let p = plan(&schema, &roots, &none, &GenRequest::default()).unwrap();
        assert_eq!(
            (p.out_dir.clone(), p.langs.clone(), p.on_save),
            (root.join("out"), vec![Lang::C], true)
        );

        let client = ClientSettings {
            out_dir: Some("build/gen".into()),
            languages: Some(vec![Lang::Rust]),
            on_save: Some(false),
            ..Default::default()
        };
        let p = plan(&schema, &roots, &client, &GenRequest::default()).unwrap();
        assert_eq!(
            (p.out_dir.clone(), p.langs.clone(), p.on_save),
            (root.join("build/gen"), vec![Lang::Rust], false)
        );
        let req = GenRequest {
            languages: Some(vec![Lang::Cpp]),
            out_dir: Some("cpp".into()),
        };
        let p = plan(&schema, &roots, &client, &req).unwrap();
        assert_eq!((p.out_dir, p.langs), (root.join("cpp"), vec![Lang::Cpp]));

        for escape in ["../../etc", "/etc", "a/../../.."] {
            let req = GenRequest {
                out_dir: Some(escape.into()),
                ..Default::default()
            };
            let e = plan(&schema, &roots, &none, &req).unwrap_err();
            assert!(e.contains("outside"), "{escape}: {e}");
        }
        #[cfg(unix)]
        {
            let outside = tempfile::tempdir().unwrap();
            std::os::unix::fs::symlink(outside.path(), root.join("link")).unwrap();
            let req = GenRequest {
                out_dir: Some("link/gen".into()),
                ..Default::default()
            };
            let e = plan(&schema, &roots, &none, &req).unwrap_err();
            assert!(e.contains("outside"), "symlink escape: {e}");
        }
    }
}
