//! The project service: settings precedence, discovery, generation and the file-safety
//! rules of its readers and writers, exercised on real files.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use wirelens_core::FieldOrder;
use wirelens_generators::{Lang, OutputFile, OwnedStrings};
use wirelens_project::files::{read_regular, replace_user_file};
use wirelens_project::project::{find_schemas, workspace_schemas, write_prepared, ClientSettings, Flags, Project};

const BODY: &str = "package p\n\ntype T struct {\n\tA bool\n\tB int64\n\tC int16\n}\n";

fn canonical_root() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    (dir, root)
}

fn outputs(project: &Project, schema: &Path, flags: &Flags, text: Option<&str>) -> Vec<OutputFile> {
    let texts: HashMap<PathBuf, String> = text
        .map(|t| (schema.to_path_buf(), t.to_string()))
        .into_iter()
        .collect();
    let prepared = project
        .prepare(&[schema.to_path_buf()], flags, &texts)
        .unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(prepared.dirs.len(), 1);
    prepared.dirs[0].files.clone()
}

/// Every combination of flag, directive, client setting and `wirelens.toml`: the open
/// (unsaved text) and closed (read from disk) paths give the same bytes, and the winner
/// is the highest layer that is set.
#[test]
fn open_and_closed_generation_agree_for_every_precedence_combination() {
    let (_dir, root) = canonical_root();
    let schema = root.join("t.ffi");
    let orders = [None, Some(FieldOrder::Canonical), Some(FieldOrder::Declaration)];
    let reference = |order: FieldOrder| {
        std::fs::write(&schema, BODY).unwrap();
        let _ = std::fs::remove_file(root.join("wirelens.toml"));
        let flags = Flags {
            order: Some(order),
            languages: Some(vec![Lang::Rust]),
            ..Flags::default()
        };
        outputs(&Project::local(), &schema, &flags, None)
    };
    let canonical = reference(FieldOrder::Canonical);
    let declaration = reference(FieldOrder::Declaration);
    assert_ne!(canonical, declaration, "the test schema must differ between orders");
    let mut combos = 0;
    for flag in orders {
        for directive in orders {
            for client in orders {
                for toml in orders {
                    let text = match directive {
                        Some(o) => format!("//wirelens:order {}\n{BODY}", o.as_str()),
                        None => BODY.to_string(),
                    };
                    std::fs::write(&schema, &text).unwrap();
                    match toml {
                        Some(o) => std::fs::write(
                            root.join("wirelens.toml"),
                            format!("[ffi]\norder = \"{}\"\n", o.as_str()),
                        )
                        .unwrap(),
                        None => {
                            let _ = std::fs::remove_file(root.join("wirelens.toml"));
                        }
                    }
                    let project = Project::workspace(
                        vec![root.clone()],
                        ClientSettings {
                            order: client,
                            ..ClientSettings::default()
                        },
                    );
                    let flags = Flags {
                        order: flag,
                        languages: Some(vec![Lang::Rust]),
                        ..Flags::default()
                    };
                    let closed = outputs(&project, &schema, &flags, None);
                    let open = outputs(&project, &schema, &flags, Some(&text));
                    let case = format!("flag {flag:?}, directive {directive:?}, client {client:?}, toml {toml:?}");
                    assert!(closed == open, "open and closed differ: {case}");
                    let winner = flag.or(directive).or(client).or(toml).unwrap_or_default();
                    let expected = match winner {
                        FieldOrder::Canonical => &canonical,
                        FieldOrder::Declaration => &declaration,
                    };
                    // The directive line is a comment: the generated code is the same.
                    assert!(&closed == expected, "wrong order won ({winner:?} expected): {case}");
                    combos += 1;
                }
            }
        }
    }
    assert_eq!(combos, 81);
}

