//! What `benches/codec.rs` measures: the golden vectors' schemas generated twice by
//! `build.rs` (`fast`: the emitter's defaults; `plain`: every optimization off), and
//! mirror types of the same data for `bincode`+`serde` and `prost` (derive macros, no
//! `protoc`), with conversions from the generated types.
//!
//! The data is read from `tests/vectors` at run time, never compiled in, so no compiler
//! can constant-fold it.
#![forbid(unsafe_code)]

use std::path::PathBuf;

/// The emitter's default output (what `wirelens_build::Builder` writes).
pub mod fast {
    #![allow(missing_docs)]
    pub mod audiounit {
        include!(concat!(env!("OUT_DIR"), "/fast_audiounit.rs"));
    }
    pub mod arrays {
        include!(concat!(env!("OUT_DIR"), "/fast_arrays.rs"));
    }
    pub mod complex {
        include!(concat!(env!("OUT_DIR"), "/fast_complex.rs"));
    }
    pub mod array_int {
        include!(concat!(env!("OUT_DIR"), "/fast_array_int.rs"));
    }
    pub mod array_struct {
        include!(concat!(env!("OUT_DIR"), "/fast_array_struct.rs"));
    }
    pub mod array_string {
        include!(concat!(env!("OUT_DIR"), "/fast_array_string.rs"));
    }
    /// bench/big/big.sdp: one array per message, 64 MB encoded (`benches/big.rs`).
    pub mod big {
        include!(concat!(env!("OUT_DIR"), "/fast_big.rs"));
    }
}

/// The same schemas with `RustOptions::PLAIN`: every field read and written on its own
/// (a bounds check each), nested structs through calls, arrays element by element (the
/// runtime's `Message::encode` presizes for both, since the trait carries it).
pub mod plain {
    #![allow(missing_docs)]
    pub mod audiounit {
        include!(concat!(env!("OUT_DIR"), "/plain_audiounit.rs"));
    }
    pub mod arrays {
        include!(concat!(env!("OUT_DIR"), "/plain_arrays.rs"));
    }
    pub mod complex {
        include!(concat!(env!("OUT_DIR"), "/plain_complex.rs"));
    }
    pub mod array_int {
        include!(concat!(env!("OUT_DIR"), "/plain_array_int.rs"));
    }
    pub mod array_struct {
        include!(concat!(env!("OUT_DIR"), "/plain_array_struct.rs"));
    }
    pub mod array_string {
        include!(concat!(env!("OUT_DIR"), "/plain_array_string.rs"));
    }
}

/// The defaults with owned strings as `CompactString` (`OwnedStrings::Compact`): the
/// option that avoids one allocation per decoded string.
pub mod compact {
    #![allow(missing_docs)]
    pub mod audiounit {
        include!(concat!(env!("OUT_DIR"), "/compact_audiounit.rs"));
    }
    pub mod arrays {
        include!(concat!(env!("OUT_DIR"), "/compact_arrays.rs"));
    }
    pub mod complex {
        include!(concat!(env!("OUT_DIR"), "/compact_complex.rs"));
    }
    pub mod array_int {
        include!(concat!(env!("OUT_DIR"), "/compact_array_int.rs"));
    }
    pub mod array_struct {
        include!(concat!(env!("OUT_DIR"), "/compact_array_struct.rs"));
    }
    pub mod array_string {
        include!(concat!(env!("OUT_DIR"), "/compact_array_string.rs"));
    }
}

/// The defaults with views' arrays in an arena (`Memory::Arena`): one bump allocation per
/// array instead of one `Vec`, none per decode once the reset arena is reused.
pub mod arena {
    #![allow(missing_docs)]
    pub mod audiounit {
        include!(concat!(env!("OUT_DIR"), "/arena_audiounit.rs"));
    }
    pub mod arrays {
        include!(concat!(env!("OUT_DIR"), "/arena_arrays.rs"));
    }
    pub mod complex {
        include!(concat!(env!("OUT_DIR"), "/arena_complex.rs"));
    }
    pub mod array_int {
        include!(concat!(env!("OUT_DIR"), "/arena_array_int.rs"));
    }
    pub mod array_struct {
        include!(concat!(env!("OUT_DIR"), "/arena_array_struct.rs"));
    }
    pub mod array_string {
        include!(concat!(env!("OUT_DIR"), "/arena_array_string.rs"));
    }
}

/// The golden vectors directory (`WIRELENS_VECTORS`, else the repository's copy).
pub fn vectors() -> PathBuf {
    match std::env::var_os("WIRELENS_VECTORS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors"),
    }
}

