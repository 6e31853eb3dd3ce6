//! `teeoracle demo ...`.

use super::Failure;
use super::output::{
    ReportFormat, StreamFormat, read, read_spec, shown, stdout, write_event_log, write_json_doc,
    write_json_line, write_stream_start,
};
use clap::Subcommand;
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};
use teeoracle::bytes::key_values;
use teeoracle::codec::{DecodeError, encode_to_vec, first_difference};
use teeoracle::demo::{
    Chunk, ChunkKind, Demo, Events, HeaderInfo, Payload, RerecordReport, SnapshotReplay, json,
};

#[derive(Subcommand, Debug)]
#[command(defer = true)]
pub enum DemoCommand {
    /// One line per chunk: offset, tick markers, chunk kind, size, message.
    Dump {
        /// The demo file (`-`: standard input).
        file: PathBuf,
        /// `text`: a line per chunk; `jsonl`: a JSON object per chunk,
        /// with its decompressed payload and decoded message.
        #[arg(long, value_enum, default_value_t = StreamFormat::Text)]
        format: StreamFormat,
    },
    /// What DDNet's demo player meets, one line each: tick markers,
    /// messages (decoded), the full snapshot after each keyframe or delta,
    /// and faults. It stops where DDNet's player stops.
    Events {
        /// The demo file (`-`: standard input).
        file: PathBuf,
        /// `text`: a line per event; `jsonl`: a JSON object per event,
        /// snapshots with every item.
        #[arg(long, value_enum, default_value_t = StreamFormat::Text)]
        format: StreamFormat,
    },
    /// The demo's events, one per line (the format of `teehistorian log`):
    /// messages, snapshot items appearing and leaving, faults.
    Log {
        /// The demo file (`-`: standard input).
        file: PathBuf,
        /// `text`: the log lines; `jsonl`: a JSON object per event.
        #[arg(long, value_enum, default_value_t = StreamFormat::Text)]
        format: StreamFormat,
    },
    /// Header, chunk counts, snapshot replay.
    Stats {
        /// The demo file (`-`: standard input).
        file: PathBuf,
        /// `text` for people, `json` for programs.
        #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
        format: ReportFormat,
    },
    /// Decode and re-encode (every chunk recompressed); fail at the first
    /// differing byte.
    Roundtrip {
        /// The demo file (`-`: standard input).
        file: PathBuf,
        /// Write the re-encoded demo here.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// `text` for people, `json` for programs.
        #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
        format: ReportFormat,
    },
    /// The full snapshot at a tick (the last one at or before it).
    Snapshot {
        /// The demo file (`-`: standard input).
        file: PathBuf,
        /// The tick; one after the demo's last tick is a usage error.
        #[arg(long)]
        at: i32,
        /// `text` for people; `json` and `ron` also carry each item's raw ints.
        #[arg(long, value_enum, default_value_t = super::snapshot::ItemsFormat::Text)]
        format: super::snapshot::ItemsFormat,
    },
    /// Re-record through DDNet's demo recorder and compare chunk by chunk:
    /// exit 1 if anything differs but reordered deltas and stale timeline
    /// slots.
    Rerecord {
        /// The demo file (`-`: standard input).
        file: PathBuf,
        /// Write the re-recorded demo here.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// `text` for people, `json` for programs.
        #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
        format: ReportFormat,
    },
    /// Write the map the demo embeds, byte for byte, and check it against
    /// the header's CRC-32 and SHA-256 item (exit 1 if either differs).
    Map {
        /// The demo file (`-`: standard input).
        file: PathBuf,
        /// Where to write the map.
        #[arg(short, long, required = true)]
        output: PathBuf,
    },
    /// Draw each player's path on the map the demo embeds (PNG, or SVG if
    /// OUT ends in `.svg`), each in its own colour, with a legend of who
    /// is who.
    Plot {
        /// The demo file.
        file: PathBuf,
        /// Where to write the picture.
        #[arg(short, long, required = true)]
        output: PathBuf,
        #[command(flatten)]
        picture: super::plot::PlotArgs,
    },
    /// Write a synthetic demo from a spec (.ron or .json): header fields,
    /// timeline markers, snapshots and messages.
    Build {
        /// The spec: RON or JSON, by its extension.
        spec: PathBuf,
        /// Where to write the demo.
        #[arg(short, long, required = true)]
        output: PathBuf,
    },
}

