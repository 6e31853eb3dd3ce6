//! `teeoracle huffman ...`, `teeoracle packet decode`, `teeoracle pcap ...`.

use super::output::{stdout, write_ron};
use super::{Failure, HuffmanFlavor, NetFormat, VersionArg};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use teeoracle::capture;
use teeoracle::codec::{Codec, Mode, Reader, first_difference};
use teeoracle::huffman::{self, Flavor};
use teeoracle::packet::msg::{self, MsgId};
use teeoracle::packet::{Packet, PacketCtx, TokenMode, Version, VersionReason, detect_version};
use teeoracle::session::{self, Decoded, Direction};

fn read_input(file: &Option<PathBuf>) -> Result<Vec<u8>, Failure> {
    let mut bytes = Vec::new();
    match file.as_deref() {
        None => std::io::stdin().read_to_end(&mut bytes).map(|_| ()),
        Some(p) if p == Path::new("-") => std::io::stdin().read_to_end(&mut bytes).map(|_| ()),
        Some(p) => std::fs::File::open(p).and_then(|mut f| f.read_to_end(&mut bytes).map(|_| ())),
    }
    .map_err(|e| Failure::bad(format!("reading input: {e}")))?;
    Ok(bytes)
}

pub fn huffman_compress(file: &Option<PathBuf>, flavor: HuffmanFlavor) -> Result<(), Failure> {
    let input = read_input(file)?;
    let flavor = match flavor {
        HuffmanFlavor::Ddnet => Flavor::Ddnet,
        HuffmanFlavor::Legacy => Flavor::Legacy,
    };
    let mut out = stdout();
    out.write_all(&huffman::compress_to_vec(&input, flavor))?;
    out.flush()?;
    Ok(())
}

pub fn huffman_decompress(file: &Option<PathBuf>) -> Result<(), Failure> {
    let input = read_input(file)?;
    let mut plain = Vec::new();
    let info = huffman::decompress(&input, &mut plain, usize::MAX, 0)
        .map_err(|e| Failure::bad(format!("{}: {e}", display(file))))?;
    let writers = match (info.ddnet, info.legacy) {
        (true, true) => "DDNet >= 20.0 and legacy writers",
        (true, false) => "the DDNet >= 20.0 writer",
        (false, true) => "the legacy writer (extra zero byte)",
        (false, false) => "no writer (non-zero padding bits)",
    };
    eprintln!(
        "teeoracle: {} bits through EOF, {} byte(s) of stream, {} trailing; made by {writers}",
        info.bits, info.len, info.trailing
    );
    let mut out = stdout();
    out.write_all(&plain)?;
    out.flush()?;
    Ok(())
}

fn display(file: &Option<PathBuf>) -> String {
    file.as_deref()
        .map_or("<stdin>".into(), |p| p.display().to_string())
}

