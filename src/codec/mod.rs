//! Format-agnostic codec core: a borrowed [`Reader`] with absolute offsets
//! (and a [`Window`] that feeds one from a stream), the symmetric [`Codec`]
//! trait and the crate-wide [`DecodeError`]; and
//! [`SpecError`], the one error of a spec a file is built from. Every
//! format module builds on these; none has a reader of its own.

mod error;
mod reader;
pub mod spec;
mod window;

pub use error::{
    DECOMPRESSION_RATIO, DecodeError, DecompressionCap, ErrorDetails, ErrorKind, Inner,
    MIN_MAX_DECOMPRESSED, NonCanonical, PayloadKind, ReadFault,
};
pub use reader::{Mode, Reader};
pub use spec::SpecError;
pub use window::Window;
pub(crate) use window::read_full;

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
    let n = a.len().min(b.len());
    let (a, b, longer) = (&a[..n], &b[..n], a.len() != b.len());
    // Eight bytes at a time (a datagram's hundreds), in line: a short
    // record is not worth a call to memcmp.
    let mut at = 0;
    for (x, y) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        let word = |w: &[u8]| u64::from_le_bytes(w.try_into().unwrap_or_default());
        let diff = word(x) ^ word(y);
        if diff != 0 {
            return Some(at + diff.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    match a[at..].iter().zip(&b[at..]).position(|(x, y)| x != y) {
        Some(i) => Some(at + i),
        None if longer => Some(n),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::first_difference;
    use crate::testing::qc;

    #[test]
    fn prop_first_difference_is_the_first_unequal_byte() {
        // `b` is `a` with one byte changed at `at` (if in range), then cut
        // or extended: differences land in words and in the tail.
        fn prop(a: Vec<u8>, at: usize, flip: u8, cut: usize, more: Vec<u8>) -> bool {
            let mut b = a.clone();
            if let Some(byte) = b.get_mut(at % (a.len() + 1)) {
                *byte ^= flip;
            }
            b.truncate(cut % (a.len() + 2));
            b.extend(&more);
            let naive = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i));
            first_difference(&a, &b) == naive && first_difference(&b, &a) == naive
        }
        qc().tests(5_000)
            .quickcheck(prop as fn(Vec<u8>, usize, u8, usize, Vec<u8>) -> bool);
    }
}
