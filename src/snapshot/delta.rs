//! Snapshot deltas: the wire form as a value ([`Delta`]), and DDNet's
//! `CreateDelta` and `UnpackDelta` ([`DeltaCodec`]), which work on the int
//! arrays directly so that a reused codec and snapshot allocate nothing.

use super::{
    Item, ItemSizes, MAX_ID, MAX_ITEMS, MAX_SIZE, MAX_TYPE, SnapError, SnapFault, Snapshot, fail,
};
use serde::Serialize;

/// One updated item of a delta.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ItemDelta {
    /// The item type.
    pub type_id: i32,
    /// The item id.
    pub id: i32,
    /// The size field, present on the wire only for types without a
    /// pre-agreed size.
    pub size: Option<i32>,
    /// New data (a new item) or the difference to add (an updated item).
    pub data: Vec<i32>,
}

/// A snapshot delta as on the wire, every int accounted for.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Delta {
    /// Keys of items removed from the base, in the order given.
    pub removed: Vec<i32>,
    /// New and changed items, in wire order.
    pub updates: Vec<ItemDelta>,
    /// The `num_temp` field: always 0 from DDNet, kept as read.
    pub num_temp: i32,
}

/// A delta's header: the removed keys, `num_temp`, and the updates still
/// to read.
struct Header<'a> {
    removed: &'a [i32],
    num_temp: i32,
    updates: Updates<'a>,
}

/// Reads the header as `UnpackDelta` does (-201, -101). An empty array is
/// DDNet's empty delta and reads as `{0, 0, 0}`.
fn header<'a>(ints: &'a [i32], sizes: &'a ItemSizes) -> Result<Header<'a>, SnapError> {
    if ints.is_empty() {
        return Ok(Header {
            removed: &[],
            num_temp: 0,
            updates: Updates {
                ints,
                at: 0,
                left: 0,
                sizes,
            },
        });
    }
    if ints.len() < 3 {
        return fail(
            ints.len(),
            SnapFault::DeltaHeaderTooShort { len: ints.len() },
        );
    }
    let (num_deleted, num_updated, num_temp) = (ints[0], ints[1], ints[2]);
    if num_deleted < 0 {
        return fail(0, SnapFault::NumDeletedNegative { num_deleted });
    }
    let end = 3 + num_deleted as usize;
    let Some(removed) = ints.get(3..end) else {
        return fail(ints.len(), SnapFault::DeletedKeysPastEnd { num_deleted });
    };
    Ok(Header {
        removed,
        num_temp,
        updates: Updates {
            ints,
            at: end,
            // A negative count updates nothing, as in DDNet.
            left: num_updated.max(0) as usize,
            sizes,
        },
    })
}

/// One update as read, borrowed from the delta.
struct Update<'a> {
    /// Index of its type int, and of its first data int.
    at: usize,
    data_at: usize,
    type_id: i32,
    id: i32,
    size: Option<i32>,
    data: &'a [i32],
}

impl Update<'_> {
    fn key(&self) -> i32 {
        self.type_id << 16 | self.id
    }
}

/// The updates of a delta, each read with `UnpackDelta`'s checks in its
/// order (-102, -202, -203, -103, -204, -205).
struct Updates<'a> {
    ints: &'a [i32],
    at: usize,
    left: usize,
    sizes: &'a ItemSizes,
}

impl<'a> Updates<'a> {
    #[inline(always)]
    fn next_update(&mut self) -> Option<Result<Update<'a>, SnapError>> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let r = self.read();
        if r.is_err() {
            self.left = 0;
        }
        Some(r)
    }

    #[inline(always)]
    fn read(&mut self) -> Result<Update<'a>, SnapError> {
        let (ints, at) = (self.ints, self.at);
        let (Some(&type_id), Some(&id)) = (ints.get(at), ints.get(at + 1)) else {
            return fail(at, SnapFault::UpdateHeaderCut);
        };
        if !(0..=MAX_TYPE).contains(&type_id) {
            return fail(at, SnapFault::TypeOutOfRange { type_id });
        }
        if !(0..=MAX_ID).contains(&id) {
            return fail(at + 1, SnapFault::IdOutOfRange { id });
        }
        let mut data_at = at + 2;
        let (size, len) = match self.sizes.get(type_id) {
            Some(len) => (None, len),
            None => {
                let Some(&size) = ints.get(data_at) else {
                    return fail(data_at, SnapFault::ItemSizeMissing);
                };
                if !(0..=i32::MAX / 4).contains(&size) {
                    return fail(data_at, SnapFault::ItemSizeOutOfRange { size });
                }
                data_at += 1;
                (Some(size), size as usize)
            }
        };
        let Some(data) = ints.get(data_at..data_at + len) else {
            return fail(data_at, SnapFault::ItemDataPastEnd { len });
        };
        self.at = data_at + len;
        Ok(Update {
            at,
            data_at,
            type_id,
            id,
            size,
            data,
        })
    }
}