pub fn run(cmd: DemoCommand) -> Result<(), Failure> {
    match cmd {
        DemoCommand::Dump { file, format } => dump(&file, format),
        DemoCommand::Events { file, format } => events(&file, format),
        DemoCommand::Log { file, format } => log(&file, format),
        DemoCommand::Stats { file, format } => stats(&file, format),
        DemoCommand::Roundtrip {
            file,
            output,
            format,
        } => roundtrip(&file, output.as_deref(), format),
        DemoCommand::Snapshot { file, at, format } => super::snapshot::demo_at(&file, at, format),
        DemoCommand::Rerecord {
            file,
            output,
            format,
        } => rerecord(&file, output.as_deref(), format),
        DemoCommand::Build { spec, output } => build(&spec, &output),
        DemoCommand::Map { file, output } => map(&file, &output),
        DemoCommand::Plot {
            file,
            output,
            picture,
        } => super::plot::demo(&file, &output, &picture),
    }
}

/// Decodes a demo up to a damaged chunk, if there is one; a failure (a
/// fault before the chunks) names the file and the offset.
fn decode<'a>(path: &Path, bytes: &'a [u8]) -> Result<(Demo<'a>, Vec<u64>), Failure> {
    Demo::decode_partial(bytes).map_err(|e| Failure::bad(format!("{}: {e}", shown(path))))
}

pub fn dump(path: &Path, format: StreamFormat) -> Result<(), Failure> {
    let bytes = read(path)?;
    let mut out = stdout();
    if format == StreamFormat::Jsonl {
        write_stream_start(&mut out, "demo dump", &shown(path))?;
    }
    // Everything before a damaged chunk is dumped, then the damage.
    let (demo, offsets) = match Demo::decode_partial(&bytes) {
        Ok(d) => d,
        Err(e) => {
            if format == StreamFormat::Jsonl {
                write_json_line(&mut out, &json::EndLine::unreadable(&e))?;
            }
            out.flush()?;
            return Err(Failure::bad(format!("{}: {e}", shown(path))));
        }
    };
    let info = demo.info();
    match format {
        StreamFormat::Text => writeln!(out, "#{}", key_values(&info, &["timeline_markers"]))?,
        StreamFormat::Jsonl => write_json_line(&mut out, &json::HeaderLine::new(&info))?,
    }
    let mut first_fault = None;
    let end = json::for_each_chunk(&demo, &offsets, bytes.len(), |entry| {
        if let Chunk::Data { payload, .. } = entry.chunk
            && first_fault.is_none()
        {
            first_fault = payload.error().cloned();
        }
        match format {
            StreamFormat::Text => write_chunk_text(&mut out, entry),
            StreamFormat::Jsonl => write_json_line(&mut out, &entry.line()),
        }
    })?;
    match format {
        StreamFormat::Text => {
            if let Some(n) = end.truncated_bytes {
                writeln!(out, "# truncated: the last {n} byte(s) are a cut chunk")?;
            }
            if let Some(n) = demo.unfinished() {
                writeln!(out, "# unfinished: {}", unfinished_note(n))?;
            }
            if let Some(e) = end.error {
                writeln!(out, "# stopped: {e}")?;
            }
        }
        StreamFormat::Jsonl => write_json_line(&mut out, &end)?,
    }
    out.flush()?;
    match (end.error, first_fault) {
        (Some(e), _) => Err(Failure::bad(format!("{}: {e}", shown(path)))),
        (None, Some(e)) => Err(Failure::bad(format!(
            "{}: {} chunk payload(s) do not decode; the first: {e}",
            shown(path),
            end.undecodable_payloads
        ))),
        (None, None) => Ok(()),
    }
}

