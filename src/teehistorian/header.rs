//! The teehistorian header: magic UUID, then JSON text up to a NUL byte.
//!
//! The JSON is kept byte for byte (DDNet writes a fixed key order and every
//! scalar as a string); [`HeaderInfo`] is a parsed view of it.

use crate::codec::{Codec, DecodeError, ErrorKind, Reader};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// `699db17b-8efb-34ff-b1d8-da6f60c15dd1` = `CalculateUuid("teehistorian@ddnet.tw")`.
pub const MAGIC: Uuid = Uuid::from_u128(0x699db17b_8efb_34ff_b1d8_da6f60c15dd1);

/// Largest header JSON the reader accepts (DDNet's are a few KiB).
pub const MAX_HEADER_LEN: usize = 1 << 20;

/// A teehistorian header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The JSON text exactly as in the file, without the NUL.
    pub json: Vec<u8>,
    /// What the JSON says.
    pub info: HeaderInfo,
}

/// The parsed view of the header JSON. Values stay the strings DDNet wrote;
/// keys this crate does not know are ignored here but kept in [`Header::json`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeaderInfo {
    /// Format version: 1 or 2 (2 added EX records).
    pub version: u32,
    /// The writer's minor version (`"22"` for DDNet 20.1).
    pub version_minor: Option<String>,
    /// `"teehistorian@ddnet.tw"`.
    pub comment: Option<String>,
    /// This game's UUID.
    pub game_uuid: Option<String>,
    /// Present when the previous map's game handed over (map change).
    pub prev_game_uuid: Option<String>,
    /// The server's version string.
    pub server_version: Option<String>,
    /// When recording started, e.g. `2026-11-22T02:28:13+0000`.
    pub start_time: Option<String>,
    /// `sv_name`.
    pub server_name: Option<String>,
    /// `sv_port`.
    pub server_port: Option<String>,
    /// The game type (`DDraceNetwork`).
    pub game_type: Option<String>,
    /// The map's name.
    pub map_name: Option<String>,
    /// The map file's size in bytes.
    pub map_size: Option<String>,
    /// The map file's SHA-256, hex.
    pub map_sha256: Option<String>,
    /// The map file's CRC, hex.
    pub map_crc: Option<String>,
    /// The server's random generator and its seed.
    pub prng_description: Option<String>,
    /// Non-default server settings, in the writer's order (a JSON object
    /// in that order when serialised).
    #[serde(with = "pairs")]
    pub config: Vec<(String, String)>,
    /// Non-default tuning (fixed-point, value x 100), in the writer's order
    /// (a JSON object in that order when serialised).
    #[serde(with = "pairs")]
    pub tuning: Vec<(String, String)>,
    /// Every UUID name the writer had registered.
    pub uuids: Vec<String>,
}

/// Name/value pairs as a map (a JSON object), in their order.
mod pairs {
    use serde::de::{MapAccess, Visitor};
    use serde::ser::SerializeMap;
    use serde::{Deserializer, Serializer};
    use std::fmt;

    pub fn serialize<S: Serializer>(pairs: &[(String, String)], s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(pairs.len()))?;
        for (k, v) in pairs {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(String, String)>, D::Error> {
        struct Pairs;
        impl<'de> Visitor<'de> for Pairs {
            type Value = Vec<(String, String)>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map of names to values")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut pairs = Vec::new();
                while let Some(pair) = map.next_entry()? {
                    pairs.push(pair);
                }
                Ok(pairs)
            }
        }
        d.deserialize_map(Pairs)
    }
}

impl HeaderInfo {
    /// `game_uuid` as a UUID, if present and well-formed.
    pub fn game_uuid(&self) -> Option<Uuid> {
        self.game_uuid.as_deref().and_then(|s| s.parse().ok())
    }

    /// `prev_game_uuid` as a UUID, if present and well-formed.
    pub fn prev_game_uuid(&self) -> Option<Uuid> {
        self.prev_game_uuid.as_deref().and_then(|s| s.parse().ok())
    }

