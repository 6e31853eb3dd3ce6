//! Golden tests over the bundled teehistorian corpus (`corpus/teehistorian`).
//!
//! Every well-formed file must decode, re-encode to its exact bytes, replay
//! cleanly, stream identically through the bounded reader, and survive every
//! truncation; its readable dump is an insta snapshot under
//! `snapshots/teehistorian/`. Every file under `malformed/` must fail, and
//! its one-line error is snapshotted too.

mod common;

use std::fmt::Write as _;
use std::io::Read;
use std::path::{Path, PathBuf};
use teeoracle::codec::{Codec, DecodeError, Mode, first_difference};
use teeoracle::teehistorian::{
    End, Header, Inconsistency, Record, Replay, ReplayConfig, SliceReader, StreamReader,
};

fn corpus_files(folder: &str) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "teehistorian") {
                out.push(p);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/teehistorian");
    let mut files = Vec::new();
    walk(&root.join(folder), &mut files);
    assert!(!files.is_empty(), "no corpus files under {folder}");
    files
}

fn well_formed() -> Vec<PathBuf> {
    ["ddnet-20.1", "ddnet-unit-tests", "edge"]
        .iter()
        .flat_map(|f| corpus_files(f))
        .collect()
}

fn name(path: &Path) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/teehistorian");
    path.strip_prefix(root)
        .unwrap()
        .display()
        .to_string()
        .replace('/', "__")
}

/// A whole decoded file: header, records, how it ended, unconsumed bytes.
type Decoded<'a> = (Header, Vec<Record<'a>>, End, &'a [u8]);

fn decode(bytes: &[u8]) -> Result<Decoded<'_>, DecodeError> {
    let (header, mut reader) = SliceReader::new(bytes, Mode::Lenient)?;
    let records = reader.by_ref().collect::<Result<Vec<_>, _>>()?;
    Ok((header, records, reader.end().unwrap(), reader.rest()))
}

fn snapshot(name: &str, text: &str) {
    common::snapshot("teehistorian", name, text);
}

#[test]
fn well_formed_files_round_trip_replay_and_match_their_golden_dump() {
    for path in well_formed() {
        let bytes = std::fs::read(&path).unwrap();
        let (header, records, end, rest) =
            decode(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));

        // Byte-exact: header, every record, then whatever was not a record.
        let mut out = Vec::new();
        header.encode(&mut out, ());
        for rec in &records {
            rec.encode(&mut out);
        }
        out.extend_from_slice(rest);
        if let Some(at) = first_difference(&out, &bytes) {
            panic!("{}: re-encoding differs at byte {at}", path.display());
        }
        assert!(
            matches!(end, End::Truncated { .. }) || rest.is_empty(),
            "{}: bytes after FINISH",
            path.display()
        );

        // Replay with history; DDNet never writes an inconsistent stream.
        let mut replay = Replay::new(ReplayConfig::default());
        for rec in &records {
            if let Err(e) = replay.handle(rec.offset, &rec.msg) {
                panic!("{}: {e}", path.display());
            }
        }

        let mut dump = String::new();
        // The 86 UUID names repeat in every file; their count is enough here,
        // the exact header bytes are covered by the round trip above.
        let info = &header.info;
        let uuids = info.uuids.len();
        writeln!(
            dump,
            "## Header ({} bytes of JSON, {uuids} uuid names)",
            header.json.len()
        )
        .unwrap();
        if let serde_json::Value::Object(fields) = serde_json::to_value(info).unwrap() {
            for (key, value) in fields.iter().filter(|(k, _)| *k != "uuids") {
                writeln!(dump, "{key}: {value}").unwrap();
            }
        }
        writeln!(dump, "## Records ({})", records.len()).unwrap();
        for rec in &records {
            writeln!(dump, "{rec}").unwrap();
        }
        writeln!(dump, "## End\n{end}").unwrap();
        writeln!(dump, "## World\n{}", ron_pretty(&replay.world())).unwrap();
        snapshot(&name(&path), &dump);
    }
}

