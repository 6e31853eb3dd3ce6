//! A suite as plain files, for an implementation that runs it without
//! teeoracle (`conform export DIR`) and read back (`conform run --suite
//! DIR`): each case's input and expected output in a file, and a
//! `conform_suite` manifest (`## conform export DIR` in
//! [`crate::schema`]).

use super::{Case, Class, Expected, Input, Op, Suite, Unit};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;
use std::path::{Path, PathBuf};

/// The manifest's file name in the folder.
pub const MANIFEST: &str = "manifest.json";

/// A `conform_suite` manifest.
#[derive(Serialize, Deserialize)]
struct Manifest {
    suite_version: u32,
    seed: u64,
    cases: Vec<ManifestCase>,
}

/// A case of the manifest: its files' names relative to the folder.
#[derive(Serialize, Deserialize)]
struct ManifestCase {
    id: String,
    unit: Unit,
    op: Op,
    class: Class,
    reason: String,
    input: String,
    expected: Option<String>,
}

/// Why an exported suite could not be written or read: the file, and
/// what went wrong with it.
#[derive(Debug)]
pub enum SuiteFileError {
    /// A file or folder that could not be written or read.
    Io(PathBuf, std::io::Error),
    /// A file that is not the JSON the manifest or a case needs.
    Json(PathBuf, serde_json::Error),
}

impl SuiteFileError {
    /// The file.
    pub fn path(&self) -> &Path {
        match self {
            SuiteFileError::Io(p, _) | SuiteFileError::Json(p, _) => p,
        }
    }
}

impl fmt::Display for SuiteFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SuiteFileError::Io(p, e) => write!(f, "{}: {e}", p.display()),
            SuiteFileError::Json(p, e) => write!(f, "{}: {e}", p.display()),
        }
    }
}

impl std::error::Error for SuiteFileError {}

impl Suite {
    /// Writes the suite into `dir` (made if missing): each case's input
    /// (`ID.in`, or `ID.in.json` to encode), its expected output
    /// (`ID.json`, `ID.out`; none for a rejection) and [`MANIFEST`].
    pub fn export(&self, dir: &Path) -> Result<(), SuiteFileError> {
        let write = |name: &str, bytes: &[u8]| {
            let path = dir.join(name);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| SuiteFileError::Io(parent.to_path_buf(), e))?;
            }
            std::fs::write(&path, bytes).map_err(|e| SuiteFileError::Io(path, e))
        };
        let mut cases = Vec::with_capacity(self.cases.len());
        for c in &self.cases {
            let (input, input_bytes) = match &c.input {
                Input::Bytes(b) => (format!("{}.in", c.id), b.clone()),
                Input::Json(v) => (format!("{}.in.json", c.id), json_bytes(&v.value())),
            };
            write(&input, &input_bytes)?;
            let expected = match &c.expected {
                Expected::Json(v) => Some((format!("{}.json", c.id), json_bytes(&v.value()))),
                Expected::Bytes(b) => Some((format!("{}.out", c.id), b.clone())),
                Expected::Reject => None,
            };
            if let Some((name, bytes)) = &expected {
                write(name, bytes)?;
            }
            cases.push(ManifestCase {
                id: c.id.clone(),
                unit: c.unit,
                op: c.op,
                class: c.class,
                reason: c.reason.clone(),
                input,
                expected: expected.map(|e| e.0),
            });
        }
        let manifest = Manifest {
            suite_version: self.version,
            seed: self.seed,
            cases,
        };
        let doc = crate::schema::Document::new("conform_suite", &manifest);
        let mut bytes = serde_json::to_vec_pretty(&doc).expect("a manifest is plain data");
        bytes.push(b'\n');
        write(MANIFEST, &bytes)
    }

    /// The suite [`Suite::export`] wrote into `dir`.
    pub fn load(dir: &Path) -> Result<Suite, SuiteFileError> {
        let read = |name: &str| {
            let path = dir.join(name);
            std::fs::read(&path).map_err(|e| SuiteFileError::Io(path, e))
        };
        let json = |name: &str| -> Result<Value, SuiteFileError> {
            serde_json::from_slice(&read(name)?)
                .map_err(|e| SuiteFileError::Json(dir.join(name), e))
        };
        let manifest: Manifest = serde_json::from_value(json(MANIFEST)?)
            .map_err(|e| SuiteFileError::Json(dir.join(MANIFEST), e))?;
        let mut cases = Vec::with_capacity(manifest.cases.len());
        for m in manifest.cases {
            let input = match m.op {
                Op::Decode => Input::Bytes(read(&m.input)?),
                Op::Encode => Input::Json(json(&m.input)?.into()),
            };
            let expected = match (&m.expected, m.op) {
                (None, _) => Expected::Reject,
                (Some(e), Op::Decode) => Expected::Json(json(e)?.into()),
                (Some(e), Op::Encode) => Expected::Bytes(read(e)?),
            };
            cases.push(Case {
                id: m.id,
                unit: m.unit,
                op: m.op,
                class: m.class,
                reason: m.reason,
                input,
                expected,
            });
        }
        Ok(Suite {
            version: manifest.suite_version,
            seed: manifest.seed,
            cases,
        })
    }
}

/// A JSON file's bytes: pretty, with a final newline.
fn json_bytes(v: &Value) -> Vec<u8> {
    let mut out = serde_json::to_vec_pretty(v).expect("JSON values serialise");
    out.push(b'\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exported_suite_reads_back_the_same() {
        let suite = Suite::builtin(&[], Vec::new())
            .unwrap()
            .only(&[Unit::Varint, Unit::Huffman]);
        assert!(suite.cases.iter().any(|c| c.op == Op::Encode));
        // Not tempfile: it comes only with the archive feature.
        let dir = std::env::temp_dir().join(format!("teeoracle-export-{}", std::process::id()));
        suite.export(&dir).unwrap();
        let back = Suite::load(&dir);
        std::fs::write(dir.join(MANIFEST), "{}").unwrap();
        let broken = Suite::load(&dir);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(back.unwrap(), suite);
        let e = broken.unwrap_err();
        assert!(matches!(e, SuiteFileError::Json(..)), "{e}");
        assert_eq!(e.path(), dir.join(MANIFEST));
    }
}
