//! Teehistorian messages: the base set and every known extension (EX).
//!
//! Layout per DDNet 20.1 `teehistorian.cpp`; every field is a varint unless
//! noted. A non-negative message id is a PLAYER_DIFF whose id is the client
//! id. EX records carry a UUID and a length-prefixed payload: known
//! extensions are decoded into fields (any bytes after the fields are kept
//! in `trailing`), unknown ones are kept raw.

use crate::bytes::{Blob, Text};
use crate::codec::{Codec, DecodeError, ErrorKind, Reader};
use crate::packer::{
    calculate_uuid, read_int, read_len, read_str, read_uuid, write_int, write_str,
};
use serde::Serialize;
use std::sync::LazyLock;
use uuid::Uuid;

/// Largest record (and length field) the reader accepts. DDNet's writer
/// packs each record into a 64 KiB buffer; this leaves room for hand-made
/// files while keeping memory bounded whatever a length field says.
pub const MAX_RECORD_LEN: usize = 1 << 20;

/// Message ids of the base messages (`TEEHISTORIAN_*` in DDNet).
pub mod id {
    /// The end of the recording.
    pub const FINISH: i32 = -1;
    /// Ticks without records.
    pub const TICK_SKIP: i32 = -2;
    /// A character appeared.
    pub const PLAYER_NEW: i32 = -3;
    /// A character disappeared.
    pub const PLAYER_OLD: i32 = -4;
    /// Input changed.
    pub const INPUT_DIFF: i32 = -5;
    /// First input of a player object.
    pub const INPUT_NEW: i32 = -6;
    /// A game message from a client.
    pub const MESSAGE: i32 = -7;
    /// A client joined.
    pub const JOIN: i32 = -8;
    /// A client left.
    pub const DROP: i32 = -9;
    /// A console command.
    pub const CONSOLE_COMMAND: i32 = -10;
    /// An extension record (UUID, size, payload).
    pub const EX: i32 = -11;
}

/// The 10 ints of `CNetObj_PlayerInput`: direction, target x/y, jump, fire,
/// hook, player flags, wanted/next/prev weapon.
pub type Input = [i32; 10];

/// One teehistorian message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Message<'a> {
    /// A player's position changed by (dx, dy). The message id is the cid.
    PlayerDiff {
        /// The client id.
        cid: i32,
        /// Change of x.
        dx: i32,
        /// Change of y.
        dy: i32,
    },
    /// The end of the recording.
    Finish,
    /// `dt` ticks without records: the next tick is the last tick + dt + 1.
    TickSkip {
        /// Ticks skipped.
        dt: i32,
    },
    /// A character appeared at (x, y).
    PlayerNew {
        /// The client id.
        cid: i32,
        /// Position x.
        x: i32,
        /// Position y.
        y: i32,
    },
    /// A character disappeared.
    PlayerOld {
        /// The client id.
        cid: i32,
    },
    /// Input changed by `dinput` (wrapping, component-wise).
    InputDiff {
        /// The client id.
        cid: i32,
        /// The change of each of the ten ints.
        dinput: Input,
    },
    /// First input of a player object.
    InputNew {
        /// The client id.
        cid: i32,
        /// The ten ints.
        input: Input,
    },
    /// A game message as received (msg id with sys bit, then body).
    #[serde(rename = "message")]
    NetMessage {
        /// The client id.
        cid: i32,
        /// The message's bytes.
        data: Blob<'a>,
    },
    /// A client joined (engine level).
    Join {
        /// The client id.
        cid: i32,
    },
    /// A client left or was dropped.
    Drop {
        /// The client id.
        cid: i32,
        /// Why, as the server said.
        reason: Text<'a>,
    },
    /// A console command, with its parsed arguments.
    ConsoleCommand(Box<ConsoleCommand<'a>>),
    /// An extension record.
    #[serde(untagged)]
    Ex(Box<ExMessage<'a>>),
}

/// A console command executed by a client (or the server, cid -1; the game,
/// -2; no game, -3). Boxed in [`Message`]: rare and large, so the common
/// messages stay small.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ConsoleCommand<'a> {
    /// Who ran it.
    pub cid: i32,
    /// `CFGFLAG_*` bits, e.g. 128 for a chat command, 4 for rcon.
    pub flags: i32,
    /// The command's name.
    pub cmd: Text<'a>,
    /// Its arguments, as parsed.
    pub args: Vec<Text<'a>>,
}

/// An EX record: the decoded extension plus any payload bytes after its
/// known fields (kept so the record re-encodes exactly).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ExMessage<'a> {
    /// The extension.
    #[serde(flatten)]
    pub ex: Ex<'a>,
    /// Payload bytes after the extension's fields (DDNet writes none).
    #[serde(skip_serializing_if = "<[u8]>::is_empty")]
    pub trailing: Blob<'a>,
}

impl<'a> From<Ex<'a>> for Message<'a> {
    fn from(ex: Ex<'a>) -> Self {
        Message::Ex(Box::new(ExMessage {
            ex,
            trailing: Blob::default(),
        }))
    }
}

impl<'a> From<ConsoleCommand<'a>> for Message<'a> {
    fn from(cmd: ConsoleCommand<'a>) -> Self {
        Message::ConsoleCommand(Box::new(cmd))
    }
}

/// The name a message field is read under (`"teehistorian.join.cid"`): the
/// context of the field types' [`Codec`], named in their decode errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Field(pub(crate) &'static str);

