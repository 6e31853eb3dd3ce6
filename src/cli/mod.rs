//! Command-line surface: argument parsing, exit codes and error reporting.
//! Exit codes: 0 success, 1 a bad or failing file, 2 bad usage.

mod check;
mod output;
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
