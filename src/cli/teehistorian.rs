//! `teeoracle teehistorian ...` and the scan shared with `check`.

use super::output::{describe, open_teehistorian, read_failure, stdout, write_ron};
use super::{DumpFormat, Failure, StatsFormat, WorldFormat};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::ops::ControlFlow;
use std::path::Path;
use teeoracle::bytes::key_values;
use teeoracle::codec::{Mode, first_difference};
use teeoracle::teehistorian::{
    End, Header, HeaderInfo, Inconsistency, Message, ReadError, Replay, ReplayConfig,
};

/// Everything one pass over a file learns; shared by `stats` and `check`.
#[derive(Debug, Default, Serialize)]
pub struct Scan {
    pub records: u64,
    pub counts: BTreeMap<&'static str, u64>,
    pub last_tick: i32,
    pub ticks_with_records: u64,
    pub max_cid: Option<i32>,
    pub cids: usize,
    pub end: Option<End>,
    /// Bytes after FINISH (DDNet never writes any).
    pub bytes_after_finish: u64,
    /// Records using non-canonical ints, kept verbatim; first offset.
    pub noncanonical_records: u64,
    pub first_noncanonical: Option<u64>,
    /// First byte where the re-encoding differs from the file (a codec bug).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_mismatch: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inconsistencies: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_inconsistency: Option<Inconsistency>,
    /// The decode error that stopped the scan, as one line.
    pub error: Option<String>,
}

/// Client ids seen: a bitset for the usual range, a set beyond it.
#[derive(Default)]
struct CidSet {
    low: [u64; 4],
    high: BTreeSet<i32>,
}

impl CidSet {
    #[inline]
    fn insert(&mut self, cid: i32) {
        match usize::try_from(cid) {
            Ok(c) if c < 256 => self.low[c / 64] |= 1 << (c % 64),
            Ok(_) => {
                self.high.insert(cid);
            }
            Err(_) => {} // negative ids are "no client" (server, game)
        }
    }

    fn len(&self) -> usize {
        self.low
            .iter()
            .map(|w| w.count_ones() as usize)
            .sum::<usize>()
            + self.high.len()
    }

    fn max(&self) -> Option<i32> {
        let low = (0..256)
            .rev()
            .find(|&c| self.low[c / 64] >> (c % 64) & 1 == 1);
        self.high.last().copied().or(low.map(|c| c as i32))
    }
}

impl Scan {
    /// Reads the whole file in bounded memory and counts. With `verify`,
    /// also re-encodes every record against its bytes and replays (without
    /// keeping history), as `check` needs.
    pub fn run(path: &Path, verify: bool) -> Result<(Header, Scan), Failure> {
        let (header, mut reader) = open_teehistorian(path, Mode::Lenient)?;
        let mut scan = Scan::default();
        let mut replay = Replay::new(ReplayConfig {
            keep_history: false,
        });
        let (mut counts, mut cids) = ([0u64; Message::KINDS], CidSet::default());
        let (mut inconsistencies, mut scratch) = (0u64, Vec::new());
        // Hot counters live in locals, not in `scan`, so they stay in registers.
        let (mut records, mut last_tick, mut ticks) = (0u64, 0i32, 0u64);
        let result = reader.for_each_record(|rec| {
            ticks += u64::from(records == 0 || rec.tick != last_tick);
            records += 1;
            last_tick = rec.tick;
            counts[rec.msg.kind_index()] += 1;
            if let Some(cid) = rec.msg.player_record_cid() {
                cids.insert(cid); // the common case, without the general match
            } else {
                for cid in rec.msg.cids().into_iter().flatten() {
                    cids.insert(cid);
                }
            }
            if rec.noncanonical {
                scan.noncanonical_records += 1;
                if scan.first_noncanonical.is_none() {
                    scan.first_noncanonical = rec.noncanonical_at();
                }
            }
            if verify {
                scratch.clear();
                rec.encode(&mut scratch);
                if scratch != rec.raw && scan.first_mismatch.is_none() {
                    scan.first_mismatch =
                        first_difference(&scratch, rec.raw).map(|i| rec.offset + i as u64);
                }
                if let Err(inc) = replay.handle(rec.offset, &rec.msg) {
                    inconsistencies += 1;
                    scan.first_inconsistency.get_or_insert(inc);
                }
            }
            ControlFlow::<()>::Continue(())
        });
        (scan.records, scan.last_tick, scan.ticks_with_records) = (records, last_tick, ticks);
        match result {
            Ok(_) => {}
            Err(ReadError::Decode(e)) => scan.error = Some(describe(&e, Some(scan.last_tick))),
            Err(e) => return Err(read_failure(path, e, Some(scan.last_tick))),
        }
        scan.counts = counts
            .iter()
            .enumerate()
            .filter(|&(_, &n)| n > 0)
            .map(|(i, &n)| (Message::kind_name_of(i), n))
            .collect();
        scan.max_cid = cids.max();
        scan.cids = cids.len();
        scan.inconsistencies = verify.then_some(inconsistencies);
        scan.end = reader.end();
        if scan.error.is_none() && matches!(scan.end, Some(End::Finished { .. })) {
            scan.bytes_after_finish = io::copy(&mut reader.into_rest(), &mut io::sink())
                .map_err(|e| Failure::bad(format!("{}: {e}", path.display())))?;
        }
        Ok((header, scan))
    }

