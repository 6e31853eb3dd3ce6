//! The message tables: each protocol's message names by id (system and
//! game, 0.6 as DDNet 20.1 has them, 0.7 as Teeworlds 0.7.5 has them),
//! DDNet's extended messages by UUID, and the field layout of every
//! message this crate reads, as [`Spec`] lists. The codec that reads a
//! body by its layout is in the parent module.

use super::Spec::{self, *};
use crate::packet::Version;
use uuid::Uuid;

/// 0.6 (DDNet) system message names by id (`NETMSG_*`).
const SYS_06: &[&str] = &[
    "EX",
    "INFO",
    "MAP_CHANGE",
    "MAP_DATA",
    "CON_READY",
    "SNAP",
    "SNAPEMPTY",
    "SNAPSINGLE",
    "SNAPSMALL",
    "INPUTTIMING",
    "RCON_AUTH_STATUS",
    "RCON_LINE",
    "UNUSED1",
    "UNUSED2",
    "READY",
    "ENTERGAME",
    "INPUT",
    "RCON_CMD",
    "RCON_AUTH",
    "REQUEST_MAP_DATA",
    "UNUSED3",
    "UNUSED4",
    "PING",
    "PING_REPLY",
    "UNUSED5",
    "RCON_CMD_ADD",
    "RCON_CMD_REM",
];

/// 0.7 system message names by id.
const SYS_07: &[&str] = &[
    "EX",
    "INFO",
    "MAP_CHANGE",
    "MAP_DATA",
    "SERVERINFO",
    "CON_READY",
    "SNAP",
    "SNAPEMPTY",
    "SNAPSINGLE",
    "SNAPSMALL",
    "INPUTTIMING",
    "RCON_AUTH_ON",
    "RCON_AUTH_OFF",
    "RCON_LINE",
    "RCON_CMD_ADD",
    "RCON_CMD_REM",
    "UNUSED16",
    "UNUSED17",
    "READY",
    "ENTERGAME",
    "INPUT",
    "RCON_CMD",
    "RCON_AUTH",
    "REQUEST_MAP_DATA",
    "UNUSED24",
    "UNUSED25",
    "PING",
    "PING_REPLY",
    "UNUSED28",
    "MAPLIST_ENTRY_ADD",
    "MAPLIST_ENTRY_REM",
];

/// 0.6 (DDNet) game message names by id (`NETMSGTYPE_*`).
pub(super) const GAME_06: &[&str] = &[
    "EX",
    "Sv_Motd",
    "Sv_Broadcast",
    "Sv_Chat",
    "Sv_KillMsg",
    "Sv_SoundGlobal",
    "Sv_TuneParams",
    "Unused",
    "Sv_ReadyToEnter",
    "Sv_WeaponPickup",
    "Sv_Emoticon",
    "Sv_VoteClearOptions",
    "Sv_VoteOptionListAdd",
    "Sv_VoteOptionAdd",
    "Sv_VoteOptionRemove",
    "Sv_VoteSet",
    "Sv_VoteStatus",
    "Cl_Say",
    "Cl_SetTeam",
    "Cl_SetSpectatorMode",
    "Cl_StartInfo",
    "Cl_ChangeInfo",
    "Cl_Kill",
    "Cl_Emoticon",
    "Cl_Vote",
    "Cl_CallVote",
    "Cl_IsDDNetLegacy",
    "Sv_DDRaceTimeLegacy",
    "Sv_RecordLegacy",
    "Unused2",
    "Sv_TeamsStateLegacy",
    "Cl_ShowOthersLegacy",
];

