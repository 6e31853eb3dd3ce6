//! The world simulator on every teehistorian file of the corpus whose map
//! the corpus holds (issue 27): each file's inputs, replayed with DDNet's
//! physics on its map, put every character where the file records it.
//! The maps are found as `check` finds them, by the SHA-256 the header
//! names, among the corpus' maps and the maps its demos embed.
#![cfg(feature = "jobs")]

use std::path::Path;
use teeoracle::simulation::{Maps, Options, Report};

/// [`Maps::simulate`], the file's map among `maps`.
fn simulate_with(
    bytes: &[u8],
    maps: &Maps,
    cap: u64,
    options: &Options,
) -> Result<Option<Report>, teeoracle::simulation::SimulateError> {
    maps.simulate(bytes, cap, options)
}

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus");

/// Every map and demo of the corpus.
fn maps() -> Maps {
    let mut maps = Maps::default();
    for dir in ["map", "demo"] {
        for f in teeoracle::files::files_under(&Path::new(DIR).join(dir)).expect("the corpus") {
            maps.add(&std::fs::read(&f).expect("a file"));
        }
    }
    maps
}

fn simulate(maps: &Maps, name: &str) -> Report {
    let bytes = std::fs::read(format!("{DIR}/teehistorian/{name}.teehistorian")).expect("a file");
    simulate_with(&bytes, maps, 64 << 20, &Options::default())
        .expect("simulates")
        .unwrap_or_else(|| panic!("{name}: its map is in the corpus"))
}

