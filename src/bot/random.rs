//! Seeded random input over the whole of DDNet's input message, and the
//! other things a client does (dies, spectates, changes DDRace team, runs
//! a test command), for the physics campaign (`examples/campaign/`).
//!
//! What real clients send and [`movement`](super::movement) never does:
//! every field of `CNetObj_PlayerInput` drawn over its range, held for
//! stretches of varying length (a tick to seconds) — direction -1/0/1; a
//! target on screen, at (0, 0) (DDNet turns it into (0, -1)), near zero,
//! on an axis, far off screen or at the ends of an int; jump and hook held
//! and released; fire, next weapon and previous weapon as DDNet's
//! counters (each change of state adds one, modulo 64) from a seeded start,
//! changing by one, by a press and a release, every tick, or jumping by up
//! to 63 at once; player flags (playing, chatting, which makes DDNet skip
//! the input, scoreboard, aim, menu, and any of the eight bits DDNet
//! accepts: 256 and 512 get a client kicked); a wanted weapon, also
//! out of range; long idle stretches with nothing changing. Everything is
//! a function of the seed and the scenario tick, so two runs of a
//! scenario send the same inputs and deeds on the same ticks.

use super::{seven, six};
use crate::generate::Rng;
use serde::Deserialize;

/// DDNet's `INPUT_STATE_MASK`: fire and the weapon counters wrap at 64.
pub const STATE_MASK: i32 = 0x3f;
/// Ticks a second.
const SECOND: u32 = 50;
/// The counters' blocks: each draws its own kind of change.
const BLOCK: u32 = 10;
/// An idle stretch is one or more of these windows (4 s).
const WINDOW: u32 = 200;

/// How a random bot behaves: `random: Some((seed: 7))` in a scenario.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Knobs {
    /// With `record --seed` and the tick, all that decides what it does.
    pub seed: u64,
    /// Mean seconds between two deeds (kills, team changes, commands); 0:
    /// none.
    #[serde(default = "default_deeds_every")]
    pub deeds_every: f64,
    /// The share of 4-second windows it idles in (nothing changes).
    #[serde(default = "default_idle")]
    pub idle: f64,
    /// Deaths it asks for: Cl_Kill and chat `/kill`.
    #[serde(default = "yes")]
    pub kill: bool,
    /// Spectating and back: Cl_SetTeam -1 and 0, `/spec`, `/pause`.
    #[serde(default = "yes")]
    pub spectate: bool,
    /// DDRace teams: `/team N`.
    #[serde(default = "yes")]
    pub teams: bool,
    /// Logs in to the remote console once in the game and gives itself
    /// weapons and ninja now and then (`weapons`, `ninja`: test commands,
    /// so the server needs `sv_test_cmds 1`).
    #[serde(default)]
    pub armed: bool,
    /// Sends an input with its join, which DDNet applies on the next
    /// tick (the teehistorian file has it on the join's tick).
    #[serde(default = "yes")]
    pub join_input: bool,
    /// Sets the chatting and (0.6) in-menu flags at times (DDNet resets
    /// a chatting player's input); `false` clears them from every input.
    #[serde(default = "yes")]
    pub chat_and_menu: bool,
    /// Presses next and previous weapon; `false` holds both counters at
    /// their start.
    #[serde(default = "yes")]
    pub next_prev: bool,
}

fn default_deeds_every() -> f64 {
    5.0
}

fn default_idle() -> f64 {
    1.0 / 6.0
}

fn yes() -> bool {
    true
}

impl Knobs {
    /// Why these knobs cannot run, if they cannot.
    pub fn problem(&self) -> Option<String> {
        if !(self.deeds_every.is_finite() && self.deeds_every >= 0.0) {
            return Some(format!(
                "deeds_every {} (seconds, 0 or more)",
                self.deeds_every
            ));
        }
        if !(0.0..=1.0).contains(&self.idle) {
            return Some(format!("idle {} (a share, 0 to 1)", self.idle));
        }
        None
    }
}

/// Something a bot does besides its input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Deed {
    /// Cl_Kill (the client's `kill`).
    Kill,
    /// A chat line: a DDRace command (`/kill`, `/spec`, `/pause`,
    /// `/team N`).
    Say(String),
    /// Cl_SetTeam: -1 to the spectators, 0 back in the game.
    SetTeam(i32),
    /// A remote console command (the bot is logged in).
    Rcon(&'static str),
}

