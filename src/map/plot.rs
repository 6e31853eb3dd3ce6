//! Paths drawn on a map's picture ([`render`](super::render)): each
//! player's path in its own colour, a second path beside it dotted (the
//! model's, a replay's), where the two part marked and numbered, and a
//! legend below that says who each colour is and what each mark means.
//! The map is drawn faded so the paths stand out. A PNG ([`draw`]) or an
//! SVG ([`svg`]: the same picture, the paths as vectors over the map's
//! PNG, every line and mark with a tooltip); the same bytes on every run.

use super::render::Picture;
use base64::Engine as _;
use embedded_graphics::mono_font::MonoTextStyle;
use embedded_graphics::mono_font::ascii::FONT_6X10;
use embedded_graphics::pixelcolor::Rgb888;
use embedded_graphics::prelude::*;
use embedded_graphics::primitives::{Circle, Line as Segment, PrimitiveStyle, Rectangle};
use embedded_graphics::text::{Baseline, Text};
use std::convert::Infallible;
use std::fmt::Write as _;

/// One line of a path: `(tick, x, y)` in map units (32 a tile), in order.
pub type Line = Vec<(i32, i32, i32)>;

/// Where two paths part: a ring around `at` (the first path's point),
/// a bar to `other` (the second's, if it has one), and the track's
/// number beside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mark {
    /// The first path's position, map units.
    pub at: (i32, i32),
    /// The second path's, if it had a character there.
    pub other: Option<(i32, i32)>,
}

/// One player.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Track {
    /// Who (`alice (cid 0)`).
    pub label: String,
    /// Its path, drawn solid.
    pub lines: Vec<Line>,
    /// The path beside it, drawn dotted (none: nothing beside).
    pub other: Vec<Line>,
    /// Where the two part.
    pub mark: Option<Mark>,
    /// What the legend says after the label (`parts at tick 283, ...`).
    pub note: String,
}

/// What a picture shows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plot {
    /// The first legend line: what the picture is of.
    pub title: String,
    /// The second: what solid and dotted mean (`solid: the file; dotted:
    /// the model`).
    pub key: String,
    /// The players, numbered from 1 in this order.
    pub tracks: Vec<Track>,
    /// Lines after the players' (what was left out, and why).
    pub notes: Vec<String>,
}

/// The players' colours, in turn (strong, told apart on the faded map).
pub const PALETTE: [[u8; 3]; 12] = [
    [230, 25, 75],
    [0, 130, 200],
    [60, 160, 60],
    [245, 130, 48],
    [145, 30, 180],
    [0, 128, 128],
    [240, 50, 230],
    [128, 128, 0],
    [170, 110, 40],
    [128, 0, 0],
    [0, 0, 128],
    [0, 0, 0],
];

/// The colour of the `i`-th track.
pub fn color(i: usize) -> [u8; 3] {
    PALETTE[i % PALETTE.len()]
}

/// A legend line's height in pixels (the font's 10, and 2 between).
const LEGEND_LINE: u32 = 12;
/// The legend's margin and the swatch's width.
const MARGIN: u32 = 4;
const SWATCH: u32 = 24;
/// Most characters of a legend line drawn (the SVG keeps them all).
const LEGEND_CHARS: usize = 160;

/// A map pixel brought halfway to white.
fn faded(c: u8) -> u8 {
    ((u16::from(c) + 255) / 2) as u8
}

/// Map units to the picture's pixels at `scale` pixels a tile.
fn pixel(v: i32, scale: u32) -> i32 {
    (i64::from(v) * i64::from(scale.max(1)) / 32).clamp(i32::MIN.into(), i32::MAX.into()) as i32
}

