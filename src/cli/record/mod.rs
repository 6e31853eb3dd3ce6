//! `teeoracle record`: a real server driven by bots ([`teeoracle::bot`])
//! through a scenario, on loopback inside a network namespace of its own;
//! the server's recordings, the bots' own traffic as pcapng, the server
//! log and the scenario land in one folder, then every file is checked.
//!
//! The exit code is the verdict: 0 when the server ran the whole scenario,
//! every bot joined (or was refused as the scenario expects), every file
//! passed and the capture replays without a snapshot anomaly; 1 with one
//! sentence per problem otherwise; 2, before anything starts, for a
//! scenario, server binary or output folder that cannot be used.
//!
//! SIGINT and SIGTERM stop the run in order: the in-namespace process
//! (which gets the signal from the terminal, or from the outer process
//! that forwards it) stops the demo and the server, collects what the
//! server wrote, closes the capture and removes the temporary home; the
//! outer process waits for it.

mod clock;
mod map_command;
mod outcome;
mod pcapng;
mod replay;
mod scenario;
mod session;
mod stamped;

use super::Failure;
use super::output::{ReportFormat, shown, stdout, write_json_doc};
use clap::Args;
use map_command::MAP_CHANGE_WITHIN;
use outcome::{BotOutcome, Outcome, Timing};
use scenario::{Flavor, Scenario};
use serde::Serialize;
use session::{PORT, RCON_PASSWORD, Session};
use std::io::{Read, Seek, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use teeoracle::check::{self, Options, Status, Totals, Verdict};
use teeoracle::report::Code;
use teeoracle::session::check::SERVER_MADE;

#[derive(Args, Debug)]
pub struct RecordArgs {
    /// The server binary (DDNet's `DDNet-Server`, e.g. `/usr/games/DDNet-Server`
    /// or your own build's; Teeworlds' `teeworlds-server`).
    #[arg(long)]
    server: PathBuf,
    /// The scenario: a RON file (see `corpus/record/`).
    #[arg(long, required_unless_present = "replay", conflicts_with = "replay")]
    scenario: Option<PathBuf>,
    /// Instead of a scenario, play the game a teehistorian file recorded
    /// (its map, settings, every client's joins, inputs, commands and
    /// leaves on their ticks) into the server, and compare the two
    /// recordings player by player (docs/replay.md).
    #[arg(long, value_name = "FILE.teehistorian")]
    replay: Option<PathBuf>,
    /// Where to look for the replayed file's map (by its SHA-256), besides
    /// the file's own folder and the server's maps.
    #[arg(long, value_name = "DIR")]
    maps: Vec<PathBuf>,
    /// With `--replay`: the server changed, a tuning parameter set after
    /// the header's settings as `tune NAME VALUE` would (repeatable; the
    /// file's own tuning commands still apply). Named in `replay.json`
    /// and the comparison: the replay is no longer the recorded game.
    #[arg(long, value_name = "NAME=VALUE", value_parser = name_value)]
    tune: Vec<(String, String)>,
    /// With `--replay`: the server changed, one console command run after
    /// the header's settings (repeatable), e.g. `--config "sv_team 1"`.
    /// Named as `--tune` is.
    #[arg(long, value_name = "LINE")]
    config: Vec<String>,
    /// The folder to write (created; it must be empty or new unless
    /// `--force`).
    #[arg(short, long)]
    output: PathBuf,
    /// Write into a folder that holds files (files of the same names are
    /// replaced).
    #[arg(long)]
    force: bool,
    /// Bot behaviour seed: the same bots' inputs on the same ticks for the
    /// same seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Output: the files' table and each bot's story (`text`), or one
    /// JSON document of kind `record`.
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    format: ReportFormat,
    /// Internal: already inside the network namespace.
    #[arg(long, hide = true)]
    in_namespace: bool,
}

/// `NAME=VALUE`.
fn name_value(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((n, v)) if !n.is_empty() && !v.is_empty() => Ok((n.to_string(), v.to_string())),
        _ => Err(format!("expected NAME=VALUE, found {s:?}")),
    }
}