    /// Why the file fails `check`, if it does.
    pub fn failure(&self) -> Option<String> {
        if let Some(e) = &self.error {
            return Some(e.clone());
        }
        if let Some(at) = self.first_mismatch {
            return Some(format!(
                "re-encoding differs from the file at byte {at} (0x{at:x})"
            ));
        }
        if let Some(inc) = &self.first_inconsistency {
            return Some(format!("replay: {inc}"));
        }
        if let (Some(End::Finished { offset }), 1..) = (self.end, self.bytes_after_finish) {
            return Some(format!(
                "{} byte(s) after FINISH at byte {offset} (0x{offset:x})",
                self.bytes_after_finish
            ));
        }
        None
    }

    /// Notes that do not fail the file.
    pub fn warnings(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if let Some(end @ End::Truncated { .. }) = self.end {
            notes.push(end.to_string());
        }
        notes.extend(self.noncanonical_note());
        notes
    }

    fn noncanonical_note(&self) -> Option<String> {
        let mut notes = None;
        if let Some(at) = self.first_noncanonical {
            notes = Some(format!(
                "{} record(s) use non-canonical ints DDNet never writes (first at byte {at}); kept verbatim",
                self.noncanonical_records
            ));
        }
        notes
    }
}

fn end_note(end: Option<End>) -> String {
    end.map_or("stopped by an error".into(), |e| e.to_string())
}

#[derive(Serialize)]
struct DumpRecord<'r, 'a> {
    offset: u64,
    tick: i32,
    #[serde(flatten)]
    msg: &'r Message<'a>,
}

pub fn dump(path: &Path, format: DumpFormat) -> Result<(), Failure> {
    let (header, mut reader) = open_teehistorian(path, Mode::Lenient)?;
    let mut out = stdout();
    let json_len = header.json.len();
    match format {
        DumpFormat::Text => {
            let i = &header.info;
            writeln!(out, "# header: {json_len} bytes of JSON at byte 16")?;
            writeln!(out, "#{}", key_values(&HeaderSummary::of(i), &[]))?;
            writeln!(out, "# offset      tick kind fields")?;
        }
        DumpFormat::Jsonl => {
            #[derive(Serialize)]
            struct HeaderLine<'h> {
                offset: u64,
                kind: &'static str,
                json_len: usize,
                info: &'h HeaderInfo,
            }
            let line = HeaderLine {
                offset: 0,
                kind: "header",
                json_len,
                info: &header.info,
            };
            writeln!(
                out,
                "{}",
                serde_json::to_string(&line).map_err(Failure::bad)?
            )?;
        }
        DumpFormat::Ron => {
            writeln!(out, "// header: {json_len} bytes of JSON at byte 16")?;
            writeln!(out, "[")?;
        }
    }
    let mut tick = 0;
    let written = reader.for_each_record(|rec| {
        tick = rec.tick;
        let line = DumpRecord {
            offset: rec.offset,
            tick: rec.tick,
            msg: &rec.msg,
        };
        let result = match format {
            DumpFormat::Text => writeln!(out, "{rec}").map_err(Failure::from),
            DumpFormat::Jsonl => serde_json::to_string(&line)
                .map_err(Failure::bad)
                .and_then(|l| writeln!(out, "{l}").map_err(Failure::from)),
            DumpFormat::Ron => ron::to_string(&line)
                .map_err(Failure::bad)
                .and_then(|l| writeln!(out, "  {l},").map_err(Failure::from)),
        };
        match result {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => ControlFlow::Break(e),
        }
    });
    let error = match written {
        Ok(ControlFlow::Break(e)) => return Err(e),
        Ok(ControlFlow::Continue(())) => None,
        Err(e) => Some(e),
    };
    let end = reader.end();
    match format {
        DumpFormat::Text => writeln!(out, "# end: {}", end_note(end))?,
        DumpFormat::Jsonl => {
            if let Some(end) = end {
                writeln!(
                    out,
                    "{}",
                    serde_json::to_string(&end).map_err(Failure::bad)?
                )?
            }
        }
        DumpFormat::Ron => writeln!(out, "]\n// end: {}", end_note(end))?,
    }
    out.flush()?;
    match error {
        Some(e) => Err(read_failure(path, e, Some(tick))),
        None => Ok(()),
    }
}

