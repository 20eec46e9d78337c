use core::str;

use crate::le::{LeSlice, Prim};
use crate::{DecodeError, DecodeErrorKind};

/// A bounds-checked cursor over the input. Offsets in errors are positions in `bytes`.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    /// The whole input.
    bytes: &'a [u8],
    /// What is left of it to read: always a suffix of `bytes` (the position is
    /// `bytes.len() - rest.len()`). Kept as a slice so that each read checks one length,
    /// `n <= rest.len()`, where an offset needed two compares (`at <= len`, then
    /// `n <= len - at`) and a count's plausibility check and the read of its bytes one
    /// compare each that the optimizer folds into one.
    rest: &'a [u8],
    /// Bytes owned decoding may still allocate ([`Reader::with_budget`]; unlimited by
    /// default). Charged before each `Vec` or `String` is allocated.
    budget: usize,
    /// Where the arrays of views generated with `memory = "arena"` are allocated
    /// ([`Reader::with_arena`]).
    #[cfg(feature = "arena")]
    arena: Option<&'a crate::Arena>,
}

macro_rules! read_prim {
    ($($name:ident: $t:ty;)*) => {$(
        #[doc = concat!("Reads a little-endian `", stringify!($t), "`.")]
        #[inline]
        pub fn $name(&mut self) -> Result<$t, DecodeError> {
            Ok(<$t>::from_le_bytes(*self.fixed()?))
        }
    )*};
}

