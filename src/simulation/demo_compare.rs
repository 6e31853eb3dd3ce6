//! A simulation compared with the server demo of the same session: each
//! Character (and DDNetCharacter) item, at its own tick, against the
//! simulated character's core as DDNet's dead reckoning sent it.

use super::Release;
use super::ddrace::World;
use super::physics::core::{Core, MAX_CLIENTS};
use super::physics::round_to_int;
use super::report::{DemoMismatch, DemoReport, MAX_LISTED};
use super::window::WINDOW;
use crate::demo::{EventKind, Events};
use crate::snapshot::items::ItemBuilder;
use std::collections::VecDeque;

/// How many ticks back a Character item's core can be: DDNet resends
/// the core at least every 3 s (`m_ReckoningTick + TickSpeed * 3`).
pub const RECKONING_RING: usize = 151;

/// The Character fields compared: the core as of the item's tick (x to
/// hook_dy but direction), and what DDNet takes from the character at
/// snapshot time (direction is `m_Input`'s, ammo, weapon, attack tick).
/// Health, armor, emote and player flags are not simulated.
const CHARACTER_COMPARED: [usize; 17] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 18, 19, 21];

/// The DDNetCharacter fields compared, by index, with their names.
const DDNET_COMPARED: [(usize, &str); 5] = [
    (1, "freeze_end"),
    (2, "jumps"),
    (4, "strong_weak_id"),
    (5, "jumped_total"),
    (7, "freeze_start"),
];

/// The fields of an item that differ from the model's: (item, field,
/// demo, simulated).
type Fields = Vec<(&'static str, &'static str, i32, i32)>;

/// What differs in an item ([`DemoCompare::differences`]).
type Differences = Option<(Fields, bool)>;

/// A snapshot compared: its tick, and each item with the fields that
/// differed (`None`: not simulated).
type Compared = (i32, Vec<(DemoChar, Option<Fields>)>);

/// One character item pair of a demo snapshot.
struct DemoChar {
    cid: usize,
    character: [i32; 22],
    ddnet: Option<Vec<i32>>,
}

/// The demo side of a comparison: the demo read in step with the world,
/// and each character's last [`RECKONING_RING`] cores as a Character item
/// would have them.
pub(super) struct DemoCompare<'d> {
    events: Events<'d>,
    /// A snapshot read ahead of the world: its tick and items.
    ahead: Option<(i32, Vec<DemoChar>)>,
    done: bool,
    /// Per client id: (tick, the core part of its Character item).
    /// The flag: an unmodelled event had touched the character.
    ring: Vec<VecDeque<(i32, [i32; 22], bool)>>,
    /// The snapshots of the simulation's last [`WINDOW`] ticks, each item
    /// with what differed (`None`: not simulated): those ticks may be
    /// stepped again, and must then compare the same.
    compared: VecDeque<Compared>,
    /// What differs in the snapshot of the world's tick, item by item,
    /// found before it is compared ([`Self::differs`]) and kept while
    /// the world stays as it was ([`Self::forget_now`]).
    now: Option<(i32, Vec<Differences>)>,
}

