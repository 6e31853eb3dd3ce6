//! Snapshots and snapshot deltas, as DDNet's `snapshot.cpp` makes and reads
//! them.
//!
//! A snapshot is an int32 array: `data_size, num_items, offsets[num_items]`,
//! then per item `key = type << 16 | id` and its data. Items keep their wire
//! order (DDNet never sorts them). A delta is `num_deleted, num_updated,
//! num_temp, deleted keys`, then per update `type, id, [size], data`, the
//! size present only for types without a pre-agreed size. [`apply`] is
//! `UnpackDelta` and [`create`] is `CreateDelta`, down to their error codes,
//! output order and hash-bucket limit.

mod sizes;

pub use sizes::ItemSizes;

use serde::Serialize;
use std::fmt;

/// Largest snapshot in bytes (`CSnapshot::MAX_SIZE`).
pub const MAX_SIZE: usize = 64 * 1024;
/// Most items in a snapshot (`CSnapshot::MAX_ITEMS`).
pub const MAX_ITEMS: usize = 1024;
/// Largest item type (`CSnapshot::MAX_TYPE`).
pub const MAX_TYPE: i32 = 0x7fff;
/// Largest item id (`CSnapshot::MAX_ID`).
pub const MAX_ID: i32 = 0xffff;

/// One snapshot item.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Item {
    /// `type << 16 | id`, as on the wire.
    pub key: i32,
    pub data: Vec<i32>,
}

impl Item {
    /// The item type (`key >> 16`).
    pub fn type_id(&self) -> i32 {
        self.key >> 16
    }

    /// The item id (`key & 0xffff`).
    pub fn id(&self) -> i32 {
        self.key & 0xffff
    }
}

/// A full snapshot, items in wire order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Snapshot {
    pub items: Vec<Item>,
}

/// Why a snapshot or delta is invalid, with where (an index into the int
/// array) and DDNet's error code where it has one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SnapError {
    /// Index of the int where the fault was found.
    pub at: usize,
    /// DDNet's `UnpackDelta` return code (-101..-302), if it is one of those.
    pub code: Option<i32>,
    pub what: String,
}

impl fmt::Display for SnapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "at int {} (byte {}): {}",
            self.at,
            self.at * 4,
            self.what
        )?;
        if let Some(code) = self.code {
            write!(f, " (DDNet error {code})")?;
        }
        Ok(())
    }
}

impl std::error::Error for SnapError {}

fn fail<T>(at: usize, code: Option<i32>, what: impl Into<String>) -> Result<T, SnapError> {
    Err(SnapError {
        at,
        code,
        what: what.into(),
    })
}

impl Snapshot {
    /// Reads a snapshot from its int array, with `CSnapshot::IsValid`'s
    /// rules (the array must be exactly the snapshot).
    pub fn from_ints(ints: &[i32]) -> Result<Snapshot, SnapError> {
        if ints.len() < 2 {
            return fail(ints.len(), None, "expected data_size and num_items");
        }
        if ints.len() * 4 > MAX_SIZE {
            return fail(
                0,
                None,
                format!("{} bytes exceed the {MAX_SIZE}-byte limit", ints.len() * 4),
            );
        }
        let (data_size, num_items) = (ints[0], ints[1]);
        if !(0..=MAX_ITEMS as i32).contains(&num_items) {
            return fail(
                1,
                None,
                format!("num_items {num_items} outside 0..={MAX_ITEMS}"),
            );
        }
        if data_size < 0 || data_size % 4 != 0 {
            return fail(
                0,
                None,
                format!("data_size {data_size} is not a non-negative multiple of 4"),
            );
        }
        let n = num_items as usize;
        let total = 2 + n + data_size as usize / 4;
        if ints.len() != total {
            return fail(
                0,
                None,
                format!(
                    "the snapshot takes {} bytes, expected {} from its header",
                    ints.len() * 4,
                    total * 4
                ),
            );
        }
        let offsets = &ints[2..2 + n];
        let data = &ints[2 + n..];
        // As IsValid: every offset first, then every item size.
        for (i, &offset) in offsets.iter().enumerate() {
            if offset < 0 || offset > data_size || offset % 4 != 0 {
                return fail(
                    2 + i,
                    None,
                    format!("item offset {offset} outside 0..={data_size} or unaligned"),
                );
            }
        }
        if offsets.first().is_some_and(|&o| o != 0) {
            // DDNet's builder never writes this and teeoracle does not yet
            // keep bytes before the first item, so it cannot re-encode it.
            return fail(
                2,
                None,
                "the first item does not start at offset 0 (not supported)",
            );
        }
        let mut items = Vec::with_capacity(n);
        for (i, &offset) in offsets.iter().enumerate() {
            let end = offsets.get(i + 1).copied().unwrap_or(data_size);
            let size = end - offset - 4;
            if size < 0 {
                return fail(2 + i, None, format!("item {i} has size {size}"));
            }
            let start = offset as usize / 4;
            items.push(Item {
                key: data[start],
                data: data[start + 1..start + 1 + size as usize / 4].to_vec(),
            });
        }
        Ok(Snapshot { items })
    }

