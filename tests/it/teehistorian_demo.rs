//! `teehistorian demo` (issue 27, item 5): the demo of a simulated
//! teehistorian file against the server's own demo of the same session.
//! For every tick both demos have, the Character and DDNetCharacter items
//! of each client id are compared field by field.
#![cfg(feature = "jobs")]

use std::collections::BTreeMap;
use teeoracle::demo::{EventKind, Events};
use teeoracle::simulation::demo_writer::{Span, demo_of_teehistorian};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus");

/// Per tick, per client id: the Character item's ints and the
/// DDNetCharacter item's.
type Items = BTreeMap<i32, BTreeMap<i32, (Vec<i32>, Option<Vec<i32>>)>>;

/// The character items of every snapshot of a demo.
fn characters(demo: &[u8]) -> Items {
    let mut events = Events::new(demo).expect("a demo");
    let mut out = Items::new();
    // A tick marker with no snapshot after it: the last one again.
    let mut last = BTreeMap::new();
    while let Ok(Some(e)) = events.next() {
        let snap = match e.kind {
            EventKind::Snapshot(snap) => snap,
            EventKind::Tick { .. } => {
                out.insert(e.tick, last.clone());
                continue;
            }
            _ => continue,
        };
        let tick = out.entry(e.tick).or_default();
        tick.clear();
        for item in snap.items() {
            if item.type_id() == 9 {
                tick.entry(item.id()).or_default().0 = item.data.to_vec();
            } else if item.type_id() >= teeoracle::snapshot::OFFSET_UUID_TYPE
                && snap.ex_type_name(item.type_id()) == Some("character@netobj.ddnet.tw")
            {
                tick.entry(item.id()).or_default().1 = Some(item.data.to_vec());
            }
        }
        last = tick.clone();
    }
    out
}

/// What comparing two demos' character items found.
#[derive(Debug, Default)]
struct Comparison {
    /// Character items of the server's demo at ticks ours has too.
    items: u64,
    /// Of those, ours has the same client id's item, equal in every int.
    equal: u64,
    /// DDNetCharacter items compared and equal in every int.
    ddnet_items: u64,
    ddnet_equal: u64,
    /// Differing Character fields by index, with a first example.
    fields: BTreeMap<usize, (u64, String)>,
    ddnet_fields: BTreeMap<usize, (u64, String)>,
    /// Character items of the server's demo that ours lacks.
    missing: u64,
    /// Ticks of the server's demo that ours has.
    ticks: u64,
}

fn compare(ours: &Items, theirs: &Items) -> Comparison {
    let mut c = Comparison::default();
    for (tick, chars) in theirs {
        let Some(mine) = ours.get(tick) else {
            continue;
        };
        c.ticks += 1;
        for (cid, (ch, dd)) in chars {
            c.items += 1;
            let Some((my_ch, my_dd)) = mine.get(cid) else {
                c.missing += 1;
                continue;
            };
            if ch == my_ch {
                c.equal += 1;
            } else {
                for i in 0..ch.len().max(my_ch.len()) {
                    if ch.get(i) != my_ch.get(i) {
                        let e = c.fields.entry(i).or_insert((
                            0,
                            format!(
                                "tick {tick} cid {cid}: server {:?}, ours {:?}",
                                ch.get(i),
                                my_ch.get(i)
                            ),
                        ));
                        e.0 += 1;
                    }
                }
            }
            if let Some(dd) = dd {
                c.ddnet_items += 1;
                let my_dd = my_dd.as_deref().unwrap_or_default();
                if dd[..] == my_dd[..] {
                    c.ddnet_equal += 1;
                } else {
                    for i in 0..dd.len().max(my_dd.len()) {
                        if dd.get(i) != my_dd.get(i) {
                            let e = c.ddnet_fields.entry(i).or_insert((
                                0,
                                format!(
                                    "tick {tick} cid {cid}: server {:?}, ours {:?}",
                                    dd.get(i),
                                    my_dd.get(i)
                                ),
                            ));
                            e.0 += 1;
                        }
                    }
                }
            }
        }
    }
    c
}

