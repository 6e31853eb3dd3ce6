//! Byte strings that keep their exact wire bytes but print readably.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;
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
    let mut out = String::new();
    if let Ok(serde_json::Value::Object(map)) = serde_json::to_value(value) {
        for (k, v) in map {
            if !skip.contains(&k.as_str()) {
                out.push(' ');
                out.push_str(&k);
                out.push('=');
                out.push_str(&v.to_string());
            }
        }
    }
    out
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
