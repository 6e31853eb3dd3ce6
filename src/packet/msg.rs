//! Messages inside chunks: `varint(id << 1 | sys)`, then for id 0 a UUID
//! (DDNet's extended messages), then the body. [`MsgHeader`] is that
//! header as a [`Codec`]; bodies are read by [`Fields`], a [`Codec`] whose
//! context is the message's [`Layout`], from one table per protocol
//! (`msg/tables.rs`): the system messages a session needs, every game
//! message of DDNet 20.1 (0.6) and Teeworlds 0.7.5 (0.7), and DDNet's
//! extended messages.

mod tables;

pub use tables::{name, uuid_name};

use super::Version;
use crate::codec::{Codec, DecodeError, ErrorKind, Mode, Reader};
use crate::packer::{read_int, read_str, read_uuid, write_int, write_str};
use serde::Serialize;
use tables::{EX, UUIDS, game_layout_06, game_layout_07, sys_layout};
use uuid::Uuid;

/// A message id: a number, or a UUID for DDNet's extended messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(untagged)]
pub enum MsgId {
    /// A numbered message, `1..65536` (0 announces a UUID).
    Ordinal(i32),
    /// An extended message, named by its UUID.
    Uuid(Uuid),
}

/// The start of a message.
///
/// Decoding is lenient about over-long id varints (as DDNet is) and
/// rejects ids outside `0..65536`; encoding writes the canonical form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MsgHeader {
    /// A system (engine) message rather than a game message.
    pub sys: bool,
    /// Which message.
    pub id: MsgId,
}

impl<'a> Codec<'a> for MsgHeader {
    fn decode(r: &mut Reader<'a>, _: ()) -> Result<Self, DecodeError> {
        let at = r.offset();
        let raw = read_int(r, "message.id")?;
        let (sys, id) = (raw & 1 != 0, raw >> 1);
        if !(0..0x10000).contains(&id) {
            return Err(DecodeError::new(
                at,
                "message.id",
                ErrorKind::MessageIdOutOfRange { id },
            ));
        }
        let id = if id == 0 {
            MsgId::Uuid(read_uuid(r, "message.uuid")?)
        } else {
            MsgId::Ordinal(id)
        };
        Ok(MsgHeader { sys, id })
    }

    fn encode(&self, out: &mut Vec<u8>, _: ()) {
        let id = match self.id {
            MsgId::Ordinal(id) => id,
            MsgId::Uuid(_) => 0,
        };
        write_int(out, id << 1 | i32::from(self.sys));
        if let MsgId::Uuid(u) = self.id {
            out.extend_from_slice(u.as_bytes());
        }
    }
}

impl MsgHeader {
    /// The message's name in `version`'s tables (`NETMSG_*` without the
    /// prefix for system messages, `NETMSGTYPE_*` style for game ones,
    /// the registered name for extended ones), if known.
    pub fn name(&self, version: Version) -> Option<&'static str> {
        match self.id {
            MsgId::Ordinal(id) => name(version, self.sys, id),
            MsgId::Uuid(u) => uuid_name(&u),
        }
    }
}

/// Splits chunk data into the message header and body (offsets in errors
/// are relative to `data`). Lenient: an over-long id varint is accepted as
/// DDNet accepts it.
pub fn split(data: &[u8]) -> Result<(MsgHeader, &[u8]), DecodeError> {
    let mut r = Reader::new(data, Mode::Lenient);
    let header = MsgHeader::decode(&mut r, ())?;
    Ok((header, r.rest()))
}