/// Streams of draws, one per field (their values are part of what a seed
/// means: changing one changes every campaign's inputs).
#[derive(Clone, Copy)]
enum Stream {
    Idle = 1,
    IdleTarget,
    IdleFlags,
    DirectionTempo,
    Direction,
    TargetTempo,
    Target,
    JumpTempo,
    Jump,
    HookTempo,
    Hook,
    Flags,
    Wanted,
    Fire,
    Next,
    Prev,
    CounterStart,
    Deed,
}

/// The counters, in the order of [`RandomBot::prefix`].
const COUNTERS: [(Stream, usize, u64); 3] = [
    // (stream, input field, quiet blocks out of 20)
    (Stream::Fire, 4, 8),
    (Stream::Next, 8, 16),
    (Stream::Prev, 9, 16),
];

/// One random bot's behaviour: a function of (seed, tick), with the
/// counters' running sums kept for the ticks of a run.
pub struct RandomBot {
    seed: u64,
    knobs: Knobs,
    /// 0.7 player flags (else 0.6's).
    seven: bool,
    /// The counters' values at the start of each block, up to the run's
    /// end; later blocks are summed when asked.
    prefix: Vec<[u32; 3]>,
}

impl RandomBot {
    /// A bot of `knobs` whose seed is mixed with `run_seed` (record's
    /// `--seed`), sending 0.7 flags if `seven`, with its counters summed
    /// up to tick `horizon`.
    pub fn new(knobs: &Knobs, run_seed: u64, seven: bool, horizon: u32) -> RandomBot {
        let seed = Rng::new(knobs.seed ^ run_seed.wrapping_mul(0x9e37_79b9_7f4a_7c15)).next_u64();
        let mut bot = RandomBot {
            seed,
            knobs: knobs.clone(),
            seven,
            prefix: Vec::new(),
        };
        let start = COUNTERS
            .map(|(_, field, _)| bot.draw(Stream::CounterStart, field as u64).below(64) as u32);
        let mut prefix = vec![start];
        for block in 0..horizon / BLOCK + 1 {
            let last = prefix[prefix.len() - 1];
            prefix.push(std::array::from_fn(|i| {
                last[i] + bot.steps(COUNTERS[i], block, BLOCK)
            }));
        }
        bot.prefix = prefix;
        bot
    }

    /// The input to send with the join, if the knobs ask for one: the
    /// join tick's.
    pub fn join_input(&self, join_tick: u32) -> Option<[i32; 10]> {
        self.knobs.join_input.then(|| self.input(join_tick))
    }

    /// Whether it logs in to the remote console for test commands.
    pub fn armed(&self) -> bool {
        self.knobs.armed
    }

    /// The generator of `stream`'s draw number `slot`.
    fn draw(&self, stream: Stream, slot: u64) -> Rng {
        let key = (stream as u64).wrapping_mul(0xbf58_476d_1ce4_e5b9) ^ slot;
        Rng::new(Rng::new(self.seed ^ key).next_u64())
    }

    /// A field held for stretches: the tick's slot at a tempo drawn once
    /// a second from `tempos`, and that slot's generator.
    fn held(&self, tempo: Stream, stream: Stream, tempos: &[u32], tick: u32) -> Rng {
        let t = *self
            .draw(tempo, u64::from(tick / SECOND))
            .pick(tempos)
            .max(&1);
        self.draw(stream, u64::from(t) << 32 | u64::from(tick / t))
    }

    /// Whether `tick` falls in an idle window.
    fn idle(&self, tick: u32) -> bool {
        let share = (self.knobs.idle * 1e6) as u64;
        self.draw(Stream::Idle, u64::from(tick / WINDOW))
            .below(1_000_000)
            < share
    }

    /// How much a counter moves in `block` at its ticks before `upto`
    /// (of the block's [`BLOCK`]).
    fn steps(&self, (stream, _, quiet): (Stream, usize, u64), block: u32, upto: u32) -> u32 {
        if self.idle(block * BLOCK) {
            return 0;
        }
        let mut r = self.draw(stream, u64::from(block));
        let at = r.below(u64::from(BLOCK)) as u32;
        let by = |t: u32| u32::from(t < upto);
        match r.below(20) {
            k if k < quiet => 0,
            // A press or a release (held until the next one).
            k if k < quiet + (20 - quiet) / 2 => by(at),
            // A tap: a press and, a few ticks later, its release.
            k if k < 18 => by(at) + by(at + 1 + r.below(4) as u32),
            // Mashed: a change every tick to the block's end.
            18 => (at..upto.min(BLOCK)).count() as u32,
            // A jump: several changes between two inputs.
            _ => by(at) * r.int(2, 63) as u32,
        }
    }

