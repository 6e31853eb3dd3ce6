//! What a character is beyond its core (`CCharacter`,
//! `src/game/server/entities/character.cpp`): the inputs it keeps,
//! freeze, weapons and ammo. The world ([`super::world`]) drives it.

use crate::simulation::Release;
use crate::simulation::physics::Vec2;
use crate::teehistorian::PlayerInput;
use serde::Serialize;

/// Weapons (`WEAPON_*`).
pub mod weapon {
    /// Always owned.
    pub const HAMMER: i32 = 0;
    /// The pistol.
    pub const GUN: i32 = 1;
    /// The shotgun.
    pub const SHOTGUN: i32 = 2;
    /// The grenade launcher.
    pub const GRENADE: i32 = 3;
    /// The laser rifle.
    pub const LASER: i32 = 4;
    /// Ninja.
    pub const NINJA: i32 = 5;
    /// How many.
    pub const COUNT: usize = 6;
}

/// `PLAYERFLAG_CHATTING` (0.6's third flag, after `PLAYING` and
/// `IN_MENU`; a 0.7 client's flags are translated to 0.6's before they are
/// recorded): the input is ignored by the character.
pub const PLAYERFLAG_CHATTING: i32 = 1 << 2;
/// `PLAYERFLAG_SPEC_CAM` (20.1): the input is not for the character.
pub const PLAYERFLAG_SPEC_CAM: i32 = 1 << 5;

/// `DDRACE_*`: a character's race.
pub mod race {
    /// Not racing.
    pub const NONE: i32 = 0;
    /// Crossed the start line.
    pub const STARTED: i32 = 1;
    /// Moved by a cheat (test) command: the start line does nothing.
    pub const CHEAT: i32 = 2;
    /// Crossed the finish line.
    pub const FINISHED: i32 = 3;
}

/// A character's ninja state (`m_Core.m_Ninja` and the dash's hit list).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Ninja {
    /// The dash's direction.
    pub activation_dir: Vec2,
    /// Ticks of dash left (goes below 0 when none runs).
    pub current_move_time: i32,
    /// The speed to give back when the dash ends: an `int` in DDNet, so
    /// the speed at the dash's start truncated.
    pub old_vel_amount: i32,
    /// Whom this dash has hit already.
    pub hit: Vec<usize>,
}

/// A weapon slot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Slot {
    /// Owned.
    pub got: bool,
    /// Ammunition, -1 for endless.
    pub ammo: i32,
}

