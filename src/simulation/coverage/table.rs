//! The table itself: one row per DDNet physics feature, with its status
//! in 16.4 and in 20.1 and the corpus recordings that show it modelled.
//! Indices and names are `src/game/mapitems.h`'s (16.4's and 20.1's are
//! the same numbers; 16.4 calls speedup kind 28 `TILE_BOOST`). Tunings
//! are not listed here: every parameter of [`tuning::param_names`] is a
//! row of its own ([`super::features`]).
//!
//! [`tuning::param_names`]: crate::simulation::physics::tuning::param_names

use super::{EntityLayers, Feature, Status, What};

/// The recordings: under `corpus/teehistorian/` without the ending, or a
/// physics campaign run (`campaign/ID`: `corpus/campaign/ID/`, whose
/// teehistorian file and server demo simulate exactly).
const FREEZE_TUTORIAL: &str = "ddnet-16.4/phys_freeze_tutorial";
const GRAVITY: &str = "ddnet-16.4/phys_gravity_fall";
const HOOK: &str = "ddnet-16.4/phys_hook_players";
const KILL_HOOKED: &str = "ddnet-16.4/phys_kill_hooked";
const KILL_PROTECTION: &str = "ddnet-16.4/phys_kill_protection_tsunami";
const SAVE_LOAD: &str = "ddnet-16.4/phys_save_load_tsunami";
const SAVE_REFUSED: &str = "ddnet-16.4/phys_save_refused_tsunami";
const LOAD_REFUSED: &str = "ddnet-16.4/phys_load_refused_tsunami";
const SPAWN_RUSH: &str = "ddnet-16.4/phys_spawn_rush";
const TELE_GOLDMINE: &str = "ddnet-16.4/phys_tele_goldmine";
const WALK_TSUNAMI: &str = "ddnet-16.4/phys_walk_tsunami";
const WALK_SUNNY: &str = "ddnet-16.4/phys_walk_sunny_side_up";
const WEAPONS: &str = "ddnet-16.4/phys_weapons";
const DM1_20: &str = "ddnet-20.1/B_eight_bots_dm1";
const UNMODELLED: &str = "ddnet-16.4/phys_unmodelled_coverage";
const TURRET_DRAGGER: &str = "ddnet-16.4/phys_turret_dragger_coverage";
const FRONT_PICKUP: &str = "ddnet-16.4/phys_front_pickup_tsunami";
const NO_WEAK_HOOK: &str = "ddnet-16.4/phys_no_weak_hook_dm1";
/// Paused players whose Cl_SetTeam DDNet refuses (both releases).
const PAUSED_SET_TEAM_16: &str = "campaign/16.4-dm2-default-s3-c12-t20";
const PAUSED_SET_TEAM_20: &str = "campaign/20.1-dm2-default-s3-c12-t20";
/// `/spec` with `sv_pauseable 1`: characters out of the world and back.
const SPEC_16: &str = "campaign/16.4-dm7-ddrace-s2-c8-t20";
const SPEC_20: &str = "campaign/20.1-ctf5-ddrace-s2-c8-t20";
/// A 0.7 client's unrecorded team change, out and back.
const TEAM_CHANGE_07_16: &str = "campaign/16.4-Tsunami-default-s2-c8-t20";
const TEAM_CHANGE_07_20: &str = "campaign/20.1-Gold_Mine-players-s2-c8-t20";
/// Ninja dashes ending at their start speed's whole units.
const NINJA_16: &str = "campaign/16.4-dm1-solo_nohit-s1-c8-t20";
const NINJA_20: &str = "campaign/20.1-dm6-gravity_jumps-s2-c8-t20";
/// The jetpack gun and the hit tiles of coverage.map.
const JETPACK: &str = "campaign/16.4-coverage-weapons-s2-c8-t20";
/// 20.1's coverage.map: doors that switches (timed too) open, a tune
/// zone of the map's settings, time penalties and bonuses, a crazy
/// shotgun's bullet that freezes a tee and explodes beside it.
const COVERAGE_20: &str = "campaign/20.1-coverage-players-s1-c8-t20";
/// The same with `sv_team 3`: every player's own team meets the doors
/// closed; a grenade's push beside a door.
const COVERAGE_SOLO_20: &str = "campaign/20.1-coverage-solo_nohit-s2-c8-t20";
/// coverage.map's evil teleporter: the hooks on the tee let go where they are.
const EVIL_TELE: &str = "campaign/16.4-coverage-hook-s2-c8-t20";
/// `sv_team 3` (by `sv_solo_server`): solo spawns, the start line, and the
/// explosive turret's rate per solo character.
const FORCED_SOLO: &str = "campaign/16.4-coverage-solo_nohit-s2-c8-t20";
/// 20.1: a `/team` change takes the player's shots away.
const TEAM_SHOTS_20: &str = "campaign/20.1-ctf7-default-s2-c8-t20";

