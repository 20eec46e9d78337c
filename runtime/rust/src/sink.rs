use alloc::vec::Vec;
use core::ptr;

use crate::le::Prim;
use crate::{EncodeError, EncodeErrorKind, FFI_MAX_LEN};

/// Where encoders write: `Vec<u8>` (appends; reuse one buffer to avoid allocation) or a
/// [`SliceSink`] over a caller buffer.
pub trait Sink {
    /// Appends bytes.
    fn put(&mut self, bytes: &[u8]);

    /// Bytes written so far (for error offsets).
    fn written(&self) -> usize;

    /// Appends one byte.
    #[inline]
    fn put_u8(&mut self, b: u8) {
        self.put(&[b]);
    }

    /// Appends one primitive, little-endian.
    #[inline]
    fn put_prim<T: Prim>(&mut self, v: T) {
        self.put(v.to_le().as_ref());
    }

    /// Appends primitives, little-endian, without a prefix: one copy of the array where
    /// the host is little-endian ([`Prim::as_le_bytes`]).
    #[inline]
    fn put_prims<T: Prim>(&mut self, vs: &[T]) {
        match T::as_le_bytes(vs) {
            Some(b) => self.put(b),
            None => {
                for v in vs {
                    self.put(v.to_le().as_ref());
                }
            }
        }
    }

    /// An SDP length/count prefix (u32); refuses lengths above `u32::MAX`.
    #[inline]
    fn len32(&mut self, n: usize) -> Result<(), EncodeError> {
        match u32::try_from(n) {
            Ok(n) => {
                self.put(&n.to_le_bytes());
                Ok(())
            }
            Err(_) => Err(self.too_long(n, u32::MAX as usize)),
        }
    }

    /// An ffire length/count prefix (u16); refuses lengths above 65,535 (upstream
    /// silently truncates them).
    #[inline]
    fn len16(&mut self, n: usize) -> Result<(), EncodeError> {
        match u16::try_from(n) {
            Ok(n) => {
                self.put(&n.to_le_bytes());
                Ok(())
            }
            Err(_) => Err(self.too_long(n, FFI_MAX_LEN)),
        }
    }

    /// An SDP string.
    #[inline]
    fn str32(&mut self, s: &str) -> Result<(), EncodeError> {
        self.len32(s.len())?;
        self.put(s.as_bytes());
        Ok(())
    }

    /// An ffire string.
    #[inline]
    fn str16(&mut self, s: &str) -> Result<(), EncodeError> {
        self.len16(s.len())?;
        self.put(s.as_bytes());
        Ok(())
    }

    /// An error for a too-long string or array at the current position.
    #[cold]
    fn too_long(&self, len: usize, max: usize) -> EncodeError {
        EncodeError {
            offset: self.written(),
            kind: EncodeErrorKind::TooLong { len, max },
        }
    }
}

impl Sink for Vec<u8> {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }

    #[inline]
    fn written(&self) -> usize {
        self.len()
    }

    #[inline]
    fn put_u8(&mut self, b: u8) {
        self.push(b);
    }

    #[inline]
    fn put_prims<T: Prim>(&mut self, vs: &[T]) {
        T::extend_le(vs, self);
    }
}

/// A sink over a caller buffer. Writing past the end never panics: the sink records
/// the overflow and [`SliceSink::finish`] reports it (generated code checks the exact
/// size first, so this is a second line of defence).
#[derive(Debug)]
pub struct SliceSink<'a> {
    buf: &'a mut [u8],
    at: usize,
    overflow: bool,
}