/// How one field of a message is packed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Spec {
    Int(&'static str),
    /// An int DDNet's generated unpacker accepts only in `min..=max`
    /// (`NetIntRange`, `NetBool`, `NetEnum`, `NetTickStrict`; a `NetFlag`
    /// of flags `0..=max` is the same test).
    Range(&'static str, i32, i32),
    /// An int that may be missing at the very end (DDNet reads it with an
    /// error check or `GetIntOrDefault`).
    OptInt(&'static str),
    Str(&'static str),
    /// A string that may be missing at the very end.
    OptStr(&'static str),
    /// Raw bytes whose length is the previous int field.
    Sized(&'static str),
    /// `previous int / 4` ints (INPUT's data).
    Quarter(&'static str),
    /// A fixed number of raw bytes.
    Fixed(&'static str, usize),
    /// Everything left.
    Rest(&'static str),
    /// Every int left (tune params, teams, a game message's parameters).
    Ints(&'static str),
    /// `len` ints, each in `min..=max` (`NetArray` of ints or bools).
    Array(&'static str, usize, i32, i32),
    /// `len` strings (`NetArray` of strings).
    StrArray(&'static str, usize),
    /// As many strings as the previous int field says.
    Strs(&'static str),
    /// Every string left.
    RestStrs(&'static str),
}

use Spec::*;

/// The field layout of a message: its fields in order and how each is
/// packed. The context of the [`Fields`] codec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout(&'static [Spec]);

impl Layout {
    /// The layout of the message `header` names in `version`, if this
    /// crate knows it: system messages a session needs and every game
    /// message (DDNet 20.1 for 0.6, Teeworlds 0.7.5 for 0.7), and DDNet's
    /// extended messages (by UUID, system or game as DDNet sends them).
    pub fn of(version: Version, header: &MsgHeader) -> Option<Layout> {
        let specs = match (header.sys, header.id) {
            (true, MsgId::Ordinal(id)) => sys_layout(version, id),
            (false, MsgId::Ordinal(id)) => match version {
                Version::V06 => game_layout_06(id),
                Version::V07 => game_layout_07(id),
            },
            (sys, MsgId::Uuid(u)) => {
                let name = uuid_name(&u)?;
                EX.iter()
                    .find(|&&(n, s, _)| n == name && s == sys)
                    .map(|&(_, _, specs)| specs)
            }
        };
        specs.map(Layout)
    }

    /// The field names, in order.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        self.0.iter().map(|spec| spec_name(spec))
    }

    /// The first field DDNet's generated unpacker refuses as out of its
    /// range (it then drops the message), if any. DDNet checks the fields
    /// in order after reading them all.
    pub fn rejected(self, fields: &Fields<'_>) -> Option<Rejected> {
        self.0.iter().find_map(|spec| {
            let (field, min, max) = match *spec {
                Range(n, min, max) | Array(n, _, min, max) => (n, min, max),
                _ => return None,
            };
            let out = |&value: &i32| {
                (!(min..=max).contains(&value)).then_some(Rejected {
                    field,
                    value,
                    min,
                    max,
                })
            };
            match fields.get(field)? {
                Value::Int(v) => out(v),
                Value::Ints(v) => v.iter().find_map(out),
                _ => None,
            }
        })
    }
}

fn spec_name(spec: &Spec) -> &'static str {
    match *spec {
        Int(n)
        | Range(n, ..)
        | OptInt(n)
        | Str(n)
        | OptStr(n)
        | Sized(n)
        | Quarter(n)
        | Fixed(n, _)
        | Rest(n)
        | Ints(n)
        | Array(n, ..)
        | StrArray(n, _)
        | Strs(n)
        | RestStrs(n) => n,
    }
}

/// A field whose value DDNet's generated unpacker refuses: it drops the
/// message ("invalid range" in its log).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Rejected {
    /// The field's name.
    pub field: &'static str,
    /// Its value.
    pub value: i32,
    /// The smallest value accepted.
    pub min: i32,
    /// The largest value accepted.
    pub max: i32,
}

impl std::fmt::Display for Rejected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}={} is outside {}..={}",
            self.field, self.value, self.min, self.max
        )
    }
}

/// A value of a typed message field.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Value<'a> {
    /// A varint.
    Int(i32),
    /// A NUL-terminated string (without the NUL), its bytes as sent.
    Text(crate::bytes::Text<'a>),
    /// Raw bytes (a sized or fixed-length field, or the rest of the body).
    Bytes(crate::bytes::Blob<'a>),
    /// A run of varints.
    Ints(Vec<i32>),
    /// A run of strings.
    Texts(Vec<crate::bytes::Text<'a>>),
}

impl std::fmt::Display for Value<'_> {
    /// Ints as numbers, strings as JSON strings (or `{"hex":...}`), raw
    /// bytes as a hex preview, runs as `[...]`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v}"),
            Value::Bytes(b) => f.write_str(&crate::bytes::hex_preview(b)),
            Value::Ints(ints) => {
                f.write_str("[")?;
                for (i, v) in ints.iter().enumerate() {
                    write!(f, "{}{v}", if i > 0 { "," } else { "" })?;
                }
                f.write_str("]")
            }
            text => f.write_str(&serde_json::to_string(text).unwrap_or_default()),
        }
    }
}

/// A message's body read into named fields.
///
/// A [`Codec`] with the message's [`Layout`] as context: decoding reads the
/// whole body (what follows the last field is `trailing`), encoding writes
/// canonical ints, so a strict decode re-encodes to the same bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fields<'a> {
    /// The fields by name, in wire order. An optional field missing at the
    /// end of the body is left out.
    pub fields: Vec<(&'static str, Value<'a>)>,
    /// Bytes after the last field.
    pub trailing: &'a [u8],
}

impl Serialize for Fields<'_> {
    /// An object of the fields by name, in wire order.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.fields.len()))?;
        for (name, value) in &self.fields {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

/// Reads a message's body into named fields, if its layout is known.
/// Offsets in errors are relative to `body`.
pub fn decode_body<'a>(
    version: Version,
    header: &MsgHeader,
    body: &'a [u8],
) -> Option<Result<Fields<'a>, DecodeError>> {
    let layout = Layout::of(version, header)?;
    Some(Fields::decode(
        &mut Reader::new(body, Mode::Lenient),
        layout,
    ))
}

impl<'a> Codec<'a, Layout> for Fields<'a> {
    /// Reads every byte left in `r`.
    fn decode(r: &mut Reader<'a>, layout: Layout) -> Result<Self, DecodeError> {
        let mut fields: Vec<(&'static str, Value<'a>)> = Vec::with_capacity(layout.0.len());
        let mut last_int = 0i32;
        for spec in layout.0 {
            let (name, value) = match *spec {
                Int(n) | Range(n, ..) => (n, Value::Int(read_int(r, n)?)),
                OptInt(_) | OptStr(_) if r.remaining() == 0 => continue,
                OptInt(n) => (n, Value::Int(read_int(r, n)?)),
                Str(n) | OptStr(n) => (n, Value::Text(read_str(r, n)?.into())),
                Sized(n) => {
                    let len = usize::try_from(last_int).map_err(|_| {
                        r.error(
                            n,
                            ErrorKind::NegativeLength {
                                len: last_int.into(),
                            },
                        )
                    })?;
                    (n, Value::Bytes(r.take(len, n)?.into()))
                }
                Quarter(n) => {
                    // Bounded by the bytes left: every int takes one at least.
                    let count = usize::try_from(last_int / 4)
                        .unwrap_or(0)
                        .min(r.remaining());
                    let mut ints = Vec::with_capacity(count);
                    for _ in 0..count {
                        ints.push(read_int(r, n)?);
                    }
                    (n, Value::Ints(ints))
                }
                Fixed(n, len) => (n, Value::Bytes(r.take(len, n)?.into())),
                Rest(n) => (n, Value::Bytes(r.rest().into())),
                Ints(n) => {
                    let mut ints = Vec::with_capacity(r.remaining());
                    while r.remaining() > 0 {
                        ints.push(read_int(r, n)?);
                    }
                    (n, Value::Ints(ints))
                }
                Array(n, len, ..) => {
                    let mut ints = Vec::with_capacity(len);
                    for _ in 0..len {
                        ints.push(read_int(r, n)?);
                    }
                    (n, Value::Ints(ints))
                }
                StrArray(n, len) => {
                    let mut texts = Vec::with_capacity(len);
                    for _ in 0..len {
                        texts.push(read_str(r, n)?.into());
                    }
                    (n, Value::Texts(texts))
                }
                Strs(n) => {
                    // Each string takes a byte at least: a count beyond the
                    // bytes left fails within that many steps.
                    let count = usize::try_from(last_int).unwrap_or(0);
                    let mut texts = Vec::with_capacity(count.min(r.remaining()));
                    for _ in 0..count {
                        texts.push(read_str(r, n)?.into());
                    }
                    (n, Value::Texts(texts))
                }
                RestStrs(n) => {
                    let mut texts = Vec::new();
                    while r.remaining() > 0 {
                        texts.push(read_str(r, n)?.into());
                    }
                    (n, Value::Texts(texts))
                }
            };
            if let Value::Int(v) = value {
                last_int = v;
            }
            fields.push((name, value));
        }
        Ok(Fields {
            fields,
            trailing: r.rest(),
        })
    }

    fn encode(&self, out: &mut Vec<u8>, _: Layout) {
        for (_, value) in &self.fields {
            match value {
                Value::Int(v) => write_int(out, *v),
                Value::Text(t) => write_str(out, t),
                Value::Bytes(b) => out.extend_from_slice(b),
                Value::Ints(v) => v.iter().for_each(|&i| write_int(out, i)),
                Value::Texts(v) => v.iter().for_each(|t| write_str(out, t)),
            }
        }
        out.extend_from_slice(self.trailing);
    }
}

impl Fields<'_> {
    /// The value of a named field.
    pub fn get(&self, name: &str) -> Option<&Value<'_>> {
        self.fields.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }

    /// The value of a named int field.
    pub fn int(&self, name: &str) -> Option<i32> {
        match self.get(name)? {
            Value::Int(v) => Some(*v),
            _ => None,
        }
    }

    /// The value of a named bytes field.
    pub fn bytes(&self, name: &str) -> Option<&[u8]> {
        match self.get(name)? {
            Value::Bytes(b) => Some(&b[..]),
            _ => None,
        }
    }

    /// The bytes of a named string field, as sent.
    pub fn text(&self, name: &str) -> Option<&[u8]> {
        match self.get(name)? {
            Value::Text(t) => Some(&t[..]),
            _ => None,
        }
    }
}