/// A varint.
impl<'a> Codec<'a, Field> for i32 {
    #[inline(always)]
    fn decode(r: &mut Reader<'a>, Field(context): Field) -> Result<Self, DecodeError> {
        read_int(r, context)
    }
    #[inline(always)]
    fn encode(&self, out: &mut Vec<u8>, _: Field) {
        write_int(out, *self)
    }
}

/// 16 raw bytes.
impl<'a> Codec<'a, Field> for Uuid {
    fn decode(r: &mut Reader<'a>, Field(context): Field) -> Result<Self, DecodeError> {
        read_uuid(r, context)
    }
    fn encode(&self, out: &mut Vec<u8>, _: Field) {
        out.extend_from_slice(self.as_bytes())
    }
}

/// A NUL-terminated string.
impl<'a> Codec<'a, Field> for Text<'a> {
    fn decode(r: &mut Reader<'a>, Field(context): Field) -> Result<Self, DecodeError> {
        read_str(r, context).map(Text::from)
    }
    fn encode(&self, out: &mut Vec<u8>, _: Field) {
        write_str(out, self)
    }
}

/// An opaque payload: everything up to the end of the enclosing body.
impl<'a> Codec<'a, Field> for Blob<'a> {
    fn decode(r: &mut Reader<'a>, _: Field) -> Result<Self, DecodeError> {
        Ok(Blob::from(r.rest()))
    }
    fn encode(&self, out: &mut Vec<u8>, _: Field) {
        out.extend_from_slice(self)
    }
}

/// Ten varints.
impl<'a> Codec<'a, Field> for Input {
    #[inline(always)]
    fn decode(r: &mut Reader<'a>, Field(context): Field) -> Result<Self, DecodeError> {
        // Input diffs are mostly ten one-byte ints: decode them at once.
        if let Some(bytes) = r.peek_array::<10>()
            && bytes.iter().all(|b| b & 0x80 == 0)
        {
            r.skip_peeked(10);
            let mut input = [0; 10];
            for (v, &b) in input.iter_mut().zip(bytes) {
                *v = crate::packer::one_byte_int(b);
            }
            return Ok(input);
        }
        let mut input = [0; 10];
        for v in &mut input {
            *v = read_int(r, context)?;
        }
        Ok(input)
    }
    fn encode(&self, out: &mut Vec<u8>, _: Field) {
        for v in self {
            write_int(out, *v);
        }
    }
}

/// A counted list of strings (console arguments).
impl<'a> Codec<'a, Field> for Vec<Text<'a>> {
    fn decode(r: &mut Reader<'a>, field: Field) -> Result<Self, DecodeError> {
        // Every argument takes at least its NUL byte, so the count is bounded
        // by the record limit; nothing is allocated up front from it.
        let n = read_len(r, MAX_RECORD_LEN, field.0)?;
        let mut args = Vec::with_capacity(n.min(16));
        for _ in 0..n {
            args.push(Text::decode(r, field)?);
        }
        Ok(args)
    }
    fn encode(&self, out: &mut Vec<u8>, field: Field) {
        write_int(out, self.len() as i32);
        for a in self {
            a.encode(out, field);
        }
    }
}

