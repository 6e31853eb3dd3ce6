//! Mutants of snapshots, snapshot deltas and demos.

use super::*;

pub(super) fn mutants() -> Vec<Mutant> {
    use Unit::*;
    vec![
        // snapshot
        Mutant {
            name: "snapshot_items_sorted",
            bug: "items kept in a map by key, so listed sorted instead of in wire order",
            units: &[Snapshot],
            answer: |c| {
                decoded(c, |_, v| {
                    if let Some(items) = v["items"].as_array_mut() {
                        items.sort_by_key(|i| (i["type_id"].as_i64(), i["id"].as_i64()));
                    }
                })
            },
        },
        Mutant {
            name: "snapshot_crc_with_keys",
            bug: "the CRC sums the items' keys with their data (DDNet sums the data only)",
            units: &[Snapshot, DeltaApply],
            answer: |c| {
                decoded(c, |_, v| {
                    let mut crc = v["crc"].as_i64().unwrap_or(0) as i32;
                    for i in v["items"].as_array().into_iter().flatten() {
                        let key = (i["type_id"].as_i64().unwrap() << 16 | i["id"].as_i64().unwrap())
                            as i32;
                        crc = crc.wrapping_add(key);
                    }
                    v["crc"] = json!(crc);
                })
            },
        },
        Mutant {
            name: "snapshot_size_without_offsets",
            bug: "the snapshot's size leaves out its offset table",
            units: &[Snapshot],
            answer: |c| {
                decoded(c, |_, v| {
                    let n = v["items"].as_array().map_or(0, Vec::len) as i64;
                    v["size"] = json!(v["size"].as_i64().unwrap_or(0) - 4 * n);
                })
            },
        },
        Mutant {
            name: "snapshot_no_item_limit",
            bug: "no MAX_ITEMS check on the item count",
            units: &[Snapshot],
            answer: |c| lenient(c, &["num_items"]),
        },
        // delta
        Mutant {
            name: "delta_create_keeps_unchanged",
            bug: "CreateDelta writes an update for every item, unchanged ones as zeros",
            units: &[DeltaCreate],
            answer: |c| {
                delta_create_with(
                    c,
                    DeltaBugs {
                        keep_unchanged: true,
                        ..Default::default()
                    },
                )
            },
        },
        Mutant {
            name: "delta_create_sorted",
            bug: "CreateDelta writes the updates in key order, not in the new snapshot's order",
            units: &[DeltaCreate],
            answer: |c| {
                delta_create_with(
                    c,
                    DeltaBugs {
                        sorted: true,
                        ..Default::default()
                    },
                )
            },
        },
        Mutant {
            name: "delta_create_no_deletions",
            bug: "CreateDelta does not list the items that are gone",
            units: &[DeltaCreate],
            answer: |c| {
                delta_create_with(
                    c,
                    DeltaBugs {
                        no_deletions: true,
                        ..Default::default()
                    },
                )
            },
        },
        Mutant {
            name: "delta_create_always_size",
            bug: "CreateDelta writes the size of every item, also of the types with a pre-agreed size",
            units: &[DeltaCreate],
            answer: |c| {
                delta_create_with(
                    c,
                    DeltaBugs {
                        always_size: true,
                        ..Default::default()
                    },
                )
            },
        },
        Mutant {
            name: "delta_apply_ignores_deletions",
            bug: "UnpackDelta skips the deleted keys and keeps those items",
            units: &[DeltaApply],
            answer: |c| {
                delta_apply_with(c, &ItemSizes::ddnet_06(), |d| {
                    if d.len() >= 3 && d[0] > 0 && (d[0] as usize) + 3 <= d.len() {
                        let n = d[0] as usize;
                        d.drain(3..3 + n);
                        d[0] = 0;
                    }
                })
            },
        },
        Mutant {
            name: "delta_apply_07_sizes",
            bug: "deltas read with Teeworlds 0.7's item size table instead of DDNet's 0.6 one",
            units: &[DeltaApply],
            answer: |c| delta_apply_with(c, &ItemSizes::teeworlds_07(), |_| {}),
        },
        Mutant {
            name: "delta_apply_no_type_range",
            bug: "no check that an updated item's type is at most 0x7fff",
            units: &[DeltaApply],
            answer: |c| lenient(c, &["DDNet error -202"]),
        },
        // demo
        Mutant {
            name: "demo_inline_tick_absolute",
            bug: "an inline tick marker's delta taken as the tick itself",
            units: &[Demo],
            answer: |c| decoded(c, |b, v| demo_ticks(b, v, true, false)),
        },
        Mutant {
            name: "demo_keyframe_flag_lost",
            bug: "a tick marker's keyframe bit not read",
            units: &[Demo],
            answer: |c| decoded(c, |b, v| demo_ticks(b, v, false, true)),
        },
        Mutant {
            name: "demo_cut_chunk_rejected",
            bug: "a demo whose last chunk is cut (a killed recorder) is refused, where DDNet plays the chunks before",
            units: &[Demo],
            answer: |c| strict(c, |v| !v["end"]["truncated_bytes"].is_null()),
        },
        Mutant {
            name: "demo_chunk_size_big_endian",
            bug: "a demo chunk's two-byte size (size code 31) read big-endian",
            units: &[Demo],
            answer: |c| {
                on_changed_input(c, |b, v| {
                    for at in demo_size_escapes(&b.clone(), v, 31) {
                        b.swap(at + 1, at + 2);
                    }
                })
            },
        },
        Mutant {
            name: "demo_chunk_size_one_byte_escape_off_by_30",
            bug: "a demo chunk's one-byte size (size code 30) taken as 30 plus that byte",
            units: &[Demo],
            answer: |c| {
                on_changed_input(c, |b, v| {
                    for at in demo_size_escapes(&b.clone(), v, 30) {
                        b[at + 1] = b[at + 1].wrapping_add(30);
                    }
                })
            },
        },
        Mutant {
            name: "demo_version_unchecked",
            bug: "the header's version is not checked (DDNet plays 3 to 6)",
            units: &[Demo],
            answer: |c| lenient(c, &["unsupported version"]),
        },
    ]
}
