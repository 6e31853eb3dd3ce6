//! A player slot (`CPlayer`): what outlives its characters.

use crate::simulation::Release;
use crate::teehistorian::PlayerInput;
use serde::Serialize;

/// `PLAYERFLAG_SCOREBOARD`: 20.1 leaves it out when it asks whether an
/// input is an action (a killed player's scoreboard opens by itself).
const PLAYERFLAG_SCOREBOARD: i32 = 1 << 3;

/// The spectators' team.
pub const TEAM_SPECTATORS: i32 = -1;

/// `CPlayer::m_Paused`: what `/pause` and `/spec` asked for. It outlives
/// the character; a player without one cannot change it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum Pause {
    /// `PAUSE_NONE`.
    #[default]
    None,
    /// `PAUSE_PAUSED` (`/pause`): inputs stop reaching the character,
    /// which stays in the world.
    Paused,
    /// `PAUSE_SPEC` (`/spec` with `sv_pauseable`): as paused, and the
    /// character leaves the world once it stands still on the ground
    /// (`CPlayer::ProcessPause`).
    Spec,
}

impl Pause {
    /// `abs(CPlayer::IsPaused())` without a force pause: 0, 1 or 2.
    pub fn number(self) -> i32 {
        self as i32
    }
}

/// A player slot (`CPlayer`): what outlives its characters.
#[derive(Clone, Debug, Serialize)]
pub struct Player {
    /// 0 plays, -1 spectates.
    pub team: i32,
    /// Entered the game (PLAYER_READY): inputs reach it.
    pub in_game: bool,
    /// Will spawn at the next chance (`m_Spawning`).
    pub spawning: bool,
    /// When its last character died.
    pub die_tick: i32,
    /// When the one before died.
    pub prev_die_tick: i32,
    /// The last input it sent, if any (`m_aLastPlayerInput`).
    #[serde(skip)]
    pub last_input: Option<PlayerInput>,
    /// The flags of the last input applied.
    pub player_flags: i32,
    /// Away (`m_Afk`), as the file can tell it. 20.1 makes a new player
    /// away (`SetInitialAfk`) until an input unlike the first it sent
    /// (`OnDirectInput` ignores that one, which the client sends by
    /// itself). DDNet decides when the input arrives, a few ticks before
    /// the tick that applies it (the only one the file records), so this
    /// ends at the latest tick it can. 16.4's new players are never away
    /// here: while the server process is younger than `sv_max_afk_time`
    /// (`time_get` counts from its start) their first input ends it, and
    /// that comes before the file records any (in the campaign's 16.4
    /// sessions, 6-12 ticks after joining and 55 before the first
    /// recorded input). Away again after `sv_max_afk_time` without
    /// action is the server's clock and not followed.
    #[serde(skip)]
    pub afk: bool,
    /// The last input unlike the one before (`m_pLastTarget`, zeros at
    /// first), and whether one came (`m_LastTargetInit`).
    #[serde(skip)]
    afk_target: (PlayerInput, bool),
    /// When it last killed itself (0 never).
    pub last_kill: i32,
    /// When it last changed team (0 never).
    pub last_set_team: i32,
    /// No team change before this tick.
    pub team_change_tick: i32,
    /// Paused by `/pause` or `/spec`: its inputs do not reach its
    /// character.
    pub pause: Pause,
    /// When the pause state last changed (`m_LastPause`, 0 never).
    pub last_pause: i32,
    /// A 0.7 client's team change, which the file does not record, took
    /// it to the spectators ([`super::world::UNRECORDED_TEAM_CHANGE`]):
    /// its way back into the game is not recorded either.
    pub unrecorded_spectator: bool,
    /// Its character died inside this tick's world step; the player's
    /// own tick removes it before any respawn, and frees these snapshot
    /// ids (`delete m_pCharacter`).
    pub(super) died_in_world: bool,
    #[serde(skip)]
    pub(super) dead_character_ids: [Option<i32>; 2],
    /// Its name, as its last `Cl_StartInfo` or `Cl_ChangeInfo` gave it
    /// (a load matches savegame members by name).
    #[serde(skip)]
    pub name: Vec<u8>,
    /// Its best race time in seconds, as DDNet keeps it
    /// (`CPlayerData::m_BestTime`, a float); `None` before its first
    /// finish. DDNet also asks the score database for it when the player
    /// joins (`CScore::LoadPlayerData`); the model's database is empty.
    pub best_time: Option<f32>,
    /// The tune zone it looks from (`CPlayer::m_TuneZone`, of
    /// `m_ViewPos` at its tick's end), which its explosions are tuned by:
    /// its character's while it plays; `None` while its view follows what
    /// it spectates or before its first character (not modelled).
    #[serde(skip)]
    pub(super) view_zone: Option<u8>,
}

impl Player {
    /// An input reached the player (`OnDirectInput`, 20.1): an action
    /// unless it is the first, or the last one again.
    pub(super) fn input_arrived(&mut self, input: PlayerInput) {
        let target = PlayerInput {
            player_flags: input.player_flags & !PLAYERFLAG_SCOREBOARD,
            ..input
        };
        let (last, sent) = &mut self.afk_target;
        if target != *last {
            if *sent {
                self.afk = false;
            }
            (*last, *sent) = (target, true);
        }
    }

    pub(super) fn new(tick: i32, release: Release) -> Player {
        Player {
            team: 0,
            in_game: false,
            spawning: false,
            die_tick: tick,
            prev_die_tick: tick,
            last_input: None,
            player_flags: 0,
            afk: release == Release::Ddnet20_1,
            afk_target: (PlayerInput::default(), false),
            last_kill: 0,
            last_set_team: 0,
            team_change_tick: tick,
            pause: Pause::None,
            last_pause: 0,
            unrecorded_spectator: false,
            died_in_world: false,
            dead_character_ids: [None; 2],
            name: Vec::new(),
            best_time: None,
            view_zone: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An aim at (x, 0) with these flags.
    fn input(x: i32, flags: i32) -> PlayerInput {
        PlayerInput {
            target_x: x,
            player_flags: flags,
            ..PlayerInput::default()
        }
    }

    /// After these inputs, is a 20.1 player away?
    fn afk_after(inputs: &[PlayerInput]) -> bool {
        let mut p = Player::new(0, Release::Ddnet20_1);
        for &i in inputs {
            p.input_arrived(i);
        }
        p.afk
    }

    #[test]
    fn a_player_is_away_until_an_input_unlike_its_first() {
        assert!(afk_after(&[]));
        // Zeros are `m_pLastTarget` already: not even the first.
        assert!(afk_after(&[input(0, 0), input(0, 0)]));
        assert!(afk_after(&[input(0, 0), input(5, 1)]));
        assert!(afk_after(&[input(5, 1), input(5, 1)]));
        assert!(!afk_after(&[input(5, 1), input(6, 1)]));
        assert!(!afk_after(&[input(5, 1), input(6, 1), input(6, 1)]));
        // The scoreboard opening is no action.
        assert!(afk_after(&[
            input(5, 1),
            input(5, 1 | PLAYERFLAG_SCOREBOARD)
        ]));
        assert!(!Player::new(0, Release::Ddnet16_4).afk);
    }
}
