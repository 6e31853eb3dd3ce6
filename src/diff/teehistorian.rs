//! The teehistorian adapter: a file read tick by tick.

use super::{Event, Positions, TickContent, Ticks};
use crate::codec::{DecodeError, Mode};
use crate::teehistorian::json::RecordLine;
use crate::teehistorian::{Message, Record, SliceReader};
use serde_json::Value;

/// The most characters whose positions are tracked (DDNet has at most
/// 64 clients; a file's larger cids beyond this many are not tracked).
const MAX_TRACKED: usize = 1024;

/// A teehistorian file read tick by tick: its records but `tick_skip`
/// (the tick numbers say it), without offsets.
pub struct TeehistorianTicks<'a> {
    reader: SliceReader<'a>,
    next: Option<Record<'a>>,
    records: Vec<Record<'a>>,
    raw: Vec<u8>,
    /// Every character's position after the current tick (PLAYER_NEW,
    /// PLAYER_DIFF; PLAYER_OLD removes it).
    positions: Positions,
}

impl<'a> TeehistorianTicks<'a> {
    /// Reads the header of `bytes`; the header's JSON as [`compare`](super::compare)
    /// takes it.
    pub fn new(bytes: &'a [u8]) -> Result<(Value, Self), DecodeError> {
        let (header, reader) = SliceReader::new(bytes, Mode::Lenient)?;
        let value = serde_json::to_value(&header.info).unwrap_or_default();
        let ticks = TeehistorianTicks {
            reader,
            next: None,
            records: Vec::new(),
            raw: Vec::new(),
            positions: Positions::new(),
        };
        Ok((value, ticks))
    }
}

impl Ticks for TeehistorianTicks<'_> {
    fn next_tick(&mut self) -> Result<Option<i32>, DecodeError> {
        self.records.clear();
        self.raw.clear();
        let first = match self.next.take() {
            Some(r) => r,
            None => match self.reader.next() {
                Some(r) => r?,
                None => return Ok(None),
            },
        };
        let tick = first.tick;
        self.push(first);
        while let Some(rec) = self.reader.next() {
            let rec = rec?;
            if rec.tick != tick {
                self.next = Some(rec);
                break;
            }
            self.push(rec);
        }
        Ok(Some(tick))
    }

    fn raw(&self) -> &[u8] {
        &self.raw
    }

    fn content(&self, detail: &dyn Fn(&str) -> bool) -> TickContent {
        let events = self
            .records
            .iter()
            .filter(|r| !matches!(r.msg, Message::TickSkip { .. }))
            .map(|r| {
                let category = r.msg.kind_name();
                if !detail(category) {
                    let mut e = Event::new(category.to_string(), Value::Null);
                    e.ident = Some(r.raw.to_vec());
                    return e;
                }
                let mut v = serde_json::to_value(RecordLine::new(r)).unwrap_or_default();
                if let Value::Object(m) = &mut v {
                    for k in ["offset", "tick", "kind", "noncanonical_at"] {
                        m.shift_remove(k);
                    }
                }
                Event::new(category.to_string(), v)
            })
            .collect();
        TickContent {
            events,
            ..TickContent::default()
        }
    }

    fn positions(&self) -> Option<&Positions> {
        Some(&self.positions)
    }

    fn character_word(&self) -> &'static str {
        "cid"
    }
}

impl<'a> TeehistorianTicks<'a> {
    fn push(&mut self, rec: Record<'a>) {
        match rec.msg {
            Message::PlayerNew { cid, x, y }
                if self.positions.len() < MAX_TRACKED || self.positions.contains_key(&cid) =>
            {
                self.positions.insert(cid, (x, y));
            }
            Message::PlayerDiff { cid, dx, dy } => {
                if let Some(p) = self.positions.get_mut(&cid) {
                    *p = (p.0.wrapping_add(dx), p.1.wrapping_add(dy));
                }
            }
            Message::PlayerOld { cid } => {
                self.positions.remove(&cid);
            }
            _ => {}
        }
        if !matches!(rec.msg, Message::TickSkip { .. }) {
            self.raw.extend_from_slice(rec.raw);
        }
        self.records.push(rec);
    }
}
