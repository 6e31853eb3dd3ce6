//! `teeoracle record`: a real server driven by bots ([`teeoracle::bot`])
//! through a scenario, on loopback inside a network namespace of its own;
//! the server's recordings, the bots' own traffic as pcapng, the server
//! log and the scenario land in one folder, then `check` runs on it.

use super::Failure;
use super::output::shown;
use clap::Args;
use serde::Deserialize;
use std::io::Write;
use std::net::{Ipv4Addr, SocketAddr, UdpSocket};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime};
use teeoracle::bot::{Bot, Phase};
use teeoracle::packet::Version;

#[derive(Args, Debug)]
pub struct RecordArgs {
    /// The server binary (DDNet's `DDNet-Server`, e.g. `/usr/games/DDNet-Server`
    /// or your own build's).
    #[arg(long)]
    server: PathBuf,
    /// The scenario: a RON file (see `corpus/record/`).
    #[arg(long)]
    scenario: PathBuf,
    /// The folder to write (created; must be empty or new).
    #[arg(short, long)]
    output: PathBuf,
    /// Bot behaviour seed (the same bots' inputs for the same seed; the
    /// server's timing still varies).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Internal: already inside the network namespace.
    #[arg(long, hide = true)]
    in_namespace: bool,
}

/// A scenario: bots joining, moving, chatting and leaving, in seconds
/// from the start.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Scenario {
    /// The map (default: the server's).
    #[serde(default)]
    map: Option<String>,
    /// How long the run lasts, at most 600 s.
    seconds: f64,
    /// Record a server demo through the remote console (`record`).
    #[serde(default)]
    demo: bool,
    /// Remote console commands the first bot runs: (second, command),
    /// e.g. `change_map dm1`.
    #[serde(default)]
    rcon: Vec<(f64, String)>,
    /// Server settings added to teeoracle's own, e.g. `conn_timeout 5`
    /// (DDNet drops a silent client after 100 s by default).
    #[serde(default)]
    server_config: Vec<String>,
    /// Kill the server (SIGKILL) at this second: its files end cut, as a
    /// crashed server's do.
    #[serde(default)]
    kill_server: Option<f64>,
    bots: Vec<BotPlan>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BotPlan {
    name: String,
    #[serde(default)]
    join: f64,
    #[serde(default)]
    leave: Option<f64>,
    #[serde(default)]
    moves: bool,
    /// Chat lines: (second, text).
    #[serde(default)]
    say: Vec<(f64, String)>,
    /// Stop answering at this second (the server times it out).
    #[serde(default)]
    silent: Option<f64>,
    /// `"0.6"` (DDNet's, with its token) or `"0.7"`; default: 0.6 on a
    /// DDNet server, 0.7 on Teeworlds'.
    #[serde(default)]
    protocol: Option<String>,
}

/// Which server it is, by the binary's name: Teeworlds 0.7.5 has no
/// teehistorian, reads its settings from `autoexec.cfg` in its data
/// folder and has no SIGINT handler (it is stopped with rcon `shutdown`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flavor {
    Ddnet,
    Teeworlds,
}

impl Flavor {
    fn of(binary: &Path) -> Flavor {
        let name = binary
            .file_name()
            .map(|n| n.to_string_lossy().to_lowercase());
        match name.is_some_and(|n| n.contains("teeworlds")) {
            true => Flavor::Teeworlds,
            false => Flavor::Ddnet,
        }
    }

    /// The server's data folder under `$XDG_DATA_HOME`.
    fn data(self) -> &'static str {
        match self {
            Flavor::Ddnet => "ddnet",
            Flavor::Teeworlds => "teeworlds",
        }
    }
}

/// The port the server listens on inside the namespace.
const PORT: u16 = 8303;
/// The remote console password the scenario's first bot uses.
const RCON_PASSWORD: &str = "teeoracle";
/// A game tick.
const TICK: Duration = Duration::from_millis(20);
/// Datagrams a bot reads per step at most (a server sends a few per tick).
const MAX_RECEIVED_PER_STEP: usize = 256;

