//! The controller's DDRace teams (`CGameTeams`, `src/game/server/teams.cpp`)
//! as far as they decide where characters are: each team's race state,
//! who in it crossed the start line, a save or load waiting for the
//! database; and the savegames: `/save` kills the saved team at once,
//! TEAM_LOAD_SUCCESS puts every member where the team's string says,
//! PLAYER_SWAP exchanges two characters. Who is in which team is the
//! file's PLAYER_TEAM records ([`crate::simulation::physics::core::Teams`]); when the database
//! answered is the file's TEAM_SAVE_* and TEAM_LOAD_* records.
//!
//! Proved on DDNet 16.4's recordings (`phys_save_load_tsunami`); 20.1's
//! `/save` checks differ (team 0 mode, practice, `BlocksSave`) and are
//! reported as not modelled.

use super::World;
use crate::simulation::Release;
use crate::simulation::ddrace::character::{Slot, race, weapon};
use crate::simulation::ddrace::player::Pause;
use crate::simulation::ddrace::save::{SavedTeam, SavedTee};
use crate::simulation::physics::core::{MAX_CLIENTS, hook};

/// `TEAMSTATE_*`.
pub mod state {
    /// Nobody in it.
    pub const EMPTY: i32 = 0;
    /// Members, no race yet.
    pub const OPEN: i32 = 1;
    /// A member crossed the start line.
    pub const STARTED: i32 = 2;
    /// Started, but a member left before the start.
    pub const STARTED_UNFINISHABLE: i32 = 3;
    /// Finished.
    pub const FINISHED: i32 = 4;
    /// Something this world does not model (a finish) may have changed
    /// it.
    pub const UNKNOWN: i32 = -1;
}

/// No team (`TEAM_FLOCK`).
const TEAM_FLOCK: i32 = 0;
/// `sv_team` 2: racing needs a team of two or more.
const SV_TEAM_MANDATORY: i32 = 2;
/// `sv_team` 3: everyone is a team of one.
pub(super) const SV_TEAM_FORCED_SOLO: i32 = 3;

/// A save or load waiting for the database (`GetSaving`).
#[derive(Clone, Debug)]
enum Saving {
    /// `/save`: the team's state, its members as captured (client id
    /// and character) and its switches, put back if the save fails.
    Save(i32, Vec<(usize, SavedTee)>, Vec<(i32, i32, i32)>),
    /// `/load`.
    Load,
}

/// The teams' race bookkeeping.
#[derive(Clone, Debug)]
pub struct Race {
    /// Each team's [`state`].
    state: Vec<i32>,
    /// Each team's practice mode (TEAM_PRACTICE).
    practice: Vec<bool>,
    /// Each team's save or load under way.
    saving: Vec<Option<Saving>>,
    /// Each client crossed the start line with its team (`m_aTeeStarted`).
    tee_started: Vec<bool>,
    /// Each client crossed the finish line after that (`m_aTeeFinished`).
    tee_finished: Vec<bool>,
    /// Each client's last database query (`m_LastSQLQuery`).
    last_sql_query: Vec<i32>,
    /// The server's record on the map (`m_CurrentRecord`), in seconds.
    record: Option<f32>,
    /// 20.1's `CScore::LoadBestTime` under way.
    record_load: Option<RecordLoad>,
    /// The best time saved in the score database, which starts empty:
    /// 20.1 saves a finish unless a test command ran or the player is not
    /// eligible (`CScore::SaveScore`), and records each save in the file
    /// (PLAYER_FINISH).
    saved_best: Option<f32>,
    /// 16.4's answers to joins that came after a finish, as (tick, client
    /// id) in order, shared by the world's copies: only a witness (the
    /// server's demo, [`crate::simulation::demo_compare::join_answers`])
    /// knows their ticks; the model takes every other answer as come
    /// before the player's first finish.
    join_answers: std::sync::Arc<[(i32, usize)]>,
}

impl Race {
    /// No teams, nobody started.
    pub fn new() -> Race {
        Race {
            state: vec![state::EMPTY; MAX_CLIENTS + 1],
            practice: vec![false; MAX_CLIENTS + 1],
            saving: vec![None; MAX_CLIENTS + 1],
            tee_started: vec![false; MAX_CLIENTS],
            tee_finished: vec![false; MAX_CLIENTS],
            last_sql_query: vec![0; MAX_CLIENTS],
            record: None,
            record_load: None,
            saved_best: None,
            join_answers: std::sync::Arc::from([]),
        }
    }

    /// The server's record on the map after the controller's tick of
    /// `tick` (`SnapMapBestTime`).
    pub fn map_record(&self, tick: i32) -> Option<f32> {
        match self.record_load {
            Some(load) if tick > load.tick => load.best,
            _ => self.record,
        }
    }

    /// `team`'s state, if it is a team.
    pub fn state(&self, team: i32) -> Option<i32> {
        self.state.get(usize::try_from(team).ok()?).copied()
    }
}

impl Default for Race {
    fn default() -> Race {
        Race::new()
    }
}

/// 20.1's question for the map's record (`CScore::LoadBestTime`), asked
/// by a finish while the server had none. The database thread answers
/// with the best time saved when it reads (the asker's own save was
/// queued before the question, later finishes' after), and the
/// controller takes the answer in its tick (`IGameController::Tick`, after
/// the world's) once it is complete. How long the thread takes is not in
/// the file: the model has the answer in the next tick's controller, as
/// the recordings show it (a few milliseconds against a 20 ms tick).
#[derive(Clone, Copy, Debug)]
struct RecordLoad {
    /// The tick it was asked in.
    tick: i32,
    /// Who asked (whose save the answer includes).
    cid: usize,
    /// The best time saved when it was asked, then with the asker's.
    best: Option<f32>,
}

/// The index of a team number that is one.
fn team_index(team: i32) -> Option<usize> {
    usize::try_from(team).ok().filter(|&t| t <= MAX_CLIENTS)
}

impl World {
    /// 16.4's answers to joins at the ticks a witness showed them
    /// ([`Race::join_answers`]), in order.
    pub fn set_join_answers(&mut self, answers: &[(i32, usize)]) {
        self.race.join_answers = answers.into();
    }

    /// `CPlayer::Tick` first takes a completed answer to the player's join
    /// (`ProcessScoreResult`): an empty database's sets the score to no
    /// time (16.4 only; 20.1 leaves a score the answer has none for).
    pub(super) fn take_join_answers(&mut self) {
        let answers = &self.race.join_answers;
        let from = answers.partition_point(|&(t, _)| t < self.tick);
        for &(_, cid) in answers[from..].iter().take_while(|&&(t, _)| t == self.tick) {
            if let Some(p) = self.players.get_mut(cid).and_then(Option::as_mut) {
                p.best_time = None;
            }
        }
    }

    /// The server's record on the map, as this tick's snapshot shows it.
    pub fn map_record(&self) -> Option<f32> {
        self.race.map_record(self.tick)
    }

