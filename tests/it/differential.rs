//! Differential test: teeoracle's teehistorian reader against the
//! independent `teehistorian` crate (0.12, Zwelf; a dev-dependency only).
//!
//! Every `*.teehistorian` file under `corpus/teehistorian/`, except the
//! `malformed/` folder, is read by both. Both sides are mapped into [`Msg`]
//! and must agree on the header JSON bytes, on every message (count, kind,
//! every field; strings and payloads compared as bytes) and on how the stream
//! stops (FINISH at the same offset, or cut with the same number of bytes
//! left). The crate does not stop at its `Eos` chunk by itself, so the
//! reading stops there; its `Err(Eof)` is the end of a cut stream.
//!
//! Known disagreements: the crate is stricter than DDNet in two places, so
//! it rejects two valid files that teeoracle (like DDNet) reads. They are
//! listed in `KNOWN`; for those files the crate must fail with exactly that
//! error at exactly that record, and the records before it must agree. A
//! file outside the table that disagrees fails the test, and so does a file
//! in the table that stops disagreeing, so the table stays honest.
//!
//! - `edge/overlong_varint`: a PLAYER_DIFF with over-long varints (`80 00`,
//!   `c0 00`). DDNet's `CVariableInt::Unpack` accepts them and teeoracle's
//!   lenient mode reads them (keeping the raw bytes); the crate rejects
//!   them with `OverlongIntEncoding`.
//! - `edge/ex_trailing_bytes`: a player-ready EX record with 3 bytes after
//!   its field. DDNet's readers skip EX payloads by their size and teeoracle
//!   keeps the bytes in `ExMessage::trailing`; the crate rejects them with
//!   `TrailingBytes`.
//!
//! Places where the readers could differ but do not on this corpus, checked
//! like any other file:
//! - Version 1 (`edge/version_1`): the crate ignores the header version
//!   (it has no rule that version 1 has no EX records), but the file holds
//!   no EX record, so both read it the same. `malformed/ex_in_version_1`,
//!   where the rule matters, is out of scope with the rest of `malformed/`.
//! - `teehistorian-test@ddnet.tw`: the crate reports it as `Chunk::Test`
//!   and requires an empty payload; teeoracle reports `Ex::Test {}` and keeps
//!   extra bytes as trailing. Both map to `Ext::Test` here, and the corpus
//!   only has it with an empty payload (`edge/every_extension`).
//! - Truncation: the crate says `Eof` both after a whole record and inside
//!   one; the bytes it leaves unread tell the two apart, and must equal
//!   teeoracle's `End::Truncated::partial`.

use crate::common;

use std::fs;
use std::path::PathBuf;

use teehistorian::{Chunk, Error as ThError, ErrorKind as ThErrorKind, Th};
use teeoracle::codec::Mode;
use teeoracle::teehistorian::{End, Ex, Message, SliceReader};
use uuid::Uuid;

/// A file the crate rejects although teeoracle (and DDNet) read it.
struct Known {
    /// Path under `corpus/teehistorian/`.
    file: &'static str,
    /// Number of records both read before the crate's error; the crate fails
    /// at the record with this index (at its offset).
    agreed: usize,
    /// The crate's error there.
    error: ThErrorKind,
}

/// The expected disagreements (reasons at the top of the file).
const KNOWN: &[Known] = &[
    // 3 bytes after player-ready's cid: DDNet skips them, the crate rejects.
    Known {
        file: "edge/ex_trailing_bytes.teehistorian",
        agreed: 0,
        error: ThErrorKind::TrailingBytes("EX_PLAYER_READY", 3),
    },
    // PLAYER_DIFF dx = `80 00`, dy = `c0 00`: DDNet reads 0 and -1.
    Known {
        file: "edge/overlong_varint.teehistorian",
        agreed: 1,
        error: ThErrorKind::OverlongIntEncoding,
    },
];

