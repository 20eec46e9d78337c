use alloc::vec::Vec;
use core::marker::PhantomData;
use core::mem::MaybeUninit;
use core::ptr;

use crate::copy::copy_short;
use crate::le::Prim;
use crate::{EncodeError, EncodeErrorKind, Message, FFI_MAX_LEN};

/// Where generated encoders write: a window of memory (a vector's spare capacity or a
/// caller's buffer), passed **by value** into each generated `write_to` and returned from it.
///
/// Why by value: a writer behind a reference lives in memory, and the compiler cannot prove
/// that the output bytes do not alias it, so its position was stored and reloaded around
/// every output store (the profile of session 2). Two pointers by value are two registers:
/// a local the optimizer keeps out of memory, as the C emitter's cursor.
///
/// Every write is checked against the window (one compare; a failed check puts the writer
/// in its overflow state, which the entry points in [`Message`] notice and answer by
/// growing the vector and writing again), so a wrong `encoded_size` cannot write out of
/// bounds. Only the runtime creates writers, so the window is always one the caller lent
/// for `'w`.
///
/// Invariant: `start <= pos <= end` within one allocation that is exclusively borrowed for
/// `'w` (`start` being where the writer was created), and `[start, pos)` has been written
/// by this writer, contiguously; or `pos == end == null` after an overflow.
#[derive(Debug)]
pub struct Writer<'w> {
    pos: *mut u8,
    end: *mut u8,
    _buf: PhantomData<&'w mut [MaybeUninit<u8>]>,
}

/// What `write_to` returns: the writer after the value, or why it cannot be encoded.
pub type Written<'w> = Result<Writer<'w>, EncodeError>;