pub fn run(args: RecordArgs) -> Result<(), Failure> {
    let text = std::fs::read_to_string(&args.scenario)
        .map_err(|e| Failure::bad(format!("{}: {e}", shown(&args.scenario))))?;
    let scenario: Scenario = ron::from_str(&text)
        .map_err(|e| Failure::Usage(format!("{}: {e}", shown(&args.scenario))))?;
    if !(0.0..=600.0).contains(&scenario.seconds) || scenario.bots.len() > 128 {
        return Err(Failure::Usage(format!(
            "{}: at most 600 seconds and 128 bots",
            shown(&args.scenario)
        )));
    }
    if !args.in_namespace {
        return reexec_in_namespace(&args);
    }
    // Inside: only loopback, brought up here.
    let up = Command::new("ip")
        .args(["link", "set", "lo", "up"])
        .status();
    if !up.is_ok_and(|s| s.success()) {
        return Err(Failure::bad(
            "record: cannot bring up loopback in the namespace",
        ));
    }
    std::fs::create_dir_all(&args.output)?;
    let home = tempfile::tempdir()?;
    let log = std::fs::File::create(args.output.join("server.log"))?;
    let flavor = Flavor::of(&args.server);
    let mut server = start_server(&args.server, flavor, home.path(), &scenario, log)?;
    let result = drive(&scenario, flavor, args.seed, &args.output, &mut server);
    stop(&mut server);
    result?;
    collect(home.path(), flavor, &args.output, &args.scenario)?;
    Ok(())
}

/// Runs this same command again inside `unshare -n` (a namespace with
/// only loopback: DDNet 16.4 and Teeworlds 0.7.5 cannot bind 127.0.0.1,
/// so the server binds every address of a namespace that has no other).
fn reexec_in_namespace(args: &RecordArgs) -> Result<(), Failure> {
    let me = std::env::current_exe()?;
    // As root a network namespace is plain; otherwise a user namespace
    // maps this user to root inside it (where the distribution allows).
    let mut last = None;
    for flags in [&["-n"][..], &["-r", "-n"][..]] {
        let mut cmd = Command::new("unshare");
        cmd.args(flags).arg(&me).arg("record");
        cmd.arg("--server").arg(&args.server);
        cmd.arg("--scenario").arg(&args.scenario);
        cmd.arg("--output").arg(&args.output);
        cmd.arg("--seed").arg(args.seed.to_string());
        cmd.arg("--in-namespace");
        let status = cmd.status().map_err(|e| {
            Failure::bad(format!(
                "record needs `unshare` (util-linux) to run the server on loopback only: {e}"
            ))
        })?;
        let started = args.output.join("server.log").exists();
        match status.code() {
            // The recordings are written; check them.
            Some(0) => {
                return super::check::run(super::check::CheckArgs::of(vec![args.output.clone()]));
            }
            _ if started => {
                return Err(Failure::reported(format!(
                    "record failed (exit {})",
                    status
                        .code()
                        .map_or("by a signal".into(), |c| c.to_string())
                )));
            }
            // Nothing started: this `unshare` was refused; try the next.
            code => last = code,
        }
    }
    Err(Failure::reported(format!(
        "record: no network namespace: neither `unshare -n` (root) nor `unshare -rn` \
         (user namespaces) works here (exit {last:?})"
    )))
}

fn start_server(
    binary: &Path,
    flavor: Flavor,
    home: &Path,
    scenario: &Scenario,
    log: std::fs::File,
) -> Result<Child, Failure> {
    let mut config = format!("sv_register 0; sv_port {PORT}; sv_rcon_password {RCON_PASSWORD}");
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
        .spawn()
        .map_err(|e| Failure::bad(format!("{}: {e}", binary.display())))
}

/// Stops the server as an operator would (SIGINT), then for good.
fn stop(server: &mut Child) {
    if let Ok(Some(_)) = server.try_wait() {
        return; // killed by the scenario
    }
    let _ = Command::new("kill")
        .args(["-INT", &server.id().to_string()])
        .stderr(Stdio::null())
        .status();
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = server.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = server.kill();
    let _ = server.wait();
}

