//! The snapshot replay state machine: full snapshots rebuilt from keyframes
//! and deltas, from a demo or from a captured session, with a bounded
//! history by tick as DDNet's client keeps it.
//!
//! Sans-IO: the caller decodes its container (demo chunks, reassembled
//! SNAP messages) and feeds [`SnapInput`]s; [`SnapshotHistory::feed`]
//! returns the snapshot for that tick or the [`Fault`] that stopped it.
//! A fault never ends the replay: as in DDNet, the faulty snapshot is
//! dropped and the next one is applied to whatever base it names.

use super::{Delta, DeltaCodec, ItemSizes, SnapError, Snapshot, misfits};
use serde::Serialize;
use std::collections::VecDeque;
use std::fmt;

/// What a delta applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Base {
    /// The empty snapshot (a network delta tick of -1).
    Empty,
    /// The snapshot fed last (demos: every delta follows the previous
    /// snapshot in the file).
    Previous,
    /// The snapshot of this tick (network: `tick - delta_tick`).
    Tick(i32),
}

/// A snapshot's payload, as int32s.
#[derive(Clone, Copy, Debug)]
pub enum SnapData<'a> {
    /// A full snapshot (demo keyframe).
    Keyframe(&'a [i32]),
    /// A delta; empty for SNAPEMPTY or an empty demo delta.
    Delta {
        /// What it applies to.
        base: Base,
        /// Its ints.
        ints: &'a [i32],
    },
}

/// One snapshot to replay.
#[derive(Clone, Copy, Debug)]
pub struct SnapInput<'a> {
    /// Where it came from (file offset or capture frame), for reports.
    pub offset: u64,
    /// The snapshot's tick.
    pub tick: i32,
    /// Its payload.
    pub data: SnapData<'a>,
    /// The CRC the server computed, when the container carries it.
    pub crc: Option<i32>,
}

/// Why a snapshot was dropped, or (for [`FaultKind::InvalidItem`]) what is
/// wrong with one that was kept.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Fault {
    /// Where the snapshot came from: its chunk's file offset (demos) or
    /// its datagram's frame number (captures).
    pub offset: u64,
    /// The snapshot's tick.
    pub tick: i32,
    /// What went wrong (serialised as `kind` and, where it has data,
    /// `detail`).
    #[serde(flatten)]
    pub kind: FaultKind,
}

/// The kinds of [`Fault`].
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "detail", rename_all = "snake_case")]
pub enum FaultKind {
    /// The base tick is not (or no longer) in the history.
    MissingBase {
        /// The base tick.
        base: i32,
    },
    /// A delta against the previous snapshot, with none before it.
    NoPrevious,
    /// The keyframe is not a valid snapshot.
    Keyframe(SnapError),
    /// The delta does not apply (DDNet's `UnpackDelta` codes).
    Delta(SnapError),
    /// A container's payload that does not decode (a demo chunk's Huffman
    /// or varints): DDNet's demo player stops there.
    Payload {
        /// What the payload is (`snapshot`, `delta`, `message`).
        chunk: &'static str,
        /// Why, at the file byte of its chunk and the byte inside it.
        error: crate::codec::DecodeError,
    },
    /// The rebuilt snapshot's CRC is not the server's.
    CrcMismatch {
        /// The server's CRC.
        expected: i32,
        /// The rebuilt snapshot's.
        actual: i32,
    },
    /// A CRC mismatch the delta explains: it updates one item more than
    /// once, because the server's snapshot had the item more than once
    /// (DDNet 16.4 does, for a paused 0.6 client without DDNet's version
    /// message whose id is 15: `CPlayer::Snap` adds its SpectatorInfo
    /// under its own id, `CPlayer::FakeSnap` under the fake player's, 15).
    /// The server's CRC counts every copy; DDNet's client (`UnpackDelta`)
    /// writes every update into the one item it finds, so it keeps only
    /// the last copy, its CRC check fails, and it drops the snapshot. The
    /// server's CRC is the rebuilt one plus the copies overwritten.
    RepeatedItem {
        /// The first repeated item's key (`type << 16 | id`).
        key: i32,
        /// How many times the delta updates it.
        copies: usize,
        /// The server's CRC.
        expected: i32,
        /// The rebuilt snapshot's.
        actual: i32,
    },
    /// An item whose size is not its type's pre-agreed size (DDNet's
    /// client drops the item; the snapshot is kept for later deltas).
    InvalidItem {
        /// The item's index in the snapshot.
        index: usize,
        /// Its key (`type << 16 | id`).
        key: i32,
        /// Its size in ints.
        size: usize,
        /// Its type's size.
        expected: usize,
    },
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "offset {} tick {}: ", self.offset, self.tick)?;
        match &self.kind {
            FaultKind::MissingBase { base } => {
                write!(f, "delta against tick {base}, which is not in the history")
            }
            FaultKind::NoPrevious => write!(f, "delta before any snapshot"),
            FaultKind::Keyframe(e) => write!(f, "keyframe {e}"),
            FaultKind::Delta(e) => write!(f, "delta {e}"),
            FaultKind::Payload { chunk, error } => write!(
                f,
                "{chunk} chunk payload does not decode: {error} (DDNet's player stops here)"
            ),
            FaultKind::CrcMismatch { expected, actual } => {
                write!(
                    f,
                    "CRC {actual} of the rebuilt snapshot, the server sent {expected}"
                )
            }
            FaultKind::RepeatedItem {
                key,
                copies,
                expected,
                actual,
            } => write!(
                f,
                "the delta updates item {}:{} {copies} times: the server's CRC {expected} counts every copy, \
                 DDNet's client keeps the last one (CRC {actual}) and drops the snapshot",
                key >> 16,
                key & 0xffff
            ),
            FaultKind::InvalidItem {
                index,
                key,
                size,
                expected,
            } => write!(
                f,
                "item {index} ({}:{}) has {size} ints, its type has {expected}",
                key >> 16,
                key & 0xffff
            ),
        }
    }
}