/// One packet as text lines: the header line, then a line per chunk.
fn describe(packet: &Packet<'_>, direction: Option<Direction>) -> Vec<String> {
    let mut lines = Vec::new();
    match packet {
        Packet::Connless06 { header, payload } => {
            let form = match header {
                [0xff, 0xff, 0xff, 0xff, 0xff, 0xff] => "plain",
                [b'x', b'e', ..] => "ddnet-extended",
                _ => "unusual-header",
            };
            lines.push(format!(
                "connless 0.6 {form} header={} payload={} bytes: {}",
                hex::encode(header),
                payload.len(),
                preview(payload)
            ));
        }
        Packet::Connless07 {
            token,
            response_token,
            payload,
            ..
        } => lines.push(format!(
            "connless 0.7 token={} response_token={} payload={} bytes: {}",
            hex::encode(token),
            hex::encode(response_token),
            payload.len(),
            preview(payload)
        )),
        Packet::Connection(p) => {
            let mut head = format!(
                "{} {} flags=0x{:02x} ack={} chunks={}",
                p.version,
                if p.is_control() { "control" } else { "data" },
                p.flags,
                p.ack,
                p.num_chunks
            );
            if p.requests_resend() {
                head.push_str(" resend-request");
            }
            if let Some(t) = p.header_token {
                head.push_str(&format!(" header_token={}", hex::encode(t)));
            }
            if let Some(c) = &p.compression {
                let flavor = match (c.huffman.ddnet, c.huffman.legacy) {
                    (true, true) => "ddnet|legacy",
                    (true, false) => "ddnet",
                    (false, true) => "legacy",
                    (false, false) => "raw",
                };
                head.push_str(&format!(
                    " compressed({flavor}, {} -> {} bytes)",
                    c.raw.len(),
                    p.payload.len()
                ));
            }
            if let Some(t) = p.token {
                head.push_str(&format!(" token={}", hex::encode(t)));
            }
            lines.push(head);
            if let Some((id, data)) = p.control() {
                lines.push(format!(
                    "  control {} {}",
                    control_name(p.version, id),
                    preview(data)
                ));
            } else {
                match p.chunks() {
                    Ok((chunks, rest)) => {
                        for c in &chunks {
                            let mut line = match c.header.seq(p.version) {
                                Some(seq) => format!("  vital seq={seq:<4}"),
                                None => "  chunk        ".to_string(),
                            };
                            if c.header.flags & teeoracle::packet::CHUNK_RESEND != 0 {
                                line.push_str(" resend");
                            }
                            if !c.header.is_canonical(p.version) {
                                line.push_str(" (non-canonical header)");
                            }
                            line.push_str(&format!(
                                " size={:<4} {}",
                                c.header.size,
                                describe_msg(c.data, p.version, direction)
                            ));
                            lines.push(line);
                        }
                        if !rest.is_empty() {
                            lines.push(format!(
                                "  {} byte(s) after the chunks: {}",
                                rest.len(),
                                preview(rest)
                            ));
                        }
                    }
                    Err(e) => lines.push(format!("  chunks: {e}")),
                }
            }
        }
    }
    lines
}

fn describe_msg(data: &[u8], version: Version, direction: Option<Direction>) -> String {
    match msg::split(data) {
        Ok((h, body)) => {
            let kind = if h.sys { "sys" } else { "game" };
            let name = match h.id {
                MsgId::Ordinal(id) => msg::name(version, h.sys, id, direction)
                    .map_or(format!("{kind}:{id}"), |n| format!("{kind}:{id} {n}")),
                MsgId::Uuid(u) => msg::uuid_name(&u)
                    .map_or(format!("{kind}:ex {u}"), |n| format!("{kind}:ex {n}")),
            };
            match msg::decode_sys(version, h.id, body).filter(|_| h.sys) {
                Some(Ok(fields)) => {
                    let mut line = name;
                    for (field, value) in &fields.fields {
                        let shown = match value {
                            msg::Value::Bytes(b) => preview(b),
                            other => serde_json::to_string(other).unwrap_or_default(),
                        };
                        line.push_str(&format!(" {field}={shown}"));
                    }
                    if !fields.trailing.is_empty() {
                        line.push_str(&format!(" trailing={}", preview(fields.trailing)));
                    }
                    line
                }
                Some(Err(e)) => format!(
                    "{name} (does not fit its layout: {e}) body={}",
                    preview(body)
                ),
                None => format!("{name} body={}", preview(body)),
            }
        }
        Err(e) => format!("unreadable message: {e}"),
    }
}

fn control_name(version: Version, id: u8) -> String {
    use teeoracle::packet::control::*;
    let name = match (version, id) {
        (_, KEEPALIVE) => "KEEPALIVE",
        (_, CONNECT) => "CONNECT",
        (Version::V06, CONNECTACCEPT) => "CONNECTACCEPT",
        (Version::V06, ACCEPT_06) => "ACCEPT",
        (Version::V07, ACCEPT_07) => "ACCEPT",
        (_, CLOSE) => "CLOSE",
        (Version::V07, TOKEN) => "TOKEN",
        _ => return format!("unknown({id})"),
    };
    name.to_string()
}

/// Short hex of a byte string (the first 32 bytes).
fn preview(bytes: &[u8]) -> String {
    if bytes.len() <= 32 {
        hex::encode(bytes)
    } else {
        format!("{}.. ({} bytes)", hex::encode(&bytes[..32]), bytes.len())
    }
}