impl Delta {
    /// Reads a delta; `sizes` says which types have a pre-agreed size. An
    /// empty array is DDNet's empty delta (nothing changed). Stricter than
    /// `UnpackDelta` where the value could not be written back: a negative
    /// update count and ints after the last update are errors here.
    pub fn from_ints(ints: &[i32], sizes: &ItemSizes) -> Result<Delta, SnapError> {
        super::ints::decode_exact_ints(ints, sizes)
    }

    /// Reads a delta from the start of `ints`; returns it and how many ints
    /// it took.
    pub(super) fn read(ints: &[i32], sizes: &ItemSizes) -> Result<(Delta, usize), SnapError> {
        let Header {
            removed,
            num_temp,
            mut updates,
        } = header(ints, sizes)?;
        if ints.get(1).is_some_and(|&n| n < 0) {
            let num_updated = ints[1];
            return fail(1, SnapFault::NumUpdatedNegative { num_updated });
        }
        let mut out = Vec::new();
        while let Some(u) = updates.next_update() {
            let u = u?;
            out.push(ItemDelta {
                type_id: u.type_id,
                id: u.id,
                size: u.size,
                data: u.data.to_vec(),
            });
        }
        let delta = Delta {
            removed: removed.to_vec(),
            updates: out,
            num_temp,
        };
        Ok((delta, updates.at))
    }

    /// The int array; an empty delta (no removals, no updates, num_temp 0)
    /// is no ints at all, as `CreateDelta` returns 0.
    pub fn to_ints(&self) -> Vec<i32> {
        let mut out = Vec::new();
        self.write_ints(&mut out);
        out
    }

    /// Appends the int array to `out` (see [`Delta::to_ints`]).
    pub fn write_ints(&self, out: &mut Vec<i32>) {
        if self.removed.is_empty() && self.updates.is_empty() && self.num_temp == 0 {
            return;
        }
        out.extend([
            self.removed.len() as i32,
            self.updates.len() as i32,
            self.num_temp,
        ]);
        out.extend_from_slice(&self.removed);
        for u in &self.updates {
            out.extend([u.type_id, u.id]);
            out.extend(u.size);
            out.extend_from_slice(&u.data);
        }
    }
}

/// `CSnapshotBuilder`'s limits: at most 1024 items, at most 64 KiB.
fn builder_fits(items: usize, area_ints: usize, new_len: usize) -> bool {
    items < MAX_ITEMS && 8 + 4 * (items + 1) + 4 * area_ints + 4 + 4 * new_len <= MAX_SIZE
}

/// DDNet's `CSnapshotDelta`: one item size table and the scratch space
/// `create` and `unpack` reuse, so that steady-state use allocates nothing.
#[derive(Clone, Debug)]
pub struct DeltaCodec {
    sizes: ItemSizes,
    /// `unpack`: the base's keys, the removed keys (when there are many),
    /// the new items' keys, and where each base item went in the output.
    from_index: KeyIndex,
    removed_index: KeyIndex,
    new_index: KeyIndex,
    kept_at: Vec<u32>,
    hash_to: KeyHash,
    hash_from: KeyHash,
    /// `unpack_in_place`: the base layout last seen, and the updates read.
    layout: Layout,
    places: Vec<Place>,
}

/// An update `unpack_in_place` checked: a kept item, or a new one.
#[derive(Clone, Copy, Debug)]
struct Place {
    item: Option<usize>,
    key: i32,
    /// The update's data in the delta.
    at: usize,
    len: usize,
}

