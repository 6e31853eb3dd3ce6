//! `teeoracle::export` and `teeoracle export`: the Parquet tables read back
//! with the parquet crate's own reader have the rows the crate counts
//! itself (records a dump gives, events the demo player meets, datagrams
//! a capture holds, a check's findings), the columns `src/schema.md`
//! documents, the schema version in each file's metadata, one row group
//! per file part, and the same bytes on every run.

use crate::common;

use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::file::reader::{FileReader, SerializedFileReader};
use std::path::{Path, PathBuf};
use teeoracle::check::{self, Options, Source};
use teeoracle::export::{Exporter, SCHEMA_VERSION, TABLES};

const A_TH: &str = "corpus/teehistorian/ddnet-20.1/A_join_move_leave.teehistorian";
const F_TH: &str = "corpus/teehistorian/ddnet-20.1/F_crash_truncated.teehistorian";
const A_DEMO: &str = "corpus/demo/ddnet-20.1/A_join_move_leave.demo";
const BAD_TH: &str = "corpus/teehistorian/malformed/unknown_message_id.teehistorian";

/// The capture of session A (a pcap of the record folder's kind).
fn a_capture() -> PathBuf {
    let mut found = Vec::new();
    teeoracle::files::walk(Path::new("corpus/packet"), false, &mut found).unwrap();
    found
        .into_iter()
        .map(|(p, _)| p)
        .find(|p| {
            p.extension().is_some_and(|e| e == "pcap" || e == "pcapng")
                && !p.to_string_lossy().contains("malformed")
        })
        .expect("a capture in corpus/packet")
}

/// Exports `files` into `dir` as `teeoracle export` does (each checked,
/// then added).
fn export(files: &[&Path], dir: &Path) -> Vec<teeoracle::check::Verdict> {
    let mut exporter = Exporter::create(dir).unwrap();
    let mut verdicts = Vec::new();
    for f in files {
        let v = check::check(Source::file(*f), &Options::default());
        exporter.add(f, &v).unwrap();
        verdicts.push(v);
    }
    exporter.finish().unwrap();
    verdicts
}

/// Every row of `table`, as (file, column values as JSON text) is too much
/// to compare; its rows per `file` and its row groups' sizes.
fn read(dir: &Path, table: &str) -> (Vec<arrow_array::RecordBatch>, Vec<i64>) {
    let path = dir.join(format!("{table}.parquet"));
    let file = std::fs::File::open(&path).unwrap();
    let groups = SerializedFileReader::new(file.try_clone().unwrap())
        .unwrap()
        .metadata()
        .row_groups()
        .iter()
        .map(|g| g.num_rows())
        .collect();
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap();
    (reader.map(Result::unwrap).collect(), groups)
}

fn rows_of(batches: &[arrow_array::RecordBatch], file: &str) -> usize {
    use arrow_array::Array;
    batches
        .iter()
        .map(|b| {
            let col = b
                .column_by_name("file")
                .unwrap()
                .as_any()
                .downcast_ref::<arrow_array::StringArray>()
                .unwrap();
            (0..col.len()).filter(|&i| col.value(i) == file).count()
        })
        .sum()
}

fn strings(batches: &[arrow_array::RecordBatch], column: &str) -> Vec<Option<String>> {
    use arrow_array::Array;
    let mut out = Vec::new();
    for b in batches {
        let col = b
            .column_by_name(column)
            .unwrap()
            .as_any()
            .downcast_ref::<arrow_array::StringArray>()
            .unwrap();
        out.extend((0..col.len()).map(|i| (!col.is_null(i)).then(|| col.value(i).to_string())));
    }
    out
}

/// Row `i`'s value of the int column `column` (int32 or int64).
fn int(batches: &[arrow_array::RecordBatch], column: &str, i: usize) -> Option<i64> {
    use arrow_array::Array;
    let b = &batches[0];
    let col = b.column_by_name(column).unwrap();
    if col.is_null(i) {
        return None;
    }
    if let Some(c) = col.as_any().downcast_ref::<arrow_array::Int32Array>() {
        return Some(c.value(i).into());
    }
    Some(
        col.as_any()
            .downcast_ref::<arrow_array::Int64Array>()
            .unwrap()
            .value(i),
    )
}