/// One message, owned, in a form both readers map into.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Msg {
    PlayerDiff {
        cid: i32,
        dx: i32,
        dy: i32,
    },
    Finish,
    TickSkip {
        dt: i32,
    },
    PlayerNew {
        cid: i32,
        x: i32,
        y: i32,
    },
    PlayerOld {
        cid: i32,
    },
    InputDiff {
        cid: i32,
        dinput: [i32; 10],
    },
    InputNew {
        cid: i32,
        input: [i32; 10],
    },
    NetMessage {
        cid: i32,
        data: Vec<u8>,
    },
    Join {
        cid: i32,
    },
    Drop {
        cid: i32,
        reason: Vec<u8>,
    },
    ConsoleCommand {
        cid: i32,
        flags: i32,
        cmd: Vec<u8>,
        args: Vec<Vec<u8>>,
    },
    /// An EX record. The crate has no trailing bytes (it rejects them).
    Ex {
        ex: Ext,
        trailing: Vec<u8>,
    },
}

/// The payload of an EX record.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Ext {
    Test,
    DdnetverOld {
        cid: i32,
        version: i32,
    },
    Ddnetver {
        cid: i32,
        connection_id: Uuid,
        version: i32,
        version_str: Vec<u8>,
    },
    AuthInit {
        cid: i32,
        level: i32,
        auth_name: Vec<u8>,
    },
    AuthLogin {
        cid: i32,
        level: i32,
        auth_name: Vec<u8>,
    },
    AuthLogout {
        cid: i32,
    },
    Joinver6 {
        cid: i32,
    },
    Joinver7 {
        cid: i32,
    },
    PlayerSwap {
        cid1: i32,
        cid2: i32,
    },
    SaveSuccess {
        team: i32,
        save_id: Uuid,
        save: Vec<u8>,
    },
    SaveFailure {
        team: i32,
    },
    LoadSuccess {
        team: i32,
        save_id: Uuid,
        save: Vec<u8>,
    },
    LoadFailure {
        team: i32,
    },
    PlayerTeam {
        cid: i32,
        team: i32,
    },
    TeamPractice {
        team: i32,
        practice: i32,
    },
    PlayerReady {
        cid: i32,
    },
    Rejoinver6 {
        cid: i32,
    },
    Antibot {
        data: Vec<u8>,
    },
    PlayerName {
        cid: i32,
        name: Vec<u8>,
    },
    PlayerFinish {
        cid: i32,
        time: i32,
    },
    TeamFinish {
        team: i32,
        time: i32,
    },
    Unknown {
        uuid: Uuid,
        data: Vec<u8>,
    },
}

impl Msg {
    fn from_oracle(msg: &Message<'_>) -> Msg {
        match msg {
            &Message::PlayerDiff { cid, dx, dy } => Msg::PlayerDiff { cid, dx, dy },
            Message::Finish => Msg::Finish,
            &Message::TickSkip { dt } => Msg::TickSkip { dt },
            &Message::PlayerNew { cid, x, y } => Msg::PlayerNew { cid, x, y },
            &Message::PlayerOld { cid } => Msg::PlayerOld { cid },
            &Message::InputDiff { cid, dinput } => Msg::InputDiff { cid, dinput },
            &Message::InputNew { cid, input } => Msg::InputNew { cid, input },
            Message::NetMessage { cid, data } => Msg::NetMessage {
                cid: *cid,
                data: data.to_vec(),
            },
            &Message::Join { cid } => Msg::Join { cid },
            Message::Drop { cid, reason } => Msg::Drop {
                cid: *cid,
                reason: reason.to_vec(),
            },
            Message::ConsoleCommand(c) => Msg::ConsoleCommand {
                cid: c.cid,
                flags: c.flags,
                cmd: c.cmd.to_vec(),
                args: c.args.iter().map(|a| a.to_vec()).collect(),
            },
            Message::Ex(m) => Msg::Ex {
                ex: Ext::from_oracle(&m.ex),
                trailing: m.trailing.to_vec(),
            },
        }
    }

