//! The examples of `README.md` and `docs/*.md`, run against the
//! `teeoracle` this build made: a page that shows what a command prints
//! must show what it prints today. One test case per example.
//!
//! The convention (`docs/README.md` says the same to whoever writes a page):
//!
//! - An example is a fenced code block whose first line starts with `$ `.
//!   Each `$ ` line is a command, run by `sh` with this build's
//!   `teeoracle` first on `PATH`, in a fresh folder of its own that looks
//!   like a bare clone: `corpus` is the repository's `corpus/`, and
//!   `../shared` is the shared folder beside the repository only for an
//!   example that names it (commands such as `conform run` look for it).
//!   A block's commands run in order in the same folder, so one can read
//!   what another wrote; `$?` is the previous command's exit status.
//! - A command goes on over the lines after it that start with `> `, as
//!   a shell prompts for them (a here-document, an open quote): they are
//!   part of the command, not of what it prints.
//! - The lines up to the next `$ ` line are what the command prints,
//!   standard output and standard error together. Trailing spaces and
//!   trailing empty lines do not count. A line that is only `...` stands
//!   for any number of lines (none included); nothing else is a wildcard.
//! - An example that cannot run here says why on its opening fence,
//!   ```` ```text notest: needs a DDNet server ````: it is listed as
//!   ignored, with its reason, and of the kind `notest` (`.ci/run` allows
//!   no other ignored test). One that names `../shared` is ignored, saying
//!   why, where the shared corpus is absent.
//! - An example that needs Python packages names them on its opening
//!   fence, ```` ```text python: duckdb polars ````: `python3` must import
//!   them, or the example is listed as ignored, saying which is missing
//!   (`.ci/run` installs them, from `examples/analyst/requirements.txt`).
//! - A `$ ` line in a block that does not start with one is an error, so
//!   a misplaced example is never passed over.

