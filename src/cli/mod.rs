//! Command-line surface: argument parsing, exit codes and error reporting.
//! Exit codes: 0 success, 1 a bad or failing file, 2 bad usage.

mod archive;
mod check;
mod demo;
mod net;
mod output;
mod snapshot;
mod teehistorian;

use clap::{Parser, Subcommand, ValueEnum};
use std::fmt;
use std::io;
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "teeoracle",
    version,
    about = "Byte-exact reference oracle for the Teeworlds/DDNet binary formats"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Check every recognised file under the given paths (default: the
    /// bundled `corpus/`): exact round trip, clean replay, counts.
    Check {
        /// Files or directories, walked recursively in name order.
        paths: Vec<PathBuf>,
    },
    /// Teehistorian files.
    #[command(subcommand)]
    Teehistorian(TeehistorianCommand),
    /// DDNet's Huffman coder, on raw bytes (stdin/stdout by default).
    #[command(subcommand)]
    Huffman(HuffmanCommand),
    /// Single packets given as hex or in a file.
    #[command(subcommand)]
    Packet(PacketCommand),
    /// Packet captures (pcap or pcapng).
    #[command(subcommand)]
    Pcap(PcapCommand),
    /// Demo files (TWDEMO).
    #[command(subcommand)]
    Demo(DemoCommand),
    /// Raw snapshots and deltas (files of little-endian int32s).
    #[command(subcommand)]
    Snapshot(SnapshotCommand),
    /// Recording archives: a session's recordings in one TAR file, with
    /// checkpoints for seeking.
    #[command(subcommand)]
    Archive(ArchiveCommand),
}

#[derive(Subcommand, Debug)]
enum ArchiveCommand {
    /// Pack teehistorian files (in session order, or linked by
    /// prev_game_uuid) into OUT (.tar.bz2, or .tar for no compression).
    Pack {
        out: PathBuf,
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Checkpoint spacing in seconds of game time.
        #[arg(long, default_value_t = 30.0)]
        every: f64,
        /// The archive's name (default: the first recording's server name).
        #[arg(long)]
        name: Option<String>,
        /// Its author (default: the first recording's server version).
        #[arg(long)]
        author: Option<String>,
    },
    /// Top-level info, maps and members.
    Info { archive: PathBuf },
    /// Extract into DIR (empty or absent), rebuilding missing or damaged
    /// members.
    Unpack { archive: PathBuf, dir: PathBuf },
    /// World state of a map at a tick, from the nearest earlier checkpoint.
    Seek {
        archive: PathBuf,
        /// Map folder number (1 is the first map).
        #[arg(long, default_value_t = 1)]
        map: u32,
        #[arg(long)]
        tick: i32,
        #[arg(long, value_enum, default_value_t = WorldFormat::Ron)]
        format: WorldFormat,
        /// Also replay from the start and fail if the checkpoint used
        /// disagrees (as slow as a full replay).
        #[arg(long)]
        check: bool,
    },
    /// Check every member against the recordings; exit 1 if any is wrong.
    Verify { archive: PathBuf },
    /// The event log (log.txt) of every map, or of one.
    Log {
        archive: PathBuf,
        #[arg(long)]
        map: Option<u32>,
    },
}

#[derive(Subcommand, Debug)]
enum SnapshotCommand {
    /// The items of a snapshot, typed, with CRC and size.
    Dump {
        file: PathBuf,
        /// Which netobj table names the items: 0.6/DDNet or 0.7.
        #[arg(long, value_enum, default_value_t = SizesArg::V06)]
        protocol: SizesArg,
        #[arg(long, value_enum, default_value_t = NetFormat::Text)]
        format: NetFormat,
    },
    /// Deltas between snapshots, as DDNet makes and applies them.
    #[command(subcommand)]
    Delta(DeltaCommand),
}

