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

pub mod check;
mod delta;
mod ints;
pub mod items;
pub mod replay;
mod sizes;

pub use delta::{Delta, DeltaCodec, ItemDelta, apply, create, misfits};
pub use ints::{IntCodec, IntReader, decode_exact_ints};
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

/// One snapshot item, borrowed from its snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Item<'a> {
    /// `type << 16 | id`, as on the wire.
    pub key: i32,
    /// Its data ints.
    pub data: &'a [i32],
}

impl Item<'_> {
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
///
/// Stored as the wire form's item area (each item's key, then its data)
/// plus where each item starts, so that reading, writing and building one
/// is a copy, and a reused `Snapshot` allocates nothing once it has grown.
/// Ints before the first item (an offset table not starting at 0, which
/// DDNet accepts and never writes) are kept, so such a snapshot re-encodes
/// exactly.
///
/// Two items may share a key, as in DDNet 20.1, which neither refuses them
/// (`CSnapshot::IsValid`, `CSnapshotBuilder::NewItemRaw`) nor sees past
/// the first: every lookup by key here takes the first item with it, as
/// `GetItemIndex`, `GetItemIndexHashed` and the builder's
/// `FindItemIndexByKey` do. So [`create`] diffs every item against the
/// first base item with its key and [`apply`] updates the first item with
/// it, and with duplicates `apply(from, create(from, to))` is not `to`, in
/// DDNet as here (`tests/it/snapshots.rs` checks these rules against a plain
/// model of them).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// Index in `area` of each item's key.
    starts: Vec<u32>,
    area: Vec<i32>,
}

// By hand: a derived `clone_from` clones afresh, and a replay copies a
// snapshot into a reused one every tick.
impl Clone for Snapshot {
    fn clone(&self) -> Snapshot {
        Snapshot {
            starts: self.starts.clone(),
            area: self.area.clone(),
        }
    }

    fn clone_from(&mut self, source: &Snapshot) {
        self.starts.clone_from(&source.starts);
        self.area.clone_from(&source.area);
    }
}

impl Serialize for Snapshot {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        struct Items<'a>(&'a Snapshot);
        impl Serialize for Items<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_seq(self.0.items())
            }
        }
        let mut st = s.serialize_struct("Snapshot", 1)?;
        st.serialize_field("items", &Items(self))?;
        st.end()
    }
}

/// Why a snapshot or delta is invalid: where (an index into the int
/// array) and what, with DDNet's error code where it has one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapError {
    /// Index of the int where the fault was found.
    pub at: usize,
    /// What is wrong.
    pub fault: SnapFault,
}

/// The faults of snapshots (`CSnapshot::IsValid`) and deltas
/// (`CSnapshotDelta::UnpackDelta`, whose return codes they carry).
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "fault", rename_all = "snake_case")]
pub enum SnapFault {
    /// Fewer than the two header ints (data size, item count).
    SnapshotTooShort {
        /// Ints there are.
        len: usize,
    },
    /// More bytes than a snapshot may have.
    SnapshotTooLarge {
        /// Its size in bytes.
        bytes: usize,
        /// `CSnapshot::MAX_SIZE`.
        max: usize,
    },
    /// An item count outside `0..=MAX_ITEMS`.
    NumItemsOutOfRange {
        /// The count.
        num_items: i32,
    },
    /// A data size that is negative or not a multiple of 4.
    DataSizeInvalid {
        /// The size in bytes.
        data_size: i32,
    },
    /// The array is not as long as its header says.
    SnapshotSizeMismatch {
        /// Its size in bytes.
        bytes: usize,
        /// The size its header gives.
        expected: usize,
    },
    /// An item offset outside the data or not a multiple of 4.
    ItemOffsetInvalid {
        /// The offset in bytes.
        offset: i32,
        /// The data size.
        data_size: i32,
    },
    /// An item whose offsets give it a negative size.
    ItemSizeNegative {
        /// The item's index.
        index: usize,
        /// Its size in bytes.
        size: i32,
    },
    /// Fewer than the three delta header ints.
    DeltaHeaderTooShort {
        /// Ints there are.
        len: usize,
    },
    /// A negative number of removed items (-201).
    NumDeletedNegative {
        /// The number.
        num_deleted: i32,
    },
    /// The removed keys run past the end (-101).
    DeletedKeysPastEnd {
        /// The number of keys.
        num_deleted: i32,
    },
    /// A negative number of updates (only [`Delta::from_ints`] rejects it:
    /// DDNet updates nothing).
    NumUpdatedNegative {
        /// The number.
        num_updated: i32,
    },
    /// An update's type and id run past the end (-102).
    UpdateHeaderCut,
    /// A type outside `0..=MAX_TYPE` (-202).
    TypeOutOfRange {
        /// The type.
        type_id: i32,
    },
    /// An id outside `0..=MAX_ID` (-203).
    IdOutOfRange {
        /// The id.
        id: i32,
    },
    /// The size of an item without a pre-agreed size runs past the end (-103).
    ItemSizeMissing,
    /// An item size that is negative or too large (-204).
    ItemSizeOutOfRange {
        /// The size in ints.
        size: i32,
    },
    /// An item's data runs past the end (-205).
    ItemDataPastEnd {
        /// Ints of data expected.
        len: usize,
    },
    /// The items the delta keeps do not fit a snapshot (-301).
    KeptItemsDoNotFit,
    /// An update for an item already built with another size (-206).
    SizeDiffersFromKept {
        /// The item's type.
        type_id: i32,
        /// The item's id.
        id: i32,
    },
    /// A new item does not fit the snapshot (-302).
    NewItemDoesNotFit,
    /// An update whose size differs from the base item's (-207).
    SizeDiffersFromBase {
        /// The item's type.
        type_id: i32,
        /// The item's id.
        id: i32,
        /// The base item's size in ints.
        from: usize,
        /// The update's size in ints.
        to: usize,
    },
    /// Ints after the last update (only [`Delta::from_ints`] rejects them:
    /// DDNet ignores them).
    TrailingInts {
        /// How many.
        count: usize,
    },
}

