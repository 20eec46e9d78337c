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
        build.compile(&format!("tree-sitter-{dialect}"));
        println!("cargo:rerun-if-changed={}", src.join("parser.c").display());
    }
}