/// The legend's lines: the title, the key, each track and its mark, the
/// notes.
fn legend(plot: &Plot) -> Vec<(Option<usize>, String)> {
    let mut lines = vec![(None, plot.title.clone()), (None, plot.key.clone())];
    for (i, t) in plot.tracks.iter().enumerate() {
        let note = match t.note.is_empty() {
            true => String::new(),
            false => format!(": {}", t.note),
        };
        lines.push((Some(i), format!("{} {}{note}", i + 1, t.label)));
    }
    lines.extend(plot.notes.iter().map(|n| (None, n.clone())));
    lines.retain(|(_, l)| !l.is_empty());
    lines
}

/// A picture as embedded-graphics draws on it; pixels outside are left.
struct Canvas<'p> {
    picture: &'p mut Picture,
    /// Draw every other pixel only (a dotted line).
    dotted: bool,
}

impl OriginDimensions for Canvas<'_> {
    fn size(&self) -> Size {
        Size::new(self.picture.width, self.picture.height)
    }
}

impl DrawTarget for Canvas<'_> {
    type Color = Rgb888;
    type Error = Infallible;

    fn draw_iter<I: IntoIterator<Item = Pixel<Rgb888>>>(
        &mut self,
        pixels: I,
    ) -> Result<(), Infallible> {
        let (w, h) = (self.picture.width as i32, self.picture.height as i32);
        for Pixel(p, c) in pixels {
            if p.x < 0 || p.y < 0 || p.x >= w || p.y >= h || (self.dotted && (p.x + p.y) % 2 == 1) {
                continue;
            }
            let at = (p.y as usize * w as usize + p.x as usize) * 3;
            self.picture.rgb[at..at + 3].copy_from_slice(&[c.r(), c.g(), c.b()]);
        }
        Ok(())
    }
}

fn rgb(c: [u8; 3]) -> Rgb888 {
    Rgb888::new(c[0], c[1], c[2])
}

/// Draws `lines` at `scale` in `color`, `width` pixels wide.
fn draw_lines(canvas: &mut Canvas<'_>, lines: &[Line], scale: u32, color: [u8; 3], width: u32) {
    let style = PrimitiveStyle::with_stroke(rgb(color), width);
    for line in lines {
        let points: Vec<Point> = (line.iter())
            .map(|&(_, x, y)| Point::new(pixel(x, scale), pixel(y, scale)))
            .collect();
        if let [only] = points[..] {
            let _ = Segment::new(only, only).into_styled(style).draw(canvas);
        }
        for pair in points.windows(2) {
            let _ = Segment::new(pair[0], pair[1])
                .into_styled(style)
                .draw(canvas);
        }
    }
}

/// The mark's ring's diameter in pixels at `scale`.
fn ring(scale: u32) -> u32 {
    (scale * 3).clamp(9, 48)
}

