//! Format-agnostic codec core: a borrowed [`Reader`] with absolute offsets,
//! the symmetric [`Codec`] trait and the crate-wide [`DecodeError`]. Every
//! format module builds on these; none has a reader of its own.

mod error;
mod reader;

pub use error::{
    DecodeError, DecompressionCap, ErrorDetails, ErrorKind, Inner, NonCanonical, PayloadKind,
    ReadFault,
};
pub use reader::{Mode, Reader};

/// A value with one wire form: `decode` reads it, `encode` writes it back.
///
/// `Ctx` carries what a format needs to know from outside the value (a
/// protocol version, a table of item sizes); it defaults to `()`.
pub trait Codec<'a, Ctx: Copy = ()>: Sized {
    /// Reads one value, advancing the reader past it.
    fn decode(r: &mut Reader<'a>, ctx: Ctx) -> Result<Self, DecodeError>;
    /// Appends the value's bytes to `out`.
    fn encode(&self, out: &mut Vec<u8>, ctx: Ctx);
}

/// Decodes a value that must use every byte of `bytes`.
pub fn decode_exact<'a, T: Codec<'a, C>, C: Copy>(
    bytes: &'a [u8],
    mode: Mode,
    ctx: C,
) -> Result<T, DecodeError> {
    let mut r = Reader::new(bytes, mode);
    let value = T::decode(&mut r, ctx)?;
    r.finish("end of value")?;
    Ok(value)
}

/// Encodes a value into a new vector.
pub fn encode_to_vec<'a, T: Codec<'a, C>, C: Copy>(value: &T, ctx: C) -> Vec<u8> {
    let mut out = Vec::new();
    value.encode(&mut out, ctx);
    out
}

/// Offset of the first byte where `a` and `b` differ (or where the shorter
/// one ends), or `None` if they are equal.
pub fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(i) => Some(i),
        None if a.len() != b.len() => Some(a.len().min(b.len())),
        None => None,
    }
}
