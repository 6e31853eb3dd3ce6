//! Teeworlds packer primitives on the codec core: DDNet's variable-width int,
//! NUL-terminated strings, raw bytes and UUIDs.
//!
//! The varint follows `CVariableInt` (DDNet `compression.cpp`) exactly: at
//! most 5 bytes, the fifth masked with `0x0F` and its continuation bit
//! ignored; over-long forms decode, and are flagged (lenient) or rejected
//! (strict). Strings are kept as raw bytes; [`sanitize`] is a separate step.

use crate::codec::{Codec, DecodeError, ErrorKind, NonCanonical, Reader};
use std::borrow::Cow;
use uuid::Uuid;

/// Most bytes a varint can take.
pub const MAX_VARINT_LEN: usize = 5;

/// The namespace of Teeworlds v3 UUIDs (`CalculateUuid` in DDNet).
pub const TEEWORLDS_NAMESPACE: Uuid = Uuid::from_u128(0xe05ddaaa_c4e6_4cfb_b642_5d48e80c0029);

/// The UUID DDNet derives from a name such as `"teehistorian@ddnet.tw"`.
pub fn calculate_uuid(name: &str) -> Uuid {
    Uuid::new_v3(&TEEWORLDS_NAMESPACE, name.as_bytes())
}

/// Number of bytes the canonical encoding of `value` takes.
#[inline]
pub fn varint_len(value: i32) -> u8 {
    // Negative numbers store their complement; one sign bit in the first byte.
    let magnitude = (value ^ (value >> 31)) as u32;
    match magnitude {
        0..0x40 => 1,
        0x40..0x2000 => 2,
        0x2000..0x10_0000 => 3,
        0x10_0000..0x800_0000 => 4,
        _ => 5,
    }
}

/// Appends the canonical encoding of `value` (DDNet `CVariableInt::Pack`).
#[inline(always)]
pub fn write_int(out: &mut Vec<u8>, value: i32) {
    if (-64..64).contains(&value) {
        // One byte: the sign in bit 6, the magnitude (complemented if
        // negative) in bits 0..6.
        out.push(((value >> 31) as u8 & 0x40) | ((value ^ (value >> 31)) as u8 & 0x3F));
        return;
    }
    write_int_form(out, value, varint_len(value), 0);
}

/// Appends `value` in exactly `len` bytes, OR-ing `pad` (bits 4..8) into a
/// fifth byte. `len` must be at least the canonical length.
fn write_int_form(out: &mut Vec<u8>, value: i32, len: u8, pad: u8) {
    let sign = (value >> 31) as u32; // all ones if negative
    let mut v = (value as u32) ^ sign;
    let mut byte = ((sign & 0x40) | (v & 0x3F)) as u8;
    v >>= 6;
    for i in 1..len {
        out.push(byte | 0x80);
        byte = if i == 4 {
            (v & 0x0F) as u8 | pad
        } else {
            (v & 0x7F) as u8
        };
        v >>= 7;
    }
    out.push(byte);
}

/// Decodes one varint, returning its value, its length and the ignored bits
/// of a fifth byte (DDNet `CVariableInt::Unpack`).
#[inline]
fn read_int_raw(r: &mut Reader<'_>, context: &'static str) -> Result<(i32, u8, u8), DecodeError> {
    let b0 = r.u8(context)?;
    let sign = ((b0 >> 6) & 1) as u32;
    let mut v = (b0 & 0x3F) as u32;
    let mut len = 1u8;
    let mut pad = 0u8;
    let mut prev = b0;
    const SHIFTS: [u32; 4] = [6, 13, 20, 27];
    while prev & 0x80 != 0 && (len as usize) < MAX_VARINT_LEN {
        let b = r.u8(context)?;
        if len == 4 {
            v |= ((b & 0x0F) as u32) << 27;
            pad = b & 0xF0;
        } else {
            v |= ((b & 0x7F) as u32) << SHIFTS[len as usize - 1];
        }
        prev = b;
        len += 1;
    }
    Ok(((v ^ sign.wrapping_neg()) as i32, len, pad))
}

