//! `gen` and `mutate`: seeded conformance cases as plain files.

use super::Failure;
use super::output::read_raw;
use clap::{Args, ValueEnum};
use serde::Serialize;
use std::path::{Path, PathBuf};
use teeoracle::generate::{self, Generated, Kind, Mutant, Unit};

// `teeoracle gen`. Not a doc comment: clap would show it as the about
// of the (deferred) commands built with these arguments.
#[derive(Args, Debug)]
pub struct GenArgs {
    /// teehistorian, packet06, packet07, snapshot, delta_apply, demo or map.
    unit: String,
    /// The seed: the same seed gives the same files on every machine.
    #[arg(long)]
    seed: u64,
    /// How many files (at most 1000).
    #[arg(long, default_value_t = 10)]
    count: usize,
    /// Valid files, valid files at the limits (and DDNet quirks), or
    /// files teeoracle rejects at a stated byte.
    #[arg(long, value_enum, default_value_t = KindArg::Valid)]
    kind: KindArg,
    /// The folder to write (created if missing).
    #[arg(short = 'o', long = "output")]
    output: PathBuf,
}

// `teeoracle mutate`. Not a doc comment: clap would show it as the about
// of the (deferred) commands built with these arguments.
#[derive(Args, Debug)]
pub struct MutateArgs {
    /// A real file to make malformed variants of.
    file: PathBuf,
    /// The seed.
    #[arg(long)]
    seed: u64,
    /// How many mutants (at most 1000).
    #[arg(long, default_value_t = 20)]
    count: usize,
    /// The file's unit, when `check` cannot tell it (packet06, packet07,
    /// delta_apply).
    #[arg(long)]
    unit: Option<String>,
    /// The folder to write (created if missing).
    #[arg(short = 'o', long = "output")]
    output: PathBuf,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum KindArg {
    Valid,
    Edge,
    Malformed,
}

fn unit_arg(name: &str) -> Result<Unit, Failure> {
    Unit::from_name(name)
        .filter(|u| generate::UNITS.contains(u))
        .ok_or_else(|| {
            let names: Vec<_> = generate::UNITS.iter().map(|u| u.name()).collect();
            Failure::Usage(format!(
                "unknown unit {name:?}; one of {}",
                names.join(", ")
            ))
        })
}

/// One line of `manifest.json`.
#[derive(Serialize)]
struct Entry<'a> {
    id: String,
    #[serde(flatten)]
    case: &'a Generated,
    file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    expected: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expected_verdict: Option<String>,
}

#[derive(Serialize)]
struct Manifest<'a> {
    kind: &'static str,
    schema_version: u32,
    unit: Unit,
    seed: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped_duplicates: Option<usize>,
    expected_from: String,
    cases: Vec<Entry<'a>>,
}

/// The most cases `gen` makes at once: each case and its expected JSON
/// are held until written (a teehistorian case with its JSON is about
/// 0.4 MB), so this keeps a run under about 500 MB.
pub const GEN_MAX_COUNT: usize = 1000;

pub fn gen_cmd(args: GenArgs) -> Result<(), Failure> {
    if args.count > GEN_MAX_COUNT {
        return Err(Failure::Usage(format!(
            "--count {}: at most {GEN_MAX_COUNT} cases at once (run it again with other \
             seeds for more)",
            args.count
        )));
    }
    let unit = unit_arg(&args.unit)?;
    let kind = match args.kind {
        KindArg::Valid => Kind::Valid,
        KindArg::Edge => Kind::Edge,
        KindArg::Malformed => Kind::Malformed,
    };
    let cases = generate::cases(unit, args.seed, args.count, kind);
    std::fs::create_dir_all(&args.output)?;
    let expected = expected_all(unit, &cases);
    let mut entries = Vec::with_capacity(cases.len());
    for (c, json) in cases.iter().zip(expected) {
        entries.push(write_case(&args.output, c, json, None)?);
    }
    let manifest = Manifest {
        kind: "gen",
        schema_version: teeoracle::schema::SCHEMA_VERSION,
        unit,
        seed: args.seed,
        source: None,
        skipped_duplicates: None,
        expected_from: expected_from(unit),
        cases: entries,
    };
    write_json(&args.output.join("manifest.json"), &manifest)?;
    eprintln!(
        "teeoracle: {} {} {unit} case(s) in {}",
        cases.len(),
        kind.name(),
        args.output.display()
    );
    Ok(())
}