impl DeltaCodec {
    /// A codec for this item size table.
    pub fn new(sizes: ItemSizes) -> DeltaCodec {
        DeltaCodec {
            sizes,
            from_index: KeyIndex::default(),
            removed_index: KeyIndex::default(),
            new_index: KeyIndex::default(),
            kept_at: Vec::new(),
            hash_to: KeyHash::default(),
            hash_from: KeyHash::default(),
            layout: Layout::default(),
            places: Vec::new(),
        }
    }

    /// The pre-agreed item sizes in use.
    pub fn sizes(&self) -> &ItemSizes {
        &self.sizes
    }

    /// `CSnapshotDelta::UnpackDelta`: the snapshot `delta` turns `from`
    /// into, written to `out`. Output order: the kept base items in base
    /// order, then new items in delta order; updated items keep their
    /// place. Faults are DDNet's, in DDNet's order (parsing and applying
    /// are one pass, as there). Ints after the last update are ignored, as
    /// DDNet does. On error `out` holds what was built so far.
    pub fn unpack(
        &mut self,
        from: &Snapshot,
        delta: &[i32],
        out: &mut Snapshot,
    ) -> Result<(), SnapError> {
        out.clear();
        let Header {
            removed,
            mut updates,
            ..
        } = header(delta, &self.sizes)?;
        // A few removed keys are faster to scan than to hash.
        let many_removed = removed.len() > 16;
        if many_removed {
            self.removed_index.reset(removed.len());
            for &key in removed {
                self.removed_index.insert_first(key, 0);
            }
        }
        let (from_index, new_index, kept_at) =
            (&mut self.from_index, &mut self.new_index, &mut self.kept_at);
        from_index.reset(from.len());
        kept_at.clear();
        // Kept items are copied in runs: consecutive ones are contiguous
        // in the base's item area.
        let area = from.area();
        // Kept items are a subset of the base, so when the whole base
        // fits the builder, each of them does.
        let all_fit =
            from.is_empty() || builder_fits(from.len() - 1, area.len() - from.start(0) - 1, 0);
        let mut run: Option<usize> = None;
        let mut out_area = 0;
        for i in 0..from.len() {
            let (start, end) = from.range(i);
            let key = area[start];
            from_index.insert_first(key, i);
            let is_removed = if many_removed {
                self.removed_index.get(key).is_some()
            } else {
                removed.contains(&key)
            };
            if is_removed {
                if let Some(r) = run.take() {
                    out.area.extend_from_slice(&area[r..start]);
                }
                kept_at.push(u32::MAX);
                continue;
            }
            if !all_fit && !builder_fits(out.len(), out_area, end - start - 1) {
                if let Some(r) = run {
                    out.area.extend_from_slice(&area[r..start]);
                }
                return fail(0, SnapFault::KeptItemsDoNotFit);
            }
            run.get_or_insert(start);
            kept_at.push(out.len() as u32);
            out.starts.push(out_area as u32);
            out_area += end - start;
        }
        if let Some(r) = run {
            out.area.extend_from_slice(&area[r..]);
        }
        new_index.reset(updates.left.min(MAX_ITEMS));
        while let Some(u) = updates.next_update() {
            let u = u?;
            let key = u.key();
            // The builder's first item with this key: the base's first one
            // if it was kept (all items of a key go together), else a new
            // one. DDNet finds or creates it first (-206, -302), then
            // applies the difference to the base item (-207).
            let past = from_index.get(key);
            let in_builder = past
                .map(|p| kept_at[p])
                .filter(|&k| k != u32::MAX)
                .map(|k| k as usize)
                .or_else(|| new_index.get(key));
            let slot = match in_builder {
                Some(k) if out.item(k).data.len() != u.data.len() => {
                    let (type_id, id) = (u.type_id, u.id);
                    return fail(u.at, SnapFault::SizeDiffersFromKept { type_id, id });
                }
                Some(k) => k,
                None => {
                    if !builder_fits(out.len(), out.area().len(), u.data.len()) {
                        return fail(u.at, SnapFault::NewItemDoesNotFit);
                    }
                    new_index.insert_first(key, out.len());
                    out.push_zeroed(key, u.data.len());
                    out.len() - 1
                }
            };
            let past = past.map(|i| from.item(i).data);
            let dst = out.data_mut(slot);
            match past {
                Some(past) if past.len() != u.data.len() => {
                    let fault = SnapFault::SizeDiffersFromBase {
                        type_id: u.type_id,
                        id: u.id,
                        from: past.len(),
                        to: u.data.len(),
                    };
                    return fail(u.at, fault);
                }
                Some(past) => {
                    for ((d, p), x) in dst.iter_mut().zip(past).zip(u.data) {
                        *d = p.wrapping_add(*x);
                    }
                }
                None => dst.copy_from_slice(u.data),
            }
        }
        Ok(())
    }

