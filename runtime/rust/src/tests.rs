use alloc::vec;
use alloc::vec::Vec;

use crate::*;

/// What `f` writes through a [`Writer`] (up to 4 KiB).
fn written(f: impl FnOnce(&mut Writer<'_>)) -> Vec<u8> {
    let mut buf = vec![0u8; 4096];
    let base = buf.as_ptr() as usize;
    let mut w = Writer::over(&mut buf);
    f(&mut w);
    let n = w.written(base).expect("fits in 4 KiB");
    buf.truncate(n);
    buf
}

#[test]
fn reads_little_endian_primitives() {
    let bytes = [1, 0x34, 0x12, 0x78, 0x56, 0x34, 0x12, 0xff];
    let mut r = Reader::new(&bytes);
    assert_eq!(r.u8(), Ok(1));
    assert_eq!(r.u16(), Ok(0x1234));
    assert_eq!(r.u32(), Ok(0x1234_5678));
    assert_eq!(r.i8(), Ok(-1));
    assert_eq!(r.finish(), Ok(()));
    let err = r.u8().unwrap_err();
    assert_eq!(err.offset, 8);
    assert_eq!(err.kind, DecodeErrorKind::UnexpectedEnd { needed: 1, left: 0 });
}

#[test]
fn floats_keep_their_bits() {
    let nan = f32::from_bits(0x7fc0_1234);
    let out = written(|w| {
        w.put_prim(nan);
        w.put_prim(-0.0f64);
    });
    let mut r = Reader::new(&out);
    assert_eq!(r.f32().map(f32::to_bits), Ok(0x7fc0_1234));
    assert_eq!(r.f64().map(f64::to_bits), Ok((-0.0f64).to_bits()));
}

#[test]
fn bool_and_presence_are_strict() {
    let mut r = Reader::new(&[0, 1, 2]);
    assert_eq!(r.bool(), Ok(false));
    assert_eq!(r.bool(), Ok(true));
    let e = r.bool().unwrap_err();
    assert_eq!((e.offset, e.kind), (2, DecodeErrorKind::InvalidBool(2)));
    let e = Reader::new(&[7]).presence().unwrap_err();
    assert_eq!(e.kind, DecodeErrorKind::InvalidPresence(7));
    assert_eq!(le::get_bool(&[0, 3], 1, 10).unwrap_err().offset, 11);
}

#[test]
fn strings_are_validated_utf8() {
    let ok = written(|w| w.str32("héllo").unwrap());
    assert_eq!(Reader::new(&ok).str32(), Ok("héllo"));
    let bad = [2, 0, 0xc3, 0x28];
    let e = Reader::new(&bad).str16().unwrap_err();
    assert_eq!((e.offset, e.kind), (2, DecodeErrorKind::InvalidUtf8));
}

/// The word-at-a-time ASCII check (`reader::ascii_str`) must send every string with a
/// byte ≥ 0x80 to full validation, wherever that byte is: every length up to 40 (the
/// 0–3, 4–7 and ≥ 8 byte paths, whole words and overlapping tails), every position.
#[test]
fn ascii_fast_path_misses_no_high_byte() {
    for n in 0..40usize {
        let ascii: Vec<u8> = (0..n).map(|i| b'a' + (i % 26) as u8).collect();
        assert_eq!(reader::ascii_str(&ascii).map(str::len), Some(n), "len {n}");
        for at in 0..n {
            for high in [0x80u8, 0xc3, 0xff] {
                let mut b = ascii.clone();
                b[at] = high;
                assert_eq!(reader::ascii_str(&b), None, "len {n}, 0x{high:02x} at {at}");
                // Through the reader: a lone high byte is invalid UTF-8 at its offset.
                let wire = written(|w| {
                    w.put(&(n as u16).to_le_bytes());
                    w.put(&b);
                });
                let e = Reader::new(&wire).str16().unwrap_err();
                assert_eq!((e.offset, e.kind), (2 + at, DecodeErrorKind::InvalidUtf8), "len {n}");
            }
        }
    }
    // Valid non-ASCII still decodes (through `str::from_utf8`), at every alignment.
    for pad in 0..16 {
        let text = alloc::format!("{}é€😀", "x".repeat(pad));
        let wire = written(|w| w.str16(&text).unwrap());
        assert_eq!(Reader::new(&wire).str16(), Ok(text.as_str()));
    }
}

#[test]
fn counts_must_be_plausible() {
    // 3 u32 elements announced, 8 bytes left.
    let bytes = [3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    let mut r = Reader::new(&bytes);
    let e = r.count32(4).unwrap_err();
    assert_eq!(e.offset, 0);
    assert_eq!(
        e.kind,
        DecodeErrorKind::ImplausibleCount {
            count: 3,
            min_each: 4,
            left: 8
        }
    );
    assert_eq!(r.position(), 0);
    assert_eq!(Reader::new(&[2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]).count32(4), Ok(2));
    // A huge count with min size 0 still needs one byte per element.
    assert!(Reader::new(&[0xff, 0xff, 0xff, 0xff]).count32(0).is_err());
    assert!(Reader::new(&[0xff, 0xff]).count16(1).is_err());
}

#[test]
fn fixed_blocks_and_views() {
    let out = written(|w| {
        w.len16(3).unwrap();
        w.put_prims(&[1i32, -2, 3]);
    });
    let mut r = Reader::new(&out);
    let v = r.prims16::<i32>().unwrap();
    assert_eq!(v.len(), 3);
    assert_eq!(v.get(1), Some(-2));
    assert_eq!(v.get(3), None);
    assert_eq!(v.to_vec(), vec![1, -2, 3]);
    let mut r = Reader::new(&[1, 0, 0, 0, 1]);
    let b: &[u8; 5] = r.fixed().unwrap();
    assert_eq!(le::get_u32(b, 0), 1);
    assert_eq!(le::get_bool(b, 4, 0), Ok(true));
    let mut block = [0u8; 6];
    le::put_u16(&mut block, 0, 0xbeef);
    le::put_f32(&mut block, 2, 1.5);
    assert_eq!(block, [0xef, 0xbe, 0, 0, 0xc0, 0x3f]);
    let e = Reader::new(&[2, 0, 0, 0, 1, 2]).prims32::<bool>().unwrap_err();
    assert_eq!((e.offset, e.path().as_str()), (5, "[1]"));
}

#[test]
fn ffire_lengths_are_limited() {
    let mut buf = [0u8; 2];
    let mut w = Writer::over(&mut buf);
    let e = w.len16(65_536).unwrap_err();
    assert_eq!(
        e.kind,
        EncodeErrorKind::TooLong {
            len: 65_536,
            max: 65_535
        }
    );
    assert!(w.len16(65_535).is_ok());
    assert_eq!(buf, [0xff, 0xff]);
}

#[test]
fn writer_refuses_overflow() {
    let mut buf = [0u8; 3];
    let base = buf.as_ptr() as usize;
    let mut w = Writer::over(&mut buf);
    w.put(&[1, 2]);
    w.put(&[3, 4]);
    // Nothing more is written after a write that did not fit, even if it would fit.
    w.put(&[5]);
    w.put(&[]);
    assert_eq!(w.written(base), None);
    assert_eq!(buf, [1, 2, 0]);
    let base = buf.as_ptr() as usize;
    let mut w = Writer::over(&mut buf);
    w.put(&[9, 8, 7]);
    w.put(&[]);
    assert_eq!(w.written(base), Some(3));
    assert_eq!(buf, [9, 8, 7]);
}

#[test]
fn sdp_header() {
    let mut out = Vec::new();
    sdp::write_header(&mut out, 2, 3).unwrap();
    out.extend_from_slice(&[1, 2, 3]);
    assert_eq!(&out[..10], &[0x53, 0x44, 0x50, 0x32, 2, 0, 3, 0, 0, 0]);
    let h = sdp::read_header(&out).unwrap();
    assert_eq!(h, sdp::Header { type_id: 2, end: 13 });
    assert_eq!(sdp::read_header(&out[..12]).unwrap_err().offset, 6);
    let mut bad = out.clone();
    bad[3] = b'1';
    assert_eq!(
        sdp::read_header(&bad).unwrap_err().kind,
        DecodeErrorKind::BadVersion(b'1')
    );
    bad[0] = b'X';
    assert_eq!(sdp::read_header(&bad).unwrap_err().kind, DecodeErrorKind::BadMagic);
    assert!(sdp::check_payload(&h, 12).is_err());
    assert!(sdp::check_payload(&h, 13).is_ok());
}

#[test]
fn error_paths_read_outermost_first() {
    let e = DecodeError::new(4, DecodeErrorKind::InvalidUtf8)
        .field("name")
        .index(3)
        .field("plugins");
    assert_eq!(e.path(), "plugins[3].name");
    assert_eq!(
        alloc::format!("{e}"),
        "plugins[3].name: string is not valid UTF-8 (at byte offset 4)"
    );
}

/// A type implemented by hand the way the generator does it: only the per-type methods.
#[derive(Debug, Clone, PartialEq)]
struct Pair {
    a: u16,
    s: alloc::string::String,
}

#[derive(Debug, Clone, PartialEq)]
struct PairView<'a> {
    a: u16,
    s: &'a str,
}

impl Message for Pair {
    type View<'a> = PairView<'a>;

    fn encoded_size(&self) -> usize {
        6 + self.s.len()
    }

    fn write_to<'w>(&self, mut w: Writer<'w>) -> Written<'w> {
        w.put_prim(self.a);
        w.str32(&self.s)?;
        Ok(w)
    }
}

