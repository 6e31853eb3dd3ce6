//! `teeoracle snapshot ...` (raw snapshot and delta files) and
//! `teeoracle demo snapshot`.

use super::output::{stdout, write_ron};
use super::{Failure, NetFormat, SizesArg};
use std::io::Write;
use std::path::Path;
use teeoracle::snapshot::{ItemSizes, Snapshot, apply, create};

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

/// Prints a snapshot's items: key, type (or extended type name), id, data.
pub fn print_snapshot(
    snap: &Snapshot,
    tick: Option<i32>,
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
        name: Option<&'a str>,
        id: i32,
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
                name: snap.ex_type_name(i.type_id()),
                id: i.id(),
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
                let name = i.name.map(|n| format!(" {n}")).unwrap_or_default();
                writeln!(out, "{}:{}{name} {:?}", i.type_id, i.id, i.data)?;
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

pub fn dump(file: &Path, format: NetFormat) -> Result<(), Failure> {
    print_snapshot(&load_snapshot(file)?, None, format)
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
    let mut found: Option<(i32, Snapshot)> = None;
    demo.replay_snapshots(&offsets, |tick, snap| {
        if tick <= at {
            found = Some((tick, snap.clone()));
        }
    });
    match found {
        Some((tick, snap)) => print_snapshot(&snap, Some(tick), format),
        None => Err(Failure::Usage(format!(
            "no snapshot at or before tick {at} in {}",
            file.display()
        ))),
    }
}
