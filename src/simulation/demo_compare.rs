//! A simulation compared with the server demo of the same session: each
//! Character (and DDNetCharacter) item, at its own tick, against the
//! simulated character's core as DDNet's dead reckoning sent it.

use super::Release;
use super::ddrace::World;
use super::physics::core::{Core, MAX_CLIENTS};
use super::physics::round_to_int;
use super::report::{DemoMismatch, DemoReport, MAX_LISTED};
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
}

impl<'d> DemoCompare<'d> {
    pub(super) fn new(events: Events<'d>) -> DemoCompare<'d> {
        DemoCompare {
            events,
            ahead: None,
            done: false,
            ring: vec![VecDeque::new(); MAX_CLIENTS],
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

    /// The world stands at the end of its tick (a snapshot's moment):
    /// keep its cores unless the world's tick did, and compare the demo's
    /// snapshots up to this tick.
    pub(super) fn at_tick(&mut self, w: &World, tainted: &[bool], r: &mut DemoReport) {
        let tick = w.tick;
        self.keep_cores(w, tainted);
        while let Some((snap_tick, chars)) = self.next_snapshot() {
            if snap_tick > tick {
                self.ahead = Some((snap_tick, chars));
                break;
            }
            r.snapshots += 1;
            for c in &chars {
                r.items += 1;
                if snap_tick != tick {
                    r.not_simulated += 1;
                    continue;
                }
                self.compare(w, tick, c, tainted[c.cid], r);
            }
        }
    }

    /// Whether the demo's Character items of this tick (the world's) for
    /// `cid` differ from the world's character, before [`Self::at_tick`]
    /// compares them: `None` if the demo has no snapshot at this tick, or
    /// no item of `cid` in it, or the model nothing to compare it with.
    pub(super) fn differs(&mut self, w: &World, cid: usize) -> Option<bool> {
        if self.ahead.is_none() {
            self.ahead = self.next_snapshot();
        }
        let (snap_tick, chars) = self.ahead.as_ref()?;
        if *snap_tick != w.tick {
            return None;
        }
        let c = chars.iter().find(|c| c.cid == cid)?;
        self.differences(w, w.tick, c)
            .map(|(fields, _)| !fields.is_empty())
    }

    fn compare(&self, w: &World, tick: i32, c: &DemoChar, tainted: bool, r: &mut DemoReport) {
        let Some((fields, touched)) = self.differences(w, tick, c) else {
            r.not_simulated += 1;
            return;
        };
        let tainted = tainted || touched;
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
        for (item, field, demo, simulated) in fields {
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
    /// one kept for the item's tick, or the world's now if it is of this
    /// tick and not kept yet. `None`: nothing to compare with.
    #[allow(clippy::type_complexity)]
    fn differences(
        &self,
        w: &World,
        tick: i32,
        c: &DemoChar,
    ) -> Option<(Vec<(&'static str, &'static str, i32, i32)>, bool)> {
        let item_tick = c.character[0];
        let at = if item_tick == 0 { tick } else { item_tick };
        let kept = self.ring[c.cid]
            .iter()
            .rev()
            .find(|(t, _, _)| *t == at)
            .map(|(_, core, t)| (*core, *t));
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