/// Player-ticks (a tick and a client id with a live character) per file.
/// The 20.1 and the first two 16.4 figures were counted from
/// `teehistorian dump` when the simulator was designed
/// (docs/design/simulation.md §6), not by the simulator.
/// And what the simulation reports as not modelled in it.
const FILES: &[(&str, u64, &[&str])] = &[
    ("ddnet-20.1/A_join_move_leave", 851, &[]),
    ("ddnet-20.1/B_eight_bots_dm1", 15_906, &[]),
    ("ddnet-20.1/C_rcon_auth", 4_502, &[]),
    ("ddnet-20.1/E_map_change.1_dm1", 1_200, &[]),
    ("ddnet-20.1/E_map_change.2_ctf1", 2_899, &[]),
    ("ddnet-20.1/F_crash_truncated", 3_318, &[]),
    ("ddnet-16.4/join_move_leave", 546, &[]),
    ("ddnet-16.4/mixed_06_07", 495, &[]),
    // After map changes: the carried-over clients have no JOIN record.
    ("ddnet-16.4/two_map_changes.2_goldmine", 238, &[]),
    ("ddnet-16.4/two_map_changes.3_ctf1", 382, &[]),
    ("ddnet-16.4/phys_freeze_tutorial", 415, &[]),
    ("ddnet-16.4/phys_gravity_fall", 515, &[]),
    ("ddnet-16.4/phys_hook_players", 1_430, &[]),
    ("ddnet-16.4/phys_kill_hooked", 1_130, &[]),
    ("ddnet-16.4/phys_spawn_rush", 1_700, &[]),
    ("ddnet-16.4/phys_weapons", 1_760, &[]),
    // Teleporters, freeze and an old-style speedup on Gold Mine.
    ("ddnet-16.4/phys_tele_goldmine", 415, &[]),
    // Walking, jumping and hooking from the spawns of Debian's other
    // DDRace maps.
    ("ddnet-16.4/phys_walk_tsunami", 980, &[]),
    ("ddnet-16.4/phys_walk_sunny_side_up", 980, &[]),
    // `/save` (the team killed), `/load` (put where the string says) and
    // `/swap` on Tsunami.
    ("ddnet-16.4/phys_save_load_tsunami", 1_528, &[]),
    // The same commands refused (team 0, a racing team, a save not 30 s
    // old): nobody is killed or moved by them.
    ("ddnet-16.4/phys_save_refused_tsunami", 1_130, &[]),
    ("ddnet-16.4/phys_load_refused_tsunami", 1_428, &[]),
    // Kill protection: `/kill` before it does nothing, Cl_Kill after it
    // is refused and `/kill` kills.
    ("ddnet-16.4/phys_kill_protection_tsunami", 4_514, &[]),
    // Issue 39, class b: a hammer that hits nobody reloads by
    // hammer_fire_delay (6 ticks) on 16.4's server too, so the gun asked
    // for comes out 7 ticks after the swing (the model had 320 ms, the
    // client's prediction of a hit, and drew it 10 ticks late).
    ("ddnet-16.4/phys_hammer_reload_tsunami", 630, &[]),
    // Issue 39, class a: coverage.map's plasma turret on the spawn throws
    // a new tee into the ceiling (tick 32) and its weak dragger pulls the
    // fallers (from tick 56); they fall through the jetpack and hit tiles,
    // which are modelled.
    ("ddnet-16.4/phys_turret_dragger_coverage", 615, &[]),
    // Issue 39: the laser rifle of Tsunami's front layer is a pickup (a
    // front-layer spawn is a spawn: 20.1's coverage.map).
    ("ddnet-16.4/phys_front_pickup_tsunami", 315, &[]),
    // Issue 39: clients in the menu (PLAYERFLAG_IN_MENU, 2) move as
    // ever; only chatting ones (PLAYERFLAG_CHATTING, 4) are held (the
    // model took 2 for chatting).
    ("ddnet-16.4/phys_player_flags_dm1", 830, &[]),
    // Issue 39: `sv_no_weak_hook` (16.4: `sv_no_weak_hook_and_bounce`)
    // ticks every core before the rest of the world (16.4: before the
    // projectiles, 20.1: right before the characters), the deferred part
    // in each character's tick; the model reported it as not modelled.
    ("ddnet-16.4/phys_no_weak_hook_dm1", 1_432, &[]),
    // Issue 39: a shield puts the hammer in hand and leaves the weapon
    // asked for during the reload queued (the gun at tick 175).
    ("ddnet-16.4/phys_armor_queue_dm1", 315, &[]),
    // Issue 39: a new character's previous input is the player's last
    // input, as its latest is: a paused player respawned does not fire
    // (a campaign recording, kept whole: 8 random bots, tunings changed).
    ("ddnet-16.4/phys_campaign_spawn_input_ctf5", 7_182, &[]),
    // A session of 20.1 the model was never tuned on: a ninja dash on an
    // old speedup makes the velocity NaN, which DDNet's float-to-int makes
    // INT_MIN (the model made it 0: 4 positions off from tick 485).
    ("ddnet-20.1-campaign/ninja_nan_speedup_coverage", 3_514, &[]),
];

#[test]
fn every_player_tick_of_the_corpus_is_where_the_physics_puts_it() {
    let maps = maps();
    for &(name, player_ticks, unmodelled) in FILES {
        let r = simulate(&maps, name);
        assert_eq!(r.player_ticks, player_ticks, "{name}");
        assert_eq!(r.matched, player_ticks, "{name}: {:?}", r.listed);
        assert_eq!((r.divergences, r.after_unmodelled), (0, 0), "{name}");
        let features: Vec<&str> = r.unmodelled.iter().map(|u| u.feature.as_str()).collect();
        assert_eq!(features, unmodelled, "{name}");
    }
}

#[test]
fn a_16_4_tick_with_an_unwritten_first_input_is_found_by_its_position() {
    // join_move_leave: two ticks where the core moved with the input it
    // had, the file writing only the tick's second input.
    let r = simulate(&maps(), "ddnet-16.4/join_move_leave");
    assert_eq!(r.held_inputs, [(68, 0), (291, 1)]);
}

