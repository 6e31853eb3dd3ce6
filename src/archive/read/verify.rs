//! Verification ([`Archive::verify`]): every member checked against the
//! recordings, each recording through the teehistorian pipeline, every
//! checkpoint against the replay at its offset; what is missing or wrong
//! resolved (rebuilt) for [`Archive::unpack`].

use super::access::Fault;
use super::{Archive, MapMembers, MemberCheck, MemberOutcome};
use crate::archive::frames::Compression;
use crate::archive::members::{MapMember, Slot};
use crate::archive::recording::{Analysis, MIN_EVERY, Plan, Taken};
use crate::archive::text::{
    self, SaveFile, TocEntry, TopInfo, map_info, parse_toc, render_history, render_toc,
};
use crate::archive::{DEFAULT_EVERY, Progress};
use crate::teehistorian::End;
use serde::Serialize;
use std::fmt;

/// What verification found.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// How the file is stored.
    pub compression: Compression,
    /// The file's size.
    pub bytes: u64,
    /// One per member (and for the archive as a whole), in archive order.
    pub verdicts: Vec<MemberCheck>,
    /// The maps whose recording is there.
    pub maps: Vec<MapReport>,
    /// The top-level `info.txt` as it should be.
    #[serde(skip)]
    pub(super) top_text: String,
}

/// The `archive_verify` document of `archive verify --format json`.
#[derive(Serialize)]
pub struct Verified<'r> {
    /// The archive, as named.
    pub archive: String,
    /// Nothing failed.
    pub ok: bool,
    /// The report.
    #[serde(flatten)]
    pub report: &'r Report,
    /// What was counted.
    pub totals: VerifyTotals,
}

/// What a verification counted, for its last line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct VerifyTotals {
    /// Map folders with a recording.
    pub maps: usize,
    /// Records of all of them.
    pub records: u64,
    /// Checkpoints that agree with the replay.
    pub checkpoints_agree: usize,
    /// Members rebuilt (missing).
    pub rebuilt: usize,
    /// Verdicts that failed.
    pub failed: usize,
}

impl fmt::Display for VerifyTotals {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} map(s), {} records, {} checkpoint(s) agree; {} rebuilt, {} failed",
            self.maps, self.records, self.checkpoints_agree, self.rebuilt, self.failed
        )
    }
}

impl Report {
    /// True if anything is present but wrong, or a recording is missing
    /// or unsound.
    pub fn failed(&self) -> bool {
        self.verdicts
            .iter()
            .any(|v| v.status == MemberOutcome::Failed)
    }

    /// Verdicts with a status other than `ok`.
    pub fn remarks(&self) -> impl Iterator<Item = &MemberCheck> {
        self.verdicts
            .iter()
            .filter(|v| v.status != MemberOutcome::Ok)
    }

    /// The report as `archive verify --format json` prints it, for the
    /// archive named `archive`.
    pub fn document(&self, archive: String) -> Verified<'_> {
        Verified {
            archive,
            ok: !self.failed(),
            report: self,
            totals: self.totals(),
        }
    }

    /// What was counted.
    pub fn totals(&self) -> VerifyTotals {
        let count = |s: MemberOutcome| self.verdicts.iter().filter(|v| v.status == s).count();
        VerifyTotals {
            maps: self.maps.len(),
            records: self.maps.iter().map(|m| m.records).sum(),
            checkpoints_agree: self.maps.iter().map(|m| m.checkpoints_agree).sum(),
            rebuilt: count(MemberOutcome::Rebuilt),
            failed: count(MemberOutcome::Failed),
        }
    }
}

/// One map as verified.
#[derive(Clone, Debug, Serialize)]
pub struct MapReport {
    /// The map folder.
    pub map: u32,
    /// The map's name.
    pub map_name: Option<String>,
    /// The recording's records.
    pub records: u64,
    /// Its last tick.
    pub last_tick: i32,
    /// How it ended (`None`: stopped by a decode error).
    pub end: Option<End>,
    /// Checkpoints that agree with the replay.
    pub checkpoints_agree: usize,
    /// Members as they should be: name in the folder, bytes.
    #[serde(skip)]
    pub(super) resolved: Vec<(String, Vec<u8>)>,
    #[serde(skip)]
    pub(super) recording: Option<usize>,
}

