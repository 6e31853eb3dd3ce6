//! `teeoracle map ...`: a map file's summary, its items, its check and
//! its picture; FILE may be a demo, whose embedded map is read.

use super::Failure;
use super::output::{ReportFormat, read, shown, stdout, write_json_doc};
use clap::Subcommand;
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};
use teeoracle::bytes::key_values;
use teeoracle::check::{self, Options, Severity, Source, Totals, Verdict};
use teeoracle::input::default_max_decompressed;
use teeoracle::map::info::{Dump, LayerTiles, Summary};
use teeoracle::map::lint::Lint;
use teeoracle::map::tiles::Tiles;
use teeoracle::map::{Datafile, Map, MapBytes};
use teeoracle::simulation::coverage::{MapFeature, map_features};
use teeoracle::simulation::physics::collision::{Collision, MapError};

#[derive(Subcommand, Debug)]
#[command(defer = true)]
pub enum MapCommand {
    /// Version, sizes, item counts, info texts and settings, images,
    /// envelopes, groups and their layers, what the physics model does
    /// not cover (docs/physics-coverage.md), and the check's findings.
    Info {
        /// The map, or a demo (its embedded map is read); `-`: standard
        /// input.
        file: PathBuf,
        /// `text` for people, `json` for programs.
        #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
        format: ReportFormat,
        /// The most bytes a data block may inflate to (default: 64 times
        /// the file's size, at least 64 MiB); K, M, G suffixes.
        #[arg(long, value_name = "BYTES", value_parser = super::parse_bytes)]
        max_decompressed: Option<u64>,
    },
    /// The container's fields and every item typed, every data block, and
    /// each tiles layer's tiles counted by kind (or listed).
    Dump {
        /// The map, or a demo (its embedded map is read); `-`: standard
        /// input.
        file: PathBuf,
        /// List the tiles: of every tiles layer (`--tiles`), or of one
        /// (`--tiles=G.L`: group G's layer L, as `map info` names them).
        #[arg(long, value_name = "LAYER", num_args = 0..=1, require_equals = true,
              default_missing_value = "all")]
        tiles: Option<String>,
        /// `text` for people, `json` for programs.
        #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
        format: ReportFormat,
        /// The most bytes a data block may inflate to (default: 64 times
        /// the file's size, at least 64 MiB); K, M, G suffixes.
        #[arg(long, value_name = "BYTES", value_parser = super::parse_bytes)]
        max_decompressed: Option<u64>,
    },
    /// `check` on one map (or a demo's embedded map): exact round trip,
    /// DDNet's reader and loader rules as findings.
    Check {
        /// The map, or a demo (its embedded map is checked); `-`:
        /// standard input.
        file: PathBuf,
        /// A table (`text`) or one JSON document of kind `check`.
        #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
        format: ReportFormat,
        /// Fail a map that passes with a warning.
        #[arg(long)]
        deny_warnings: bool,
        /// The most bytes a data block may inflate to (default: 64 times
        /// the file's size, at least 64 MiB); K, M, G suffixes.
        #[arg(long, value_name = "BYTES", value_parser = super::parse_bytes)]
        max_decompressed: Option<u64>,
    },
    /// What DDNet loads without a word but cannot work (a teleporter
    /// numbered 0, an entrance with no exit, a speedup with no force, a
    /// layer naming a missing image, ...), each with its layer, tiles and
    /// the DDNet source of its rule (docs/map-lint.md). Warnings and
    /// notes; a map DDNet refuses fails (`map check` says why).
    Lint {
        /// The map, or a demo (its embedded map is linted); `-`: standard
        /// input.
        file: PathBuf,
        /// `text` for people, `json` for programs.
        #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
        format: ReportFormat,
        /// Fail (exit 1) on a warning.
        #[arg(long)]
        deny_warnings: bool,
        /// Also write `map render`'s picture with each linted tile
        /// outlined (black: a warning, lime: a note).
        #[arg(long, value_name = "OUT.png")]
        png: Option<PathBuf>,
        /// Pixels a tile takes each way in the picture (1 to 16).
        #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=16))]
        scale: u32,
        /// The most bytes a data block may inflate to (default: 64 times
        /// the file's size, at least 64 MiB); K, M, G suffixes.
        #[arg(long, value_name = "BYTES", value_parser = super::parse_bytes)]
        max_decompressed: Option<u64>,
    },
    /// A picture of the game layer (with the front, tele and speedup
    /// layers over it), a block of pixels per tile, as PNG; the colours
    /// are in docs/commands.md.
    Render {
        /// The map, or a demo (its embedded map is drawn); `-`: standard
        /// input.
        file: PathBuf,
        /// Where to write the PNG.
        #[arg(short, long, required = true)]
        output: PathBuf,
        /// Pixels a tile takes each way (1 to 16).
        #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=16))]
        scale: u32,
        /// The most bytes a data block may inflate to (default: 64 times
        /// the file's size, at least 64 MiB); K, M, G suffixes.
        #[arg(long, value_name = "BYTES", value_parser = super::parse_bytes)]
        max_decompressed: Option<u64>,
    },
}