#[test]
fn a_moved_character_is_a_divergence_at_its_tick() {
    // B with one PLAYER_DIFF changed: the simulation names that tick and
    // client, and only it (the character is put back where the file says).
    let path = format!("{DIR}/teehistorian/ddnet-20.1/E_map_change.1_dm1.teehistorian");
    let mut bytes = std::fs::read(path).expect("a file");
    let maps = maps();
    let before = simulate_with(&bytes, &maps, 64 << 20, &Options::default())
        .unwrap()
        .unwrap();
    assert_eq!(before.divergences, 0);
    // The first player_diff of client 0 after the header: id 0, dx, dy as
    // one-byte varints; forge its dx by one.
    let forged = forge_first_diff(&mut bytes);
    let after = simulate_with(&bytes, &maps, 64 << 20, &Options::default())
        .unwrap()
        .unwrap();
    assert!(after.divergences >= 1);
    let d = &after.listed[0];
    assert_eq!((d.tick, d.cid), forged);
    assert_eq!(d.recorded.map(|p| p.0), d.simulated.map(|p| p.0 + 1));
}

/// Adds 1 to the dx of the first PLAYER_DIFF whose dx and dy are small
/// (one byte each), and returns its (tick, client id).
fn forge_first_diff(bytes: &mut [u8]) -> (i32, usize) {
    use std::ops::ControlFlow;
    use teeoracle::codec::Mode;
    use teeoracle::teehistorian::{Message, SliceReader};
    let (_, mut reader) = SliceReader::new(bytes, Mode::Strict).expect("a file");
    let mut found = None;
    let _ = reader
        .for_each_record(|rec| match rec.msg {
            Message::PlayerDiff { cid, dx, dy }
                if (0..63).contains(&dx) && (-63..63).contains(&dy) && rec.raw.len() == 3 =>
            {
                found = Some((rec.offset as usize, rec.tick, cid as usize));
                ControlFlow::Break(())
            }
            _ => ControlFlow::Continue(()),
        })
        .expect("records");
    let (at, tick, cid) = found.expect("a small player_diff");
    // A one-byte varint: bit 6 the sign, bits 0-5 the value.
    bytes[at + 1] += 1;
    (tick, cid)
}

#[test]
fn a_synthetic_session_simulates_exactly_and_the_same_every_time() {
    // Corpus B's header (DDNet 20.1 on dm1), 16 bots, 20 seconds.
    let maps = maps();
    let b = std::fs::read(format!(
        "{DIR}/teehistorian/ddnet-20.1/B_eight_bots_dm1.teehistorian"
    ))
    .expect("a file");
    let (header, _) =
        teeoracle::teehistorian::SliceReader::new(&b, teeoracle::codec::Mode::Strict).unwrap();
    let map = maps
        .get(header.info.map_sha256.as_deref().unwrap())
        .unwrap();
    let col =
        teeoracle::simulation::physics::collision::Collision::of_map_bytes(map, 64 << 20).unwrap();
    let one = teeoracle::simulation::synthetic_session(&header, col.clone(), 16, 1000, 7).unwrap();
    let two = teeoracle::simulation::synthetic_session(&header, col, 16, 1000, 7).unwrap();
    assert_eq!(one, two);
    // A valid file: `check` passes it (its first tick is 1, after the
    // implicit tick 0, so no TICK_SKIP goes backwards).
    let options = teeoracle::check::Options {
        deny_warnings: true,
        ..Default::default()
    };
    let v = teeoracle::check::check(
        teeoracle::input::Source::bytes("synthetic.teehistorian", one.clone()),
        &options,
    );
    assert_eq!(
        v.status,
        teeoracle::report::Status::Pass,
        "{:?}",
        v.findings
    );
    let r = simulate_with(&one, &maps, 64 << 20, &Options::default())
        .unwrap()
        .unwrap();
    // Every bot is alive from tick 1 to 999 but when a death tile or a
    // kill takes it; the positions are the world's own.
    assert!(r.player_ticks > 15 * 999, "{}", r.player_ticks);
    assert_eq!(r.matched, r.player_ticks, "{:?}", r.listed);
}