/// One bot, its socket and its plan.
struct Running<'p> {
    bot: Bot,
    socket: UdpSocket,
    plan: &'p BotPlan,
    said: usize,
}

fn drive(
    scenario: &Scenario,
    flavor: Flavor,
    seed: u64,
    out: &Path,
    server_process: &mut Child,
) -> Result<(), Failure> {
    let server = SocketAddr::from((Ipv4Addr::LOCALHOST, PORT));
    let mut capture = Pcapng::create(&out.join("bots.pcapng"))?;
    let mut bots = Vec::new();
    for (i, plan) in scenario.bots.iter().enumerate() {
        let socket = UdpSocket::bind((Ipv4Addr::LOCALHOST, 0))?;
        socket.set_nonblocking(true)?;
        let version = match (plan.protocol.as_deref(), flavor) {
            (Some("0.7"), _) | (None, Flavor::Teeworlds) => Version::V07,
            (Some("0.6"), _) | (None, Flavor::Ddnet) => Version::V06,
            (Some(other), _) => {
                return Err(Failure::Usage(format!(
                    "bot {}: protocol {other:?} (expected \"0.6\" or \"0.7\")",
                    plan.name
                )));
            }
        };
        let bot = Bot::new(&plan.name, version, seed.wrapping_add(i as u64));
        bots.push(Running {
            bot,
            socket,
            plan,
            said: 0,
        });
    }
    let start = Instant::now();
    let end = start + Duration::from_secs_f64(scenario.seconds);
    let mut next = start;
    let mut buf = [0u8; 2048];
    let (mut logged_in, mut demo_started, mut rcon_done) = (false, false, 0);
    while Instant::now() < end {
        let t = start.elapsed().as_secs_f64();
        if scenario.kill_server.is_some_and(|k| t >= k) {
            let _ = server_process.kill();
            let _ = server_process.wait();
            break;
        }
        for (i, r) in bots.iter_mut().enumerate() {
            let me = r.socket.local_addr()?;
            // What arrived since the last step, bounded per step.
            for _ in 0..MAX_RECEIVED_PER_STEP {
                let Ok((n, from)) = r.socket.recv_from(&mut buf) else {
                    break;
                };
                capture.packet(from, me, &buf[..n])?;
                r.bot.receive(&buf[..n]);
            }
            if r.bot.phase() == Phase::Idle && t >= r.plan.join {
                r.bot.connect();
            }
            if r.bot.phase() == Phase::InGame {
                // The first bot is the operator: it logs in to the remote
                // console, starts the demo, runs the scenario's commands
                // (and stops a Teeworlds server at the end).
                let needs_rcon = scenario.demo || !scenario.rcon.is_empty();
                if i == 0 && !logged_in && (needs_rcon || flavor == Flavor::Teeworlds) {
                    r.bot.rcon_login(RCON_PASSWORD);
                    logged_in = true;
                    if scenario.demo {
                        r.bot.rcon("record teeoracle");
                        demo_started = true;
                    }
                }
                while let Some((at, cmd)) = scenario.rcon.get(rcon_done).filter(|_| i == 0) {
                    if t < *at {
                        break;
                    }
                    r.bot.rcon(cmd);
                    rcon_done += 1;
                }
                while let Some((at, text)) = r.plan.say.get(r.said) {
                    if t < *at {
                        break;
                    }
                    r.bot.say(text);
                    r.said += 1;
                }
            }
            if r.plan.silent.is_some_and(|q| t >= q) {
                r.bot.go_silent();
            } else if r.plan.leave.is_some_and(|l| t >= l) {
                if i == 0 && demo_started {
                    r.bot.rcon("stoprecord");
                    r.bot.tick(false);
                    demo_started = false;
                }
                r.bot.leave("");
            } else {
                r.bot.tick(r.plan.moves);
            }
            while let Some(d) = r.bot.poll_transmit() {
                capture.packet(me, server, &d)?;
                let _ = r.socket.send_to(&d, server);
            }
        }
        next += TICK;
        if let Some(wait) = next.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
    }
    // Teeworlds 0.7.5 has no SIGINT handler: the operator shuts it down.
    if flavor == Flavor::Teeworlds
        && let Some(op) = bots.first_mut()
        && logged_in
        && op.bot.phase() == Phase::InGame
    {
        if demo_started {
            op.bot.rcon("stoprecord");
        }
        op.bot.rcon("shutdown");
        op.bot.tick(false);
    }
    for r in &mut bots {
        r.bot.leave("");
        let me = r.socket.local_addr()?;
        while let Some(d) = r.bot.poll_transmit() {
            capture.packet(me, server, &d)?;
            let _ = r.socket.send_to(&d, server);
        }
    }
    capture.finish()
}