    /// The value of counter `i` on `tick`.
    fn counter(&self, i: usize, tick: u32) -> i32 {
        let block = tick / BLOCK;
        let known = self.prefix.len() as u32 - 1;
        let mut sum = self.prefix[block.min(known) as usize][i];
        for b in known..block {
            sum += self.steps(COUNTERS[i], b, BLOCK);
        }
        sum += self.steps(COUNTERS[i], block, tick % BLOCK + 1);
        (sum & STATE_MASK as u32) as i32
    }

    /// The input for scenario tick `tick`: [direction, target x, target
    /// y, jump, fire, hook, player flags, wanted weapon, next weapon,
    /// previous weapon], as DDNet's INPUT carries it.
    pub fn input(&self, tick: u32) -> [i32; 10] {
        let mut input = self.drawn_input(tick);
        if !self.knobs.next_prev {
            input[8] = self.prefix[0][1] as i32;
            input[9] = self.prefix[0][2] as i32;
        }
        if !self.knobs.chat_and_menu {
            input[6] &= !if self.seven {
                seven::CHATTING
            } else {
                six::CHATTING | six::IN_MENU
            };
        }
        input
    }

    /// [`RandomBot::input`] before the knobs take flags away.
    fn drawn_input(&self, tick: u32) -> [i32; 10] {
        let mut input = [0; 10];
        for (i, &(_, field, _)) in COUNTERS.iter().enumerate() {
            input[field] = self.counter(i, tick);
        }
        if self.idle(tick) {
            // The stretch's first window (within a minute) keys it, so
            // that windows in a row are one stretch.
            let mut first = tick / WINDOW;
            while first > 0 && tick / WINDOW - first < 15 && self.idle((first - 1) * WINDOW) {
                first -= 1;
            }
            let window = u64::from(first);
            // Away: the mouse where it was left, nothing held, the menu
            // or nothing as flags.
            let (x, y) = target(&mut self.draw(Stream::IdleTarget, window));
            input[1] = x;
            input[2] = y;
            let mut r = self.draw(Stream::IdleFlags, window);
            input[6] = match (self.seven, r.below(3)) {
                (_, 0) => 0,
                (false, 1) => six::IN_MENU,
                (false, _) => six::PLAYING | six::IN_MENU,
                (true, 1) => seven::SCOREBOARD,
                (true, _) => seven::CHATTING,
            };
            return input;
        }
        input[0] = self
            .held(
                Stream::DirectionTempo,
                Stream::Direction,
                &[1, 5, 25, 75],
                tick,
            )
            .int(-1, 1);
        let (x, y) =
            target(&mut self.held(Stream::TargetTempo, Stream::Target, &[1, 5, 20, 50], tick));
        input[1] = x;
        input[2] = y;
        input[3] = i32::from(
            self.held(Stream::JumpTempo, Stream::Jump, &[1, 3, 10, 40], tick)
                .one_in(5),
        );
        input[5] = i32::from(
            self.held(Stream::HookTempo, Stream::Hook, &[1, 10, 30, 100], tick)
                .below(5)
                < 2,
        );
        input[6] = self.flags(&mut self.draw(Stream::Flags, u64::from(tick / 25)));
        let mut r = self.draw(Stream::Wanted, u64::from(tick / BLOCK));
        input[7] = match r.below(100) {
            0..=79 => 0,
            // A weapon's index plus one: hammer to ninja.
            80..=96 => r.int(1, 6),
            // Out of range (DDNet checks the index it makes of it).
            _ => *r.pick(&[-1, -1000, 7, 8, 64, 1000]),
        };
        input
    }

    /// Player flags for a stretch, in the bot's protocol.
    fn flags(&self, r: &mut Rng) -> i32 {
        let roll = r.below(100);
        if roll >= 90 {
            // Any of the eight bits DDNet takes.
            return r.below(256) as i32;
        }
        match (self.seven, roll) {
            (false, 0..=59) => six::PLAYING,
            (false, 60..=69) => six::PLAYING | six::AIM,
            (false, 70..=79) => six::PLAYING | six::CHATTING,
            (false, 80..=85) => six::PLAYING | six::SCOREBOARD,
            (false, _) => six::PLAYING | six::IN_MENU,
            (true, 0..=59) => 0,
            (true, 60..=69) => seven::AIM,
            (true, 70..=79) => seven::CHATTING,
            (true, _) => seven::SCOREBOARD,
        }
    }

