//! A tiles layer's data block, as tiles (DDNet's `CTile`, `CTeleTile`,
//! `CSpeedupTile`, `CSwitchTile`, `CTuneTile`), and which tile indices
//! DDNet knows for each layer (`IsValidGameTile` and the others of
//! `mapitems.cpp`, the tiles its editor lets a mapper place).

use super::items::Physics;
use crate::bytes::Blob;
use crate::codec::{Codec, DecodeError, Reader};
use serde::Serialize;

/// `TILEFLAG_XFLIP`.
pub const FLAG_XFLIP: u8 = 1;
/// `TILEFLAG_YFLIP`.
pub const FLAG_YFLIP: u8 = 2;
/// `TILEFLAG_OPAQUE`.
pub const FLAG_OPAQUE: u8 = 4;
/// `TILEFLAG_ROTATE`.
pub const FLAG_ROTATE: u8 = 8;

/// A tile of a drawn, game or front layer (`CTile`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tile {
    /// The tile: its place in the image, or what it does (game layer).
    pub index: u8,
    /// `TILEFLAG_*`: x flip 1, y flip 2, opaque 4, rotate 8.
    pub flags: u8,
    /// Teeworlds 0.7 (layer version 4): how many empty tiles follow,
    /// stored as one; 0 elsewhere.
    pub skip: u8,
    /// Must be 0.
    pub reserved: u8,
}

impl Tile {
    /// Mirrored left to right.
    pub fn x_flip(&self) -> bool {
        self.flags & FLAG_XFLIP != 0
    }
    /// Mirrored top to bottom.
    pub fn y_flip(&self) -> bool {
        self.flags & FLAG_YFLIP != 0
    }
    /// Drawn without blending.
    pub fn opaque(&self) -> bool {
        self.flags & FLAG_OPAQUE != 0
    }
    /// Turned 90 degrees clockwise.
    pub fn rotate(&self) -> bool {
        self.flags & FLAG_ROTATE != 0
    }
}

/// A tile of a tele layer (`CTeleTile`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TeleTile {
    /// The teleporter's number.
    pub number: u8,
    /// Its kind (`TILE_TELEIN` and others).
    pub kind: u8,
}

/// A tile of a speedup layer (`CSpeedupTile`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SpeedupTile {
    /// Force.
    pub force: u8,
    /// Largest speed it speeds up to (0: none).
    pub max_speed: u8,
    /// Its kind (`TILE_SPEED_BOOST` and the old one).
    pub kind: u8,
    /// Must be 0.
    pub reserved: u8,
    /// Direction in degrees.
    pub angle: i16,
}

/// A tile of a switch layer (`CSwitchTile`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SwitchTile {
    /// The switch's number.
    pub number: u8,
    /// Its kind.
    pub kind: u8,
    /// `TILEFLAG_*`.
    pub flags: u8,
    /// Delay in seconds.
    pub delay: u8,
}

/// A tile of a tune layer (`CTuneTile`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TuneTile {
    /// The tune zone's number.
    pub number: u8,
    /// Its kind (`TILE_TUNE`).
    pub kind: u8,
}

/// The tile structure a layer's block holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TileKind {
    /// `CTile`: drawn layers, the game and front layers.
    Tile,
    /// `CTeleTile`.
    Tele,
    /// `CSpeedupTile`.
    Speedup,
    /// `CSwitchTile`.
    Switch,
    /// `CTuneTile`.
    Tune,
}

impl TileKind {
    /// The structure a layer of this physics (`None`: drawn) holds.
    pub fn of(physics: Option<Physics>) -> TileKind {
        match physics {
            None | Some(Physics::Game | Physics::Front) => TileKind::Tile,
            Some(Physics::Tele) => TileKind::Tele,
            Some(Physics::Speedup) => TileKind::Speedup,
            Some(Physics::Switch) => TileKind::Switch,
            Some(Physics::Tune) => TileKind::Tune,
        }
    }

    /// Bytes per tile.
    pub fn size(self) -> usize {
        match self {
            TileKind::Tile | TileKind::Switch => 4,
            TileKind::Tele | TileKind::Tune => 2,
            TileKind::Speedup => 6,
        }
    }
}

/// A block's tiles.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "tiles", rename_all = "snake_case")]
pub enum Tiles {
    /// `CTile`s.
    Tile(Vec<Tile>),
    /// `CTeleTile`s.
    Tele(Vec<TeleTile>),
    /// `CSpeedupTile`s.
    Speedup(Vec<SpeedupTile>),
    /// `CSwitchTile`s.
    Switch(Vec<SwitchTile>),
    /// `CTuneTile`s.
    Tune(Vec<TuneTile>),
}

