//! The crate-wide decode error: where (absolute byte offset, and the place
//! inside a decoded payload when the fault is there), what was being read,
//! and what went wrong, as data.

use serde::Serialize;
use std::fmt;

/// A decoding failure at a known byte offset.
///
/// One pointer wide (the details are boxed), so that `Result`s on the hot
/// decode paths stay small; fields read through `Deref`: `err.offset`,
/// `err.context`, `err.kind`.
///
/// Serialised (JSON) as its details plus `message`, the one-line text.
#[derive(Clone, PartialEq, Eq)]
pub struct DecodeError(Box<ErrorDetails>);

/// Where and what a [`DecodeError`] is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ErrorDetails {
    /// Absolute offset (from the start of the file or buffer) of the byte
    /// where the fault was detected; for a fault inside a decoded payload
    /// (see `inner`), the file byte where that payload's container starts.
    pub offset: u64,
    /// For a fault inside a payload the file holds in another form (a
    /// Huffman-compressed chunk, packed ints): where inside the decoded
    /// payload.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inner: Option<Inner>,
    /// The game tick the fault was found in, where the format has ticks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tick: Option<i32>,
    /// What was being read, e.g. `"teehistorian.player_new.x"`.
    pub context: &'static str,
    /// The kind of fault, with what was expected.
    #[serde(flatten)]
    pub kind: ErrorKind,
}

/// A position inside a decoded payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Inner {
    /// What the payload is.
    pub payload: PayloadKind,
    /// Offset inside it, in its unit (bytes, or ints for an int array).
    pub offset: u64,
}

/// The decoded payloads a fault can be inside.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PayloadKind {
    /// The bytes a Huffman-compressed payload decompresses to.
    Decompressed,
    /// The int32 array a payload unpacks to (a snapshot or delta);
    /// offsets count ints.
    Ints,
    /// The varint-packed snapshot delta a client joins from SNAP parts
    /// (capture sessions); offsets count its bytes.
    SnapshotDelta,
    /// The bytes of the int32 array a payload unpacks to, little-endian
    /// (a demo message's data, as DDNet's player hands it on); offsets
    /// count bytes.
    Data,
}

/// What went wrong; each variant says what was expected.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ErrorKind {
    /// The input ended before the value was complete.
    UnexpectedEof {
        /// Bytes the value still needed.
        needed: usize,
        /// Bytes that were left.
        available: usize,
    },
    /// A string had no NUL terminator before the end of the input.
    UnterminatedString,
    /// A string in a length-prefixed payload had no NUL before the payload ended.
    UnterminatedPayloadString,
    /// A length-prefixed payload ended before its fields did.
    PayloadTooShort {
        /// Bytes the field still needed.
        needed: usize,
        /// Bytes left in the payload.
        available: usize,
    },
    /// Bytes were left over where the value should have ended.
    TrailingData {
        /// How many.
        len: usize,
    },
    /// A non-canonical encoding, rejected because decoding is strict.
    NonCanonical {
        /// Which form.
        form: NonCanonical,
    },
    /// The input does not start with the expected magic bytes.
    BadMagic,
    /// A format version this crate does not read.
    UnsupportedVersion {
        /// The version found (`None`: missing, or not a number).
        found: Option<i64>,
        /// The versions read.
        supported: &'static str,
    },
    /// A header that is not valid JSON (teehistorian).
    HeaderNotJson {
        /// 1-based line and column where the JSON parser stopped.
        line: usize,
        /// 1-based column.
        column: usize,
    },
    /// A header whose JSON is not an object (teehistorian).
    HeaderNotObject,
    /// A relative tick marker before any absolute one (demo).
    RelativeTickFirst,
    /// A tick outside the valid range (demo: `0..MAX_TICK`).
    TickOutOfRange {
        /// The tick (`found` in JSON: the error's own `tick` is the tick
        /// in force before the marker).
        #[serde(rename = "found")]
        tick: i64,
        /// The first invalid tick.
        max: i64,
    },
    /// A message id whose length cannot be known, so the stream cannot go on.
    UnknownMessageId {
        /// The id.
        id: i32,
    },
    /// A network message id outside DDNet's range `0..65536`.
    MessageIdOutOfRange {
        /// The id.
        id: i32,
    },
    /// A length field that is negative.
    NegativeLength {
        /// The length.
        len: i64,
    },
    /// The input itself failed part-way (a cut or corrupt compressed
    /// stream): everything before `offset` (in the decompressed data) was
    /// read.
    ReadFailed {
        /// Why.
        cause: ReadFault,
    },
    /// A length field larger than the format (or this reader) allows.
    LengthTooLarge {
        /// The length.
        len: i64,
        /// The largest allowed.
        max: usize,
    },
    /// A pcap record that says it holds more bytes than the file's
    /// snapshot length lets any record hold.
    OverSnapshotLength {
        /// The record's captured length.
        len: u32,
        /// The file header's snapshot length.
        snaplen: u32,
    },
    /// A pcapng block length that is not a multiple of 4 of at least 12.
    BadBlockLength {
        /// The length.
        len: u32,
    },
    /// A pcapng block whose length differs at its start and its end.
    BlockLengthsDiffer {
        /// The length at its start.
        start: u32,
        /// The length at its end.
        end: u32,
    },
    /// Capture contents the `pcap-file` crate refuses (a pcapng block's
    /// fields or options that do not fit it).
    InvalidCaptureField {
        /// What is wrong, as `pcap-file` words it.
        field: &'static str,
    },
    /// A pcapng packet of an interface its section does not describe.
    UnknownInterface {
        /// The interface id.
        id: u32,
    },
    /// A field whose value the layout does not allow (a map's first item
    /// offset that is not 0, an offset not past the one before it).
    InvalidValue {
        /// The value found.
        found: i64,
        /// What the layout needs there.
        expected: String,
    },
}