    /// Parses the header JSON. `base` is the file offset of its first byte,
    /// used in errors.
    pub fn parse(json: &[u8], base: u64) -> Result<HeaderInfo, DecodeError> {
        let value: serde_json::Value = serde_json::from_slice(json).map_err(|e| {
            DecodeError::new(
                base + json_offset(json, e.line(), e.column()),
                "teehistorian.header",
                ErrorKind::HeaderNotJson {
                    line: e.line(),
                    column: e.column(),
                },
            )
        })?;
        let serde_json::Value::Object(map) = value else {
            return Err(DecodeError::new(
                base,
                "teehistorian.header",
                ErrorKind::HeaderNotObject,
            ));
        };
        let text = |v: &serde_json::Value| match v {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let string = |key: &str| map.get(key).map(text);
        let pairs = |key: &str| match map.get(key) {
            Some(serde_json::Value::Object(o)) => {
                o.iter().map(|(k, v)| (k.clone(), text(v))).collect()
            }
            _ => Vec::new(),
        };
        let version = match map.get("version") {
            Some(serde_json::Value::String(s)) if s == "1" || s == "2" => s.parse().unwrap_or(0),
            found => {
                return Err(DecodeError::new(
                    base,
                    "teehistorian.header.version",
                    ErrorKind::UnsupportedVersion {
                        found: match found {
                            Some(serde_json::Value::String(s)) => s.parse().ok(),
                            Some(serde_json::Value::Number(n)) => n.as_i64(),
                            _ => None,
                        },
                        supported: "\"1\" or \"2\"",
                    },
                ));
            }
        };
        Ok(HeaderInfo {
            version,
            version_minor: string("version_minor"),
            comment: string("comment"),
            game_uuid: string("game_uuid"),
            prev_game_uuid: string("prev_game_uuid"),
            server_version: string("server_version"),
            start_time: string("start_time"),
            server_name: string("server_name"),
            server_port: string("server_port"),
            game_type: string("game_type"),
            map_name: string("map_name"),
            map_size: string("map_size"),
            map_sha256: string("map_sha256"),
            map_crc: string("map_crc"),
            prng_description: string("prng_description"),
            config: pairs("config"),
            tuning: pairs("tuning"),
            uuids: match map.get("uuids") {
                Some(serde_json::Value::Array(a)) => a.iter().map(text).collect(),
                _ => Vec::new(),
            },
        })
    }

    /// The JSON DDNet's `CTeeHistorian::WriteHeader` would write for these
    /// values: fixed key order, no spaces, DDNet's escaping. Absent optional
    /// keys are left out.
    pub fn to_ddnet_json(&self) -> String {
        let mut out = String::from("{");
        let mut first = true;
        let mut key = |out: &mut String, k: &str| {
            if !first {
                out.push(',');
            }
            first = false;
            escape_json_into(out, k);
            out.push(':');
        };
        let scalars: [(&str, Option<String>); 16] = [
            ("comment", self.comment.clone()),
            ("version", Some(self.version.to_string())),
            ("version_minor", self.version_minor.clone()),
            ("game_uuid", self.game_uuid.clone()),
            ("prev_game_uuid", self.prev_game_uuid.clone()),
            ("server_version", self.server_version.clone()),
            ("start_time", self.start_time.clone()),
            ("server_name", self.server_name.clone()),
            ("server_port", self.server_port.clone()),
            ("game_type", self.game_type.clone()),
            ("map_name", self.map_name.clone()),
            ("map_size", self.map_size.clone()),
            ("map_sha256", self.map_sha256.clone()),
            ("map_crc", self.map_crc.clone()),
            ("prng_description", self.prng_description.clone()),
            ("", None),
        ];
        for (k, v) in scalars {
            if let Some(v) = v {
                key(&mut out, k);
                escape_json_into(&mut out, &v);
            }
        }
        for (k, pairs) in [("config", &self.config), ("tuning", &self.tuning)] {
            key(&mut out, k);
            out.push('{');
            for (i, (name, value)) in pairs.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                escape_json_into(&mut out, name);
                out.push(':');
                escape_json_into(&mut out, value);
            }
            out.push('}');
        }
        key(&mut out, "uuids");
        out.push('[');
        for (i, name) in self.uuids.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            escape_json_into(&mut out, name);
        }
        out.push_str("]}");
        out
    }
}

