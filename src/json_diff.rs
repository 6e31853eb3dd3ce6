//! Where two JSON values differ, leaf by leaf: the one walker of JSON
//! paths in the crate, behind the archive's checkpoint check, `diff`'s
//! field changes and conform's comparison. Objects are walked by key (the
//! old value's keys in order, then the new one's others), arrays element
//! by element or as a whole. Paths read `a.b[2].c` (`""` for the root).
//!
//! [`walk`] asks a [`Visitor`] at each node how far to go (conform
//! compares only the paths an adapter declares) and tells it where the
//! values differ, a node one side lacks as `None`. [`differences`] and
//! [`first_difference`] walk everything, a node one side lacks comparing
//! as `null`.

use serde_json::Value;
use std::fmt::Write as _;
use std::ops::ControlFlow;

/// How arrays are compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrays {
    /// Element by element (`path[i]`).
    ByElement,
    /// As one leaf.
    Whole,
}

/// One step of a path: an object's key or an array's index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Segment<'a> {
    /// An object's key.
    Key(&'a str),
    /// An array's index.
    Index(usize),
}

/// Where a [`walk`] is.
#[derive(Clone, Copy, Debug)]
pub struct At<'w, 'a> {
    /// The path as shown (`a.b[2].c`; `""` for the root).
    pub path: &'w str,
    /// The same path, step by step.
    pub segments: &'w [Segment<'a>],
    /// The old and the new container that hold the node (`None` for the
    /// root).
    pub parent: Option<(&'a Value, &'a Value)>,
}

/// How far a [`walk`] goes at a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Visit {
    /// Everything below, without asking again.
    All,
    /// Into the node's keys or elements, asking again at each.
    Inside,
    /// Not at all.
    Skip,
}

/// What a [`walk`] asks at each node and tells where the values differ.
pub trait Visitor<'a> {
    /// How far to walk the node at `at` (`None`: that side lacks it).
    fn visit(&mut self, at: &At<'_, 'a>, old: Option<&'a Value>, new: Option<&'a Value>) -> Visit;

    /// A node where the two differ and that is not walked into: two
    /// leaves, two values of different kinds, or a node one side lacks.
    fn differ(
        &mut self,
        at: &At<'_, 'a>,
        old: Option<&'a Value>,
        new: Option<&'a Value>,
    ) -> ControlFlow<()>;
}

/// Walks `old` and `new` together, in order, until `visitor` breaks:
/// asks it at the root and at each key or element of a node it answered
/// [`Visit::Inside`] for.
pub fn walk<'a>(
    old: &'a Value,
    new: &'a Value,
    arrays: Arrays,
    visitor: &mut impl Visitor<'a>,
) -> ControlFlow<()> {
    let mut walk = Walk {
        arrays,
        path: String::new(),
        segments: Vec::new(),
    };
    walk.node(Some(old), Some(new), None, true, visitor)
}

/// Calls `f` with the path and both values of every leaf where `old` and
/// `new` differ, in order, until it breaks. A node one side lacks
/// compares as `null`.
pub fn differences<'a>(
    old: &'a Value,
    new: &'a Value,
    arrays: Arrays,
    f: &mut impl FnMut(&str, &'a Value, &'a Value) -> ControlFlow<()>,
) -> ControlFlow<()> {
    walk(old, new, arrays, &mut Leaves(f))
}

/// The first leaf where `old` and `new` differ: its path and both values.
pub fn first_difference<'a>(
    old: &'a Value,
    new: &'a Value,
    arrays: Arrays,
) -> Option<(String, &'a Value, &'a Value)> {
    let mut first = None;
    let _ = differences(old, new, arrays, &mut |path, a, b| {
        first = Some((path.to_string(), a, b));
        ControlFlow::Break(())
    });
    first
}

/// [`differences`]' visitor: everything, a missing node as `null`.
struct Leaves<'f, F>(&'f mut F);