impl MsgHeader {
    /// The header of the message called `name` in `version`'s tables
    /// (only system or only game messages when `sys` is given): numbered
    /// messages first, then DDNet's extended ones (whose system bit, when
    /// not given, is the one DDNet sends them with).
    pub(crate) fn by_name(version: Version, sys: Option<bool>, name: &str) -> Option<MsgHeader> {
        let numbered = [true, false]
            .into_iter()
            .filter(|&s| sys.is_none_or(|want| want == s))
            .find_map(|s| {
                (1..)
                    .map_while(|id| self::name(version, s, id).map(|n| (id, n)))
                    .find(|&(_, n)| n == name)
                    .map(|(id, _)| MsgHeader {
                        sys: s,
                        id: MsgId::Ordinal(id),
                    })
            });
        numbered.or_else(|| {
            let (uuid, _) = UUIDS.iter().find(|&&(_, n)| n == name)?;
            let sys = sys.or_else(|| EX.iter().find(|e| e.0 == name).map(|e| e.1))?;
            Some(MsgHeader {
                sys,
                id: MsgId::Uuid(*uuid),
            })
        })
    }
}

/// A message field's JSON value that does not do: the field and what was
/// expected of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FieldProblem {
    /// The field's name (the JSON key).
    pub field: String,
    /// What was expected, in words.
    pub expected: String,
}

