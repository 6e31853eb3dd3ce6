//! The window on a synthetic DDNet 16.4 file: a burst whose first input
//! the writer left out, shown by a position only some ticks later.

use super::WINDOW;
use crate::map::tiles::Tile;
use crate::simulation::ddrace::World;
use crate::simulation::ddrace::world::WorldState;
use crate::simulation::header::world_of;
use crate::simulation::physics::collision::Collision;
use crate::simulation::{Options, simulate, simulate_observed};
use crate::teehistorian::{Ex, Header, HeaderInfo, Input, PlayerInput, Recorder};
use std::collections::VecDeque;

/// A 20 by 20 box of solid tiles (hookable), one spawn point on its
/// floor, the ceiling ten tiles above it (the hook reaches it).
fn boxed() -> Collision {
    let (w, h) = (20, 20);
    let mut tiles = vec![Tile::default(); (w * h) as usize];
    for y in 0..h {
        for x in 0..w {
            if x == 0 || y <= 8 || x == w - 1 || y == h - 1 {
                tiles[(y * w + x) as usize].index = 1;
            }
        }
    }
    // ENTITY_SPAWN.
    tiles[((h - 2) * w + 10) as usize].index = 192;
    Collision::new(w, h, &tiles).expect("a grid")
}

/// A character's position at a tick (`None`: no character).
type Position = Option<(i32, i32)>;

fn header() -> Header {
    Header::from_info(HeaderInfo {
        version: 2,
        server_version: Some("0.6.4, 16.4".into()),
        ..HeaderInfo::default()
    })
}

/// The session as DDNet 16.4 plays it: a client joins, aims up, and at
/// tick `burst` its inputs come in a burst, the first one its last input
/// again (the writer leaves it out: equal to the last written), the
/// second one with the hook pressed. DDNet moves with the first, so the
/// hook flies a tick late. Gives the file and each tick's position of
/// the character, and the same of the model had it moved with the
/// file's first input.
fn session(burst: i32, ticks: i32) -> (Vec<u8>, Vec<Position>, Vec<Position>) {
    let col = boxed();
    let mut server = world_of(&header(), col.clone(), 1, None).expect("a world");
    let mut model = server.clone();
    let mut rec = Recorder::new(&header());
    let aim = PlayerInput {
        target_y: -100,
        ..PlayerInput::default()
    };
    let hook = PlayerInput { hook: 1, ..aim };
    let at = |w: &World| w.core(0).map(|c| (c.pos.x as i32, c.pos.y as i32));
    let (mut seen, mut modelled) = (Vec::new(), Vec::new());
    for t in 1..=ticks {
        rec.tick(t);
        match at(&server) {
            Some((x, y)) => rec.record_player(0, x, y).expect("recorded"),
            None => rec.record_dead_player(0).expect("recorded"),
        }
        seen.push(at(&server));
        modelled.push(at(&model));
        if t == 1 {
            rec.record_player_join(0, crate::packet::Version::V06);
            rec.record_ex(Ex::PlayerReady { cid: 0 });
            for w in [&mut server, &mut model] {
                w.join(0);
                w.ready(0);
            }
        }
        let inputs: &[PlayerInput] = match t {
            1 => &[aim],
            t if t + 1 == burst => &[aim, hook],
            _ => &[],
        };
        for &input in inputs {
            let raw: Input = input.into();
            rec.record_player_input(0, 1, &raw).expect("recorded");
        }
        // The file has the burst's second input only.
        if let Some(&last) = inputs.last() {
            server.input(0, last);
            model.input(0, last);
        }
        match t + 1 == burst {
            true => server.step_holding(&[0]),
            false => server.step(),
        }
        model.step();
    }
    rec.finish();
    (rec.into_bytes(), seen, modelled)
}

#[test]
fn a_bursts_first_input_shown_ticks_later_is_found() {
    let burst = 40;
    let (file, seen, modelled) = session(burst, 80);
    // The file cannot tell at the burst's tick: the position is the same
    // either way; the hook's pull shows 3 ticks later (without the
    // window, 18 player-ticks diverge).
    let first = (0..seen.len())
        .find(|&i| seen[i] != modelled[i])
        .map(|i| i as i32 + 1)
        .expect("the hook a tick late shows");
    assert!(
        first >= burst + 2 && first - burst < WINDOW as i32,
        "{first}"
    );
    let (r, shown) =
        simulate_observed(&file, boxed(), &Options::default(), VecDeque::new()).expect("simulates");
    assert_eq!((r.divergences, r.matched), (0, r.player_ticks));
    assert_eq!(r.held_inputs, [(burst, 0)]);
    // The observer is shown every tick once, as stepped again.
    let shown: Vec<(i32, Position)> = shown
        .iter()
        .map(|s: &WorldState| {
            let at = s.characters.first().map(|c| c.core.pos);
            (s.tick, at.map(|p| (p.x as i32, p.y as i32)))
        })
        .collect();
    let ticks = (1..).zip(seen).collect::<Vec<_>>();
    assert_eq!(shown, ticks);
}

#[test]
fn without_a_burst_nothing_is_held() {
    // The same inputs written whole (the hook's input not in a burst):
    // the model moves with them, nothing is stepped again.
    let (file, seen, modelled) = session(0, 80);
    assert_eq!(seen, modelled);
    let r = simulate(&file, boxed(), &Options::default()).expect("simulates");
    assert_eq!((r.divergences, r.held_inputs.len()), (0, 0));
}

#[test]
fn under_other_physics_the_window_is_not_searched() {
    // The same file stepped with 20.1's physics: its positions cannot
    // tell an input held ticks ago from a physics that parts, so the
    // earlier ticks are not searched and the late hook is a divergence.
    let (file, _, _) = session(40, 80);
    let options = Options {
        physics: Some(crate::simulation::Release::Ddnet20_1),
        ..Options::default()
    };
    let r = simulate(&file, boxed(), &options).expect("simulates");
    assert_eq!(r.held_inputs, []);
    assert!(r.divergences > 0);
    assert_eq!(r.listed[0].tick, 43);
}