impl Archive {
    /// Checks every member against the recordings: each recording decodes,
    /// re-encodes byte-exactly and replays cleanly; `info.txt` and
    /// `log.txt` are what the recording says; every checkpoint listed in
    /// `toc.txt` equals the replay at its offset. What is missing is
    /// rebuilt, what is wrong is reported (and rebuilt for [`unpack`]).
    ///
    /// [`unpack`]: Archive::unpack
    pub fn verify(&self) -> Report {
        self.verify_with(&mut |_| {})
    }

    /// [`Archive::verify`], telling `progress` how far it is (bytes of
    /// recordings read).
    pub fn verify_with(&self, progress: &mut dyn FnMut(Progress)) -> Report {
        let total = self
            .maps
            .values()
            .filter_map(|mm| mm.recording)
            .map(|i| self.members[i].size)
            .sum();
        let mut done = 0;
        let mut on_read = |n| {
            done += n;
            progress(Progress { done, total });
        };
        let mut verdicts = self.structure.clone();
        let (top, top_text) = self.verify_top_info(&mut verdicts);
        if let Some(gap) = self.missing_folder() {
            verdicts.push(MemberCheck::new(
                format!("{gap}/"),
                MemberOutcome::Failed,
                "map folder missing",
            ));
        }
        let mut maps = Vec::new();
        let mut previous_game: Option<String> = None;
        for &n in self.maps.keys() {
            let (mut v, report, game) =
                self.verify_map(n, top.every, previous_game.as_deref(), &mut on_read);
            verdicts.append(&mut v);
            maps.extend(report);
            previous_game = game;
        }
        Report {
            compression: self.compression,
            bytes: self.bytes,
            verdicts,
            maps,
            top_text,
        }
    }

    /// The top-level `info.txt`: its verdicts, what it says (or would say,
    /// rebuilt) and its text as it should be.
    fn verify_top_info(&self, verdicts: &mut Vec<MemberCheck>) -> (TopInfo, String) {
        let folders = self.maps.len() as u32;
        let (top, note) = match self.top_info() {
            Ok(t) => t,
            Err(f) => {
                let why = match f {
                    Fault::Damaged(w) | Fault::Retry(w) => format!("{}: {w}", w.member),
                    Fault::Fail(e) => e.to_string(),
                };
                verdicts.push(MemberCheck::new("archive", MemberOutcome::Failed, why));
                (
                    TopInfo {
                        version: text::ARCHIVE_VERSION,
                        name: String::new(),
                        author: String::new(),
                        date: String::new(),
                        maps: folders,
                        every: DEFAULT_EVERY,
                    },
                    None,
                )
            }
        };
        let top_verdict = match (note, self.top.is_some()) {
            (None, _) if top.maps != folders => MemberCheck::new(
                "info.txt",
                MemberOutcome::Failed,
                format!(
                    "says {} maps, the archive has {folders} map folders",
                    top.maps
                ),
            ),
            (None, _) => MemberCheck::new(
                "info.txt",
                MemberOutcome::Ok,
                format!("version {}, {} maps", top.version, top.maps),
            ),
            (Some(note), false) => MemberCheck::new("info.txt", MemberOutcome::Rebuilt, note),
            (Some(note), true) => MemberCheck::new("info.txt", MemberOutcome::Failed, note),
        };
        // A sound info.txt is kept as stored (fields a later version added
        // included); otherwise it is rendered with the folders found.
        let top_text = match (top_verdict.status, self.stored_text(self.top)) {
            (MemberOutcome::Ok, Ok(Some(Ok(text)))) => text,
            _ => TopInfo {
                maps: folders,
                ..top.clone()
            }
            .render(),
        };
        verdicts.push(top_verdict);
        if top.every < MIN_EVERY {
            verdicts.push(MemberCheck::new(
                "info.txt",
                MemberOutcome::Note,
                format!(
                    "checkpoint_every: {} ticks is less than a second: checkpoints are rebuilt {MIN_EVERY} ticks apart",
                    top.every
                ),
            ));
        }
        (top, top_text)
    }