/// The bytes of a vector case, e.g. `sdp/cases/audiounit_full.bin`, read at run time.
pub fn read_case(rel: &str) -> Vec<u8> {
    let path = vectors().join(rel);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Whether a reused output buffer starting at `dst` is far enough from a source at `src`
/// modulo 4 KiB: at least 256 bytes after it and at least 64 bytes before it.
///
/// Why: on this machine (AMD Zen 3, glibc 2.36) `memcpy` copies 2,112 bytes or more with
/// `rep movsb`, which runs ~20x slower when the destination lies 1–31 bytes after the
/// source modulo 4 KiB, and up to 2.6x slower up to ~128 bytes after
/// (docs/benchmarks/history.md, "#14 Rust, 2026-11-24 session 2"). The heap decides that
/// distance, so a reused buffer that happened to land there made `ffi-array-int`'s memcpy
/// baseline 6.6 µs instead of 0.3 µs.
pub fn apart(dst: usize, src: usize) -> bool {
    (256..=4032).contains(&(dst.wrapping_sub(src) % 4096))
}

/// A reused destination of `len` bytes for `memcpy` from `src`, placed half a page after
/// it modulo 4 KiB at the same alignment modulo 64: `rep movsb`'s best case, so the
/// baseline is the limit it stands for, the same in every run.
pub fn memcpy_target(buf: &mut Vec<u8>, src: &[u8]) -> std::ops::Range<usize> {
    buf.clear();
    buf.resize(src.len() + 4096, 0);
    let base = buf.as_ptr() as usize;
    let at = (src.as_ptr() as usize).wrapping_add(2048).wrapping_sub(base) % 4096;
    at..at + src.len()
}

/// A zeroed reused output buffer of `len` bytes whose start is [`apart`] from every
/// address in `sources` (the inputs and the long arrays a benchmark copies into it):
/// allocations that land too close are kept alive, so the next one lands elsewhere.
pub fn buffer_apart(len: usize, sources: &[usize]) -> Vec<u8> {
    let mut rejected = Vec::new();
    for _ in 0..256 {
        let buf = vec![0u8; len];
        if sources.iter().all(|&s| apart(buf.as_ptr() as usize, s)) {
            return buf;
        }
        rejected.push(buf);
        // A small block in between moves the next allocation by a few cache lines even
        // when `len` is a multiple of 4 KiB.
        rejected.push(vec![0u8; 200]);
    }
    panic!("no {len}-byte allocation apart from {sources:x?} in 256 tries")
}

/// The start addresses of a record's arrays long enough for `memcpy` to use `rep movsb`
/// when encoded (see [`apart`]); none for the data sets whose arrays are all short.
pub trait LongArrays {
    /// Their start addresses.
    fn long_arrays(&self) -> Vec<usize> {
        Vec::new()
    }
}

macro_rules! no_long_arrays {
    ($($t:ty),* $(,)?) => {$(impl LongArrays for $t {})*};
}
no_long_arrays!(
    fast::audiounit::PluginRegistry,
    fast::arrays::ArraysOfPrimitives,
    fast::complex::PluginListMessage,
    fast::array_struct::DeviceListMessage,
    fast::array_string::StringListMessage,
    compact::audiounit::PluginRegistry,
    compact::arrays::ArraysOfPrimitives,
    compact::complex::PluginListMessage,
    compact::array_struct::DeviceListMessage,
    compact::array_string::StringListMessage,
);

impl LongArrays for fast::array_int::IntListMessage {
    fn long_arrays(&self) -> Vec<usize> {
        vec![self.0.as_ptr() as usize]
    }
}

impl LongArrays for compact::array_int::IntListMessage {
    fn long_arrays(&self) -> Vec<usize> {
        vec![self.0.as_ptr() as usize]
    }
}

/// Decodes back-to-back records with `decode_prefix` (one record for most cases).
#[macro_export]
macro_rules! decode_all {
    ($ty:ty, $bytes:expr) => {{
        let bytes: &[u8] = $bytes;
        let mut out = Vec::new();
        let mut at = 0;
        while at < bytes.len() {
            let (v, n) = <$ty as ::wirelens_runtime::Message>::decode_prefix(&bytes[at..]).expect("valid vector");
            out.push(v);
            at += n;
        }
        out
    }};
}

/// The benchmarked data sets: (name, case file relative to `tests/vectors`).
pub const DATASETS: &[(&str, &str)] = &[
    ("sdp-audiounit", "sdp/cases/audiounit_full.bin"),
    ("sdp-arrays", "sdp/cases/arrays_primitives_all.bin"),
    // One 141-byte record: per-call overhead (issue 14).
    ("sdp-arrays-first", "sdp/cases/arrays_primitives_first.bin"),
    ("ffi-complex", "ffi/cases/complex.canon.bin"),
    ("ffi-array-int", "ffi/cases/array_int.canon.bin"),
    ("ffi-array-struct", "ffi/cases/array_struct.canon.bin"),
    ("ffi-array-string", "ffi/cases/array_string.canon.bin"),
];

/// The case file of a data set.
pub fn dataset_file(name: &str) -> &'static str {
    DATASETS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, f)| *f)
        .unwrap_or_else(|| panic!("unknown data set {name}"))
}