    /// The connected players in `team` (`Count`).
    fn team_size(&self, team: i32) -> usize {
        (0..MAX_CLIENTS)
            .filter(|&c| self.players[c].is_some() && self.cores.teams.team[c] == team)
            .count()
    }

    /// Something not modelled may kill or move every player of `team`.
    fn unmodelled_team(&mut self, team: i32, feature: &str) {
        for c in 0..MAX_CLIENTS {
            if self.players[c].is_some() && self.cores.teams.team[c] == team {
                self.unmodelled(c, feature);
            }
        }
    }

    /// Whether `team` is a DDRace team of its own (1 up to the super team).
    fn is_race_team(&self, team: i32) -> bool {
        team > TEAM_FLOCK && team < self.cores.teams.super_team
    }

    /// A DDRace team change (PLAYER_TEAM), with `SetForceCharacterTeam`'s
    /// state changes: the last member out empties a team, the first in
    /// opens it.
    pub fn set_ddrace_team(&mut self, cid: i32, team: i32) {
        let (Some(c), Some(new)) = (
            usize::try_from(cid).ok().filter(|&c| c < MAX_CLIENTS),
            team_index(team),
        ) else {
            return;
        };
        self.race.tee_started[c] = false;
        self.race.tee_finished[c] = false;
        let old = self.cores.teams.team[c];
        let forced_solo = self.config.sv_team == SV_TEAM_FORCED_SOLO;
        if let Some(o) = team_index(old)
            && team != old
            && (old != TEAM_FLOCK || forced_solo)
            && old != self.cores.teams.super_team
            && self.race.state[o] != state::EMPTY
            && self.team_size(old) <= 1
        {
            self.race.state[o] = state::EMPTY;
            self.race.practice[o] = false;
            self.reset_switchers(old);
        }
        // 20.1 removes what the player fired (`RemoveEntitiesFromPlayer`).
        if self.release == Release::Ddnet20_1 && team != old {
            for p in self.projectiles.iter().filter(|p| p.owner == cid) {
                self.snap_ids.free(p.snap_id, self.tick);
            }
            for l in self.lasers.iter().filter(|l| l.owner == cid) {
                self.snap_ids.free(l.snap_id, self.tick);
            }
            self.projectiles.retain(|p| p.owner != cid);
            self.lasers.retain(|l| l.owner != cid);
        }
        self.cores.teams.team[c] = team;
        if team != self.cores.teams.super_team && self.race.state[new] == state::EMPTY {
            self.race.state[new] = state::OPEN;
            self.reset_switchers(team);
        }
    }

    /// TEAM_PRACTICE.
    pub fn set_practice(&mut self, team: i32, practice: bool) {
        if let Some(t) = team_index(team) {
            self.race.practice[t] = practice;
        }
    }

    /// `CGameTeams::IsPractice` of `team`.
    pub(super) fn is_practice(&self, team: i32) -> bool {
        team_index(team).is_some_and(|t| self.race.practice[t])
    }

    /// The start line under `cid`'s character (`HandleCharacterTiles`'s
    /// start, `OnCharacterStart`). False when it killed the character.
    pub(super) fn start_line(&mut self, cid: usize) -> bool {
        let Some(ch) = self.chars[cid].as_ref() else {
            return false;
        };
        let ddrace_state = ch.ddrace_state;
        if ddrace_state == race::CHEAT {
            return true;
        }
        let team = self.cores.teams.team[cid];
        let saving = team_index(team).is_some_and(|t| self.race.saving[t].is_some());
        let mandatory = self.config.sv_team == SV_TEAM_MANDATORY
            && (team == TEAM_FLOCK || self.team_size(team) <= 1);
        if saving || mandatory {
            self.die_in_world(cid);
            return false;
        }
        // `sv_team 3`: everyone is a team of their own (team 0 too), and
        // one who started or finished does not start again.
        let forced_solo = self.config.sv_team == SV_TEAM_FORCED_SOLO;
        if forced_solo && ddrace_state == race::STARTED {
            return true;
        }
        let tick = self.tick;
        if !forced_solo && (team == TEAM_FLOCK || team == self.cores.teams.super_team) {
            self.race.tee_started[cid] = true;
            if let Some(ch) = self.chars[cid].as_mut() {
                ch.ddrace_state = race::STARTED;
                ch.start_tick = tick;
            }
            return true;
        }
        if ddrace_state == race::FINISHED {
            return true;
        }
        let Some(t) = team_index(team) else {
            return true;
        };
        // A member who finished makes the others wait: finishes are not
        // modelled, so neither is the team from here on.
        if (0..MAX_CLIENTS).any(|c| {
            self.cores.teams.team[c] == team
                && self.chars[c]
                    .as_ref()
                    .is_some_and(|ch| ch.ddrace_state == race::FINISHED)
        }) {
            self.race.state[t] = state::UNKNOWN;
            return true;
        }
        self.race.tee_started[cid] = true;
        if self.race.state[t] < state::STARTED && self.race.state[t] != state::UNKNOWN {
            self.race.state[t] = state::STARTED;
            for c in 0..MAX_CLIENTS {
                if self.cores.teams.team[c] == team
                    && let Some(ch) = self.chars[c].as_mut()
                {
                    ch.ddrace_state = race::STARTED;
                    ch.start_tick = tick;
                }
            }
        }
        true
    }

    /// The finish line, for a character whose race was `race_before`
    /// when its tiles were read (`OnCharacterFinish`).
    pub(super) fn finish_line(&mut self, cid: usize, race_before: i32) {
        let team = self.cores.teams.team[cid];
        if self.chars[cid].is_none() || race_before != race::STARTED {
            return;
        }
        let forced_solo = self.config.sv_team == SV_TEAM_FORCED_SOLO;
        if (team == TEAM_FLOCK && !forced_solo) || team == self.cores.teams.super_team {
            self.finish(cid);
        } else if let Some(t) = team_index(team) {
            if self.race.tee_started[cid] {
                self.race.tee_finished[cid] = true;
            }
            self.team_finished(team, t);
        }
    }

