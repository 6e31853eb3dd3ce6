//! The layers of `src/` point one way (ARCHITECTURE.md): each module of
//! the library may use only the modules before it in [`ORDER`], so no
//! import circle can form. A new module goes into the order at its layer;
//! a use that points up fails here with the file and the line.

use std::path::Path;

/// The library's top-level modules, lowest first, by layer.
const ORDER: &[(&str, &[&str])] = &[
    (
        "core",
        &[
            "codec",
            "bytes",
            "packer",
            "huffman",
            "schema",
            "files",
            "log",
            "json_diff",
        ],
    ),
    ("reports and input", &["compression", "input", "report"]),
    (
        "formats",
        &[
            "packet",
            "snapshot",
            "capture",
            "session",
            "demo",
            "teehistorian",
            "archive",
            "map",
        ],
    ),
    (
        "jobs",
        &[
            "simulation",
            "check",
            "conform",
            "diff",
            "generate",
            "bot",
            "export",
        ],
    ),
];

/// The module a file under `src/` belongs to (`src/demo/check.rs`:
/// `demo`), or `None` for the binary and test-only files.
fn module_of(rel: &str) -> Option<&str> {
    if rel.starts_with("cli/")
        || matches!(rel, "main.rs" | "lib.rs" | "testing.rs")
        || rel.ends_with("/tests.rs")
    {
        return None;
    }
    Some(match rel.split_once('/') {
        Some((dir, _)) => dir,
        None => rel.strip_suffix(".rs").unwrap_or(rel),
    })
}

/// The file without its test module (everything from a `#[cfg(...test...)]`
/// on the line before `mod tests`) and without comments.
fn code_of(text: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let end = lines
        .windows(2)
        .position(|w| {
            w[0].starts_with("#[cfg(") && w[0].contains("test") && w[1].starts_with("mod tests")
        })
        .unwrap_or(lines.len());
    lines[..end]
        .iter()
        .enumerate()
        .map(|(i, l)| (i + 1, l.split("//").next().unwrap_or("").to_string()))
        .collect()
}

fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("src/ is readable")
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn every_module_uses_only_the_modules_below_it() {
    let rank = |m: &str| {
        ORDER
            .iter()
            .flat_map(|(_, ms)| ms.iter())
            .position(|&x| x == m)
    };
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    walk(&src, &mut files);
    let mut upward = Vec::new();
    let mut unplaced = Vec::new();
    for path in &files {
        let rel = path
            .strip_prefix(&src)
            .expect("under src/")
            .to_string_lossy()
            .replace('\\', "/");
        let Some(module) = module_of(&rel) else {
            continue;
        };
        let Some(own) = rank(module) else {
            unplaced.push(rel.clone());
            continue;
        };
        let text = std::fs::read_to_string(path).expect("a source file");
        for (n, line) in code_of(&text) {
            for used in line.split("crate::").skip(1) {
                // `crate::x::...`, or `crate::{x, y::...}` on one line.
                let names: Vec<&str> = match used.strip_prefix('{') {
                    Some(group) => group.split('}').next().unwrap_or("").split(',').collect(),
                    None => vec![used],
                };
                for name in names {
                    let name: String = name
                        .trim()
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    if name == module || name.is_empty() || name == "self" {
                        continue;
                    }
                    match rank(&name) {
                        Some(r) if r < own => {}
                        _ => upward.push(format!("src/{rel}:{n}: {module} uses {name}")),
                    }
                }
            }
        }
    }
    assert!(
        unplaced.is_empty(),
        "modules missing from ORDER in tests/it/architecture.rs: {unplaced:?}"
    );
    assert!(
        upward.is_empty(),
        "uses that point up a layer or sideways to a later module:\n{}",
        upward.join("\n")
    );
}

#[test]
fn every_module_of_the_order_exists() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let missing: Vec<&str> = ORDER
        .iter()
        .flat_map(|(_, ms)| ms.iter().copied())
        .filter(|m| !src.join(format!("{m}.rs")).exists() && !src.join(m).join("mod.rs").exists())
        .collect();
    assert!(
        missing.is_empty(),
        "ORDER names modules src/ lacks: {missing:?}"
    );
}

