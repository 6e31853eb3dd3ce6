//! What became of a run: each bot, the server, and whether the server
//! kept to its ticks. The session fills it in; the command prints it.

use serde::Serialize;
use std::process::ExitStatus;

/// What became of one bot, in scenario ticks.
#[derive(Clone, Debug, Default, Serialize)]
pub struct BotOutcome {
    pub name: String,
    pub protocol: &'static str,
    /// When it entered the game.
    pub joined: Option<u32>,
    /// When it said CLOSE.
    pub left: Option<u32>,
    /// When it stopped answering (the scenario's `silent`).
    pub silent: Option<u32>,
    /// The server's reason, when it closed the connection before the bot
    /// was in the game.
    pub refused: Option<String>,
    /// When and why the server closed the connection of a bot in the game.
    pub dropped: Option<(u32, String)>,
    /// The refusal the scenario expects, if any.
    pub expect_refused: Option<String>,
}

impl BotOutcome {
    /// What happened, in a line.
    pub fn line(&self) -> String {
        let mut parts = Vec::new();
        match (&self.refused, self.joined) {
            (Some(reason), _) => parts.push(format!("refused ({reason})")),
            (None, Some(t)) => parts.push(format!("joined at tick {t}")),
            (None, None) => parts.push("never entered the game".into()),
        }
        if let Some(t) = self.silent {
            parts.push(format!("went silent at tick {t}"));
        }
        if let Some((t, reason)) = &self.dropped {
            parts.push(format!("dropped at tick {t} ({reason})"));
        }
        if let Some(t) = self.left {
            parts.push(format!("left at tick {t}"));
        } else if self.joined.is_some() && self.dropped.is_none() && self.silent.is_none() {
            parts.push("in the game to the end".into());
        }
        if let Some(e) = &self.expect_refused {
            parts.push(format!("expected to be refused ({e})"));
        }
        parts.join(", ")
    }

    /// Why this bot fails the run, if it does.
    pub fn problem(&self) -> Option<String> {
        let name = &self.name;
        match (&self.expect_refused, &self.refused) {
            (Some(e), Some(r)) if r.contains(e.as_str()) => None,
            (Some(e), Some(r)) => Some(format!(
                "bot {name} was refused with \"{r}\", not the expected \"{e}\""
            )),
            (Some(e), None) => Some(format!(
                "bot {name} was expected to be refused (\"{e}\") but {}",
                if self.joined.is_some() {
                    "joined"
                } else {
                    "was not refused"
                }
            )),
            (None, Some(r)) => Some(format!("the server refused bot {name}: \"{r}\"")),
            (None, None) => match (&self.dropped, self.joined) {
                (Some((t, r)), _) => Some(format!(
                    "the server dropped bot {name} at tick {t}: \"{r}\""
                )),
                (None, None) => Some(format!("bot {name} never entered the game")),
                (None, Some(_)) => None,
            },
        }
    }
}

/// How the run went.
#[derive(Debug, Default)]
pub struct Outcome {
    pub bots: Vec<BotOutcome>,
    /// The server exited by itself before the scenario ended: how, and at
    /// which wall second of the run.
    pub server_exited: Option<(ExitStatus, f64)>,
    /// The scenario's `kill_server` did it.
    pub killed_by_scenario: bool,
    /// No snapshot came within the session's `ANSWER_WITHIN`.
    pub never_answered: bool,
    /// A remote console command that changes the map was not followed
    /// by MAP_CHANGE within `MAP_CHANGE_WITHIN` ticks: the command, and
    /// the scenario tick it was sent on.
    pub no_map_change: Option<(String, u32)>,
    /// The scenario did not reach its end within its seconds and
    /// the session's `GRACE` (the server's ticks stalled).
    pub timed_out: bool,
    /// SIGINT or SIGTERM came.
    pub interrupted: bool,
    /// The scenario clock at the end.
    pub end_tick: u32,
    pub timing: Timing,
}

/// Something a bot sent that may be recorded a tick late.
#[derive(Clone, Debug, Serialize)]
pub struct AtRisk {
    /// The scenario tick it was sent on.
    pub tick: u32,
    pub bot: String,
    /// `join`, `rejoin`, `leave`, `rcon`, `rcon login`, `chat` or `kill`.
    pub action: &'static str,
    /// `server overran the tick` or `sent after the tick was over`.
    pub why: &'static str,
}

/// Whether the server kept to its ticks.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Timing {
    /// Scenario ticks whose snapshots left the server after the next
    /// tick began (kernel arrival times on loopback): the server's work
    /// for the tick overran, and a datagram it read late in that work is
    /// recorded on the next tick.
    pub overran: Vec<u32>,
    /// What the bots sent in those ticks (or after their tick was over):
    /// a run that differs from another here differs by the machine's
    /// load, not by the server build.
    pub at_risk: Vec<AtRisk>,
}
