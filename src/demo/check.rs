//! The demo format for [`crate::check`]: decode, re-encode with every
//! payload recompressed, check what DDNet's player checks before playing
//! (the header's strings, the embedded map against its CRC-32 and SHA-256
//! item), replay every snapshot, and re-record through DDNet's recorder
//! model.

use super::{Demo, HEADER_LEN, MAX_FAULTS, TIMELINE_LEN, is_demo, rerecord_decoded};
use crate::codec::{encode_to_vec, first_difference};
use crate::input::Source;
use crate::report::{Code, Context, Finding, Format, RoundTrip, Severity, Verdict};
use crate::snapshot::replay::FaultKind;
use sha2::{Digest, Sha256};

/// The header's length field, which `Stop` fills in.
const LENGTH_OFFSET: u64 = 152;

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

    fn check(&self, source: Source, _: &Context<'_>, verdict: &mut Verdict) {
        match source.into_bytes() {
            Ok(bytes) => check_bytes(&bytes, verdict),
            Err(e) => verdict.push(Finding::new(
                Severity::Fail,
                Code::Io,
                format!("cannot read: {e}"),
            )),
        }
        verdict.settle();
    }
}

fn check_bytes(bytes: &[u8], verdict: &mut Verdict) {
    // A damaged chunk stops the reading; everything before it is checked.
    let (demo, offsets) = match Demo::decode_partial(bytes) {
        Ok(d) => d,
        Err(e) => {
            verdict.error = Some(e);
            return;
        }
    };
    let again = encode_to_vec(&demo, ());
    verdict.roundtrip = match first_difference(&again, bytes) {
        Some(at) => RoundTrip::Differs { offset: at as u64 },
        None => RoundTrip::Exact,
    };
    for (name, offset, fault) in demo.header.string_fields() {
        if let Some(fault) = fault {
            verdict.push(
                Finding::new(
                    Severity::Fail,
                    Code::Header,
                    format!(
                        "header field {name}: {fault}; DDNet's demo player refuses such a header"
                    ),
                )
                .at(offset),
            );
        }
    }
    check_map(&demo, verdict);
    // One replay feeds the re-recording and gives the counts and faults.
    let (rerecorded, r) = rerecord_decoded(&demo, &offsets, bytes);
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
                Code::Truncated,
                format!("truncated: the last {} byte(s) are a cut chunk", cut.len()),
            )
            .at(at),
        );
    }
    if let Some(seconds) = demo.unfinished() {
        verdict.push(
            Finding::new(
                Severity::Warn,
                Code::Unfinished,
                format!(
                    "unfinished: the recorder was never stopped: the header's length is 0 and \
                     it has no timeline markers, where Stop writes {seconds} s for these ticks"
                ),
            )
            .at(LENGTH_OFFSET),
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
                Code::Replay,
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
                Code::InvalidItem,
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
            Code::FaultsListed,
            format!("only the first {MAX_FAULTS} replay faults are listed"),
        ));
    }
    let rr = &rerecorded.report;
    let replay_failed = verdict.findings.iter().any(|f| f.code == Code::Replay);
    let recorder = if rr.identical {
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
    } else if replay_failed {
        // The replay's own finding says why; re-recording only repeats it.
        "differs (the replay fails)".to_string()
    } else {
        if let Some(d) = rr.differences.first() {
            verdict.push(
                Finding::new(
                    Severity::Warn,
                    Code::Rerecord,
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
    };
    let (stopped, upto) = match &demo.damage {
        Some(d) => (
            format!(", then a damaged chunk at byte {}", d.error.offset),
            " up to it",
        ),
        None => (String::new(), ""),
    };
    verdict.summary = format!(
        "{}; {} keyframes, {} deltas applied, {} messages{stopped}; re-recorded{upto}: {recorder}",
        verdict.roundtrip.words(),
        r.counts.keyframes,
        r.counts.deltas,
        r.messages
    );
    verdict.error = demo.damage.map(|d| d.error);
}

/// The embedded map against the checksums the header carries, which
/// DDNet's recorder computes from the same map file: its CRC-32 (zlib's,
/// over the whole file) and, in version 6, the SHA-256 item. A demo
/// without an embedded map has nothing to check.
///
/// DDNet's client plays a demo with the map it finds under the demo's map
/// name whose SHA-256 is the item's (or, without the item, whose CRC is
/// the header's), extracting the embedded map when it has none: an
/// embedded map whose SHA-256 is not the item's is refused, and the demo
/// does not play. The CRC is what clients without the SHA-256 (versions
/// before 6, Teeworlds) match maps by.
fn check_map(demo: &Demo<'_>, verdict: &mut Verdict) {
    for f in map_checksums(&demo.header, demo.map, demo.map_sha256.as_ref()) {
        verdict.push(f);
    }
}

/// [`check_map`]'s findings for a demo's `header`, embedded `map` and
/// SHA-256 item: none when both checksums are the map's (or it embeds
/// none).
pub fn map_checksums(
    header: &super::Header,
    map: &[u8],
    sha256: Option<&super::MapSha256>,
) -> Vec<Finding> {
    let mut out = Vec::new();
    if map.is_empty() {
        return out;
    }
    // The SHA-256 first: it is what DDNet's client checks.
    if let Some(want) = sha256 {
        let got: [u8; 32] = Sha256::digest(map).into();
        if got != want.0 {
            let at = (HEADER_LEN + TIMELINE_LEN + 16) as u64;
            out.push(
                Finding::new(
                    Severity::Fail,
                    Code::MapChecksum,
                    format!(
                        "the SHA-256 item {want} is not the embedded map's SHA-256 {}: \
                         DDNet's client refuses a map whose SHA-256 is not the demo's, \
                         so the demo does not play",
                        hex::encode(got)
                    ),
                )
                .at(at),
            );
        }
    }
    let crc = crc32fast::hash(map);
    if crc != header.map_crc {
        out.push(
            Finding::new(
                Severity::Fail,
                Code::MapChecksum,
                format!(
                    "the header's map CRC {:08x} is not the embedded map's CRC-32 {crc:08x}: \
                     DDNet's recorder writes the CRC of the map it embeds, and clients \
                     without the SHA-256 item match maps by it",
                    header.map_crc
                ),
            )
            .at(140),
        );
    }
    out
}
