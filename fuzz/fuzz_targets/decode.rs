//! Hostile bytes into the reference decoder (`wirelens_core::codec`, the CLI's `decode`), for
//! every type of every golden schema, both field orders and both SDP modes: errors are
//! fine; panics, hangs and over-allocation are not; whatever decodes re-encodes exactly.
//! Run: `cd fuzz && cargo +nightly fuzz run decode seeds/decode -- -max_total_time=300`
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| wirelens_fuzz::decode(data));
