//! Command-line surface: argument parsing, exit codes and error reporting.
//! Exit codes: 0 success, 1 a bad or failing file, 2 bad usage.
//!
//! Each command group defines its own arguments next to its code; this
//! file only assembles them.

mod archive;
mod check;
mod compare;
mod conform;
mod demo;
mod diff;
mod export;
mod generate;
mod map;
mod maps;
mod net;
mod output;
mod plot;
mod record;
mod reports;
mod snapshot;
mod teehistorian;

use clap::{Parser, Subcommand};
use std::fmt;
use std::io;

#[derive(Parser, Debug)]
#[command(
    name = "teeoracle",
    version,
    about = "Byte-exact reference oracle for the Teeworlds/DDNet binary formats",
    after_help = "Every FILE argument may be `-` for standard input; gzip, bzip2, xz and \
                  zstd files are read through their compression.\n\
                  Exit codes: 0 success, 1 a bad file or a failed check, 2 bad usage."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// `defer` (here and on every group): a command's arguments are built only
// when it runs. Building the whole tree cost every start 0.6M
// instructions, 5% of a short `demo stats`.
#[derive(Subcommand, Debug)]
#[command(defer = true)]
enum Command {
    /// Check every recognised file under the given paths: exact round
    /// trip, clean replay, counts.
    Check(check::CheckArgs),
    /// Teehistorian files (DDNet's server input recordings).
    #[command(subcommand)]
    Teehistorian(teehistorian::TeehistorianCommand),
    /// DDNet's Huffman coder, on raw bytes.
    #[command(subcommand)]
    Huffman(net::HuffmanCommand),
    /// Single packets given as hex or in a file.
    #[command(subcommand)]
    Packet(net::PacketCommand),
    /// Packet captures (pcap or pcapng).
    #[command(subcommand)]
    Pcap(net::PcapCommand),
    /// Demo files (TWDEMO).
    #[command(subcommand)]
    Demo(demo::DemoCommand),
    /// Map files (`.map`), or the map a demo embeds: summary, items,
    /// check.
    #[command(subcommand)]
    Map(map::MapCommand),
    /// Raw snapshots and deltas (files of little-endian int32s).
    #[command(subcommand)]
    Snapshot(snapshot::SnapshotCommand),
    /// Recording archives: a session's recordings in one TAR file, with
    /// checkpoints for seeking.
    #[command(subcommand)]
    Archive(archive::ArchiveCommand),
    /// Conformance: check another implementation's adapter against the
    /// suite, export the suite, print expected JSON.
    #[command(subcommand)]
    Conform(conform::ConformCommand),
    /// Seeded conformance cases of a unit: files, expected JSON, manifest.
    Gen(generate::GenArgs),
    /// Malformed variants of a real file, each judged by teeoracle.
    Mutate(generate::MutateArgs),
    /// Compare two recordings (teehistorian, demo, capture) or two maps
    /// by meaning: header fields, then per tick the events (a map's items,
    /// then its tiles row by row); exit 0 same, 1 different, 2 error.
    Diff(diff::DiffArgs),
    /// Write recordings as Apache Parquet tables (teehistorian records and
    /// player states, demo events and characters, datagrams with DDNet's
    /// verdicts, check reports) into a folder; exit 1 if a file fails.
    Export(export::ExportArgs),
    /// Run a real server (DDNet) through a scenario of bots, on loopback in
    /// a network namespace; keep its recordings, the bots' traffic
    /// (pcapng) and log in a folder, and check them.
    Record(record::RecordArgs),
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
    /// An input that could not be read where exit 1 means something else
    /// (`diff`: different), so it is exit 2.
    Unreadable(String),
}

impl Failure {
    fn bad(message: impl fmt::Display) -> Failure {
        Failure::Bad {
            message: message.to_string(),
            reported: false,
        }
    }

    /// A failure whose lines were already printed.
    fn reported(message: impl fmt::Display) -> Failure {
        Failure::Bad {
            message: message.to_string(),
            reported: true,
        }
    }
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Failure::Output(e)
    }
}