/// 0.7 game message names by id.
pub(super) const GAME_07: &[&str] = &[
    "EX",
    "Sv_Motd",
    "Sv_Broadcast",
    "Sv_Chat",
    "Sv_Team",
    "Sv_KillMsg",
    "Sv_TuneParams",
    "Sv_ExtraProjectile",
    "Sv_ReadyToEnter",
    "Sv_WeaponPickup",
    "Sv_Emoticon",
    "Sv_VoteClearOptions",
    "Sv_VoteOptionListAdd",
    "Sv_VoteOptionAdd",
    "Sv_VoteOptionRemove",
    "Sv_VoteSet",
    "Sv_VoteStatus",
    "Sv_ServerSettings",
    "Sv_ClientInfo",
    "Sv_GameInfo",
    "Sv_ClientDrop",
    "Sv_GameMsg",
    "De_ClientEnter",
    "De_ClientLeave",
    "Cl_Say",
    "Cl_SetTeam",
    "Cl_SetSpectatorMode",
    "Cl_StartInfo",
    "Cl_Kill",
    "Cl_ReadyChange",
    "Cl_Emoticon",
    "Cl_Vote",
    "Cl_CallVote",
    "Sv_SkinChange",
    "Cl_SkinChange",
    "Sv_RaceFinish",
    "Sv_Checkpoint",
    "Sv_CommandInfo",
    "Sv_CommandInfoRemove",
    "Cl_Command",
];

/// The name of a numbered message, if known.
pub fn name(version: Version, sys: bool, id: i32) -> Option<&'static str> {
    let table = match (version, sys) {
        (Version::V06, true) => SYS_06,
        (Version::V07, true) => SYS_07,
        (Version::V06, false) => GAME_06,
        (Version::V07, false) => GAME_07,
    };
    usize::try_from(id).ok().and_then(|i| table.get(i)).copied()
}

/// DDNet's extended (UUID) message names, in registration order.
const UUID_NAMES: &[&str] = &[
    "what-is@ddnet.tw",
    "it-is@ddnet.tw",
    "i-dont-know@ddnet.tw",
    "rcon-type@ddnet.tw",
    "map-details@ddnet.tw",
    "capabilities@ddnet.tw",
    "clientver@ddnet.tw",
    "ping@ddnet.tw",
    "pong@ddnet.tw",
    "checksum-request@ddnet.tw",
    "checksum-response@ddnet.tw",
    "checksum-error@ddnet.tw",
    "redirect@ddnet.org",
    "rcon-cmd-group-start@ddnet.org",
    "rcon-cmd-group-end@ddnet.org",
    "map-reload@ddnet.org",
    "reconnect@ddnet.org",
    "sv-maplist-add@ddnet.org",
    "sv-maplist-start@ddnet.org",
    "sv-maplist-end@ddnet.org",
    "my-own-message@heinrich5991.de",
    "show-distance@netmsg.ddnet.tw",
    "showothers@netmsg.ddnet.tw",
    "camera-info@netmsg.ddnet.org",
    "teamsstate@netmsg.ddnet.tw",
    "ddrace-time@netmsg.ddnet.tw",
    "record@netmsg.ddnet.tw",
    "killmsgteam@netmsg.ddnet.tw",
    "yourvote@netmsg.ddnet.org",
    "racefinish@netmsg.ddnet.org",
    "commandinfo@netmsg.ddnet.org",
    "commandinfo-remove@netmsg.ddnet.org",
    "sv-vote-option-group-start@netmsg.ddnet.org",
    "sv-vote-option-group-end@netmsg.ddnet.org",
    "sv-commandinfo-group-start@netmsg.ddnet.org",
    "sv-commandinfo-group-end@netmsg.ddnet.org",
    "change-info-cooldown@netmsg.ddnet.org",
    "map-sound-global@netmsg.ddnet.org",
    "preinput@netmsg.ddnet.org",
    "save-code@netmsg.ddnet.org",
    "server-alert@netmsg.ddnet.org",
    "moderator-alert@netmsg.ddnet.org",
    "enable-spectator-count@netmsg.ddnet.org",
    "map-info@netmsg.ddnet.org",
];

pub(super) static UUIDS: std::sync::LazyLock<Vec<(Uuid, &'static str)>> =
    std::sync::LazyLock::new(|| {
        UUID_NAMES
            .iter()
            .map(|&n| (crate::packer::calculate_uuid(n), n))
            .collect()
    });

/// The name of an extended message's UUID, if DDNet registers it.
pub fn uuid_name(uuid: &Uuid) -> Option<&'static str> {
    UUIDS.iter().find(|(u, _)| u == uuid).map(|&(_, n)| n)
}

