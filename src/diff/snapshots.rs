//! What the demo and capture adapters share: a snapshot's items as keyed
//! events, and its characters' positions.

use super::{Event, Positions};
use crate::packet::Version;
use crate::snapshot::Snapshot;
use crate::snapshot::items::{ItemKind, SnapshotJson};
use std::collections::BTreeMap;

/// A snapshot's items as keyed events: `PREFIX TYPE:ID`, the named
/// fields (the raw ints for a type without a table).
pub(super) fn keyed_items(
    snap: &Snapshot,
    protocol: Version,
    prefix: &str,
) -> BTreeMap<String, Event> {
    keyed_items_and_events(snap, protocol, prefix).0
}

/// [`keyed_items`], and the keys of its event items with their sizes in
/// bytes, in id order: the server's event buffer (`CEventHandler` snaps
/// event `i` under id `i`).
pub(super) fn keyed_items_and_events(
    snap: &Snapshot,
    protocol: Version,
    prefix: &str,
) -> (BTreeMap<String, Event>, Vec<(String, usize)>) {
    let mut items = BTreeMap::new();
    let mut events = Vec::new();
    let json = SnapshotJson::new(snap, None, protocol);
    for item in &json.items {
        let view = serde_json::to_value(&item.view).unwrap_or_default();
        let named = view["fields"].as_object().is_some_and(|f| !f.is_empty());
        let fields = if named {
            view["fields"].clone()
        } else {
            serde_json::json!({ "data": item.data })
        };
        let name = &item.view.type_name;
        let key = format!("{prefix}{name}:{}", item.id);
        if item.view.kind == ItemKind::Event {
            events.push((item.id, key.clone(), 4 * item.data.len()));
        }
        let event = Event {
            category: format!("item:{name}"),
            key: Some(key.clone()),
            fields,
            ident: None,
        };
        items.insert(key, event);
    }
    events.sort_unstable();
    let events = events
        .into_iter()
        .map(|(_, key, size)| (key, size))
        .collect();
    (items, events)
}

/// The Character item's type in each protocol, and where its x and y are.
const CHARACTER_06: i32 = 9;
const CHARACTER_07: i32 = 10;

/// Every Character item's position (`x`, `y` of its core), by item id.
pub(super) fn character_positions(snap: &Snapshot, protocol: Version, out: &mut Positions) {
    out.clear();
    let wanted = match protocol {
        Version::V06 => CHARACTER_06,
        Version::V07 => CHARACTER_07,
    };
    for item in snap.items() {
        if item.type_id() == wanted
            && let (Some(&x), Some(&y)) = (item.data.get(1), item.data.get(2))
        {
            out.insert(item.id(), (x, y));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn character_types_are_the_tables_character() {
        use crate::snapshot::items::view;
        for (protocol, t) in [(Version::V06, CHARACTER_06), (Version::V07, CHARACTER_07)] {
            let data = [0i32; 22];
            let snap = Snapshot::from_items([((t << 16) | 3, &data[..])]);
            let v = view(&snap, &snap.item(0), protocol);
            assert_eq!(v.type_name, "Character", "{protocol:?} type {t}");
        }
    }
}