/// Runs the command line and returns the process exit code.
/// A number of bytes on the command line: `123`, `64K`, `512M`, `4G`.
pub(crate) fn parse_bytes(s: &str) -> Result<u64, String> {
    let (digits, shift) = match s.char_indices().last() {
        Some((i, 'K' | 'k')) => (&s[..i], 10),
        Some((i, 'M' | 'm')) => (&s[..i], 20),
        Some((i, 'G' | 'g')) => (&s[..i], 30),
        _ => (s, 0),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("expected a number of bytes (with K, M or G), found {s:?}"))?;
    n.checked_mul(1 << shift)
        .ok_or_else(|| format!("{s} is too large"))
}

/// How to run this same command again (`record` runs itself inside a
/// network namespace): the program and the arguments before the
/// command's own. Unset: this process's executable.
static AGAIN: std::sync::OnceLock<Vec<std::ffi::OsString>> = std::sync::OnceLock::new();

/// The program and arguments that run this command again ([`AGAIN`]).
pub(crate) fn again() -> io::Result<Vec<std::ffi::OsString>> {
    match AGAIN.get() {
        Some(again) => Ok(again.clone()),
        None => Ok(vec![std::env::current_exe()?.into_os_string()]),
    }
}

/// The `teeoracle` binary: its command line; the exit code.
pub fn main() -> i32 {
    run_from(std::env::args_os().collect(), None)
}

/// The command line `args` (the program's name first) run as the binary
/// runs it, for another entry point (the Python package's `teeoracle`
/// command): `again` is how that entry point runs the same command again
/// ([`AGAIN`]). The exit code.
pub fn run_from(args: Vec<std::ffi::OsString>, again: Option<Vec<std::ffi::OsString>>) -> i32 {
    if let Some(again) = again {
        let _ = AGAIN.set(again);
    }
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    let result = match cli.command {
        Command::Check(args) => check::run(args),
        Command::Teehistorian(cmd) => teehistorian::run(cmd),
        Command::Huffman(cmd) => net::huffman(cmd),
        Command::Packet(cmd) => net::packet(cmd),
        Command::Pcap(cmd) => net::pcap(cmd),
        Command::Demo(cmd) => demo::run(cmd),
        Command::Map(cmd) => map::run(cmd),
        Command::Snapshot(cmd) => snapshot::run(cmd),
        Command::Archive(cmd) => archive::run(cmd),
        Command::Conform(cmd) => conform::run(cmd),
        Command::Gen(args) => generate::gen_cmd(args),
        Command::Mutate(args) => generate::mutate_cmd(args),
        Command::Diff(args) => diff::run(args),
        Command::Export(args) => export::run(args),
        Command::Record(args) => record::run(args),
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
        Err(Failure::Unreadable(msg)) => {
            eprintln!("teeoracle: error: {msg}");
            2
        }
        // A closed pipe (`| head`) is the reader's choice, not a failure.
        Err(Failure::Output(e)) if e.kind() == io::ErrorKind::BrokenPipe => 0,
        Err(Failure::Output(e)) => {
            eprintln!("teeoracle: error writing output: {e}");
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::{CommandFactory, Parser};

    /// Deferred commands are checked only when built: build them all.
    #[test]
    fn every_command_is_well_formed() {
        Cli::command().debug_assert();
    }

    /// Every command's `--help`, as the binary prints it (a deferred
    /// command's arguments can bring metadata that overrides its own).
    #[test]
    fn every_command_help() {
        let mut tree = Cli::command();
        tree.build();
        let mut text = String::new();
        help_of(&tree, &mut vec!["teeoracle".into()], &mut text);
        insta::with_settings!({
            snapshot_path => "../../snapshots/cli",
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_snapshot!("help", text);
        });
    }

    fn help_of(cmd: &clap::Command, args: &mut Vec<String>, text: &mut String) {
        args.push("--help".into());
        let help = Cli::try_parse_from(args.iter()).expect_err("--help stops");
        args.pop();
        text.push_str(&format!("$ {} --help\n{}\n", args.join(" "), help.render()));
        for sub in cmd.get_subcommands().filter(|c| c.get_name() != "help") {
            args.push(sub.get_name().into());
            help_of(sub, args, text);
            args.pop();
        }
    }
}
