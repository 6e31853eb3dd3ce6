//! A demo's events, one per line in [`crate::log`]'s format: what DDNet's
//! player meets ([`Events`]), told as changes.
//!
//! | event | from | fields |
//! |---|---|---|
//! | `message` | a message chunk | msg (its name, or `null`), id, system, fields (an object, when its layout is known) |
//! | `unreadable_message` | a message chunk whose id does not read | error |
//! | `item_add`, `item_remove` | a snapshot whose item keys differ from the one before | type (the item's type name), id |
//! | `fault` | a delta that does not apply, an item of the wrong size, a payload that does not decode | kind, detail |
//! | `end` | a chunk cut by the end of the file, or damage the player stops at | how (`"truncated"`, `"stopped"`), bytes or error |
//!
//! Tick markers and unchanged snapshots are not events (`teeoracle demo
//! events` shows every one).

use super::Events;
use super::json::{EventWhat, for_each_event};
use crate::codec::DecodeError;
use crate::log::Line;
use crate::packet::Message;
use std::collections::BTreeMap;

/// The event lines of the rest of `events`, up to where DDNet's player
/// stops ([`for_each_event`]), and what stopped it before the end of the
/// file, if anything did.
pub fn lines(events: &mut Events<'_>) -> (String, Option<DecodeError>) {
    let mut out = String::new();
    // The last snapshot's items: (type, id) → type name.
    let mut items: BTreeMap<(i32, i32), String> = BTreeMap::new();
    let mut tick = 0;
    let end = for_each_event(events, |line| {
        tick = line.tick;
        match line.what() {
            EventWhat::Tick { .. } => {}
            EventWhat::Message(Ok(m)) => out.push_str(&message_line(tick, m).done()),
            EventWhat::Message(Err(e)) => {
                let line = Line::new(tick, "unreadable_message").field("error", e.to_string());
                out.push_str(&line.done());
            }
            EventWhat::Snapshot(snap) => {
                let now: BTreeMap<(i32, i32), String> = snap
                    .items
                    .iter()
                    .map(|i| ((i.type_id, i.id), i.view.type_name.to_string()))
                    .collect();
                for (&(_, id), name) in items.iter().filter(|(k, _)| !now.contains_key(k)) {
                    let line = Line::new(tick, "item_remove").field("type", name);
                    out.push_str(&line.field("id", id).done());
                }
                for (&(_, id), name) in now.iter().filter(|(k, _)| !items.contains_key(k)) {
                    let line = Line::new(tick, "item_add").field("type", name);
                    out.push_str(&line.field("id", id).done());
                }
                items = now;
            }
            EventWhat::Fault(fault) => {
                // Kind and detail as the schema's fault objects have them.
                let value = serde_json::to_value(&fault.kind).unwrap_or_default();
                let line = Line::new(tick, "fault")
                    .field("kind", &value["kind"])
                    .maybe("detail", value.get("detail"));
                out.push_str(&line.done());
            }
        }
        Ok::<(), std::convert::Infallible>(())
    });
    let end = match end {
        Ok(end) => end,
        Err(never) => match never {},
    };
    if let Some(e) = &end.error {
        let line = Line::new(tick, "end").field("how", "stopped");
        out.push_str(&line.field("error", e.to_string()).done());
    } else if let Some(bytes) = end.truncated_bytes {
        let line = Line::new(tick, "end").field("how", "truncated");
        out.push_str(&line.field("bytes", bytes).done());
    }
    (out, end.error)
}

fn message_line(tick: i32, m: &Message<'_>) -> Line {
    let value = serde_json::to_value(m).unwrap_or_default();
    Line::new(tick, "message")
        .field("msg", &value["name"])
        .field("id", &value["id"])
        .field("system", &value["system"])
        .maybe("fields", value.get("fields"))
}