impl<'a> Decode<'a> for Pair {
    fn read_from(rd: &mut Reader<'a>) -> Result<Self, DecodeError> {
        Ok(Pair {
            a: rd.u16()?,
            s: rd.str32()?.into(),
        })
    }
}

impl<'a> Decode<'a> for PairView<'a> {
    fn read_from(rd: &mut Reader<'a>) -> Result<Self, DecodeError> {
        Ok(PairView {
            a: rd.u16()?,
            s: rd.str32()?,
        })
    }
}

impl SdpMessage for Pair {
    const MESSAGE_ID: u16 = 3;
}

#[derive(Debug, PartialEq)]
enum Any {
    Pair(Pair),
}

impl Dispatch for Any {
    fn message_id(&self) -> u16 {
        match self {
            Any::Pair(_) => 3,
        }
    }

    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        match self {
            Any::Pair(m) => m.encode_message(out),
        }
    }

    fn read_payload(type_id: u16, rd: &mut Reader<'_>) -> Result<Self, DecodeError> {
        match type_id {
            3 => Pair::read_from(rd).map(Any::Pair),
            other => Err(sdp::unknown_type_id(other)),
        }
    }
}

/// Generic code over any generated type: what the trait is for.
fn send<M: Message>(m: &M, wire: &mut Vec<u8>) -> Result<usize, EncodeError> {
    let before = wire.len();
    m.encode(wire)?;
    Ok(wire.len() - before)
}