impl Tiles {
    /// How many tiles.
    pub fn len(&self) -> usize {
        match self {
            Tiles::Tile(t) => t.len(),
            Tiles::Tele(t) => t.len(),
            Tiles::Speedup(t) => t.len(),
            Tiles::Switch(t) => t.len(),
            Tiles::Tune(t) => t.len(),
        }
    }

    /// True if there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Writes tiles `range` (those there are of it) as stored.
    pub fn write(&self, range: std::ops::Range<usize>, out: &mut Vec<u8>) {
        fn each<T>(t: &[T], range: std::ops::Range<usize>) -> &[T] {
            let end = range.end.min(t.len());
            t.get(range.start.min(end)..end).unwrap_or_default()
        }
        match self {
            Tiles::Tile(t) => each(t, range)
                .iter()
                .for_each(|t| out.extend_from_slice(&[t.index, t.flags, t.skip, t.reserved])),
            Tiles::Tele(t) => each(t, range)
                .iter()
                .for_each(|t| out.extend_from_slice(&[t.number, t.kind])),
            Tiles::Speedup(t) => each(t, range).iter().for_each(|t| {
                out.extend_from_slice(&[t.force, t.max_speed, t.kind, t.reserved]);
                out.extend_from_slice(&t.angle.to_le_bytes());
            }),
            Tiles::Switch(t) => each(t, range)
                .iter()
                .for_each(|t| out.extend_from_slice(&[t.number, t.kind, t.flags, t.delay])),
            Tiles::Tune(t) => each(t, range)
                .iter()
                .for_each(|t| out.extend_from_slice(&[t.number, t.kind])),
        }
    }

    /// Keeps the first `len` tiles.
    pub fn truncate(&mut self, len: usize) {
        match self {
            Tiles::Tile(t) => t.truncate(len),
            Tiles::Tele(t) => t.truncate(len),
            Tiles::Speedup(t) => t.truncate(len),
            Tiles::Switch(t) => t.truncate(len),
            Tiles::Tune(t) => t.truncate(len),
        }
    }

    /// Each tile's kind byte: a `CTile`'s index, the others' type.
    pub fn kinds(&self) -> Vec<u8> {
        match self {
            Tiles::Tile(t) => t.iter().map(|t| t.index).collect(),
            Tiles::Tele(t) => t.iter().map(|t| t.kind).collect(),
            Tiles::Speedup(t) => t.iter().map(|t| t.kind).collect(),
            Tiles::Switch(t) => t.iter().map(|t| t.kind).collect(),
            Tiles::Tune(t) => t.iter().map(|t| t.kind).collect(),
        }
    }
}

/// A block read as tiles: every whole tile, and the bytes after.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TileData<'a> {
    /// The tiles, as stored (with their skip runs, in version 4).
    pub tiles: Tiles,
    /// Bytes after the last whole tile, as they are.
    pub extra: Blob<'a>,
}

impl<'a> Codec<'a, TileKind> for TileData<'a> {
    fn decode(r: &mut Reader<'a>, kind: TileKind) -> Result<Self, DecodeError> {
        let n = r.remaining() / kind.size();
        let body = r.take(n * kind.size(), "map.tiles")?;
        let each = body.chunks_exact(kind.size());
        let tiles = match kind {
            TileKind::Tile => Tiles::Tile(
                each.map(|b| Tile {
                    index: b[0],
                    flags: b[1],
                    skip: b[2],
                    reserved: b[3],
                })
                .collect(),
            ),
            TileKind::Tele => Tiles::Tele(
                each.map(|b| TeleTile {
                    number: b[0],
                    kind: b[1],
                })
                .collect(),
            ),
            TileKind::Speedup => Tiles::Speedup(
                each.map(|b| SpeedupTile {
                    force: b[0],
                    max_speed: b[1],
                    kind: b[2],
                    reserved: b[3],
                    angle: i16::from_le_bytes([b[4], b[5]]),
                })
                .collect(),
            ),
            TileKind::Switch => Tiles::Switch(
                each.map(|b| SwitchTile {
                    number: b[0],
                    kind: b[1],
                    flags: b[2],
                    delay: b[3],
                })
                .collect(),
            ),
            TileKind::Tune => Tiles::Tune(
                each.map(|b| TuneTile {
                    number: b[0],
                    kind: b[1],
                })
                .collect(),
            ),
        };
        Ok(TileData {
            tiles,
            extra: r.rest().into(),
        })
    }

    fn encode(&self, out: &mut Vec<u8>, _: TileKind) {
        self.tiles.write(0..self.tiles.len(), out);
        out.extend_from_slice(&self.extra);
    }
}

