//! Pictures of players' paths on their map (`map::plot`): `--plot OUT`
//! of `teehistorian simulate` and `teehistorian compare`, and `demo plot`.
//! OUT is a PNG, or an SVG when its name ends in `.svg`.

use super::Failure;
use super::output::shown;
use std::path::{Path, PathBuf};
use teeoracle::diff::players::{Comparison, PlayerComparison, paths::PathRequest};
use teeoracle::map::plot::{self, Mark, Plot, Track};
use teeoracle::map::render::Picture;
use teeoracle::map::{Datafile, Map};

// What a picture of paths covers and how large it is. (Not a doc
// comment: clap would take it for the about text of each command that
// flattens it in.)
#[derive(clap::Args, Clone, Debug, Default)]
pub struct PlotArgs {
    /// With a picture: pixels a tile each way (default 4).
    #[arg(long, value_name = "N")]
    pub scale: Option<u32>,
    /// With a picture: the first tick drawn (default: the first).
    #[arg(long, value_name = "TICK", allow_hyphen_values = true)]
    pub from: Option<i32>,
    /// With a picture: the last tick drawn (default: the last).
    #[arg(long, value_name = "TICK", allow_hyphen_values = true)]
    pub to: Option<i32>,
    /// With a picture: draw only the players of this name (repeatable;
    /// default: every player).
    #[arg(long, value_name = "NAME")]
    pub player: Vec<String>,
}

/// The default pixels a tile.
pub const SCALE: u32 = 4;

impl PlotArgs {
    /// Bad usage when one of these is given without a picture to draw.
    pub fn without_picture(&self, flag: &str) -> Result<(), Failure> {
        match self.scale.is_some()
            || self.from.is_some()
            || self.to.is_some()
            || !self.player.is_empty()
        {
            true => Err(Failure::Usage(format!(
                "--scale, --from, --to and --player draw a picture: they go with {flag}"
            ))),
            false => Ok(()),
        }
    }

    /// The pixels a tile, checked.
    pub fn scale(&self) -> Result<u32, Failure> {
        match self.scale.unwrap_or(SCALE) {
            0 => Err(Failure::Usage("--scale must be at least 1".into())),
            s => Ok(s),
        }
    }

    /// The ticks and fineness of the paths a comparison keeps.
    pub fn request(&self) -> Result<PathRequest, Failure> {
        if let (Some(f), Some(t)) = (self.from, self.to)
            && f > t
        {
            return Err(Failure::Usage(format!("--from {f} is after --to {t}")));
        }
        Ok(PathRequest {
            from: self.from,
            to: self.to,
            // One pixel: finer points would not show.
            resolution: (32 / self.scale()?).max(1) as i32,
        })
    }

    /// Whether a player of `name` is drawn.
    pub fn wants(&self, name: Option<&str>) -> bool {
        self.player.is_empty() || name.is_some_and(|n| self.player.iter().any(|p| p == n))
    }

    /// Whether `tick` is among those drawn.
    pub fn covers(&self, tick: i32) -> bool {
        self.from.is_none_or(|f| tick >= f) && self.to.is_none_or(|t| tick <= t)
    }
}

/// The bytes of a teehistorian file's map: `--map FILE` (a map, or the
/// map a demo embeds), else the map its header names among those beside
/// it and under `dirs`.
pub fn teehistorian_map(
    file: &Path,
    map: Option<&Path>,
    dirs: &[PathBuf],
) -> Result<(Vec<u8>, u64), Failure> {
    if let Some(map) = map {
        return super::maps::map_bytes_of(map);
    }
    let bytes = super::output::read(file)?;
    let maps = super::maps::maps_for(&[(file.to_path_buf(), true)], dirs, true)?;
    let (header, _) =
        teeoracle::teehistorian::SliceReader::new(&bytes, teeoracle::codec::Mode::Lenient)
            .map_err(|e| Failure::bad(format!("{}: {e}", shown(file))))?;
    let found = (header.info.map_sha256.as_deref()).and_then(|sha| maps.get(sha));
    let map = found.ok_or_else(|| {
        Failure::bad(format!(
            "{}: the map the header names (map_sha256) is not among the {} maps beside it or under --maps: give --map MAP or --maps DIR",
            shown(file),
            maps.len()
        ))
    })?;
    let cap = teeoracle::compression::default_max_decompressed(map.len() as u64);
    Ok((map.to_vec(), cap))
}