    /// `CheckTeamFinished`: a started team whose every member crossed the
    /// finish line finishes, in its first playing member's time (the
    /// team's members share `m_StartTime`); in practice mode without a
    /// rank.
    fn team_finished(&mut self, team: i32, t: usize) {
        // `sv_team 3` starts every client in a team of its own
        // (`CTeamsCore::Reset`); the file names teams only for players.
        let forced_solo = self.config.sv_team == SV_TEAM_FORCED_SOLO;
        let team_of = |c: usize| match self.cores.teams.team[c] {
            0 if forced_solo && self.players[c].is_none() => c as i32,
            t => t,
        };
        if self.race.state[t] != state::STARTED
            || (0..MAX_CLIENTS).any(|c| team_of(c) == team && !self.race.tee_finished[c])
        {
            return;
        }
        let playing: Vec<usize> = (0..MAX_CLIENTS)
            .filter(|&c| {
                self.cores.teams.team[c] == team
                    && self.players[c].is_some()
                    && self.chars[c].is_some()
            })
            .collect();
        for &c in &playing {
            self.race.tee_started[c] = false;
            self.race.tee_finished[c] = false;
        }
        let Some(start) = playing
            .first()
            .and_then(|&c| self.chars[c].as_ref())
            .map(|ch| ch.start_tick)
        else {
            return;
        };
        let ticks = self.tick.wrapping_sub(start);
        if ticks <= 0 {
            return;
        }
        if !self.race.practice[t] {
            for &c in &playing {
                self.on_finish(c, ticks);
            }
        }
        for &c in &playing {
            if let Some(ch) = self.chars[c].as_mut() {
                ch.ddrace_state = race::FINISHED;
            }
        }
        self.race.state[t] = state::FINISHED;
        // `OnTeamFinish`: the finished team rejoins team 0 at once, so
        // the characters that tick after the finisher's in this tick meet
        // its members there. (It skips a locked team; `/lock` is not
        // modelled, so its players are not judged. The PLAYER_TEAM records
        // that follow find them in team 0 already.)
        if !self.race.practice[t] && self.config.sv_rejoin_team_0 != 0 && !forced_solo {
            for &c in &playing {
                self.set_ddrace_team(c as i32, TEAM_FLOCK);
            }
        }
    }

    /// `OnCharacterFinish` without a team: the race's time is the ticks
    /// from `m_StartTime`; a race of no ticks does not finish.
    fn finish(&mut self, cid: usize) {
        let Some(ch) = self.chars[cid].as_ref() else {
            return;
        };
        let ticks = self.tick.wrapping_sub(ch.start_tick);
        if ticks > 0 {
            self.on_finish(cid, ticks);
        }
    }

    /// `CGameTeams::OnFinish` of a race of `ticks` (seconds as a float):
    /// the time becomes the player's best if it is better and lowers the
    /// server's record; 20.1 without a record asks the database for it
    /// instead ([`RecordLoad`]), and shows the confetti.
    fn on_finish(&mut self, cid: usize, ticks: i32) {
        let tick = self.tick;
        let Some(ch) = self.chars[cid].as_ref() else {
            return;
        };
        let (time, pos) = (ticks as f32 / 50.0, ch.pos);
        if let Some(p) = self.players[cid].as_mut() {
            p.best_time = Some(p.best_time.map_or(time, |b| b.min(time)));
        }
        let race = &mut self.race;
        match self.release {
            // `m_CurrentRecord == 0 || Time < m_CurrentRecord`.
            Release::Ddnet16_4 => {
                race.record = Some(race.record.map_or(time, |r| r.min(time)));
            }
            Release::Ddnet20_1 => {
                // The controller of the tick before took any answer.
                if let Some(load) = race.record_load.filter(|l| tick > l.tick.saturating_add(1)) {
                    race.record = load.best;
                    race.record_load = None;
                }
                match race.record {
                    // A question under way is not asked again.
                    None if race.record_load.is_none() => {
                        race.record_load = Some(RecordLoad {
                            tick,
                            cid,
                            best: race.saved_best,
                        });
                    }
                    None => {}
                    Some(r) => race.record = Some(r.min(time)),
                }
            }
        }
        if let Some(ch) = self.chars[cid].as_mut() {
            ch.ddrace_state = race::FINISHED;
        }
        if self.release == Release::Ddnet20_1 {
            self.effect(crate::simulation::ddrace::effects::Effect::finish(pos));
        }
    }

    /// PLAYER_FINISH (20.1's `CScore::SaveScore`): `cid`'s race of
    /// `ticks` went into the score database, after its finish in this
    /// tick.
    pub fn finish_saved(&mut self, cid: i32, ticks: i32) {
        let time = ticks as f32 / 50.0;
        let race = &mut self.race;
        race.saved_best = Some(race.saved_best.map_or(time, |b| b.min(time)));
        if let Some(load) = race.record_load.as_mut()
            && load.tick == self.tick
            && usize::try_from(cid).is_ok_and(|c| c == load.cid)
        {
            load.best = Some(load.best.map_or(time, |b| b.min(time)));
        }
    }

    /// `OnCharacterDeath` of an unlocked team: a member who had not
    /// crossed the start line leaves a started team unfinishable, and the
    /// dead player moves to team 0 inside its death
    /// (`SetForceCharacterTeam`: in 20.1 what it fired goes before the
    /// tick's snapshot; the PLAYER_TEAM record that follows says so). With
    /// `sv_team 3` the team of one is open again (`ResetRoundState`).
    pub(super) fn race_death(&mut self, cid: usize) {
        let team = self.cores.teams.team[cid];
        let Some(t) = team_index(team) else {
            return;
        };
        let leaves = self.death_leaves_team(cid);
        if self.race.saving[t].is_some() {
            return;
        }
        if self.config.sv_team == SV_TEAM_FORCED_SOLO && team != self.cores.teams.super_team {
            self.death_resets_switchers(cid);
            self.race.state[t] = state::OPEN;
            self.race.practice[t] = false;
            return;
        }
        if self.is_race_team(team)
            && self.race.state[t] == state::STARTED
            && !self.race.tee_started[cid]
        {
            self.race.state[t] = state::STARTED_UNFINISHABLE;
        }
        if leaves {
            self.set_ddrace_team(cid as i32, TEAM_FLOCK);
        }
    }

    /// Whether `cid`'s death (`OnCharacterDeath` of an unlocked team) moves
    /// its player to team 0 (`SetForceCharacterTeam`).
    pub(super) fn death_leaves_team(&self, cid: usize) -> bool {
        let team = self.cores.teams.team[cid];
        let forced_solo = self.config.sv_team == SV_TEAM_FORCED_SOLO;
        team != TEAM_FLOCK
            && team_index(team).is_some_and(|t| self.race.saving[t].is_none())
            && !(forced_solo && team != self.cores.teams.super_team)
    }

    /// Kill protection (`sv_kill_protection`): `cid` has raced for that
    /// many minutes, so `Cl_Kill` is refused and `/kill` is needed.
    pub(super) fn kill_protected(&self, cid: usize) -> bool {
        let minutes = self.config.sv_kill_protection;
        self.chars[cid].as_ref().is_some_and(|ch| {
            let seconds = (i64::from(self.tick) - i64::from(ch.start_tick)) / 50;
            minutes != 0 && seconds >= 60 * i64::from(minutes) && ch.ddrace_state == race::STARTED
        })
    }