impl Layout {
    /// The fields of a body from their JSON (an object by name, the shape
    /// [`Fields`] serialises to), in wire order, for [`Fields::encode`].
    /// A missing optional field is left out; lengths that the reader takes
    /// from an earlier int (`Sized`, `Strs`) or from the layout must agree.
    pub(crate) fn fields_from_json(
        self,
        map: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<Vec<(&'static str, Value<'static>)>, FieldProblem> {
        if let Some(key) = map.keys().find(|k| !self.names().any(|n| n == k.as_str())) {
            let names: Vec<&str> = self.names().collect();
            return Err(FieldProblem {
                field: key.clone(),
                expected: format!(
                    "a field of this message's layout ({})",
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                ),
            });
        }
        let mut fields = Vec::with_capacity(self.0.len());
        let mut last_int = 0i32;
        for spec in self.0 {
            let field = spec_name(spec);
            let problem = |expected: String| FieldProblem {
                field: field.to_string(),
                expected,
            };
            let Some(json) = map.get(field) else {
                match spec {
                    OptInt(_) | OptStr(_) => continue,
                    _ => return Err(problem("present: the layout has no default for it".into())),
                }
            };
            let counted = |n: usize, what: &str| match n {
                n if n == usize::try_from(last_int).unwrap_or(0) => Ok(()),
                n => Err(problem(format!(
                    "{} {what}, as the int before it says; found {n}",
                    last_int.max(0)
                ))),
            };
            let exactly = |n: usize, len: usize, what: &str| match n == len {
                true => Ok(()),
                false => Err(problem(format!("{len} {what}; found {n}"))),
            };
            let value = match *spec {
                Int(_) | Range(..) | OptInt(_) => Value::Int(json_int(json).map_err(problem)?),
                Str(_) | OptStr(_) => Value::Text(json_text(json).map_err(problem)?),
                Sized(_) | Fixed(..) | Rest(_) => {
                    let bytes = crate::bytes::Blob::deserialize(json)
                        .map_err(|e| problem(format!("hex bytes ({e})")))?;
                    match *spec {
                        Sized(_) => counted(bytes.len(), "bytes")?,
                        Fixed(_, len) => exactly(bytes.len(), len, "bytes")?,
                        _ => {}
                    }
                    Value::Bytes(bytes)
                }
                Quarter(_) | Ints(_) | Array(..) => {
                    let ints = json_array(json, json_int).map_err(problem)?;
                    if let Array(_, len, ..) = *spec {
                        exactly(ints.len(), len, "ints")?;
                    }
                    Value::Ints(ints)
                }
                StrArray(..) | Strs(_) | RestStrs(_) => {
                    let texts = json_array(json, json_text).map_err(problem)?;
                    match *spec {
                        StrArray(_, len) => exactly(texts.len(), len, "strings")?,
                        Strs(_) => counted(texts.len(), "strings")?,
                        _ => {}
                    }
                    Value::Texts(texts)
                }
            };
            if let Value::Int(v) = value {
                last_int = v;
            }
            fields.push((field, value));
        }
        Ok(fields)
    }
}

use serde::Deserialize as _;

fn json_int(json: &serde_json::Value) -> Result<i32, String> {
    json.as_i64()
        .and_then(|v| i32::try_from(v).ok())
        .ok_or_else(|| format!("an int (-2147483648..=2147483647), found {json}"))
}

/// A string's bytes: a JSON string, or `{"hex": ...}`; no NUL inside
/// (it ends a string on the wire).
fn json_text(json: &serde_json::Value) -> Result<crate::bytes::Text<'static>, String> {
    let text = crate::bytes::Text::deserialize(json)
        .map_err(|_| format!("a string or {{\"hex\": ...}}, found {json}"))?;
    match text.contains(&0) {
        true => Err("a string without a NUL byte (a NUL ends it on the wire)".into()),
        false => Ok(text),
    }
}