#[test]
fn an_unset_client_setting_does_not_hide_wirelens_toml() {
    let (_dir, root) = canonical_root();
    std::fs::write(
        root.join("wirelens.toml"),
        "[generate]\non_save = true\nlanguages = [\"c\"]\nout_dir = \"out\"\n",
    )
    .unwrap();
    let schema = root.join("a.sdp");
    std::fs::write(&schema, "struct A { x: u8 }\n").unwrap();
    let unset = Project::workspace(vec![root.clone()], ClientSettings::default());
    let s = unset.settings(&schema, &Flags::default()).unwrap();
    assert_eq!(
        (s.on_save, s.languages, s.out_dir),
        (true, vec![Lang::C], root.join("out"))
    );
    let set = Project::workspace(
        vec![root.clone()],
        ClientSettings {
            on_save: Some(false),
            languages: Some(vec![Lang::Rust]),
            out_dir: Some("mine".into()),
            order: None,
            against: None,
        },
    );
    let s = set.settings(&schema, &Flags::default()).unwrap();
    assert_eq!(
        (s.on_save, s.languages, s.out_dir),
        (false, vec![Lang::Rust], root.join("mine"))
    );
    // A flag beats the client.
    let flags = Flags {
        languages: Some(vec![Lang::Cpp]),
        out_dir: Some("flagged".into()),
        order: None,
    };
    let s = set.settings(&schema, &flags).unwrap();
    assert_eq!((s.languages, s.out_dir), (vec![Lang::Cpp], root.join("flagged")));
}

#[test]
fn editor_generation_stays_inside_the_workspace() {
    let (_dir, root) = canonical_root();
    let (_other, outside) = canonical_root();
    let schema = outside.join("a.sdp");
    std::fs::write(&schema, "struct A { x: u8 }\n").unwrap();
    let project = Project::workspace(vec![root.clone()], ClientSettings::default());
    let e = project.settings(&schema, &Flags::default()).unwrap_err();
    assert!(e.message.contains("not inside a workspace folder"), "{e}");
    let inside = root.join("a.sdp");
    for escape in ["../../etc", "/etc", "a/../../.."] {
        let flags = Flags {
            out_dir: Some(escape.into()),
            ..Flags::default()
        };
        let e = project.settings(&inside, &flags).unwrap_err();
        assert!(e.message.contains("outside"), "{escape}: {e}");
    }
    std::os::unix::fs::symlink(&outside, root.join("link")).unwrap();
    let flags = Flags {
        out_dir: Some("link/gen".into()),
        ..Flags::default()
    };
    let e = project.settings(&inside, &flags).unwrap_err();
    assert!(e.message.contains("outside"), "symlink escape: {e}");
}

fn two_colliding_schemas() -> (tempfile::TempDir, PathBuf, Vec<PathBuf>) {
    let (dir, root) = canonical_root();
    std::fs::write(root.join("wirelens.toml"), "[generate]\nout_dir = \"gen\"\n").unwrap();
    let mut schemas = Vec::new();
    for (sub, ty) in [("a", "A"), ("b", "B")] {
        std::fs::create_dir(root.join(sub)).unwrap();
        let path = root.join(sub).join("x.sdp");
        std::fs::write(&path, format!("struct {ty} {{ v: u32 }}\n")).unwrap();
        schemas.push(path);
    }
    (dir, root, schemas)
}

#[test]
fn colliding_outputs_are_refused_by_the_service() {
    let (_dir, root, schemas) = two_colliding_schemas();
    let project = Project::workspace(vec![root.clone()], ClientSettings::default());
    let errors = project
        .prepare(&schemas, &Flags::default(), &HashMap::new())
        .unwrap_err();
    assert!(
        errors
            .iter()
            .any(|e| e.message.contains("would overwrite the one generated from")),
        "{errors:?}"
    );
    assert!(!root.join("gen").exists(), "something was written");
}