/// Our demo of `teehistorian/{dir}/{name}` on the map the server's demo
/// embeds, compared with that demo.
fn against_server(dir: &str, name: &str) -> (Vec<u8>, Comparison) {
    let th = std::fs::read(format!("{DIR}/teehistorian/{dir}/{name}.teehistorian"))
        .expect("the teehistorian file");
    let server = std::fs::read(format!("{DIR}/demo/{dir}/{name}.demo")).expect("the demo");
    let map = Events::new(&server).expect("a demo").map().to_vec();
    let (ours, summary) =
        demo_of_teehistorian(&th, &map, &Span::All, 64 << 20, None).expect("a demo of the file");
    assert!(summary.map_matches_header, "{name}");
    let c = compare(&characters(&ours), &characters(&server));
    assert!(summary.simulation.player_ticks >= c.items, "{name}");
    (ours, c)
}

/// Every Character item of the server's demo at a simulated tick, and its
/// DDNetCharacter item, against ours: (file, items, Character items equal
/// in every int). DDNetCharacter items are all equal, and a Character item
/// that differs differs only in `emote` (field 20): the eyes a player
/// chooses (emoticons) are not modelled, and the idle blink and the end of
/// 20.1's away state come from when inputs arrived, which the file does not
/// record (`diff`'s `received_input`).
const SERVER_DEMOS: [(&str, &str, u64, u64); 13] = [
    ("ddnet-20.1", "A_join_move_leave", 851, 749),
    ("ddnet-20.1", "B_eight_bots_dm1", 15_906, 15_490),
    ("ddnet-20.1", "C_rcon_auth", 4_502, 4_499),
    ("ddnet-20.1", "E_map_change.1_dm1", 1_200, 1_196),
    ("ddnet-20.1", "E_map_change.2_ctf1", 2_899, 2_795),
    ("ddnet-20.1", "F_crash_truncated", 3_306, 2_999),
    ("ddnet-16.4", "phys_hook_players", 1_150, 1_150),
    ("ddnet-16.4", "phys_weapons", 1_450, 1_442),
    ("ddnet-16.4", "phys_kill_hooked", 850, 844),
    ("ddnet-16.4", "phys_spawn_rush", 1_525, 1_444),
    ("ddnet-16.4", "phys_gravity_fall", 475, 475),
    ("ddnet-16.4", "phys_freeze_tutorial", 375, 375),
    ("ddnet-16.4", "phys_tele_goldmine", 375, 375),
];

#[test]
fn character_items_equal_the_server_demos() {
    for (dir, name, items, equal) in SERVER_DEMOS {
        let (_, c) = against_server(dir, name);
        assert_eq!(
            (c.items, c.missing, c.equal, c.ddnet_items, c.ddnet_equal),
            (items, 0, equal, items, items),
            "{name}: {c:?}"
        );
        assert!(
            c.fields.keys().all(|&f| f == 20) && c.ddnet_fields.is_empty(),
            "{name}: {c:?}"
        );
    }
}

/// A snapshot: its tick, and its items (key, ints) sorted by key.
type Snap = (i32, Vec<(i32, Vec<i32>)>);

/// libtw2's demo reader over a demo: every snapshot it rebuilds (keyframes
/// with `RawSnap::read`, deltas with `Delta::read` sized by libtw2's DDNet
/// table and `RawSnap::read_with_delta`), as (tick, items sorted by key);
/// an error of any kind fails.
fn read_with_libtw2(bytes: &[u8]) -> Vec<Snap> {
    use libtw2_demo::RawChunk;
    use libtw2_packer::Unpacker;
    use libtw2_snapshot::snap::{Delta, RawSnap};
    let mut warn: Vec<libtw2_demo::Warning> = Vec::new();
    let mut reader =
        libtw2_demo::Reader::new(std::io::Cursor::new(bytes), &mut warn).expect("libtw2 header");
    let mut snap_warn: Vec<libtw2_snapshot::format::Warning> = Vec::new();
    let mut buf = Vec::new();
    let mut current: Option<RawSnap> = None;
    let mut tick = -1;
    let mut out = Vec::new();
    while let Some(chunk) = reader
        .read_chunk(&mut warn)
        .expect("libtw2 reads every chunk")
    {
        let snap = match chunk {
            RawChunk::Tick { tick: t, .. } => {
                tick = t;
                continue;
            }
            RawChunk::Snapshot(b) => {
                let mut snap = RawSnap::empty();
                snap.read(&mut snap_warn, &mut buf, b).expect("a keyframe");
                snap
            }
            RawChunk::SnapshotDelta(b) => {
                let base = current.as_ref().expect("a keyframe first");
                let mut delta = Delta::new();
                delta
                    .read(
                        &mut snap_warn,
                        libtw2_gamenet_ddnet::snap_obj::obj_size,
                        &mut Unpacker::new(b),
                    )
                    .expect("a delta");
                let mut snap = RawSnap::empty();
                snap.read_with_delta(&mut snap_warn, base, &delta)
                    .expect("a delta that applies");
                snap
            }
            RawChunk::Message(_) | RawChunk::Unknown => continue,
        };
        out.push((
            tick,
            snap.items().map(|i| (i.key(), i.data.to_vec())).collect(),
        ));
        current = Some(snap);
    }
    assert!(warn.is_empty(), "libtw2 demo warnings: {warn:?}");
    assert!(
        snap_warn.is_empty(),
        "libtw2 snapshot warnings: {snap_warn:?}"
    );
    out
}