/// One character, by its client id. Its core is in the world's
/// [`crate::simulation::physics::core::Cores`].
#[derive(Clone, Debug, serde::Serialize)]
pub struct Character {
    /// The client id.
    pub cid: usize,
    /// `m_Pos`: the core's position after the last tick's move (tiles and
    /// pickups look here, not at the core).
    pub pos: crate::simulation::physics::Vec2,
    /// The core position at the end of the last tick (`m_PrevPos`).
    pub prev_pos: crate::simulation::physics::Vec2,
    /// The tick it spawned.
    pub spawn_tick: i32,
    /// The input the core gets this tick (`m_Input`).
    #[serde(skip)]
    pub input: PlayerInput,
    /// The input as it came (`m_SavedInput`); freeze masks a copy.
    #[serde(skip)]
    pub saved_input: PlayerInput,
    /// Last tick's `input` (`m_PrevInput`).
    #[serde(skip)]
    pub prev_input: PlayerInput,
    /// The newest direct input (`m_LatestInput`), for firing.
    #[serde(skip)]
    pub latest_input: PlayerInput,
    /// The one before it (`m_LatestPrevInput`).
    #[serde(skip)]
    pub latest_prev_input: PlayerInput,
    /// Direct inputs since spawn (`m_NumInputs`); firing needs two.
    pub num_inputs: i32,
    /// Ticks of freeze left (0 = not frozen).
    pub freeze_time: i32,
    /// The tick the freeze began (0 when not frozen).
    pub freeze_start: i32,
    /// Unfrozen during the last tick: the next shot fires at once.
    pub frozen_last_tick: bool,
    /// Deep freeze: frozen again every tick.
    pub deep_frozen: bool,
    /// Live freeze: no walking or jumping.
    pub live_frozen: bool,
    /// Ticks until the weapon fires again.
    pub reload_timer: i32,
    /// The weapon in hand.
    pub active_weapon: i32,
    /// The one before it.
    pub last_weapon: i32,
    /// A switch waiting for the reload (-1 none).
    pub queued_weapon: i32,
    /// Owned weapons and their ammunition.
    pub weapons: [Slot; weapon::COUNT],
    /// The tick it last fired.
    pub attack_tick: i32,
    /// The tick ninja was picked up.
    pub ninja_activation_tick: i32,
    /// Armor (DDNet 20.1 shows the freeze's progress in it).
    pub armor: i32,
    /// The stoppers' [`crate::simulation::physics::collision::cantmove`] bits where it stands
    /// (`m_MoveRestrictions`, from the tiles).
    pub move_restrictions: i32,
    /// Was on a refill tile in the last tile walk.
    pub last_refill_jumps: bool,
    /// Was on a time penalty (`TILE_ADD_TIME`) in the last tile walk.
    pub last_penalty: bool,
    /// Was on a time bonus (`TILE_SUBTRACT_TIME`) in the last tile walk.
    pub last_bonus: bool,
    /// The number of the last checkpoint (`TILE_TELECHECK`) passed, 0
    /// for none (`m_TeleCheckpoint`): check teleporters send back there.
    pub tele_checkpoint: i32,
    /// Its race (`m_DDRaceState`, one of [`race`]).
    pub ddrace_state: i32,
    /// When its race started (`m_StartTime`; 0 none).
    pub start_tick: i32,
    /// Has the jetpack gun.
    pub jetpack: bool,
    /// By weapon, whether it cannot hit others (`m_HammerHitDisabled`,
    /// `m_ShotgunHitDisabled`, `m_GrenadeHitDisabled`,
    /// `m_LaserHitDisabled`; the gun's slot is unused): every one set from
    /// `sv_hit` at spawn ([`Character::hit_others`]), then by tiles.
    pub hit_disabled: [bool; weapon::COUNT],
    /// The ninja's dash.
    pub ninja: Ninja,
    /// Out of the world (`CCharacter::m_Paused`, by `/spec`): it neither
    /// ticks nor is met, and keeps its core as it was.
    pub paused: bool,
    /// When it left the world (`m_PausedTick`).
    pub paused_tick: i32,
    /// Its place in the character list as the last world tick ended
    /// (`m_StrongWeakId`, numbered in `CGameWorld::Tick`): the
    /// DDNetCharacter item's `strong_weak_id`.
    pub strong_weak_id: i32,
    /// Ticks until firing while frozen cries again (`m_PainSoundTimer`).
    #[serde(skip)]
    pub pain_sound_timer: i32,
    /// The eyes it was given (`m_EmoteType`, an `EMOTE_*`): by damage or
    /// an emoticon.
    #[serde(skip)]
    pub emote_type: i32,
    /// The tick they go back to normal after (`m_EmoteStop`; -1 never).
    #[serde(skip)]
    pub emote_stop: i32,
    /// Its snapshot ids ([`super::snap_ids`]): 16.4's entity id, or
    /// 20.1's two for its other shapes.
    #[serde(skip)]
    pub snap_ids: [Option<i32>; 2],
}

/// `EMOTE_PAIN`.
pub const EMOTE_PAIN: i32 = 1;

impl Character {
    /// A character spawned at `tick`, with the player's last input (aim
    /// reset to straight up), hammer and gun, gun in hand.
    pub fn new(
        cid: usize,
        pos: crate::simulation::physics::Vec2,
        tick: i32,
        last_input: PlayerInput,
    ) -> Character {
        let mut input = last_input;
        input.target_x = 0;
        input.target_y = -1;
        let mut weapons = [Slot::default(); weapon::COUNT];
        for w in [weapon::HAMMER, weapon::GUN] {
            weapons[w as usize] = Slot {
                got: true,
                ammo: -1,
            };
        }
        Character {
            cid,
            pos,
            prev_pos: pos,
            spawn_tick: tick,
            input,
            saved_input: input,
            prev_input: input,
            latest_input: input,
            // The constructor sets every input to the last one: a fire
            // counter already odd is no press.
            latest_prev_input: input,
            num_inputs: 0,
            freeze_time: 0,
            freeze_start: 0,
            frozen_last_tick: false,
            deep_frozen: false,
            live_frozen: false,
            reload_timer: 0,
            active_weapon: weapon::GUN,
            last_weapon: weapon::HAMMER,
            queued_weapon: -1,
            weapons,
            attack_tick: 0,
            ninja_activation_tick: 0,
            armor: 0,
            move_restrictions: 0,
            last_refill_jumps: false,
            last_penalty: false,
            last_bonus: false,
            tele_checkpoint: 0,
            ddrace_state: race::NONE,
            start_tick: 0,
            jetpack: false,
            hit_disabled: [false; weapon::COUNT],
            ninja: Ninja::default(),
            paused: false,
            paused_tick: 0,
            strong_weak_id: 0,
            pain_sound_timer: 0,
            emote_type: 0,
            emote_stop: -1,
            snap_ids: [None; 2],
        }
    }

