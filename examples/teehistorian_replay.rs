//! Streams a teehistorian file through the replay and prints, for every
//! join, leave and finish, the tick and what happened; then the world at
//! the end.
//!
//! ```text
//! cargo run --example teehistorian_replay [FILE]
//! ```
//!
//! FILE defaults to `corpus/teehistorian/ddnet-20.1/A_join_move_leave.teehistorian`.

use std::fs::File;
use std::io::{self, BufReader, Write};
use std::ops::ControlFlow;
use std::path::Path;
use teeoracle::codec::Mode;
use teeoracle::teehistorian::{Ex, Message, ReadError, Replay, ReplayConfig, StreamReader};

/// Replays `path`, writing one line per join, leave and finish, then the
/// players at the end.
pub fn run(path: &Path, out: &mut impl Write) -> Result<(), ReadError> {
    // Any `io::Read` will do; the reader keeps a bounded window, so the
    // file's size does not matter.
    let file = BufReader::new(File::open(path)?);
    let (header, mut reader) = StreamReader::new(file, Mode::Lenient)?;
    writeln!(
        out,
        "{}: map {}, recorded {}",
        path.display(),
        header.info.map_name.as_deref().unwrap_or("?"),
        header.info.start_time.as_deref().unwrap_or("?")
    )?;
    let mut replay = Replay::new(ReplayConfig::default());
    let mut written = Ok(());
    let flow = reader.for_each_record(|rec| {
        // The replay as it was before this record: who a cid was.
        let name = |cid: i32| {
            replay
                .player(cid)
                .and_then(|p| p.name.as_ref())
                .map_or(format!("cid {cid}"), |n| format!("{n} (cid {cid})"))
        };
        let event = match &rec.msg {
            Message::Join { cid } => Some(format!("cid {cid} joined")),
            Message::Drop { cid, reason } => Some(format!("{} left: {reason}", name(*cid))),
            Message::Ex(m) => match m.ex {
                Ex::PlayerName { cid, ref name } => Some(format!("cid {cid} is named {name}")),
                Ex::PlayerFinish { cid, time } => {
                    Some(format!("{} finished in {time} ticks", name(cid)))
                }
                _ => None,
            },
            Message::Finish => Some("the recording ends".to_string()),
            _ => None,
        };
        if let Some(event) = event {
            written = writeln!(out, "tick {:>6}: {event}", rec.tick);
        }
        // A DDNet writer never records an inconsistent stream; say so if
        // this one is.
        if let Err(inconsistency) = replay.handle(rec.offset, &rec.msg) {
            written = writeln!(out, "inconsistent: {inconsistency}");
        }
        match written {
            Ok(()) => ControlFlow::Continue(()),
            Err(_) => ControlFlow::Break(()),
        }
    })?;
    if flow.is_break() {
        return written.map_err(ReadError::Io);
    }
    let world = replay.world();
    writeln!(out, "at the end (tick {}):", world.tick)?;
    for p in &world.players {
        let name = p.name.as_ref().map_or("-".to_string(), |n| n.to_string());
        let state = match (p.connected, p.alive) {
            (false, _) => "gone",
            (true, true) => "playing",
            (true, false) => "dead or spectating",
        };
        writeln!(
            out,
            "  cid {:>3} {name:<16} {state:<18} last at ({}, {})",
            p.cid, p.x, p.y
        )?;
    }
    Ok(())
}

fn main() {
    let path = std::env::args_os()
        .nth(1)
        .unwrap_or_else(|| "corpus/teehistorian/ddnet-20.1/A_join_move_leave.teehistorian".into());
    let stdout = io::stdout();
    if let Err(e) = run(Path::new(&path), &mut stdout.lock()) {
        eprintln!("{}: {e}", Path::new(&path).display());
        std::process::exit(1);
    }
}
