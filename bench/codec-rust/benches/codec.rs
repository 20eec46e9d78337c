//! Generated Rust codecs on the golden vectors' data, against baselines measured in the
//! same run: memcpy of the encoded bytes (the physical limit), the plain field-by-field
//! codec (`RustOptions::PLAIN`), `bincode` 2 (serde, standard config) and `prost` on
//! mirror types of the same values.
//!
//! `cargo bench -p wirelens-bench-codec --bench codec [-- FILTER]`; `bench/run` reads the
//! medians from `$CRITERION_HOME/<data set>/<function>/new/estimates.json`.
//! `WIRELENS_BENCH_QUICK=1` shortens warm-up and measurement (`bench/run --quick`).
//!
//! Function names: `memcpy` (copy into a reused buffer), `memcpy-fresh` (`to_vec`),
//! `{rust,plain}-encode` (append to a reused `Vec`), `-encode-fresh` (`to_bytes`: a new
//! exact-size `Vec`), `rust-encode-slice` (`encode_into` a caller buffer), `-decode`
//! (owned values), `-decode-view` (zero-copy), `rust-compact-{decode,encode}` (owned strings
//! as `CompactString`, the `OwnedStrings::Compact` option), `rust-arena-decode-view` (views
//! with their arrays in an arena, `Memory::Arena`, reset before each record's decode),
//! `rust-clone` (a clone of every decoded record: the floor of an owned decode),
//! `{bincode,prost}-encode`/`-encode-fresh`/
//! `-decode`. Every decode drops what it built inside the timed loop.

use std::hint::black_box;
use std::time::Duration;
use wirelens_runtime::Message as _;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use wirelens_bench_codec::{
    arena, buffer_apart, compact, dataset_file, decode_all, fast, memcpy_target, mirror, plain, read_case, LongArrays,
};

fn config() -> Criterion {
    let c = Criterion::default().configure_from_args();
    if std::env::var_os("WIRELENS_BENCH_QUICK").is_some() {
        c.warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_millis(700))
            .sample_size(20)
    } else {
        c.warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(3))
            .sample_size(50)
    }
}

