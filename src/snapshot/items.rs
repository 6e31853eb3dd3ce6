//! Typed views of snapshot items: field names for the standard netobjs and
//! netevents of Teeworlds 0.6 / DDNet, Teeworlds 0.7, and DDNet's UUID
//! ("ex") items, for display and world-state inspection.
//!
//! One table-driven decoder serves every type: a type is a list of named
//! fields (plain ints, StrToInts-packed strings, UUIDs), sources are DDNet's
//! `datasrc/network.py` (0.6 part and ex objects) and `datasrc/seven/network.py`
//! (0.7). Unknown types, unregistered UUIDs and items longer or shorter than
//! the known layout are data, never errors: ints past the layout are kept in
//! [`ItemView::extra`], and a short item names only the fields it has.
//! The tables themselves are in `items/tables.rs`.

mod tables;

use super::{Item, OFFSET_UUID_TYPE, Snapshot};
use crate::bytes::Text;
use serde::Serialize;
use std::borrow::Cow;
use std::fmt::{self, Write as _};
use tables::{EX, EX_UUIDS, V06, V07};

use crate::packet::Version;

/// What an item is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemKind {
    /// Persistent state (a netobj).
    Object,
    /// A one-tick event (a netevent).
    Event,
    /// Type 0: maps an extended internal type (the item's id) to a UUID.
    Registration,
    /// A type this table does not know; its ints are all in `extra`.
    Unknown,
}

/// One item, with its fields named.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ItemView {
    /// e.g. "Character", "DDNetCharacter"; `ex:<uuid>` for an extended type
    /// whose UUID is not known, `unknown:<type>` for anything else unknown.
    pub type_name: Cow<'static, str>,
    /// Object, event, or what else the type is.
    pub kind: ItemKind,
    /// The fields of the known layout, in order (serialised as an object
    /// from field name to value, in that order).
    #[serde(serialize_with = "fields_by_name")]
    pub fields: Vec<Field>,
    /// Ints beyond the known layout (a newer writer appended fields), or, in
    /// a short item, the ints of an incomplete trailing packed field.
    pub extra: Vec<i32>,
    /// The item has fewer ints than the known layout (an older writer).
    pub short: bool,
}

fn fields_by_name<S: serde::Serializer>(fields: &[Field], s: S) -> Result<S::Ok, S::Error> {
    s.collect_map(fields.iter().map(|f| (f.name, &f.value)))
}

/// One named field.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Field {
    /// The field's name, as in DDNet's network description.
    pub name: &'static str,
    /// Its value.
    pub value: Value,
}

/// A field's value.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Value {
    /// An int field.
    Int(i32),
    /// A packed string, decoded lossily if it is not valid UTF-8 (see
    /// [`ints_to_str`] for the exact bytes).
    Text(String),
    /// A UUID (an extended type's registration).
    Uuid(uuid::Uuid),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v}"),
            Value::Text(s) => write!(f, "{}", Text::from(s.as_str())),
            Value::Uuid(u) => write!(f, "{u}"),
        }
    }
}

impl ItemView {
    /// One deterministic line: the type name, then `name=value` per field,
    /// then `extra=[..]` and `short` when they apply.
    pub fn to_text(&self) -> String {
        let mut out = self.type_name.to_string();
        for field in &self.fields {
            let _ = write!(out, " {}={}", field.name, field.value);
        }
        if !self.extra.is_empty() {
            let ints: Vec<String> = self.extra.iter().map(i32::to_string).collect();
            let _ = write!(out, " extra=[{}]", ints.join(","));
        }
        if self.short {
            out.push_str(" short");
        }
        out
    }
}

/// DDNet's UUID name of an extended type, if known.
pub fn ex_name(uuid: &uuid::Uuid) -> Option<&'static str> {
    let i = EX_UUIDS.iter().position(|u| u == uuid)?;
    Some(EX[i].0)
}