    fn from_crate(chunk: &Chunk<'_>) -> Msg {
        let ex = |ex| Msg::Ex {
            ex,
            trailing: Vec::new(),
        };
        match chunk {
            Chunk::PlayerDiff(p) => Msg::PlayerDiff {
                cid: p.cid,
                dx: p.dx,
                dy: p.dy,
            },
            Chunk::Eos => Msg::Finish,
            &Chunk::TickSkip { dt } => Msg::TickSkip { dt },
            Chunk::PlayerNew(p) => Msg::PlayerNew {
                cid: p.cid,
                x: p.x,
                y: p.y,
            },
            &Chunk::PlayerOld { cid } => Msg::PlayerOld { cid },
            Chunk::InputDiff(p) => Msg::InputDiff {
                cid: p.cid,
                dinput: p.dinput,
            },
            Chunk::InputNew(p) => Msg::InputNew {
                cid: p.cid,
                input: p.input,
            },
            Chunk::NetMessage(m) => Msg::NetMessage {
                cid: m.cid,
                data: m.msg.to_vec(),
            },
            &Chunk::Join { cid } => Msg::Join { cid },
            Chunk::Drop(d) => Msg::Drop {
                cid: d.cid,
                reason: d.reason.to_vec(),
            },
            Chunk::ConsoleCommand(c) => Msg::ConsoleCommand {
                cid: c.cid,
                flags: c.flags,
                cmd: c.cmd.to_vec(),
                args: c.args.iter().map(|a| a.to_vec()).collect(),
            },
            Chunk::UnknownEx(u) => ex(Ext::Unknown {
                uuid: u.uuid,
                data: u.data.to_vec(),
            }),
            Chunk::Test => ex(Ext::Test),
            Chunk::DdnetVersionOld(v) => ex(Ext::DdnetverOld {
                cid: v.cid,
                version: v.version,
            }),
            Chunk::DdnetVersion(v) => ex(Ext::Ddnetver {
                cid: v.cid,
                connection_id: v.connection_id,
                version: v.version,
                version_str: v.version_str.to_vec(),
            }),
            Chunk::AuthInit(a) => ex(Ext::AuthInit {
                cid: a.cid,
                level: a.level,
                auth_name: a.auth_name.to_vec(),
            }),
            Chunk::AuthLogin(a) => ex(Ext::AuthLogin {
                cid: a.cid,
                level: a.level,
                auth_name: a.auth_name.to_vec(),
            }),
            &Chunk::AuthLogout { cid } => ex(Ext::AuthLogout { cid }),
            &Chunk::JoinVer6 { cid } => ex(Ext::Joinver6 { cid }),
            &Chunk::JoinVer7 { cid } => ex(Ext::Joinver7 { cid }),
            &Chunk::RejoinVer6 { cid } => ex(Ext::Rejoinver6 { cid }),
            Chunk::TeamSaveSuccess(s) => ex(Ext::SaveSuccess {
                team: s.team,
                save_id: s.save_id,
                save: s.save.to_vec(),
            }),
            &Chunk::TeamSaveFailure { team } => ex(Ext::SaveFailure { team }),
            Chunk::TeamLoadSuccess(s) => ex(Ext::LoadSuccess {
                team: s.team,
                save_id: s.save_id,
                save: s.save.to_vec(),
            }),
            &Chunk::TeamLoadFailure { team } => ex(Ext::LoadFailure { team }),
            &Chunk::PlayerTeam { cid, team } => ex(Ext::PlayerTeam { cid, team }),
            &Chunk::TeamPractice { team, practice } => ex(Ext::TeamPractice { team, practice }),
            &Chunk::PlayerReady { cid } => ex(Ext::PlayerReady { cid }),
            &Chunk::PlayerSwap { cid1, cid2 } => ex(Ext::PlayerSwap { cid1, cid2 }),
            Chunk::Antibot(a) => ex(Ext::Antibot {
                data: a.data.to_vec(),
            }),
            Chunk::PlayerName(p) => ex(Ext::PlayerName {
                cid: p.cid,
                name: p.name.to_vec(),
            }),
            &Chunk::PlayerFinish { cid, time } => ex(Ext::PlayerFinish { cid, time }),
            &Chunk::TeamFinish { team, time } => ex(Ext::TeamFinish { team, time }),
        }
    }
}

