//! `teeoracle snapshot ...` (raw snapshot and delta files) and
//! `teeoracle demo snapshot`.

use super::Failure;
use super::output::{read_raw, shown, stdout, write_json_doc, write_ron};
use clap::{Subcommand, ValueEnum};
use std::io::Write;
use std::path::{Path, PathBuf};
use teeoracle::packet::Version;
use teeoracle::snapshot::items::SnapshotJson;
use teeoracle::snapshot::{Delta, ItemSizes, Snapshot, apply, create};

#[derive(Subcommand, Debug)]
#[command(defer = true)]
pub enum SnapshotCommand {
    /// The items of a snapshot, typed, with CRC and size.
    Dump {
        /// The snapshot: little-endian int32s (`-`: standard input).
        file: PathBuf,
        /// Which netobj table names the items: 0.6/DDNet or 0.7.
        #[arg(long, value_enum, default_value_t = SizesArg::V06)]
        protocol: SizesArg,
        /// `text` for people; `json` and `ron` also carry each item's raw ints.
        #[arg(long, value_enum, default_value_t = ItemsFormat::Text)]
        format: ItemsFormat,
    },
    /// Deltas between snapshots, as DDNet makes and applies them.
    #[command(subcommand)]
    Delta(DeltaCommand),
}

#[derive(Subcommand, Debug)]
#[command(defer = true)]
pub enum DeltaCommand {
    /// DDNet's CreateDelta(FROM, TO), written as int32s.
    Create {
        /// The base snapshot (int32s; `-`: standard input).
        from: PathBuf,
        /// The snapshot to reach.
        to: PathBuf,
        /// Pre-agreed item sizes: DDNet's 0.6 table or Teeworlds 0.7's.
        #[arg(long, value_enum, default_value_t = SizesArg::V06)]
        sizes: SizesArg,
        /// Write the delta here (default: standard output).
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// A delta's removed keys and item updates.
    Dump {
        /// The delta (int32s; `-`: standard input).
        file: PathBuf,
        /// Pre-agreed item sizes: DDNet's 0.6 table or Teeworlds 0.7's.
        #[arg(long, value_enum, default_value_t = SizesArg::V06)]
        sizes: SizesArg,
        /// `text` for people, `json` or `ron` for programs.
        #[arg(long, value_enum, default_value_t = ItemsFormat::Text)]
        format: ItemsFormat,
    },
    /// DDNet's UnpackDelta(FROM, DELTA), written as int32s.
    Apply {
        /// The base snapshot (int32s; `-`: standard input).
        from: PathBuf,
        /// The delta (int32s).
        delta: PathBuf,
        /// Pre-agreed item sizes: DDNet's 0.6 table or Teeworlds 0.7's.
        #[arg(long, value_enum, default_value_t = SizesArg::V06)]
        sizes: SizesArg,
        /// Write the snapshot here (default: standard output).
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum SizesArg {
    /// DDNet's 0.6 tables.
    #[value(name = "0.6")]
    V06,
    /// Teeworlds 0.7's tables.
    #[value(name = "0.7")]
    V07,
}

/// Output of the commands that print items.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ItemsFormat {
    /// A line per item, for people.
    Text,
    /// One JSON document.
    Json,
    /// Pretty RON.
    Ron,
}

pub fn run(cmd: SnapshotCommand) -> Result<(), Failure> {
    match cmd {
        SnapshotCommand::Dump {
            file,
            protocol,
            format,
        } => dump(&file, protocol, format),
        SnapshotCommand::Delta(DeltaCommand::Dump {
            file,
            sizes,
            format,
        }) => delta_dump(&file, sizes, format),
        SnapshotCommand::Delta(DeltaCommand::Create {
            from,
            to,
            sizes,
            output,
        }) => delta_create(&from, &to, sizes, output.as_deref()),
        SnapshotCommand::Delta(DeltaCommand::Apply {
            from,
            delta,
            sizes,
            output,
        }) => delta_apply(&from, &delta, sizes, output.as_deref()),
    }
}

fn sizes(arg: SizesArg) -> ItemSizes {
    match arg {
        SizesArg::V06 => ItemSizes::ddnet_06(),
        SizesArg::V07 => ItemSizes::teeworlds_07(),
    }
}

/// Reads a file of little-endian int32s (DDNet's in-memory form).
fn read_ints(path: &Path) -> Result<Vec<i32>, Failure> {
    let bytes = read_raw(path)?;
    if bytes.len() % 4 != 0 {
        return Err(Failure::bad(format!(
            "{}: {} bytes is not a whole number of int32s (expected little-endian int32s)",
            shown(path),
            bytes.len()
        )));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

fn write_ints(ints: &[i32], output: Option<&Path>) -> Result<(), Failure> {
    let bytes: Vec<u8> = ints.iter().flat_map(|v| v.to_le_bytes()).collect();
    match output {
        Some(p) => std::fs::write(p, bytes)
            .map_err(|e| Failure::Usage(format!("cannot write {}: {e}", shown(p)))),
        None => {
            let mut out = stdout();
            out.write_all(&bytes)?;
            out.flush()?;
            Ok(())
        }
    }
}

fn load_snapshot(path: &Path) -> Result<Snapshot, Failure> {
    Snapshot::from_ints(&read_ints(path)?)
        .map_err(|e| Failure::bad(format!("{}: {e}", shown(path))))
}

fn protocol(arg: SizesArg) -> Version {
    match arg {
        SizesArg::V06 => Version::V06,
        SizesArg::V07 => Version::V07,
    }
}

/// Prints a snapshot's items in wire order: type, id, the typed view (see
/// `snapshot::items`) and, in JSON and RON, the raw ints too.
pub fn print_snapshot(
    snap: &Snapshot,
    tick: Option<i32>,
    protocol: Version,
    format: ItemsFormat,
) -> Result<(), Failure> {
    let shown = SnapshotJson::new(snap, tick, protocol);
    let mut out = stdout();
    match format {
        ItemsFormat::Text => {
            let tick = shown.tick.map_or("-".to_string(), |t| t.to_string());
            writeln!(
                out,
                "# tick={tick} crc={} size={} items={}",
                shown.crc,
                shown.size,
                shown.items.len()
            )?;
            for i in &shown.items {
                writeln!(out, "{}:{} {}", i.type_id, i.id, i.view.to_text())?;
            }
        }
        ItemsFormat::Json => write_json_doc(&mut out, "snapshot", &shown)?,
        ItemsFormat::Ron => write_ron(&mut out, &shown)?,
    }
    out.flush()?;
    Ok(())
}

pub fn dump(file: &Path, proto: SizesArg, format: ItemsFormat) -> Result<(), Failure> {
    print_snapshot(&load_snapshot(file)?, None, protocol(proto), format)
}

pub fn delta_dump(file: &Path, size_table: SizesArg, format: ItemsFormat) -> Result<(), Failure> {
    let delta = Delta::from_ints(&read_ints(file)?, &sizes(size_table))
        .map_err(|e| Failure::bad(format!("{}: {e}", shown(file))))?;
    let mut out = stdout();
    match format {
        ItemsFormat::Text => {
            writeln!(
                out,
                "# removed={} updates={} num_temp={}",
                delta.removed.len(),
                delta.updates.len(),
                delta.num_temp
            )?;
            for key in &delta.removed {
                writeln!(out, "- {}:{}", key >> 16, key & 0xffff)?;
            }
            for u in &delta.updates {
                let size = u.size.map(|s| format!(" size={s}")).unwrap_or_default();
                writeln!(out, "+ {}:{}{size} {:?}", u.type_id, u.id, u.data)?;
            }
        }
        ItemsFormat::Json => write_json_doc(&mut out, "snapshot_delta", &delta)?,
        ItemsFormat::Ron => write_ron(&mut out, &delta)?,
    }
    out.flush()?;
    Ok(())
}

pub fn delta_create(
    from: &Path,
    to: &Path,
    size_table: SizesArg,
    output: Option<&Path>,
) -> Result<(), Failure> {
    let delta = create(
        &load_snapshot(from)?,
        &load_snapshot(to)?,
        &sizes(size_table),
    );
    write_ints(&delta, output)
}

pub fn delta_apply(
    from: &Path,
    delta: &Path,
    size_table: SizesArg,
    output: Option<&Path>,
) -> Result<(), Failure> {
    let base = load_snapshot(from)?;
    let snap = apply(&base, &read_ints(delta)?, &sizes(size_table))
        .map_err(|e| Failure::bad(format!("{}: applying the delta: {e}", shown(delta))))?;
    write_ints(&snap.to_ints(), output)
}

pub fn demo_at(file: &Path, at: i32, format: ItemsFormat) -> Result<(), Failure> {
    use teeoracle::demo::{EventKind, Events};
    let bytes = super::output::read(file)?;
    let bad = |e: teeoracle::codec::DecodeError| Failure::bad(format!("{}: {e}", shown(file)));
    let mut events = Events::new(&bytes).map_err(bad)?;
    let proto = if events.header().is_07() {
        Version::V07
    } else {
        Version::V06
    };
    let (mut found, mut last_tick): (Option<(i32, Snapshot)>, i32) = (None, -1);
    while let Some(event) = events.next().map_err(bad)? {
        match event.kind {
            EventKind::Tick { .. } => last_tick = event.tick,
            EventKind::Snapshot(snap) if event.tick <= at => {
                let slot = found.get_or_insert_with(|| (event.tick, Snapshot::new()));
                slot.0 = event.tick;
                slot.1.clone_from(snap);
            }
            _ => {}
        }
    }
    if at > last_tick {
        return Err(Failure::Usage(format!(
            "tick {at} is after the end of {} (last tick {last_tick})",
            shown(file)
        )));
    }
    match found {
        Some((tick, snap)) => print_snapshot(&snap, Some(tick), proto, format),
        None => Err(Failure::Usage(format!(
            "no snapshot at or before tick {at} in {}",
            shown(file)
        ))),
    }
}
