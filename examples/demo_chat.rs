//! A demo's chat, and who is playing: a first program with teeoracle.
//!
//! ```text
//! cargo run --example demo_chat -- corpus/demo/synthetic/chat.demo
//! ```
//!
//! The demo is played back with [`Events`]: each message chunk and the
//! full snapshot after each keyframe or delta, in file order. Players are
//! the snapshot's client info items (`ClientInfo` in 0.6 demos, the demo's
//! own `De_ClientInfo` in 0.7 ones), named through `snapshot::items`;
//! chat is the `Sv_Chat` game message, read into named fields by
//! [`Message::read_padded`] (0.6: team, client_id, message; 0.7: mode,
//! client_id, target_id, message; client -1 is the server).

use std::collections::BTreeMap;
use std::error::Error;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use teeoracle::demo::{EventKind, Events, payload_bytes};
use teeoracle::packet::{Message, Version};
use teeoracle::snapshot::Snapshot;
use teeoracle::snapshot::items::{self, Value};

/// Prints every chat line, and the players whenever they change, each
/// with its tick.
pub fn run(path: &Path, out: &mut impl Write) -> Result<(), Box<dyn Error>> {
    let bytes = std::fs::read(path)?;
    let mut events = Events::new(&bytes)?;
    let sixup = events.header().is_07();
    let version = match sixup {
        true => Version::V07,
        false => Version::V06,
    };
    let mut players = BTreeMap::new();
    while let Some(event) = events.next()? {
        let tick = event.tick;
        match event.kind {
            EventKind::Snapshot(snap) => {
                let now = player_names(snap, version);
                if now != players {
                    let names: Vec<&str> = now.values().map(String::as_str).collect();
                    writeln!(out, "{tick:>6} players: {}", names.join(", "))?;
                    players = now;
                }
            }
            EventKind::Message(ints) => {
                let data = payload_bytes(ints);
                let Ok((m, _padding)) = Message::read_padded(&data, 0, version) else {
                    continue;
                };
                let (false, Some("Sv_Chat"), Some(Ok(fields))) =
                    (m.header.sys, m.name(), &m.fields)
                else {
                    continue;
                };
                let (Some(client), Some(text)) = (fields.int("client_id"), fields.text("message"))
                else {
                    continue;
                };
                let text = String::from_utf8_lossy(text);
                let who = match client {
                    -1 => "***".to_string(),
                    c => players
                        .get(&c)
                        .cloned()
                        .unwrap_or_else(|| format!("client {c}")),
                };
                writeln!(out, "{tick:>6} {who}: {text}")?;
            }
            _ => {}
        }
    }
    Ok(())
}

/// Client id to name, from the snapshot's client info items.
fn player_names(snap: &Snapshot, version: Version) -> BTreeMap<i32, String> {
    snap.items()
        .filter_map(|item| {
            let view = items::view(snap, &item, version);
            if !view.type_name.ends_with("ClientInfo") {
                return None;
            }
            match view.fields.iter().find(|f| f.name == "name")?.value {
                Value::Text(ref name) => Some((item.id(), name.clone())),
                _ => None,
            }
        })
        .collect()
}

fn main() -> ExitCode {
    let path = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("corpus/demo/synthetic/chat.demo"));
    let stdout = std::io::stdout();
    match run(&path, &mut stdout.lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("demo_chat: {}: {e}", path.display());
            ExitCode::FAILURE
        }
    }
}