    /// [`DeltaCodec::unpack`] with `snap` as both base and output, for the
    /// deltas a demo mostly has: the removed items are the base's last
    /// ones (events added by the previous delta), every update changes a
    /// different kept item (the first with its key) to the same size or
    /// adds an item the base does not have, and everything fits. The
    /// result is what `unpack` builds, without copying the base or
    /// indexing it again while its layout stays the same. Any other delta,
    /// faulty ones included, returns false and leaves `snap` unchanged:
    /// use `unpack` for it.
    pub fn unpack_in_place(&mut self, snap: &mut Snapshot, delta: &[i32]) -> bool {
        let Ok(Header {
            removed,
            mut updates,
            ..
        }) = header(delta, &self.sizes)
        else {
            return false;
        };
        // `unpack` builds afresh: ints before the first item are not kept,
        // and the kept items must fit the builder (-301).
        let lead = snap.starts.first().map_or(snap.area.len(), |&s| s as usize);
        let all_fit = snap.is_empty() || builder_fits(snap.len() - 1, snap.area.len() - 1, 0);
        if lead != 0 || !all_fit || removed.len() > 16 {
            return false;
        }
        let layout = &mut self.layout;
        layout.track(snap);
        let mut kept = snap.len();
        while kept > 0 && removed.contains(&layout.keys[kept - 1]) {
            kept -= 1;
        }
        if removed
            .iter()
            .any(|&r| layout.index.get(r).is_some_and(|i| i < kept))
        {
            return false;
        }
        // Everything is checked before anything changes.
        let generation = layout.next_generation();
        let kept_end = snap
            .starts
            .get(kept)
            .map_or(snap.area.len(), |&s| s as usize);
        let (mut items, mut area) = (kept, kept_end);
        self.places.clear();
        self.new_index.reset(updates.left.min(MAX_ITEMS));
        while let Some(u) = updates.next_update() {
            let Ok(u) = u else { return false };
            let (at, len) = (u.data_at, u.data.len());
            match layout.index.get(u.key()) {
                Some(i) if i < kept => {
                    if snap.item(i).data.len() != u.data.len() || layout.touched[i] == generation {
                        return false;
                    }
                    layout.touched[i] = generation;
                    self.places.push(Place {
                        item: Some(i),
                        key: u.key(),
                        at,
                        len,
                    });
                }
                // A removed item given again: `unpack` diffs it.
                Some(_) => return false,
                None => {
                    if self.new_index.get(u.key()).is_some()
                        || !builder_fits(items, area, u.data.len())
                    {
                        return false;
                    }
                    self.new_index.insert_first(u.key(), items);
                    items += 1;
                    area += 1 + u.data.len();
                    self.places.push(Place {
                        item: None,
                        key: u.key(),
                        at,
                        len,
                    });
                }
            }
        }
        snap.starts.truncate(kept);
        snap.area.truncate(kept_end);
        for p in &self.places {
            let data = &delta[p.at..p.at + p.len];
            match p.item {
                Some(i) => {
                    for (d, x) in snap.data_mut(i).iter_mut().zip(data) {
                        *d = d.wrapping_add(*x);
                    }
                }
                None => snap.push(p.key, data),
            }
        }
        true
    }