/// Several threads generate versions of one schema into one folder at once (save-all
/// with generation on save): none fails, and the folder ends as one complete set, that
/// of the newest preparation.
#[test]
fn concurrent_generations_into_one_folder_end_in_the_newest_complete_set() {
    let (_dir, root) = canonical_root();
    let schema = root.join("a.sdp");
    std::fs::write(&schema, "struct A { v0: u8 }\n").unwrap();
    let project = Project::workspace(vec![root.clone()], ClientSettings::default());
    let versions: Vec<_> = (0..12)
        .map(|i| {
            let text = format!("struct A {{ v{i}: u8 }}\n");
            let texts = HashMap::from([(schema.clone(), text)]);
            project
                .prepare(std::slice::from_ref(&schema), &Flags::default(), &texts)
                .unwrap()
        })
        .collect();
    let newest = versions.last().unwrap().dirs[0].clone();
    // Oldest last: a folder without the lock or without "newest wins" ends stale.
    let handles: Vec<_> = versions
        .into_iter()
        .rev()
        .map(|p| std::thread::spawn(move || write_prepared(&p)))
        .collect();
    for h in handles {
        let written = h.join().unwrap();
        assert!(written.is_ok(), "{written:?}");
    }
    for file in &newest.files {
        let on_disk = std::fs::read_to_string(newest.out_dir.join(&file.name)).unwrap();
        assert!(on_disk == file.contents, "{} is not the newest version", file.name);
    }
    let temps: Vec<_> = std::fs::read_dir(&newest.out_dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(temps.is_empty(), "{temps:?}");
}

#[test]
fn a_symlink_loop_ends_the_walk() {
    let (_dir, root) = canonical_root();
    std::fs::create_dir_all(root.join("s/deeper")).unwrap();
    std::fs::write(root.join("s/a.sdp"), "struct A { x: u8 }\n").unwrap();
    std::os::unix::fs::symlink(&root, root.join("s/deeper/loop")).unwrap();
    std::os::unix::fs::symlink(root.join("s"), root.join("s/self")).unwrap();
    let found = find_schemas(std::slice::from_ref(&root)).unwrap();
    assert_eq!(found, vec![root.join("s/a.sdp")]);
}

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success());
}

#[test]
fn readers_refuse_endless_and_special_files_without_blocking() {
    let (_dir, root) = canonical_root();
    std::os::unix::fs::symlink("/dev/zero", root.join("zero.sdp")).unwrap();
    let e = wirelens_project::files::read_source(&root.join("zero.sdp"))
        .err()
        .unwrap();
    assert!(e.message.contains("not a regular file"), "{e}");
    mkfifo(&root.join("pipe.sdp"));
    let e = wirelens_project::files::read_source(&root.join("pipe.sdp"))
        .err()
        .unwrap();
    assert!(e.message.contains("not a regular file"), "{e}");
    mkfifo(&root.join("wirelens.toml"));
    std::fs::write(root.join("a.ffi"), BODY).unwrap();
    let project = Project::workspace(vec![root.clone()], ClientSettings::default());
    let e = project.settings(&root.join("a.ffi"), &Flags::default()).unwrap_err();
    assert!(e.message.contains("not a regular file"), "{e}");
    // The limit is counted while reading, whatever the metadata says.
    std::fs::write(root.join("big.sdp"), vec![b' '; 100]).unwrap();
    let e = read_regular(&root.join("big.sdp"), 99).unwrap_err();
    assert!(e.message.contains("larger than the limit of 99 bytes"), "{e}");
    assert_eq!(read_regular(&root.join("big.sdp"), 100).unwrap().len(), 100);
}

#[test]
fn user_files_are_written_through_links_with_their_mode_and_refused_when_unsafe() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let (_dir, root) = canonical_root();
    let real = root.join("real.sdp");
    std::fs::write(&real, "old").unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
    std::os::unix::fs::symlink(&real, root.join("link.sdp")).unwrap();
    let written = replace_user_file(&root.join("link.sdp"), b"new").unwrap();
    assert_eq!(written, real);
    assert!(std::fs::symlink_metadata(root.join("link.sdp"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
    assert_eq!(std::fs::metadata(&real).unwrap().mode() & 0o777, 0o640);

    std::fs::hard_link(&real, root.join("hard.sdp")).unwrap();
    let e = replace_user_file(&real, b"newer").unwrap_err();
    assert!(e.message.contains("hard links"), "{e}");
    assert_eq!(std::fs::read_to_string(root.join("hard.sdp")).unwrap(), "new");
    std::fs::remove_file(root.join("hard.sdp")).unwrap();

    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o444)).unwrap();
    let e = replace_user_file(&real, b"newer").unwrap_err();
    assert!(e.message.contains("read-only"), "{e}");
    assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");

    mkfifo(&root.join("pipe.sdp"));
    let e = replace_user_file(&root.join("pipe.sdp"), b"x").unwrap_err();
    assert!(e.message.contains("not a regular file"), "{e}");
    let kind = std::fs::symlink_metadata(root.join("pipe.sdp")).unwrap().file_type();
    assert!(std::os::unix::fs::FileTypeExt::is_fifo(&kind), "the FIFO was replaced");
}

