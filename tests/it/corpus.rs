//! The teehistorian readers over the bundled corpus (`corpus/teehistorian`):
//! the bounded stream reader and `for_each_record` agree with the slice
//! reader on every file, every truncation of a well-formed file gives its
//! clean prefix or an error inside the input, and the real files' scan
//! matches the corpus authors' independent counts. Each file's verdict and
//! golden dump (or, for `malformed/`, its first fault) are in
//! `tests/harness/golden.rs`.

use crate::common;

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use teeoracle::codec::{DecodeError, Mode};
use teeoracle::teehistorian::scan::{Scan, Verify};
use teeoracle::teehistorian::{End, Header, Record, SliceReader, StreamReader};

fn well_formed() -> Vec<PathBuf> {
    ["ddnet-20.1", "ddnet-unit-tests", "edge"]
        .iter()
        .flat_map(|f| teehistorian_files(f))
        .collect()
}

fn teehistorian_files(folder: &str) -> Vec<PathBuf> {
    common::corpus_files(&format!("teehistorian/{folder}"))
}

/// A whole decoded file: header, records, how it ended, unconsumed bytes.
type Decoded<'a> = (Header, Vec<Record<'a>>, End, &'a [u8]);

fn decode(bytes: &[u8]) -> Result<Decoded<'_>, DecodeError> {
    let (header, mut reader) = SliceReader::new(bytes, Mode::Lenient)?;
    let records = reader.by_ref().collect::<Result<Vec<_>, _>>()?;
    Ok((header, records, reader.end().unwrap(), reader.rest()))
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
    for path in well_formed()
        .into_iter()
        .chain(teehistorian_files("malformed"))
    {
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
        let path = common::root().join(format!(
            "corpus/teehistorian/ddnet-20.1/{}.teehistorian",
            e.file
        ));
        let bytes = std::fs::read(&path).unwrap();
        // The pass `stats` and `check` run, with a round trip and a replay.
        let (_, scan) = Scan::run(&bytes[..], Verify::all()).unwrap();
        assert_eq!(scan.error, None, "{}", e.file);
        assert_eq!(scan.first_mismatch, None, "{}: round trip", e.file);
        assert_eq!(scan.inconsistencies, Some(0), "{}: replay", e.file);
        assert_eq!(scan.records, e.records as u64, "{}", e.file);
        // Every kind: the base ones but EX, then the EX ones, which add up.
        assert_eq!(
            e.ex.iter().map(|(_, n)| n).sum::<usize>(),
            e.counts[10],
            "{}: the EX kinds",
            e.file
        );
        let want: BTreeMap<&str, u64> = BASE
            .iter()
            .zip(e.counts)
            .filter(|&(kind, n)| *kind != "ex" && n > 0)
            .map(|(kind, n)| (*kind, n as u64))
            .chain(e.ex.iter().map(|&(kind, n)| (kind, n as u64)))
            .collect();
        assert_eq!(scan.counts, want, "{}", e.file);
        assert_eq!(scan.max_cid, Some(e.max_cid), "{}", e.file);
        assert_eq!(scan.cids, e.cids, "{}", e.file);
        assert_eq!(scan.last_tick, e.last_tick, "{}", e.file);
        assert_eq!(
            scan.ticks_with_records, e.ticks_with_records as u64,
            "{}",
            e.file
        );
        assert_eq!(
            matches!(scan.end, Some(End::Finished { .. })),
            e.finished,
            "{}",
            e.file
        );
        // Nothing after FINISH; F was cut at a record boundary.
        let left = match scan.end {
            Some(End::Truncated { partial, .. }) => partial as u64,
            _ => scan.bytes_after_finish,
        };
        assert_eq!(left, 0, "{}: bytes after the last record", e.file);
    }
}

#[test]
fn for_each_record_matches_the_iterators() {
    use std::ops::ControlFlow;
    for path in well_formed()
        .into_iter()
        .chain(teehistorian_files("malformed"))
    {
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

#[test]
fn stats_reads_standard_input_like_the_file() {
    let rel = "corpus/teehistorian/ddnet-20.1/C_rcon_auth.teehistorian";
    let bytes = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap();
    for format in ["text", "json"] {
        let file = common::run(&["teehistorian", "stats", rel, "--format", format]);
        let piped = common::run_stdin(&["teehistorian", "stats", "-", "--format", format], &bytes);
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
    assert!(doc["error"].is_null(), "{}", doc["error"]);
    let bad = "corpus/teehistorian/malformed/unknown_message_id.teehistorian";
    let out = common::run(&["teehistorian", "roundtrip", bad, "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["exact"], false);
    assert_eq!(doc["error"]["kind"], "unknown_message_id");
    assert_eq!(doc["error"]["offset"], 3194);
    assert_eq!(doc["error"]["tick"], 1);
}
