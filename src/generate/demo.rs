//! Demos: a `demo build` spec of snapshots, messages and markers, built by
//! [`DemoSpec::build`] (DDNet's recorder).

use super::{Kind, Made, Rng};
use crate::demo::spec::{DemoSpec, SpecEvent, SpecItem};
use crate::packet::Version;
use crate::snapshot::ItemSizes;
use sha2::Digest;

/// A spec of `kind`, and the map to embed.
pub fn spec(rng: &mut Rng, kind: Kind) -> (DemoSpec, Vec<u8>) {
    let edge = kind == Kind::Edge;
    let seven = edge && rng.one_in(3);
    let version = if seven { Version::V07 } else { Version::V06 };
    let sizes = if seven {
        ItemSizes::teeworlds_07()
    } else {
        ItemSizes::ddnet_06()
    };
    let map = if edge && rng.one_in(2) {
        {
            let n = rng.int(1, 4096) as usize;
            rng.bytes(n)
        }
    } else {
        Vec::new()
    };
    let demo_version = if edge { *rng.pick(&[4u8, 5, 6]) } else { 6 };
    let mut events = Vec::new();
    let mut tick = rng.int(0, 1000);
    let mut markers = Vec::new();
    for _ in 0..rng.int(1, 40) {
        if rng.one_in(3) {
            events.push(SpecEvent {
                tick: None,
                items: None,
                message: Some(hex::encode(super::packet::message(rng, version))),
            });
            continue;
        }
        // Mostly the next tick; sometimes past the keyframe interval.
        tick += if rng.one_in(8) { rng.int(2, 500) } else { 1 };
        let n = rng.int(0, 12) as usize;
        let snap = super::snapshot::snapshot(rng, n, false, &sizes);
        let items = snap
            .items()
            .map(|i| SpecItem {
                type_id: i.type_id(),
                id: i.id(),
                data: i.data.to_vec(),
            })
            .collect();
        events.push(SpecEvent {
            tick: Some(tick),
            items: Some(items),
            message: None,
        });
        // DDNet keeps markers a second (50 ticks) apart, 64 at most.
        if rng.one_in(10) && markers.len() < 64 && markers.last().is_none_or(|&m| tick - m >= 50) {
            markers.push(tick);
        }
    }
    let spec = DemoSpec {
        version: demo_version,
        net_version: if seven {
            "0.7 802f1be60a05665f"
        } else {
            "0.6 626fce9a778df4d4"
        }
        .into(),
        map_name: format!("gen{}", rng.below(100)),
        map_crc: format!("{:08x}", crc32fast::hash(&map)),
        map_sha256: (demo_version >= 6).then(|| hex::encode(sha2::Sha256::digest(&map))),
        map_file: None,
        kind: if rng.one_in(3) { "client" } else { "server" }.into(),
        timestamp: "1970-01-01_00-00-00".into(),
        huffman: if edge && rng.one_in(3) {
            "legacy"
        } else {
            "ddnet"
        }
        .into(),
        markers,
        stopped: !(edge && rng.one_in(4)),
        events,
    };
    (spec, map)
}

/// One demo of `kind`.
pub(crate) fn generate(rng: &mut Rng, kind: Kind) -> Made {
    let (spec, map) = spec(rng, kind.min_valid());
    let built = spec.build(&map).expect("a generated spec builds");
    let mut reason = format!(
        "{} snapshots and {} messages, version {}, net {}",
        built.snapshots, built.messages, spec.version, spec.net_version
    );
    if !map.is_empty() {
        reason.push_str(", with its map");
    }
    if !spec.stopped {
        reason.push_str(", never stopped (no length, no markers)");
    }
    let mut bytes = built.bytes;
    match kind {
        Kind::Malformed if rng.one_in(2) => {
            bytes[rng.below(7) as usize] ^= 1 << rng.below(8);
            Made::faulty(bytes, "a bit flipped in the magic", 0, "not_this_format")
        }
        Kind::Malformed => {
            bytes[7] = rng.int(7, 255) as u8;
            Made::faulty(bytes, "an unknown format version", 7, "unsupported_version")
        }
        _ if spec.huffman == "legacy" => {
            reason.push_str(", by the legacy Huffman writer");
            Made::valid(bytes, reason)
        }
        _ => Made::valid(bytes, reason),
    }
}

impl Kind {
    /// The kind of valid file a case of this kind starts from.
    fn min_valid(self) -> Kind {
        match self {
            Kind::Malformed => Kind::Valid,
            k => k,
        }
    }
}
