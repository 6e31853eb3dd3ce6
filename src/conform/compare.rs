//! Comparing an adapter's JSON with the expected JSON by structure, on the
//! paths the adapter declares, through the crate's one JSON walker
//! ([`crate::json_diff::walk`]).

use crate::json_diff::{self, Arrays, At, Segment, Visit, Visitor};
use serde_json::Value;
use std::collections::BTreeSet;
use std::ops::ControlFlow;

/// The JSON paths an adapter emits (`fields` in its `info`): keys joined
/// by `.`, `[]` for every element, `*` for any one key. A path covers
/// everything below it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldSet {
    patterns: Vec<Vec<Seg>>,
}

/// A step of a declared path.
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
    fn cover(&self, path: &[Segment<'_>]) -> (bool, bool) {
        let (mut covered, mut below) = (false, false);
        for p in &self.patterns {
            let n = p.len().min(path.len());
            if !p[..n].iter().zip(&path[..n]).all(|(p, s)| step_match(p, s)) {
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

    /// The parts of `v` (found at `path`) that the set covers.
    fn project<'a>(&self, v: &'a Value, path: &mut Vec<Segment<'a>>) -> Value {
        let (covered, _) = self.cover(path);
        if covered {
            return v.clone();
        }
        match v {
            Value::Object(m) => {
                let mut out = serde_json::Map::new();
                for (k, x) in m {
                    path.push(Segment::Key(k));
                    if matches!(self.cover(path), (true, _) | (_, true)) {
                        out.insert(k.clone(), self.project(x, path));
                    }
                    path.pop();
                }
                Value::Object(out)
            }
            Value::Array(a) => {
                let mut out = Vec::with_capacity(a.len());
                for (i, x) in a.iter().enumerate() {
                    path.push(Segment::Index(i));
                    out.push(self.project(x, path));
                    path.pop();
                }
                Value::Array(out)
            }
            other => other.clone(),
        }
    }
}

/// Whether a declared path's step matches a step of a value's path.
fn step_match(pattern: &Seg, step: &Segment<'_>) -> bool {
    match (pattern, step) {
        (Seg::Key(p), Segment::Key(k)) => p == k,
        (Seg::AnyKey, Segment::Key(_)) | (Seg::Elem, Segment::Index(_)) => true,
        _ => false,
    }
}

/// Whether a declared path's step matches a step of another declared
/// (or shape) path.
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
    let mut compare = Compare {
        fields,
        out: Comparison::default(),
    };
    let _ = json_diff::walk(expected, actual, Arrays::ByElement, &mut compare);
    compare.out
}

/// The shape paths of `v` (keys joined by `.`, `[]` for elements), every
/// node's: what a [`FieldSet`] path can name.
pub fn shape_paths(v: &Value, out: &mut BTreeSet<String>) {
    // `v` walked against itself: every node is visited, none differs.
    let _ = json_diff::walk(
        v,
        v,
        Arrays::ByElement,
        &mut Shapes {
            out,
            shape: String::new(),
        },
    );
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

/// The comparison's visitor: the expected value is the old side, the
/// adapter's the new one.
struct Compare<'f> {
    fields: Option<&'f FieldSet>,
    out: Comparison,
}

impl<'a> Visitor<'a> for Compare<'_> {
    fn visit(
        &mut self,
        at: &At<'_, 'a>,
        expected: Option<&'a Value>,
        actual: Option<&'a Value>,
    ) -> Visit {
        let Some(expected) = expected else {
            // Only the adapter has it, below a node compared in part: an
            // extra element is the difference at its index; a key of its
            // own is not looked at.
            return match at.segments.last() {
                Some(Segment::Index(_)) => Visit::All,
                _ => Visit::Skip,
            };
        };
        let (covered, below) = match self.fields {
            None => (true, false),
            Some(f) => f.cover(at.segments),
        };
        if covered {
            // Every part of the two values must be equal, extra keys
            // included.
            self.out.compared += leaves(expected);
            return Visit::All;
        }
        if !below {
            self.out.not_compared += leaves(expected);
            if self.out.left_out.len() < 256 {
                self.out.left_out.insert(shape(at.segments));
            }
            return Visit::Skip;
        }
        match (expected, actual) {
            // Element by element: a missing or extra element is the
            // difference at its index, not the whole array.
            (Value::Object(_), Some(Value::Object(_)))
            | (Value::Array(_), Some(Value::Array(_))) => Visit::Inside,
            // A value with nothing below it where a declared path goes on
            // (a null `token` under `token.*`): compared as a whole.
            (e, Some(a)) if e == a => {
                self.out.compared += 1;
                Visit::Skip
            }
            // A container whose shape differs (or is missing) above a
            // covered path: the difference is here.
            _ => {
                self.record(at, Some(expected), actual);
                Visit::Skip
            }
        }
    }

    fn differ(
        &mut self,
        at: &At<'_, 'a>,
        expected: Option<&'a Value>,
        actual: Option<&'a Value>,
    ) -> ControlFlow<()> {
        self.record(at, expected, actual);
        ControlFlow::Continue(())
    }
}