/// Declares the known extensions once: name, variant and fields. Generates
/// the `Ex` enum, its decoder and its encoder.
macro_rules! extensions {
    ($( $(#[$doc:meta])* $variant:ident = $name:literal { $($(#[$fdoc:meta])* $field:ident : $ty:ty),* } )*) => {
        /// An extension message (EX record payload).
        #[non_exhaustive]
        #[derive(Clone, Debug, PartialEq, Eq, Serialize)]
        #[serde(tag = "kind", rename_all = "snake_case")]
        pub enum Ex<'a> {
            $( $(#[$doc])* $variant { $($(#[$fdoc])* $field: $ty),* }, )*
            /// An extension this crate does not know, kept as it was.
            UnknownEx {
                /// The extension's UUID.
                uuid: Uuid,
                /// Its payload.
                data: Blob<'a>,
            },
        }

        /// The known extension kinds, in DDNet's registration order.
        #[non_exhaustive]
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum ExKind { $($(#[$doc])* $variant),* }

        /// Number of known extension kinds.
        const EX_KINDS: usize = [$($name),*].len();

        impl ExKind {
            /// Every known kind.
            pub const ALL: &'static [ExKind] = &[$(ExKind::$variant),*];

            /// DDNet's name, e.g. `"teehistorian-player-name@ddnet.org"`.
            pub fn name(self) -> &'static str {
                match self { $(ExKind::$variant => $name),* }
            }
        }

        impl<'a> Ex<'a> {
            /// The kind, or `None` for an unknown extension.
            pub fn kind(&self) -> Option<ExKind> {
                match self {
                    $(Ex::$variant { .. } => Some(ExKind::$variant),)*
                    Ex::UnknownEx { .. } => None,
                }
            }

            fn decode_fields(kind: ExKind, r: &mut Reader<'a>) -> Result<Self, DecodeError> {
                Ok(match kind {
                    $(ExKind::$variant => Ex::$variant {
                        $($field: Codec::decode(r, Field(concat!("teehistorian.ex.", $name, ".", stringify!($field))))?,)*
                    },)*
                })
            }

            fn encode_fields(&self, out: &mut Vec<u8>) {
                match self {
                    $(Ex::$variant { $($field),* } => { $(Codec::encode($field, out, Field(""));)* })*
                    Ex::UnknownEx { data, .. } => out.extend_from_slice(data),
                }
            }
        }
    };
}

extensions! {
    /// Test record (DDNet's unit tests only).
    Test = "teehistorian-test@ddnet.tw" {}
    /// Version of a client that never sent `clientver@ddnet.tw`.
    DdnetverOld = "teehistorian-ddnetver-old@ddnet.tw" {
        /// The client id.
        cid: i32,
        /// Its DDNet version number.
        version: i32
    }
    /// A client's DDNet version and connection id.
    Ddnetver = "teehistorian-ddnetver@ddnet.tw" {
        /// The client id.
        cid: i32,
        /// The connection's id.
        connection_id: Uuid,
        /// The DDNet version number (e.g. 20010).
        version: i32,
        /// The version as text.
        version_str: Text<'a>
    }
    /// rcon access held since the map start (no longer written by 20.x).
    AuthInit = "teehistorian-auth-init@ddnet.tw" {
        /// The client id.
        cid: i32,
        /// The access level.
        level: i32,
        /// The account's name.
        auth_name: Text<'a>
    }
    /// rcon login.
    AuthLogin = "teehistorian-auth-login@ddnet.tw" {
        /// The client id.
        cid: i32,
        /// The access level.
        level: i32,
        /// The account's name.
        auth_name: Text<'a>
    }
    /// rcon logout.
    AuthLogout = "teehistorian-auth-logout@ddnet.tw" {
        /// The client id.
        cid: i32
    }
    /// The client joining next speaks 0.6.
    Joinver6 = "teehistorian-joinver6@ddnet.tw" {
        /// The client id.
        cid: i32
    }
    /// The client joining next speaks 0.7.
    Joinver7 = "teehistorian-joinver7@ddnet.tw" {
        /// The client id.
        cid: i32
    }
    /// Two players swapped tees (PLAYER_SWITCH in DDNet's code).
    PlayerSwap = "teehistorian-player-swap@ddnet.tw" {
        /// One client id.
        cid1: i32,
        /// The other.
        cid2: i32
    }
    /// A team was saved.
    SaveSuccess = "teehistorian-save-success@ddnet.tw" {
        /// The team.
        team: i32,
        /// The save's id.
        save_id: Uuid,
        /// The save, as DDNet's text.
        save: Text<'a>
    }
    /// A team save failed.
    SaveFailure = "teehistorian-save-failure@ddnet.tw" {
        /// The team.
        team: i32
    }
    /// A team was loaded.
    LoadSuccess = "teehistorian-load-success@ddnet.tw" {
        /// The team.
        team: i32,
        /// The save's id.
        save_id: Uuid,
        /// The save, as DDNet's text.
        save: Text<'a>
    }
    /// A team load failed.
    LoadFailure = "teehistorian-load-failure@ddnet.tw" {
        /// The team.
        team: i32
    }
    /// A player's team changed (written only on change; initial team 0).
    PlayerTeam = "teehistorian-player-team@ddnet.tw" {
        /// The client id.
        cid: i32,
        /// The new team.
        team: i32
    }
    /// A team entered or left practice mode.
    TeamPractice = "teehistorian-team-practice@ddnet.tw" {
        /// The team.
        team: i32,
        /// 1 in practice mode, 0 not.
        practice: i32
    }
    /// A client said it is ready to join the game.
    PlayerReady = "teehistorian-player-ready@ddnet.tw" {
        /// The client id.
        cid: i32
    }
    /// A 0.6 client rejoined (note the .org domain).
    Rejoinver6 = "teehistorian-rejoinver6@ddnet.org" {
        /// The client id.
        cid: i32
    }
    /// Opaque data from the antibot module.
    Antibot = "teehistorian-antibot@ddnet.org" {
        /// The data.
        data: Blob<'a>
    }
    /// A player's server-side name was set or changed.
    PlayerName = "teehistorian-player-name@ddnet.org" {
        /// The client id.
        cid: i32,
        /// The name.
        name: Text<'a>
    }
    /// A player finished, in ticks.
    PlayerFinish = "teehistorian-player-finish@ddnet.org" {
        /// The client id.
        cid: i32,
        /// The time, in ticks.
        time: i32
    }
    /// A team finished, in ticks.
    TeamFinish = "teehistorian-team-finish@ddnet.org" {
        /// The team.
        team: i32,
        /// The time, in ticks.
        time: i32
    }
}

/// UUIDs of the known extensions, computed from their names.
static EX_UUIDS: LazyLock<Vec<(Uuid, ExKind)>> = LazyLock::new(|| {
    ExKind::ALL
        .iter()
        .map(|&k| (calculate_uuid(k.name()), k))
        .collect()
});

impl ExKind {
    /// The kind registered under `uuid`, if any.
    pub fn from_uuid(uuid: &Uuid) -> Option<ExKind> {
        EX_UUIDS.iter().find(|(u, _)| u == uuid).map(|&(_, k)| k)
    }

    /// The extension's UUID (v3 in the Teeworlds namespace).
    pub fn uuid(self) -> Uuid {
        EX_UUIDS[self as usize].0
    }
}

impl Ex<'_> {
    /// The UUID the record carries.
    pub fn uuid(&self) -> Uuid {
        match self {
            Ex::UnknownEx { uuid, .. } => *uuid,
            known => known.kind().map_or(Uuid::nil(), ExKind::uuid),
        }
    }
}

impl Message<'_> {
    /// Number of distinct kinds: the 11 base messages, the known
    /// extensions, and unknown extensions.
    pub const KINDS: usize = 11 + EX_KINDS + 1;

    /// A dense index of the message's kind, `0..Message::KINDS`, for
    /// counting without hashing; [`Message::kind_name_of`] names it.
    #[inline]
    pub fn kind_index(&self) -> usize {
        if let Message::Ex(m) = self {
            return 11 + m.ex.kind().map_or(EX_KINDS, |k| k as usize);
        }
        // Constants only: a table lookup, not a jump, so player and input
        // records in turn cost no mispredicted branch here.
        match self {
            Message::PlayerDiff { .. } => 0,
            Message::Finish => 1,
            Message::TickSkip { .. } => 2,
            Message::PlayerNew { .. } => 3,
            Message::PlayerOld { .. } => 4,
            Message::InputDiff { .. } => 5,
            Message::InputNew { .. } => 6,
            Message::NetMessage { .. } => 7,
            Message::Join { .. } => 8,
            Message::Drop { .. } => 9,
            Message::ConsoleCommand { .. } => 10,
            Message::Ex(_) => 11,
        }
    }

    /// The snake_case kind used in dumps (`player_diff`, `player_name`,
    /// `unknown_ex`, ...).
    pub fn kind_name(&self) -> &'static str {
        Message::kind_name_of(self.kind_index())
    }

    /// The name of a [`Message::kind_index`].
    pub fn kind_name_of(index: usize) -> &'static str {
        const BASE: [&str; 11] = [
            "player_diff",
            "finish",
            "tick_skip",
            "player_new",
            "player_old",
            "input_diff",
            "input_new",
            "message",
            "join",
            "drop",
            "console_command",
        ];
        match index {
            0..11 => BASE[index],
            _ => ExKind::ALL
                .get(index - 11)
                .map_or("unknown_ex", |k| k.kind_name()),
        }
    }

    /// The client ids the message is about (team-only records have none).
    pub fn cids(&self) -> [Option<i32>; 2] {
        match self {
            Message::PlayerDiff { cid, .. }
            | Message::PlayerNew { cid, .. }
            | Message::PlayerOld { cid }
            | Message::InputDiff { cid, .. }
            | Message::InputNew { cid, .. }
            | Message::NetMessage { cid, .. }
            | Message::Join { cid }
            | Message::Drop { cid, .. } => [Some(*cid), None],
            Message::ConsoleCommand(c) => [Some(c.cid), None],
            Message::Ex(m) => match &m.ex {
                Ex::PlayerSwap { cid1, cid2 } => [Some(*cid1), Some(*cid2)],
                Ex::DdnetverOld { cid, .. }
                | Ex::Ddnetver { cid, .. }
                | Ex::AuthInit { cid, .. }
                | Ex::AuthLogin { cid, .. }
                | Ex::AuthLogout { cid }
                | Ex::Joinver6 { cid }
                | Ex::Joinver7 { cid }
                | Ex::PlayerTeam { cid, .. }
                | Ex::PlayerReady { cid }
                | Ex::Rejoinver6 { cid }
                | Ex::PlayerName { cid, .. }
                | Ex::PlayerFinish { cid, .. } => [Some(*cid), None],
                _ => [None, None],
            },
            Message::Finish | Message::TickSkip { .. } => [None, None],
        }
    }

    /// The client id a player record (PLAYER_DIFF/NEW/OLD) is about; these
    /// are the records that drive the implicit tick.
    #[inline]
    pub fn player_record_cid(&self) -> Option<i32> {
        match *self {
            Message::PlayerDiff { cid, .. }
            | Message::PlayerNew { cid, .. }
            | Message::PlayerOld { cid } => Some(cid),
            _ => None,
        }
    }
}

impl ExKind {
    /// The dump kind: DDNet's name without `teehistorian-` and the domain,
    /// with `-` as `_`.
    pub fn kind_name(self) -> &'static str {
        static NAMES: LazyLock<Vec<String>> = LazyLock::new(|| {
            ExKind::ALL
                .iter()
                .map(|k| {
                    let name = k.name();
                    let bare = name.strip_prefix("teehistorian-").unwrap_or(name);
                    bare.split('@').next().unwrap_or(bare).replace('-', "_")
                })
                .collect()
        });
        &NAMES[self as usize]
    }
}

