//! Deterministic, sans-IO replay of a teehistorian stream into world state.
//!
//! [`Replay::handle`] consumes decoded messages in order (from any source),
//! keeps the tick with DDNet's rule and updates the [`World`]. Messages that
//! a DDNet writer could not have produced are reported as [`Inconsistency`]
//! with their offset and tick; the caller decides whether to stop. Nothing
//! here reads a clock or iterates a hash map: the same stream always gives
//! the same world.

use super::message::{Ex, Input, Message};
use super::stream::{CommonCids, TickClock, TickError};
use crate::bytes::Text;
use crate::packet::Version;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use uuid::Uuid;

/// Client ids below this live in a dense table; others (hand-made files) in
/// a map, so a huge cid never allocates a huge table.
const DENSE_CIDS: usize = 256;

/// A player's protocol as the world's JSON and RON name it: `six` (JOINVER6
/// or REJOINVER6) or `seven` (JOINVER7), as they always have.
mod protocol_words {
    use crate::packet::Version;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    #[serde(rename = "Protocol", rename_all = "snake_case")]
    enum Word {
        Six,
        Seven,
    }

    pub fn serialize<S: Serializer>(v: &Option<Version>, s: S) -> Result<S::Ok, S::Error> {
        v.map(|v| match v {
            Version::V06 => Word::Six,
            Version::V07 => Word::Seven,
        })
        .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Version>, D::Error> {
        Ok(Option::<Word>::deserialize(d)?.map(|w| match w {
            Word::Six => Version::V06,
            Word::Seven => Version::V07,
        }))
    }
}

/// A player's input, as DDNet's `CNetObj_PlayerInput` names its ten ints
/// (the order of [`Input`] on the wire).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerInput {
    /// -1 left, 0 none, 1 right.
    pub direction: i32,
    /// Aim, relative to the character.
    pub target_x: i32,
    /// Aim, relative to the character.
    pub target_y: i32,
    /// 1 while jump is held.
    pub jump: i32,
    /// Fire presses and releases, counted.
    pub fire: i32,
    /// 1 while the hook is held.
    pub hook: i32,
    /// `PLAYERFLAG_*` bits (chatting, scoreboard, ...).
    pub player_flags: i32,
    /// The weapon the player asks for.
    pub wanted_weapon: i32,
    /// Next-weapon presses, counted.
    pub next_weapon: i32,
    /// Previous-weapon presses, counted.
    pub prev_weapon: i32,
}

impl From<Input> for PlayerInput {
    fn from(i: Input) -> Self {
        let [
            direction,
            target_x,
            target_y,
            jump,
            fire,
            hook,
            player_flags,
            wanted_weapon,
            next_weapon,
            prev_weapon,
        ] = i;
        PlayerInput {
            direction,
            target_x,
            target_y,
            jump,
            fire,
            hook,
            player_flags,
            wanted_weapon,
            next_weapon,
            prev_weapon,
        }
    }
}

impl From<PlayerInput> for Input {
    fn from(p: PlayerInput) -> Self {
        [
            p.direction,
            p.target_x,
            p.target_y,
            p.jump,
            p.fire,
            p.hook,
            p.player_flags,
            p.wanted_weapon,
            p.next_weapon,
            p.prev_weapon,
        ]
    }
}

impl PlayerInput {
    /// The input after an INPUT_DIFF: each int plus its difference,
    /// wrapping as DDNet's ints do.
    #[inline]
    pub fn plus(self, diff: &Input) -> PlayerInput {
        let mut input = Input::from(self);
        for (v, d) in input.iter_mut().zip(diff) {
            *v = v.wrapping_add(*d);
        }
        input.into()
    }
}

/// rcon authentication of a client.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Auth {
    /// The access level.
    pub level: i32,
    /// The account's name.
    pub name: Text<'static>,
}