fn ron_pretty(value: &impl serde::Serialize) -> String {
    ron::ser::to_string_pretty(
        value,
        ron::ser::PrettyConfig::new().indentor("  ".to_string()),
    )
    .unwrap()
}

/// The first fault of a malformed file: a decode error, a replay
/// inconsistency, or bytes after FINISH.
fn first_fault(bytes: &[u8]) -> String {
    let (header, mut reader) = match SliceReader::new(bytes, Mode::Lenient) {
        Ok(x) => x,
        Err(e) => return format!("decode error: {e}"),
    };
    let _ = header;
    let mut replay = Replay::new(ReplayConfig::default());
    let mut first_inconsistency: Option<Inconsistency> = None;
    for rec in reader.by_ref() {
        let rec = match rec {
            Ok(rec) => rec,
            Err(e) => return format!("decode error: {e}"),
        };
        if let Err(inc) = replay.handle(rec.offset, &rec.msg) {
            first_inconsistency.get_or_insert(inc);
        }
    }
    if let Some(inc) = first_inconsistency {
        return format!("replay inconsistency: {inc}");
    }
    match reader.end() {
        Some(End::Finished { offset }) if !reader.rest().is_empty() => {
            format!(
                "{} byte(s) after FINISH at byte {offset}",
                reader.rest().len()
            )
        }
        end => panic!("no fault found (end: {end:?})"),
    }
}

#[test]
fn malformed_files_fail_with_their_golden_error() {
    for path in corpus_files("malformed") {
        let bytes = std::fs::read(&path).unwrap();
        let fault = first_fault(&bytes);
        snapshot(&name(&path), &fault);
    }
}

/// An `io::Read` that hands out a few bytes at a time, to exercise every
/// refill path of the bounded reader.
struct Trickle<'a> {
    data: &'a [u8],
    step: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.step = self.step % 7 + 1;
        let n = self.step.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

#[test]
fn stream_reader_agrees_with_slice_reader() {
    for path in well_formed().into_iter().chain(corpus_files("malformed")) {
        let bytes = std::fs::read(&path).unwrap();
        let slice = SliceReader::new(&bytes, Mode::Lenient);
        let stream = StreamReader::new(
            Trickle {
                data: &bytes,
                step: 0,
            },
            Mode::Lenient,
        );
        let (Ok((h1, mut slice)), Ok((h2, mut stream))) = (slice, stream) else {
            continue; // header errors are compared by the malformed test
        };
        assert_eq!(h1, h2, "{}", path.display());
        let mut n = 0;
        loop {
            let a = slice.next();
            let b = stream.next_record();
            match (a, b) {
                (None, Ok(None)) => break,
                (Some(Ok(a)), Ok(Some(b))) => assert_eq!(a, b, "{}", path.display()),
                (Some(Err(a)), Err(teeoracle::teehistorian::ReadError::Decode(b))) => {
                    assert_eq!(a, b, "{}", path.display());
                    break;
                }
                (a, b) => panic!("{}: record {n}: {a:?} vs {b:?}", path.display()),
            }
            n += 1;
        }
        assert_eq!(slice.end(), stream.end(), "{}", path.display());
        let mut rest = Vec::new();
        stream.into_rest().read_to_end(&mut rest).unwrap();
        assert_eq!(slice.rest(), &rest[..], "{}", path.display());
    }
}