/// The header fields a person looks at first.
#[derive(Serialize)]
struct HeaderSummary<'h> {
    version: u32,
    version_minor: &'h Option<String>,
    game_uuid: &'h Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prev_game_uuid: &'h Option<String>,
    server_version: &'h Option<String>,
    start_time: &'h Option<String>,
    map_name: &'h Option<String>,
    config_entries: usize,
    tuning_entries: usize,
    uuids: usize,
}

impl<'h> HeaderSummary<'h> {
    fn of(i: &'h HeaderInfo) -> Self {
        HeaderSummary {
            version: i.version,
            version_minor: &i.version_minor,
            game_uuid: &i.game_uuid,
            prev_game_uuid: &i.prev_game_uuid,
            server_version: &i.server_version,
            start_time: &i.start_time,
            map_name: &i.map_name,
            config_entries: i.config.len(),
            tuning_entries: i.tuning.len(),
            uuids: i.uuids.len(),
        }
    }
}

pub fn stats(path: &Path, format: StatsFormat) -> Result<(), Failure> {
    let (header, scan) = Scan::run(path, false)?;
    let mut out = stdout();
    match format {
        StatsFormat::Json => {
            #[derive(Serialize)]
            struct Stats<'s> {
                file: String,
                header: HeaderSummary<'s>,
                #[serde(flatten)]
                scan: &'s Scan,
            }
            let stats = Stats {
                file: path.display().to_string(),
                header: HeaderSummary::of(&header.info),
                scan: &scan,
            };
            let text = serde_json::to_string_pretty(&stats).map_err(Failure::bad)?;
            writeln!(out, "{text}")?;
        }
        StatsFormat::Text => {
            writeln!(out, "file:               {}", path.display())?;
            writeln!(
                out,
                "header:            {}",
                key_values(&HeaderSummary::of(&header.info), &[])
            )?;
            writeln!(out, "records:            {}", scan.records)?;
            for (kind, n) in &scan.counts {
                writeln!(out, "  {kind:<22} {n}")?;
            }
            writeln!(out, "last tick:          {}", scan.last_tick)?;
            writeln!(out, "ticks with records: {}", scan.ticks_with_records)?;
            let max_cid = scan.max_cid.map_or("-".into(), |c| c.to_string());
            writeln!(
                out,
                "max cid:            {max_cid} ({} distinct)",
                scan.cids
            )?;
            writeln!(out, "end:                {}", end_note(scan.end))?;
            if scan.bytes_after_finish > 0 {
                writeln!(
                    out,
                    "after FINISH:       {} byte(s)",
                    scan.bytes_after_finish
                )?;
            }
            if let Some(note) = scan.noncanonical_note() {
                writeln!(out, "note:               {note}")?;
            }
        }
    }
    out.flush()?;
    match scan.error {
        Some(e) => Err(Failure::bad(format!("{}: {e}", path.display()))),
        None => Ok(()),
    }
}