#[test]
fn the_world_at_a_tick_is_the_world_the_file_records_there() {
    let maps = maps();
    let bytes = std::fs::read(format!(
        "{DIR}/teehistorian/ddnet-20.1/B_eight_bots_dm1.teehistorian"
    ))
    .expect("a file");
    let (header, _) =
        teeoracle::teehistorian::SliceReader::new(&bytes, teeoracle::codec::Mode::Strict).unwrap();
    let map = maps
        .get(header.info.map_sha256.as_deref().unwrap())
        .unwrap();
    let col =
        teeoracle::simulation::physics::collision::Collision::of_map_bytes(map, 64 << 20).unwrap();
    let options = Options {
        until: Some(500),
        ..Options::default()
    };
    let r = teeoracle::simulation::simulate(&bytes, col, &options).unwrap();
    let w = r.world.expect("the world at 500");
    assert_eq!((w.tick, r.ticks.1), (500, 500));
    // Positions are the file's there: replay's own bookkeeping says so.
    let mut replay = teeoracle::teehistorian::Replay::new(Default::default());
    let (_, mut reader) =
        teeoracle::teehistorian::SliceReader::new(&bytes, teeoracle::codec::Mode::Strict).unwrap();
    let _ = reader.for_each_record(|rec| {
        if rec.tick > 500 {
            return std::ops::ControlFlow::Break(());
        }
        replay.handle(rec.offset, &rec.msg).expect("consistent");
        std::ops::ControlFlow::Continue(())
    });
    let recorded: Vec<(usize, i32, i32)> = (0..64)
        .filter_map(|cid| {
            let p = replay.player(cid)?;
            p.alive.then_some((cid as usize, p.x, p.y))
        })
        .collect();
    let simulated: Vec<(usize, i32, i32)> = w
        .characters
        .iter()
        .map(|c| (c.cid, c.core.pos.x as i32, c.core.pos.y as i32))
        .collect();
    assert_eq!(simulated, recorded);
    assert_eq!(simulated.len(), 7);
}

#[test]
fn a_gap_of_days_is_crossed_at_once_when_empty_and_refused_with_players() {
    use teeoracle::teehistorian::{Ex, Message, Recorder};
    let maps = maps();
    let b = std::fs::read(format!(
        "{DIR}/teehistorian/ddnet-20.1/B_eight_bots_dm1.teehistorian"
    ))
    .expect("a file");
    let (header, _) =
        teeoracle::teehistorian::SliceReader::new(&b, teeoracle::codec::Mode::Strict).unwrap();
    // Nobody there: a jump of 10^9 ticks costs nothing.
    let mut empty = Recorder::new(&header);
    empty.tick(1);
    empty.record(&Message::Join { cid: 0 });
    empty.record(&Message::Drop {
        cid: 0,
        reason: Default::default(),
    });
    empty.tick(1_000_000_000);
    empty.record(&Message::Join { cid: 1 });
    empty.finish();
    let r = simulate_with(&empty.into_bytes(), &maps, 64 << 20, &Options::default())
        .unwrap()
        .unwrap();
    assert_eq!(
        (
            r.ticks.1,
            r.stopped.as_ref().map(ToString::to_string).as_deref()
        ),
        (1_000_000_000, None)
    );
    // A player in the game: the same gap is refused, and said.
    let mut busy = Recorder::new(&header);
    busy.tick(1);
    busy.record(&Message::Join { cid: 0 });
    busy.record_ex(Ex::PlayerReady { cid: 0 });
    busy.tick(1_000_000_000);
    busy.record(&Message::Join { cid: 1 });
    busy.finish();
    let r = simulate_with(&busy.into_bytes(), &maps, 64 << 20, &Options::default())
        .unwrap()
        .unwrap();
    assert!(
        r.stopped
            .as_ref()
            .map(ToString::to_string)
            .as_deref()
            .is_some_and(|s| s.contains("a day")),
        "{:?}",
        r.stopped
    );
}