pub fn run(cmd: MapCommand) -> Result<(), Failure> {
    match cmd {
        MapCommand::Info {
            file,
            format,
            max_decompressed,
        } => info(&file, format, max_decompressed),
        MapCommand::Dump {
            file,
            tiles,
            format,
            max_decompressed,
        } => dump(&file, tiles.as_deref(), format, max_decompressed),
        MapCommand::Check {
            file,
            format,
            deny_warnings,
            max_decompressed,
        } => map_check(&file, format, deny_warnings, max_decompressed),
        MapCommand::Lint {
            file,
            format,
            deny_warnings,
            png,
            scale,
            max_decompressed,
        } => lint(
            &file,
            format,
            deny_warnings,
            png.as_deref(),
            scale,
            max_decompressed,
        ),
        MapCommand::Render {
            file,
            output,
            scale,
            max_decompressed,
        } => render(&file, &output, scale, max_decompressed),
    }
}

/// A map file's bytes, or a demo's and where its map lies in them.
struct Loaded {
    bytes: Vec<u8>,
    /// Where the map lies in `bytes`.
    at: MapBytes,
}

impl Loaded {
    /// A FILE argument: a map, or a demo whose embedded map is taken.
    fn read(path: &Path) -> Result<Loaded, Failure> {
        let bytes = read(path)?;
        let at =
            MapBytes::find(&bytes).map_err(|e| Failure::bad(format!("{}: {e}", shown(path))))?;
        Ok(Loaded { bytes, at })
    }

    /// The map's bytes.
    fn map(&self) -> &[u8] {
        self.at.of(&self.bytes)
    }

    /// Where the map came from, for the first line of the text.
    fn origin(&self) -> String {
        match self.at.embedded {
            true => format!(
                " (the map the demo embeds, at byte {} (0x{:x}), {} bytes)",
                self.at.range.start,
                self.at.range.start,
                self.at.range.len()
            ),
            false => String::new(),
        }
    }

    /// The map decoded; a failure names the file, and for a demo where
    /// its map starts (the offset is the map's).
    fn decode(&self, path: &Path) -> Result<Datafile<'_>, Failure> {
        Datafile::decode(self.map()).map_err(|e| {
            Failure::bad(match self.at.embedded {
                true => format!(
                    "{}: in the map the demo embeds at byte {}: {e}",
                    shown(path),
                    self.at.range.start
                ),
                false => format!("{}: {e}", shown(path)),
            })
        })
    }

    /// The cap on a block's inflated bytes.
    fn cap(&self, max: Option<u64>) -> u64 {
        max.unwrap_or_else(|| default_max_decompressed(self.map().len() as u64))
    }

    /// For JSON: the demo's byte where the map starts, if it is a demo's.
    fn embedded_at(&self) -> Option<usize> {
        self.at.embedded.then_some(self.at.range.start)
    }
}

/// The check of a loaded map (the map check's pipeline), settled.
fn verdict(path: &Path, loaded: &Loaded, cap: u64) -> Verdict {
    let mut verdict = Verdict::new(shown(path));
    verdict.format = Some("map");
    teeoracle::map::check::check_bytes(loaded.map(), cap, &mut verdict);
    verdict.settle();
    verdict
}

/// `map info --format json`.
#[derive(Serialize)]
struct InfoDoc<'a> {
    file: String,
    /// The demo's byte where the embedded map starts; absent for a map.
    #[serde(skip_serializing_if = "Option::is_none")]
    embedded_at: Option<usize>,
    #[serde(flatten)]
    summary: &'a Summary,
    /// What the map holds that the physics model lacks; `null` when the
    /// map gives no game layer to simulate on.
    not_modelled: Option<&'a [MapFeature]>,
    check: CheckSummary<'a>,
}