/// The module path of a file under `src/` (`simulation/ddrace/world/mod.rs`:
/// `["simulation", "ddrace", "world"]`; `lib.rs` and `main.rs`: `[]`).
fn module_path(rel: &str) -> Vec<String> {
    let stem = rel.strip_suffix(".rs").unwrap_or(rel);
    let mut parts: Vec<String> = stem.split('/').map(str::to_string).collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// Every module path a line names, resolved from the file's own module
/// `at`: `crate::a::b`, `super::super::c`, `self::d`, and each item of a
/// one-level group (`super::{a, b::c}`).
fn paths_named(line: &str, at: &[String], is_mod_file: bool) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes = line.as_bytes();
    let word_start = |i: usize| {
        i == 0
            || !(bytes[i - 1].is_ascii_alphanumeric()
                || bytes[i - 1] == b'_'
                || bytes[i - 1] == b':')
    };
    for root in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(found) = line[from..].find(root) {
            let i = from + found;
            from = i + root.len();
            if !word_start(i) {
                continue;
            }
            let mut base: Vec<String> = match root {
                "crate::" => Vec::new(),
                _ => at.to_vec(),
            };
            // A file's own module is `at`; `super` from `x.rs` is the
            // folder, from `x/mod.rs` the folder's parent.
            let mut rest = &line[i..];
            if root == "super::" {
                let _ = is_mod_file;
                base.pop();
                rest = &rest["super::".len()..];
                while let Some(r) = rest.strip_prefix("super::") {
                    base.pop();
                    rest = r;
                }
            } else {
                rest = &rest[root.len()..];
            }
            let take = |t: &str| -> Vec<String> {
                t.split("::")
                    .map(|seg| {
                        seg.trim()
                            .chars()
                            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                            .collect::<String>()
                    })
                    .take_while(|seg| !seg.is_empty())
                    .collect()
            };
            match rest.strip_prefix('{') {
                Some(group) => {
                    for item in group.split('}').next().unwrap_or("").split(',') {
                        let mut p = base.clone();
                        p.extend(take(item));
                        out.push(p);
                    }
                }
                None => {
                    let mut p = base.clone();
                    p.extend(take(rest));
                    out.push(p);
                }
            }
        }
    }
    out
}

/// A folder of `src/`, as a module path.
type Folder = Vec<String>;
/// A sibling module used, and where (`src/x.rs:12`).
type Use = (String, String);

