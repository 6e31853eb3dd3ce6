//! A tiles layer's tiles as DDNet's loader gives them: its block read
//! (inflated, bounded), read as its kind's tiles, Teeworlds 0.7's skip
//! runs expanded, one tile per cell of the layer. What [`super::rules`]
//! checks, and what `map dump --tiles`, `map render` and `diff` show.

use super::Datafile;
use super::data::block;
use super::items::TilesLayer;
use super::tiles::{SkipFault, TileData, TileKind, Tiles, expand};
use crate::codec::{Codec, Mode, Reader};
use crate::compression::zlib::Fault;
use std::fmt;

/// Why a tiles layer gives no tiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GridFault {
    /// Its item names a block the map does not have (or no block).
    NoBlock {
        /// The block it names.
        index: i32,
    },
    /// Its width or height is below 1, or it has more tiles than DDNet's
    /// int sizes hold.
    Size {
        /// Width in tiles.
        width: i32,
        /// Height in tiles.
        height: i32,
    },
    /// Its block does not give its bytes.
    Block(Fault),
    /// Skip runs (layer version 4) in a layer other than a drawn or the
    /// game layer, which DDNet does not expand.
    SkipKind,
    /// The expanded tiles would take more bytes than the cap.
    OverCap {
        /// Tiles the layer has.
        count: usize,
        /// The cap.
        cap: u64,
    },
    /// The skip runs do not fill the layer exactly.
    Skip(SkipFault),
    /// The block holds fewer tiles than the layer has.
    Short {
        /// Tiles it holds.
        got: usize,
        /// Tiles the layer has.
        count: usize,
    },
}

impl fmt::Display for GridFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            GridFault::NoBlock { index } => write!(f, "names block {index}, which is not there"),
            GridFault::Size { width, height } => {
                write!(f, "is {width} by {height} tiles, which DDNet does not load")
            }
            GridFault::Block(fault) => write!(f, "its block gives no tiles: {fault}"),
            GridFault::SkipKind => write!(
                f,
                "uses skip runs (layer version 4), which DDNet reads only in drawn and game layers"
            ),
            GridFault::OverCap { count, cap } => write!(
                f,
                "expands to {count} tiles, more bytes than the cap of {cap} (--max-decompressed \
                 raises it)"
            ),
            GridFault::Skip(SkipFault::Reserved { at }) => {
                write!(f, "has a non-zero reserved byte at stored tile {at}")
            }
            GridFault::Skip(SkipFault::Short { got }) => {
                write!(f, "expands to {got} tiles, fewer than the layer's")
            }
            GridFault::Skip(SkipFault::Long { used }) => write!(
                f,
                "fills the layer after {used} stored tiles, and more are stored"
            ),
            GridFault::Short { got, count } => {
                write!(f, "holds {got} tiles, fewer than the layer's {count}")
            }
        }
    }
}

/// The tiles of `layer` (an item of `datafile`), one per cell in rows
/// from the top left, as DDNet's loader reads them: the block its
/// physics picks, inflated up to `cap` bytes, version 4's skip runs
/// expanded (also up to `cap` bytes). Tiles past the layer's size are
/// left out.
pub fn grid(datafile: &Datafile<'_>, layer: &TilesLayer<'_>, cap: u64) -> Result<Tiles, GridFault> {
    let index = layer.tiles_data().unwrap_or(-1);
    let Some(at) = usize::try_from(index)
        .ok()
        .filter(|&i| i < datafile.data.len())
    else {
        return Err(GridFault::NoBlock { index });
    };
    let physics = layer.physics();
    let kind = TileKind::of(physics);
    let count = cells(layer).ok_or(GridFault::Size {
        width: layer.width,
        height: layer.height,
    })?;
    let bytes = block(datafile, at, cap).map_err(GridFault::Block)?;
    // Lenient: every whole tile is read, bytes after kept; it never fails.
    let data = TileData::decode(&mut Reader::new(&bytes, Mode::Lenient), kind)
        .map_err(|_| GridFault::Short { got: 0, count })?;
    let mut tiles = if layer.version >= 4 {
        let Tiles::Tile(stored) = &data.tiles else {
            return Err(GridFault::SkipKind);
        };
        if physics.is_some_and(|p| p != super::items::Physics::Game) {
            return Err(GridFault::SkipKind);
        }
        // DDNet allocates the whole layer; we do so up to the cap.
        if (count * TileKind::Tile.size()) as u64 > cap {
            return Err(GridFault::OverCap { count, cap });
        }
        Tiles::Tile(expand(stored, count).map_err(GridFault::Skip)?)
    } else {
        if data.tiles.len() < count {
            return Err(GridFault::Short {
                got: data.tiles.len(),
                count,
            });
        }
        data.tiles
    };
    tiles.truncate(count);
    Ok(tiles)
}

/// How many cells a layer has: `None` when its width or height is below
/// 1, or when its tiles' bytes would not fit DDNet's int sizes.
pub fn cells(layer: &TilesLayer<'_>) -> Option<usize> {
    if layer.width < 1 || layer.height < 1 {
        return None;
    }
    let count = i64::from(layer.width) * i64::from(layer.height);
    let size = TileKind::of(layer.physics()).size() as i64;
    (count * size <= i64::from(i32::MAX)).then_some(count as usize)
}