/// The server's recordings into `out`, and the scenario beside them. A
/// single teehistorian file is named `server.teehistorian` (its own name
/// is the game's random UUID), so two runs' folders compare file by file.
fn collect(home: &Path, flavor: Flavor, out: &Path, scenario: &Path) -> Result<(), Failure> {
    let data = home.join("share").join(flavor.data());
    for folder in ["teehistorian", "demos"] {
        let Ok(entries) = std::fs::read_dir(data.join(folder)) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        files.retain(|f| f.is_file());
        files.sort();
        let single = files.len() == 1 && folder == "teehistorian";
        for f in &files {
            let name = match (single, f.file_name()) {
                (true, _) => "server.teehistorian".into(),
                (false, Some(name)) => name.to_owned(),
                (false, None) => continue,
            };
            std::fs::copy(f, out.join(name))?;
        }
    }
    std::fs::copy(scenario, out.join("scenario.ron"))?;
    Ok(())
}

/// A pcapng file of IPv4/UDP datagrams (link type RAW), written as they
/// pass.
struct Pcapng {
    writer: pcap_file::pcapng::PcapNgWriter<std::io::BufWriter<std::fs::File>>,
}

impl Pcapng {
    fn create(path: &Path) -> Result<Pcapng, Failure> {
        use pcap_file::pcapng::blocks::interface_description::{
            InterfaceDescriptionBlock, InterfaceDescriptionOption,
        };
        let file = std::io::BufWriter::new(std::fs::File::create(path)?);
        let bad = |e: pcap_file::PcapError| Failure::bad(format!("{}: {e}", path.display()));
        let mut writer = pcap_file::pcapng::PcapNgWriter::new(file).map_err(bad)?;
        let idb = InterfaceDescriptionBlock {
            linktype: pcap_file::DataLink::RAW,
            snaplen: 0,
            // pcap-file writes timestamps in nanoseconds; the default
            // resolution is microseconds.
            options: vec![InterfaceDescriptionOption::IfTsResol(9)],
        };
        writer.write_pcapng_block(idb).map_err(bad)?;
        Ok(Pcapng { writer })
    }

    fn packet(&mut self, from: SocketAddr, to: SocketAddr, payload: &[u8]) -> Result<(), Failure> {
        use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketBlock;
        let (SocketAddr::V4(from), SocketAddr::V4(to)) = (from, to) else {
            return Ok(());
        };
        let builder = etherparse::PacketBuilder::ipv4(from.ip().octets(), to.ip().octets(), 64)
            .udp(from.port(), to.port());
        let mut data = Vec::with_capacity(builder.size(payload.len()));
        builder
            .write(&mut data, payload)
            .map_err(|e| Failure::bad(format!("pcapng: {e}")))?;
        let timestamp = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default();
        let block = EnhancedPacketBlock {
            interface_id: 0,
            timestamp,
            original_len: data.len() as u32,
            data: data.into(),
            options: Vec::new(),
        };
        self.writer
            .write_pcapng_block(block)
            .map_err(|e| Failure::bad(format!("pcapng: {e}")))?;
        Ok(())
    }

    fn finish(self) -> Result<(), Failure> {
        self.writer.into_inner().flush()?;
        Ok(())
    }
}
