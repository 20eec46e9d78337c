//! Every codec in the benchmark handles the same data correctly: the fast and plain
//! generated codecs re-encode every vector to its exact bytes and agree with the view
//! decoders, and the bincode and prost mirrors round-trip the same values. (A benchmark
//! of a codec that silently does less work would flatter it.)

use wirelens_bench_codec::{arena, compact, dataset_file, decode_all, fast, mirror, plain, read_case};
use wirelens_runtime::Message as _;

macro_rules! check {
    ($name:literal, $fast:ty, $compact:ty, $arena:ty, $plain:ty, $mirror:ty, $from:path) => {{
        let bytes = read_case(dataset_file($name));
        let recs: Vec<$fast> = decode_all!($fast, &bytes);
        let precs: Vec<$plain> = decode_all!($plain, &bytes);
        let mut out = Vec::new();
        let mut pout = Vec::new();
        let mut at = 0;
        for (r, p) in recs.iter().zip(&precs) {
            r.encode(&mut out).expect("encodes");
            p.encode(&mut pout).expect("encodes");
            let (view, n) = <$fast>::decode_view_prefix(&bytes[at..]).expect("view");
            assert_eq!(&view.to_owned_value(), r, "{}", $name);
            let (pview, _) = <$plain>::decode_view_prefix(&bytes[at..]).expect("view");
            assert_eq!(&pview.to_owned_value(), p, "{}", $name);
            assert_eq!(r.to_bytes().expect("encodes"), bytes[at..at + n], "{}", $name);
            assert_eq!(p.to_bytes().expect("encodes"), bytes[at..at + n], "{}", $name);
            at += n;
        }
        assert_eq!(at, bytes.len());
        // Views with their arrays in an arena (reset before each record, as the bench row does).
        let mut mem = wirelens_runtime::Arena::new();
        let mut at = 0;
        for r in &recs {
            mem.reset();
            let (view, n) = <$arena>::decode_view_prefix_in(&bytes[at..], &mem).expect("arena view");
            assert_eq!(
                format!("{:?}", view.to_owned_value()),
                format!("{r:?}"),
                "{}: arena view",
                $name
            );
            at += n;
        }
        assert_eq!(at, bytes.len());
        // Owned strings as `CompactString`: the same values, the same bytes back.
        let crecs: Vec<$compact> = decode_all!($compact, &bytes);
        let mut cout = Vec::new();
        for (c, r) in crecs.iter().zip(&recs) {
            c.encode(&mut cout).expect("encodes");
            assert_eq!(format!("{c:?}"), format!("{r:?}"), "{}: compact decode", $name);
        }
        assert_eq!(crecs.len(), recs.len());
        assert_eq!(cout, bytes, "{}: compact encoder", $name);
        assert_eq!(out, bytes, "{}: fast encoder", $name);
        assert_eq!(pout, bytes, "{}: plain encoder", $name);
        let m: $mirror = $from(&recs);
        let cfg = bincode::config::standard();
        let bin = bincode::serde::encode_to_vec(&m, cfg).expect("bincode encodes");
        let (back, used): ($mirror, usize) = bincode::serde::decode_from_slice(&bin, cfg).expect("bincode decodes");
        assert_eq!(used, bin.len());
        assert!(back == m, "{}: bincode round trip", $name);
        let pb = prost::Message::encode_to_vec(&m);
        let back = <$mirror as prost::Message>::decode(&pb[..]).expect("prost decodes");
        assert!(back == m, "{}: prost round trip", $name);
        eprintln!(
            "{}: {} B wire, {} B bincode, {} B protobuf",
            $name,
            bytes.len(),
            bin.len(),
            pb.len()
        );
    }};
}

#[test]
fn every_codec_round_trips_every_data_set() {
    check!(
        "sdp-audiounit",
        fast::audiounit::PluginRegistry,
        compact::audiounit::PluginRegistry,
        arena::audiounit::PluginRegistry,
        plain::audiounit::PluginRegistry,
        mirror::audiounit::PluginRegistry,
        mirror::audiounit::from_records
    );
    check!(
        "sdp-arrays",
        fast::arrays::ArraysOfPrimitives,
        compact::arrays::ArraysOfPrimitives,
        arena::arrays::ArraysOfPrimitives,
        plain::arrays::ArraysOfPrimitives,
        mirror::arrays::Records,
        mirror::arrays::from_records
    );
    check!(
        "ffi-complex",
        fast::complex::PluginListMessage,
        compact::complex::PluginListMessage,
        arena::complex::PluginListMessage,
        plain::complex::PluginListMessage,
        mirror::complex::PluginList,
        mirror::complex::from_records
    );
    check!(
        "ffi-array-int",
        fast::array_int::IntListMessage,
        compact::array_int::IntListMessage,
        arena::array_int::IntListMessage,
        plain::array_int::IntListMessage,
        mirror::array_int::IntList,
        mirror::array_int::from_records
    );
    check!(
        "ffi-array-struct",
        fast::array_struct::DeviceListMessage,
        compact::array_struct::DeviceListMessage,
        arena::array_struct::DeviceListMessage,
        plain::array_struct::DeviceListMessage,
        mirror::array_struct::DeviceList,
        mirror::array_struct::from_records
    );
    check!(
        "ffi-array-string",
        fast::array_string::StringListMessage,
        compact::array_string::StringListMessage,
        arena::array_string::StringListMessage,
        plain::array_string::StringListMessage,
        mirror::array_string::StringList,
        mirror::array_string::from_records
    );
}