/// How many common records [`Message::mixes`] looks at.
const LOOK_RECORDS: usize = 256;

/// Whether the ints of the common records ahead mix one- and two-byte
/// forms ([`Message::mixes`]), so that a branch on an int's length would
/// mispredict often: they are then read without one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Mixes {
    /// INPUT_DIFFs' aims: [`Message::decode_common`]'s `aims_mix`.
    pub(crate) aims: bool,
    /// PLAYER_DIFFs' moves: the counting loop places them by a block's
    /// continuation bits ([`MoveLengths`]).
    pub(crate) moves: bool,
}

/// Where the PLAYER_DIFFs in a block of bytes end, from the block's
/// continuation bits (the top bit of each byte) gathered once for all of
/// it: a record's length is then two bit tests at its place, so the next
/// record's place does not wait on loading this one's bytes (where moves
/// of one and two bytes mix at random, that wait or a mispredicted branch
/// on the length was most of a record's time).
#[derive(Clone, Copy, Debug)]
pub(crate) struct MoveLengths {
    /// Bit `i`: a record at `i` has a long int (byte `i + 1` or `i + 2`
    /// continues).
    one_long: u64,
    /// Bit `i`: it has two (bytes `i + 1` and `i + 3` continue).
    two_long: u64,
}

impl MoveLengths {
    /// Bytes of a block whose continuation bits are gathered.
    pub(crate) const BLOCK: usize = 64;
    /// Records are read from a block where they start before this, so the
    /// eight bytes [`MoveLengths::player_diff`] reads are in the block.
    pub(crate) const STARTS: usize = Self::BLOCK - 8;
    /// The bytes a block's slice holds: after every place a record starts
    /// at, at least the longest common record (23 bytes), so
    /// [`Message::decode_common`] reads there what it reads in the input.
    pub(crate) const SPAN: usize = Self::STARTS + 40;

