fn main() {
    for dialect in ["sdp", "ffi"] {
        let src = std::path::Path::new(dialect).join("src");
        let mut build = cc::Build::new();
        build
            .std("c11")
            .include(&src)
            .file(src.join("parser.c"))
            .flag_if_supported("-Wno-unused-parameter")
            .flag_if_supported("-Wno-unused-but-set-variable")
            .flag_if_supported("-Wno-trigraphs");
        // wasm32-unknown-unknown has no libc: tree-sitter-language ships the headers the
        // generated parser includes (the core is checked to build for wasm, issue #34).
        if std::env::var("TARGET").is_ok_and(|t| t.starts_with("wasm32-unknown")) {
            if let Ok(headers) = std::env::var("DEP_TREE_SITTER_LANGUAGE_WASM_HEADERS") {
                build.include(headers);
            }
        }
        build.compile(&format!("tree-sitter-{dialect}"));
        println!("cargo:rerun-if-changed={}", src.join("parser.c").display());
    }
}
