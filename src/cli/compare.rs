//! `teeoracle teehistorian compare`: two recordings of the same game by
//! player (`diff::players`). Exit 0 identical, 1 changed (or a file that
//! does not read), 2 bad usage.

use super::Failure;
use super::output::{ReportFormat, read, shown, stdout, write_json_doc};
use std::io::Write;
use std::path::PathBuf;
use teeoracle::diff::players::{self, CompareError, Model, Options, Verdict};
use teeoracle::simulation::{Release, SimulateError};

#[derive(clap::Args, Debug)]
pub struct CompareArgs {
    /// The original teehistorian file.
    original: PathBuf,
    /// Another recording of the same game (a replay's), compared with the
    /// original by player; not with `--model`.
    #[arg(required_unless_present = "model", conflicts_with = "model")]
    other: Option<PathBuf>,
    /// Compare the original with our model of DDNet's physics stepping
    /// its inputs (with `--physics` and `--tune` changed) instead of
    /// another file.
    #[arg(long)]
    model: bool,
    /// With `--model`: step with this DDNet release's physics (`16.4` or
    /// `20.1`) instead of the recording server's.
    #[arg(long, value_name = "RELEASE", value_parser = clap::value_parser!(Release))]
    physics: Option<Release>,
    /// With `--model`: set a tuning parameter as `tune NAME VALUE` in the
    /// server's config would (repeatable; the file's own tuning commands
    /// still apply).
    #[arg(long, value_name = "NAME=VALUE", value_parser = name_value)]
    tune: Vec<(String, String)>,
    /// The map the original was recorded on, or a demo that embeds it:
    /// the model's (default with `--model`: the map the header names,
    /// found by its SHA-256 beside the file and under `--maps`); for two
    /// files whose servers record no finish (DDNet 16.4), the map the
    /// model's race reads their finishes on.
    #[arg(long, conflicts_with = "maps")]
    map: Option<PathBuf>,
    /// A folder of maps and demos to find the header's map in
    /// (repeatable).
    #[arg(long, value_name = "DIR")]
    maps: Vec<PathBuf>,
    /// The other file's ticks minus the original's (default: the
    /// difference of their first joins).
    #[arg(long, conflicts_with = "model", allow_hyphen_values = true)]
    offset: Option<i64>,
    /// `text` for people, `json` for programs.
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    format: ReportFormat,
    /// Draw each player's path on the map to this file (PNG, or SVG if
    /// it ends in `.svg`): the original's solid, the other's (or the
    /// model's) dotted, a numbered ring where each first departs.
    #[arg(long, value_name = "OUT")]
    plot: Option<PathBuf>,
    #[command(flatten)]
    picture: super::plot::PlotArgs,
}

/// `NAME=VALUE`.
fn name_value(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((n, v)) if !n.is_empty() && !v.is_empty() => Ok((n.to_string(), v.to_string())),
        _ => Err(format!("expected NAME=VALUE, found {s:?}")),
    }
}

pub fn run(args: CompareArgs) -> Result<(), Failure> {
    // (clap's `requires` takes a flag's default for its presence.)
    if !args.model && (args.physics.is_some() || !args.tune.is_empty()) {
        return Err(Failure::Usage(
            "--physics and --tune go with --model".into(),
        ));
    }
    let paths = match &args.plot {
        Some(_) => Some(args.picture.request()?),
        None => {
            args.picture.without_picture("--plot")?;
            None
        }
    };
    let original = read(&args.original)?;
    let map = || match &args.map {
        Some(map) => super::maps::collision_of(map),
        None => super::maps::collision_found(&args.original, &args.maps),
    };
    // An error names the file it is about.
    let failed = |e: CompareError| match e {
        CompareError::Simulate(SimulateError::Tune(e)) => Failure::Usage(format!("--tune: {e}")),
        CompareError::File {
            which: players::Which::Other,
            ..
        } => Failure::bad(format!(
            "{}: {e}",
            shown(args.other.as_deref().unwrap_or(&args.original))
        )),
        e => Failure::bad(format!("{}: {e}", shown(&args.original))),
    };
    let comparison = match &args.other {
        None => {
            let model = Model {
                col: map()?,
                physics: args.physics,
                tune: &args.tune,
                paths,
            };
            players::compare_model(&original, &model).map_err(failed)?
        }
        Some(other_path) => {
            let other = read(other_path)?;
            let col = match args.map.is_some() || !args.maps.is_empty() {
                true => Some(map()?),
                false => None,
            };
            let options = Options {
                offset: args.offset,
                finish_map: col.as_ref(),
                paths,
            };
            players::compare(&original, &other, &options).map_err(failed)?
        }
    };
    if let Some(out) = &args.plot {
        let key = match args.model {
            true => "solid: the file; dotted: the model (free: never put back where the file says)",
            false => "solid: the original; dotted: the other file",
        };
        let title = match &args.other {
            Some(other) => format!("{} against {}", shown(&args.original), shown(other)),
            None => format!("{} against the model", shown(&args.original)),
        };
        let plot = super::plot::of_comparison(&comparison, &args.picture, title, key);
        let map = args.map.as_deref();
        super::plot::on_teehistorian_map(
            out,
            &args.original,
            map,
            &args.maps,
            &args.picture,
            &plot,
        )?;
    }
    let mut out = stdout();
    match args.format {
        ReportFormat::Json => write_json_doc(&mut out, "teehistorian_compare", &comparison)?,
        ReportFormat::Text => out.write_all(comparison.text().as_bytes())?,
    }
    out.flush()?;
    match comparison.verdict {
        Verdict::Identical => Ok(()),
        Verdict::Changed => Err(Failure::reported("changed")),
    }
}