/// Each entity's own name (`ENTITY_*`), by index; "" where DDNet has none.
pub(super) const ENTITY_NAMES: [&str; 50] = [
    "ENTITY_NULL",
    "ENTITY_SPAWN",
    "ENTITY_SPAWN_RED",
    "ENTITY_SPAWN_BLUE",
    "ENTITY_FLAGSTAND_RED",
    "ENTITY_FLAGSTAND_BLUE",
    "ENTITY_ARMOR_1",
    "ENTITY_HEALTH_1",
    "ENTITY_WEAPON_SHOTGUN",
    "ENTITY_WEAPON_GRENADE",
    "ENTITY_POWERUP_NINJA",
    "ENTITY_WEAPON_LASER",
    "ENTITY_LASER_FAST_CCW",
    "ENTITY_LASER_NORMAL_CCW",
    "ENTITY_LASER_SLOW_CCW",
    "ENTITY_LASER_STOP",
    "ENTITY_LASER_SLOW_CW",
    "ENTITY_LASER_NORMAL_CW",
    "ENTITY_LASER_FAST_CW",
    "ENTITY_LASER_SHORT",
    "ENTITY_LASER_MEDIUM",
    "ENTITY_LASER_LONG",
    "ENTITY_LASER_C_SLOW",
    "ENTITY_LASER_C_NORMAL",
    "ENTITY_LASER_C_FAST",
    "ENTITY_LASER_O_SLOW",
    "ENTITY_LASER_O_NORMAL",
    "ENTITY_LASER_O_FAST",
    "",
    "ENTITY_PLASMAE",
    "ENTITY_PLASMAF",
    "ENTITY_PLASMA",
    "ENTITY_PLASMAU",
    "ENTITY_CRAZY_SHOTGUN_EX",
    "ENTITY_CRAZY_SHOTGUN",
    "ENTITY_ARMOR_SHOTGUN",
    "ENTITY_ARMOR_GRENADE",
    "ENTITY_ARMOR_NINJA",
    "ENTITY_ARMOR_LASER",
    "",
    "",
    "",
    "ENTITY_DRAGGER_WEAK",
    "ENTITY_DRAGGER_NORMAL",
    "ENTITY_DRAGGER_STRONG",
    "ENTITY_DRAGGER_WEAK_NW",
    "ENTITY_DRAGGER_NORMAL_NW",
    "ENTITY_DRAGGER_STRONG_NW",
    "",
    "ENTITY_DOOR",
];

macro_rules! rows {
    ($( $what:expr, $name:literal, [$s16:ident, $s20:ident], $note:literal, [$($proof:expr),*]; )*) => {
        &[ $( Feature {
            what: $what,
            name: $name,
            status: [Status::$s16, Status::$s20],
            note: $note,
            proof: &[$($proof),*],
        }, )* ]
    };
}

const fn tile(index: u8) -> What {
    What::Tile {
        first: index,
        last: index,
    }
}

const fn entity(index: u8) -> What {
    What::Entity {
        first: index,
        last: index,
        layers: EntityLayers::All,
    }
}

const fn entities(first: u8, last: u8) -> What {
    What::Entity {
        first,
        last,
        layers: EntityLayers::All,
    }
}

const fn game_entities(first: u8, last: u8, layers: EntityLayers) -> What {
    What::Entity {
        first,
        last,
        layers,
    }
}

