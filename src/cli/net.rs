//! `teeoracle huffman ...`, `teeoracle packet decode`, `teeoracle pcap ...`.

use super::Failure;
use super::output::{
    ReportFormat, StreamFormat, read, read_raw, shown, stdout, write_json_doc, write_json_line,
};
use clap::{Subcommand, ValueEnum};
use std::io::Write;
use std::path::{Path, PathBuf};
use teeoracle::capture;
use teeoracle::check::{Status, Verdict};
use teeoracle::codec::{Codec, Mode, Reader, first_difference};
use teeoracle::huffman::{self, Flavor};
use teeoracle::packet::msg::{self, MsgId};
use teeoracle::packet::{Packet, PacketCtx, TokenMode, Version, VersionReason, detect_version};
use teeoracle::session::{self, Direction};

#[derive(Subcommand, Debug)]
pub enum HuffmanCommand {
    /// Compress FILE (default: standard input) to standard output.
    Compress {
        /// The bytes to compress (`-` or absent: standard input).
        file: Option<PathBuf>,
        /// Which writer's end of stream to use.
        #[arg(long, value_enum, default_value_t = HuffmanFlavor::Ddnet)]
        flavor: HuffmanFlavor,
    },
    /// Decompress FILE (default: standard input) to standard output; says
    /// on stderr which writer made it.
    Decompress {
        /// The Huffman stream (`-` or absent: standard input).
        file: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum HuffmanFlavor {
    /// DDNet >= 20.0: a last byte only if bits remain.
    Ddnet,
    /// Vanilla and DDNet <= 19.x: an extra zero byte on a byte boundary.
    Legacy,
}

#[derive(Subcommand, Debug)]
pub enum PacketCommand {
    /// Every field of each packet, its chunks and messages, and a
    /// byte-exact re-encode check.
    Decode {
        /// Packets as hex (spaces and colons are ignored).
        hex: Vec<String>,
        /// Read one packet's raw bytes from a file (`-`: standard input).
        #[arg(long)]
        file: Option<PathBuf>,
        /// The protocol version; `auto` detects it as DDNet's server does
        /// for an unknown peer.
        #[arg(long, value_enum, default_value_t = VersionArg::Auto)]
        version: VersionArg,
        /// The packet was sent to the server (names messages by the
        /// server's table).
        #[arg(long, conflicts_with = "to_client")]
        to_server: bool,
        /// The packet was sent to a client.
        #[arg(long)]
        to_client: bool,
        /// `text` for people, `json` for programs.
        #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
        format: ReportFormat,
    },
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum VersionArg {
    /// Teeworlds 0.6 and DDNet.
    #[value(name = "0.6")]
    V06,
    /// Teeworlds 0.7 (and DDNet's 0.7 support).
    #[value(name = "0.7")]
    V07,
    /// As DDNet's server detects an unknown peer.
    Auto,
}

#[derive(Subcommand, Debug)]
pub enum PcapCommand {
    /// Decode every UDP datagram to or from the server port.
    Dump {
        /// The capture (pcap or pcapng; `-`: standard input).
        file: PathBuf,
        /// The server's UDP port (default: the port most datagrams use).
        #[arg(long)]
        port: Option<u16>,
        /// `text`: a block per datagram; `jsonl`: a JSON object per datagram.
        #[arg(long, value_enum, default_value_t = StreamFormat::Text)]
        format: StreamFormat,
    },
    /// Check that every datagram decodes and re-encodes byte-exactly; a
    /// port no datagram uses fails.
    Check {
        /// The capture (pcap or pcapng; `-`: standard input).
        file: PathBuf,
        /// The server's UDP port (default: the port most datagrams use).
        #[arg(long)]
        port: Option<u16>,
        /// `text` for people, `json` for programs.
        #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
        format: ReportFormat,
    },
}

pub fn huffman(cmd: HuffmanCommand) -> Result<(), Failure> {
    match cmd {
        HuffmanCommand::Compress { file, flavor } => huffman_compress(&input_path(&file), flavor),
        HuffmanCommand::Decompress { file } => huffman_decompress(&input_path(&file)),
    }
}

pub fn packet(cmd: PacketCommand) -> Result<(), Failure> {
    let PacketCommand::Decode {
        hex,
        file,
        version,
        to_server,
        to_client,
        format,
    } = cmd;
    let direction = match (to_server, to_client) {
        (true, _) => Some(Direction::ToServer),
        (_, true) => Some(Direction::ToClient),
        _ => None,
    };
    packet_decode(&hex, &file, version, direction, format)
}

pub fn pcap(cmd: PcapCommand) -> Result<(), Failure> {
    match cmd {
        PcapCommand::Dump { file, port, format } => pcap_dump(&file, port, format),
        PcapCommand::Check { file, port, format } => pcap_check(&file, port, format),
    }
}

/// An optional FILE: absent is standard input.
fn input_path(file: &Option<PathBuf>) -> PathBuf {
    file.clone().unwrap_or_else(|| PathBuf::from("-"))
}

fn huffman_compress(path: &Path, flavor: HuffmanFlavor) -> Result<(), Failure> {
    let input = read_raw(path)?;
    let flavor = match flavor {
        HuffmanFlavor::Ddnet => Flavor::Ddnet,
        HuffmanFlavor::Legacy => Flavor::Legacy,
    };
    let mut out = stdout();
    out.write_all(&huffman::compress_to_vec(&input, flavor))?;
    out.flush()?;
    Ok(())
}

fn huffman_decompress(path: &Path) -> Result<(), Failure> {
    let input = read_raw(path)?;
    let mut plain = Vec::new();
    let info = huffman::decompress(&input, &mut plain, usize::MAX, 0)
        .map_err(|e| Failure::bad(format!("{}: {e}", shown(path))))?;
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

use teeoracle::bytes::hex_preview as preview;

pub fn packet_decode(
    hexes: &[String],
    file: &Option<PathBuf>,
    version: VersionArg,
    direction: Option<Direction>,
    format: ReportFormat,
) -> Result<(), Failure> {
    let mut packets: Vec<Vec<u8>> = Vec::new();
    if let Some(f) = file {
        packets.push(read_raw(f)?);
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
                eprintln!("teeoracle: error: packet {}: {e}", i + 1);
                failed = true;
                continue;
            }
        };
        let mut again = Vec::new();
        packet.encode(&mut again, ctx);
        let exact = first_difference(&again, bytes);
        match format {
            ReportFormat::Text => {
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
            ReportFormat::Json => write_json_doc(&mut out, "packet", &packet)?,
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
    let bytes = read(path)?;
    let capture =
        capture::read(&bytes).map_err(|e| Failure::bad(format!("{}: {e}", shown(path))))?;
    let port = port
        .or_else(|| session::server_port(&capture))
        .ok_or_else(|| Failure::bad(format!("{}: no UDP datagrams", shown(path))))?;
    Ok((capture, port))
}

pub fn pcap_dump(path: &Path, port: Option<u16>, format: StreamFormat) -> Result<(), Failure> {
    let (capture, port) = load_capture(path, port)?;
    let decoded = session::decode_all(&capture, port);
    let (verdicts, replayed) = session::replay(&decoded);
    let mut out = stdout();
    for (d, verdict) in decoded.iter().zip(&verdicts) {
        match format {
            StreamFormat::Text => {
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
                    Err(e) => writeln!(out, "ERROR {e}")?,
                }
            }
            StreamFormat::Jsonl => {
                #[derive(serde::Serialize)]
                struct Line<'a> {
                    kind: &'static str,
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
                    kind: "datagram",
                    frame: d.datagram.frame,
                    time: d.datagram.time.as_secs_f64(),
                    direction: d.direction,
                    peer: d.peer.to_string(),
                    packet: d.packet.as_ref().ok(),
                    error: d.packet.as_ref().err().map(|e| e.to_string()),
                    exact: d.mismatch.is_none() && d.packet.is_ok(),
                    anomalies: &verdict.anomalies,
                };
                write_json_line(&mut out, &line)?;
            }
        }
    }
    let summary = session::summarize(&decoded);
    if let StreamFormat::Text = format {
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

pub fn pcap_check(path: &Path, port: Option<u16>, format: ReportFormat) -> Result<(), Failure> {
    let bytes = read(path)?;
    let mut verdict = Verdict::new(shown(path));
    verdict.format = Some("capture");
    let totals = teeoracle::session::check::check_capture(&bytes, port, &mut verdict);
    verdict.settle();
    let mut out = stdout();
    match format {
        ReportFormat::Json => {
            #[derive(serde::Serialize)]
            struct Report<'a> {
                #[serde(flatten)]
                verdict: &'a Verdict,
                summary: Option<&'a session::Summary>,
                replay: Option<&'a session::ReplaySummary>,
            }
            let report = Report {
                verdict: &verdict,
                summary: totals.as_ref().map(|t| &t.0),
                replay: totals.as_ref().map(|t| &t.1),
            };
            write_json_doc(&mut out, "pcap_check", &report)?;
        }
        ReportFormat::Text => {
            if let Some((summary, replay)) = &totals {
                let summary = teeoracle::bytes::key_values(summary, &[]);
                writeln!(out, "{}: {}", shown(path), summary.trim_start())?;
                writeln!(out, "replay:{}", teeoracle::bytes::key_values(replay, &[]))?;
            }
        }
    }
    out.flush()?;
    match verdict
        .headline()
        .filter(|_| verdict.status == Status::Fail)
    {
        Some(f) => Err(Failure::bad(format!("{}: {}", shown(path), f.message))),
        None => Ok(()),
    }
}
