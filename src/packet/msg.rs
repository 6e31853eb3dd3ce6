//! Messages inside chunks: `varint(id << 1 | sys)`, then for id 0 a UUID
//! (DDNet's extended messages), then the body.

use crate::codec::{DecodeError, ErrorKind, Mode, Reader};
use crate::packer::{read_int, read_uuid};
use serde::Serialize;
use uuid::Uuid;

/// A message id: a number, or a UUID for DDNet's extended messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(untagged)]
pub enum MsgId {
    Ordinal(i32),
    Uuid(Uuid),
}

/// The start of a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MsgHeader {
    /// A system (engine) message rather than a game message.
    pub sys: bool,
    pub id: MsgId,
}

/// Splits chunk data into the message header and body. Lenient: an
/// over-long id varint is accepted as DDNet accepts it.
pub fn split(data: &[u8]) -> Result<(MsgHeader, &[u8]), DecodeError> {
    let mut r = Reader::new(data, Mode::Lenient);
    let raw = read_int(&mut r, "message.id")?;
    let (sys, id) = (raw & 1 != 0, raw >> 1);
    if !(0..0x10000).contains(&id) {
        return Err(DecodeError::new(
            0,
            "message.id",
            ErrorKind::MessageIdOutOfRange(id),
        ));
    }
    let id = if id == 0 {
        MsgId::Uuid(read_uuid(&mut r, "message.uuid")?)
    } else {
        MsgId::Ordinal(id)
    };
    Ok((MsgHeader { sys, id }, r.rest()))
}

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
    "AUTH_CHALLENGE",
    "AUTH_RESULT",
    "READY",
    "ENTERGAME",
    "INPUT",
    "RCON_CMD",
    "RCON_AUTH",
    "REQUEST_MAP_DATA",
    "AUTH_START",
    "AUTH_RESPONSE",
    "PING",
    "PING_REPLY",
    "ERROR",
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
    "AUTH_CHALLENGE",
    "AUTH_RESULT",
    "READY",
    "ENTERGAME",
    "INPUT",
    "RCON_CMD",
    "RCON_AUTH",
    "REQUEST_MAP_DATA",
    "AUTH_START",
    "AUTH_RESPONSE",
    "PING",
    "PING_REPLY",
    "ERROR",
    "MAPLIST_ENTRY_ADD",
    "MAPLIST_ENTRY_REM",
];

/// 0.6 (DDNet) game message names by id (`NETMSGTYPE_*`).
const GAME_06: &[&str] = &[
    "EX",
    "Sv_Motd",
    "Sv_Broadcast",
    "Sv_Chat",
    "Sv_KillMsg",
    "Sv_SoundGlobal",
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
    "Unused",
    "Sv_TeamsStateLegacy",
    "Cl_ShowOthersLegacy",
];

/// 0.7 game message names by id.
const GAME_07: &[&str] = &[
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

/// The name of a numbered message, if known. The direction is accepted for
/// the day a table depends on it; none does yet.
pub fn name(
    version: super::Version,
    sys: bool,
    id: i32,
    _direction: Option<crate::session::Direction>,
) -> Option<&'static str> {
    let table = match (version, sys) {
        (super::Version::V06, true) => SYS_06,
        (super::Version::V07, true) => SYS_07,
        (super::Version::V06, false) => GAME_06,
        (super::Version::V07, false) => GAME_07,
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

static UUIDS: std::sync::LazyLock<Vec<(Uuid, &'static str)>> = std::sync::LazyLock::new(|| {
    UUID_NAMES
        .iter()
        .map(|&n| (crate::packer::calculate_uuid(n), n))
        .collect()
});

/// The name of an extended message's UUID, if DDNet registers it.
pub fn uuid_name(uuid: &Uuid) -> Option<&'static str> {
    UUIDS.iter().find(|(u, _)| u == uuid).map(|&(_, n)| n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clientver_uuid_matches_ddnet() {
        let uuid: Uuid = "8c001304-8461-3e47-8787-f672b3835bd4".parse().unwrap();
        assert_eq!(uuid_name(&uuid), Some("clientver@ddnet.tw"));
    }

    #[test]
    fn spec_ids() {
        use super::super::Version::*;
        for (id, n) in [
            (1, "INFO"),
            (2, "MAP_CHANGE"),
            (5, "SNAP"),
            (7, "SNAPSINGLE"),
            (9, "INPUTTIMING"),
            (14, "READY"),
            (15, "ENTERGAME"),
            (16, "INPUT"),
            (19, "REQUEST_MAP_DATA"),
            (22, "PING"),
            (25, "RCON_CMD_ADD"),
        ] {
            assert_eq!(name(V06, true, id, None), Some(n));
        }
        for (id, n) in [
            (17, "Cl_Say"),
            (18, "Cl_SetTeam"),
            (20, "Cl_StartInfo"),
            (22, "Cl_Kill"),
            (23, "Cl_Emoticon"),
        ] {
            assert_eq!(name(V06, false, id, None), Some(n));
        }
    }
}