/// Mirror types for `bincode` (through `serde`) and `prost`: one struct per schema type
/// with both derives, field for field. Protobuf has no optional repeated field, so
/// ffire's `*[]string` becomes an optional message wrapping a repeated string; roots
/// that are arrays become a message with one repeated field (bincode encodes that
/// wrapper exactly like the bare `Vec`).
pub mod mirror {
    use serde::{Deserialize, Serialize};

    /// SDP `audiounit.sdp`.
    pub mod audiounit {
        use super::*;
        use crate::fast::audiounit as g;

        #[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
        pub struct Parameter {
            #[prost(uint64, tag = "1")]
            pub address: u64,
            #[prost(string, tag = "2")]
            pub display_name: String,
            #[prost(string, tag = "3")]
            pub identifier: String,
            #[prost(string, tag = "4")]
            pub unit: String,
            #[prost(float, tag = "5")]
            pub min_value: f32,
            #[prost(float, tag = "6")]
            pub max_value: f32,
            #[prost(float, tag = "7")]
            pub default_value: f32,
            #[prost(float, tag = "8")]
            pub current_value: f32,
            #[prost(uint32, tag = "9")]
            pub raw_flags: u32,
            #[prost(bool, tag = "10")]
            pub is_writable: bool,
            #[prost(bool, tag = "11")]
            pub can_ramp: bool,
        }

        #[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
        pub struct Plugin {
            #[prost(string, tag = "1")]
            pub name: String,
            #[prost(string, tag = "2")]
            pub manufacturer_id: String,
            #[prost(string, tag = "3")]
            pub component_type: String,
            #[prost(string, tag = "4")]
            pub component_subtype: String,
            #[prost(message, repeated, tag = "5")]
            pub parameters: Vec<Parameter>,
        }

        #[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
        pub struct PluginRegistry {
            #[prost(message, repeated, tag = "1")]
            pub plugins: Vec<Plugin>,
            #[prost(uint32, tag = "2")]
            pub total_plugin_count: u32,
            #[prost(uint32, tag = "3")]
            pub total_parameter_count: u32,
        }

        /// The mirror of the (single) record.
        pub fn from_records(r: &[g::PluginRegistry]) -> PluginRegistry {
            let r = &r[0];
            PluginRegistry {
                plugins: r
                    .plugins
                    .iter()
                    .map(|p| Plugin {
                        name: p.name.clone(),
                        manufacturer_id: p.manufacturer_id.clone(),
                        component_type: p.component_type.clone(),
                        component_subtype: p.component_subtype.clone(),
                        parameters: p
                            .parameters
                            .iter()
                            .map(|x| Parameter {
                                address: x.address,
                                display_name: x.display_name.clone(),
                                identifier: x.identifier.clone(),
                                unit: x.unit.clone(),
                                min_value: x.min_value,
                                max_value: x.max_value,
                                default_value: x.default_value,
                                current_value: x.current_value,
                                raw_flags: x.raw_flags,
                                is_writable: x.is_writable,
                                can_ramp: x.can_ramp,
                            })
                            .collect(),
                    })
                    .collect(),
                total_plugin_count: r.total_plugin_count,
                total_parameter_count: r.total_parameter_count,
            }
        }
    }

    /// SDP `arrays.sdp` (`ArraysOfPrimitives`; the case holds several records).
    pub mod arrays {
        use super::*;
        use crate::fast::arrays as g;

        #[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
        pub struct ArraysOfPrimitives {
            #[prost(bytes = "vec", tag = "1")]
            pub u8_array: Vec<u8>,
            #[prost(uint32, repeated, tag = "2")]
            pub u32_array: Vec<u32>,
            #[prost(double, repeated, tag = "3")]
            pub f64_array: Vec<f64>,
            #[prost(string, repeated, tag = "4")]
            pub str_array: Vec<String>,
            #[prost(bool, repeated, tag = "5")]
            pub bool_array: Vec<bool>,
        }

        /// The records of the case, one message.
        #[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
        pub struct Records {
            #[prost(message, repeated, tag = "1")]
            pub records: Vec<ArraysOfPrimitives>,
        }

        /// The mirror of every record.
        pub fn from_records(rs: &[g::ArraysOfPrimitives]) -> Records {
            Records {
                records: rs
                    .iter()
                    .map(|r| ArraysOfPrimitives {
                        u8_array: r.u8_array.clone(),
                        u32_array: r.u32_array.clone(),
                        f64_array: r.f64_array.clone(),
                        str_array: r.str_array.clone(),
                        bool_array: r.bool_array.clone(),
                    })
                    .collect(),
            }
        }
    }

