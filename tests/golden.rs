//! The golden harness: one test case per corpus file, so a mismatch in one
//! file never hides the rest.
//!
//! Every file under `corpus/` goes through `teeoracle::check` (the same
//! pipeline as the `check` command) and its verdict must equal its entry in
//! the one reviewed golden, `snapshots/cli/check_corpus.snap`: the output of
//! `teeoracle check corpus --format json`, which the `check_json` case
//! compares as a whole (accept changes with `cargo insta review`). Files of
//! the shared corpus (`../shared/corpus`, beside the repository in CI) are
//! cases too: they must not fail; without that folder they are left out
//! with a visible line.

mod common;

use libtest_mimic::{Arguments, Failed, Trial};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use teeoracle::check::{self, Options, Source, Status};

const GOLDEN: &str = "snapshots/cli/check_corpus.snap";

fn main() {
    let args = Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::env::set_current_dir(root).expect("the crate root");
    let golden = Arc::new(golden_verdicts());
    let mut trials = vec![Trial::test("check_json", check_json)];
    for path in files(Path::new("corpus")) {
        let golden = Arc::clone(&golden);
        let name = path.display().to_string();
        trials.push(Trial::test(name.clone(), move || {
            verdict_matches(&path, golden.get(&name))
        }));
    }
    let shared = Path::new("../shared/corpus");
    if shared.is_dir() {
        for path in files(shared) {
            let name = path.display().to_string();
            trials.push(Trial::test(name, move || shared_file_passes(&path)));
        }
    } else {
        println!("note: no shared corpus at ../shared/corpus: its files are checked in CI only");
    }
    libtest_mimic::run(&args, trials).exit();
}

/// Files below `dir`, in name order.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            out.extend(files(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// The verdicts of the golden `check --format json`, by path.
fn golden_verdicts() -> BTreeMap<String, serde_json::Value> {
    let text = std::fs::read_to_string(GOLDEN).unwrap_or_default();
    // An insta snapshot: a `---` header, then the document.
    let body = text.splitn(3, "---\n").nth(2).unwrap_or_default();
    let doc: serde_json::Value = serde_json::from_str(body).unwrap_or_default();
    doc["files"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| Some((v["path"].as_str()?.to_string(), v.clone())))
        .collect()
}

fn verdict_matches(path: &Path, golden: Option<&serde_json::Value>) -> Result<(), Failed> {
    let verdict = check::check(Source::file(path), &Options::default());
    let got = serde_json::to_value(&verdict).map_err(|e| e.to_string())?;
    let Some(want) = golden else {
        return Err(format!(
            "{} is not in {GOLDEN}: run the check_json case and review it",
            path.display()
        )
        .into());
    };
    if &got != want {
        let (a, b) = (pretty(want), pretty(&got));
        let diff = similar::TextDiff::from_lines(&a, &b)
            .unified_diff()
            .header("golden", "now")
            .to_string();
        return Err(format!("verdict differs from {GOLDEN}:\n{diff}").into());
    }
    if verdict.status == Status::Fail {
        return Err(format!("fails: {}", pretty(&got)).into());
    }
    Ok(())
}

fn pretty(v: &serde_json::Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

fn shared_file_passes(path: &Path) -> Result<(), Failed> {
    let verdict = check::check(Source::file(path), &Options::default());
    match verdict.status {
        Status::Fail => Err(pretty(&serde_json::to_value(&verdict).unwrap_or_default()).into()),
        _ => Ok(()),
    }
}

/// The whole run, as the command line prints it, against the golden.
fn check_json() -> Result<(), Failed> {
    let out = common::run(&["check", "corpus", "--format", "json"]);
    if out.status.code() != Some(0) {
        return Err(format!(
            "exit {:?}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    let text = String::from_utf8(out.stdout).map_err(|e| e.to_string())?;
    std::panic::catch_unwind(|| common::snapshot("cli", "check_corpus", &text)).map_err(|_| {
        Failed::from("check --format json differs from its golden (cargo insta review)")
    })
}
