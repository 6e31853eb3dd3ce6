//! Two `check --format json` reports compared file by file.

use super::{Change, FieldChange, field_changes};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// How one file's verdict differs between two `check --format json`
/// reports (a baseline and a new run).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FileChange {
    /// The file's path as the reports name it (the new report's, unless
    /// only the old one has the file).
    pub path: String,
    /// Its role (`teehistorian #1`, `demo NAME`, `capture NAME`) when both
    /// reports carry `roles`: files are then paired by role, not by path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// The old report's path of a file paired by role under another path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_path: Option<String>,
    /// Added (only the new report has it), removed or changed.
    pub change: Change,
    /// For a change: what differs (`status`, `findings`, `counts.records`,
    /// `summary`, ...).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldChange>,
}

/// Two files of two `check` reports paired by role.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RolePair {
    /// The role both have.
    pub role: String,
    /// The old report's path.
    pub old: String,
    /// The new report's path.
    pub new: String,
}

/// `bytes` as a `check --format json` document, if they are one: a saved
/// report (`check --baseline`, `diff` of two reports).
pub fn check_document(bytes: &[u8]) -> Option<Value> {
    let v: Value = serde_json::from_slice(bytes).ok()?;
    (v["kind"] == "check").then_some(v)
}

/// A report's files by key: their role where both reports carry roles
/// (`check` records each folder's recordings' roles), else their path.
fn files_by_key(doc: &Value, by_role: bool) -> BTreeMap<String, (String, Option<String>, &Value)> {
    let roles = doc["roles"].as_object();
    let mut out = BTreeMap::new();
    for f in doc["files"].as_array().into_iter().flatten() {
        let path = f["path"].as_str().unwrap_or_default().to_string();
        let role = roles
            .filter(|_| by_role)
            .and_then(|r| r.get(&path))
            .and_then(Value::as_str)
            .map(str::to_string);
        let key = role.clone().unwrap_or_else(|| path.clone());
        out.insert(key, (path, role, f));
    }
    out
}

/// Whether two reports are paired by role: both name roles.
fn by_role(old: &Value, new: &Value) -> bool {
    let has = |d: &Value| d["roles"].as_object().is_some_and(|r| !r.is_empty());
    has(old) && has(new)
}

/// The files two `check` documents pair by role (none when either has no
/// `roles`), in role order.
pub fn role_pairs(old: &Value, new: &Value) -> Vec<RolePair> {
    if !by_role(old, new) {
        return Vec::new();
    }
    let (a, b) = (files_by_key(old, true), files_by_key(new, true));
    a.iter()
        .filter_map(|(key, (op, role, _))| {
            let (np, _, _) = b.get(key)?;
            Some(RolePair {
                role: role.clone()?,
                old: op.clone(),
                new: np.clone(),
            })
        })
        .collect()
}

/// Compares two `check` documents file by file: by role when both carry
/// `roles` (a `record` folder's `server-2.teehistorian` with the other
/// run's second map, whatever the folders are called), else by path; in
/// key order. Which files changed verdict, findings, counts or summary.
/// A verdict's `path` is not compared when the files are paired by role.
pub fn compare_check_reports(old: &Value, new: &Value) -> Vec<FileChange> {
    let by_role = by_role(old, new);
    let (a, b) = (files_by_key(old, by_role), files_by_key(new, by_role));
    let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    let mut out = Vec::new();
    for key in keys {
        let (change, fields, (path, role), old_path) = match (a.get(key), b.get(key)) {
            (Some((op, _, x)), Some((np, role, y))) => {
                let mut fields = Vec::new();
                field_changes("", x, y, &mut fields);
                if by_role {
                    fields.retain(|f| f.field != "path");
                }
                if fields.is_empty() {
                    continue;
                }
                let moved = (op != np).then(|| op.clone());
                (Change::Changed, fields, (np.clone(), role.clone()), moved)
            }
            (Some((op, role, _)), None) => (
                Change::Removed,
                Vec::new(),
                (op.clone(), role.clone()),
                None,
            ),
            (None, Some((np, role, _))) => {
                (Change::Added, Vec::new(), (np.clone(), role.clone()), None)
            }
            (None, None) => continue,
        };
        out.push(FileChange {
            path,
            role,
            old_path,
            change,
            fields,
        });
    }
    out
}
