//! Where two JSON values differ, leaf by leaf: the one walker behind the
//! archive's checkpoint check and `diff`'s field changes. Objects are
//! walked by key (the old value's keys in order, then the new one's
//! others), a key one side lacks compares as `null`; arrays element by
//! element or as a whole. Paths read `a.b[2].c` (`""` for the root).

use serde_json::Value;
use std::ops::ControlFlow;

/// How arrays are compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrays {
    /// Element by element (`path[i]`; a missing element is `null`).
    ByElement,
    /// As one leaf.
    Whole,
}

/// Calls `f` with the path and both values of every leaf where `old` and
/// `new` differ, in order, until it breaks.
pub fn differences<'a>(
    old: &'a Value,
    new: &'a Value,
    arrays: Arrays,
    f: &mut impl FnMut(&str, &'a Value, &'a Value) -> ControlFlow<()>,
) -> ControlFlow<()> {
    walk(old, new, arrays, &mut String::new(), f)
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

fn walk<'a>(
    old: &'a Value,
    new: &'a Value,
    arrays: Arrays,
    path: &mut String,
    f: &mut impl FnMut(&str, &'a Value, &'a Value) -> ControlFlow<()>,
) -> ControlFlow<()> {
    const NULL: &Value = &Value::Null;
    let len = path.len();
    match (old, new) {
        (Value::Object(a), Value::Object(b)) => {
            let keys = a.keys().chain(b.keys().filter(|k| !a.contains_key(*k)));
            for k in keys {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(k);
                walk(
                    a.get(k).unwrap_or(NULL),
                    b.get(k).unwrap_or(NULL),
                    arrays,
                    path,
                    f,
                )?;
                path.truncate(len);
            }
            ControlFlow::Continue(())
        }
        (Value::Array(a), Value::Array(b)) if arrays == Arrays::ByElement => {
            for i in 0..a.len().max(b.len()) {
                path.push_str(&format!("[{i}]"));
                walk(
                    a.get(i).unwrap_or(NULL),
                    b.get(i).unwrap_or(NULL),
                    arrays,
                    path,
                    f,
                )?;
                path.truncate(len);
            }
            ControlFlow::Continue(())
        }
        (a, b) if a == b => ControlFlow::Continue(()),
        (a, b) => f(path, a, b),
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
}