pub fn packet_decode(
    hexes: &[String],
    file: &Option<PathBuf>,
    version: VersionArg,
    direction: Option<Direction>,
    format: NetFormat,
) -> Result<(), Failure> {
    let mut packets: Vec<Vec<u8>> = Vec::new();
    if let Some(f) = file {
        packets.push(read_input(&Some(f.clone()))?);
    }
    for h in hexes {
        let bytes = teeoracle::bytes::parse_hex(h)
            .map_err(|e| Failure::Usage(format!("not hex: {h}: {e}")))?;
        packets.push(bytes);
    }
    if packets.is_empty() {
        return Err(Failure::Usage("give packets as hex, or --file FILE".into()));
    }
    let mut out = stdout();
    let mut failed = false;
    for (i, bytes) in packets.iter().enumerate() {
        let (v, reason) = match version {
            VersionArg::V06 => (Version::V06, VersionReason::Given),
            VersionArg::V07 => (Version::V07, VersionReason::Given),
            VersionArg::Auto => detect_version(bytes),
        };
        let reason = reason_text(reason);
        let ctx = PacketCtx {
            version: Some(v),
            token: TokenMode::Auto,
        };
        let decoded = Packet::decode(&mut Reader::new(bytes, Mode::Lenient), ctx);
        let packet = match decoded {
            Ok(p) => p,
            Err(e) => {
                eprintln!(
                    "teeoracle: error: packet {}: {}",
                    i + 1,
                    super::output::describe(&e, None)
                );
                failed = true;
                continue;
            }
        };
        let mut again = Vec::new();
        packet.encode(&mut again, ctx);
        let exact = first_difference(&again, bytes);
        match format {
            NetFormat::Text => {
                writeln!(
                    out,
                    "packet {} ({} bytes, version {v}: {reason})",
                    i + 1,
                    bytes.len()
                )?;
                for line in describe(&packet, direction) {
                    writeln!(out, "  {line}")?;
                }
                match exact {
                    None => writeln!(out, "  re-encode: byte-exact")?,
                    Some(at) => writeln!(out, "  re-encode: DIFFERS at byte {at}")?,
                }
            }
            NetFormat::Json => writeln!(
                out,
                "{}",
                serde_json::to_string(&packet).map_err(Failure::bad)?
            )?,
            NetFormat::Ron => write_ron(&mut out, &packet)?,
        }
        failed |= exact.is_some() || session::payload_error(&packet).is_err();
    }
    out.flush()?;
    if failed {
        return Err(Failure::Bad {
            message: "a packet did not decode or re-encode exactly".into(),
            reported: true,
        });
    }
    Ok(())
}

fn reason_text(reason: VersionReason) -> &'static str {
    match reason {
        VersionReason::Given => "given",
        VersionReason::ConnlessVersionBits => "detected: connless with byte0 & 3 == 1",
        VersionReason::ControlBit07 => "detected: bit 0x04 of byte 0 (0.7 control flag)",
        VersionReason::Default06 => "detected: no 0.7 marker, as DDNet reads an unknown peer",
    }
}

fn load_capture(path: &Path, port: Option<u16>) -> Result<(capture::Capture, u16), Failure> {
    let bytes =
        std::fs::read(path).map_err(|e| Failure::bad(format!("{}: {e}", path.display())))?;
    let capture =
        capture::read(&bytes).map_err(|e| Failure::bad(format!("{}: {e}", path.display())))?;
    let port = port
        .or_else(|| session::server_port(&capture))
        .ok_or_else(|| Failure::bad(format!("{}: no UDP datagrams", path.display())))?;
    Ok((capture, port))
}

