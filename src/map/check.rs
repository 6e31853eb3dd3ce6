//! The map format for [`crate::check`]: decode the container, re-encode
//! it and every typed item, read every data block (bounded), and apply
//! DDNet's reader and loader rules.

use super::{Datafile, ITEM_HEADER_LEN, Map, Tally, is_map, rules};
use crate::codec::{encode_to_vec, first_difference};
use crate::compression::zlib::{Fault, inflate_with};
use crate::input::{Source, default_max_decompressed};
use crate::report::{Code, Context, Finding, Format, RoundTrip, Severity, Verdict};

/// The map format.
pub struct MapFormat;

impl Format for MapFormat {
    fn name(&self) -> &'static str {
        "map"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &[".map"]
    }

    fn sniff(&self, head: &[u8]) -> bool {
        is_map(head)
    }

    fn check(&self, source: Source, _: &Context<'_>, verdict: &mut Verdict) {
        let cap = source.max_decompressed();
        match source.into_bytes() {
            Ok(bytes) => {
                let cap = cap.unwrap_or_else(|| default_max_decompressed(bytes.len() as u64));
                check_bytes(&bytes, cap, verdict)
            }
            Err(e) => verdict.push(Finding::new(
                Severity::Fail,
                Code::Io,
                format!("cannot read: {e}"),
            )),
        }
        verdict.settle();
    }
}

/// Reads every block of a datafile once (each bounded by its declared
/// size and `cap`, streamed: its bytes are counted, never kept), and finds
/// those that do not give their declared bytes.
pub fn read_blocks(datafile: &Datafile<'_>, cap: u64) -> Vec<Finding> {
    let mut tally = Tally::default();
    let layout = datafile.layout();
    // Version 3 blocks are stored as they are: nothing to inflate.
    let Some(sizes) = &datafile.data_sizes else {
        return Vec::new();
    };
    for (i, (&stored, &declared)) in datafile.data.iter().zip(sizes).enumerate() {
        let at = layout.data[i];
        match inflate_with(stored, declared.into(), cap, |_| {}) {
            Ok(unused) if unused > 0 => {
                tally.add("block_tail", || {
                    Finding::new(
                        Severity::Note,
                        Code::MapData,
                        format!(
                            "data block {i} has {unused} byte(s) after its zlib stream: \
                             DDNet's reader ignores them"
                        ),
                    )
                    .at(at + (stored.len() - unused) as u64)
                });
            }
            // A zero size is the container's note already.
            Ok(_) | Err(Fault::DeclaredSize { declared: 0 }) => {}
            Err(fault) => tally.add("block", || {
                Finding::new(
                    Severity::Warn,
                    Code::MapData,
                    format!("data block {i}: {fault}"),
                )
                .at(at)
            }),
        }
    }
    tally.finish()
}

/// The map pipeline over a map's bytes (blocks inflated up to `cap`
/// bytes each), into `verdict`: what `check` runs on a map file, and
/// `map check` on a map a demo embeds. The caller settles the verdict.
pub fn check_bytes(bytes: &[u8], cap: u64, verdict: &mut Verdict) {
    let datafile = match Datafile::decode(bytes) {
        Ok(d) => d,
        Err(e) => {
            verdict.error = Some(e);
            return;
        }
    };
    let again = encode_to_vec(&datafile, ());
    verdict.roundtrip = match first_difference(&again, bytes) {
        Some(at) => RoundTrip::Differs { offset: at as u64 },
        None => RoundTrip::Exact,
    };
    let map = Map::new(&datafile);
    let layout = datafile.layout();
    // Each typed item must give its payload back too.
    if verdict.roundtrip == RoundTrip::Exact {
        for (i, item) in datafile.items.iter().enumerate() {
            let Some(typed) = map.encode_item(i) else {
                continue;
            };
            if let Some(at) = first_difference(&typed, item.payload) {
                verdict.roundtrip = RoundTrip::Differs {
                    offset: layout.items[i] + (ITEM_HEADER_LEN + at) as u64,
                };
                break;
            }
        }
    }
    let findings = [
        datafile.faults(),
        read_blocks(&datafile, cap),
        rules::check(&datafile, &map, cap),
    ];
    for f in findings.into_iter().flatten() {
        verdict.push(f);
    }
    let layers = map.layer_items().len();
    let game = map
        .physics_layer(super::items::Physics::Game)
        .map(|(_, t)| format!("game layer {}x{}", t.width, t.height))
        .unwrap_or_else(|| "no game layer".into());
    verdict.counts.records = Some(datafile.items.len() as u64);
    let more = &mut verdict.counts.more;
    more.insert("data_blocks", datafile.data.len() as u64);
    more.insert("layers", layers as u64);
    verdict.summary = format!(
        "{}; {} items, {} data blocks, {layers} layers, {game}",
        verdict.roundtrip.words(),
        datafile.items.len(),
        datafile.data.len(),
    );
}
