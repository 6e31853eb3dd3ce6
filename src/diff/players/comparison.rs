//! What a comparison by player says ([`Comparison`]), as JSON and as
//! text.

use super::events::{self, EventDifference, RaceEvent, What, race_time};
use super::paths::{Departure, Path};
use super::roster::{HeaderSummary, Roster};
use crate::bytes::Text;
use crate::simulation::Release;
use serde::Serialize;
use std::fmt::Write as _;

/// The two recordings compared by player.
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    /// `identical` or `changed`.
    pub verdict: Verdict,
    /// The first file.
    pub original: Side,
    /// The second file, or the model.
    pub other: Side,
    /// How their ticks were lined up.
    pub alignment: Alignment,
    /// The original's ticks both cover, compared (`null`: they do not
    /// overlap).
    pub ticks: Option<[i32; 2]>,
    /// The kinds of race events compared.
    pub event_kinds: Vec<&'static str>,
    /// The counts.
    pub summary: Summary,
    /// Every player: the original's in the order they joined, then those
    /// only the other has.
    pub players: Vec<PlayerComparison>,
    /// When paths were kept ([`PlayerComparison::paths`]) and reached
    /// [`MAX_PATH_POINTS`](super::paths::MAX_PATH_POINTS): the first tick
    /// not kept.
    #[serde(skip)]
    pub paths_cut_at: Option<i32>,
}

/// Whether anything differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Every player matched, with the same path and events.
    Identical,
    /// Something differs.
    Changed,
}

/// One side of the comparison.
#[derive(Clone, Debug, Serialize)]
pub struct Side {
    /// `file` or `model`.
    pub kind: SideKind,
    /// The header's server version, map name and map SHA-256 (for the
    /// model: the file's).
    #[serde(flatten)]
    pub header: HeaderSummary,
    /// The first and last tick of its records (`null`: none).
    pub ticks: Option<[i32; 2]>,
    /// How many sessions (joins) it has.
    pub sessions: usize,
    /// The model's physics (`16.4` or `20.1`); absent for a file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub physics: Option<&'static str>,
    /// The model's changed tunings, name to value in the order given;
    /// absent for a file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tune: Option<serde_json::Map<String, serde_json::Value>>,
    /// The server config lines a replay ran after the header's settings
    /// (`record --replay --tune/--config`): this file is a changed
    /// server's game, not the recorded one. Absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changes: Option<Vec<String>>,
    /// Where its finishes come from.
    pub finishes: FinishSource,
}

/// A side's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SideKind {
    /// A teehistorian file's records.
    File,
    /// The model stepping the original's inputs.
    Model,
}

/// Where finishes come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishSource {
    /// The file's PLAYER_FINISH records.
    Recorded,
    /// The model's race: its start and finish lines on the path.
    Model,
    /// Not compared: a file's server records no finish (DDNet 16.4) and
    /// no map was given for the model's.
    NotCompared,
}

impl Side {
    /// A file's side.
    pub fn file(r: &Roster, finishes: FinishSource) -> Side {
        Side {
            kind: SideKind::File,
            header: r.header.clone(),
            ticks: r.ticks.map(|(a, b)| [a, b]),
            sessions: r.sessions.len(),
            physics: None,
            tune: None,
            changes: None,
            finishes,
        }
    }

    /// The model's side of the file whose roster is `r`.
    pub fn model(r: &Roster, physics: Release, tune: &[(String, String)]) -> Side {
        Side {
            kind: SideKind::Model,
            physics: Some(physics.number()),
            tune: Some(
                (tune.iter())
                    .map(|(n, v)| (n.clone(), serde_json::Value::String(v.clone())))
                    .collect(),
            ),
            finishes: FinishSource::Model,
            ..Side::file(r, FinishSource::Model)
        }
    }
}

/// How the files' ticks were lined up.
#[derive(Clone, Debug, Serialize)]
pub struct Alignment {
    /// `first_join`, `given` or `same_file`.
    pub how: Aligned,
    /// The other's tick minus the original's.
    pub offset: i64,
    /// The tick of the original's first join (`null`: nobody joined).
    pub original_tick: Option<i32>,
    /// The tick of the other's first join.
    pub other_tick: Option<i32>,
}