/// `plot` drawn on `map` (a [`render`](super::render::render)ed picture at
/// `scale` pixels a tile): the map faded, the paths, the marks, and the
/// legend below (the picture widened to hold it).
pub fn draw(map: &Picture, scale: u32, plot: &Plot) -> Picture {
    let legend = legend(plot);
    let text_width = |l: &str| l.chars().count().min(LEGEND_CHARS) as u32 * 6;
    let widest = legend.iter().map(|(_, l)| text_width(l)).max().unwrap_or(0);
    let width = map.width.max(MARGIN * 3 + SWATCH + widest);
    let height = map.height + MARGIN * 2 + LEGEND_LINE * legend.len() as u32;
    let mut picture = Picture {
        width,
        height,
        rgb: vec![255; width as usize * height as usize * 3],
    };
    for (row, line) in map.rgb.chunks(map.width as usize * 3).enumerate() {
        let at = row * width as usize * 3;
        let faded = line.iter().map(|&c| faded(c));
        picture.rgb.splice(at..at + line.len(), faded);
    }
    let solid = if scale >= 4 { 2 } else { 1 };
    let mut canvas = Canvas {
        picture: &mut picture,
        dotted: true,
    };
    for (i, t) in plot.tracks.iter().enumerate() {
        draw_lines(&mut canvas, &t.other, scale, color(i), 1);
    }
    canvas.dotted = false;
    for (i, t) in plot.tracks.iter().enumerate() {
        draw_lines(&mut canvas, &t.lines, scale, color(i), solid);
    }
    let font = MonoTextStyle::new(&FONT_6X10, Rgb888::BLACK);
    for (i, t) in plot.tracks.iter().enumerate() {
        let Some(m) = &t.mark else { continue };
        let at = Point::new(pixel(m.at.0, scale), pixel(m.at.1, scale));
        let style = PrimitiveStyle::with_stroke(rgb(color(i)), 2);
        if let Some((x, y)) = m.other {
            let other = Point::new(pixel(x, scale), pixel(y, scale));
            let _ = Segment::new(at, other).into_styled(style).draw(&mut canvas);
        }
        let d = ring(scale);
        let _ = (Circle::with_center(at, d).into_styled(style)).draw(&mut canvas);
        let label = (i + 1).to_string();
        let corner = at + Point::new(d as i32 / 2 + 1, -(d as i32) / 2 - 1);
        let size = Size::new(label.len() as u32 * 6 + 2, 10);
        let _ = (Rectangle::new(corner, size)
            .into_styled(PrimitiveStyle::with_fill(Rgb888::WHITE)))
        .draw(&mut canvas);
        let _ = Text::with_baseline(&label, corner + Point::new(1, 0), font, Baseline::Top)
            .draw(&mut canvas);
    }
    let top = map.height + MARGIN;
    for (row, (track, line)) in legend.iter().enumerate() {
        let y = (top + row as u32 * LEGEND_LINE) as i32;
        if let Some(i) = *track {
            let mid = y + 5;
            let (x0, x1) = (MARGIN as i32, (MARGIN + SWATCH) as i32);
            // Half dotted where the track has a dotted path.
            let half = match plot.tracks[i].other.is_empty() {
                true => x1 + 1,
                false => (x0 + x1) / 2,
            };
            let style = PrimitiveStyle::with_stroke(rgb(color(i)), 2);
            let _ = Segment::new(Point::new(x0, mid), Point::new(half - 1, mid))
                .into_styled(style)
                .draw(&mut canvas);
            canvas.dotted = true;
            let thin = PrimitiveStyle::with_stroke(rgb(color(i)), 1);
            let _ = Segment::new(Point::new(half + 1, mid), Point::new(x1, mid))
                .into_styled(thin)
                .draw(&mut canvas);
            canvas.dotted = false;
        }
        let x = (MARGIN * 2 + SWATCH) as i32;
        let shown: String = line.chars().take(LEGEND_CHARS).collect();
        let _ =
            Text::with_baseline(&shown, Point::new(x, y), font, Baseline::Top).draw(&mut canvas);
    }
    picture
}

/// `text` for an SVG document.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            // Not allowed in XML 1.0.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

fn hex(c: [u8; 3]) -> String {
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}

