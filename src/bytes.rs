//! Byte strings that keep their exact wire bytes but print readably.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;
use std::io;
use std::ops::Deref;

macro_rules! byte_newtype {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Clone, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
        pub struct $name<'a>(pub Cow<'a, [u8]>);

        impl $name<'_> {
            /// A copy that owns its bytes.
            pub fn into_owned(self) -> $name<'static> {
                $name(Cow::Owned(self.0.into_owned()))
            }
        }

        impl Deref for $name<'_> {
            type Target = [u8];
            fn deref(&self) -> &[u8] {
                &self.0
            }
        }

        impl<'a> From<&'a [u8]> for $name<'a> {
            fn from(b: &'a [u8]) -> Self {
                $name(Cow::Borrowed(b))
            }
        }

        impl<'a> From<&'a str> for $name<'a> {
            fn from(s: &'a str) -> Self {
                $name(Cow::Borrowed(s.as_bytes()))
            }
        }

        impl From<Vec<u8>> for $name<'static> {
            fn from(b: Vec<u8>) -> Self {
                $name(Cow::Owned(b))
            }
        }
    };
}

byte_newtype!(
    /// The bytes of a NUL-terminated string as they were on the wire (no
    /// sanitising, no UTF-8 repair). Serialises as a string when it is valid
    /// UTF-8 and as `{"hex": "..."}` otherwise, so nothing is lost.
    Text
);

byte_newtype!(
    /// Opaque bytes (a message body, an unknown payload). Serialises as hex.
    Blob
);

impl fmt::Debug for Text<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match std::str::from_utf8(&self.0) {
            Ok(s) => write!(f, "{s:?}"),
            Err(_) => write!(f, "hex:{}", hex::encode(&self.0)),
        }
    }
}

impl fmt::Display for Text<'_> {
    /// Readable form: UTF-8 with escapes, invalid bytes as `\xNN`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{}\"", self.0.escape_ascii_utf8())
    }
}

impl fmt::Debug for Blob<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "hex:{}", hex::encode(&self.0))
    }
}

impl fmt::Display for Blob<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&hex::encode(&self.0))
    }
}

/// Escapes a byte string for one-line display: valid UTF-8 stays readable,
/// control characters and invalid bytes are escaped.
trait EscapeUtf8 {
    fn escape_ascii_utf8(&self) -> String;
}

impl EscapeUtf8 for [u8] {
    fn escape_ascii_utf8(&self) -> String {
        let mut out = String::new();
        for chunk in self.utf8_chunks() {
            for c in chunk.valid().chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    c if c.is_control() => out.extend(c.escape_default()),
                    c => out.push(c),
                }
            }
            for b in chunk.invalid() {
                out.push_str(&format!("\\x{b:02x}"));
            }
        }
        out
    }
}

/// Short hex of a byte string: all of it up to 32 bytes, else the first
/// 32 and the length.
pub fn hex_preview(bytes: &[u8]) -> String {
    if bytes.len() <= 32 {
        hex::encode(bytes)
    } else {
        format!("{}.. ({} bytes)", hex::encode(&bytes[..32]), bytes.len())
    }
}

/// Bytes written as hex by a person: spaces, newlines and colons between
/// digits are ignored. The error says which digit is wrong, or that one is
/// missing.
pub fn parse_hex(text: &str) -> Result<Vec<u8>, String> {
    let clean: String = text
        .chars()
        .filter(|c| !c.is_whitespace() && *c != ':')
        .collect();
    hex::decode(&clean).map_err(|e| match e {
        hex::FromHexError::InvalidHexCharacter { c, .. } => format!("{c:?} is not a hex digit"),
        hex::FromHexError::OddLength => {
            format!("an odd number of hex digits ({})", clean.len())
        }
        other => other.to_string(),
    })
}