pub fn events(path: &Path, format: StreamFormat) -> Result<(), Failure> {
    let bytes = read(path)?;
    let failed = |e| Failure::bad(format!("{}: {e}", shown(path)));
    let mut events = Events::new(&bytes).map_err(failed)?;
    let mut out = stdout();
    let info = events.info();
    match format {
        StreamFormat::Text => writeln!(out, "#{}", key_values(&info, &["timeline_markers"]))?,
        StreamFormat::Jsonl => {
            write_stream_start(&mut out, "demo events", &shown(path))?;
            write_json_line(&mut out, &json::HeaderLine::new(&info))?;
        }
    }
    let end = json::for_each_event(&mut events, |line| match format {
        StreamFormat::Text => write_event_text(&mut out, line),
        StreamFormat::Jsonl => write_json_line(&mut out, line),
    })?;
    match format {
        StreamFormat::Text => {
            if let Some(n) = end.truncated_bytes {
                writeln!(out, "# truncated: the last {n} byte(s) are a cut chunk")?;
            }
            if let Some(n) = end.unfinished_seconds {
                writeln!(out, "# unfinished: {}", unfinished_note(n))?;
            }
            if let Some(e) = &end.error {
                writeln!(out, "# stopped: {e}")?;
            }
        }
        StreamFormat::Jsonl => write_json_line(&mut out, &end)?,
    }
    out.flush()?;
    match end.error {
        Some(e) => Err(failed(e)),
        None => Ok(()),
    }
}

pub fn log(path: &Path, format: StreamFormat) -> Result<(), Failure> {
    let bytes = read(path)?;
    let failed = |e| Failure::bad(format!("{}: {e}", shown(path)));
    let mut events = Events::new(&bytes).map_err(failed)?;
    let (lines, error) = teeoracle::demo::log::lines(&mut events);
    let mut out = stdout();
    write_event_log(&mut out, format, "demo log", &shown(path), &lines)?;
    out.flush()?;
    match error {
        Some(e) => Err(failed(e)),
        None => Ok(()),
    }
}

/// `demo map`: the embedded map written as it is, its checksums
/// compared with the header's.
fn map(path: &Path, output: &Path) -> Result<(), Failure> {
    let bytes = read(path)?;
    let failed = |e: &dyn std::fmt::Display| Failure::bad(format!("{}: {e}", shown(path)));
    let events = Events::new(&bytes).map_err(|e| failed(&e))?;
    let map = events.map();
    if map.is_empty() {
        return Err(failed(&"the demo embeds no map"));
    }
    std::fs::write(output, map).map_err(|e| Failure::bad(format!("{}: {e}", shown(output))))?;
    let mut out = stdout();
    writeln!(
        out,
        "{}: wrote the embedded map ({} bytes) to {}",
        shown(path),
        map.len(),
        shown(output)
    )?;
    let findings = teeoracle::demo::check::map_checksums(events.header(), map, events.map_sha256());
    let crc = crc32fast::hash(map);
    let sha: [u8; 32] = <sha2::Sha256 as sha2::Digest>::digest(map).into();
    let same = |ok: bool| {
        if ok {
            "as the header says"
        } else {
            "NOT as the header says"
        }
    };
    writeln!(
        out,
        "CRC-32:  {crc:08x} ({})",
        same(crc == events.header().map_crc)
    )?;
    match events.map_sha256() {
        Some(want) => writeln!(
            out,
            "SHA-256: {} ({})",
            hex::encode(sha),
            same(want.0 == sha)
        )?,
        None => writeln!(
            out,
            "SHA-256: {} (the demo has no SHA-256 item)",
            hex::encode(sha)
        )?,
    }
    out.flush()?;
    match findings.first() {
        Some(f) => Err(failed(&f.message)),
        None => Ok(()),
    }
}

