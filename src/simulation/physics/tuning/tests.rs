//! The tuning module's tests.

use super::*;
use crate::simulation::ddrace::config::Config;
use Release::*;

/// `tuning.h`'s defaults as ints, in network order (20.1's list; 16.4
/// has the first 45).
const DEFAULT_INTS: [i32; MAX_PARAMS] = [
    1000, 200, 50, 1320, 1200, 500, 150, 95, 38000, 8000, 300, 1500, 50, 55000, 200000, 140, 125,
    220000, 200, 125, 275000, 80, 20, 700, 100000, 200, 80000, 15000, 100000, 0, 500, 100, 100,
    40000, 1000, 600, 100, 125, 12500, 12500, 50000, 50000, 80000, 80000, 32000, 0, 0,
];

fn header(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|&(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The `tuning` object of every DDNet 16.4 and 20.1 header in
/// corpus/teehistorian/ (the same five in all eight files).
fn corpus_header() -> Vec<(String, String)> {
    header(&[
        ("gun_curvature", "0"),
        ("gun_speed", "140000"),
        ("shotgun_curvature", "0"),
        ("shotgun_speed", "50000"),
        ("shotgun_speeddiff", "0"),
    ])
}

fn apply(t: &mut Tunings, line: &str) -> Result<Applied, TuningError> {
    let mut words = line.split(' ');
    let command = words.next().unwrap_or("");
    let args: Vec<&[u8]> = words.map(str::as_bytes).collect();
    t.apply_console(command.as_bytes(), &args)
}

#[test]
fn defaults_are_the_ints_of_tuning_h() {
    assert_eq!(Tuning::defaults(Ddnet20_1).ints(), &DEFAULT_INTS[..]);
    assert_eq!(Tuning::defaults(Ddnet16_4).ints(), &DEFAULT_INTS[..45]);
    let t = Tuning::defaults(Ddnet20_1);
    assert_eq!(t.gravity(), 0.5);
    assert_eq!(t.air_friction(), 95.0f32 / 100.0);
    assert_eq!(t.ground_jump_impulse(), 13.2f32);
    assert_eq!(t.hook_duration(), 1.25);
    assert_eq!(t.ground_elasticity_x(), 0.0);
}

#[test]
fn the_versions_differ_only_by_the_two_elasticities() {
    let old: Vec<_> = param_names(Ddnet16_4).collect();
    let new: Vec<_> = param_names(Ddnet20_1).collect();
    assert_eq!(old.len(), 45);
    assert_eq!(new.len(), 47);
    assert_eq!(old[..], new[..45]);
    assert_eq!(new[45..], ["ground_elasticity_x", "ground_elasticity_y"]);
    assert_eq!(old[12], "gravity");
    assert_eq!(old[38], "hammer_fire_delay");
    assert_eq!(old[44], "hammer_hit_fire_delay");
    let err = Tuning::from_header(Ddnet16_4, &header(&[("ground_elasticity_x", "50")]));
    assert_eq!(
        err,
        Err(TuningError::UnknownParam {
            name: "ground_elasticity_x".into(),
            release: Ddnet16_4
        })
    );
    let t = Tuning::from_header(Ddnet20_1, &header(&[("ground_elasticity_x", "50")]))
        .expect("20.1 has it");
    assert_eq!(t.ground_elasticity_x(), 0.5);
    assert_eq!(Tuning::defaults(Ddnet16_4).ground_elasticity_y(), 0.0);
}

#[test]
fn the_corpus_headers_hold_exactly_ddraces_five_changes() {
    for release in [Ddnet16_4, Ddnet20_1] {
        let t = Tuning::from_header(release, &corpus_header()).expect("known names");
        assert_eq!(t, Tuning::ddrace(release));
        assert_eq!(t.gun_speed(), 1400.0);
        assert_eq!(t.shotgun_speed(), 500.0);
        assert_eq!(t.gun_curvature(), 0.0);
        // And DDRace's changes are exactly the header's five.
        let changed: Vec<_> = Tuning::ddrace(release)
            .params()
            .zip(Tuning::defaults(release).params())
            .filter(|(a, b)| a != b)
            .map(|((name, value), _)| (name.to_string(), value.to_string()))
            .collect();
        let mut expected = corpus_header();
        expected.sort();
        let mut changed = changed;
        changed.sort();
        assert_eq!(changed, expected);
    }
}

#[test]
fn header_errors_name_the_parameter() {
    let bad = Tuning::from_header(Ddnet20_1, &header(&[("gravity", "0.5")]));
    assert_eq!(
        bad,
        Err(TuningError::BadHeaderValue {
            name: "gravity".into(),
            value: "0.5".into()
        })
    );
    let unknown = Tuning::from_header(Ddnet20_1, &header(&[("warp_speed", "1")]));
    assert!(unknown.unwrap_err().to_string().contains("warp_speed"));
    let big = Tuning::from_header(Ddnet20_1, &header(&[("gravity", "99999999999")]));
    assert!(big.is_err());
}

#[test]
fn setting_multiplies_in_single_precision_and_truncates() {
    let mut t = Tuning::defaults(Ddnet20_1);
    // 0.45f * 100.0f rounds to 45.0 in f32; the exact product of the
    // float 0.45f (0.449999988079071...) is below 45.
    t.set("gravity", "0.45").expect("a parameter");
    assert_eq!(t.get_int("gravity"), Some(45));
    assert_eq!(t.gravity(), 0.45f32);
    assert_eq!((0.45f32 as f64 * 100.0) as i32, 44);
    // The same for 0.29, which a product in f64 truncates to 28.
    t.set("gravity", "0.29").expect("a parameter");
    assert_eq!(t.get_int("gravity"), Some(29));
    assert_eq!((0.29f32 as f64 * 100.0) as i32, 28);
    // And 0.53 is 52 in DDNet: 0.53f * 100.0f is 52.999996 in f32.
    t.set("gravity", "0.53").expect("a parameter");
    assert_eq!(t.get_int("gravity"), Some(52));
    // Case is ignored, as str_comp_nocase does.
    t.set("GRAVITY", "1").expect("a parameter");
    assert_eq!(t.get_int("gravity"), Some(100));
    assert_eq!(t.get_by_name("Gravity"), Some(1.0));
    // Negative values truncate toward zero.
    t.set("gravity", "-0.019").expect("a parameter");
    assert_eq!(t.get_int("gravity"), Some(-1));
    // Out of range and NaN: INT_MIN.
    assert_eq!(fixed(3e7), i32::MIN);
    // 21474836 * 100 rounds to 2^31 in f32: just out of range.
    assert_eq!(fixed(21474836.0), i32::MIN);
    assert_eq!(fixed(21474830.0), 2147483008);
    // -2^31 is in range and exact.
    assert_eq!(fixed(-21474836.0), i32::MIN);
    assert_eq!(fixed(-21474830.0), -2147483008);
    assert_eq!(fixed(f32::NAN), i32::MIN);
    assert_eq!(fixed(f32::INFINITY), i32::MIN);
    t.set("gravity", "inf").expect("20.1 reads inf");
    assert_eq!(t.get_int("gravity"), Some(i32::MIN));
    // Unknown names change nothing.
    let before = t;
    assert!(t.set("gravityy", "1").is_err());
    assert_eq!(t, before);
}

#[test]
fn each_version_reads_the_value_as_its_console_does() {
    let mut old = Tuning::defaults(Ddnet16_4);
    old.set("gravity", "0.45abc")
        .expect("16.4 reads the prefix");
    assert_eq!(old.get_int("gravity"), Some(45));
    old.set("gravity", "x").expect("16.4 reads 0");
    assert_eq!(old.get_int("gravity"), Some(0));
    let mut new = Tuning::defaults(Ddnet20_1);
    assert!(matches!(
        new.set("gravity", "0.45abc"),
        Err(TuningError::BadNumber(_))
    ));
    assert_eq!(new.get_int("gravity"), Some(50));
}

#[test]
fn the_server_reloads_the_hammer_by_hammer_fire_delay_in_both_releases() {
    let mut old = Tuning::defaults(Ddnet16_4);
    let mut new = Tuning::defaults(Ddnet20_1);
    // 125 ms: 6.25 ticks, not 16.4's predicted 320 ms of a hit.
    assert_eq!(old.reload_ticks(0), Some(6));
    assert_eq!(new.reload_ticks(0), Some(6));
    assert_eq!(new.reload_ticks(4), Some(40));
    assert_eq!(new.reload_ticks(6), None);
    old.set("gun_fire_delay", "1000").expect("a parameter");
    new.set("gun_fire_delay", "1000").expect("a parameter");
    assert_eq!(old.reload_ticks(1), Some(50));
    assert_eq!(new.reload_ticks(1), Some(50));
}

#[test]
fn rcon_tune_and_tune_reset_act_on_the_global_tuning() {
    // C_rcon_auth: `tune gravity 0.45` at tick 527, `tune_reset` at 727.
    let mut t = Tunings::from_header(Ddnet20_1, &corpus_header(), false).expect("known names");
    assert_eq!(apply(&mut t, "tune gravity 0.45"), Ok(Applied::Changed));
    assert_eq!(t.zone(0).get_int("gravity"), Some(45));
    assert_eq!(t.zone(1).get_int("gravity"), Some(50));
    assert_eq!(apply(&mut t, "tune gravity"), Ok(Applied::NoEffect));
    assert_eq!(apply(&mut t, "tune_reset"), Ok(Applied::Changed));
    assert_eq!(*t.global(), Tuning::ddrace(Ddnet20_1));
    apply(&mut t, "tune gun_speed 3").expect("known");
    apply(&mut t, "tune_reset gun_speed").expect("known");
    // One name goes back to tuning.h's default, not DDRace's.
    assert_eq!(t.global().get_int("gun_speed"), Some(220000));
    assert!(matches!(
        apply(&mut t, "tune warp 1"),
        Err(TuningError::UnknownParam { .. })
    ));
    assert!(matches!(
        apply(&mut t, "tune"),
        Err(TuningError::MissingArgument { .. })
    ));
    assert_eq!(apply(&mut t, "sv_hit 0"), Ok(Applied::NotTuning));
    assert_eq!(apply(&mut t, "tune_dump"), Ok(Applied::NotTuning));
    assert_eq!(apply(&mut t, "tunes"), Ok(Applied::NoEffect));
}

#[test]
fn toggle_tune_compares_within_a_ten_thousandth() {
    let mut t = Tunings::new(Ddnet20_1, Tuning::ddrace(Ddnet20_1));
    apply(&mut t, "toggle_tune gravity 0.5 0.25").expect("known");
    assert_eq!(t.global().get_int("gravity"), Some(25));
    apply(&mut t, "toggle_tune gravity 0.5 0.25").expect("known");
    assert_eq!(t.global().get_int("gravity"), Some(50));
}

#[test]
fn zone_0_is_the_global_tuning_in_20_1_only() {
    for release in [Ddnet16_4, Ddnet20_1] {
        let mut t = Tunings::new(release, Tuning::ddrace(release));
        assert_eq!(
            apply(&mut t, "tune_zone 0 gravity 0.25"),
            Ok(Applied::Changed)
        );
        assert_eq!(
            apply(&mut t, "tune_zone 7 gravity 0.75"),
            Ok(Applied::Changed)
        );
        assert_eq!(
            apply(&mut t, "tune_zone 256 gravity 1"),
            Ok(Applied::NoEffect)
        );
        assert_eq!(
            apply(&mut t, "tune_zone -1 gravity 1"),
            Ok(Applied::NoEffect)
        );
        let zone0 = t.zone(0).get_int("gravity");
        match release {
            Ddnet16_4 => assert_eq!(zone0, Some(50)),
            Ddnet20_1 => assert_eq!(zone0, Some(25)),
        }
        assert_eq!(t.zone(7).get_int("gravity"), Some(75));
        assert_eq!(t.zone(8).get_int("gravity"), Some(50));
        // tune_zone_reset: plain defaults, not DDRace's.
        apply(&mut t, "tune_zone_reset 7").expect("a zone");
        assert_eq!(*t.zone(7), Tuning::defaults(release));
        apply(&mut t, "tune gravity 0.3").expect("known");
        apply(&mut t, "tune_zone_reset").expect("all zones");
        assert_eq!(*t.zone(200), Tuning::defaults(release));
        let global = t.global().get_int("gravity");
        match release {
            Ddnet16_4 => assert_eq!(global, Some(30)),
            Ddnet20_1 => assert_eq!(*t.global(), Tuning::defaults(release)),
        }
    }
}

#[test]
fn zones_start_as_ddrace_and_solo_servers_turn_off_collision_and_hooks() {
    let t = Tunings::from_header(Ddnet20_1, &[], false).expect("empty");
    assert_eq!(*t.global(), Tuning::defaults(Ddnet20_1));
    assert_eq!(*t.zone(1), Tuning::ddrace(Ddnet20_1));
    let t = Tunings::from_header(Ddnet20_1, &[], true).expect("empty");
    assert_eq!(t.zone(5).player_collision(), 0.0);
    assert_eq!(t.zone(5).player_hooking(), 0.0);
    // The global tuning of a solo server is in its header already.
    assert_eq!(t.zone(0).player_collision(), 1.0);
}

#[test]
fn a_16_4_tune_value_is_read_as_a_float() {
    // 16.4 registers `tune` with an `i` value but reads it with
    // GetFloat: decimals work.
    let mut t = Tunings::new(Ddnet16_4, Tuning::ddrace(Ddnet16_4));
    apply(&mut t, "tune gravity 0.45").expect("known");
    assert_eq!(t.zone(0).get_int("gravity"), Some(45));
    apply(&mut t, "tune_zone 3abc gravity 0.5x").expect("prefixes");
    assert_eq!(t.zone(3).get_int("gravity"), Some(50));
    let mut t = Tunings::new(Ddnet20_1, Tuning::ddrace(Ddnet20_1));
    assert!(matches!(
        apply(&mut t, "tune_zone 3abc gravity 0.5"),
        Err(TuningError::BadNumber(_))
    ));
}

/// Every DDNet 16.4 and 20.1 file of the corpus: its header's release,
/// config, tuning and generator read, and its console commands applied
/// in order. C_rcon_auth's rcon `tune gravity 0.45` (tick 527) makes
/// the global gravity 45 until its `tune_reset` (tick 727).
#[test]
fn the_corpus_files_headers_and_commands() {
    use crate::codec::Mode;
    use crate::simulation::physics::prng::Prng;
    use crate::teehistorian::{Message, SliceReader};
    use std::ops::ControlFlow;
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/teehistorian/");
    let mut seen = Vec::new();
    for (dir, release) in [("ddnet-16.4", Ddnet16_4), ("ddnet-20.1", Ddnet20_1)] {
        let mut files: Vec<_> = std::fs::read_dir(format!("{root}{dir}"))
            .expect("the corpus")
            .map(|e| e.expect("an entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "teehistorian"))
            .collect();
        files.sort();
        assert!(files.len() >= 2, "{dir}");
        for path in files {
            let bytes = std::fs::read(&path).expect("readable");
            let (header, mut reader) = SliceReader::new(&bytes, Mode::Lenient).expect("a header");
            let info = &header.info;
            let server = info.server_version.as_deref().expect("a server version");
            assert_eq!(Release::of_server(server), Some(release), "{path:?}");
            let mut config = Config::from_header(release, &info.config).expect("ints");
            let mut tunings =
                Tunings::from_header(release, &info.tuning, config.sv_solo_server != 0)
                    .expect("known names");
            assert_eq!(*tunings.global(), Tuning::ddrace(release), "{path:?}");
            let description = info.prng_description.as_deref().expect("a description");
            assert!(
                Prng::from_description(description)
                    .expect("DDNet's")
                    .is_some()
            );
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            let _ = reader
                .for_each_record(|rec| {
                    if let Message::ConsoleCommand(c) = &rec.msg {
                        let applied = tunings.apply_console(&c.cmd, &c.args);
                        let set = config.apply_console(&c.cmd, &c.args);
                        assert!(applied.is_ok() && set.is_ok(), "{name:?} {c:?}");
                        if applied != Ok(Applied::NotTuning) {
                            seen.push((
                                name.clone(),
                                rec.tick,
                                String::from_utf8_lossy(&c.cmd).into_owned(),
                                tunings.global().get_int("gravity"),
                            ));
                        }
                    }
                    ControlFlow::<()>::Continue(())
                })
                .expect("records");
        }
    }
    let c = Some("C_rcon_auth.teehistorian".to_string());
    // phys_gravity_fall (16.4): `tune gravity 0.25` mid-fall, then 0.5.
    let g = Some("phys_gravity_fall.teehistorian".to_string());
    // phys_campaign_spawn_input_ctf5 (16.4): nine control tunings at its
    // start (tick 25), ground_friction at 500, velramp_start at 600.
    let k = Some("phys_campaign_spawn_input_ctf5.teehistorian".to_string());
    let mut control = vec![(k.clone(), 25, "tune".to_string(), Some(50)); 9];
    control.push((k.clone(), 500, "tune".to_string(), Some(50)));
    control.push((k, 600, "tune".to_string(), Some(50)));
    assert_eq!(
        seen,
        [
            control,
            vec![
                (g.clone(), 180, "tune".to_string(), Some(25)),
                (g, 230, "tune".to_string(), Some(50)),
                (c.clone(), 527, "tune".to_string(), Some(45)),
                (c, 727, "tune_reset".to_string(), Some(50)),
            ],
        ]
        .concat()
    );
}

#[test]
fn serialises_as_names_to_ints_in_network_order() {
    let json = serde_json::to_string(&Tuning::defaults(Ddnet16_4)).expect("json");
    assert!(json.starts_with("{\"ground_control_speed\":1000,\"ground_control_accel\":200,"));
    assert!(json.ends_with("\"hammer_hit_fire_delay\":32000}"));
}

/// Every client id of a [`CoreTunings`] holds what a copy of its own,
/// taken at each of its takes, would, after any run of tune commands,
/// clones and takes: two `Tunings`, each changed by `tune_zone` or
/// `tune`, cloned into each other, and zones or the global tuning of
/// either taken by any of four client ids.
#[test]
fn core_tunings_hold_what_each_took_last() {
    fn property(ops: Vec<(u8, u8, u8)>) -> bool {
        let release = Ddnet20_1;
        let mut tunings = [
            Tunings::new(release, Tuning::ddrace(release)),
            Tunings::new(release, Tuning::ddrace(release)),
        ];
        let mut held = CoreTunings::new(&tunings[0], 4);
        let mut copies = [*tunings[0].global(); 4];
        for (op, a, b) in ops {
            let (which, zone, cid) = (usize::from(a & 1), b % 4, usize::from(b / 4 % 4));
            let value = 1 + a / 2;
            match op % 5 {
                0 => {
                    let line = format!("tune_zone {zone} gravity {value}");
                    let _ = apply(&mut tunings[which], &line);
                }
                1 => {
                    let _ = apply(&mut tunings[which], &format!("tune gravity {value}"));
                }
                2 => tunings[which] = tunings[1 - which].clone(),
                3 => {
                    held.take_global(cid, &tunings[which]);
                    copies[cid] = *tunings[which].global();
                }
                _ => {
                    held.take(cid, &tunings[which], zone);
                    copies[cid] = *tunings[which].zone(zone);
                }
            }
            if (0..4).any(|cid| held.get(cid) != &copies[cid]) {
                return false;
            }
        }
        true
    }
    quickcheck::QuickCheck::new()
        .tests(2000)
        .quickcheck(property as fn(Vec<(u8, u8, u8)>) -> bool);
}