impl SnapFault {
    /// DDNet's `UnpackDelta` return code for this fault, if it is one.
    pub fn code(&self) -> Option<i32> {
        Some(match self {
            SnapFault::DeletedKeysPastEnd { .. } => -101,
            SnapFault::UpdateHeaderCut => -102,
            SnapFault::ItemSizeMissing => -103,
            SnapFault::NumDeletedNegative { .. } => -201,
            SnapFault::TypeOutOfRange { .. } => -202,
            SnapFault::IdOutOfRange { .. } => -203,
            SnapFault::ItemSizeOutOfRange { .. } => -204,
            SnapFault::ItemDataPastEnd { .. } => -205,
            SnapFault::SizeDiffersFromKept { .. } => -206,
            SnapFault::SizeDiffersFromBase { .. } => -207,
            SnapFault::KeptItemsDoNotFit => -301,
            SnapFault::NewItemDoesNotFit => -302,
            _ => return None,
        })
    }
}

impl SnapError {
    /// DDNet's `UnpackDelta` return code (-101..-302), if the fault has one.
    pub fn code(&self) -> Option<i32> {
        self.fault.code()
    }
}

impl Serialize for SnapError {
    /// `{"at": 3, "code": -206, "fault": "size_differs_from_kept", ...,
    /// "message": "..."}`.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Shown<'a> {
            at: usize,
            code: Option<i32>,
            #[serde(flatten)]
            fault: &'a SnapFault,
            message: String,
        }
        Shown {
            at: self.at,
            code: self.code(),
            fault: &self.fault,
            message: self.to_string(),
        }
        .serialize(s)
    }
}