/// Why version 4 tiles do not expand to their layer's size
/// (`CMap::ExtractTiles`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkipFault {
    /// A tile's reserved byte is not 0 (at this stored tile).
    Reserved {
        /// The stored tile's index.
        at: usize,
    },
    /// The runs give fewer tiles than the layer has.
    Short {
        /// Tiles they give.
        got: usize,
    },
    /// Stored tiles are left after the layer is full.
    Long {
        /// Stored tiles used.
        used: usize,
    },
}

/// Expands Teeworlds 0.7's skip runs (each stored tile stands for itself
/// and `skip` more copies) to `count` tiles, as DDNet's loader does:
/// every stored tile must be used and fill the layer exactly.
pub fn expand(stored: &[Tile], count: usize) -> Result<Vec<Tile>, SkipFault> {
    let mut out = Vec::with_capacity(count.min(stored.len().saturating_mul(256)));
    let mut used = 0;
    for (at, t) in stored.iter().enumerate() {
        if out.len() >= count {
            break;
        }
        if t.reserved != 0 {
            return Err(SkipFault::Reserved { at });
        }
        let n = (usize::from(t.skip) + 1).min(count - out.len());
        let copy = Tile {
            skip: 0,
            reserved: 0,
            ..*t
        };
        out.extend(std::iter::repeat_n(copy, n));
        used = at + 1;
    }
    if out.len() != count {
        return Err(SkipFault::Short { got: out.len() });
    }
    if used != stored.len() {
        return Err(SkipFault::Long { used });
    }
    Ok(out)
}

// The tile indices DDNet knows (`mapitems.h`); those under
// `cfg(feature = "render")` only `map render` tells apart.
pub(crate) const TILE_SOLID: u8 = 1;
pub(crate) const TILE_DEATH: u8 = 2;
#[cfg(feature = "render")]
pub(crate) const TILE_NOHOOK: u8 = 3;
const TILE_NOLASER: u8 = 4;
const TILE_THROUGH: u8 = 6;
const TILE_JUMP: u8 = 7;
pub(crate) const TILE_FREEZE: u8 = 9;
pub(crate) const TILE_TELEINEVIL: u8 = 10;
pub(crate) const TILE_UNFREEZE: u8 = 11;
pub(crate) const TILE_DFREEZE: u8 = 12;
pub(crate) const TILE_DUNFREEZE: u8 = 13;
pub(crate) const TILE_TELEINWEAPON: u8 = 14;
pub(crate) const TILE_TELEINHOOK: u8 = 15;
const TILE_WALLJUMP: u8 = 16;
const TILE_HIT_ENABLE: u8 = 19;
const TILE_HIT_DISABLE: u8 = 20;
const TILE_SOLO_DISABLE: u8 = 22;
const TILE_SWITCHTIMEDOPEN: u8 = 22;
const TILE_SWITCHCLOSE: u8 = 25;
pub(crate) const TILE_TELEIN: u8 = 26;
pub(crate) const TILE_TELEOUT: u8 = 27;
pub(crate) const TILE_SPEED_BOOST_OLD: u8 = 28;
pub(crate) const TILE_SPEED_BOOST: u8 = 29;
pub(crate) const TILE_TELECHECK: u8 = 29;
pub(crate) const TILE_TELECHECKOUT: u8 = 30;
pub(crate) const TILE_TELECHECKIN: u8 = 31;
const TILE_REFILL_JUMPS: u8 = 32;
#[cfg(feature = "render")]
pub(crate) const TILE_START: u8 = 33;
#[cfg(feature = "render")]
pub(crate) const TILE_FINISH: u8 = 34;
#[cfg(feature = "render")]
pub(crate) const TILE_STOP: u8 = 60;
#[cfg(feature = "render")]
pub(crate) const TILE_STOPS: u8 = 61;
pub(crate) const TILE_STOPA: u8 = 62;
pub(crate) const TILE_TELECHECKINEVIL: u8 = 63;
const TILE_CP: u8 = 64;
const TILE_THROUGH_DIR: u8 = 67;
const TILE_TUNE: u8 = 68;
const TILE_OLDLASER: u8 = 71;
const TILE_UNLOCK_TEAM: u8 = 76;
const TILE_ADD_TIME: u8 = 79;
const TILE_NPC_DISABLE: u8 = 88;
const TILE_NPH_DISABLE: u8 = 91;
const TILE_SUBTRACT_TIME: u8 = 95;
const TILE_TELE_GUN_ENABLE: u8 = 96;
const TILE_TELE_GUN_DISABLE: u8 = 97;
const TILE_ALLOW_TELE_GUN: u8 = 98;
const TILE_ALLOW_BLUE_TELE_GUN: u8 = 99;
const TILE_NPC_ENABLE: u8 = 104;
const TILE_NPH_ENABLE: u8 = 107;
const TILE_TELE_GRENADE_ENABLE: u8 = 112;
const TILE_TELE_GRENADE_DISABLE: u8 = 113;
const TILE_TELE_LASER_ENABLE: u8 = 128;
const TILE_TELE_LASER_DISABLE: u8 = 129;
pub(crate) const TILE_LFREEZE: u8 = 144;
pub(crate) const TILE_LUNFREEZE: u8 = 145;
const TILE_ENTITIES_OFF_1: u8 = 190;
const TILE_ENTITIES_OFF_2: u8 = 191;
/// Entities (spawns, weapons, lasers, draggers, doors) are indices from
/// here on.
pub(crate) const ENTITY_OFFSET: u8 = 255 - 16 * 4;
const ENTITY_ARMOR_1: u8 = 6;

