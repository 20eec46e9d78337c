use alloc::boxed::Box;
use alloc::vec::Vec;
use core::fmt;

/// One step of the value path an error occurred in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathSeg {
    /// A struct field (its schema name).
    Field(&'static str),
    /// An array element.
    Index(usize),
}

/// Why decoding failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecodeErrorKind {
    /// The input ends before `needed` bytes could be read; `left` remain.
    UnexpectedEnd {
        /// Bytes the read needs.
        needed: usize,
        /// Bytes that remain.
        left: usize,
    },
    /// A `bool` byte other than 0 or 1.
    InvalidBool(u8),
    /// A presence byte other than 0 or 1.
    InvalidPresence(u8),
    /// A string that is not valid UTF-8.
    InvalidUtf8,
    /// A length or count prefix that the remaining input cannot justify
    /// (`count × min_encoded_size > remaining`).
    ImplausibleCount {
        /// The count read.
        count: u64,
        /// Minimum encoded size of one element.
        min_each: usize,
        /// Bytes that remain after the prefix.
        left: usize,
    },
    /// Bytes after the value (use `decode_prefix` for back-to-back records).
    TrailingBytes(usize),
    /// SDP message: the magic is not `SDP`.
    BadMagic,
    /// SDP message: the version byte is not `'2'`.
    BadVersion(u8),
    /// SDP message: the type id is not the expected one (or unknown to a dispatcher).
    WrongTypeId {
        /// The id in the header.
        found: u16,
        /// The id expected (0 for a dispatcher: no struct has it).
        expected: u16,
    },
    /// Decoding would allocate more than the memory budget the caller set
    /// ([`crate::Message::decode_with_budget`]).
    OverBudget {
        /// Bytes the allocation needs.
        needed: usize,
        /// Bytes of the budget left.
        left: usize,
    },
    /// A view generated with `memory = "arena"` was decoded without an arena: call
    /// `decode_view_in` (or [`crate::Reader::with_arena`]) instead of `decode_view`.
    NoArena,
    /// SDP message: the payload length in the header disagrees with the payload.
    LengthMismatch {
        /// Length announced by the header.
        announced: usize,
        /// Bytes the payload actually used (or the bytes available).
        actual: usize,
    },
}

/// A decoding failure: byte offset in the input, the reason, and the value path
/// (`plugins[3].name`). Boxed, so a `Result<T, DecodeError>` is at most one word larger
/// than `T` and comes back in registers; the fields are read through `Deref`
/// (`e.offset`, `e.kind`, `e.rev_path`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(Box<DecodeErrorInfo>);

/// What a [`DecodeError`] holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeErrorInfo {
    /// Byte offset in the input where decoding failed.
    pub offset: usize,
    /// Why.
    pub kind: DecodeErrorKind,
    /// Innermost segment first (segments are added as the error propagates outwards);
    /// use [`DecodeError::path`] for the readable form.
    pub rev_path: Vec<PathSeg>,
}

impl core::ops::Deref for DecodeError {
    type Target = DecodeErrorInfo;

    #[inline]
    fn deref(&self) -> &DecodeErrorInfo {
        &self.0
    }
}

impl DecodeError {
    /// An error at `offset`.
    #[cold]
    #[inline(never)]
    pub fn new(offset: usize, kind: DecodeErrorKind) -> DecodeError {
        DecodeError(Box::new(DecodeErrorInfo {
            offset,
            kind,
            rev_path: Vec::new(),
        }))
    }

    /// Adds an enclosing struct field to the path.
    #[cold]
    #[inline(never)]
    #[must_use]
    pub fn field(mut self, name: &'static str) -> DecodeError {
        self.0.rev_path.push(PathSeg::Field(name));
        self
    }

    /// Adds an enclosing array index to the path.
    #[cold]
    #[inline(never)]
    #[must_use]
    pub fn index(mut self, i: usize) -> DecodeError {
        self.0.rev_path.push(PathSeg::Index(i));
        self
    }

    /// The value path, outermost first: `plugins[3].name` (empty at the root).
    pub fn path(&self) -> alloc::string::String {
        let mut s = alloc::string::String::new();
        for seg in self.rev_path.iter().rev() {
            match seg {
                PathSeg::Field(name) => {
                    if !s.is_empty() {
                        s.push('.');
                    }
                    s.push_str(name);
                }
                PathSeg::Index(i) => {
                    use core::fmt::Write as _;
                    let _ = write!(s, "[{i}]");
                }
            }
        }
        s
    }
}