use crate::common::{self, Env};
use libtest_mimic::{Failed, Trial};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The pages whose examples are checked.
fn pages(root: &Path) -> Vec<String> {
    let mut pages = vec!["README.md".to_string()];
    let mut docs: Vec<String> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|entry| entry.expect("docs/ entry").file_name())
        .map(|name| format!("docs/{}", name.to_string_lossy()))
        .filter(|name| name.ends_with(".md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

/// One example: where it is, and its commands with what each prints.
struct Example {
    page: String,
    /// The line of its first command (1-based).
    line: usize,
    /// Why it is not run (the fence's `notest:`).
    notest: Option<String>,
    /// The Python packages it imports (the fence's `python:`).
    python: Vec<String>,
    steps: Vec<Step>,
}

struct Step {
    command: String,
    shown: Vec<String>,
}

impl Example {
    fn name(&self) -> String {
        // A command that goes on over `> ` lines is named by its first.
        let command = self.steps[0].command.lines().next().unwrap_or_default();
        match command.char_indices().nth(60) {
            Some((cut, _)) => format!("{}:{} $ {}...", self.page, self.line, &command[..cut]),
            None => format!("{}:{} $ {command}", self.page, self.line),
        }
    }
}

/// The examples of one page, or what is wrong with its blocks.
fn examples(page: &str, text: &str) -> Result<Vec<Example>, String> {
    let mut examples = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((at, line)) = lines.next() {
        let Some((ticks, info)) = fence(line) else {
            continue;
        };
        if info.contains('`') {
            continue; // not a fence: code in a line (CommonMark)
        }
        // A fence inside a list item is indented, and so is its content.
        let indent = line.len() - line.trim_start().len();
        let mut body = Vec::new();
        loop {
            let Some((n, line)) = lines.next() else {
                return Err(format!("{page}:{}: the block never closes", at + 1));
            };
            if fence(line).is_some_and(|(n, rest)| n >= ticks && rest.trim().is_empty()) {
                break;
            }
            let cut = line.len() - line.trim_start().len();
            body.push((n + 1, &line[cut.min(indent)..]));
        }
        let notest = match info.split_once("notest:") {
            Some((_, reason)) if reason.trim().is_empty() => {
                return Err(format!("{page}:{}: `notest:` without a reason", at + 1));
            }
            Some((_, reason)) => Some(reason.trim().to_string()),
            None => None,
        };
        let python: Vec<String> = match info.split_once("python:") {
            Some((_, names)) => names.split_whitespace().map(str::to_string).collect(),
            None => Vec::new(),
        };
        let is_example = body.first().is_some_and(|(_, l)| l.starts_with("$ "));
        if !is_example {
            if let Some((n, _)) = body.iter().find(|(_, l)| l.starts_with("$ ")) {
                return Err(format!(
                    "{page}:{n}: a `$ ` line in a block that does not start with one \
                     (an example's first line is its command)"
                ));
            }
            if notest.is_some() {
                return Err(format!(
                    "{page}:{}: `notest:` on a block that is no example",
                    at + 1
                ));
            }
            continue;
        }
        let mut steps: Vec<Step> = Vec::new();
        for (_, line) in &body {
            let step = steps.last_mut();
            match (line.strip_prefix("$ "), line.strip_prefix("> "), step) {
                (Some(command), _, _) => steps.push(Step {
                    command: command.to_string(),
                    shown: Vec::new(),
                }),
                // A `> ` line right after the command (or after another)
                // goes on with it.
                (None, Some(more), Some(step)) if step.shown.is_empty() => {
                    step.command.push('\n');
                    step.command.push_str(more);
                }
                (None, _, Some(step)) => step.shown.push(line.to_string()),
                (None, _, None) => unreachable!("an example starts with `$ `"),
            }
        }
        examples.push(Example {
            page: page.to_string(),
            line: body[0].0,
            notest,
            python,
            steps,
        });
    }
    Ok(examples)
}

/// A fence line's backtick count and the rest of the line (its info).
fn fence(line: &str) -> Option<(usize, &str)> {
    let line = line.trim_start();
    let ticks = line.len() - line.trim_start_matches('`').len();
    (ticks >= 3).then(|| (ticks, &line[ticks..]))
}

/// Where `shown` (in which a `...` line stands for any lines) and
/// `printed` differ, or `None` if they match.
fn mismatch(shown: &[String], printed: &[String]) -> Option<String> {
    let (shown, printed) = (trim(shown), trim(printed));
    // The runs of shown lines between `...` lines, with where each starts.
    let mut runs = Vec::new();
    let mut start = 0;
    for (i, line) in shown.iter().enumerate() {
        if line.trim() == "..." {
            runs.push((start, &shown[start..i]));
            start = i + 1;
        }
    }
    runs.push((start, &shown[start..]));
    let (first_at, first) = runs[0];
    if let Some(why) = compare(first, first_at, &printed, 0) {
        return Some(why);
    }
    if runs.len() == 1 {
        let extra = printed.get(first.len())?;
        return Some(format!(
            "printed line {} is {extra:?}, after the last line shown",
            first.len() + 1
        ));
    }
    // The first run is at the start, the last at the end, the others in
    // order between them.
    let (last_at, last) = runs[runs.len() - 1];
    let Some(end) = printed
        .len()
        .checked_sub(last.len())
        .filter(|&end| end >= first.len())
    else {
        return Some(format!(
            "only {} lines printed, fewer than shown",
            printed.len()
        ));
    };
    if let Some(why) = compare(last, last_at, &printed, end) {
        return Some(why);
    }
    let mut from = first.len();
    for &(at, run) in &runs[1..runs.len() - 1] {
        let found = end
            .checked_sub(run.len())
            .and_then(|to| (from..=to).find(|&i| printed[i..].starts_with(run)));
        match found {
            Some(i) => from = i + run.len(),
            None => {
                return Some(format!(
                    "shown lines {} to {} (the first: {:?}) are not printed between \
                     printed lines {} and {}",
                    at + 1,
                    at + run.len(),
                    run[0],
                    from + 1,
                    end
                ));
            }
        }
    }
    None
}

/// Lines without trailing spaces and without empty lines at the end.
fn trim(lines: &[String]) -> Vec<String> {
    let mut lines: Vec<String> = lines.iter().map(|l| l.trim_end().to_string()).collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

/// Where `run` (shown lines from `run_at`) differs from `printed` at `at`.
fn compare(run: &[String], run_at: usize, printed: &[String], at: usize) -> Option<String> {
    for (k, line) in run.iter().enumerate() {
        match printed.get(at + k) {
            Some(got) if got == line => {}
            Some(got) => {
                return Some(format!(
                    "shown line {} differs from printed line {}:\n  shown:   {line:?}\n  printed: {got:?}",
                    run_at + k + 1,
                    at + k + 1
                ));
            }
            None => {
                return Some(format!(
                    "shown line {} is {line:?}, but only {} lines are printed",
                    run_at + k + 1,
                    printed.len()
                ));
            }
        }
    }
    None
}

/// True if the example names the shared folder beside the repository.
fn uses_shared(example: &Example) -> bool {
    example
        .steps
        .iter()
        .any(|s| s.command.contains("../shared"))
}

/// Runs an example's commands in `home/work`, comparing each one's
/// output.
fn run(example: &Example, home: &Path, path: &str) -> Result<(), Failed> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = home.join("work");
    let link = |target: PathBuf, name: PathBuf| {
        std::os::unix::fs::symlink(&target, &name)
            .map_err(|e| format!("linking {} to {}: {e}", name.display(), target.display()))
    };
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    link(root.join("corpus"), dir.join("corpus"))?;
    if uses_shared(example) {
        link(root.join("../shared"), home.join("shared"))?;
    }
    let mut status = 0;
    for step in &example.steps {
        // `$?` is the previous command's status; stderr goes where
        // stdout goes, in the order they were written.
        let script = format!("exec 2>&1\n(exit {status})\n{}\n", step.command);
        let out = Command::new("sh")
            .arg("-c")
            .arg(script)
            .current_dir(&dir)
            .env("PATH", path)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("sh: {e}"))?;
        let Some(code) = out.status.code() else {
            return Err(format!("`{}` was killed: {}", step.command, out.status).into());
        };
        status = code;
        let printed: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string)
            .collect();
        if let Some(why) = mismatch(&step.shown, &printed) {
            const SHOWN: usize = 80;
            let more = match printed.len().saturating_sub(SHOWN) {
                0 => String::new(),
                n => format!("\n({n} more lines)"),
            };
            return Err(format!(
                "`$ {}` (exit {code}) does not print what {}:{} shows: {why}\n\
                 --- printed ---\n{}{more}",
                step.command,
                example.page,
                example.line,
                printed[..printed.len().min(SHOWN)].join("\n")
            )
            .into());
        }
    }
    Ok(())
}

