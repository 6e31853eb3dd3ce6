//! The standard conformance suite, what `conform run` and `conform
//! export` run: the built-in cases of the corpus folders
//! ([`Suite::builtin_of`]) and the generators' cases of each unit from the
//! suite's seed. It lives here, not in [`crate::conform`], because the
//! generators build on the conformance units.

use super::{Kind, UNITS, cases};
use crate::conform::{Case, SEED, Suite, Unit, map_cases};
use crate::files::WalkError;
use std::path::{Path, PathBuf};

/// Generated cases per unit and kind in the standard suite.
pub const PER_KIND: usize = 20;

/// The standard suite's cases of `units` (all when empty), with the
/// corpus files under `corpora`; a corpus file or folder that cannot be
/// read is an error.
pub fn standard(corpora: &[PathBuf], units: &[Unit]) -> Result<Suite, WalkError> {
    Suite::builtin_of(corpora, generated(units), units)
}

/// The generators' cases of `units` (all when empty) for the suite, from
/// its seed: each is expected and classed by teeoracle like every other
/// case, with the generator's reason.
pub fn generated(units: &[Unit]) -> Vec<Case> {
    let wanted = |u: Unit| units.is_empty() || units.contains(&u);
    let mut out = Vec::new();
    for unit in UNITS {
        // A generated map is a case of the map lint unit too.
        let lint = unit == Unit::Map && wanted(Unit::MapLint);
        if !wanted(unit) && !lint {
            continue;
        }
        for kind in [Kind::Valid, Kind::Edge, Kind::Malformed] {
            for g in cases(unit, SEED, PER_KIND, kind) {
                let reason = format!("generated: {}", g.reason);
                if unit == Unit::Map {
                    let id = format!("gen/{}", g.name);
                    map_cases(&id, &g.bytes, &reason, &wanted, &mut out);
                } else {
                    let id = format!("{unit}/gen/{}", g.name);
                    out.push(Case::decode(id, unit, g.bytes, &reason));
                }
            }
        }
    }
    out
}

/// The corpus folders the standard suite reads when none are named:
/// `corpus` and the shared upstream corpus beside it, those that exist,
/// in the current folder or else in the source tree teeoracle was built
/// from (empty when there are none).
pub fn default_corpora() -> Vec<PathBuf> {
    let existing = |base: &Path| -> Vec<PathBuf> {
        ["corpus", "../shared/corpus/upstream"]
            .into_iter()
            .map(|p| base.join(p))
            .filter(|p| p.is_dir())
            .collect()
    };
    match existing(Path::new("")) {
        here if !here.is_empty() => here,
        _ => existing(Path::new(env!("CARGO_MANIFEST_DIR"))),
    }
}
