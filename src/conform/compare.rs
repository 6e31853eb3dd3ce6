//! Comparing an adapter's JSON with the expected JSON by structure, on the
//! paths the adapter declares.

use serde_json::Value;
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// The JSON paths an adapter emits (`fields` in its `info`): keys joined
/// by `.`, `[]` for every element, `*` for any one key. A path covers
/// everything below it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldSet {
    patterns: Vec<Vec<Seg>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Seg {
    Key(String),
    AnyKey,
    Elem,
}

impl FieldSet {
    /// The set of `paths` (`a.b`, `a[].c`, `a.*`).
    pub fn parse<S: AsRef<str>>(paths: &[S]) -> FieldSet {
        let patterns = paths
            .iter()
            .map(|p| {
                let mut segs = Vec::new();
                for part in p.as_ref().split('.').filter(|s| !s.is_empty()) {
                    let key = part.trim_end_matches("[]");
                    match key {
                        "*" => segs.push(Seg::AnyKey),
                        "" => {}
                        k => segs.push(Seg::Key(k.to_string())),
                    }
                    for _ in 0..(part.len() - key.len()) / 2 {
                        segs.push(Seg::Elem);
                    }
                }
                segs
            })
            .collect();
        FieldSet { patterns }
    }

    /// Whether some pattern covers `path` (is a prefix of it), and whether
    /// some pattern lies below it.
    fn cover(&self, path: &[Seg]) -> (bool, bool) {
        let (mut covered, mut below) = (false, false);
        for p in &self.patterns {
            let n = p.len().min(path.len());
            if !p[..n].iter().zip(&path[..n]).all(|(p, s)| seg_match(p, s)) {
                continue;
            }
            if p.len() <= path.len() {
                covered = true;
            } else {
                below = true;
            }
        }
        (covered, below)
    }
}

impl FieldSet {
    /// The parts of `v` (found at `path`) that the set covers.
    fn project(&self, v: &Value, path: &mut Vec<Seg>) -> Value {
        let (covered, _) = self.cover(path);
        if covered {
            return v.clone();
        }
        match v {
            Value::Object(m) => {
                let mut out = serde_json::Map::new();
                for (k, x) in m {
                    path.push(Seg::Key(k.clone()));
                    if matches!(self.cover(path), (true, _) | (_, true)) {
                        out.insert(k.clone(), self.project(x, path));
                    }
                    path.pop();
                }
                Value::Object(out)
            }
            Value::Array(a) => {
                path.push(Seg::Elem);
                let out = a.iter().map(|x| self.project(x, path)).collect();
                path.pop();
                Value::Array(out)
            }
            other => other.clone(),
        }
    }
}

fn seg_match(pattern: &Seg, seg: &Seg) -> bool {
    match (pattern, seg) {
        (Seg::AnyKey, Seg::Key(_)) => true,
        (a, b) => a == b,
    }
}

/// A place where two JSON values differ.
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    /// The path (`packet.chunks[2].size`; `""` for the root).
    pub path: String,
    /// The expected value there (`None`: the key should not be there).
    pub expected: Option<Value>,
    /// The adapter's value there (`None`: the key is missing).
    pub actual: Option<Value>,
    /// The expected and the adapter's values of the object or array that
    /// holds `path` (the roots for the root): a small, readable context.
    pub context: (Value, Option<Value>),
}

/// The most differences [`compare_all`] keeps (it counts them all).
pub const KEPT_DIFFERENCES: usize = 32;

/// What [`compare_all`] found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Comparison {
    /// The differences, in the expected value's order (the first
    /// [`KEPT_DIFFERENCES`]).
    pub differences: Vec<Difference>,
    /// How many differences there are in all.
    pub total_differences: usize,
    /// Leaves of `expected` compared.
    pub compared: usize,
    /// Leaves of `expected` not compared (outside the fields).
    pub not_compared: usize,
    /// The paths not compared, as patterns (`records[].cid`).
    pub left_out: BTreeSet<String>,
}

/// Compares `actual` with `expected` on the paths `fields` covers (all of
/// them when `None`): the first difference, in the expected value's order,
/// and how many leaves of `expected` were not compared.
pub fn compare(
    expected: &Value,
    actual: &Value,
    fields: Option<&FieldSet>,
) -> (Option<Difference>, usize) {
    let c = compare_all(expected, actual, fields);
    (c.differences.into_iter().next(), c.not_compared)
}

/// Compares `actual` with `expected` on the paths `fields` covers (all of
/// them when `None`): every difference and what was compared.
pub fn compare_all(expected: &Value, actual: &Value, fields: Option<&FieldSet>) -> Comparison {
    let mut walk = Walk {
        fields,
        stack: Vec::new(),
        segs: Vec::new(),
        path: String::new(),
        out: Comparison::default(),
    };
    walk.node(expected, Some(actual));
    walk.out
}