/// One event's line of `demo events --format text`.
fn write_event_text(out: &mut impl Write, line: &json::EventLine<'_>) -> Result<(), Failure> {
    write!(out, "0x{:08x} tick {} ", line.offset, line.tick)?;
    match line.what() {
        json::EventWhat::Tick { keyframe: true } => writeln!(out, "tick marker (keyframe)")?,
        json::EventWhat::Tick { keyframe: false } => writeln!(out, "tick marker")?,
        json::EventWhat::Message(Ok(m)) => writeln!(out, "message {m}")?,
        json::EventWhat::Message(Err(e)) => writeln!(out, "unreadable message: {e}")?,
        json::EventWhat::Snapshot(s) => writeln!(
            out,
            "snapshot: {} items, {} bytes, crc {}",
            s.items.len(),
            s.size,
            s.crc
        )?,
        json::EventWhat::Fault(f) => writeln!(out, "fault: {f}")?,
    }
    Ok(())
}

/// One chunk's line of `demo dump --format text`.
fn write_chunk_text(out: &mut impl Write, entry: &json::ChunkEntry<'_, '_>) -> Result<(), Failure> {
    let offset = entry.offset;
    let (kind, form, payload) = match entry.chunk {
        Chunk::Tick { .. } => {
            let marker = entry.chunk.tick_marker_text().unwrap_or_default();
            writeln!(out, "0x{offset:08x} {marker}")?;
            return Ok(());
        }
        Chunk::Data {
            kind,
            form,
            payload,
        } => (*kind, *form, payload),
    };
    let what = match (payload, kind, &entry.message) {
        (Payload::Undecodable { error, .. }, _, _) => {
            format!("payload does not decode: {error}")
        }
        (_, _, Some(Ok(m))) => m.to_string(),
        (_, _, Some(Err(e))) => format!("unreadable message: {e}"),
        (p, ChunkKind::Unknown, _) => format!(
            "{} ints (type 0: no known writer makes it)",
            p.ints().map_or(0, <[i32]>::len)
        ),
        (p, _, _) => format!("{} ints", p.ints().map_or(0, <[i32]>::len)),
    };
    let kept = match payload {
        Payload::Verbatim { .. } => " (kept as written)",
        Payload::Ints { trailing, .. } if !trailing.is_empty() => " (bytes after the Huffman end)",
        _ => "",
    };
    writeln!(
        out,
        "0x{offset:08x} {} {} bytes ({}){kept} {what}",
        kind.name(),
        entry.size,
        form.name()
    )?;
    Ok(())
}

/// What `demo dump`, `stats`, `roundtrip` and `rerecord` say of a demo whose
/// recorder was never stopped ([`Demo::unfinished`]).
fn unfinished_note(seconds: u32) -> String {
    format!(
        "the recorder was never stopped (the header's length is 0 and it has no timeline \
         markers; Stop writes {seconds} s for these ticks)"
    )
}

/// `demo stats`: everything `--format text` shows.
#[derive(Serialize)]
struct Stats {
    file: String,
    header: HeaderInfo,
    /// Chunks in all (tick markers and data chunks).
    chunks: usize,
    snapshots: SnapshotReplay,
    truncated_bytes: Option<usize>,
    /// The recorder was never stopped: the seconds `Stop` would have
    /// written, or `None`.
    unfinished_seconds: Option<u32>,
    /// The damaged chunk that stopped the reading; everything before it
    /// was counted.
    error: Option<DecodeError>,
}

pub fn stats(path: &Path, format: ReportFormat) -> Result<(), Failure> {
    let failed = |e: &dyn std::fmt::Display| Failure::bad(format!("{}: {e}", shown(path)));
    // Streamed: the player's counts need no decoded copy of the demo, nor
    // its map. Standard input, a compressed file, or one whose start does
    // not read that way is read whole (and its fault named).
    let bytes;
    let mut events = match stream(path) {
        Some(events) => events,
        None => {
            bytes = read(path)?;
            Events::new(&bytes).map_err(|e| failed(&e))?
        }
    };
    let replay = events.replay();
    if let Some(e) = events.read_error() {
        return Err(failed(e));
    }
    let stats = Stats {
        file: shown(path),
        header: events.info(),
        chunks: events.chunks(),
        snapshots: replay,
        truncated_bytes: events.truncated().map(<[u8]>::len),
        unfinished_seconds: events.unfinished(),
        error: events.error().cloned(),
    };
    let mut out = stdout();
    match format {
        ReportFormat::Json => write_json_doc(&mut out, "demo_stats", &stats)?,
        ReportFormat::Text => write_stats_text(&mut out, &stats)?,
    }
    out.flush()?;
    match stats.error {
        Some(e) => Err(failed(&e)),
        None => Ok(()),
    }
}