    /// `DDRaceInit`'s part from `sv_hit`: every weapon hits others, or
    /// none does.
    pub fn hit_others(mut self, sv_hit: bool) -> Character {
        self.hit_disabled = [!sv_hit; weapon::COUNT];
        self
    }

    /// The armor that shows `ticks` of freeze or ninja left: a bar of 10
    /// that fills as they run out (16.4's `DDRaceTick` and `HandleNinja`,
    /// 20.1's `SetArmorProgress`).
    pub fn armor_progress(ticks: i32) -> i32 {
        (10 - ticks / 15).clamp(0, 10)
    }

    /// `Freeze(seconds)` at `tick`: refused while a longer freeze runs,
    /// and within a second of the last freeze's start unless not frozen.
    pub fn freeze(&mut self, seconds: i32, tick: i32, super_: bool) -> bool {
        if seconds <= 0 || super_ || self.freeze_time > seconds * 50 {
            return false;
        }
        if self.freeze_time == 0 || self.freeze_start < tick - 50 {
            self.armor = 0;
            self.freeze_time = seconds * 50;
            self.freeze_start = tick;
            return true;
        }
        false
    }

    /// `Freeze(seconds)` by `release`'s rule: 16.4 refuses a second freeze
    /// within a second of the last one's start even when not frozen.
    pub fn freeze_at(&mut self, seconds: i32, tick: i32, super_: bool, release: Release) -> bool {
        match release {
            Release::Ddnet20_1 => self.freeze(seconds, tick, super_),
            Release::Ddnet16_4 => {
                if seconds <= 0 || super_ || self.freeze_time > seconds * 50 {
                    return false;
                }
                if self.freeze_start < tick - 50 {
                    self.armor = 0;
                    self.freeze_time = seconds * 50;
                    self.freeze_start = tick;
                    return true;
                }
                false
            }
        }
    }

    /// `Unfreeze`.
    pub fn unfreeze(&mut self) -> bool {
        if self.freeze_time > 0 {
            self.armor = 10;
            if self.active_weapon >= 0 && !self.weapons[self.active_weapon as usize].got {
                self.active_weapon = weapon::GUN;
            }
            self.freeze_time = 0;
            self.freeze_start = 0;
            self.frozen_last_tick = true;
            return true;
        }
        false
    }

    /// `TakeDamage` with damage, at `tick`: the eyes in pain for half a
    /// second.
    pub fn pain(&mut self, tick: i32) {
        self.set_emote(EMOTE_PAIN, tick.saturating_add(25));
    }

    /// `SetEmote`: `emote` until `stop`.
    pub fn set_emote(&mut self, emote: i32, stop: i32) {
        self.emote_type = emote;
        self.emote_stop = stop;
    }

    /// `SetWeapon`: true when the weapon in hand changed (DDNet's switch
    /// sound).
    pub fn set_weapon(&mut self, w: i32) -> bool {
        if w == self.active_weapon {
            return false;
        }
        self.last_weapon = self.active_weapon;
        self.queued_weapon = -1;
        self.active_weapon = if (0..weapon::COUNT as i32).contains(&w) {
            w
        } else {
            0
        };
        true
    }

    /// `GiveWeapon` (not ninja).
    pub fn give_weapon(&mut self, w: i32) {
        self.weapons[w as usize] = Slot {
            got: true,
            ammo: -1,
        };
    }

    /// `GiveNinja` at `tick`.
    pub fn give_ninja(&mut self, tick: i32) {
        self.ninja_activation_tick = tick;
        self.weapons[weapon::NINJA as usize] = Slot {
            got: true,
            ammo: -1,
        };
        if self.active_weapon != weapon::NINJA {
            self.last_weapon = self.active_weapon;
        }
        self.active_weapon = weapon::NINJA;
    }