/// DDNet 20.1's `MAX_CLIENTS` (0.6) and Teeworlds 0.7.5's (0.7).
const CLIENTS_06: i32 = 128;
const CLIENTS_07: i32 = 64;
/// `MAX_TICK` (DDNet's `NetTickStrict` is `0..=MAX_TICK`).
const MAX_TICK: i32 = 0x6fff_ffff;
/// `NUM_EMOTICONS - 1`, `NUM_WEAPONS - 1`: the same in both versions.
const LAST_EMOTICON: i32 = 15;
const LAST_WEAPON: i32 = 5;
const LAST_CLIENT_06: i32 = CLIENTS_06 - 1;

const SNAP: &[Spec] = &[
    Int("tick"),
    Int("delta_tick"),
    Int("num_parts"),
    Int("part"),
    Int("crc"),
    Int("part_size"),
    Sized("data"),
];
const SNAPEMPTY: &[Spec] = &[Int("tick"), Int("delta_tick")];
const SNAPSINGLE: &[Spec] = &[
    Int("tick"),
    Int("delta_tick"),
    Int("crc"),
    Int("part_size"),
    Sized("data"),
];
const INPUTTIMING: &[Spec] = &[Int("intended_tick"), Int("time_left")];
const RCON_CMD_ADD: &[Spec] = &[Str("name"), Str("help"), Str("params")];
const NAME: &[Spec] = &[Str("name")];
const MESSAGE: &[Spec] = &[Str("message")];
const DESCRIPTION: &[Spec] = &[Str("description")];
const EMPTY: &[Spec] = &[];

/// Field layouts of the system messages needed to follow a session
/// (DDNet 20.1 for 0.6, Teeworlds 0.7.5 for 0.7), by version and id.
pub(super) fn sys_layout(version: Version, id: i32) -> Option<&'static [Spec]> {
    use Version::*;
    Some(match (version, id) {
        (V06, 1) => &[Str("version"), Str("password")],
        (V07, 1) => &[Str("version"), Str("password"), Int("client_version")],
        (V06, 2) => &[Str("name"), Int("crc"), Int("size")],
        (V07, 2) => &[
            Str("name"),
            Int("crc"),
            Int("size"),
            Int("chunks_per_request"),
            Int("chunk_size"),
            Fixed("sha256", 32),
        ],
        (V06, 3) => &[
            Int("last"),
            Int("crc"),
            Int("chunk"),
            Int("size"),
            Sized("data"),
        ],
        (V07, 3) => &[Rest("data")],
        (V07, 4) => &[
            Str("version"),
            Str("name"),
            Str("hostname"),
            Str("map"),
            Str("gametype"),
            Int("flags"),
            Int("skill_level"),
            Int("num_players"),
            Int("max_players"),
            Int("num_clients"),
            Int("max_clients"),
        ],
        (V06, 4) | (V07, 5) => EMPTY,
        (V06, 5) | (V07, 6) => SNAP,
        (V06, 6) | (V07, 7) => SNAPEMPTY,
        (V06, 7) | (V07, 8) => SNAPSINGLE,
        (V06, 9) | (V07, 10) => INPUTTIMING,
        (V06, 10) => &[Int("authed"), OptInt("cmdlist")],
        (V07, 11 | 12) => EMPTY,
        (V06, 11) | (V07, 13) => &[Str("line")],
        (V06, 14 | 15) | (V07, 18 | 19) => EMPTY,
        (V06, 16) => &[
            Int("ack_tick"),
            Int("intended_tick"),
            Int("size"),
            Quarter("input"),
        ],
        (V07, 20) => &[
            Int("ack_tick"),
            Int("intended_tick"),
            Int("size"),
            Quarter("input"),
            OptInt("ping_correction"),
        ],
        (V06, 17) | (V07, 21) => &[Str("cmd")],
        (V06, 18) => &[Str("name"), Str("password"), OptInt("send_cmds")],
        (V07, 22) => &[Str("password")],
        (V06, 19) => &[Int("chunk")],
        (V07, 23) => EMPTY,
        (V06, 22 | 23) | (V07, 26 | 27) => EMPTY,
        (V06, 25) | (V07, 14) => RCON_CMD_ADD,
        (V06, 26) | (V07, 15 | 29 | 30) => NAME,
        _ => return None,
    })
}

const PLAYER_INFO_06: &[Spec] = &[
    Str("name"),
    Str("clan"),
    Int("country"),
    Str("skin"),
    Range("use_custom_color", 0, 1),
    Int("color_body"),
    Int("color_feet"),
];