/// The check's result in `map info`.
#[derive(Serialize)]
struct CheckSummary<'a> {
    status: teeoracle::check::Status,
    findings: &'a [teeoracle::check::Finding],
    summary: &'a str,
}

fn info(path: &Path, format: ReportFormat, max: Option<u64>) -> Result<(), Failure> {
    let loaded = Loaded::read(path)?;
    let datafile = loaded.decode(path)?;
    let map = Map::new(&datafile);
    let cap = loaded.cap(max);
    let summary = Summary::new(&datafile, &map, loaded.map().len() as u64, cap);
    let not_modelled = Collision::of_map(&datafile, &map, cap).map(|col| map_features(&col));
    let verdict = verdict(path, &loaded, cap);
    let mut out = stdout();
    match format {
        ReportFormat::Json => write_json_doc(
            &mut out,
            "map_info",
            &InfoDoc {
                file: shown(path),
                embedded_at: loaded.embedded_at(),
                summary: &summary,
                not_modelled: not_modelled.as_deref().ok(),
                check: CheckSummary {
                    status: verdict.status,
                    findings: &verdict.findings,
                    summary: &verdict.summary,
                },
            },
        )?,
        ReportFormat::Text => {
            write_info_text(&mut out, path, &loaded, &summary, &verdict, &not_modelled)?
        }
    }
    out.flush()?;
    Ok(())
}

/// `not modelled:` and a line per feature the model lacks.
fn write_not_modelled(
    out: &mut impl Write,
    not_modelled: &Result<Vec<MapFeature>, MapError>,
) -> Result<(), Failure> {
    let features = match not_modelled {
        Err(e) => {
            writeln!(out, "not modelled: not known ({e})")?;
            return Ok(());
        }
        Ok(f) if f.is_empty() => {
            writeln!(out, "not modelled: nothing, every tile is modelled")?;
            return Ok(());
        }
        Ok(f) => f,
    };
    writeln!(
        out,
        "not modelled: {} feature(s) (docs/physics-coverage.md)",
        features.len()
    )?;
    for f in features {
        let status: Vec<String> = f
            .status
            .iter()
            .map(|(release, s)| format!("{release} {}", s.word()))
            .collect();
        writeln!(
            out,
            "  {}: {} tile(s), first at ({}, {}); {}",
            f.feature,
            f.count,
            f.first.0,
            f.first.1,
            status.join(", ")
        )?;
    }
    Ok(())
}

/// A text, quoted, or `-` when absent.
fn quoted(t: &Option<teeoracle::bytes::Text<'_>>) -> String {
    t.as_ref().map_or("-".into(), |t| t.to_string())
}

fn write_info_text(
    out: &mut impl Write,
    path: &Path,
    loaded: &Loaded,
    s: &Summary,
    verdict: &Verdict,
    not_modelled: &Result<Vec<MapFeature>, MapError>,
) -> Result<(), Failure> {
    writeln!(out, "{}{}", shown(path), loaded.origin())?;
    writeln!(
        out,
        "datafile:  version {}, {} bytes, {} items, {} data blocks",
        s.datafile_version, s.size, s.items, s.data_blocks
    )?;
    let counts: Vec<String> = s
        .item_counts
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    writeln!(out, "items:     {}", counts.join(", "))?;
    match &s.info {
        None => writeln!(out, "info:      none")?,
        Some(i) => {
            writeln!(
                out,
                "info:      author {}, version {}, credits {}, license {}",
                quoted(&i.author),
                quoted(&i.map_version),
                quoted(&i.credits),
                quoted(&i.license)
            )?;
            writeln!(out, "settings:  {}", i.settings.len())?;
            for c in &i.settings {
                writeln!(out, "  {c}")?;
            }
        }
    }
    writeln!(out, "images:    {}", s.images.len())?;
    for i in &s.images {
        let external = if i.external { "external" } else { "embedded" };
        writeln!(
            out,
            "  {:>3} {} {}x{} {external}",
            i.index,
            quoted(&i.name),
            i.width,
            i.height
        )?;
    }
    writeln!(out, "envelopes: {}", s.envelopes.len())?;
    for e in &s.envelopes {
        writeln!(
            out,
            "  {:>3} {} {} channel(s), {} point(s)",
            e.index,
            quoted(&e.name),
            e.channels,
            e.points
        )?;
    }
    writeln!(out, "groups:    {}", s.groups.len())?;
    for g in &s.groups {
        writeln!(
            out,
            "  {:>3} {} offset ({},{}) parallax ({},{})",
            g.index,
            quoted(&g.name),
            g.offset[0],
            g.offset[1],
            g.parallax[0],
            g.parallax[1]
        )?;
        for l in &g.layers {
            let mut what = l.kind.to_string();
            if let Some(p) = l.physics {
                what = format!("{} ({})", what, p.name());
            }
            if let (Some(w), Some(h)) = (l.width, l.height) {
                what = format!("{what} {w}x{h}");
            }
            match (l.kind, l.count) {
                ("quads", Some(n)) => what = format!("{what}, {n} quad(s)"),
                (_, Some(n)) => what = format!("{what}, {n} source(s)"),
                _ => {}
            }
            writeln!(out, "      {:<5} {} {what}", l.layer, quoted(&l.name))?;
        }
    }
    write_not_modelled(out, not_modelled)?;
    writeln!(
        out,
        "check:     {}: {}",
        verdict.status.word(),
        verdict.summary
    )?;
    for f in &verdict.findings {
        writeln!(
            out,
            "  {} {}: {}",
            severity(f.severity),
            f.code.as_str(),
            f.message
        )?;
    }
    Ok(())
}

fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Fail => "fail",
        Severity::Warn => "warn",
        Severity::Note => "note",
    }
}

/// `map dump --format json`.
#[derive(Serialize)]
struct DumpDoc<'d, 'm, 'a> {
    file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    embedded_at: Option<usize>,
    #[serde(flatten)]
    dump: &'d Dump<'m, 'a>,
}

fn dump(
    path: &Path,
    tiles: Option<&str>,
    format: ReportFormat,
    max: Option<u64>,
) -> Result<(), Failure> {
    let loaded = Loaded::read(path)?;
    let datafile = loaded.decode(path)?;
    let map = Map::new(&datafile);
    let cap = loaded.cap(max);
    let listed = |layer: &str| tiles.is_some_and(|t| t == "all" || t == layer);
    let dump = Dump::new(&datafile, &map, cap, &listed);
    if let Some(t) = tiles.filter(|&t| t != "all")
        && !dump.tiles.iter().any(|l| l.layer == t)
    {
        let names: Vec<&str> = dump.tiles.iter().map(|l| l.layer.as_str()).collect();
        return Err(Failure::Usage(format!(
            "{}: no tiles layer {t} (its tiles layers: {})",
            shown(path),
            names.join(", ")
        )));
    }
    let mut out = stdout();
    match format {
        ReportFormat::Json => write_json_doc(
            &mut out,
            "map_dump",
            &DumpDoc {
                file: shown(path),
                embedded_at: loaded.embedded_at(),
                dump: &dump,
            },
        )?,
        ReportFormat::Text => {
            writeln!(out, "# {}{}", shown(path), loaded.origin())?;
            writeln!(out, "# datafile:{}", key_values(&dump.datafile, &[]))?;
            writeln!(out, "# offset    item type id size fields")?;
            for i in &dump.items {
                let what = match (i.item, i.error) {
                    (Some(item), _) => {
                        format!("{}{}", item.name(), key_values(item, &["type"]))
                    }
                    (None, Some(e)) => format!("untyped: {e}"),
                    (None, None) => String::new(),
                };
                writeln!(
                    out,
                    "0x{:08x} {:>4} {:>4} {:>2} {:>4} {what}",
                    i.offset, i.index, i.type_id, i.id, i.size
                )?;
            }
            for b in &dump.blocks {
                writeln!(
                    out,
                    "0x{:08x} block {}: {} bytes stored, {} bytes",
                    b.offset, b.index, b.stored, b.size
                )?;
            }
            for l in &dump.tiles {
                write_layer_tiles(&mut out, l)?;
            }
        }
    }
    out.flush()?;
    Ok(())
}