fn json_array<T>(
    json: &serde_json::Value,
    each: fn(&serde_json::Value) -> Result<T, String>,
) -> Result<Vec<T>, String> {
    let items = json
        .as_array()
        .ok_or_else(|| format!("an array, found {json}"))?;
    items
        .iter()
        .enumerate()
        .map(|(i, v)| each(v).map_err(|e| format!("[{i}]: {e}")))
        .collect()
}

/// What a client said about itself (`Cl_StartInfo`, `Cl_ChangeInfo`).
#[derive(Clone, Debug, Default)]
pub struct ClientInfo {
    /// The name.
    pub name: Vec<u8>,
    /// The clan.
    pub clan: Vec<u8>,
    /// The country code (-1 none).
    pub country: i32,
    /// The skin's name.
    pub skin: Vec<u8>,
    /// 1: the colours below apply.
    pub use_custom_color: i32,
    /// The body colour (HSL packed).
    pub color_body: i32,
    /// The feet colour (HSL packed).
    pub color_feet: i32,
    /// A 0.7 client's skin as it sent it (`Cl_StartInfo` of 0.7 has parts,
    /// not a skin name: `skin` and the colours above are then the
    /// defaults, and what a server shows 0.6 clients of it is the server's
    /// own rule).
    pub skin_parts: Option<SkinParts>,
}

/// A 0.7 skin: six parts (body, marking, decoration, hands, feet, eyes).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SkinParts {
    /// Each part's name.
    pub names: [Vec<u8>; 6],
    /// Whether each part has a colour of its own (0 or 1).
    pub use_custom_colors: [i32; 6],
    /// Each part's colour (HSLA packed).
    pub colors: [i32; 6],
}

/// A `Cl_StartInfo` or `Cl_ChangeInfo`'s info.
pub fn client_info(protocol: Option<crate::packet::Version>, data: &[u8]) -> Option<ClientInfo> {
    let version = protocol.unwrap_or(crate::packet::Version::V06);
    let (header, body) = split(data).ok()?;
    if header.sys {
        return None;
    }
    match header.name(version) {
        Some("Cl_StartInfo" | "Cl_ChangeInfo") => {}
        _ => return None,
    }
    let f = decode_body(version, &header, body)?.ok()?;
    Some(ClientInfo {
        name: f.text("name")?.to_vec(),
        clan: f.text("clan").unwrap_or_default().to_vec(),
        country: f.int("country").unwrap_or(-1),
        skin: f.text("skin").unwrap_or(b"default").to_vec(),
        use_custom_color: f.int("use_custom_color").unwrap_or(0),
        color_body: f.int("color_body").unwrap_or(0),
        color_feet: f.int("color_feet").unwrap_or(0),
        skin_parts: skin_parts(&f),
    })
}

