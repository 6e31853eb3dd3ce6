//! One bot of a run as the session drives it: its socket, its plan,
//! and what it sends on each tick (inputs, a replayed client's messages,
//! a random bot's deeds).

use super::super::clock::Clock;
use super::super::outcome::BotOutcome;
use super::super::scenario::{BotPlan, scripted_input};
use super::{LEAD, RCON_PASSWORD, first_input_tick};
use std::net::{SocketAddr, UdpSocket};
use std::time::Instant;
use teeoracle::bot::random::{Deed, RandomBot};
use teeoracle::bot::replay::Deed as Replayed;
use teeoracle::bot::{Bot, movement};

/// One bot, its socket and its plan.
pub(super) struct Running<'p> {
    pub(super) bot: Bot,
    pub(super) socket: UdpSocket,
    /// The socket's address (asked once: it is in every captured datagram).
    pub(super) addr: SocketAddr,
    pub(super) plan: &'p BotPlan,
    pub(super) seed: u64,
    /// The global map index when it connected.
    pub(super) map_base: u32,
    pub(super) join_tick: u32,
    /// The scenario tick it last entered the game at.
    pub(super) entered: Option<u32>,
    /// The scenario tick it was sent to connect on (0: at once).
    pub(super) connect_tick: Option<u32>,
    /// When it last said hello (0.6 CONNECT, 0.7 TOKEN).
    pub(super) last_hello: Option<Instant>,
    pub(super) said: usize,
    /// How many of its `kill` seconds are done.
    pub(super) killed: usize,
    /// Its seeded random input and deeds, if it has them.
    pub(super) random: Option<RandomBot>,
    /// How many of a replayed player's deeds are done.
    pub(super) replayed: usize,
    /// The first scenario tick whose deed is still to do.
    pub(super) deeds_from: u32,
    /// It logged in to the remote console.
    pub(super) rcon_in: bool,
    pub(super) outcome: BotOutcome,
}

impl Running<'_> {
    /// The map (global index) the bot is on.
    pub(super) fn map(&self) -> u32 {
        self.map_base + self.bot.map_changes()
    }

    /// Sends what the bot has queued and its inputs for the ticks up to
    /// [`LEAD`] past its newest snapshot not sent yet. Called as each of
    /// its snapshots comes, so that what it sends (the snapshot it
    /// acknowledges, the ticks it covers) follows from the server's
    /// snapshots, not from when they were read.
    /// None is sent for a tick at or after scenario tick `end`: the run
    /// stops there, and which of the bots' last snapshots are read by
    /// then is chance.
    pub(super) fn send_inputs(&mut self, clock: &Clock, end: u32) {
        // No input before the clock is placed on the bot's map; then
        // none before a tick that does not depend on when the snapshots
        // came: the bot's first inputs are for [`FIRST_INPUT`] ticks
        // after it entered (or the map began), and never before
        // [`FIRST_INPUT_OF_RUN`] (the clock is set before then).
        let placed = clock.base.filter(|_| clock.map == self.map());
        let (Some(base), Some(entered)) = (placed, self.entered) else {
            self.bot.send_inputs(LEAD, i32::MAX, |_| [0; 10]);
            return;
        };
        let entered = entered.max(clock.offset);
        let server_tick =
            |t: u32| base.saturating_add(i32::try_from(t - clock.offset).unwrap_or(i32::MAX));
        // A replayed client's inputs go by the clock from the tick after
        // its entry (after the one sent with it), as the file has them.
        if let (Some(p), Some(now)) = (&self.plan.replay, clock.now) {
            // None before the file's first: DDNet tells a client that
            // never sent input from one that sent zeros.
            let after_entry = entered + if p.join_input.is_some() { 2 } else { 1 };
            let first = after_entry.max(p.first_input().unwrap_or(u32::MAX));
            let last = (now + LEAD as u32).min(end.max(clock.offset + 1) - 1);
            self.bot
                .send_inputs_between(server_tick(first), server_tick(last), |t| {
                    p.inputs_at(clock.at(t))
                });
            return;
        }
        let from = first_input_tick(entered);
        let (from, until) = (server_tick(from), server_tick(end.max(clock.offset)));
        let lead = LEAD.min(until - 1 - self.bot.snap_tick());
        let from = if from < until { from } else { i32::MAX };
        let (moves, seed, actions) = (self.plan.moves, self.seed, &self.plan.actions);
        let random = self.random.as_ref();
        self.bot.send_inputs(lead, from, |t| match (random, moves) {
            (Some(r), _) => r.input(clock.at(t)),
            (None, true) => movement(seed, clock.at(t)),
            (None, false) => scripted_input(actions, clock.at(t)),
        });
    }

    /// Sends what a replayed player sent up to `now`, each on the tick
    /// the server read it then: what each was, for [`Sent`].
    pub(super) fn replay_deeds(&mut self, now: u32) -> Vec<&'static str> {
        let mut sent = Vec::new();
        let Some(plan) = &self.plan.replay else {
            return sent;
        };
        while let Some((at, deed)) = plan.deeds.get(self.replayed) {
            if *at > now {
                break;
            }
            match deed {
                Replayed::Message(m) => {
                    self.bot.send_message(m.clone());
                    sent.push("message");
                }
                Replayed::Chat(line) => {
                    self.bot.say(line);
                    sent.push("chat command");
                }
                Replayed::RconLogin => {
                    self.bot.rcon_login(RCON_PASSWORD);
                    self.rcon_in = true;
                    sent.push("rcon login");
                }
                Replayed::Rcon(command) => {
                    self.bot.rcon(command);
                    sent.push("rcon");
                }
            }
            self.replayed += 1;
        }
        sent
    }

    /// Does the deeds of its random knobs due from its last one up to
    /// `now` (none before it may send input): what each sent, for
    /// [`Sent`].
    pub(super) fn deeds(&mut self, now: u32) -> Vec<&'static str> {
        let mut sent = Vec::new();
        let start = self.entered.map_or(u32::MAX, first_input_tick);
        let Some(random) = &self.random else {
            return sent;
        };
        for tick in self.deeds_from.max(start)..=now {
            match random.deed(tick) {
                Some(Deed::Kill) => {
                    self.bot.kill();
                    sent.push("kill");
                }
                Some(Deed::Say(text)) => {
                    self.bot.say(&text);
                    sent.push("chat");
                }
                Some(Deed::SetTeam(team)) => {
                    self.bot.set_team(team);
                    sent.push("set team");
                }
                Some(Deed::Rcon(command)) if self.rcon_in => {
                    self.bot.rcon(command);
                    sent.push("rcon");
                }
                _ => {}
            }
        }
        self.deeds_from = now + 1;
        sent
    }
}