pub fn mutate_cmd(args: MutateArgs) -> Result<(), Failure> {
    if args.count > GEN_MAX_COUNT {
        return Err(Failure::Usage(format!(
            "--count {}: at most {GEN_MAX_COUNT} mutants at once",
            args.count
        )));
    }
    let bytes = read_raw(&args.file)?;
    let unit = match &args.unit {
        Some(name) => unit_arg(name)?,
        None => unit_of(&args.file, &bytes)?,
    };
    let (mutants, skipped) = generate::mutate(unit, &bytes, args.seed, args.count);
    std::fs::create_dir_all(&args.output)?;
    let cases: Vec<Generated> = mutants.iter().map(|m| m.case.clone()).collect();
    let expected = expected_all(unit, &cases);
    let mut entries = Vec::with_capacity(mutants.len());
    for ((m, c), json) in mutants.iter().zip(&cases).zip(expected) {
        entries.push(write_case(&args.output, c, json, Some(m))?);
    }
    let manifest = Manifest {
        kind: "mutate",
        schema_version: teeoracle::schema::SCHEMA_VERSION,
        unit,
        seed: args.seed,
        source: Some(args.file.display().to_string()),
        skipped_duplicates: Some(skipped),
        expected_from: expected_from(unit),
        cases: entries,
    };
    write_json(&args.output.join("manifest.json"), &manifest)?;
    let still = mutants.iter().filter(|m| m.judgement.accepted).count();
    eprintln!(
        "teeoracle: {} mutant(s) of {} in {} ({still} still read, {skipped} duplicate draw(s) skipped)",
        mutants.len(),
        args.file.display(),
        args.output.display()
    );
    Ok(())
}

/// The unit of a real file, as `check` recognises it.
fn unit_of(path: &Path, bytes: &[u8]) -> Result<Unit, Failure> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let v = teeoracle::check::check(
        teeoracle::check::Source::bytes(name.as_ref(), bytes.to_vec()),
        &teeoracle::check::Options::default(),
    );
    match v.format {
        Some("teehistorian") => Ok(Unit::Teehistorian),
        Some("demo") => Ok(Unit::Demo),
        Some("map") => Ok(Unit::Map),
        Some("snapshot") if !name.ends_with(".delta.bin") => Ok(Unit::Snapshot),
        _ => Err(Failure::Usage(format!(
            "cannot tell the unit of {}: give --unit",
            path.display()
        ))),
    }
}

fn write_case<'c>(
    dir: &Path,
    c: &'c Generated,
    expected: Option<serde_json::Value>,
    mutant: Option<&Mutant>,
) -> Result<Entry<'c>, Failure> {
    let file = format!("{}{}", c.name, generate::extension(c.unit));
    std::fs::write(dir.join(&file), &c.bytes)?;
    let expected = match expected {
        Some(json) => {
            let name = format!("{}.json", c.name);
            write_json(&dir.join(&name), &json)?;
            Some(name)
        }
        None => None,
    };
    let expected_verdict = match mutant {
        Some(m) => {
            let name = format!("{}.expected.json", c.name);
            write_json(&dir.join(&name), m)?;
            Some(name)
        }
        None => None,
    };
    Ok(Entry {
        id: format!("{}/gen/{}", c.unit, c.name),
        case: c,
        file,
        expected,
        expected_verdict,
    })
}

fn write_json(path: &Path, value: &impl Serialize) -> Result<(), Failure> {
    let mut text = serde_json::to_string_pretty(value)
        .map_err(|e| Failure::bad(format!("{}: {e}", path.display())))?;
    text.push('\n');
    std::fs::write(path, text)?;
    Ok(())
}

/// Where the expected JSON comes from.
fn expected_from(unit: Unit) -> String {
    format!("teeoracle conform expect {unit}")
}

/// The expected JSON of each case teeoracle reads: the unit's canonical
/// conformance JSON (`conform expect`), so generated files are
/// conformance cases as they are.
fn expected_all(unit: Unit, cases: &[Generated]) -> Vec<Option<serde_json::Value>> {
    cases
        .iter()
        .map(|c| match c.class {
            generate::Class::MustReject => None,
            _ => teeoracle::conform::expect(unit, &c.bytes).ok(),
        })
        .collect()
}
