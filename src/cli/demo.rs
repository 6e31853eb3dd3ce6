//! `teeoracle demo ...`.

use super::Failure;
use super::output::{
    ReportFormat, StreamFormat, read, read_spec, shown, stdout, write_json_doc, write_json_line,
    write_stream_start,
};
use clap::Subcommand;
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};
use teeoracle::bytes::{Blob, key_values};
use teeoracle::codec::{DecodeError, PayloadKind, encode_to_vec, first_difference};
use teeoracle::demo::{
    Chunk, ChunkKind, Demo, Events, HeaderInfo, Payload, RerecordReport, SizeForm, SnapshotReplay,
    payload_bytes,
};
use teeoracle::huffman::Flavor;
use teeoracle::packet::{Message, Version};

#[derive(Subcommand, Debug)]
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
    }
}

/// Decodes a demo up to a damaged chunk, if there is one; a failure (a
/// fault before the chunks) names the file and the offset.
fn decode<'a>(path: &Path, bytes: &'a [u8]) -> Result<(Demo<'a>, Vec<u64>), Failure> {
    Demo::decode_partial(bytes).map_err(|e| Failure::bad(format!("{}: {e}", shown(path))))
}

fn version_of(demo: &Demo<'_>) -> Version {
    if demo.header.is_07() {
        Version::V07
    } else {
        Version::V06
    }
}

fn writer_name(flavor: Flavor) -> &'static str {
    match flavor {
        Flavor::Ddnet => "ddnet",
        Flavor::Legacy => "legacy",
    }
}

/// One line of `demo dump --format jsonl` per chunk.
#[derive(Serialize)]
struct ChunkLine<'c> {
    kind: &'static str,
    index: usize,
    offset: u64,
    /// The tick in force: the marker's own, or the last marker's.
    tick: Option<i32>,
    #[serde(flatten)]
    chunk: ChunkFields<'c>,
}

#[derive(Serialize)]
#[serde(tag = "chunk", rename_all = "snake_case")]
enum ChunkFields<'c> {
    Tick {
        /// The marker byte, as hex.
        byte: String,
        keyframe: bool,
        /// `absolute` or `relative`.
        form: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        delta: Option<u8>,
    },
    #[serde(untagged)]
    Data(Box<DataFields<'c>>),
}

#[derive(Serialize)]
struct DataFields<'c> {
    /// `snapshot`, `message`, `delta` or `unknown` (type 0).
    chunk: ChunkKind,
    size_form: SizeForm,
    /// Payload bytes in the file.
    size: u64,
    /// `ddnet` or `legacy` (the Huffman writer that gives these bytes),
    /// `verbatim` (kept as written) or `undecodable`.
    writer: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    trailing: Option<Blob<'c>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ints: Option<usize>,
    /// The decompressed payload (the varints), as hex.
    #[serde(skip_serializing_if = "Option::is_none")]
    payload: Option<Blob<'static>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<Message<'c>>,
    /// Instead of `message`: its header cannot be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    message_error: Option<DecodeError>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'c DecodeError>,
}

/// The message in `data` (a message chunk's unpacked data, zero-padded,
/// whose payload is at file byte `at`), errors placed in the file.
fn read_message(data: &[u8], at: u64, version: Version) -> Result<Message<'_>, DecodeError> {
    let inside = |e: &DecodeError| e.clone().inside(at, PayloadKind::Data);
    match Message::read_padded(data, 0, version) {
        Ok((m, _)) => Ok(m.located(inside)),
        Err(e) => Err(inside(&e)),
    }
}

/// The last line of `demo dump --format jsonl`.
#[derive(Serialize)]
struct EndLine<'e> {
    kind: &'static str,
    chunks: usize,
    /// Bytes of a chunk cut by the end of the file.
    truncated_bytes: Option<usize>,
    /// Chunk payloads that do not decode.
    undecodable_payloads: usize,
    /// The error that stopped the decoding, if any.
    error: Option<&'e DecodeError>,
}

