//! The simulated-world adapter: a teehistorian file's world as the model
//! of DDNet's physics steps it from the file's inputs ([`crate::simulation::Stepper`]),
//! read tick by tick. Each character is a keyed event (`character`,
//! keyed by client id) whose fields are what the model decides
//! (core, freeze, weapons, input; [`character_fields`]); projectiles and
//! lasers are events in sequence with all their fields. Two
//! files' worlds compared this way show what a physics change does to a
//! recording: the same file under two releases' physics, or two builds'
//! recordings of one scenario.

use super::{Event, Positions, TickContent, Ticks};
use crate::codec::{DecodeError, Mode};
use crate::simulation::Release;
use crate::simulation::ddrace::world::WorldState;
use crate::simulation::physics::collision::Collision;
use crate::simulation::{SimulateError, Stepper};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// A teehistorian file's simulated world, tick by tick.
pub struct SimulatedTicks<'a> {
    stepper: Stepper<'a>,
    state: Option<WorldState>,
    /// The state's JSON: equal bytes, equal worlds.
    raw: Vec<u8>,
    positions: Positions,
}

impl<'a> SimulatedTicks<'a> {
    /// The world of `bytes` (a teehistorian file) on `col`, with
    /// `physics` if given; the header [`compare`](super::compare) takes:
    /// whose physics, and the recording server's version.
    pub fn new(
        bytes: &'a [u8],
        col: Collision,
        physics: Option<Release>,
    ) -> Result<(Value, Self), SimulateError> {
        let (header, _) = crate::teehistorian::SliceReader::new(bytes, Mode::Lenient)
            .map_err(SimulateError::Decode)?;
        let recorded = crate::simulation::header::recorded_release(&header)?;
        let value = json!({
            "physics": physics.unwrap_or(recorded),
            "recorded_version": recorded,
        });
        let ticks = SimulatedTicks {
            stepper: Stepper::new(bytes, col, physics)?,
            state: None,
            raw: Vec::new(),
            positions: Positions::new(),
        };
        Ok((value, ticks))
    }

    /// What the simulation found against the file's own positions.
    pub fn report(&self) -> &crate::simulation::Report {
        self.stepper.report()
    }
}

impl Ticks for SimulatedTicks<'_> {
    fn next_tick(&mut self) -> Result<Option<i32>, DecodeError> {
        self.state = self.stepper.next_state();
        let Some(s) = &self.state else {
            return Ok(None);
        };
        self.raw = serde_json::to_vec(s).unwrap_or_default();
        self.positions = s
            .characters
            .iter()
            .map(|c| (c.cid as i32, (c.core.pos.x as i32, c.core.pos.y as i32)))
            .collect();
        Ok(Some(s.tick))
    }

    fn raw(&self) -> &[u8] {
        &self.raw
    }

    fn content(&self, _detail: &dyn Fn(&str) -> bool) -> TickContent {
        let Some(s) = &self.state else {
            return TickContent::default();
        };
        let events =
            s.projectiles
                .iter()
                .map(|p| {
                    Event::new(
                        "projectile".into(),
                        serde_json::to_value(p).unwrap_or_default(),
                    )
                })
                .chain(s.lasers.iter().map(|l| {
                    Event::new("laser".into(), serde_json::to_value(l).unwrap_or_default())
                }))
                .collect();
        let items: BTreeMap<String, Event> = s
            .characters
            .iter()
            .map(|c| {
                let key = format!("character:{:02}", c.cid);
                let mut e = Event::new("character".into(), character_fields(c));
                e.key = Some(key.clone());
                (key, e)
            })
            .collect();
        TickContent {
            events,
            items,
            new_items: true,
            ..TickContent::default()
        }
    }

    fn positions(&self) -> Option<&Positions> {
        Some(&self.positions)
    }

    fn character_word(&self) -> &'static str {
        "cid"
    }
}

/// What a character's event says: its core (position, velocity, hook,
/// jumps, direction, aim, input), freeze, weapons and team, flat, in
/// this order. Bookkeeping that follows from these (previous positions,
/// input counts, event bits) is left out.
fn character_fields(c: &crate::simulation::ddrace::world::CharacterState) -> Value {
    let (core, ch) = (&c.core, &c.character);
    let i = &core.input;
    json!({
        "pos": [core.pos.x, core.pos.y],
        "vel": [core.vel.x, core.vel.y],
        "hook_state": core.hook_state,
        "hook_pos": [core.hook_pos.x, core.hook_pos.y],
        "hook_tick": core.hook_tick,
        "hooked_player": core.hooked_player,
        "jumped": core.jumped,
        "jumped_total": core.jumped_total,
        "jumps": core.jumps,
        "direction": core.direction,
        "angle": core.angle,
        "input": [i.direction, i.target_x, i.target_y, i.jump, i.hook],
        "freeze_time": ch.freeze_time,
        "freeze_start": ch.freeze_start,
        "deep_frozen": ch.deep_frozen,
        "live_frozen": ch.live_frozen,
        "weapon": ch.active_weapon,
        "reload_timer": ch.reload_timer,
        "attack_tick": ch.attack_tick,
        // Per weapon slot: null where not owned, -1 endless.
        "ammo": ch.weapons.iter().map(|w| w.got.then_some(w.ammo)).collect::<Vec<_>>(),
        "ninja_activation_tick": ch.ninja_activation_tick,
        "team": c.team,
    })
}