/// What the recording says about one client id.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    /// The client id.
    pub cid: i32,
    /// Joined (JOIN) and not dropped since.
    pub connected: bool,
    /// The character exists (PLAYER_NEW, no PLAYER_OLD since).
    pub alive: bool,
    /// Last known position of the character: x.
    pub x: i32,
    /// Last known position of the character: y.
    pub y: i32,
    /// Last recorded input (DDNet applies it in the tick after the record).
    pub input: Option<PlayerInput>,
    /// The team (PLAYER_TEAM; 0 until one says otherwise).
    pub team: i32,
    /// The name (PLAYER_NAME).
    pub name: Option<Text<'static>>,
    /// Said it is ready (PLAYER_READY) and not dropped since.
    pub ready: bool,
    /// The protocol it joined with (the JOINVER* record before JOIN).
    #[serde(with = "protocol_words")]
    pub protocol: Option<Version>,
    /// Its DDNet version number (DDNETVER, DDNETVER_OLD).
    pub ddnet_version: Option<i32>,
    /// Its DDNet version as text (DDNETVER).
    pub ddnet_version_str: Option<Text<'static>>,
    /// Its connection id (DDNETVER).
    pub connection_id: Option<Uuid>,
    /// Its rcon login, if logged in.
    pub auth: Option<Auth>,
    /// Reason of the last DROP.
    pub drop_reason: Option<Text<'static>>,
    /// Finish times in ticks (PLAYER_FINISH), in order.
    pub finish_times: Vec<i32>,
}

impl Player {
    fn new(cid: i32) -> Player {
        Player {
            cid,
            connected: false,
            alive: false,
            x: 0,
            y: 0,
            input: None,
            team: 0,
            name: None,
            ready: false,
            protocol: None,
            ddnet_version: None,
            ddnet_version_str: None,
            connection_id: None,
            auth: None,
            drop_reason: None,
            finish_times: Vec::new(),
        }
    }
}

/// What the recording says about one team.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Team {
    /// The team.
    pub team: i32,
    /// In practice mode (TEAM_PRACTICE).
    pub practice: bool,
    /// Finish times in ticks (TEAM_FINISH), in order.
    pub finish_times: Vec<i32>,
}

/// A save or load of a team.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SaveEvent {
    /// When.
    pub tick: i32,
    /// The team.
    pub team: i32,
    /// Which record.
    #[serde(rename = "kind")]
    pub what: SaveKind,
    /// The save's id (successes only).
    pub save_id: Option<Uuid>,
    /// The save, as DDNet's text (successes only).
    pub save: Option<Text<'static>>,
}

/// Which save/load record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SaveKind {
    /// SAVE_SUCCESS.
    SaveSuccess,
    /// SAVE_FAILURE.
    SaveFailure,
    /// LOAD_SUCCESS.
    LoadSuccess,
    /// LOAD_FAILURE.
    LoadFailure,
}

/// A console command, as recorded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsoleEntry {
    /// When.
    pub tick: i32,
    /// Who ran it (negative: the server or the game).
    pub cid: i32,
    /// `CFGFLAG_*` bits.
    pub flags: i32,
    /// The command.
    pub cmd: Text<'static>,
    /// Its arguments.
    pub args: Vec<Text<'static>>,
}

/// Two players swapping tees.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwapEvent {
    /// When.
    pub tick: i32,
    /// One client id.
    pub cid1: i32,
    /// The other.
    pub cid2: i32,
}

/// The world as the recording describes it at a tick.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct World {
    /// The tick (for a replay stopped at a tick, that tick).
    pub tick: i32,
    /// FINISH was read.
    pub finished: bool,
    /// Every client id seen so far, by id.
    pub players: Vec<Player>,
    /// Teams with non-default state, by id.
    pub teams: Vec<Team>,
    /// Saves and loads in order (empty if history is off).
    pub saves: Vec<SaveEvent>,
    /// Swaps in order (empty if history is off).
    pub swaps: Vec<SwapEvent>,
    /// Console commands in order (empty if history is off).
    pub console: Vec<ConsoleEntry>,
}

/// The lists of a [`World`] that only ever grow: saves and loads, swaps,
/// console commands. Checkpoints in an archive share them: each keeps only
/// their lengths ([`HistoryLen`]), so checkpoints do not grow with the
/// recording.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct History {
    /// Saves and loads in order.
    pub saves: Vec<SaveEvent>,
    /// Swaps in order.
    pub swaps: Vec<SwapEvent>,
    /// Console commands in order.
    pub console: Vec<ConsoleEntry>,
}

/// How long each list of a [`History`] is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryLen {
    /// Saves and loads.
    pub saves: usize,
    /// Swaps.
    pub swaps: usize,
    /// Console commands.
    pub console: usize,
}

impl History {
    /// Its lengths.
    pub fn len(&self) -> HistoryLen {
        HistoryLen {
            saves: self.saves.len(),
            swaps: self.swaps.len(),
            console: self.console.len(),
        }
    }

    /// Nothing in it.
    pub fn is_empty(&self) -> bool {
        self.len() == HistoryLen::default()
    }