impl<'a> Reader<'a> {
    /// A reader at the start of `bytes`.
    #[inline]
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader {
            bytes,
            rest: bytes,
            budget: usize::MAX,
            #[cfg(feature = "arena")]
            arena: None,
        }
    }

    /// Limits what decoding through this reader may allocate to `bytes` in all (array
    /// storage and owned strings): for hosts that read from untrusted peers, where a
    /// legal input can still ask for far more memory than its own size (a long array of
    /// absent optional structs takes one input byte per element).
    #[inline]
    #[must_use]
    pub fn with_budget(mut self, bytes: usize) -> Reader<'a> {
        self.budget = bytes;
        self
    }

    /// Views generated with `memory = "arena"` (feature `arena`) allocate their arrays
    /// in `arena` instead of one `Vec` each; reset the arena between decodes to reuse its
    /// memory (the borrow checker makes sure no view outlives the reset).
    #[cfg(feature = "arena")]
    #[inline]
    #[must_use]
    pub fn with_arena(mut self, arena: &'a crate::Arena) -> Reader<'a> {
        self.arena = Some(arena);
        self
    }

    /// Room for `n` elements of `T` in the reader's arena, charged to the budget; fill
    /// it with [`crate::Slots::fill`]. Fails with [`DecodeErrorKind::NoArena`] when the
    /// reader has none (what generated arena views call for each array).
    #[cfg(feature = "arena")]
    #[inline]
    pub fn slots<T>(&mut self, n: usize) -> Result<crate::Slots<'a, T>, DecodeError> {
        self.charge_elements::<T>(n)?;
        match self.arena {
            Some(arena) => Ok(crate::Slots::new(arena, n)),
            None => Err(no_arena(self.position())),
        }
    }

    /// Takes `bytes` from the memory budget, or fails without taking anything.
    #[inline]
    pub fn charge(&mut self, bytes: usize) -> Result<(), DecodeError> {
        match self.budget.checked_sub(bytes) {
            Some(left) => {
                self.budget = left;
                Ok(())
            }
            None => Err(self.over_budget(bytes)),
        }
    }

    /// Charges `n` elements of `T` (their `size_of`) to the budget.
    #[inline(always)]
    fn charge_elements<T>(&mut self, n: usize) -> Result<(), DecodeError> {
        self.charge(n.saturating_mul(core::mem::size_of::<T>()))
    }

    #[cold]
    #[inline(never)]
    fn over_budget(&self, needed: usize) -> DecodeError {
        DecodeError::new(
            self.position(),
            DecodeErrorKind::OverBudget {
                needed,
                left: self.budget,
            },
        )
    }

    /// An empty `Vec` with room for `n` elements, charged to the budget.
    #[inline]
    pub fn vec<T>(&mut self, n: usize) -> Result<alloc::vec::Vec<T>, DecodeError> {
        self.charge_elements::<T>(n)?;
        Ok(alloc::vec::Vec::with_capacity(n))
    }

    /// Prepares `out` to take `n` elements read in place ([`crate::Decode::read_into`]):
    /// charged to the budget as [`Reader::vec`], the elements past `n` dropped, room for
    /// the rest reserved; the kept ones are to be read into, the others pushed.
    #[inline]
    pub fn vec_into<T>(&mut self, out: &mut alloc::vec::Vec<T>, n: usize) -> Result<(), DecodeError> {
        self.charge_elements::<T>(n)?;
        out.truncate(n);
        out.reserve(n - out.len());
        Ok(())
    }

    /// `s` (read) charged to the budget and copied into `out`'s buffer.
    #[inline(always)]
    fn string_into(&mut self, s: &str, out: &mut alloc::string::String) -> Result<(), DecodeError> {
        self.charge(s.len())?;
        out.clear();
        out.reserve(s.len());
        // SAFETY: after `reserve`, `out`'s buffer has room for `s.len()` bytes from its
        // start (it is empty), and cannot overlap `s` (borrowed from the input); copy_short
        // writes exactly those bytes, which are `s`'s: valid UTF-8 up to the new length.
        #[allow(unsafe_code)]
        unsafe {
            let v = out.as_mut_vec();
            crate::copy::copy_short(s.as_bytes(), v.as_mut_ptr());
            v.set_len(s.len());
        }
        Ok(())
    }

    /// `s` (read) charged to the budget and copied into `out`'s buffer.
    #[inline]
    fn prims_into<T: Prim>(&mut self, s: LeSlice<'a, T>, out: &mut alloc::vec::Vec<T>) -> Result<(), DecodeError> {
        self.charge_elements::<T>(s.len())?;
        out.clear();
        T::extend_from_le(out, s.as_bytes());
        Ok(())
    }

    /// An SDP string into an existing `String`, its buffer reused.
    #[inline(always)]
    pub fn string32_into(&mut self, out: &mut alloc::string::String) -> Result<(), DecodeError> {
        let s = self.str32()?;
        self.string_into(s, out)
    }

    /// An ffire string into an existing `String`, its buffer reused.
    #[inline(always)]
    pub fn string16_into(&mut self, out: &mut alloc::string::String) -> Result<(), DecodeError> {
        let s = self.str16()?;
        self.string_into(s, out)
    }

    /// An SDP array of primitives into an existing `Vec`, its buffer reused.
    #[inline]
    pub fn prims32_into<T: Prim>(&mut self, out: &mut alloc::vec::Vec<T>) -> Result<(), DecodeError> {
        let s = self.prims32::<T>()?;
        self.prims_into(s, out)
    }

    /// An ffire array of primitives into an existing `Vec`, its buffer reused.
    #[inline]
    pub fn prims16_into<T: Prim>(&mut self, out: &mut alloc::vec::Vec<T>) -> Result<(), DecodeError> {
        let s = self.prims16::<T>()?;
        self.prims_into(s, out)
    }

    /// An SDP string (u32 length + UTF-8) copied into a `String`, charged to the budget.
    #[inline(always)]
    pub fn string32(&mut self) -> Result<alloc::string::String, DecodeError> {
        let s = self.str32()?;
        self.charge(s.len())?;
        Ok(owned_string(s))
    }

    /// An ffire string (u16 length + UTF-8) copied into a `String`, charged to the budget.
    #[inline(always)]
    pub fn string16(&mut self) -> Result<alloc::string::String, DecodeError> {
        let s = self.str16()?;
        self.charge(s.len())?;
        Ok(owned_string(s))
    }

    /// An SDP string copied into a [`crate::CompactString`] (no allocation up to 24
    /// bytes), charged to the budget like [`Reader::string32`].
    #[cfg(feature = "compact-strings")]
    #[inline(always)]
    pub fn compact32(&mut self) -> Result<compact_str::CompactString, DecodeError> {
        let s = self.str32()?;
        self.charge(s.len())?;
        Ok(compact_str::CompactString::from(s))
    }

    /// An ffire string copied into a [`crate::CompactString`] (no allocation up to 24
    /// bytes), charged to the budget like [`Reader::string16`].
    #[cfg(feature = "compact-strings")]
    #[inline(always)]
    pub fn compact16(&mut self) -> Result<compact_str::CompactString, DecodeError> {
        let s = self.str16()?;
        self.charge(s.len())?;
        Ok(compact_str::CompactString::from(s))
    }

    /// `s` (read) charged to the budget and put into `out` ([`compact_assign`]).
    #[cfg(feature = "compact-strings")]
    #[inline(always)]
    fn compact_into(&mut self, s: &str, out: &mut compact_str::CompactString) -> Result<(), DecodeError> {
        self.charge(s.len())?;
        compact_assign(out, s);
        Ok(())
    }

    /// An SDP string into an existing [`crate::CompactString`] ([`compact_assign`]).
    #[cfg(feature = "compact-strings")]
    #[inline(always)]
    pub fn compact32_into(&mut self, out: &mut compact_str::CompactString) -> Result<(), DecodeError> {
        let s = self.str32()?;
        self.compact_into(s, out)
    }

    /// An ffire string into an existing [`crate::CompactString`] ([`compact_assign`]).
    #[cfg(feature = "compact-strings")]
    #[inline(always)]
    pub fn compact16_into(&mut self, out: &mut compact_str::CompactString) -> Result<(), DecodeError> {
        let s = self.str16()?;
        self.compact_into(s, out)
    }

    /// An SDP array of primitives (u32 count) copied into a `Vec`, charged to the budget.
    #[inline]
    pub fn prims32_vec<T: Prim>(&mut self) -> Result<alloc::vec::Vec<T>, DecodeError> {
        let s = self.prims32::<T>()?;
        self.charge_elements::<T>(s.len())?;
        Ok(s.to_vec())
    }

    /// An ffire array of primitives (u16 count) copied into a `Vec`, charged to the budget.
    #[inline]
    pub fn prims16_vec<T: Prim>(&mut self) -> Result<alloc::vec::Vec<T>, DecodeError> {
        let s = self.prims16::<T>()?;
        self.charge_elements::<T>(s.len())?;
        Ok(s.to_vec())
    }

    /// A reader over `bytes` starting at `at` (clamped to the end).
    #[inline]
    pub fn at(bytes: &'a [u8], at: usize) -> Reader<'a> {
        Reader {
            bytes,
            rest: bytes.get(at..).unwrap_or_default(),
            budget: usize::MAX,
            #[cfg(feature = "arena")]
            arena: None,
        }
    }

    /// Current offset.
    #[inline]
    pub fn position(&self) -> usize {
        self.bytes.len() - self.rest.len()
    }

    /// Bytes left.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.rest.len()
    }

    /// Errors unless every byte was used.
    #[inline]
    pub fn finish(&self) -> Result<(), DecodeError> {
        match self.remaining() {
            0 => Ok(()),
            n => Err(DecodeError::new(self.position(), DecodeErrorKind::TrailingBytes(n))),
        }
    }

    #[cold]
    #[inline(never)]
    fn end(&self, needed: usize) -> DecodeError {
        DecodeError::new(
            self.position(),
            DecodeErrorKind::UnexpectedEnd {
                needed,
                left: self.remaining(),
            },
        )
    }

    /// The next `n` bytes.
    #[inline]
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        match self.rest.split_at_checked(n) {
            Some((s, rest)) => {
                self.rest = rest;
                Ok(s)
            }
            None => Err(self.end(n)),
        }
    }

    /// The next `N` bytes as an array reference: one bounds check for a whole fixed
    /// block.
    #[inline]
    pub fn fixed<const N: usize>(&mut self) -> Result<&'a [u8; N], DecodeError> {
        match self.rest.split_first_chunk::<N>() {
            Some((s, rest)) => {
                self.rest = rest;
                Ok(s)
            }
            None => Err(self.end(N)),
        }
    }

    read_prim! {
        u8: u8; u16: u16; u32: u32; u64: u64;
        i8: i8; i16: i16; i32: i32; i64: i64;
        f32: f32; f64: f64;
    }

    /// A strict `bool`: 00 or 01.
    #[inline]
    pub fn bool(&mut self) -> Result<bool, DecodeError> {
        let at = self.position();
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(DecodeError::new(at, DecodeErrorKind::InvalidBool(b))),
        }
    }

    /// A strict presence byte: 00 (absent) or 01 (present).
    #[inline]
    pub fn presence(&mut self) -> Result<bool, DecodeError> {
        let at = self.position();
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(DecodeError::new(at, DecodeErrorKind::InvalidPresence(b))),
        }
    }

    #[inline]
    fn plausible(&mut self, start: usize, count: u64, min_each: usize) -> Result<usize, DecodeError> {
        let left = self.remaining();
        let each = min_each.max(1) as u64;
        match count.checked_mul(each) {
            Some(total) if total <= left as u64 => Ok(count as usize),
            _ => Err(self.implausible(start, count, min_each)),
        }
    }

    #[cold]
    #[inline(never)]
    fn implausible(&mut self, start: usize, count: u64, min_each: usize) -> DecodeError {
        let left = self.remaining();
        self.rest = self.bytes.get(start..).unwrap_or_default();
        DecodeError::new(start, DecodeErrorKind::ImplausibleCount { count, min_each, left })
    }

    /// An SDP count/length prefix (u32), plausible for elements of at least
    /// `min_each` bytes (spec §4.3).
    #[inline]
    pub fn count32(&mut self, min_each: usize) -> Result<usize, DecodeError> {
        let start = self.position();
        let n = self.u32()?;
        self.plausible(start, n.into(), min_each)
    }

    /// An ffire count/length prefix (u16), plausible for elements of at least
    /// `min_each` bytes.
    #[inline]
    pub fn count16(&mut self, min_each: usize) -> Result<usize, DecodeError> {
        let start = self.position();
        let n = self.u16()?;
        self.plausible(start, n.into(), min_each)
    }

    /// `n` bytes of UTF-8: ASCII (nearly every schema string) is recognised a word at a
    /// time, anything else goes through `str::from_utf8` (see [`ascii_str`]).
    #[inline(always)]
    fn utf8(&mut self, start: usize, n: usize) -> Result<&'a str, DecodeError> {
        let b = self.take(n)?;
        if let Some(s) = ascii_str(b) {
            return Ok(s);
        }
        utf8_slow(b, start)
    }

    /// An SDP string: u32 byte length + UTF-8.
    #[inline(always)]
    pub fn str32(&mut self) -> Result<&'a str, DecodeError> {
        let n = self.count32(1)?;
        let start = self.position();
        self.utf8(start, n)
    }

    /// An ffire string: u16 byte length + UTF-8.
    #[inline(always)]
    pub fn str16(&mut self) -> Result<&'a str, DecodeError> {
        let n = self.count16(1)?;
        let start = self.position();
        self.utf8(start, n)
    }

    #[inline]
    fn prims<T: Prim>(&mut self, n: usize) -> Result<LeSlice<'a, T>, DecodeError> {
        let start = self.position();
        let b = self.take(n * T::SIZE)?;
        match LeSlice::new(b) {
            Some(s) => Ok(s),
            None => Err(bad_prims::<T>(start, b)),
        }
    }

    /// An SDP array of primitives (u32 count), as a zero-copy view.
    #[inline]
    pub fn prims32<T: Prim>(&mut self) -> Result<LeSlice<'a, T>, DecodeError> {
        let n = self.count32(T::SIZE)?;
        self.prims(n)
    }

    /// An ffire array of primitives (u16 count), as a zero-copy view.
    #[inline]
    pub fn prims16<T: Prim>(&mut self) -> Result<LeSlice<'a, T>, DecodeError> {
        let n = self.count16(T::SIZE)?;
        self.prims(n)
    }
}