/// Adds the enclosing field (and array index) to a failed read's value path: generated
/// code writes `rd.u32().at("count")?` for `.map_err(|e| e.field("count"))?` (the same
/// effect, shorter source: this is called once per field read).
pub trait At<T> {
    /// On error, adds the enclosing field `name` to the path.
    fn at(self, name: &'static str) -> Result<T, DecodeError>;

    /// On error, adds the array index `i`, then the enclosing field `name`, to the path.
    fn at_index(self, i: usize, name: &'static str) -> Result<T, DecodeError>;
}

impl<T> At<T> for Result<T, DecodeError> {
    #[inline(always)]
    fn at(self, name: &'static str) -> Result<T, DecodeError> {
        match self {
            Ok(v) => Ok(v),
            Err(e) => Err(e.field(name)),
        }
    }

    #[inline(always)]
    fn at_index(self, i: usize, name: &'static str) -> Result<T, DecodeError> {
        match self {
            Ok(v) => Ok(v),
            Err(e) => Err(e.index(i).field(name)),
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path();
        if !path.is_empty() {
            write!(f, "{path}: ")?;
        }
        match self.kind {
            DecodeErrorKind::UnexpectedEnd { needed, left } => {
                write!(f, "needs {needed} byte(s) but only {left} are left")?
            }
            DecodeErrorKind::InvalidBool(b) => write!(f, "bool byte 0x{b:02x}; expected 00 or 01")?,
            DecodeErrorKind::InvalidPresence(b) => write!(f, "presence byte 0x{b:02x}; expected 00 or 01")?,
            DecodeErrorKind::InvalidUtf8 => write!(f, "string is not valid UTF-8")?,
            DecodeErrorKind::ImplausibleCount { count, min_each, left } => {
                write!(f, "count {count} × {min_each} byte(s) exceeds the {left} bytes left")?
            }
            DecodeErrorKind::TrailingBytes(n) => write!(f, "{n} trailing byte(s) after the value")?,
            DecodeErrorKind::BadMagic => write!(f, "bad message magic; expected \"SDP\"")?,
            DecodeErrorKind::BadVersion(v) => write!(f, "unsupported message version 0x{v:02x}; expected '2'")?,
            DecodeErrorKind::WrongTypeId { found, expected: 0 } => write!(f, "unknown message type id {found}")?,
            DecodeErrorKind::WrongTypeId { found, expected } => {
                write!(f, "message type id {found}; expected {expected}")?
            }
            DecodeErrorKind::OverBudget { needed, left } => write!(
                f,
                "decoding needs {needed} more bytes of memory; {left} left of the budget"
            )?,
            DecodeErrorKind::NoArena => write!(
                f,
                "this view allocates its arrays in an arena: decode it with `decode_view_in`"
            )?,
            DecodeErrorKind::LengthMismatch { announced, actual } => write!(
                f,
                "message header announces {announced} payload bytes but found {actual}"
            )?,
        }
        write!(f, " (at byte offset {})", self.offset)
    }
}

impl core::error::Error for DecodeError {}

/// Why encoding failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EncodeErrorKind {
    /// A string or array longer than its length prefix can express (ffire: 65,535;
    /// SDP: 4,294,967,295). Upstream silently truncates; wirelens refuses.
    TooLong {
        /// The string's byte length or the array's element count.
        len: usize,
        /// The largest allowed.
        max: usize,
    },
    /// The caller's buffer is smaller than the encoding.
    BufferTooSmall {
        /// Bytes the encoding needs.
        needed: usize,
        /// Bytes the buffer has.
        available: usize,
    },
}

/// An encoding failure: the byte offset in the output buffer at the failure, and the
/// reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EncodeError {
    /// Offset in the output buffer at the failure.
    pub offset: usize,
    /// Why.
    pub kind: EncodeErrorKind,
}

impl EncodeError {
    /// The caller's buffer holds `available` bytes; the encoding needs `needed`.
    #[cold]
    pub fn buffer_too_small(needed: usize, available: usize) -> EncodeError {
        EncodeError {
            offset: 0,
            kind: EncodeErrorKind::BufferTooSmall { needed, available },
        }
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            EncodeErrorKind::TooLong { len, max } => {
                write!(
                    f,
                    "length {len} exceeds the maximum {max} (at output offset {})",
                    self.offset
                )
            }
            EncodeErrorKind::BufferTooSmall { needed, available } => {
                write!(
                    f,
                    "buffer too small: the encoding needs {needed} bytes, the buffer has {available}"
                )
            }
        }
    }
}

impl core::error::Error for EncodeError {}