/// Every feature but the tunings, by kind, then index or name.
pub(super) const FEATURES: &[Feature] = rows! {
    // The game and front layers (`HandleTiles`, `HandleSkippableTiles`,
    // collision and the hook's line; each index where DDNet reads it).
    tile(0), "TILE_AIR", [Modelled, Modelled], "nothing", [WALK_TSUNAMI];
    tile(1), "TILE_SOLID", [Modelled, Modelled], "stops characters and hooks (game layer)", [WALK_TSUNAMI, WALK_SUNNY, GRAVITY, HOOK];
    tile(2), "TILE_DEATH", [Modelled, Modelled], "kills (game and front layers)", [];
    tile(3), "TILE_NOHOOK", [Modelled, Modelled], "stops characters, not hooks (game layer)", [];
    tile(4), "TILE_NOLASER", [Modelled, Modelled], "stops the map's lasers only: nothing a character meets", [];
    tile(5), "TILE_THROUGH_CUT", [Modelled, Modelled], "hooks pass (front layer)", [];
    tile(6), "TILE_THROUGH", [Modelled, Modelled], "hooks pass the solid tile behind it", [];
    tile(7), "TILE_JUMP", [Modelled, Modelled], "nothing outside the switch layer", [];
    tile(9), "TILE_FREEZE", [Modelled, Modelled], "freezes for sv_freeze_delay", [FREEZE_TUTORIAL, TELE_GOLDMINE];
    tile(10), "TILE_TELEINEVIL", [Modelled, Modelled], "a tele layer kind: nothing here", [];
    tile(11), "TILE_UNFREEZE", [Modelled, Modelled], "unfreezes", [FREEZE_TUTORIAL];
    tile(12), "TILE_DFREEZE", [Modelled, Modelled], "deep freeze", [];
    tile(13), "TILE_DUNFREEZE", [Modelled, Modelled], "ends deep freeze", [];
    tile(14), "TILE_TELEINWEAPON", [Modelled, Modelled], "a tele layer kind: nothing here", [];
    tile(15), "TILE_TELEINHOOK", [Modelled, Modelled], "a tele layer kind: nothing here", [];
    tile(16), "TILE_WALLJUMP", [Modelled, Modelled], "a wall jump", [];
    tile(17), "TILE_EHOOK_ENABLE", [Modelled, Modelled], "endless hook on", [];
    tile(18), "TILE_EHOOK_DISABLE", [Modelled, Modelled], "endless hook off", [];
    tile(19), "TILE_HIT_ENABLE", [Modelled, Modelled], "the character's weapons hit others again", [UNMODELLED, TURRET_DRAGGER];
    tile(20), "TILE_HIT_DISABLE", [Modelled, Modelled], "the character's weapons stop hitting others (the hammer hits nobody; bullets and grenades go by the grenade's flag)", [UNMODELLED, TURRET_DRAGGER];
    tile(21), "TILE_SOLO_ENABLE", [Modelled, Modelled], "solo on", [];
    tile(22), "TILE_SOLO_DISABLE", [Modelled, Modelled], "solo off (TILE_SWITCHTIMEDOPEN in the switch layer)", [];
    tile(23), "TILE_SWITCHTIMEDCLOSE", [Modelled, Modelled], "nothing outside the switch layer", [];
    tile(24), "TILE_SWITCHOPEN", [Modelled, Modelled], "nothing outside the switch layer", [];
    tile(25), "TILE_SWITCHCLOSE", [Modelled, Modelled], "nothing outside the switch layer", [];
    tile(26), "TILE_TELEIN", [Modelled, Modelled], "a tele layer kind: nothing here", [];
    tile(27), "TILE_TELEOUT", [Modelled, Modelled], "a tele layer kind: nothing here", [];
    tile(28), "TILE_SPEED_BOOST_OLD", [Modelled, Modelled], "a speedup layer kind: nothing here", [];
    tile(29), "TILE_SPEED_BOOST, TILE_TELECHECK", [Modelled, Modelled], "kinds of the speedup and tele layers: nothing here", [];
    tile(30), "TILE_TELECHECKOUT", [Modelled, Modelled], "a tele layer kind: nothing here", [];
    tile(31), "TILE_TELECHECKIN", [Modelled, Modelled], "a tele layer kind: nothing here", [];
    tile(32), "TILE_REFILL_JUMPS", [Modelled, Modelled], "air jumps back", [];
    tile(33), "TILE_START", [Modelled, Modelled], "the race's start (the team's state, sv_team, kill protection)", [SAVE_LOAD, KILL_PROTECTION, FORCED_SOLO];
    tile(34), "TILE_FINISH", [Modelled, Modelled], "the race's finish", [];
    What::Tile { first: 35, last: 59 }, "TILE_TIME_CHECKPOINT_FIRST..LAST", [Modelled, Modelled], "race times only: nothing a character feels", [];
    tile(60), "TILE_STOP", [Modelled, Modelled], "a one-way stopper", [];
    tile(61), "TILE_STOPS", [Modelled, Modelled], "a two-way stopper", [];
    tile(62), "TILE_STOPA", [Modelled, Modelled], "an all-way stopper", [];
    tile(63), "TILE_TELECHECKINEVIL", [Modelled, Modelled], "a tele layer kind: nothing here", [];
    tile(64), "TILE_CP", [Detected, Detected], "moves the entities on it (pickups, lasers, draggers, turrets): not modelled", [];
    tile(65), "TILE_CP_F", [Detected, Detected], "moves the entities on it, faster: not modelled", [];
    tile(66), "TILE_THROUGH_ALL", [Modelled, Modelled], "hooks pass from every side (front layer)", [];
    tile(67), "TILE_THROUGH_DIR", [Modelled, Modelled], "hooks pass one way", [];
    tile(68), "TILE_TUNE", [Modelled, Modelled], "a tune layer kind: nothing here", [];
    tile(71), "TILE_OLDLASER", [Modelled, Modelled], "sets sv_old_laser when the map loads", [];
    tile(72), "TILE_NPC", [Modelled, Modelled], "sets the global player_collision 0 when the map loads", [];
    tile(73), "TILE_EHOOK", [Modelled, Modelled], "sets sv_endless_drag when the map loads", [];
    tile(74), "TILE_NOHIT", [Modelled, Modelled], "sets sv_hit 0 when the map loads", [];
    tile(75), "TILE_NPH", [Modelled, Modelled], "sets the global player_hooking 0 when the map loads", [];
    tile(76), "TILE_UNLOCK_TEAM", [Modelled, Modelled], "unlocks the team: nothing a character feels", [];
    tile(79), "TILE_ADD_TIME", [Modelled, Modelled], "a switch layer kind: nothing here", [];
    tile(88), "TILE_NPC_DISABLE", [Modelled, Modelled], "the character's collision off", [];
    tile(89), "TILE_UNLIMITED_JUMPS_DISABLE", [Modelled, Modelled], "endless jumps off", [];
    tile(90), "TILE_JETPACK_DISABLE", [Modelled, Modelled], "the jetpack off", [];
    tile(91), "TILE_NPH_DISABLE", [Modelled, Modelled], "the character's hooking of players off", [];
    tile(95), "TILE_SUBTRACT_TIME", [Modelled, Modelled], "a switch layer kind: nothing here", [];
    tile(96), "TILE_TELE_GUN_ENABLE", [Detected, Detected], "the gun teleports its owner: not modelled", [];
    tile(97), "TILE_TELE_GUN_DISABLE", [Modelled, Modelled], "the tele gun off (on is detected)", [];
    tile(98), "TILE_ALLOW_TELE_GUN", [Modelled, Modelled], "where a tele weapon may land: nothing without one", [];
    tile(99), "TILE_ALLOW_BLUE_TELE_GUN", [Modelled, Modelled], "where a tele weapon may land: nothing without one", [];
    tile(104), "TILE_NPC_ENABLE", [Modelled, Modelled], "the character's collision on", [];
    tile(105), "TILE_UNLIMITED_JUMPS_ENABLE", [Modelled, Modelled], "endless jumps on", [];
    tile(106), "TILE_JETPACK_ENABLE", [Modelled, Modelled], "the gun becomes a jetpack: automatic, and while it fires it pushes its shooter away from its aim by jetpack_strength", [UNMODELLED, TURRET_DRAGGER, JETPACK];
    tile(107), "TILE_NPH_ENABLE", [Modelled, Modelled], "the character's hooking of players on", [];
    tile(112), "TILE_TELE_GRENADE_ENABLE", [Detected, Detected], "the grenade teleports its owner: not modelled", [];
    tile(113), "TILE_TELE_GRENADE_DISABLE", [Modelled, Modelled], "the tele grenade off (on is detected)", [];
    tile(128), "TILE_TELE_LASER_ENABLE", [Detected, Detected], "the laser teleports its owner: not modelled", [];
    tile(129), "TILE_TELE_LASER_DISABLE", [Modelled, Modelled], "the tele laser off (on is detected)", [];
    What::Tile { first: 140, last: 143 }, "TILE_CREDITS_1..4", [Modelled, Modelled], "drawn only", [];
    tile(144), "TILE_LFREEZE", [Modelled, Modelled], "live freeze", [];
    tile(145), "TILE_LUNFREEZE", [Modelled, Modelled], "live freeze off", [];
    What::Tile { first: 156, last: 159 }, "TILE_CREDITS_5..8", [Modelled, Modelled], "drawn only", [];
    What::Tile { first: 190, last: 191 }, "TILE_ENTITIES_OFF_1..2", [Modelled, Modelled], "drawn only", [];

    // The tele layer (`HandleTiles`, the hook's line, the weapons').
    What::Tele(10), "TILE_TELEINEVIL", [Modelled, Modelled], "teleports and stops", [EVIL_TELE];
    What::Tele(14), "TILE_TELEINWEAPON", [Detected, Detected], "teleports projectiles and lasers: not modelled", [];
    What::Tele(15), "TILE_TELEINHOOK", [Modelled, Modelled], "teleports hooks", [];
    What::Tele(26), "TILE_TELEIN", [Modelled, Modelled], "teleports to an out of its number", [TELE_GOLDMINE];
    What::Tele(27), "TILE_TELEOUT", [Modelled, Modelled], "where teleporters lead", [TELE_GOLDMINE];
    What::Tele(29), "TILE_TELECHECK", [Modelled, Modelled], "a checkpoint for check teleporters", [];
    What::Tele(30), "TILE_TELECHECKOUT", [Modelled, Modelled], "where check teleporters lead", [];
    What::Tele(31), "TILE_TELECHECKIN", [Modelled, Modelled], "teleports to the last checkpoint's out", [];
    What::Tele(63), "TILE_TELECHECKINEVIL", [Modelled, Modelled], "the same, and stops", [];

    // The speedup layer (tiles with force; `HandleSkippableTiles`).
    What::Speedup(Some(28)), "TILE_SPEED_BOOST_OLD (16.4: TILE_BOOST)", [Modelled, Modelled], "the old speedup", [TELE_GOLDMINE];
    What::Speedup(Some(29)), "TILE_SPEED_BOOST", [Modelled, Modelled], "16.4 runs the old rules for it, 20.1 the new ones", [];
    What::Speedup(None), "any other speedup kind", [Modelled, Detected], "16.4 runs the old rules for every kind; 20.1 knows no other kind", [];

    // The switch layer (kinds as DDNet's loader leaves them; a number of 0
    // or above the map's highest is no switch).
    What::Switch(7, None), "TILE_JUMP", [Modelled, Modelled], "sets the character's jumps", [];
    What::Switch(9, Some(false)), "TILE_FREEZE (no switch)", [Modelled, Modelled], "freezes for the tile's delay", [];
    What::Switch(9, Some(true)), "TILE_FREEZE (switched)", [Modelled, Modelled], "freezes for the tile's delay while its switch is on in the character's team", [];
    What::Switch(12, Some(false)), "TILE_DFREEZE (no switch)", [Modelled, Modelled], "deep freeze", [];
    What::Switch(12, Some(true)), "TILE_DFREEZE (switched)", [Modelled, Modelled], "deep freeze while its switch is on", [];
    What::Switch(13, Some(false)), "TILE_DUNFREEZE (no switch)", [Modelled, Modelled], "ends deep freeze", [];
    What::Switch(13, Some(true)), "TILE_DUNFREEZE (switched)", [Modelled, Modelled], "ends deep freeze while its switch is on", [];
    What::Switch(19, None), "TILE_HIT_ENABLE", [Modelled, Modelled], "the weapon its delay names (hammer, shotgun, grenade, laser) hits others again", [];
    What::Switch(20, None), "TILE_HIT_DISABLE", [Modelled, Modelled], "the weapon its delay names stops hitting others", [];
    What::Switch(22, Some(true)), "TILE_SWITCHTIMEDOPEN", [Modelled, Modelled], "turns its switch on in the character's team for the tile's delay (seconds), then off", [];
    What::Switch(23, Some(true)), "TILE_SWITCHTIMEDCLOSE", [Modelled, Modelled], "turns its switch off in the character's team for the tile's delay, then on", [COVERAGE_20];
    What::Switch(24, Some(true)), "TILE_SWITCHOPEN", [Modelled, Modelled], "turns its switch on in the character's team (its doors close)", [];
    What::Switch(25, Some(true)), "TILE_SWITCHCLOSE", [Modelled, Modelled], "turns its switch off in the character's team (its doors open)", [COVERAGE_20];
    What::Switch(22, Some(false)), "TILE_SWITCHTIMEDOPEN (no switch)", [Modelled, Modelled], "nothing", [];
    What::Switch(23, Some(false)), "TILE_SWITCHTIMEDCLOSE (no switch)", [Modelled, Modelled], "nothing", [];
    What::Switch(24, Some(false)), "TILE_SWITCHOPEN (no switch)", [Modelled, Modelled], "nothing", [];
    What::Switch(25, Some(false)), "TILE_SWITCHCLOSE (no switch)", [Modelled, Modelled], "nothing", [];
    What::Switch(79, None), "TILE_ADD_TIME", [Modelled, Modelled], "once a stay: the race's start moves back by the delay's minutes and the number's seconds (the team's too), which kill protection reads", [COVERAGE_20];
    What::Switch(95, None), "TILE_SUBTRACT_TIME", [Modelled, Modelled], "once a stay: the race's start moves forward, at most to now", [COVERAGE_20];
    What::Switch(98, None), "TILE_ALLOW_TELE_GUN", [Modelled, Modelled], "nothing without a tele weapon", [];
    What::Switch(99, None), "TILE_ALLOW_BLUE_TELE_GUN", [Modelled, Modelled], "nothing without a tele weapon", [];
    What::Switch(144, Some(false)), "TILE_LFREEZE (no switch)", [Modelled, Modelled], "live freeze", [];
    What::Switch(144, Some(true)), "TILE_LFREEZE (switched)", [Modelled, Modelled], "live freeze while its switch is on", [];
    What::Switch(145, Some(false)), "TILE_LUNFREEZE (no switch)", [Modelled, Modelled], "live freeze off", [];
    What::Switch(145, Some(true)), "TILE_LUNFREEZE (switched)", [Modelled, Modelled], "live freeze off while its switch is on", [];

    // The tune layer.
    What::Tune, "TILE_TUNE", [Modelled, Modelled], "a tune zone (DDNet reads any kind but 0 as one), tuned by `tune_zone` commands and the map's settings", [COVERAGE_20];

    // Entities (`OnEntity`: the layer's index less ENTITY_OFFSET, 192).
    entity(0), "ENTITY_NULL", [Modelled, Modelled], "nothing", [];
    game_entities(1, 3, EntityLayers::Game), "ENTITY_SPAWN, _RED, _BLUE (game layer)", [Modelled, Modelled], "spawn points", [SPAWN_RUSH, DM1_20];
    game_entities(1, 3, EntityLayers::FrontSwitch), "ENTITY_SPAWN, _RED, _BLUE (front, switch layers)", [Modelled, Modelled], "spawn points, as the game layer's", [UNMODELLED];
    entities(4, 5), "ENTITY_FLAGSTAND_RED, _BLUE", [Modelled, Modelled], "DDRace makes no flags", [];
    game_entities(6, 11, EntityLayers::Game), "ENTITY_ARMOR_1 .. ENTITY_WEAPON_LASER (game layer)", [Modelled, Modelled], "shield, heart (freezes), weapons, ninja", [WEAPONS];
    game_entities(6, 11, EntityLayers::FrontSwitch), "ENTITY_ARMOR_1 .. ENTITY_WEAPON_LASER (front, switch layers)", [Modelled, Modelled], "pickups, as the game layer's", [FRONT_PICKUP];
    entities(12, 18), "ENTITY_LASER_FAST_CCW .. ENTITY_LASER_FAST_CW", [Detected, Detected], "a freezing laser (CLight): not modelled", [];
    entities(19, 27), "ENTITY_LASER_SHORT .. ENTITY_LASER_O_FAST", [Modelled, Modelled], "nothing of their own: they shape lights (detected) and doors", [COVERAGE_20];
    entities(29, 32), "ENTITY_PLASMAE, _PLASMAF, _PLASMA, _PLASMAU", [Modelled, Modelled], "a turret (CGun) firing at characters in sv_plasma_range", [TURRET_DRAGGER, UNMODELLED];
    entities(33, 34), "ENTITY_CRAZY_SHOTGUN_EX, _CRAZY_SHOTGUN", [Modelled, Modelled], "a shotgun bullet of nobody, made at map load, that never ends, bounces off walls (up and down when it starts vertical) and freezes whom it meets (a switch layer's while its switch is on); the _EX one explodes at every wall, without damage (16.4's code is the same; no 16.4 run met one)", [COVERAGE_20];
    entities(35, 38), "ENTITY_ARMOR_SHOTGUN, _GRENADE, _NINJA, _LASER", [Detected, Detected], "a shield that takes one weapon: not modelled", [];
    entities(42, 47), "ENTITY_DRAGGER_WEAK .. ENTITY_DRAGGER_STRONG_NW", [Modelled, Modelled], "drags characters in sv_dragger_range", [TURRET_DRAGGER];
    entity(49), "ENTITY_DOOR", [Modelled, Modelled], "an all-way stopper on the tiles of its laser (laid at map load, only on a map with a switch layer), met while its switch is on in the character's team (number 0 in the game and front layers)", [COVERAGE_20, COVERAGE_SOLO_20];

    // Weapons (`FireWeapon`, the entities they make).
    What::Weapon, "hammer", [Modelled, Modelled], "hits, unfreezes", [WEAPONS];
    What::Weapon, "gun", [Modelled, Modelled], "bullets (no push in DDRace)", [WEAPONS];
    What::Weapon, "shotgun", [Modelled, Modelled], "a beam that pulls", [WEAPONS];
    What::Weapon, "grenade", [Modelled, Modelled], "explosions push", [WEAPONS];
    What::Weapon, "laser", [Modelled, Modelled], "a beam that unfreezes", [WEAPONS];
    What::Weapon, "ninja", [Modelled, Modelled], "the dash", [NINJA_16, NINJA_20];
    What::Weapon, "jetpack gun", [Modelled, Modelled], "pushes its shooter every tick it fires (`HandleJetpack`); the `jetpack` and `ninjajetpack` commands are detected", [JETPACK];
    What::Weapon, "tele gun, grenade, laser", [Detected, Detected], "through their tiles", [];
    What::Weapon, "hits disabled per weapon", [Modelled, Modelled], "from sv_hit at spawn, then TILE_HIT_ENABLE/DISABLE (game, front and switch layers) and a loaded save", [];

    // Commands and messages that move or kill characters.
    What::Command, "Cl_Kill", [Modelled, Modelled], "dies, respawns (kill delay, kill protection)", [KILL_HOOKED, KILL_PROTECTION];
    What::Command, "Cl_SetTeam", [Modelled, Modelled], "to the game or the spectators (not while paused, nor under kill protection)", [PAUSED_SET_TEAM_16, PAUSED_SET_TEAM_20];
    What::Command, "a 0.7 client's team change (DDNet does not record it)", [Detected, Detected], "DDNet records a 0.7 message only where 0.6's table has a recorded one of its id: 0.7's Cl_SetTeam is 0.6's Cl_CallVote, so the file has the character's end and not why. The tick that end is recorded at is stepped again with the player taken to the spectators before it (a Cl_SetTeam -1 read between the ticks: nobody meets the character in that tick, its death's events lead the tick's snapshot); its way back (the file's next character for it) is stepped as a Cl_SetTeam 0 read before that tick", [TEAM_CHANGE_07_16, TEAM_CHANGE_07_20];
    What::Command, "/kill", [Modelled, Modelled], "dies when kill protection holds", [KILL_PROTECTION];
    What::Command, "/save, /load", [Modelled, Modelled], "the team dies; the loaded team is put where the string says, its switches as the string has them (a failed save puts both back)", [SAVE_LOAD, SAVE_REFUSED, LOAD_REFUSED];
    What::Command, "/swap, /team, /practice", [Modelled, Modelled], "as the PLAYER_SWAP, PLAYER_TEAM and TEAM_PRACTICE records that follow", [SAVE_LOAD, TEAM_SHOTS_20];
    What::Command, "/pause, /spec", [Modelled, Modelled], "the character is held; /spec with sv_pauseable takes it out of the world once it stands on the ground, and back at the head of the list", [PAUSED_SET_TEAM_16, SPEC_16, SPEC_20];
    What::Command, "tune, tune_reset, tune_zone, tune_zone_reset, toggle_tune", [Modelled, Modelled], "the tuning", [GRAVITY];
    What::Command, "sv_* settings the model holds", [Modelled, Modelled], "read-only ones in 20.1 change nothing", [];
    What::Command, "weapons, shotgun, grenade, laser, ninja (and un-)", [Modelled, Modelled], "test commands: weapons given or taken", [WEAPONS];
    What::Command, "move, move_raw, left, right, up, down", [Modelled, Modelled], "test commands: the character moved", [FREEZE_TUTORIAL, TELE_GOLDMINE];
    What::Command, "setjumps, endless_hook, infinite_jump, freeze, deep, livefreeze (and un-)", [Modelled, Modelled], "test commands", [];
    What::Command, "any other command (super, tele, /rescue, jetpack, solo, invincible, kill_pl, ...)", [Detected, Detected], "named as not modelled: the runner, or everybody for the server's", [];

    // Every setting the world holds (ddrace::config::Config), and the
    // ones it does not that change physics.
    What::Setting { at_start: true }, "sv_deepfly", [Detected, Detected], "a deep-frozen character may fire the hammer", [];
    What::Setting { at_start: true }, "sv_teleport_lose_weapons", [Detected, Detected], "teleporters take weapons", [];
    What::Setting { at_start: true }, "sv_old_teleport_weapons", [Detected, Detected], "teleporters leave characters alone", [];
    What::Setting { at_start: true }, "sv_old_teleport_hook", [Detected, Detected], "read for hooks; teleporters leave characters alone, which the model does not know", [];
    What::Setting { at_start: true }, "sv_reset_pickups", [Detected, Detected], "the start line takes weapons", [];
    What::Setting { at_start: true }, "sv_endless_super_hook", [Detected, Detected], "endless hook for super characters", [];
    What::Setting { at_start: true }, "sv_tournament_mode", [Detected, Detected], "players join as spectators", [];
    What::Setting { at_start: true }, "sv_spectator_slots", [Detected, Detected], "fewer players may join the game", [];
    What::Setting { at_start: true }, "sv_inactivekick_time", [Detected, Detected], "inactive players are moved to the spectators", [];
    What::Setting { at_start: true }, "sv_gametype", [Absent, Detected], "another game type than ddnet", [];
    What::Setting { at_start: false }, "sv_no_weak_hook / sv_no_weak_hook_and_bounce", [Modelled, Modelled], "every core pre-ticked (16.4: before every entity; 20.1: before the characters)", [NO_WEAK_HOOK];
    What::Setting { at_start: false }, "sv_dragger_range, sv_plasma_range, sv_plasma_per_sec", [Detected, Detected], "their entities are detected (within these ranges)", [];
    What::Setting { at_start: false }, "sv_rescue, sv_rescue_delay, sv_practice, sv_practice_by_default", [Detected, Detected], "through the commands they allow", [];
    What::Setting { at_start: false }, "sv_test_cmds", [Unknown, Unknown], "test commands are modelled as the file records them, whatever this says", [];
    What::Setting { at_start: false }, "sv_min_team_size, sv_max_team_size, sv_rejoin_team_0, sv_team0mode, sv_swap, sv_saveswapgames_delay", [Modelled, Modelled], "their effects come as records (PLAYER_TEAM, PLAYER_SWAP, LOAD_*)", [SAVE_LOAD];
    What::Setting { at_start: false }, "sv_max_clients, sv_inactivekick", [Modelled, Modelled], "no effect of their own on the world (joins come as records)", [];
    What::Setting { at_start: false }, "sv_high_bandwidth, sv_shotgun_bullet_sound, sv_emoticon_delay / sv_emoticon_ms_delay, sv_emotional_tees", [Modelled, Modelled], "no effect on the physics; read for what `teehistorian demo` writes (which snapshots carry events, the map bullets' explosion sound; emoticon eyes are not written yet)", [];
    What::Setting { at_start: false }, "sv_tune_reset, sv_ddrace_tune_reset", [Modelled, Modelled], "the header's tuning is the one after them", [];
    What::Setting { at_start: false }, "sv_freeze_delay, sv_kill_delay, sv_kill_protection, sv_teleport_hold_hook, sv_endless_drag, sv_hit, sv_old_laser", [Modelled, Modelled], "read by the model", [KILL_PROTECTION, FREEZE_TUTORIAL];
    What::Setting { at_start: false }, "sv_team, sv_solo_server, sv_pauseable, sv_pause_frequency, sv_destroy_bullets_on_death, sv_destroy_lasers_on_death", [Modelled, Modelled], "read by the model", [SAVE_LOAD, FORCED_SOLO];
    What::Setting { at_start: false }, "sv_team_change_delay, sv_spamprotection, sv_savegames, sv_sql_queries_delay, sv_saveswapgames_penalty", [Modelled, Modelled], "read by the model", [SAVE_REFUSED, LOAD_REFUSED];
};