pub fn run(args: RecordArgs) -> Result<(), Failure> {
    // Everything that can be known before anything starts.
    if args.replay.is_none() && !(args.tune.is_empty() && args.config.is_empty()) {
        return Err(Failure::Usage(
            "--tune and --config go with --replay".into(),
        ));
    }
    let flavor = Flavor::of(&args.server);
    let (scenario, replay) = match (&args.scenario, &args.replay) {
        (Some(file), _) => (Scenario::read(file)?, None),
        (None, Some(file)) => {
            let (s, r) = replay::scenario_of(
                file,
                &args.maps,
                &args.server,
                flavor,
                &args.config,
                &args.tune,
            )?;
            (s, Some(r))
        }
        (None, None) => return Err(Failure::Usage("record: give --scenario or --replay".into())),
    };
    let what = args
        .scenario
        .as_ref()
        .or(args.replay.as_ref())
        .cloned()
        .unwrap_or_default();
    let versions = scenario
        .validate(flavor, &args.server)
        .map_err(|e| Failure::Usage(format!("{}: {e}", shown(&what))))?;
    usable_server(&args.server)?;
    usable_output(&args.output, args.force)?;
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        ctrlc::set_handler(move || stop.store(true, Ordering::SeqCst))
            .map_err(|e| Failure::bad(format!("record: cannot handle SIGINT: {e}")))?;
    }
    if !args.in_namespace {
        return reexec_in_namespace(&args, &stop);
    }
    // Inside: only loopback, brought up here.
    let up = Command::new("ip")
        .args(["link", "set", "lo", "up"])
        .stderr(Stdio::null())
        .status();
    if !up.is_ok_and(|s| s.success()) {
        return Err(Failure::bad(
            "record: cannot bring up loopback in the network namespace (`ip` from iproute2 is needed)",
        ));
    }
    std::fs::create_dir_all(&args.output)
        .map_err(|e| Failure::bad(format!("{}: {e}", shown(&args.output))))?;
    let home = tempfile::tempdir()?;
    let log_path = args.output.join("server.log");
    let log = std::fs::File::create(&log_path)?;
    let mut server = match start_server(&args.server, flavor, home.path(), &scenario, log) {
        Ok(server) => server,
        Err(e) => {
            let _ = std::fs::remove_file(&log_path);
            return Err(Failure::bad(format!(
                "record: cannot start the server {}: {e}",
                shown(&args.server)
            )));
        }
    };
    let session = Session::new(&scenario, &versions, flavor, args.seed, &args.output, &stop);
    let outcome = match session {
        Ok(s) => s.run(&mut server),
        Err(e) => Err(e),
    };
    let stopped = stop_server(&mut server);
    let files = collect(home.path(), flavor, &args.output, &what, replay.as_ref());
    let outcome = outcome.map_err(|e| Failure::bad(format!("record: {e}")))?;
    let files =
        files.map_err(|e| Failure::bad(format!("record: collecting the server's files: {e}")))?;
    drop(home);
    let replayed = match (&replay, &args.replay) {
        (Some(r), Some(original)) if !outcome.interrupted => Some(replay::compared(
            original,
            &args.output,
            r,
            scenario.map_bytes.as_deref(),
        )),
        _ => None,
    };
    let replayed = replayed.transpose();
    let judged = judge(
        &args,
        scenario.seconds,
        &outcome,
        stopped,
        &files,
        &log_path,
        replayed.as_ref().ok().and_then(Option::as_ref),
    );
    match replayed? {
        Some(r) => judged.and(r.verdict()),
        None => judged,
    }
}

/// The server binary must be an executable file: checked before anything
/// is made.
fn usable_server(server: &Path) -> Result<(), Failure> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::metadata(server)
        .map_err(|e| Failure::Usage(format!("--server {}: {e}", shown(server))))?;
    if !meta.is_file() || meta.permissions().mode() & 0o111 == 0 {
        return Err(Failure::Usage(format!(
            "--server {}: not an executable file",
            shown(server)
        )));
    }
    Ok(())
}

