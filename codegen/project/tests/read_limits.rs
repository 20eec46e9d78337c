//! A schema file over `MAX_SOURCE_BYTES` is refused before it is read (counted with a
//! per-thread allocator: reading it would allocate 256 MiB).

#[path = "../../core/tests/counting/mod.rs"]
mod counting;
use counting::peak_of;

#[test]
fn a_schema_over_the_size_limit_is_refused_before_reading() {
    // Removed with its contents when `tmp` drops (also when the test fails).
    let tmp = tempfile::Builder::new()
        .prefix("wirelens-limits-")
        .tempdir()
        .expect("temp dir");
    let path = tmp.path().join("huge.sdp");
    let f = std::fs::File::create(&path).unwrap();
    f.set_len(wirelens_core::source::MAX_SOURCE_BYTES as u64 + 1).unwrap(); // sparse: no disk used
    let (err, peak) = peak_of(|| wirelens_project::files::read_source(&path).err().expect("refused"));
    assert!(err.message.contains("larger than the limit"), "{err}");
    assert!(peak < 1 << 20, "read the file anyway: {peak} bytes");
}