    /// What the bot does on `tick` besides its input, if anything: on
    /// average one deed every [`Knobs::deeds_every`] seconds, at most one
    /// a second, of the kinds its knobs allow.
    pub fn deed(&self, tick: u32) -> Option<Deed> {
        let k = &self.knobs;
        if k.deeds_every <= 0.0 {
            return None;
        }
        let mut r = self.draw(Stream::Deed, u64::from(tick / SECOND));
        let chance = (1e6 / k.deeds_every).min(1e6) as u64;
        if r.below(1_000_000) >= chance || u64::from(tick % SECOND) != r.below(SECOND.into()) {
            return None;
        }
        // (weight, deed) of the kinds allowed.
        let team = *r.pick(&[0, 0, 1, 1, 2, 3, 17, 63]);
        let mut kinds: Vec<(u64, Deed)> = Vec::new();
        if k.kill {
            kinds.push((3, Deed::Kill));
            kinds.push((2, Deed::Say("/kill".into())));
        }
        if k.spectate {
            kinds.push((2, Deed::SetTeam(-1)));
            kinds.push((3, Deed::SetTeam(0)));
            kinds.push((1, Deed::Say("/spec".into())));
            kinds.push((1, Deed::Say("/pause".into())));
        }
        if k.teams {
            kinds.push((3, Deed::Say(format!("/team {team}"))));
        }
        if k.armed {
            kinds.push((2, Deed::Rcon("weapons")));
            kinds.push((1, Deed::Rcon("ninja")));
        }
        let total: u64 = kinds.iter().map(|(w, _)| w).sum();
        let mut at = r.below(total);
        for (w, deed) in kinds {
            if at < w {
                return Some(deed);
            }
            at -= w;
        }
        None
    }
}