/// No circle inside any folder either: within each folder of `src/`, the
/// modules it holds (its files and subfolders, `mod.rs` aside, which is
/// the folder itself) may use one another only one way. A child may use
/// its folder's `mod.rs`; two siblings may not use each other, directly
/// or around a longer loop. Test modules are left out, as above.
#[test]
fn no_folder_holds_a_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    walk(&src, &mut files);
    // (folder, child) -> the children of the same folder it uses, with
    // where.
    let mut edges: std::collections::BTreeMap<(Folder, String), Vec<Use>> = Default::default();
    for path in &files {
        let rel = path
            .strip_prefix(&src)
            .expect("under src/")
            .to_string_lossy()
            .replace('\\', "/");
        if rel.ends_with("/tests.rs") || rel == "testing.rs" {
            continue;
        }
        let at = module_path(&rel);
        let is_mod_file = rel.ends_with("mod.rs");
        let text = std::fs::read_to_string(path).expect("a source file");
        for (n, line) in code_of(&text) {
            for used in paths_named(&line, &at, is_mod_file) {
                // The deepest folder holding both this file's module and
                // the used path, with the child of it on each side.
                let common = at.iter().zip(&used).take_while(|(a, b)| a == b).count();
                if common >= at.len() || common >= used.len() {
                    continue; // a module using itself, its own children or an ancestor
                }
                let folder = at[..common].to_vec();
                let (from, to) = (at[common].clone(), used[common].clone());
                // Only modules: an item of the folder's mod.rs is not a
                // sibling (a child may use its folder).
                let sibling = src.join(folder.join("/")).join(&to);
                if !(sibling.with_extension("rs").exists() || sibling.is_dir()) {
                    continue;
                }
                edges
                    .entry((folder, from))
                    .or_default()
                    .push((to, format!("src/{rel}:{n}")));
            }
        }
    }
    // A depth-first search for a back edge, folder by folder.
    let mut circles = Vec::new();
    let folders: std::collections::BTreeSet<Vec<String>> =
        edges.keys().map(|(f, _)| f.clone()).collect();
    for folder in folders {
        let next = |m: &str| -> Vec<(String, String)> {
            edges
                .get(&(folder.clone(), m.to_string()))
                .cloned()
                .unwrap_or_default()
        };
        let nodes: std::collections::BTreeSet<String> = edges
            .keys()
            .filter(|(f, _)| *f == folder)
            .map(|(_, m)| m.clone())
            .collect();
        let mut done = std::collections::BTreeSet::new();
        for start in &nodes {
            let mut stack: Vec<(String, Vec<(String, String)>)> =
                vec![(start.clone(), next(start))];
            let mut on_path = vec![(start.clone(), String::new())];
            while let Some((_, todo)) = stack.last_mut() {
                let Some((to, at)) = todo.pop() else {
                    let (m, _) = stack.pop().expect("not empty");
                    on_path.pop();
                    done.insert(m);
                    continue;
                };
                if let Some(k) = on_path.iter().position(|(m, _)| *m == to) {
                    let mut circle: Vec<String> = on_path[k..]
                        .iter()
                        .skip(1)
                        .map(|(m, w)| format!("{m} ({w})"))
                        .collect();
                    circle.insert(0, on_path[k].0.clone());
                    circle.push(format!("{to} ({at})"));
                    circles.push(format!(
                        "src/{}/: {}",
                        folder.join("/"),
                        circle.join(" -> ")
                    ));
                    continue;
                }
                if done.contains(&to) {
                    continue;
                }
                on_path.push((to.clone(), at));
                let n = next(&to);
                stack.push((to, n));
            }
        }
    }
    circles.sort();
    circles.dedup();
    assert!(
        circles.is_empty(),
        "modules of one folder that use each other in a circle:\n{}",
        circles.join("\n")
    );
}

/// A test binary with its own harness (`harness = false` in Cargo.toml)
/// runs only what its `main` lists: a `#[test]` function in it is never
/// compiled, let alone run (a merge once left one so).
#[test]
fn files_with_their_own_harness_hold_no_test_attribute() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml");
    let mut own = Vec::new();
    for section in manifest.split("[[test]]").skip(1) {
        let section = section.split("\n[").next().unwrap_or_default();
        let name = section
            .lines()
            .find_map(|l| l.trim().strip_prefix("name = "))
            .map(|n| n.trim_matches('"').to_string());
        if let Some(name) = name
            && section.contains("harness = false")
        {
            own.push(name);
        }
    }
    assert!(
        own.contains(&"harness".to_string()),
        "the [[test]] sections read: {own:?}"
    );
    for name in own {
        // A binary of one file, or of a folder.
        let file = root.join("tests").join(format!("{name}.rs"));
        let files = match file.exists() {
            true => vec![file],
            false => teeoracle::files::files_under(&root.join("tests").join(&name))
                .expect("the test binary's folder"),
        };
        for path in files {
            let text = std::fs::read_to_string(&path).expect("a test file");
            let at: Vec<usize> = text
                .lines()
                .enumerate()
                .filter(|(_, l)| l.trim() == "#[test]")
                .map(|(i, _)| i + 1)
                .collect();
            assert!(
                at.is_empty(),
                "{} has its own harness but #[test] at lines {at:?}: list the function in its \
                 module's TESTS",
                path.display()
            );
        }
    }
}

/// No test file is over 1,000 lines (the house rule for every source
/// file): a long one is split by topic.
#[test]
fn no_test_file_is_over_a_thousand_lines() {
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let long: Vec<String> = teeoracle::files::files_under(&tests)
        .expect("tests/")
        .into_iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(&path).expect("a test file");
            let lines = text.lines().count();
            (lines > 1000).then(|| format!("{} ({lines} lines)", path.display()))
        })
        .collect();
    assert!(long.is_empty(), "split by topic: {long:?}");
}