    /// `CSnapshotDelta::CreateDelta`, written to `out` (cleared first):
    /// removed items in base order, then every item of `to` that is new or
    /// changed, in `to` order; unchanged items are left out, and an empty
    /// delta has no ints at all. Keys past the 64th in one of DDNet's hash
    /// buckets are not found, as in DDNet.
    pub fn create(&mut self, from: &Snapshot, to: &Snapshot, out: &mut Vec<i32>) {
        out.clear();
        out.extend([0, 0, 0]);
        self.hash_to.build(to);
        let mut num_deleted = 0;
        for item in from.items() {
            if self.hash_to.find(item.key).is_none() {
                out.push(item.key);
                num_deleted += 1;
            }
        }
        self.hash_from.build(from);
        let mut num_updated = 0;
        let area = from.area();
        for item in to.items() {
            let n = item.data.len();
            // The difference is over the current item's size: DDNet reads
            // the past item at that length even if it is shorter, running
            // into the ints after it (0 past the end of the snapshot).
            let past = self.hash_from.find(item.key).map(|p| {
                let past = area.get(from.start(p) + 1..).unwrap_or(&[]);
                &past[..n.min(past.len())]
            });
            // Unchanged (every difference 0): left out.
            let unchanged = |past: &[i32]| {
                past == &item.data[..past.len()] && item.data[past.len()..].iter().all(|&v| v == 0)
            };
            if past.is_some_and(unchanged) {
                continue;
            }
            out.extend([item.type_id(), item.id()]);
            if self.sizes.get(item.type_id()).is_none() {
                out.push(n as i32);
            }
            let past = past.unwrap_or(&[]);
            out.extend(item.data.iter().zip(past).map(|(v, p)| v.wrapping_sub(*p)));
            out.extend_from_slice(&item.data[past.len()..]);
            num_updated += 1;
        }
        if num_deleted == 0 && num_updated == 0 {
            out.clear();
        } else {
            out[0] = num_deleted;
            out[1] = num_updated;
        }
    }
}

/// [`DeltaCodec::unpack`] into a new snapshot.
pub fn apply(from: &Snapshot, delta: &[i32], sizes: &ItemSizes) -> Result<Snapshot, SnapError> {
    let mut out = Snapshot::new();
    DeltaCodec::new(sizes.clone()).unpack(from, delta, &mut out)?;
    Ok(out)
}

/// [`DeltaCodec::create`] into a new int array.
pub fn create(from: &Snapshot, to: &Snapshot, sizes: &ItemSizes) -> Vec<i32> {
    let mut out = Vec::new();
    DeltaCodec::new(sizes.clone()).create(from, to, &mut out);
    out
}

/// Key to position, first occurrence wins (as DDNet's linear searches
/// find the first match). Open addressing; `reset` is O(1) amortised by
/// stamping slots with a generation instead of clearing them.
#[derive(Clone, Debug, Default)]
struct KeyIndex {
    /// (generation, key, position).
    slots: Vec<(u32, i32, u32)>,
    generation: u32,
}

impl KeyIndex {
    fn reset(&mut self, n: usize) {
        let want = (2 * n).next_power_of_two().max(16);
        self.generation = self.generation.wrapping_add(1);
        if self.slots.len() < want || self.generation == 0 {
            self.slots.clear();
            self.slots.resize(want.max(self.slots.len()), (0, 0, 0));
            self.generation = 1;
        }
    }

    fn slot(&self, key: i32) -> usize {
        let mask = self.slots.len() - 1;
        (key as u32).wrapping_mul(0x9E37_79B1).rotate_left(16) as usize & mask
    }

    fn insert_first(&mut self, key: i32, pos: usize) {
        let mask = self.slots.len() - 1;
        let mut i = self.slot(key);
        loop {
            let (g, k, _) = self.slots[i];
            if g != self.generation {
                self.slots[i] = (self.generation, key, pos as u32);
                return;
            }
            if k == key {
                return;
            }
            i = (i + 1) & mask;
        }
    }

    fn get(&self, key: i32) -> Option<usize> {
        let mask = self.slots.len() - 1;
        let mut i = self.slot(key);
        loop {
            let (g, k, pos) = self.slots[i];
            if g != self.generation {
                return None;
            }
            if k == key {
                return Some(pos as usize);
            }
            i = (i + 1) & mask;
        }
    }
}

/// The item layout of the snapshot `unpack_in_place` last updated: where
/// each item starts and its key, the first item of each key, and which
/// items the current delta already updated.
#[derive(Clone, Debug, Default)]
struct Layout {
    starts: Vec<u32>,
    keys: Vec<i32>,
    index: KeyIndex,
    touched: Vec<u32>,
    generation: u32,
}