/// Which alignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Aligned {
    /// The first join of each file is the same tick.
    FirstJoin,
    /// The offset was given.
    Given,
    /// One file and the model of it: the same ticks.
    SameFile,
}

/// The counts of the comparison: `unchanged` and the changed players
/// matched, `only_original` and `only_other` make `players`. A changed
/// player may count in several of `path_changed`, `events_changed` and
/// `finish_changed`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    /// Players, matched or not.
    pub players: usize,
    /// Matched, same path and events.
    pub unchanged: usize,
    /// Matched, the path departs.
    pub path_changed: usize,
    /// Matched, the race events differ.
    pub events_changed: usize,
    /// Matched, the finishes (their number or times) differ.
    pub finish_changed: usize,
    /// Only in the original.
    pub only_original: usize,
    /// Only in the other.
    pub only_other: usize,
    /// Changed players whose first difference comes after the model met
    /// something of DDNet's it does not model for them (the model's side
    /// only): that difference may be the model's, not the change's.
    pub after_unmodelled: usize,
    /// The first tick anything differs (the original's numbering).
    pub first_difference: Option<i32>,
}

/// One player.
#[derive(Clone, Debug, Serialize)]
pub struct PlayerComparison {
    /// The name played under (`null`: the file never says).
    pub name: Option<Text<'static>>,
    /// Which session of this name (1: the first).
    pub join: u32,
    /// What became of it.
    pub status: Status,
    /// Its client id in the original (`null`: not there).
    pub original_cid: Option<i32>,
    /// Its client id in the other.
    pub other_cid: Option<i32>,
    /// The tick its session began (the original's numbering).
    pub joined: i32,
    /// Where its path departs (`null`: it does not, or unmatched).
    pub path: Option<Departure>,
    /// Where its events part (`null`: they do not, or unmatched).
    pub events: Option<EventDifference>,
    /// Its finish times in ticks on each side, when finishes are compared
    /// and it has any (`null` otherwise).
    pub finishes: Option<Finishes>,
    /// The first thing the model does not model that touched it before
    /// its first difference (the model's side only; absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unmodelled: Option<UnmodelledNote>,
    /// Its path on each side (the original's, the other's), when asked
    /// for ([`Options::paths`](super::Options::paths)).
    #[serde(skip)]
    pub paths: Option<[Path; 2]>,
}

/// Something of DDNet's the model met and does not model.
#[derive(Clone, Debug, Serialize)]
pub struct UnmodelledNote {
    /// When (the original's numbering).
    pub tick: i32,
    /// What, as docs/physics-coverage.md names it.
    pub feature: String,
}

/// A player's finishes on both sides.
#[derive(Clone, Debug, Serialize)]
pub struct Finishes {
    /// The original's race times in ticks, in order.
    pub original: Vec<i32>,
    /// The other's.
    pub other: Vec<i32>,
    /// They differ.
    pub changed: bool,
}

/// What became of a player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Same path, same events.
    Unchanged,
    /// Its path or events differ.
    Changed,
    /// Only the original has it.
    OnlyOriginal,
    /// Only the other has it.
    OnlyOther,
}