    /// `/kill` (`ConProtectedKill`): kills only a protected racer (20.1
    /// also asks for the respawn).
    pub(super) fn protected_kill(&mut self, cid: usize) {
        if !self.kill_protected(cid) {
            return;
        }
        self.kill_now(cid);
        if self.release == Release::Ddnet20_1
            && let Some(p) = self.players[cid].as_mut()
            && p.team != crate::simulation::ddrace::player::TEAM_SPECTATORS
        {
            p.spawning = true;
        }
    }

    /// `RateLimitPlayer`: true when `cid` queried the database within
    /// `sv_sql_queries_delay` seconds; else the query counts from now.
    pub(super) fn rate_limited(&mut self, cid: usize) -> bool {
        let delay = self.config.sv_sql_queries_delay;
        let last = &mut self.race.last_sql_query[cid];
        if i64::from(*last) + i64::from(delay) * 50 >= i64::from(self.tick) {
            return true;
        }
        *last = self.tick;
        false
    }

    /// `/save` (`CScore::SaveTeam`, `CSaveTeam::Save`): a started team
    /// whose every member has a character is captured and killed; the
    /// database's answer comes as TEAM_SAVE_SUCCESS or _FAILURE.
    pub(super) fn save(&mut self, cid: usize) {
        if self.config.sv_savegames == 0 {
            return;
        }
        let team = self.cores.teams.team[cid];
        if self.release == Release::Ddnet20_1 || self.config.sv_team == SV_TEAM_FORCED_SOLO {
            // Every member may be killed.
            self.unmodelled_team(team, "console command `save`");
            return;
        }
        if self.rate_limited(cid) {
            return;
        }
        let Some(t) = team_index(team) else {
            return;
        };
        if self.race.saving[t].is_some() || !self.is_race_team(team) {
            return;
        }
        let members = self.team_size(team);
        match self.race.state[t] {
            state::STARTED if members > 0 => {}
            state::UNKNOWN => {
                self.unmodelled_team(team, "`save` of a team whose race state is not modelled");
                return;
            }
            _ => return,
        }
        let tees: Vec<(usize, SavedTee)> = self
            .order
            .iter()
            .filter(|&&c| self.cores.teams.team[c] == team)
            .filter_map(|&c| Some((c, self.capture(c)?)))
            .collect();
        if tees.len() != members {
            return;
        }
        let switchers = self.saved_switchers(team);
        self.race.saving[t] = Some(Saving::Save(self.race.state[t], tees, switchers));
        // `KillTeam(Team, -1)`: no respawn asked; they come back as any
        // dead player does.
        for c in 0..MAX_CLIENTS {
            if self.players[c].is_some() && self.cores.teams.team[c] == team {
                self.kill_now(c);
            }
        }
    }

    /// `/load CODE` (`CScore::LoadTeam`): an open team waits for the
    /// database (the start line kills meanwhile).
    pub(super) fn load(&mut self, cid: usize) {
        if self.config.sv_savegames == 0 || self.rate_limited(cid) {
            return;
        }
        let team = self.cores.teams.team[cid];
        let Some(t) = team_index(team) else {
            return;
        };
        let forced_solo = self.config.sv_team == SV_TEAM_FORCED_SOLO;
        if self.race.saving[t].is_some()
            || team >= MAX_CLIENTS as i32
            || (!forced_solo && team == TEAM_FLOCK)
            || self.race.state[t] != state::OPEN
            || (self.release == Release::Ddnet20_1 && self.race.practice[t])
        {
            return;
        }
        self.race.saving[t] = Some(Saving::Load);
    }

    /// TEAM_SAVE_SUCCESS or _FAILURE (`ProcessSaveTeam`): a failed save
    /// puts the team back as it was captured.
    pub fn save_result(&mut self, team: i32, success: bool) {
        let Some(t) = team_index(team) else {
            return;
        };
        let saving = self.race.saving[t].take();
        if success {
            return;
        }
        match saving {
            Some(Saving::Save(team_state, members, switchers)) => {
                if self.team_size(team) > 0 {
                    let members = members
                        .into_iter()
                        .map(|(c, tee)| {
                            let hooked = tee.hooked_player;
                            (c, tee, hooked)
                        })
                        .collect();
                    self.load_members(team, team_state, members, false);
                    self.load_switchers(team, &switchers);
                }
            }
            _ => self.unmodelled_team(team, "a failed save that no `/save` began"),
        }
    }

    /// TEAM_LOAD_SUCCESS (`ProcessSaveTeam`, `CSaveTeam::Load(Team,
    /// true)`): the team's state, and each member of the string whose
    /// name a player of `team` has is put where it says (a member without
    /// a character gets one there). `save` None: TEAM_LOAD_FAILURE.
    pub fn load_result(&mut self, team: i32, save: Option<&[u8]>) {
        let Some(t) = team_index(team) else {
            return;
        };
        self.race.saving[t] = None;
        let Some(text) = save else {
            return;
        };
        let saved = match SavedTeam::parse(text, self.release) {
            Ok(s) => s,
            Err(e) => {
                for c in 0..MAX_CLIENTS {
                    if self.players[c].is_some() && self.cores.teams.team[c] == team {
                        self.unmodelled(
                            c,
                            &format!("a loaded savegame this world cannot read ({e})"),
                        );
                    }
                }
                return;
            }
        };
        // `MatchPlayers`: each saved name to a player of the team, then
        // each hooked member's index to that player's client id.
        let cids: Vec<Option<usize>> = saved
            .members
            .iter()
            .map(|tee| {
                self.client_named(&tee.name)
                    .filter(|&c| self.cores.teams.team[c] == team)
            })
            .collect();
        if let Some((tee, _)) = saved.members.iter().zip(&cids).find(|(_, c)| c.is_none()) {
            let feature = format!(
                "a loaded savegame's member {:?} no player of the team is named",
                tee.name
            );
            self.unmodelled_team(team, &feature);
            return;
        }
        let members: Vec<(usize, SavedTee, i32)> = saved
            .members
            .iter()
            .zip(&cids)
            .filter_map(|(tee, &cid)| {
                let hooked = usize::try_from(tee.hooked_player)
                    .ok()
                    .and_then(|i| cids.get(i).copied().flatten())
                    .map_or(-1, |c| c as i32);
                Some((cid?, tee.clone(), hooked))
            })
            .collect();
        self.load_members(team, saved.team_state, members, true);
        self.load_switchers(team, &saved.switchers);
    }

    /// `CSaveTeam::Load`: the team's state, then each member from the
    /// last, into the character it has (`keep`) or a new one at the
    /// saved position.
    fn load_members(
        &mut self,
        team: i32,
        team_state: i32,
        members: Vec<(usize, SavedTee, i32)>,
        keep: bool,
    ) {
        if let Some(t) = team_index(team) {
            self.race.state[t] = team_state;
        }
        for (cid, tee, hooked) in members.into_iter().rev() {
            if self.players[cid].is_none() || self.cores.teams.team[cid] != team {
                continue;
            }
            if !keep || self.chars[cid].is_none() {
                self.kill_now(cid);
                self.spawn_at(cid, tee.pos);
            }
            self.load_tee(cid, &tee, team, false, hooked);
        }
    }

