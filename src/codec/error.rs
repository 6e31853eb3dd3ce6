//! The crate-wide decode error: where (absolute byte offset), what was being
//! read, and what went wrong.

use std::fmt;

/// A decoding failure at a known byte offset.
///
/// One pointer wide (the details are boxed), so that `Result`s on the hot
/// decode paths stay small; fields read through `Deref`: `err.offset`,
/// `err.context`, `err.kind`.
#[derive(Clone, PartialEq, Eq)]
pub struct DecodeError(Box<ErrorDetails>);

/// Where and what a [`DecodeError`] is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorDetails {
    /// Absolute offset (from the start of the file or buffer) of the byte
    /// where the fault was detected.
    pub offset: u64,
    /// What was being read, e.g. `"teehistorian.player_new.x"`.
    pub context: &'static str,
    /// The kind of fault.
    pub kind: ErrorKind,
}

/// What went wrong; each variant says what was expected.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The input ended before the value was complete.
    UnexpectedEof { needed: usize, available: usize },
    /// A string had no NUL terminator before the end of the input.
    UnterminatedString,
    /// A string in a length-prefixed payload had no NUL before the payload ended.
    UnterminatedPayloadString,
    /// A length-prefixed payload ended before its fields did.
    PayloadTooShort { needed: usize, available: usize },
    /// Bytes were left over where the value should have ended.
    TrailingData { len: usize },
    /// A non-canonical encoding, rejected because decoding is strict.
    NonCanonical(NonCanonical),
    /// The input does not start with the expected magic bytes.
    BadMagic,
    /// A format version this crate does not read.
    UnsupportedVersion {
        found: String,
        supported: &'static str,
    },
    /// A header that is not what the format requires.
    InvalidHeader(String),
    /// A message id whose length cannot be known, so the stream cannot go on.
    UnknownMessageId(i32),
    /// A network message id outside DDNet's range `0..65536`.
    MessageIdOutOfRange(i32),
    /// A length field that is negative.
    NegativeLength(i64),
    /// A length field larger than the format (or this reader) allows.
    LengthTooLarge { len: i64, max: usize },
}

/// The non-canonical forms a strict decoder rejects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NonCanonical {
    /// A variable-width int written with more bytes than needed.
    OverlongVarint { len: u8, minimal: u8 },
    /// Bits set in the ignored part of a variable-width int's fifth byte.
    VarintPadding { bits: u8 },
}

impl DecodeError {
    /// Builds an error; cold because errors are the rare path.
    #[cold]
    #[inline(never)]
    pub fn new(offset: u64, context: &'static str, kind: ErrorKind) -> Self {
        DecodeError(Box::new(ErrorDetails {
            offset,
            context,
            kind,
        }))
    }

    /// True if more input could have completed the value.
    pub fn is_eof(&self) -> bool {
        matches!(
            self.kind,
            ErrorKind::UnexpectedEof { .. } | ErrorKind::UnterminatedString
        )
    }
}

impl std::ops::Deref for DecodeError {
    type Target = ErrorDetails;
    fn deref(&self) -> &ErrorDetails {
        &self.0
    }
}

impl std::ops::DerefMut for DecodeError {
    fn deref_mut(&mut self) -> &mut ErrorDetails {
        &mut self.0
    }
}

impl fmt::Debug for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::UnexpectedEof { needed, available } => write!(
                f,
                "unexpected end of input: expected {needed} more byte(s), {available} available"
            ),
            ErrorKind::UnterminatedString => {
                write!(
                    f,
                    "expected a NUL-terminated string, found the end of input"
                )
            }
            ErrorKind::UnterminatedPayloadString => write!(
                f,
                "expected a NUL-terminated string, found the end of the length-prefixed payload"
            ),
            ErrorKind::PayloadTooShort { needed, available } => write!(
                f,
                "the length-prefixed payload ended early: expected {needed} more byte(s), {available} left"
            ),
            ErrorKind::TrailingData { len } => {
                write!(f, "expected the end of the data, found {len} more byte(s)")
            }
            ErrorKind::NonCanonical(NonCanonical::OverlongVarint { len, minimal }) => write!(
                f,
                "non-canonical int: {len} bytes where {minimal} suffice (strict mode)"
            ),
            ErrorKind::NonCanonical(NonCanonical::VarintPadding { bits }) => write!(
                f,
                "non-canonical int: ignored bits 0x{bits:02x} set in the fifth byte (strict mode)"
            ),
            ErrorKind::BadMagic => write!(f, "expected the format's magic bytes"),
            ErrorKind::UnsupportedVersion { found, supported } => {
                write!(f, "unsupported version {found}, expected {supported}")
            }
            ErrorKind::InvalidHeader(why) => write!(f, "invalid header: {why}"),
            ErrorKind::UnknownMessageId(id) => write!(
                f,
                "unknown message id {id}: its length is not known, so the stream cannot be followed"
            ),
            ErrorKind::MessageIdOutOfRange(id) => {
                write!(f, "message id {id} is outside DDNet's range 0..65536")
            }
            ErrorKind::NegativeLength(len) => {
                write!(f, "expected a non-negative length, found {len}")
            }
            ErrorKind::LengthTooLarge { len, max } => {
                write!(f, "length {len} exceeds the limit of {max} bytes")
            }
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "at byte {} (0x{:x}) reading {}: {}",
            self.offset, self.offset, self.context, self.kind
        )
    }
}

impl std::error::Error for DecodeError {}