/// Puts the comparison together: each pair of sessions (`pairs`, indices
/// into `a`'s and `b`'s sessions) with its path's departure.
#[allow(clippy::too_many_arguments)]
pub(super) fn build(
    a: &mut Roster,
    b: &mut Roster,
    pairs: &[(Option<usize>, Option<usize>)],
    departures: Vec<Option<Departure>>,
    alignment: Alignment,
    range: Option<(i32, i32)>,
    sides: [Side; 2],
    kinds: Vec<&'static str>,
) -> Comparison {
    let offset = alignment.offset;
    for s in a.sessions.iter_mut().chain(b.sessions.iter_mut()) {
        events::sort(&mut s.events);
    }
    let finishes_compared = kinds.contains(&"finish");
    // Events of a compared kind within the compared ticks.
    fn compared<'e>(
        events: &'e [RaceEvent],
        shift: i64,
        range: Option<(i32, i32)>,
        kinds: &[&str],
    ) -> Vec<&'e RaceEvent> {
        let Some((lo, hi)) = range else {
            return Vec::new();
        };
        let inside = |t: i32| (i64::from(lo)..=i64::from(hi)).contains(&(i64::from(t) - shift));
        (events.iter())
            .filter(|e| kinds.contains(&e.what.kind()) && inside(e.tick))
            .collect()
    }
    let times = |events: &[&RaceEvent]| -> Vec<i32> {
        (events.iter())
            .filter_map(|e| match e.what {
                What::Finish { time } => Some(time),
                _ => None,
            })
            .collect()
    };
    let mut players = Vec::with_capacity(pairs.len());
    for (&(i, j), path) in pairs.iter().zip(departures) {
        let (sa, sb) = (i.map(|i| &a.sessions[i]), j.map(|j| &b.sessions[j]));
        let key = match i {
            Some(i) => &a.keys[i],
            None => &b.keys[j.expect("a pair has a side")],
        };
        let joined = match (sa, sb) {
            (Some(s), _) => s.start,
            (None, Some(s)) => events::clamp(i64::from(s.start) - offset),
            (None, None) => unreachable!("a pair has a side"),
        };
        let mut p = PlayerComparison {
            name: key.name.clone(),
            join: key.join,
            status: Status::Unchanged,
            original_cid: sa.map(|s| s.cid),
            other_cid: sb.map(|s| s.cid),
            joined,
            path: None,
            events: None,
            finishes: None,
            unmodelled: None,
            paths: None,
        };
        let (Some(sa), Some(sb)) = (sa, sb) else {
            p.status = match sa {
                Some(_) => Status::OnlyOriginal,
                None => Status::OnlyOther,
            };
            players.push(p);
            continue;
        };
        let ea = compared(&sa.events, 0, range, &kinds);
        let mut eb = compared(&sb.events, offset, range, &kinds);
        // A player the original has from the previous map (no join) joins
        // anew where that map cannot be played first (a replay): its join
        // is no difference.
        if ea.first().is_none_or(|e| e.what != What::Join)
            && eb.first().is_some_and(|e| e.what == What::Join)
        {
            eb.remove(0);
        }
        p.events = events::first_difference(&ea, &eb, offset);
        if finishes_compared {
            let (fa, fb) = (times(&ea), times(&eb));
            if !fa.is_empty() || !fb.is_empty() {
                let changed = fa != fb;
                p.finishes = Some(Finishes {
                    original: fa,
                    other: fb,
                    changed,
                });
            }
        }
        p.path = path;
        if p.path.is_some() || p.events.is_some() {
            p.status = Status::Changed;
        }
        players.push(p);
    }
    let [original, other] = sides;
    let mut c = Comparison {
        verdict: Verdict::Identical,
        original,
        other,
        alignment,
        ticks: range.map(|(a, b)| [a, b]),
        event_kinds: kinds,
        summary: Summary::default(),
        players,
        paths_cut_at: None,
    };
    c.summarise();
    c
}

impl Comparison {
    /// The summary and the verdict, counted from the players.
    fn summarise(&mut self) {
        let mut s = Summary {
            players: self.players.len(),
            ..Summary::default()
        };
        let mut first = |t: i32| {
            s.first_difference = Some(s.first_difference.map_or(t, |f| f.min(t)));
        };
        for p in &self.players {
            match p.status {
                Status::OnlyOriginal | Status::OnlyOther => first(p.joined),
                Status::Unchanged | Status::Changed => {
                    (p.path.iter().map(|d| d.tick)).for_each(&mut first);
                    (p.events.iter().map(|e| e.tick)).for_each(&mut first);
                }
            }
        }
        for p in &self.players {
            match p.status {
                Status::Unchanged => s.unchanged += 1,
                Status::Changed => {}
                Status::OnlyOriginal => s.only_original += 1,
                Status::OnlyOther => s.only_other += 1,
            }
            s.path_changed += usize::from(p.path.is_some());
            s.events_changed += usize::from(p.events.is_some());
            s.finish_changed += usize::from(p.finishes.as_ref().is_some_and(|f| f.changed));
            s.after_unmodelled += usize::from(p.unmodelled.is_some());
        }
        self.verdict = match s.unchanged == s.players {
            true => Verdict::Identical,
            false => Verdict::Changed,
        };
        self.summary = s;
    }