#[derive(Subcommand, Debug)]
enum DeltaCommand {
    /// DDNet's CreateDelta(FROM, TO), written as int32s.
    Create {
        from: PathBuf,
        to: PathBuf,
        /// Pre-agreed item sizes: DDNet's 0.6 table or Teeworlds 0.7's.
        #[arg(long, value_enum, default_value_t = SizesArg::V06)]
        sizes: SizesArg,
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// A delta's removed keys and item updates.
    Dump {
        file: PathBuf,
        #[arg(long, value_enum, default_value_t = SizesArg::V06)]
        sizes: SizesArg,
        #[arg(long, value_enum, default_value_t = NetFormat::Text)]
        format: NetFormat,
    },
    /// DDNet's UnpackDelta(FROM, DELTA), written as int32s.
    Apply {
        from: PathBuf,
        delta: PathBuf,
        #[arg(long, value_enum, default_value_t = SizesArg::V06)]
        sizes: SizesArg,
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum SizesArg {
    #[value(name = "0.6")]
    V06,
    #[value(name = "0.7")]
    V07,
}

#[derive(Subcommand, Debug)]
enum DemoCommand {
    /// One line per chunk: offset, tick markers, chunk kind, size, message.
    Dump { file: PathBuf },
    /// Header, chunk counts, snapshot replay.
    Stats {
        file: PathBuf,
        #[arg(long, value_enum, default_value_t = StatsFormat::Text)]
        format: StatsFormat,
    },
    /// Decode and re-encode (every chunk recompressed); fail at the first
    /// differing byte.
    Roundtrip {
        file: PathBuf,
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// The full snapshot at a tick (the last one at or before it).
    Snapshot {
        file: PathBuf,
        #[arg(long)]
        at: i32,
        #[arg(long, value_enum, default_value_t = NetFormat::Text)]
        format: NetFormat,
    },
    /// Re-record through DDNet's demo recorder and compare chunk by chunk:
    /// exit 1 if anything differs but reordered deltas and stale timeline
    /// slots.
    Rerecord {
        file: PathBuf,
        /// Write the re-recorded demo here.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Write a synthetic demo from a spec (.ron or .json): header fields,
    /// timeline markers, snapshots and messages.
    Build {
        spec: PathBuf,
        #[arg(short, long, required = true)]
        output: PathBuf,
    },
}

#[derive(Subcommand, Debug)]
enum HuffmanCommand {
    /// Compress FILE (or stdin) to stdout.
    Compress {
        file: Option<PathBuf>,
        #[arg(long, value_enum, default_value_t = HuffmanFlavor::Ddnet)]
        flavor: HuffmanFlavor,
    },
    /// Decompress FILE (or stdin) to stdout; says which writer made it.
    Decompress { file: Option<PathBuf> },
}

#[derive(Subcommand, Debug)]
enum PacketCommand {
    /// Every field of each packet, its chunks and messages, and a
    /// byte-exact re-encode check.
    Decode {
        /// Packets as hex (spaces and colons are ignored).
        hex: Vec<String>,
        /// Read one packet's raw bytes from a file.
        #[arg(long)]
        file: Option<PathBuf>,
        #[arg(long, value_enum, default_value_t = VersionArg::Auto)]
        version: VersionArg,
        /// The packet was sent to the server.
        #[arg(long, conflicts_with = "to_client")]
        to_server: bool,
        /// The packet was sent to a client.
        #[arg(long)]
        to_client: bool,
        #[arg(long, value_enum, default_value_t = NetFormat::Text)]
        format: NetFormat,
    },
}

#[derive(Subcommand, Debug)]
enum PcapCommand {
    /// Decode every UDP datagram to or from the server port.
    Dump {
        file: PathBuf,
        /// The server's UDP port (default: the port most datagrams use).
        #[arg(long)]
        port: Option<u16>,
        #[arg(long, value_enum, default_value_t = NetFormat::Text)]
        format: NetFormat,
    },
    /// Check that every datagram decodes and re-encodes byte-exactly.
    Check {
        file: PathBuf,
        #[arg(long)]
        port: Option<u16>,
    },
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum HuffmanFlavor {
    /// DDNet >= 20.0: a last byte only if bits remain.
    Ddnet,
    /// Vanilla and DDNet <= 19.x: an extra zero byte on a byte boundary.
    Legacy,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum VersionArg {
    #[value(name = "0.6")]
    V06,
    #[value(name = "0.7")]
    V07,
    Auto,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum NetFormat {
    Text,
    Json,
    Ron,
}

#[derive(Subcommand, Debug)]
enum TeehistorianCommand {
    /// One record per message: offset, tick, kind and fields.
    Dump {
        file: PathBuf,
        #[arg(long, value_enum, default_value_t = DumpFormat::Text)]
        format: DumpFormat,
    },
    /// Counts per kind, ticks, client ids, how the file ended, header summary.
    Stats {
        file: PathBuf,
        #[arg(long, value_enum, default_value_t = StatsFormat::Text)]
        format: StatsFormat,
    },
    /// World state at a tick (default: the end of the recording).
    Replay {
        file: PathBuf,
        /// Replay up to and including this tick.
        #[arg(long)]
        at: Option<i32>,
        #[arg(long, value_enum, default_value_t = WorldFormat::Ron)]
        format: WorldFormat,
        /// Stop at the first inconsistency (exit 1) instead of warning.
        #[arg(long)]
        strict: bool,
    },
    /// Decode and re-encode; fail at the first differing byte.
    Roundtrip {
        file: PathBuf,
        /// Write the re-encoded file here.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Reject non-canonical ints instead of keeping their bytes.
        #[arg(long)]
        strict: bool,
    },
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum DumpFormat {
    Text,
    Jsonl,
    Ron,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum StatsFormat {
    Text,
    Json,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum WorldFormat {
    Ron,
    Json,
}

/// Why a command failed.
#[derive(Debug)]
pub enum Failure {
    /// Bad arguments (exit 2).
    Usage(String),
    /// A file that could not be read, or did not pass (exit 1). The message
    /// has already been printed if `reported`.
    Bad { message: String, reported: bool },
    /// Writing our own output failed.
    Output(io::Error),
}

impl Failure {
    fn bad(message: impl fmt::Display) -> Failure {
        Failure::Bad {
            message: message.to_string(),
            reported: false,
        }
    }
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Failure::Output(e)
    }
}

/// Runs the command line and returns the process exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    let result = match cli.command {
        Command::Check { paths } => check::run(paths),
        Command::Teehistorian(cmd) => match cmd {
            TeehistorianCommand::Dump { file, format } => teehistorian::dump(&file, format),
            TeehistorianCommand::Stats { file, format } => teehistorian::stats(&file, format),
            TeehistorianCommand::Replay {
                file,
                at,
                format,
                strict,
            } => teehistorian::replay(&file, at, format, strict),
            TeehistorianCommand::Roundtrip {
                file,
                output,
                strict,
            } => teehistorian::roundtrip(&file, output.as_deref(), strict),
        },
        Command::Huffman(HuffmanCommand::Compress { file, flavor }) => {
            net::huffman_compress(&file, flavor)
        }
        Command::Huffman(HuffmanCommand::Decompress { file }) => net::huffman_decompress(&file),
        Command::Packet(PacketCommand::Decode {
            hex,
            file,
            version,
            to_server,
            to_client,
            format,
        }) => {
            let direction = match (to_server, to_client) {
                (true, _) => Some(teeoracle::session::Direction::ToServer),
                (_, true) => Some(teeoracle::session::Direction::ToClient),
                _ => None,
            };
            net::packet_decode(&hex, &file, version, direction, format)
        }
        Command::Pcap(PcapCommand::Dump { file, port, format }) => {
            net::pcap_dump(&file, port, format)
        }
        Command::Pcap(PcapCommand::Check { file, port }) => net::pcap_check(&file, port),
        Command::Demo(DemoCommand::Dump { file }) => demo::dump(&file),
        Command::Demo(DemoCommand::Stats { file, format }) => demo::stats(&file, format),
        Command::Demo(DemoCommand::Roundtrip { file, output }) => {
            demo::roundtrip(&file, output.as_deref())
        }
        Command::Demo(DemoCommand::Snapshot { file, at, format }) => {
            snapshot::demo_at(&file, at, format)
        }
        Command::Demo(DemoCommand::Rerecord { file, output }) => {
            demo::rerecord(&file, output.as_deref())
        }
        Command::Demo(DemoCommand::Build { spec, output }) => demo::build(&spec, &output),
        Command::Snapshot(SnapshotCommand::Dump {
            file,
            protocol,
            format,
        }) => snapshot::dump(&file, protocol, format),
        Command::Snapshot(SnapshotCommand::Delta(DeltaCommand::Dump {
            file,
            sizes,
            format,
        })) => snapshot::delta_dump(&file, sizes, format),
        Command::Snapshot(SnapshotCommand::Delta(DeltaCommand::Create {
            from,
            to,
            sizes,
            output,
        })) => snapshot::delta_create(&from, &to, sizes, output.as_deref()),
        Command::Snapshot(SnapshotCommand::Delta(DeltaCommand::Apply {
            from,
            delta,
            sizes,
            output,
        })) => snapshot::delta_apply(&from, &delta, sizes, output.as_deref()),
        Command::Archive(cmd) => archive::run(cmd),
    };
    match result {
        Ok(()) => 0,
        Err(Failure::Usage(msg)) => {
            eprintln!("teeoracle: usage error: {msg}");
            2
        }
        Err(Failure::Bad { message, reported }) => {
            if !reported {
                eprintln!("teeoracle: error: {message}");
            }
            1
        }
        // A closed pipe (`| head`) is the reader's choice, not a failure.
        Err(Failure::Output(e)) if e.kind() == io::ErrorKind::BrokenPipe => 0,
        Err(Failure::Output(e)) => {
            eprintln!("teeoracle: error writing output: {e}");
            1
        }
    }
}
