//! Little-endian load/store. Every conversion goes through `from_le_bytes` /
//! `to_le_bytes`, which compile to plain loads/stores on little-endian hosts and to a
//! byte swap on big-endian ones.
//!
//! The `get_*`/`put_*` functions read/write at an offset inside a fixed block that the
//! caller has already bounds-checked as a whole (generated code gets the block from
//! [`crate::Reader::fixed`] as `&[u8; N]` and passes constant offsets, so the compiler
//! removes the per-field checks). An offset outside the block is a generator bug and
//! panics; it cannot be caused by input bytes.

use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;

use crate::{DecodeError, DecodeErrorKind};

/// A fixed-size primitive with a little-endian wire encoding.
pub trait Prim: Copy + Sized + 'static {
    /// Encoded size in bytes.
    const SIZE: usize;
    /// The encoded bytes.
    type Bytes: AsRef<[u8]>;
    /// Decodes from exactly `SIZE` bytes (already validated with [`Prim::valid`]).
    fn from_le(b: &[u8]) -> Self;
    /// Encodes.
    fn to_le(self) -> Self::Bytes;
    /// Whether `SIZE` bytes are a valid encoding (only `bool` restricts them).
    #[inline(always)]
    fn valid(_b: &[u8]) -> bool {
        true
    }

    /// The encoding of `vs` as one byte slice, where the host's representation is the wire's
    /// (little-endian hosts): the array is copied once, with no conversion.
    #[inline(always)]
    fn as_le_bytes(_vs: &[Self]) -> Option<&[u8]> {
        None
    }

    /// The elements encoded in `bytes` (a whole number of `SIZE`-byte encodings, each
    /// valid), in a new exact-size `Vec`.
    #[inline]
    fn vec_from_le(bytes: &[u8]) -> Vec<Self> {
        let mut v = Vec::with_capacity(bytes.len() / Self::SIZE);
        Self::extend_from_le(&mut v, bytes);
        v
    }

    /// Appends the elements encoded in `bytes` (as for [`Prim::vec_from_le`]) to `out`.
    #[inline]
    fn extend_from_le(out: &mut Vec<Self>, bytes: &[u8]) {
        out.extend(bytes.chunks_exact(Self::SIZE).map(Self::from_le));
    }

    /// Appends the encoding of `vs` to `out`.
    #[inline]
    fn extend_le(vs: &[Self], out: &mut Vec<u8>) {
        match Self::as_le_bytes(vs) {
            Some(b) => out.extend_from_slice(b),
            None => {
                let start = out.len();
                out.resize(start + vs.len() * Self::SIZE, 0);
                Self::write_le(vs, &mut out[start..]);
            }
        }
    }

    /// Writes the encoding of `vs` into `dst`, which holds exactly `vs.len() × SIZE` bytes.
    #[inline]
    fn write_le(vs: &[Self], dst: &mut [u8]) {
        match Self::as_le_bytes(vs) {
            Some(b) => dst.copy_from_slice(b),
            None => {
                for (d, v) in dst.chunks_exact_mut(Self::SIZE).zip(vs) {
                    d.copy_from_slice(v.to_le().as_ref());
                }
            }
        }
    }
}

/// `zerocopy` views a slice of plain numbers (or `bool`s, whose bytes are 0 or 1) as its
/// bytes without `unsafe` here; on little-endian hosts those bytes are the wire encoding.
#[cfg(target_endian = "little")]
macro_rules! host_is_wire {
    () => {
        #[inline(always)]
        fn as_le_bytes(vs: &[Self]) -> Option<&[u8]> {
            Some(zerocopy::IntoBytes::as_bytes(vs))
        }
    };
}

#[cfg(not(target_endian = "little"))]
macro_rules! host_is_wire {
    () => {};
}

/// For the plain number types on little-endian hosts: decoding an array is one copy of its
/// bytes into the vector's storage. The element-wise loop it replaces (vectorized) plus
/// the allocation took ffire array_int's owned decode to 1.6-1.7x memcpy.
#[cfg(target_endian = "little")]
macro_rules! copy_from_wire {
    ($t:ty) => {
        #[inline]
        #[allow(unsafe_code)]
        fn extend_from_le(out: &mut Vec<Self>, bytes: &[u8]) {
            const { assert!(core::mem::size_of::<$t>() == <$t as Prim>::SIZE) };
            let n = bytes.len() / <$t as Prim>::SIZE;
            out.reserve(n);
            let len = out.len();
            let src = &bytes[..n * <$t as Prim>::SIZE];
            // SAFETY: after `reserve`, the spare capacity past `len` holds `n` elements,
            // `n * SIZE` bytes (the size of the type, asserted above), which `copy_short`
            // writes, from `src` (exactly that many bytes); it cannot overlap `src` (a
            // shared borrow while `out` is borrowed mutably). Every bit pattern is a
            // valid plain number, and on a little-endian host its bytes are the wire's:
            // after the copy the first `len + n` elements are initialized. `copy_short`:
            // a short array (the usual few elements) is copied inline instead of through
            // a `memcpy` call; a long one as `Writer::put` copies it.
            unsafe {
                crate::copy::copy_short(src, out.as_mut_ptr().add(len).cast::<u8>());
                out.set_len(len + n);
            }
        }
    };
}