/// An entity DDNet knows (`IsValidEntity`): spawns to laser modifiers,
/// plasma to weapon-removing armor, draggers, doors.
fn entity(index: u8) -> bool {
    let Some(e) = index.checked_sub(ENTITY_OFFSET) else {
        return false;
    };
    matches!(e, 1..=27 | 29..=38 | 42..=47 | 49)
}

/// The tile effects the game and front layers share.
fn game_or_front(i: u8) -> bool {
    i == TILE_FREEZE
        || (TILE_UNFREEZE..=TILE_DUNFREEZE).contains(&i)
        || (TILE_LFREEZE..=TILE_LUNFREEZE).contains(&i)
        || (TILE_WALLJUMP..=TILE_SOLO_DISABLE).contains(&i)
        || (TILE_REFILL_JUMPS..=TILE_STOPA).contains(&i)
        || (TILE_CP..=TILE_THROUGH_DIR).contains(&i)
        || (TILE_OLDLASER..=TILE_UNLOCK_TEAM).contains(&i)
        || (TILE_NPC_DISABLE..=TILE_NPH_DISABLE).contains(&i)
        || (TILE_TELE_GRENADE_ENABLE..=TILE_TELE_GRENADE_DISABLE).contains(&i)
        || (TILE_TELE_LASER_ENABLE..=TILE_TELE_LASER_DISABLE).contains(&i)
        || (TILE_NPC_ENABLE..=TILE_NPH_ENABLE).contains(&i)
        || (TILE_ENTITIES_OFF_1..=TILE_ENTITIES_OFF_2).contains(&i)
        || entity(i)
}

/// True if DDNet knows tile kind `index` in a layer of `physics` (`None`:
/// a drawn layer, where any index is a picture). Air (0) is everywhere.
pub fn known_tile(physics: Option<Physics>, index: u8) -> bool {
    if index == 0 {
        return true;
    }
    let i = index;
    match physics {
        None => true,
        Some(Physics::Game) => {
            (TILE_SOLID..=TILE_THROUGH).contains(&i)
                || (TILE_TELE_GUN_ENABLE..=TILE_TELE_GUN_DISABLE).contains(&i)
                || game_or_front(i)
        }
        Some(Physics::Front) => {
            i == TILE_DEATH
                || (TILE_NOLASER..=TILE_THROUGH).contains(&i)
                || (TILE_TELE_GUN_ENABLE..=TILE_ALLOW_BLUE_TELE_GUN).contains(&i)
                || game_or_front(i)
        }
        Some(Physics::Tele) => matches!(
            i,
            TILE_TELEINEVIL
                | TILE_TELEINWEAPON
                | TILE_TELEINHOOK
                | TILE_TELEIN
                | TILE_TELEOUT
                | TILE_TELECHECK
                | TILE_TELECHECKOUT
                | TILE_TELECHECKIN
                | TILE_TELECHECKINEVIL
        ),
        Some(Physics::Speedup) => i == TILE_SPEED_BOOST_OLD || i == TILE_SPEED_BOOST,
        Some(Physics::Switch) => {
            matches!(
                i,
                TILE_JUMP
                    | TILE_FREEZE
                    | TILE_DFREEZE
                    | TILE_DUNFREEZE
                    | TILE_LFREEZE
                    | TILE_LUNFREEZE
                    | TILE_HIT_ENABLE
                    | TILE_HIT_DISABLE
                    | TILE_ADD_TIME
                    | TILE_SUBTRACT_TIME
                    | TILE_ALLOW_TELE_GUN
                    | TILE_ALLOW_BLUE_TELE_GUN
            ) || (TILE_SWITCHTIMEDOPEN..=TILE_SWITCHCLOSE).contains(&i)
                || (entity(i) && i >= ENTITY_OFFSET + ENTITY_ARMOR_1)
        }
        Some(Physics::Tune) => i == TILE_TUNE,
    }
}
