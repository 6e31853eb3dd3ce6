//! The demo writer's tests.

use super::*;

#[test]
fn the_timestamp_is_the_sessions_start() {
    assert_eq!(
        demo_timestamp(Some("2026-11-22T02:30:53+0000")),
        "2026-11-22_02-30-53"
    );
    for bad in [
        None,
        Some("yesterday"),
        Some("2026-11-22 02:30:53"),
        Some("é"),
    ] {
        assert_eq!(demo_timestamp(bad), "1970-01-01_00-00-00", "{bad:?}");
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
    ] {
        assert!(ItemBuilder::new(name).is_some(), "{name}");
    }
}