/// `b` as a `str` when every byte is ASCII, checked with overlapping 8-byte loads.
///
/// Why not `str::from_utf8` alone: on short strings (the common case, ~16 B) it walks
/// byte by byte to an aligned address before its word loop and is an out-of-line call;
/// it was 36–47 % of view decoding in the profiles (docs/benchmarks/history.md, "#14 Rust").
#[inline(always)]
#[allow(unsafe_code)]
pub(crate) fn ascii_str(b: &[u8]) -> Option<&str> {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let n = b.len();
    let ascii = if n >= 8 {
        let (words, _) = b.as_chunks::<8>();
        let mut acc = 0u64;
        for w in words {
            acc |= u64::from_ne_bytes(*w);
        }
        // The last 8 bytes (overlapping the last whole word) cover the tail.
        if let Some(last) = b.last_chunk::<8>() {
            acc |= u64::from_ne_bytes(*last);
        }
        acc & HIGH == 0
    } else if n >= 4 {
        match (b.first_chunk::<4>(), b.last_chunk::<4>()) {
            (Some(a), Some(z)) => (u32::from_ne_bytes(*a) | u32::from_ne_bytes(*z)) & 0x8080_8080 == 0,
            _ => false,
        }
    } else {
        b.iter().fold(0u8, |acc, &x| acc | x) < 0x80
    };
    if !ascii {
        return None;
    }
    // SAFETY: every byte of `b` is below 0x80 (checked just above), and a sequence of
    // ASCII bytes is valid UTF-8. This is the runtime's only `unsafe`: the safe
    // `str::from_utf8` would validate the same bytes a second time.
    Some(unsafe { str::from_utf8_unchecked(b) })
}