pub fn pcap_dump(path: &Path, port: Option<u16>, format: NetFormat) -> Result<(), Failure> {
    let (capture, port) = load_capture(path, port)?;
    let decoded = session::decode_all(&capture, port);
    let (verdicts, replayed) = session::replay(&decoded);
    let mut out = stdout();
    for (d, verdict) in decoded.iter().zip(&verdicts) {
        match format {
            NetFormat::Text => {
                let dir = match d.direction {
                    Direction::ToServer => "->",
                    Direction::ToClient => "<-",
                };
                write!(
                    out,
                    "#{:<6} {:>10.6} {} {dir} ",
                    d.datagram.frame,
                    d.datagram.time.as_secs_f64(),
                    d.peer
                )?;
                match &d.packet {
                    Ok(p) => {
                        let lines = describe(p, Some(d.direction));
                        writeln!(out, "{}", lines[0])?;
                        for l in &lines[1..] {
                            writeln!(out, "         {l}")?;
                        }
                        if let Some(at) = d.mismatch {
                            writeln!(out, "         RE-ENCODE DIFFERS at byte {at}")?;
                        }
                        for a in &verdict.anomalies {
                            writeln!(out, "         ! {a}")?;
                        }
                        for snap in &verdict.snapshots {
                            let crc = snap.crc.map_or(String::new(), |c| format!(", crc {c}"));
                            writeln!(
                                out,
                                "         = snapshot tick {} (delta {}, {} part(s), {} bytes{crc})",
                                snap.tick, snap.delta_tick, snap.parts, snap.size
                            )?;
                        }
                    }
                    Err(e) => writeln!(out, "ERROR {}", super::output::describe(e, None))?,
                }
            }
            NetFormat::Json | NetFormat::Ron => {
                #[derive(serde::Serialize)]
                struct Line<'a> {
                    frame: usize,
                    time: f64,
                    direction: Direction,
                    peer: String,
                    packet: Option<&'a Packet<'a>>,
                    error: Option<String>,
                    exact: bool,
                    anomalies: &'a [session::Anomaly],
                }
                let line = Line {
                    frame: d.datagram.frame,
                    time: d.datagram.time.as_secs_f64(),
                    direction: d.direction,
                    peer: d.peer.to_string(),
                    packet: d.packet.as_ref().ok(),
                    error: d.packet.as_ref().err().map(|e| e.to_string()),
                    exact: d.mismatch.is_none() && d.packet.is_ok(),
                    anomalies: &verdict.anomalies,
                };
                match format {
                    NetFormat::Json => writeln!(
                        out,
                        "{}",
                        serde_json::to_string(&line).map_err(Failure::bad)?
                    )?,
                    _ => writeln!(out, "{}", ron::to_string(&line).map_err(Failure::bad)?)?,
                }
            }
        }
    }
    let summary = session::summarize(&decoded);
    if let NetFormat::Text = format {
        let totals = teeoracle::bytes::key_values(&summary, &[]);
        writeln!(out, "# {}", totals.trim_start())?;
        writeln!(
            out,
            "# replay:{}",
            teeoracle::bytes::key_values(&replayed, &[])
        )?;
    }
    out.flush()?;
    Ok(())
}

/// What checking a capture found.
pub struct CaptureCheck {
    pub summary: session::Summary,
    /// What the session replay found.
    pub replay: session::ReplaySummary,
    /// The first datagram that does not decode or re-encode exactly.
    pub failure: Option<String>,
}

/// Checks a capture: every datagram (and every chunk and message header
/// of a data packet) decodes and re-encodes exactly; the session replay
/// counts what a real peer would have dropped.
pub fn check_capture(path: &Path, port: Option<u16>) -> Result<CaptureCheck, Failure> {
    let (capture, port) = load_capture(path, port)?;
    let decoded = session::decode_all(&capture, port);
    let summary = session::summarize(&decoded);
    let (_, replay) = session::replay(&decoded);
    let failure = decoded.iter().find_map(|d: &Decoded<'_>| {
        let frame = d.datagram.frame;
        match (&d.packet, &d.payload_error, d.mismatch) {
            (Err(e), _, _) => Some(format!(
                "frame {frame}: {}",
                super::output::describe(e, None)
            )),
            (_, Some(e), _) => Some(format!(
                "frame {frame}: in the payload {}",
                super::output::describe(e, None)
            )),
            (_, _, Some(at)) => Some(format!("frame {frame}: re-encoding differs at byte {at}")),
            _ => None,
        }
    });
    Ok(CaptureCheck {
        summary,
        replay,
        failure,
    })
}

pub fn pcap_check(path: &Path, port: Option<u16>) -> Result<(), Failure> {
    let check = check_capture(path, port)?;
    let mut out = stdout();
    let summary = teeoracle::bytes::key_values(&check.summary, &[]);
    writeln!(out, "{}: {}", path.display(), summary.trim_start())?;
    writeln!(
        out,
        "replay:{}",
        teeoracle::bytes::key_values(&check.replay, &[])
    )?;
    out.flush()?;
    match check.failure {
        Some(f) => Err(Failure::bad(format!("{}: {f}", path.display()))),
        None => Ok(()),
    }
}