impl<'d> DemoCompare<'d> {
    pub(super) fn new(events: Events<'d>) -> DemoCompare<'d> {
        DemoCompare {
            events,
            ahead: None,
            done: false,
            ring: vec![VecDeque::new(); MAX_CLIENTS],
            compared: VecDeque::new(),
            now: None,
        }
    }

    /// The next snapshot's tick and character items.
    fn next_snapshot(&mut self) -> Option<(i32, Vec<DemoChar>)> {
        if let Some(a) = self.ahead.take() {
            return Some(a);
        }
        if self.done {
            return None;
        }
        loop {
            let e = match self.events.next() {
                Ok(Some(e)) => e,
                _ => {
                    self.done = true;
                    return None;
                }
            };
            let EventKind::Snapshot(snap) = e.kind else {
                continue;
            };
            let mut chars = Vec::new();
            for item in snap.items() {
                if item.type_id() != CHARACTER_TYPE || item.data.len() < 22 {
                    continue;
                }
                let Ok(cid) = usize::try_from(item.id()) else {
                    continue;
                };
                let mut character = [0; 22];
                character.copy_from_slice(&item.data[..22]);
                let ddnet = snap
                    .items()
                    .find(|i| {
                        i.id() == item.id()
                            && i.type_id() >= crate::snapshot::OFFSET_UUID_TYPE
                            && snap.ex_type_name(i.type_id()) == Some("character@netobj.ddnet.tw")
                    })
                    .map(|i| i.data.to_vec());
                chars.push(DemoChar {
                    cid,
                    character,
                    ddnet,
                });
            }
            return Some((e.tick, chars));
        }
    }

    /// The world's tick has stepped its characters (`TickDefered`, where
    /// DDNet takes the cores it sends): keep them, once a tick.
    pub(super) fn keep_cores(&mut self, w: &World, tainted: &[bool]) {
        let tick = w.tick;
        for (cid, (ring, &touched)) in self.ring.iter_mut().zip(tainted).enumerate() {
            if ring.back().is_some_and(|&(t, _, _)| t == tick) {
                continue;
            }
            if let Some(core) = w.core(cid) {
                if ring.len() == RECKONING_RING {
                    ring.pop_front();
                }
                ring.push_back((tick, core_item(core), touched));
            } else {
                ring.clear();
            }
        }
    }

    /// The cores kept for `tick` and after are forgotten: those ticks
    /// were stepped again ([`Self::keep_cores`] keeps the new ones).
    pub(super) fn rewind(&mut self, tick: i32) {
        for ring in &mut self.ring {
            while ring.back().is_some_and(|&(t, _, _)| t >= tick) {
                ring.pop_back();
            }
        }
    }

    /// The world stands at the end of its tick (a snapshot's moment):
    /// keep its cores unless the world's tick did, and compare the demo's
    /// snapshots up to this tick.
    pub(super) fn at_tick(&mut self, w: &World, tainted: &[bool], r: &mut DemoReport) {
        let tick = w.tick;
        self.keep_cores(w, tainted);
        while self
            .compared
            .front()
            .is_some_and(|&(t, _)| t <= tick - WINDOW as i32)
        {
            self.compared.pop_front();
        }
        while let Some((snap_tick, chars)) = self.next_snapshot() {
            if snap_tick > tick {
                self.ahead = Some((snap_tick, chars));
                break;
            }
            r.snapshots += 1;
            r.items += chars.len() as u64;
            if snap_tick != tick {
                r.not_simulated += chars.len() as u64;
                continue;
            }
            let mut found = self
                .now
                .take()
                .filter(|&(t, _)| t == tick)
                .map(|(_, f)| f.into_iter());
            let items = chars
                .into_iter()
                .map(|c| {
                    let differences = match found.as_mut() {
                        Some(f) => f.next().flatten(),
                        None => self.differences(w, &[], tick, &c),
                    };
                    self.count(tick, &c, differences.as_ref(), tainted[c.cid], r);
                    (c, differences.map(|(fields, _)| fields))
                })
                .collect();
            self.compared.push_back((tick, items));
        }
    }

    /// Whether the snapshots compared at the ticks of `worlds` (the
    /// window's, stepped again, one a tick) compare the same with them.
    pub(super) fn same_again(&self, worlds: &[World]) -> bool {
        let Some(first) = worlds.first().map(|w| w.tick) else {
            return true;
        };
        self.compared.iter().all(|(tick, items)| {
            let Some(i) = usize::try_from(tick - first)
                .ok()
                .filter(|&i| i < worlds.len())
            else {
                return true;
            };
            let again = &worlds[..=i];
            items.iter().all(|(c, before)| {
                self.differences(&worlds[i], again, *tick, c)
                    .map(|(fields, _)| fields)
                    == *before
            })
        })
    }

    /// Whether `cid`'s Character item differed in the last snapshot
    /// compared that has one.
    pub(super) fn differed(&self, cid: usize) -> bool {
        self.compared
            .iter()
            .rev()
            .find_map(|(_, items)| items.iter().find(|(c, _)| c.cid == cid))
            .is_some_and(|(_, fields)| fields.as_ref().is_some_and(|f| !f.is_empty()))
    }

    /// Whether the demo's Character item of this tick (the world's) for
    /// `cid` differs from the world's character, before [`Self::at_tick`]
    /// compares it: `None` if the demo has no snapshot at this tick, or
    /// no item of `cid` in it, or the model nothing to compare it with.
    /// What differs is kept for [`Self::at_tick`].
    pub(super) fn differs(&mut self, w: &World, cid: usize) -> Option<bool> {
        let i = self.item_now(w.tick, cid)?;
        self.found_now(w)?[i]
            .as_ref()
            .map(|(fields, _)| !fields.is_empty())
    }

    /// The client ids whose Character item of this tick differs
    /// ([`Self::differs`]), in order.
    pub(super) fn differing(&mut self, w: &World) -> Vec<usize> {
        let Some(found) = self.found_now(w) else {
            return Vec::new();
        };
        let differ: Vec<bool> = found
            .iter()
            .map(|f| f.as_ref().is_some_and(|(fields, _)| !fields.is_empty()))
            .collect();
        let Some((_, chars)) = self.ahead.as_ref() else {
            return Vec::new();
        };
        let mut cids: Vec<usize> = chars
            .iter()
            .zip(differ)
            .filter_map(|(c, differs)| differs.then_some(c.cid))
            .collect();
        cids.sort_unstable();
        cids
    }

    /// What differs in the snapshot of `w`'s tick, item by item (kept
    /// until the world changes), if the demo has one.
    fn found_now(&mut self, w: &World) -> Option<&[Differences]> {
        if self.ahead.is_none() {
            self.ahead = self.next_snapshot();
        }
        let (snap_tick, chars) = self.ahead.as_ref()?;
        if *snap_tick != w.tick {
            return None;
        }
        if self.now.as_ref().is_none_or(|&(t, _)| t != w.tick) {
            let found = chars
                .iter()
                .map(|c| self.differences(w, &[], w.tick, c))
                .collect();
            self.now = Some((w.tick, found));
        }
        self.now.as_ref().map(|(_, found)| found.as_slice())
    }

    /// [`Self::differs`] for `w`, a world stepped again, whose earlier
    /// ticks' worlds are `again` (their cores stand for the ones kept).
    pub(super) fn differs_again(&mut self, w: &World, again: &[World], cid: usize) -> Option<bool> {
        let i = self.item_now(w.tick, cid)?;
        let (_, chars) = self.ahead.as_ref()?;
        self.differences(w, again, w.tick, &chars[i])
            .map(|(fields, _)| !fields.is_empty())
    }

    /// Where `cid`'s item is in the snapshot of `tick` (read ahead), if
    /// the demo has one.
    fn item_now(&mut self, tick: i32, cid: usize) -> Option<usize> {
        if self.ahead.is_none() {
            self.ahead = self.next_snapshot();
        }
        let (snap_tick, chars) = self.ahead.as_ref()?;
        if *snap_tick != tick {
            return None;
        }
        chars.iter().position(|c| c.cid == cid)
    }

    /// The world changed since [`Self::differs`] looked at it.
    pub(super) fn forget_now(&mut self) {
        self.now = None;
    }

    /// Counts the item `c` of the snapshot at `tick`, whose fields that
    /// differ are `differences` ([`Self::differences`]).
    fn count(
        &self,
        tick: i32,
        c: &DemoChar,
        differences: Option<&(Fields, bool)>,
        tainted: bool,
        r: &mut DemoReport,
    ) {
        let Some((fields, touched)) = differences else {
            r.not_simulated += 1;
            return;
        };
        let tainted = tainted || *touched;
        r.compared += 1;
        let item_tick = c.character[0];
        if item_tick == 0 {
            r.tick_zero += 1;
        }
        if c.ddnet.is_some() {
            r.ddnet_items += 1;
        }
        if fields.is_empty() {
            r.matched += 1;
            return;
        }
        if tainted {
            r.after_unmodelled += 1;
            return;
        }
        r.mismatched += 1;
        for &(item, field, demo, simulated) in fields {
            *r.fields.entry(field).or_insert(0) += 1;
            if r.listed.len() < MAX_LISTED {
                r.listed.push(DemoMismatch {
                    snapshot_tick: tick,
                    tick: item_tick,
                    cid: c.cid,
                    item,
                    field,
                    demo,
                    simulated,
                });
            }
        }
    }

    /// The fields of `c` (a snapshot's at `tick`) that differ from the
    /// world's character: (item, field, demo, simulated), and whether an
    /// unmodelled event had touched the core compared. The core is the
    /// one of `again` (earlier ticks' worlds, stepped again) or kept for
    /// the item's tick, or the world's now if it is of this tick and not
    /// kept yet. `None`: nothing to compare with.
    fn differences(&self, w: &World, again: &[World], tick: i32, c: &DemoChar) -> Differences {
        let item_tick = c.character[0];
        let at = if item_tick == 0 { tick } else { item_tick };
        let kept = match again.iter().find(|a| a.tick == at) {
            Some(a) => Some((core_item(a.core(c.cid)?), false)),
            None => self.ring[c.cid]
                .iter()
                .rev()
                .find(|(t, _, _)| *t == at)
                .map(|(_, core, t)| (*core, *t)),
        };
        let now = w.core(c.cid)?;
        let (mut sim, touched) = match kept {
            Some(k) => k,
            None if at == w.tick => (core_item(now), false),
            None => return None,
        };
        let ch = w.character(c.cid)?;
        sim[0] = item_tick;
        // What DDNet takes from the character at snapshot time.
        sim[6] = ch.input.direction;
        let weapon = ch.active_weapon;
        sim[19] = weapon;
        sim[21] = ch.attack_tick;
        // The ammunition of the weapon in hand, 0 while frozen; DDNet 16.4
        // sends only a positive count (endless, -1, shows as 0).
        let ammo = usize::try_from(weapon)
            .ok()
            .and_then(|wi| ch.weapons.get(wi))
            .map_or(0, |s| s.ammo);
        sim[18] = match w.cores.release {
            _ if ch.freeze_time != 0 => 0,
            Release::Ddnet16_4 if ammo <= 0 => 0,
            _ => ammo,
        };
        let mut fields = Vec::new();
        for &i in &CHARACTER_COMPARED {
            if c.character[i] != sim[i] {
                let name = ItemBuilder::new("Character")
                    .and_then(|b| b.field_names().nth(i))
                    .unwrap_or("?");
                fields.push(("Character", name, c.character[i], sim[i]));
            }
        }
        if let Some(dd) = &c.ddnet {
            let freeze_end = if ch.deep_frozen {
                -1
            } else if ch.freeze_time == 0 {
                0
            } else {
                tick + ch.freeze_time
            };
            for (i, name) in DDNET_COMPARED {
                let simulated = match i {
                    1 => freeze_end,
                    2 => now.jumps,
                    4 => ch.strong_weak_id,
                    5 => now.jumped_total,
                    _ => ch.freeze_start,
                };
                if let Some(&demo) = dd.get(i)
                    && demo != simulated
                {
                    fields.push(("DDNetCharacter", name, demo, simulated));
                }
            }
        }
        Some((fields, touched))
    }

    /// Snapshots past the simulation's end.
    pub(super) fn finish(&mut self, r: &mut DemoReport) {
        while let Some((_, chars)) = self.next_snapshot() {
            r.snapshots += 1;
            r.items += chars.len() as u64;
            r.not_simulated += chars.len() as u64;
        }
    }
}

/// The Character item type (0.6 and DDNet).
const CHARACTER_TYPE: i32 = 9;

/// The PlayerInfo item type (0.6 and DDNet; its id the client id, its
/// fourth int the score).
const PLAYER_INFO_TYPE: i32 = 10;

/// A score of no time (`CPlayer`'s -9999).
const NO_TIME: i32 = -9999;

/// DDNet 16.4's answers to joins that a server demo shows, as (tick,
/// client id), in order. A join asks the score database for the player's
/// times (`CScore::LoadPlayerData`), and the player's tick that finds the
/// answer complete sets its score to the database's
/// (`CPlayer::ProcessScoreResult`): from an empty database no time, which
/// forgets a finish made before the answer came. When the database thread
/// answered is in no file; the demo shows it where a player's score goes
/// from a time back to none between two snapshots that both have the
/// player. A demo that does not read gives what it showed so far.
pub fn join_answers(demo: &[u8]) -> Vec<(i32, usize)> {
    let Ok(mut events) = Events::new(demo) else {
        return Vec::new();
    };
    let mut answers = Vec::new();
    // Each client id's score in the last snapshot (none: not in it).
    let mut last = [None; MAX_CLIENTS];
    while let Ok(Some(e)) = events.next() {
        let EventKind::Snapshot(snap) = e.kind else {
            continue;
        };
        let mut now = [None; MAX_CLIENTS];
        for item in snap.items() {
            if item.type_id() == PLAYER_INFO_TYPE
                && let (Ok(cid), Some(&score)) = (usize::try_from(item.id()), item.data.get(3))
                && cid < MAX_CLIENTS
            {
                now[cid] = Some(score);
            }
        }
        for (cid, (&before, &score)) in last.iter().zip(&now).enumerate() {
            if let (Some(before), Some(NO_TIME)) = (before, score)
                && before != NO_TIME
            {
                answers.push((e.tick, cid));
            }
        }
        last = now;
    }
    answers
}

/// A core as `CCharacterCore::Write` puts it in a Character item (the
/// core part; the rest is zero).
fn core_item(c: &Core) -> [i32; 22] {
    let mut out = [0; 22];
    out[1] = round_to_int(c.pos.x);
    out[2] = round_to_int(c.pos.y);
    out[3] = round_to_int(c.vel.x * 256.0);
    out[4] = round_to_int(c.vel.y * 256.0);
    out[5] = c.angle;
    out[6] = c.direction;
    out[7] = c.jumped;
    out[8] = c.hooked_player;
    out[9] = c.hook_state;
    out[10] = c.hook_tick;
    out[11] = round_to_int(c.hook_pos.x);
    out[12] = round_to_int(c.hook_pos.y);
    out[13] = round_to_int(c.hook_dir.x * 256.0);
    out[14] = round_to_int(c.hook_dir.y * 256.0);
    out
}