    /// Folders are numbered 1, 2, ...: the first number not there, by
    /// walking the folders (a name like 4000000000/ costs nothing).
    fn missing_folder(&self) -> Option<u32> {
        (1..)
            .zip(self.maps.keys())
            .find(|&(expected, &n)| n != expected)
            .map(|(expected, _)| expected)
    }

    /// Verifies one map folder; returns its verdicts, its report (unless
    /// the recording is missing) and its game uuid.
    fn verify_map(
        &self,
        n: u32,
        every: i32,
        previous_game: Option<&str>,
        on_read: &mut dyn FnMut(u64),
    ) -> (Vec<MemberCheck>, Option<MapReport>, Option<String>) {
        let mm = &self.maps[&n];
        let name = |m: MapMember| Slot::Map(n, m).to_string();
        let Some(rec) = mm.recording else {
            let missing = MemberCheck::new(
                name(MapMember::Recording),
                MemberOutcome::Failed,
                "missing: the recording is the one member that cannot be rebuilt",
            );
            return (vec![missing], None, None);
        };
        let map = MapCheck {
            archive: self,
            n,
            mm,
            rec,
        };
        // The checkpoints the archive claims: toc.txt, or else the saves'
        // own offsets.
        let toc_raw = self.text_or_why(mm.toc);
        let stored_toc = toc_raw
            .clone()
            .map(|t| t.and_then(|t| parse_toc(&t).map_err(|e| e.to_string())));
        let (listed, damaged_saves) = match &stored_toc {
            Some(Ok(entries)) => (entries.clone(), Vec::new()),
            _ => map.checkpoints_of_saves(),
        };
        let offsets: Vec<u64> = listed.iter().map(|e| e.offset).collect();
        let plan = if listed.is_empty() {
            Plan::Every(every)
        } else {
            Plan::At(&offsets)
        };
        let a = match self.analyse_map(n, plan, true, on_read) {
            Ok((_, a)) => a,
            Err(f) => {
                let failed =
                    MemberCheck::new(name(MapMember::Recording), MemberOutcome::Failed, why(f));
                return (vec![failed], None, None);
            }
        };
        let recording = map.recording_verdict(&a, previous_game);
        let (info_verdict, info_text) = compare_text(
            &name(MapMember::Info),
            self.text_or_why(mm.info),
            map_info(&a),
            n,
        );
        let (log_verdict, log_text) = compare_text(
            &name(MapMember::Log),
            self.text_or_why(mm.log),
            a.log.clone(),
            n,
        );
        let (history_verdict, history_text) = compare_text(
            &name(MapMember::History),
            self.text_or_why(mm.history),
            render_history(&a.history),
            n,
        );
        let checkpoints = if listed.is_empty() {
            map.rebuilt_checkpoints(&a, &damaged_saves)
        } else {
            map.compared_checkpoints(&a, &listed, matches!(stored_toc, Some(Ok(_))))
        };
        let toc_verdict = map.toc_verdict(&stored_toc, &checkpoints.toc_faults, listed.is_empty());
        let toc_bytes = match (toc_raw, &stored_toc, checkpoints.toc_faults.is_empty()) {
            (Some(Ok(stored)), Some(Ok(_)), true) => stored.into_bytes(),
            _ => render_toc(&checkpoints.entries).into_bytes(),
        };
        // Checkpoints' verdicts come after the others, in the archive's
        // order.
        let mut v = vec![
            info_verdict,
            toc_verdict,
            log_verdict,
            recording,
            history_verdict,
        ];
        v.extend(checkpoints.verdicts);
        let mut resolved = vec![
            (MapMember::Info.to_string(), info_text.into_bytes()),
            (MapMember::Toc.to_string(), toc_bytes),
            (MapMember::Log.to_string(), log_text.into_bytes()),
            (MapMember::History.to_string(), history_text.into_bytes()),
        ];
        for (k, bytes) in checkpoints.saves {
            resolved.push((MapMember::Save(k).to_string(), bytes));
        }
        let report = MapReport {
            map: n,
            map_name: a.header.info.map_name.clone(),
            records: a.scan.records,
            last_tick: a.scan.last_tick,
            end: a.scan.end,
            checkpoints_agree: checkpoints.agree,
            resolved,
            recording: Some(rec),
        };
        (v, Some(report), a.header.info.game_uuid.clone())
    }