/// The 0.7 skin of a message's fields, if they have one.
fn skin_parts(f: &Fields<'_>) -> Option<SkinParts> {
    let (Some(Value::Texts(names)), Some(Value::Ints(custom)), Some(Value::Ints(colors))) = (
        f.get("skin_part_names"),
        f.get("use_custom_colors"),
        f.get("skin_part_colors"),
    ) else {
        return None;
    };
    Some(SkinParts {
        names: <[_; 6]>::try_from(names.iter().map(|t| t.0.to_vec()).collect::<Vec<_>>()).ok()?,
        use_custom_colors: custom.as_slice().try_into().ok()?,
        colors: colors.as_slice().try_into().ok()?,
    })
}

#[cfg(test)]
mod tests {
    use super::tables::{GAME_06, GAME_07};
    use super::*;

    #[test]
    fn clientver_uuid_matches_ddnet() {
        let uuid: Uuid = "8c001304-8461-3e47-8787-f672b3835bd4".parse().unwrap();
        assert_eq!(uuid_name(&uuid), Some("clientver@ddnet.tw"));
    }

    #[test]
    fn spec_ids() {
        use Version::*;
        // DDNet 20.1 (0.6) and Teeworlds 0.7.5 ids, from the spec (section
        // 5) and the protocol headers; unused ids keep DDNet's names.
        let sys06 = [
            (1, "INFO"),
            (2, "MAP_CHANGE"),
            (5, "SNAP"),
            (7, "SNAPSINGLE"),
            (9, "INPUTTIMING"),
            (12, "UNUSED1"),
            (14, "READY"),
            (15, "ENTERGAME"),
            (16, "INPUT"),
            (19, "REQUEST_MAP_DATA"),
            (22, "PING"),
            (23, "PING_REPLY"),
            (24, "UNUSED5"),
            (25, "RCON_CMD_ADD"),
            (26, "RCON_CMD_REM"),
        ];
        for (id, n) in sys06 {
            assert_eq!(name(V06, true, id), Some(n), "0.6 sys {id}");
        }
        let sys07 = [
            (4, "SERVERINFO"),
            (5, "CON_READY"),
            (10, "INPUTTIMING"),
            (13, "RCON_LINE"),
            (14, "RCON_CMD_ADD"),
            (18, "READY"),
            (20, "INPUT"),
            (26, "PING"),
            (30, "MAPLIST_ENTRY_REM"),
        ];
        for (id, n) in sys07 {
            assert_eq!(name(V07, true, id), Some(n), "0.7 sys {id}");
        }
        let game06 = [
            (7, "Unused"),
            (17, "Cl_Say"),
            (18, "Cl_SetTeam"),
            (20, "Cl_StartInfo"),
            (22, "Cl_Kill"),
            (23, "Cl_Emoticon"),
            (26, "Cl_IsDDNetLegacy"),
            (29, "Unused2"),
            (31, "Cl_ShowOthersLegacy"),
        ];
        for (id, n) in game06 {
            assert_eq!(name(V06, false, id), Some(n), "0.6 game {id}");
        }
        assert_eq!(name(V07, false, 24), Some("Cl_Say"));
        assert_eq!(name(V06, true, 27), None, "unknown ids are data, not names");
    }

    use crate::testing::{codec_law, qc, strict_law};
    use quickcheck::{Arbitrary, Gen, TestResult};

    fn verdict(law: Result<(), String>) -> TestResult {
        match law {
            Ok(()) => TestResult::passed(),
            Err(e) => TestResult::error(e),
        }
    }

    #[test]
    fn prop_message_headers_obey_the_codec_law() {
        fn prop(sys: bool, id: u16, uuid: u128) -> TestResult {
            let id = match id {
                0 => MsgId::Uuid(Uuid::from_u128(uuid)),
                n => MsgId::Ordinal(n.into()),
            };
            verdict(codec_law(&MsgHeader { sys, id }, (), &mut Vec::new()))
        }
        qc().tests(5_000)
            .quickcheck(prop as fn(bool, u16, u128) -> TestResult);
        fn bytes(b: Vec<u8>) -> TestResult {
            verdict(strict_law::<MsgHeader, ()>(&b, ()))
        }
        qc().tests(5_000)
            .quickcheck(bytes as fn(Vec<u8>) -> TestResult);
    }

