//! What the server sends beside the entities: its events
//! (`CEventHandler`: sounds, damage indicators, hammer hits, explosions,
//! spawns, deaths), made where DDNet's world makes them and kept until the
//! snapshot that sends them.
//!
//! An event made between two ticks (a kill message, a shot fired by an
//! input) or during a tick goes into the next snapshot the server builds
//! with events: every tick with `sv_high_bandwidth`, else the even ticks
//! (16.4 snaps only then; 20.1 snaps every tick and adds its events only
//! to those "global" snapshots, `OnPostGlobalSnap` clearing them). DDNet
//! drops events past `MAX_EVENTS` in one snapshot.

use crate::simulation::Release;
use crate::simulation::physics::Vec2;

/// `CEventHandler::MAX_EVENTS`.
pub const MAX_EVENTS: usize = 128;

/// `SOUND_*`, the 0.6 sound ids the server sends.
pub mod sound {
    /// The gun fires.
    pub const GUN_FIRE: i32 = 0;
    /// The shotgun fires.
    pub const SHOTGUN_FIRE: i32 = 1;
    /// The grenade launcher fires.
    pub const GRENADE_FIRE: i32 = 2;
    /// The hammer swings.
    pub const HAMMER_FIRE: i32 = 3;
    /// The ninja dashes.
    pub const NINJA_FIRE: i32 = 5;
    /// A grenade explodes.
    pub const GRENADE_EXPLODE: i32 = 6;
    /// The ninja's dash hits.
    pub const NINJA_HIT: i32 = 7;
    /// The laser rifle fires.
    pub const LASER_FIRE: i32 = 8;
    /// A laser bounces.
    pub const LASER_BOUNCE: i32 = 9;
    /// Another weapon in hand.
    pub const WEAPON_SWITCH: i32 = 10;
    /// Firing while frozen.
    pub const PLAYER_PAIN_LONG: i32 = 12;
    /// A jump from the ground.
    pub const PLAYER_JUMP: i32 = 15;
    /// A death.
    pub const PLAYER_DIE: i32 = 16;
    /// The hook grabs the ground.
    pub const HOOK_ATTACH_GROUND: i32 = 21;
    /// The hook grabs a player.
    pub const HOOK_ATTACH_PLAYER: i32 = 22;
    /// The hook meets what it cannot grab.
    pub const HOOK_NOATTACH: i32 = 23;
    /// A heart.
    pub const PICKUP_HEALTH: i32 = 24;
    /// A shield.
    pub const PICKUP_ARMOR: i32 = 25;
    /// The grenade launcher.
    pub const PICKUP_GRENADE: i32 = 26;
    /// The shotgun (and the laser rifle).
    pub const PICKUP_SHOTGUN: i32 = 27;
    /// A tele gun's teleport.
    pub const WEAPON_SPAWN: i32 = 29;
}

/// One event, its position already cut to whole units as DDNet stores it
/// (`(int)Pos.x`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// `SoundWorld`.
    Sound {
        /// Where.
        x: i32,
        /// Where.
        y: i32,
        /// `SOUND_*`.
        id: i32,
    },
    /// `DamageInd`: one of a fan of stars.
    DamageInd {
        /// Where.
        x: i32,
        /// Where.
        y: i32,
        /// The star's angle, in 256ths of a radian.
        angle: i32,
    },
    /// `HammerHit`.
    HammerHit {
        /// Where.
        x: i32,
        /// Where.
        y: i32,
    },
    /// `Explosion`.
    Explosion {
        /// Where.
        x: i32,
        /// Where.
        y: i32,
    },
    /// `Spawn`.
    Spawn {
        /// Where.
        x: i32,
        /// Where.
        y: i32,
    },
    /// `Death`.
    Death {
        /// Where.
        x: i32,
        /// Where.
        y: i32,
        /// Whose.
        cid: i32,
    },
    /// `Finish` (20.1): a race finished there (the confetti).
    Finish {
        /// Where.
        x: i32,
        /// Where.
        y: i32,
    },
}

/// `(int)Pos.x, (int)Pos.y`.
fn cut(p: Vec2) -> (i32, i32) {
    (p.x as i32, p.y as i32)
}

impl Effect {
    /// `CreateSound`.
    pub fn sound(p: Vec2, id: i32) -> Effect {
        let (x, y) = cut(p);
        Effect::Sound { x, y, id }
    }

    /// `CreateHammerHit`.
    pub fn hammer_hit(p: Vec2) -> Effect {
        let (x, y) = cut(p);
        Effect::HammerHit { x, y }
    }

    /// `CreateExplosion`'s event.
    pub fn explosion(p: Vec2) -> Effect {
        let (x, y) = cut(p);
        Effect::Explosion { x, y }
    }

    /// `CreatePlayerSpawn`.
    pub fn spawn(p: Vec2) -> Effect {
        let (x, y) = cut(p);
        Effect::Spawn { x, y }
    }

    /// `CreateDeath`.
    pub fn death(p: Vec2, cid: usize) -> Effect {
        let (x, y) = cut(p);
        Effect::Death {
            x,
            y,
            cid: cid as i32,
        }
    }

    /// `CreateFinishEffect`.
    pub fn finish(p: Vec2) -> Effect {
        let (x, y) = cut(p);
        Effect::Finish { x, y }
    }