/// Renders a serialisable value's fields as ` key=value` pairs (values in
/// compact JSON), leaving out the fields named in `skip`. One generic
/// renderer for every record type's one-line text form.
pub fn key_values(value: &impl Serialize, skip: &[&str]) -> String {
    let mut out = Vec::new();
    // Writing to a vector fails only if a value cannot be JSON.
    let _ = write_key_values(&mut out, value, skip);
    String::from_utf8(out).unwrap_or_default()
}

/// [`key_values`] written straight to `out`: each value goes through
/// serde_json's writer, with no `serde_json::Value` in between (this is
/// the hot path of text dumps). A scalar writes nothing; a list or tuple
/// is an error (it has no keys).
pub fn write_key_values<W: io::Write>(
    out: &mut W,
    value: &impl Serialize,
    skip: &[&str],
) -> io::Result<()> {
    value
        .serialize(KeyValues { out, skip })
        .map_err(|e| match e.io_error_kind() {
            Some(kind) => io::Error::new(kind, e),
            None => io::Error::other(e),
        })
}

/// The serializer behind [`write_key_values`]: a struct or map becomes
/// ` key=value` pairs; anything else writes nothing.
struct KeyValues<'o, 's, W> {
    out: &'o mut W,
    skip: &'s [&'s str],
}

/// The pairs of one struct or map. `key` is reused for map keys, so a map
/// allocates only once.
struct Pairs<'o, 's, W> {
    out: &'o mut W,
    skip: &'s [&'s str],
    key: String,
}

/// Writes one ` key=value` pair, the value in compact JSON: the one place
/// a pair is written ([`write_key_values`] and event log lines use it).
pub fn write_pair<W: io::Write, T: Serialize + ?Sized>(
    out: &mut W,
    key: &str,
    value: &T,
) -> Result<(), serde_json::Error> {
    let io = |e| serde_json::Error::io(e);
    out.write_all(b" ").map_err(io)?;
    out.write_all(key.as_bytes()).map_err(io)?;
    out.write_all(b"=").map_err(io)?;
    serde_json::to_writer(out, value)
}

impl<W: io::Write> Pairs<'_, '_, W> {
    fn pair<T: Serialize + ?Sized>(
        &mut self,
        key: &str,
        value: &T,
    ) -> Result<(), serde_json::Error> {
        if self.skip.contains(&key) {
            return Ok(());
        }
        write_pair(&mut *self.out, key, value)
    }
}

/// A variant of an externally tagged enum: one pair, `variant=value`,
/// built as a JSON value (rare; no hot path has one).
struct Variant<'o, 's, W, S> {
    pairs: Pairs<'o, 's, W>,
    variant: &'static str,
    inner: S,
}

/// What a map key serialises to: its text (keys are strings in JSON).
struct KeyText<'k>(&'k mut String);

macro_rules! nothing {
    ($($method:ident($($ty:ty),*)),* $(,)?) => {
        $(fn $method(self, $(_: $ty),*) -> Result<(), serde_json::Error> { Ok(()) })*
    };
}

impl<'o, 's, W: io::Write> serde::Serializer for KeyValues<'o, 's, W> {
    type Ok = ();
    type Error = serde_json::Error;
    type SerializeSeq = serde::ser::Impossible<(), serde_json::Error>;
    type SerializeTuple = serde::ser::Impossible<(), serde_json::Error>;
    type SerializeTupleStruct = serde::ser::Impossible<(), serde_json::Error>;
    type SerializeTupleVariant = Variant<
        'o,
        's,
        W,
        <serde_json::value::Serializer as serde::Serializer>::SerializeTupleVariant,
    >;
    type SerializeMap = Pairs<'o, 's, W>;
    type SerializeStruct = Pairs<'o, 's, W>;
    type SerializeStructVariant = Variant<
        'o,
        's,
        W,
        <serde_json::value::Serializer as serde::Serializer>::SerializeStructVariant,
    >;