    /// The int array (`CSnapshotBuilder::Finish`).
    pub fn to_ints(&self) -> Vec<i32> {
        let data_size: usize = self.items.iter().map(|i| 4 + 4 * i.data.len()).sum();
        let mut out = Vec::with_capacity(2 + self.items.len() + data_size / 4);
        out.push(data_size as i32);
        out.push(self.items.len() as i32);
        let mut offset = 0;
        for item in &self.items {
            out.push(offset);
            offset += 4 + 4 * item.data.len() as i32;
        }
        for item in &self.items {
            out.push(item.key);
            out.extend_from_slice(&item.data);
        }
        out
    }

    /// `CSnapshot::Crc`: the wrapping sum of every data int, keys excluded.
    pub fn crc(&self) -> i32 {
        self.items
            .iter()
            .flat_map(|i| &i.data)
            .fold(0u32, |sum, &v| sum.wrapping_add(v as u32)) as i32
    }

    /// The first item with this key.
    pub fn get(&self, key: i32) -> Option<&Item> {
        self.items.iter().find(|i| i.key == key)
    }

    /// Total size in bytes (`8 + 4 * num_items + data_size`).
    pub fn size(&self) -> usize {
        8 + self
            .items
            .iter()
            .map(|i| 8 + 4 * i.data.len())
            .sum::<usize>()
    }
}

/// Internal types at or above this are extended (UUID) types.
pub const OFFSET_UUID_TYPE: i32 = 0x4000;

/// DDNet's netobj/netevent names registered by UUID (for display).
const EX_NAMES: &[&str] = &[
    "my-own-object@heinrich5991.de",
    "character@netobj.ddnet.tw",
    "player@netobj.ddnet.tw",
    "gameinfo@netobj.ddnet.tw",
    "projectile@netobj.ddnet.tw",
    "laser@netobj.ddnet.tw",
    "ddnet-projectile@netobj.ddnet.tw",
    "pickup@netobj.ddnet.tw",
    "spectator-info@netobj.ddnet.org",
    "spectator-count@netobj.ddnet.org",
    "birthday@netevent.ddnet.org",
    "finish@netevent.ddnet.org",
    "my-own-event@heinrich5991.de",
    "spec-char@netobj.ddnet.tw",
    "switch-state@netobj.ddnet.tw",
    "entity-ex@netobj.ddnet.tw",
    "map-best-time@netobj.ddnet.org",
    "map-sound-world@netevent.ddnet.org",
];

impl Snapshot {
    /// The UUID an extended internal type stands for, from its registration
    /// item (type 0, id = the internal type, the UUID as 4 big-endian ints).
    pub fn ex_type_uuid(&self, internal_type: i32) -> Option<uuid::Uuid> {
        if internal_type < OFFSET_UUID_TYPE {
            return None;
        }
        let reg = self.get(internal_type)?; // key (0 << 16) | internal_type
        let words: [i32; 4] = reg.data.get(..4)?.try_into().ok()?;
        let mut bytes = [0u8; 16];
        for (chunk, w) in bytes.chunks_mut(4).zip(words) {
            chunk.copy_from_slice(&w.to_be_bytes());
        }
        Some(uuid::Uuid::from_bytes(bytes))
    }

    /// DDNet's name for an extended internal type, if registered and known.
    pub fn ex_type_name(&self, internal_type: i32) -> Option<&'static str> {
        let uuid = self.ex_type_uuid(internal_type)?;
        EX_NAMES
            .iter()
            .copied()
            .find(|n| crate::packer::calculate_uuid(n) == uuid)
    }
}

/// One updated item of a delta.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ItemDelta {
    pub type_id: i32,
    pub id: i32,
    /// The size field, present on the wire only for types without a
    /// pre-agreed size.
    pub size: Option<i32>,
    /// New data (a new item) or the difference to add (an updated item).
    pub data: Vec<i32>,
}

