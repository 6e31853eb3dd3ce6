//! Every demo we hold through the codec: the corpus's, and the shared
//! upstream corpus's where it is.

use crate::common::{self, Test};
use common::testing::strict_law;
use teeoracle::codec::{Mode, decode_exact, encode_to_vec, first_difference};
use teeoracle::demo::{Demo, EventKind, Events};

pub const TESTS: &[Test] = tests![corpus_demos_round_trip_through_the_codec also SharedCorpus];

/// Every corpus demo (and the shared upstream ones) decodes through the
/// codec and encodes back to its bytes, its payloads recompressed; the
/// streaming player and the decoded demo's replay agree.
fn corpus_demos_round_trip_through_the_codec() {
    let mut paths = common::corpus_files("demo");
    if let Some(upstream) = common::upstream_corpus() {
        paths.extend(common::files_under(&upstream));
    }
    paths.retain(|p| p.extension().is_some_and(|x| x == "demo"));
    let mut checked = 0;
    for path in paths {
        let name = path.display();
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let Ok((demo, offsets)) = Demo::decode(&bytes) else {
            assert!(name.to_string().contains("malformed"), "{name}");
            continue;
        };
        let again: Demo<'_> = decode_exact(&bytes, Mode::Lenient, ()).unwrap();
        assert_eq!(again, demo, "{name}");
        let encoded = encode_to_vec(&demo, ());
        assert!(
            encoded == bytes,
            "{name}: the re-encoding differs at byte {:?} (lengths {} and {})",
            first_difference(&encoded, &bytes),
            encoded.len(),
            bytes.len()
        );
        assert_eq!(strict_law::<Demo<'_>, _>(&bytes, ()), Ok(()), "{name}");

        let mut replayed = 0;
        let replay = demo.replay_snapshots(&offsets, |_, _, _| replayed += 1);
        let mut events = Events::new(&bytes).unwrap();
        let (mut snapshots, mut faults) = (0, 0);
        while let Some(e) = events.next().unwrap() {
            match e.kind {
                EventKind::Snapshot(_) => snapshots += 1,
                EventKind::Fault(_) => faults += 1,
                _ => {}
            }
        }
        assert_eq!(events.counts(), replay.counts, "{name}");
        assert_eq!(events.truncated(), demo.truncated, "{name}");
        assert_eq!(snapshots, replayed, "{name}");
        assert_eq!(faults, replay.faults.len(), "{name}");
        checked += 1;
    }
    assert!(checked >= 14, "{checked} demos");
}