    /// The lengths for the block at the start of `span`.
    #[inline(always)]
    pub(crate) fn of(span: &[u8; Self::SPAN]) -> Self {
        let mut continues = 0;
        for (i, word) in span[..Self::BLOCK].as_chunks::<8>().0.iter().enumerate() {
            continues |= top_bits(u64::from_le_bytes(*word)) << (8 * i);
        }
        // dx at byte 1, dy after it; a valid long dx's second byte (2)
        // ends it, so dy is long where byte 2 or, after a long dx, byte 3
        // continues (as `player_move`).
        MoveLengths {
            one_long: continues >> 1 | continues >> 2,
            two_long: continues >> 1 & continues >> 3,
        }
    }

    /// The PLAYER_DIFF at `at` (below [`MoveLengths::STARTS`]) of `span`,
    /// the block these lengths are of: its cid and length, if its moves take
    /// one or two canonical bytes each. `None` for any other record and
    /// for some such ones ([`Message::decode_common`] then reads it): a
    /// byte of the three after the cid that continues must be followed by
    /// one of 1 to 0x7F (which ends the int and is not 0), a test of all
    /// three at once that may see the next record's first byte.
    #[inline(always)]
    pub(crate) fn player_diff(&self, span: &[u8; Self::SPAN], at: usize) -> Option<(i32, usize)> {
        let x = u64::from_le_bytes(*span.get(at..)?.first_chunk::<8>()?);
        let cid = x as u8;
        let continues = x & 0x8080_8000;
        // Bytes 1 to 0x7F, the top bit of each: for the byte after each.
        let next = x >> 8;
        let ends = ((next & 0x7F7F_7F7F_7F7F_7F7F) + 0x7F7F_7F7F_7F7F_7F7F) & !next;
        if cid >= 0x40 || continues & !ends != 0 {
            return None;
        }
        let len = 3 + (self.one_long >> at & 1) + (self.two_long >> at & 1);
        Some((i32::from(cid), len as usize))
    }
}