/// DDNet's `EscapeJson`: quotes, backslash, `\b \n \r \t`, every other
/// control byte as `\u00XX` (`\f` included).
pub fn escape_json_into(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Byte offset of serde_json's 1-based line/column position.
fn json_offset(json: &[u8], line: usize, column: usize) -> u64 {
    let line_start: usize = json
        .split(|&b| b == b'\n')
        .take(line.saturating_sub(1))
        .map(|l| l.len() + 1)
        .sum();
    (line_start + column.saturating_sub(1)).min(json.len()) as u64
}

impl Header {
    /// A header whose JSON is DDNet's rendering of `info`.
    pub fn from_info(info: HeaderInfo) -> Header {
        Header {
            json: info.to_ddnet_json().into_bytes(),
            info,
        }
    }
}

/// Magic, the JSON text, its NUL. Decoding reads the JSON up to the first
/// NUL (at most [`MAX_HEADER_LEN`] bytes) and parses it; the bytes are kept
/// as they are, so every header that decodes encodes back to its bytes.
impl<'a> Codec<'a> for Header {
    fn decode(r: &mut Reader<'a>, _: ()) -> Result<Header, DecodeError> {
        let at = r.offset();
        if r.take(16, "teehistorian.magic")? != MAGIC.as_bytes() {
            return Err(DecodeError::new(
                at,
                "teehistorian.magic",
                ErrorKind::BadMagic,
            ));
        }
        // Look for the NUL without consuming: a missing one is an error at
        // the end of what was searched.
        let mut probe = *r;
        let body = probe.rest();
        let searched = &body[..body.len().min(MAX_HEADER_LEN + 1)];
        let Some(nul) = searched.iter().position(|&b| b == 0) else {
            let kind = if body.len() > MAX_HEADER_LEN {
                ErrorKind::LengthTooLarge {
                    len: body.len() as i64,
                    max: MAX_HEADER_LEN,
                }
            } else {
                ErrorKind::UnterminatedString
            };
            let end = r.offset() + body.len().min(MAX_HEADER_LEN) as u64;
            return Err(DecodeError::new(end, "teehistorian.header", kind));
        };
        let json_at = r.offset();
        let json = r.take(nul, "teehistorian.header")?;
        r.u8("teehistorian.header")?;
        let info = HeaderInfo::parse(json, json_at)?;
        Ok(Header {
            json: json.to_vec(),
            info,
        })
    }

    fn encode(&self, out: &mut Vec<u8>, _: ()) {
        out.extend_from_slice(MAGIC.as_bytes());
        out.extend_from_slice(&self.json);
        out.push(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_serialise_as_objects_in_the_writers_order() {
        let info = HeaderInfo {
            version: 2,
            config: vec![("sv_b".into(), "1".into()), ("sv_a".into(), "2".into())],
            ..HeaderInfo::default()
        };
        let json = serde_json::to_string(&info).unwrap();
        assert!(
            json.contains(r#""config":{"sv_b":"1","sv_a":"2"},"tuning":{}"#),
            "{json}"
        );
        assert_eq!(serde_json::from_str::<HeaderInfo>(&json).unwrap(), info);
    }

    #[test]
    fn magic_is_the_calculated_uuid() {
        assert_eq!(
            MAGIC,
            crate::packer::calculate_uuid("teehistorian@ddnet.tw")
        );
    }

    #[test]
    fn ddnet_escaping() {
        let mut s = String::new();
        escape_json_into(&mut s, "a\"b\\c\u{8}\u{c}\n\r\t\u{1}é");
        assert_eq!(s, r#""a\"b\\c\b\u000c\n\r\t\u0001é""#);
    }

    #[test]
    fn version_is_checked() {
        let mut bytes = MAGIC.as_bytes().to_vec();
        bytes.extend_from_slice(b"{\"version\":\"3\"}\0");
        let err = crate::codec::decode_exact::<Header, _>(&bytes, crate::codec::Mode::Lenient, ())
            .unwrap_err();
        assert_eq!(err.context, "teehistorian.header.version");
        assert!(err.to_string().contains("unsupported version 3"), "{err}");
    }

    #[test]
    fn json_error_offset_points_into_the_json() {
        let mut bytes = MAGIC.as_bytes().to_vec();
        bytes.extend_from_slice(b"{\"version\":\"2\",}\0");
        let err = crate::codec::decode_exact::<Header, _>(&bytes, crate::codec::Mode::Lenient, ())
            .unwrap_err();
        assert!(
            matches!(
                err.kind,
                ErrorKind::HeaderNotJson {
                    line: 1,
                    column: 16
                }
            ),
            "{err}"
        );
        assert_eq!(err.offset, 16 + 15, "{err}");
    }

    #[test]
    fn ddnet_json_round_trips_through_the_parser() {
        let info = HeaderInfo {
            version: 2,
            version_minor: Some("22".into()),
            comment: Some("teehistorian@ddnet.tw".into()),
            game_uuid: Some("a1eb7182-796e-3b3e-941d-38ca71b2a4a8".into()),
            config: vec![("sv_motd".into(), "a\\nb".into())],
            uuids: vec!["x@y".into()],
            ..HeaderInfo::default()
        };
        let json = info.to_ddnet_json();
        assert_eq!(
            json,
            r#"{"comment":"teehistorian@ddnet.tw","version":"2","version_minor":"22","game_uuid":"a1eb7182-796e-3b3e-941d-38ca71b2a4a8","config":{"sv_motd":"a\\nb"},"tuning":{},"uuids":["x@y"]}"#
        );
        assert_eq!(HeaderInfo::parse(json.as_bytes(), 0).unwrap(), info);
    }
}
