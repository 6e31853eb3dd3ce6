//! The item tables: the field layout of every standard netobj and
//! netevent of Teeworlds 0.6 / DDNet (`datasrc/network.py`) and Teeworlds
//! 0.7 (`datasrc/seven/network.py`) by type id, and of DDNet's extended
//! ("ex") items by UUID name. The table-driven decoder is in the parent
//! module.

use super::{FieldKind, ItemKind, Part, TypeDef};
use FieldKind::{Int as I, PackedStr as S};
use std::sync::LazyLock;

const fn obj(name: &'static str, parts: &'static [Part]) -> TypeDef {
    TypeDef {
        name,
        kind: ItemKind::Object,
        parts,
    }
}

const fn ev(name: &'static str, parts: &'static [Part]) -> TypeDef {
    TypeDef {
        name,
        kind: ItemKind::Event,
        parts,
    }
}

const REGISTRATION: TypeDef = TypeDef {
    name: "Registration",
    kind: ItemKind::Registration,
    parts: &[&[("uuid", FieldKind::Uuid)]],
};

// Shared by 0.6 and 0.7 where the layouts agree.
const PLAYER_INPUT: Part = &[
    ("direction", I),
    ("target_x", I),
    ("target_y", I),
    ("jump", I),
    ("fire", I),
    ("hook", I),
    ("player_flags", I),
    ("wanted_weapon", I),
    ("next_weapon", I),
    ("prev_weapon", I),
];
const PROJECTILE: Part = &[
    ("x", I),
    ("y", I),
    ("vel_x", I),
    ("vel_y", I),
    ("type", I),
    ("start_tick", I),
];
const LASER: Part = &[
    ("x", I),
    ("y", I),
    ("from_x", I),
    ("from_y", I),
    ("start_tick", I),
];
const CHARACTER_CORE: Part = &[
    ("tick", I),
    ("x", I),
    ("y", I),
    ("vel_x", I),
    ("vel_y", I),
    ("angle", I),
    ("direction", I),
    ("jumped", I),
    ("hooked_player", I),
    ("hook_state", I),
    ("hook_tick", I),
    ("hook_x", I),
    ("hook_y", I),
    ("hook_dx", I),
    ("hook_dy", I),
];
const COMMON: Part = &[("x", I), ("y", I)];
const CLIENT_ID: Part = &[("client_id", I)];
const SOUND_ID: Part = &[("sound_id", I)];

/// Teeworlds 0.6 / DDNet, indexed by type id.
pub(super) static V06: [TypeDef; 21] = [
    REGISTRATION,
    obj("PlayerInput", &[PLAYER_INPUT]),
    obj("Projectile", &[PROJECTILE]),
    obj("Laser", &[LASER]),
    obj(
        "Pickup",
        &[&[("x", I), ("y", I), ("type", I), ("subtype", I)]],
    ),
    obj("Flag", &[&[("x", I), ("y", I), ("team", I)]]),
    obj(
        "GameInfo",
        &[&[
            ("game_flags", I),
            ("game_state_flags", I),
            ("round_start_tick", I),
            ("warmup_timer", I),
            ("score_limit", I),
            ("time_limit", I),
            ("round_num", I),
            ("round_current", I),
        ]],
    ),
    obj(
        "GameData",
        &[&[
            ("teamscore_red", I),
            ("teamscore_blue", I),
            ("flag_carrier_red", I),
            ("flag_carrier_blue", I),
        ]],
    ),
    obj("CharacterCore", &[CHARACTER_CORE]),
    obj(
        "Character",
        &[
            CHARACTER_CORE,
            &[
                ("player_flags", I),
                ("health", I),
                ("armor", I),
                ("ammo_count", I),
                ("weapon", I),
                ("emote", I),
                ("attack_tick", I),
            ],
        ],
    ),
    obj(
        "PlayerInfo",
        &[&[
            ("local", I),
            ("client_id", I),
            ("team", I),
            ("score", I),
            ("latency", I),
        ]],
    ),
    obj(
        "ClientInfo",
        &[&[
            ("name", S(4)),
            ("clan", S(3)),
            ("country", I),
            ("skin", S(6)),
            ("use_custom_color", I),
            ("color_body", I),
            ("color_feet", I),
        ]],
    ),
    obj(
        "SpectatorInfo",
        &[&[("spectator_id", I), ("x", I), ("y", I)]],
    ),
    ev("Common", &[COMMON]),
    ev("Explosion", &[COMMON]),
    ev("Spawn", &[COMMON]),
    ev("HammerHit", &[COMMON]),
    ev("Death", &[COMMON, CLIENT_ID]),
    ev("SoundGlobal", &[COMMON, SOUND_ID]),
    ev("SoundWorld", &[COMMON, SOUND_ID]),
    ev("DamageInd", &[COMMON, &[("angle", I)]]),
];

