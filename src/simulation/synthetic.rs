//! Long, valid teehistorian files that simulate exactly: bots on a map
//! with seeded random inputs, their positions the simulated world's.

use super::SimulateError;
use super::header::world_of;
use super::physics::collision::Collision;
use super::physics::core::MAX_CLIENTS;
use super::physics::prng::Prng;
use crate::teehistorian::{Header, PlayerInput};

/// A teehistorian file of `players` bots on `col`'s map for `ticks`
/// ticks, whose positions are the simulated world's: every bot joins in
/// the first tick, then changes its input now and then (direction, aim,
/// jump, hook, fire), drawn from a generator seeded with `seed`. The
/// header is `header`'s (its map, settings and tuning are the world's).
/// What it is for: long, valid files that simulate exactly (benchmarks,
/// other simulators' tests).
pub fn synthetic_session(
    header: &Header,
    col: Collision,
    players: usize,
    ticks: i32,
    seed: u64,
) -> Result<Vec<u8>, SimulateError> {
    use crate::teehistorian::{Ex, Recorder};
    let players = players.min(MAX_CLIENTS);
    // Tick 0 is the file's implicit start (DDNet's `Reset`): the first
    // tick written is 1.
    let mut world = world_of(header, col, 1, None)?;
    let mut rng = Prng::seeded([seed, 0x7465_656f_7261_636c]);
    let mut rec = Recorder::new(header);
    let mut inputs = vec![PlayerInput::default(); players];
    for t in 0..ticks {
        rec.tick(t + 1);
        for cid in 0..players {
            let recorded = match world.core(cid) {
                Some(c) => rec.record_player(cid as i32, c.pos.x as i32, c.pos.y as i32),
                None => rec.record_dead_player(cid as i32),
            };
            recorded.map_err(SimulateError::Recorder)?;
        }
        if t == 0 {
            for cid in 0..players {
                rec.record_player_join(cid as i32, crate::packet::Version::V06);
                world.join(cid);
                rec.record_ex(Ex::PlayerReady { cid: cid as i32 });
                world.ready(cid);
            }
        }
        for (cid, input) in inputs.iter_mut().enumerate() {
            // About one change a second per bot.
            if t > 0 && rng.random_or_0(50) != 0 {
                continue;
            }
            let mut draw = |n: i32| rng.random_or_0(n);
            input.direction = draw(3) - 1;
            input.target_x = draw(401) - 200;
            input.target_y = draw(401) - 200;
            input.jump = i32::from(draw(4) == 0);
            input.hook = i32::from(draw(3) == 0);
            if draw(5) == 0 {
                input.fire = (input.fire + 1) & 0x3f;
            }
            let raw: crate::teehistorian::Input = (*input).into();
            rec.record_player_input(cid as i32, cid as u32 + 1, &raw)
                .map_err(SimulateError::Recorder)?;
            world.input(cid, *input);
        }
        world.step();
    }
    rec.finish();
    Ok(rec.into_bytes())
}
