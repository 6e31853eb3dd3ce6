//! The physics campaign's sample (docs/campaign.md): recordings of
//! `examples/campaign/run` on Debian's DDNet 16.4 and on DDNet 20.1, each
//! a teehistorian file with the server demo of its session (both gzipped:
//! the demos are large, and a bare `.teehistorian` in the corpus would be
//! a case of the conformance suite too) and the scenario that regenerates
//! it. Each keeps simulating as it does today:
//! those in `corpus/campaign/` exactly (every player-tick where the file
//! puts it, every Character item as the demo has it); the known failures
//! in `examples/campaign/known/` (not in the corpus, whose every file must
//! pass `check`) diverge first where their line says. A known failure
//! that simulates exactly fails here until it moves to `corpus/campaign/`:
//! the model's fixes show as that list shrinking.

#![cfg(feature = "jobs")]

use std::path::{Path, PathBuf};
use teeoracle::simulation::physics::collision::Collision;
use teeoracle::simulation::{Options, Report, simulate};

/// A known failure: the run, its class (as `/work/campaign-findings` and
/// docs/campaign.md name it) and its first divergence as the simulation
/// reports it today.
struct Known {
    id: &'static str,
    class: &'static str,
    first: &'static str,
}

/// The runs in `corpus/campaign/` (exact).
pub(crate) const EXACT: &[&str] = &[
    "16.4-Gold_Mine-hook-s1-c8-t20",
    "16.4-Tsunami-default-s2-c8-t20",
    "16.4-coverage-hook-s2-c8-t20",
    "16.4-coverage-solo_nohit-s2-c8-t20",
    "16.4-coverage-weapons-s2-c8-t20",
    "16.4-ctf4-solo_nohit-s2-c8-t20",
    "16.4-ctf5-solo_nohit-s2-c8-t20",
    "16.4-dm1-chat_menu-s1-c8-t20",
    "16.4-dm1-solo_nohit-s1-c8-t20",
    "16.4-dm1-weapons-s1-c8-t20",
    "16.4-dm2-default-s3-c12-t20",
    "16.4-dm6-default-s1-c8-t20",
    "16.4-dm7-ddrace-s2-c8-t20",
    "20.1-Gold_Mine-players-s2-c8-t20",
    "20.1-ctf5-ddrace-s2-c8-t20",
    "20.1-coverage-players-s1-c8-t20",
    "20.1-coverage-solo_nohit-s2-c8-t20",
    "20.1-coverage-weapons-s22-c12-t20",
    "20.1-ctf7-default-s2-c8-t20",
    "20.1-dm1-hook-s2-c8-t20",
    "20.1-dm2-default-s3-c12-t20",
    "20.1-dm6-gravity_jumps-s2-c8-t20",
    "20.1-dm6-players-s2-c8-t20",
];

/// The runs in `examples/campaign/known/` (none today: the last one,
/// 16.4-ctf5-solo_nohit, became exact with a tick's unrecorded first
/// input).
const KNOWN: &[Known] = &[];

pub(crate) fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// Simulates the run in `dir` on the map its demo embeds, against that
/// demo.
fn run(dir: &Path) -> Report {
    let (th, demo, col) = load(dir);
    let options = Options {
        demo: Some(&demo),
        ..Options::default()
    };
    simulate(&th, col, &options).expect("simulates")
}

/// The run's teehistorian file and demo, and the map the demo embeds.
pub(crate) fn load(dir: &Path) -> (Vec<u8>, Vec<u8>, Collision) {
    let th = gunzip(&dir.join("server.teehistorian.gz"));
    let demo = gunzip(&dir.join("teeoracle.demo.gz"));
    let events = teeoracle::demo::Events::new(&demo).expect("a demo");
    let col = Collision::of_map_bytes(events.map(), 64 << 20).expect("a game layer");
    (th, demo, col)
}

fn gunzip(path: &Path) -> Vec<u8> {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(file), &mut bytes)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    bytes
}

/// The first divergence in words: the first position the model puts
/// elsewhere, or the demo's first item field, whichever comes first.
fn first_divergence(r: &Report) -> Option<String> {
    let pos = r.listed.iter().find(|d| !d.unmodelled);
    let item = r.demo.as_ref().and_then(|d| d.listed.first());
    let pos_first = pos.is_some_and(|p| item.is_none_or(|i| p.tick <= i.tick.max(i.snapshot_tick)));
    match (pos, item) {
        (Some(p), _) if pos_first => Some(format!(
            "tick {} cid {}: recorded {:?}, model {:?}",
            p.tick, p.cid, p.recorded, p.simulated
        )),
        (_, Some(i)) => Some(format!(
            "snapshot {} cid {}: {}.{} {} in the demo, model {}",
            i.snapshot_tick, i.cid, i.item, i.field, i.demo, i.simulated
        )),
        _ => None,
    }
}

fn exact(r: &Report) -> bool {
    let demo = r.demo.as_ref();
    r.player_ticks > 0
        && r.matched == r.player_ticks
        && r.after_unmodelled == 0
        && demo.is_some_and(|d| d.compared > 0 && d.matched == d.compared)
}

#[test]
fn the_exact_sample_stays_exact() {
    let dir = root().join("corpus/campaign");
    for id in EXACT {
        let r = run(&dir.join(id));
        assert!(
            exact(&r),
            "{id}: no longer exact ({} of {} player-ticks, {:?}); first divergence: {:?}",
            r.matched,
            r.player_ticks,
            r.demo.as_ref().map(|d| (d.matched, d.compared)),
            first_divergence(&r)
        );
    }
    // Every folder of the sample is listed.
    let mut found: Vec<String> = std::fs::read_dir(&dir)
        .expect("corpus/campaign")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    found.sort();
    let mut listed: Vec<String> = EXACT.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(found, listed, "corpus/campaign's folders and EXACT");
}

