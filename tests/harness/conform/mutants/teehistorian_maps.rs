//! Mutants of teehistorian files and maps.

use super::*;

pub(super) fn mutants() -> Vec<Mutant> {
    use Unit::*;
    vec![
        // teehistorian
        Mutant {
            name: "teehistorian_tick_skip_off_by_one",
            bug: "TICK_SKIP dt advances dt ticks (DDNet: dt + 1)",
            units: &[Teehistorian],
            answer: |c| {
                decoded(c, |_, v| {
                    let mut behind = 0;
                    for r in v["records"].as_array_mut().into_iter().flatten() {
                        if let Some(t) = r["tick"].as_i64() {
                            r["tick"] = json!(t - behind);
                        }
                        if r["kind"] == "tick_skip" {
                            behind += 1;
                        }
                    }
                })
            },
        },
        Mutant {
            name: "teehistorian_implicit_tick_below_only",
            bug: "a player record starts a new tick only when its client id is below the previous one's (DDNet: at or below)",
            units: &[Teehistorian],
            answer: |c| {
                decoded(c, |_, v| {
                    // The two rules counted side by side; each record's
                    // tick moves by how far the wrong one is off.
                    let (mut ok, mut bug, mut last) = (0i64, 0i64, None::<i64>);
                    for r in v["records"].as_array_mut().into_iter().flatten() {
                        match r["kind"].as_str().unwrap_or("") {
                            "player_diff" | "player_new" | "player_old" => {
                                let cid = r["cid"].as_i64().unwrap_or(0);
                                if last.is_none_or(|l| cid <= l) {
                                    ok += 1;
                                }
                                if last.is_none_or(|l| cid < l) {
                                    bug += 1;
                                }
                                last = Some(cid);
                            }
                            "tick_skip" => last = None,
                            _ => {}
                        }
                        if let Some(t) = r["tick"].as_i64() {
                            r["tick"] = json!(t + bug - ok);
                        }
                    }
                })
            },
        },
        Mutant {
            name: "teehistorian_unknown_ex_rejected",
            bug: "an extension record of an unknown UUID is refused instead of skipped by its size",
            units: &[Teehistorian],
            answer: |c| {
                strict(c, |v| {
                    v["records"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .any(|r| r["kind"] == "unknown_ex")
                })
            },
        },
        Mutant {
            name: "teehistorian_ex_trailing_rejected",
            bug: "bytes after a known extension's fields are refused instead of skipped",
            units: &[Teehistorian],
            answer: |c| {
                strict(c, |v| {
                    v["records"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .any(|r| r.get("trailing").is_some())
                })
            },
        },
        Mutant {
            name: "teehistorian_overlong_int_rejected",
            bug: "over-long ints (a 5-byte FINISH, a padded diff) are refused",
            units: &[Teehistorian],
            answer: |c| {
                strict(c, |v| {
                    v["records"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .any(|r| r.get("noncanonical_at").is_some())
                })
            },
        },
        Mutant {
            name: "teehistorian_no_finish_rejected",
            bug: "a file without FINISH (a killed server) is refused instead of read to its cut",
            units: &[Teehistorian],
            answer: |c| strict(c, |v| v["end"]["end"]["end"] == "truncated"),
        },
        Mutant {
            name: "teehistorian_negative_size_read",
            bug: "an extension's negative payload size is not checked",
            units: &[Teehistorian],
            answer: |c| lenient(c, &["expected a non-negative length"]),
        },
        // map
        Mutant {
            name: "map_trailing_bytes_read",
            bug: "bytes after the data are ignored (Teeworlds' reader; DDNet's refuses the file)",
            units: &[Map],
            answer: |c| lenient(c, &["after the data"]),
        },
        Mutant {
            name: "map_header_size_unchecked",
            bug: "the header's size is not checked against the file's length",
            units: &[Map],
            answer: |c| lenient(c, &["the header's size"]),
        },
        Mutant {
            name: "map_old_writer_sizes_refused",
            bug: "a header size without the uncompressed sizes table (Teeworlds' writer before 2010) is refused instead of fixed up",
            units: &[Map],
            answer: |c| match (reference_answer(c), &c.input) {
                (Answer::Decoded(v), Input::Bytes(b))
                    if v["header"]["size"].as_i64() != Some(b.len() as i64 - 16) =>
                {
                    Answer::Rejected("mutant: refused".into())
                }
                (other, _) => other,
            },
        },
        Mutant {
            name: "map_tiles_not_inflated",
            bug: "a version 4 layer's tiles are its block as stored, not inflated",
            units: &[Map],
            answer: |c| {
                decoded(c, |_, v| {
                    let data = v["data"].clone();
                    for l in v["layers"].as_array_mut().into_iter().flatten() {
                        let Some(b) = l["block"].as_u64() else {
                            continue;
                        };
                        if data[b as usize]["size"].is_i64() && !l["tiles"].is_null() {
                            l["tiles"] = data[b as usize]["stored_hex"].clone();
                        }
                    }
                })
            },
        },
        Mutant {
            name: "map_game_skip_runs_not_read",
            bug: "a version 4 game layer's stored tiles are read as one tile each, the skip byte ignored (ddnet-maploader 1.0.0)",
            units: &[Map],
            answer: |c| {
                decoded(c, |_, v| {
                    let item = v["game"]["item"].clone();
                    let layer = v["layers"]
                        .as_array()
                        .and_then(|ls| ls.iter().find(|l| l["item"] == item));
                    let Some(stored) = layer.and_then(|l| l["tiles"].as_str()) else {
                        return;
                    };
                    let stored = hex::decode(stored).unwrap_or_default();
                    let n = v["game"]["index_hex"].as_str().map_or(0, |h| h.len() / 2);
                    let index: Vec<u8> = (0..n)
                        .map(|i| stored.get(4 * i).copied().unwrap_or(0))
                        .collect();
                    v["game"]["index_hex"] = json!(hex::encode(index));
                })
            },
        },
        Mutant {
            name: "map_encode_rewrites_sizes",
            bug: "the writer recomputes the header's size instead of keeping the stored one",
            units: &[Map],
            answer: |c| {
                encoded(c, |_, b| {
                    let size = (b.len() as i32 - 16).to_le_bytes();
                    if b.len() >= 12 {
                        b[8..12].copy_from_slice(&size);
                    }
                })
            },
        },
        // map_lint
        Mutant {
            name: "map_lint_tune_zone_zero_missed",
            bug: "a tune tile of zone 0 is not linted (the checker knows teleporters and switches numbered 0, not tune zones: ddnet#10177 asks for all three)",
            units: &[MapLint],
            answer: |c| decoded(c, |_, v| drop_lints(v, |l| l["rule"] == "tune_number_zero")),
        },
        Mutant {
            name: "map_lint_notes_dropped",
            bug: "only what cannot work is reported: an exit without an entrance, a tile kind the layer does not use and unknown items (DDNet's notes) are left out",
            units: &[MapLint],
            answer: |c| {
                decoded(c, |_, v| {
                    drop_lints(v, |l| {
                        let rule = l["rule"].as_str().unwrap_or_default();
                        teeoracle::map::lint::rule_named(rule)
                            .is_some_and(|r| r.severity == teeoracle::report::Severity::Note)
                    })
                })
            },
        },
        Mutant {
            name: "map_lint_tiles_column_major",
            bug: "a tile's place is read column by column (x and y swapped), as a checker that walks the layer's block by columns",
            units: &[MapLint],
            answer: |c| {
                decoded(c, |_, v| {
                    for l in v["lints"].as_array_mut().into_iter().flatten() {
                        for t in l["tiles"].as_array_mut().into_iter().flatten() {
                            let (x, y) = (t["x"].clone(), t["y"].clone());
                            *t = json!({"x": y, "y": x});
                        }
                    }
                })
            },
        },
    ]
}

/// Leaves out the lints `gone` holds of.
fn drop_lints(v: &mut Value, gone: impl Fn(&Value) -> bool) {
    if let Some(lints) = v["lints"].as_array_mut() {
        lints.retain(|l| !gone(l));
    }
}