impl fmt::Display for SnapFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            SnapFault::SnapshotTooShort { len } => {
                write!(f, "expected data_size and num_items, found {len} int(s)")
            }
            SnapFault::SnapshotTooLarge { bytes, max } => {
                write!(f, "{bytes} bytes exceed the {max}-byte limit")
            }
            SnapFault::NumItemsOutOfRange { num_items } => {
                write!(f, "num_items {num_items} outside 0..={MAX_ITEMS}")
            }
            SnapFault::DataSizeInvalid { data_size } => write!(
                f,
                "data_size {data_size} is not a non-negative multiple of 4"
            ),
            SnapFault::SnapshotSizeMismatch { bytes, expected } => write!(
                f,
                "the snapshot takes {bytes} bytes, expected {expected} from its header"
            ),
            SnapFault::ItemOffsetInvalid { offset, data_size } => write!(
                f,
                "item offset {offset} outside 0..={data_size} or unaligned"
            ),
            SnapFault::ItemSizeNegative { index, size } => {
                write!(f, "item {index} has size {size}")
            }
            SnapFault::DeltaHeaderTooShort { len } => write!(
                f,
                "expected num_deleted, num_updated and num_temp, found {len} int(s)"
            ),
            SnapFault::NumDeletedNegative { num_deleted } => {
                write!(f, "num_deleted {num_deleted} is negative")
            }
            SnapFault::DeletedKeysPastEnd { num_deleted } => {
                write!(f, "{num_deleted} deleted keys run past the end")
            }
            SnapFault::NumUpdatedNegative { num_updated } => {
                write!(f, "num_updated {num_updated} is negative")
            }
            SnapFault::UpdateHeaderCut => write!(f, "expected an item's type and id"),
            SnapFault::TypeOutOfRange { type_id } => {
                write!(f, "type {type_id} outside 0..={MAX_TYPE}")
            }
            SnapFault::IdOutOfRange { id } => write!(f, "id {id} outside 0..={MAX_ID}"),
            SnapFault::ItemSizeMissing => write!(f, "expected the item's size"),
            SnapFault::ItemSizeOutOfRange { size } => write!(f, "item size {size} out of range"),
            SnapFault::ItemDataPastEnd { len } => {
                write!(f, "{len} ints of item data run past the end")
            }
            SnapFault::KeptItemsDoNotFit => write!(f, "the kept items do not fit a snapshot"),
            SnapFault::SizeDiffersFromKept { type_id, id } => {
                write!(f, "item {type_id}:{id} is already there with another size")
            }
            SnapFault::NewItemDoesNotFit => write!(f, "the new item does not fit the snapshot"),
            SnapFault::SizeDiffersFromBase {
                type_id,
                id,
                from,
                to,
            } => write!(f, "item {type_id}:{id} changes size from {from} to {to}"),
            SnapFault::TrailingInts { count } => {
                write!(f, "{count} int(s) after the last item")
            }
        }
    }
}

impl fmt::Display for SnapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "at int {} (byte {}): {}",
            self.at,
            self.at * 4,
            self.fault
        )?;
        if let Some(code) = self.code() {
            write!(f, " (DDNet error {code})")?;
        }
        Ok(())
    }
}

impl std::error::Error for SnapError {}

fn fail<T>(at: usize, fault: SnapFault) -> Result<T, SnapError> {
    Err(SnapError { at, fault })
}

impl Snapshot {
    /// An empty snapshot.
    pub fn new() -> Snapshot {
        Snapshot::default()
    }

