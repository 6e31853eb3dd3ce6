//! `map render`: a picture of what a map's physics layers do, one block
//! of pixels per tile, in the colours of [`LEGEND`]: the game layer,
//! then over it the front layer's tiles that are not air, then the tele
//! and speedup layers' tiles (the layers DDNet's loader uses: the last
//! of each in group order). PNG, the same bytes on every run.

use super::grid::grid;
use super::items::{Physics, TilesLayer};
use super::tiles::*;
use super::{Datafile, Map};
use std::fmt;

/// What a tile is drawn as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    /// Nothing (index 0).
    Air,
    /// Solid ground (hookable).
    Solid,
    /// Solid ground that cannot be hooked.
    Nohook,
    /// Kills.
    Death,
    /// Freezes (and live freeze).
    Freeze,
    /// Deep freeze.
    DeepFreeze,
    /// Unfreezes (and deep unfreeze, live unfreeze).
    Unfreeze,
    /// A spawn point (entity).
    Spawn,
    /// Race start.
    Start,
    /// Race finish.
    Finish,
    /// Stoppers (one-way, two-way, all-way).
    Stopper,
    /// Where a teleporter takes a tee from (tele layer).
    TeleFrom,
    /// Where a teleporter puts a tee (tele layer).
    TeleTo,
    /// Speedup (speedup layer).
    Speedup,
    /// Any other tile that is not air.
    Other,
}

/// Every class with its colour (RGB) and its name, in drawing order of
/// the legend.
pub const LEGEND: [(Class, [u8; 3], &str); 15] = [
    (Class::Air, [255, 255, 255], "air"),
    (Class::Solid, [64, 64, 64], "solid (hookable)"),
    (Class::Nohook, [140, 140, 170], "solid, unhookable"),
    (Class::Death, [220, 0, 0], "death"),
    (Class::Freeze, [110, 190, 255], "freeze, live freeze"),
    (Class::DeepFreeze, [0, 0, 150], "deep freeze"),
    (
        Class::Unfreeze,
        [255, 220, 0],
        "unfreeze, deep unfreeze, live unfreeze",
    ),
    (Class::Spawn, [0, 180, 0], "spawn (any team)"),
    (Class::Start, [0, 200, 170], "race start"),
    (Class::Finish, [230, 0, 150], "race finish"),
    (
        Class::Stopper,
        [255, 130, 0],
        "stopper (one-way, two-way, all-way)",
    ),
    (
        Class::TeleFrom,
        [130, 0, 200],
        "teleporter: from (tele layer)",
    ),
    (
        Class::TeleTo,
        [220, 150, 255],
        "teleporter: to (tele layer)",
    ),
    (Class::Speedup, [0, 230, 230], "speedup (speedup layer)"),
    (Class::Other, [190, 190, 190], "any other tile"),
];

impl Class {
    /// Its colour.
    pub fn color(self) -> [u8; 3] {
        LEGEND
            .iter()
            .find(|(c, _, _)| *c == self)
            .map_or([0, 0, 0], |(_, rgb, _)| *rgb)
    }

    /// A game or front layer's tile index.
    pub fn of_game(index: u8) -> Class {
        match index {
            0 => Class::Air,
            TILE_SOLID => Class::Solid,
            TILE_NOHOOK => Class::Nohook,
            TILE_DEATH => Class::Death,
            TILE_FREEZE | TILE_LFREEZE => Class::Freeze,
            TILE_DFREEZE => Class::DeepFreeze,
            TILE_UNFREEZE | TILE_DUNFREEZE | TILE_LUNFREEZE => Class::Unfreeze,
            TILE_START => Class::Start,
            TILE_FINISH => Class::Finish,
            TILE_STOP | TILE_STOPS | TILE_STOPA => Class::Stopper,
            i if (ENTITY_OFFSET + 1..=ENTITY_OFFSET + 3).contains(&i) => Class::Spawn,
            _ => Class::Other,
        }
    }

    /// A tele layer's tile kind.
    pub fn of_tele(kind: u8) -> Class {
        match kind {
            0 => Class::Air,
            TILE_TELEIN | TILE_TELEINEVIL | TILE_TELEINWEAPON | TILE_TELEINHOOK
            | TILE_TELECHECKIN | TILE_TELECHECKINEVIL => Class::TeleFrom,
            TILE_TELEOUT | TILE_TELECHECKOUT => Class::TeleTo,
            _ => Class::Other,
        }
    }

    /// A speedup layer's tile kind.
    pub fn of_speedup(kind: u8) -> Class {
        match kind {
            0 => Class::Air,
            TILE_SPEED_BOOST_OLD | TILE_SPEED_BOOST => Class::Speedup,
            _ => Class::Other,
        }
    }
}

/// How a layer's tile kinds are classed.
type Classify = fn(u8) -> Class;