    /// ffire `complex.ffi` (root `PluginList []Plugin`).
    pub mod complex {
        use super::*;
        use crate::fast::complex as g;

        #[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
        pub struct StringList {
            #[prost(string, repeated, tag = "1")]
            pub values: Vec<String>,
        }

        #[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
        pub struct Parameter {
            #[prost(string, tag = "1")]
            pub display_name: String,
            #[prost(float, tag = "2")]
            pub default_value: f32,
            #[prost(float, tag = "3")]
            pub current_value: f32,
            #[prost(int32, tag = "4")]
            pub address: i32,
            #[prost(float, tag = "5")]
            pub max_value: f32,
            #[prost(float, tag = "6")]
            pub min_value: f32,
            #[prost(string, tag = "7")]
            pub unit: String,
            #[prost(string, tag = "8")]
            pub identifier: String,
            #[prost(bool, tag = "9")]
            pub can_ramp: bool,
            #[prost(bool, tag = "10")]
            pub is_writable: bool,
            #[prost(int64, tag = "11")]
            pub raw_flags: i64,
            #[prost(message, optional, tag = "12")]
            pub indexed_values: Option<StringList>,
            #[prost(string, optional, tag = "13")]
            pub indexed_values_source: Option<String>,
        }

        #[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
        pub struct Plugin {
            #[prost(string, tag = "1")]
            pub name: String,
            #[prost(string, tag = "2")]
            pub manufacturer_id: String,
            #[prost(string, tag = "3")]
            pub r#type: String,
            #[prost(string, tag = "4")]
            pub subtype: String,
            #[prost(message, repeated, tag = "5")]
            pub parameters: Vec<Parameter>,
        }

        #[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
        pub struct PluginList {
            #[prost(message, repeated, tag = "1")]
            pub plugins: Vec<Plugin>,
        }

        /// The mirror of the (single) record.
        pub fn from_records(r: &[g::PluginListMessage]) -> PluginList {
            PluginList {
                plugins: r[0]
                    .0
                    .iter()
                    .map(|p| Plugin {
                        name: p.name.clone(),
                        manufacturer_id: p.manufacturer_id.clone(),
                        r#type: p.r#type.clone(),
                        subtype: p.subtype.clone(),
                        parameters: p
                            .parameters
                            .iter()
                            .map(|x| Parameter {
                                display_name: x.display_name.clone(),
                                default_value: x.default_value,
                                current_value: x.current_value,
                                address: x.address,
                                max_value: x.max_value,
                                min_value: x.min_value,
                                unit: x.unit.clone(),
                                identifier: x.identifier.clone(),
                                can_ramp: x.can_ramp,
                                is_writable: x.is_writable,
                                raw_flags: x.raw_flags,
                                indexed_values: x.indexed_values.clone().map(|values| StringList { values }),
                                indexed_values_source: x.indexed_values_source.clone(),
                            })
                            .collect(),
                    })
                    .collect(),
            }
        }
    }

    /// ffire `array_int.ffi` (root `IntList []int32`).
    pub mod array_int {
        use super::*;
        use crate::fast::array_int as g;

        #[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
        pub struct IntList {
            #[prost(int32, repeated, tag = "1")]
            pub values: Vec<i32>,
        }

        /// The mirror of the (single) record.
        pub fn from_records(r: &[g::IntListMessage]) -> IntList {
            IntList { values: r[0].0.clone() }
        }
    }

    /// ffire `array_struct.ffi` (root `DeviceList []Device`).
    pub mod array_struct {
        use super::*;
        use crate::fast::array_struct as g;

        #[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
        pub struct Device {
            #[prost(string, tag = "1")]
            pub name: String,
            #[prost(int32, tag = "2")]
            pub channels: i32,
            #[prost(int32, tag = "3")]
            pub rate: i32,
        }

        #[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
        pub struct DeviceList {
            #[prost(message, repeated, tag = "1")]
            pub devices: Vec<Device>,
        }

        /// The mirror of the (single) record.
        pub fn from_records(r: &[g::DeviceListMessage]) -> DeviceList {
            DeviceList {
                devices: r[0]
                    .0
                    .iter()
                    .map(|d| Device {
                        name: d.name.clone(),
                        channels: d.channels,
                        rate: d.rate,
                    })
                    .collect(),
            }
        }
    }

    /// ffire `array_string.ffi` (root `StringList []string`).
    pub mod array_string {
        use super::*;
        use crate::fast::array_string as g;

        #[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
        pub struct StringList {
            #[prost(string, repeated, tag = "1")]
            pub values: Vec<String>,
        }

        /// The mirror of the (single) record.
        pub fn from_records(r: &[g::StringListMessage]) -> StringList {
            StringList { values: r[0].0.clone() }
        }
    }
}