    /// The first `len` entries of each list; `None` if a list is shorter.
    pub fn prefix(&self, len: HistoryLen) -> Option<History> {
        Some(History {
            saves: self.saves.get(..len.saves)?.to_vec(),
            swaps: self.swaps.get(..len.swaps)?.to_vec(),
            console: self.console.get(..len.console)?.to_vec(),
        })
    }
}

impl World {
    /// Moves the history lists out (leaving them empty).
    pub fn take_history(&mut self) -> History {
        History {
            saves: std::mem::take(&mut self.saves),
            swaps: std::mem::take(&mut self.swaps),
            console: std::mem::take(&mut self.console),
        }
    }

    /// Puts history lists in (replacing what is there).
    pub fn set_history(&mut self, history: History) {
        let History {
            saves,
            swaps,
            console,
        } = history;
        (self.saves, self.swaps, self.console) = (saves, swaps, console);
    }
}

/// Players by client id: dense for ordinary ids, a map beyond.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Players {
    dense: Vec<Option<Player>>,
    sparse: BTreeMap<i32, Player>,
    /// How many there are.
    count: usize,
    /// The dense players' [`Standing`], in step with `dense`.
    standing: Standing,
}

/// Per dense cid, what the verdict on a PLAYER_DIFF or an INPUT_DIFF asks
/// of its player (is its character there, has it sent an input), a bit
/// each: `check`'s replay tests a bit per record instead of reading the
/// player, and a run of common records takes the first 64 cids' bits at
/// once ([`Replay::common_verdicts`]). No bit for a cid with no player.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Standing {
    alive: [u64; DENSE_CIDS / 64],
    input: [u64; DENSE_CIDS / 64],
}

impl Standing {
    /// The character exists ([`Player::alive`]).
    const ALIVE: u8 = 1;
    /// An input was recorded ([`Player::input`]).
    const INPUT: u8 = 2;

    fn of(p: &Player) -> u8 {
        (u8::from(p.alive) * Standing::ALIVE) | (u8::from(p.input.is_some()) * Standing::INPUT)
    }

    /// The flags of dense cid `i` (below [`DENSE_CIDS`]).
    #[inline(always)]
    fn get(&self, i: usize) -> u8 {
        let bit = |words: &[u64; DENSE_CIDS / 64]| (words[i / 64] >> (i % 64)) as u8 & 1;
        (bit(&self.alive) * Standing::ALIVE) | (bit(&self.input) * Standing::INPUT)
    }

    /// Sets the flags of dense cid `i` (below [`DENSE_CIDS`]).
    fn set(&mut self, i: usize, flags: u8) {
        let put = |words: &mut [u64; DENSE_CIDS / 64], on: bool| {
            let mask = 1 << (i % 64);
            words[i / 64] = (words[i / 64] & !mask) | (u64::from(on) << (i % 64));
        };
        put(&mut self.alive, flags & Standing::ALIVE != 0);
        put(&mut self.input, flags & Standing::INPUT != 0);
    }
}

impl Players {
    #[inline]
    fn get(&self, cid: i32) -> Option<&Player> {
        match usize::try_from(cid) {
            Ok(i) if i < DENSE_CIDS => self.dense.get(i).and_then(Option::as_ref),
            _ => self.sparse.get(&cid),
        }
    }

    #[inline]
    fn get_mut(&mut self, cid: i32) -> &mut Player {
        match usize::try_from(cid) {
            Ok(i) if i < DENSE_CIDS => {
                if self.dense.len() <= i {
                    self.dense.resize(i + 1, None);
                }
                let count = &mut self.count;
                self.dense[i].get_or_insert_with(|| {
                    *count += 1;
                    Player::new(cid)
                })
            }
            _ => {
                let count = &mut self.count;
                self.sparse.entry(cid).or_insert_with(|| {
                    *count += 1;
                    Player::new(cid)
                })
            }
        }
    }

    /// Whether `cid`'s player has every bit of `flags` ([`Standing`]),
    /// adding the player if there is none, as [`Players::get_mut`]: one
    /// byte read where the answer is yes for a dense cid.
    #[inline(always)]
    fn stands(&mut self, cid: i32, flags: u8) -> bool {
        if let Ok(i) = usize::try_from(cid)
            && i < DENSE_CIDS
            && self.standing.get(i) & flags == flags
        {
            return true;
        }
        self.stands_by_player(cid, flags)
    }

