//! The demo writer's tests.

use super::*;

#[test]
fn the_timestamp_is_the_sessions_start_plus_the_first_tick() {
    assert_eq!(
        demo_timestamp(Some("2026-11-22T02:30:53+0000"), 0),
        "2026-11-22_02-30-53"
    );
    // 3,600 ticks (72 s) on, across a minute; a year's last second on.
    assert_eq!(
        demo_timestamp(Some("2026-11-22T02:30:53+0000"), 3_600),
        "2026-11-22_02-32-05"
    );
    assert_eq!(
        demo_timestamp(Some("2024-12-31T23:59:59+0100"), 50),
        "2025-01-01_00-00-00"
    );
    assert_eq!(
        demo_timestamp(Some("2024-02-28T23:59:59+0000"), 60),
        "2024-02-29_00-00-00"
    );
    for bad in [
        None,
        Some("yesterday"),
        Some("2026-11-22 02:30:53"),
        Some("é"),
    ] {
        assert_eq!(demo_timestamp(bad, 0), "1970-01-01_00-00-00", "{bad:?}");
    }
}

#[test]
fn item_names_are_in_the_tables() {
    for name in [
        "Character",
        "DDNetCharacter",
        "ClientInfo",
        "PlayerInfo",
        "DDNetPlayer",
        "GameInfo",
        "GameInfoEx",
        "DDNetProjectile",
        "DDNetLaser",
        "DDNetPickup",
        "Laser",
        "Pickup",
        "EntityEx",
        "SwitchState",
        "SpecChar",
    ] {
        assert!(ItemBuilder::new(name).is_some(), "{name}");
    }
}

#[test]
fn a_c_int_of_a_value_no_int_holds_is_int_min() {
    assert_eq!(round_to_c_int(2.5), 3);
    assert_eq!(round_to_c_int(-2.5), -3);
    assert_eq!(round_to_c_int(3e9), i32::MIN);
    assert_eq!(round_to_c_int(-3e9), i32::MIN);
    assert_eq!(round_to_c_int(f32::NAN), i32::MIN);
}

#[test]
fn a_best_time_is_snapped_as_ddnet_cuts_and_rounds_it() {
    use Release::{Ddnet16_4, Ddnet20_1};
    // None: -9999 (`NOT_FINISHED_TIMESCORE`) and (-1, 0)
    // (`CFinishTime::NotFinished`).
    for v in [Ddnet16_4, Ddnet20_1] {
        assert_eq!(score_of(None, v), -9999);
    }
    assert_eq!(finish_time(None), (-1, 0));
    // 312,480 ticks: 6249.6f seconds; the score cuts them, the
    // milliseconds round (`time_milliseconds_from_seconds`).
    let t = 312_480.0f32 / 50.0;
    assert_eq!(score_of(Some(t), Ddnet20_1), -6249);
    assert_eq!(score_of(Some(t), Ddnet16_4), -6249);
    assert_eq!(finish_time(Some(t)), (6249, 600));
    // 51 ticks are 1.0199999f: 1 s and 20 ms, not 19.
    assert_eq!(finish_time(Some(51.0f32 / 50.0)), (1, 20));
    assert_eq!(score_of(Some(51.0f32 / 50.0), Ddnet20_1), -1);
    // 9999 s would read as no time: 20.1 shows -10000, 16.4 does not.
    assert_eq!(score_of(Some(9999.5), Ddnet20_1), -10000);
    assert_eq!(score_of(Some(9999.5), Ddnet16_4), -9999);
}
