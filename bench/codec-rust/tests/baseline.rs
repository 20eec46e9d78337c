//! The memcpy baseline stays honest: reused buffers are placed away from their sources
//! modulo 4 KiB (where `rep movsb` is ~20x slower on the bench machine), and the report
//! refuses a baseline that is slower than allocating and copying the same bytes.

use std::path::{Path, PathBuf};
use std::process::Command;

use wirelens_bench_codec::{apart, buffer_apart, memcpy_target};

#[test]
fn memcpy_target_is_half_a_page_after_the_source() {
    let src = vec![7u8; 20_004];
    for skip in [0, 1, 2, 16, 100] {
        let s = &src[skip..];
        let mut buf = Vec::new();
        let at = memcpy_target(&mut buf, s);
        let dst = &buf[at];
        assert_eq!(dst.len(), s.len());
        let d = (dst.as_ptr() as usize).wrapping_sub(s.as_ptr() as usize) % 4096;
        assert_eq!(d, 2048, "skip {skip}");
        assert!(apart(dst.as_ptr() as usize, s.as_ptr() as usize));
    }
}

#[test]
fn apart_rejects_the_slow_distances() {
    let src = 0x10_0000usize;
    for d in [0, 1, 16, 31, 127, 255, 4033, 4095, 4096 + 8] {
        assert!(!apart(src + d, src), "distance {d}");
    }
    for d in [256, 1024, 2048, 4032, 4096 + 2000] {
        assert!(apart(src + d, src), "distance {d}");
    }
}

#[test]
fn buffer_apart_moves_away_from_an_unlucky_placement() {
    for len in [20_004, 4096, 8192, 141] {
        // The allocator hands a freed block straight back, so the first candidate lands
        // exactly where this one was: 8 bytes after the pretended source.
        let probe = vec![0u8; len];
        let source = (probe.as_ptr() as usize).wrapping_sub(8);
        drop(probe);
        // Sources spread over the page (the bench passes the input and two records'
        // arrays): a placement apart from all of them must still exist and be found.
        let sources = [source, source + 4096 * 64 + 1365, source + 4096 * 9 + 2730];
        let buf = buffer_apart(len, &sources);
        assert_eq!(buf.len(), len);
        assert!(buf.iter().all(|&b| b == 0));
        for s in sources {
            assert!(apart(buf.as_ptr() as usize, s), "len {len}");
        }
    }
}

/// A criterion home with one data set's medians (ns).
fn criterion_home(name: &str, medians: &[(&str, f64)]) -> PathBuf {
    let home = std::env::temp_dir().join(format!("wirelens-baseline-{}-{name}", std::process::id()));
    for (f, ns) in medians {
        let dir = home.join("ffi-array-int").join(f).join("new");
        std::fs::create_dir_all(&dir).expect("mkdir");
        let json = format!(r#"{{"median":{{"point_estimate":{ns}}},"median_abs_dev":{{"point_estimate":1.0}}}}"#);
        std::fs::write(dir.join("estimates.json"), json).expect("write estimates");
    }
    home
}

fn report(home: &Path) -> (bool, String, String) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../codec-report.py");
    let out = Command::new("python3")
        .arg(script)
        .arg(home)
        .output()
        .expect("python3 runs");
    let _ = std::fs::remove_dir_all(home);
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn report_fails_on_an_implausible_memcpy_baseline() {
    // The quiet run of main c51ff69: memcpy 6.59 µs, memcpy-fresh 391 ns.
    let home = criterion_home(
        "bad",
        &[
            ("memcpy", 6590.0),
            ("memcpy-fresh", 391.0),
            ("rust-encode", 6990.0),
            ("rust-encode-fresh", 445.0),
            ("rust-decode", 479.0),
            ("rust-clone", 400.0),
        ],
    );
    let (ok, stdout, stderr) = report(&home);
    assert!(!ok, "the report must fail:\n{stdout}\n{stderr}");
    assert!(stderr.contains("ERROR ffi-array-int"), "{stderr}");
    assert!(!stdout.contains("RATIO ffi-array-int-encode "), "{stdout}");
    assert!(!stdout.contains("RATIO ffi-array-int-decode-owned "), "{stdout}");
    // Ratios over other baselines are still printed.
    assert!(stdout.contains("RATIO ffi-array-int-encode-fresh 1.14"), "{stdout}");
    assert!(!stdout.contains("RATIO ffi-array-int-clone-owned "), "{stdout}");
    assert!(
        stdout.contains("RATIO ffi-array-int-decode-owned-vs-clone 1.20"),
        "{stdout}"
    );
}

#[test]
fn report_passes_a_plausible_memcpy_baseline() {
    let home = criterion_home(
        "good",
        &[
            ("memcpy", 300.0),
            ("memcpy-fresh", 391.0),
            ("rust-encode", 330.0),
            ("rust-decode", 480.0),
            ("rust-clone", 390.0),
        ],
    );
    let (ok, stdout, stderr) = report(&home);
    assert!(ok, "{stdout}\n{stderr}");
    assert!(stdout.contains("RATIO ffi-array-int-encode 1.10"), "{stdout}");
    assert!(stdout.contains("RATIO ffi-array-int-decode-owned 1.60"), "{stdout}");
    // The floor of an owned decode (a clone of the decoded values), and the decode over it.
    assert!(stdout.contains("RATIO ffi-array-int-clone-owned 1.30"), "{stdout}");
    assert!(
        stdout.contains("RATIO ffi-array-int-decode-owned-vs-clone 1.23"),
        "{stdout}"
    );
}