    #[test]
    fn an_id_out_of_range_is_refused_where_it_starts() {
        // id 0x10000, sys: varint 0x20001.
        let mut bytes = vec![0xaa];
        write_int(&mut bytes, 0x10000 << 1 | 1);
        let mut r = Reader::at(&bytes[1..], 40, Mode::Lenient);
        let e = MsgHeader::decode(&mut r, ()).unwrap_err();
        assert_eq!(e.offset, 40);
        assert_eq!(e.kind, ErrorKind::MessageIdOutOfRange { id: 0x10000 });
    }

    /// Every layout this crate knows: system and game messages by version
    /// and id, and the extended ones.
    fn layouts() -> Vec<Layout> {
        let ordinal = [Version::V06, Version::V07].into_iter().flat_map(|v| {
            (0..64).flat_map(move |id| {
                [true, false].into_iter().filter_map(move |sys| {
                    let id = MsgId::Ordinal(id);
                    Layout::of(v, &MsgHeader { sys, id })
                })
            })
        });
        let ex = EX.iter().map(|&(name, sys, _)| {
            let id = MsgId::Uuid(crate::packer::calculate_uuid(name));
            Layout::of(Version::V06, &MsgHeader { sys, id }).unwrap()
        });
        ordinal.chain(ex).collect()
    }

