//! The demo format for [`crate::check`]: decode, re-encode with every
//! payload recompressed, replay every snapshot, and re-record through
//! DDNet's recorder model.

use super::{Demo, MAX_FAULTS, is_demo, rerecord};
use crate::check::{Finding, Format, RoundTrip, Severity, Source, Verdict};
use crate::codec::first_difference;
use crate::snapshot::replay::FaultKind;

/// The demo format.
pub struct DemoFormat;

impl Format for DemoFormat {
    fn name(&self) -> &'static str {
        "demo"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &[".demo"]
    }

    fn sniff(&self, head: &[u8]) -> bool {
        is_demo(head)
    }

    fn check(&self, source: Source, verdict: &mut Verdict) {
        match source.into_bytes() {
            Ok(bytes) => check_bytes(&bytes, verdict),
            Err(e) => verdict.push(Finding::new(
                Severity::Fail,
                "io",
                format!("cannot read: {e}"),
            )),
        }
        verdict.settle();
    }
}

fn check_bytes(bytes: &[u8], verdict: &mut Verdict) {
    let (demo, offsets) = match Demo::decode(bytes) {
        Ok(d) => d,
        Err(e) => {
            verdict.error = Some(e);
            return;
        }
    };
    let mut again = Vec::with_capacity(bytes.len());
    demo.encode(&mut again);
    verdict.roundtrip = match first_difference(&again, bytes) {
        Some(at) => RoundTrip::Differs { offset: at as u64 },
        None => RoundTrip::Exact,
    };
    let r = demo.replay_snapshots(&offsets, |_, _, _| {});
    verdict.counts.records = Some(demo.chunks.len() as u64);
    verdict.counts.last_tick = r.last_tick;
    let more = &mut verdict.counts.more;
    more.insert("keyframes", r.counts.keyframes as u64);
    more.insert("deltas", r.counts.deltas as u64);
    more.insert("messages", r.messages as u64);
    more.insert("snapshots_dropped", r.counts.dropped as u64);
    if let Some(cut) = demo.truncated {
        let at = (bytes.len() - cut.len()) as u64;
        verdict.push(
            Finding::new(
                Severity::Warn,
                "truncated",
                format!("truncated: the last {} byte(s) are a cut chunk", cut.len()),
            )
            .at(at),
        );
    }
    // Faults in file order: dropped snapshots and unreadable messages fail,
    // items of the wrong size warn (DDNet's client drops the item only).
    let dropped = r.counts.dropped as u64 + r.unreadable_messages as u64;
    if let Some(f) = r
        .faults
        .iter()
        .find(|f| !matches!(f.kind, FaultKind::InvalidItem { .. }))
    {
        verdict.push(
            Finding::new(
                Severity::Fail,
                "replay",
                format!(
                    "replay: {} snapshot(s) dropped, {} message(s) unreadable; first at {f}",
                    r.counts.dropped, r.unreadable_messages
                ),
            )
            .at(f.offset)
            .in_tick(f.tick)
            .times(dropped),
        );
    }
    if let Some(f) = r
        .faults
        .iter()
        .find(|f| matches!(f.kind, FaultKind::InvalidItem { .. }))
    {
        verdict.push(
            Finding::new(
                Severity::Warn,
                "invalid_item",
                format!(
                    "{} item(s) with the wrong size for their type; first at {f}",
                    r.counts.invalid_items
                ),
            )
            .at(f.offset)
            .in_tick(f.tick)
            .times(r.counts.invalid_items as u64),
        );
    }
    if r.faults.len() >= MAX_FAULTS {
        verdict.push(Finding::new(
            Severity::Note,
            "faults_listed",
            format!("only the first {MAX_FAULTS} replay faults are listed"),
        ));
    }
    let recorder = match rerecord(bytes) {
        Err(e) => format!("not re-recorded: {e}"),
        Ok(done) => {
            let rr = done.report;
            if rr.identical {
                "identical".to_string()
            } else if rr.equivalent() {
                let mut why = Vec::new();
                if rr.deltas_reordered > 0 {
                    why.push(format!("{} deltas reordered", rr.deltas_reordered));
                }
                if rr.stale_timeline_slots {
                    why.push("unused timeline slots not zero".into());
                }
                format!("equivalent ({})", why.join(", "))
            } else {
                if let Some(d) = rr.differences.first() {
                    verdict.push(
                        Finding::new(
                            Severity::Warn,
                            "rerecord",
                            format!(
                                "not what DDNet's recorder writes: {} difference(s), first at byte {}: {}",
                                rr.difference_count, d.offset, d.what
                            ),
                        )
                        .at(d.offset)
                        .times(rr.difference_count as u64),
                    );
                }
                "differs".to_string()
            }
        }
    };
    verdict.summary = format!(
        "byte-exact; {} keyframes, {} deltas applied, {} messages; re-recorded: {recorder}",
        r.counts.keyframes, r.counts.deltas, r.messages
    );
}