/// The value of a one-byte varint (no continuation bit).
#[inline(always)]
pub fn one_byte_int(b: u8) -> i32 {
    let sign = ((b >> 6) & 1) as i32;
    ((b & 0x3F) as i32) ^ sign.wrapping_neg()
}

/// Reads a varint as DDNet does. Non-canonical forms are remembered by the
/// reader (lenient) or rejected (strict).
#[inline(always)]
pub fn read_int(r: &mut Reader<'_>, context: &'static str) -> Result<i32, DecodeError> {
    // Most ints in real streams take one byte, which is always canonical.
    if let Some(b) = r.peek_u8().filter(|b| b & 0x80 == 0) {
        r.skip_peeked(1);
        return Ok(one_byte_int(b));
    }
    read_int_slow(r, context)
}

#[inline(never)]
fn read_int_slow(r: &mut Reader<'_>, context: &'static str) -> Result<i32, DecodeError> {
    let start = r.offset();
    let (value, len, pad) = read_int_raw(r, context)?;
    if len > 1 {
        check_canonical(r, start, context, value, len, pad)?;
    }
    Ok(value)
}

#[cold]
fn check_canonical(
    r: &mut Reader<'_>,
    start: u64,
    context: &'static str,
    value: i32,
    len: u8,
    pad: u8,
) -> Result<(), DecodeError> {
    let minimal = varint_len(value);
    if len != minimal {
        r.non_canonical(
            start,
            context,
            NonCanonical::OverlongVarint { len, minimal },
        )?;
    }
    if pad != 0 {
        r.non_canonical(start, context, NonCanonical::VarintPadding { bits: pad })?;
    }
    Ok(())
}

/// A varint together with its exact wire form, so that over-long and padded
/// encodings re-encode to the bytes they were read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VarInt {
    /// The value DDNet reads.
    pub value: i32,
    /// Bytes on the wire (1..=5), at least the canonical length.
    len: u8,
    /// Ignored high bits (0x10..0xF0) of a fifth byte.
    pad: u8,
}

impl VarInt {
    /// The canonical form of `value`.
    pub fn new(value: i32) -> Self {
        VarInt {
            value,
            len: varint_len(value),
            pad: 0,
        }
    }

    /// A specific wire form: `len` bytes (clamped up to the canonical length
    /// and down to 5) and, for 5-byte forms, the ignored bits `pad & 0xF0`.
    pub fn with_form(value: i32, len: u8, pad: u8) -> Self {
        let len = len.clamp(varint_len(value), MAX_VARINT_LEN as u8);
        let pad = if len == 5 { pad & 0xF0 } else { 0 };
        VarInt { value, len, pad }
    }

    /// Bytes this form takes on the wire.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Always false: a varint takes at least one byte.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// True if this is the form DDNet's packer writes.
    pub fn is_canonical(&self) -> bool {
        self.len == varint_len(self.value) && self.pad == 0
    }
}

impl<'a> Codec<'a> for VarInt {
    fn decode(r: &mut Reader<'a>, _: ()) -> Result<Self, DecodeError> {
        let start = r.offset();
        let (value, len, pad) = read_int_raw(r, "varint")?;
        if len > 1 {
            check_canonical(r, start, "varint", value, len, pad)?;
        }
        Ok(VarInt { value, len, pad })
    }

    fn encode(&self, out: &mut Vec<u8>, _: ()) {
        write_int_form(out, self.value, self.len, self.pad);
    }
}

/// `CVariableInt::Decompress`: varints until the input ends. The offset of
/// a failure is relative to `bytes`.
pub fn read_ints(bytes: &[u8]) -> Result<Vec<i32>, DecodeError> {
    let mut out = Vec::new();
    read_ints_into(bytes, &mut out)?;
    Ok(out)
}