#[test]
fn every_truncation_gives_the_clean_prefix_or_an_error_inside_the_input() {
    for path in well_formed() {
        let bytes = std::fs::read(&path).unwrap();
        let (_, records, _, _) = decode(&bytes).unwrap();
        let spans: Vec<(u64, usize)> = records.iter().map(|r| (r.offset, r.raw.len())).collect();
        // Every cut for small files; for large ones the whole header region
        // plus 400 cuts spread over the records.
        let cuts: Vec<usize> = if bytes.len() <= 16 * 1024 {
            (0..bytes.len()).collect()
        } else {
            let header_end = spans.first().map_or(bytes.len(), |s| s.0 as usize);
            (0..header_end + 64)
                .chain((0..400).map(|k| header_end + k * (bytes.len() - header_end) / 400))
                .collect()
        };
        for cut in cuts {
            let prefix = &bytes[..cut];
            match decode(prefix) {
                Err(e) => assert!(
                    e.offset <= cut as u64,
                    "{} cut at {cut}: error offset {} outside the input",
                    path.display(),
                    e.offset
                ),
                Ok((_, got, end, _)) => {
                    let whole = spans
                        .iter()
                        .take_while(|(o, l)| *o as usize + l <= cut)
                        .count();
                    assert_eq!(got.len(), whole, "{} cut at {cut}", path.display());
                    for (rec, span) in got.iter().zip(&spans) {
                        assert_eq!((rec.offset, rec.raw.len()), *span);
                    }
                    let clean_end = spans[..whole].last().map_or(0, |(o, l)| *o as usize + l);
                    let expected = match got.last().map(|r| &r.msg) {
                        Some(teeoracle::teehistorian::Message::Finish) => End::Finished {
                            offset: spans[whole - 1].0,
                        },
                        _ => End::Truncated {
                            offset: if whole == 0 {
                                end_of_header(prefix)
                            } else {
                                clean_end as u64
                            },
                            partial: cut
                                - if whole == 0 {
                                    end_of_header(prefix) as usize
                                } else {
                                    clean_end
                                },
                        },
                    };
                    assert_eq!(end, expected, "{} cut at {cut}", path.display());
                }
            }
        }
    }
}

fn end_of_header(bytes: &[u8]) -> u64 {
    (16 + bytes[16..].iter().position(|&b| b == 0).unwrap() + 1) as u64
}