    /// A member that may be absent, as stored (`None`: absent), or why it
    /// cannot be read.
    fn text_or_why(&self, i: Option<usize>) -> Option<Result<String, String>> {
        match self.stored_text(i) {
            Ok(t) => t,
            Err(f) => Some(Err(why(f))),
        }
    }
}

/// What a fault says, without the member's name (the verdict names it).
fn why(f: Fault) -> String {
    match f {
        Fault::Damaged(w) | Fault::Retry(w) => w.to_string(),
        Fault::Fail(e) => e.to_string(),
    }
}

/// One map folder being verified.
struct MapCheck<'a> {
    archive: &'a Archive,
    n: u32,
    mm: &'a MapMembers,
    /// Its recording (member index).
    rec: usize,
}

/// A map's checkpoints as verified.
#[derive(Default)]
struct Checkpoints {
    /// One per checkpoint member, in the archive's order.
    verdicts: Vec<MemberCheck>,
    /// Stored checkpoints that agree with the replay.
    agree: usize,
    /// What is wrong with `toc.txt`.
    toc_faults: Vec<String>,
    /// `toc.txt` as it should be.
    entries: Vec<TocEntry>,
    /// Each checkpoint's bytes as they should be.
    saves: Vec<(u32, Vec<u8>)>,
}

