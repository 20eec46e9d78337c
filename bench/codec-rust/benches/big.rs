//! Big messages (issue 32 item 3): the generated Rust codec of `bench/big/big.sdp` on 64 MB
//! messages, against memcpy of the same bytes in the same process. The Rust side of
//! `bench/big/run` (which writes the files with `bench/big/gen.py` and reads the output);
//! `bench/big/harness.cpp` is the C/C++ side, with the same method and output.
//!
//! `WIRELENS_BIG_DIR=DIR [WIRELENS_BENCH_QUICK=1] [WIRELENS_BIG_ONLY=big-f32,…] cargo bench -p wirelens-bench-codec --bench big`
//!
//! Operations (`rust-<op>`): `memcpy` (into a reused buffer placed 2 KiB from the source
//! modulo 4 KiB), `encode` (`encode` into a reused `Vec` after `clear`), `encode-slice`
//! (`encode_into` a caller buffer), `decode-reuse` (`decode_into` one kept value: its
//! `Vec`s and `String`s reused), `decode-view` (`decode_view`). Each is calibrated to
//! calls per sample of at least 0.5 ms, warmed up with two samples, then the operations of
//! a data set run in interleaved rounds (31; quick: 11), one sample each per round. Output:
//! `RESULT <data set> rust-<op> <median ns> <mad ns> <min ns>` on stdout.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

use wirelens_bench_codec::fast::big::{Blob, Names, Samples};
use wirelens_bench_codec::memcpy_target;
use wirelens_runtime::Message;

type Op<'a> = (&'static str, Box<dyn FnMut() + 'a>);

fn time_calls(f: &mut dyn FnMut(), n: u64) -> f64 {
    let t0 = Instant::now();
    for _ in 0..n {
        f();
    }
    t0.elapsed().as_secs_f64()
}

/// Interleaved rounds over the operations of one data set (see the header).
fn run(ds: &str, ops: &mut [Op<'_>], quick: bool) {
    let rounds = if quick { 11 } else { 31 };
    let mut calls = Vec::new();
    for (_, f) in ops.iter_mut() {
        let mut n = 1u64;
        while time_calls(f.as_mut(), n) < 5e-4 {
            n *= 2;
        }
        calls.push(n);
        time_calls(f.as_mut(), n);
        time_calls(f.as_mut(), n);
    }
    let mut per = vec![Vec::new(); ops.len()];
    for r in 0..rounds {
        for k in 0..ops.len() {
            let i = (k + r) % ops.len();
            per[i].push(time_calls(ops[i].1.as_mut(), calls[i]) / calls[i] as f64 * 1e9);
        }
    }
    for (i, v) in per.iter_mut().enumerate() {
        v.sort_by(f64::total_cmp);
        let med = v[v.len() / 2];
        let mut dev: Vec<f64> = v.iter().map(|x| (x - med).abs()).collect();
        dev.sort_by(f64::total_cmp);
        println!(
            "RESULT {ds} rust-{} {med:.1} {:.1} {:.1}",
            ops[i].0,
            dev[dev.len() / 2],
            v[0]
        );
    }
}

fn dataset<M>(ds: &str, path: PathBuf, full: bool, quick: bool)
where
    M: Message + Default + PartialEq,
{
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let value = M::decode(&bytes).expect("decodes");
    let mut out = Vec::new();
    value.encode(&mut out).expect("encodes");
    assert!(out == bytes, "{ds}: re-encode differs");
    let mut slice = vec![0u8; bytes.len()];
    assert_eq!(value.encode_into(&mut slice).expect("encodes"), bytes.len());
    assert!(slice == bytes, "{ds}: encode_into differs");
    let mut reused = M::default();
    reused.decode_into(&bytes).expect("decodes");
    assert!(reused == value, "{ds}: decode_into differs");

    let mut store = Vec::new();
    let at = memcpy_target(&mut store, &bytes);
    let dst = &mut store[at];
    let mut ops: Vec<Op<'_>> = vec![(
        "memcpy",
        Box::new(|| {
            dst.copy_from_slice(black_box(&bytes));
            black_box(&*dst);
        }),
    )];
    if full {
        ops.push((
            "encode",
            Box::new(|| {
                out.clear();
                black_box(&value).encode(&mut out).expect("encodes");
                black_box(out.as_slice());
            }),
        ));
        ops.push((
            "encode-slice",
            Box::new(|| {
                black_box(&value).encode_into(&mut slice).expect("encodes");
                black_box(slice.as_slice());
            }),
        ));
        ops.push((
            "decode-reuse",
            Box::new(|| {
                reused.decode_into(black_box(&bytes)).expect("decodes");
                black_box(&reused);
            }),
        ));
    }
    ops.push((
        "decode-view",
        Box::new(|| {
            black_box(M::decode_view(black_box(&bytes)).expect("decodes"));
        }),
    ));
    run(ds, &mut ops, quick);
}

fn main() {
    let dir =
        PathBuf::from(std::env::var_os("WIRELENS_BIG_DIR").expect("WIRELENS_BIG_DIR: the files of bench/big/gen.py"));
    let quick = std::env::var_os("WIRELENS_BENCH_QUICK").is_some();
    let only: Vec<String> = std::env::var("WIRELENS_BIG_ONLY")
        .map(|s| s.split(',').map(str::to_owned).collect())
        .unwrap_or_default();
    let want = |ds: &str| only.is_empty() || only.iter().any(|o| o == ds);
    if want("big-f32") {
        dataset::<Samples>("big-f32", dir.join("f32-16m.bin"), true, quick);
    }
    if want("big-f32-1m") {
        dataset::<Samples>("big-f32-1m", dir.join("f32-1m.bin"), false, quick);
    }
    if want("big-u8") {
        dataset::<Blob>("big-u8", dir.join("u8-64m.bin"), true, quick);
    }
    if want("big-u8-1m") {
        dataset::<Blob>("big-u8-1m", dir.join("u8-1m.bin"), false, quick);
    }
    if want("big-str") {
        dataset::<Names>("big-str", dir.join("str-1m.bin"), true, quick);
    }
}