    nothing!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8]),
        serialize_none(),
        serialize_unit(),
        serialize_unit_struct(&'static str),
        serialize_unit_variant(&'static str, u32, &'static str),
    );

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), serde_json::Error> {
        value.serialize(self)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), serde_json::Error> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), serde_json::Error> {
        self.pairs().pair(variant, value)
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, serde_json::Error> {
        Err(serde::ser::Error::custom("a list has no key=value form"))
    }

    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, serde_json::Error> {
        Err(serde::ser::Error::custom("a tuple has no key=value form"))
    }

    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, serde_json::Error> {
        Err(serde::ser::Error::custom("a tuple has no key=value form"))
    }

    fn serialize_tuple_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleVariant, serde_json::Error> {
        Ok(Variant {
            inner: serde::Serializer::serialize_tuple_variant(
                serde_json::value::Serializer,
                name,
                index,
                variant,
                len,
            )?,
            pairs: self.pairs(),
            variant,
        })
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, serde_json::Error> {
        Ok(self.pairs())
    }

    fn serialize_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStruct, serde_json::Error> {
        Ok(self.pairs())
    }

    fn serialize_struct_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStructVariant, serde_json::Error> {
        Ok(Variant {
            inner: serde::Serializer::serialize_struct_variant(
                serde_json::value::Serializer,
                name,
                index,
                variant,
                len,
            )?,
            pairs: self.pairs(),
            variant,
        })
    }
}

impl<'o, 's, W> KeyValues<'o, 's, W> {
    fn pairs(self) -> Pairs<'o, 's, W> {
        Pairs {
            out: self.out,
            skip: self.skip,
            key: String::new(),
        }
    }
}

impl<W: io::Write> serde::ser::SerializeStruct for Pairs<'_, '_, W> {
    type Ok = ();
    type Error = serde_json::Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), serde_json::Error> {
        self.pair(key, value)
    }

    fn end(self) -> Result<(), serde_json::Error> {
        Ok(())
    }
}

impl<W: io::Write> serde::ser::SerializeMap for Pairs<'_, '_, W> {
    type Ok = ();
    type Error = serde_json::Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), serde_json::Error> {
        self.key.clear();
        key.serialize(KeyText(&mut self.key))
    }

    fn serialize_value<T: Serialize + ?Sized>(
        &mut self,
        value: &T,
    ) -> Result<(), serde_json::Error> {
        let key = std::mem::take(&mut self.key);
        let result = self.pair(&key, value);
        self.key = key;
        result
    }

    fn end(self) -> Result<(), serde_json::Error> {
        Ok(())
    }
}

impl<W: io::Write> serde::ser::SerializeStructVariant
    for Variant<
        '_,
        '_,
        W,
        <serde_json::value::Serializer as serde::Serializer>::SerializeStructVariant,
    >
{
    type Ok = ();
    type Error = serde_json::Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), serde_json::Error> {
        self.inner.serialize_field(key, value)
    }

    fn end(mut self) -> Result<(), serde_json::Error> {
        // The value is `{"variant": {...}}`; the pair is `variant={...}`.
        let value = self.inner.end()?;
        self.pairs.pair(self.variant, &value[self.variant])
    }
}

impl<W: io::Write> serde::ser::SerializeTupleVariant
    for Variant<
        '_,
        '_,
        W,
        <serde_json::value::Serializer as serde::Serializer>::SerializeTupleVariant,
    >
{
    type Ok = ();
    type Error = serde_json::Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        value: &T,
    ) -> Result<(), serde_json::Error> {
        self.inner.serialize_field(value)
    }

    fn end(mut self) -> Result<(), serde_json::Error> {
        let value = self.inner.end()?;
        self.pairs.pair(self.variant, &value[self.variant])
    }
}