/// [`read_ints`] into `out` (cleared first), reusing its buffer.
///
/// The hot loop of snapshot and demo decoding, so it reads the slice
/// directly: every form DDNet's `Unpack` accepts is accepted (lenient: an
/// array of ints keeps no note of over-long forms), and a varint cut by
/// the end sends the whole array through [`read_int`], for its error.
pub fn read_ints_into(bytes: &[u8], out: &mut Vec<i32>) -> Result<(), DecodeError> {
    const SHIFTS: [u32; 3] = [6, 13, 20];
    out.clear();
    out.reserve(bytes.len());
    let mut i = 0;
    loop {
        // Most ints of a delta are small: take a run of one-byte forms at
        // once, then one int of any length.
        let run = one_byte_run(&bytes[i..]);
        match bytes[i..].first_chunk::<8>() {
            Some(word) if run == 8 => out.extend_from_slice(&word.map(one_byte_int)),
            _ => out.extend(bytes[i..i + run].iter().map(|&b| one_byte_int(b))),
        }
        i += run;
        let Some(&b0) = bytes.get(i) else { break };
        let sign = u32::from((b0 >> 6) & 1);
        let mut v = u32::from(b0 & 0x3F);
        let mut prev = b0;
        let mut len = 1;
        while prev & 0x80 != 0 {
            let Some(&b) = bytes.get(i + len) else {
                return read_ints_with_reader(bytes, out);
            };
            if len == 4 {
                v |= u32::from(b & 0x0F) << 27;
                len += 1;
                break;
            }
            v |= u32::from(b & 0x7F) << SHIFTS[len - 1];
            prev = b;
            len += 1;
        }
        out.push((v ^ sign.wrapping_neg()) as i32);
        i += len;
    }
    Ok(())
}

/// [`read_ints_into`]'s verdict, for a caller that only counts the ints
/// (`demo stats` over messages): a last byte without the continuation bit
/// ends whatever varint is open there (it ends one by that bit, or as a
/// fifth byte), so no varint is cut and the ints are whole, unread.
/// Otherwise the ints are read into `out`, for the error if there is one.
pub fn check_ints(bytes: &[u8], out: &mut Vec<i32>) -> Result<(), DecodeError> {
    match bytes.last() {
        Some(&b) if b & 0x80 != 0 => read_ints_into(bytes, out),
        _ => Ok(()),
    }
}

/// How many of the first (at most 8) bytes are whole one-byte varints.
#[inline]
fn one_byte_run(bytes: &[u8]) -> usize {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    match bytes.first_chunk::<8>() {
        Some(word) => ((u64::from_le_bytes(*word) & HIGH).trailing_zeros() / 8) as usize,
        None => bytes.iter().take_while(|&&b| b & 0x80 == 0).count(),
    }
}

/// [`read_ints_into`] one [`read_int`] at a time.
fn read_ints_with_reader(bytes: &[u8], out: &mut Vec<i32>) -> Result<(), DecodeError> {
    let mut r = Reader::new(bytes, crate::codec::Mode::Lenient);
    out.clear();
    while r.remaining() > 0 {
        out.push(read_int(&mut r, "varint array")?);
    }
    Ok(())
}

/// `CVariableInt::Compress`: every int as a canonical varint.
pub fn write_ints(out: &mut Vec<u8>, ints: &[i32]) {
    for &v in ints {
        write_int(out, v);
    }
}

/// Reads a NUL-terminated string; the bytes are returned as they are,
/// without the NUL.
#[inline]
pub fn read_str<'a>(r: &mut Reader<'a>, context: &'static str) -> Result<&'a [u8], DecodeError> {
    let mut probe = *r;
    let rest = probe.rest();
    match rest.iter().position(|&b| b == 0) {
        Some(n) => {
            let s = r.take(n, context)?;
            r.u8(context)?;
            Ok(s)
        }
        None => Err(r.error(context, ErrorKind::UnterminatedString)),
    }
}