/// The top bit of each byte of `x` (little endian), byte `i`'s as bit `i`.
#[inline(always)]
fn top_bits(x: u64) -> u64 {
    ((x & 0x8080_8080_8080_8080) >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// The canonical int of one or two bytes at `buf[at..]`: its value and
/// length; `None` for anything else (longer, over-long, or past the end).
#[inline(always)]
fn short_int(buf: &[u8], at: usize) -> Option<(i32, usize)> {
    let b0 = *buf.get(at)?;
    if b0 & 0x80 == 0 {
        return Some((crate::packer::one_byte_int(b0), 1));
    }
    let b1 = *buf.get(at + 1)?;
    // A second byte of 0 is over-long (one byte holds the value); a third
    // byte is for the general reader.
    if b1 & 0x80 != 0 || b1 == 0 {
        return None;
    }
    let sign = ((b0 >> 6) & 1) as i32;
    Some((
        ((b0 & 0x3F) as i32 | (b1 as i32) << 6) ^ sign.wrapping_neg(),
        2,
    ))
}

/// A PLAYER_DIFF's moves from the record's first eight bytes `x` (little
/// endian; byte 0 the cid): its length and dx, dy, if both take one or two
/// canonical bytes (what [`short_int`] reads, without a branch on which).
#[inline(always)]
fn player_move(x: u64) -> Option<(usize, i32, i32)> {
    let byte = |at: u64| (x >> (8 * at)) as u8;
    let continues = |at: u64| x >> (8 * at + 7) & 1;
    // dx at byte 1, dy after it. A long dx's second byte (2) ends it, so
    // dy is long where byte 2 continues or, after a long dx, byte 3 does
    // (the test below rejects the rest): the record's length waits on one
    // load and a few bit tests, not on a shift by where dy is.
    let long_dx = continues(1);
    let long_dy = continues(2) | (long_dx & continues(3));
    let dy_at = 2 + long_dx;
    // `&` not `&&`: both are computed anyway.
    let ends = ends_two_byte_int;
    if !((long_dx == 0 || ends(byte(2))) & (long_dy == 0 || ends(byte(dy_at + 1)))) {
        return None;
    }
    let int = |at: u64, long: u64| short_int_of(byte(at), byte(at + 1), long as u32);
    let len = 3 + long_dx + long_dy;
    Some((len as usize, int(1, long_dx), int(dy_at, long_dy)))
}

/// Whether `second`, a two-byte int's second byte, ends it (no third
/// byte) and is not 0 (which would make the int over-long).
#[inline(always)]
fn ends_two_byte_int(second: u8) -> bool {
    second & 0x80 == 0 && second != 0
}

/// The int whose first byte is `b0`, and `b1` its second where `long`
/// (0 or 1) says it has one: [`short_int`]'s value, without a branch.
#[inline(always)]
fn short_int_of(b0: u8, b1: u8, long: u32) -> i32 {
    let sign = i32::from((b0 >> 6) & 1);
    let high = (i32::from(b1) << 6) * long as i32;
    (i32::from(b0 & 0x3F) | high) ^ -sign
}

/// An INPUT_DIFF from the record's first 16 bytes (byte 0 the id): its
/// cid, ints and length, if the aim (target x and y) takes one or two
/// canonical bytes and every other int one, as in most records of a file
/// and where players aim far (the `churn` mix: a 12-, 13- or 14-byte record
/// at random, so a branch on the aim's length mispredicts about once a
/// record): without a branch on which. The length is the count of the
/// aim's continuation bits (bytes 3 to 5), so the next record's place
/// waits on one load and three bit tests.
#[inline(always)]
fn aimed_input(bytes: &[u8; 16]) -> Option<(i32, Input, usize)> {
    use crate::packer::one_byte_int;
    let lo = u64::from_le_bytes(*bytes.first_chunk::<8>()?);
    let byte = |at: usize| (lo >> (8 * at)) as u8;
    let long = |at: usize| usize::from(byte(at) >> 7);
    // The cid at byte 1, the direction at 2, the aim from 3, the rest
    // after. A long x's second byte (4) ends it, and a short y (at 4) is
    // followed by a one-byte int (5): so y is long where byte 4 continues
    // or, after a long x, byte 5 does (the tests below reject the rest).
    let long_x = long(3);
    let long_y = long(4) | (long_x & long(5));
    let y_at = 4 + long_x;
    let rest_at = y_at + 1 + long_y;
    // The other seven ints, from the byte at `rest_at` (at most 7).
    let rest = u64::from_le_bytes(*bytes[rest_at & 7..].first_chunk::<8>()?);
    let rest = rest & 0x00FF_FFFF_FFFF_FFFF;
    let short = (byte(1) | byte(2)) & 0x80 == 0 && rest & 0x8080_8080_8080_8080 == 0;
    let ends = ends_two_byte_int;
    if !(short & (long_x == 0 || ends(byte(4))) & (long_y == 0 || ends(byte(y_at + 1)))) {
        return None;
    }
    let mut dinput = [0; 10];
    dinput[0] = one_byte_int(byte(2));
    dinput[1] = short_int_of(byte(3), byte(4), long_x as u32);
    dinput[2] = short_int_of(byte(y_at), byte(y_at + 1), long_y as u32);
    for (v, b) in dinput[3..].iter_mut().zip(one_byte_ints(rest)) {
        *v = i32::from(b);
    }
    Some((one_byte_int(byte(1)), dinput, 12 + long_x + long_y))
}

/// An INPUT_DIFF of one-byte ints from its 12 bytes (byte 0 the id): its
/// cid and ints, all checked at once.
#[inline(always)]
fn one_byte_input(bytes: &[u8; 12]) -> Option<(i32, Input)> {
    let lo = u64::from_le_bytes(*bytes.first_chunk::<8>()?);
    let hi = u32::from_le_bytes(*bytes.last_chunk::<4>()?);
    if (lo | u64::from(hi)) & 0x8080_8080_8080_8080 != 0 {
        return None;
    }
    let (lo, hi) = (one_byte_ints(lo), one_byte_ints(u64::from(hi)));
    let int = |i: usize| i32::from(if i < 8 { lo[i] } else { hi[i - 8] });
    // The cid alone where the ints are not used (`stats`).
    Some((int(1), std::array::from_fn(|i| int(2 + i))))
}

/// The eight one-byte ints of `x` (little endian) at once, each as an
/// `i8`: its six low bits, flipped where its sign bit (0x40) is set, as
/// [`crate::packer::one_byte_int`] does one byte at a time (one by one,
/// an INPUT_DIFF's ints cost `check` a fifth of its instructions).
#[inline(always)]
fn one_byte_ints(x: u64) -> [i8; 8] {
    const LOW: u64 = 0x3F3F_3F3F_3F3F_3F3F;
    const SIGN: u64 = 0x0101_0101_0101_0101;
    ((x & LOW) ^ ((x >> 6 & SIGN) * 0xFF))
        .to_le_bytes()
        .map(|b| b as i8)
}

impl<'a> Message<'a> {
    /// True for the variants that may own heap data.
    #[inline(always)]
    fn may_own(&self) -> bool {
        matches!(
            self,
            Message::NetMessage { .. }
                | Message::Drop { .. }
                | Message::ConsoleCommand(_)
                | Message::Ex(_)
        )
    }

    /// Takes the message out of `slot`, leaving FINISH, and drops it. The
    /// common variants own nothing: for them this skips the (out-of-line)
    /// drop glue, which otherwise dominates the decode loop.
    #[inline(always)]
    pub(crate) fn clear(slot: &mut Message<'a>) {
        let old = std::mem::replace(slot, Message::Finish);
        if old.may_own() {
            drop(old);
        } else {
            std::mem::forget(old);
        }
    }

    /// The record at the start of `buf` and its length, if it is a
    /// PLAYER_DIFF (cid below 64) or an INPUT_DIFF whose ints all take one
    /// or two canonical bytes, as most records of a file are; `None` for
    /// anything else, which [`Message::decode_into`] then reads (the same
    /// message, as the tests check). The bytes it reads are the ones
    /// [`Codec::encode`] writes for the message (a property test holds the
    /// two to that), which lets `check` skip their re-encoding. An
    /// INPUT_DIFF's ints are checked all at once, not one int after the
    /// other; `aims_mix` ([`Mixes::aims`]) only says which way is
    /// tried first, not what is read.
    #[inline(always)]
    pub(crate) fn decode_common(buf: &'a [u8], aims_mix: bool) -> Option<(Message<'a>, usize)> {
        use crate::packer::one_byte_int;
        let &[b0, b1, b2, ..] = buf else {
            return None;
        };
        if b0 < 0x40 {
            // A one-byte id of 0..64 is a PLAYER_DIFF's cid.
            let cid = i32::from(b0);
            if (b1 | b2) & 0x80 == 0 {
                let (dx, dy) = (one_byte_int(b1), one_byte_int(b2));
                return Some((Message::PlayerDiff { cid, dx, dy }, 3));
            }
            // A fast player's move: an int of two bytes. Where one- and
            // two-byte moves mix at random, a branch on each int's length
            // mispredicts about once a record, so the lengths are read
            // from one word without one.
            if let Some(&word) = buf.first_chunk::<8>() {
                let (len, dx, dy) = player_move(u64::from_le_bytes(word))?;
                return Some((Message::PlayerDiff { cid, dx, dy }, len));
            }
            let (dx, n) = short_int(buf, 1)?;
            let (dy, m) = short_int(buf, 1 + n)?;
            return Some((Message::PlayerDiff { cid, dx, dy }, 1 + n + m));
        }
        // INPUT_DIFF's id (-5) in one byte, then the cid and ten ints.
        if b0 != 0x44 {
            return None;
        }
        // Where aims seldom take two bytes, the test for one-byte ints
        // first: it predicts, and the record's length is then a constant
        // the core need not wait on. Where they mix, it would mispredict
        // about once a record.
        if !aims_mix
            && let Some(bytes) = buf.first_chunk::<12>()
            && let Some((cid, dinput)) = one_byte_input(bytes)
        {
            return Some((Message::InputDiff { cid, dinput }, 12));
        }
        // An aim of one or two bytes, without a branch on which.
        if let Some(bytes) = buf.first_chunk::<16>()
            && let Some((cid, dinput, len)) = aimed_input(bytes)
        {
            return Some((Message::InputDiff { cid, dinput }, len));
        }
        // Near the input's end, or other ints of two bytes: one after the
        // other.
        let (cid, n) = short_int(buf, 1)?;
        let mut at = 1 + n;
        let mut dinput = [0; 10];
        for v in &mut dinput {
            let (value, n) = short_int(buf, at)?;
            (*v, at) = (value, at + n);
        }
        Some((Message::InputDiff { cid, dinput }, at))
    }

    /// How the common records at the start of `buf` are shaped, from the
    /// first [`LOOK_RECORDS`] of them: their aims mix where more than a
    /// quarter of the INPUT_DIFFs take a long aim, their moves where more
    /// than a sixth of the PLAYER_DIFFs take a long move (each as `was`
    /// where there are none). Only speed depends on it, not what is read.
    pub(crate) fn mixes(buf: &[u8], was: Mixes) -> Mixes {
        let (mut inputs, mut long_aims, mut moves, mut long_moves) = (0, 0, 0, 0);
        let mut pos = 0;
        for _ in 0..LOOK_RECORDS {
            let Some((msg, len)) = Message::decode_common(&buf[pos..], was.aims) else {
                break;
            };
            if let Message::InputDiff { .. } = msg {
                inputs += 1;
                long_aims += usize::from(len > 12);
            } else {
                moves += 1;
                long_moves += usize::from(len > 3);
            }
            pos += len;
        }
        Mixes {
            aims: match inputs {
                0 => was.aims,
                _ => 4 * long_aims > inputs,
            },
            moves: match moves {
                0 => was.moves,
                _ => 6 * long_moves > moves,
            },
        }
    }

    /// Decodes one message into `out`, in place: on the hot path this avoids
    /// building the message in a temporary and copying it.
    #[inline(always)]
    pub(crate) fn decode_into(
        r: &mut Reader<'a>,
        out: &mut Message<'a>,
    ) -> Result<(), DecodeError> {
        Message::clear(out);
        let at = r.offset();
        let msg_id = read_int(r, "teehistorian.message_id")?;
        // `out` holds FINISH now; `put` overwrites it without drop glue.
        let put = |out: &mut Message<'a>, msg| std::mem::forget(std::mem::replace(out, msg));
        // Every field goes through its `Codec`, named for errors.
        fn field<'a, T: Codec<'a, Field>>(
            r: &mut Reader<'a>,
            name: &'static str,
        ) -> Result<T, DecodeError> {
            T::decode(r, Field(name))
        }
        if msg_id >= 0 {
            let (dx, dy) = (
                field(r, "teehistorian.player_diff.dx")?,
                field(r, "teehistorian.player_diff.dy")?,
            );
            put(
                out,
                Message::PlayerDiff {
                    cid: msg_id,
                    dx,
                    dy,
                },
            );
            return Ok(());
        }
        match msg_id {
            id::FINISH => put(out, Message::Finish),
            id::TICK_SKIP => put(
                out,
                Message::TickSkip {
                    dt: field(r, "teehistorian.tick_skip.dt")?,
                },
            ),
            id::PLAYER_NEW => put(
                out,
                Message::PlayerNew {
                    cid: field(r, "teehistorian.player_new.cid")?,
                    x: field(r, "teehistorian.player_new.x")?,
                    y: field(r, "teehistorian.player_new.y")?,
                },
            ),
            id::PLAYER_OLD => put(
                out,
                Message::PlayerOld {
                    cid: field(r, "teehistorian.player_old.cid")?,
                },
            ),
            id::INPUT_DIFF => put(
                out,
                Message::InputDiff {
                    cid: field(r, "teehistorian.input_diff.cid")?,
                    dinput: field(r, "teehistorian.input_diff.dinput")?,
                },
            ),
            id::INPUT_NEW => put(
                out,
                Message::InputNew {
                    cid: field(r, "teehistorian.input_new.cid")?,
                    input: field(r, "teehistorian.input_new.input")?,
                },
            ),
            id::MESSAGE => {
                let cid = field(r, "teehistorian.message.cid")?;
                let len = read_len(r, MAX_RECORD_LEN, "teehistorian.message.msg_size")?;
                let data = r.take(len, "teehistorian.message.msg")?;
                put(
                    out,
                    Message::NetMessage {
                        cid,
                        data: Blob::from(data),
                    },
                );
            }
            id::JOIN => put(
                out,
                Message::Join {
                    cid: field(r, "teehistorian.join.cid")?,
                },
            ),
            id::DROP => put(
                out,
                Message::Drop {
                    cid: field(r, "teehistorian.drop.cid")?,
                    reason: field(r, "teehistorian.drop.reason")?,
                },
            ),
            id::CONSOLE_COMMAND => put(
                out,
                Message::ConsoleCommand(Box::new(ConsoleCommand::decode(r, ())?)),
            ),
            id::EX => put(out, Message::Ex(Box::new(ExMessage::decode(r, ())?))),
            unknown => {
                return Err(DecodeError::new(
                    at,
                    "teehistorian.message_id",
                    ErrorKind::UnknownMessageId { id: unknown },
                ));
            }
        }
        Ok(())
    }
}

/// A whole record: the message id (for PLAYER_DIFF, the client id), then
/// the message's fields.
impl<'a> Codec<'a> for Message<'a> {
    #[inline(always)]
    fn decode(r: &mut Reader<'a>, _: ()) -> Result<Self, DecodeError> {
        let mut msg = Message::Finish;
        Message::decode_into(r, &mut msg)?;
        Ok(msg)
    }

    #[inline]
    fn encode(&self, out: &mut Vec<u8>, _: ()) {
        // The fields' encoders do not use the name (it is for errors).
        let f = Field("");
        match self {
            Message::PlayerDiff { cid, dx, dy } => {
                cid.encode(out, f);
                dx.encode(out, f);
                dy.encode(out, f);
            }
            Message::Finish => write_int(out, id::FINISH),
            Message::TickSkip { dt } => {
                write_int(out, id::TICK_SKIP);
                dt.encode(out, f);
            }
            Message::PlayerNew { cid, x, y } => {
                write_int(out, id::PLAYER_NEW);
                cid.encode(out, f);
                x.encode(out, f);
                y.encode(out, f);
            }
            Message::PlayerOld { cid } => {
                write_int(out, id::PLAYER_OLD);
                cid.encode(out, f);
            }
            Message::InputDiff { cid, dinput } => {
                write_int(out, id::INPUT_DIFF);
                cid.encode(out, f);
                dinput.encode(out, f);
            }
            Message::InputNew { cid, input } => {
                write_int(out, id::INPUT_NEW);
                cid.encode(out, f);
                input.encode(out, f);
            }
            Message::NetMessage { cid, data } => {
                write_int(out, id::MESSAGE);
                cid.encode(out, f);
                write_int(out, data.len() as i32);
                data.encode(out, f);
            }
            Message::Join { cid } => {
                write_int(out, id::JOIN);
                cid.encode(out, f);
            }
            Message::Drop { cid, reason } => {
                write_int(out, id::DROP);
                cid.encode(out, f);
                reason.encode(out, f);
            }
            Message::ConsoleCommand(c) => {
                write_int(out, id::CONSOLE_COMMAND);
                c.encode(out, ());
            }
            Message::Ex(ex) => {
                write_int(out, id::EX);
                ex.encode(out, ());
            }
        }
    }
}

/// A CONSOLE_COMMAND record after its message id: cid, flags, command,
/// then the counted arguments.
impl<'a> Codec<'a> for ConsoleCommand<'a> {
    fn decode(r: &mut Reader<'a>, _: ()) -> Result<Self, DecodeError> {
        Ok(ConsoleCommand {
            cid: i32::decode(r, Field("teehistorian.console_command.cid"))?,
            flags: i32::decode(r, Field("teehistorian.console_command.flags"))?,
            cmd: Text::decode(r, Field("teehistorian.console_command.cmd"))?,
            args: Vec::decode(r, Field("teehistorian.console_command.args"))?,
        })
    }

    fn encode(&self, out: &mut Vec<u8>, _: ()) {
        let f = Field("");
        self.cid.encode(out, f);
        self.flags.encode(out, f);
        self.cmd.encode(out, f);
        self.args.encode(out, f);
    }
}