#[test]
fn message_defaults_encode_and_decode_through_the_per_type_methods() {
    let p = Pair {
        a: 0x0102,
        s: "hé".into(),
    };
    let mut wire = vec![9];
    assert_eq!(send(&p, &mut wire), Ok(9));
    assert_eq!(wire, [9, 2, 1, 3, 0, 0, 0, b'h', 0xc3, 0xa9]);
    assert_eq!(p.to_bytes().unwrap(), &wire[1..]);
    let mut buf = [0u8; 9];
    assert_eq!(p.encode_into(&mut buf), Ok(9));
    assert!(matches!(
        p.encode_into(&mut buf[..8]).unwrap_err().kind,
        EncodeErrorKind::BufferTooSmall {
            needed: 9,
            available: 8
        }
    ));
    assert_eq!(Pair::decode(&wire[1..]), Ok(p.clone()));
    assert_eq!(Pair::decode_view(&wire[1..]).unwrap(), PairView { a: 0x0102, s: "hé" });
    let mut longer = wire[1..].to_vec();
    longer.push(0);
    assert_eq!(
        Pair::decode(&longer).unwrap_err().kind,
        DecodeErrorKind::TrailingBytes(1)
    );
    assert!(Pair::decode_view(&longer).is_err());
    assert_eq!(Pair::decode_prefix(&longer), Ok((p.clone(), 9)));
    assert_eq!(Pair::decode_view_prefix(&longer).unwrap().1, 9);
    // A failed encode leaves the buffer as it was.
    let too_long = Pair {
        a: 0,
        s: "x".repeat(70_000),
    };
    struct Ffi(Pair);
    impl Message for Ffi {
        type View<'a> = Ffi;
        fn encoded_size(&self) -> usize {
            4 + self.0.s.len()
        }
        fn write_to<'w>(&self, mut w: Writer<'w>) -> Written<'w> {
            w.put_prim(self.0.a);
            w.str16(&self.0.s)?;
            Ok(w)
        }
    }
    impl<'a> Decode<'a> for Ffi {
        fn read_from(rd: &mut Reader<'a>) -> Result<Self, DecodeError> {
            Ok(Ffi(Pair {
                a: rd.u16()?,
                s: rd.str16()?.into(),
            }))
        }
    }
    let mut out = vec![1, 2];
    assert!(Ffi(too_long).encode(&mut out).is_err());
    assert_eq!(out, [1, 2]);
}