/// A demo FILE's events as it is read, its map skipped
/// ([`Events::stream`]), if it is a file that reads that way.
fn stream(path: &Path) -> Option<Events<'static>> {
    if path == Path::new("-") {
        return None;
    }
    let file = std::fs::File::open(path).ok()?;
    let meta = file.metadata().ok().filter(|m| m.is_file())?;
    Events::stream(file, meta.len()).ok()?
}

fn write_stats_text(out: &mut impl Write, s: &Stats) -> Result<(), Failure> {
    let h = &s.header;
    let r = &s.snapshots;
    let c = &r.counts;
    let plain = |t: &teeoracle::bytes::Text<'_>| String::from_utf8_lossy(t).into_owned();
    writeln!(out, "{}", s.file)?;
    writeln!(
        out,
        "  version:           {} (net version {})",
        h.version, h.net_version
    )?;
    writeln!(
        out,
        "  recorded:          by the {}, {}, {} s long",
        plain(&h.recorded_by),
        plain(&h.timestamp),
        h.length_seconds
    )?;
    writeln!(
        out,
        "  map:               {}, {} bytes embedded",
        h.map_name, h.map_size
    )?;
    writeln!(out, "  map CRC-32:        {}", h.map_crc)?;
    if let Some(sha) = &h.map_sha256 {
        writeln!(out, "  map SHA-256:       {sha}")?;
    }
    let markers: Vec<String> = h.timeline_markers.iter().map(i32::to_string).collect();
    match markers.is_empty() {
        true => writeln!(out, "  timeline markers:  none")?,
        false => writeln!(out, "  timeline markers:  ticks {}", markers.join(", "))?,
    }
    writeln!(
        out,
        "  chunks:            {}: {} tick markers, {} keyframes, {} deltas, {} messages",
        s.chunks, r.ticks, c.keyframes, c.deltas, r.messages
    )?;
    match r.last_tick {
        Some(t) => writeln!(out, "  last tick:         {t}")?,
        None => writeln!(out, "  last tick:         none")?,
    }
    writeln!(
        out,
        "  snapshots:         {} keyframes and {} deltas applied ({} empty), {} dropped, \
         {} invalid items; {} items in the last",
        c.keyframes, c.deltas, c.empty_deltas, c.dropped, c.invalid_items, r.last_items
    )?;
    writeln!(
        out,
        "  messages:          {}, {} unreadable",
        r.messages, r.unreadable_messages
    )?;
    match s.truncated_bytes {
        Some(n) => writeln!(
            out,
            "  truncated:         the last {n} byte(s) are a cut chunk"
        )?,
        None => writeln!(out, "  truncated:         no")?,
    }
    match s.unfinished_seconds {
        Some(n) => writeln!(out, "  unfinished:        {}", unfinished_note(n))?,
        None => writeln!(out, "  unfinished:        no")?,
    }
    writeln!(out, "  faults:            {}", r.faults.len())?;
    for f in &r.faults {
        writeln!(out, "    {f}")?;
    }
    if let Some(e) = &s.error {
        writeln!(out, "  stopped:           {e}")?;
    }
    Ok(())
}

/// `demo roundtrip --format json`.
#[derive(Serialize)]
struct RoundtripReport<'r> {
    file: String,
    chunks: usize,
    /// True if re-encoding gives the file byte for byte.
    exact: bool,
    /// The first differing byte, if any.
    first_difference: Option<u64>,
    /// Payloads kept as written (see `demo stats`).
    verbatim_payloads: usize,
    /// The recorder was never stopped: the seconds `Stop` would have
    /// written, or `None`.
    unfinished_seconds: Option<u32>,
    /// The damaged chunk that stopped the reading: the chunks before it
    /// were round-tripped, the bytes from it on kept as they are.
    error: Option<&'r DecodeError>,
}

