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
            "world",
        ],
    ),
    (
        "jobs",
        &[
            "simulate",
            "demo_of_world",
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
        "modules missing from ORDER in tests/architecture.rs: {unplaced:?}"
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

/// A test file with its own harness (`harness = false` in Cargo.toml)
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
        own.contains(&"hostile".to_string()),
        "the [[test]] sections read: {own:?}"
    );
    for name in own {
        let path = root.join("tests").join(format!("{name}.rs"));
        let text = std::fs::read_to_string(&path).expect("the test file");
        let at: Vec<usize> = text
            .lines()
            .enumerate()
            .filter(|(_, l)| l.trim() == "#[test]")
            .map(|(i, _)| i + 1)
            .collect();
        assert!(
            at.is_empty(),
            "{} has its own harness but #[test] at lines {at:?}: list the function in its main",
            path.display()
        );
    }
}