/// The same snapshots as teeoracle's demo reader rebuilds them.
fn read_with_teeoracle(bytes: &[u8]) -> Vec<Snap> {
    let mut events = Events::new(bytes).expect("a demo");
    let mut out = Vec::new();
    while let Some(e) = events.next().expect("every event reads") {
        if let EventKind::Snapshot(snap) = e.kind {
            let mut items: Vec<(i32, Vec<i32>)> = snap
                .items()
                .map(|i| ((i.type_id() << 16) | i.id(), i.data.to_vec()))
                .collect();
            items.sort();
            out.push((e.tick, items));
        }
    }
    out
}

#[test]
fn libtw2_reads_the_written_demo_as_teeoracle_does() {
    for (dir, name) in [
        ("ddnet-20.1", "B_eight_bots_dm1"),
        ("ddnet-16.4", "phys_weapons"),
    ] {
        let (ours, _) = against_server(dir, name);
        let lt2 = read_with_libtw2(&ours);
        let mine = read_with_teeoracle(&ours);
        assert!(!lt2.is_empty());
        assert_eq!(lt2.len(), mine.len(), "{name}: snapshots");
        for (a, b) in lt2.iter().zip(&mine) {
            assert_eq!(a, b, "{name}: the snapshot of tick {}", a.0);
        }
    }
}

#[test]
fn a_cut_demo_holds_the_full_demos_ticks_and_a_player_its_span() {
    let th = std::fs::read(format!(
        "{DIR}/teehistorian/ddnet-20.1/B_eight_bots_dm1.teehistorian"
    ))
    .unwrap();
    let server = std::fs::read(format!("{DIR}/demo/ddnet-20.1/B_eight_bots_dm1.demo")).unwrap();
    let map = Events::new(&server).unwrap().map().to_vec();
    let (full, _) = demo_of_teehistorian(&th, &map, &Span::All, 64 << 20, None).unwrap();
    let (cut, s) = demo_of_teehistorian(
        &th,
        &map,
        &Span::Ticks {
            from: 1000,
            to: 1200,
        },
        64 << 20,
        None,
    )
    .unwrap();
    assert_eq!((s.ticks, s.snapshots), ((1000, 1200), 201));
    let full = characters(&full);
    let cut = characters(&cut);
    assert_eq!(
        cut.keys().copied().collect::<Vec<_>>(),
        (1000..=1200).collect::<Vec<_>>()
    );
    for (tick, items) in &cut {
        assert_eq!(Some(items), full.get(tick), "tick {tick}");
    }
    // No tick of the file in the range: an error, no demo.
    assert!(
        demo_of_teehistorian(
            &th,
            &map,
            &Span::Ticks {
                from: 5000,
                to: 6000
            },
            64 << 20,
            None
        )
        .is_err()
    );
    // A player: the ticks from its name on to the file's end or its
    // leaving.
    let a = std::fs::read(format!(
        "{DIR}/teehistorian/ddnet-20.1/A_join_move_leave.teehistorian"
    ))
    .unwrap();
    let (_, s) =
        demo_of_teehistorian(&a, &map, &Span::Player("alice".into()), 64 << 20, None).unwrap();
    assert_eq!((s.ticks, s.player_cids.clone()), ((81, 931), vec![0]));
    assert!(demo_of_teehistorian(&a, &map, &Span::Player("bob".into()), 64 << 20, None).is_err());
}