/// DDNet 20.1's game messages (`datasrc/network.py`), by id: the fields
/// its generated `SecureUnpackMsg` reads, then what the game code reads
/// after them (tune params, teams, the legacy DDNet version).
pub(super) fn game_layout_06(id: i32) -> Option<&'static [Spec]> {
    const C: i32 = LAST_CLIENT_06;
    Some(match id {
        1 | 2 => MESSAGE,
        3 => &[
            Range("team", -2, 3),
            Range("client_id", -1, C),
            Str("message"),
        ],
        4 => &[
            Range("killer", 0, C),
            Range("victim", 0, C),
            Range("weapon", -3, LAST_WEAPON),
            Int("mode_special"),
        ],
        // `NUM_SOUNDS`: the 41 sound sets of DDNet's content.py.
        5 => &[Range("sound_id", 0, 40)],
        6 => &[Ints("tune_params")],
        7 | 8 | 11 | 22 | 29 => EMPTY,
        9 => &[Range("weapon", 0, LAST_WEAPON)],
        10 => &[
            Range("client_id", 0, C),
            Range("emoticon", 0, LAST_EMOTICON),
        ],
        12 => &[Range("num_options", 1, 15), StrArray("descriptions", 15)],
        13 | 14 => DESCRIPTION,
        15 => &[
            Range("timeout", 0, i32::MAX),
            Str("description"),
            Str("reason"),
        ],
        16 => &[
            Range("yes", 0, CLIENTS_06),
            Range("no", 0, CLIENTS_06),
            Range("pass", 0, CLIENTS_06),
            Range("total", 0, CLIENTS_06),
        ],
        17 => &[Range("team", 0, 1), Str("message")],
        18 => &[Range("team", -1, 1)],
        19 => &[Range("spectator_id", -1, C)],
        20 | 21 => PLAYER_INFO_06,
        23 => &[Range("emoticon", 0, LAST_EMOTICON)],
        24 => &[Range("vote", -1, 1)],
        25 => &[Str("type"), Str("value"), Str("reason")],
        // The server reads a DDNet version after it, if there is one.
        26 => &[OptInt("ddnet_version")],
        27 => &[Int("time"), Int("check"), Range("finish", 0, 1)],
        28 => &[Int("server_time_best"), Int("player_time_best")],
        30 => &[Ints("teams")],
        31 => &[Range("show", 0, 1)],
        _ => return None,
    })
}

const SKIN_07: &[Spec] = &[
    StrArray("skin_part_names", 6),
    Array("use_custom_colors", 6, 0, 1),
    Array("skin_part_colors", 6, i32::MIN, i32::MAX),
];