/// The shape paths of `v` (keys joined by `.`, `[]` for elements), every
/// node's: what a [`FieldSet`] path can name.
pub fn shape_paths(v: &Value, out: &mut BTreeSet<String>) {
    fn walk(v: &Value, path: &mut String, out: &mut BTreeSet<String>) {
        if !path.is_empty() && !out.contains(path.as_str()) {
            out.insert(path.clone());
        }
        let len = path.len();
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(k);
                    walk(x, path, out);
                    path.truncate(len);
                }
            }
            Value::Array(a) => {
                path.push_str("[]");
                for x in a {
                    walk(x, path, out);
                }
                path.truncate(len);
            }
            _ => {}
        }
    }
    walk(v, &mut String::new(), out);
}

impl FieldSet {
    /// The declared paths, as parsed.
    pub fn len(&self) -> usize {
        self.patterns.len()
    }

    /// Whether no path is declared.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    /// Whether the `i`th declared path names `shape` (a [`shape_paths`]
    /// path) exactly.
    pub fn names(&self, i: usize, shape: &str) -> bool {
        let Some(p) = self.patterns.get(i) else {
            return false;
        };
        let s = &FieldSet::parse(&[shape]).patterns[0];
        p.is_empty() || (p.len() == s.len() && p.iter().zip(s).all(|(p, s)| seg_match(p, s)))
    }
}

struct Walk<'f, 'v> {
    fields: Option<&'f FieldSet>,
    /// The containers above the current node: expected, actual.
    stack: Vec<(&'v Value, Option<&'v Value>)>,
    /// The path as pattern segments (array indices as `[]`).
    segs: Vec<Seg>,
    /// The path as shown.
    path: String,
    out: Comparison,
}

impl<'v> Walk<'_, 'v> {
    fn node(&mut self, expected: &'v Value, actual: Option<&'v Value>) {
        let (covered, below) = match self.fields {
            None => (true, false),
            Some(f) => f.cover(&self.segs),
        };
        if covered {
            self.out.compared += leaves(expected);
            return self.strict(expected, actual);
        }
        if !below {
            self.out.not_compared += leaves(expected);
            if self.out.left_out.len() < 256 {
                self.out.left_out.insert(pattern(&self.segs));
            }
            return;
        }
        match (expected, actual) {
            (Value::Object(e), Some(Value::Object(a))) => {
                for (k, ev) in e {
                    self.child_key((expected, actual), k, |w| w.node(ev, a.get(k)));
                }
            }
            // Element by element: a missing or extra element is the
            // difference at its index, not the whole array.
            (Value::Array(e), Some(Value::Array(a))) => {
                let parent = (expected, actual);
                for (i, ev) in e.iter().enumerate() {
                    self.child_index(parent, i, |w| w.node(ev, a.get(i)));
                }
                for (i, av) in a.iter().enumerate().skip(e.len()) {
                    self.child_index(parent, i, |w| w.differ(None, Some(av)));
                }
            }
            // A container whose shape differs (or is missing) above a
            // covered path: the difference is here.
            _ => self.differ(Some(expected), actual),
        }
    }

    /// Every part of the two values must be equal, extra keys included.
    fn strict(&mut self, expected: &'v Value, actual: Option<&'v Value>) {
        match (expected, actual) {
            (Value::Object(e), Some(Value::Object(a))) => {
                let parent = (expected, actual);
                for (k, ev) in e {
                    self.child_key(parent, k, |w| w.strict(ev, a.get(k)));
                }
                for (k, av) in a.iter().filter(|(k, _)| !e.contains_key(*k)) {
                    self.child_key(parent, k, |w| w.differ(None, Some(av)));
                }
            }
            (Value::Array(e), Some(Value::Array(a))) => {
                let parent = (expected, actual);
                for (i, ev) in e.iter().enumerate() {
                    self.child_index(parent, i, |w| w.strict(ev, a.get(i)));
                }
                for (i, av) in a.iter().enumerate().skip(e.len()) {
                    self.child_index(parent, i, |w| w.differ(None, Some(av)));
                }
            }
            (e, Some(a)) if e == a => {}
            (e, a) => self.differ(Some(e), a),
        }
    }

    fn differ(&mut self, expected: Option<&Value>, actual: Option<&Value>) {
        self.out.total_differences += 1;
        if self.out.differences.len() >= KEPT_DIFFERENCES {
            return;
        }
        // The expected side of the context shows only what is compared.
        let parent = &self.segs[..self.segs.len().saturating_sub(1)];
        let shown = |v: &Value, at: &[Seg]| match self.fields {
            Some(f) => f.project(v, &mut at.to_vec()),
            None => v.clone(),
        };
        let context = match self.stack.last() {
            Some((e, a)) => (shown(e, parent), a.cloned()),
            None => (
                expected.map_or(Value::Null, |e| shown(e, &self.segs)),
                actual.cloned(),
            ),
        };
        self.out.differences.push(Difference {
            path: self.path.clone(),
            expected: expected.cloned(),
            actual: actual.cloned(),
            context,
        });
    }

    fn child_key(
        &mut self,
        parent: (&'v Value, Option<&'v Value>),
        key: &str,
        f: impl FnOnce(&mut Self),
    ) {
        self.push(parent);
        let len = self.path.len();
        if !self.path.is_empty() {
            self.path.push('.');
        }
        self.path.push_str(key);
        self.segs.push(Seg::Key(key.to_string()));
        f(self);
        self.segs.pop();
        self.stack.pop();
        self.path.truncate(len);
    }

    fn child_index(
        &mut self,
        parent: (&'v Value, Option<&'v Value>),
        i: usize,
        f: impl FnOnce(&mut Self),
    ) {
        self.push(parent);
        let len = self.path.len();
        let _ = write!(self.path, "[{i}]");
        self.segs.push(Seg::Elem);
        f(self);
        self.segs.pop();
        self.stack.pop();
        self.path.truncate(len);
    }

    fn push(&mut self, parent: (&'v Value, Option<&'v Value>)) {
        self.stack.push(parent);
    }
}

