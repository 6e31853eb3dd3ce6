//! Two `check --format json` reports compared file by file.

use super::{Change, FieldChange, field_changes};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// How one file's verdict differs between two `check --format json`
/// reports (a baseline and a new run).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FileChange {
    /// The file's path as the reports name it.
    pub path: String,
    /// Added (only the new report has it), removed or changed.
    pub change: Change,
    /// For a change: what differs (`status`, `findings`, `counts.records`,
    /// `summary`, ...).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldChange>,
}

/// Compares two `check` documents file by file (by path, in path order):
/// which files changed verdict, findings, counts or summary.
pub fn compare_check_reports(old: &Value, new: &Value) -> Vec<FileChange> {
    let files = |doc: &Value| -> BTreeMap<String, Value> {
        doc["files"]
            .as_array()
            .map(|files| {
                files
                    .iter()
                    .map(|f| {
                        (
                            f["path"].as_str().unwrap_or_default().to_string(),
                            f.clone(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let (a, b) = (files(old), files(new));
    let paths: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    let mut out = Vec::new();
    for path in paths {
        let (change, fields) = match (a.get(path), b.get(path)) {
            (Some(x), Some(y)) => {
                let mut fields = Vec::new();
                field_changes("", x, y, &mut fields);
                if fields.is_empty() {
                    continue;
                }
                (Change::Changed, fields)
            }
            (Some(_), None) => (Change::Removed, Vec::new()),
            (None, _) => (Change::Added, Vec::new()),
        };
        out.push(FileChange {
            path: path.clone(),
            change,
            fields,
        });
    }
    out
}