    /// PLAYER_SWAP (`SwapTeamCharacters`): each character takes the
    /// other's state, then every hook, projectile and laser of one is
    /// the other's.
    pub fn swap(&mut self, cid1: i32, cid2: i32) {
        let ok = |c: i32| usize::try_from(c).ok().filter(|&c| c < MAX_CLIENTS);
        let (Some(a), Some(b)) = (ok(cid1), ok(cid2)) else {
            return;
        };
        let (Some(ta), Some(tb)) = (self.capture(a), self.capture(b)) else {
            return;
        };
        let team = self.cores.teams.team[a];
        let (ha, hb) = (ta.hooked_player, tb.hooked_player);
        self.load_tee(b, &ta, team, true, ha);
        self.load_tee(a, &tb, team, true, hb);
        self.race.tee_started.swap(a, b);
        self.race.tee_finished.swap(a, b);
        let other = |c: i32| {
            if c == a as i32 {
                b as i32
            } else if c == b as i32 {
                a as i32
            } else {
                c
            }
        };
        for core in self.cores.slots.iter_mut().flatten() {
            core.hooked_player = other(core.hooked_player);
        }
        for p in &mut self.projectiles {
            p.owner = other(p.owner);
        }
        for l in &mut self.lasers {
            l.owner = other(l.owner);
        }
    }

    /// The connected client with `name`.
    fn client_named(&self, name: &str) -> Option<usize> {
        (0..MAX_CLIENTS).find(|&c| {
            self.players[c]
                .as_ref()
                .is_some_and(|p| p.name.as_slice() == name.as_bytes())
        })
    }

    /// `CSaveTee::Save` of `cid`'s character, as the world holds it.
    fn capture(&self, cid: usize) -> Option<SavedTee> {
        let (ch, core, p) = (
            self.chars[cid].as_ref()?,
            self.core(cid)?,
            self.players[cid].as_ref()?,
        );
        let tick = self.tick;
        Some(SavedTee {
            name: String::from_utf8_lossy(&p.name).into_owned(),
            // Spectating counts only once the character left the world.
            paused: match p.pause {
                Pause::Spec if !ch.paused => 0,
                pause => pause.number(),
            },
            solo: self.cores.teams.solo[cid],
            weapons_got: std::array::from_fn(|w| ch.weapons[w].got),
            last_weapon: ch.last_weapon,
            queued_weapon: ch.queued_weapon,
            endless_jump: core.endless_jump,
            jetpack: ch.jetpack,
            ninja_jetpack: false,
            freeze_time: ch.freeze_time,
            freeze_age: tick - ch.freeze_start,
            deep_frozen: ch.deep_frozen,
            live_frozen: ch.live_frozen,
            endless_hook: core.endless_hook,
            ddrace_state: ch.ddrace_state,
            time: if ch.start_tick != 0 {
                tick - ch.start_tick + self.config.sv_saveswapgames_penalty * 50
            } else {
                0
            },
            hit_disabled_flags: 0,
            collision_enabled: !core.collision_disabled,
            hook_hit_enabled: !core.hook_hit_disabled,
            pos: ch.pos,
            prev_pos: ch.prev_pos,
            tele_checkpoint: ch.tele_checkpoint,
            core_pos: core.pos,
            vel: core.vel,
            active_weapon: ch.active_weapon,
            jumped: core.jumped,
            jumped_total: core.jumped_total,
            jumps: core.jumps,
            hook_pos: core.hook_pos,
            hook_dir: core.hook_dir,
            hook_tele_base: core.hook_tele_base,
            hook_tick: core.hook_tick,
            hook_state: core.hook_state,
            telegun: [false; 3],
            hooked_player: core.hooked_player,
            new_hook: core.new_hook,
            input: [
                ch.saved_input.direction,
                ch.saved_input.jump,
                ch.saved_input.fire,
                ch.saved_input.hook,
            ],
            reload_timer: ch.reload_timer,
            tee_started: self.race.tee_started[cid],
            ninja: (self.release == Release::Ddnet20_1).then(|| {
                let since = if ch.ninja_activation_tick != 0 {
                    tick - ch.ninja_activation_tick
                } else {
                    0
                };
                (
                    ch.ninja.activation_dir,
                    since,
                    ch.ninja.current_move_time,
                    ch.ninja.old_vel_amount,
                )
            }),
        })
    }