/// Issue 44: over the physics campaign's sessions (`corpus/campaign/`,
/// DDNet 16.4 and 20.1, each with the server's own demo), the demo
/// written for the ticks the server's demo covers, against that demo,
/// item by item (`diff --only item --ignore Registration`, as
/// docs/commands.md shows). Registrations are left out by name: which
/// number an extended type gets depends on what the server snapped for
/// its clients too (their views and snapshot rates), which no
/// teehistorian file records. What still differs, per session and
/// category, is the golden: a model fix shows as lines going.
#[test]
fn written_demos_against_the_server_demos_of_the_campaign() {
    use teeoracle::diff::{DEMO, DemoTicks, Options, compare};
    let mut text = String::new();
    for run in crate::campaign::EXACT {
        let dir = crate::campaign::root().join("corpus/campaign").join(run);
        let (th, server, _) = crate::campaign::load(&dir);
        let mut events = Events::new(&server).expect("a demo");
        let map = events.map().to_vec();
        let mut ticks = (i32::MAX, i32::MIN);
        while let Ok(Some(e)) = events.next() {
            if e.tick >= 0 {
                ticks = (ticks.0.min(e.tick), ticks.1.max(e.tick));
            }
        }
        let span = Span::Ticks {
            from: ticks.0,
            to: ticks.1,
        };
        let (ours, summary) =
            demo_of_teehistorian(&th, &map, &span, 64 << 20, Some(&server)).expect("a demo");
        let options = Options {
            only: vec!["item".into()],
            ignore: vec!["Registration".into()],
            same_session: teeoracle::demo::one_session(&server, &ours),
            common_snapshots: true,
            ..Options::default()
        }
        .with_defaults(DEMO, &[], false);
        assert!(options.same_session.is_some(), "{run}: one session");
        let (ho, mut o) = DemoTicks::new(&server).expect("the server's demo");
        let (hn, mut n) = DemoTicks::new(&ours).expect("ours");
        let r = compare(&ho, &hn, &mut o, &mut n, &options).expect("compared");
        assert_eq!(r.aligned_by, "session");
        text += &format!(
            "{run} (ticks {}..{}): {} differences\n",
            ticks.0, ticks.1, r.total_differences
        );
        let witnessed = summary.witness.expect("a witness");
        for (what, list) in [
            ("held inputs", witnessed.held_inputs),
            ("join answers", witnessed.join_answers),
        ] {
            if !list.is_empty() {
                text += &format!("  from the witness, {what} (tick, cid): {list:?}\n");
            }
        }
        for (category, c) in &r.summary {
            text += &format!(
                "  {category}: {} added, {} removed, {} changed\n",
                c.added, c.removed, c.changed
            );
        }
    }
    crate::common::snapshot("teehistorian_demo", "against_campaign", &text);
}

/// The demo written for ticks 26..1000 of the campaign folder `name`
/// (the server's demo its witness if `witness`), and `diff`'s items
/// between the server's demo and it, as the docs' check command compares
/// them (demo defaults but `keep`).
fn item_diff(
    name: &str,
    witness: bool,
    common_snapshots: bool,
    keep: &[String],
) -> teeoracle::diff::Report {
    use teeoracle::diff::{DEMO, DemoTicks, Options, compare};
    let dir = crate::campaign::root().join("corpus/campaign").join(name);
    let (th, server, _) = crate::campaign::load(&dir);
    let map = Events::new(&server).expect("a demo").map().to_vec();
    let span = Span::Ticks { from: 26, to: 1000 };
    let witness = witness.then_some(&server[..]);
    let (ours, _) = demo_of_teehistorian(&th, &map, &span, 64 << 20, witness).expect("a demo");
    let options = Options {
        only: vec!["item".into()],
        ignore: vec!["Registration".into()],
        same_session: teeoracle::demo::one_session(&server, &ours),
        common_snapshots,
        max_differences: usize::MAX,
        ..Options::default()
    }
    .with_defaults(DEMO, keep, false);
    let (ho, mut o) = DemoTicks::new(&server).expect("the server's demo");
    let (hn, mut n) = DemoTicks::new(&ours).expect("ours");
    compare(&ho, &hn, &mut o, &mut n, &options).expect("compared")
}

