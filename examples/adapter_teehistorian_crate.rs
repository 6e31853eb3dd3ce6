//! `teeoracle conform` adapter for the `teehistorian` crate (Zwelf, 0.12; a
//! dev-dependency, LGPL-3.0, never shipped):
//!
//! ```text
//! cargo build --release --example adapter_teehistorian_crate
//! teeoracle conform run --decoder target/release/examples/adapter_teehistorian_crate --unit teehistorian
//! ```
//!
//! `Th::parse` and `header()` (an error there is a rejection), then
//! `next_chunk()` until its `Eos` chunk (it would read on past it), `Err(Eof)`
//! (a cut stream: the bytes it leaves unread are the cut record) or another
//! error (a rejection: the stream is damaged). Each chunk is mapped to
//! teeoracle's record; what the crate does not give is left out: record
//! offsets and ticks (it has no tick counter), the parsed header (its raw
//! JSON's length is `json_len`), message records' decoded form.

#[path = "adapters/contract.rs"]
mod contract;

use std::process::ExitCode;

use contract::Unit;
use serde_json::{Value, json};
use teehistorian::{Chunk, Error, Th};

const FIELDS: &[&str] = &[
    "header.json_len",
    "records[].kind",
    "records[].cid",
    "records[].cid1",
    "records[].cid2",
    "records[].x",
    "records[].y",
    "records[].dx",
    "records[].dy",
    "records[].dt",
    "records[].input",
    "records[].dinput",
    "records[].data",
    "records[].reason",
    "records[].flags",
    "records[].cmd",
    "records[].args",
    "records[].name",
    "records[].level",
    "records[].auth_name",
    "records[].connection_id",
    "records[].version",
    "records[].version_str",
    "records[].team",
    "records[].time",
    "records[].practice",
    "records[].save_id",
    "records[].save",
    "records[].uuid",
    "end.records",
    "end.end",
];

/// Bytes as teeoracle shows text: a string when UTF-8, else `{"hex": ...}`.
fn text(bytes: &[u8]) -> Value {
    match std::str::from_utf8(bytes) {
        Ok(s) => json!(s),
        Err(_) => json!({"hex": hex::encode(bytes)}),
    }
}

