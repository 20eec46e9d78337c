//! The shared API of generated types, in the way `prost::Message` does it: generated
//! code implements the few per-type methods ([`Decode::read_from`],
//! [`Message::encoded_size`], [`Message::write_to`], [`SdpMessage::MESSAGE_ID`],
//! [`Dispatch`]'s per-variant matches) and every entry point built on them is a default
//! method here, written once. Bring the traits into scope to call them:
//! `use wirelens_runtime::{Message, SdpMessage};`.

use alloc::vec::Vec;

use crate::sdp::{self, HEADER_LEN};
use crate::sink::{append, write_into};
use crate::{DecodeError, EncodeError, Reader, Writer, Written};

/// A value read from the input: an owned generated type (for every `'a`) or the
/// zero-copy view of one (borrowing `'a`).
pub trait Decode<'a>: Sized {
    /// Reads one value at the reader's position (the building block of every decode).
    fn read_from(rd: &mut Reader<'a>) -> Result<Self, DecodeError>;

    /// Reads one value into `self`, reusing its storage where it can: generated owned
    /// types keep their `String`s' and `Vec`s' capacity and the elements they keep (the
    /// building block of [`Message::decode_into`]). On error `self` holds an unspecified
    /// but valid value. By default, a fresh [`Decode::read_from`].
    #[inline]
    fn read_into(&mut self, rd: &mut Reader<'a>) -> Result<(), DecodeError> {
        *self = Self::read_from(rd)?;
        Ok(())
    }
}

/// A generated value type: a struct, or an ffire root.
pub trait Message: Sized + for<'a> Decode<'a> {
    /// The zero-copy view (`FooView<'a>`), or `Self` when the type holds no strings or
    /// arrays.
    type View<'a>: Decode<'a>
    where
        Self: 'a;

    /// The view allocates its arrays in an arena (code generated with `[generate.rust]
    /// memory = "arena"`): decode it with `decode_view_in` (feature `arena`); the
    /// arena-less `decode_view*` refuse it with [`crate::DecodeErrorKind::NoArena`],
    /// whatever the input.
    const VIEW_IN_ARENA: bool = false;

    /// The exact encoded size in bytes.
    fn encoded_size(&self) -> usize;

