//! One run inside the network namespace: the server started in a
//! temporary home, the bots driven through the scenario on the server's
//! ticks, the server stopped, its files collected.
//!
//! The clock: every action is scheduled at a scenario tick, and sent as
//! soon as the clock reaches that tick: when the first snapshot of the
//! tick comes (DDNet is then at work on the tick, and reads its socket
//! when that work is done, still in the tick) or, if none has come, in
//! the middle of the tick on the server's tick grid. Either way the
//! server handles it on exactly that tick unless its work for the tick
//! overran into the next one; such ticks are seen (a snapshot that left
//! after the next tick began) and what was sent in them is reported
//! ([`Timing`]). The grid of a map is placed by its snapshots (a
//! snapshot of tick `t` leaves the server just after tick `t` began; the
//! earliest kernel arrival time less `t` ticks is the map's tick 0) and,
//! until one comes after a map change, by the server's answer to each
//! bot's probe (an INPUT for the new map's tick 1, answered with the time
//! left to it: [`Bot::probe_answer`]), or failing that by the MAP_CHANGE
//! ([`MAP_CHANGE_LAG`]). Between a command that changes the map and the
//! new map no input is sent; a new map that has not come
//! [`MAP_CHANGE_WITHIN`](super::map_command::MAP_CHANGE_WITHIN) ticks
//! after the command ends the run. The bots with the earliest join
//! connect at once; scenario tick 0 is the server tick at which the
//! first of them was accepted, which is the first tick of the
//! teehistorian file (the server, empty until then, handles that join on
//! the tick its first datagram woke it in: the moment of the bot's last
//! hello, placed on the grid). On the first map scenario tick `s` is
//! server tick `base + s`; a map change restarts the server's ticks, and
//! the new map's tick 0 is the scenario tick after the one the remote
//! console command that changed the map was sent on (or after the
//! clock's tick when the map changed, for a change the scenario did not
//! ask for); the bots come back in the game at its tick [`REJOIN`]. A
//! bot's hello goes out a tick before its join, and the join is sent
//! whole ([`Bot`]) on its tick; inputs are sent ahead with their
//! intended tick, as each of the bot's snapshots comes.

use super::clock::{Clock, TICK};
use super::map_command::{MapCommand, changes_map};
use super::outcome::{AtRisk, BotOutcome, Outcome, Timing};
use super::pcapng::Pcapng;
use super::scenario::{Flavor, Scenario, ticks};
use super::stamped;
use std::collections::BTreeSet;
use std::net::{Ipv4Addr, SocketAddr, UdpSocket};
use std::path::Path;
use std::process::Child;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime};
use teeoracle::bot::random::RandomBot;
use teeoracle::bot::{Bot, PROBE_TICK, Phase};
use teeoracle::packet::Version;

