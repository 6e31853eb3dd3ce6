//! A writer that records the way DDNet's `CTeeHistorian` does: it decides
//! between implicit ticks and TICK_SKIP, writes PLAYER_NEW/DIFF/OLD only on
//! change, INPUT_NEW/DIFF by unique client id, and team state only on change.
//! Driven with the same calls as DDNet's `teehistorian_test.cpp`, it produces
//! the same bytes; it is also how synthetic test files are made.

use super::header::Header;
use super::message::{ConsoleCommand, Ex, Input, Message};
use crate::bytes::{Blob, Text};
use crate::codec::Codec;
use crate::packet::Version;
use std::fmt;

/// DDNet's initial "previous max client id" (`MAX_CLIENTS`).
const INITIAL_MAX_CID: i32 = 128;

/// A call the DDNet writer would reject with an assertion.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecorderError {
    /// Player records must come in strictly ascending cid order in a tick.
    PlayerOrder {
        /// The client id recorded.
        cid: i32,
        /// The client id recorded before it in the same tick.
        previous: i32,
    },
    /// Client ids (and teams) are non-negative.
    NegativeCid(i32),
}

impl fmt::Display for RecorderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecorderError::PlayerOrder { cid, previous } => write!(
                f,
                "player record for cid {cid} after cid {previous} in the same tick (DDNet asserts ascending order)"
            ),
            RecorderError::NegativeCid(cid) => write!(f, "negative client id {cid}"),
        }
    }
}

impl std::error::Error for RecorderError {}

#[derive(Clone, Copy, Debug, Default)]
struct PrevPlayer {
    alive: bool,
    x: i32,
    y: i32,
    team: i32,
    input_uid: u32,
    input: Input,
}

/// Records a teehistorian file into memory.
///
/// ```
/// use teeoracle::codec::Mode;
/// use teeoracle::packet::Version;
/// use teeoracle::teehistorian::{Header, HeaderInfo, Message, Recorder, SliceReader};
/// let header = Header::from_info(HeaderInfo { version: 2, ..HeaderInfo::default() });
/// let mut rec = Recorder::new(&header);
/// rec.tick(1);
/// rec.record_player_join(0, Version::V06);
/// rec.record_player(0, 100, 200)?; // PLAYER_NEW
/// rec.tick(2);
/// rec.record_player(0, 101, 200)?; // PLAYER_DIFF, in an implicit tick
/// rec.finish();
/// let bytes = rec.into_bytes();
/// let (_, reader) = SliceReader::new(&bytes, Mode::Strict)?;
/// let kinds: Vec<_> = reader.map(|r| r.map(|r| (r.tick, r.msg.kind_name()))).collect::<Result<_, _>>()?;
/// assert_eq!(
///     kinds,
///     [(1, "tick_skip"), (1, "joinver6"), (1, "join"), (1, "player_new"), (2, "player_diff"), (2, "finish")]
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Recorder {
    out: Vec<u8>,
    header_len: usize,
    tick: i32,
    last_written_tick: i32,
    tick_written: bool,
    max_cid: i32,
    prev_max_cid: i32,
    players: Vec<PrevPlayer>,
    practice: Vec<bool>,
}

impl Recorder {
    /// Starts a file with `header` (DDNet `Reset`: tick 0 is implicit).
    pub fn new(header: &Header) -> Recorder {
        let mut out = Vec::new();
        header.encode(&mut out, ());
        Recorder {
            header_len: out.len(),
            out,
            tick: 0,
            last_written_tick: 0,
            tick_written: true,
            max_cid: INITIAL_MAX_CID,
            prev_max_cid: INITIAL_MAX_CID,
            players: Vec::new(),
            practice: Vec::new(),
        }
    }

    /// The file so far.
    pub fn bytes(&self) -> &[u8] {
        &self.out
    }

    /// The records so far, without the header.
    pub fn body(&self) -> &[u8] {
        &self.out[self.header_len..]
    }

    /// Ends recording and returns the file.
    pub fn into_bytes(self) -> Vec<u8> {
        self.out
    }