    /// Writes the encoding at the writer's position and returns the writer (the building
    /// block of every encode; the writer goes by value so that it stays in registers).
    fn write_to<'w>(&self, w: Writer<'w>) -> Written<'w>;

    /// Appends the encoding to `out` (reuse one buffer: no allocation once it is large
    /// enough). On error `out` is left as it was.
    #[inline]
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        // The size pass only for a vector without spare room (a new one: one exact
        // allocation); a reused buffer skips it, and the writer checks the room as it
        // goes (too little: the size pass, then writing again, is the cold path).
        if out.capacity() == out.len() {
            out.reserve(self.encoded_size());
        }
        append(self, out)
    }

    /// Encodes into the start of `buf`; returns the bytes written. Refuses a buffer
    /// smaller than [`Message::encoded_size`] (`BufferTooSmall`); on any error, what
    /// `buf` holds is unspecified (the bytes that fitted may have been written).
    #[inline]
    fn encode_into(&self, buf: &mut [u8]) -> Result<usize, EncodeError> {
        // No size pass up front: the writer checks the room as it goes, and only a write
        // that does not fit costs `encoded_size` (for the error). The pass was about a
        // quarter of encoding the 141-byte SDP record (summing its strings' lengths).
        write_into(self, buf)
    }

    /// The encoding in a new, exactly sized `Vec`.
    #[inline]
    fn to_bytes(&self) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::with_capacity(self.encoded_size());
        append(self, &mut out)?;
        Ok(out)
    }

    /// Decodes exactly one value; trailing bytes are an error.
    #[inline]
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        read_all(Reader::new(bytes))
    }

    /// Decodes one value from the start of `bytes`; returns it and the bytes used.
    #[inline]
    fn decode_prefix(bytes: &[u8]) -> Result<(Self, usize), DecodeError> {
        read_prefix(Reader::new(bytes))
    }

    /// [`Message::decode`] into `self`, reusing its storage: each `String` and `Vec` keeps
    /// its capacity, and so do the elements a `Vec` keeps (those past a shorter record's
    /// count are dropped), so a loop that decodes records of one type into one value
    /// allocates only for what the value does not already hold: none at all for
    /// same-shaped records, fit for a real-time thread. On error `self` holds an
    /// unspecified but valid value.
    #[inline]
    fn decode_into(&mut self, bytes: &[u8]) -> Result<(), DecodeError> {
        let mut rd = Reader::new(bytes);
        self.read_into(&mut rd)?;
        rd.finish()
    }

    /// [`Message::decode_prefix`] into `self` (see [`Message::decode_into`]); the bytes
    /// used.
    #[inline]
    fn decode_prefix_into(&mut self, bytes: &[u8]) -> Result<usize, DecodeError> {
        let mut rd = Reader::new(bytes);
        self.read_into(&mut rd)?;
        Ok(rd.position())
    }

    /// [`Message::decode`] allocating at most `budget` bytes for arrays and strings in
    /// all, else [`crate::DecodeErrorKind::OverBudget`]: for input from untrusted peers
    /// (SECURITY.md). `size_of` of the value itself is not counted.
    #[inline]
    fn decode_with_budget(bytes: &[u8], budget: usize) -> Result<Self, DecodeError> {
        read_all(Reader::new(bytes).with_budget(budget))
    }

    /// [`Message::decode_view`] with a memory budget (the arrays of nested views are
    /// what it allocates).
    #[inline]
    fn decode_view_with_budget<'a>(bytes: &'a [u8], budget: usize) -> Result<Self::View<'a>, DecodeError>
    where
        Self: 'a,
    {
        arena_less::<Self>()?;
        read_all(Reader::new(bytes).with_budget(budget))
    }

    /// Zero-copy decode of exactly one value; trailing bytes are an error.
    #[inline]
    fn decode_view<'a>(bytes: &'a [u8]) -> Result<Self::View<'a>, DecodeError>
    where
        Self: 'a,
    {
        arena_less::<Self>()?;
        read_all(Reader::new(bytes))
    }

    /// Zero-copy decode of one value from the start of `bytes`, and the bytes used.
    #[inline]
    fn decode_view_prefix<'a>(bytes: &'a [u8]) -> Result<(Self::View<'a>, usize), DecodeError>
    where
        Self: 'a,
    {
        arena_less::<Self>()?;
        read_prefix(Reader::new(bytes))
    }

    /// [`Message::decode_view`] with the arrays of views in `arena` (feature `arena`;
    /// any type, and the only way for one generated with `memory = "arena"`). Reuse one
    /// arena and `reset` it between decodes: no allocation once it has grown.
    #[cfg(feature = "arena")]
    #[inline]
    fn decode_view_in<'a>(bytes: &'a [u8], arena: &'a crate::Arena) -> Result<Self::View<'a>, DecodeError>
    where
        Self: 'a,
    {
        read_all(Reader::new(bytes).with_arena(arena))
    }

    /// [`Message::decode_view_prefix`] with the arrays of views in `arena`.
    #[cfg(feature = "arena")]
    #[inline]
    fn decode_view_prefix_in<'a>(
        bytes: &'a [u8],
        arena: &'a crate::Arena,
    ) -> Result<(Self::View<'a>, usize), DecodeError>
    where
        Self: 'a,
    {
        read_prefix(Reader::new(bytes).with_arena(arena))
    }

    /// [`Message::decode_view_in`] with a memory budget (what the arena gives the arrays
    /// counts against it).
    #[cfg(feature = "arena")]
    #[inline]
    fn decode_view_in_with_budget<'a>(
        bytes: &'a [u8],
        arena: &'a crate::Arena,
        budget: usize,
    ) -> Result<Self::View<'a>, DecodeError>
    where
        Self: 'a,
    {
        read_all(Reader::new(bytes).with_arena(arena).with_budget(budget))
    }
}