/// The port the server listens on inside the namespace.
pub const PORT: u16 = 8303;
/// The remote console password the scenario's first bot uses.
pub const RCON_PASSWORD: &str = "teeoracle";
/// How often the sockets are read.
const STEP: Duration = Duration::from_millis(2);
/// How often while a bot waits for the server's answer to its hello or
/// to a map change (its next step is due at once).
const QUICK_STEP: Duration = Duration::from_micros(200);
/// How often connecting bots are kept going (a game tick).
const KEEPALIVE: Duration = TICK;
/// Snapshots that place the first map's tick grid before the clock
/// starts (one every 10 ticks until a bot sends input, then one every
/// other tick): the clock has started by scenario tick 20.
const GRID_SAMPLES: u32 = 2;
/// The operator logs in to the remote console (and starts the demo) at
/// this scenario tick at the earliest, when the clock has surely started.
const OPERATOR_TICK: u32 = 25;
/// Inputs are sent this many ticks ahead of the newest snapshot (more
/// than the 10 ticks between snapshots before the first input).
const LEAD: i32 = 12;
/// Until the bots' probes are answered ([`Bot::probe_answer`]), a new
/// map's grid is placed this long before its MAP_CHANGE came. DDNet 16.4
/// starts the new map's clock, sets its game up, and the MAP_CHANGE
/// leaves around then: in 40 changes to Gold Mine (kernel arrival times,
/// the new map's snapshots placing its tick 0) it came 2.6 to 9.3 ms
/// after tick 0 began, twice 18.6 and 20.1 ms; to ctf1, a small map,
/// under 2 ms. Placed from MAP_CHANGE alone, a change as late as those
/// two put the rejoin on the tick after [`REJOIN`]; the probe's answer
/// comes well before then.
const MAP_CHANGE_LAG: Duration = Duration::from_millis(6);
/// After a map change the bots are back in the game at this tick of the
/// new map: DDNet sets the new map's game up after sending MAP_CHANGE
/// and before its tick 0 ends, which can take longer than a tick on a
/// loaded machine; an answer sent at once lands on tick 0 or 1 by chance.
const REJOIN: u32 = 5;
/// A CLOSE only marks the connection; DDNet drops it at the next pass
/// over its socket, which is the next tick unless a datagram wakes the
/// server first (with many bots leaving at once, some arrive after the
/// server read the others, and their drops slip to the next tick). So
/// this long after a bot leaves, a stateless 0.7 token request wakes the
/// server, and every connection closed in the tick is dropped in it.
const WAKE_AFTER: Duration = Duration::from_millis(3);
/// A server busy with a tick of many clients reads the CLOSEs and the
/// wake in one pass, which drops nothing: a second wake this long after
/// the first, while the tick lasts, makes the pass that drops them.
const WAKE_AGAIN: Duration = Duration::from_millis(5);
/// A bot's first input is for this many ticks after it entered the game
/// (its first snapshot has come by then, whenever it came).
const FIRST_INPUT: u32 = 12;
/// No input is sent for a scenario tick before this one (2 s).
const FIRST_INPUT_OF_RUN: u32 = 100;
/// The first scenario tick a bot that entered the game on tick `entered`
/// sends input for.
pub(super) fn first_input_tick(entered: u32) -> u32 {
    (entered + FIRST_INPUT).max(FIRST_INPUT_OF_RUN)
}

/// Datagrams a bot reads per step at most (a server sends a few per tick).
const MAX_RECEIVED_PER_STEP: usize = 256;
/// The bots' ports (the `i`-th bot's is this plus `i`): the namespace is
/// ours, and the server logs its clients' addresses.
const BOT_PORTS: u16 = 20000;
/// How often the server is asked whether it listens, before the first
/// join.
const PROBE_EVERY: Duration = Duration::from_millis(2);
/// A server that has sent no snapshot by then never answered.
const ANSWER_WITHIN: Duration = Duration::from_secs(15);
/// Wall time a run may take beyond its scenario's seconds.
const GRACE: Duration = Duration::from_secs(30);
/// A wake of the server due after bots left on scenario tick `tick`
/// ([`WAKE_AFTER`], [`WAKE_AGAIN`]).
#[derive(Clone, Copy)]
struct Wake {
    at: Instant,
    tick: u32,
    /// Another one follows while the tick lasts.
    again: bool,
}

impl Wake {
    fn after_leave(tick: u32) -> Wake {
        Wake {
            at: Instant::now() + WAKE_AFTER,
            tick,
            again: true,
        }
    }
}

/// Something a bot sent that the server records on the tick it reads it.
struct Sent {
    /// The scenario tick it was sent on.
    tick: u32,
    /// The bot's index.
    bot: usize,
    action: &'static str,
    /// It went out after its tick was over on the grid.
    late: bool,
}

mod running;
use running::Running;

pub struct Session<'a> {
    scenario: &'a Scenario,
    flavor: Flavor,
    stop: &'a AtomicBool,
    server_addr: SocketAddr,
    capture: Pcapng,
    bots: Vec<Running<'a>>,
    clock: Clock,
    /// The map the server is on (global index): the highest any bot saw.
    map: u32,
    logged_in: bool,
    demo_running: bool,
    rcon_done: usize,
    /// The last remote console command that changes the map, until the
    /// map changes.
    map_command: Option<MapCommand>,
    started: Instant,
    last_keepalive: Instant,
    /// When the first bot to be accepted said its last hello.
    first_hello: Option<Instant>,
    /// The scenario is over: the bots leave and the server is stopped,
    /// whose goodbyes are no drops.
    over: bool,
    first_join: f64,
    /// When to wake the server after a bot left.
    wake: Option<Wake>,
    /// Scenario ticks whose snapshots left the server after the next
    /// tick began: its work for the tick overran.
    overran: BTreeSet<u32>,
    /// What the bots sent that the server records on the tick it reads
    /// it: when, and whether it went out after its tick was over.
    sent: Vec<Sent>,
    /// How many of `sent` have gone out as datagrams.
    transmitted: usize,
    waker: Probe,
}