#[test]
fn the_known_failures_diverge_where_they_did() {
    let dir = root().join("examples/campaign/known");
    let mut now_exact = Vec::new();
    let mut moved = Vec::new();
    for k in KNOWN {
        let r = run(&dir.join(k.id));
        match first_divergence(&r) {
            None if exact(&r) => now_exact.push(k.id),
            first if first.as_deref() != Some(k.first) => {
                moved.push(format!(
                    "{} ({}): was {:?}, now {first:?}",
                    k.id, k.class, k.first
                ));
            }
            _ => {}
        }
    }
    assert!(
        now_exact.is_empty(),
        "known failures now exact (move each to corpus/campaign/ and EXACT): {now_exact:?}"
    );
    assert!(
        moved.is_empty(),
        "known failures whose first divergence moved (update their line):\n{}",
        moved.join("\n")
    );
    // Git keeps no empty folder: none is an empty list.
    let mut found: Vec<String> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    found.sort();
    let mut listed: Vec<String> = KNOWN.iter().map(|k| k.id.to_string()).collect();
    listed.sort();
    assert_eq!(found, listed, "examples/campaign/known's folders and KNOWN");
}

/// 16.4-Tsunami-default's 0.7 client 2 leaves the file at tick 141 (an
/// unrecorded team change) and is back at 343, exactly as a team change
/// back brings it. Forged back at tick 200 instead, sooner than
/// `Cl_SetTeam` may follow the last one (`sv_team_change_delay`, 3 s):
/// that was no team change but something the model missed, so the note
/// goes and the return is a divergence, never hidden.
#[test]
fn a_return_sooner_than_a_team_change_allows_is_a_divergence() {
    use teeoracle::teehistorian::{Message, Recorder, SliceReader};
    let dir = root().join("corpus/campaign/16.4-Tsunami-default-s2-c8-t20");
    let (th, _, col) = load(&dir);
    let note = "a 0.7 client's team change (DDNet does not record it)";
    let notes = |r: &Report| r.unmodelled.iter().filter(|u| u.feature == note).count();
    let r = simulate(&th, col.clone(), &Options::default()).expect("simulates");
    assert_eq!((r.divergences, notes(&r)), (0, 1), "{:?}", r.listed);

    // The same records, with client 2 where it comes back from tick 200.
    let (header, reader) = SliceReader::new(&th, teeoracle::codec::Mode::Strict).expect("a file");
    let mut rec = Recorder::new(&header);
    let mut at: Vec<Option<(i32, i32)>> = vec![None; 64];
    let mut tick = None;
    let mut flushed = true;
    let flush = |rec: &mut Recorder, at: &[Option<(i32, i32)>], tick: i32| {
        for (cid, p) in at.iter().enumerate() {
            let p = p.or((cid == 2 && (200..343).contains(&tick)).then_some((80, 5840)));
            match p {
                Some((x, y)) => rec.record_player(cid as i32, x, y).expect("in order"),
                None => rec.record_dead_player(cid as i32).expect("in order"),
            }
        }
    };
    for r in reader {
        let r = r.expect("a record");
        if tick != Some(r.tick) {
            if !flushed {
                flush(&mut rec, &at, tick.unwrap_or(0));
            }
            tick = Some(r.tick);
            rec.tick(r.tick);
            flushed = false;
        }
        match r.msg {
            Message::PlayerNew { cid, x, y } => at[cid as usize] = Some((x, y)),
            Message::PlayerDiff { cid, dx, dy } => {
                let p = at[cid as usize].as_mut().expect("alive");
                *p = (p.0 + dx, p.1 + dy);
            }
            Message::PlayerOld { cid } => at[cid as usize] = None,
            Message::TickSkip { .. } => {}
            Message::Finish => {
                if !flushed {
                    flush(&mut rec, &at, r.tick);
                    flushed = true;
                }
                rec.finish();
            }
            msg => {
                if !flushed {
                    flush(&mut rec, &at, r.tick);
                    flushed = true;
                }
                rec.record(&msg);
            }
        }
    }
    let forged = rec.into_bytes();
    let r = simulate(&forged, col, &Options::default()).expect("simulates");
    let first = r.listed.first().expect("a divergence");
    assert_eq!(
        (first.tick, first.cid, first.recorded, first.simulated),
        (200, 2, Some((80, 5840)), None)
    );
    assert_eq!(notes(&r), 0, "{:?}", r.unmodelled);
}

/// 16.4-ctf5-solo_nohit: the bots stalled, and at tick 397 a burst of
/// inputs for tick 398 came (clients 2 and 5: 14 and 7 written). Each
/// burst began with the client's last input again, which the writer
/// leaves out (the capture of the session shows it: client 5's inputs for
/// ticks 371 and 372 arrive with the burst, the first equal to tick 370's),
/// and DDNet moves with it. Client 5's position tells (it jumps a tick
/// later); client 2's does not (its hook flies a tick later, which only
/// the demo's Character item shows).
#[test]
fn a_tick_with_an_unwritten_first_input_is_found_by_position_or_demo() {
    let dir = root().join("corpus/campaign/16.4-ctf5-solo_nohit-s2-c8-t20");
    assert_eq!(run(&dir).held_inputs, [(398, 2), (398, 5)]);
    let (th, _, col) = load(&dir);
    let r = simulate(&th, col, &Options::default()).expect("simulates");
    assert_eq!(r.held_inputs, [(398, 5)]);
}