/// Pattern segments as a path (`records[].cid`).
fn pattern(segs: &[Seg]) -> String {
    let mut out = String::new();
    for s in segs {
        match s {
            Seg::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Seg::AnyKey => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push('*');
            }
            Seg::Elem => out.push_str("[]"),
        }
    }
    out
}

/// The scalars in a value (an empty container counts as one).
fn leaves(v: &Value) -> usize {
    match v {
        Value::Object(m) if !m.is_empty() => m.values().map(leaves).sum(),
        Value::Array(a) if !a.is_empty() => a.iter().map(leaves).sum(),
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn first_difference_in_expected_order() {
        let e = json!({"a": 1, "b": [1, 2, 3], "c": {"d": "x"}});
        let a = json!({"a": 1, "b": [1, 5, 3], "c": {"d": "y"}});
        let (d, n) = compare(&e, &a, None);
        let d = d.unwrap();
        assert_eq!(d.path, "b[1]");
        assert_eq!((d.expected, d.actual), (Some(json!(2)), Some(json!(5))));
        assert_eq!(n, 0);
    }

    #[test]
    fn extra_and_missing_keys() {
        let e = json!({"a": 1});
        let (d, _) = compare(&e, &json!({"a": 1, "z": 2}), None);
        assert_eq!(d.unwrap().path, "z");
        let (d, _) = compare(&e, &json!({}), None);
        assert_eq!(d.unwrap().actual, None);
        let (d, _) = compare(&json!([1]), &json!([1, 2]), None);
        assert_eq!(d.unwrap().path, "[1]");
    }

    #[test]
    fn fields_restrict_the_comparison() {
        let e = json!({"p": {"flags": 1, "ack": 2, "chunks": [{"size": 3, "seq": 4}]}});
        let a = json!({"p": {"flags": 1, "ack": 9, "chunks": [{"size": 3}], "mine": 0}});
        let f = FieldSet::parse(&["p.flags", "p.chunks[].size"]);
        let (d, n) = compare(&e, &a, Some(&f));
        assert_eq!(d, None);
        // ack and seq were left out.
        assert_eq!(n, 2);
        let f = FieldSet::parse(&["p.*"]);
        assert_eq!(compare(&e, &a, Some(&f)).0.unwrap().path, "p.ack");
        let f = FieldSet::parse(&["p.chunks[]"]);
        assert_eq!(compare(&e, &a, Some(&f)).0.unwrap().path, "p.chunks[0].seq");
    }

    #[test]
    fn a_missing_element_is_the_difference_and_context_shows_compared_fields() {
        let e = json!({"h": {"x": 1, "y": 2}, "r": [{"k": 1, "o": 5}, {"k": 2, "o": 6}]});
        let a = json!({"h": {"x": 1}, "r": [{"k": 1}]});
        let f = FieldSet::parse(&["h.x", "r[].k"]);
        let d = compare(&e, &a, Some(&f)).0.unwrap();
        assert_eq!(d.path, "r[1]");
        assert_eq!(
            (d.expected, d.actual),
            (Some(json!({"k": 2, "o": 6})), None)
        );
        // The context is the array, without the fields not compared.
        assert_eq!(d.context.0, json!([{"k": 1}, {"k": 2}]));
        let a = json!({"h": {"x": 1}, "r": [{"k": 1}, {"k": 2}, {"k": 3}]});
        assert_eq!(compare(&e, &a, Some(&f)).0.unwrap().path, "r[2]");
    }
}