/// A snapshot as `snapshot dump --format json` prints it (schema.md,
/// `# snapshots`): tick, CRC, size, and the items in wire order with their
/// typed views and raw ints.
#[derive(Serialize)]
pub struct SnapshotJson<'a> {
    /// The snapshot's tick, when it has one (`null` for a file).
    pub tick: Option<i32>,
    /// DDNet's snapshot CRC.
    pub crc: i32,
    /// Its size in bytes.
    pub size: usize,
    /// The items in wire order.
    pub items: Vec<ItemJson<'a>>,
}

/// One item of [`SnapshotJson`].
#[derive(Serialize)]
pub struct ItemJson<'a> {
    /// The item's type.
    pub type_id: i32,
    /// Its id.
    pub id: i32,
    /// Its fields, named by the `protocol`'s tables.
    pub view: ItemView,
    /// Its raw ints.
    pub data: &'a [i32],
}

impl<'a> SnapshotJson<'a> {
    /// `snap` at `tick`, items named by `protocol`'s tables.
    pub fn new(snap: &'a Snapshot, tick: Option<i32>, protocol: Version) -> Self {
        SnapshotJson {
            tick,
            crc: snap.crc(),
            size: snap.size(),
            items: snap
                .items()
                .map(|i| ItemJson {
                    type_id: i.type_id(),
                    id: i.id(),
                    view: view(snap, &i, protocol),
                    data: i.data,
                })
                .collect(),
        }
    }
}

/// Names the fields of `item`. `snap` is the snapshot it belongs to, needed
/// to resolve extended types through their registration items.
pub fn view(snap: &Snapshot, item: &Item, protocol: Version) -> ItemView {
    let type_id = item.type_id();
    let data = item.data;
    let def = if type_id >= OFFSET_UUID_TYPE {
        match snap.ex_type_uuid(type_id) {
            Some(uuid) => match EX_UUIDS.iter().position(|u| *u == uuid) {
                Some(i) => &EX[i].1,
                None => return unknown(format!("ex:{uuid}"), data),
            },
            None => return unknown(format!("unknown:{type_id}"), data),
        }
    } else {
        let table: &[TypeDef] = match protocol {
            Version::V06 => &V06,
            Version::V07 => &V07,
        };
        match usize::try_from(type_id).ok().and_then(|t| table.get(t)) {
            Some(def) => def,
            None => return unknown(format!("unknown:{type_id}"), data),
        }
    };
    let mut view = decode(def, data);
    if def.kind == ItemKind::Registration
        && let Some(Value::Uuid(uuid)) = view.fields.first().map(|f| &f.value)
        && let Some(i) = EX_UUIDS.iter().position(|u| u == uuid)
    {
        let name = Value::Text(EX[i].0.to_string());
        view.fields.push(Field {
            name: "name",
            value: name,
        });
    }
    view
}

fn unknown(type_name: String, data: &[i32]) -> ItemView {
    ItemView {
        type_name: Cow::Owned(type_name),
        kind: ItemKind::Unknown,
        fields: Vec::new(),
        extra: data.to_vec(),
        short: false,
    }
}

fn decode(def: &TypeDef, data: &[i32]) -> ItemView {
    let mut fields = Vec::new();
    let mut at = 0;
    let mut short = false;
    'parts: for part in def.parts {
        for &(name, kind) in *part {
            let Some(ints) = data.get(at..at + kind.ints()) else {
                short = true;
                break 'parts;
            };
            let value = match kind {
                FieldKind::Int => Value::Int(ints[0]),
                FieldKind::PackedStr(_) => {
                    Value::Text(String::from_utf8_lossy(&unpack_bytes(ints)).into_owned())
                }
                FieldKind::Uuid => Value::Uuid(uuid_from_ints(ints)),
            };
            fields.push(Field { name, value });
            at += kind.ints();
        }
    }
    ItemView {
        type_name: Cow::Borrowed(def.name),
        kind: def.kind,
        fields,
        extra: data[at..].to_vec(),
        short,
    }
}