impl Ext {
    fn from_oracle(ex: &Ex<'_>) -> Ext {
        match ex {
            Ex::Test {} => Ext::Test,
            &Ex::DdnetverOld { cid, version } => Ext::DdnetverOld { cid, version },
            Ex::Ddnetver {
                cid,
                connection_id,
                version,
                version_str,
            } => Ext::Ddnetver {
                cid: *cid,
                connection_id: *connection_id,
                version: *version,
                version_str: version_str.to_vec(),
            },
            Ex::AuthInit {
                cid,
                level,
                auth_name,
            } => Ext::AuthInit {
                cid: *cid,
                level: *level,
                auth_name: auth_name.to_vec(),
            },
            Ex::AuthLogin {
                cid,
                level,
                auth_name,
            } => Ext::AuthLogin {
                cid: *cid,
                level: *level,
                auth_name: auth_name.to_vec(),
            },
            &Ex::AuthLogout { cid } => Ext::AuthLogout { cid },
            &Ex::Joinver6 { cid } => Ext::Joinver6 { cid },
            &Ex::Joinver7 { cid } => Ext::Joinver7 { cid },
            &Ex::PlayerSwap { cid1, cid2 } => Ext::PlayerSwap { cid1, cid2 },
            Ex::SaveSuccess {
                team,
                save_id,
                save,
            } => Ext::SaveSuccess {
                team: *team,
                save_id: *save_id,
                save: save.to_vec(),
            },
            &Ex::SaveFailure { team } => Ext::SaveFailure { team },
            Ex::LoadSuccess {
                team,
                save_id,
                save,
            } => Ext::LoadSuccess {
                team: *team,
                save_id: *save_id,
                save: save.to_vec(),
            },
            &Ex::LoadFailure { team } => Ext::LoadFailure { team },
            &Ex::PlayerTeam { cid, team } => Ext::PlayerTeam { cid, team },
            &Ex::TeamPractice { team, practice } => Ext::TeamPractice { team, practice },
            &Ex::PlayerReady { cid } => Ext::PlayerReady { cid },
            &Ex::Rejoinver6 { cid } => Ext::Rejoinver6 { cid },
            Ex::Antibot { data } => Ext::Antibot {
                data: data.to_vec(),
            },
            Ex::PlayerName { cid, name } => Ext::PlayerName {
                cid: *cid,
                name: name.to_vec(),
            },
            &Ex::PlayerFinish { cid, time } => Ext::PlayerFinish { cid, time },
            &Ex::TeamFinish { team, time } => Ext::TeamFinish { team, time },
            Ex::UnknownEx { uuid, data } => Ext::Unknown {
                uuid: *uuid,
                data: data.to_vec(),
            },
            other => panic!("an extension this test does not know yet: {other:?}"),
        }
    }
}

/// Where and how a reader stopped.
#[derive(Debug, PartialEq)]
enum Stop {
    /// At a FINISH record at this offset.
    Finished { offset: u64 },
    /// The input ran out, `partial` bytes into a cut record (0: between records).
    Truncated { partial: usize },
    /// The crate rejected the record at `offset`.
    Rejected { offset: u64, error: ThErrorKind },
}

/// What one reader made of a file.
struct Decoded {
    /// Header JSON, without the NUL.
    header: Vec<u8>,
    msgs: Vec<Msg>,
    stop: Stop,
}

/// teeoracle's reading; also returns each record's offset. teeoracle must
/// read every file outside `malformed/`.
fn read_oracle(bytes: &[u8]) -> Result<(Decoded, Vec<u64>), String> {
    let (header, mut reader) =
        SliceReader::new(bytes, Mode::Lenient).map_err(|e| format!("teeoracle: header: {e}"))?;
    let (mut msgs, mut offsets) = (Vec::new(), Vec::new());
    for rec in reader.by_ref() {
        let rec = rec.map_err(|e| format!("teeoracle: record {}: {e}", msgs.len()))?;
        msgs.push(Msg::from_oracle(&rec.msg));
        offsets.push(rec.offset);
    }
    let stop = match reader.end() {
        Some(End::Finished { offset }) => Stop::Finished { offset },
        Some(End::Truncated { partial, .. }) => Stop::Truncated { partial },
        None => return Err("teeoracle: iterator ended without an end".into()),
    };
    let decoded = Decoded {
        header: header.json,
        msgs,
        stop,
    };
    Ok((decoded, offsets))
}