    /// [`Players::stands`] from the player itself.
    #[cold]
    #[inline(never)]
    fn stands_by_player(&mut self, cid: i32, flags: u8) -> bool {
        Standing::of(self.get_mut(cid)) & flags == flags
    }

    /// Sets whether `cid`'s character exists; returns whether it did.
    fn set_alive(&mut self, cid: i32, alive: bool) -> bool {
        let was = std::mem::replace(&mut self.get_mut(cid).alive, alive);
        self.restand(cid);
        was
    }

    /// Sets `cid`'s last input.
    fn set_input(&mut self, cid: i32, input: PlayerInput) {
        self.get_mut(cid).input = Some(input);
        self.restand(cid);
    }

    /// Brings `cid`'s [`Standing`] in step with its player.
    fn restand(&mut self, cid: i32) {
        if let Ok(i) = usize::try_from(cid)
            && i < DENSE_CIDS
        {
            let flags = self.get(cid).map_or(0, Standing::of);
            self.standing.set(i, flags);
        }
    }

    /// All players in cid order.
    fn iter(&self) -> impl Iterator<Item = &Player> {
        let negative = self.sparse.range(..0).map(|(_, p)| p);
        let dense = self.dense.iter().flatten();
        let high = self.sparse.range(0..).map(|(_, p)| p);
        negative.chain(dense).chain(high)
    }
}

/// Something a DDNet writer could not have recorded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Inconsistency {
    /// File offset of the message.
    pub offset: u64,
    /// Tick of the message.
    pub tick: i32,
    /// What is wrong (JSON: `kind` and its fields, beside the offset).
    #[serde(flatten)]
    pub kind: InconsistencyKind,
}

/// The kinds of [`Inconsistency`].
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum InconsistencyKind {
    /// PLAYER_DIFF for a cid whose character does not exist.
    PlayerDiffAbsent {
        /// The client id.
        cid: i32,
    },
    /// PLAYER_NEW for a cid whose character already exists.
    PlayerNewPresent {
        /// The client id.
        cid: i32,
    },
    /// PLAYER_OLD for a cid whose character does not exist.
    PlayerOldAbsent {
        /// The client id.
        cid: i32,
    },
    /// INPUT_DIFF before any INPUT_NEW for the cid.
    InputDiffWithoutNew {
        /// The client id.
        cid: i32,
    },
    /// A negative client id where only players can be meant.
    NegativeCid {
        /// The client id.
        cid: i32,
    },
    /// The tick does not fit in an `int`.
    TickOverflow,
    /// TICK_SKIP with a negative dt.
    NegativeTickSkip {
        /// The skip.
        dt: i32,
    },
    /// A message after FINISH.
    AfterFinish,
}

impl fmt::Display for InconsistencyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::PlayerDiffAbsent { cid } => {
                write!(
                    f,
                    "PLAYER_DIFF for cid {cid}, which has no character (expected PLAYER_NEW first)"
                )
            }
            Self::PlayerNewPresent { cid } => {
                write!(
                    f,
                    "PLAYER_NEW for cid {cid}, whose character already exists (expected PLAYER_OLD first)"
                )
            }
            Self::PlayerOldAbsent { cid } => {
                write!(f, "PLAYER_OLD for cid {cid}, which has no character")
            }
            Self::InputDiffWithoutNew { cid } => {
                write!(f, "INPUT_DIFF for cid {cid} before any INPUT_NEW")
            }
            Self::NegativeCid { cid } => write!(f, "negative client id {cid} in a player record"),
            Self::TickOverflow => write!(f, "the tick overflows a 32-bit int"),
            Self::NegativeTickSkip { dt } => write!(f, "TICK_SKIP with negative dt {dt}"),
            Self::AfterFinish => write!(f, "a message after FINISH"),
        }
    }
}

impl fmt::Display for Inconsistency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "at byte {} (0x{:x}), tick {}: {}",
            self.offset, self.offset, self.tick, self.kind
        )
    }
}

impl std::error::Error for Inconsistency {}

/// Replay settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplayConfig {
    /// Keep console commands, saves and swaps (grows with the file).
    pub keep_history: bool,
}

impl Default for ReplayConfig {
    fn default() -> Self {
        ReplayConfig { keep_history: true }
    }
}

