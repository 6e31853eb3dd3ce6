//! The generators and `mutate`: deterministic, judged right, and read by
//! independent implementations (the `teehistorian` crate, libtw2).

use crate::common;

use teeoracle::generate::{self, Class, Kind, Unit, judge};

const SEED: u64 = 12;

fn all(unit: Unit, kind: Kind, count: usize) -> Vec<generate::Generated> {
    generate::cases(unit, SEED, count, kind)
}

#[test]
fn generators_are_deterministic_and_prefix_stable() {
    for unit in generate::UNITS {
        for kind in [Kind::Valid, Kind::Edge, Kind::Malformed] {
            let a = all(unit, kind, 12);
            let b = all(unit, kind, 12);
            assert_eq!(a, b, "{unit} {kind:?}");
            // Case i does not depend on the count.
            assert_eq!(&all(unit, kind, 5)[..], &a[..5], "{unit} {kind:?}");
        }
    }
}

/// A fixed-seed golden: a changed generator shows in review.
#[test]
fn generated_files_golden() {
    use std::fmt::Write;
    let mut out = String::new();
    for unit in generate::UNITS {
        for kind in [Kind::Valid, Kind::Edge, Kind::Malformed] {
            for c in all(unit, kind, 3) {
                let digest = sha2_hex(&c.bytes);
                writeln!(
                    out,
                    "{unit} {} {:?} {} bytes sha256:{} {}",
                    c.name,
                    c.class,
                    c.bytes.len(),
                    &digest[..16],
                    c.reason
                )
                .unwrap();
            }
        }
    }
    common::snapshot("generate", "cases_seed_12", &out);
}

fn sha2_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}