/// A snapshot delta as on the wire.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Delta {
    /// Keys of items removed from the base, in the order given.
    pub removed: Vec<i32>,
    pub updates: Vec<ItemDelta>,
    /// The `num_temp` field: always 0 from DDNet, kept as read.
    pub num_temp: i32,
}

impl Delta {
    /// Reads a delta; `sizes` says which types have a pre-agreed size. An
    /// empty array is DDNet's empty delta (nothing changed).
    pub fn from_ints(ints: &[i32], sizes: &ItemSizes) -> Result<Delta, SnapError> {
        if ints.is_empty() {
            return Ok(Delta::default());
        }
        if ints.len() < 3 {
            return fail(
                ints.len(),
                None,
                "expected num_deleted, num_updated and num_temp",
            );
        }
        let (num_deleted, num_updated, num_temp) = (ints[0], ints[1], ints[2]);
        if num_deleted < 0 {
            return fail(
                0,
                Some(-201),
                format!("num_deleted {num_deleted} is negative"),
            );
        }
        let mut at = 3;
        let end = at + num_deleted as usize;
        let Some(removed) = ints.get(at..end) else {
            return fail(
                ints.len(),
                Some(-101),
                format!("{num_deleted} deleted keys run past the end"),
            );
        };
        at = end;
        let mut updates = Vec::new();
        for _ in 0..num_updated.max(0) {
            let (Some(&type_id), Some(&id)) = (ints.get(at), ints.get(at + 1)) else {
                return fail(at, Some(-102), "expected an item's type and id");
            };
            if !(0..=MAX_TYPE).contains(&type_id) {
                return fail(
                    at,
                    Some(-202),
                    format!("type {type_id} outside 0..={MAX_TYPE}"),
                );
            }
            if !(0..=MAX_ID).contains(&id) {
                return fail(at + 1, Some(-203), format!("id {id} outside 0..={MAX_ID}"));
            }
            at += 2;
            let (size, len) = match sizes.get(type_id) {
                Some(len) => (None, len),
                None => {
                    let Some(&size) = ints.get(at) else {
                        return fail(at, Some(-103), "expected the item's size");
                    };
                    if !(0..=i32::MAX / 4).contains(&size) {
                        return fail(at, Some(-204), format!("item size {size} out of range"));
                    }
                    at += 1;
                    (Some(size), size as usize)
                }
            };
            let Some(data) = ints.get(at..at + len) else {
                return fail(
                    at,
                    Some(-205),
                    format!("{len} ints of item data run past the end"),
                );
            };
            at += len;
            updates.push(ItemDelta {
                type_id,
                id,
                size,
                data: data.to_vec(),
            });
        }
        if at != ints.len() {
            return fail(
                at,
                None,
                format!("{} int(s) after the last item", ints.len() - at),
            );
        }
        Ok(Delta {
            removed: removed.to_vec(),
            updates,
            num_temp,
        })
    }

    /// The int array; an empty delta (no removals, no updates, num_temp 0)
    /// is no ints at all, as `CreateDelta` returns 0.
    pub fn to_ints(&self) -> Vec<i32> {
        if self.removed.is_empty() && self.updates.is_empty() && self.num_temp == 0 {
            return Vec::new();
        }
        let mut out = vec![
            self.removed.len() as i32,
            self.updates.len() as i32,
            self.num_temp,
        ];
        out.extend_from_slice(&self.removed);
        for u in &self.updates {
            out.extend([u.type_id, u.id]);
            out.extend(u.size);
            out.extend_from_slice(&u.data);
        }
        out
    }
}

/// `CSnapshotBuilder`'s limits: at most 1024 items, at most 64 KiB.
fn builder_fits(items: usize, data_ints: usize, new_len: usize) -> bool {
    items < MAX_ITEMS && 8 + 4 * (items + 1) + 4 * data_ints + 4 + 4 * new_len <= MAX_SIZE
}