/// One chunk as a teeoracle record (`kind` and fields).
fn record(chunk: &Chunk<'_>) -> Value {
    match chunk {
        Chunk::PlayerDiff(p) => {
            json!({"kind": "player_diff", "cid": p.cid, "dx": p.dx, "dy": p.dy})
        }
        Chunk::Eos => json!({"kind": "finish"}),
        Chunk::TickSkip { dt } => json!({"kind": "tick_skip", "dt": dt}),
        Chunk::PlayerNew(p) => json!({"kind": "player_new", "cid": p.cid, "x": p.x, "y": p.y}),
        Chunk::PlayerOld { cid } => json!({"kind": "player_old", "cid": cid}),
        Chunk::InputDiff(p) => json!({"kind": "input_diff", "cid": p.cid, "dinput": p.dinput}),
        Chunk::InputNew(p) => json!({"kind": "input_new", "cid": p.cid, "input": p.input}),
        Chunk::NetMessage(m) => {
            json!({"kind": "message", "cid": m.cid, "data": hex::encode(m.msg)})
        }
        Chunk::Join { cid } => json!({"kind": "join", "cid": cid}),
        Chunk::Drop(d) => json!({"kind": "drop", "cid": d.cid, "reason": text(d.reason)}),
        Chunk::ConsoleCommand(c) => json!({
            "kind": "console_command", "cid": c.cid, "flags": c.flags, "cmd": text(c.cmd),
            "args": c.args.iter().map(|a| text(a)).collect::<Vec<_>>(),
        }),
        Chunk::UnknownEx(u) => {
            json!({"kind": "unknown_ex", "uuid": u.uuid.to_string(), "data": hex::encode(u.data)})
        }
        Chunk::Test => json!({"kind": "test"}),
        Chunk::DdnetVersionOld(v) => {
            json!({"kind": "ddnetver_old", "cid": v.cid, "version": v.version})
        }
        Chunk::DdnetVersion(v) => json!({
            "kind": "ddnetver", "cid": v.cid, "connection_id": v.connection_id.to_string(),
            "version": v.version, "version_str": text(v.version_str),
        }),
        Chunk::AuthInit(a) => json!({
            "kind": "auth_init", "cid": a.cid, "level": a.level, "auth_name": text(a.auth_name),
        }),
        Chunk::AuthLogin(a) => json!({
            "kind": "auth_login", "cid": a.cid, "level": a.level, "auth_name": text(a.auth_name),
        }),
        Chunk::AuthLogout { cid } => json!({"kind": "auth_logout", "cid": cid}),
        Chunk::JoinVer6 { cid } => json!({"kind": "joinver6", "cid": cid}),
        Chunk::JoinVer7 { cid } => json!({"kind": "joinver7", "cid": cid}),
        Chunk::RejoinVer6 { cid } => json!({"kind": "rejoinver6", "cid": cid}),
        Chunk::TeamSaveSuccess(s) => json!({
            "kind": "save_success", "team": s.team, "save_id": s.save_id.to_string(),
            "save": text(s.save),
        }),
        Chunk::TeamSaveFailure { team } => json!({"kind": "save_failure", "team": team}),
        Chunk::TeamLoadSuccess(s) => json!({
            "kind": "load_success", "team": s.team, "save_id": s.save_id.to_string(),
            "save": text(s.save),
        }),
        Chunk::TeamLoadFailure { team } => json!({"kind": "load_failure", "team": team}),
        Chunk::PlayerTeam { cid, team } => json!({"kind": "player_team", "cid": cid, "team": team}),
        Chunk::TeamPractice { team, practice } => {
            json!({"kind": "team_practice", "team": team, "practice": practice})
        }
        Chunk::PlayerReady { cid } => json!({"kind": "player_ready", "cid": cid}),
        Chunk::PlayerSwap { cid1, cid2 } => {
            json!({"kind": "player_swap", "cid1": cid1, "cid2": cid2})
        }
        Chunk::Antibot(a) => json!({"kind": "antibot", "data": hex::encode(a.data)}),
        Chunk::PlayerName(p) => json!({"kind": "player_name", "cid": p.cid, "name": text(p.name)}),
        Chunk::PlayerFinish { cid, time } => {
            json!({"kind": "player_finish", "cid": cid, "time": time})
        }
        Chunk::TeamFinish { team, time } => {
            json!({"kind": "team_finish", "team": team, "time": time})
        }
    }
}

fn decode(bytes: &[u8]) -> Result<Value, String> {
    let mut th = Th::parse(bytes).map_err(|e| format!("magic: {e}"))?;
    let json_len = th.header().map_err(|e| format!("header: {e}"))?.len();
    let mut records = Vec::new();
    let error = loop {
        match th.next_chunk() {
            Ok(chunk) => {
                let finish = matches!(chunk, Chunk::Eos);
                records.push(record(&chunk));
                if finish {
                    break None;
                }
            }
            Err(e) => break Some(e),
        }
    };
    // The unread rest starts at the Eos chunk (not consumed until the next
    // call) or at the record that did not read.
    let offset = bytes.len() - th.reuse_buffer().len();
    let end = match error {
        None => json!({"end": "finished", "offset": offset}),
        Some(Error::Eof) => {
            json!({"end": "truncated", "offset": offset, "partial": bytes.len() - offset})
        }
        // A record that does not read: the file is not one DDNet writes.
        Some(e) => return Err(format!("after {} records: {e}", records.len())),
    };
    Ok(json!({
        "header": {"kind": "header", "json_len": json_len},
        "records": records,
        "end": {"kind": "end", "records": records.len(), "end": end},
    }))
}

fn main() -> ExitCode {
    contract::run(
        "teehistorian (crate)",
        "0.12.0",
        &[Unit {
            name: "teehistorian",
            decode: Some(decode),
            encode: None,
            fields: Some(FIELDS),
        }],
    )
}
