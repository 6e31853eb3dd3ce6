//! Raw snapshot and delta files (little-endian int32s, as DDNet holds
//! them in memory) for [`crate::check`]. They have no magic bytes, so only
//! files named as them are checked: `NAME.snapshot.bin` is a snapshot
//! (`CSnapshot::IsValid`, and its ints written back); `NAME.delta.bin` is a
//! delta applied with `UnpackDelta` to `NAME.from.bin` beside it (or to
//! the empty snapshot), with DDNet's 0.6 item sizes.

use super::{Delta, ItemSizes, SnapError, Snapshot, apply};
use crate::input::Source;
use crate::report::{Code, Context, Finding, Format, RoundTrip, Severity, Verdict};
use std::path::PathBuf;

/// The raw snapshot and delta format.
pub struct SnapshotFormat;

impl Format for SnapshotFormat {
    fn name(&self) -> &'static str {
        "snapshot"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &[".snapshot.bin", ".delta.bin"]
    }

    /// Plausible: whole int32s would be too weak to tell, so any bytes
    /// are read and judged by the check.
    fn sniff(&self, _head: &[u8]) -> bool {
        true
    }

    fn has_magic(&self) -> bool {
        false
    }

    fn check(&self, source: Source, _: &Context<'_>, verdict: &mut Verdict) {
        let is_delta = source.name().to_ascii_lowercase().ends_with(".delta.bin");
        let base_path = source.path().map(|p| {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            let stem = &name[..name.len() - ".delta.bin".len().min(name.len())];
            p.with_file_name(format!("{stem}.from.bin"))
        });
        match source.into_bytes() {
            Err(e) => verdict.push(Finding::new(
                Severity::Fail,
                Code::Io,
                format!("cannot read: {e}"),
            )),
            Ok(bytes) => match ints_of(&bytes) {
                Err(f) => verdict.push(f),
                Ok(ints) if is_delta => check_delta(&ints, base_path, verdict),
                Ok(ints) => check_snapshot(&ints, verdict),
            },
        }
        verdict.settle();
    }
}

/// The file's int32s, or why it is not a whole number of them.
fn ints_of(bytes: &[u8]) -> Result<Vec<i32>, Finding> {
    if !bytes.len().is_multiple_of(4) {
        let at = (bytes.len() / 4 * 4) as u64;
        return Err(Finding::new(
            Severity::Fail,
            Code::IntArray,
            format!(
                "{} bytes is not a whole number of little-endian int32s",
                bytes.len()
            ),
        )
        .at(at));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// A finding for a snapshot or delta fault: the byte of its int, DDNet's
/// code in the words.
fn fault(code: Code, what: &str, e: &SnapError) -> Finding {
    Finding::new(Severity::Fail, code, format!("{what} {e}")).at(e.at as u64 * 4)
}

fn roundtrip(ints: &[i32], again: &[i32]) -> RoundTrip {
    match ints.iter().zip(again).position(|(a, b)| a != b) {
        None if ints.len() == again.len() => RoundTrip::Exact,
        at => RoundTrip::Differs {
            offset: 4 * at.unwrap_or(ints.len().min(again.len())) as u64,
        },
    }
}

fn check_snapshot(ints: &[i32], verdict: &mut Verdict) {
    match Snapshot::from_ints(ints) {
        Err(e) => verdict.push(fault(Code::Snapshot, "not a valid snapshot:", &e)),
        Ok(snap) => {
            verdict.roundtrip = roundtrip(ints, &snap.to_ints());
            verdict.counts.records = Some(snap.len() as u64);
            verdict.counts.more.insert("bytes", snap.size() as u64);
            verdict.summary = format!(
                "a valid snapshot of {} items, CRC {}, written back exactly",
                snap.len(),
                snap.crc()
            );
        }
    }
}

fn check_delta(ints: &[i32], base_path: Option<PathBuf>, verdict: &mut Verdict) {
    let sizes = ItemSizes::ddnet_06();
    let base_path = base_path.filter(|p| p.exists());
    let base = match &base_path {
        None => Snapshot::new(),
        Some(p) => {
            let read = std::fs::read(p)
                .map_err(|e| {
                    Finding::new(Severity::Fail, Code::Io, format!("{}: {e}", p.display()))
                })
                .and_then(|b| ints_of(&b))
                .and_then(|ints| {
                    Snapshot::from_ints(&ints)
                        .map_err(|e| fault(Code::Base, &format!("its base {}:", p.display()), &e))
                });
            match read {
                Ok(snap) => snap,
                Err(f) => {
                    verdict.push(f);
                    return;
                }
            }
        }
    };
    let base_name = base_path.map_or("the empty snapshot".into(), |p| {
        p.file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned()
    });
    match Delta::from_ints(ints, &sizes) {
        Ok(delta) => {
            verdict.roundtrip = roundtrip(ints, &delta.to_ints());
            verdict.counts.records = Some(delta.updates.len() as u64);
            verdict
                .counts
                .more
                .insert("removed", delta.removed.len() as u64);
        }
        // What UnpackDelta accepts but a value cannot hold (ints after the
        // last update, a negative update count): no round trip.
        Err(e) if apply(&base, ints, &sizes).is_ok() => verdict.push(Finding::new(
            Severity::Note,
            Code::DeltaForm,
            format!("DDNet reads this delta, but its form is one no writer makes: {e}"),
        )),
        Err(_) => {}
    }
    match apply(&base, ints, &sizes) {
        Err(e) => verdict.push(fault(
            Code::Delta,
            &format!("UnpackDelta on {base_name} fails:"),
            &e,
        )),
        Ok(snap) => {
            verdict.summary = format!(
                "applies to {base_name}: a snapshot of {} items, CRC {}",
                snap.len(),
                snap.crc()
            );
        }
    }
}