/// Teeworlds 0.7, indexed by type id (23 and 24 came with 0.7.5's race
/// objects and have no pre-agreed size).
pub(super) static V07: [TypeDef; 25] = [
    REGISTRATION,
    obj("PlayerInput", &[PLAYER_INPUT]),
    obj("Projectile", &[PROJECTILE]),
    obj("Laser", &[LASER]),
    obj("Pickup", &[&[("x", I), ("y", I), ("type", I)]]),
    obj("Flag", &[&[("x", I), ("y", I), ("team", I)]]),
    obj(
        "GameData",
        &[&[
            ("game_start_tick", I),
            ("game_state_flags", I),
            ("game_state_end_tick", I),
        ]],
    ),
    obj(
        "GameDataTeam",
        &[&[("teamscore_red", I), ("teamscore_blue", I)]],
    ),
    obj(
        "GameDataFlag",
        &[&[
            ("flag_carrier_red", I),
            ("flag_carrier_blue", I),
            ("flag_drop_tick_red", I),
            ("flag_drop_tick_blue", I),
        ]],
    ),
    obj("CharacterCore", &[CHARACTER_CORE]),
    obj(
        "Character",
        &[
            CHARACTER_CORE,
            &[
                ("health", I),
                ("armor", I),
                ("ammo_count", I),
                ("weapon", I),
                ("emote", I),
                ("attack_tick", I),
                ("triggered_events", I),
            ],
        ],
    ),
    obj(
        "PlayerInfo",
        &[&[("player_flags", I), ("score", I), ("latency", I)]],
    ),
    obj(
        "SpectatorInfo",
        &[&[("spec_mode", I), ("spectator_id", I), ("x", I), ("y", I)]],
    ),
    // Skin parts in SKINPART_* order: body, marking, decoration, hands,
    // feet, eyes.
    obj(
        "De_ClientInfo",
        &[&[
            ("local", I),
            ("team", I),
            ("name", S(4)),
            ("clan", S(3)),
            ("country", I),
            ("skin_body", S(6)),
            ("skin_marking", S(6)),
            ("skin_decoration", S(6)),
            ("skin_hands", S(6)),
            ("skin_feet", S(6)),
            ("skin_eyes", S(6)),
            ("use_custom_color_body", I),
            ("use_custom_color_marking", I),
            ("use_custom_color_decoration", I),
            ("use_custom_color_hands", I),
            ("use_custom_color_feet", I),
            ("use_custom_color_eyes", I),
            ("color_body", I),
            ("color_marking", I),
            ("color_decoration", I),
            ("color_hands", I),
            ("color_feet", I),
            ("color_eyes", I),
        ]],
    ),
    obj(
        "De_GameInfo",
        &[&[
            ("game_flags", I),
            ("score_limit", I),
            ("time_limit", I),
            ("match_num", I),
            ("match_current", I),
        ]],
    ),
    obj(
        "De_TuneParams",
        &[&[
            ("tune_params[0]", I),
            ("tune_params[1]", I),
            ("tune_params[2]", I),
            ("tune_params[3]", I),
            ("tune_params[4]", I),
            ("tune_params[5]", I),
            ("tune_params[6]", I),
            ("tune_params[7]", I),
            ("tune_params[8]", I),
            ("tune_params[9]", I),
            ("tune_params[10]", I),
            ("tune_params[11]", I),
            ("tune_params[12]", I),
            ("tune_params[13]", I),
            ("tune_params[14]", I),
            ("tune_params[15]", I),
            ("tune_params[16]", I),
            ("tune_params[17]", I),
            ("tune_params[18]", I),
            ("tune_params[19]", I),
            ("tune_params[20]", I),
            ("tune_params[21]", I),
            ("tune_params[22]", I),
            ("tune_params[23]", I),
            ("tune_params[24]", I),
            ("tune_params[25]", I),
            ("tune_params[26]", I),
            ("tune_params[27]", I),
            ("tune_params[28]", I),
            ("tune_params[29]", I),
            ("tune_params[30]", I),
            ("tune_params[31]", I),
        ]],
    ),
    ev("Common", &[COMMON]),
    ev("Explosion", &[COMMON]),
    ev("Spawn", &[COMMON]),
    ev("HammerHit", &[COMMON]),
    ev("Death", &[COMMON, CLIENT_ID]),
    ev("SoundWorld", &[COMMON, SOUND_ID]),
    ev(
        "Damage",
        &[
            COMMON,
            &[
                ("client_id", I),
                ("angle", I),
                ("health_amount", I),
                ("armor_amount", I),
                ("self", I),
            ],
        ],
    ),
    obj("PlayerInfoRace", &[&[("race_start_tick", I)]]),
    obj(
        "GameDataRace",
        &[&[("best_time", I), ("precision", I), ("race_flags", I)]],
    ),
];