    /// `BeginTick(tick)` followed by `BeginPlayers()`, as the test fixture's
    /// `Tick()` does.
    pub fn tick(&mut self, tick: i32) {
        self.tick = tick;
        self.tick_written = false;
        self.prev_max_cid = self.max_cid;
        self.max_cid = -1;
    }

    fn player(&mut self, cid: i32) -> Result<&mut PrevPlayer, RecorderError> {
        let i = usize::try_from(cid).map_err(|_| RecorderError::NegativeCid(cid))?;
        if self.players.len() <= i {
            self.players.resize(i + 1, PrevPlayer::default());
        }
        Ok(&mut self.players[i])
    }

    fn write(&mut self, msg: &Message<'_>) {
        msg.encode(&mut self.out, ());
    }

    fn write_tick(&mut self) {
        let dt = self.tick - self.last_written_tick - 1;
        self.write(&Message::TickSkip { dt });
        self.last_written_tick = self.tick;
        self.tick_written = true;
    }

    fn ensure_tick_written(&mut self) {
        if !self.tick_written {
            self.write_tick();
        }
    }

    fn ensure_tick_written_player_data(&mut self, cid: i32) -> Result<(), RecorderError> {
        if cid <= self.max_cid {
            return Err(RecorderError::PlayerOrder {
                cid,
                previous: self.max_cid,
            });
        }
        self.max_cid = cid;
        if !self.tick_written
            && (cid > self.prev_max_cid || self.last_written_tick + 1 != self.tick)
        {
            self.write_tick();
        } else {
            // The tick is implicit in the cid order.
            self.last_written_tick = self.tick;
            self.tick_written = true;
        }
        Ok(())
    }

    /// A living character at (x, y): PLAYER_NEW if it was not alive,
    /// PLAYER_DIFF if it moved, nothing otherwise.
    pub fn record_player(&mut self, cid: i32, x: i32, y: i32) -> Result<(), RecorderError> {
        let prev = *self.player(cid)?;
        if !prev.alive || prev.x != x || prev.y != y {
            self.ensure_tick_written_player_data(cid)?;
            let msg = if prev.alive {
                Message::PlayerDiff {
                    cid,
                    dx: x.wrapping_sub(prev.x),
                    dy: y.wrapping_sub(prev.y),
                }
            } else {
                Message::PlayerNew { cid, x, y }
            };
            self.write(&msg);
        }
        let p = self.player(cid)?;
        (p.alive, p.x, p.y) = (true, x, y);
        Ok(())
    }

    /// No character for `cid`: PLAYER_OLD if it was alive.
    pub fn record_dead_player(&mut self, cid: i32) -> Result<(), RecorderError> {
        if self.player(cid)?.alive {
            self.ensure_tick_written_player_data(cid)?;
            self.write(&Message::PlayerOld { cid });
        }
        self.player(cid)?.alive = false;
        Ok(())
    }

    /// Input of a player object: INPUT_NEW for a new `unique_id`, INPUT_DIFF
    /// (wrapping) if it changed, nothing if it is the same.
    pub fn record_player_input(
        &mut self,
        cid: i32,
        unique_id: u32,
        input: &Input,
    ) -> Result<(), RecorderError> {
        let prev = *self.player(cid)?;
        let msg = if prev.input_uid == unique_id {
            if prev.input == *input {
                return Ok(());
            }
            let mut dinput = [0; 10];
            for (d, (new, old)) in dinput.iter_mut().zip(input.iter().zip(prev.input)) {
                *d = new.wrapping_sub(old);
            }
            Message::InputDiff { cid, dinput }
        } else {
            Message::InputNew { cid, input: *input }
        };
        self.ensure_tick_written();
        self.write(&msg);
        let p = self.player(cid)?;
        (p.input_uid, p.input) = (unique_id, *input);
        Ok(())
    }

    /// Any other record (message, join, drop, console command, extension):
    /// written in the current tick, opening it with TICK_SKIP if needed.
    pub fn record(&mut self, msg: &Message<'_>) {
        self.ensure_tick_written();
        self.write(msg);
    }