/// Refuses an arena-less view decode of a type whose view needs an arena.
#[inline(always)]
fn arena_less<M: Message>() -> Result<(), DecodeError> {
    if M::VIEW_IN_ARENA {
        return Err(crate::reader::no_arena(0));
    }
    Ok(())
}

/// An SDP struct: also a message with the 10-byte header (`SDP2`, type id, payload
/// length).
pub trait SdpMessage: Message {
    /// The SDP message type id (1-based position in the schema).
    const MESSAGE_ID: u16;

    /// Appends an SDP message: the header, then the encoding. On error `out` is left as
    /// it was.
    #[inline]
    fn encode_message(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let start = out.len();
        let size = self.encoded_size();
        out.reserve(HEADER_LEN + size);
        let mut result = sdp::write_header(out, Self::MESSAGE_ID, size);
        if result.is_err() {
            out.truncate(start);
            return result;
        }
        result = append(self, out);
        if result.is_err() {
            out.truncate(start);
        }
        result
    }

    /// Decodes exactly one SDP message of this type (header checked; no trailing bytes).
    #[inline]
    fn decode_message(bytes: &[u8]) -> Result<Self, DecodeError> {
        Self::decode_message_with_budget(bytes, usize::MAX)
    }

    /// Decodes one SDP message of this type from the start of `bytes`, and the bytes
    /// used.
    #[inline]
    fn decode_message_prefix(bytes: &[u8]) -> Result<(Self, usize), DecodeError> {
        read_message(bytes, Some(Self::MESSAGE_ID), |rd| rd, |_, rd| Self::read_from(rd))
    }

    /// [`SdpMessage::decode_message`] into `self`, reusing its storage (see
    /// [`Message::decode_into`]).
    #[inline]
    fn decode_message_into(&mut self, bytes: &[u8]) -> Result<(), DecodeError> {
        let ((), used) = read_message(bytes, Some(Self::MESSAGE_ID), |rd| rd, |_, rd| self.read_into(rd))?;
        Reader::at(bytes, used).finish()
    }

    /// [`SdpMessage::decode_message`] allocating at most `budget` bytes for arrays and
    /// strings (see [`Message::decode_with_budget`]).
    #[inline]
    fn decode_message_with_budget(bytes: &[u8], budget: usize) -> Result<Self, DecodeError> {
        let (value, used) = read_message(
            bytes,
            Some(Self::MESSAGE_ID),
            |rd| rd.with_budget(budget),
            |_, rd| Self::read_from(rd),
        )?;
        Reader::at(bytes, used).finish()?;
        Ok(value)
    }

    /// Zero-copy decode of exactly one SDP message of this type.
    #[inline]
    fn decode_message_view<'a>(bytes: &'a [u8]) -> Result<Self::View<'a>, DecodeError>
    where
        Self: 'a,
    {
        Self::decode_message_view_with_budget(bytes, usize::MAX)
    }

    /// [`SdpMessage::decode_message_view`] with a memory budget (the arrays of nested
    /// views are what it allocates).
    #[inline]
    fn decode_message_view_with_budget<'a>(bytes: &'a [u8], budget: usize) -> Result<Self::View<'a>, DecodeError>
    where
        Self: 'a,
    {
        arena_less::<Self>()?;
        let (value, used) = read_message(
            bytes,
            Some(Self::MESSAGE_ID),
            |rd| rd.with_budget(budget),
            |_, rd| <Self::View<'a> as Decode<'a>>::read_from(rd),
        )?;
        Reader::at(bytes, used).finish()?;
        Ok(value)
    }

    /// [`SdpMessage::decode_message_view`] with the arrays of views in `arena` (feature
    /// `arena`; see [`Message::decode_view_in`]).
    #[cfg(feature = "arena")]
    #[inline]
    fn decode_message_view_in<'a>(bytes: &'a [u8], arena: &'a crate::Arena) -> Result<Self::View<'a>, DecodeError>
    where
        Self: 'a,
    {
        Self::decode_message_view_in_with_budget(bytes, arena, usize::MAX)
    }

    /// [`SdpMessage::decode_message_view_in`] with a memory budget.
    #[cfg(feature = "arena")]
    #[inline]
    fn decode_message_view_in_with_budget<'a>(
        bytes: &'a [u8],
        arena: &'a crate::Arena,
        budget: usize,
    ) -> Result<Self::View<'a>, DecodeError>
    where
        Self: 'a,
    {
        let setup = |rd: Reader<'a>| rd.with_budget(budget).with_arena(arena);
        let (value, used) = read_message(bytes, Some(Self::MESSAGE_ID), setup, |_, rd| {
            <Self::View<'a> as Decode<'a>>::read_from(rd)
        })?;
        Reader::at(bytes, used).finish()?;
        Ok(value)
    }
}