impl<'a> Session<'a> {
    pub fn new(
        scenario: &'a Scenario,
        versions: &[Version],
        flavor: Flavor,
        seed: u64,
        out: &Path,
        stop: &'a AtomicBool,
    ) -> std::io::Result<Session<'a>> {
        let capture = Pcapng::create(&out.join("bots.pcapng"))?;
        let first_join = scenario
            .bots
            .iter()
            .map(|b| b.join)
            .fold(f64::INFINITY, f64::min);
        let mut bots = Vec::new();
        for (i, (plan, &version)) in scenario.bots.iter().zip(versions).enumerate() {
            let port = u16::try_from(i)
                .ok()
                .and_then(|i| BOT_PORTS.checked_add(i))
                .unwrap_or(0);
            let socket = UdpSocket::bind((Ipv4Addr::LOCALHOST, port))
                .or_else(|_| UdpSocket::bind((Ipv4Addr::LOCALHOST, 0)))?;
            socket.set_nonblocking(true)?;
            stamped::enable(&socket)?;
            let seed = seed.wrapping_add(i as u64);
            let horizon = ticks(scenario.seconds);
            let random = plan
                .random
                .as_ref()
                .map(|k| RandomBot::new(k, seed, version == Version::V07, horizon));
            let mut bot = Bot::new(&plan.name, version, seed);
            if let Some(input) = random.as_ref().and_then(|r| r.join_input(ticks(plan.join))) {
                bot.input_with_join(input);
            }
            if plan.spectator {
                bot.spectate_on_entry();
            }
            let held = (plan.replay.as_ref()).is_some_and(|p| p.ready.is_some_and(|r| r > p.join));
            if let Some(p) = &plan.replay {
                if let Some(info) = &p.start_info {
                    bot.start_info(info.clone());
                }
                if let Some(input) = p.join_input {
                    bot.input_with_join(input);
                }
                if held {
                    bot.enter_later();
                }
            }
            // The first to join places the clock by a probe, where what
            // it sends moves no character.
            if plan.join <= first_join && (plan.spectator || held) {
                bot.probe_with_join();
            }
            bots.push(Running {
                bot,
                addr: socket.local_addr()?,
                socket,
                plan,
                seed,
                map_base: 0,
                join_tick: ticks(plan.join),
                entered: None,
                connect_tick: None,
                last_hello: None,
                said: 0,
                killed: 0,
                random,
                replayed: 0,
                deeds_from: 0,
                rcon_in: false,
                outcome: BotOutcome {
                    name: plan.name.clone(),
                    protocol: if version == Version::V06 {
                        "0.6"
                    } else {
                        "0.7"
                    },
                    expect_refused: plan.expect_refused.clone(),
                    ..BotOutcome::default()
                },
            });
        }
        let now = Instant::now();
        Ok(Session {
            scenario,
            flavor,
            stop,
            server_addr: SocketAddr::from((Ipv4Addr::LOCALHOST, PORT)),
            capture,
            bots,
            clock: Clock {
                map: 0,
                base: None,
                offset: 0,
                now: None,
                zero: None,
                samples: 0,
                probed: false,
                middle: None,
            },
            map: 0,
            logged_in: false,
            demo_running: false,
            rcon_done: 0,
            map_command: None,
            started: now,
            last_keepalive: now,
            over: false,
            first_hello: None,
            first_join,
            wake: None,
            overran: BTreeSet::new(),
            sent: Vec::new(),
            transmitted: 0,
            waker: Probe::new()?,
        })
    }

    /// Plays the scenario, stops the demo, lets the bots leave and stops
    /// the server; the capture is closed on a block boundary whatever
    /// happened.
    pub fn run(mut self, server: &mut Child) -> std::io::Result<Outcome> {
        let mut outcome = Outcome::default();
        let result = self.play(server, &mut outcome);
        let ended = result.and_then(|()| self.wind_down(server, &outcome));
        outcome.end_tick = self.clock.now.unwrap_or(0);
        outcome.bots = self.bots.iter().map(|r| r.outcome.clone()).collect();
        outcome.timing = Timing {
            overran: self.overran.iter().copied().collect(),
            at_risk: self
                .sent
                .iter()
                .filter_map(|s| {
                    let why = match (self.overran.contains(&s.tick), s.late) {
                        (true, _) => "server overran the tick",
                        (false, true) => "sent after the tick was over",
                        (false, false) => return None,
                    };
                    Some(AtRisk {
                        tick: s.tick,
                        bot: self.bots[s.bot].outcome.name.clone(),
                        action: s.action,
                        why,
                    })
                })
                .collect(),
        };
        let closed = self.capture.finish();
        ended.and(closed)?;
        Ok(outcome)
    }

    fn play(&mut self, server: &mut Child, outcome: &mut Outcome) -> std::io::Result<()> {
        let end_tick = ticks(self.scenario.seconds);
        let kill_tick = self.scenario.kill_server.map(ticks);
        let deadline = self.started + Duration::from_secs_f64(self.scenario.seconds) + GRACE;
        // The first join waits for the server's first answer to a probe
        // (a 0.7 TOKEN request from a socket of its own, not captured),
        // asked every 2 ms from the start: the server reads what waited
        // in its socket when its loop starts, on its tick 0, and an empty
        // server handles the next datagram before it counts the ticks it
        // slept through, so the first bot joins on tick 0 in every run.
        let mut probe = Some(Probe::new()?);
        let mut last_probe: Option<Instant> = None;
        loop {
            if let Some(p) = &probe {
                if p.answered() {
                    probe = None;
                    for i in 0..self.bots.len() {
                        if self.bots[i].plan.join <= self.first_join {
                            self.bots[i].bot.connect();
                            self.bots[i].connect_tick = Some(0);
                        }
                    }
                } else if last_probe.is_none_or(|l| l.elapsed() >= PROBE_EVERY) {
                    p.ask(self.server_addr);
                    last_probe = Some(Instant::now());
                }
            }
            if self.stop.load(Ordering::Relaxed) {
                outcome.interrupted = true;
                return Ok(());
            }
            if let Some(status) = server.try_wait()? {
                outcome.server_exited = Some((status, self.started.elapsed().as_secs_f64()));
                return Ok(());
            }
            let before = self.clock.now;
            let all_read = self.step(true)?;
            let now = self.clock.now;
            if now.is_none() && self.started.elapsed() > ANSWER_WITHIN {
                outcome.never_answered = true;
                return Ok(());
            }
            if Instant::now() > deadline {
                outcome.timed_out = true;
                return Ok(());
            }
            // A map change that does not come stops the run, which
            // fails: the bots hold their inputs until it comes, so a run
            // that went on would record idle bots for the rest of the
            // scenario and could pass, or match a baseline, while the
            // server ignored the change. In CI the change is what was
            // asked for; the run fails at once, naming the command, and
            // what was recorded until then is kept and checked.
            if let Some(c) = self
                .map_command
                .as_ref()
                .filter(|c| c.overdue(self.clock.middle))
            {
                outcome.no_map_change = Some((c.command.clone(), c.tick));
                return Ok(());
            }
            // The kill in the middle of its tick, when the server has
            // long finished writing the tick before: what a crash leaves
            // in its recordings is then the same in every run.
            if kill_tick.is_some_and(|k| self.clock.middle.is_some_and(|m| m >= k)) {
                let _ = server.kill();
                let _ = server.wait();
                outcome.killed_by_scenario = true;
                return Ok(());
            }
            if now != before && now.is_some_and(|n| n >= end_tick) {
                return Ok(());
            }
            // A bot waiting for the server's answer sends its next step at
            // once, so that a join keeps to the tick it was sent on.
            let handshake = self.bots.iter().any(|r| r.bot.phase() == Phase::Connecting);
            if !all_read {
                continue;
            }
            std::thread::sleep(if handshake || probe.is_some() {
                QUICK_STEP
            } else {
                STEP
            });
        }
    }

    /// The end of a run: the demo stopped (and given a few ticks to be
    /// written), the bots gone, the server stopped.
    fn wind_down(&mut self, server: &mut Child, outcome: &Outcome) -> std::io::Result<()> {
        self.over = true;
        let alive = outcome.server_exited.is_none() && !outcome.killed_by_scenario;
        let operator_in = self
            .bots
            .first()
            .is_some_and(|r| r.bot.phase() == Phase::InGame);
        if alive && self.demo_running && operator_in {
            self.bots[0].bot.rcon("stoprecord");
            self.demo_running = false;
            self.pump(15)?;
        }
        let teeworlds = self.flavor == Flavor::Teeworlds;
        let now = self.clock.now.unwrap_or(0);
        for (i, r) in self.bots.iter_mut().enumerate() {
            // Teeworlds 0.7.5 has no SIGINT handler: the operator stays to
            // shut it down over the remote console.
            if teeworlds && i == 0 && self.logged_in && alive {
                continue;
            }
            if !matches!(r.bot.phase(), Phase::Idle | Phase::Closed) {
                r.bot.leave("");
                if r.outcome.joined.is_some() {
                    r.outcome.left.get_or_insert(now);
                }
                self.wake = Some(Wake::after_leave(now));
            }
        }
        self.transmit()?;
        if alive {
            self.pump(10)?;
        }
        if teeworlds && alive && self.logged_in && operator_in {
            self.bots[0].bot.rcon("shutdown");
            self.bots[0].bot.keepalive();
            self.transmit()?;
            let until = Instant::now() + Duration::from_secs(5);
            while Instant::now() < until && server.try_wait()?.is_none() {
                self.pump(2)?;
            }
            if self.bots[0].bot.phase() != Phase::Closed {
                self.bots[0].bot.leave("");
                self.bots[0].outcome.left.get_or_insert(now);
                self.transmit()?;
            }
        }
        Ok(())
    }

    /// Steps without the scenario's actions for `ticks` ticks of the
    /// clock, to the middle of the last (or, once the clock stopped, for
    /// that long): what is sent next lands on the same tick in every run,
    /// not on a tick's edge.
    fn pump(&mut self, ticks: u32) -> std::io::Result<()> {
        let target = self.clock.now.map(|n| n.saturating_add(ticks));
        // No clock (no snapshot ever came): wait that many ticks' time.
        let until = Instant::now() + TICK * (ticks + if target.is_some() { 2 } else { 0 });
        while Instant::now() < until && target.is_none_or(|t| self.clock.middle < Some(t)) {
            if self.step(false)? {
                std::thread::sleep(QUICK_STEP);
            }
        }
        Ok(())
    }

    /// Reads what arrived, moves the clock, does what is due (with
    /// `scenario`), sends inputs and what the bots have to say. Reading
    /// stops at the first snapshot of a tick the clock has not reached:
    /// the server is then busy with that tick, and what is due on it is
    /// sent at once so that the server reads it in that tick however
    /// long its work takes. Whether everything that waited was read.
    fn step(&mut self, scenario: bool) -> std::io::Result<bool> {
        let mut buf = [0u8; 2048];
        let mut seen = false;
        let end = ticks(self.scenario.seconds);
        'read: for i in 0..self.bots.len() {
            let me = self.bots[i].addr;
            for _ in 0..MAX_RECEIVED_PER_STEP {
                let r = &mut self.bots[i];
                let Some((n, from, came)) = stamped::recv(&r.socket, &mut buf)? else {
                    break;
                };
                self.capture.packet(from, me, &buf[..n], came)?;
                let (phase, snap) = (r.bot.phase(), r.bot.snap_tick());
                let asked = r.bot.probe_answer().is_none();
                r.bot.receive(&buf[..n]);
                let ago = SystemTime::now().duration_since(came).unwrap_or_default();
                let at = Instant::now().checked_sub(ago).unwrap_or_else(Instant::now);
                let (map, tick) = (r.map(), r.bot.snap_tick());
                if phase == Phase::Connecting
                    && r.bot.phase() != Phase::Connecting
                    && self.first_hello.is_none()
                {
                    self.first_hello = Some(r.last_hello.unwrap_or(at));
                }
                if map > self.map {
                    self.new_map(map, at);
                }
                // A new map's grid from the server's own clock: its
                // answer to a bot's probe says how long before (or
                // since) the map's tick [`PROBE_TICK`] it read it, to the
                // millisecond; the earliest answer wins (each is late by
                // the way back and the rounding).
                if let (true, Some(left)) = (asked, self.bots[i].bot.probe_answer())
                    && map == self.map
                    && self.clock.samples == 0
                {
                    let tick_one = match u64::try_from(left) {
                        Ok(ahead) => Some(at + Duration::from_millis(ahead)),
                        Err(_) => at.checked_sub(Duration::from_millis(left.unsigned_abs().into())),
                    };
                    if let Some(zero) =
                        tick_one.and_then(|t| t.checked_sub(TICK * PROBE_TICK as u32))
                    {
                        self.clock.zero = match (self.clock.probed, self.clock.zero) {
                            (true, Some(z)) => Some(z.min(zero)),
                            _ => Some(zero),
                        };
                        self.clock.probed = true;
                    }
                }
                // The map's tick grid, from when its snapshots come.
                if map == self.map
                    && tick > snap
                    && let Some(start) = at.checked_sub(TICK * u32::try_from(tick).unwrap_or(0))
                {
                    self.clock.zero = match (self.clock.samples, self.clock.zero) {
                        (0, _) | (_, None) => Some(start),
                        (_, Some(z)) => Some(z.min(start)),
                    };
                    self.clock.samples += 1;
                }
                // A snapshot that left after the next tick began: the
                // server's work for its tick overran.
                if map == self.map
                    && tick > snap
                    && self.clock.base.is_some()
                    && self
                        .clock
                        .zero
                        .is_some_and(|z| at > z + TICK * (tick.max(0) as u32 + 1))
                {
                    self.overran.insert(self.clock.at(tick));
                }
                if map == self.map
                    && tick > snap
                    && self.bots[i].entered.is_some()
                    && self.map_command.is_none()
                {
                    self.bots[i].send_inputs(&self.clock, end);
                }
                if map == self.map && tick > snap && self.clock.reach(tick) {
                    seen = true;
                    break 'read;
                }
            }
        }
        let now = self.clock.now;
        let offset = self.clock.offset;
        for r in &mut self.bots {
            if r.bot.phase() == Phase::InGame && r.outcome.joined.is_none() {
                r.outcome.joined = Some(r.connect_tick.unwrap_or(0));
            }
            // Entered the game (again, after a map change): when. A join
            // is on its tick; a map's first entry on tick [`REJOIN`].
            if r.bot.phase() != Phase::InGame {
                r.entered = None;
            } else if r.entered.is_none() {
                r.entered = Some(match r.bot.map_changes() {
                    0 => r.connect_tick.unwrap_or(0),
                    _ => offset + REJOIN,
                });
            }
            let gone = r.outcome.left.is_some() || r.outcome.silent.is_some();
            if r.bot.phase() == Phase::Closed
                && !gone
                && !self.over
                && r.outcome.refused.is_none()
                && r.outcome.dropped.is_none()
                && let Some(reason) = r.bot.closed_by_server()
            {
                match r.outcome.joined {
                    None => r.outcome.refused = Some(reason.to_string()),
                    Some(_) => r.outcome.dropped = Some((now.unwrap_or(0), reason.to_string())),
                }
            }
        }
        // The clock's zero: the server tick at which the first bot was
        // accepted (the first tick of the teehistorian file), placed on
        // the tick grid once enough snapshots came.
        if self.clock.base.is_none()
            && self.clock.map == 0
            && (self.clock.samples >= GRID_SAMPLES || self.clock.probed)
            && let (Some(hello), Some(zero)) = (self.first_hello, self.clock.zero)
        {
            let since = hello.saturating_duration_since(zero);
            let tick = since.as_micros() / TICK.as_micros();
            self.clock.base = Some(i32::try_from(tick).unwrap_or(i32::MAX));
        }
        let advanced = self.clock.tick(Instant::now()) || seen;
        if advanced && scenario {
            self.actions();
        }
        // Between a command that changes the map and the new map, no
        // input goes out: DDNet forgets a client's inputs when it loads
        // the next map, but keeps one that comes after, intended tick and
        // all, and applies it on that tick of the new map as well as the
        // new one (seen: two inputs of one bot recorded on one tick of the
        // third map, in some runs only).
        for r in &mut self.bots {
            if self.map_command.is_some() {
                r.bot.flush();
            } else if r.map() == self.map {
                r.send_inputs(&self.clock, end);
            }
        }
        if self.last_keepalive.elapsed() >= KEEPALIVE {
            self.last_keepalive = Instant::now();
            for r in &mut self.bots {
                r.bot.keepalive();
            }
        }
        self.transmit()?;
        Ok(!seen)
    }

    /// The server changed to its `map`-th map (a bot saw MAP_CHANGE at
    /// `at`): its ticks start again, at the tick after the command that
    /// changed it.
    fn new_map(&mut self, map: u32, at: Instant) {
        self.map = map;
        let after_now = self.clock.now.map_or(0, |n| n + 1);
        self.clock.offset = self.map_command.take().map_or(after_now, |c| c.tick + 1);
        self.clock.base = Some(0);
        self.clock.map = map;
        self.clock.zero = Some(at.checked_sub(MAP_CHANGE_LAG).unwrap_or(at));
        self.clock.samples = 0;
        self.clock.probed = false;
    }

    /// What the scenario has due at the clock's tick.
    fn actions(&mut self) {
        let Some(now) = self.clock.now else {
            return;
        };
        let map = self.map;
        let rejoin = self.clock.offset.saturating_add(REJOIN);
        let late = self.clock.over(now);
        let middle = self.clock.middle;
        let mut sent = Vec::new();
        let mut send = |i: usize, action: &'static str| sent.push((i, action));
        let needs_rcon = self.scenario.demo
            || !self.scenario.rcon.is_empty()
            || self.flavor == Flavor::Teeworlds;
        for (i, r) in self.bots.iter_mut().enumerate() {
            if r.bot.phase() == Phase::MapChanged && r.map() == map && now >= rejoin {
                r.bot.rejoin();
                r.entered = Some(now);
                send(i, "rejoin");
            }
            // The hello goes out a tick ahead, the join itself on its
            // tick: the server's answer comes back in time whatever the
            // load, and the join alone decides the tick.
            if r.bot.phase() == Phase::Idle && r.join_tick <= now + 1 {
                r.map_base = map;
                r.bot.connect_ahead();
                r.connect_tick = Some(r.join_tick.max(now));
            }
            if matches!(r.bot.phase(), Phase::Connecting | Phase::Answered)
                && r.connect_tick.is_some_and(|t| t <= now)
            {
                r.bot.join_now();
                send(i, "join");
            }
            // A replayed client that entered the game ticks after its
            // connection: the entry on its tick.
            if r.bot.phase() == Phase::Accepted
                && r.plan
                    .replay
                    .as_ref()
                    .and_then(|p| p.ready)
                    .is_some_and(|t| t <= now)
            {
                r.bot.enter_now();
                r.connect_tick = Some(now);
                send(i, "enter");
            }
            // The operator logs in to the remote console once in the
            // game (at a tick the clock has surely reached), and starts
            // the demo; so does an armed random bot, for test commands.
            let armed = r.random.as_ref().is_some_and(RandomBot::armed);
            if ((i == 0 && needs_rcon) || armed)
                && !r.rcon_in
                && r.bot.phase() == Phase::InGame
                && r.entered.is_some_and(|e| now >= (e + 1).max(OPERATOR_TICK))
            {
                r.bot.rcon_login(RCON_PASSWORD);
                send(i, "rcon login");
                r.rcon_in = true;
                if i == 0 {
                    self.logged_in = true;
                }
                if i == 0 && self.scenario.demo {
                    r.bot.rcon("record teeoracle");
                    self.demo_running = true;
                }
            }
            if r.bot.phase() == Phase::InGame {
                if i == 0 && self.logged_in {
                    while let Some((at, cmd)) = self.scenario.rcon.get(self.rcon_done) {
                        if ticks(*at) > now {
                            break;
                        }
                        r.bot.rcon(cmd);
                        send(i, "rcon");
                        if changes_map(cmd) {
                            self.map_command = Some(MapCommand {
                                command: cmd.clone(),
                                tick: now,
                            });
                        }
                        self.rcon_done += 1;
                    }
                }
                while let Some((at, text)) = r.plan.say.get(r.said) {
                    if ticks(*at) > now {
                        break;
                    }
                    r.bot.say(text);
                    send(i, "chat");
                    r.said += 1;
                }
                while let Some(at) = r.plan.kill.get(r.killed) {
                    if ticks(*at) > now {
                        break;
                    }
                    r.bot.kill();
                    send(i, "kill");
                    r.killed += 1;
                }
                for action in r.deeds(now) {
                    send(i, action);
                }
            }
            // A replayed client's messages go out from its entry on: the
            // server reads them after the entry, in the same pass.
            if matches!(r.bot.phase(), Phase::InGame | Phase::Joining) {
                for action in r.replay_deeds(now) {
                    send(i, action);
                }
            }
            // Silence in the middle of its tick: the server drops the bot
            // a timeout after its last datagram (the KEEPALIVE that goes
            // now) came, and half a tick from the tick's start that lands
            // on the same tick in every run.
            if r.outcome.silent.is_none()
                && r.plan
                    .silent
                    .is_some_and(|q| ticks(q) <= now && middle >= Some(ticks(q)))
            {
                r.bot.go_silent();
                r.outcome.silent = Some(now);
            } else if r.outcome.left.is_none()
                && r.outcome.silent.is_none()
                && r.plan.leave.is_some_and(|l| ticks(l) <= now)
                && !matches!(r.bot.phase(), Phase::Idle | Phase::Closed)
            {
                if i == 0 && self.demo_running {
                    r.bot.rcon("stoprecord");
                    r.bot.keepalive();
                    self.demo_running = false;
                }
                r.bot.leave("");
                send(i, "leave");
                r.outcome.left = Some(now);
                self.wake = Some(Wake::after_leave(now));
            }
        }
        for (i, action) in sent {
            self.sent.push(Sent {
                tick: now,
                bot: i,
                action,
                late,
            });
        }
    }

    /// Sends what the bots have to send, into the capture too, and wakes
    /// the server when due.
    fn transmit(&mut self) -> std::io::Result<()> {
        // An empty server sleeps until a datagram comes, and handles it
        // before it counts the ticks it slept through: while nobody is
        // connected (a hello holds no slot) and someone is still to join,
        // it is woken every step,
        // so that the join lands on its tick.
        let holds_slot = |p: Phase| {
            matches!(
                p,
                Phase::Accepted | Phase::Joining | Phase::InGame | Phase::MapChanged
            )
        };
        let empty = self.clock.now.is_some()
            && !self.bots.iter().any(|r| holds_slot(r.bot.phase()))
            && self.bots.iter().any(|r| {
                matches!(
                    r.bot.phase(),
                    Phase::Idle | Phase::Connecting | Phase::Answered
                )
            });
        let due = self.wake.filter(|w| Instant::now() >= w.at);
        if let Some(w) = due {
            // Once more while the tick lasts (the first wake's pass may
            // have read the CLOSEs too).
            let again = Wake {
                at: Instant::now() + WAKE_AGAIN,
                again: false,
                ..w
            };
            self.wake = (w.again && !self.clock.over(w.tick)).then_some(again);
        }
        if empty || due.is_some() {
            self.waker.ask(self.server_addr);
        }
        // A leave is dropped on its tick when its wake comes in it: a wake
        // that went out after the tick (this process stalled) makes the
        // leave late.
        if let Some(tick) = due.map(|w| w.tick).filter(|t| self.clock.over(*t)) {
            for s in self
                .sent
                .iter_mut()
                .filter(|s| s.tick == tick && s.action == "leave")
            {
                s.late = true;
            }
        }
        while self.waker.answered() {}
        for r in &mut self.bots {
            let me = r.addr;
            while let Some(d) = r.bot.poll_transmit() {
                if r.bot.phase() == Phase::Connecting {
                    r.last_hello = Some(Instant::now());
                }
                self.capture
                    .packet(me, self.server_addr, &d, SystemTime::now())?;
                let _ = r.socket.send_to(&d, self.server_addr);
            }
        }
        // This process may stall between a tick's actions and their
        // datagrams (its own load): late is judged as they go out.
        for s in &mut self.sent[self.transmitted..] {
            s.late |= self.clock.over(s.tick);
        }
        self.transmitted = self.sent.len();
        Ok(())
    }
}

/// The question whether the server listens: a 0.7 TOKEN request (which
/// DDNet and Teeworlds 0.7.5 answer without making a client) from a
/// socket of its own.
struct Probe {
    socket: UdpSocket,
    hello: Vec<u8>,
}

impl Probe {
    fn new() -> std::io::Result<Probe> {
        let socket = UdpSocket::bind((Ipv4Addr::LOCALHOST, 0))?;
        socket.set_nonblocking(true)?;
        let mut bot = Bot::new("probe", Version::V07, 0);
        bot.connect();
        let hello = bot.poll_transmit().unwrap_or_default();
        Ok(Probe { socket, hello })
    }

    fn ask(&self, server: SocketAddr) {
        let _ = self.socket.send_to(&self.hello, server);
    }

    /// Whether anything came back.
    fn answered(&self) -> bool {
        let mut buf = [0u8; 2048];
        self.socket.recv_from(&mut buf).is_ok()
    }
}