/// The file's `--physics` is another version's: 20.1's ctf1 file under
/// 16.4's physics. 16.4 chooses other spawn points for the second and
/// third player (its spawn selection, not 20.1's), which the file's
/// first positions give away at once; and a 16.4 file under 20.1's
/// physics is still exact where the two versions agree (join_move_leave:
/// walking and jumping on Tutorial). The same physics as the recording's
/// is the plain simulation.
#[test]
fn another_versions_physics_shows_where_it_parts_from_the_recording() {
    use teeoracle::simulation::Release;
    let maps = maps();
    let name = "ddnet-20.1/E_map_change.2_ctf1";
    let bytes = std::fs::read(format!("{DIR}/teehistorian/{name}.teehistorian")).unwrap();
    let under = |physics| {
        let options = Options {
            physics,
            ..Options::default()
        };
        simulate_with(&bytes, &maps, 64 << 20, &options)
            .unwrap()
            .unwrap()
    };
    let own = under(None);
    let same = under(Some(Release::Ddnet20_1));
    assert_eq!((own.divergences, same.divergences), (0, 0));
    assert_eq!(own.matched, same.matched);
    let old = under(Some(Release::Ddnet16_4));
    assert_eq!(
        (old.release, old.recorded_release),
        (Release::Ddnet16_4, Release::Ddnet20_1)
    );
    assert_eq!((old.player_ticks, old.divergences), (2_899, 31));
    let first = &old.listed[0];
    assert_eq!(
        (first.tick, first.cid, first.recorded, first.simulated),
        (1, 1, Some((1712, 1008)), Some((464, 1104)))
    );
    let newer = simulate_with(
        &std::fs::read(format!(
            "{DIR}/teehistorian/ddnet-16.4/join_move_leave.teehistorian"
        ))
        .unwrap(),
        &maps,
        64 << 20,
        &Options {
            physics: Some(Release::Ddnet20_1),
            ..Options::default()
        },
    )
    .unwrap()
    .unwrap();
    assert_eq!((newer.matched, newer.player_ticks), (546, 546));
}

/// The stepper (one tick per call, free running) gives the worlds the
/// record-driven simulation shows, tick for tick, on a file it matches
/// exactly; and its report is the same.
#[test]
fn the_stepper_gives_the_worlds_the_simulation_shows() {
    let maps = maps();
    let bytes = std::fs::read(format!(
        "{DIR}/teehistorian/ddnet-20.1/B_eight_bots_dm1.teehistorian"
    ))
    .unwrap();
    let (header, _) =
        teeoracle::teehistorian::SliceReader::new(&bytes, teeoracle::codec::Mode::Lenient).unwrap();
    let col = maps.collision_for(&header, 64 << 20).unwrap().unwrap();
    let (report, shown) = teeoracle::simulation::simulate_observed(
        &bytes,
        col.clone(),
        &Options::default(),
        std::collections::VecDeque::new(),
    )
    .unwrap();
    let shown: Vec<String> = shown
        .iter()
        .map(|s| serde_json::to_string(s).unwrap())
        .collect();
    let mut stepper = teeoracle::simulation::Stepper::new(&bytes, col, None).unwrap();
    let mut stepped = Vec::new();
    while let Some(s) = stepper.next_state() {
        stepped.push(serde_json::to_string(&s).unwrap());
    }
    assert!(shown.len() > 2_900, "{}", shown.len());
    assert_eq!(shown.len(), stepped.len());
    let first_other = shown.iter().zip(&stepped).position(|(a, b)| a != b);
    assert_eq!(first_other, None);
    let r = stepper.report();
    assert_eq!(
        (r.matched, r.player_ticks, r.divergences),
        (report.matched, report.player_ticks, 0)
    );
}

/// A real DDNet 16.4 server built with one physics change (the push two
/// touching players give each other, `PhysicalSize() * 1.45f` in
/// `CCharacterCore::Tick`, made 1.55f) recorded `record/phys_hook_players`:
/// its file is well formed, and the simulation (stock 16.4 physics) names
/// the first tick the change shows in, the second tick of ten players
/// spawned on one another.
#[test]
fn a_server_with_a_physics_change_is_caught_at_its_first_tick() {
    let r = simulate(&maps(), "malformed/physics/push_1_55");
    assert_eq!(r.player_ticks, 1_430);
    assert!(r.divergences > 100, "{}", r.divergences);
    let first = &r.listed[0];
    assert_eq!(
        (first.tick, first.cid, first.recorded, first.simulated),
        (2, 0, Some((1588, 304)), Some((1587, 304)))
    );
    assert!(r.unmodelled.is_empty());
}