/// Appends a string and its NUL terminator.
#[inline]
pub fn write_str(out: &mut Vec<u8>, s: &[u8]) {
    out.extend_from_slice(s);
    out.push(0);
}

/// Reads 16 raw bytes as a UUID (byte order as on the wire).
#[inline]
pub fn read_uuid(r: &mut Reader<'_>, context: &'static str) -> Result<Uuid, DecodeError> {
    Ok(Uuid::from_bytes(r.take_array::<16>(context)?))
}

/// Reads a length varint that must be non-negative and at most `max`.
pub fn read_len(
    r: &mut Reader<'_>,
    max: usize,
    context: &'static str,
) -> Result<usize, DecodeError> {
    let at = r.offset();
    let len = read_int(r, context)?;
    if len < 0 {
        return Err(DecodeError::new(
            at,
            context,
            ErrorKind::NegativeLength { len: len.into() },
        ));
    }
    if len as usize > max {
        return Err(DecodeError::new(
            at,
            context,
            ErrorKind::LengthTooLarge {
                len: len.into(),
                max,
            },
        ));
    }
    Ok(len as usize)
}

/// DDNet's string sanitising rules (`str_sanitize*` in `system.cpp`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sanitize {
    /// `SANITIZE`: bytes below 0x20 become a space, except `\t`, `\n`, `\r`.
    Sanitize,
    /// `SANITIZE_CC`: every byte below 0x20 becomes a space.
    SanitizeCc,
}