    /// Leaves out the players `out` picks (a replay's own clock, which
    /// the original never had), counting the summary and the verdict
    /// again without them.
    pub fn leave_out(&mut self, out: impl Fn(&PlayerComparison) -> bool) {
        self.players.retain(|p| !out(p));
        self.summarise();
    }

    /// Notes, for each changed player, the first of the model's
    /// `unmodelled` events (its world's ticks, the original's) that
    /// touched it (its client id, or everybody) in its session before its
    /// first difference.
    pub(super) fn note_unmodelled(
        &mut self,
        unmodelled: &[crate::simulation::ddrace::world::Unmodelled],
    ) {
        for p in &mut self.players {
            let (Some(cid), Status::Changed) = (p.original_cid, p.status) else {
                continue;
            };
            let first = [
                p.path.as_ref().map(|d| d.tick),
                p.events.as_ref().map(|e| e.tick),
            ];
            let Some(first) = first.into_iter().flatten().min() else {
                continue;
            };
            let touched = unmodelled.iter().find(|u| {
                (p.joined..=first).contains(&u.tick)
                    && u.cid.is_none_or(|c| i32::try_from(c) == Ok(cid))
            });
            if let Some(u) = touched {
                p.unmodelled = Some(UnmodelledNote {
                    tick: u.tick,
                    feature: u.feature.clone(),
                });
            }
        }
        self.summarise();
    }

    /// For people: the sides, the alignment, what was compared, then
    /// `identical`, or the summary and each player that differs.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let _ = self.write_text(&mut out);
        out
    }

    fn write_text(&self, out: &mut String) -> std::fmt::Result {
        writeln!(out, "original: {}", side_text(&self.original))?;
        writeln!(out, "other:    {}", side_text(&self.other))?;
        let a = &self.alignment;
        let at = |t: Option<i32>| t.map_or("none".to_string(), |t| t.to_string());
        match a.how {
            Aligned::FirstJoin => writeln!(
                out,
                "aligned by the first join: original tick {} is other tick {} (offset {:+})",
                at(a.original_tick),
                at(a.other_tick),
                a.offset
            )?,
            Aligned::Given => writeln!(out, "aligned by the offset given: {:+}", a.offset)?,
            Aligned::SameFile => writeln!(out, "aligned: one file, the same ticks")?,
        }
        match self.ticks {
            Some([lo, hi]) => write!(out, "compared: ticks {lo}..{hi} (the original's)")?,
            None => write!(out, "compared: no tick (the files do not overlap)")?,
        }
        writeln!(out, "; events: {}", self.event_kinds.join(" "))?;
        writeln!(out, "finishes: {}", finish_text(self))?;
        let s = &self.summary;
        if self.verdict == Verdict::Identical {
            let players = plural(s.players, "player");
            return writeln!(out, "identical: {players}, same paths and events");
        }
        write!(
            out,
            "changed: {} of {}: {} unchanged, {} path changed, {} events changed, {} finish changed, {} only in the original, {} only in the other",
            s.players - s.unchanged,
            plural(s.players, "player"),
            s.unchanged,
            s.path_changed,
            s.events_changed,
            s.finish_changed,
            s.only_original,
            s.only_other,
        )?;
        if s.after_unmodelled > 0 {
            write!(
                out,
                " ({} after something the model does not model)",
                s.after_unmodelled
            )?;
        }
        match s.first_difference {
            Some(t) => writeln!(out, "; first difference at tick {t}")?,
            None => writeln!(out)?,
        }
        let finishes = self.event_kinds.contains(&"finish");
        for p in self
            .players
            .iter()
            .filter(|p| p.status != Status::Unchanged)
        {
            player_text(out, p, finishes)?;
        }
        Ok(())
    }
}

fn plural(n: usize, what: &str) -> String {
    match n {
        1 => format!("1 {what}"),
        n => format!("{n} {what}s"),
    }
}