/// Why an input failed part-way.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReadFault {
    /// The compressed data is corrupt.
    Corrupt,
    /// The compressed data ends early.
    Cut,
    /// Another I/O failure.
    Other,
    /// Decompressing went past the cap ([`DecompressionCap`]).
    OverCap {
        /// The cap, in bytes.
        cap: u64,
    },
}

/// How many times its own size a compressed file may decompress to
/// ([`crate::compression::default_max_decompressed`]); real recordings are 2 to 3 times.
pub const DECOMPRESSION_RATIO: u64 = 64;
/// The least [`crate::compression::default_max_decompressed`] allows.
pub const MIN_MAX_DECOMPRESSED: u64 = 64 << 20;

/// The error a capped decompressing reader fails with (inside an
/// `io::Error` of kind `FileTooLarge`): it decompressed past `cap` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecompressionCap {
    /// The cap, in bytes.
    pub cap: u64,
}

impl fmt::Display for DecompressionCap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "it decompresses past {} bytes, the cap ({} times the file's size, at least {} MiB; --max-decompressed raises it)",
            self.cap,
            DECOMPRESSION_RATIO,
            MIN_MAX_DECOMPRESSED >> 20
        )
    }
}

impl std::error::Error for DecompressionCap {}

impl DecompressionCap {
    /// The `io::Error` to fail with.
    pub fn into_io(self) -> std::io::Error {
        std::io::Error::new(std::io::ErrorKind::FileTooLarge, self)
    }
}

impl ReadFault {
    /// The fault an I/O error is (decompressors report corrupt data as
    /// `InvalidData` and a cut stream as `UnexpectedEof`).
    pub fn of(e: &std::io::Error) -> ReadFault {
        if let Some(c) = e
            .get_ref()
            .and_then(|i| i.downcast_ref::<DecompressionCap>())
        {
            return ReadFault::OverCap { cap: c.cap };
        }
        match e.kind() {
            std::io::ErrorKind::InvalidData | std::io::ErrorKind::InvalidInput => {
                ReadFault::Corrupt
            }
            std::io::ErrorKind::UnexpectedEof => ReadFault::Cut,
            _ => ReadFault::Other,
        }
    }
}

/// The non-canonical forms a strict decoder rejects.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "form", rename_all = "snake_case")]
pub enum NonCanonical {
    /// A variable-width int written with more bytes than needed.
    OverlongVarint {
        /// Bytes used.
        len: u8,
        /// Bytes needed.
        minimal: u8,
    },
    /// Bits set in the ignored part of a variable-width int's fifth byte.
    VarintPadding {
        /// The set bits.
        bits: u8,
    },
}