pub fn roundtrip(path: &Path, output: Option<&Path>, format: ReportFormat) -> Result<(), Failure> {
    let bytes = read(path)?;
    let (demo, _) = decode(path, &bytes)?;
    let again = encode_to_vec(&demo, ());
    if let Some(o) = output {
        std::fs::write(o, &again)
            .map_err(|e| Failure::Usage(format!("cannot write {}: {e}", o.display())))?;
    }
    let differs = first_difference(&again, &bytes).map(|at| at as u64);
    let report = RoundtripReport {
        file: shown(path),
        chunks: demo.chunks.len(),
        exact: differs.is_none(),
        first_difference: differs,
        verbatim_payloads: demo.verbatim_payloads(),
        unfinished_seconds: demo.unfinished(),
        error: demo.damage.as_ref().map(|d| &d.error),
    };
    let mut out = stdout();
    match format {
        ReportFormat::Json => write_json_doc(&mut out, "demo_roundtrip", &report)?,
        ReportFormat::Text => {
            let upto = match report.error {
                Some(e) => format!(" up to the damaged chunk at byte {}", e.offset),
                None => String::new(),
            };
            if differs.is_none() {
                writeln!(
                    out,
                    "{}: round trip byte-exact{upto} ({} chunks, every payload recompressed)",
                    report.file, report.chunks
                )?;
            }
            if let Some(n) = report.unfinished_seconds {
                writeln!(out, "note: unfinished: {}", unfinished_note(n))?;
            }
            if report.verbatim_payloads > 0 {
                writeln!(
                    out,
                    "note: {} chunk payload(s) kept as written (no writer gives them back, \
                     or they do not decode)",
                    report.verbatim_payloads
                )?;
            }
        }
    }
    out.flush()?;
    match (differs, report.error) {
        (Some(at), _) => Err(Failure::bad(format!(
            "{}: round trip differs at byte {at} (0x{at:x})",
            shown(path)
        ))),
        (None, Some(e)) => Err(Failure::bad(format!("{}: {e}", shown(path)))),
        (None, None) => Ok(()),
    }
}

/// `demo rerecord --format json`: the report and its result.
#[derive(Serialize)]
struct RerecordDoc<'r> {
    file: String,
    #[serde(flatten)]
    report: &'r RerecordReport,
    /// `identical`, `equivalent` (nothing differs but reordered deltas or
    /// stale timeline slots) or `differs`.
    result: &'static str,
}

/// `demo rerecord`: the file re-recorded through DDNet's recorder, and
/// what differs.
pub fn rerecord(path: &Path, output: Option<&Path>, format: ReportFormat) -> Result<(), Failure> {
    let bytes = read(path)?;
    let done = teeoracle::demo::rerecord(&bytes)
        .map_err(|e| Failure::bad(format!("{}: {e}", shown(path))))?;
    if let Some(o) = output {
        std::fs::write(o, &done.bytes)
            .map_err(|e| Failure::Usage(format!("cannot write {}: {e}", o.display())))?;
    }
    let r = &done.report;
    let result = match (r.equivalent(), r.identical) {
        (true, true) => "identical",
        (true, false) => "equivalent",
        (false, _) => "differs",
    };
    let mut out = stdout();
    match format {
        ReportFormat::Json => {
            let doc = RerecordDoc {
                file: shown(path),
                report: r,
                result,
            };
            write_json_doc(&mut out, "demo_rerecord", &doc)?;
        }
        ReportFormat::Text => write_rerecord_text(&mut out, path, r)?,
    }
    out.flush()?;
    match r.differences.first() {
        Some(d) => Err(Failure::bad(format!(
            "{}: differs from DDNet's recorder at byte {} (0x{:x}): {} ({} difference(s))",
            shown(path),
            d.offset,
            d.offset,
            d.what,
            r.difference_count
        ))),
        None => Ok(()),
    }
}