/// The replay state machine. Serialisable, so a replay can be checkpointed
/// and resumed.
///
/// ```
/// use teeoracle::codec::Mode;
/// use teeoracle::teehistorian::{Replay, ReplayConfig, SliceReader};
/// let bytes = std::fs::read("corpus/teehistorian/ddnet-20.1/A_join_move_leave.teehistorian")?;
/// let (_, reader) = SliceReader::new(&bytes, Mode::Lenient)?;
/// let mut replay = Replay::new(ReplayConfig::default());
/// for rec in reader {
///     let rec = rec?;
///     replay.handle(rec.offset, &rec.msg)?; // an inconsistency is an error here
/// }
/// let world = replay.world();
/// assert!(world.finished, "no FINISH replayed");
/// let alice = replay.player(0).unwrap();
/// assert_eq!(alice.name.as_ref().unwrap().to_string(), "\"alice\"");
/// assert!(!alice.connected, "{alice:?}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Replay {
    config: ReplayConfig,
    clock: TickClock,
    finished: bool,
    players: Players,
    teams: BTreeMap<i32, Team>,
    saves: Vec<SaveEvent>,
    swaps: Vec<SwapEvent>,
    console: Vec<ConsoleEntry>,
    /// Bytes of text and list entries the world has gained (see
    /// [`Replay::weight`]).
    grown: u64,
}

/// What [`Replay::weight`] counts for an empty world, a player, a team,
/// and a list entry beside its text: about what each takes in memory.
const WORLD_WEIGHT: u64 = 128;
const PLAYER_WEIGHT: u64 = 256;
const TEAM_WEIGHT: u64 = 64;
const ENTRY_WEIGHT: u64 = 48;

/// A resumable snapshot of a replay: the world plus the tick clock.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// The replay's settings.
    pub config: ReplayConfig,
    /// The tick clock (the tick, and the cid order within it).
    pub clock: TickClock,
    /// The world.
    pub world: World,
}

impl Replay {
    /// A replay at the start of a file (tick 0).
    pub fn new(config: ReplayConfig) -> Self {
        Replay {
            config,
            ..Replay::default()
        }
    }

    /// The tick of the last message handled.
    pub fn tick(&self) -> i32 {
        self.clock.tick()
    }

    /// An estimate of the size in bytes of the world without its
    /// [`History`] (in memory, and about a quarter of its RON text):
    /// the world, players and teams at a fixed size, and every text and finish time
    /// the recording gave them (a text replaced still counts). It never
    /// shrinks, and a record adds at most its own length plus a constant,
    /// so it bounds what [`Replay::checkpoint_sharing_history`] costs.
    pub fn weight(&self) -> u64 {
        WORLD_WEIGHT
            + self.players.count as u64 * PLAYER_WEIGHT
            + self.teams.len() as u64 * TEAM_WEIGHT
            + self.grown
    }

    /// Counts text or a list entry the world gained.
    fn grow(&mut self, text: usize) {
        self.grown += ENTRY_WEIGHT + text as u64;
    }

    /// The tick `msg` would belong to, without handling it.
    pub fn peek_tick(&self, msg: &Message<'_>) -> i32 {
        let mut clock = self.clock;
        clock.advance(msg).unwrap_or(clock.tick())
    }

    /// The player with this cid, if the recording mentioned it.
    pub fn player(&self, cid: i32) -> Option<&Player> {
        self.players.get(cid)
    }

    /// Every player the recording mentioned so far, in cid order.
    pub fn players(&self) -> impl Iterator<Item = &Player> {
        self.players.iter()
    }

    /// Handles the next message of the stream, found at file offset
    /// `offset`. The world is updated as far as the message makes sense
    /// even when an inconsistency is returned, so the caller may go on.
    ///
    /// In line, with the common records (PLAYER_DIFF, INPUT_DIFF) handled
    /// here: where the caller knows the kind, only its arm is left.
    #[inline(always)]
    pub fn handle(&mut self, offset: u64, msg: &Message<'_>) -> Result<(), Inconsistency> {
        let fail = |tick, kind| Err(Inconsistency { offset, tick, kind });
        if self.finished {
            return fail(self.clock.tick(), InconsistencyKind::AfterFinish);
        }
        let tick = match self.clock.advance(msg) {
            Ok(t) => t,
            Err(TickError::Overflow) => {
                return fail(self.clock.tick(), InconsistencyKind::TickOverflow);
            }
            Err(TickError::NegativeSkip(dt)) => {
                return fail(
                    self.clock.tick(),
                    InconsistencyKind::NegativeTickSkip { dt },
                );
            }
        };
        let kind = match *msg {
            Message::PlayerDiff { cid, dx, dy } => self.player_diff(cid, dx, dy),
            Message::InputDiff { cid, ref dinput } => self.input_diff(cid, dinput),
            _ => self.apply_other(tick, msg),
        };
        match kind {
            Some(kind) => fail(tick, kind),
            None => Ok(()),
        }
    }