/// Why `python3` (on `path`) cannot run an example that imports
/// `packages`, or `None` when it can.
fn missing_python(packages: &[String], path: &str) -> Option<String> {
    if packages.is_empty() {
        return None;
    }
    let imports = format!("import {}", packages.join(", "));
    let ok = Command::new("python3")
        .args(["-c", &imports])
        .env("PATH", path)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    (!ok).then(|| {
        format!(
            "needs python3 with {} (pip install -r examples/analyst/requirements.txt)",
            packages.join(" and ")
        )
    })
}

/// The folder the examples run in, made afresh by [`trials`].
fn scratch() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("docs-examples")
}

/// Removes what the examples wrote (after the run).
pub fn clean_up() {
    let _ = std::fs::remove_dir_all(scratch());
}

/// A case per example (named by its page, line and first command), and
/// the matcher's own cases.
pub fn trials() -> Vec<Trial> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scratch = scratch();
    let _ = std::fs::remove_dir_all(&scratch);
    let no_shared = Env::SharedCorpus.missing();
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_teeoracle")).parent().unwrap();
    let path = std::env::join_paths(std::iter::once(bin_dir.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .expect("PATH")
    .to_string_lossy()
    .into_owned();

    let mut trials = vec![
        Trial::test("docs::matcher: an elided example matches", matcher_matches),
        Trial::test("docs::matcher: a changed line fails", matcher_fails),
    ];
    let mut count = 0;
    for page in pages(root) {
        let text = std::fs::read_to_string(root.join(&page)).expect("a page");
        let found = match examples(&page, &text) {
            Ok(found) => found,
            Err(e) => {
                trials.push(Trial::test(page, move || Err(e.into())));
                continue;
            }
        };
        for example in found {
            count += 1;
            let name = example.name();
            if let Some(reason) = example.notest.clone() {
                trials
                    .push(common::ignored(name, format!("not run: {reason}")).with_kind("notest"));
                continue;
            }
            if let Some(why) = missing_python(&example.python, &path) {
                trials.push(common::ignored(name, why));
                continue;
            }
            if let Some(why) = no_shared.clone().filter(|_| uses_shared(&example)) {
                trials.push(common::ignored(name, why));
                continue;
            }
            let home = scratch.join(format!(
                "{}-{}",
                example.page.replace('/', "_"),
                example.line
            ));
            let path = path.clone();
            trials.push(Trial::test(name, move || run(&example, &home, &path)));
        }
    }
    assert!(
        count > 0,
        "no example found in README.md or docs/: the parser is broken"
    );
    trials
}

fn lines(text: &str) -> Vec<String> {
    text.lines().map(str::to_string).collect()
}

fn matcher_matches() -> Result<(), Failed> {
    let printed = lines("a\nb\nc\nd\n\n");
    for shown in [
        "a\nb\nc\nd",
        "a\n...\nd",
        "...\nc\nd",
        "a\n...",
        "...\nb\n...",
        "a\nb\n...\nc\nd  ",
    ] {
        if let Some(why) = mismatch(&lines(shown), &printed) {
            return Err(format!("{shown:?} should match {printed:?}: {why}").into());
        }
    }
    Ok(())
}

fn matcher_fails() -> Result<(), Failed> {
    let printed = lines("a\nb\nc\nd");
    for shown in [
        "a\nb\nc",
        "a\nb\nX\nd",
        "a\n...\nc",
        "...\nd\n...\nc",
        "b\n...",
        "a\nb\nc\nd\ne",
    ] {
        if mismatch(&lines(shown), &printed).is_none() {
            return Err(format!("{shown:?} should not match {printed:?}").into());
        }
    }
    Ok(())
}