/// The `AnyMessage` enum of an SDP schema: any of its structs, chosen by the type id.
pub trait Dispatch: Sized {
    /// The SDP type id of this message.
    fn message_id(&self) -> u16;

    /// Appends the message (header and payload) to `out`.
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError>;

    /// Reads the payload of the struct with `type_id` (an unknown id is an error).
    fn read_payload(type_id: u16, rd: &mut Reader<'_>) -> Result<Self, DecodeError>;

    /// Decodes exactly one message of any type of the schema; trailing bytes are an
    /// error.
    #[inline]
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        Self::decode_with_budget(bytes, usize::MAX)
    }

    /// Decodes one message from the start of `bytes`; returns it and the bytes used.
    #[inline]
    fn decode_prefix(bytes: &[u8]) -> Result<(Self, usize), DecodeError> {
        Self::decode_prefix_with_budget(bytes, usize::MAX)
    }

    /// [`Dispatch::decode`] allocating at most `budget` bytes for arrays and strings
    /// (see [`Message::decode_with_budget`]): for messages from untrusted peers.
    #[inline]
    fn decode_with_budget(bytes: &[u8], budget: usize) -> Result<Self, DecodeError> {
        let (value, used) = Self::decode_prefix_with_budget(bytes, budget)?;
        Reader::at(bytes, used).finish()?;
        Ok(value)
    }

    /// [`Dispatch::decode_prefix`] with a memory budget.
    #[inline]
    fn decode_prefix_with_budget(bytes: &[u8], budget: usize) -> Result<(Self, usize), DecodeError> {
        read_message(bytes, None, |rd| rd.with_budget(budget), Self::read_payload)
    }
}

#[inline]
fn read_all<'a, T: Decode<'a>>(mut rd: Reader<'a>) -> Result<T, DecodeError> {
    let value = T::read_from(&mut rd)?;
    rd.finish()?;
    Ok(value)
}

#[inline]
fn read_prefix<'a, T: Decode<'a>>(mut rd: Reader<'a>) -> Result<(T, usize), DecodeError> {
    let value = T::read_from(&mut rd)?;
    Ok((value, rd.position()))
}

/// Opens a message (header checked, `expected` type id if given), reads the payload with
/// `read(type_id, reader)` through the reader `setup` gives (a memory budget, an arena), and checks that it used exactly the announced bytes; returns the value and
/// the bytes the whole message used.
#[inline]
fn read_message<'a, T>(
    bytes: &'a [u8],
    expected: Option<u16>,
    setup: impl FnOnce(Reader<'a>) -> Reader<'a>,
    read: impl FnOnce(u16, &mut Reader<'a>) -> Result<T, DecodeError>,
) -> Result<(T, usize), DecodeError> {
    let (header, rd) = sdp::open(bytes, expected)?;
    let mut rd = setup(rd);
    let value = read(header.type_id, &mut rd)?;
    Ok((value, sdp::close(&header, &rd)?))
}