/// `plot` as an SVG document over `map` (drawn at `scale`): the faded map
/// as an embedded PNG, each line a polyline whose tooltip says whose and
/// which ticks, each mark with its text as tooltip, and the legend.
pub fn svg(map: &Picture, scale: u32, plot: &Plot) -> Result<String, String> {
    let legend = legend(plot);
    let faded = Picture {
        width: map.width,
        height: map.height,
        rgb: map.rgb.iter().map(|&c| faded(c)).collect(),
    };
    let png = base64::engine::general_purpose::STANDARD.encode(faded.png()?);
    let widest = legend
        .iter()
        .map(|(_, l)| l.chars().count())
        .max()
        .unwrap_or(0) as u32
        * 6;
    let width = map.width.max(MARGIN * 3 + SWATCH + widest);
    let height = map.height + MARGIN * 2 + LEGEND_LINE * legend.len() as u32;
    let px = |v: i32| f64::from(v) * f64::from(scale.max(1)) / 32.0;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" font-family=\"monospace\" font-size=\"10\">"
    );
    let _ = writeln!(s, "<title>{}</title>", escape(&plot.title));
    let _ = writeln!(
        s,
        "<rect width=\"{width}\" height=\"{height}\" fill=\"#ffffff\"/>"
    );
    let _ = writeln!(
        s,
        "<image width=\"{}\" height=\"{}\" style=\"image-rendering:pixelated\" \
         href=\"data:image/png;base64,{png}\"/>",
        map.width, map.height
    );
    let polylines = |s: &mut String, lines: &[Line], style: &str, who: &str| {
        for line in lines {
            let (Some(first), Some(last)) = (line.first(), line.last()) else {
                continue;
            };
            let points: Vec<String> = (line.iter())
                .map(|&(_, x, y)| format!("{:.1},{:.1}", px(x), px(y)))
                .collect();
            let _ = writeln!(
                s,
                "<polyline points=\"{}\" fill=\"none\" {style}><title>{} ticks {}..{}</title></polyline>",
                points.join(" "),
                escape(who),
                first.0,
                last.0
            );
        }
    };
    for (i, t) in plot.tracks.iter().enumerate() {
        let c = hex(color(i));
        let _ = writeln!(s, "<g id=\"track-{}\">", i + 1);
        let dotted = format!("stroke=\"{c}\" stroke-width=\"1\" stroke-dasharray=\"2 2\"");
        polylines(&mut s, &t.other, &dotted, &format!("{} (dotted)", t.label));
        let solid = format!("stroke=\"{c}\" stroke-width=\"2\"");
        polylines(&mut s, &t.lines, &solid, &t.label);
        if let Some(m) = &t.mark {
            let (x, y) = (px(m.at.0), px(m.at.1));
            let tip = escape(&format!("{} {}: {}", i + 1, t.label, t.note));
            if let Some((ox, oy)) = m.other {
                let _ = writeln!(
                    s,
                    "<line x1=\"{x:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"{c}\" stroke-width=\"2\"/>",
                    px(ox),
                    px(oy)
                );
            }
            let r = f64::from(ring(scale)) / 2.0;
            let _ = writeln!(
                s,
                "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"{r:.1}\" fill=\"none\" stroke=\"{c}\" \
                 stroke-width=\"2\"><title>{tip}</title></circle>"
            );
            let _ = writeln!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\" paint-order=\"stroke\" stroke=\"#ffffff\" \
                 stroke-width=\"3\">{}</text>",
                x + r + 1.0,
                y - r + 1.0,
                i + 1
            );
        }
        let _ = writeln!(s, "</g>");
    }
    let top = map.height + MARGIN;
    for (row, (track, line)) in legend.iter().enumerate() {
        let y = top + row as u32 * LEGEND_LINE;
        if let Some(i) = *track {
            let c = hex(color(i));
            let (x0, x1, mid) = (MARGIN, MARGIN + SWATCH, y + 5);
            let half = match plot.tracks[i].other.is_empty() {
                true => x1 + 1,
                false => (x0 + x1) / 2,
            };
            let _ = writeln!(
                s,
                "<line x1=\"{x0}\" y1=\"{mid}\" x2=\"{}\" y2=\"{mid}\" stroke=\"{c}\" stroke-width=\"2\"/>\
                 <line x1=\"{}\" y1=\"{mid}\" x2=\"{x1}\" y2=\"{mid}\" stroke=\"{c}\" stroke-width=\"1\" \
                 stroke-dasharray=\"2 2\"/>",
                half - 1,
                half + 1
            );
        }
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{}\">{}</text>",
            MARGIN * 2 + SWATCH,
            y + 9,
            escape(line)
        );
    }
    s.push_str("</svg>\n");
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A white 4 by 3 tile map at 8 pixels a tile.
    fn blank() -> Picture {
        Picture {
            width: 32,
            height: 24,
            rgb: vec![255; 32 * 24 * 3],
        }
    }

    fn at(p: &Picture, x: u32, y: u32) -> [u8; 3] {
        let i = ((y * p.width + x) * 3) as usize;
        [p.rgb[i], p.rgb[i + 1], p.rgb[i + 2]]
    }

    fn track(lines: Vec<Line>, other: Vec<Line>, mark: Option<Mark>) -> Track {
        Track {
            label: "alice (cid 0)".into(),
            lines,
            other,
            mark,
            note: match mark {
                Some(_) => "departs at tick 3".into(),
                None => String::new(),
            },
        }
    }

    #[test]
    fn a_path_is_drawn_in_its_colour_over_the_faded_map() {
        let mut map = blank();
        map.rgb[..3].copy_from_slice(&[64, 64, 64]);
        // Tile row 1 (map y 48 = pixel 12), from tile 0 to tile 3.
        let plot = Plot {
            title: "t".into(),
            tracks: vec![track(vec![vec![(0, 16, 48), (9, 112, 48)]], vec![], None)],
            ..Plot::default()
        };
        let p = draw(&map, 8, &plot);
        assert_eq!(at(&p, 0, 0), [159, 159, 159], "the map is faded");
        for x in 4..=28 {
            assert_eq!(at(&p, x, 12), color(0), "pixel ({x}, 12)");
        }
        assert_eq!(
            at(&p, 3, 12),
            [255, 255, 255],
            "nothing before the path's start"
        );
        assert_eq!(at(&p, 16, 8), [255, 255, 255], "nothing off the line");
        assert!(p.height > map.height, "the legend is below the map");
    }

    #[test]
    fn the_other_path_is_dotted_and_a_line_breaks_where_the_path_does() {
        let plot = Plot {
            tracks: vec![track(
                vec![vec![(0, 16, 16)], vec![(5, 80, 16), (6, 112, 16)]],
                vec![vec![(0, 16, 80), (9, 112, 80)]],
                None,
            )],
            ..Plot::default()
        };
        let p = draw(&blank(), 8, &plot);
        // Solid from x 20 to 28 on row 4; nothing between the lines.
        assert_eq!(at(&p, 24, 4), color(0));
        assert_eq!(at(&p, 12, 4), [255, 255, 255], "the break");
        // Dotted on row 20: every other pixel.
        let row: Vec<bool> = (4..28).map(|x| at(&p, x, 20) == color(0)).collect();
        assert!(
            row.iter().step_by(2).all(|&b| b) && !row.iter().skip(1).step_by(2).any(|&b| b),
            "{row:?}"
        );
    }

    #[test]
    fn a_mark_rings_where_the_paths_part_and_numbers_it() {
        let mark = Mark {
            at: (64, 48),
            other: Some((96, 48)),
        };
        let plot = Plot {
            tracks: vec![Track::default(), track(vec![], vec![], Some(mark))],
            ..Plot::default()
        };
        let p = draw(&blank(), 8, &plot);
        // The second track's colour: the ring's top (radius 12 at scale 8) and the bar.
        assert_eq!(at(&p, 16, 12 - 12), color(1));
        assert_eq!(at(&p, 20, 12), color(1));
        let legend = legend(&plot);
        assert_eq!(legend[1].1, "2 alice (cid 0): departs at tick 3");
    }

    #[test]
    fn an_svg_holds_the_map_the_paths_and_escaped_labels() {
        let mut t = track(vec![vec![(7, 0, 0), (8, 32, 64)]], vec![], None);
        t.label = "<b&b>".into();
        let plot = Plot {
            title: "a \"plot\"".into(),
            tracks: vec![t],
            ..Plot::default()
        };
        let s = svg(&blank(), 8, &plot).unwrap();
        assert!(
            s.contains("href=\"data:image/png;base64,iVBORw0KGgo"),
            "{s}"
        );
        assert!(s.contains("<polyline points=\"0.0,0.0 8.0,16.0\" fill=\"none\" stroke=\"#e6194b\" stroke-width=\"2\"><title>&lt;b&amp;b&gt; ticks 7..8</title>"), "{s}");
        assert!(s.contains("<title>a &quot;plot&quot;</title>"), "{s}");
        assert!(!s.contains("<b&b>"));
    }
}