/// The `teehistorian` crate's reading, up to its first `Eos` chunk (it would
/// read on past it) or its first error.
fn read_crate(bytes: &[u8]) -> Result<Decoded, String> {
    let mut th = Th::parse(bytes).map_err(|e| format!("crate: magic: {e}"))?;
    let header = th
        .header()
        .map_err(|e| format!("crate: header: {e}"))?
        .to_vec();
    let mut msgs = Vec::new();
    let error = loop {
        // Convert at once: a chunk borrows `th` until the next call.
        match th.next_chunk().map(|c| Msg::from_crate(&c)) {
            Ok(Msg::Finish) => {
                msgs.push(Msg::Finish);
                break None;
            }
            Ok(msg) => msgs.push(msg),
            Err(e) => break Some(e),
        }
    };
    // The crate's unread rest starts at the last chunk returned (Eos is not
    // consumed until the next call) or at the record that failed.
    let offset = bytes.len() - th.reuse_buffer().len();
    let stop = match error {
        None => Stop::Finished {
            offset: offset as u64,
        },
        Some(ThError::Eof) => Stop::Truncated {
            partial: bytes.len() - offset,
        },
        Some(ThError::ParseError(error)) => Stop::Rejected {
            offset: offset as u64,
            error,
        },
        Some(e) => return Err(format!("crate: record {}: {e}", msgs.len())),
    };
    Ok(Decoded { header, msgs, stop })
}

/// Checks one file; `Err` describes a disagreement.
fn check(bytes: &[u8], known: Option<&Known>) -> Result<(), String> {
    let (oracle, offsets) = read_oracle(bytes)?;
    let th = read_crate(bytes)?;
    if th.header != oracle.header {
        // Headers are a few KiB: show where they part, not all of them.
        let at = th
            .header
            .iter()
            .zip(&oracle.header)
            .take_while(|(a, b)| a == b)
            .count();
        let tail = |h: &[u8]| h[at..h.len().min(at + 40)].escape_ascii().to_string();
        return Err(format!(
            "header JSON differs at byte {at} (crate {} bytes, teeoracle {}):\n  \
             crate:     ...{}\n  teeoracle: ...{}",
            th.header.len(),
            oracle.header.len(),
            tail(&th.header),
            tail(&oracle.header),
        ));
    }
    // For a known disagreement only the records before the crate's error
    // are compared, and the error must be the expected one at that record.
    let (expected_msgs, expected_stop) = match known {
        None => (&oracle.msgs[..], oracle.stop),
        Some(k) => {
            let offset = *offsets
                .get(k.agreed)
                .ok_or_else(|| format!("teeoracle read only {} records", offsets.len()))?;
            let stop = Stop::Rejected {
                offset,
                error: k.error.clone(),
            };
            (&oracle.msgs[..k.agreed], stop)
        }
    };
    if let Some(i) = (0..expected_msgs.len().max(th.msgs.len()))
        .find(|&i| expected_msgs.get(i) != th.msgs.get(i))
    {
        return Err(format!(
            "message {i} differs (crate {} messages, expected {}):\n  crate:     {:?}\n  \
             teeoracle: {:?}\n  crate stopped: {:?}",
            th.msgs.len(),
            expected_msgs.len(),
            th.msgs.get(i),
            expected_msgs.get(i),
            th.stop,
        ));
    }
    if th.stop != expected_stop {
        return Err(format!(
            "stop differs:\n  crate:     {:?}\n  expected:  {expected_stop:?}",
            th.stop
        ));
    }
    Ok(())
}

#[test]
fn teeoracle_agrees_with_teehistorian_crate() {
    let root = common::root().join("corpus/teehistorian");
    // Every `*.teehistorian` file, but those in `malformed/`.
    let files: Vec<PathBuf> = common::corpus_files("teehistorian")
        .into_iter()
        .filter(|p| {
            common::has_ext(p, "teehistorian") && !p.parent().unwrap().ends_with("malformed")
        })
        .collect();

    let mut seen_known = Vec::new();
    let mut failures = Vec::new();
    for path in &files {
        let name = path
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let known = KNOWN.iter().find(|k| k.file == name);
        if let Some(k) = known {
            seen_known.push(k.file);
        }
        let bytes = fs::read(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        if let Err(why) = check(&bytes, known) {
            let label = if known.is_some() {
                " (listed in KNOWN)"
            } else {
                ""
            };
            failures.push(format!("{name}{label}: {why}"));
        }
    }
    // A table row whose file is gone would otherwise pass unnoticed.
    for k in KNOWN.iter().filter(|k| !seen_known.contains(&k.file)) {
        failures.push(format!("{}: listed in KNOWN but not in the corpus", k.file));
    }
    assert!(
        failures.is_empty(),
        "{} of {} files disagree:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}
