//! The clients of a teehistorian file as a demo shows them: their infos
//! (name, clan, skin) and rcon levels over time, read from its records.

use crate::simulation::physics::core::MAX_CLIENTS;
use crate::teehistorian::{Message, SliceReader};
use std::ops::ControlFlow;

/// Every client's info over the file: per client id, (tick, info) in
/// order; a join starts afresh.
#[derive(Default)]
pub(super) struct Clients {
    changes: Vec<Vec<(i32, Option<crate::packet::msg::ClientInfo>)>>,
    /// Per client id, (tick, rcon level) in order; a join or drop sets 0.
    auth: Vec<Vec<(i32, i32)>>,
    last_tick: i32,
}

impl Clients {
    /// Reads the file's joins, drops and info messages (as far as its
    /// records decode).
    pub(super) fn read(bytes: &[u8]) -> Clients {
        let mut c = Clients {
            changes: vec![Vec::new(); MAX_CLIENTS],
            auth: vec![Vec::new(); MAX_CLIENTS],
            last_tick: 0,
        };
        let Ok((_, mut reader)) = SliceReader::new(bytes, crate::codec::Mode::Lenient) else {
            return c;
        };
        let _ = reader.for_each_record(|rec| {
            c.last_tick = rec.tick;
            let slot = |cid: i32| usize::try_from(cid).ok().filter(|&c| c < MAX_CLIENTS);
            match &rec.msg {
                Message::Join { cid } | Message::Drop { cid, .. } => {
                    if let Some(cid) = slot(*cid) {
                        c.changes[cid].push((rec.tick, None));
                        c.auth[cid].push((rec.tick, 0));
                    }
                }
                Message::Ex(ex) => {
                    use crate::teehistorian::Ex;
                    let (cid, level) = match &ex.ex {
                        Ex::AuthInit { cid, level, .. } | Ex::AuthLogin { cid, level, .. } => {
                            (*cid, *level)
                        }
                        Ex::AuthLogout { cid } => (*cid, 0),
                        _ => return ControlFlow::Continue(()),
                    };
                    if let Some(cid) = slot(cid) {
                        c.auth[cid].push((rec.tick, level));
                    }
                }
                Message::NetMessage { cid, data } => {
                    if let (Some(cid), Some(info)) = (
                        slot(*cid),
                        crate::packet::msg::client_info(rec.protocol, data),
                    ) {
                        c.changes[cid].push((rec.tick, Some(info)));
                    }
                }
                _ => {}
            }
            ControlFlow::<()>::Continue(())
        });
        c
    }

    /// The info of `cid` as the snapshot of `tick` shows it: what was
    /// recorded before that tick (records of tick T come after its
    /// snapshot).
    pub(super) fn info_at(&self, cid: usize, tick: i32) -> crate::packet::msg::ClientInfo {
        self.changes[cid]
            .iter()
            .rev()
            .find(|(t, _)| *t < tick)
            .and_then(|(_, i)| i.clone())
            .unwrap_or_default()
    }

    /// The rcon level of `cid` as the snapshot of `tick` shows it.
    pub(super) fn auth_at(&self, cid: usize, tick: i32) -> i32 {
        self.auth[cid]
            .iter()
            .rev()
            .find(|(t, _)| *t < tick)
            .map_or(0, |&(_, level)| level)
    }

    /// The ticks from the first snapshot that shows a client named
    /// `name` to the last one it is in, and those clients.
    pub(super) fn span_of(&self, name: &[u8]) -> Option<(i32, i32, Vec<usize>)> {
        let mut span: Option<(i32, i32)> = None;
        let mut cids = Vec::new();
        for (cid, changes) in self.changes.iter().enumerate() {
            for (i, (t, info)) in changes.iter().enumerate() {
                if info.as_ref().is_none_or(|i| i.name != name) {
                    continue;
                }
                // Shown from the next tick on, until the next change.
                let start = t.saturating_add(1);
                let end = changes.get(i + 1).map_or(self.last_tick, |(t, _)| *t);
                span = Some(match span {
                    Some((a, b)) => (a.min(start), b.max(end)),
                    None => (start, end),
                });
                if !cids.contains(&cid) {
                    cids.push(cid);
                }
            }
        }
        span.map(|(a, b)| (a, b.max(a), cids))
    }
}