macro_rules! dataset {
    ($c:expr, $name:literal, $fast:ty, $compact:ty, $arena:ty, $plain:ty, $mirror:ty, $from:path) => {{
        let bytes = read_case(dataset_file($name));
        let recs: Vec<$fast> = decode_all!($fast, &bytes);
        let precs: Vec<$plain> = decode_all!($plain, &bytes);
        let m: $mirror = $from(&recs);
        let cfg = bincode::config::standard();
        let bin = bincode::serde::encode_to_vec(&m, cfg).expect("bincode encodes");
        let pb = prost::Message::encode_to_vec(&m);
        let mut g = $c.benchmark_group($name);
        g.throughput(Throughput::Bytes(bytes.len() as u64));

        // Reused buffers are placed away from their sources modulo 4 KiB (`apart`: at some
        // heap placements `memcpy` is ~20x slower, which once made this baseline 6.6 µs
        // instead of 0.3 µs for 20 KB).
        let mut dst_buf = Vec::new();
        let dst_at = memcpy_target(&mut dst_buf, &bytes);
        let dst = &mut dst_buf[dst_at];
        g.bench_function("memcpy", |b| {
            b.iter(|| {
                dst.copy_from_slice(black_box(&bytes));
                black_box(&*dst);
            })
        });
        g.bench_function("memcpy-fresh", |b| b.iter(|| black_box(&bytes).to_vec()));

        let crecs: Vec<$compact> = decode_all!($compact, &bytes);
        let mut sources = vec![bytes.as_ptr() as usize];
        sources.extend(recs.iter().flat_map(LongArrays::long_arrays));
        sources.extend(crecs.iter().flat_map(LongArrays::long_arrays));
        let mut out = buffer_apart(bytes.len(), &sources);
        out.clear();
        g.bench_function("rust-encode", |b| {
            b.iter(|| {
                out.clear();
                for r in black_box(&recs) {
                    r.encode(&mut out).expect("encodes");
                }
                black_box(out.as_slice());
            })
        });
        g.bench_function("rust-encode-fresh", |b| {
            b.iter(|| {
                for r in black_box(&recs) {
                    black_box(r.to_bytes().expect("encodes"));
                }
            })
        });
        let mut buf = buffer_apart(bytes.len(), &sources);
        g.bench_function("rust-encode-slice", |b| {
            b.iter(|| {
                let mut at = 0;
                for r in black_box(&recs) {
                    at += r.encode_into(&mut buf[at..]).expect("encodes");
                }
                black_box(&buf[..at]);
            })
        });
        g.bench_function("rust-decode", |b| {
            b.iter(|| {
                let bytes = black_box(&bytes[..]);
                let mut at = 0;
                while at < bytes.len() {
                    let (v, n) = <$fast>::decode_prefix(&bytes[at..]).expect("decodes");
                    at += n;
                    black_box(v);
                }
            })
        });
        // Not an API: a clone of every decoded record, the allocations and copies that any
        // owned decode into new `String` / `Vec` fields must make (its floor).
        g.bench_function("rust-clone", |b| {
            b.iter(|| {
                for r in black_box(&recs) {
                    black_box(r.clone());
                }
            })
        });
        // Every record decoded into one value, its storage reused (decode_prefix_into).
        let mut reused = <$fast>::default();
        g.bench_function("rust-decode-reuse", |b| {
            b.iter(|| {
                let bytes = black_box(&bytes[..]);
                let mut at = 0;
                while at < bytes.len() {
                    at += reused.decode_prefix_into(&bytes[at..]).expect("decodes");
                    black_box(&reused);
                }
            })
        });
        g.bench_function("rust-decode-view", |b| {
            b.iter(|| {
                let bytes = black_box(&bytes[..]);
                let mut at = 0;
                while at < bytes.len() {
                    let (v, n) = <$fast>::decode_view_prefix(&bytes[at..]).expect("decodes");
                    at += n;
                    black_box(v);
                }
            })
        });
        let mut mem = wirelens_runtime::Arena::new();
        g.bench_function("rust-arena-decode-view", |b| {
            b.iter(|| {
                let bytes = black_box(&bytes[..]);
                let mut at = 0;
                while at < bytes.len() {
                    mem.reset();
                    let (v, n) = <$arena>::decode_view_prefix_in(&bytes[at..], &mem).expect("decodes");
                    at += n;
                    black_box(v);
                }
            })
        });

        g.bench_function("rust-compact-decode", |b| {
            b.iter(|| {
                let bytes = black_box(&bytes[..]);
                let mut at = 0;
                while at < bytes.len() {
                    let (v, n) = <$compact>::decode_prefix(&bytes[at..]).expect("decodes");
                    at += n;
                    black_box(v);
                }
            })
        });
        let mut creused = <$compact>::default();
        g.bench_function("rust-compact-decode-reuse", |b| {
            b.iter(|| {
                let bytes = black_box(&bytes[..]);
                let mut at = 0;
                while at < bytes.len() {
                    at += creused.decode_prefix_into(&bytes[at..]).expect("decodes");
                    black_box(&creused);
                }
            })
        });
        g.bench_function("rust-compact-encode", |b| {
            b.iter(|| {
                out.clear();
                for r in black_box(&crecs) {
                    r.encode(&mut out).expect("encodes");
                }
                black_box(out.as_slice());
            })
        });

        g.bench_function("plain-encode", |b| {
            b.iter(|| {
                out.clear();
                for r in black_box(&precs) {
                    r.encode(&mut out).expect("encodes");
                }
                black_box(out.as_slice());
            })
        });
        g.bench_function("plain-encode-fresh", |b| {
            b.iter(|| {
                for r in black_box(&precs) {
                    black_box(r.to_bytes().expect("encodes"));
                }
            })
        });
        g.bench_function("plain-decode", |b| {
            b.iter(|| {
                let bytes = black_box(&bytes[..]);
                let mut at = 0;
                while at < bytes.len() {
                    let (v, n) = <$plain>::decode_prefix(&bytes[at..]).expect("decodes");
                    at += n;
                    black_box(v);
                }
            })
        });
        g.bench_function("plain-decode-view", |b| {
            b.iter(|| {
                let bytes = black_box(&bytes[..]);
                let mut at = 0;
                while at < bytes.len() {
                    let (v, n) = <$plain>::decode_view_prefix(&bytes[at..]).expect("decodes");
                    at += n;
                    black_box(v);
                }
            })
        });

        let mut bout: Vec<u8> = Vec::with_capacity(bin.len());
        g.bench_function("bincode-encode", |b| {
            b.iter(|| {
                bout.clear();
                bincode::serde::encode_into_std_write(black_box(&m), &mut bout, cfg).expect("encodes");
                black_box(bout.as_slice());
            })
        });
        g.bench_function("bincode-encode-fresh", |b| {
            b.iter(|| bincode::serde::encode_to_vec(black_box(&m), cfg).expect("encodes"))
        });
        g.bench_function("bincode-decode", |b| {
            b.iter(|| {
                let (v, _): ($mirror, usize) =
                    bincode::serde::decode_from_slice(black_box(&bin[..]), cfg).expect("decodes");
                v
            })
        });

        let mut pout: Vec<u8> = Vec::with_capacity(pb.len());
        g.bench_function("prost-encode", |b| {
            b.iter(|| {
                pout.clear();
                prost::Message::encode(black_box(&m), &mut pout).expect("encodes");
                black_box(pout.as_slice());
            })
        });
        g.bench_function("prost-encode-fresh", |b| {
            b.iter(|| prost::Message::encode_to_vec(black_box(&m)))
        });
        g.bench_function("prost-decode", |b| {
            b.iter(|| <$mirror as prost::Message>::decode(black_box(&pb[..])).expect("decodes"))
        });
        g.finish();
    }};
}