/// A server that runs late ticks several times and snapshots once: the
/// 16.4 ctf4 run's server demo has no snapshot from tick 733 to 767.
/// Compared where either has a snapshot, the written demo's items there
/// differ from the server's items in force; with `common_snapshots`,
/// nothing is compared at those ticks.
#[test]
fn items_compare_at_common_snapshots_across_a_servers_stall() {
    let stalled = |common_snapshots: bool| {
        let r = item_diff(
            "16.4-ctf4-solo_nohit-s2-c8-t20",
            true,
            common_snapshots,
            &[],
        );
        assert_eq!(r.common_snapshots, common_snapshots);
        let in_gap = (r.differences.iter())
            .filter(|d| (733..768).contains(&d.tick))
            .count();
        (in_gap, r.total_differences)
    };
    let (either_gap, either) = stalled(false);
    let (both_gap, both) = stalled(true);
    assert!(either_gap > 8 * 30, "{either_gap} differences in the stall");
    assert_eq!(both_gap, 0);
    assert!(both < either, "{both} vs {either}");
}

/// `snapshot_ids`: on a 20.1 campaign session the written demo's only
/// differences from the server's are projectiles under other ids (the
/// id pool's five-second wait is the server loop's scheduling); compared
/// by content, the two are equal item for item.
#[test]
fn entities_under_other_snapshot_ids_are_the_same_items() {
    let session = "20.1-dm2-default-s3-c12-t20";
    let by_id = item_diff(
        session,
        false,
        true,
        &[teeoracle::diff::SNAPSHOT_IDS.into()],
    );
    assert!(by_id.total_differences > 20, "{}", by_id.total_differences);
    let kinds: std::collections::BTreeSet<_> = by_id
        .differences
        .iter()
        .map(|d| d.category.as_str())
        .collect();
    assert_eq!(kinds, ["item:DDNetProjectile"].into());
    assert_eq!(item_diff(session, false, true, &[]).total_differences, 0);
}

/// `snapshot_ids` on an extended type's first item: DDNet 16.4 registers
/// a new extended type at its next snapshot, so in the 16.4 coverage
/// `solo_nohit` session the first DDNetProjectile's snapshot (tick 100)
/// has it unnamed (`unknown:32763`) in both demos, under another id in
/// each. Kept by id, that tick differs in those two alone (later ones in
/// the id pool's types, under other ids too); left out, nothing differs.
#[test]
fn an_unregistered_extended_item_under_other_ids_is_the_same_item() {
    let session = "16.4-coverage-solo_nohit-s2-c8-t20";
    let by_id = item_diff(
        session,
        false,
        true,
        &[teeoracle::diff::SNAPSHOT_IDS.into()],
    );
    let at = |tick: i32| -> Vec<&str> {
        (by_id.differences.iter())
            .filter(|d| d.tick == tick)
            .map(|d| d.category.as_str())
            .collect()
    };
    assert_eq!(at(100), ["item:unknown:32763", "item:unknown:32763"]);
    assert_eq!(by_id.differences.iter().map(|d| d.tick).min(), Some(100));
    let kinds: std::collections::BTreeSet<_> = (by_id.differences.iter())
        .map(|d| d.category.as_str())
        .collect();
    assert_eq!(
        kinds,
        ["item:DDRaceProjectile", "item:Laser", "item:unknown:32763"].into()
    );
    assert_eq!(item_diff(session, false, true, &[]).total_differences, 0);
}

/// What only the server's demo can tell: on the two 16.4 campaign
/// sessions that need it, the demo written without a witness differs
/// from the server's only from the tick the witness names on (ctf4: the
/// burst after the stall, whose inputs moved clients 2, 3, 5 and 6 with
/// their last ones at 770; coverage `weapons`: the database's answer to
/// client 0's join after its finish, at 114), and with it not at all.
#[test]
fn a_witness_tells_what_the_file_cannot() {
    for (session, from) in [
        ("16.4-ctf4-solo_nohit-s2-c8-t20", 770),
        ("16.4-coverage-weapons-s2-c8-t20", 114),
    ] {
        let alone = item_diff(session, false, true, &[]);
        let first = alone.differences.iter().map(|d| d.tick).min();
        assert_eq!(first, Some(from), "{session}");
        assert_eq!(
            item_diff(session, true, true, &[]).total_differences,
            0,
            "{session}"
        );
    }
}