/// The output folder must be new or empty, unless `force`.
fn usable_output(out: &Path, force: bool) -> Result<(), Failure> {
    match std::fs::read_dir(out) {
        Ok(mut entries) => {
            if !force && entries.next().is_some() {
                return Err(Failure::Usage(format!(
                    "-o {}: the folder holds files; name a new or empty folder, or add --force \
                     to write into it (files of the same names are replaced)",
                    shown(out)
                )));
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Failure::Usage(format!("-o {}: {e}", shown(out)))),
    }
}

/// Runs this same command again inside a network namespace (`unshare -n`
/// as root, else `unshare -rn`: a user namespace mapping this user to
/// root), and waits for it: a signal that reaches only this process is
/// passed on, and the inner one cleans up.
fn reexec_in_namespace(args: &RecordArgs, stop: &AtomicBool) -> Result<(), Failure> {
    let me = crate::cli::again()?;
    let Some(flags) = namespace_flags() else {
        return Err(Failure::bad(
            "record: no network namespace can be made here: neither `unshare -n` (as root) \
             nor `unshare -rn` (user namespaces) works, and record runs a server only on a \
             loopback of its own (install util-linux, run as root, or allow unprivileged \
             user namespaces)",
        ));
    };
    let mut cmd = Command::new("unshare");
    cmd.args(flags).args(&me).arg("record");
    cmd.arg("--server").arg(&args.server);
    if let Some(s) = &args.scenario {
        cmd.arg("--scenario").arg(s);
    }
    if let Some(r) = &args.replay {
        cmd.arg("--replay").arg(r);
    }
    for m in &args.maps {
        cmd.arg("--maps").arg(m);
    }
    for (name, value) in &args.tune {
        cmd.arg("--tune").arg(format!("{name}={value}"));
    }
    for line in &args.config {
        cmd.arg("--config").arg(line);
    }
    cmd.arg("--output").arg(&args.output);
    cmd.arg("--seed").arg(args.seed.to_string());
    cmd.arg("--format").arg(match args.format {
        ReportFormat::Text => "text",
        ReportFormat::Json => "json",
    });
    if args.force {
        cmd.arg("--force");
    }
    cmd.arg("--in-namespace");
    let mut child = cmd
        .spawn()
        .map_err(|e| Failure::bad(format!("record: cannot run `unshare`: {e}")))?;
    let mut forwarded: Option<Instant> = None;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if stop.load(Ordering::SeqCst) && forwarded.is_none() {
            signal(child.id(), "TERM");
            forwarded = Some(Instant::now());
        }
        // The inner process is bounded; this bounds the wait for it too.
        if forwarded.is_some_and(|f| f.elapsed() > Duration::from_secs(60)) {
            let _ = child.kill();
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    match status.code() {
        Some(0) => Ok(()),
        // Bad usage, already said by the inner process.
        Some(2) => std::process::exit(2),
        _ => Err(Failure::reported("record failed")),
    }
}

/// The `unshare` flags that make a network namespace here, tried quietly.
fn namespace_flags() -> Option<&'static [&'static str]> {
    [&["-n"][..], &["-r", "-n"][..]].into_iter().find(|flags| {
        Command::new("unshare")
            .args(*flags)
            .arg("true")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

/// Sends SIGname to `pid` (through kill(1): no libc here).
fn signal(pid: u32, name: &str) {
    let _ = Command::new("kill")
        .arg(format!("-{name}"))
        .arg(pid.to_string())
        .stderr(Stdio::null())
        .status();
}

fn start_server(
    binary: &Path,
    flavor: Flavor,
    home: &Path,
    scenario: &Scenario,
    log: std::fs::File,
) -> std::io::Result<Child> {
    // Snapshots every tick (sv_high_bandwidth): the bots' clock moves
    // every tick.
    let mut config = format!(
        "sv_register 0; sv_port {PORT}; sv_rcon_password {RCON_PASSWORD}; sv_high_bandwidth 1"
    );
    if flavor == Flavor::Ddnet {
        config.push_str("; sv_tee_historian 1");
    }
    if let Some(map) = &scenario.map {
        config.push_str(&format!("; sv_map \"{map}\""));
    }
    for line in &scenario.server_config {
        config.push_str("; ");
        config.push_str(line);
    }
    let err = log.try_clone()?;
    let data = home.join("share").join(flavor.data());
    if let (Some(map), Some(bytes)) = (&scenario.map, &scenario.map_bytes) {
        std::fs::create_dir_all(data.join("maps"))?;
        std::fs::write(data.join("maps").join(format!("{map}.map")), bytes)?;
    }
    if flavor == Flavor::Teeworlds {
        std::fs::create_dir_all(&data)?;
        std::fs::write(data.join("autoexec.cfg"), config.replace("; ", "\n") + "\n")?;
    }
    Command::new(binary)
        .arg(config)
        .current_dir(home)
        .env("HOME", home)
        .env("XDG_DATA_HOME", home.join("share"))
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(err)
        // Its own process group: a Ctrl-C at the terminal reaches
        // teeoracle, which stops the server in order.
        .process_group(0)
        .spawn()
}

/// How the server ended when it was stopped.
enum Stopped {
    /// It had already ended (the scenario killed it, or it exited).
    Before,
    /// SIGINT (or rcon `shutdown`) stopped it, with this status.
    Cleanly(ExitStatus),
    /// It did not stop within 10 s of SIGINT and was killed.
    Killed,
}

/// Stops the server as an operator would (SIGINT), then for good.
fn stop_server(server: &mut Child) -> Stopped {
    if let Ok(Some(_)) = server.try_wait() {
        return Stopped::Before;
    }
    signal(server.id(), "INT");
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if let Ok(Some(status)) = server.try_wait() {
            return Stopped::Cleanly(status);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = server.kill();
    let _ = server.wait();
    Stopped::Killed
}

/// The server's recordings into `out`, and the scenario beside them: the
/// files written, in the order they are checked. Teehistorian files are
/// named by role, not by the game's random UUID: `server.teehistorian`
/// when there is one, else `server-1.teehistorian`, `server-2...` in the
/// order the server started them, so two runs' folders compare file by
/// file.
fn collect(
    home: &Path,
    flavor: Flavor,
    out: &Path,
    scenario: &Path,
    replayed: Option<&replay::Replay>,
) -> std::io::Result<Vec<PathBuf>> {
    let data = home.join("share").join(flavor.data());
    let mut written = vec![out.join("bots.pcapng")];
    let files_in = |folder: &str| -> Vec<PathBuf> {
        let Ok(entries) = std::fs::read_dir(data.join(folder)) else {
            return Vec::new();
        };
        let mut files: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        files.retain(|f| f.is_file());
        files.sort();
        files
    };
    let histories = in_start_order(files_in("teehistorian"));
    let single = histories.len() == 1;
    for (i, f) in histories.iter().enumerate() {
        let name = match single {
            true => "server.teehistorian".to_string(),
            false => format!("server-{}.teehistorian", i + 1),
        };
        std::fs::copy(f, out.join(&name))?;
        written.push(out.join(name));
    }
    for f in files_in("demos") {
        if let Some(name) = f.file_name() {
            std::fs::copy(&f, out.join(name))?;
            written.push(out.join(name));
        }
    }
    match replayed {
        // The replayed file beside its replay, and what the replay made of it.
        Some(replay) => {
            std::fs::copy(scenario, out.join("original.teehistorian"))?;
            std::fs::write(out.join("replay.json"), replay.json())?;
        }
        None => {
            std::fs::copy(scenario, out.join("scenario.ron"))?;
        }
    }
    written.sort();
    Ok(written)
}

/// Teehistorian files in the order the server started them: along the
/// header's `prev_game_uuid` chain where it has one, else by `start_time`,
/// then by when each was last written.
fn in_start_order(files: Vec<PathBuf>) -> Vec<PathBuf> {
    struct File {
        path: PathBuf,
        uuid: String,
        prev: String,
        start: String,
        modified: Option<std::time::SystemTime>,
    }
    let mut read: Vec<File> = files
        .into_iter()
        .map(|path| {
            let header = header_of(&path).unwrap_or_default();
            let field = |k: &str| header[k].as_str().unwrap_or_default().to_string();
            File {
                uuid: field("game_uuid"),
                prev: field("prev_game_uuid"),
                start: field("start_time"),
                modified: std::fs::metadata(&path).and_then(|m| m.modified()).ok(),
                path,
            }
        })
        .collect();
    read.sort_by(|a, b| (&a.start, a.modified).cmp(&(&b.start, b.modified)));
    // Along the chain: each file after the one whose game it follows.
    let mut ordered: Vec<File> = Vec::new();
    while !read.is_empty() {
        let next = ordered
            .last()
            .and_then(|last| {
                read.iter()
                    .position(|f| !f.prev.is_empty() && f.prev == last.uuid)
            })
            .or_else(|| {
                // A file that follows none of those left, else the first.
                read.iter()
                    .position(|f| !read.iter().any(|g| !g.uuid.is_empty() && g.uuid == f.prev))
            })
            .unwrap_or(0);
        ordered.push(read.remove(next));
    }
    ordered.into_iter().map(|f| f.path).collect()
}

/// A teehistorian file's JSON header (after the 16-byte magic, up to its
/// NUL), read from at most its first 64 KiB.
fn header_of(path: &Path) -> Option<serde_json::Value> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(64 * 1024)
        .read_to_end(&mut bytes)
        .ok()?;
    let json = bytes.get(16..)?;
    let end = json.iter().position(|&b| b == 0)?;
    serde_json::from_slice(&json[..end]).ok()
}

/// The name of signal `n`.
fn signal_name(n: i32) -> String {
    let name = match n {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        5 => "SIGTRAP",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        15 => "SIGTERM",
        _ => return format!("signal {n}"),
    };
    format!("{name} (signal {n})")
}

/// How a process ended, in words.
fn ended(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(c), _) => format!("exited with code {c}"),
        (None, Some(s)) => format!(
            "died from {}{}",
            signal_name(s),
            if status.core_dumped() {
                ", core dumped"
            } else {
                ""
            }
        ),
        (None, None) => "ended".into(),
    }
}

/// The server log's lines worth showing with a failure: those that say
/// something failed, else its last lines. Read from its last 256 KiB.
fn log_lines(log: &Path) -> Vec<String> {
    let mut text = String::new();
    if let Ok(mut f) = std::fs::File::open(log) {
        let len = f.metadata().map_or(0, |m| m.len());
        let _ = f.seek(std::io::SeekFrom::Start(len.saturating_sub(256 * 1024)));
        let mut bytes = Vec::new();
        let _ = f.read_to_end(&mut bytes);
        text = String::from_utf8_lossy(&bytes).into_owned();
    }
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let bad: Vec<String> = lines
        .iter()
        .filter(|l| {
            let l = l.to_lowercase();
            // Not the optional config files every fresh home lacks.
            !l.contains(".cfg")
                && ["fail", "error", "couldn't", "could not", "cannot", "unable"]
                    .iter()
                    .any(|w| l.contains(w))
        })
        .take(8)
        .map(|l| l.to_string())
        .collect();
    if !bad.is_empty() {
        return bad;
    }
    lines[lines.len().saturating_sub(5)..]
        .iter()
        .map(|l| l.to_string())
        .collect()
}

/// A `record --format json` document.
#[derive(Serialize)]
struct Report<'a> {
    files: &'a [Verdict],
    totals: &'a Totals,
    bots: &'a [BotOutcome],
    /// The scenario clock at the end (ticks from the first snapshot).
    end_tick: u32,
    /// Whether the server kept to its ticks, and what the bots sent in
    /// ticks it overran.
    timing: &'a Timing,
    /// Why the run failed: one sentence each (empty: it passed).
    problems: &'a [String],
    /// The server log's lines that go with the problems.
    server_log: &'a [String],
    /// `--replay`: the replayed game against the original, and what the
    /// replay could not give back.
    #[serde(skip_serializing_if = "Option::is_none")]
    replay: Option<&'a replay::Replayed>,
}

/// Checks the files, names every problem, prints the report: the verdict.
fn judge(
    args: &RecordArgs,
    seconds: f64,
    outcome: &Outcome,
    stopped: Stopped,
    files: &[PathBuf],
    log: &Path,
    replayed: Option<&replay::Replayed>,
) -> Result<(), Failure> {
    let mut problems: Vec<String> = Vec::new();
    let mut show_log = false;
    if outcome.interrupted {
        problems.push(format!(
            "interrupted: the server was stopped and what it wrote is in {}",
            shown(&args.output)
        ));
    }
    if let Some((status, second)) = outcome.server_exited {
        problems.push(format!(
            "the server {} {second:.1} s after it started, before the scenario ended",
            ended(status)
        ));
        show_log = true;
    }
    if outcome.never_answered {
        problems.push(format!(
            "the server never answered: no bot had a snapshot within 15 s (port {PORT} on loopback)"
        ));
        show_log = true;
    }
    if let Some((command, tick)) = &outcome.no_map_change {
        problems.push(format!(
            "no MAP_CHANGE reached the bots within {MAP_CHANGE_WITHIN} ticks ({} s) of the \
             remote console command `{command}` sent at tick {tick} (the bots send no input \
             until the map changes), so the run was stopped at tick {}",
            MAP_CHANGE_WITHIN / 50,
            tick.saturating_add(MAP_CHANGE_WITHIN)
        ));
        show_log = true;
    }
    if outcome.timed_out {
        problems.push(format!(
            "the scenario did not reach its end within its {seconds} s and 30 s more \
             (its clock stopped at tick {}: the server's ticks stalled)",
            outcome.end_tick
        ));
        show_log = true;
    }
    match stopped {
        Stopped::Killed => {
            problems.push("the server did not stop within 10 s of SIGINT and was killed".into());
            show_log = true;
        }
        Stopped::Cleanly(status) if !status.success() && !outcome.interrupted => {
            problems.push(format!("the server {} when it was stopped", ended(status)));
            show_log = true;
        }
        _ => {}
    }
    let log_text = std::fs::read_to_string(log).unwrap_or_default();
    if let Some(line) = log_text
        .lines()
        .find(|l| l.to_lowercase().contains("failed to load map"))
    {
        problems.push(format!(
            "the server failed to load its map: {}",
            line.trim()
        ));
        show_log = true;
    }
    // Only when the server was up: a dead server's bots are its story.
    if !show_log && !outcome.interrupted {
        problems.extend(outcome.bots.iter().filter_map(BotOutcome::problem));
    }
    // The files, checked in process.
    let mut verdicts = Vec::new();
    if !outcome.interrupted {
        // The teehistorian file is simulated on its map (the demo beside
        // it embeds it, else the server's maps folders), and compared
        // with the demo of its session: a server whose physics differs
        // from DDNet's fails here, not only in a later `check`.
        let listed: Vec<(PathBuf, bool)> = files.iter().map(|f| (f.clone(), true)).collect();
        let map_dirs = scenario::map_dirs(&args.server, Flavor::of(&args.server));
        let maps = crate::cli::maps::maps_for(&listed, &map_dirs, true)?;
        let options = Options {
            maps: Some(std::sync::Arc::new(maps)),
            ..Options::default()
        };
        for f in files {
            let mut v = check::check(check::Source::arg(f), &options);
            v.path = shown(f);
            verdicts.push(v);
        }
    }
    let totals = Totals::of(&verdicts);
    for v in &verdicts {
        if v.status == Status::Fail {
            problems.push(format!("{} failed its check", v.path));
        }
        let mut anomalies: Vec<(Code, u64)> = Vec::new();
        // The server's own anomalies are its story, named in the file's
        // findings, not the bots'.
        let bots_own = |c: Code| c.is_snapshot_anomaly() && !SERVER_MADE.contains(&c);
        for f in v.findings.iter().filter(|f| bots_own(f.code)) {
            let n = f.count.unwrap_or(1);
            match anomalies.iter_mut().find(|(c, _)| *c == f.code) {
                Some((_, total)) => *total += n,
                None => anomalies.push((f.code, n)),
            }
        }
        if !anomalies.is_empty() {
            let listed: Vec<String> = anomalies.iter().map(|(c, n)| format!("{n} {c}")).collect();
            problems.push(format!(
                "{} has snapshot anomalies: {} (a recording of teeoracle's bots must have none)",
                v.path,
                listed.join(", ")
            ));
        }
    }
    let server_log = if show_log { log_lines(log) } else { Vec::new() };
    let mut out = stdout();
    match args.format {
        ReportFormat::Json => write_json_doc(
            &mut out,
            "record",
            &Report {
                files: &verdicts,
                totals: &totals,
                bots: &outcome.bots,
                end_tick: outcome.end_tick,
                timing: &outcome.timing,
                problems: &problems,
                server_log: &server_log,
                replay: replayed,
            },
        )?,
        ReportFormat::Text => {
            if !verdicts.is_empty() {
                super::reports::write_table(&mut out, &verdicts, &totals)?;
                writeln!(out)?;
            }
            let width = outcome.bots.iter().map(|b| b.name.len()).max().unwrap_or(0);
            writeln!(
                out,
                "bots (ticks of the scenario clock, 50 a second from the first bot's accept):"
            )?;
            for b in &outcome.bots {
                writeln!(out, "  {:<width$}  {}", b.name, b.line())?;
            }
            timing_report(&mut out, &outcome.timing)?;
            if let Some(r) = replayed {
                writeln!(out, "{}", r.text())?;
            }
        }
    }
    out.flush()?;
    drop(out);
    if problems.is_empty() {
        return Ok(());
    }
    for p in &problems {
        eprintln!("teeoracle: record failed: {p}");
    }
    if !server_log.is_empty() {
        eprintln!("  the server log ({}) says:", shown(log));
        for l in &server_log {
            eprintln!("    {l}");
        }
    }
    Err(Failure::reported("record failed"))
}

/// The server's timing, in a few lines: the ticks it overran, and what
/// the bots sent in them (which may be recorded a tick late).
fn timing_report(out: &mut impl Write, timing: &Timing) -> std::io::Result<()> {
    let n = timing.overran.len();
    let late = if timing.at_risk.is_empty() {
        "nothing the bots sent fell in them"
    } else {
        "what the bots sent then may be recorded a tick late:"
    };
    match (n, timing.at_risk.is_empty()) {
        (0, true) => return writeln!(out, "timing: the server kept to its ticks"),
        (0, false) => writeln!(
            out,
            "timing: the server kept to its ticks, but the bots sent after their tick was over; {late}"
        )?,
        _ => writeln!(
            out,
            "timing: the server overran {n} tick{} (snapshots left after the next tick began); {late}",
            if n == 1 { "" } else { "s" },
        )?,
    }
    for r in &timing.at_risk {
        writeln!(out, "  tick {}  {} {} ({})", r.tick, r.bot, r.action, r.why)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::outcome::{AtRisk, Timing};

    fn report(overran: &[u32], at_risk: &[(u32, &'static str)]) -> String {
        let timing = Timing {
            overran: overran.to_vec(),
            at_risk: (at_risk.iter())
                .map(|&(tick, why)| AtRisk {
                    tick,
                    bot: "b1".into(),
                    action: "join",
                    why,
                })
                .collect(),
        };
        let mut out = Vec::new();
        super::timing_report(&mut out, &timing).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_timing_line_names_what_the_bots_sent_late_even_on_a_server_that_kept_time() {
        assert_eq!(report(&[], &[]), "timing: the server kept to its ticks\n");
        assert_eq!(
            report(&[], &[(26, "sent after the tick was over")]),
            "timing: the server kept to its ticks, but the bots sent after their tick was over; \
             what the bots sent then may be recorded a tick late:\n  \
             tick 26  b1 join (sent after the tick was over)\n"
        );
        assert_eq!(
            report(&[7], &[]),
            "timing: the server overran 1 tick (snapshots left after the next tick began); \
             nothing the bots sent fell in them\n"
        );
    }
}
