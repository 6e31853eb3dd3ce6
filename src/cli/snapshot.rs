//! `teeoracle snapshot ...` (raw snapshot and delta files) and
//! `teeoracle demo snapshot`.

use super::output::{stdout, write_ron};
use super::{Failure, NetFormat, SizesArg};
use std::io::Write;
use std::path::Path;
use teeoracle::snapshot::items::{ItemView, Protocol, view};
use teeoracle::snapshot::{Delta, ItemSizes, Snapshot, apply, create};

fn sizes(arg: SizesArg) -> ItemSizes {
    match arg {
        SizesArg::V06 => ItemSizes::ddnet_06(),
        SizesArg::V07 => ItemSizes::teeworlds_07(),
    }
}

/// Reads a file of little-endian int32s (DDNet's in-memory form).
fn read_ints(path: &Path) -> Result<Vec<i32>, Failure> {
    let bytes =
        std::fs::read(path).map_err(|e| Failure::bad(format!("{}: {e}", path.display())))?;
    if bytes.len() % 4 != 0 {
        return Err(Failure::bad(format!(
            "{}: {} bytes is not a whole number of int32s (expected little-endian int32s)",
            path.display(),
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
            .map_err(|e| Failure::Usage(format!("cannot write {}: {e}", p.display()))),
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
        .map_err(|e| Failure::bad(format!("{}: {e}", path.display())))
}

fn protocol(arg: SizesArg) -> Protocol {
    match arg {
        SizesArg::V06 => Protocol::V06,
        SizesArg::V07 => Protocol::V07,
    }
}

/// Prints a snapshot's items in wire order: type, id, the typed view (see
/// `snapshot::items`) and, in JSON and RON, the raw ints too.
pub fn print_snapshot(
    snap: &Snapshot,
    tick: Option<i32>,
    protocol: Protocol,
    format: NetFormat,
) -> Result<(), Failure> {
    #[derive(serde::Serialize)]
    struct Shown<'a> {
        tick: Option<i32>,
        crc: i32,
        size: usize,
        items: Vec<ShownItem<'a>>,
    }
    #[derive(serde::Serialize)]
    struct ShownItem<'a> {
        type_id: i32,
        id: i32,
        view: ItemView,
        data: &'a [i32],
    }
    let shown = Shown {
        tick,
        crc: snap.crc(),
        size: snap.size(),
        items: snap
            .items()
            .map(|i| ShownItem {
                type_id: i.type_id(),
                id: i.id(),
                view: view(snap, &i, protocol),
                data: i.data,
            })
            .collect(),
    };
    let mut out = stdout();
    match format {
        NetFormat::Text => {
            writeln!(
                out,
                "# tick={:?} crc={} size={} items={}",
                shown.tick,
                shown.crc,
                shown.size,
                shown.items.len()
            )?;
            for i in &shown.items {
                writeln!(out, "{}:{} {}", i.type_id, i.id, i.view.to_text())?;
            }
        }
        NetFormat::Json => writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&shown).map_err(Failure::bad)?
        )?,
        NetFormat::Ron => write_ron(&mut out, &shown)?,
    }
    out.flush()?;
    Ok(())
}

pub fn dump(file: &Path, proto: SizesArg, format: NetFormat) -> Result<(), Failure> {
    print_snapshot(&load_snapshot(file)?, None, protocol(proto), format)
}

pub fn delta_dump(file: &Path, size_table: SizesArg, format: NetFormat) -> Result<(), Failure> {
    let delta = Delta::from_ints(&read_ints(file)?, &sizes(size_table))
        .map_err(|e| Failure::bad(format!("{}: {e}", file.display())))?;
    let mut out = stdout();
    match format {
        NetFormat::Text => {
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
        NetFormat::Json => writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&delta).map_err(Failure::bad)?
        )?,
        NetFormat::Ron => write_ron(&mut out, &delta)?,
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
        .map_err(|e| Failure::bad(format!("{}: applying the delta: {e}", delta.display())))?;
    write_ints(&snap.to_ints(), output)
}

pub fn demo_at(file: &Path, at: i32, format: NetFormat) -> Result<(), Failure> {
    let bytes =
        std::fs::read(file).map_err(|e| Failure::bad(format!("{}: {e}", file.display())))?;
    let (demo, offsets) = teeoracle::demo::Demo::decode(&bytes).map_err(|e| {
        Failure::bad(format!(
            "{}: {}",
            file.display(),
            super::output::describe(&e, None)
        ))
    })?;
    let proto = if demo.header.net_version().starts_with("0.7") {
        Protocol::V07
    } else {
        Protocol::V06
    };
    let mut found: Option<(i32, Snapshot)> = None;
    demo.replay_snapshots(&offsets, |_, tick, snap| {
        if tick <= at {
            let slot = found.get_or_insert_with(|| (tick, Snapshot::new()));
            slot.0 = tick;
            slot.1.clone_from(snap);
        }
    });
    match found {
        Some((tick, snap)) => print_snapshot(&snap, Some(tick), proto, format),
        None => Err(Failure::Usage(format!(
            "no snapshot at or before tick {at} in {}",
            file.display()
        ))),
    }
}