impl Compare<'_> {
    fn record(&mut self, at: &At<'_, '_>, expected: Option<&Value>, actual: Option<&Value>) {
        self.out.total_differences += 1;
        if self.out.differences.len() >= KEPT_DIFFERENCES {
            return;
        }
        // The expected side of the context shows only what is compared.
        let shown = |v: &Value, path: &[Segment<'_>]| match self.fields {
            Some(f) => f.project(v, &mut path.to_vec()),
            None => v.clone(),
        };
        let context = match at.parent {
            Some((e, a)) => {
                let above = &at.segments[..at.segments.len().saturating_sub(1)];
                (shown(e, above), Some(a.clone()))
            }
            None => (
                expected.map_or(Value::Null, |e| shown(e, at.segments)),
                actual.cloned(),
            ),
        };
        self.out.differences.push(Difference {
            path: at.path.to_string(),
            expected: expected.cloned(),
            actual: actual.cloned(),
            context,
        });
    }
}

/// [`shape_paths`]' visitor.
struct Shapes<'o> {
    out: &'o mut BTreeSet<String>,
    /// The current node's shape path (reused, to allocate once).
    shape: String,
}

impl<'a> Visitor<'a> for Shapes<'_> {
    fn visit(&mut self, at: &At<'_, 'a>, _: Option<&'a Value>, _: Option<&'a Value>) -> Visit {
        self.shape.clear();
        write_shape(&mut self.shape, at.segments);
        if !self.shape.is_empty() && !self.out.contains(&self.shape) {
            self.out.insert(self.shape.clone());
        }
        Visit::Inside
    }

    fn differ(
        &mut self,
        _: &At<'_, 'a>,
        _: Option<&'a Value>,
        _: Option<&'a Value>,
    ) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
}

/// A path as a shape path (`records[].cid`).
fn shape(segments: &[Segment<'_>]) -> String {
    let mut out = String::new();
    write_shape(&mut out, segments);
    out
}

fn write_shape(out: &mut String, segments: &[Segment<'_>]) {
    for s in segments {
        match s {
            Segment::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Segment::Index(_) => out.push_str("[]"),
        }
    }
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

    /// Where a declared path goes on below a value that has nothing below
    /// it (null, a number), equal values are no difference and count as
    /// compared; unequal ones are the difference there.
    #[test]
    fn a_scalar_above_a_declared_path_is_compared_as_a_whole() {
        let f = FieldSet::parse(&["p.token.bytes", "p.flags"]);
        let e = json!({"p": {"token": null, "flags": 1}});
        let c = compare_all(&e, &json!({"p": {"token": null, "flags": 1}}), Some(&f));
        assert_eq!(
            (c.differences.len(), c.compared, c.not_compared),
            (0, 2, 0),
            "equal: {:?}",
            c.differences
        );
        let c = compare_all(&e, &json!({"p": {"token": 7, "flags": 1}}), Some(&f));
        let paths: Vec<&str> = c.differences.iter().map(|d| d.path.as_str()).collect();
        assert_eq!(paths, ["p.token"], "unequal: {:?}", c.differences);
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

    #[test]
    fn what_is_left_out_is_counted_and_an_adapter_s_own_key_counts_only_where_all_is_compared() {
        let e = json!({"p": {"flags": 1, "seq": [4, 5]}, "q": {"r": 2}});
        let a = json!({"p": {"flags": 1, "mine": 0}, "q": {"r": 2, "extra": 3}});
        let c = compare_all(&e, &a, Some(&FieldSet::parse(&["p.flags", "q"])));
        assert_eq!(
            (c.compared, c.not_compared),
            (2, 2),
            "p.flags and q.r compared, p.seq's two elements not"
        );
        assert_eq!(
            c.left_out.iter().collect::<Vec<_>>(),
            ["p.seq"],
            "what was left out, as a shape path"
        );
        let paths: Vec<&str> = c.differences.iter().map(|d| d.path.as_str()).collect();
        assert_eq!(
            paths,
            ["q.extra"],
            "`mine` is in a part not compared; `extra` is in one compared whole"
        );
    }

    #[test]
    fn shape_paths_name_every_node_once() {
        let mut out = BTreeSet::new();
        shape_paths(
            &json!({"a": {"b": [{"c": 1}, {"d": 2}, {"c": 3}]}, "e": []}),
            &mut out,
        );
        assert_eq!(
            out.iter().collect::<Vec<_>>(),
            ["a", "a.b", "a.b[]", "a.b[].c", "a.b[].d", "e"],
            "the shape paths"
        );
    }
}
