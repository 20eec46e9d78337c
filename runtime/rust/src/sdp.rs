//! The SDP message header: `53 44 50 32` ("SDP2") · u16 type id · u32 payload length.

use alloc::vec::Vec;

use crate::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind, Reader};

/// Header length in bytes.
pub const HEADER_LEN: usize = 10;

/// Writes a header for a payload of `len` bytes.
pub fn write_header(out: &mut Vec<u8>, type_id: u16, len: usize) -> Result<(), EncodeError> {
    let Ok(len32) = u32::try_from(len) else {
        return Err(EncodeError {
            offset: out.len(),
            kind: EncodeErrorKind::TooLong {
                len,
                max: u32::MAX as usize,
            },
        });
    };
    out.extend_from_slice(b"SDP2");
    out.extend_from_slice(&type_id.to_le_bytes());
    out.extend_from_slice(&len32.to_le_bytes());
    Ok(())
}

/// A parsed header: the type id and the payload, which the header's length says ends
/// at `end` (an offset in the input; the payload starts at [`HEADER_LEN`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// The message type id.
    pub type_id: u16,
    /// Offset one past the payload.
    pub end: usize,
}

/// Reads and checks a header at the start of `bytes`: magic, version `'2'`, and a
/// payload length that fits in the input.
pub fn read_header(bytes: &[u8]) -> Result<Header, DecodeError> {
    let mut r = Reader::new(bytes);
    let magic = r.fixed::<3>()?;
    if magic != b"SDP" {
        return Err(DecodeError::new(0, DecodeErrorKind::BadMagic));
    }
    let version = r.u8()?;
    if version != b'2' {
        return Err(DecodeError::new(3, DecodeErrorKind::BadVersion(version)));
    }
    let type_id = r.u16()?;
    let len = r.u32()? as usize;
    if len > r.remaining() {
        return Err(DecodeError::new(
            6,
            DecodeErrorKind::LengthMismatch {
                announced: len,
                actual: r.remaining(),
            },
        ));
    }
    Ok(Header {
        type_id,
        end: HEADER_LEN + len,
    })
}

/// Checks that a payload decoded from `HEADER_LEN` used exactly the announced bytes.
pub fn check_payload(header: &Header, used_to: usize) -> Result<(), DecodeError> {
    if used_to != header.end {
        return Err(DecodeError::new(
            used_to,
            DecodeErrorKind::LengthMismatch {
                announced: header.end - HEADER_LEN,
                actual: used_to - HEADER_LEN,
            },
        ));
    }
    Ok(())
}

/// Opens a message: reads the header, checks the type id when `expected` is given, and
/// returns a reader positioned at the payload and limited to it.
pub fn open(bytes: &[u8], expected: Option<u16>) -> Result<(Header, Reader<'_>), DecodeError> {
    let header = read_header(bytes)?;
    if let Some(expected) = expected {
        if header.type_id != expected {
            return Err(DecodeError::new(
                4,
                DecodeErrorKind::WrongTypeId {
                    found: header.type_id,
                    expected,
                },
            ));
        }
    }
    let payload = bytes.get(..header.end).unwrap_or(bytes);
    Ok((header, Reader::at(payload, HEADER_LEN)))
}

/// The error for a type id no struct of the schema has (dispatchers).
#[cold]
pub fn unknown_type_id(found: u16) -> DecodeError {
    DecodeError::new(4, DecodeErrorKind::WrongTypeId { found, expected: 0 })
}

/// Finishes a message decode: the payload used exactly the announced bytes. Returns the
/// bytes the whole message used.
pub fn close(header: &Header, reader: &Reader<'_>) -> Result<usize, DecodeError> {
    check_payload(header, reader.position())?;
    Ok(header.end)
}