impl MapCheck<'_> {
    fn name(&self, m: MapMember) -> String {
        Slot::Map(self.n, m).to_string()
    }

    /// Checkpoint `k` as stored, listed at byte `at`: parsed (or why
    /// not), and its text. `None`: there is no such member.
    fn load_save(&self, k: u32, at: u64) -> Option<(Result<SaveFile, String>, String)> {
        let i = *self.mm.saves.get(&k)?;
        Some(
            self.archive
                .read_save(i, at)
                .unwrap_or_else(|f| (Err(why(f)), String::new())),
        )
    }

    /// Without a usable `toc.txt`: the checkpoints the saves say they
    /// are, one per offset, and the saves that cannot be read.
    fn checkpoints_of_saves(&self) -> (Vec<TocEntry>, Vec<(u32, String)>) {
        let recording_size = self.archive.members[self.rec].size;
        let mut from_saves = Vec::new();
        let mut damaged = Vec::new();
        for &k in self.mm.saves.keys() {
            match self.load_save(k, recording_size) {
                Some((Ok(s), _)) => from_saves.push(TocEntry {
                    save: k,
                    tick: s.checkpoint.clock.tick(),
                    offset: s.offset,
                }),
                Some((Err(why), _)) => damaged.push((k, why)),
                None => {}
            }
        }
        from_saves.sort_by_key(|e| (e.offset, e.save));
        from_saves.dedup_by_key(|e| e.offset);
        (from_saves, damaged)
    }

    /// The recording's verdict: what the teehistorian pipeline found.
    fn recording_verdict(&self, a: &Analysis, previous_game: Option<&str>) -> MemberCheck {
        let member = &self.archive.members[self.rec];
        let size = member.size;
        let continues = match (&a.header.info.prev_game_uuid, previous_game) {
            (Some(p), Some(q)) if p == q => format!(", continues map {}", self.n - 1),
            _ => String::new(),
        };
        let problems: Vec<String> = a.problems().map(|f| f.message).collect();
        let (status, detail) = if a.scan.bytes < size || member.truncated {
            (
                MemberOutcome::Failed,
                format!(
                    "the archive ends after {} of its {size} bytes",
                    a.scan.bytes
                ),
            )
        } else if !problems.is_empty() {
            (MemberOutcome::Failed, problems.join("; "))
        } else {
            let end = a.scan.end.map_or(String::new(), |e| e.to_string());
            let status = match a.scan.end {
                Some(End::Truncated { .. }) => MemberOutcome::Warn,
                _ => MemberOutcome::Ok,
            };
            (
                status,
                format!(
                    "{} bytes, {} records, last tick {}, byte-exact, replays cleanly, {end}{continues}",
                    a.scan.bytes, a.scan.records, a.scan.last_tick
                ),
            )
        };
        let mut verdict = MemberCheck::new(self.name(MapMember::Recording), status, detail);
        verdict.findings = a.scan.findings();
        verdict
    }

    /// No checkpoint claimed: every one the replay took is rebuilt, and
    /// the saves that could not be read are not used.
    fn rebuilt_checkpoints(&self, a: &Analysis, damaged: &[(u32, String)]) -> Checkpoints {
        let mut out = Checkpoints::default();
        for (k, t) in a.taken.iter().enumerate() {
            let save = k as u32 + 1;
            out.entries.push(TocEntry {
                save,
                tick: t.tick(),
                offset: t.offset,
            });
            out.saves
                .push((save, SaveFile::of(t).render().into_bytes()));
            out.verdicts.push(MemberCheck::new(
                self.name(MapMember::Save(save)),
                MemberOutcome::Rebuilt,
                format!(
                    "missing: rebuilt from {}/demodata.bin (tick {}, byte {})",
                    self.n,
                    t.tick(),
                    t.offset
                ),
            ));
        }
        for (k, why) in damaged {
            out.verdicts.push(MemberCheck::new(
                self.name(MapMember::Save(*k)),
                MemberOutcome::Failed,
                format!("damaged ({why}): not used"),
            ));
        }
        out
    }

    /// The checkpoints claimed (`listed`, by `toc.txt` if `from_toc`, else
    /// by the saves themselves) against the replay at their offsets.
    fn compared_checkpoints(
        &self,
        a: &Analysis,
        listed: &[TocEntry],
        from_toc: bool,
    ) -> Checkpoints {
        let mut out = Checkpoints::default();
        for e in listed {
            if let Some(why) = a
                .missed
                .iter()
                .find(|m| m.offset == e.offset)
                .map(|m| m.why)
            {
                out.toc_faults
                    .push(format!("save{}.ron at byte {}: {why}", e.save, e.offset));
                if self.mm.saves.contains_key(&e.save) {
                    out.verdicts.push(MemberCheck::new(
                        self.name(MapMember::Save(e.save)),
                        MemberOutcome::Failed,
                        format!("byte {} is {why}: not used", e.offset),
                    ));
                }
                continue;
            }
            let Some(t) = a.taken.iter().find(|t| t.offset == e.offset) else {
                continue;
            };
            if e.tick != t.tick() {
                out.toc_faults.push(format!(
                    "save{}.ron: tick {} at byte {}, but the replay is at tick {} there",
                    e.save,
                    e.tick,
                    e.offset,
                    t.tick()
                ));
            }
            let (verdict, bytes) = self.checkpoint_against_replay(e.save, t);
            if verdict.status == MemberOutcome::Ok {
                out.agree += 1;
            }
            out.verdicts.push(verdict);
            out.entries.push(TocEntry {
                save: e.save,
                tick: t.tick(),
                offset: t.offset,
            });
            out.saves.push((e.save, bytes));
        }
        let why = if from_toc {
            "not listed in toc.txt: ignored"
        } else {
            "at the same byte as another checkpoint: ignored"
        };
        for k in self
            .mm
            .saves
            .keys()
            .filter(|k| !listed.iter().any(|e| e.save == **k))
        {
            out.verdicts.push(MemberCheck::new(
                self.name(MapMember::Save(*k)),
                MemberOutcome::Note,
                why,
            ));
        }
        out
    }

    /// Checkpoint `save` as stored against the replay's (`t`): its verdict
    /// and its bytes as they should be.
    fn checkpoint_against_replay(&self, save: u32, t: &Taken) -> (MemberCheck, Vec<u8>) {
        let member = self.name(MapMember::Save(save));
        let n = self.n;
        let expected = SaveFile::of(t);
        let rendered = expected.render();
        let detail = format!("tick {}, byte {}", t.tick(), t.offset);
        let verdict = |status, detail: String| MemberCheck::new(&member, status, detail);
        match self.load_save(save, t.offset) {
            None => (
                verdict(
                    MemberOutcome::Rebuilt,
                    format!("missing: rebuilt from {n}/demodata.bin ({detail})"),
                ),
                rendered.into_bytes(),
            ),
            Some((Ok(s), raw)) if s == expected => (
                verdict(
                    MemberOutcome::Ok,
                    format!("agrees with the replay ({detail})"),
                ),
                raw.into_bytes(),
            ),
            Some((Ok(s), _)) => (
                verdict(
                    MemberOutcome::Failed,
                    format!(
                        "disagrees with the replay of {n}/demodata.bin ({detail}): {}; rebuilt",
                        first_difference(&s, &expected)
                    ),
                ),
                rendered.into_bytes(),
            ),
            Some((Err(why), _)) => (
                verdict(
                    MemberOutcome::Failed,
                    format!("damaged ({why}): rebuilt ({detail})"),
                ),
                rendered.into_bytes(),
            ),
        }
    }

    /// `toc.txt`'s verdict: `stored` as read, the faults found in it, and
    /// whether the checkpoints came from the recording (none claimed).
    fn toc_verdict(
        &self,
        stored: &Option<Result<Vec<TocEntry>, String>>,
        faults: &[String],
        from_recording: bool,
    ) -> MemberCheck {
        let (status, detail) = match (stored, faults.is_empty()) {
            (None, _) => {
                let from = if from_recording {
                    format!("{}/demodata.bin", self.n)
                } else {
                    "the checkpoints".into()
                };
                (
                    MemberOutcome::Rebuilt,
                    format!("missing: rebuilt from {from}"),
                )
            }
            (Some(Err(why)), _) => (MemberOutcome::Failed, format!("damaged ({why}): rebuilt")),
            (Some(Ok(_)), false) => (
                MemberOutcome::Failed,
                format!("{}; rebuilt", faults.join("; ")),
            ),
            (Some(Ok(e)), true) => (MemberOutcome::Ok, format!("{} checkpoints", e.len())),
        };
        MemberCheck::new(self.name(MapMember::Toc), status, detail)
    }
}