#[test]
fn sdp_messages_and_dispatch_are_default_methods() {
    let p = Pair { a: 7, s: "x".into() };
    let mut msg = Vec::new();
    p.encode_message(&mut msg).unwrap();
    assert_eq!(&msg[..10], &[b'S', b'D', b'P', b'2', 3, 0, 7, 0, 0, 0]);
    assert_eq!(Pair::decode_message(&msg), Ok(p.clone()));
    assert_eq!(Pair::decode_message_view(&msg).unwrap().s, "x");
    assert_eq!(Any::decode(&msg), Ok(Any::Pair(p.clone())));
    let mut again = Vec::new();
    Any::Pair(p.clone()).encode(&mut again).unwrap();
    assert_eq!((again == msg, Any::Pair(p).message_id()), (true, 3));
    let mut longer = msg.clone();
    longer.push(0);
    assert!(Pair::decode_message(&longer).is_err() && Any::decode(&longer).is_err());
    assert_eq!(Any::decode_prefix(&longer).map(|(_, n)| n), Ok(msg.len()));
    let mut other = msg.clone();
    other[4] = 4;
    assert_eq!(
        Any::decode(&other).unwrap_err().kind,
        DecodeErrorKind::WrongTypeId { found: 4, expected: 0 }
    );
    assert_eq!(
        Pair::decode_message(&other).unwrap_err().kind,
        DecodeErrorKind::WrongTypeId { found: 4, expected: 3 }
    );
    // The header's length must match the payload the type reads.
    let mut short = msg.clone();
    short[6] = 6;
    assert!(Pair::decode_message(&short).is_err() && Any::decode(&short).is_err());
}

#[test]
fn primitive_arrays_encode_little_endian() {
    let vs = [1u32, 0x0102_0304, u32::MAX];
    let want = [1, 0, 0, 0, 4, 3, 2, 1, 0xff, 0xff, 0xff, 0xff];
    let mut buf = [0u8; 12];
    let base = buf.as_ptr() as usize;
    let mut w = Writer::over(&mut buf);
    w.put_prims(&vs);
    assert_eq!(w.written(base), Some(12));
    assert_eq!(buf, want);
    let mut short = [0u8; 11];
    let base = short.as_ptr() as usize;
    let mut w = Writer::over(&mut short);
    w.put_prims(&vs);
    assert_eq!(w.written(base), None);
    let mut bools = [9u8; 3];
    let mut w = Writer::over(&mut bools);
    w.put_prims(&[true, false, true]);
    assert_eq!(bools, [1, 0, 1]);
    let mut floats = [0u8; 16];
    let mut w = Writer::over(&mut floats);
    w.put_prims(&[-0.0f64, 1.5]);
    assert_eq!(&floats[..8], &(-0.0f64).to_le_bytes());
    assert_eq!(&floats[8..], &1.5f64.to_le_bytes());
}