impl<'w> Writer<'w> {
    /// A writer over uninitialised memory (a vector's spare capacity).
    #[inline(always)]
    pub(crate) fn new(buf: &'w mut [MaybeUninit<u8>]) -> Writer<'w> {
        let r = buf.as_mut_ptr_range();
        Writer {
            pos: r.start.cast(),
            end: r.end.cast(),
            _buf: PhantomData,
        }
    }

    /// A writer over a caller's buffer.
    #[inline(always)]
    pub(crate) fn over(buf: &'w mut [u8]) -> Writer<'w> {
        let r = buf.as_mut_ptr_range();
        Writer {
            pos: r.start,
            end: r.end,
            _buf: PhantomData,
        }
    }

    /// Bytes written since `start` (the address of the buffer the writer was made over),
    /// or `None` if a write did not fit.
    #[inline(always)]
    pub(crate) fn written(self, start: usize) -> Option<usize> {
        if self.end.is_null() {
            None
        } else {
            Some((self.pos as usize).wrapping_sub(start))
        }
    }

    /// Room left (0 after an overflow).
    #[inline(always)]
    fn room(&self) -> usize {
        (self.end as usize).wrapping_sub(self.pos as usize)
    }

    /// A write that did not fit: nothing more will be written.
    #[inline(always)]
    fn overflow(&mut self) {
        self.pos = ptr::null_mut();
        self.end = ptr::null_mut();
    }

    /// Appends bytes.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub fn put(&mut self, bytes: &[u8]) {
        let n = bytes.len();
        if n > self.room() {
            self.overflow();
            return;
        }
        // SAFETY: `n <= end - pos`, so `[pos, pos + n)` lies inside the window (the
        // invariant); `bytes` is a shared borrow, so it cannot overlap the window we hold
        // exclusively. Afterwards `[start, pos + n)` is written.
        unsafe { copy_short(bytes, self.pos) };
        self.pos = self.pos.wrapping_add(n);
    }

    /// A length prefix and a string with one room check.
    #[inline(always)]
    #[allow(unsafe_code)]
    fn prefixed<const P: usize>(&mut self, prefix: [u8; P], bytes: &[u8]) {
        let n = bytes.len();
        // `n <= isize::MAX` (a slice length), so `P + n` cannot wrap.
        if P + n > self.room() {
            self.overflow();
            return;
        }
        // SAFETY: as in `put`, for `P + n` bytes.
        unsafe {
            copy_short(&prefix, self.pos);
            copy_short(bytes, self.pos.add(P));
        }
        self.pos = self.pos.wrapping_add(P + n);
    }

    /// Appends one byte.
    #[inline(always)]
    pub fn put_u8(&mut self, b: u8) {
        self.put(&[b]);
    }

    /// Appends one primitive, little-endian.
    #[inline(always)]
    pub fn put_prim<T: Prim>(&mut self, v: T) {
        self.put(v.to_le().as_ref());
    }

    /// Appends primitives, little-endian, without a prefix: one copy of the array where the
    /// host is little-endian ([`Prim::as_le_bytes`]).
    #[inline(always)]
    pub fn put_prims<T: Prim>(&mut self, vs: &[T]) {
        match T::as_le_bytes(vs) {
            Some(b) => self.put(b),
            None => {
                for v in vs {
                    self.put(v.to_le().as_ref());
                }
            }
        }
    }

    /// An array of primitives with its count prefix (`P` bytes, already checked against
    /// the wire's maximum): one room check for both where the host is little-endian.
    #[inline(always)]
    fn prefixed_prims<T: Prim, const P: usize>(&mut self, prefix: [u8; P], vs: &[T]) {
        match T::as_le_bytes(vs) {
            Some(b) => self.prefixed(prefix, b),
            None => {
                self.put(&prefix);
                self.put_prims(vs);
            }
        }
    }

    /// An SDP array of primitives: u32 count, then the elements (what `len32` and
    /// `put_prims` write, with one room check); refuses counts above `u32::MAX`.
    #[inline(always)]
    pub fn prims32<T: Prim>(&mut self, vs: &[T]) -> Result<(), EncodeError> {
        match u32::try_from(vs.len()) {
            Ok(n) => {
                self.prefixed_prims(n.to_le_bytes(), vs);
                Ok(())
            }
            Err(_) => Err(too_long(self.pos, vs.len(), u32::MAX as usize)),
        }
    }

    /// An ffire array of primitives: u16 count, then the elements (what `len16` and
    /// `put_prims` write, with one room check); refuses counts above 65,535.
    #[inline(always)]
    pub fn prims16<T: Prim>(&mut self, vs: &[T]) -> Result<(), EncodeError> {
        match u16::try_from(vs.len()) {
            Ok(n) => {
                self.prefixed_prims(n.to_le_bytes(), vs);
                Ok(())
            }
            Err(_) => Err(too_long(self.pos, vs.len(), FFI_MAX_LEN)),
        }
    }

    /// An SDP length/count prefix (u32); refuses lengths above `u32::MAX`.
    #[inline(always)]
    pub fn len32(&mut self, n: usize) -> Result<(), EncodeError> {
        match u32::try_from(n) {
            Ok(n) => {
                self.put(&n.to_le_bytes());
                Ok(())
            }
            Err(_) => Err(too_long(self.pos, n, u32::MAX as usize)),
        }
    }

    /// An ffire length/count prefix (u16); refuses lengths above 65,535 (upstream
    /// silently truncates them).
    #[inline(always)]
    pub fn len16(&mut self, n: usize) -> Result<(), EncodeError> {
        match u16::try_from(n) {
            Ok(n) => {
                self.put(&n.to_le_bytes());
                Ok(())
            }
            Err(_) => Err(too_long(self.pos, n, FFI_MAX_LEN)),
        }
    }

    /// An SDP string.
    #[inline(always)]
    pub fn str32(&mut self, s: &str) -> Result<(), EncodeError> {
        match u32::try_from(s.len()) {
            Ok(n) => {
                self.prefixed(n.to_le_bytes(), s.as_bytes());
                Ok(())
            }
            Err(_) => Err(too_long(self.pos, s.len(), u32::MAX as usize)),
        }
    }

    /// An ffire string.
    #[inline(always)]
    pub fn str16(&mut self, s: &str) -> Result<(), EncodeError> {
        match u16::try_from(s.len()) {
            Ok(n) => {
                self.prefixed(n.to_le_bytes(), s.as_bytes());
                Ok(())
            }
            Err(_) => Err(too_long(self.pos, s.len(), FFI_MAX_LEN)),
        }
    }
}

/// A too-long string or array at `at`. The offset holds the address until the entry point
/// ([`append`], [`write_into`]) turns it into an offset in the output (taking the writer by
/// value here, rather than `&self`, keeps the writer out of memory).
#[cold]
#[inline(never)]
fn too_long(at: *mut u8, len: usize, max: usize) -> EncodeError {
    EncodeError {
        offset: at as usize,
        kind: EncodeErrorKind::TooLong { len, max },
    }
}

/// Appends `m`'s encoding to `out` (its contents are kept): writes into the spare capacity;
/// if that is too small, reserves `encoded_size` (or twice the room, for a type whose
/// `encoded_size` is wrong) and writes again. On error `out` is unchanged.
#[allow(unsafe_code)]
pub(crate) fn append<M: Message>(m: &M, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    let start = out.len();
    loop {
        let spare = out.spare_capacity_mut();
        let (base, room) = (spare.as_ptr() as usize, spare.len());
        match m.write_to(Writer::new(spare)) {
            Ok(w) => {
                if let Some(n) = w.written(base) {
                    // SAFETY: `n <= room`, and the writer wrote `[start, start + n)` (its
                    // invariant), so those bytes are initialized.
                    unsafe { out.set_len(start + n) };
                    return Ok(());
                }
            }
            Err(mut e) => {
                let at = e.offset.wrapping_sub(base);
                // Past the room: the writer had overflowed, so the offset is not where the
                // error is; write again with room (below) to find it.
                if at <= room {
                    e.offset = start + at;
                    return Err(e);
                }
            }
        }
        let size = m.encoded_size();
        out.reserve(if size > room {
            size
        } else {
            room.saturating_mul(2).max(64)
        });
    }
}

/// Writes `m`'s encoding to the start of `buf`; the bytes written.
pub(crate) fn write_into<M: Message>(m: &M, buf: &mut [u8]) -> Result<usize, EncodeError> {
    let (base, room) = (buf.as_ptr() as usize, buf.len());
    let too_small = || EncodeError::buffer_too_small(m.encoded_size().max(room + 1), room);
    match m.write_to(Writer::over(buf)) {
        Ok(w) => w.written(base).ok_or_else(too_small),
        Err(mut e) => {
            let at = e.offset.wrapping_sub(base);
            if at > room {
                return Err(too_small());
            }
            e.offset = at;
            Err(e)
        }
    }
}