/// Non-ASCII strings: full validation.
#[inline(never)]
fn utf8_slow(b: &[u8], start: usize) -> Result<&str, DecodeError> {
    match str::from_utf8(b) {
        Ok(s) => Ok(s),
        Err(e) => Err(bad_utf8(start + e.valid_up_to())),
    }
}

/// A view that needs an arena was decoded without one.
#[cold]
#[inline(never)]
pub(crate) fn no_arena(at: usize) -> DecodeError {
    DecodeError::new(at, DecodeErrorKind::NoArena)
}

#[cold]
#[inline(never)]
fn bad_utf8(at: usize) -> DecodeError {
    DecodeError::new(at, DecodeErrorKind::InvalidUtf8)
}

/// The first invalid element of a primitive array (only `bool` has invalid encodings).
#[cold]
#[inline(never)]
fn bad_prims<T: Prim>(start: usize, b: &[u8]) -> DecodeError {
    let bad = b.chunks_exact(T::SIZE).position(|c| !T::valid(c)).unwrap_or(0);
    DecodeError::new(
        start + bad * T::SIZE,
        DecodeErrorKind::InvalidBool(b.get(bad * T::SIZE).copied().unwrap_or(0)),
    )
    .index(bad)
}

/// `s` in a new exact-size `String`, copied with fixed-width moves ([`crate::copy::copy_short`])
/// where `String::from` calls libc `memcpy` (one call per string of a decoded value).
#[inline(always)]
fn owned_string(s: &str) -> alloc::string::String {
    let mut v = alloc::vec::Vec::<u8>::with_capacity(s.len());
    // SAFETY: `v` has room for `s.len()` bytes and cannot overlap `s` (a new allocation);
    // copy_short writes exactly `v[..s.len()]` with `s`'s bytes, so they are initialized
    // and valid UTF-8 (`s` is a `str`).
    #[allow(unsafe_code)]
    unsafe {
        crate::copy::copy_short(s.as_bytes(), v.as_mut_ptr());
        v.set_len(s.len());
        alloc::string::String::from_utf8_unchecked(v)
    }
}

/// `s` into `out`: built anew when it fits inline (24 bytes: `clear` + `push_str` made the
/// AudioUnit decode into a reused value 2x slower than building each string anew), else
/// into the heap buffer `out` already has when it is large enough.
#[cfg(feature = "compact-strings")]
#[inline(always)]
fn compact_assign(out: &mut compact_str::CompactString, s: &str) {
    if s.len() <= core::mem::size_of::<compact_str::CompactString>() || out.capacity() < s.len() {
        *out = compact_str::CompactString::from(s);
    } else {
        out.clear();
        out.push_str(s);
    }
}