/// The premise of passing the writer by value: it is two words, so it travels in two
/// registers (not through memory, where every output store would force a reload).
#[test]
fn writer_is_two_words() {
    assert_eq!(core::mem::size_of::<Writer<'_>>(), 2 * core::mem::size_of::<usize>());
}

#[test]
fn decode_results_fit_in_two_words() {
    assert_eq!(core::mem::size_of::<DecodeError>(), core::mem::size_of::<usize>());
    assert!(core::mem::size_of::<Result<&str, DecodeError>>() <= 2 * core::mem::size_of::<usize>());
}

/// A hand-written `Message` whose `encoded_size` is wrong by `lie` bytes: `Message` is a
/// safe trait, so the exact-size writer must stay in bounds and correct anyway.
struct Liar {
    strings: Vec<alloc::string::String>,
    lie: isize,
}

impl Message for Liar {
    type View<'a> = Liar;

    fn encoded_size(&self) -> usize {
        let real: usize = self.strings.iter().map(|s| 4 + s.len()).sum();
        real.saturating_add_signed(self.lie)
    }

    fn write_to<'w>(&self, mut w: Writer<'w>) -> Written<'w> {
        for (i, s) in self.strings.iter().enumerate() {
            // Both ways generated code writes a string.
            if i % 2 == 0 {
                w.str32(s)?;
            } else {
                w.len32(s.len())?;
                w.put(s.as_bytes());
            }
        }
        Ok(w)
    }
}

impl<'a> Decode<'a> for Liar {
    fn read_from(_rd: &mut Reader<'a>) -> Result<Self, DecodeError> {
        Ok(Liar {
            strings: Vec::new(),
            lie: 0,
        })
    }
}

/// The reference encoding, by `extend_from_slice`.
fn reference(strings: &[alloc::string::String]) -> Vec<u8> {
    let mut out = Vec::new();
    for s in strings {
        out.extend_from_slice(&(s.len() as u32).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
    }
    out
}

#[test]
fn exact_size_writer_copies_every_length_and_survives_a_wrong_size() {
    // Every string length around the copy widths (0–3, 4–7, 8–15, 16–32, 33–64, longer), with
    // each byte distinct so an overlapping copy from the wrong offset shows.
    let strings: Vec<alloc::string::String> = (0..80usize)
        .map(|n| (0..n).map(|i| char::from(b'!' + (i % 90) as u8)).collect())
        .collect();
    let expected = reference(&strings);
    for lie in [0isize, -1, -4, -100, -1_000_000, 1, 64, 4096] {
        let m = Liar {
            strings: strings.clone(),
            lie,
        };
        // into an empty vector (the writer must grow when the size is too small) ...
        let mut out = Vec::new();
        m.encode(&mut out).unwrap();
        assert_eq!(out, expected, "lie {lie}");
        // ... appended after existing bytes, into a tight and into a roomy buffer ...
        for cap in [1, expected.len() + 1, 2 * expected.len()] {
            let mut out = Vec::with_capacity(cap);
            out.push(0xAA);
            m.encode(&mut out).unwrap();
            assert_eq!(out[0], 0xAA);
            assert_eq!(&out[1..], &expected[..], "lie {lie}, capacity {cap}");
        }
        // ... as a fresh vector, and into a caller buffer (refused when the size lies
        // about a buffer that is too small).
        assert_eq!(m.to_bytes().unwrap(), expected, "lie {lie}");
        let mut buf = vec![0u8; expected.len() + 4096];
        assert_eq!(m.encode_into(&mut buf), Ok(expected.len()), "lie {lie}");
        assert_eq!(&buf[..expected.len()], &expected[..]);
        let mut exact = vec![0u8; expected.len() - 1];
        assert!(matches!(
            m.encode_into(&mut exact).map_err(|e| e.kind),
            Err(EncodeErrorKind::BufferTooSmall { .. })
        ));
        assert_eq!(&buf[..expected.len()], &expected[..]);
    }
    // Each string on its own: the writer's copies never touch bytes past the string.
    for s in &strings {
        let mut out = vec![0x55; 3];
        out.reserve(200);
        let m = Liar {
            strings: vec![s.clone()],
            lie: 0,
        };
        m.encode(&mut out).unwrap();
        assert_eq!(&out[..3], &[0x55; 3]);
        assert_eq!(&out[3..], &reference(core::slice::from_ref(s))[..]);
    }
}

#[test]
fn exact_size_writer_leaves_the_buffer_unchanged_on_error() {
    /// Four bytes, then a too-long prefix; `encoded_size` says `.0`.
    struct TooLong(usize);
    impl Message for TooLong {
        type View<'a> = TooLong;
        fn encoded_size(&self) -> usize {
            self.0
        }
        fn write_to<'w>(&self, mut w: Writer<'w>) -> Written<'w> {
            w.put(&[1, 2, 3, 4]);
            w.len16(70_000)?;
            Ok(w)
        }
    }
    impl<'a> Decode<'a> for TooLong {
        fn read_from(_rd: &mut Reader<'a>) -> Result<Self, DecodeError> {
            Ok(TooLong(0))
        }
    }
    // With an honest size, and with a size of 0, so the first write overflows the
    // (empty) spare room before the error: its offset is still where the prefix goes.
    for size in [8, 0] {
        let mut out = vec![7, 7];
        let err = TooLong(size).encode(&mut out).unwrap_err();
        assert_eq!(
            (err.offset, &err.kind),
            (
                6,
                &EncodeErrorKind::TooLong {
                    len: 70_000,
                    max: 65_535
                }
            )
        );
        assert_eq!(out, [7, 7]);
        assert_eq!(TooLong(size).to_bytes().unwrap_err().offset, 4);
        let mut buf = [0u8; 8];
        assert_eq!(TooLong(size).encode_into(&mut buf).unwrap_err().offset, 4);
    }
    let mut buf = [0u8; 3];
    assert!(matches!(
        TooLong(0).encode_into(&mut buf).unwrap_err().kind,
        EncodeErrorKind::BufferTooSmall { .. }
    ));
}