/// A target: on screen, at (0, 0), near zero, on an axis, far off
/// screen, or at the ends of an int.
fn target(r: &mut Rng) -> (i32, i32) {
    let far = |r: &mut Rng| r.int(1_000, 100_000) * if r.one_in(2) { -1 } else { 1 };
    let extreme = |r: &mut Rng| match r.below(4) {
        0 => i32::MAX,
        1 => i32::MIN,
        2 => i32::MIN + 1,
        _ => r.next_u64() as i32,
    };
    match r.below(100) {
        0..=49 => (r.int(-400, 400), r.int(-400, 400)),
        50..=59 => (0, 0),
        60..=69 => (r.int(-2, 2), r.int(-2, 2)),
        70..=77 => match r.one_in(2) {
            true => (0, r.int(-400, 400)),
            false => (r.int(-400, 400), 0),
        },
        78..=89 => (far(r), far(r)),
        _ => (extreme(r), extreme(r)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn knobs(seed: u64) -> Knobs {
        ron::from_str(&format!("(seed: {seed}, armed: true)")).unwrap()
    }

    /// Ten minutes, the longest run.
    const RUN: u32 = 30_000;

    #[test]
    fn input_and_deeds_depend_on_the_seeds_and_the_tick_only() {
        let bot = RandomBot::new(&knobs(7), 3, false, RUN);
        // Without the counters' sums: every tick summed from the start.
        let bare = RandomBot::new(&knobs(7), 3, false, 0);
        let forward: Vec<_> = (0..RUN).map(|t| bot.input(t)).collect();
        let backward: Vec<_> = (0..RUN).rev().step_by(97).map(|t| bare.input(t)).collect();
        let asked: Vec<_> = (0..RUN)
            .rev()
            .step_by(97)
            .map(|t| forward[t as usize])
            .collect();
        assert!(
            asked == backward,
            "the input depends on the order or the sums"
        );
        let deeds: Vec<_> = (0..RUN).map(|t| bot.deed(t)).collect();
        let again: Vec<_> = (0..RUN).map(|t| bare.deed(t)).collect();
        assert_eq!(deeds, again);
        for other in [
            RandomBot::new(&knobs(8), 3, false, RUN),
            RandomBot::new(&knobs(7), 4, false, RUN),
        ] {
            let theirs: Vec<_> = (0..RUN).map(|t| other.input(t)).collect();
            assert!(theirs != forward, "two seeds give the same input");
        }
        // Pinned: a change here changes what every campaign scenario
        // sends (its recordings no longer regenerate).
        assert_eq!(
            [bot.input(0), bot.input(1234), bot.input(29_999)],
            PINNED,
            "the generator changed"
        );
        assert_eq!(
            (0..RUN)
                .filter_map(|t| Some((t, deeds[t as usize].clone()?)))
                .take(4)
                .collect::<Vec<_>>(),
            pinned_deeds(),
            "the deeds changed"
        );
    }

    const PINNED: [[i32; 10]; 3] = [
        [1, 294, -45, 0, 56, 1, 40, 1, 32, 44],
        [0, 0, -202, 1, 26, 1, 1, 2, 14, 47],
        [0, -121, -367, 1, 35, 0, 1, 0, 15, 62],
    ];
    fn pinned_deeds() -> Vec<(u32, Deed)> {
        vec![
            (29, Deed::Kill),
            (768, Deed::Say("/pause".into())),
            (1089, Deed::SetTeam(-1)),
            (2075, Deed::Kill),
        ]
    }

    /// Every value each field takes over ten minutes of a few seeds.
    #[test]
    fn every_field_covers_its_range() {
        let mut inputs = Vec::new();
        for (seed, seven) in [(1, false), (2, false), (3, true)] {
            let bot = RandomBot::new(&knobs(seed), 0, seven, RUN);
            inputs.push((0..RUN).map(|t| bot.input(t)).collect::<Vec<_>>());
        }
        let all = || inputs.iter().flatten();
        let has = |what: &str, f: &dyn Fn(&[i32; 10]) -> bool| {
            assert!(all().any(f), "never {what}");
        };
        // Direction.
        assert!(all().all(|i| (-1..=1).contains(&i[0])));
        for d in -1..=1 {
            has(&format!("direction {d}"), &|i| i[0] == d);
        }
        // Target: every kind.
        has("target (0, 0)", &|i| i[1] == 0 && i[2] == 0);
        has("a target near zero", &|i| {
            (i[1] != 0 || i[2] != 0) && i[1].unsigned_abs() <= 2 && i[2].unsigned_abs() <= 2
        });
        has("a target on screen", &|i| {
            (100..=400).contains(&i[1].unsigned_abs())
        });
        has("a target far off", &|i| {
            (1_000..=100_000).contains(&i[2].unsigned_abs())
        });
        for end in [i32::MAX, i32::MIN, i32::MIN + 1] {
            has(&format!("target x {end}"), &|i| i[1] == end);
        }
        // Jump and hook: 0 and 1 only, held for a tick and for long.
        for field in [3, 5] {
            assert!(all().all(|i| i[field] == 0 || i[field] == 1));
            let runs = held_runs(&inputs, field);
            assert!(runs.contains(&1), "field {field} never held for one tick");
            assert!(
                runs.iter().any(|&n| n >= 40),
                "field {field} never held for 40 ticks: {runs:?}"
            );
        }
        // The counters: within the mask, steps of one, two and more.
        for field in [4, 8, 9] {
            assert!(all().all(|i| (0..64).contains(&i[field])));
            let steps: Vec<i32> = inputs
                .iter()
                .flat_map(|run| run.windows(2))
                .map(|w| (w[1][field] - w[0][field]) & STATE_MASK)
                .collect();
            for want in [1, 2] {
                assert!(steps.contains(&want), "field {field}: no step of {want}");
            }
            assert!(
                steps.iter().any(|&s| s > 2),
                "field {field}: no jump by more than two"
            );
            let starts: Vec<i32> = inputs.iter().map(|run| run[0][field]).collect();
            assert!(starts.iter().any(|&s| s != 0), "field {field} starts at 0");
        }
        // Flags: every bit DDNet reads, never the two it kicks for.
        assert!(all().all(|i| (0..256).contains(&i[6])));
        for bit in 0..8 {
            has(&format!("flag bit {bit}"), &|i| i[6] & 1 << bit != 0);
        }
        has("no flags", &|i| i[6] == 0);
        // Wanted weapon: none, every weapon, out of range.
        for w in 0..=6 {
            has(&format!("wanted weapon {w}"), &|i| i[7] == w);
        }
        has("a wanted weapon out of range", &|i| {
            !(0..=6).contains(&i[7])
        });
        // Idle: whole windows of the same input, several in a row.
        let longest = inputs
            .iter()
            .map(|run| {
                run.chunk_by(|a, b| a == b)
                    .map(|c| c.len())
                    .max()
                    .unwrap_or(0)
            })
            .max()
            .unwrap_or(0);
        assert!(
            longest >= 2 * WINDOW as usize,
            "longest idle {longest} ticks"
        );
        // 0.6 flags from a 0.6 bot: playing; a 0.7 bot says none.
        assert!(inputs[0].iter().filter(|i| i[6] == six::PLAYING).count() > 10_000);
        assert!(inputs[2].iter().filter(|i| i[6] == 0).count() > 10_000);
    }

    /// The lengths of the stretches `field` is held (1) for.
    fn held_runs(inputs: &[Vec<[i32; 10]>], field: usize) -> Vec<usize> {
        inputs
            .iter()
            .flat_map(|run| run.chunk_by(|a, b| a[field] == b[field]))
            .filter(|c| c[0][field] == 1)
            .map(|c| c.len())
            .collect()
    }

    #[test]
    fn deeds_come_at_their_rate_and_of_every_kind_allowed() {
        let bot = RandomBot::new(&knobs(5), 0, false, RUN);
        let deeds: Vec<Deed> = (0..RUN).filter_map(|t| bot.deed(t)).collect();
        // One every 5 s on average: 120 in ten minutes.
        assert!((80..=160).contains(&deeds.len()), "{} deeds", deeds.len());
        for want in [
            Deed::Kill,
            Deed::Say("/kill".into()),
            Deed::SetTeam(-1),
            Deed::SetTeam(0),
            Deed::Say("/spec".into()),
            Deed::Say("/pause".into()),
            Deed::Say("/team 1".into()),
            Deed::Rcon("weapons"),
            Deed::Rcon("ninja"),
        ] {
            assert!(deeds.contains(&want), "never {want:?}");
        }
        // Off when asked.
        let quiet: Knobs =
            ron::from_str("(seed: 5, kill: false, spectate: false, teams: false)").unwrap();
        let quiet = RandomBot::new(&quiet, 0, false, RUN);
        assert_eq!((0..RUN).filter_map(|t| quiet.deed(t)).count(), 0);
        let none: Knobs = ron::from_str("(seed: 5, deeds_every: 0.0)").unwrap();
        let none = RandomBot::new(&none, 0, false, RUN);
        assert_eq!((0..RUN).filter_map(|t| none.deed(t)).count(), 0);
    }

    #[test]
    fn without_chat_and_menu_only_their_bits_go() {
        let six_bits = six::CHATTING | six::IN_MENU;
        for (seven, bit) in [(false, six_bits), (true, seven::CHATTING)] {
            let chats = RandomBot::new(&knobs(9), 0, seven, RUN);
            let quiet: Knobs =
                ron::from_str("(seed: 9, armed: true, chat_and_menu: false)").unwrap();
            let quiet = RandomBot::new(&quiet, 0, seven, RUN);
            let mut chatted = 0;
            for t in 0..RUN {
                let (a, b) = (chats.input(t), quiet.input(t));
                chatted += usize::from(a[6] & bit != 0);
                assert_eq!(b[6] & bit, 0, "tick {t}: chatting or in the menu");
                let mut a = a;
                a[6] &= !bit;
                assert_eq!(a, b, "tick {t}: more than those bits changed");
            }
            assert!(chatted > 1000, "{chatted} chatting ticks (seven: {seven})");
        }
    }

    #[test]
    fn without_next_prev_the_weapon_counters_hold_their_start() {
        let quiet: Knobs = ron::from_str("(seed: 9, next_prev: false)").unwrap();
        let quiet = RandomBot::new(&quiet, 0, false, RUN);
        let busy = RandomBot::new(&knobs(9), 0, false, RUN);
        let start = quiet.input(0);
        assert_eq!(&start[8..], &busy.input(0)[8..], "the same start");
        assert!((0..RUN).any(|t| busy.input(t)[8..] != start[8..]));
        for t in 0..RUN {
            let (mut a, b) = (busy.input(t), quiet.input(t));
            assert_eq!(b[8..], start[8..], "tick {t}");
            a[8] = b[8];
            a[9] = b[9];
            assert_eq!(a, b, "tick {t}: more than the counters changed");
        }
    }

    #[test]
    fn knobs_out_of_range_are_named() {
        let bad: Knobs = ron::from_str("(seed: 1, idle: 1.5)").unwrap();
        assert!(bad.problem().unwrap().contains("idle 1.5"));
        let bad: Knobs = ron::from_str("(seed: 1, deeds_every: -1.0)").unwrap();
        assert!(bad.problem().unwrap().contains("deeds_every"));
        assert_eq!(knobs(1).problem(), None);
        assert!(ron::from_str::<Knobs>("(seed: 1, speed: 2)").is_err());
    }
}