impl serde::Serializer for KeyText<'_> {
    type Ok = ();
    type Error = serde_json::Error;
    type SerializeSeq = serde::ser::Impossible<(), serde_json::Error>;
    type SerializeTuple = serde::ser::Impossible<(), serde_json::Error>;
    type SerializeTupleStruct = serde::ser::Impossible<(), serde_json::Error>;
    type SerializeTupleVariant = serde::ser::Impossible<(), serde_json::Error>;
    type SerializeMap = serde::ser::Impossible<(), serde_json::Error>;
    type SerializeStruct = serde::ser::Impossible<(), serde_json::Error>;
    type SerializeStructVariant = serde::ser::Impossible<(), serde_json::Error>;

    fn serialize_str(self, v: &str) -> Result<(), serde_json::Error> {
        self.0.push_str(v);
        Ok(())
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), serde_json::Error> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), serde_json::Error> {
        value.serialize(self)
    }
    fn serialize_bool(self, v: bool) -> Result<(), serde_json::Error> {
        self.serialize_str(if v { "true" } else { "false" })
    }
    fn serialize_i64(self, v: i64) -> Result<(), serde_json::Error> {
        self.serialize_str(&v.to_string())
    }
    fn serialize_u64(self, v: u64) -> Result<(), serde_json::Error> {
        self.serialize_str(&v.to_string())
    }
    fn serialize_i8(self, v: i8) -> Result<(), serde_json::Error> {
        self.serialize_i64(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<(), serde_json::Error> {
        self.serialize_i64(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<(), serde_json::Error> {
        self.serialize_i64(v.into())
    }
    fn serialize_u8(self, v: u8) -> Result<(), serde_json::Error> {
        self.serialize_u64(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<(), serde_json::Error> {
        self.serialize_u64(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<(), serde_json::Error> {
        self.serialize_u64(v.into())
    }
    fn serialize_char(self, v: char) -> Result<(), serde_json::Error> {
        self.0.push(v);
        Ok(())
    }
    fn serialize_f32(self, _: f32) -> Result<(), serde_json::Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_f64(self, _: f64) -> Result<(), serde_json::Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<(), serde_json::Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_none(self) -> Result<(), serde_json::Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<(), serde_json::Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_unit(self) -> Result<(), serde_json::Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), serde_json::Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), serde_json::Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, serde_json::Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, serde_json::Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, serde_json::Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, serde_json::Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, serde_json::Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStruct, serde_json::Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, serde_json::Error> {
        Err(key_must_be_a_string())
    }
}

fn key_must_be_a_string() -> serde_json::Error {
    serde::ser::Error::custom("a map key must be a string")
}

#[derive(Serialize, Deserialize)]
struct HexForm {
    hex: String,
}

impl Serialize for Text<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match std::str::from_utf8(&self.0) {
            Ok(text) => s.serialize_str(text),
            Err(_) => HexForm {
                hex: hex::encode(&self.0),
            }
            .serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for Text<'static> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Form {
            Text(String),
            Hex(HexForm),
        }
        match Form::deserialize(d)? {
            Form::Text(s) => Ok(Text(Cow::Owned(s.into_bytes()))),
            Form::Hex(h) => hex::decode(h.hex)
                .map(|b| Text(Cow::Owned(b)))
                .map_err(serde::de::Error::custom),
        }
    }
}

impl Serialize for Blob<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&hex::encode(&self.0))
    }
}

impl<'de> Deserialize<'de> for Blob<'static> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        hex::decode(s)
            .map(|b| Blob(Cow::Owned(b)))
            .map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_serialises_losslessly() {
        let utf8 = Text::from("héllo");
        let raw = Text::from(&b"a\xffb"[..]);
        assert_eq!(serde_json::to_string(&utf8).unwrap(), "\"héllo\"");
        assert_eq!(serde_json::to_string(&raw).unwrap(), r#"{"hex":"61ff62"}"#);
        for t in [utf8, raw] {
            let back: Text = serde_json::from_str(&serde_json::to_string(&t).unwrap()).unwrap();
            assert_eq!(back, t);
        }
        assert_eq!(Text::from(&b"a\"\n\xff"[..]).to_string(), r#""a\"\n\xff""#);
    }
}