/// Expected values from `../shared/corpus/ddnet-20.1/README.md`, computed by
/// the corpus authors' independent readers and cross-checked with
/// teehistorian-py: records, per-kind counts, ticks, client ids, end.
#[test]
fn real_files_match_the_independent_corpus_summary() {
    struct Expect {
        file: &'static str,
        records: usize,
        // PLAYER_DIFF, PLAYER_NEW, PLAYER_OLD, TICK_SKIP, INPUT_NEW, INPUT_DIFF,
        // MESSAGE, JOIN, DROP, CONSOLE_COMMAND, EX, FINISH
        counts: [usize; 12],
        max_cid: i32,
        cids: usize,
        last_tick: i32,
        ticks_with_records: usize,
        finished: bool,
        ex: &'static [(&'static str, usize)],
    }
    let table = [
        Expect {
            file: "A_join_move_leave",
            records: 970,
            counts: [561, 1, 1, 107, 1, 286, 5, 1, 1, 1, 4, 1],
            max_cid: 0,
            cids: 1,
            last_tick: 932,
            ticks_with_records: 660,
            finished: true,
            ex: &[
                ("ddnetver", 1),
                ("joinver6", 1),
                ("player_name", 1),
                ("player_ready", 1),
            ],
        },
        Expect {
            file: "B_eight_bots_dm1",
            records: 16718,
            counts: [9447, 10, 9, 32, 10, 7062, 51, 10, 10, 26, 50, 1],
            max_cid: 7,
            cids: 8,
            last_tick: 3027,
            ticks_with_records: 2875,
            finished: true,
            ex: &[
                ("ddnetver", 7),
                ("ddnetver_old", 2),
                ("joinver6", 10),
                ("player_name", 19),
                ("player_ready", 10),
                ("player_team", 2),
            ],
        },
        Expect {
            file: "C_rcon_auth",
            records: 3947,
            counts: [2206, 3, 3, 71, 3, 1616, 9, 3, 3, 12, 17, 1],
            max_cid: 2,
            cids: 3,
            last_tick: 1629,
            ticks_with_records: 1546,
            finished: true,
            ex: &[
                ("auth_login", 3),
                ("auth_logout", 2),
                ("ddnetver", 3),
                ("joinver6", 3),
                ("player_name", 3),
                ("player_ready", 3),
            ],
        },
        Expect {
            file: "E_map_change.1_dm1",
            records: 1259,
            counts: [824, 3, 0, 2, 3, 398, 10, 3, 0, 2, 13, 1],
            max_cid: 2,
            cids: 3,
            last_tick: 478,
            ticks_with_records: 411,
            finished: true,
            ex: &[
                ("auth_login", 1),
                ("ddnetver", 3),
                ("joinver6", 3),
                ("player_name", 3),
                ("player_ready", 3),
            ],
        },
        Expect {
            file: "E_map_change.2_ctf1",
            records: 2652,
            counts: [1577, 3, 2, 40, 3, 998, 11, 3, 3, 1, 10, 1],
            max_cid: 2,
            cids: 3,
            last_tick: 1049,
            ticks_with_records: 988,
            finished: true,
            ex: &[
                ("auth_login", 1),
                ("ddnetver", 3),
                ("joinver6", 3),
                ("player_ready", 3),
            ],
        },
        Expect {
            file: "F_crash_truncated",
            records: 3501,
            counts: [2046, 4, 1, 68, 4, 1330, 21, 4, 0, 5, 18, 0],
            max_cid: 3,
            cids: 4,
            last_tick: 1028,
            ticks_with_records: 960,
            finished: false,
            ex: &[
                ("ddnetver", 4),
                ("joinver6", 4),
                ("player_name", 6),
                ("player_ready", 4),
            ],
        },
    ];
    const BASE: [&str; 12] = [
        "player_diff",
        "player_new",
        "player_old",
        "tick_skip",
        "input_new",
        "input_diff",
        "message",
        "join",
        "drop",
        "console_command",
        "ex",
        "finish",
    ];
    for e in table {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!(
            "corpus/teehistorian/ddnet-20.1/{}.teehistorian",
            e.file
        ));
        let bytes = std::fs::read(&path).unwrap();
        let (_, records, end, rest) = decode(&bytes).unwrap();
        assert_eq!(records.len(), e.records, "{}", e.file);
        let mut counts = std::collections::BTreeMap::<&str, usize>::new();
        for rec in &records {
            let kind = rec.msg.kind_name();
            let base = if matches!(rec.msg, teeoracle::teehistorian::Message::Ex(_)) {
                "ex"
            } else {
                kind
            };
            *counts.entry(base).or_default() += 1;
            if base == "ex" {
                *counts.entry(kind).or_default() += 1;
            }
        }
        for (kind, n) in BASE.iter().zip(e.counts) {
            assert_eq!(
                counts.get(kind).copied().unwrap_or(0),
                n,
                "{} {kind}",
                e.file
            );
        }
        for (kind, n) in e.ex {
            assert_eq!(
                counts.get(kind).copied().unwrap_or(0),
                *n,
                "{} {kind}",
                e.file
            );
        }
        let cids: std::collections::BTreeSet<i32> = records
            .iter()
            .flat_map(|r| r.msg.cids())
            .flatten()
            .filter(|&c| c >= 0)
            .collect();
        assert_eq!(cids.last().copied(), Some(e.max_cid), "{}", e.file);
        assert_eq!(cids.len(), e.cids, "{}", e.file);
        assert_eq!(records.last().unwrap().tick, e.last_tick, "{}", e.file);
        let mut ticks: Vec<i32> = records.iter().map(|r| r.tick).collect();
        ticks.dedup();
        assert_eq!(ticks.len(), e.ticks_with_records, "{}", e.file);
        assert_eq!(
            matches!(end, End::Finished { .. }),
            e.finished,
            "{}",
            e.file
        );
        assert!(rest.is_empty(), "{}: F ends at a record boundary", e.file);
    }
}