    /// [`Replay::handle`] of a record of the reader's common loop (a
    /// PLAYER_DIFF or an INPUT_DIFF, [`Visit::common`]) whose reader's
    /// clock put it in `tick`, for a replay that has handled every record
    /// of the stream before it (a [`Scan`](super::scan::Scan) pass): its
    /// clock is then the reader's before the record, so it need not be
    /// advanced a second time. The reader's loop leaves records at the
    /// largest tick to the general path, so the reader's clock moved to
    /// `tick` without an overflow, as this one would have; and it stops at
    /// FINISH, so the replay has not finished.
    ///
    /// Without `VALUES`, the record's moves and input changes are not
    /// added, only what makes it consistent is followed (whether its
    /// player is there, whether it has sent an input): for a pass that
    /// reads nothing of the replay but its inconsistencies (`check`), so
    /// the reader need not decode those ints at all. The replay's
    /// positions and inputs are then not the file's, and it must be
    /// dropped. Its clock is then not moved here either: the pass sets it
    /// at the end of each run ([`Replay::follow_clock`]).
    ///
    /// [`Visit::common`]: super::stream::Visit::common
    #[inline(always)]
    pub(crate) fn handle_common<const VALUES: bool>(
        &mut self,
        offset: u64,
        tick: i32,
        msg: &Message<'_>,
    ) -> Result<(), Inconsistency> {
        debug_assert!(!self.finished);
        debug_assert!(tick < i32::MAX, "a common record at the largest tick");
        debug_assert!(!VALUES || self.peek_tick(msg) == tick, "the clocks differ");
        let kind = match *msg {
            Message::PlayerDiff { cid, dx, dy } => match VALUES {
                true => {
                    self.clock = TickClock::at(tick, Some(cid));
                    self.player_diff(cid, dx, dy)
                }
                false => (!self.players.stands(cid, Standing::ALIVE))
                    .then_some(InconsistencyKind::PlayerDiffAbsent { cid }),
            },
            Message::InputDiff { cid, ref dinput } => match VALUES {
                true => self.input_diff(cid, dinput),
                false => (!self.players.stands(cid, Standing::INPUT))
                    .then_some(InconsistencyKind::InputDiffWithoutNew { cid }),
            },
            _ => return self.handle(offset, msg),
        };
        match kind {
            Some(kind) => Err(Inconsistency { offset, tick, kind }),
            None => Ok(()),
        }
    }

    /// The client ids below 64 (a bit each) whose PLAYER_DIFF, and whose
    /// INPUT_DIFF, [`Replay::handle_common`] without `VALUES` finds
    /// consistent, doing nothing else: a run of common records with only
    /// these ids may skip it. (Only records it is not given change them.)
    #[inline(always)]
    pub(crate) fn common_verdicts(&self) -> CommonCids {
        CommonCids {
            player_diff: self.players.standing.alive[0],
            input_diff: self.players.standing.input[0],
        }
    }

    /// Sets the clock to the reader's after a run of records given to
    /// [`Replay::handle_common`] without `VALUES`, which left it behind.
    #[inline(always)]
    pub(crate) fn follow_clock(&mut self, clock: &TickClock) {
        self.clock = *clock;
    }

    /// A PLAYER_DIFF: what it finds inconsistent.
    #[inline(always)]
    fn player_diff(&mut self, cid: i32, dx: i32, dy: i32) -> Option<InconsistencyKind> {
        let p = self.players.get_mut(cid);
        p.x = p.x.wrapping_add(dx);
        p.y = p.y.wrapping_add(dy);
        (!p.alive).then_some(InconsistencyKind::PlayerDiffAbsent { cid })
    }

    /// An INPUT_DIFF: what it finds inconsistent.
    #[inline(always)]
    fn input_diff(&mut self, cid: i32, dinput: &Input) -> Option<InconsistencyKind> {
        let p = self.players.get_mut(cid);
        match &mut p.input {
            Some(input) => {
                *input = input.plus(dinput);
                None
            }
            None => Some(InconsistencyKind::InputDiffWithoutNew { cid }),
        }
    }

