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