/// DDNet's extended types by UUID name, newest known layouts (DDNet appends
/// fields to these over time, so older items are short, newer ones have
/// extra ints).
pub(super) static EX: [(&str, TypeDef); 19] = [
    (
        "my-own-object@heinrich5991.de",
        obj("MyOwnObject", &[&[("test", I)]]),
    ),
    (
        "character@netobj.ddnet.tw",
        obj(
            "DDNetCharacter",
            &[&[
                ("flags", I),
                ("freeze_end", I),
                ("jumps", I),
                ("tele_checkpoint", I),
                ("strong_weak_id", I),
                ("jumped_total", I),
                ("ninja_activation_tick", I),
                ("freeze_start", I),
                ("target_x", I),
                ("target_y", I),
                ("tune_zone_override", I),
            ]],
        ),
    ),
    (
        "player@netobj.ddnet.tw",
        obj(
            "DDNetPlayer",
            &[&[
                ("flags", I),
                ("auth_level", I),
                ("finish_time_seconds", I),
                ("finish_time_millis", I),
            ]],
        ),
    ),
    (
        "gameinfo@netobj.ddnet.tw",
        obj(
            "GameInfoEx",
            &[&[("flags", I), ("version", I), ("flags2", I)]],
        ),
    ),
    (
        "projectile@netobj.ddnet.tw",
        obj(
            "DDRaceProjectile",
            &[&[
                ("x", I),
                ("y", I),
                ("angle", I),
                ("data", I),
                ("type", I),
                ("start_tick", I),
            ]],
        ),
    ),
    (
        "laser@netobj.ddnet.tw",
        obj(
            "DDNetLaser",
            &[&[
                ("to_x", I),
                ("to_y", I),
                ("from_x", I),
                ("from_y", I),
                ("start_tick", I),
                ("owner", I),
                ("type", I),
                ("switch_number", I),
                ("subtype", I),
                ("flags", I),
            ]],
        ),
    ),
    (
        "ddnet-projectile@netobj.ddnet.tw",
        obj(
            "DDNetProjectile",
            &[
                PROJECTILE,
                &[
                    ("owner", I),
                    ("switch_number", I),
                    ("tune_zone", I),
                    ("flags", I),
                ],
            ],
        ),
    ),
    (
        "pickup@netobj.ddnet.tw",
        obj(
            "DDNetPickup",
            &[&[
                ("x", I),
                ("y", I),
                ("type", I),
                ("subtype", I),
                ("switch_number", I),
                ("flags", I),
            ]],
        ),
    ),
    (
        "spectator-info@netobj.ddnet.org",
        obj(
            "DDNetSpectatorInfo",
            &[&[
                ("has_camera_info", I),
                ("zoom", I),
                ("deadzone", I),
                ("follow_factor", I),
                ("spectator_count", I),
            ]],
        ),
    ),
    (
        "spectator-count@netobj.ddnet.org",
        obj("SpectatorCount", &[&[("num_spectators", I)]]),
    ),
    ("birthday@netevent.ddnet.org", ev("Birthday", &[COMMON])),
    ("finish@netevent.ddnet.org", ev("Finish", &[COMMON])),
    // Declared as an object in network.py despite its name.
    (
        "my-own-event@heinrich5991.de",
        obj("MyOwnEvent", &[&[("test", I)]]),
    ),
    (
        "spec-char@netobj.ddnet.tw",
        obj("SpecChar", &[&[("x", I), ("y", I)]]),
    ),
    (
        "switch-state@netobj.ddnet.tw",
        obj(
            "SwitchState",
            &[&[
                ("highest_switch_number", I),
                ("status[0]", I),
                ("status[1]", I),
                ("status[2]", I),
                ("status[3]", I),
                ("status[4]", I),
                ("status[5]", I),
                ("status[6]", I),
                ("status[7]", I),
                ("switch_numbers[0]", I),
                ("switch_numbers[1]", I),
                ("switch_numbers[2]", I),
                ("switch_numbers[3]", I),
                ("end_ticks[0]", I),
                ("end_ticks[1]", I),
                ("end_ticks[2]", I),
                ("end_ticks[3]", I),
            ]],
        ),
    ),
    (
        "entity-ex@netobj.ddnet.tw",
        obj(
            "EntityEx",
            &[&[("switch_number", I), ("layer", I), ("entity_class", I)]],
        ),
    ),
    (
        "map-best-time@netobj.ddnet.org",
        obj(
            "MapBestTime",
            &[&[("map_best_time_seconds", I), ("map_best_time_millis", I)]],
        ),
    ),
    (
        "envelope-trigger@netobj.ddnet.org",
        obj(
            "EnvelopeTrigger",
            &[&[
                ("start_tick", I),
                ("type", I),
                ("client_id", I),
                ("flags", I),
            ]],
        ),
    ),
    (
        "map-sound-world@netevent.ddnet.org",
        ev("MapSoundWorld", &[COMMON, SOUND_ID]),
    ),
];

/// `EX`'s UUIDs, computed once (MD5-based v3, too slow to redo per item).
pub(super) static EX_UUIDS: LazyLock<Vec<uuid::Uuid>> = LazyLock::new(|| {
    EX.iter()
        .map(|(name, _)| crate::packer::calculate_uuid(name))
        .collect()
});