pub fn replay(
    path: &Path,
    at: Option<i32>,
    format: WorldFormat,
    strict: bool,
) -> Result<(), Failure> {
    let (_, mut reader) = open_teehistorian(path, Mode::Lenient)?;
    let mut replay = Replay::new(ReplayConfig::default());
    let mut last_tick = 0;
    let mut warned = 0u64;
    let flow = reader.for_each_record(|rec| {
        if at.is_some_and(|at| rec.tick > at) {
            return ControlFlow::Break(None);
        }
        last_tick = rec.tick;
        if let Err(inc) = replay.handle(rec.offset, &rec.msg) {
            let line = format!("{}: {inc}", path.display());
            if strict {
                return ControlFlow::Break(Some(line));
            }
            if warned < 10 {
                eprintln!("teeoracle: warning: {line}");
            }
            warned += 1;
        }
        ControlFlow::Continue(())
    });
    let reached = match flow {
        Ok(ControlFlow::Break(Some(line))) => return Err(Failure::bad(line)),
        Ok(ControlFlow::Break(None)) => true,
        Ok(ControlFlow::Continue(())) => false,
        Err(e) => return Err(read_failure(path, e, Some(last_tick))),
    };
    if warned > 10 {
        eprintln!("teeoracle: warning: {} more inconsistencies", warned - 10);
    }
    if let Some(end @ End::Truncated { .. }) = reader.end() {
        eprintln!("teeoracle: note: {}: {end}", path.display());
    }
    let mut world = replay.world();
    if let Some(at) = at {
        if !reached && at > last_tick {
            return Err(Failure::Usage(format!(
                "tick {at} is after the end of {} (last tick {last_tick})",
                path.display()
            )));
        }
        world.tick = at;
    }
    let mut out = stdout();
    match format {
        WorldFormat::Ron => write_ron(&mut out, &world)?,
        WorldFormat::Json => {
            let text = serde_json::to_string_pretty(&world).map_err(Failure::bad)?;
            writeln!(out, "{text}")?;
        }
    }
    out.flush()?;
    Ok(())
}

pub fn roundtrip(path: &Path, output: Option<&Path>, strict: bool) -> Result<(), Failure> {
    let mode = if strict { Mode::Strict } else { Mode::Lenient };
    let (header, mut reader) = open_teehistorian(path, mode)?;
    let mut sink: Box<dyn Write> = match output {
        Some(p) => Box::new(BufWriter::new(File::create(p).map_err(|e| {
            Failure::Usage(format!("cannot create {}: {e}", p.display()))
        })?)),
        None => Box::new(io::sink()),
    };
    let mut buf = Vec::new();
    header.encode(&mut buf);
    sink.write_all(&buf)?;
    let (mut records, mut verbatim, mut tick) = (0u64, 0u64, 0);
    let mut mismatch = None;
    let flow = reader.for_each_record(|rec| {
        buf.clear();
        rec.encode(&mut buf);
        verbatim += u64::from(rec.noncanonical);
        if mismatch.is_none() {
            mismatch = first_difference(&buf, rec.raw).map(|i| rec.offset + i as u64);
        }
        records += 1;
        tick = rec.tick;
        match sink.write_all(&buf) {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => ControlFlow::Break(e),
        }
    });
    match flow {
        Ok(ControlFlow::Break(e)) => return Err(e.into()),
        Ok(ControlFlow::Continue(())) => {}
        Err(e) => return Err(read_failure(path, e, Some(tick))),
    }
    let end = reader.end();
    let rest = io::copy(&mut reader.into_rest(), &mut sink)?;
    sink.flush()?;
    let mut out = stdout();
    if let Some(at) = mismatch {
        return Err(Failure::bad(format!(
            "{}: round trip differs at byte {at} (0x{at:x})",
            path.display()
        )));
    }
    writeln!(
        out,
        "{}: round trip byte-exact ({records} records)",
        path.display()
    )?;
    writeln!(out, "end: {}", end_note(end))?;
    if verbatim > 0 {
        writeln!(
            out,
            "note: {verbatim} record(s) with non-canonical ints kept verbatim"
        )?;
    }
    if rest > 0 && matches!(end, Some(End::Finished { .. })) {
        writeln!(out, "note: {rest} byte(s) after FINISH copied as they are")?;
    }
    out.flush()?;
    Ok(())
}