fn write_layer_tiles(out: &mut impl Write, l: &LayerTiles) -> Result<(), Failure> {
    let physics = l
        .physics
        .map_or("drawn".into(), |p| p.name().to_lowercase());
    let head = format!("tiles {} ({physics}) {}x{}", l.layer, l.width, l.height);
    if let Some(e) = &l.error {
        writeln!(out, "{head}: {e}")?;
        return Ok(());
    }
    let counts: Vec<String> = l.counts.iter().map(|(k, n)| format!("{k}:{n}")).collect();
    writeln!(out, "{head}: kind:count {}", counts.join(" "))?;
    let Some(tiles) = &l.tiles else {
        return Ok(());
    };
    let width = usize::try_from(l.width).unwrap_or(1).max(1);
    // A row at a time: the words of a large layer are never all held.
    for y in 0..tiles.len().div_ceil(width) {
        let row = tile_tokens(tiles, y * width, width);
        writeln!(out, "  {y:>4}: {}", row.join(" "))?;
    }
    Ok(())
}

/// Each tile in a word: its kind byte, then what else it holds when that
/// is not 0 (`/flags` of a `CTile`; `#number` of tele, switch and tune
/// tiles; a speedup's `>force,max_speed,angle`).
fn tile_tokens(tiles: &Tiles, start: usize, len: usize) -> Vec<String> {
    fn row<T>(
        t: &[T],
        start: usize,
        len: usize,
    ) -> std::iter::Take<std::iter::Skip<std::slice::Iter<'_, T>>> {
        t.iter().skip(start).take(len)
    }
    match tiles {
        Tiles::Tile(t) => row(t, start, len)
            .map(|t| match t.flags {
                0 => t.index.to_string(),
                f => format!("{}/{f}", t.index),
            })
            .collect(),
        Tiles::Tele(t) => row(t, start, len)
            .map(|t| numbered(t.kind, t.number))
            .collect(),
        Tiles::Switch(t) => row(t, start, len)
            .map(|t| match (t.flags, t.delay) {
                (0, 0) => numbered(t.kind, t.number),
                (f, d) => format!("{}/{f},{d}", numbered(t.kind, t.number)),
            })
            .collect(),
        Tiles::Tune(t) => row(t, start, len)
            .map(|t| numbered(t.kind, t.number))
            .collect(),
        Tiles::Speedup(t) => row(t, start, len)
            .map(|t| match t.kind {
                0 => "0".into(),
                k => format!("{k}>{},{},{}", t.force, t.max_speed, t.angle),
            })
            .collect(),
    }
}

fn numbered(kind: u8, number: u8) -> String {
    match number {
        0 => kind.to_string(),
        n => format!("{kind}#{n}"),
    }
}

fn map_check(
    path: &Path,
    format: ReportFormat,
    deny_warnings: bool,
    max: Option<u64>,
) -> Result<(), Failure> {
    let loaded = Loaded::read(path)?;
    let options = Options {
        deny_warnings,
        named: true,
        max_decompressed: max,
        maps: None,
    };
    // A demo's map is checked under a name no format claims, in the
    // demo's folder (a `malformed/` one is still expected to fail).
    let (name, bytes) = match loaded.at.embedded {
        true => (format!("{}#map", shown(path)), loaded.map().to_vec()),
        false => (shown(path), loaded.bytes.clone()),
    };
    let verdict = check::check(Source::bytes(name, bytes), &options);
    if verdict.format != Some("map") {
        return Err(Failure::bad(format!(
            "{}: not a map (nor a demo with one): {}",
            shown(path),
            super::reports::note(&verdict)
        )));
    }
    let verdicts = [verdict];
    let totals = Totals::of(&verdicts);
    let mut out = stdout();
    super::reports::write_report(&mut out, format, &verdicts, &totals)?;
    out.flush()?;
    if totals.failed > 0 {
        return Err(Failure::reported(format!("{} failed", shown(path))));
    }
    Ok(())
}

fn render(path: &Path, output: &Path, scale: u32, max: Option<u64>) -> Result<(), Failure> {
    let loaded = Loaded::read(path)?;
    let datafile = loaded.decode(path)?;
    let map = Map::new(&datafile);
    let picture = teeoracle::map::render::render(&datafile, &map, loaded.cap(max), scale)
        .map_err(|e| Failure::bad(format!("{}: {e}", shown(path))))?;
    let png = picture
        .png()
        .map_err(|e| Failure::bad(format!("{}: {e}", shown(output))))?;
    std::fs::write(output, &png).map_err(|e| Failure::bad(format!("{}: {e}", shown(output))))?;
    let mut out = stdout();
    writeln!(
        out,
        "{}{}: wrote {} ({}x{} pixels, {} per tile, {} bytes)",
        shown(path),
        loaded.origin(),
        shown(output),
        picture.width,
        picture.height,
        scale,
        png.len()
    )?;
    out.flush()?;
    Ok(())
}