/// Counts of what was fed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ReplayCounts {
    /// Full snapshots fed (demo keyframes).
    pub keyframes: usize,
    /// Deltas fed.
    pub deltas: usize,
    /// Deltas with no ints (nothing changed).
    pub empty_deltas: usize,
    /// Snapshots whose CRC was checked and matched.
    pub crc_checked: usize,
    /// Snapshots dropped because of a fault.
    pub dropped: usize,
    /// Items of kept snapshots with the wrong size for their type.
    pub invalid_items: usize,
}

/// Most snapshots kept by default. DDNet's server keeps 3 seconds (150
/// ticks) of snapshots to delta against, so no real base is older.
pub const DEFAULT_HISTORY: usize = 160;

/// The replay machine. Deterministic; after warm-up, feeding allocates
/// nothing (snapshots leaving the history are reused).
#[derive(Clone, Debug)]
pub struct SnapshotHistory {
    codec: DeltaCodec,
    /// Kept snapshots, ascending by tick.
    entries: VecDeque<(i32, Snapshot)>,
    /// Tick of the snapshot fed last, and of the one before it.
    last: Option<i32>,
    before_last: Option<i32>,
    spare: Vec<Snapshot>,
    empty: Snapshot,
    limit: usize,
    counts: ReplayCounts,
    warnings: Vec<Fault>,
    /// The snapshot fed last has invalid items.
    last_misfits: bool,
    /// Some snapshot fed had invalid items.
    misfits_seen: bool,
}

/// Counts and reports `snap`'s invalid items (at the input's offset and
/// tick); true if there are any.
fn report_misfits(
    snap: &Snapshot,
    codec: &DeltaCodec,
    (offset, tick): (u64, i32),
    counts: &mut ReplayCounts,
    warnings: &mut Vec<Fault>,
) -> bool {
    let before = warnings.len();
    for (index, item, expected) in misfits(snap, codec.sizes()) {
        counts.invalid_items += 1;
        warnings.push(Fault {
            offset,
            tick,
            kind: FaultKind::InvalidItem {
                index,
                key: item.key,
                size: item.data.len(),
                expected,
            },
        });
    }
    warnings.len() > before
}

impl SnapshotHistory {
    /// A client's machine: it keeps [`DEFAULT_HISTORY`] snapshots by tick.
    pub fn new(sizes: ItemSizes) -> SnapshotHistory {
        Self::with_limit(sizes, DEFAULT_HISTORY)
    }

    /// A demo player's machine: it keeps only the snapshot fed last (DDNet's
    /// demo player has one buffer), so a delta on it that keeps most of its
    /// layout is applied in place (see [`DeltaCodec::unpack_in_place`]).
    pub fn for_demo(sizes: ItemSizes) -> SnapshotHistory {
        Self::with_limit(sizes, 1)
    }

    /// A machine keeping at most `limit` (at least 1) snapshots.
    pub fn with_limit(sizes: ItemSizes, limit: usize) -> SnapshotHistory {
        SnapshotHistory {
            codec: DeltaCodec::new(sizes),
            entries: VecDeque::new(),
            last: None,
            before_last: None,
            spare: Vec::new(),
            empty: Snapshot::new(),
            limit: limit.max(1),
            counts: ReplayCounts::default(),
            warnings: Vec::new(),
            last_misfits: false,
            misfits_seen: false,
        }
    }