fn write_rerecord_text(
    out: &mut impl Write,
    path: &Path,
    r: &RerecordReport,
) -> Result<(), Failure> {
    writeln!(
        out,
        "{}: re-recorded through DDNet's demo recorder (Huffman writer: {})",
        shown(path),
        r.flavor
    )?;
    writeln!(out, "chunks compared: {}", r.chunks)?;
    writeln!(
        out,
        "identical: {} tick markers, {} keyframes, {} messages, {} deltas",
        r.ticks, r.keyframes, r.messages, r.deltas_exact
    )?;
    match r.first_reordered {
        Some(at) => writeln!(
            out,
            "reordered: {} deltas with the same updates in another order (first at byte {at} (0x{at:x}))",
            r.deltas_reordered
        )?,
        None => writeln!(out, "reordered: 0 deltas")?,
    }
    if r.stale_timeline_slots {
        writeln!(
            out,
            "timeline: the unused marker slots are not zero in the file (older writers left them uninitialised; DDNet zeroes them)"
        )?;
    }
    if let Some(n) = r.truncated {
        writeln!(
            out,
            "cut chunk: the last {n} byte(s), not re-recorded (compared with what the recorder had written)"
        )?;
    }
    if r.unfinished {
        writeln!(
            out,
            "unfinished: the recorder was never stopped (the header's length is 0 and it has no timeline markers): compared with what it had written before Stop"
        )?;
    }
    writeln!(out, "differences: {}", r.difference_count)?;
    for d in &r.differences {
        writeln!(out, "  byte {} (0x{:x}): {}", d.offset, d.offset, d.what)?;
    }
    if r.difference_count > r.differences.len() {
        writeln!(
            out,
            "  ... and {} more",
            r.difference_count - r.differences.len()
        )?;
    }
    let cut = if r.truncated.is_some() {
        " (up to the cut chunk)"
    } else {
        ""
    };
    let whole = if r.identical {
        "identical"
    } else {
        "not identical"
    };
    writeln!(out, "whole file: {whole}{cut}")?;
    let verdict = match (r.equivalent(), r.identical) {
        (true, true) => "identical: DDNet's recorder writes exactly this file".to_string(),
        (true, false) => {
            let mut only = Vec::new();
            if r.deltas_reordered > 0 {
                only.push("reordered deltas (the recorded snapshots' item order, which the file does not keep)");
            }
            if r.stale_timeline_slots {
                only.push("stale timeline marker slots");
            }
            format!("equivalent: nothing differs but {}", only.join(" and "))
        }
        (false, _) => "differs: DDNet's recorder would not write this file".to_string(),
    };
    writeln!(out, "result: {verdict}")?;
    Ok(())
}

/// `demo build`: a synthetic demo from a RON or JSON spec.
pub fn build(spec_path: &Path, output: &Path) -> Result<(), Failure> {
    use teeoracle::demo::spec::DemoSpec;
    let spec = read_spec(spec_path, DemoSpec::from_ron, DemoSpec::from_json)?;
    let map = match spec.map_path() {
        Some(rel) => {
            let p = spec_path.parent().unwrap_or(Path::new("")).join(rel);
            std::fs::read(&p)
                .map_err(|e| Failure::bad(format!("map_file: {}: {e}", p.display())))?
        }
        None => Vec::new(),
    };
    let built = spec
        .build(&map)
        .map_err(|e| Failure::bad(format!("{}: {e}", shown(spec_path))))?;
    for w in &built.warnings {
        eprintln!("teeoracle: warning: {}: {w}", shown(spec_path));
    }
    std::fs::write(output, &built.bytes)
        .map_err(|e| Failure::Usage(format!("cannot write {}: {e}", output.display())))?;
    let mut out = stdout();
    writeln!(
        out,
        "{}: {} bytes: {} snapshot(s), {} message(s), {} timeline marker(s), {} map bytes",
        output.display(),
        built.bytes.len(),
        built.snapshots,
        built.messages,
        spec.markers.len(),
        map.len()
    )?;
    out.flush()?;
    Ok(())
}
