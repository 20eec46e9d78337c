//! The floor of an owned decode, measured beside it: for each golden vector the
//! upstream-bench kit times (`$KIT/run`, see BENCHMARKS.md), the generated type's
//! `T::decode(bytes)` (the kit's "decode (owned)" row: one value from the whole file,
//! dropped inside the loop) against `v.clone()` of the decoded value (dropped the same
//! way): the allocations and copies that any decode into new `String` / `Vec` fields must
//! make. Interleaved batches in one process, as the kit does it, so the ratio holds on a
//! busy machine where criterion's one-function-after-another medians drift
//! (`benches/codec.rs` has the same pair as `rust-decode` / `rust-clone`).
//!
//! `cargo bench -p wirelens-bench-codec --bench floor [-- --rounds N] [-- --only NAME]`
//!
//! Output: one line per data set with the median ns of each row and the median over
//! rounds of decode / clone (≤ 1.1: the decode is within 10 % of its allocation floor).

use std::hint::black_box;
use std::time::Instant;

use wirelens_bench_codec::{fast, read_case};
use wirelens_runtime::Message;

/// One timed row: runs `n` iterations.
type Row = Box<dyn FnMut(usize)>;

fn rows<T: Message + Clone + 'static>(bytes: Vec<u8>) -> (Row, Row) {
    let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
    let v: &'static T = Box::leak(Box::new(T::decode(bytes).expect("golden vector decodes")));
    let decode = Box::new(move |n: usize| {
        for _ in 0..n {
            black_box(T::decode(black_box(bytes)).expect("decodes"));
        }
    });
    let clone = Box::new(move |n: usize| {
        for _ in 0..n {
            black_box(black_box(v).clone());
        }
    });
    (decode, clone)
}

/// Iterations for a batch of about `target_ns`.
fn calibrate(row: &mut Row, target_ns: f64) -> usize {
    let mut n = 1;
    loop {
        let t = Instant::now();
        row(n);
        let dt = t.elapsed().as_nanos() as f64;
        if dt > target_ns / 2.0 || n > 1 << 24 {
            return ((target_ns * n as f64) / dt).max(4.0) as usize;
        }
        n *= 2;
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let rounds: usize = value("--rounds").and_then(|r| r.parse().ok()).unwrap_or(60);
    let only = value("--only").unwrap_or_default();
    let sets: Vec<(&str, (Row, Row))> = vec![
        (
            "sdp/audiounit_full",
            rows::<fast::audiounit::PluginRegistry>(read_case("sdp/cases/audiounit_full.bin")),
        ),
        (
            "sdp/arrays_primitives_first",
            rows::<fast::arrays::ArraysOfPrimitives>(read_case("sdp/cases/arrays_primitives_first.bin")),
        ),
        (
            "ffi/complex",
            rows::<fast::complex::PluginListMessage>(read_case("ffi/cases/complex.canon.bin")),
        ),
        (
            "ffi/array_int",
            rows::<fast::array_int::IntListMessage>(read_case("ffi/cases/array_int.canon.bin")),
        ),
        (
            "ffi/array_struct",
            rows::<fast::array_struct::DeviceListMessage>(read_case("ffi/cases/array_struct.canon.bin")),
        ),
        (
            "ffi/array_string",
            rows::<fast::array_string::StringListMessage>(read_case("ffi/cases/array_string.canon.bin")),
        ),
    ];
    println!("data set\tdecode_ns\tclone_ns\tdecode/clone");
    for (name, (mut decode, mut clone)) in sets {
        if !name.contains(only.as_str()) {
            continue;
        }
        let (nd, nc) = (calibrate(&mut decode, 300_000.0), calibrate(&mut clone, 300_000.0));
        let (mut d, mut c, mut r) = (Vec::new(), Vec::new(), Vec::new());
        for round in 0..rounds {
            let time = |row: &mut Row, n: usize| {
                let t = Instant::now();
                row(n);
                t.elapsed().as_nanos() as f64 / n as f64
            };
            // Alternate which goes first, so both see the same drift.
            let (td, tc) = if round % 2 == 0 {
                let td = time(&mut decode, nd);
                (td, time(&mut clone, nc))
            } else {
                let tc = time(&mut clone, nc);
                (time(&mut decode, nd), tc)
            };
            d.push(td);
            c.push(tc);
            r.push(td / tc);
        }
        println!(
            "{name}\t{:.1}\t{:.1}\t{:.2}",
            median(&mut d),
            median(&mut c),
            median(&mut r)
        );
    }
}