    /// [`Replay::handle`] of the other kinds, in tick `tick` (the clock
    /// has moved): what it finds inconsistent.
    #[inline(never)]
    fn apply_other(&mut self, tick: i32, msg: &Message<'_>) -> Option<InconsistencyKind> {
        match msg {
            // Handled in line, but said here too so the match is whole.
            Message::PlayerDiff { cid, dx, dy } => self.player_diff(*cid, *dx, *dy),
            Message::InputDiff { cid, dinput } => self.input_diff(*cid, dinput),
            Message::PlayerNew { cid, x, y } => {
                if *cid < 0 {
                    return Some(InconsistencyKind::NegativeCid { cid: *cid });
                }
                let was_alive = self.players.set_alive(*cid, true);
                let p = self.players.get_mut(*cid);
                (p.x, p.y) = (*x, *y);
                was_alive.then_some(InconsistencyKind::PlayerNewPresent { cid: *cid })
            }
            Message::PlayerOld { cid } => {
                if *cid < 0 {
                    return Some(InconsistencyKind::NegativeCid { cid: *cid });
                }
                let was_alive = self.players.set_alive(*cid, false);
                (!was_alive).then_some(InconsistencyKind::PlayerOldAbsent { cid: *cid })
            }
            Message::InputNew { cid, input } => {
                self.players.set_input(*cid, (*input).into());
                None
            }
            Message::Join { cid } => {
                let p = self.players.get_mut(*cid);
                p.connected = true;
                p.drop_reason = None;
                None
            }
            Message::Drop { cid, reason } => {
                let p = self.players.get_mut(*cid);
                p.connected = false;
                p.ready = false;
                p.auth = None;
                p.drop_reason = Some(reason.clone().into_owned());
                self.grow(reason.len());
                None
            }
            Message::ConsoleCommand(c) => {
                if self.config.keep_history {
                    self.console.push(ConsoleEntry {
                        tick,
                        cid: c.cid,
                        flags: c.flags,
                        cmd: c.cmd.clone().into_owned(),
                        args: c.args.iter().map(|a| a.clone().into_owned()).collect(),
                    });
                }
                None
            }
            Message::Finish => {
                self.finished = true;
                None
            }
            Message::TickSkip { .. } | Message::NetMessage { .. } => None,
            Message::Ex(m) => {
                self.handle_ex(tick, &m.ex);
                None
            }
        }
    }