/// Teeworlds 0.7.5's game messages (`datasrc/network.py`; DDNet's
/// `datasrc/seven` has the same fields), by id, with what the game code
/// reads after the generated fields.
pub(super) fn game_layout_07(id: i32) -> Option<&'static [Spec]> {
    const C: i32 = CLIENTS_07 - 1;
    Some(match id {
        1 | 2 => MESSAGE,
        3 => &[
            Range("mode", 0, 3),
            Range("client_id", -1, C),
            Range("target_id", -1, C),
            Str("message"),
        ],
        4 => &[
            Range("client_id", -1, C),
            Range("team", -1, 1),
            Range("silent", 0, 1),
            Int("cooldown_tick"),
        ],
        5 => &[
            Range("killer", -2, C),
            Range("victim", 0, C),
            Range("weapon", -3, LAST_WEAPON),
            Int("mode_special"),
        ],
        6 => &[Ints("tune_params")],
        // A count, then that many projectiles' ints.
        7 => &[Ints("data")],
        8 | 11 | 28 | 29 => EMPTY,
        9 => &[Range("weapon", 0, LAST_WEAPON)],
        10 => &[
            Range("client_id", 0, C),
            Range("emoticon", 0, LAST_EMOTICON),
        ],
        // DDNet sends its 0.6 message to 0.7 clients too: 15 strings, the
        // unused ones empty; Teeworlds sends `num_options` strings.
        12 => &[Int("num_options"), Strs("descriptions"), RestStrs("unused")],
        13 | 14 => DESCRIPTION,
        15 => &[
            Range("client_id", -1, C),
            Range("type", 0, 6),
            Range("timeout", 0, 60),
            Str("description"),
            Str("reason"),
        ],
        16 => &[
            Range("yes", 0, CLIENTS_07),
            Range("no", 0, CLIENTS_07),
            Range("pass", 0, CLIENTS_07),
            Range("total", 0, CLIENTS_07),
        ],
        17 => &[
            Range("kick_vote", 0, 1),
            Range("kick_min", 0, CLIENTS_07),
            Range("spec_vote", 0, 1),
            Range("team_lock", 0, 1),
            Range("team_balance", 0, 1),
            Range("player_slots", 0, CLIENTS_07),
        ],
        18 => &[
            Range("client_id", 0, C),
            Range("local", 0, 1),
            Range("team", -1, 1),
            Str("name"),
            Str("clan"),
            Int("country"),
            StrArray("skin_part_names", 6),
            Array("use_custom_colors", 6, 0, 1),
            Array("skin_part_colors", 6, i32::MIN, i32::MAX),
            Range("silent", 0, 1),
        ],
        19 => &[
            Range("game_flags", 0, 15),
            Range("score_limit", 0, i32::MAX),
            Range("time_limit", 0, i32::MAX),
            Range("match_num", 0, i32::MAX),
            Range("match_current", 0, i32::MAX),
        ],
        20 => &[
            Range("client_id", 0, C),
            Str("reason"),
            Range("silent", 0, 1),
        ],
        // The game message's id, then its parameters.
        21 => &[Int("game_msg_id"), Ints("params")],
        22 => &[Str("name"), Range("client_id", -1, C), Range("team", -1, 1)],
        23 => &[Str("name"), Range("client_id", -1, C), Str("reason")],
        24 => &[Range("mode", 0, 3), Range("target", -1, C), Str("message")],
        25 => &[Range("team", -1, 1)],
        26 => &[Range("spec_mode", 0, 3), Range("spectator_id", -1, C)],
        27 => &[
            Str("name"),
            Str("clan"),
            Int("country"),
            StrArray("skin_part_names", 6),
            Array("use_custom_colors", 6, 0, 1),
            Array("skin_part_colors", 6, i32::MIN, i32::MAX),
        ],
        30 => &[Range("emoticon", 0, LAST_EMOTICON)],
        31 => &[Range("vote", -1, 1)],
        32 => &[
            Str("type"),
            Str("value"),
            Str("reason"),
            Range("force", 0, 1),
        ],
        33 => &[
            Range("client_id", 0, C),
            StrArray("skin_part_names", 6),
            Array("use_custom_colors", 6, 0, 1),
            Array("skin_part_colors", 6, i32::MIN, i32::MAX),
        ],
        34 => SKIN_07,
        35 => &[
            Range("client_id", 0, C),
            Range("time", -1, i32::MAX),
            Int("diff"),
            Range("record_personal", 0, 1),
            OptInt("record_server"),
        ],
        36 => &[Int("diff")],
        37 => &[Str("name"), Str("args_format"), Str("help_text")],
        38 => NAME,
        39 => &[Str("name"), Str("arguments")],
        _ => return None,
    })
}