#[cfg(not(target_endian = "little"))]
macro_rules! copy_from_wire {
    ($t:ty) => {};
}

#[inline(always)]
fn arr<const K: usize>(b: &[u8]) -> [u8; K] {
    let mut a = [0u8; K];
    a.copy_from_slice(&b[..K]);
    a
}

macro_rules! prim {
    ($($t:ty => $n:literal, $get:ident, $put:ident;)*) => {$(
        impl Prim for $t {
            const SIZE: usize = $n;
            type Bytes = [u8; $n];
            #[inline(always)]
            fn from_le(b: &[u8]) -> Self {
                <$t>::from_le_bytes(arr::<$n>(b))
            }
            #[inline(always)]
            fn to_le(self) -> [u8; $n] {
                self.to_le_bytes()
            }
            host_is_wire!();
            copy_from_wire!($t);
        }

        #[doc = concat!("Reads a `", stringify!($t), "` at `at` inside a checked block.")]
        #[inline(always)]
        pub fn $get(b: &[u8], at: usize) -> $t {
            <$t>::from_le_bytes(arr::<$n>(&b[at..]))
        }

        #[doc = concat!("Writes a `", stringify!($t), "` at `at` inside a block.")]
        #[inline(always)]
        pub fn $put(b: &mut [u8], at: usize, v: $t) {
            b[at..at + $n].copy_from_slice(&v.to_le_bytes());
        }
    )*};
}

prim! {
    u8 => 1, get_u8, put_u8;
    u16 => 2, get_u16, put_u16;
    u32 => 4, get_u32, put_u32;
    u64 => 8, get_u64, put_u64;
    i8 => 1, get_i8, put_i8;
    i16 => 2, get_i16, put_i16;
    i32 => 4, get_i32, put_i32;
    i64 => 8, get_i64, put_i64;
    f32 => 4, get_f32, put_f32;
    f64 => 8, get_f64, put_f64;
}

impl Prim for bool {
    const SIZE: usize = 1;
    type Bytes = [u8; 1];
    #[inline(always)]
    fn from_le(b: &[u8]) -> Self {
        b[0] == 1
    }
    #[inline(always)]
    fn to_le(self) -> [u8; 1] {
        [u8::from(self)]
    }
    #[inline(always)]
    fn valid(b: &[u8]) -> bool {
        b[0] <= 1
    }
    host_is_wire!();
}

/// Reads a strict `bool` (00/01) at `at` inside a checked block; `block_start` is the
/// block's offset in the input, for the error.
#[inline(always)]
pub fn get_bool(b: &[u8], at: usize, block_start: usize) -> Result<bool, DecodeError> {
    match b[at] {
        0 => Ok(false),
        1 => Ok(true),
        x => Err(DecodeError::new(block_start + at, DecodeErrorKind::InvalidBool(x))),
    }
}

/// Writes a `bool` at `at` inside a block.
#[inline(always)]
pub fn put_bool(b: &mut [u8], at: usize, v: bool) {
    b[at] = u8::from(v);
}

/// A zero-copy view of an array of primitives: the encoded bytes, decoded on access.
/// (`bool` arrays are validated when the view is made.)
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct LeSlice<'a, T: Prim> {
    bytes: &'a [u8],
    _t: PhantomData<T>,
}

impl<'a, T: Prim> LeSlice<'a, T> {
    /// A view of `bytes`, whose length must be a multiple of `T::SIZE` and whose
    /// elements must be valid; `None` otherwise.
    #[inline]
    pub fn new(bytes: &'a [u8]) -> Option<LeSlice<'a, T>> {
        if !bytes.len().is_multiple_of(T::SIZE) || !bytes.chunks_exact(T::SIZE).all(T::valid) {
            return None;
        }
        Some(LeSlice { bytes, _t: PhantomData })
    }

    /// Number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        self.bytes.len() / T::SIZE
    }

    /// No elements.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Element `i`, if in range.
    #[inline]
    pub fn get(&self, i: usize) -> Option<T> {
        let start = i.checked_mul(T::SIZE)?;
        self.bytes.get(start..start + T::SIZE).map(T::from_le)
    }

    /// The elements, in order.
    #[inline]
    pub fn iter(&self) -> impl ExactSizeIterator<Item = T> + 'a {
        self.bytes.chunks_exact(T::SIZE).map(T::from_le)
    }

    /// The encoded bytes (little-endian, no prefix).
    #[inline]
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Copies the elements into a `Vec` (one exact-size allocation; one copy of the bytes
    /// for numbers on little-endian hosts).
    #[inline]
    pub fn to_vec(&self) -> Vec<T> {
        T::vec_from_le(self.bytes)
    }
}

impl<T: Prim + fmt::Debug> fmt::Debug for LeSlice<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}