/// The picture of the map `bytes` (a map file's) at `scale`.
pub fn map_picture(bytes: &[u8], cap: u64, scale: u32, name: &str) -> Result<Picture, Failure> {
    let bad = |e: String| Failure::bad(format!("{name}: {e}"));
    let datafile = Datafile::decode(bytes).map_err(|e| bad(e.to_string()))?;
    let map = Map::new(&datafile);
    teeoracle::map::render::render(&datafile, &map, cap, scale).map_err(|e| bad(e.to_string()))
}

/// Writes `plot` over `map` to `out` (SVG by its name, else PNG), and
/// says so on stderr (stdout is the command's report).
pub fn write(out: &Path, map: &Picture, scale: u32, plot: &Plot) -> Result<(), Failure> {
    let failed = |e: String| Failure::bad(format!("{}: {e}", shown(out)));
    let is_svg = out
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("svg"));
    let (bytes, width, height) = match is_svg {
        true => {
            let s = plot::svg(map, scale, plot).map_err(failed)?;
            (s.into_bytes(), None, None)
        }
        false => {
            let p = plot::draw(map, scale, plot);
            (p.png().map_err(failed)?, Some(p.width), Some(p.height))
        }
    };
    std::fs::write(out, &bytes).map_err(|e| failed(e.to_string()))?;
    let marks = match plot.tracks.iter().filter(|t| t.mark.is_some()).count() {
        0 => String::new(),
        n => format!(", {n} ringed where the paths part"),
    };
    let size = match width.zip(height) {
        Some((w, h)) => format!("{w}x{h} pixels, "),
        None => String::new(),
    };
    eprintln!(
        "wrote {} ({size}{scale} per tile, {} player(s){marks}, {} bytes)",
        shown(out),
        plot.tracks.len(),
        bytes.len()
    );
    Ok(())
}

/// Draws `plot` on the map of the teehistorian `file` (`--map`, or the
/// one its header names among `maps`) to `out`.
pub fn on_teehistorian_map(
    out: &Path,
    file: &Path,
    map: Option<&Path>,
    maps: &[PathBuf],
    args: &PlotArgs,
    plot: &Plot,
) -> Result<(), Failure> {
    let (bytes, cap) = teehistorian_map(file, map, maps)?;
    let scale = args.scale()?;
    let background = map_picture(&bytes, cap, scale, &shown(map.unwrap_or(file)))?;
    write(out, &background, scale, plot)
}

/// A player as the legend names it.
fn label(p: &PlayerComparison) -> String {
    let name = p
        .name
        .as_ref()
        .map_or("(no name)".to_owned(), |n| format!("{n:?}"));
    let cids = match (p.original_cid, p.other_cid) {
        (Some(a), Some(b)) if a != b => format!("cid {a}, {b} in the other"),
        (Some(a), _) => format!("cid {a}"),
        (None, Some(b)) => format!("cid {b} in the other only"),
        (None, None) => "no cid".into(),
    };
    format!("{name} ({cids}, joined at tick {})", p.joined)
}

