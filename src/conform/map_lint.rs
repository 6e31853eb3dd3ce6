//! The `map_lint` unit: a map checker's lints, compared with
//! [`crate::map::lint::lint`]'s by rule, place and tile set.
//!
//! The oracle groups a rule's tiles by kind or number, and lists at most
//! [`MAX_PLACES`] of each group; a checker need not group them the same
//! way. So both sides are brought to one form before they are compared
//! ([`canonical`]): one entry per rule and place (a layer `G.L`, or an
//! item), its count summed, its tiles as a set in rows from the top, the
//! first [`MAX_PLACES`] of them. The first 64 of the union in row order
//! are always among the oracle's (each group keeps its first 64 in row
//! order), so the form is exact however large a layer is.

use crate::map::lint::{Lint, MAX_PLACES, RULES};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

/// The unit's JSON of the oracle's `lints`.
pub fn document(lints: &[Lint]) -> Value {
    let lints: Vec<Value> = lints
        .iter()
        .map(|l| {
            // A physics layer is named `G.L (Tele)` in `map lint`; the
            // unit names every layer `G.L`, as `map info` does.
            let layer = l
                .layer
                .as_deref()
                .map(|s| s.split(" (").next().unwrap_or(s));
            json!({
                "rule": l.rule,
                "layer": layer,
                "item": l.item,
                "count": l.count,
                "tiles": l.tiles,
            })
        })
        .collect();
    canonical(&json!({ "lints": lints }))
}

/// Where a lint is and what it is about: its rule's place in [`RULES`]
/// (an unknown rule after them), the rule, the layer, the item.
type Key = (usize, String, Option<String>, Option<i64>);

/// A place's count (if the checker gave one) and tiles, as (row, column).
type Found = (Option<u64>, BTreeSet<(u64, u64)>);