impl DecodeError {
    /// Builds an error; cold because errors are the rare path.
    #[cold]
    #[inline(never)]
    pub fn new(offset: u64, context: &'static str, kind: ErrorKind) -> Self {
        DecodeError(Box::new(ErrorDetails {
            offset,
            inner: None,
            tick: None,
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

    /// The same fault seen from outside a payload: its offset becomes the
    /// place inside `payload`, and `at` (the file byte of the payload's
    /// container) the offset. A fault already placed inside a payload
    /// keeps its innermost place.
    #[cold]
    pub fn inside(mut self, at: u64, payload: PayloadKind) -> Self {
        if self.inner.is_none() {
            self.0.inner = Some(Inner {
                payload,
                offset: self.offset,
            });
        }
        self.0.offset = at;
        self
    }

    /// Moves the error's offsets by `shift` bytes (a buffer read from a
    /// later place in its file).
    #[cold]
    pub fn shifted(mut self, shift: u64) -> Self {
        self.0.offset += shift;
        self
    }

    /// Records the tick the fault was found in (the first one given wins).
    #[cold]
    pub fn at_tick(mut self, tick: i32) -> Self {
        self.0.tick.get_or_insert(tick);
        self
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

impl Serialize for DecodeError {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct WithMessage<'a> {
            #[serde(flatten)]
            details: &'a ErrorDetails,
            message: String,
        }
        WithMessage {
            details: &self.0,
            message: self.to_string(),
        }
        .serialize(s)
    }
}

impl fmt::Display for NonCanonical {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NonCanonical::OverlongVarint { len, minimal } => {
                write!(f, "an int in {len} bytes where {minimal} suffice")
            }
            NonCanonical::VarintPadding { bits } => {
                write!(
                    f,
                    "an int with ignored bits 0x{bits:02x} set in its fifth byte"
                )
            }
        }
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
            ErrorKind::NonCanonical { form } => {
                write!(f, "non-canonical int: {form} (strict mode)")
            }
            ErrorKind::BadMagic => write!(f, "expected the format's magic bytes"),
            ErrorKind::UnsupportedVersion { found, supported } => match found {
                Some(v) => write!(f, "unsupported version {v}, expected {supported}"),
                None => write!(
                    f,
                    "expected version {supported}, found none (missing or not a number)"
                ),
            },
            ErrorKind::HeaderNotJson { line, column } => write!(
                f,
                "invalid header: expected JSON, which stops parsing at line {line}, column {column}"
            ),
            ErrorKind::HeaderNotObject => write!(f, "invalid header: expected a JSON object"),
            ErrorKind::RelativeTickFirst => write!(
                f,
                "expected an absolute tick marker first, found a relative one"
            ),
            ErrorKind::TickOutOfRange { tick, max } => {
                write!(f, "expected a tick in 0..{max}, found {tick}")
            }
            ErrorKind::UnknownMessageId { id } => write!(
                f,
                "unknown message id {id}: its length is not known, so the stream cannot be followed"
            ),
            ErrorKind::MessageIdOutOfRange { id } => {
                write!(f, "message id {id} is outside DDNet's range 0..65536")
            }
            ErrorKind::NegativeLength { len } => {
                write!(f, "expected a non-negative length, found {len}")
            }
            ErrorKind::ReadFailed { cause } => {
                let why = match cause {
                    ReadFault::Corrupt => "the compressed data is corrupt",
                    ReadFault::Cut => "the compressed data ends early",
                    ReadFault::Other => "an I/O error",
                    ReadFault::OverCap { cap } => {
                        let cap = DecompressionCap { cap: *cap };
                        return write!(f, "expected more input, but it stops here: {cap}");
                    }
                };
                write!(f, "expected more input, but it stops here: {why}")
            }
            ErrorKind::LengthTooLarge { len, max } => {
                write!(f, "length {len} exceeds the limit of {max} bytes")
            }
            ErrorKind::OverSnapshotLength { len, snaplen } => write!(
                f,
                "captured length {len} is over the file's snapshot length {snaplen}"
            ),
            ErrorKind::BadBlockLength { len } => write!(
                f,
                "expected a block length that is a multiple of 4 and at least 12, found {len}"
            ),
            ErrorKind::BlockLengthsDiffer { start, end } => write!(
                f,
                "the block length is {start} at its start but {end} at its end"
            ),
            ErrorKind::InvalidCaptureField { field } => write!(f, "invalid field: {field}"),
            ErrorKind::UnknownInterface { id } => write!(
                f,
                "a packet of interface {id}, which the section does not describe"
            ),
            ErrorKind::InvalidValue { found, expected } => {
                write!(f, "expected {expected}, found {found}")
            }
        }
    }
}

impl fmt::Display for Inner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.payload {
            PayloadKind::Decompressed => {
                write!(f, "byte {} of its decompressed payload", self.offset)
            }
            PayloadKind::Ints => write!(f, "int {} of its payload", self.offset),
            PayloadKind::SnapshotDelta => {
                write!(f, "byte {} of the snapshot delta it completes", self.offset)
            }
            PayloadKind::Data => write!(f, "byte {} of its unpacked data", self.offset),
        }
    }
}

/// One line: the byte offset in decimal and hex, where inside a payload,
/// the tick if known, what was being read and what was expected.
impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte {} (0x{:x})", self.offset, self.offset)?;
        if let Some(inner) = &self.inner {
            write!(f, ", {inner}")?;
        }
        if let Some(tick) = self.tick {
            write!(f, ", tick {tick}")?;
        }
        write!(f, ": reading {}: {}", self.context, self.kind)
    }
}

impl std::error::Error for DecodeError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fault_inside_a_payload_names_the_file_byte_and_the_inner_one() {
        let e = DecodeError::new(
            17,
            "demo.message.id",
            ErrorKind::UnexpectedEof {
                needed: 1,
                available: 0,
            },
        )
        .inside(1234, PayloadKind::Decompressed)
        .at_tick(250);
        assert_eq!(
            e.to_string(),
            "at byte 1234 (0x4d2), byte 17 of its decompressed payload, tick 250: \
             reading demo.message.id: unexpected end of input: expected 1 more byte(s), 0 available"
        );
        // Seen from a further container, the innermost place is kept.
        let outer = e.clone().inside(9000, PayloadKind::Ints);
        assert_eq!((outer.offset, outer.inner), (9000, e.inner));
        let json = serde_json::to_value(&e).unwrap();
        assert_eq!(json["offset"], 1234);
        assert_eq!(json["inner"]["payload"], "decompressed");
        assert_eq!(json["inner"]["offset"], 17);
        assert_eq!(json["kind"], "unexpected_eof");
        assert_eq!(json["needed"], 1);
        assert_eq!(json["message"], e.to_string());
    }
}