/// The file span of each chunk's payload: (offset, bytes).
fn payload_spans(demo: &Demo<'_>, offsets: &[u64], file_len: usize) -> Vec<(u64, u64)> {
    let tail =
        demo.truncated.map_or(0, <[u8]>::len) + demo.damage.as_ref().map_or(0, |d| d.rest.len());
    let end = (file_len - tail) as u64;
    let ends = offsets.iter().skip(1).copied().chain([end]);
    demo.chunks
        .iter()
        .zip(offsets.iter().zip(ends))
        .map(|(c, (&from, to))| {
            let head = match c {
                Chunk::Tick { .. } => to - from,
                Chunk::Data { form, .. } => form.header_len(),
            };
            (from + head, to - from - head)
        })
        .collect()
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
                write_json_line(
                    &mut out,
                    &EndLine {
                        kind: "end",
                        chunks: 0,
                        truncated_bytes: None,
                        undecodable_payloads: 0,
                        error: Some(&e),
                    },
                )?;
            }
            out.flush()?;
            return Err(Failure::bad(format!("{}: {e}", shown(path))));
        }
    };
    let version = version_of(&demo);
    let info = demo.info();
    match format {
        StreamFormat::Text => writeln!(out, "#{}", key_values(&info, &["timeline_markers"]))?,
        StreamFormat::Jsonl => {
            #[derive(Serialize)]
            struct HeaderLine<'h> {
                kind: &'static str,
                #[serde(flatten)]
                info: &'h HeaderInfo,
            }
            let kind = "header";
            write_json_line(&mut out, &HeaderLine { kind, info: &info })?;
        }
    }
    let spans = payload_spans(&demo, &offsets, bytes.len());
    let mut tick = None;
    let mut first_fault: Option<&DecodeError> = None;
    let mut undecodable = 0;
    for (index, (chunk, (&offset, &(at, size)))) in demo
        .chunks
        .iter()
        .zip(offsets.iter().zip(&spans))
        .enumerate()
    {
        tick = chunk.tick_after(tick);
        let (kind, form, payload) = match chunk {
            Chunk::Tick {
                byte,
                keyframe,
                delta,
                ..
            } => {
                match format {
                    StreamFormat::Text => {
                        let marker = chunk.tick_marker_text().unwrap_or_default();
                        writeln!(out, "0x{offset:08x} {marker}")?;
                    }
                    StreamFormat::Jsonl => {
                        let fields = ChunkFields::Tick {
                            byte: format!("{byte:02x}"),
                            keyframe: *keyframe,
                            form: if delta.is_some() {
                                "relative"
                            } else {
                                "absolute"
                            },
                            delta: *delta,
                        };
                        write_json_line(
                            &mut out,
                            &ChunkLine {
                                kind: "chunk",
                                index,
                                offset,
                                tick,
                                chunk: fields,
                            },
                        )?;
                    }
                }
                continue;
            }
            Chunk::Data {
                kind,
                form,
                payload,
            } => (*kind, *form, payload),
        };
        let message = match (kind, payload.ints()) {
            (ChunkKind::Message, Some(ints)) => Some(payload_bytes(ints)),
            _ => None,
        };
        let message = message.as_deref().map(|d| read_message(d, at, version));
        if let Some(e) = payload.error() {
            undecodable += 1;
            first_fault.get_or_insert(e);
        }
        let writer = match payload {
            Payload::Ints { flavor, .. } => writer_name(*flavor),
            Payload::Verbatim { .. } => "verbatim",
            Payload::Undecodable { .. } => "undecodable",
        };
        match format {
            StreamFormat::Text => {
                let what = match (payload, kind, &message) {
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
                    Payload::Ints { trailing, .. } if !trailing.is_empty() => {
                        " (bytes after the Huffman end)"
                    }
                    _ => "",
                };
                writeln!(
                    out,
                    "0x{offset:08x} {} {size} bytes ({}){kept} {what}",
                    kind.name(),
                    form.name()
                )?;
            }
            StreamFormat::Jsonl => {
                let trailing = match payload {
                    Payload::Ints { trailing, .. } if !trailing.is_empty() => {
                        Some(Blob::from(*trailing))
                    }
                    _ => None,
                };
                let fields = DataFields {
                    chunk: kind,
                    size_form: form,
                    size,
                    writer,
                    trailing,
                    ints: payload.ints().map(<[i32]>::len),
                    payload: payload.decompressed().map(Blob::from),
                    message_error: message.as_ref().and_then(|m| m.as_ref().err().cloned()),
                    message: message.and_then(Result::ok),
                    error: payload.error(),
                };
                write_json_line(
                    &mut out,
                    &ChunkLine {
                        kind: "chunk",
                        index,
                        offset,
                        tick,
                        chunk: ChunkFields::Data(Box::new(fields)),
                    },
                )?;
            }
        }
    }
    let truncated = demo.truncated.map(<[u8]>::len);
    let damage = demo.damage.as_ref().map(|d| &d.error);
    match format {
        StreamFormat::Text => {
            if let Some(n) = truncated {
                writeln!(out, "# truncated: the last {n} byte(s) are a cut chunk")?;
            }
            if let Some(n) = demo.unfinished() {
                writeln!(out, "# unfinished: {}", unfinished_note(n))?;
            }
            if let Some(e) = damage {
                writeln!(out, "# stopped: {e}")?;
            }
        }
        StreamFormat::Jsonl => write_json_line(
            &mut out,
            &EndLine {
                kind: "end",
                chunks: demo.chunks.len(),
                truncated_bytes: truncated,
                undecodable_payloads: undecodable,
                error: damage,
            },
        )?,
    }
    out.flush()?;
    match (damage, first_fault) {
        (Some(e), _) => Err(Failure::bad(format!("{}: {e}", shown(path)))),
        (None, Some(e)) => Err(Failure::bad(format!(
            "{}: {undecodable} chunk payload(s) do not decode; the first: {e}",
            shown(path)
        ))),
        (None, None) => Ok(()),
    }
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
    let bytes = read(path)?;
    // Streamed: the player's counts need no decoded copy of the demo.
    let failed = |e| Failure::bad(format!("{}: {e}", shown(path)));
    let mut events = Events::new(&bytes).map_err(failed)?;
    let replay = events.replay();
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
        Some(e) => Err(failed(e)),
        None => Ok(()),
    }
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
