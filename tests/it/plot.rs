//! Pictures of paths: `teehistorian simulate --plot`, `teehistorian
//! compare --plot` and `demo plot`, from outside. The pictures of real
//! recordings are goldens (`snapshots/plot/*.snap.png`, reviewed by
//! looking at them; docs/plot.md shows them).

use crate::common::{self, run, text};

const E_TH: &str = "corpus/teehistorian/ddnet-20.1/E_map_change.2_ctf1.teehistorian";
const E_MAPS: &str = "corpus/demo/ddnet-20.1";
const B_DEMO: &str = "corpus/demo/ddnet-20.1/B_eight_bots_dm1.demo";

/// The picture's size and RGB pixels.
fn pixels(png: &[u8]) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::Cursor::new(png));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

fn count(rgb: &[u8], color: [u8; 3]) -> usize {
    rgb.chunks(3).filter(|p| *p == color).count()
}

/// The question a physics change asks, drawn: a DDNet 20.1 session
/// stepped with 16.4's physics parts from the file where the two
/// releases' spawns differ.
#[test]
fn simulate_plot_of_another_release_is_the_reviewed_picture() {
    let dir = common::scratch("plot-simulate");
    let out = dir.join("e.png");
    let args = [
        "teehistorian",
        "simulate",
        E_TH,
        "--maps",
        E_MAPS,
        "--physics",
        "16.4",
        "--plot",
        out.to_str().unwrap(),
    ];
    let o = run(&args);
    // The report is the simulation's, divergences and all (exit 1).
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("31 divergences"),
        "{}",
        text(&o.stdout)
    );
    assert!(
        text(&o.stderr).contains("3 player(s), 3 ringed where the paths part"),
        "{}",
        text(&o.stderr)
    );
    let png = std::fs::read(&out).unwrap();
    let (_, _, rgb) = pixels(&png);
    for i in 0..3 {
        let c = teeoracle::map::plot::color(i);
        assert!(count(&rgb, c) > 20, "player {i}'s colour {c:?} is drawn");
    }
    common::snapshot_file("plot", "simulate_e_physics_16_4.png", png);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn demo_plot_draws_each_player_once_per_name_on_the_embedded_map() {
    let dir = common::scratch("plot-demo");
    let out = dir.join("b.png");
    let o = run(&["demo", "plot", B_DEMO, "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    // Eight bots; two ids taken again by new names: ten players.
    assert!(
        text(&o.stderr).contains("10 player(s)"),
        "{}",
        text(&o.stderr)
    );
    let png = std::fs::read(&out).unwrap();
    // Only two names: two players, two colours, the rest of the palette
    // nowhere.
    let only = dir.join("two.png");
    let o = run(&[
        "demo",
        "plot",
        B_DEMO,
        "-o",
        only.to_str().unwrap(),
        "--player",
        "cedar",
        "--player",
        "cedar-again",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let (_, _, rgb) = pixels(&std::fs::read(&only).unwrap());
    assert!(count(&rgb, teeoracle::map::plot::color(0)) > 20);
    assert!(count(&rgb, teeoracle::map::plot::color(1)) > 20);
    assert_eq!(count(&rgb, teeoracle::map::plot::color(2)), 0);
    common::snapshot_file("plot", "demo_b_eight_bots.png", png);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_svg_plot_has_the_map_and_a_polyline_per_line_with_its_ticks() {
    let dir = common::scratch("plot-svg");
    let out = dir.join("e.svg");
    let o = run(&[
        "teehistorian",
        "compare",
        E_TH,
        "--model",
        "--maps",
        E_MAPS,
        "--physics",
        "16.4",
        "--plot",
        out.to_str().unwrap(),
        "--from",
        "0",
        "--to",
        "200",
        "--player",
        "walker1",
    ]);
    assert_eq!(o.status.code(), Some(1), "changed: {}", text(&o.stderr));
    let svg = std::fs::read_to_string(&out).unwrap();
    assert!(
        svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
        "{svg}"
    );
    assert!(svg.contains("href=\"data:image/png;base64,"));
    assert!(
        svg.contains("&quot;walker1&quot; (cid 1, joined at tick 0): parts at tick 1"),
        "{svg}"
    );
    assert!(!svg.contains("walker2"), "--player leaves the others out");
    // Every line's ticks lie within --from and --to.
    let mut lines = 0;
    for title in svg
        .split("<title>")
        .skip(1)
        .filter(|t| t.contains(" ticks "))
    {
        let ticks = title
            .split(" ticks ")
            .nth(1)
            .unwrap()
            .split('<')
            .next()
            .unwrap();
        let (a, b) = ticks.split_once("..").unwrap();
        let (a, b): (i32, i32) = (a.parse().unwrap(), b.parse().unwrap());
        assert!((0..=200).contains(&a) && (a..=200).contains(&b), "{title}");
        lines += 1;
    }
    assert!(lines >= 2, "the file's line and the model's: {svg}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn picture_flags_without_a_picture_or_backwards_ticks_are_bad_usage() {
    let dir = common::scratch("plot-usage");
    let out = dir.join("x.png");
    let out = out.to_str().unwrap();
    for args in [
        &[
            "teehistorian",
            "simulate",
            E_TH,
            "--maps",
            E_MAPS,
            "--scale",
            "2",
        ][..],
        &[
            "teehistorian",
            "compare",
            E_TH,
            "--model",
            "--maps",
            E_MAPS,
            "--player",
            "a",
        ],
        &[
            "teehistorian",
            "simulate",
            E_TH,
            "--maps",
            E_MAPS,
            "--plot",
            out,
            "--from",
            "9",
            "--to",
            "3",
        ],
        &["demo", "plot", B_DEMO, "-o", out, "--scale", "0"],
        &[
            "teehistorian",
            "simulate",
            E_TH,
            "--maps",
            E_MAPS,
            "--plot",
            out,
            "--at",
            "5",
        ],
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o.stderr));
    }
    assert!(
        !std::path::Path::new(out).exists(),
        "nothing drawn on bad usage"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_demo_that_stops_is_drawn_up_to_where_it_stops_and_fails() {
    let dir = common::scratch("plot-cut");
    let demo = std::fs::read(common::root().join(B_DEMO)).unwrap();
    let out = dir.join("out.png");
    let plot = |file: &std::path::Path| {
        let _ = std::fs::remove_file(&out);
        let o = run(&[
            "demo",
            "plot",
            file.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        let png = std::fs::read(&out).expect("the picture of what came before");
        let (_, _, rgb) = pixels(&png);
        assert!(count(&rgb, teeoracle::map::plot::color(0)) > 20);
        (o.status.code(), text(&o.stderr))
    };
    // Cut short (a server that crashed): DDNet's player ends there too.
    let cut = dir.join("cut.demo");
    std::fs::write(&cut, &demo[..demo.len() * 2 / 3]).unwrap();
    let (code, err) = plot(&cut);
    assert_eq!(code, Some(0), "{err}");
    // Damaged in the middle: drawn up to the chunk DDNet's player stops
    // at, and a failure naming its byte.
    let mut bad = demo.clone();
    let mid = bad.len() / 2;
    bad[mid..mid + 40].iter_mut().for_each(|b| *b ^= 0x5a);
    let damaged = dir.join("damaged.demo");
    std::fs::write(&damaged, &bad).unwrap();
    let (code, err) = plot(&damaged);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("damaged.demo: offset ")
            && err.contains(" at byte ")
            && err.contains("DDNet's player stops here"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