/// Most pixels a picture may have.
pub const MAX_PIXELS: u64 = 1 << 26;

/// Why a map has no picture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RenderError {
    /// No game layer in a group.
    NoGameLayer,
    /// A layer's tiles do not read.
    Tiles {
        /// The physics layer.
        physics: Physics,
        /// Why.
        why: String,
    },
    /// The picture would have more than [`MAX_PIXELS`] pixels.
    TooLarge {
        /// Its width in pixels.
        width: u64,
        /// Its height in pixels.
        height: u64,
    },
}

impl fmt::Display for RenderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RenderError::NoGameLayer => write!(f, "no game layer in a group: nothing to draw"),
            RenderError::Tiles { physics, why } => {
                write!(
                    f,
                    "the {} layer's tiles do not read: it {why}",
                    physics.name()
                )
            }
            RenderError::TooLarge { width, height } => write!(
                f,
                "the picture would be {width}x{height} pixels, more than {MAX_PIXELS} (a smaller \
                 --scale draws it)"
            ),
        }
    }
}

/// An RGB picture, rows from the top.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Picture {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// 3 bytes a pixel.
    pub rgb: Vec<u8>,
}

/// Each cell's class, in rows, and the grid's size in tiles.
pub fn classes(
    datafile: &Datafile<'_>,
    map: &Map<'_>,
    cap: u64,
) -> Result<(usize, usize, Vec<Class>), RenderError> {
    let wanted = [
        Physics::Game,
        Physics::Front,
        Physics::Tele,
        Physics::Speedup,
    ];
    let last = wanted.map(|p| map.physics_layer(p).map(|(_, t)| t));
    let game = last[0].ok_or(RenderError::NoGameLayer)?;
    let tiles = |t: &TilesLayer<'_>, physics| {
        grid(datafile, t, cap).map_err(|e| RenderError::Tiles {
            physics,
            why: e.to_string(),
        })
    };
    let (width, height) = (game.width as usize, game.height as usize);
    let base = tiles(game, Physics::Game)?;
    let mut cells: Vec<Class> = base.kinds().into_iter().map(Class::of_game).collect();
    let overlays: [(usize, Classify); 3] = [
        (1, Class::of_game),
        (2, Class::of_tele),
        (3, Class::of_speedup),
    ];
    for (slot, class) in overlays {
        let Some(layer) = last[slot] else { continue };
        let kinds = tiles(layer, wanted[slot])?.kinds();
        let w = layer.width as usize;
        for (i, cell) in cells.iter_mut().enumerate() {
            let (x, y) = (i % width, i / width);
            if x >= w {
                continue;
            }
            let c = kinds.get(y * w + x).map_or(Class::Air, |&k| class(k));
            if c != Class::Air {
                *cell = c;
            }
        }
    }
    Ok((width, height, cells))
}

/// The picture of `map` (the items of `datafile`), `scale` pixels a tile
/// each way (at least 1), blocks inflated up to `cap` bytes.
pub fn render(
    datafile: &Datafile<'_>,
    map: &Map<'_>,
    cap: u64,
    scale: u32,
) -> Result<Picture, RenderError> {
    let scale = scale.max(1) as usize;
    let (width, height, cells) = classes(datafile, map, cap)?;
    let (pw, ph) = (width as u64 * scale as u64, height as u64 * scale as u64);
    if pw * ph > MAX_PIXELS {
        return Err(RenderError::TooLarge {
            width: pw,
            height: ph,
        });
    }
    let mut rgb = Vec::with_capacity((pw * ph * 3) as usize);
    for row in cells.chunks(width) {
        let mut line = Vec::with_capacity(pw as usize * 3);
        for class in row {
            let color = class.color();
            for _ in 0..scale {
                line.extend_from_slice(&color);
            }
        }
        for _ in 0..scale {
            rgb.extend_from_slice(&line);
        }
    }
    Ok(Picture {
        width: pw as u32,
        height: ph as u32,
        rgb,
    })
}

/// The outline [`Picture::mark`] draws around a tile a lint warns of
/// (black: no tile class has it).
pub const MARK_WARN: [u8; 3] = [0, 0, 0];
/// The outline around a tile a lint notes (lime: no class has it).
pub const MARK_NOTE: [u8; 3] = [160, 255, 0];