/// Applies a DDNet sanitising rule. Borrows when nothing changes.
pub fn sanitize(s: &[u8], rule: Sanitize) -> Cow<'_, [u8]> {
    let replace = |b: u8| match rule {
        Sanitize::Sanitize => b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r'),
        Sanitize::SanitizeCc => b < 0x20,
    };
    if !s.iter().any(|&b| replace(b)) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(
        s.iter()
            .map(|&b| if replace(b) { b' ' } else { b })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::{Mode, decode_exact, encode_to_vec};
    use crate::testing::qc;
    use quickcheck::TestResult;

    fn hex(s: &str) -> Vec<u8> {
        hex::decode(s).unwrap()
    }

    fn packed(v: i32) -> Vec<u8> {
        let mut out = Vec::new();
        write_int(&mut out, v);
        out
    }

    // DDNet compression_test.cpp and the spec's table (section 2).
    #[test]
    fn pack_matches_ddnet_examples() {
        let cases: &[(i32, &str)] = &[
            (0, "00"),
            (1, "01"),
            (-1, "40"),
            (-2, "41"),
            (63, "3f"),
            (64, "8001"),
            (-65, "c001"),
            (499, "b307"),
            (1000, "a80f"),
            (13010, "92cb01"),
            (1_000_000, "80897a"),
            (i32::MAX, "bfffffff0f"),
            (i32::MIN, "ffffffff0f"),
        ];
        for &(v, h) in cases {
            assert_eq!(packed(v), hex(h), "pack({v})");
            assert_eq!(
                decode_exact::<VarInt, _>(&hex(h), Mode::Strict, ())
                    .unwrap()
                    .value,
                v
            );
        }
    }

    #[test]
    fn pack_sizes_match_ddnet() {
        let values = [
            0,
            1,
            -1,
            32,
            64,
            256,
            -512,
            12345,
            -123456,
            1234567,
            12345678,
            123456789,
            i32::MAX,
            i32::MIN,
        ];
        let sizes = [1, 1, 1, 1, 2, 2, 2, 3, 3, 4, 4, 4, 5, 5];
        for (v, n) in values.iter().zip(sizes) {
            assert_eq!(packed(*v).len(), n, "size of {v}");
            assert_eq!(varint_len(*v) as usize, n);
        }
    }

    // DDNet CVariableInt.UnpackInvalid: the fifth byte keeps only 4 bits.
    #[test]
    fn fifth_byte_is_masked_and_stops() {
        let mut r = Reader::new(&[0xff, 0xff, 0xff, 0xff, 0xff, 0x01], Mode::Lenient);
        assert_eq!(read_int(&mut r, "t").unwrap(), i32::MIN);
        assert_eq!(r.position(), 5, "the fifth byte's 0x80 bit is ignored");
        assert_eq!(r.noncanonical(), Some(0));
        let v = decode_exact::<VarInt, _>(&hex("bfffffffff"), Mode::Lenient, ()).unwrap();
        assert_eq!(v.value, i32::MAX);
        assert!(!v.is_canonical(), "{v:?}");
        assert_eq!(encode_to_vec(&v, ()), hex("bfffffffff"));
        let err = decode_exact::<VarInt, _>(&hex("bfffffffff"), Mode::Strict, ()).unwrap_err();
        assert_eq!(
            err.kind,
            ErrorKind::NonCanonical {
                form: NonCanonical::VarintPadding { bits: 0xf0 }
            }
        );
    }

    #[test]
    fn overlong_forms_are_flagged_and_kept() {
        for (h, value) in [("8000", 0), ("c000", -1), ("8180808000", 1)] {
            let v = decode_exact::<VarInt, _>(&hex(h), Mode::Lenient, ()).unwrap();
            assert_eq!(v.value, value);
            assert!(!v.is_canonical(), "{h}: {v:?}");
            assert_eq!(encode_to_vec(&v, ()), hex(h));
            let err = decode_exact::<VarInt, _>(&hex(h), Mode::Strict, ()).unwrap_err();
            assert_eq!(err.offset, 0);
            assert!(
                matches!(
                    err.kind,
                    ErrorKind::NonCanonical {
                        form: NonCanonical::OverlongVarint { .. }
                    }
                ),
                "{h}: {err:?}"
            );
        }
    }

    #[test]
    fn truncated_varint_is_an_error_at_the_end() {
        let err = decode_exact::<VarInt, _>(&hex("8080"), Mode::Lenient, ()).unwrap_err();
        assert!(err.is_eof(), "{err:?}");
        assert_eq!(err.offset, 2);
        assert!(
            decode_exact::<VarInt, _>(&[], Mode::Lenient, ())
                .unwrap_err()
                .is_eof()
        );
    }

    #[test]
    fn strings_keep_raw_bytes_and_need_nul() {
        let bytes = b"a\x01\xff\0rest";
        let mut r = Reader::new(bytes, Mode::Strict);
        assert_eq!(read_str(&mut r, "s").unwrap(), b"a\x01\xff");
        assert_eq!(r.position(), 4);
        let err = read_str(&mut r, "s").unwrap_err();
        assert_eq!((err.offset, &err.kind), (4, &ErrorKind::UnterminatedString));
    }

    #[test]
    fn sanitize_rules() {
        let s = b"a\tb\nc\rd\x01e\x1f";
        assert_eq!(&*sanitize(s, Sanitize::Sanitize), b"a\tb\nc\rd e ");
        assert_eq!(&*sanitize(s, Sanitize::SanitizeCc), b"a b c d e ");
        let plain = sanitize(b"plain", Sanitize::SanitizeCc);
        assert!(matches!(plain, Cow::Borrowed(_)), "copied: {plain:?}");
    }

    #[test]
    fn teeworlds_uuids() {
        assert_eq!(
            calculate_uuid("teehistorian@ddnet.tw").to_string(),
            "699db17b-8efb-34ff-b1d8-da6f60c15dd1"
        );
        assert_eq!(
            calculate_uuid("test@ddnet.tw").to_string(),
            "a1eb7182-796e-3b3e-941d-38ca71b2a4a8"
        );
    }

    #[test]
    fn prop_every_i32_round_trips() {
        fn prop(v: i32) -> bool {
            let bytes = packed(v);
            bytes.len() == varint_len(v) as usize
                && decode_exact::<VarInt, _>(&bytes, Mode::Strict, ()).map(|x| x.value) == Ok(v)
        }
        qc().tests(10_000).quickcheck(prop as fn(i32) -> bool);
        // quickcheck's i32 generator favours small values; sweep the bit
        // lengths explicitly too.
        for shift in 0..32 {
            for v in [1i32 << shift, (1i32 << shift).wrapping_sub(1)] {
                assert!(prop(v) && prop(!v), "{v}");
            }
        }
    }

    #[test]
    fn prop_arbitrary_bytes_reencode_exactly() {
        fn prop(bytes: Vec<u8>) -> TestResult {
            let mut lenient = Reader::new(&bytes, Mode::Lenient);
            let Ok(v) = VarInt::decode(&mut lenient, ()) else {
                return TestResult::from_bool(bytes.len() < 5);
            };
            let consumed = lenient.since(0);
            let mut strict = Reader::new(&bytes, Mode::Strict);
            let strict_ok = match read_int(&mut strict, "p") {
                Ok(x) => x == v.value && packed(x) == consumed,
                Err(_) => !v.is_canonical(),
            };
            TestResult::from_bool(encode_to_vec(&v, ()) == consumed && strict_ok)
        }
        qc().tests(5_000)
            .quickcheck(prop as fn(Vec<u8>) -> TestResult);
    }

    #[test]
    fn prop_check_ints_is_read_ints_verdict() {
        // Biased as below: cut forms need runs of continuation bits.
        fn prop(bytes: Vec<u8>, mode: u8) -> bool {
            let bytes: Vec<u8> = match mode % 3 {
                0 => bytes,
                1 => bytes.iter().map(|b| b | 0x80).collect(),
                _ => bytes
                    .iter()
                    .map(|b| if b % 4 == 0 { b & 0x7F } else { b | 0x80 })
                    .collect(),
            };
            let (mut a, mut b) = (Vec::new(), Vec::new());
            check_ints(&bytes, &mut a) == read_ints_into(&bytes, &mut b)
        }
        qc().tests(5_000)
            .quickcheck(prop as fn(Vec<u8>, u8) -> bool);
        for bytes in [
            &[0x80, 0x80, 0x80, 0x80, 0x80][..],
            &[0x80, 0x80, 0x80, 0x80, 0x80, 0x80],
            &[0xC0],
            &[],
        ] {
            assert!(prop(bytes.to_vec(), 0), "{bytes:?}");
        }
    }

    #[test]
    fn prop_the_array_fast_path_is_read_int() {
        // Biased so that long and cut forms (all continuation bits) and
        // long runs of one-byte forms (none) both occur.
        fn prop(bytes: Vec<u8>, mode: u8) -> bool {
            let bytes: Vec<u8> = match mode % 3 {
                0 => bytes,
                1 => bytes.iter().map(|b| b | 0x80).collect(),
                _ => bytes.iter().map(|b| b & 0x7F).collect(),
            };
            let (mut fast, mut slow) = (Vec::new(), Vec::new());
            let a = read_ints_into(&bytes, &mut fast);
            let b = read_ints_with_reader(&bytes, &mut slow);
            a == b && (a.is_err() || fast == slow)
        }
        qc().tests(5_000)
            .quickcheck(prop as fn(Vec<u8>, u8) -> bool);
        let bytes = vec![0x80, 0x80, 0x80, 0x80, 0xff, 0x01];
        let (mut fast, mut slow) = (Vec::new(), Vec::new());
        let (a, b) = (
            read_ints_into(&bytes, &mut fast),
            read_ints_with_reader(&bytes, &mut slow),
        );
        assert!(
            prop(bytes, 0),
            "fast {a:?} {fast:?}, with the reader {b:?} {slow:?}"
        );
    }
}