/// A stored text member against what the recording says: its verdict and
/// the text to use.
fn compare_text(
    member: &str,
    stored: Option<Result<String, String>>,
    canonical: String,
    n: u32,
) -> (MemberCheck, String) {
    match stored {
        None => (
            MemberCheck::new(
                member,
                MemberOutcome::Rebuilt,
                format!("missing: rebuilt from {n}/demodata.bin"),
            ),
            canonical,
        ),
        Some(Err(why)) => (
            MemberCheck::new(
                member,
                MemberOutcome::Failed,
                format!("damaged ({why}): rebuilt from {n}/demodata.bin"),
            ),
            canonical,
        ),
        Some(Ok(text)) if text == canonical => {
            let lines = text.lines().filter(|l| !l.starts_with('#')).count();
            (
                MemberCheck::new(
                    member,
                    MemberOutcome::Ok,
                    format!("{lines} lines, as the recording says"),
                ),
                text,
            )
        }
        Some(Ok(text)) => {
            let (line, (a, b)) = text
                .lines()
                .map(Some)
                .chain(std::iter::repeat(None))
                .zip(canonical.lines().map(Some).chain(std::iter::repeat(None)))
                .enumerate()
                .find(|(_, (a, b))| a != b)
                .unwrap_or((0, (None, None)));
            let show = |l: Option<&str>| l.map_or("nothing".to_string(), |l| format!("{l:?}"));
            (
                MemberCheck::new(
                    member,
                    MemberOutcome::Failed,
                    format!(
                        "differs from what {n}/demodata.bin says at line {}: {} instead of {}; rebuilt",
                        line + 1,
                        show(a),
                        show(b)
                    ),
                ),
                canonical,
            )
        }
    }
}

/// Where two checkpoints first differ, as a path and both values.
fn first_difference(stored: &SaveFile, expected: &SaveFile) -> String {
    use crate::json_diff::{Arrays, first_difference};
    let (a, b) = (
        serde_json::to_value(stored).unwrap_or_default(),
        serde_json::to_value(expected).unwrap_or_default(),
    );
    match first_difference(&a, &b, Arrays::ByElement) {
        Some((path, x, y)) => {
            let shown = |v: &serde_json::Value| match v {
                serde_json::Value::Null => "nothing".to_string(),
                v => v.to_string(),
            };
            format!("{path} is {} where the replay has {}", shown(x), shown(y))
        }
        None => "they differ".into(),
    }
}