/// `Slots::fill` in a reused arena: the elements in order, a failed fill's error as it is
/// (the arena takes the room back), the budget charged, no arena: `NoArena`.
#[cfg(feature = "arena")]
#[test]
fn arena_slots_fill_in_order_and_reuse_after_reset() {
    // Three u16 values after a u32 count.
    let bytes = [3, 0, 0, 0, 1, 0, 2, 0, 3, 0];
    let mut arena = Arena::new();
    for _ in 0..3 {
        arena.reset();
        let mut rd = Reader::new(&bytes).with_arena(&arena);
        let n = rd.count32(2).expect("count");
        let got = rd.slots(n).and_then(|s| s.fill(|_| rd.u16())).expect("fills");
        assert_eq!(got, &[1, 2, 3]);
        assert_eq!(rd.finish(), Ok(()));
    }
    // A failing element: its error comes back unchanged, and the arena can be reused.
    let mut rd = Reader::new(&bytes[..7]).with_arena(&arena);
    let n = rd.count32(1).expect("count");
    let err = rd
        .slots::<u16>(n)
        .and_then(|s| s.fill(|i| rd.u16().at_index(i, "xs")))
        .unwrap_err();
    assert_eq!(err.kind, DecodeErrorKind::UnexpectedEnd { needed: 2, left: 1 });
    assert_eq!(err.path(), "xs[1]");
    // The budget counts the slots (3 × 2 bytes).
    let mut rd = Reader::new(&bytes).with_arena(&arena).with_budget(5);
    let n = rd.count32(2).expect("count");
    let err = rd.slots::<u16>(n).unwrap_err();
    assert_eq!(err.kind, DecodeErrorKind::OverBudget { needed: 6, left: 5 });
    // No arena.
    let mut rd = Reader::new(&bytes);
    assert_eq!(rd.slots::<u16>(0).unwrap_err().kind, DecodeErrorKind::NoArena);
}