impl Picture {
    /// Outlines tile (`x`, `y`) of a picture drawn `scale` pixels a tile
    /// in `rgb`: its border pixels (the whole tile below 3 pixels). A
    /// tile outside the picture is left.
    pub fn mark(&mut self, x: u32, y: u32, scale: u32, rgb: [u8; 3]) {
        let scale = scale.max(1);
        let (x0, y0) = (
            u64::from(x) * u64::from(scale),
            u64::from(y) * u64::from(scale),
        );
        if x0 >= u64::from(self.width) || y0 >= u64::from(self.height) {
            return;
        }
        let last = u64::from(scale - 1);
        for dy in 0..=last {
            for dx in 0..=last {
                let border = scale < 3 || dx == 0 || dy == 0 || dx == last || dy == last;
                let (px, py) = (x0 + dx, y0 + dy);
                if border && px < u64::from(self.width) && py < u64::from(self.height) {
                    let at = ((py * u64::from(self.width) + px) * 3) as usize;
                    self.rgb[at..at + 3].copy_from_slice(&rgb);
                }
            }
        }
    }

    /// The picture as a PNG file (8-bit RGB, no metadata: the same bytes
    /// for the same picture).
    pub fn png(&self) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, self.width, self.height);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().map_err(|e| e.to_string())?;
        writer
            .write_image_data(&self.rgb)
            .map_err(|e| e.to_string())?;
        writer.finish().map_err(|e| e.to_string())?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::tests::ints;
    use crate::map::tests::zlib::{NONE, build, group, tiles_layer};

    /// A 3 by 2 game layer (air, solid, death / freeze, spawn, finish),
    /// and a tele layer with a teleporter's entrance over the freeze.
    fn map() -> Vec<u8> {
        let game: Vec<u8> = [0, 1, 2, 9, 192, 34]
            .iter()
            .flat_map(|&i| [i, 0, 0, 0])
            .collect();
        let tele = [0, 0, 0, 0, 0, 0, 1, 26, 0, 0, 0, 0].to_vec();
        let items = [
            (0, 0, ints(&[1])),
            (4, 0, group(0, 2)),
            (5, 0, tiles_layer(3, 2, 1, 0, NONE)),
            (5, 1, tiles_layer(3, 2, 2, -1, [1, -1, -1, -1, -1])),
        ];
        build(&items, &[game, tele])
    }

    #[test]
    fn each_tile_is_a_block_of_its_class_colour() {
        let bytes = map();
        let datafile = Datafile::decode(&bytes).unwrap();
        let map = Map::new(&datafile);
        let picture = render(&datafile, &map, 1 << 20, 2).unwrap();
        assert_eq!((picture.width, picture.height), (6, 4));
        let png = picture.png().unwrap();
        assert_eq!(png, picture.png().unwrap(), "the same bytes every time");
        // Decoded back, pixel by pixel.
        let decoder = png::Decoder::new(std::io::Cursor::new(&png));
        let mut reader = decoder.read_info().unwrap();
        let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut pixels).unwrap();
        assert_eq!((info.width, info.height), (6, 4));
        assert_eq!(info.color_type, png::ColorType::Rgb);
        let want = [
            [Class::Air, Class::Solid, Class::Death],
            [Class::TeleFrom, Class::Spawn, Class::Finish],
        ];
        for y in 0..4 {
            for x in 0..6 {
                let at = 3 * (y * 6 + x);
                assert_eq!(
                    pixels[at..at + 3],
                    want[y / 2][x / 2].color(),
                    "pixel ({x},{y})"
                );
            }
        }
    }

    #[test]
    fn a_map_without_a_game_layer_has_no_picture() {
        let items = [(0, 0, ints(&[1])), (4, 0, group(0, 0))];
        let bytes = build(&items, &[]);
        let datafile = Datafile::decode(&bytes).unwrap();
        let map = Map::new(&datafile);
        assert_eq!(
            render(&datafile, &map, 1 << 20, 1),
            Err(RenderError::NoGameLayer)
        );
    }

    #[test]
    fn the_legend_colours_are_distinct() {
        let mut colors: Vec<[u8; 3]> = LEGEND.iter().map(|l| l.1).collect();
        colors.sort();
        colors.dedup();
        assert_eq!(colors.len(), LEGEND.len());
    }

    #[test]
    fn a_mark_outlines_its_tile_in_a_colour_no_tile_has() {
        for (_, rgb, what) in LEGEND {
            assert!(rgb != MARK_WARN && rgb != MARK_NOTE, "{what}");
        }
        let mut picture = Picture {
            width: 8,
            height: 4,
            rgb: vec![255; 8 * 4 * 3],
        };
        picture.mark(1, 0, 4, MARK_WARN);
        picture.mark(9, 9, 4, MARK_WARN);
        let marked: Vec<(usize, usize)> = (0..4)
            .flat_map(|y| (0..8).map(move |x| (x, y)))
            .filter(|(x, y)| picture.rgb[(y * 8 + x) * 3..][..3] == MARK_WARN)
            .collect();
        // The border of the 4x4 block from x 4: 12 pixels, not its middle.
        assert_eq!(marked.len(), 12);
        assert!(marked.iter().all(|&(x, _)| (4..8).contains(&x)));
        assert!(!marked.contains(&(5, 1)) && !marked.contains(&(6, 2)));
    }
}
