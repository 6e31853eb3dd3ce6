//! `teeoracle demo ...` and the demo check used by `teeoracle check`.

use super::output::{stdout, write_ron};
use super::{Failure, StatsFormat};
use std::io::Write;
use std::path::Path;
use teeoracle::codec::first_difference;
use teeoracle::demo::{Chunk, ChunkKind, Demo, SnapshotReplay, decode_payload, payload_bytes};
use teeoracle::packet::Version;
use teeoracle::packet::msg::{self, MsgId};

fn load(path: &Path) -> Result<Vec<u8>, Failure> {
    std::fs::read(path).map_err(|e| Failure::bad(format!("{}: {e}", path.display())))
}

/// Decodes a demo; a failure names the file and the offset.
fn decode<'a>(path: &Path, bytes: &'a [u8]) -> Result<(Demo<'a>, Vec<u64>), Failure> {
    Demo::decode(bytes).map_err(|e| {
        Failure::bad(format!(
            "{}: {}",
            path.display(),
            super::output::describe(&e, None)
        ))
    })
}

/// What checking a demo found.
pub struct DemoCheck {
    pub chunks: usize,
    pub last_tick: Option<i32>,
    pub replay: SnapshotReplay,
    pub mismatch: Option<usize>,
    pub truncated: Option<usize>,
    /// Re-recorded through DDNet's recorder model: what differs.
    pub rerecorded: Option<teeoracle::demo::RerecordReport>,
}

/// Decodes, re-encodes (every payload recompressed) and replays snapshots.
pub fn check_demo(path: &Path) -> Result<DemoCheck, Failure> {
    let bytes = load(path)?;
    let (demo, offsets) =
        Demo::decode(&bytes).map_err(|e| Failure::bad(super::output::describe(&e, None)))?;
    let mut again = Vec::with_capacity(bytes.len());
    demo.encode(&mut again);
    let replay = demo.replay_snapshots(&offsets, |_, _, _| {});
    Ok(DemoCheck {
        chunks: demo.chunks.len(),
        last_tick: replay.last_tick,
        replay,
        mismatch: first_difference(&again, &bytes),
        truncated: demo.truncated.map(<[u8]>::len),
        rerecorded: teeoracle::demo::rerecord(&bytes).ok().map(|r| r.report),
    })
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
                    .map_err(|e| Failure::bad(super::output::describe(&e, None)))?;
                let what = match kind {
                    ChunkKind::Message => {
                        let data = payload_bytes(&p.ints);
                        match msg::split(&data) {
                            Ok((h, _)) => {
                                let kind = if h.sys { "sys" } else { "game" };
                                match h.id {
                                    MsgId::Ordinal(id) => format!(
                                        "{kind}:{id} {}",
                                        msg::name(version, h.sys, id, None).unwrap_or("?")
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

pub fn stats(path: &Path, format: StatsFormat) -> Result<(), Failure> {
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
        file: path.display().to_string(),
        header: demo.info(),
        chunks: demo.chunks.len(),
        snapshots: replay,
        truncated_bytes: demo.truncated.map(<[u8]>::len),
    };
    let mut out = stdout();
    match format {
        StatsFormat::Json => writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&stats).map_err(Failure::bad)?
        )?,
        StatsFormat::Text => write_ron(&mut out, &stats)?,
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
            path.display()
        )));
    }
    let mut out = stdout();
    writeln!(
        out,
        "{}: round trip byte-exact ({} chunks, every payload recompressed)",
        path.display(),
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
    let done = teeoracle::demo::rerecord(&bytes).map_err(|e| {
        Failure::bad(format!(
            "{}: {}",
            path.display(),
            super::output::describe(&e, None)
        ))
    })?;
    if let Some(o) = output {
        std::fs::write(o, &done.bytes)
            .map_err(|e| Failure::Usage(format!("cannot write {}: {e}", o.display())))?;
    }
    let r = &done.report;
    let mut out = stdout();
    writeln!(
        out,
        "{}: re-recorded through DDNet's demo recorder (Huffman writer: {})",
        path.display(),
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
            path.display(),
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
                spec_path.display()
            )));
        }
    };
    let text = std::fs::read_to_string(spec_path)
        .map_err(|e| Failure::bad(format!("{}: {e}", spec_path.display())))?;
    let spec = parse(&text).map_err(|e| Failure::bad(format!("{}: {e}", spec_path.display())))?;
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
        .map_err(|e| Failure::bad(format!("{}: {e}", spec_path.display())))?;
    for w in &built.warnings {
        eprintln!("teeoracle: warning: {}: {w}", spec_path.display());
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
