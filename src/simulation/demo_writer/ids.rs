//! Snapshot ids of the world's entities, as DDNet's server hands them
//! out: each entity keeps its id while it lives, new ones take the lowest
//! free id after the pickups'.

use crate::simulation::ddrace::weapons::Projectile;

/// Snap ids for projectiles and lasers: an entity keeps its id while it
/// lives; a new one takes the lowest id no living entity has, above the
/// map's pickups. (DDNet's `CSnapIdPool` reuses an id only seconds after
/// it was freed; the ids differ, the items do not.)
#[derive(Default)]
pub(super) struct IdPool {
    /// Living entities' keys and ids.
    live: Vec<(EntityKey, i32)>,
    /// The keys seen this tick.
    seen: Vec<EntityKey>,
    /// The first id (after the pickups).
    base: i32,
}

pub(super) type EntityKey = (i32, i32, i32, u32, u32);

/// A projectile's [`IdPool`] key: its owner, when and what it was fired
/// as, and where it is now (the same in a tick's two walks over the
/// projectiles).
pub(super) fn projectile_key(p: &Projectile) -> EntityKey {
    (
        p.owner,
        p.start_tick,
        p.kind,
        p.pos.x.to_bits(),
        p.pos.y.to_bits(),
    )
}

impl IdPool {
    /// A tick begins; ids start after the map's `pickups`.
    pub(super) fn begin(&mut self, pickups: i32) {
        self.seen.clear();
        self.base = pickups;
    }

    /// `key` lives this tick: its id.
    pub(super) fn keep(&mut self, key: EntityKey) -> i32 {
        self.seen.push(key);
        if let Some(&(_, id)) = self.live.iter().find(|(k, _)| *k == key) {
            return id;
        }
        let mut id = self.base;
        while self.live.iter().any(|&(_, i)| i == id) {
            id += 1;
        }
        self.live.push((key, id));
        id
    }

    /// Entities not seen this tick are gone.
    pub(super) fn end(&mut self) {
        let seen = &self.seen;
        self.live.retain(|(k, _)| seen.contains(k));
    }

    pub(super) fn id_of(&self, key: EntityKey) -> i32 {
        self.live
            .iter()
            .find(|(k, _)| *k == key)
            .map_or(0, |&(_, id)| id)
    }
}