/// The picture of a comparison's paths ([`Comparison::players`]' `paths`):
/// the original's solid, the other's dotted, and a ring where each
/// player's first departs.
pub fn of_comparison(c: &Comparison, args: &PlotArgs, title: String, key: &str) -> Plot {
    let mut tracks = Vec::new();
    for p in &c.players {
        let Some([a, b]) = &p.paths else { continue };
        let name = (p.name.as_deref()).map(String::from_utf8_lossy);
        if !args.wants(name.as_deref()) || (a.lines.is_empty() && b.lines.is_empty()) {
            continue;
        }
        let mut track = Track {
            label: label(p),
            lines: a.lines.clone(),
            other: b.lines.clone(),
            ..Track::default()
        };
        if let Some(d) = &p.path {
            let place = |p: Option<[i32; 2]>| {
                p.map_or("no character".into(), |[x, y]| format!("({x}, {y})"))
            };
            let apart = d
                .distance
                .map_or(String::new(), |d| format!(", {d:.1} units apart"));
            // A ring only where the ticks drawn hold it; the legend says it anyway.
            let outside = match args.covers(d.tick) {
                true => {
                    track.mark = d.original.or(d.other).map(|[x, y]| Mark {
                        at: (x, y),
                        other: d.original.and(d.other).map(|[x, y]| (x, y)),
                    });
                    ""
                }
                false => " (outside the ticks drawn)",
            };
            track.note = format!(
                "parts at tick {}{outside}: {} against {}{apart}",
                d.tick,
                place(d.original),
                place(d.other)
            );
        }
        tracks.push(track);
    }
    let mut notes = Vec::new();
    if let Some(t) = c.paths_cut_at {
        notes.push(format!(
            "paths from tick {t} on are not drawn (more than {} points)",
            teeoracle::diff::players::paths::MAX_PATH_POINTS
        ));
    }
    if tracks.is_empty() {
        notes.push("no player's path to draw".into());
    }
    Plot {
        title,
        key: key.to_owned(),
        tracks,
        notes,
    }
}

/// `demo plot`: the demo's characters' paths on the map it embeds.
pub fn demo(file: &Path, out: &Path, args: &PlotArgs) -> Result<(), Failure> {
    let request = args.request()?;
    let scale = args.scale()?;
    let (map, cap) = super::maps::map_bytes_of(file)?;
    let background = map_picture(&map, cap, scale, &shown(file))?;
    let bytes = super::output::read(file)?;
    let paths = teeoracle::diff::demo_paths(&bytes, request)
        .map_err(|e| Failure::bad(format!("{}: {e}", shown(file))))?;
    let mut tracks = Vec::new();
    for c in &paths.characters {
        let (id, path) = (c.id, &c.path);
        let wanted = args.player.is_empty() || c.names.iter().any(|n| args.wants(Some(n)));
        if path.lines.is_empty() || !wanted {
            continue;
        }
        let names: Vec<String> = c.names.iter().map(|n| format!("{n:?}")).collect();
        let name = match names.is_empty() {
            true => "(no name)".to_owned(),
            false => names.join(", then "),
        };
        let (first, last) = (
            path.lines.iter().flatten().next(),
            path.lines.iter().flatten().last(),
        );
        let ticks = first
            .zip(last)
            .map_or(String::new(), |(a, b)| format!(", ticks {}..{}", a.0, b.0));
        tracks.push(Track {
            label: format!("{name} (id {id}{ticks})"),
            lines: path.lines.clone(),
            ..Track::default()
        });
    }
    let mut notes = Vec::new();
    if let Some(t) = paths.cut_at {
        notes.push(format!(
            "paths from tick {t} on are not drawn (more than {} points)",
            teeoracle::diff::players::paths::MAX_PATH_POINTS
        ));
    }
    if let Some(e) = &paths.stopped {
        notes.push(format!("the demo stops being readable: {e}"));
    }
    if tracks.is_empty() {
        notes.push("no character's path to draw".into());
    }
    let ticks = paths
        .ticks
        .map_or("no ticks".to_owned(), |(a, b)| format!("ticks {a}..{b}"));
    let plot = Plot {
        title: format!("{}, {ticks}", shown(file)),
        key: "each character's Character items, tick by tick".into(),
        tracks,
        notes,
    };
    write(out, &background, scale, &plot)?;
    // A demo that stops early is drawn up to where it stops, and fails.
    match &paths.stopped {
        Some(e) => Err(Failure::bad(format!("{}: {e}", shown(file)))),
        None => Ok(()),
    }
}