/// DDNet's extended messages with a known layout: the registered name,
/// whether it is a system message, and its fields. System ones from
/// `protocol_ex_msgs.h` as the server and client pack them; game ones
/// from `datasrc/network.py`'s `NetMessageEx`.
pub(super) const EX: &[(&str, bool, &[Spec])] = &[
    ("rcon-type@ddnet.tw", true, &[Int("username_required")]),
    (
        "map-details@ddnet.tw",
        true,
        &[
            Str("name"),
            Fixed("sha256", 32),
            Int("crc"),
            Int("size"),
            OptStr("url"),
        ],
    ),
    (
        "capabilities@ddnet.tw",
        true,
        &[Int("version"), Int("flags")],
    ),
    (
        "clientver@ddnet.tw",
        true,
        &[
            Fixed("connection_id", 16),
            Int("ddnet_version"),
            Str("version_str"),
        ],
    ),
    ("ping@ddnet.tw", true, &[Fixed("id", 16)]),
    ("pong@ddnet.tw", true, &[Fixed("id", 16)]),
    (
        "checksum-request@ddnet.tw",
        true,
        &[Fixed("id", 16), Int("start"), Int("length")],
    ),
    (
        "checksum-response@ddnet.tw",
        true,
        &[Fixed("id", 16), Fixed("sha256", 32)],
    ),
    (
        "checksum-error@ddnet.tw",
        true,
        &[Fixed("id", 16), Int("error")],
    ),
    ("redirect@ddnet.org", true, &[Int("port")]),
    ("rcon-cmd-group-start@ddnet.org", true, &[Int("count")]),
    ("rcon-cmd-group-end@ddnet.org", true, EMPTY),
    ("map-reload@ddnet.org", true, EMPTY),
    ("reconnect@ddnet.org", true, EMPTY),
    ("sv-maplist-add@ddnet.org", true, &[RestStrs("names")]),
    ("sv-maplist-start@ddnet.org", true, &[Int("count")]),
    ("sv-maplist-end@ddnet.org", true, EMPTY),
    ("my-own-message@heinrich5991.de", false, &[Int("test")]),
    (
        "show-distance@netmsg.ddnet.tw",
        false,
        &[Int("x"), Int("y")],
    ),
    ("showothers@netmsg.ddnet.tw", false, &[Range("show", 0, 2)]),
    (
        "camera-info@netmsg.ddnet.org",
        false,
        &[Int("zoom"), Int("deadzone"), Int("follow_factor")],
    ),
    ("teamsstate@netmsg.ddnet.tw", false, &[Ints("teams")]),
    (
        "ddrace-time@netmsg.ddnet.tw",
        false,
        &[Int("time"), Int("check"), Range("finish", 0, 1)],
    ),
    (
        "record@netmsg.ddnet.tw",
        false,
        &[Int("server_time_best"), Int("player_time_best")],
    ),
    (
        "killmsgteam@netmsg.ddnet.tw",
        false,
        &[
            Range("team", 0, LAST_CLIENT_06),
            Range("first", -1, LAST_CLIENT_06),
        ],
    ),
    ("yourvote@netmsg.ddnet.org", false, &[Range("voted", -1, 1)]),
    (
        "racefinish@netmsg.ddnet.org",
        false,
        &[
            Range("client_id", 0, LAST_CLIENT_06),
            Int("time"),
            Int("diff"),
            Range("record_personal", 0, 1),
            OptInt("record_server"),
        ],
    ),
    (
        "commandinfo@netmsg.ddnet.org",
        false,
        &[Str("name"), Str("args_format"), Str("help_text")],
    ),
    ("commandinfo-remove@netmsg.ddnet.org", false, NAME),
    ("sv-vote-option-group-start@netmsg.ddnet.org", false, EMPTY),
    ("sv-vote-option-group-end@netmsg.ddnet.org", false, EMPTY),
    ("sv-commandinfo-group-start@netmsg.ddnet.org", false, EMPTY),
    ("sv-commandinfo-group-end@netmsg.ddnet.org", false, EMPTY),
    (
        "change-info-cooldown@netmsg.ddnet.org",
        false,
        &[Range("wait_until", 0, MAX_TICK)],
    ),
    (
        "map-sound-global@netmsg.ddnet.org",
        false,
        &[Int("sound_id")],
    ),
    (
        "preinput@netmsg.ddnet.org",
        false,
        &[
            Int("direction"),
            Int("target_x"),
            Int("target_y"),
            Int("jump"),
            Int("fire"),
            Int("hook"),
            Int("wanted_weapon"),
            Int("next_weapon"),
            Int("prev_weapon"),
            Range("owner", 0, LAST_CLIENT_06),
            Range("intended_tick", 0, MAX_TICK),
        ],
    ),
    (
        "save-code@netmsg.ddnet.org",
        false,
        &[
            Range("state", 0, 4),
            Str("error"),
            Str("save_requester"),
            Str("server_name"),
            Str("generated_code"),
            Str("code"),
            Str("team_members"),
        ],
    ),
    ("server-alert@netmsg.ddnet.org", false, MESSAGE),
    ("moderator-alert@netmsg.ddnet.org", false, MESSAGE),
    (
        "enable-spectator-count@netmsg.ddnet.org",
        false,
        &[Range("enable", 0, 1)],
    ),
    ("map-info@netmsg.ddnet.org", false, DESCRIPTION),
];