    /// `CSaveTee::Load` into `cid`'s character, a member of `team`;
    /// `hooked` the client id the hook holds. A swap keeps who crossed
    /// the start line, and in 20.1 does not check the hooked player's team.
    fn load_tee(&mut self, cid: usize, tee: &SavedTee, team: i32, swap: bool, hooked: i32) {
        let tick = self.tick;
        let release = self.release;
        if tee.paused > 1 {
            self.unmodelled(cid, "a loaded spectator (PAUSE_SPEC)");
        }
        if tee.ninja_jetpack || tee.telegun.contains(&true) || tee.hit_disabled_flags != 0 {
            self.unmodelled(
                cid,
                "a loaded jetpack ninja, telegun or disabled weapon hits",
            );
        }
        // `Pause(m_Paused, true)`.
        let pause = match tee.paused {
            1 => Pause::Paused,
            2 => Pause::Spec,
            _ => Pause::None,
        };
        self.set_pause(cid, pause, true);
        if !swap {
            self.race.tee_started[cid] = tee.tee_started;
        }
        let hooked_elsewhere = (release == Release::Ddnet16_4 || !swap)
            && hooked != -1
            && self.cores.teams.team.get(hooked as usize) != Some(&team);
        let solid_at_hook = self.col.collision_at(tee.hook_pos)
            == crate::simulation::physics::collision::TILE_SOLID;
        let (Some(ch), Some(core)) = (self.chars[cid].as_mut(), self.cores.slots[cid].as_mut())
        else {
            return;
        };
        for (slot, &got) in ch.weapons.iter_mut().zip(&tee.weapons_got) {
            *slot = Slot { got, ammo: -1 };
        }
        if let Some((dir, since, move_time, old_vel)) = tee.ninja {
            ch.ninja.activation_dir = dir;
            ch.ninja_activation_tick = if since != 0 { tick - since } else { 0 };
            ch.ninja.current_move_time = move_time;
            ch.ninja.old_vel_amount = old_vel;
        }
        ch.last_weapon = tee.last_weapon;
        ch.queued_weapon = tee.queued_weapon;
        core.endless_jump = tee.endless_jump;
        ch.jetpack = tee.jetpack;
        // `HAMMER_HIT_DISABLED` 1, `SHOTGUN_` 2, `GRENADE_` 4, `LASER_` 8.
        for (bit, w) in [
            (1, weapon::HAMMER),
            (2, weapon::SHOTGUN),
            (4, weapon::GRENADE),
            (8, weapon::LASER),
        ] {
            ch.hit_disabled[w as usize] = tee.hit_disabled_flags & bit != 0;
        }
        ch.freeze_time = tee.freeze_time;
        ch.freeze_start = tick - tee.freeze_age;
        ch.deep_frozen = tee.deep_frozen;
        ch.live_frozen = tee.live_frozen;
        core.endless_hook = tee.endless_hook;
        ch.ddrace_state = tee.ddrace_state;
        if tee.time != 0 {
            ch.start_tick = tick - tee.time;
        }
        ch.pos = tee.pos;
        ch.prev_pos = tee.prev_pos;
        ch.tele_checkpoint = tee.tele_checkpoint;
        core.pos = tee.core_pos;
        core.vel = tee.vel;
        core.hook_hit_disabled = !tee.hook_hit_enabled;
        core.collision_disabled = !tee.collision_enabled;
        ch.active_weapon = tee.active_weapon;
        core.jumped = tee.jumped;
        core.jumped_total = tee.jumped_total;
        core.jumps = tee.jumps;
        core.hook_pos = tee.hook_pos;
        core.hook_dir = tee.hook_dir;
        core.hook_tele_base = tee.hook_tele_base;
        core.hook_tick = tee.hook_tick;
        core.hook_state = tee.hook_state;
        if hooked_elsewhere {
            core.hooked_player = -1;
            core.hook_state = hook::FLYING;
        } else {
            core.hooked_player = hooked;
        }
        // 20.1: a hook held by the ground needs solid ground there.
        if release == Release::Ddnet20_1
            && core.hook_state == hook::GRABBED
            && core.hooked_player == -1
            && !solid_at_hook
        {
            core.hook_state = hook::RETRACTED;
            core.hook_pos = core.pos;
        }
        core.new_hook = tee.new_hook;
        let [direction, jump, fire, hook_input] = tee.input;
        ch.saved_input.direction = direction;
        ch.saved_input.jump = jump;
        ch.saved_input.fire = fire;
        ch.saved_input.hook = hook_input;
        ch.reload_timer = tee.reload_timer;
        self.set_solo(cid, tee.solo);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::tiles::Tile;
    use crate::simulation::ddrace::config::Config;
    use crate::simulation::ddrace::effects::Effect;
    use crate::simulation::physics::Vec2;
    use crate::simulation::physics::collision::Collision;
    use crate::simulation::physics::tuning::{Tuning, Tunings};

    const CHAT: i32 = 128;
    /// A 20x10 map: a floor on row 8, a start line in column 10, a
    /// finish line in column 12, a spawn at (2, 7).
    const START: usize = 5 * 20 + 10;
    const FINISH: usize = 5 * 20 + 12;

    /// Players 0 and 1 ("a", "b") spawned, at tick 100.
    fn world(release: Release) -> World {
        world_with(release, Config::new(release))
    }

    /// [`world`] under `config`.
    fn world_with(release: Release, config: Config) -> World {
        let (w, h) = (20, 10);
        let mut tiles = vec![Tile::default(); w * h];
        for t in &mut tiles[8 * w..9 * w] {
            t.index = 1;
        }
        for y in 0..8 {
            tiles[y * w + 10].index = 33;
            tiles[y * w + 12].index = 34;
        }
        tiles[7 * w + 2].index = 192;
        let col = Collision::new(w as i32, h as i32, &tiles).expect("a grid");
        let tunings = Tunings::new(release, Tuning::ddrace(release));
        let mut world = World::new(release, col, config, tunings, 100);
        for (cid, name) in [(0, b"a"), (1, b"b")] {
            world.join(cid);
            world.set_name(cid, name);
            world.ready(cid);
        }
        world.step();
        assert!(world.character(0).is_some() && world.character(1).is_some());
        world
    }

    fn alive(w: &World) -> [bool; 2] {
        [w.character(0).is_some(), w.character(1).is_some()]
    }

    #[test]
    fn kill_protection_turns_cl_kill_into_slash_kill() {
        for v in [Release::Ddnet16_4, Release::Ddnet20_1] {
            let mut w = world(v);
            w.config.sv_kill_protection = 1;
            assert!(w.handle_tiles(0, Some(START)));
            assert_eq!(w.character(0).map(|c| c.ddrace_state), Some(race::STARTED));
            // Within the minute: `/kill` does nothing, Cl_Kill kills.
            w.tick += 2999;
            w.console_command::<&[u8]>(0, CHAT, b"kill", &[]);
            assert_eq!(alive(&w), [true, true]);
            let mut late = w.clone();
            w.kill(0);
            assert_eq!(alive(&w), [false, true]);
            // After it: Cl_Kill is refused, `/kill` kills.
            late.tick += 1;
            late.kill(0);
            assert_eq!(alive(&late), [true, true]);
            late.console_command::<&[u8]>(0, CHAT, b"kill", &[]);
            assert_eq!(alive(&late), [false, true]);
            // 20.1 asks for the respawn at once; 16.4 waits.
            let spawning = late.player(0).is_some_and(|p| p.spawning);
            assert_eq!(spawning, v == Release::Ddnet20_1);
        }
    }

    #[test]
    fn a_paused_player_keeps_its_team_and_character() {
        for v in [Release::Ddnet16_4, Release::Ddnet20_1] {
            let mut w = world(v);
            w.tick += 200;
            w.console_command::<&[u8]>(0, CHAT, b"pause", &[]);
            w.set_team(0, crate::simulation::ddrace::player::TEAM_SPECTATORS);
            assert_eq!(alive(&w), [true, true], "{v:?}: refused while paused");
            w.console_command::<&[u8]>(0, CHAT, b"pause", &[]);
            w.set_team(0, crate::simulation::ddrace::player::TEAM_SPECTATORS);
            assert_eq!(alive(&w), [false, true], "{v:?}: unpaused, it goes");
        }
    }

    #[test]
    fn save_kills_only_a_started_team_and_its_start_line_kills_meanwhile() {
        let mut w = world(Release::Ddnet16_4);
        // Team 0 and an open team: nothing.
        w.console_command(0, CHAT, b"save", &[b"pw".as_slice()]);
        assert_eq!(alive(&w), [true, true]);
        w.set_ddrace_team(0, 1);
        w.set_ddrace_team(1, 1);
        assert_eq!(w.race.state(1), Some(state::OPEN));
        w.tick += 100;
        w.console_command(0, CHAT, b"save", &[b"pw".as_slice()]);
        assert_eq!(alive(&w), [true, true]);
        // A member over the start line starts the team: the save kills
        // both (after the second a query is allowed again).
        assert!(w.handle_tiles(1, Some(START)));
        assert_eq!(w.race.state(1), Some(state::STARTED));
        w.tick += 51;
        let before = [w.core(0).map(|c| c.pos), w.core(1).map(|c| c.pos)];
        w.console_command(0, CHAT, b"save", &[b"pw".as_slice()]);
        assert_eq!(alive(&w), [false, false]);
        // Had the database failed, the team would be back where it was.
        let mut failed = w.clone();
        failed.save_result(1, false);
        let after = [failed.core(0).map(|c| c.pos), failed.core(1).map(|c| c.pos)];
        assert_eq!(after, before);
        assert_eq!(failed.race.state(1), Some(state::STARTED));
        // Respawned while the database works, the start line kills.
        w.step();
        w.step();
        assert_eq!(alive(&w), [true, true]);
        assert!(!w.handle_tiles(0, Some(START)));
        assert_eq!(alive(&w), [false, true]);
        w.save_result(1, true);
        assert!(w.handle_tiles(1, Some(START)));
    }

    #[test]
    fn a_load_puts_each_member_of_the_team_where_its_string_says() {
        let mut w = world(Release::Ddnet16_4);
        w.set_ddrace_team(0, 1);
        w.set_ddrace_team(1, 1);
        w.console_command(0, CHAT, b"load", &[b"pw".as_slice()]);
        w.load_result(1, Some(crate::simulation::ddrace::save::SAVED.as_bytes()));
        let core = |c: usize| w.core(c).map(|c| (c.pos, c.vel));
        assert_eq!(
            core(0),
            Some((Vec2::new(1620.0, 5833.0), Vec2::new(0.003906, -10.699219)))
        );
        assert_eq!(
            core(1),
            Some((Vec2::new(1681.0, 5905.0), Vec2::new(0.0, 0.0)))
        );
        assert_eq!(w.race.state(1), Some(state::STARTED));
        assert!(w.unmodelled.is_empty(), "{:?}", w.unmodelled);
        // A member no player of the team is named: not modelled.
        let mut w = world(Release::Ddnet16_4);
        w.set_ddrace_team(0, 1);
        w.set_name(1, b"c");
        w.load_result(1, Some(crate::simulation::ddrace::save::SAVED.as_bytes()));
        assert_eq!(w.unmodelled.len(), 1, "{:?}", w.unmodelled);
    }

    #[test]
    fn with_sv_team_3_each_tee_is_a_solo_team_that_starts_once_a_life() {
        for v in [Release::Ddnet16_4, Release::Ddnet20_1] {
            let mut config = Config::new(v);
            config.sv_team = SV_TEAM_FORCED_SOLO;
            let mut w = world_with(v, config);
            // Spawned solo; player 1 in a team of its own (its
            // PLAYER_TEAM), player 0 in team 0, which is one here too.
            assert_eq!(w.cores.teams.solo[..2], [true, true]);
            w.set_ddrace_team(1, 1);
            for c in [0, 1] {
                assert!(w.handle_tiles(c, Some(START)));
                assert_eq!(w.character(c).map(|c| c.ddrace_state), Some(race::STARTED));
            }
            assert_eq!((w.race.state(0), w.race.state(1)), (Some(2), Some(2)));
            // Started, the line does nothing until the tee dies: its team
            // is open again.
            w.tick += 10;
            assert!(w.handle_tiles(1, Some(START)));
            assert_eq!(w.character(1).map(|c| c.start_tick), Some(w.tick - 10));
            w.kill_now(1);
            assert_eq!(w.race.state(1), Some(state::OPEN));
        }
    }

    #[test]
    fn a_swap_exchanges_two_characters() {
        let mut w = world(Release::Ddnet16_4);
        w.set_ddrace_team(0, 1);
        w.set_ddrace_team(1, 1);
        let pos = |w: &World, c: usize| w.core(c).map(|c| c.pos);
        if let Some(c) = w.cores.slots[1].as_mut() {
            c.pos = Vec2::new(300.0, 240.0);
        }
        let (a, b) = (pos(&w, 0), pos(&w, 1));
        w.swap(1, 0);
        assert_eq!((pos(&w, 0), pos(&w, 1)), (b, a));
    }

    /// Starts `cid`'s race now and crosses the finish `ticks` later.
    fn race(w: &mut World, cid: usize, ticks: i32) {
        assert!(w.handle_tiles(cid, Some(START)));
        w.tick += ticks;
        assert!(w.handle_tiles(cid, Some(FINISH)));
    }

    fn best(w: &World, cid: usize) -> Option<f32> {
        w.player(cid).and_then(|p| p.best_time)
    }

    #[test]
    fn a_finish_keeps_the_players_best_time_in_seconds_of_fifty_ticks() {
        for v in [Release::Ddnet16_4, Release::Ddnet20_1] {
            let mut w = world(v);
            // Events in every tick's snapshot.
            w.config.sv_high_bandwidth = 1;
            // `OnCharacterFinish`: 51 ticks are 51 / 50.0f seconds.
            race(&mut w, 0, 51);
            assert_eq!(best(&w, 0), Some(1.02f32), "{v:?}");
            assert_eq!(w.character(0).map(|c| c.ddrace_state), Some(race::FINISHED));
            // `OnFinish`'s "Time < m_BestTime": a slower race keeps it,
            // a faster one takes its place.
            race(&mut w, 0, 60);
            assert_eq!(best(&w, 0), Some(1.02f32));
            race(&mut w, 0, 50);
            assert_eq!(best(&w, 0), Some(1.0f32));
            // Only 20.1 sends the confetti (`CreateFinishEffect`), at
            // the tee's cut position.
            let confetti = w
                .effects
                .at(w.tick + 1)
                .contains(&Effect::Finish { x: 80, y: 240 });
            assert_eq!(confetti, v == Release::Ddnet20_1, "{v:?}");
            // A race that starts and ends in one tick does not finish
            // (`TimeTicks <= 0`, 16.4's `Time < 0.000001f`).
            race(&mut w, 1, 0);
            assert_eq!(best(&w, 1), None);
            assert_eq!(w.character(1).map(|c| c.ddrace_state), Some(race::STARTED));
        }
    }

    /// 16.4's `ProcessScoreResult` of an empty database's answer to a
    /// join sets the score to no time, in the player's tick that finds it
    /// complete (`CPlayer::Tick`, after the world's): a finish before it
    /// is forgotten. 20.1 keeps a time the answer has none for.
    #[test]
    fn a_late_answer_to_a_join_forgets_a_sixteen_four_finish() {
        for v in [Release::Ddnet16_4, Release::Ddnet20_1] {
            let mut w = world(v);
            race(&mut w, 0, 51);
            race(&mut w, 1, 60);
            let answered = w.tick + 2;
            w.set_join_answers(&[(answered, 0)]);
            w.step();
            assert_eq!(best(&w, 0), Some(1.02f32), "{v:?}: not yet");
            w.step();
            assert_eq!(w.tick, answered);
            let forgot = v == Release::Ddnet16_4;
            assert_eq!(best(&w, 0), (!forgot).then_some(1.02f32), "{v:?}");
            assert_eq!(best(&w, 1), Some(1.2f32), "{v:?}: only client 0's");
            // A finish after the answer is the best time again.
            race(&mut w, 0, 70);
            assert_eq!(best(&w, 0), Some(if forgot { 1.4f32 } else { 1.02 }));
        }
    }

    #[test]
    fn twenty_one_asks_the_database_for_the_record_and_takes_it_a_tick_later() {
        let mut w = world(Release::Ddnet20_1);
        // No record: the finish asks (`LoadBestTime`); the database gets
        // the race (PLAYER_FINISH) before the question.
        race(&mut w, 0, 100);
        w.finish_saved(0, 100);
        let asked = w.tick;
        assert_eq!(w.map_record(), None);
        // The controller of the next tick has the answer, after the
        // world's tick, whose better finish finds the question under way.
        race(&mut w, 1, 1);
        w.finish_saved(1, 1);
        assert_eq!(w.tick, asked + 1);
        assert_eq!(w.map_record(), Some(2.0f32));
        // From then on a better time is the record at once.
        w.tick += 10;
        w.handle_tiles(0, Some(START));
        w.tick += 90;
        w.handle_tiles(0, Some(FINISH));
        assert_eq!(w.map_record(), Some(1.8f32));
        assert_eq!(best(&w, 1), Some(0.02f32));
    }

    #[test]
    fn an_unsaved_finish_leaves_the_record_unknown_until_one_is_saved() {
        let mut w = world(Release::Ddnet20_1);
        // A test command ran (`Cheated`): no PLAYER_FINISH, the answer is
        // empty and the next finish asks again.
        race(&mut w, 0, 100);
        w.tick += 2;
        assert_eq!(w.map_record(), None);
        race(&mut w, 1, 150);
        w.finish_saved(1, 150);
        w.tick += 1;
        assert_eq!(w.map_record(), Some(3.0f32));
        assert_eq!(best(&w, 0), Some(2.0f32));
        // 16.4 takes the record at once (and has no item for it).
        let mut w = world(Release::Ddnet16_4);
        race(&mut w, 0, 100);
        assert_eq!(w.map_record(), Some(2.0f32));
    }

    #[test]
    fn a_team_finishes_when_its_last_starter_crosses_in_the_first_members_time() {
        for v in [Release::Ddnet16_4, Release::Ddnet20_1] {
            let mut w = world(v);
            w.set_ddrace_team(0, 1);
            w.set_ddrace_team(1, 1);
            // Both cross the start line (`m_aTeeStarted`); the first
            // starts the team's clock for both.
            assert!(w.handle_tiles(0, Some(START)));
            w.tick += 5;
            assert!(w.handle_tiles(1, Some(START)));
            // One over the finish line: the team waits for the other.
            w.tick += 95;
            assert!(w.handle_tiles(0, Some(FINISH)));
            assert_eq!((best(&w, 0), w.race.state(1)), (None, Some(state::STARTED)));
            // The last one: both finish in 110 ticks, 2.2 s.
            w.tick += 10;
            assert!(w.handle_tiles(1, Some(FINISH)));
            assert_eq!([best(&w, 0), best(&w, 1)], [Some(2.2f32); 2], "{v:?}");
            // `OnTeamFinish` (`sv_rejoin_team_0` 1): both rejoin team 0 at
            // once, in the finisher's tick, and the last out empties it.
            assert_eq!(w.cores.teams.team[..2], [TEAM_FLOCK; 2], "{v:?}");
            assert_eq!(w.race.state(1), Some(state::EMPTY));
        }
    }

    /// `OnCharacterDeath` of an unlocked team moves the dead player to
    /// team 0 inside its death (`SetForceCharacterTeam`), and 20.1 takes
    /// away what it fired there (`RemoveEntitiesFromPlayer`), before the
    /// tick's snapshot: a bullet the server's demo no longer has at the
    /// death's tick (the unseen `20.1-dm8-weapons-s9`, tick 342).
    #[test]
    fn a_death_out_of_a_team_takes_the_bullets_with_it_in_twenty_one() {
        use crate::simulation::ddrace::{character::weapon, weapons::new_projectile};
        for v in [Release::Ddnet16_4, Release::Ddnet20_1] {
            let mut w = world(v);
            w.set_ddrace_team(0, 1);
            w.set_ddrace_team(1, 1);
            let at = Vec2::new(100.0, 100.0);
            for owner in [0, 1] {
                let p = new_projectile(
                    weapon::GUN,
                    owner,
                    at,
                    Vec2::new(1.0, 0.0),
                    2.0,
                    false,
                    w.tick,
                );
                w.projectiles.push(p);
            }
            w.kill_now(0);
            assert_eq!(w.cores.teams.team[..2], [TEAM_FLOCK, 1], "{v:?}");
            let owners: Vec<i32> = w.projectiles.iter().map(|p| p.owner).collect();
            let kept = match v {
                Release::Ddnet20_1 => vec![1],
                _ => vec![0, 1],
            };
            assert_eq!(owners, kept, "{v:?}");
            // The PLAYER_TEAM record after it changes nothing more.
            w.set_ddrace_team(0, TEAM_FLOCK);
            assert_eq!(w.projectiles.len(), kept.len());
            assert_eq!(w.race.state(1), Some(state::OPEN), "{v:?}: one is left");
        }
    }

    /// A finished team stays where it is without `sv_rejoin_team_0` and in
    /// practice mode (which never reaches `OnTeamFinish`).
    #[test]
    fn a_finished_team_stays_without_rejoin_or_in_practice() {
        for (rejoin, practice) in [(0, false), (1, true)] {
            let mut config = Config::new(Release::Ddnet16_4);
            config.sv_rejoin_team_0 = rejoin;
            let mut w = world_with(Release::Ddnet16_4, config);
            w.set_ddrace_team(0, 1);
            w.set_practice(1, practice);
            race(&mut w, 0, 50);
            assert_eq!(
                w.cores.teams.team[0], 1,
                "rejoin {rejoin}, practice {practice}"
            );
            assert_eq!(w.race.state(1), Some(state::FINISHED));
        }
    }

    #[test]
    fn with_sv_team_3_each_player_finishes_alone_team_0_too() {
        for v in [Release::Ddnet16_4, Release::Ddnet20_1] {
            let mut config = Config::new(v);
            config.sv_team = SV_TEAM_FORCED_SOLO;
            let mut w = world_with(v, config);
            // Player 1's team is 1 (its PLAYER_TEAM); player 0 stays in
            // team 0, which the empty slots, each in its own team
            // (`CTeamsCore::Reset`), do not hold up.
            w.set_ddrace_team(1, 1);
            race(&mut w, 0, 40);
            assert_eq!((best(&w, 0), best(&w, 1)), (Some(0.8f32), None), "{v:?}");
            race(&mut w, 1, 60);
            assert_eq!(best(&w, 1), Some(1.2f32));
        }
    }
}
