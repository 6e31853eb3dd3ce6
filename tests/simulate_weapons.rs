//! The world simulator with weapons (issue 27, stage 3) on the DDNet 20.1
//! corpus: grenades, shotgun, laser, ninja and gun bullets replayed from
//! the inputs put every character where the file says.
#![cfg(feature = "jobs")]

use teeoracle::map::{Datafile, Map};
use teeoracle::world::collision::Collision;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus");

/// dm1's game layer, as the demo of corpus A embeds it.
fn dm1() -> Collision {
    let demo =
        std::fs::read(format!("{DIR}/demo/ddnet-20.1/A_join_move_leave.demo")).expect("the demo");
    let events = teeoracle::demo::Events::new(&demo).expect("a demo");
    let bytes = events.map();
    let datafile = Datafile::decode(bytes).expect("its map");
    let map = Map::new(&datafile);
    Collision::of_map(&datafile, &map, 64 << 20).expect("a game layer")
}

fn simulate(name: &str) -> teeoracle::simulate::Report {
    let bytes = std::fs::read(format!("{DIR}/teehistorian/ddnet-20.1/{name}.teehistorian"))
        .expect("the file");
    teeoracle::simulate::simulate(&bytes, dm1()).expect("simulates")
}

#[test]
fn eight_bots_with_grenades_match_every_player_tick_but_a_spectating_one() {
    let r = simulate("B_eight_bots_dm1");
    assert_eq!(r.player_ticks, 15_906);
    assert_eq!(r.matched, 15_905, "{:?}", r.listed);
    assert_eq!(r.divergences, 0, "{:?}", r.listed);
    assert!(
        r.unmodelled
            .iter()
            .all(|u| u.feature.starts_with("console command")),
        "{:?}",
        r.unmodelled
    );
}

#[test]
fn shotguns_and_ninja_match_every_player_tick() {
    for (name, ticks) in [("F_crash_truncated", 3_318), ("A_join_move_leave", 851)] {
        let r = simulate(name);
        assert_eq!(
            (r.player_ticks, r.matched),
            (ticks, ticks),
            "{name}: {:?}",
            r.listed
        );
    }
}

#[test]
fn rcon_auth_matches_until_its_gravity_change() {
    let r = simulate("C_rcon_auth");
    // Every divergence comes after `tune gravity 0.45` at tick 527.
    assert!(r.listed.iter().all(|d| d.tick > 527), "{:?}", r.listed);
    assert!(
        r.players
            .iter()
            .all(|p| p.first_divergence.is_none_or(|t| t > 527))
    );
}
