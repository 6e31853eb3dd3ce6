//! The world simulator against the server demo of the same session (issue
//! 27, item 2): every Character and DDNetCharacter item of the demo equals
//! the simulated character, its core as of the item's own tick (DDNet's
//! reckoning tick, `m_SendCore`), the rest as of the snapshot.
#![cfg(feature = "jobs")]

use teeoracle::map::{Datafile, Map};
use teeoracle::simulation::{DemoReport, Options, simulate};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus");

/// Simulates `teehistorian/{dir}/{name}.teehistorian` on the map its demo
/// embeds and compares it with that demo.
fn compare(dir: &str, name: &str) -> DemoReport {
    let th = std::fs::read(format!("{DIR}/teehistorian/{dir}/{name}.teehistorian"))
        .expect("the teehistorian file");
    let demo = std::fs::read(format!("{DIR}/demo/{dir}/{name}.demo")).expect("the demo");
    let events = teeoracle::demo::Events::new(&demo).expect("a demo");
    let map = events.map();
    Datafile::decode(map)
        .map(|d| Map::new(&d))
        .expect("its map");
    let col = teeoracle::simulation::physics::collision::Collision::of_map_bytes(map, 64 << 20)
        .expect("a game layer");
    let options = Options {
        demo: Some(&demo),
        ..Options::default()
    };
    let report = simulate(&th, col, &options).expect("simulates");
    report.demo.expect("a demo comparison")
}

/// Every item compared, every one equal.
fn all_equal(r: &DemoReport, items: u64) {
    assert_eq!(
        (
            r.items,
            r.compared,
            r.matched,
            r.mismatched,
            r.after_unmodelled,
            r.not_simulated
        ),
        (items, items, items, 0, 0, 0),
        "{:?}",
        r.listed
    );
    assert_eq!(r.ddnet_items, items);
}

#[test]
fn eight_bots_on_dm1_equal_every_character_item() {
    let r = compare("ddnet-20.1", "B_eight_bots_dm1");
    all_equal(&r, 13_981);
    // 15 items of characters not yet ticked carry tick 0.
    assert_eq!(r.tick_zero, 15);
    assert_eq!(r.snapshots, 2_510);
}

#[test]
fn the_other_20_1_sessions_equal_every_character_item() {
    for (name, items) in [
        ("A_join_move_leave", 330),
        ("C_rcon_auth", 3_653),
        ("E_map_change.1_dm1", 927),
        ("E_map_change.2_ctf1", 2_162),
        ("F_crash_truncated", 2_629),
    ] {
        let r = compare("ddnet-20.1", name);
        assert_eq!(r.matched, items, "{name}: {:?}", r.listed);
        all_equal(&r, items);
    }
}

#[test]
fn ddnet_16_4_hooks_weapons_kills_spawns_and_saves_equal_every_character_item() {
    for (name, items) in [
        ("phys_hook_players", 1_150),
        ("phys_weapons", 1_450),
        ("phys_kill_hooked", 850),
        ("phys_spawn_rush", 1_525),
        ("phys_gravity_fall", 475),
        ("phys_freeze_tutorial", 375),
        ("phys_tele_goldmine", 375),
        ("phys_walk_tsunami", 925),
        ("phys_walk_sunny_side_up", 925),
        ("phys_save_load_tsunami", 1_448),
        ("phys_hammer_reload_tsunami", 550),
        ("phys_turret_dragger_coverage", 520),
        ("phys_front_pickup_tsunami", 275),
    ] {
        let r = compare("ddnet-16.4", name);
        assert_eq!(r.matched, items, "{name}: {:?}", r.listed);
        all_equal(&r, items);
    }
}