/// A UUID stored as 4 big-endian ints (DDNet's `bytes_be_to_uint`).
fn uuid_from_ints(ints: &[i32]) -> uuid::Uuid {
    let mut bytes = [0u8; 16];
    for (chunk, w) in bytes.chunks_mut(4).zip(ints) {
        chunk.copy_from_slice(&w.to_be_bytes());
    }
    uuid::Uuid::from_bytes(bytes)
}

// ---- writing items ------------------------------------------------------------

/// An item's ints laid out by the same tables [`view`] reads with: a 0.6 /
/// DDNet type (`"Character"`) or a DDNet extended type
/// (`"DDNetCharacter"`), every field 0 until set by name.
///
/// ```
/// use teeoracle::snapshot::items::ItemBuilder;
/// let mut b = ItemBuilder::new("Pickup").unwrap();
/// b.int("x", 48).int("y", 80).int("type", 1);
/// assert_eq!(b.ints(), [48, 80, 1, 0]);
/// assert_eq!(b.type_id(), Some(4));
/// ```
#[derive(Clone, Debug)]
pub struct ItemBuilder {
    def: &'static TypeDef,
    /// The 0.6 type id; `None` for an extended type.
    type_id: Option<i32>,
    /// The extended type's UUID.
    uuid: Option<uuid::Uuid>,
    ints: Vec<i32>,
}

impl ItemBuilder {
    /// A zeroed item of the type named `name` (the names [`ItemView`]
    /// gives), or `None` if no table has it.
    pub fn new(name: &str) -> Option<ItemBuilder> {
        let (def, type_id, uuid) = match V06.iter().position(|d| d.name == name) {
            Some(t) => (&V06[t], Some(t as i32), None),
            None => {
                let i = EX.iter().position(|(_, d)| d.name == name)?;
                (&EX[i].1, None, Some(EX_UUIDS[i]))
            }
        };
        let len = def
            .parts
            .iter()
            .flat_map(|p| p.iter())
            .map(|f| f.1.ints())
            .sum();
        Some(ItemBuilder {
            def,
            type_id,
            uuid,
            ints: vec![0; len],
        })
    }

    /// The type's field names, in order (a string field once).
    pub fn field_names(&self) -> impl Iterator<Item = &'static str> + use<> {
        self.def.parts.iter().flat_map(|p| p.iter()).map(|f| f.0)
    }

    /// The 0.6 type id, or `None` for an extended type.
    pub fn type_id(&self) -> Option<i32> {
        self.type_id
    }

    /// The extended type's UUID (what its registration item holds).
    pub fn uuid(&self) -> Option<uuid::Uuid> {
        self.uuid
    }

    /// Where the field `name` starts, and its kind.
    fn field(&self, name: &str) -> Option<(usize, FieldKind)> {
        let mut at = 0;
        for &(n, kind) in self.def.parts.iter().flat_map(|p| p.iter()) {
            if n == name {
                return Some((at, kind));
            }
            at += kind.ints();
        }
        None
    }

    /// Sets the int field `name` (a name the type does not have, or not
    /// an int field, changes nothing: a mistake of the caller's code,
    /// caught by its tests in debug builds).
    pub fn int(&mut self, name: &str, value: i32) -> &mut ItemBuilder {
        match self.field(name) {
            Some((at, FieldKind::Int)) => self.ints[at] = value,
            _ => debug_assert!(false, "{} has no int field {name}", self.def.name),
        }
        self
    }

    /// Sets the packed string field `name` (`StrToInts`).
    pub fn text(&mut self, name: &str, value: &[u8]) -> &mut ItemBuilder {
        match self.field(name) {
            Some((at, FieldKind::PackedStr(n))) => {
                self.ints[at..at + n].copy_from_slice(&str_to_ints(value, n));
            }
            _ => debug_assert!(false, "{} has no string field {name}", self.def.name),
        }
        self
    }

    /// Keeps the first `len` ints (an older writer's shorter item).
    pub fn truncate(&mut self, len: usize) -> &mut ItemBuilder {
        self.ints.truncate(len);
        self
    }

    /// Appends ints past the known layout (a newer writer's fields).
    pub fn extend(&mut self, ints: &[i32]) -> &mut ItemBuilder {
        self.ints.extend_from_slice(ints);
        self
    }

    /// The item's ints.
    pub fn ints(&self) -> &[i32] {
        &self.ints
    }
}