/// `LeSlice::to_vec` (one copy for numbers on little-endian hosts) gives the elements the
/// per-element decode gives, for every primitive type, from every misalignment, for 0, 1
/// and many elements.
#[test]
fn primitive_arrays_copy_into_vecs_from_any_alignment() {
    fn check<T: le::Prim + PartialEq + core::fmt::Debug>() {
        let bytes: Vec<u8> = (0..(37 * T::SIZE + 8) as u32).map(|i| (i * 151 % 251) as u8).collect();
        for skew in 0..8 {
            for n in [0, 1, 37] {
                let wire = &bytes[skew..skew + n * T::SIZE];
                let want: Vec<T> = wire.chunks_exact(T::SIZE).map(T::from_le).collect();
                let got = le::LeSlice::<T>::new(wire).expect("valid").to_vec();
                assert_eq!(got, want, "{} × {n} at skew {skew}", core::any::type_name::<T>());
                assert_eq!(got.capacity(), n);
            }
        }
    }
    check::<u8>();
    check::<i8>();
    check::<u16>();
    check::<i16>();
    check::<u32>();
    check::<i32>();
    check::<u64>();
    check::<i64>();
    check::<f32>();
    check::<f64>();
    // bool: its own (checked) path.
    let v = le::LeSlice::<bool>::new(&[1, 0, 1]).expect("valid").to_vec();
    assert_eq!(v, vec![true, false, true]);
}

/// `prims32` / `prims16` write what `len32` / `len16` and `put_prims` write, check the
/// room once for both (a short buffer overflows the writer), and refuse a count past the
/// prefix's range.
#[test]
fn prefixed_primitive_arrays_write_the_count_then_the_elements() {
    for n in [0usize, 1, 5, 9, 16, 100] {
        let ints: Vec<i32> = (0..n as i32).map(|i| i * 0x0101_0101 - 7).collect();
        let bools: Vec<bool> = (0..n).map(|i| i % 3 == 0).collect();
        let want = written(|w| {
            w.len32(n).unwrap();
            w.put_prims(&ints);
            w.len16(n).unwrap();
            w.put_prims(&bools);
        });
        let got = written(|w| {
            w.prims32(&ints).unwrap();
            w.prims16(&bools).unwrap();
        });
        assert_eq!(got, want, "{n} elements");
        let mut short = vec![0u8; 4 + 4 * n - 1];
        let base = short.as_ptr() as usize;
        let mut w = Writer::over(&mut short);
        w.prims32(&ints).unwrap();
        assert_eq!(w.written(base), None, "{n} elements");
    }
    let many = vec![0u8; 65_536];
    let mut buf = vec![0u8; 70_000];
    let mut w = Writer::over(&mut buf);
    assert!(matches!(
        w.prims16(&many).map_err(|e| e.kind),
        Err(EncodeErrorKind::TooLong {
            len: 65_536,
            max: 65_535
        })
    ));
    assert_eq!(w.prims16(&many[1..]), Ok(()));
}

/// `Reader::prims32_into` (the decode into an existing `Vec`) replaces its contents with the
/// wire's elements, whatever the vector held, for a number type and `bool`.
#[test]
fn primitive_arrays_read_into_existing_vecs() {
    let out = written(|w| {
        w.len32(3).unwrap();
        w.put_prims(&[1i32, -2, 3]);
        w.len32(2).unwrap();
        w.put_prims(&[true, false]);
    });
    for had in [vec![], vec![9], vec![9, 9, 9, 9, 9]] {
        let mut ints = had.clone();
        let mut bools = vec![false; had.len()];
        let mut r = Reader::new(&out);
        r.prims32_into(&mut ints).unwrap();
        r.prims32_into(&mut bools).unwrap();
        assert_eq!(ints, vec![1, -2, 3]);
        assert_eq!(bools, vec![true, false]);
        r.finish().unwrap();
    }
}