impl<'a, F: FnMut(&str, &'a Value, &'a Value) -> ControlFlow<()>> Visitor<'a> for Leaves<'_, F> {
    fn visit(&mut self, _: &At<'_, 'a>, _: Option<&'a Value>, _: Option<&'a Value>) -> Visit {
        Visit::All
    }

    fn differ(
        &mut self,
        at: &At<'_, 'a>,
        old: Option<&'a Value>,
        new: Option<&'a Value>,
    ) -> ControlFlow<()> {
        const NULL: &Value = &Value::Null;
        let (a, b) = (old.unwrap_or(NULL), new.unwrap_or(NULL));
        // A `null` on one side and nothing on the other are the same.
        if a == b {
            return ControlFlow::Continue(());
        }
        (self.0)(at.path, a, b)
    }
}

/// The path of a walk in progress.
struct Walk<'a> {
    arrays: Arrays,
    path: String,
    segments: Vec<Segment<'a>>,
}

impl<'a> Walk<'a> {
    fn node(
        &mut self,
        old: Option<&'a Value>,
        new: Option<&'a Value>,
        parent: Option<(&'a Value, &'a Value)>,
        ask: bool,
        visitor: &mut impl Visitor<'a>,
    ) -> ControlFlow<()> {
        // Under a node answered `All`, the visitor is not asked again.
        let ask = match ask {
            false => false,
            true => match visitor.visit(&self.at(parent), old, new) {
                Visit::Skip => return ControlFlow::Continue(()),
                Visit::All => false,
                Visit::Inside => true,
            },
        };
        match (old, new) {
            (Some(a @ Value::Object(x)), Some(b @ Value::Object(y))) => {
                let keys = x.keys().chain(y.keys().filter(|k| !x.contains_key(*k)));
                for k in keys {
                    let len = self.enter(Segment::Key(k));
                    self.node(x.get(k), y.get(k), Some((a, b)), ask, visitor)?;
                    self.leave(len);
                }
                ControlFlow::Continue(())
            }
            (Some(a @ Value::Array(x)), Some(b @ Value::Array(y)))
                if self.arrays == Arrays::ByElement =>
            {
                for i in 0..x.len().max(y.len()) {
                    let len = self.enter(Segment::Index(i));
                    self.node(x.get(i), y.get(i), Some((a, b)), ask, visitor)?;
                    self.leave(len);
                }
                ControlFlow::Continue(())
            }
            (a, b) if a == b => ControlFlow::Continue(()),
            (a, b) => visitor.differ(&self.at(parent), a, b),
        }
    }

    fn at(&self, parent: Option<(&'a Value, &'a Value)>) -> At<'_, 'a> {
        At {
            path: &self.path,
            segments: &self.segments,
            parent,
        }
    }

    /// Steps down to `segment`; gives the path's length before it.
    fn enter(&mut self, segment: Segment<'a>) -> usize {
        let len = self.path.len();
        match segment {
            Segment::Key(k) => {
                if !self.path.is_empty() {
                    self.path.push('.');
                }
                self.path.push_str(k);
            }
            Segment::Index(i) => {
                let _ = write!(self.path, "[{i}]");
            }
        }
        self.segments.push(segment);
        len
    }