impl Layout {
    /// Describes `snap`; re-indexes only when its layout changed.
    fn track(&mut self, snap: &Snapshot) {
        let indexed = !self.index.slots.is_empty();
        let same = indexed
            && self.starts == snap.starts
            && self
                .keys
                .iter()
                .zip(&snap.starts)
                .all(|(&k, &s)| snap.area[s as usize] == k);
        if same {
            return;
        }
        self.starts.clone_from(&snap.starts);
        self.keys.clear();
        self.keys
            .extend(snap.starts.iter().map(|&s| snap.area[s as usize]));
        self.index.reset(self.keys.len());
        for (i, &k) in self.keys.iter().enumerate() {
            self.index.insert_first(k, i);
        }
        self.touched.clear();
        self.touched.resize(self.keys.len(), 0);
        self.generation = 0;
    }

    /// A fresh mark for `touched`.
    fn next_generation(&mut self) -> u32 {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.touched.fill(0);
            self.generation = 1;
        }
        self.generation
    }
}

const HASH_BUCKETS: usize = 256;
const BUCKET_SIZE: usize = 64;

/// DDNet's key hash for delta creation: djb2 over the key's 4 bytes (LSB
/// first), 256 buckets of at most 64 items each; keys past a full bucket
/// are simply not found.
#[derive(Clone, Debug)]
pub(super) struct KeyHash {
    counts: [u8; HASH_BUCKETS],
    /// Per bucket, up to 64 (key, position) pairs.
    entries: Vec<(i32, u32)>,
}

impl Default for KeyHash {
    /// Without buckets: the first [`KeyHash::build`] makes them. A codec
    /// that only applies deltas (a demo's replay) never makes one, and
    /// their 128 KiB cost every such process a map and an unmap.
    fn default() -> Self {
        KeyHash {
            counts: [0; HASH_BUCKETS],
            entries: Vec::new(),
        }
    }
}

impl KeyHash {
    /// djb2 (`h = h * 33 + byte` from 5381) modulo 256. Only the low 8
    /// bits survive the modulo, so the chain of four steps unrolls into one
    /// sum: `5381 * 33^4 + b0 * 33^3 + b1 * 33^2 + b2 * 33 + b3`.
    #[inline(always)]
    pub(super) fn bucket(key: i32) -> usize {
        let k = key as u32;
        let byte = |shift: u32| (k >> shift) & 0xff;
        let hash = 5381u32
            .wrapping_mul(33 * 33 * 33 * 33)
            .wrapping_add(byte(0).wrapping_mul(33 * 33 * 33))
            .wrapping_add(byte(8).wrapping_mul(33 * 33))
            .wrapping_add(byte(16).wrapping_mul(33))
            .wrapping_add(byte(24));
        hash as usize & (HASH_BUCKETS - 1)
    }

    fn build(&mut self, snap: &Snapshot) {
        if self.entries.is_empty() {
            self.entries = vec![(0, 0); HASH_BUCKETS * BUCKET_SIZE];
        }
        self.counts = [0; HASH_BUCKETS];
        for (i, &start) in snap.starts.iter().enumerate() {
            let key = snap.area[start as usize];
            let b = Self::bucket(key);
            let n = usize::from(self.counts[b]);
            if n < BUCKET_SIZE {
                self.entries[b * BUCKET_SIZE + n] = (key, i as u32);
                self.counts[b] += 1;
            }
        }
    }

    fn find(&self, key: i32) -> Option<usize> {
        let b = Self::bucket(key);
        let start = b * BUCKET_SIZE;
        // Nothing before the first `build`.
        let bucket = self
            .entries
            .get(start..start + usize::from(self.counts[b]))?;
        bucket
            .iter()
            .find(|&&(k, _)| k == key)
            .map(|&(_, i)| i as usize)
    }
}

/// Items whose data length is not their type's pre-agreed size: DDNet's
/// client drops these when it validates a snapshot.
pub fn misfits<'a>(
    snap: &'a Snapshot,
    sizes: &'a ItemSizes,
) -> impl Iterator<Item = (usize, Item<'a>, usize)> + 'a {
    snap.items().enumerate().filter_map(|(i, item)| {
        let want = sizes.get(item.type_id())?;
        (item.data.len() != want).then_some((i, item, want))
    })
}