    fn handle_ex(&mut self, tick: i32, ex: &Ex<'_>) {
        let save = |team: i32, what, save_id: Option<Uuid>, save: Option<&Text<'_>>| SaveEvent {
            tick,
            team,
            what,
            save_id,
            save: save.map(|s| s.clone().into_owned()),
        };
        match ex {
            Ex::DdnetverOld { cid, version } => {
                self.players.get_mut(*cid).ddnet_version = Some(*version);
            }
            Ex::Ddnetver {
                cid,
                connection_id,
                version,
                version_str,
            } => {
                let p = self.players.get_mut(*cid);
                p.ddnet_version = Some(*version);
                p.ddnet_version_str = Some(version_str.clone().into_owned());
                p.connection_id = Some(*connection_id);
                self.grow(version_str.len());
            }
            Ex::AuthInit {
                cid,
                level,
                auth_name,
            }
            | Ex::AuthLogin {
                cid,
                level,
                auth_name,
            } => {
                self.players.get_mut(*cid).auth = Some(Auth {
                    level: *level,
                    name: auth_name.clone().into_owned(),
                });
                self.grow(auth_name.len());
            }
            Ex::AuthLogout { cid } => self.players.get_mut(*cid).auth = None,
            Ex::Joinver6 { cid } | Ex::Rejoinver6 { cid } => {
                self.players.get_mut(*cid).protocol = Some(Version::V06);
            }
            Ex::Joinver7 { cid } => self.players.get_mut(*cid).protocol = Some(Version::V07),
            Ex::PlayerSwap { cid1, cid2 } => {
                if self.config.keep_history {
                    self.swaps.push(SwapEvent {
                        tick,
                        cid1: *cid1,
                        cid2: *cid2,
                    });
                }
            }
            Ex::PlayerTeam { cid, team } => self.players.get_mut(*cid).team = *team,
            Ex::TeamPractice { team, practice } => self.team_mut(*team).practice = *practice != 0,
            Ex::PlayerReady { cid } => self.players.get_mut(*cid).ready = true,
            Ex::PlayerName { cid, name } => {
                self.players.get_mut(*cid).name = Some(name.clone().into_owned());
                self.grow(name.len());
            }
            Ex::PlayerFinish { cid, time } => {
                self.players.get_mut(*cid).finish_times.push(*time);
                self.grow(0);
            }
            Ex::TeamFinish { team, time } => {
                self.team_mut(*team).finish_times.push(*time);
                self.grow(0);
            }
            Ex::SaveSuccess {
                team,
                save_id,
                save: s,
            } => self.push_save(save(*team, SaveKind::SaveSuccess, Some(*save_id), Some(s))),
            Ex::LoadSuccess {
                team,
                save_id,
                save: s,
            } => self.push_save(save(*team, SaveKind::LoadSuccess, Some(*save_id), Some(s))),
            Ex::SaveFailure { team } => {
                self.push_save(save(*team, SaveKind::SaveFailure, None, None))
            }
            Ex::LoadFailure { team } => {
                self.push_save(save(*team, SaveKind::LoadFailure, None, None))
            }
            Ex::Test { .. } | Ex::Antibot { .. } | Ex::UnknownEx { .. } => {}
        }
    }

    fn push_save(&mut self, event: SaveEvent) {
        if self.config.keep_history {
            self.saves.push(event);
        }
    }

    fn team_mut(&mut self, team: i32) -> &mut Team {
        self.teams.entry(team).or_insert_with(|| Team {
            team,
            ..Team::default()
        })
    }

    /// The world as of the last message handled.
    pub fn world(&self) -> World {
        let mut world = self.world_without_history();
        world.set_history(self.history());
        world
    }

    fn world_without_history(&self) -> World {
        World {
            tick: self.clock.tick(),
            finished: self.finished,
            players: self.players.iter().cloned().collect(),
            teams: self.teams.values().cloned().collect(),
            ..World::default()
        }
    }

    /// The history lists so far.
    pub fn history(&self) -> History {
        History {
            saves: self.saves.clone(),
            swaps: self.swaps.clone(),
            console: self.console.clone(),
        }
    }

    /// A snapshot from which [`Replay::resume`] continues identically.
    pub fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            config: self.config,
            clock: self.clock,
            world: self.world(),
        }
    }

    /// [`Replay::checkpoint`] without the history lists (the world's are
    /// empty), and their lengths: what an archive's checkpoint holds. It
    /// costs about [`Replay::weight`], whatever the history.
    pub fn checkpoint_sharing_history(&self) -> (Checkpoint, HistoryLen) {
        let len = HistoryLen {
            saves: self.saves.len(),
            swaps: self.swaps.len(),
            console: self.console.len(),
        };
        let checkpoint = Checkpoint {
            config: self.config,
            clock: self.clock,
            world: self.world_without_history(),
        };
        (checkpoint, len)
    }

    /// Continues a replay from a checkpoint.
    pub fn resume(checkpoint: Checkpoint) -> Replay {
        let Checkpoint {
            config,
            clock,
            world,
        } = checkpoint;
        let mut players = Players::default();
        for p in world.players {
            let cid = p.cid;
            *players.get_mut(cid) = p;
            players.restand(cid);
        }
        let mut replay = Replay {
            config,
            clock,
            finished: world.finished,
            players,
            teams: world.teams.into_iter().map(|t| (t.team, t)).collect(),
            saves: world.saves,
            swaps: world.swaps,
            console: world.console,
            grown: 0,
        };
        replay.grown = replay.regrown();
        replay
    }

    /// What [`Replay::grow`] would have counted for the world as it is.
    fn regrown(&self) -> u64 {
        let text = |t: &Option<Text<'static>>| t.as_ref().map_or(0, |t| t.len());
        let mut texts = 0;
        let mut entries = 0;
        for p in self.players.iter() {
            for (set, len) in [
                (p.name.is_some(), text(&p.name)),
                (p.drop_reason.is_some(), text(&p.drop_reason)),
                (p.ddnet_version_str.is_some(), text(&p.ddnet_version_str)),
                (
                    p.auth.is_some(),
                    p.auth.as_ref().map_or(0, |a| a.name.len()),
                ),
            ] {
                entries += usize::from(set);
                texts += len;
            }
            entries += p.finish_times.len();
        }
        entries += self
            .teams
            .values()
            .map(|t| t.finish_times.len())
            .sum::<usize>();
        entries as u64 * ENTRY_WEIGHT + texts as u64
    }
}