/// `value` (a checker's answer, or the oracle's) in the unit's one form:
/// `{"lints": [{"rule", "layer", "item", "count", "tiles"}]}`, one entry
/// per rule and place in [`RULES`] order, then by layer and item; a
/// layer's lint names no item. Anything else in `value` is kept as it is,
/// for the comparison to show; a `lints` that is not an array is left as
/// it is (a wrong value, not a crash).
pub fn canonical(value: &Value) -> Value {
    let Some(lints) = value.get("lints").and_then(Value::as_array) else {
        return value.clone();
    };
    let mut merged: BTreeMap<Key, Found> = BTreeMap::new();
    for l in lints {
        let rule = l.get("rule").and_then(Value::as_str).unwrap_or_default();
        let order = RULES
            .iter()
            .position(|r| r.name == rule)
            .unwrap_or(RULES.len());
        let layer = l.get("layer").and_then(Value::as_str).map(str::to_owned);
        let item = match layer {
            Some(_) => None,
            None => l.get("item").and_then(Value::as_i64),
        };
        let (count, tiles) = merged
            .entry((order, rule.to_owned(), layer, item))
            .or_default();
        if let Some(n) = l.get("count").and_then(Value::as_u64) {
            *count = Some(count.unwrap_or(0) + n);
        }
        for t in l
            .get("tiles")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let at = |k: &str| t.get(k).and_then(Value::as_u64).unwrap_or(u64::MAX);
            // Row first: the order `map lint` lists them in.
            tiles.insert((at("y"), at("x")));
        }
    }
    let lints: Vec<Value> = merged
        .into_iter()
        .map(|((_, rule, layer, item), (count, tiles))| {
            let tiles: Vec<Value> = tiles
                .into_iter()
                .take(MAX_PLACES)
                .map(|(y, x)| json!({ "x": x, "y": y }))
                .collect();
            json!({ "rule": rule, "layer": layer, "item": item, "count": count, "tiles": tiles })
        })
        .collect();
    let mut out = value.clone();
    out["lints"] = Value::Array(lints);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grouping_order_and_tiles_past_the_first_64_do_not_matter() {
        // The oracle's two groups of one rule and layer (two kinds), in
        // its order.
        let oracle = json!({"lints": [
            {"rule": "tele_number_zero", "layer": "0.1", "count": 2,
             "tiles": [{"x": 3, "y": 0}, {"x": 1, "y": 2}]},
            {"rule": "tele_number_zero", "layer": "0.1", "count": 1, "tiles": [{"x": 0, "y": 1}]},
            {"rule": "image_missing", "layer": "0.2", "item": 4, "count": 1},
        ]});
        // A checker's: per tile, another order, item left out.
        let checker = json!({"lints": [
            {"rule": "image_missing", "layer": "0.2", "count": 1},
            {"rule": "tele_number_zero", "layer": "0.1", "count": 1, "tiles": [{"x": 1, "y": 2}]},
            {"rule": "tele_number_zero", "layer": "0.1", "count": 1, "tiles": [{"x": 0, "y": 1}]},
            {"rule": "tele_number_zero", "layer": "0.1", "count": 1, "tiles": [{"x": 3, "y": 0}]},
        ]});
        let want = json!({"lints": [
            {"rule": "tele_number_zero", "layer": "0.1", "item": null, "count": 3,
             "tiles": [{"x": 3, "y": 0}, {"x": 0, "y": 1}, {"x": 1, "y": 2}]},
            {"rule": "image_missing", "layer": "0.2", "item": null, "count": 1, "tiles": []},
        ]});
        assert_eq!(canonical(&oracle), want);
        assert_eq!(canonical(&checker), want);
        // A checker listing every tile of a large layer gives the
        // oracle's first 64.
        let all: Vec<Value> = (0..100).map(|x| json!({"x": x, "y": 5})).collect();
        let checker = json!({"lints": [{"rule": "tile_unused", "layer": "0.0", "tiles": all}]});
        let tiles = &canonical(&checker)["lints"][0]["tiles"];
        assert_eq!(tiles.as_array().map(Vec::len), Some(MAX_PLACES));
        assert_eq!(tiles[63], json!({"x": 63, "y": 5}));
    }

    /// src/schema.md names every unit in its table, and documents each
    /// key of this unit's lints.
    #[test]
    fn the_schema_documents_the_unit() {
        let page = include_str!("../schema.md");
        let units = page
            .split("\n## Units\n")
            .nth(1)
            .and_then(|s| s.split("\n### ").next())
            .expect("src/schema.md: ## Units");
        for u in crate::conform::Unit::ALL {
            let named = units.lines().any(|l| {
                l.split('|')
                    .nth(1)
                    .is_some_and(|c| c.contains(&format!("`{u}`")))
            });
            assert!(named, "src/schema.md: the units table has no row for {u}");
        }
        let section = page
            .split("### The map_lint unit")
            .nth(1)
            .and_then(|s| s.split("\n#").next())
            .expect("src/schema.md: ### The map_lint unit");
        let lint = crate::map::lint::Lint {
            rule: "tele_no_exit",
            severity: crate::report::Severity::Warn,
            layer: Some("1.0 (Tele)".into()),
            item: None,
            count: 1,
            tiles: vec![crate::map::lint::Tile { x: 1, y: 2 }],
            message: String::new(),
        };
        let doc = document(&[lint]);
        let keys = doc["lints"][0].as_object().expect("a lint").keys();
        for key in keys {
            assert!(
                section.contains(&format!("`{key}`")),
                "src/schema.md: map_lint lacks `{key}`"
            );
        }
        assert_eq!(doc["lints"][0]["layer"], "1.0");
    }

    #[test]
    fn a_wrong_rule_or_a_missing_tile_still_differs() {
        let oracle = json!({"lints": [
            {"rule": "tele_no_exit", "layer": "0.1", "count": 1, "tiles": [{"x": 1, "y": 0}]},
        ]});
        let other_rule = json!({"lints": [
            {"rule": "tele_no_entrance", "layer": "0.1", "count": 1, "tiles": [{"x": 1, "y": 0}]},
        ]});
        let no_tile = json!({"lints": [{"rule": "tele_no_exit", "layer": "0.1", "count": 1}]});
        assert_ne!(canonical(&oracle), canonical(&other_rule));
        assert_ne!(canonical(&oracle), canonical(&no_tile));
        // Not an array: left for the comparison to show.
        assert_eq!(canonical(&json!({"lints": 3})), json!({"lints": 3}));
    }
}