/// Ownership survives a rewrite: as root (CI containers) the file belongs to another
/// user than the writer, which a plain temp-file-and-rename would change; otherwise the
/// owner is the writer and must stay so.
#[test]
fn user_files_keep_their_owner() {
    use std::os::unix::fs::MetadataExt;
    let (_dir, root) = canonical_root();
    let file = root.join("owned.sdp");
    std::fs::write(&file, "old").unwrap();
    let _ = std::os::unix::fs::chown(&file, Some(65534), Some(65534));
    let before = std::fs::metadata(&file).unwrap();
    replace_user_file(&file, b"new").unwrap();
    let after = std::fs::metadata(&file).unwrap();
    assert_eq!((after.uid(), after.gid()), (before.uid(), before.gid()));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "new");
}

/// One generator's `[generate.LANG] strings` setting, seen through the project service:
/// `std` by default; `"compact"` in `wirelens.toml` switches the owned string type; the
/// project override (`Builder::*_strings` / `Project::with_*_strings`) beats the file; an
/// unknown value is refused with its position.
fn string_type_setting(
    lang: Lang,
    section: &str,
    file_ext: &str,
    with_strings: fn(Project, Option<OwnedStrings>) -> Project,
    std_decl: &str,
    compact_needles: &[&str],
) {
    let (_dir, root) = canonical_root();
    let schema = root.join("t.sdp");
    std::fs::write(&schema, "struct T {\n    name: str,\n}\n").unwrap();
    let flags = Flags {
        languages: Some(vec![lang]),
        ..Flags::default()
    };
    let generated = |project: &Project| -> String {
        let files = outputs(project, &schema, &flags, None);
        files.into_iter().find(|f| f.name.ends_with(file_ext)).unwrap().contents
    };
    assert!(generated(&Project::local()).contains(std_decl));
    std::fs::write(
        root.join("wirelens.toml"),
        format!("[generate.{section}]\nstrings = \"compact\"\n"),
    )
    .unwrap();
    let compact = generated(&Project::local());
    for needle in compact_needles {
        assert!(compact.contains(needle), "{needle}: {compact}");
    }
    let overridden = generated(&with_strings(Project::local(), Some(OwnedStrings::Std)));
    assert!(overridden.contains(std_decl), "{overridden}");
    std::fs::write(
        root.join("wirelens.toml"),
        format!("[generate.{section}]\nstrings = \"tiny\"\n"),
    )
    .unwrap();
    let err = Project::local()
        .prepare(std::slice::from_ref(&schema), &flags, &HashMap::new())
        .unwrap_err();
    assert!(
        err[0].line_col == Some((2, 11)) && err[0].message.contains("compact"),
        "{err:?}"
    );
}

/// `[generate.cpp] strings = "compact"` makes owned C++ strings `wirelens::CompactString`.
#[test]
fn cpp_string_type_comes_from_wirelens_toml_or_the_builder() {
    string_type_setting(
        Lang::Cpp,
        "cpp",
        "t.hpp",
        Project::with_cpp_strings,
        "    std::string name{};",
        &["    wirelens::CompactString name{};"],
    );
}

/// `[generate.rust] strings = "compact"` (what `wirelens gen` and the editor read) makes
/// owned Rust strings `CompactString`, read with `compact32`.
#[test]
fn rust_string_type_comes_from_wirelens_toml_or_the_builder() {
    string_type_setting(
        Lang::Rust,
        "rust",
        ".rs",
        Project::with_rust_strings,
        "pub name: String,",
        &["pub name: rt::CompactString,", "rd.compact32()"],
    );
}

fn temp_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".tmp"))
                .collect()
        })
        .unwrap_or_default()
}