#[test]
fn for_each_record_matches_the_iterators() {
    use std::ops::ControlFlow;
    for path in well_formed().into_iter().chain(corpus_files("malformed")) {
        let bytes = std::fs::read(&path).unwrap();
        let Ok((_, slice)) = SliceReader::new(&bytes, Mode::Lenient) else {
            continue;
        };
        let iterated: Vec<String> = slice
            .map(|r| format!("{:?}", r.map(|r| (r.offset, r.tick, r.raw, r.msg))))
            .collect();
        let mut seen = Vec::new();
        let (_, mut slice) = SliceReader::new(&bytes, Mode::Lenient).unwrap();
        if let Err(e) = slice.for_each_record(|r| {
            seen.push(format!(
                "{:?}",
                Ok::<_, ()>((r.offset, r.tick, r.raw, r.msg.clone()))
            ));
            ControlFlow::<()>::Continue(())
        }) {
            seen.push(format!("{:?}", Err::<(), _>(e)));
        }
        assert_eq!(seen, iterated, "{}: slice", path.display());
        let mut streamed = Vec::new();
        let (_, mut stream) = StreamReader::new(
            Trickle {
                data: &bytes,
                step: 0,
            },
            Mode::Lenient,
        )
        .unwrap();
        if let Err(teeoracle::teehistorian::ReadError::Decode(e)) = stream.for_each_record(|r| {
            streamed.push(format!(
                "{:?}",
                Ok::<_, ()>((r.offset, r.tick, r.raw, r.msg.clone()))
            ));
            ControlFlow::<()>::Continue(())
        }) {
            streamed.push(format!("{:?}", Err::<(), _>(e)));
        }
        assert_eq!(streamed, iterated, "{}: stream", path.display());
        // Breaking stops at once and hands back the value.
        let (_, mut slice) = SliceReader::new(&bytes, Mode::Lenient).unwrap();
        let mut n = 0;
        let flow = slice.for_each_record(|_| {
            n += 1;
            if n == 2 {
                ControlFlow::Break(n)
            } else {
                ControlFlow::Continue(())
            }
        });
        if iterated.len() >= 2 && iterated[..2].iter().all(|r| r.starts_with("Ok")) {
            assert_eq!(flow.unwrap(), ControlFlow::Break(2), "{}", path.display());
        }
    }
}

/// Runs the command line with `stdin` piped in.
fn run_with_stdin(args: &[&str], stdin: &[u8]) -> std::process::Output {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_teeoracle"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let input = stdin.to_vec();
    // Written from another thread: the command may fill its stdout first.
    let writer = std::thread::spawn(move || pipe.write_all(&input));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    out
}

#[test]
fn stats_reads_standard_input_like_the_file() {
    let rel = "corpus/teehistorian/ddnet-20.1/C_rcon_auth.teehistorian";
    let bytes = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap();
    for format in ["text", "json"] {
        let file = common::run(&["teehistorian", "stats", rel, "--format", format]);
        let piped = run_with_stdin(&["teehistorian", "stats", "-", "--format", format], &bytes);
        assert_eq!(piped.status.code(), Some(0), "{format}");
        let (file, piped) = (
            String::from_utf8(file.stdout).unwrap(),
            String::from_utf8(piped.stdout).unwrap(),
        );
        assert!(file.contains("3947"), "{file}");
        // The same report, but for the name the input was given.
        match format {
            "text" => {
                assert_eq!(piped.lines().next(), Some("file:               -"));
                assert!(piped.lines().skip(1).eq(file.lines().skip(1)), "{piped}");
            }
            _ => {
                let mut piped: serde_json::Value = serde_json::from_str(&piped).unwrap();
                assert_eq!(piped["file"], "-");
                piped["file"] = rel.into();
                assert_eq!(
                    piped,
                    serde_json::from_str::<serde_json::Value>(&file).unwrap()
                );
            }
        }
    }
}

#[test]
fn roundtrip_reports_in_json() {
    let rel = "corpus/teehistorian/edge/overlong_varint.teehistorian";
    let out = common::run(&["teehistorian", "roundtrip", rel, "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["kind"], "teehistorian_roundtrip");
    assert_eq!(doc["schema_version"], 1);
    assert_eq!(doc["exact"], true);
    assert_eq!(doc["verbatim_records"], 1);
    assert_eq!(doc["end"]["end"], "finished");
    assert!(doc["error"].is_null());
    let bad = "corpus/teehistorian/malformed/unknown_message_id.teehistorian";
    let out = common::run(&["teehistorian", "roundtrip", bad, "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["exact"], false);
    assert_eq!(doc["error"]["kind"], "unknown_message_id");
    assert_eq!(doc["error"]["offset"], 3194);
    assert_eq!(doc["error"]["tick"], 1);
}