    /// Values that fit `layout`: sizes and counts match the fields they
    /// size, and nothing trails a body whose end is optional or open.
    fn fields_for(layout: Layout, g: &mut Gen) -> Fields<'static> {
        let mut fields: Vec<(&'static str, Value<'static>)> = Vec::new();
        let text = |g: &mut Gen| -> crate::bytes::Text<'static> {
            let bytes: Vec<u8> = Vec::<u8>::arbitrary(g)
                .into_iter()
                .filter(|&b| b != 0)
                .collect();
            bytes.into()
        };
        let texts = |g: &mut Gen, n: usize| (0..n).map(|_| text(g)).collect::<Vec<_>>();
        let mut open_end = false;
        for spec in layout.0 {
            let value = match *spec {
                Int(_) | Range(..) => Value::Int(i32::arbitrary(g)),
                OptInt(_) | OptStr(_) if bool::arbitrary(g) => {
                    open_end = true;
                    continue;
                }
                OptInt(_) => Value::Int(i32::arbitrary(g)),
                Str(_) | OptStr(_) => Value::Text(text(g)),
                Sized(_) => {
                    let b = Vec::<u8>::arbitrary(g);
                    fields.last_mut().unwrap().1 = Value::Int(b.len() as i32);
                    Value::Bytes(b.into())
                }
                Quarter(_) => {
                    let ints = Vec::<i32>::arbitrary(g);
                    let size = ints.len() as i32 * 4 + i32::from(u8::arbitrary(g) % 4);
                    fields.last_mut().unwrap().1 = Value::Int(size);
                    Value::Ints(ints)
                }
                Fixed(_, len) => Value::Bytes(
                    (0..len)
                        .map(|_| u8::arbitrary(g))
                        .collect::<Vec<_>>()
                        .into(),
                ),
                Rest(_) => {
                    open_end = true;
                    Value::Bytes(Vec::<u8>::arbitrary(g).into())
                }
                Ints(_) => {
                    open_end = true;
                    Value::Ints(Vec::<i32>::arbitrary(g))
                }
                Array(_, len, ..) => Value::Ints((0..len).map(|_| i32::arbitrary(g)).collect()),
                StrArray(_, len) => Value::Texts(texts(g, len)),
                Strs(_) => {
                    let n = usize::from(u8::arbitrary(g) % 8);
                    fields.last_mut().unwrap().1 = Value::Int(n as i32);
                    Value::Texts(texts(g, n))
                }
                RestStrs(_) => {
                    open_end = true;
                    let n = usize::from(u8::arbitrary(g) % 8);
                    Value::Texts(texts(g, n))
                }
            };
            fields.push((spec_name(spec), value));
        }
        let trailing: &'static [u8] = if open_end || bool::arbitrary(g) {
            b""
        } else {
            b"\x01\xfftail"
        };
        Fields { fields, trailing }
    }

    #[test]
    fn prop_message_fields_obey_the_codec_law() {
        let all = layouts();
        assert!(all.len() > 150, "{}", all.len());
        let mut g = Gen::from_size_and_seed(60, crate::testing::SEED);
        for _ in 0..40 {
            for &layout in &all {
                let fields = fields_for(layout, &mut g);
                codec_law(&fields, layout, &mut Vec::new()).unwrap();
            }
        }
        fn bytes(b: Vec<u8>, pick: usize) -> TestResult {
            let layouts = layouts();
            verdict(strict_law::<Fields<'_>, Layout>(
                &b,
                layouts[pick % layouts.len()],
            ))
        }
        qc().tests(5_000)
            .quickcheck(bytes as fn(Vec<u8>, usize) -> TestResult);
    }

    /// A message's body read by its layout.
    fn read(version: Version, sys: bool, id: i32, body: &[u8]) -> Fields<'_> {
        let header = MsgHeader {
            sys,
            id: MsgId::Ordinal(id),
        };
        decode_body(version, &header, body).unwrap().unwrap()
    }

    #[test]
    fn game_messages_read_by_name() {
        // 0.6 Sv_Chat: team 0, client -1, "hi".
        let chat = read(Version::V06, false, 3, b"\x00\x40hi\0");
        assert_eq!(
            (
                chat.int("team"),
                chat.int("client_id"),
                chat.text("message")
            ),
            (Some(0), Some(-1), Some(&b"hi"[..]))
        );
        // 0.7 Sv_Chat has a mode and a target before the text.
        let chat = read(Version::V07, false, 3, b"\x01\x00\x40hi\0");
        assert_eq!(chat.int("target_id"), Some(-1));
        // Strings keep their bytes, control characters included.
        let say = read(Version::V06, false, 17, b"\x00a\x07b\0");
        assert_eq!(say.text("message"), Some(&b"a\x07b"[..]));
    }

    #[test]
    fn an_out_of_range_field_is_named_as_ddnet_rejects_it() {
        let header = MsgHeader {
            sys: false,
            id: MsgId::Ordinal(23), // Cl_Emoticon
        };
        let layout = Layout::of(Version::V06, &header).unwrap();
        let ok = read(Version::V06, false, 23, &[15]);
        assert_eq!(layout.rejected(&ok), None);
        let bad = read(Version::V06, false, 23, &[16]);
        let r = layout.rejected(&bad).unwrap();
        assert_eq!(r.to_string(), "emoticon=16 is outside 0..=15");
        // 0.7 Cl_StartInfo: a use_custom_colors entry of 2.
        let header = MsgHeader {
            sys: false,
            id: MsgId::Ordinal(27),
        };
        let mut body = b"a\0b\0".to_vec();
        write_int(&mut body, 0);
        (0..6).for_each(|_| body.extend(b"s\0"));
        for v in [1, 0, 2, 0, 0, 0, 5, 5, 5, 5, 5, 5] {
            write_int(&mut body, v);
        }
        let fields = decode_body(Version::V07, &header, &body).unwrap().unwrap();
        let layout = Layout::of(Version::V07, &header).unwrap();
        let r = layout.rejected(&fields).unwrap();
        assert_eq!(
            (r.field, r.value, r.min, r.max),
            ("use_custom_colors", 2, 0, 1)
        );
    }

    #[test]
    fn every_game_id_with_a_name_has_a_layout() {
        for (version, table) in [(Version::V06, GAME_06), (Version::V07, GAME_07)] {
            for id in 1..table.len() as i32 {
                let header = MsgHeader {
                    sys: false,
                    id: MsgId::Ordinal(id),
                };
                assert!(Layout::of(version, &header).is_some(), "{version} {id}");
            }
        }
        let unknown = MsgHeader {
            sys: false,
            id: MsgId::Ordinal(GAME_06.len() as i32),
        };
        assert_eq!(
            Layout::of(Version::V06, &unknown),
            None,
            "unknown ids stay raw"
        );
    }

    #[test]
    fn a_negative_size_is_refused_at_the_sized_field() {
        let header = MsgHeader {
            sys: true,
            id: MsgId::Ordinal(7), // SNAPSINGLE
        };
        let layout = Layout::of(Version::V06, &header).unwrap();
        let mut body = Vec::new();
        for v in [100, 1, 0, -5] {
            write_int(&mut body, v);
        }
        let e = decode_body(Version::V06, &header, &body)
            .unwrap()
            .unwrap_err();
        assert_eq!((e.offset, e.context), (body.len() as u64, "data"));
        assert_eq!(e.kind, ErrorKind::NegativeLength { len: -5 });
        assert_eq!(
            layout.names().collect::<Vec<_>>(),
            ["tick", "delta_tick", "crc", "part_size", "data"]
        );
    }
}