    /// `RemoveNinja`: back to the weapon before. 16.4 ends only the dash
    /// and the weapon (the activation tick stays, and its DDNetCharacter
    /// shows it); 20.1 forgets the activation and the dash's direction
    /// and speed too.
    pub fn remove_ninja(&mut self, release: Release) {
        let slot = &mut self.weapons[weapon::NINJA as usize];
        match release {
            Release::Ddnet16_4 => {
                self.ninja.current_move_time = 0;
                slot.got = false;
            }
            Release::Ddnet20_1 => {
                let hit = std::mem::take(&mut self.ninja.hit);
                self.ninja = Ninja {
                    hit,
                    ..Ninja::default()
                };
                self.ninja_activation_tick = 0;
                *slot = Slot::default();
            }
        }
        self.active_weapon = self.last_weapon;
        let w = self.active_weapon;
        self.set_weapon(w);
    }

    /// `DoWeaponSwitch`: true when the weapon in hand changed.
    pub fn do_weapon_switch(&mut self) -> bool {
        if self.reload_timer != 0 || self.queued_weapon == -1 {
            return false;
        }
        if self.weapons[weapon::NINJA as usize].got
            || !self.weapons[self.queued_weapon as usize].got
        {
            return false;
        }
        self.set_weapon(self.queued_weapon)
    }

    /// `HandleWeaponSwitch`: next/previous presses and the wanted weapon;
    /// true when the weapon in hand changed.
    #[inline]
    pub fn handle_weapon_switch(&mut self) -> bool {
        // Nearly every tick: the input handled again.
        if self.switch_is_idle() {
            return false;
        }
        self.handle_weapon_switch_in_full()
    }

    /// Whether [`Character::handle_weapon_switch`] can change nothing:
    /// no next or previous press, no wanted weapon, and no queued weapon
    /// it may switch to now (a queued one is only queued again).
    #[inline]
    pub fn switch_is_idle(&self) -> bool {
        let (prev, latest) = (&self.latest_prev_input, &self.latest_input);
        latest.wanted_weapon == 0
            && prev.next_weapon == latest.next_weapon
            && prev.prev_weapon == latest.prev_weapon
            && (self.queued_weapon == -1 || self.reload_timer != 0)
    }

    /// Whether `FireWeapon` can do nothing: reloading, or no queued
    /// weapon to switch to, no press of fire and fire not held (what
    /// even an automatic weapon or a frozen character needs).
    #[inline]
    pub fn fires_nothing(&self) -> bool {
        let (prev, latest) = (&self.latest_prev_input, &self.latest_input);
        self.reload_timer != 0
            || self.queued_weapon == -1 && prev.fire == latest.fire && latest.fire & 1 == 0
    }

    /// [`Character::handle_weapon_switch`] without the test for nothing
    /// to do (not inlined, as [`Character::switch_is_idle`] is).
    #[inline(never)]
    pub(super) fn handle_weapon_switch_in_full(&mut self) -> bool {
        let mut wanted = if self.queued_weapon != -1 {
            self.queued_weapon
        } else {
            self.active_weapon
        };
        if !self.weapons[..weapon::COUNT - 1].iter().any(|s| s.got) {
            return false;
        }
        let n = weapon::COUNT as i32;
        let mut next = presses(
            self.latest_prev_input.next_weapon,
            self.latest_input.next_weapon,
        );
        let mut prev = presses(
            self.latest_prev_input.prev_weapon,
            self.latest_input.prev_weapon,
        );
        if next < 128 {
            while next > 0 {
                wanted = (wanted + 1) % n;
                if self.weapons[wanted as usize].got {
                    next -= 1;
                }
            }
        }
        if prev < 128 {
            while prev > 0 {
                wanted = if wanted - 1 < 0 { n - 1 } else { wanted - 1 };
                if self.weapons[wanted as usize].got {
                    prev -= 1;
                }
            }
        }
        if self.latest_input.wanted_weapon != 0 {
            wanted = self.input.wanted_weapon - 1;
        }
        if (0..n).contains(&wanted)
            && wanted != self.active_weapon
            && self.weapons[wanted as usize].got
        {
            self.queued_weapon = wanted;
        }
        self.do_weapon_switch()
    }
}

/// `CountInput(prev, cur).m_Presses`: fire and weapon counters count
/// presses and releases; a press is an odd value reached.
pub fn presses(prev: i32, cur: i32) -> i32 {
    const MASK: i32 = 0x3f;
    let mut p = prev & MASK;
    let cur = cur & MASK;
    let mut n = 0;
    let mut i = 0;
    while p != cur && i < 64 {
        p = (p + 1) & MASK;
        if p & 1 != 0 {
            n += 1;
        }
        i += 1;
    }
    n
}