/// A command-line run stages each language's files while the others are emitted: it
/// writes the same files as a run without staging, and every outcome (written,
/// unchanged, refused, a later schema failing) leaves no temporary file behind and no
/// output folder it created for nothing.
#[test]
fn staged_generation_publishes_the_same_files_and_leaves_nothing_behind() {
    let (_dir, root) = canonical_root();
    let good = root.join("good.sdp");
    std::fs::write(&good, "struct A { name: str, v: u32 }\n").unwrap();
    let flags = |out: &Path| Flags {
        languages: Some(vec![Lang::C, Lang::Cpp, Lang::Rust]),
        out_dir: Some(out.to_path_buf()),
        ..Flags::default()
    };
    let run = |project: Project, schemas: &[PathBuf], out: &Path| {
        project
            .prepare(schemas, &flags(out), &HashMap::new())
            .and_then(|p| write_prepared(&p).map_err(|e| vec![e]))
    };
    let plain = root.join("plain");
    let staged = root.join("staged");
    run(Project::local(), std::slice::from_ref(&good), &plain).unwrap();
    let written = run(
        Project::local().with_staging(true),
        std::slice::from_ref(&good),
        &staged,
    )
    .unwrap();
    assert_eq!(written[0].report.written.len(), 6, "{written:?}");
    // The output folder's lock file records when each set was written: not compared.
    let generated = |dir: &Path| -> Vec<std::fs::DirEntry> {
        std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name() != wirelens_project::project::LOCK_FILE)
            .collect()
    };
    for entry in generated(&plain) {
        let name = entry.file_name();
        assert_eq!(
            std::fs::read(entry.path()).unwrap(),
            std::fs::read(staged.join(&name)).unwrap(),
            "{name:?}"
        );
    }
    assert_eq!(generated(&staged).len(), 6);

    // Again: every file unchanged, and the staged copies are gone.
    let again = run(
        Project::local().with_staging(true),
        std::slice::from_ref(&good),
        &staged,
    )
    .unwrap();
    assert_eq!(again[0].report.unchanged.len(), 6, "{again:?}");
    assert_eq!(temp_files(&staged), Vec::<String>::new());

    // A hand-written file in the way: refused, left as it was, nothing staged remains.
    let mine = root.join("mine");
    std::fs::create_dir(&mine).unwrap();
    std::fs::write(mine.join("good.rs"), "fn mine() {}\n").unwrap();
    assert!(run(Project::local().with_staging(true), std::slice::from_ref(&good), &mine).is_err());
    assert_eq!(std::fs::read_to_string(mine.join("good.rs")).unwrap(), "fn mine() {}\n");
    assert_eq!(temp_files(&mine), Vec::<String>::new());
    assert_eq!(generated(&mine).len(), 1);

    // The first schema is staged, the second fails: no folder, no file.
    let bad = root.join("bad.sdp");
    std::fs::write(&bad, "struct B { x: Nope }\n").unwrap();
    let fresh = root.join("fresh");
    let errors = run(Project::local().with_staging(true), &[good.clone(), bad], &fresh).unwrap_err();
    assert!(errors.iter().any(|e| e.message.contains("Nope")), "{errors:?}");
    assert!(!fresh.exists(), "{:?}", std::fs::read_dir(&fresh).map(|d| d.count()));
}

/// Issue 38 item 7: an editor's walk keeps the first `max` schema files in path order
/// (over several folders, whatever order the directory listing gives) and says exactly
/// which were left out: how many, and the first of them.
#[test]
fn the_workspace_walk_keeps_the_first_files_by_path_and_says_what_it_left_out() {
    let (_a, a) = canonical_root();
    let (_b, b) = canonical_root();
    for name in ["d/z.sdp", "d/a.ffi", "c.sdp", "e/f/g.sdp", "not-a-schema.txt"] {
        let path = a.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "struct A { x: u8 }\n").unwrap();
    }
    std::fs::write(b.join("b.sdp"), "struct B { x: u8 }\n").unwrap();
    let roots = [b.clone(), a.clone()];
    let mut all = vec![
        a.join("c.sdp"),
        a.join("d/a.ffi"),
        a.join("d/z.sdp"),
        a.join("e/f/g.sdp"),
        b.join("b.sdp"),
    ];
    all.sort();
    let found = workspace_schemas(&roots, 10);
    assert_eq!(
        (found.files.clone(), found.left_out, found.first_left_out),
        (all.clone(), 0, None)
    );
    let found = workspace_schemas(&roots, 3);
    assert_eq!(found.files, all[..3]);
    assert_eq!((found.left_out, found.first_left_out.as_ref()), (2, Some(&all[3])));
    assert!(found.leaves_out(&all[4]) && !found.leaves_out(&all[2]));
    let message = found.left_out_message("symbols").unwrap();
    assert!(message.contains("first 3") && message.contains(" 2 from "), "{message}");
}