/// A UUID as a registration item holds it: 4 big-endian ints.
pub fn uuid_to_ints(uuid: &uuid::Uuid) -> [i32; 4] {
    let b = uuid.as_bytes();
    std::array::from_fn(|i| {
        i32::from_be_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
    })
}

// ---- packed strings ("StrToInts") ----------------------------------------

/// The bytes of a StrToInts-packed string, up to its terminator: 4 bytes per
/// int, most significant first, each stored +128; the very last byte is
/// forced to zero, as `IntsToStr` does.
fn unpack_bytes(ints: &[i32]) -> Vec<u8> {
    let mut bytes: Vec<u8> = ints
        .iter()
        .flat_map(|v| v.to_be_bytes())
        .map(|b| b.wrapping_sub(128))
        .collect();
    if let Some(last) = bytes.last_mut() {
        *last = 0;
    }
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    bytes.truncate(end);
    bytes
}

/// DDNet's `IntsToStr`: the decoded string if it is valid UTF-8; otherwise
/// DDNet shows an empty string, and this returns the raw bytes as `Err`.
pub fn ints_to_str(ints: &[i32]) -> Result<String, Text<'static>> {
    String::from_utf8(unpack_bytes(ints)).map_err(|e| Text::from(e.into_bytes()))
}

/// DDNet's `StrToInts` into `num` ints: bytes up to the first NUL (at most
/// `4 * num`), zero-padded, each +128, the last byte cleared.
pub fn str_to_ints(s: &[u8], num: usize) -> Vec<i32> {
    let len = s.iter().position(|&b| b == 0).unwrap_or(s.len());
    let mut bytes = vec![0u8; 4 * num];
    let n = len.min(bytes.len());
    bytes[..n].copy_from_slice(&s[..n]);
    let mut ints: Vec<i32> = bytes
        .chunks(4)
        .map(|c| i32::from_be_bytes([c[0] ^ 0x80, c[1] ^ 0x80, c[2] ^ 0x80, c[3] ^ 0x80]))
        .collect();
    if let Some(last) = ints.last_mut() {
        *last &= !0xff;
    }
    ints
}

// ---- layouts (what the tables are written in) -------------------------------

/// How one field of an item is stored.
#[derive(Clone, Copy, Debug)]
enum FieldKind {
    Int,
    /// A StrToInts string in this many ints.
    PackedStr(usize),
    /// 4 big-endian ints.
    Uuid,
}

impl FieldKind {
    const fn ints(self) -> usize {
        match self {
            FieldKind::Int => 1,
            FieldKind::PackedStr(n) => n,
            FieldKind::Uuid => 4,
        }
    }
}

/// A run of fields; a type is one or more runs, so that derived types
/// (`Character:CharacterCore`, events on `Common`) share their base.
type Part = &'static [(&'static str, FieldKind)];

#[derive(Debug)]
struct TypeDef {
    name: &'static str,
    kind: ItemKind,
    parts: &'static [Part],
}