impl<'a> SliceSink<'a> {
    /// A sink writing from the start of `buf`.
    pub fn new(buf: &'a mut [u8]) -> SliceSink<'a> {
        SliceSink {
            buf,
            at: 0,
            overflow: false,
        }
    }

    /// Bytes written, or an error if the buffer was too small.
    pub fn finish(self) -> Result<usize, EncodeError> {
        if self.overflow {
            return Err(EncodeError {
                offset: self.buf.len(),
                kind: EncodeErrorKind::BufferTooSmall {
                    needed: self.at,
                    available: self.buf.len(),
                },
            });
        }
        Ok(self.at)
    }
}

impl Sink for SliceSink<'_> {
    #[inline]
    fn put_prims<T: Prim>(&mut self, vs: &[T]) {
        let end = self.at.saturating_add(vs.len().saturating_mul(T::SIZE));
        match self.buf.get_mut(self.at..end) {
            Some(dst) => T::write_le(vs, dst),
            None => self.overflow = true,
        }
        self.at = end;
    }

    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        let end = self.at.saturating_add(bytes.len());
        match self.buf.get_mut(self.at..end) {
            Some(dst) => dst.copy_from_slice(bytes),
            None => self.overflow = true,
        }
        self.at = end;
    }

    #[inline]
    fn written(&self) -> usize {
        self.at
    }
}

/// Copies `src` to `dst` with fixed-width loads and stores: two overlapping 8- (or 4-, 16-)
/// byte copies for a short string instead of a call to libc `memcpy` (the calls were about
/// half of encoding in the profiles: schema strings average ~16 B). Constant lengths fold
/// to one store after inlining.
///
/// # Safety
/// `dst` must be valid for writes of `src.len()` bytes and must not overlap `src`.
#[inline(always)]
#[allow(unsafe_code)]
unsafe fn copy_short(src: &[u8], dst: *mut u8) {
    let n = src.len();
    let s = src.as_ptr();
    // SAFETY (every branch): each load reads inside `src` (offsets `0` and `n - k` with
    // `k <= n`) and each store writes inside `dst[..n]`, which the caller guarantees.
    unsafe {
        if n >= 33 {
            ptr::copy_nonoverlapping(s, dst, n);
        } else if n >= 16 {
            let a = ptr::read_unaligned(s.cast::<u128>());
            let z = ptr::read_unaligned(s.add(n - 16).cast::<u128>());
            ptr::write_unaligned(dst.cast::<u128>(), a);
            ptr::write_unaligned(dst.add(n - 16).cast::<u128>(), z);
        } else if n >= 8 {
            let a = ptr::read_unaligned(s.cast::<u64>());
            let z = ptr::read_unaligned(s.add(n - 8).cast::<u64>());
            ptr::write_unaligned(dst.cast::<u64>(), a);
            ptr::write_unaligned(dst.add(n - 8).cast::<u64>(), z);
        } else if n >= 4 {
            let a = ptr::read_unaligned(s.cast::<u32>());
            let z = ptr::read_unaligned(s.add(n - 4).cast::<u32>());
            ptr::write_unaligned(dst.cast::<u32>(), a);
            ptr::write_unaligned(dst.add(n - 4).cast::<u32>(), z);
        } else if n > 0 {
            // 1–3 bytes: first, middle and last (they coincide when shorter).
            *dst = *s;
            *dst.add(n / 2) = *s.add(n / 2);
            *dst.add(n - 1) = *s.add(n - 1);
        }
    }
}

/// The write position of a [`VecSink`].
#[derive(Debug, Clone, Copy)]
struct Cursor {
    ptr: *mut u8,
    at: usize,
    cap: usize,
}

/// The sink behind [`crate::Message::encode`], `to_bytes` and `encode_message`: appends
/// to a `Vec<u8>` through a cursor, writing into the spare capacity with [`copy_short`]
/// instead of `extend_from_slice` (a capacity check that may reallocate, then a libc
/// call, per field). No size pass is needed first. Every write is still checked against the
/// capacity (one compare; growing is the cold path), so a wrong `encoded_size` cannot
/// write out of bounds.
///
/// Invariant: `vec.len() <= cur.at <= cur.cap == vec.capacity()`,
/// `cur.ptr == vec.as_mut_ptr()`, and the allocation's bytes `[0, cur.at)` are
/// initialized (those below `vec.len()` were already; `[vec.len(), cur.at)` were written
/// by this sink, contiguously). When the sink is dropped they become the vector's
/// contents.
#[derive(Debug)]
pub(crate) struct VecSink<'v> {
    vec: &'v mut Vec<u8>,
    cur: Cursor,
}