/// `CSnapshotDelta::UnpackDelta`: the snapshot `delta` turns `from` into.
/// Output order: the kept base items in base order, then new items in
/// delta order; updated items keep their place.
pub fn apply(from: &Snapshot, delta: &Delta) -> Result<Snapshot, SnapError> {
    let mut out: Vec<Item> = Vec::with_capacity(from.items.len() + delta.updates.len());
    let mut data_ints = 0;
    for item in &from.items {
        if delta.removed.contains(&item.key) {
            continue;
        }
        if !builder_fits(out.len(), data_ints, item.data.len()) {
            return fail(0, Some(-301), "the kept items do not fit a snapshot");
        }
        data_ints += 1 + item.data.len();
        out.push(item.clone());
    }
    let mut at = 3 + delta.removed.len();
    for u in &delta.updates {
        let key = u.type_id << 16 | u.id;
        // DDNet finds or creates the item in the builder first (-206,
        // -302), then applies the difference to the base item (-207).
        let slot = match out.iter().position(|i| i.key == key) {
            Some(k) if out[k].data.len() != u.data.len() => {
                return fail(
                    at,
                    Some(-206),
                    format!(
                        "item {}:{} is already there with another size",
                        u.type_id, u.id
                    ),
                );
            }
            Some(k) => k,
            None => {
                if !builder_fits(out.len(), data_ints, u.data.len()) {
                    return fail(at, Some(-302), "the new item does not fit the snapshot");
                }
                data_ints += 1 + u.data.len();
                out.push(Item {
                    key,
                    data: vec![0; u.data.len()],
                });
                out.len() - 1
            }
        };
        out[slot].data = match from.get(key) {
            Some(past) if past.data.len() != u.data.len() => {
                return fail(
                    at,
                    Some(-207),
                    format!(
                        "item {}:{} changes size from {} to {}",
                        u.type_id,
                        u.id,
                        past.data.len(),
                        u.data.len()
                    ),
                );
            }
            Some(past) => past
                .data
                .iter()
                .zip(&u.data)
                .map(|(p, d)| p.wrapping_add(*d))
                .collect(),
            None => u.data.clone(),
        };
        at += 2 + usize::from(u.size.is_some()) + u.data.len();
    }
    Ok(Snapshot { items: out })
}

/// DDNet's key hash for delta creation: djb2 over the key's 4 bytes (LSB
/// first), 256 buckets of at most 64 keys each.
struct KeyHash {
    buckets: Vec<Vec<(i32, usize)>>,
}

const HASH_BUCKETS: usize = 256;
const BUCKET_SIZE: usize = 64;

impl KeyHash {
    fn bucket(key: i32) -> usize {
        let mut hash: u32 = 5381;
        for shift in [0, 8, 16, 24] {
            hash = (hash << 5)
                .wrapping_add(hash)
                .wrapping_add(((key >> shift) & 0xff) as u32);
        }
        hash as usize % HASH_BUCKETS
    }

    fn new(snap: &Snapshot) -> KeyHash {
        let mut buckets = vec![Vec::new(); HASH_BUCKETS];
        for (i, item) in snap.items.iter().enumerate() {
            let b: &mut Vec<(i32, usize)> = &mut buckets[Self::bucket(item.key)];
            // Keys past a full bucket are simply not found.
            if b.len() < BUCKET_SIZE {
                b.push((item.key, i));
            }
        }
        KeyHash { buckets }
    }

    fn find(&self, key: i32) -> Option<usize> {
        self.buckets[Self::bucket(key)]
            .iter()
            .find(|(k, _)| *k == key)
            .map(|&(_, i)| i)
    }
}

/// `CSnapshotDelta::CreateDelta`: removed items in base order, then every
/// item of `to` that is new or changed, in `to` order; unchanged items are
/// left out, and an empty delta has no ints at all.
pub fn create(from: &Snapshot, to: &Snapshot, sizes: &ItemSizes) -> Delta {
    let to_hash = KeyHash::new(to);
    let removed = from
        .items
        .iter()
        .filter(|i| to_hash.find(i.key).is_none())
        .map(|i| i.key)
        .collect();
    let from_hash = KeyHash::new(from);
    let mut updates = Vec::new();
    for item in &to.items {
        let size = sizes
            .get(item.type_id())
            .is_none()
            .then_some(item.data.len() as i32);
        let data = match from_hash.find(item.key) {
            Some(past) => {
                let past = &from.items[past].data;
                // The difference over the current item's size (DDNet reads
                // the past item at the same length).
                let diff: Vec<i32> = item
                    .data
                    .iter()
                    .enumerate()
                    .map(|(k, v)| v.wrapping_sub(past.get(k).copied().unwrap_or(0)))
                    .collect();
                if diff.iter().all(|&d| d == 0) {
                    continue;
                }
                diff
            }
            None => item.data.clone(),
        };
        updates.push(ItemDelta {
            type_id: item.type_id(),
            id: item.id(),
            size,
            data,
        });
    }
    Delta {
        removed,
        updates,
        num_temp: 0,
    }
}

#[cfg(test)]
mod tests;
