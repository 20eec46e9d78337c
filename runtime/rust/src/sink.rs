use alloc::vec::Vec;

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