    /// A snapshot of these `(key, data)` items, in this order.
    pub fn from_items<'d>(items: impl IntoIterator<Item = (i32, &'d [i32])>) -> Snapshot {
        let mut snap = Snapshot::new();
        for (key, data) in items {
            snap.push(key, data);
        }
        snap
    }

    /// Reads a snapshot from its int array, with `CSnapshot::IsValid`'s
    /// rules (the array must be exactly the snapshot).
    pub fn from_ints(ints: &[i32]) -> Result<Snapshot, SnapError> {
        decode_exact_ints(ints, ())
    }

    /// [`Snapshot::from_ints`] into `self`, reusing its buffers. On error
    /// `self` is left empty.
    pub fn read_ints(&mut self, ints: &[i32]) -> Result<(), SnapError> {
        self.clear();
        if ints.len() < 2 {
            return fail(ints.len(), SnapFault::SnapshotTooShort { len: ints.len() });
        }
        if ints.len() * 4 > MAX_SIZE {
            return fail(
                0,
                SnapFault::SnapshotTooLarge {
                    bytes: ints.len() * 4,
                    max: MAX_SIZE,
                },
            );
        }
        let (data_size, num_items) = (ints[0], ints[1]);
        if !(0..=MAX_ITEMS as i32).contains(&num_items) {
            return fail(1, SnapFault::NumItemsOutOfRange { num_items });
        }
        if data_size < 0 || data_size % 4 != 0 {
            return fail(0, SnapFault::DataSizeInvalid { data_size });
        }
        let n = num_items as usize;
        let total = 2 + n + data_size as usize / 4;
        if ints.len() != total {
            return fail(
                0,
                SnapFault::SnapshotSizeMismatch {
                    bytes: ints.len() * 4,
                    expected: total * 4,
                },
            );
        }
        let offsets = &ints[2..2 + n];
        // As IsValid: every offset first, then every item size.
        for (i, &offset) in offsets.iter().enumerate() {
            if offset < 0 || offset > data_size || offset % 4 != 0 {
                return fail(2 + i, SnapFault::ItemOffsetInvalid { offset, data_size });
            }
        }
        for (i, &offset) in offsets.iter().enumerate() {
            let end = offsets.get(i + 1).copied().unwrap_or(data_size);
            let size = end - offset - 4;
            if size < 0 {
                return fail(2 + i, SnapFault::ItemSizeNegative { index: i, size });
            }
        }
        self.starts.extend(offsets.iter().map(|&o| o as u32 / 4));
        self.area.extend_from_slice(&ints[2 + n..]);
        Ok(())
    }

    /// The int array (`CSnapshotBuilder::Finish`).
    pub fn to_ints(&self) -> Vec<i32> {
        let mut out = Vec::with_capacity(2 + self.starts.len() + self.area.len());
        self.write_ints(&mut out);
        out
    }

    /// Appends the int array to `out`.
    pub fn write_ints(&self, out: &mut Vec<i32>) {
        out.reserve(2 + self.starts.len() + self.area.len());
        out.push(4 * self.area.len() as i32);
        out.push(self.starts.len() as i32);
        out.extend(self.starts.iter().map(|&s| 4 * s as i32));
        out.extend_from_slice(&self.area);
    }

    /// Removes every item, keeping the buffers.
    pub fn clear(&mut self) {
        self.starts.clear();
        self.area.clear();
    }

    /// Appends an item.
    pub fn push(&mut self, key: i32, data: &[i32]) {
        self.starts.push(self.area.len() as u32);
        self.area.push(key);
        self.area.extend_from_slice(data);
    }

    /// Appends an item of `len` zeros and returns its data.
    pub fn push_zeroed(&mut self, key: i32, len: usize) -> &mut [i32] {
        let start = self.area.len();
        self.starts.push(start as u32);
        self.area.push(key);
        self.area.resize(start + 1 + len, 0);
        &mut self.area[start + 1..]
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// True if there are no items.
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    #[inline]
    pub(crate) fn range(&self, i: usize) -> (usize, usize) {
        let start = self.starts[i] as usize;
        let end = self
            .starts
            .get(i + 1)
            .map_or(self.area.len(), |&s| s as usize);
        (start, end)
    }

    /// The item at position `i`.
    pub fn item(&self, i: usize) -> Item<'_> {
        let (start, end) = self.range(i);
        Item {
            key: self.area[start],
            data: &self.area[start + 1..end],
        }
    }

    /// The data of the item at position `i`, to change in place.
    pub fn data_mut(&mut self, i: usize) -> &mut [i32] {
        let (start, end) = self.range(i);
        &mut self.area[start + 1..end]
    }

    /// The items in wire order.
    pub fn items(&self) -> impl ExactSizeIterator<Item = Item<'_>> + '_ {
        (0..self.len()).map(|i| self.item(i))
    }

    /// The position of the first item with this key.
    pub fn index_of(&self, key: i32) -> Option<usize> {
        self.starts
            .iter()
            .position(|&s| self.area[s as usize] == key)
    }

    /// The first item with this key.
    pub fn get(&self, key: i32) -> Option<Item<'_>> {
        self.index_of(key).map(|i| self.item(i))
    }

    /// `CSnapshot::Crc`: the wrapping sum of every data int, keys excluded.
    pub fn crc(&self) -> i32 {
        // Ints before the first item (or all of them, if there is none)
        // are no item's data.
        let lead = self.starts.first().map_or(self.area.len(), |&s| s as usize);
        let sum = |ints: &[i32]| ints.iter().fold(0u32, |a, &v| a.wrapping_add(v as u32));
        let keys = self
            .starts
            .iter()
            .fold(0u32, |a, &s| a.wrapping_add(self.area[s as usize] as u32));
        sum(&self.area[lead..]).wrapping_sub(keys) as i32
    }

    /// Total size in bytes (`8 + 4 * num_items + data_size`).
    pub fn size(&self) -> usize {
        8 + 4 * (self.starts.len() + self.area.len())
    }

    /// The wire item area: each item's key and data, in order.
    pub(crate) fn area(&self) -> &[i32] {
        &self.area
    }

    /// Index in the item area of item `i`'s key.
    pub(crate) fn start(&self, i: usize) -> usize {
        self.starts[i] as usize
    }
}

/// Internal types at or above this are extended (UUID) types.
pub const OFFSET_UUID_TYPE: i32 = 0x4000;

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
        items::ex_name(&self.ex_type_uuid(internal_type)?)
    }
}

#[cfg(test)]
mod tests;