/// An EX record after its message id: UUID, payload size, payload (the
/// extension's fields, then any bytes after them).
impl<'a> Codec<'a> for ExMessage<'a> {
    fn decode(r: &mut Reader<'a>, _: ()) -> Result<Self, DecodeError> {
        let uuid = read_uuid(r, "teehistorian.ex.uuid")?;
        let size = read_len(r, MAX_RECORD_LEN, "teehistorian.ex.size")?;
        let (ex, trailing) = r.limited(
            size,
            "teehistorian.ex.payload",
            |r| match ExKind::from_uuid(&uuid) {
                Some(kind) => Ex::decode_fields(kind, r),
                None => Ok(Ex::UnknownEx {
                    uuid,
                    data: Blob::from(r.rest()),
                }),
            },
        )?;
        Ok(ExMessage {
            ex,
            trailing: Blob::from(trailing),
        })
    }

    fn encode(&self, out: &mut Vec<u8>, _: ()) {
        out.extend_from_slice(self.ex.uuid().as_bytes());
        // The size goes before the payload but is known only after it:
        // write the payload, append the size, and rotate it into place.
        let start = out.len();
        self.ex.encode_fields(out);
        out.extend_from_slice(&self.trailing);
        let size = out.len() - start;
        write_int(out, size as i32);
        let size_len = out.len() - start - size;
        out[start..].rotate_right(size_len);
    }
}