impl TypeDef {
    #[cfg(test)]
    fn len(&self) -> usize {
        self.parts
            .iter()
            .flat_map(|p| p.iter())
            .map(|f| f.1.ints())
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::ItemSizes;

    // Snapshots are built and read through their wire form only, so these
    // tests do not depend on how `Snapshot` stores its items.

    /// A snapshot of `(type, id, data)` items, in this order.
    fn snap_of(items: &[(i32, i32, Vec<i32>)]) -> Snapshot {
        let (mut offsets, mut area) = (Vec::new(), Vec::new());
        for (t, id, data) in items {
            offsets.push(4 * area.len() as i32);
            area.push((t << 16) | id);
            area.extend(data);
        }
        let mut ints = vec![4 * area.len() as i32, items.len() as i32];
        ints.extend(offsets);
        ints.extend(area);
        Snapshot::from_ints(&ints).unwrap()
    }

    /// The item keys in wire order.
    fn keys(snap: &Snapshot) -> Vec<i32> {
        let ints = snap.to_ints();
        let n = ints[1] as usize;
        let area = &ints[2 + n..];
        ints[2..2 + n]
            .iter()
            .map(|&o| area[o as usize / 4])
            .collect()
    }

    fn view_of(snap: &Snapshot, key: i32, protocol: Version) -> ItemView {
        let item = snap.get(key).unwrap();
        view(snap, &item, protocol)
    }

    /// One item (id 0) alone in a snapshot.
    fn view1(type_id: i32, data: &[i32], protocol: Version) -> ItemView {
        let snap = snap_of(&[(type_id, 0, data.to_vec())]);
        view_of(&snap, type_id << 16, protocol)
    }

    /// A registration item's data for `name`.
    fn uuid_ints(name: &str) -> Vec<i32> {
        let b = crate::packer::calculate_uuid(name).into_bytes();
        b.chunks(4)
            .map(|c| i32::from_be_bytes(c.try_into().unwrap()))
            .collect()
    }

    #[test]
    fn layouts_match_size_tables() {
        let sizes = ItemSizes::ddnet_06();
        for (t, def) in V06.iter().enumerate().skip(1) {
            assert_eq!(Some(def.len()), sizes.get(t as i32), "0.6 {}", def.name);
        }
        let sizes = ItemSizes::teeworlds_07();
        for (t, def) in V07.iter().enumerate().take(23).skip(1) {
            assert_eq!(Some(def.len()), sizes.get(t as i32), "0.7 {}", def.name);
        }
        assert_eq!(EX.len(), EX_UUIDS.len());
    }

    #[test]
    fn packed_string_rule_by_hand() {
        // "nameless tee" in 4 ints: each byte +128 (= ^0x80), big-endian;
        // padding NULs become 0x80 and the final byte is cleared.
        // n a m e -> 6e 61 6d 65 -> ee e1 ed e5
        // l e s s -> 6c 65 73 73 -> ec e5 f3 f3
        // ' 'tee  -> 20 74 65 65 -> a0 f4 e5 e5
        // padding -> 00 00 00 00 -> 80 80 80 00
        let ints = [
            0xeee1ede5_u32 as i32,
            0xece5f3f3_u32 as i32,
            0xa0f4e5e5_u32 as i32,
            0x80808000_u32 as i32,
        ];
        assert_eq!(str_to_ints(b"nameless tee", 4), ints);
        assert_eq!(ints_to_str(&ints).unwrap(), "nameless tee");

        // Empty: all padding, last byte cleared.
        let empty = [0x80808080_u32 as i32, 0x80808000_u32 as i32];
        assert_eq!(str_to_ints(b"", 2), empty);
        assert_eq!(ints_to_str(&empty).unwrap(), "");

        // A full 8-byte string loses its last byte to the terminator.
        let full = str_to_ints(b"abcdefgh", 2);
        assert_eq!(full[1], 0xe5e6e700_u32 as i32);
        assert_eq!(ints_to_str(&full).unwrap(), "abcdefg");

        // UTF-8 above 0x7f: DDNet's chars are signed, c3 -> -61 + 128 = 0x43.
        // t é(c3 a9) e -> f4 43 29 e5
        let ints = str_to_ints("tée".as_bytes(), 2);
        assert_eq!(ints[0], 0xf44329e5_u32 as i32);
        assert_eq!(ints_to_str(&ints).unwrap(), "tée");
        let empty = ints_to_str(&[]).unwrap();
        assert!(empty.is_empty(), "{empty:?}");
    }

    #[test]
    fn invalid_utf8_keeps_raw_bytes() {
        let ints = str_to_ints(&[b'a', 0xff, b'b'], 2);
        let raw = ints_to_str(&ints).unwrap_err();
        assert_eq!(&raw[..], &[b'a', 0xff, b'b']);
        let mut data = ints.clone();
        data.resize(17, 0);
        let v = view1(11, &data, Version::V06);
        assert_eq!(v.fields[0].value, Value::Text("a\u{fffd}b".into()));
    }

    #[test]
    fn client_info_and_text_line() {
        let mut data = str_to_ints(b"nameless tee", 4);
        data.extend(str_to_ints(b"", 3));
        data.push(-1);
        data.extend(str_to_ints(b"default", 6));
        data.extend([0, 65408, 65408]);
        let v = view1(11, &data, Version::V06);
        assert_eq!(v.type_name, "ClientInfo");
        assert_eq!(v.kind, ItemKind::Object);
        assert!(!v.short && v.extra.is_empty(), "{v:?}");
        assert_eq!(
            v.to_text(),
            "ClientInfo name=\"nameless tee\" clan=\"\" country=-1 skin=\"default\" \
             use_custom_color=0 color_body=65408 color_feet=65408"
        );
        let json = serde_json::to_string(&v.fields[..3]).unwrap();
        assert_eq!(
            json,
            r#"[{"name":"name","value":"nameless tee"},{"name":"clan","value":""},{"name":"country","value":-1}]"#
        );
    }

    #[test]
    fn derived_layouts_and_protocols() {
        let data: Vec<i32> = (0..22).collect();
        let v = view1(9, &data, Version::V06);
        assert_eq!(v.type_name, "Character");
        assert_eq!(v.fields[1].name, "x");
        assert_eq!(v.fields[15].name, "player_flags");
        assert_eq!(v.fields[21].name, "attack_tick");
        let v = view1(9, &data[..15], Version::V07);
        assert_eq!(v.type_name, "CharacterCore");
        let v = view1(20, &[1, 2, 3], Version::V06);
        assert_eq!(v.to_text(), "DamageInd x=1 y=2 angle=3");
        assert_eq!(v.kind, ItemKind::Event);
        let v = view1(20, &[1, 2, 3], Version::V07);
        assert_eq!(v.to_text(), "Death x=1 y=2 client_id=3");
        let mut de = vec![1, 0];
        de.extend(str_to_ints(b"nameless tee", 4));
        de.extend(str_to_ints(b"", 3));
        de.push(0);
        for part in ["standard", "", "", "standard", "standard", "standard"] {
            de.extend(str_to_ints(part.as_bytes(), 6));
        }
        de.extend([0; 12]);
        let v = view1(13, &de, Version::V07);
        assert_eq!(v.type_name, "De_ClientInfo");
        assert!(!v.short && v.extra.is_empty(), "{v:?}");
        assert_eq!(v.fields[2].value, Value::Text("nameless tee".into()));
        assert_eq!(v.fields[5].name, "skin_body");
        assert_eq!(v.fields[5].value, Value::Text("standard".into()));
    }

    #[test]
    fn unknown_short_and_long_items() {
        let v = view1(63, &[7, 8], Version::V06);
        assert_eq!(v.type_name, "unknown:63");
        assert_eq!((v.kind, v.extra), (ItemKind::Unknown, vec![7, 8]));
        // An extended type without a registration item.
        let v = view1(0x7fff, &[1], Version::V06);
        assert_eq!(v.type_name, "unknown:32767");
        // Short fixed item: only the fields present.
        let v = view1(2, &[1, 2], Version::V06);
        assert_eq!(v.to_text(), "Projectile x=1 y=2 short");
        // A short packed string is not half-decoded; its ints stay as extra.
        let v = view1(11, &[1, 2], Version::V06);
        assert!(v.short && v.fields.is_empty(), "{v:?}");
        assert_eq!(v.to_text(), "ClientInfo extra=[1,2] short");
        let v = view1(15, &[], Version::V06);
        assert_eq!(v.to_text(), "Spawn short");
        // A registration item cut short.
        let v = view1(0, &[1, 2], Version::V06);
        assert_eq!(v.to_text(), "Registration extra=[1,2] short");
    }

    #[test]
    fn extended_items_by_uuid() {
        let snap = snap_of(&[
            (0, 0x7fff, uuid_ints("gameinfo@netobj.ddnet.tw")),
            (0, 0x7ffe, uuid_ints("character@netobj.ddnet.tw")),
            (0, 0x7ffd, uuid_ints("unknown@example.org")),
            (0, 0x7ffc, uuid_ints("envelope-trigger@netobj.ddnet.org")),
            (0x7fff, 0, vec![1, 11, 2, 99]),
            (0x7ffe, 0, vec![0, 0, 2, -1]),
            (0x7ffd, 0, vec![5]),
            (0x7ffc, 0, vec![1, 2, 3, 0]),
        ]);
        let v = view_of(&snap, 0x7fff, Version::V06);
        assert_eq!(v.kind, ItemKind::Registration);
        assert_eq!(
            v.to_text(),
            "Registration uuid=933dea6a-da79-30ea-a98f-8af03689a945 \
             name=\"gameinfo@netobj.ddnet.tw\""
        );
        let v = view_of(&snap, 0x7ffd, Version::V06);
        assert_eq!(v.fields.len(), 1, "unknown UUID: no name");

        // Longer than known: extra; shorter: short.
        let v = view_of(&snap, 0x7fff << 16, Version::V06);
        assert_eq!(
            v.to_text(),
            "GameInfoEx flags=1 version=11 flags2=2 extra=[99]"
        );
        let v = view_of(&snap, 0x7ffe << 16, Version::V06);
        assert_eq!(v.type_name, "DDNetCharacter");
        assert!(v.short, "{v:?}");
        assert_eq!(v.fields.len(), 4);
        let uuid = crate::packer::calculate_uuid("unknown@example.org");
        let v = view_of(&snap, 0x7ffd << 16, Version::V07);
        assert_eq!(v.type_name, format!("ex:{uuid}"));
        assert_eq!((v.kind, v.extra), (ItemKind::Unknown, vec![5]));
        let v = view_of(&snap, 0x7ffc << 16, Version::V06);
        assert_eq!(v.type_name, "EnvelopeTrigger");
        // Every extended name the snapshot module knows, we know too.
        for (i, (name, _)) in EX.iter().enumerate() {
            let snap = snap_of(&[(0, 0x7000, uuid_ints(name))]);
            if let Some(known) = snap.ex_type_name(0x7000) {
                assert_eq!(known, EX[i].0);
            }
        }
    }

    #[test]
    fn corpus_demo_items() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/corpus/demo/ddnet-20.1/A_join_move_leave.demo"
        );
        let bytes = std::fs::read(path).unwrap();
        let (demo, offsets) = crate::demo::Demo::decode(&bytes).unwrap();
        let mut names = Vec::new();
        let (mut snaps, mut ex_seen) = (0, 0);
        let replay = demo.replay_snapshots(&offsets, |_, tick, snap| {
            snaps += 1;
            for key in keys(snap) {
                let v = view_of(snap, key, Version::V06);
                let line = v.to_text();
                match key >> 16 {
                    1..=20 => {
                        assert!(!v.short && v.extra.is_empty(), "tick {tick}: {line}");
                        if let ("ClientInfo", Value::Text(name)) =
                            (&*v.type_name, &v.fields[0].value)
                        {
                            names.push(name.clone());
                        }
                    }
                    // Registration: UUID and a known name.
                    0 => assert_eq!(v.fields.len(), 2, "tick {tick}: {line}"),
                    t if t >= OFFSET_UUID_TYPE => {
                        ex_seen += 1;
                        assert_ne!(v.kind, ItemKind::Unknown, "tick {tick}: {line}");
                    }
                    _ => panic!("tick {tick}: unexpected {line}"),
                }
            }
        });
        assert!(replay.faults.is_empty(), "{:?}", replay.faults);
        assert!(
            snaps > 0 && ex_seen > 0,
            "{snaps} snapshots, {ex_seen} ex items"
        );
        assert!(
            names
                .iter()
                .any(|n| !n.is_empty() && n.chars().all(|c| !c.is_control() && c != '\u{fffd}')),
            "no plausible name in {names:?}"
        );
    }
}