/// `map lint --format json`.
#[derive(Serialize)]
struct LintDoc<'a> {
    file: String,
    /// The demo's byte where the embedded map starts; absent for a map.
    #[serde(skip_serializing_if = "Option::is_none")]
    embedded_at: Option<usize>,
    /// True if DDNet refuses the map (then nothing is linted: `map
    /// check` says why).
    refused: bool,
    warnings: usize,
    notes: usize,
    lints: &'a [Lint],
}

fn lint(
    path: &Path,
    format: ReportFormat,
    deny_warnings: bool,
    png: Option<&Path>,
    scale: u32,
    max: Option<u64>,
) -> Result<(), Failure> {
    let loaded = Loaded::read(path)?;
    let datafile = loaded.decode(path)?;
    let map = Map::new(&datafile);
    let cap = loaded.cap(max);
    let refused = verdict(path, &loaded, cap).status == check::Status::Fail;
    let lints = match refused {
        true => Vec::new(),
        false => teeoracle::map::lint::lint(&datafile, &map, cap),
    };
    let count = |s: Severity| lints.iter().filter(|l| l.severity == s).count();
    let (warnings, notes) = (count(Severity::Warn), count(Severity::Note));
    let mut wrote = None;
    if let Some(output) = png.filter(|_| !refused) {
        let mut picture = teeoracle::map::render::render(&datafile, &map, cap, scale)
            .map_err(|e| Failure::bad(format!("{}: {e}", shown(path))))?;
        for l in &lints {
            let rgb = match l.severity {
                Severity::Note => teeoracle::map::render::MARK_NOTE,
                _ => teeoracle::map::render::MARK_WARN,
            };
            for t in &l.tiles {
                picture.mark(t.x, t.y, scale, rgb);
            }
        }
        let bytes = picture
            .png()
            .map_err(|e| Failure::bad(format!("{}: {e}", shown(output))))?;
        std::fs::write(output, &bytes)
            .map_err(|e| Failure::bad(format!("{}: {e}", shown(output))))?;
        let marked: usize = lints.iter().map(|l| l.tiles.len()).sum();
        wrote = Some(format!(
            "wrote {} ({}x{} pixels, {marked} tile(s) outlined)",
            shown(output),
            picture.width,
            picture.height
        ));
    }
    let mut out = stdout();
    match format {
        ReportFormat::Json => write_json_doc(
            &mut out,
            "map_lint",
            &LintDoc {
                file: shown(path),
                embedded_at: loaded.embedded_at(),
                refused,
                warnings,
                notes,
                lints: &lints,
            },
        )?,
        ReportFormat::Text => {
            writeln!(out, "{}{}", shown(path), loaded.origin())?;
            if refused {
                writeln!(
                    out,
                    "DDNet refuses this map: `teeoracle map check` says why"
                )?;
            }
            for l in &lints {
                let place = match (l.tiles.first(), &l.layer, l.item) {
                    (Some(t), Some(layer), _) => format!("layer {layer} at ({}, {})", t.x, t.y),
                    (None, Some(layer), _) => format!("layer {layer}"),
                    (_, None, Some(item)) => format!("item {item}"),
                    _ => String::new(),
                };
                writeln!(
                    out,
                    "{:<5} {:<22} {place}: {}",
                    match l.severity {
                        Severity::Note => "note",
                        _ => "warn",
                    },
                    l.rule,
                    l.message
                )?;
            }
            writeln!(
                out,
                "{warnings} warning(s), {notes} note(s); the rules: docs/map-lint.md"
            )?;
            if let Some(wrote) = wrote {
                writeln!(out, "{wrote}")?;
            }
        }
    }
    out.flush()?;
    if refused {
        return Err(Failure::reported(format!(
            "{}: DDNet refuses the map",
            shown(path)
        )));
    }
    if deny_warnings && warnings > 0 {
        return Err(Failure::reported(format!(
            "{}: {warnings} warning(s)",
            shown(path)
        )));
    }
    Ok(())
}