    fn leave(&mut self, len: usize) {
        self.path.truncate(len);
        self.segments.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn all(old: &Value, new: &Value, arrays: Arrays) -> Vec<(String, Value, Value)> {
        let mut out = Vec::new();
        let _ = differences(old, new, arrays, &mut |p, a, b| {
            out.push((p.to_string(), a.clone(), b.clone()));
            ControlFlow::Continue(())
        });
        out
    }

    #[test]
    fn leaves_are_named_by_path_in_the_old_value_s_order_then_the_new_one_s() {
        let old = json!({"b": 1, "a": {"x": [1, 2]}, "gone": true});
        let new = json!({"b": 1, "a": {"x": [1, 3, 4]}, "added": "y"});
        assert_eq!(
            all(&old, &new, Arrays::ByElement),
            [
                ("a.x[1]".into(), json!(2), json!(3)),
                ("a.x[2]".into(), Value::Null, json!(4)),
                ("gone".into(), json!(true), Value::Null),
                ("added".into(), Value::Null, json!("y")),
            ]
        );
        assert_eq!(
            all(&old, &new, Arrays::Whole)[0],
            ("a.x".into(), json!([1, 2]), json!([1, 3, 4]))
        );
    }

    #[test]
    fn the_first_difference_stops_the_walk_and_equal_values_have_none() {
        let old = json!([{"a": 1}, {"a": 2}]);
        let new = json!([{"a": 1}, {"a": 5}, 7]);
        let (path, a, b) = first_difference(&old, &new, Arrays::ByElement).expect("a difference");
        assert_eq!((path.as_str(), a, b), ("[1].a", &json!(2), &json!(5)));
        assert_eq!(first_difference(&old, &old, Arrays::ByElement), None);
        assert_eq!(
            first_difference(&json!(1), &json!(2), Arrays::Whole),
            Some((String::new(), &json!(1), &json!(2)))
        );
    }

    /// A difference as a visitor is told it: the path, both sides, and
    /// the containers that hold it.
    type Found = (String, Option<Value>, Option<Value>, Option<(Value, Value)>);

    /// Notes where it was asked and what differed: walks inside every
    /// node but `skip` (not at all) and `all` (everything, unasked).
    struct Notes {
        asked: Vec<String>,
        found: Vec<Found>,
    }

    impl<'a> Visitor<'a> for Notes {
        fn visit(&mut self, at: &At<'_, 'a>, _: Option<&'a Value>, _: Option<&'a Value>) -> Visit {
            self.asked.push(at.path.to_string());
            match at.segments.last() {
                Some(Segment::Key("skip")) => Visit::Skip,
                Some(Segment::Key("all")) => Visit::All,
                _ => Visit::Inside,
            }
        }

        fn differ(
            &mut self,
            at: &At<'_, 'a>,
            old: Option<&'a Value>,
            new: Option<&'a Value>,
        ) -> ControlFlow<()> {
            let parent = at.parent.map(|(a, b)| (a.clone(), b.clone()));
            self.found
                .push((at.path.to_string(), old.cloned(), new.cloned(), parent));
            ControlFlow::Continue(())
        }
    }

    #[test]
    fn a_visitor_decides_how_far_to_go_and_sees_a_missing_node_as_none() {
        let old = json!({"a": null, "skip": 1, "all": {"x": 1}, "b": [1]});
        let new = json!({"skip": 2, "all": {"x": 2}, "b": [1, 2]});
        let mut notes = Notes {
            asked: Vec::new(),
            found: Vec::new(),
        };
        let _ = walk(&old, &new, Arrays::ByElement, &mut notes);
        assert_eq!(
            notes.asked,
            ["", "a", "skip", "all", "b", "b[0]", "b[1]"],
            "where the visitor was asked (not below `all`)"
        );
        assert_eq!(
            notes.found,
            [
                (
                    "a".into(),
                    Some(Value::Null),
                    None,
                    Some((old.clone(), new.clone()))
                ),
                (
                    "all.x".into(),
                    Some(json!(1)),
                    Some(json!(2)),
                    Some((json!({"x": 1}), json!({"x": 2})))
                ),
                (
                    "b[1]".into(),
                    None,
                    Some(json!(2)),
                    Some((json!([1]), json!([1, 2])))
                ),
            ],
            "what differed, a missing node as None, with the containers that hold it"
        );
        // `differences` walks everything and takes a missing node as `null`.
        assert_eq!(
            all(&old, &new, Arrays::ByElement),
            [
                ("skip".into(), json!(1), json!(2)),
                ("all.x".into(), json!(1), json!(2)),
                ("b[1]".into(), Value::Null, json!(2)),
            ]
        );
    }
}