    /// An extension record.
    pub fn record_ex(&mut self, ex: Ex<'_>) {
        self.record(&ex.into());
    }

    /// A game message from a client.
    pub fn record_player_message(&mut self, cid: i32, data: &[u8]) {
        self.record(&Message::NetMessage {
            cid,
            data: Blob::from(data),
        });
    }

    /// JOINVER6/7 then JOIN.
    pub fn record_player_join(&mut self, cid: i32, protocol: Version) {
        self.record_ex(match protocol {
            Version::V06 => Ex::Joinver6 { cid },
            Version::V07 => Ex::Joinver7 { cid },
        });
        self.record(&Message::Join { cid });
    }

    /// DROP with a reason.
    pub fn record_player_drop(&mut self, cid: i32, reason: &str) {
        self.record(&Message::Drop {
            cid,
            reason: Text::from(reason),
        });
    }

    /// A console command with its arguments.
    pub fn record_console_command(&mut self, cid: i32, flags: i32, cmd: &str, args: &[&str]) {
        self.record(
            &ConsoleCommand {
                cid,
                flags,
                cmd: Text::from(cmd),
                args: args.iter().map(|&a| Text::from(a)).collect(),
            }
            .into(),
        );
    }

    /// PLAYER_TEAM, written only when the team changes (initially 0).
    pub fn record_player_team(&mut self, cid: i32, team: i32) -> Result<(), RecorderError> {
        if self.player(cid)?.team != team {
            self.record_ex(Ex::PlayerTeam { cid, team });
            self.player(cid)?.team = team;
        }
        Ok(())
    }

    /// TEAM_PRACTICE, written only when the flag changes (initially false).
    pub fn record_team_practice(&mut self, team: i32, practice: bool) -> Result<(), RecorderError> {
        let i = usize::try_from(team).map_err(|_| RecorderError::NegativeCid(team))?;
        if self.practice.len() <= i {
            self.practice.resize(i + 1, false);
        }
        if self.practice[i] != practice {
            self.record_ex(Ex::TeamPractice {
                team,
                practice: practice.into(),
            });
            self.practice[i] = practice;
        }
        Ok(())
    }

    /// Writes `msg` as it is, in the current tick, opening the tick as
    /// DDNet's writer would (a player record by its implicit-tick rule);
    /// a TICK_SKIP is written as given and moves to the tick it names.
    /// The player state the other calls compare with follows the record.
    pub(crate) fn record_as_is(&mut self, msg: &Message<'_>) -> Result<(), RecorderError> {
        match *msg {
            Message::TickSkip { dt } => {
                self.write(msg);
                self.tick = self.last_written_tick.wrapping_add(dt).wrapping_add(1);
                self.last_written_tick = self.tick;
                self.tick_written = true;
                self.prev_max_cid = self.max_cid;
                self.max_cid = -1;
                return Ok(());
            }
            Message::PlayerNew { cid, .. }
            | Message::PlayerDiff { cid, .. }
            | Message::PlayerOld { cid } => self.ensure_tick_written_player_data(cid)?,
            Message::Finish => {}
            _ => self.ensure_tick_written(),
        }
        self.write(msg);
        match *msg {
            Message::PlayerNew { cid, x, y } => {
                let p = self.player(cid)?;
                (p.alive, p.x, p.y) = (true, x, y);
            }
            Message::PlayerDiff { cid, dx, dy } => {
                let p = self.player(cid)?;
                (p.x, p.y) = (p.x.wrapping_add(dx), p.y.wrapping_add(dy));
            }
            Message::PlayerOld { cid } => self.player(cid)?.alive = false,
            Message::InputNew { cid, input } => self.player(cid)?.input = input,
            Message::InputDiff { cid, dinput } => {
                let p = self.player(cid)?;
                for (v, d) in p.input.iter_mut().zip(dinput) {
                    *v = v.wrapping_add(d);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// FINISH.
    pub fn finish(&mut self) {
        self.write(&Message::Finish);
    }
}