#[test]
fn the_jetpack_and_hit_tiles_are_modelled() {
    // Debian's coverage.map on DDNet 16.4: the spawn lies under a front
    // layer plasma turret, whose shots push the tee from tick 56 on
    // (recorded y 857; the model put it at 855 before it had turrets).
    // The tee falls through the jetpack tiles and the hit tiles, which
    // the model named as not modelled (at ticks 42 and 292, a life each)
    // until it had the jetpack gun's push and the hit flags: now every
    // player-tick is judged, and matched.
    let maps = maps();
    let name = "ddnet-16.4/phys_unmodelled_coverage";
    let r = simulate(&maps, name);
    assert_eq!(r.player_ticks, 415);
    assert_eq!(
        (r.matched, r.divergences, r.after_unmodelled),
        (415, 0, 0),
        "{:?}",
        r.listed
    );
    assert!(r.unmodelled.is_empty(), "{:?}", r.unmodelled);
    // `check` names nothing either, and fails nothing.
    let options = teeoracle::check::Options {
        maps: Some(std::sync::Arc::new(maps)),
        ..teeoracle::check::Options::default()
    };
    let path = format!("{DIR}/teehistorian/{name}.teehistorian");
    let v = teeoracle::check::check(teeoracle::check::Source::file(&path), &options);
    assert_ne!(v.status, teeoracle::check::Status::Fail, "{:?}", v.findings);
    let unmodelled = v
        .findings
        .iter()
        .filter(|f| f.code == teeoracle::report::Code::Unmodelled)
        .count();
    assert_eq!(unmodelled, 0, "{:?}", v.findings);
}

#[test]
fn a_header_setting_the_model_does_not_read_leaves_everybody_unjudged() {
    // E_map_change.1_dm1 with `sv_deepfly 0` in its header's config (a
    // deep-frozen character may not fire the hammer: not modelled) and
    // one position forged: the file is simulated, nobody is judged.
    let path = format!("{DIR}/teehistorian/ddnet-20.1/E_map_change.1_dm1.teehistorian");
    let mut bytes = std::fs::read(path).expect("a file");
    let at = bytes
        .windows(10)
        .position(|w| w == b"\"config\":{")
        .expect("a config")
        + 10;
    bytes.splice(at..at, b"\"sv_deepfly\":\"0\",".iter().copied());
    let forged = forge_first_diff(&mut bytes);
    let r = simulate_with(&bytes, &maps(), 64 << 20, &Options::default())
        .unwrap()
        .unwrap();
    assert_eq!(r.divergences, 0, "{:?}", r.listed);
    assert!(r.after_unmodelled >= 1, "{forged:?}");
    assert_eq!(r.matched + r.after_unmodelled, r.player_ticks);
    let named: Vec<String> = r.unmodelled.iter().map(ToString::to_string).collect();
    assert_eq!(
        named,
        ["not modelled: sv_deepfly 0 (the header's config) at tick 0: everybody, from then on"]
    );
}

#[test]
fn the_coverage_table_has_every_setting_and_tuning_the_world_holds() {
    use teeoracle::simulation::coverage::{What, features};
    use teeoracle::simulation::ddrace::config::Config;
    use teeoracle::simulation::physics::tuning::param_names;
    let rows = features();
    let names: Vec<&str> = rows
        .iter()
        .filter(|f| matches!(f.what, What::Setting { .. } | What::Tuning))
        .flat_map(|f| f.name.split(", ").flat_map(|n| n.split(" / ")))
        .collect();
    for release in [
        teeoracle::simulation::Release::Ddnet16_4,
        teeoracle::simulation::Release::Ddnet20_1,
    ] {
        for name in Config::names(release).chain(param_names(release)) {
            assert!(names.contains(&name), "{name} ({release})");
        }
    }
}