fn codecs(c: &mut Criterion) {
    dataset!(
        c,
        "sdp-audiounit",
        fast::audiounit::PluginRegistry,
        compact::audiounit::PluginRegistry,
        arena::audiounit::PluginRegistry,
        plain::audiounit::PluginRegistry,
        mirror::audiounit::PluginRegistry,
        mirror::audiounit::from_records
    );
    dataset!(
        c,
        "sdp-arrays",
        fast::arrays::ArraysOfPrimitives,
        compact::arrays::ArraysOfPrimitives,
        arena::arrays::ArraysOfPrimitives,
        plain::arrays::ArraysOfPrimitives,
        mirror::arrays::Records,
        mirror::arrays::from_records
    );
    dataset!(
        c,
        "sdp-arrays-first",
        fast::arrays::ArraysOfPrimitives,
        compact::arrays::ArraysOfPrimitives,
        arena::arrays::ArraysOfPrimitives,
        plain::arrays::ArraysOfPrimitives,
        mirror::arrays::Records,
        mirror::arrays::from_records
    );
    dataset!(
        c,
        "ffi-complex",
        fast::complex::PluginListMessage,
        compact::complex::PluginListMessage,
        arena::complex::PluginListMessage,
        plain::complex::PluginListMessage,
        mirror::complex::PluginList,
        mirror::complex::from_records
    );
    dataset!(
        c,
        "ffi-array-int",
        fast::array_int::IntListMessage,
        compact::array_int::IntListMessage,
        arena::array_int::IntListMessage,
        plain::array_int::IntListMessage,
        mirror::array_int::IntList,
        mirror::array_int::from_records
    );
    dataset!(
        c,
        "ffi-array-struct",
        fast::array_struct::DeviceListMessage,
        compact::array_struct::DeviceListMessage,
        arena::array_struct::DeviceListMessage,
        plain::array_struct::DeviceListMessage,
        mirror::array_struct::DeviceList,
        mirror::array_struct::from_records
    );
    dataset!(
        c,
        "ffi-array-string",
        fast::array_string::StringListMessage,
        compact::array_string::StringListMessage,
        arena::array_string::StringListMessage,
        plain::array_string::StringListMessage,
        mirror::array_string::StringList,
        mirror::array_string::from_records
    );
}

/// `rep movsb`'s page aliasing (docs/benchmarks/history.md "#14 session 9"): array_int
/// decoded into a reused value and encoded into a caller buffer with the copy's destination
/// `dist` bytes above its source modulo 4 KiB. At 1-31 (2, 14 here) the runtime copies in
/// 64-byte blocks, because glibc's `rep movsb` is 10-25x slower there on AMD Zen 3/4.
fn page_aliasing(c: &mut Criterion) {
    use fast::array_int::IntListMessage;
    let bytes = read_case(dataset_file("ffi-array-int"));
    let mut g = c.benchmark_group("ffi-array-int-aliasing");
    for dist in [2usize, 14, 2048] {
        // Decode: the elements (2 bytes after the count) `dist` bytes below the storage.
        let mut value = IntListMessage::decode(&bytes).expect("decodes");
        let mut room = vec![0u8; bytes.len() + 4096];
        let want = (value.0.as_ptr() as usize).wrapping_sub(dist + 2) & 4095;
        let at = want.wrapping_sub(room.as_ptr() as usize) & 4095;
        room[at..at + bytes.len()].copy_from_slice(&bytes);
        let input = &room[at..at + bytes.len()];
        g.bench_function(format!("decode-reuse/{dist}"), |b| {
            b.iter(|| value.decode_prefix_into(black_box(input)).expect("decodes"))
        });
        // Encode: the output's elements `dist` bytes above the vector's storage.
        let mut out = vec![0u8; bytes.len() + 4096];
        let want = (value.0.as_ptr() as usize + dist).wrapping_sub(2) & 4095;
        let at = want.wrapping_sub(out.as_ptr() as usize) & 4095;
        let out = &mut out[at..at + bytes.len()];
        g.bench_function(format!("encode-slice/{dist}"), |b| {
            b.iter(|| black_box(&value).encode_into(out).expect("encodes"))
        });
    }
}

criterion_group! {
    name = benches;
    config = config();
    targets = codecs, page_aliasing
}
criterion_main!(benches);