/// Every valid or edge case is accepted by teeoracle (through `check` for
/// the formats it knows); every malformed one is rejected at the byte and
/// with the kind the generator states.
#[test]
fn every_case_is_judged_as_its_class_says() {
    let mut wrong = Vec::new();
    for unit in generate::UNITS {
        for kind in [Kind::Valid, Kind::Edge, Kind::Malformed] {
            for c in all(unit, kind, 40) {
                let j = judge(unit, &c.bytes);
                let ok = match c.class {
                    Class::MustAccept => j.accepted && kind != Kind::Malformed,
                    // A quirk DDNet reads around (a packet's cut chunk)
                    // has its fault where the generator put it.
                    Class::DdnetQuirk => {
                        j.accepted && kind == Kind::Edge && j.fault == c.expected_fault
                    }
                    Class::MustReject => {
                        !j.accepted && kind == Kind::Malformed && j.fault == c.expected_fault
                    }
                };
                if !ok {
                    wrong.push(format!(
                        "{unit} {} {:?} ({}): stated {:?}, judged {j:?}",
                        c.name, c.class, c.reason, c.expected_fault
                    ));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn valid_teehistorian_files_read_by_the_teehistorian_crate() {
    use teehistorian::{Chunk, Th};
    for c in all(Unit::Teehistorian, Kind::Valid, 20) {
        let mut th = Th::parse(&c.bytes[..]).expect("magic");
        th.header().expect("header");
        let mut n = 0;
        loop {
            match th.next_chunk() {
                Ok(Chunk::Eos) => break,
                Ok(_) => n += 1,
                Err(e) => panic!("{}: record {n}: {e}", c.name),
            }
        }
        assert!(n > 0, "{}", c.name);
    }
}

#[test]
fn valid_demos_read_by_libtw2() {
    for c in all(Unit::Demo, Kind::Valid, 20) {
        let mut warn: Vec<libtw2_demo::Warning> = Vec::new();
        let mut reader = libtw2_demo::Reader::new(std::io::Cursor::new(&c.bytes), &mut warn)
            .unwrap_or_else(|e| panic!("{}: header: {e}", c.name));
        let mut chunks = 0;
        while reader
            .read_chunk(&mut warn)
            .unwrap_or_else(|e| panic!("{}: chunk {chunks}: {e}", c.name))
            .is_some()
        {
            chunks += 1;
        }
        assert!(chunks > 0, "{}", c.name);
    }
}

#[test]
fn valid_packets_read_by_libtw2() {
    use libtw2_net::{protocol as p6, protocol7 as p7};
    for c in all(Unit::Packet06, Kind::Valid, 100) {
        let mut buf = Vec::with_capacity(2048);
        if let Err(e) = p6::Packet::read(&mut Vec::new(), &c.bytes, None, &mut buf) {
            panic!(
                "{} ({}): {e:?}: {}",
                c.name,
                c.reason,
                hex::encode(&c.bytes)
            );
        }
    }
    for c in all(Unit::Packet07, Kind::Valid, 100) {
        let mut buf = Vec::with_capacity(2048);
        if let Err(e) = p7::Packet::read(&mut Vec::new(), &c.bytes, &mut buf) {
            panic!(
                "{} ({}): {e:?}: {}",
                c.name,
                c.reason,
                hex::encode(&c.bytes)
            );
        }
    }
}

fn ints(bytes: &[u8]) -> Vec<i32> {
    bytes
        .chunks_exact(4)
        .map(|b| i32::from_le_bytes(b.try_into().unwrap()))
        .collect()
}

#[test]
fn valid_snapshots_and_deltas_read_by_libtw2() {
    use libtw2_packer::IntUnpacker;
    use libtw2_snapshot::snap::{Delta, RawSnap};
    use teeoracle::snapshot::{ItemSizes, Snapshot, apply};
    let mut warn: Vec<libtw2_snapshot::format::Warning> = Vec::new();
    for c in all(Unit::Snapshot, Kind::Valid, 20) {
        let mut snap = RawSnap::empty();
        snap.read_from_ints(&mut warn, &ints(&c.bytes))
            .unwrap_or_else(|e| panic!("{}: {e:?}", c.name));
        let ours = Snapshot::from_ints(&ints(&c.bytes)).unwrap();
        assert_eq!(snap.items().len(), ours.len(), "{}", c.name);
    }
    for c in all(Unit::DeltaApply, Kind::Valid, 20) {
        let len = u32::from_le_bytes(c.bytes[..4].try_into().unwrap()) as usize;
        let (base, delta) = c.bytes[4..].split_at(len);
        let mut lt2_base = RawSnap::empty();
        lt2_base.read_from_ints(&mut warn, &ints(base)).unwrap();
        let mut lt2_delta = Delta::new();
        lt2_delta
            .read_from_ints(
                &mut warn,
                libtw2_gamenet_ddnet::snap_obj::obj_size,
                &mut IntUnpacker::new(&ints(delta)),
            )
            .unwrap_or_else(|e| panic!("{}: delta: {e:?}", c.name));
        let mut lt2 = RawSnap::empty();
        lt2.read_with_delta(&mut warn, &lt2_base, &lt2_delta)
            .unwrap_or_else(|e| panic!("{}: apply: {e:?}", c.name));
        let ours = apply(
            &Snapshot::from_ints(&ints(base)).unwrap(),
            &ints(delta),
            &ItemSizes::ddnet_06(),
        )
        .unwrap();
        assert_eq!(lt2.items().len(), ours.len(), "{}", c.name);
        for item in ours.items() {
            let data = lt2.item((item.key >> 16) as u16, item.key as u16);
            assert_eq!(data, Some(item.data), "{}: item {:x}", c.name, item.key);
        }
    }
    assert_eq!(warn.len(), 0, "{warn:?}");
}

/// Mutants of real files: deterministic, distinct, and each labelled with
/// what teeoracle says of it (rejected ones at their fault).
#[test]
fn mutants_of_real_maps_each_break_one_named_rule() {
    use generate::Mutation;
    for path in [
        "corpus/map/ddnet-data/ctf1.map",
        "corpus/map/teeworlds-data/dm1.map",
    ] {
        let bytes = std::fs::read(common::root().join(path)).unwrap();
        let (mutants, _) = generate::mutate(Unit::Map, &bytes, 5, 40);
        assert_eq!(mutants, generate::mutate(Unit::Map, &bytes, 5, 40).0);
        assert!(mutants.len() >= 20, "{path}: {} mutants", mutants.len());
        let mut rules = std::collections::BTreeSet::new();
        for m in &mutants {
            // Every other mutant trips a lint rule instead: the lib's
            // generate::map_lint tests hold those to their rule.
            let rule = match m.mutation {
                Mutation::MapRule { rule } => rule,
                Mutation::MapLint { .. } => continue,
                other => panic!("{path}: {other:?}"),
            };
            rules.insert(rule);
            // Every rule broken is one DDNet refuses the map by.
            assert_eq!(m.case.class, Class::MustReject, "{path} {rule}: {m:?}");
            assert!(m.case.reason.contains(rule), "{}", m.case.reason);
            assert_eq!(judge(Unit::Map, &m.case.bytes), m.judgement);
        }
        assert!(rules.len() >= 8, "{path}: {rules:?}");
    }
}

#[test]
fn mutants_of_real_files_carry_their_verdict() {
    for (unit, path) in [
        (
            Unit::Teehistorian,
            "corpus/teehistorian/ddnet-20.1/A_join_move_leave.teehistorian",
        ),
        (Unit::Packet06, ""),
    ] {
        let bytes = if path.is_empty() {
            generate::cases(unit, SEED, 1, Kind::Valid).remove(0).bytes
        } else {
            std::fs::read(common::root().join(path)).unwrap()
        };
        let (a, _) = generate::mutate(unit, &bytes, 5, 25);
        let (b, _) = generate::mutate(unit, &bytes, 5, 25);
        assert_eq!(a, b);
        assert!(a.len() >= 20, "{unit}: {} mutants", a.len());
        let rejected = a
            .iter()
            .filter(|m| m.case.class == Class::MustReject)
            .count();
        assert!(rejected > 0, "{unit}: no mutant rejected");
        for m in &a {
            assert_ne!(m.case.bytes, bytes);
            assert_eq!(judge(unit, &m.case.bytes), m.judgement, "{}", m.case.name);
            assert_eq!(m.case.expected_fault, m.judgement.fault);
            assert_eq!(m.case.class == Class::MustReject, !m.judgement.accepted);
        }
    }
}

/// A lint as one line: rule, where (layer or item), count, tiles.
fn lint_line(l: &teeoracle::map::lint::Lint) -> String {
    let at = match (&l.layer, l.item) {
        (Some(layer), _) => format!("layer {layer}"),
        (None, Some(item)) => format!("item {item}"),
        (None, None) => "?".to_string(),
    };
    let tiles: Vec<String> = l
        .tiles
        .iter()
        .map(|t| format!("({}, {})", t.x, t.y))
        .collect();
    format!("{} {at} count {} [{}]", l.rule, l.count, tiles.join(" "))
}

/// A fixed-seed golden of what `gen map` and `mutate` say a map's lints
/// are: every edge variant (the loader quirks, then one lint rule each),
/// and the lint mutants of a real map.
#[test]
fn map_lint_cases_golden() {
    use std::fmt::Write;
    let mut out = String::new();
    let edge = generate::cases(
        Unit::Map,
        SEED,
        generate::map::EDGE_VARIANTS as usize,
        Kind::Edge,
    );
    for c in edge.iter().chain(&all(Unit::Map, Kind::Valid, 2)) {
        writeln!(out, "{} {:?}: {}", c.name, c.class, c.reason).unwrap();
        for l in c.expected_lints.as_deref().unwrap_or_default() {
            writeln!(out, "  {}", lint_line(l)).unwrap();
        }
    }
    let path = "corpus/map/ddnet-20.1/coverage.map";
    let bytes = std::fs::read(common::root().join(path)).unwrap();
    let before = teeoracle::conform::map_lints(&bytes).unwrap();
    writeln!(out, "{path}: {} lint(s)", before.len()).unwrap();
    for l in &before {
        writeln!(out, "  {}", lint_line(l)).unwrap();
    }
    let (mutants, _) = generate::mutate(Unit::Map, &bytes, 5, 16);
    for m in mutants
        .iter()
        .filter(|m| matches!(m.mutation, generate::Mutation::MapLint { .. }))
    {
        writeln!(out, "{} {:?}: {}", m.case.name, m.case.class, m.case.reason).unwrap();
        for l in m.case.expected_lints.as_deref().unwrap_or_default() {
            writeln!(out, "  {}", lint_line(l)).unwrap();
        }
    }
    common::snapshot("generate", "map_lint_seed_12", &out);
}