    /// `CreateDamageInd`: `amount` stars fanned over a third of a turn
    /// each side of `angle` (radians; 0 is up), in DDNet's float steps:
    /// 16.4 turns by 3.14159 and divides the fan by `amount + 2`, 20.1
    /// turns by its `pi` and divides by `amount + 1`.
    pub fn damage_ind(
        p: Vec2,
        angle: f32,
        amount: i32,
        release: Release,
    ) -> impl Iterator<Item = Effect> {
        // `pi` is a float in DDNet's vmath.
        let pi = std::f32::consts::PI;
        // 16.4 writes pi out to five places.
        #[allow(clippy::approx_constant)]
        let pi_16_4 = 3.14159f32;
        let (a, parts) = match release {
            Release::Ddnet16_4 => (3.0 * pi_16_4 / 2.0 + angle, amount + 2),
            Release::Ddnet20_1 => (3.0 * pi / 2.0 + angle, amount + 1),
        };
        let s = a - pi / 3.0;
        let e = a + pi / 3.0;
        let (x, y) = cut(p);
        (0..amount.max(0)).map(move |i| {
            let f = s + (e - s) * ((i + 1) as f32 / parts as f32);
            Effect::DamageInd {
                x,
                y,
                angle: (f * 256.0) as i32,
            }
        })
    }
}

/// The events waiting for a snapshot.
#[derive(Clone, Debug)]
pub struct Effects {
    list: Vec<Effect>,
    /// The tick of the snapshot the list waits for.
    for_tick: i32,
    /// Every tick's snapshot has events (`sv_high_bandwidth`), not only
    /// the even ticks' (the world sets it from its setting).
    pub every_tick: bool,
}

impl Effects {
    /// None yet; events go out every tick or on even ticks.
    pub fn new(every_tick: bool) -> Effects {
        Effects {
            list: Vec::new(),
            for_tick: i32::MIN,
            every_tick,
        }
    }

    /// The snapshot of `tick` carries events.
    pub fn sent_at(&self, tick: i32) -> bool {
        self.every_tick || tick.rem_euclid(2) == 0
    }

    /// The last tick before `tick` whose snapshot carried events.
    fn last_sent_before(&self, tick: i32) -> i32 {
        let before = tick.saturating_sub(1);
        match self.sent_at(before) {
            true => before,
            false => before.saturating_sub(1),
        }
    }

    /// Adds `e` for the snapshot of `tick` (the one after the last
    /// stepped, or the one being stepped); what an earlier snapshot sent
    /// is gone.
    pub fn push(&mut self, tick: i32, e: Effect) {
        if tick != self.for_tick {
            if self.for_tick <= self.last_sent_before(tick) {
                self.list.clear();
            }
            self.for_tick = tick;
        }
        if self.list.len() < MAX_EVENTS {
            self.list.push(e);
        }
    }

    /// The events the snapshot of `tick` carries, in the order they were
    /// made (each one's snapshot id is its place).
    pub fn at(&self, tick: i32) -> &[Effect] {
        let fresh = self.for_tick <= tick && self.for_tick > self.last_sent_before(tick);
        match self.sent_at(tick) && fresh {
            true => &self.list,
            false => &[],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sound(id: i32) -> Effect {
        Effect::Sound { x: 1, y: 2, id }
    }

    #[test]
    fn with_high_bandwidth_each_tick_sends_its_own_events() {
        let mut e = Effects::new(true);
        e.push(10, sound(0));
        e.push(10, sound(1));
        assert_eq!(e.at(10), &[sound(0), sound(1)]);
        assert_eq!(e.at(11), &[] as &[Effect], "sent with tick 10");
        e.push(12, sound(2));
        assert_eq!(e.at(12), &[sound(2)]);
    }

    #[test]
    fn without_it_an_odd_ticks_events_wait_for_the_even_tick() {
        let mut e = Effects::new(false);
        e.push(11, sound(0));
        assert_eq!(e.at(11), &[] as &[Effect], "no events on odd ticks");
        e.push(12, sound(1));
        assert_eq!(e.at(12), &[sound(0), sound(1)]);
        e.push(13, sound(2));
        assert_eq!(e.at(14), &[sound(2)], "tick 12 sent the first two");
        e.push(17, sound(3));
        assert_eq!(e.at(18), &[sound(3)], "tick 16 cleared 13's event");
        assert_eq!(e.at(20), &[] as &[Effect]);
    }

    #[test]
    fn events_past_max_events_are_dropped() {
        let mut e = Effects::new(true);
        for i in 0..200 {
            e.push(4, sound(i));
        }
        assert_eq!(e.at(4).len(), MAX_EVENTS);
        assert_eq!(e.at(4)[MAX_EVENTS - 1], sound(MAX_EVENTS as i32 - 1));
    }

    #[test]
    fn damage_stars_fan_out_as_each_release_computes_them() {
        // A freeze's last three seconds (angle 0), computed apart in f32
        // steps from DDNet's `CreateDamageInd` of each release; the 16.4
        // formula also gives the server demo's gun stars of
        // corpus/campaign/16.4-dm6-default-s1-c8-t20 (tick 104: 817, 861,
        // ... 1219, 44 or 45 apart).
        let angles = |release| -> Vec<i32> {
            Effect::damage_ind(Vec2::new(10.9, -3.5), 0.0, 3, release)
                .map(|e| match e {
                    Effect::DamageInd { x, y, angle } => {
                        assert_eq!((x, y), (10, -3), "cut toward zero");
                        angle
                    }
                    other => panic!("{other:?}"),
                })
                .collect()
        };
        assert_eq!(angles(Release::Ddnet16_4), [1045, 1152, 1259]);
        assert_eq!(angles(Release::Ddnet20_1), [1072, 1206, 1340]);
    }
}