    /// What was fed so far.
    pub fn counts(&self) -> &ReplayCounts {
        &self.counts
    }

    /// Kept snapshots' invalid items found since the last call.
    pub fn take_warnings(&mut self) -> Vec<Fault> {
        std::mem::take(&mut self.warnings)
    }

    /// The kept snapshot of a tick.
    pub fn get(&self, tick: i32) -> Option<&Snapshot> {
        lookup(&self.entries, tick)
    }

    /// The snapshot fed last, with its tick.
    pub fn last(&self) -> Option<(i32, &Snapshot)> {
        let tick = self.last?;
        self.get(tick).map(|s| (tick, s))
    }

    /// Ticks kept, ascending.
    pub fn ticks(&self) -> impl Iterator<Item = i32> + '_ {
        self.entries.iter().map(|(t, _)| *t)
    }

    /// Rebuilds one snapshot and keeps it, or says why it was dropped.
    ///
    /// When only one snapshot is kept ([`SnapshotHistory::for_demo`]), a
    /// delta on it with no CRC to check is applied in place where
    /// [`DeltaCodec::unpack_in_place`] can; what is kept is the same either
    /// way.
    pub fn feed(&mut self, input: SnapInput<'_>) -> Result<&Snapshot, Fault> {
        // Whether the delta was tried on the kept snapshot in place.
        let tried_in_place = matches!(
            (input.data, input.crc),
            (
                SnapData::Delta {
                    base: Base::Previous,
                    ..
                },
                None
            )
        ) && self.limit == 1;
        if let SnapData::Delta { ints, .. } = input.data
            && tried_in_place
            && self.feed_in_place(input.offset, input.tick, ints)
        {
            return Ok(&self.entries.back().expect("just updated").1);
        }
        let fault = |kind| Fault {
            offset: input.offset,
            tick: input.tick,
            kind,
        };
        let mut out = self.spare.pop().unwrap_or_default();
        let mut in_place = false;
        let (result, base_tick) = match input.data {
            SnapData::Keyframe(ints) => {
                self.counts.keyframes += 1;
                (
                    out.read_ints(ints)
                        .map_err(|e| fault(FaultKind::Keyframe(e))),
                    None,
                )
            }
            SnapData::Delta { base, ints } => {
                self.counts.deltas += 1;
                self.counts.empty_deltas += usize::from(ints.is_empty());
                let entries = &self.entries;
                let (from, base_tick) = match base {
                    Base::Empty => (Ok(&self.empty), None),
                    Base::Previous => match self.last {
                        Some(t) => (lookup(entries, t).ok_or(FaultKind::NoPrevious), Some(t)),
                        None => (Err(FaultKind::NoPrevious), None),
                    },
                    Base::Tick(t) => (
                        lookup(entries, t).ok_or(FaultKind::MissingBase { base: t }),
                        Some(t),
                    ),
                };
                let result = match from {
                    Ok(from)
                        if !tried_in_place
                            && copy_in_place(&mut self.codec, from, ints, &mut out) =>
                    {
                        in_place = true;
                        Ok(())
                    }
                    Ok(from) => self
                        .codec
                        .unpack(from, ints, &mut out)
                        .map_err(|e| fault(FaultKind::Delta(e))),
                    Err(kind) => Err(fault(kind)),
                };
                (result, base_tick)
            }
        };
        let result = result.and_then(|()| match input.crc {
            Some(expected) if out.crc() != expected => {
                let actual = out.crc();
                let repeated = match (input.data, base_tick) {
                    (SnapData::Delta { ints, .. }, Some(t)) => self
                        .get(t)
                        .and_then(|from| repeated_item(from, ints, self.codec.sizes())),
                    (SnapData::Delta { ints, .. }, None) => {
                        repeated_item(&self.empty, ints, self.codec.sizes())
                    }
                    (SnapData::Keyframe(_), _) => None,
                };
                Err(fault(match repeated {
                    Some((key, copies, lost)) if actual.wrapping_add(lost) == expected => {
                        FaultKind::RepeatedItem {
                            key,
                            copies,
                            expected,
                            actual,
                        }
                    }
                    _ => FaultKind::CrcMismatch { expected, actual },
                }))
            }
            Some(_) => {
                self.counts.crc_checked += 1;
                Ok(())
            }
            None => Ok(()),
        });
        if let Err(f) = result {
            self.counts.dropped += 1;
            self.spare.push(out);
            return Err(f);
        }
        // Changed in place, a snapshot has invalid items only if its base
        // had (see `feed_in_place`): with none fed yet, none to look for.
        let at = (input.offset, input.tick);
        self.last_misfits = (self.misfits_seen || !in_place)
            && report_misfits(&out, &self.codec, at, &mut self.counts, &mut self.warnings);
        self.misfits_seen |= self.last_misfits;
        self.keep(input.tick, base_tick, out);
        Ok(self.get(input.tick).expect("just kept"))
    }

    /// Applies a delta to the only kept snapshot in place, if it is the
    /// last fed, the tick is later and the codec can.
    fn feed_in_place(&mut self, offset: u64, tick: i32, ints: &[i32]) -> bool {
        let Some((t, snap)) = self.entries.back_mut() else {
            return false;
        };
        if self.last != Some(*t) || tick <= *t || !self.codec.unpack_in_place(snap, ints) {
            return false;
        }
        *t = tick;
        self.counts.deltas += 1;
        self.counts.empty_deltas += usize::from(ints.is_empty());
        // Kept items keep their size and new ones come with their type's
        // pre-agreed size (or have none): only a base with misfits can
        // have any.
        if self.last_misfits {
            let at = (offset, tick);
            self.last_misfits =
                report_misfits(snap, &self.codec, at, &mut self.counts, &mut self.warnings);
        }
        self.before_last = self.last;
        self.last = Some(tick);
        true
    }

    /// Purges as DDNet's client does (everything older than the base and
    /// the two latest snapshots), then stores `snap`, within the limit.
    fn keep(&mut self, tick: i32, base_tick: Option<i32>, snap: Snapshot) {
        let purge_below = [base_tick, self.last, self.before_last]
            .into_iter()
            .flatten()
            .min();
        if let (Some(below), Some(_)) = (purge_below, base_tick) {
            while self.entries.front().is_some_and(|(t, _)| *t < below) {
                let (_, s) = self.entries.pop_front().expect("non-empty");
                self.spare.push(s);
            }
        }
        match self.entries.binary_search_by_key(&tick, |(t, _)| *t) {
            Ok(i) => {
                let old = std::mem::replace(&mut self.entries[i].1, snap);
                self.spare.push(old);
            }
            Err(i) => self.entries.insert(i, (tick, snap)),
        }
        if self.last != Some(tick) {
            self.before_last = self.last;
            self.last = Some(tick);
        }
        while self.entries.len() > self.limit {
            // Drop the oldest, never the one just fed.
            let victim = usize::from(self.entries[0].0 == tick);
            if let Some((_, s)) = self.entries.remove(victim) {
                self.spare.push(s);
            }
        }
    }
}