/// Owned string decoding (`string32`/`string16` into a new `String`, `string32_into`/
/// `string16_into` into a reused one), whose bytes are copied with `copy_short` into the
/// new buffer: every length 0–80, distinct bytes (ASCII and 2-byte UTF-8), into strings
/// that were empty, shorter and longer before.
#[test]
fn owned_strings_copy_every_length() {
    for n in 0..=80usize {
        let s: alloc::string::String = (0..n)
            .map(|i| {
                if i % 7 == 3 {
                    'é'
                } else {
                    char::from(b'!' + (i % 90) as u8)
                }
            })
            .collect();
        let wire32 = written(|w| w.str32(&s).unwrap());
        let wire16 = written(|w| w.str16(&s).unwrap());
        assert_eq!(Reader::new(&wire32).string32().as_deref(), Ok(s.as_str()), "len {n}");
        assert_eq!(Reader::new(&wire16).string16().as_deref(), Ok(s.as_str()), "len {n}");
        for before in ["", "x", "a longer string than most of these, 49 bytes lo", &s] {
            let mut out = alloc::string::String::from(before);
            Reader::new(&wire32).string32_into(&mut out).unwrap();
            assert_eq!(out, s, "len {n} into {before:?}");
            let mut out = alloc::string::String::from(before);
            Reader::new(&wire16).string16_into(&mut out).unwrap();
            assert_eq!(out, s, "len {n} into {before:?}");
        }
    }
}

/// Long copies (`copy::copy_long`: 64-byte blocks where glibc's `rep movsb` would alias,
/// `copy_nonoverlapping` elsewhere) copy exactly `n` bytes at every distance (destination -
/// source) modulo 4 KiB from 0 to 70 and three far ones, around the 2 KiB threshold and the
/// 64-byte blocks, without touching the guard bytes around the destination.
#[test]
fn long_copies_at_every_page_distance() {
    for n in [33usize, 2048, 2049, 2111, 2112, 4096, 4097, 4159, 20_000, 65_536 + 13] {
        let src: Vec<u8> = (0..n + 128).map(|k| (k * 13 + 5 + (k >> 8)) as u8).collect();
        for (case, dist) in (0..=70usize).chain([2048, 4064, 4095]).enumerate() {
            let s = &src[case % 7..case % 7 + n];
            let mut buf = vec![0xEEu8; n + 4096 + 16];
            let base = buf.as_ptr() as usize + 8;
            let at = 8 + ((s.as_ptr() as usize + dist).wrapping_sub(base) & 4095);
            let d = &mut buf[at..at + n];
            assert_eq!((d.as_ptr() as usize).wrapping_sub(s.as_ptr() as usize) & 4095, dist);
            // SAFETY: `d` holds `n` bytes and is a different allocation from `s`.
            #[allow(unsafe_code)]
            unsafe {
                crate::copy::copy_long(s.as_ptr(), d.as_mut_ptr(), n)
            };
            assert!(buf[..at].iter().all(|&b| b == 0xEE), "n {n} dist {dist}: before");
            assert_eq!(&buf[at..at + n], s, "n {n} dist {dist}");
            assert!(buf[at + n..].iter().all(|&b| b == 0xEE), "n {n} dist {dist}: after");
        }
    }
}

/// Encoding a `[]int32` into a buffer whose elements land 1-31 bytes above the vector's
/// storage modulo 4 KiB (where the Writer copies in blocks) gives the wire bytes.
#[test]
fn primitive_arrays_encode_at_an_aliasing_distance() {
    let values: Vec<i32> = (0..5000).map(|i| i * 7919 - 1_000_000).collect();
    let mut wire = (values.len() as u16).to_le_bytes().to_vec();
    wire.extend(values.iter().flat_map(|v| v.to_le_bytes()));
    for dist in [1usize, 2, 14, 15, 16, 31, 32, 2048] {
        let mut room = vec![0u8; wire.len() + 4096];
        // the elements (2 bytes after the count) `dist` bytes above `values`' storage
        let want = (values.as_ptr() as usize + dist).wrapping_sub(2) & 4095;
        let at = want.wrapping_sub(room.as_ptr() as usize) & 4095;
        let base = room.as_ptr() as usize + at;
        let mut w = Writer::over(&mut room[at..at + wire.len()]);
        w.len16(values.len()).unwrap();
        w.put_prims(&values);
        assert_eq!(w.written(base), Some(wire.len()), "dist {dist}");
        assert_eq!((values.as_ptr() as usize + dist) & 4095, (base + 2) & 4095);
        assert_eq!(&room[at..at + wire.len()], &wire[..], "dist {dist}");
    }
}