#[test]
fn tables_read_back_with_the_crates_own_counts() {
    let dir = common::scratch("export-counts");
    let capture = a_capture();
    let files = [
        Path::new(A_TH),
        Path::new(F_TH),
        Path::new(A_DEMO),
        capture.as_path(),
        Path::new(BAD_TH),
    ];
    let verdicts = export(&files, &dir);

    // Records: what `teehistorian dump` counts (check's records are the
    // same count: 970 for A), also for a file cut by a crash and up to the
    // fault of a malformed one.
    let (records, groups) = read(&dir, "teehistorian_records");
    assert_eq!(rows_of(&records, A_TH), 970);
    for (f, v) in files.iter().zip(&verdicts) {
        if v.format == Some("teehistorian") {
            let f = f.to_str().unwrap();
            assert_eq!(
                rows_of(&records, f) as u64,
                v.counts.records.unwrap(),
                "{f}"
            );
        }
    }
    // One row group per file here (each under 65,536 rows).
    assert_eq!(groups, vec![970, 3501, 1]);
    // A record with JSON has its line of `teehistorian dump --format
    // jsonl`; the others have typed columns (the first record of A is a
    // TICK_SKIP of 79 at byte 3561).
    let out = common::run(&["teehistorian", "dump", A_TH, "--format", "jsonl"]);
    assert_eq!(out.status.code(), Some(0));
    let dump: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with("{\"kind\":"))
        .map(str::to_string)
        .collect();
    assert_eq!(dump.len(), 970);
    let lines = strings(&records, "record");
    let kinds = strings(&records, "kind");
    let mut with_json = 0;
    for ((line, kind), dumped) in lines.iter().zip(&kinds).zip(&dump) {
        let d: serde_json::Value = serde_json::from_str(dumped).unwrap();
        assert_eq!(d["kind"].as_str(), kind.as_deref());
        if let Some(line) = line {
            assert_eq!(line, dumped);
            with_json += 1;
        }
    }
    assert!(with_json > 0 && with_json < 970, "{with_json}");
    assert_eq!(kinds[0].as_deref(), Some("tick_skip"));
    assert_eq!(int(&records, "dt", 0), Some(79));
    assert_eq!(int(&records, "offset", 0), Some(3561));

    // Player states: the replay's players at the end of each recorded tick;
    // alice (cid 0) is in session A.
    let (players, _) = read(&dir, "player_states");
    assert!(rows_of(&players, A_TH) > 0);
    let names = strings(&players, "name");
    assert!(
        names.iter().any(|n| n.as_deref() == Some("alice")),
        "{names:?}"
    );

    // Demo events: as many as the demo player meets.
    let bytes = std::fs::read(A_DEMO).unwrap();
    let mut events = teeoracle::demo::Events::new(&bytes).unwrap();
    let (mut n, mut characters) = (0, 0);
    while let Some(e) = events.next().unwrap() {
        n += 1;
        if let teeoracle::demo::EventKind::Snapshot(s) = e.kind {
            // Character items: type 9 in the 0.6/DDNet tables.
            characters += s.items().filter(|i| i.type_id() == 9).count();
        }
    }
    let (ev, _) = read(&dir, "demo_events");
    assert_eq!(rows_of(&ev, A_DEMO), n);
    let (chars, _) = read(&dir, "characters");
    assert_eq!(rows_of(&chars, A_DEMO), characters);
    assert!(characters > 0);

    // Datagrams: as many as the capture's check counts.
    let (dg, _) = read(&dir, "datagrams");
    let cap = capture.to_str().unwrap();
    let v = &verdicts[3];
    assert_eq!(v.format, Some("capture"));
    assert_eq!(rows_of(&dg, cap) as u64, v.counts.records.unwrap());

    // Check reports: one row per finding, one for a file without any.
    let (reports, _) = read(&dir, "check_reports");
    for (f, v) in files.iter().zip(&verdicts) {
        let f = f.to_str().unwrap();
        assert_eq!(rows_of(&reports, f), v.findings.len().max(1), "{f}");
    }
    let status = strings(&reports, "status");
    assert!(status.contains(&Some("xfail".into())), "{status:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_columns_are_the_schema_and_the_version_is_in_the_metadata() {
    let dir = common::scratch("export-schema");
    export(&[Path::new(A_TH)], &dir);
    let doc = std::fs::read_to_string("src/schema.md").unwrap();
    let section = &doc[doc.find("\n# export").expect("schema.md has # export")..];
    for (table, columns) in TABLES {
        // The documented columns: the table under `## `TABLE``.
        let at = section
            .find(&format!("## `{table}`"))
            .unwrap_or_else(|| panic!("schema.md documents {table}"));
        let documented: Vec<(String, String, String)> = section[at..]
            .lines()
            .skip(1)
            .skip_while(|l| !l.starts_with("| `"))
            .take_while(|l| l.starts_with("| `"))
            .map(|l| {
                let cells: Vec<&str> = l.split('|').map(str::trim).collect();
                (
                    cells[1].trim_matches('`').to_string(),
                    cells[2].to_string(),
                    cells[3].to_string(),
                )
            })
            .collect();
        let actual: Vec<(String, String, String)> = columns
            .iter()
            .map(|(n, t, null)| {
                let t = match t {
                    teeoracle::export::table::Type::I32 => "int32",
                    teeoracle::export::table::Type::I64 => "int64",
                    teeoracle::export::table::Type::F64 => "double",
                    teeoracle::export::table::Type::Bool => "boolean",
                    teeoracle::export::table::Type::Str => "string",
                };
                (
                    n.to_string(),
                    t.into(),
                    if *null { "yes" } else { "no" }.into(),
                )
            })
            .collect();
        assert_eq!(documented, actual, "{table}");
        // And the file has those columns, and the version.
        let file = std::fs::File::open(dir.join(format!("{table}.parquet"))).unwrap();
        let reader = SerializedFileReader::new(file).unwrap();
        let meta = reader.metadata().file_metadata();
        let kv = meta.key_value_metadata().unwrap();
        let get = |k: &str| kv.iter().find(|e| e.key == k).and_then(|e| e.value.clone());
        assert_eq!(
            get("teeoracle.schema_version"),
            Some(SCHEMA_VERSION.to_string())
        );
        assert_eq!(get("teeoracle.table").as_deref(), Some(table));
        let names: Vec<&str> = meta
            .schema_descr()
            .columns()
            .iter()
            .map(|c| c.name())
            .collect();
        let want: Vec<&str> = columns.iter().map(|c| c.0).collect();
        assert_eq!(names, want);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_same_input_gives_the_same_bytes() {
    let (a, b) = (
        common::scratch("export-same-a"),
        common::scratch("export-same-b"),
    );
    let files = [Path::new(A_TH), Path::new(A_DEMO)];
    export(&files, &a);
    export(&files, &b);
    for (table, _) in TABLES {
        let name = format!("{table}.parquet");
        assert_eq!(
            std::fs::read(a.join(&name)).unwrap(),
            std::fs::read(b.join(&name)).unwrap(),
            "{table}"
        );
    }
    for d in [a, b] {
        std::fs::remove_dir_all(d).unwrap();
    }
}

/// `column=value` for each of `columns` of every row of `batches` that
/// `keep` keeps (given the row's text so far), a line per row.
fn rows_text(
    batches: &[arrow_array::RecordBatch],
    columns: &[&str],
    keep: impl Fn(&str) -> bool,
) -> String {
    use arrow_array::{Array, BooleanArray, Float64Array, Int32Array, Int64Array, StringArray};
    let mut out = String::new();
    for b in batches {
        for i in 0..b.num_rows() {
            let mut line = Vec::new();
            for &name in columns {
                let col = b.column_by_name(name).unwrap();
                let any = col.as_any();
                let v = if col.is_null(i) {
                    "NULL".to_string()
                } else if let Some(c) = any.downcast_ref::<StringArray>() {
                    format!("{:?}", c.value(i))
                } else if let Some(c) = any.downcast_ref::<Int32Array>() {
                    c.value(i).to_string()
                } else if let Some(c) = any.downcast_ref::<Int64Array>() {
                    c.value(i).to_string()
                } else if let Some(c) = any.downcast_ref::<Float64Array>() {
                    c.value(i).to_string()
                } else {
                    let c = any.downcast_ref::<BooleanArray>().unwrap();
                    c.value(i).to_string()
                };
                line.push(format!("{name}={v}"));
            }
            let line = line.join(" ");
            if keep(&line) {
                out.push_str(&line);
                out.push('\n');
            }
        }
    }
    out
}

/// The session tables of a map change (dm1, then ctf1: three players
/// carried over, whose names the second file records only in their
/// `Cl_StartInfo`), an rcon session (chat commands and rcon's `say`) and
/// the server's demo of ctf1, shown row by row. Checked by hand against
/// `teeoracle teehistorian dump` (see the snapshot's review notes in the
/// commit that made it): JOINs at ticks 68/78/88 and FINISH at 478 in
/// dm1; in ctf1 the JOINs DDNet records at tick 0 for the players already
/// there, DROPs at 900, 950 and 1049 ("Server shutdown").
#[test]
fn the_session_tables_of_a_map_change() {
    let dir = common::scratch("export-sessions");
    let e1 = "corpus/teehistorian/ddnet-20.1/E_map_change.1_dm1.teehistorian";
    let e2 = "corpus/teehistorian/ddnet-20.1/E_map_change.2_ctf1.teehistorian";
    let c = "corpus/teehistorian/ddnet-20.1/C_rcon_auth.teehistorian";
    let demo = "corpus/demo/ddnet-20.1/E_map_change.2_ctf1.demo";
    export(
        &[Path::new(e1), Path::new(e2), Path::new(c), Path::new(demo)],
        &dir,
    );
    let mut text = String::new();
    let mut table = |name: &str, columns: &[&str], keep: &dyn Fn(&str) -> bool| {
        let (batches, _) = read(&dir, name);
        text.push_str(&format!("# {name}\n"));
        text.push_str(&rows_text(&batches, columns, keep));
    };
    let all = |_: &str| true;
    table(
        "sessions",
        &[
            "file",
            "format",
            "version",
            "server_version",
            "net_version",
            "game_uuid",
            "prev_game_uuid",
            "start_time",
            "map_name",
            "map_crc",
            "map_sha256",
            "map_size",
            "demo_type",
            "demo_length",
            "truncated",
            "first_tick",
            "last_tick",
            "ticks",
            "seconds",
        ],
        &all,
    );
    table(
        "players",
        &[
            "file",
            "session",
            "player",
            "cid",
            "start_tick",
            "end_tick",
            "seconds",
            "start",
            "end",
            "drop_reason",
            "carried_from",
            "name",
            "name_from",
            "clan",
            "country",
        ],
        &all,
    );
    table(
        "chat",
        &[
            "file",
            "tick",
            "seconds",
            "cid",
            "player",
            "mode",
            "target_cid",
            "source",
            "text",
        ],
        &all,
    );
    // The players at ctf1's first tick and around mapper's DROP (tick 900,
    // its character gone at 901): names from their sessions, lives counted
    // on from dm1.
    let at = |ticks: &'static [&'static str]| {
        move |l: &str| l.contains("ctf1") && ticks.iter().any(|t| l.contains(t))
    };
    table(
        "player_states",
        &[
            "file", "tick", "seconds", "cid", "player", "name", "alive", "life", "x", "y",
        ],
        &at(&[" tick=1 ", " tick=900 ", " tick=901 "]),
    );
    // The demo's kills and emoticons, with their clients.
    table(
        "demo_events",
        &["file", "tick", "seconds", "kind", "message", "cid", "cid2"],
        &|l: &str| l.contains("Sv_KillMsg") || l.contains("Sv_Emoticon"),
    );
    common::snapshot("export", "sessions_of_a_map_change", &text);
    std::fs::remove_dir_all(&dir).unwrap();
}