/// A delta that updates an item more than once ([`FaultKind::RepeatedItem`]):
/// the first such key, how many updates it has, and the wrapping sum of
/// the ints of every copy DDNet's client overwrites (each update's item,
/// its difference added to `from`'s first item of the key if there is
/// one, as `UnpackDelta` computes it, all but each key's last).
fn repeated_item(from: &Snapshot, ints: &[i32], sizes: &ItemSizes) -> Option<(i32, usize, i32)> {
    let delta = Delta::from_ints(ints, sizes).ok()?;
    // Updates by key, in delta order within a key.
    let mut order: Vec<(i32, usize)> = (delta.updates.iter().enumerate())
        .map(|(i, u)| (u.type_id << 16 | u.id, i))
        .collect();
    order.sort_unstable();
    let mut first: Option<(usize, i32, usize)> = None;
    let mut lost = 0i32;
    for group in order.chunk_by(|a, b| a.0 == b.0).filter(|g| g.len() > 1) {
        let (key, at) = group[0];
        if first.is_none_or(|(i, ..)| at < i) {
            first = Some((at, key, group.len()));
        }
        let past = from.get(key).map_or(&[][..], |item| item.data);
        for &(_, i) in &group[..group.len() - 1] {
            let diff = delta.updates[i].data.iter().enumerate();
            let copy = diff.map(|(j, &d)| d.wrapping_add(past.get(j).copied().unwrap_or(0)));
            lost = copy.fold(lost, i32::wrapping_add);
        }
    }
    first.map(|(_, key, copies)| (key, copies, lost))
}

/// `base` with `delta` applied, into `out`, as a copy of the base changed
/// in place (most deltas only change items: cheaper than building afresh,
/// and the same snapshot); `false` where the codec cannot.
fn copy_in_place(
    codec: &mut DeltaCodec,
    base: &Snapshot,
    delta: &[i32],
    out: &mut Snapshot,
) -> bool {
    out.clone_from(base);
    codec.unpack_in_place(out, delta)
}

fn lookup(entries: &VecDeque<(i32, Snapshot)>, tick: i32) -> Option<&Snapshot> {
    let i = entries.binary_search_by_key(&tick, |(t, _)| *t).ok()?;
    Some(&entries[i].1)
}
