//! `teeoracle huffman ...`, `teeoracle packet decode`, `teeoracle pcap ...`.

use super::Failure;
use super::output::{
    ReportFormat, StreamFormat, read, read_raw, shown, stdout, write_json_doc, write_json_line,
    write_stream_start,
};
use clap::{Subcommand, ValueEnum};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};
use teeoracle::bytes::hex_preview as preview;
use teeoracle::capture;
use teeoracle::check::{Status, Verdict};
use teeoracle::huffman::{self, Flavor};
use teeoracle::packet::json;
use teeoracle::packet::{
    CHUNK_RESEND, ConnPacket, Contents, Layer, MessageChunk, Mismatch, Packet, PacketVerdicts,
    TokenMode, Version, control,
};
use teeoracle::session::{self, Decoded, Direction, Session};

#[derive(Subcommand, Debug)]
#[command(defer = true)]
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
#[command(defer = true)]
pub enum PacketCommand {
    /// Every field of each packet, its chunks and messages, and a
    /// byte-exact re-encode check of every layer.
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
        /// Whether a 0.6 connection packet ends with DDNet's security
        /// token; `auto` guesses it from the packet's structure. Ignored
        /// for 0.7.
        #[arg(long, value_enum, default_value_t = TokenArg::Auto)]
        token: TokenArg,
        /// `text` for people, `json` for programs (one `packet_decode`
        /// document).
        #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
        format: ReportFormat,
    },
    /// The inverse of `decode --format json`: datagrams from its JSON (the
    /// document, or one entry of its `packets`), messages by fields or
    /// body; written raw (one packet) or as a hex line each.
    Encode {
        /// The JSON (`-`: standard input).
        json: PathBuf,
        /// One line of hex per packet (the form `decode` takes) instead
        /// of the raw bytes of the one packet.
        #[arg(long)]
        hex: bool,
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

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum TokenArg {
    /// The connection uses DDNet's token.
    Yes,
    /// A vanilla connection: no token.
    No,
    /// Guess from the packet's structure.
    Auto,
}

#[derive(Subcommand, Debug)]
#[command(defer = true)]
pub enum PcapCommand {
    /// Decode every UDP datagram to or from the server port, with what
    /// the session replay finds.
    Dump {
        /// The capture (pcap or pcapng; `-`: standard input).
        file: PathBuf,
        /// The server's UDP port (default: the port most datagrams use).
        #[arg(long)]
        port: Option<u16>,
        /// `text`: a block per datagram; `jsonl`: a `start` line, a
        /// `datagram` line each, an `end` line with the totals.
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
        /// `text` for people, `json` for programs (one `pcap_check`
        /// document).
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
    let (hex, file, version, token, format) = match cmd {
        PacketCommand::Decode {
            hex,
            file,
            version,
            token,
            format,
        } => (hex, file, version, token, format),
        PacketCommand::Encode { json, hex } => return packet_encode(&json, hex),
    };
    let token = match token {
        TokenArg::Yes => TokenMode::Present,
        TokenArg::No => TokenMode::Absent,
        TokenArg::Auto => TokenMode::Auto,
    };
    packet_decode(&hex, &file, version, token, format)
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

/// One packet as text lines into `out`: the header line (after `first`),
/// then a line per chunk (after `rest`). Errors inside the payload are
/// placed in a datagram that starts at file byte `base`.
fn describe(
    out: &mut String,
    (first, rest): (&str, &str),
    packet: &Packet<'_>,
    contents: Option<&Contents<'_>>,
    base: u64,
) {
    use std::fmt::Write as _;
    out.push_str(first);
    // Writing to a String cannot fail.
    let _ = match packet {
        Packet::Connless06 { header, payload } => writeln!(
            out,
            "connless 0.6 {} header={} payload={} bytes: {}",
            json::connless_form(header).replace('_', "-"),
            hex::encode(header),
            payload.len(),
            preview(payload)
        ),
        Packet::Connless07 {
            token,
            response_token,
            payload,
            ..
        } => writeln!(
            out,
            "connless 0.7 token={} response_token={} payload={} bytes: {}",
            hex::encode(token),
            hex::encode(response_token),
            payload.len(),
            preview(payload)
        ),
        Packet::Connection(p) => {
            let _ = write!(
                out,
                "{} {} flags=0x{:02x} ack={} chunks={}",
                p.version,
                if p.is_control() { "control" } else { "data" },
                p.flags,
                p.ack,
                p.num_chunks
            );
            if p.requests_resend() {
                out.push_str(" resend-request");
            }
            if let Some(t) = p.header_token {
                let _ = write!(out, " header_token={}", hex::encode(t));
            }
            if let Some(c) = &p.compression {
                let flavor = match (c.huffman.ddnet, c.huffman.legacy) {
                    (true, true) => "ddnet|legacy",
                    (true, false) => "ddnet",
                    (false, true) => "legacy",
                    (false, false) => "raw",
                };
                let _ = write!(
                    out,
                    " compressed({flavor}, {} -> {} bytes)",
                    c.raw.len(),
                    p.payload.len()
                );
            }
            if let Some(t) = p.token {
                let _ = write!(out, " token={}", hex::encode(t));
            }
            out.push('\n');
            if let Some((id, data)) = p.control() {
                let _ = writeln!(
                    out,
                    "{rest}  control {} {}",
                    control_name(p.version, id),
                    preview(data)
                );
            }
            if let Some(contents) = contents {
                for c in &contents.chunks {
                    let h = &c.chunk.header;
                    out.push_str(rest);
                    let _ = match h.seq(p.version) {
                        Some(seq) => write!(out, "  vital seq={seq:<4}"),
                        None => write!(out, "  chunk        "),
                    };
                    if h.flags & CHUNK_RESEND != 0 {
                        out.push_str(" resend");
                    }
                    if !h.is_canonical(p.version) {
                        out.push_str(" (non-canonical header)");
                    }
                    let _ = write!(out, " size={:<4} ", h.size);
                    describe_msg(out, c, p, base);
                    out.push('\n');
                }
                match &contents.error {
                    Some(e) => {
                        let _ = writeln!(out, "{rest}  chunks: {}", p.locate(e.clone(), base));
                    }
                    None if !contents.rest.is_empty() => {
                        let _ = writeln!(
                            out,
                            "{rest}  {} byte(s) after the chunks: {}",
                            contents.rest.len(),
                            preview(contents.rest)
                        );
                    }
                    None => {}
                }
            }
            Ok(())
        }
    };
}

/// A chunk's message, or why its header cannot be read.
fn describe_msg(out: &mut String, c: &MessageChunk<'_>, p: &ConnPacket<'_>, base: u64) {
    use std::fmt::Write as _;
    let _ = match &c.message {
        Ok(m) => write!(out, "{}", m.located(|e| p.locate(e.clone(), base))),
        Err(e) => write!(out, "unreadable message: {}", p.locate(e.clone(), base)),
    };
}

fn control_name(version: Version, id: u8) -> String {
    control::name(version, id).map_or_else(|| format!("unknown({id})"), str::to_string)
}

pub fn packet_decode(
    hexes: &[String],
    file: &Option<PathBuf>,
    version: VersionArg,
    token: TokenMode,
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
    let version = match version {
        VersionArg::V06 => Some(Version::V06),
        VersionArg::V07 => Some(Version::V07),
        VersionArg::Auto => None,
    };
    let mut out = stdout();
    let mut any_failed = false;
    // JSON keeps each entry as a value: an entry borrows its packet, which
    // lives only as long as its decode.
    let mut entries = Vec::new();
    for (i, bytes) in packets.iter().enumerate() {
        json::decode_entry(bytes, version, token, |d| -> Result<(), Failure> {
            let e = &d.entry;
            any_failed |= e.failed;
            match format {
                ReportFormat::Text => {
                    writeln!(
                        out,
                        "packet {} ({} bytes, version {}: {})",
                        i + 1,
                        bytes.len(),
                        e.version,
                        e.version_reason
                    )?;
                    match (d.packet, e.error) {
                        (Some(packet), _) => {
                            let mut text = String::new();
                            describe(&mut text, ("  ", "  "), packet, d.contents, 0);
                            out.write_all(text.as_bytes())?;
                            match d.mismatch {
                                None => writeln!(out, "  re-encode: byte-exact")?,
                                Some(m) => {
                                    writeln!(out, "  re-encode: DIFFERS at {}", mismatch_words(m))?
                                }
                            }
                        }
                        (None, Some(e)) => eprintln!("teeoracle: error: packet {}: {e}", i + 1),
                        (None, None) => {}
                    }
                    write_verdicts(&mut out, "  ", &e.verdict)?;
                }
                ReportFormat::Json => entries.push(serde_json::to_value(e).map_err(Failure::bad)?),
            }
            Ok(())
        })?;
    }
    if let ReportFormat::Json = format {
        #[derive(Serialize)]
        struct Doc {
            packets: Vec<serde_json::Value>,
            failed: bool,
        }
        let doc = Doc {
            packets: entries,
            failed: any_failed,
        };
        write_json_doc(&mut out, "packet_decode", &doc)?;
    }
    out.flush()?;
    if any_failed {
        return Err(Failure::Bad {
            message: "a packet did not decode or re-encode exactly".into(),
            reported: true,
        });
    }
    Ok(())
}

/// `packet encode`: the datagrams a `packet_decode` JSON describes.
fn packet_encode(path: &Path, hex: bool) -> Result<(), Failure> {
    let text = read_raw(path)?;
    let text = std::str::from_utf8(&text)
        .map_err(|e| Failure::bad(format!("{}: not UTF-8 text: {e}", shown(path))))?;
    let datagrams = teeoracle::packet::spec::encode_str(text)
        .map_err(|e| Failure::bad(format!("{}: {e}", shown(path))))?;
    let mut out = stdout();
    match (hex, &datagrams[..]) {
        (true, _) => {
            for d in &datagrams {
                writeln!(out, "{}", hex::encode(d))?;
            }
        }
        (false, [one]) => out.write_all(one)?,
        (false, _) => {
            return Err(Failure::Usage(format!(
                "{}: {} packets: give --hex for a line each",
                shown(path),
                datagrams.len()
            )));
        }
    }
    out.flush()?;
    Ok(())
}

/// A line per implementation's verdict, after `indent`.
fn write_verdicts(out: &mut impl Write, indent: &str, v: &PacketVerdicts) -> std::io::Result<()> {
    writeln!(out, "{indent}ddnet 20.1: {}", v.ddnet)?;
    if let Some(tw) = &v.teeworlds_0_7_5 {
        writeln!(out, "{indent}teeworlds 0.7.5: {tw}")?;
    }
    Ok(())
}

/// "byte N" of the datagram, or "byte N of the payload".
fn mismatch_words(m: Mismatch) -> String {
    match m.layer {
        Layer::Payload => format!("byte {} of the payload", m.offset),
        _ => format!("byte {}", m.offset),
    }
}

fn load_capture(path: &Path, port: Option<u16>) -> Result<(capture::Capture, u16), Failure> {
    let bytes = read(path)?;
    let capture =
        capture::read(&bytes).map_err(|e| Failure::bad(format!("{}: {e}", shown(path))))?;
    let port = port
        .or_else(|| session::server_port(&capture))
        .ok_or_else(|| {
            let why = capture
                .stop_note()
                .map_or_else(String::new, |n| format!("; {n}"));
            Failure::bad(format!("{}: no UDP datagrams{why}", shown(path)))
        })?;
    Ok((capture, port))
}

/// One datagram as text; `text` is a reused buffer.
fn write_datagram_text(
    out: &mut impl Write,
    text: &mut String,
    d: &Decoded<'_>,
) -> Result<(), Failure> {
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
    let p = match &d.packet {
        Ok(p) => p,
        Err(e) => {
            writeln!(out, "ERROR {e}")?;
            return write_drops(out, &d.verdict);
        }
    };
    text.clear();
    describe(
        text,
        ("", "         "),
        p,
        d.contents.as_ref(),
        d.datagram.offset,
    );
    out.write_all(text.as_bytes())?;
    if let Some(m) = d.mismatch {
        writeln!(out, "         RE-ENCODE DIFFERS at {}", mismatch_words(m))?;
    }
    write_drops(out, &d.verdict)?;
    for a in &d.anomalies {
        writeln!(out, "         ! {a}")?;
    }
    for snap in &d.snapshots {
        let crc = snap.crc.map_or(String::new(), |c| format!(", crc {c}"));
        writeln!(
            out,
            "         = snapshot tick {} (delta {}, {} part(s), {} bytes{crc})",
            snap.tick, snap.delta_tick, snap.parts, snap.size
        )?;
    }
    Ok(())
}

/// A line per implementation that drops the datagram (the JSON line has
/// every verdict; accepting is the rule, so the text shows only drops).
fn write_drops(out: &mut impl Write, v: &PacketVerdicts) -> Result<(), Failure> {
    if v.ddnet_drops() {
        writeln!(out, "         x ddnet 20.1: {}", v.ddnet)?;
    }
    if let Some(tw) = v.teeworlds_0_7_5.filter(|tw| !tw.accepted()) {
        writeln!(out, "         x teeworlds 0.7.5: {tw}")?;
    }
    Ok(())
}

pub fn pcap_dump(path: &Path, port: Option<u16>, format: StreamFormat) -> Result<(), Failure> {
    let (capture, port) = load_capture(path, port)?;
    let mut session = Session::new(&capture, port);
    let mut out = stdout();
    if let StreamFormat::Jsonl = format {
        write_stream_start(&mut out, "pcap dump", &shown(path))?;
    }
    let mut text = String::new();
    while let Some(d) = session.next_datagram() {
        match format {
            StreamFormat::Text => write_datagram_text(&mut out, &mut text, &d)?,
            StreamFormat::Jsonl => {
                write_json_line(&mut out, &session::json::DatagramLine::new(&d))?
            }
        }
    }
    let (summary, replayed) = session.finish();
    match format {
        StreamFormat::Text => {
            let totals = teeoracle::bytes::key_values(&summary, &[]);
            writeln!(out, "# {}", totals.trim_start())?;
            writeln!(
                out,
                "# replay:{}",
                teeoracle::bytes::key_values(&replayed, &[])
            )?;
            if let Some(note) = capture.stop_note() {
                writeln!(out, "# stopped: {note}")?;
            }
        }
        StreamFormat::Jsonl => {
            let end = session::json::EndLine::new(&capture, port, &summary, &replayed);
            write_json_line(&mut out, &end)?;
        }
    }
    out.flush()?;
    // A cut last record is how a killed writer leaves a capture: not a fault.
    match capture.stop_note() {
        Some(note) if !capture.truncated() => Err(Failure::bad(format!("{}: {note}", shown(path)))),
        _ => Ok(()),
    }
}

pub fn pcap_check(path: &Path, port: Option<u16>, format: ReportFormat) -> Result<(), Failure> {
    let bytes = read(path)?;
    let mut verdict = Verdict::new(shown(path));
    verdict.format = Some("capture");
    let totals = session::check::check_capture(&bytes, port, &mut verdict);
    verdict.settle();
    let mut out = stdout();
    match format {
        ReportFormat::Json => {
            #[derive(Serialize)]
            struct Report<'a> {
                #[serde(flatten)]
                verdict: &'a Verdict,
                /// The session totals (`summary` is the verdict's line).
                totals: Option<&'a session::Summary>,
                replay: Option<&'a session::ReplaySummary>,
            }
            let report = Report {
                verdict: &verdict,
                totals: totals.as_ref().map(|t| &t.0),
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
    match verdict.headline() {
        Some(f) if verdict.status == Status::Fail => {
            Err(Failure::bad(format!("{}: {}", shown(path), f.message)))
        }
        Some(f) => {
            eprintln!("teeoracle: warning: {}: {}", shown(path), f.message);
            Ok(())
        }
        None => Ok(()),
    }
}
