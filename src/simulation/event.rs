//! What a teehistorian record does to the world between two ticks (joins,
//! inputs, kills, team changes, commands), as an event the world takes
//! (`Event::apply`) and the simulation's window keeps, to do it again
//! when it steps its last ticks again ([`super::window`]).

use super::ddrace::World;
use crate::bytes::Text;
use crate::packet::msg::{MsgHeader, decode_body, split};
use crate::teehistorian::{Ex, Message, PlayerInput, Record};

/// What a record does to the world between two ticks, kept to be done
/// again when the window is stepped again.
#[derive(Clone, Debug)]
pub(super) enum Event {
    /// JOIN.
    Join(usize),
    /// DROP.
    Drop(usize),
    /// PLAYER_READY (a client a map change carried over joins first).
    Ready(usize),
    /// An input for the coming tick.
    Input(usize, PlayerInput),
    /// `Cl_StartInfo`, `Cl_ChangeInfo`: the name.
    Name(usize, Vec<u8>),
    /// `Cl_Kill`.
    Kill(usize),
    /// `Cl_SetTeam`.
    SetTeam(usize, i32),
    /// A console command: who, flags, name, arguments.
    Console(i32, i32, Text<'static>, Vec<Text<'static>>),
    /// PLAYER_TEAM: client, DDRace team.
    DdraceTeam(i32, i32),
    /// PLAYER_SWAP.
    Swap(i32, i32),
    /// TEAM_PRACTICE.
    Practice(i32, bool),
    /// A 0.7 client to the spectators by a team change the file does not
    /// record, read before the next tick ([`World::unrecorded_team_change`]).
    TeamChangeAway(usize),
    /// A 0.7 client back from the spectators by a team change the file
    /// does not record ([`World::unrecorded_team_change_back`]).
    TeamChangeBack(usize),
    /// What took it there was no team change
    /// ([`World::unrecorded_team_change_undone`]).
    TeamChangeUndone(usize),
}

impl Event {
    /// What `rec` (not a position) does to the world, if anything.
    pub(super) fn of(rec: &Record<'_>, inputs: &mut [Option<PlayerInput>]) -> Option<Event> {
        Some(match &rec.msg {
            Message::Join { cid } => {
                let c = usize::try_from(*cid).ok()?;
                if let Some(s) = inputs.get_mut(c) {
                    *s = None;
                }
                Event::Join(c)
            }
            Message::Drop { cid, .. } => Event::Drop(usize::try_from(*cid).ok()?),
            Message::InputNew { cid, input } => {
                let input = PlayerInput::from(*input);
                *slot(inputs, *cid)? = Some(input);
                Event::Input(*cid as usize, input)
            }
            Message::InputDiff { cid, dinput } => {
                let s = slot(inputs, *cid)?;
                let input = s.unwrap_or_default().plus(dinput);
                *s = Some(input);
                Event::Input(*cid as usize, input)
            }
            Message::NetMessage { cid, data } => {
                let c = usize::try_from(*cid).ok()?;
                let (header, body) = split(data).ok()?;
                let protocol = rec.protocol;
                if let Some(info) = crate::packet::msg::client_info(protocol, data) {
                    return Some(Event::Name(c, info.name));
                }
                let protocol = protocol.unwrap_or(crate::packet::Version::V06);
                match header.name(protocol) {
                    Some("Cl_Kill") if !header.sys => Event::Kill(c),
                    Some("Cl_SetTeam") if !header.sys => {
                        Event::SetTeam(c, team_of(protocol, &header, body)?)
                    }
                    _ => return None,
                }
            }
            Message::ConsoleCommand(cmd) => Event::Console(
                cmd.cid,
                cmd.flags,
                cmd.cmd.clone().into_owned(),
                cmd.args.iter().map(|a| a.clone().into_owned()).collect(),
            ),
            Message::Ex(ex) => match &ex.ex {
                Ex::PlayerReady { cid } => Event::Ready(usize::try_from(*cid).ok()?),
                Ex::PlayerTeam { cid, team } => Event::DdraceTeam(*cid, *team),
                Ex::PlayerSwap { cid1, cid2 } => Event::Swap(*cid1, *cid2),
                Ex::TeamPractice { team, practice } => Event::Practice(*team, *practice != 0),
                _ => return None,
            },
            _ => return None,
        })
    }

    /// Does it to `w`.
    pub(super) fn apply(&self, w: &mut World) {
        match self {
            Event::Join(c) => w.join(*c),
            Event::Drop(c) => w.drop_client(*c),
            Event::Ready(c) => {
                // DDNet 16.4 writes no JOIN for a client a map change
                // carried over (20.1 does), yet it is connected.
                if w.player(*c).is_none() {
                    w.join(*c);
                }
                w.ready(*c);
            }
            Event::Input(c, input) => w.input(*c, *input),
            Event::Name(c, name) => w.set_name(*c, name),
            Event::Kill(c) => w.kill(*c),
            Event::SetTeam(c, team) => w.set_team(*c, *team),
            Event::Console(cid, flags, cmd, args) => w.console_command(*cid, *flags, cmd, args),
            Event::DdraceTeam(c, team) => w.set_ddrace_team(*c, *team),
            Event::Swap(a, b) => w.swap(*a, *b),
            Event::Practice(team, on) => w.set_practice(*team, *on),
            Event::TeamChangeAway(c) => w.unrecorded_team_change(*c, false),
            Event::TeamChangeBack(c) => {
                w.unrecorded_team_change_back(*c);
            }
            Event::TeamChangeUndone(c) => w.unrecorded_team_change_undone(*c),
        }
    }
}

/// The entry of `cid` in a per-client table, if the id is in range.
fn slot<T>(table: &mut [T], cid: i32) -> Option<&mut T> {
    usize::try_from(cid).ok().and_then(|c| table.get_mut(c))
}

/// The team a `Cl_SetTeam` asks for.
fn team_of(protocol: crate::packet::Version, header: &MsgHeader, body: &[u8]) -> Option<i32> {
    decode_body(protocol, header, body)?.ok()?.int("team")
}