fn side_text(s: &Side) -> String {
    let mut t = match s.kind {
        SideKind::File => "file".to_string(),
        SideKind::Model => {
            let mut m = format!("the model, physics {}", s.physics.unwrap_or("?"));
            for (n, v) in s.tune.iter().flatten() {
                let v = v.as_str().unwrap_or_default();
                let _ = write!(m, ", tune {n} {v}");
            }
            m
        }
    };
    if let Some(changes) = &s.changes {
        let _ = write!(t, " of a changed server ({})", changes.join("; "));
    }
    let h = &s.header;
    if let Some(v) = &h.server_version {
        let _ = write!(t, ", server {v:?}");
    }
    if let Some(m) = &h.map_name {
        let _ = write!(t, ", map {m:?}");
    }
    match s.ticks {
        Some([a, b]) => {
            let _ = write!(t, ", ticks {a}..{b}");
        }
        None => t.push_str(", no records"),
    }
    let _ = write!(t, ", {}", plural(s.sessions, "session"));
    t
}

fn finish_text(c: &Comparison) -> &'static str {
    match (c.original.finishes, c.other.finishes, c.other.kind) {
        (FinishSource::Recorded, FinishSource::Recorded, _) => "recorded (PLAYER_FINISH)",
        (FinishSource::Model, FinishSource::Model, SideKind::Model) => {
            "the model's race, on the original's recorded paths and on the model's own"
        }
        (FinishSource::Model, FinishSource::Model, SideKind::File) => {
            "the model's race on each file's recorded paths (a server records no finish)"
        }
        _ => {
            "not compared: a server records no finish (DDNet 16.4) and no map was given for the model's race"
        }
    }
}

/// A changed or unmatched player: where its path departs, where its
/// events part, and, where finishes are compared (`finishes`), whether
/// its finish time changed.
fn player_text(out: &mut String, p: &PlayerComparison, finishes: bool) -> std::fmt::Result {
    let name = p
        .name
        .as_ref()
        .map_or("(no name)".to_string(), |n| n.to_string());
    let cid = |c: Option<i32>| c.map_or("-".to_string(), |c| c.to_string());
    write!(
        out,
        "  {name} #{} (cid {} / {}): ",
        p.join,
        cid(p.original_cid),
        cid(p.other_cid)
    )?;
    match p.status {
        Status::OnlyOriginal => {
            return writeln!(out, "only in the original (joined at tick {})", p.joined);
        }
        Status::OnlyOther => {
            return writeln!(out, "only in the other (joined at tick {})", p.joined);
        }
        _ => writeln!(out, "changed")?,
    }
    let pos =
        |p: Option<[i32; 2]>| p.map_or("no character".to_string(), |[x, y]| format!("({x}, {y})"));
    if let Some(d) = &p.path {
        write!(
            out,
            "    path departs at tick {}: original {}, other {}",
            d.tick,
            pos(d.original),
            pos(d.other)
        )?;
        if let Some(dist) = d.distance {
            write!(out, ", {dist:.2} apart")?;
        }
        writeln!(out, "; {} differ", plural(d.ticks as usize, "tick"))?;
    }
    if let Some(e) = &p.events {
        let ev = |e: &Option<RaceEvent>| e.as_ref().map_or("none".to_string(), |e| e.to_string());
        writeln!(
            out,
            "    events part at tick {}: original {}, other {}",
            e.tick,
            ev(&e.original),
            ev(&e.other)
        )?;
    }
    if let Some(u) = &p.unmodelled {
        writeln!(
            out,
            "    after the model met {} at tick {}, which it does not model: the difference may be the model's",
            u.feature, u.tick
        )?;
    }
    let list = |t: &[i32]| match t {
        [] => "none".to_string(),
        t => t
            .iter()
            .map(|&t| race_time(t))
            .collect::<Vec<_>>()
            .join(", "),
    };
    match &p.finishes {
        Some(f) if f.changed => writeln!(
            out,
            "    finish changed: original {}, other {}",
            list(&f.original),
            list(&f.other)
        ),
        Some(f) => writeln!(out, "    finish unchanged: {}", list(&f.original)),
        None if finishes => writeln!(out, "    no finish on either side"),
        None => Ok(()),
    }
}
