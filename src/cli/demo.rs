//! `teeoracle demo ...`.

use super::Failure;
use super::output::{ReportFormat, read, shown, stdout, write_json_doc, write_ron};
use clap::Subcommand;
use std::io::Write;
use std::path::{Path, PathBuf};
use teeoracle::codec::first_difference;
use teeoracle::demo::{Chunk, ChunkKind, Demo, SnapshotReplay, decode_payload, payload_bytes};
use teeoracle::packet::Version;
use teeoracle::packet::msg::{self, MsgId};

#[derive(Subcommand, Debug)]
pub enum DemoCommand {
    /// One line per chunk: offset, tick markers, chunk kind, size, message.
    Dump {
        /// The demo file (`-`: standard input).
        file: PathBuf,
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
        DemoCommand::Dump { file } => dump(&file),
        DemoCommand::Stats { file, format } => stats(&file, format),
        DemoCommand::Roundtrip { file, output } => roundtrip(&file, output.as_deref()),
        DemoCommand::Snapshot { file, at, format } => super::snapshot::demo_at(&file, at, format),
        DemoCommand::Rerecord { file, output } => rerecord(&file, output.as_deref()),
        DemoCommand::Build { spec, output } => build(&spec, &output),
    }
}

fn load(path: &Path) -> Result<Vec<u8>, Failure> {
    read(path)
}

/// Decodes a demo; a failure names the file and the offset.
fn decode<'a>(path: &Path, bytes: &'a [u8]) -> Result<(Demo<'a>, Vec<u64>), Failure> {
    Demo::decode(bytes).map_err(|e| Failure::bad(format!("{}: {e}", shown(path))))
}

fn version_of(demo: &Demo<'_>) -> Version {
    if demo.header.net_version().starts_with("0.7") {
        Version::V07
    } else {
        Version::V06
    }
}

pub fn dump(path: &Path) -> Result<(), Failure> {
    let bytes = load(path)?;
    let (demo, offsets) = decode(path, &bytes)?;
    let version = version_of(&demo);
    let mut out = stdout();
    writeln!(
        out,
        "#{}",
        teeoracle::bytes::key_values(&demo.info(), &["timeline_markers"])
    )?;
    for (chunk, offset) in demo.chunks.iter().zip(&offsets) {
        match chunk {
            Chunk::Tick { .. } => {
                let marker = chunk.tick_marker_text().unwrap_or_default();
                writeln!(out, "0x{offset:08x} {marker}")?;
            }
            Chunk::Data {
                kind,
                payload,
                form,
                ..
            } => {
                let p = decode_payload(payload, *offset)
                    .map_err(|e| Failure::bad(format!("{}: {e}", shown(path))))?;
                let what = match kind {
                    ChunkKind::Message => {
                        let data = payload_bytes(&p.ints);
                        match msg::split(&data) {
                            Ok((h, _)) => {
                                let kind = if h.sys { "sys" } else { "game" };
                                match h.id {
                                    MsgId::Ordinal(id) => format!(
                                        "{kind}:{id} {}",
                                        msg::name(version, h.sys, id).unwrap_or("?")
                                    ),
                                    MsgId::Uuid(u) => {
                                        format!("{kind}:ex {}", msg::uuid_name(&u).unwrap_or("?"))
                                    }
                                }
                            }
                            Err(e) => format!("unreadable message: {e}"),
                        }
                    }
                    ChunkKind::Snapshot => format!("{} ints", p.ints.len()),
                    ChunkKind::Delta => format!("{} ints", p.ints.len()),
                    ChunkKind::Unknown => "unknown chunk type".into(),
                };
                writeln!(
                    out,
                    "0x{offset:08x} {kind:?} {} bytes ({form:?}) {what}",
                    payload.len()
                )?;
            }
        }
    }
    if let Some(t) = demo.truncated {
        writeln!(
            out,
            "# truncated: the last {} byte(s) are a cut chunk",
            t.len()
        )?;
    }
    out.flush()?;
    Ok(())
}

pub fn stats(path: &Path, format: ReportFormat) -> Result<(), Failure> {
    let bytes = load(path)?;
    let (demo, offsets) = decode(path, &bytes)?;
    let replay = demo.replay_snapshots(&offsets, |_, _, _| {});
    #[derive(serde::Serialize)]
    struct Stats {
        file: String,
        header: teeoracle::demo::HeaderInfo,
        chunks: usize,
        snapshots: SnapshotReplay,
        truncated_bytes: Option<usize>,
    }
    let stats = Stats {
        file: shown(path).to_string(),
        header: demo.info(),
        chunks: demo.chunks.len(),
        snapshots: replay,
        truncated_bytes: demo.truncated.map(<[u8]>::len),
    };
    let mut out = stdout();
    match format {
        ReportFormat::Json => write_json_doc(&mut out, "demo_stats", &stats)?,
        // TODO(demo): a text form for people (this is RON).
        ReportFormat::Text => write_ron(&mut out, &stats)?,
    }
    out.flush()?;
    Ok(())
}

pub fn roundtrip(path: &Path, output: Option<&Path>) -> Result<(), Failure> {
    let bytes = load(path)?;
    let (demo, _) = decode(path, &bytes)?;
    let mut again = Vec::with_capacity(bytes.len());
    let verbatim = demo.encode(&mut again);
    if let Some(o) = output {
        std::fs::write(o, &again)
            .map_err(|e| Failure::Usage(format!("cannot write {}: {e}", o.display())))?;
    }
    if let Some(at) = first_difference(&again, &bytes) {
        return Err(Failure::bad(format!(
            "{}: round trip differs at byte {at} (0x{at:x})",
            shown(path)
        )));
    }
    let mut out = stdout();
    writeln!(
        out,
        "{}: round trip byte-exact ({} chunks, every payload recompressed)",
        shown(path),
        demo.chunks.len()
    )?;
    if verbatim > 0 {
        writeln!(
            out,
            "note: {verbatim} chunk payload(s) could not be decoded and were kept as they were"
        )?;
    }
    out.flush()?;
    Ok(())
}

/// `demo rerecord`: the file re-recorded through DDNet's recorder, and
/// what differs.
pub fn rerecord(path: &Path, output: Option<&Path>) -> Result<(), Failure> {
    let bytes = load(path)?;
    let done = teeoracle::demo::rerecord(&bytes)
        .map_err(|e| Failure::bad(format!("{}: {e}", shown(path))))?;
    if let Some(o) = output {
        std::fs::write(o, &done.bytes)
            .map_err(|e| Failure::Usage(format!("cannot write {}: {e}", o.display())))?;
    }
    let r = &done.report;
    let mut out = stdout();
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

/// `demo build`: a synthetic demo from a RON or JSON spec.
pub fn build(spec_path: &Path, output: &Path) -> Result<(), Failure> {
    use teeoracle::demo::spec::DemoSpec;
    let ext = spec_path.extension().and_then(|e| e.to_str());
    let parse = match ext {
        Some("ron") => DemoSpec::from_ron,
        Some("json") => DemoSpec::from_json,
        _ => {
            return Err(Failure::Usage(format!(
                "{}: a spec is a .ron or .json file",
                shown(spec_path)
            )));
        }
    };
    let text = std::fs::read_to_string(spec_path)
        .map_err(|e| Failure::bad(format!("{}: {e}", shown(spec_path))))?;
    let spec = parse(&text).map_err(|e| Failure::bad(format!("{}: {e}", shown(spec_path))))?;
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