impl<'v> VecSink<'v> {
    /// A sink appending to `vec` (its contents are kept). The bytes written become part
    /// of `vec` when the sink is dropped.
    #[inline(always)]
    pub(crate) fn new(vec: &'v mut Vec<u8>) -> VecSink<'v> {
        let cur = Cursor {
            ptr: vec.as_mut_ptr(),
            at: vec.len(),
            cap: vec.capacity(),
        };
        VecSink { vec, cur }
    }

    /// Makes room for `n` more bytes at `at` (the cold path: a reused buffer that is
    /// large enough never gets here).
    #[cold]
    #[inline(never)]
    #[allow(unsafe_code)]
    fn grow(&mut self, n: usize) {
        // SAFETY: `at <= capacity` and bytes `[0, at)` are initialized (the invariant),
        // so they become the vector's contents and survive the reallocation.
        unsafe { self.vec.set_len(self.cur.at) };
        self.vec.reserve(n);
        self.cur.cap = self.vec.capacity();
        self.cur.ptr = self.vec.as_mut_ptr();
    }
}

impl Drop for VecSink<'_> {
    #[inline(always)]
    #[allow(unsafe_code)]
    fn drop(&mut self) {
        // SAFETY: `at <= capacity` and bytes `[0, at)` are initialized (the invariant).
        unsafe { self.vec.set_len(self.cur.at) };
    }
}

impl VecSink<'_> {
    /// A length prefix and a string with one capacity check and one cursor update (the
    /// cursor lives in memory between writes, so each update is a store-to-load round
    /// trip on the critical path).
    #[inline(always)]
    #[allow(unsafe_code)]
    fn prefixed<const P: usize>(&mut self, prefix: [u8; P], bytes: &[u8]) {
        let n = bytes.len();
        if P + n > self.cur.cap - self.cur.at {
            self.grow(P + n);
        }
        // SAFETY: `at + P + n <= cap` (checked just above, `grow` makes room), so both
        // copies stay inside the allocation; `bytes` is a shared borrow, so it cannot
        // overlap the vector we hold mutably. Afterwards `[0, at + P + n)` is initialized.
        unsafe {
            let dst = self.cur.ptr.add(self.cur.at);
            copy_short(&prefix, dst);
            copy_short(bytes, dst.add(P));
        }
        self.cur.at += P + n;
    }
}

impl Sink for VecSink<'_> {
    #[inline(always)]
    fn str32(&mut self, s: &str) -> Result<(), EncodeError> {
        match u32::try_from(s.len()) {
            Ok(n) => {
                self.prefixed(n.to_le_bytes(), s.as_bytes());
                Ok(())
            }
            Err(_) => Err(self.too_long(s.len(), u32::MAX as usize)),
        }
    }

    #[inline(always)]
    fn str16(&mut self, s: &str) -> Result<(), EncodeError> {
        match u16::try_from(s.len()) {
            Ok(n) => {
                self.prefixed(n.to_le_bytes(), s.as_bytes());
                Ok(())
            }
            Err(_) => Err(self.too_long(s.len(), FFI_MAX_LEN)),
        }
    }

    #[inline(always)]
    #[allow(unsafe_code)]
    fn put(&mut self, bytes: &[u8]) {
        let n = bytes.len();
        if n > self.cur.cap - self.cur.at {
            self.grow(n);
        }
        // SAFETY: `at + n <= cap` (checked just above, `grow` makes room), so the bytes
        // `[at, at + n)` lie inside the allocation; `bytes` is a shared borrow, so it
        // cannot overlap the vector we hold mutably. Afterwards `[0, at + n)` is initialized.
        unsafe { copy_short(bytes, self.cur.ptr.add(self.cur.at)) };
        self.cur.at += n;
    }

    #[inline(always)]
    fn written(&self) -> usize {
        self.cur.at
    }
}
