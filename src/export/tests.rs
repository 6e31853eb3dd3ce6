//! The session tables on records made by hand: what the corpus has none
//! of (`Cl_Say`, votes, a whisper, a name only the previous file knows).

use super::sessions::{CHAT, Handover, PLAYERS, People, VOTES};
use super::table::{Column, Table};
use crate::bytes::{Blob, Text};
use crate::teehistorian::{ConsoleCommand, Ex, HeaderInfo, Message, Record};
use std::path::{Path, PathBuf};

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("teeoracle-sessions-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn rec<'a>(tick: i32, msg: Message<'a>, raw: &'a [u8]) -> Record<'a> {
    Record {
        offset: 0,
        tick,
        raw,
        msg,
        noncanonical: false,
        protocol: None,
    }
}

fn net(cid: i32, data: &[u8]) -> Message<'_> {
    Message::NetMessage {
        cid,
        data: Blob::from(data),
    }
}

fn command<'a>(cid: i32, flags: i32, cmd: &'a str, args: &[&'a str]) -> Message<'a> {
    Message::from(ConsoleCommand {
        cid,
        flags,
        cmd: Text::from(cmd),
        args: args.iter().map(|a| Text::from(*a)).collect(),
    })
}

/// Every row of the table `name` in `dir`, as JSON objects.
fn rows(dir: &Path, name: &str) -> Vec<serde_json::Value> {
    use arrow_array::Array;
    let file = std::fs::File::open(dir.join(format!("{name}.parquet"))).unwrap();
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap();
    let mut out = Vec::new();
    for batch in reader {
        let batch = batch.unwrap();
        for i in 0..batch.num_rows() {
            let mut row = serde_json::Map::new();
            for (field, col) in batch.schema().fields().iter().zip(batch.columns()) {
                let any = col.as_any();
                let v = if col.is_null(i) {
                    serde_json::Value::Null
                } else if let Some(c) = any.downcast_ref::<arrow_array::StringArray>() {
                    c.value(i).into()
                } else if let Some(c) = any.downcast_ref::<arrow_array::Int32Array>() {
                    c.value(i).into()
                } else if let Some(c) = any.downcast_ref::<arrow_array::Float64Array>() {
                    c.value(i).into()
                } else {
                    serde_json::Value::String("?".into())
                };
                row.insert(field.name().clone(), v);
            }
            out.push(serde_json::Value::Object(row));
        }
    }
    out
}

#[test]
fn sessions_chat_votes_and_a_name_from_the_previous_file() {
    let dir = scratch();
    let table = |name, cols: &[Column]| Table::create(&dir, name, cols, 2).unwrap();
    let (mut players, mut chat, mut votes) = (
        table("players", PLAYERS),
        table("chat", CHAT),
        table("votes", VOTES),
    );
    let mut handover = Handover::new();

    // First file: alice (cid 0) chats, calls and casts a vote, whispers,
    // leaves; bob reuses cid 0; carol (cid 1) only sends her start info.
    let say = [0x22, 0x01, b'g', b'g', 0]; // Cl_Say team=1 "gg"
    let call = *b"\x32option\0dm2\0\0"; // Cl_CallVote option "dm2" ""
    let cast = [0x30, 0x01]; // Cl_Vote yes
    let start = *b"\x28carol\0\0\x40default\0\0\0\0"; // Cl_StartInfo "carol"
    let first = HeaderInfo {
        game_uuid: Some("g1".into()),
        ..HeaderInfo::default()
    };
    let mut people = People::new("one", &first, &mut handover);
    let records = [
        rec(5, Message::Join { cid: 0 }, &[]),
        rec(
            5,
            Message::from(Ex::PlayerName {
                cid: 0,
                name: Text::from("alice"),
            }),
            &[],
        ),
        rec(6, Message::Join { cid: 1 }, &[]),
        rec(6, net(1, &start), &start),
        rec(10, net(0, &say), &say),
        rec(11, net(0, &call), &call),
        rec(12, net(0, &cast), &cast),
        rec(13, command(0, 4, "vote", &["yes"]), &[]),
        rec(14, command(0, 128, "w", &["carol", "hi"]), &[]),
        rec(
            20,
            Message::Drop {
                cid: 0,
                reason: Text::from("bye"),
            },
            &[],
        ),
        rec(30, Message::Join { cid: 0 }, &[]),
        rec(40, Message::Finish, &[]),
    ];
    for r in &records {
        people.record(r, &mut chat, &mut votes).unwrap();
    }
    let carried = people.finish(&mut players, "finish").unwrap();
    handover.insert("g1".into(), carried);

    // Second file, after the map change: carol's JOIN before the first
    // tick, and no name recorded for her.
    let second = HeaderInfo {
        game_uuid: Some("g2".into()),
        prev_game_uuid: Some("g1".into()),
        ..HeaderInfo::default()
    };
    let mut people = People::new("two", &second, &mut handover);
    for r in [
        rec(0, Message::Join { cid: 1 }, &[]),
        rec(9, Message::Finish, &[]),
    ] {
        people.record(&r, &mut chat, &mut votes).unwrap();
    }
    people.finish(&mut players, "finish").unwrap();
    for t in [players, chat, votes] {
        t.finish().unwrap();
    }

    let p = rows(&dir, "players");
    let brief: Vec<String> = p
        .iter()
        .map(|r| {
            format!(
                "{} {} cid={} {}..{} {}/{} {} from={}",
                r["file"],
                r["player"],
                r["cid"],
                r["start_tick"],
                r["end_tick"],
                r["start"],
                r["end"],
                r["name"],
                r["name_from"]
            )
        })
        .collect();
    assert_eq!(
        brief,
        [
            r#""one" "g1/0" cid=0 5..20 "join"/"drop" "alice" from="player_name""#,
            r#""one" "g1/1" cid=1 6..40 "join"/"finish" "carol" from="start_info""#,
            r#""one" "g1/2" cid=0 30..40 "join"/"finish" null from=null"#,
            r#""two" "g1/1" cid=1 0..9 "carried"/"finish" "carol" from="previous_file""#,
        ]
    );
    assert_eq!(p[0]["drop_reason"], "bye");
    assert_eq!(p[3]["carried_from"], "one");

    let c = rows(&dir, "chat");
    let said: Vec<String> = c
        .iter()
        .map(|r| {
            format!(
                "{} {} {} {}",
                r["player"], r["mode"], r["source"], r["text"]
            )
        })
        .collect();
    assert_eq!(
        said,
        [
            r#""g1/0" "team" "Cl_Say" "gg""#,
            r#""g1/0" "whisper" "console_command" "/w carol hi""#,
        ]
    );

    let v = rows(&dir, "votes");
    let voted: Vec<String> = v
        .iter()
        .map(|r| {
            format!(
                "{} {} {} {} {}",
                r["kind"], r["type"], r["value"], r["vote"], r["tick"]
            )
        })
        .collect();
    assert_eq!(
        voted,
        [
            r#""call" "option" "dm2" null 11"#,
            r#""cast" null null 1 12"#,
            r#""force" null "yes" null 13"#,
        ]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
