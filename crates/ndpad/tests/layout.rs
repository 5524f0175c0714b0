//! The core's source layout, read from `src/`: its top-level modules depend on each
//! other in one direction only (no import cycles), the plan and the options know
//! nothing of the executor, and no source file grows past `MAX_LINES`.
//!
//! A module's dependencies are the `crate::name` paths in its files (`use` lines,
//! `use crate::{a, b::c}` groups and paths in code; comments are skipped) where
//! `name` is another top-level module. Paths to the crate root's re-exports
//! (`crate::pad`, `crate::PadOptions`) are not counted: only `lib.rs` re-exports.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The longest a source file of the core may be.
const MAX_LINES: usize = 800;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path, into: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, into);
        } else if path.extension().is_some_and(|e| e == "rs") {
            into.push(path);
        }
    }
}

/// The top-level modules (`src/name.rs` or `src/name/mod.rs`) and their files.
fn modules() -> BTreeMap<String, Vec<PathBuf>> {
    let mut modules = BTreeMap::new();
    for entry in fs::read_dir(src()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        let mut files = Vec::new();
        if path.is_dir() {
            rust_files(&path, &mut files);
        } else if name != "lib" && path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
        if !files.is_empty() {
            modules.insert(name, files);
        }
    }
    modules
}

/// The source without its comments (line comments, doc comments and blocks).
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("//") {
            rest = after.find('\n').map_or("", |n| &after[n..]);
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.find("*/").map_or("", |n| &after[n + 2..]);
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

fn ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The first names of the paths after each `crate::` in `code`: `crate::a::b` gives
/// `a`, `crate::{a::b, c}` gives `a` and `c`.
fn crate_paths(code: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        // `crate::` inside a longer word (`my_crate::`) is not this crate.
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = code[at + "crate::".len()..].trim_start();
        let Some(group) = rest.strip_prefix('{') else {
            names.insert(ident(rest).to_string());
            continue;
        };
        // The group's items at its top level.
        let mut depth = 0;
        let mut item_start = true;
        for (i, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => break,
                '}' => depth -= 1,
                ',' if depth == 0 => item_start = true,
                c if item_start && !c.is_whitespace() => {
                    names.insert(ident(&group[i..]).to_string());
                    item_start = false;
                }
                _ => {}
            }
        }
    }
    names
}

/// The one pair of modules that may name each other, and why: `PadError` carries a
/// `DType` (`error` -> `dtype`), and parsing a `DType` fails with a `PadError`
/// (`dtype` -> `error`). Two types that mention each other, not code calling code.
/// Its `dtype` -> `error` edge is left out of the cycle check.
const MUTUAL_TYPES: (&str, &str) = ("dtype", "error");

/// Each top-level module's dependencies among the others.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let modules = modules();
    modules
        .iter()
        .map(|(name, files)| {
            let deps = files
                .iter()
                .flat_map(|f| crate_paths(&strip_comments(&fs::read_to_string(f).unwrap())))
                .filter(|d| d != name && modules.contains_key(d))
                .collect();
            (name.clone(), deps)
        })
        .collect()
}

/// A cycle of the graph, as the path of modules around it, if there is one.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == node) {
            let mut cycle = path[at..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in &graph[node] {
            if let Some(cycle) = visit(next, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|n| visit(n, graph, &mut Vec::new(), &mut done))
}

#[test]
fn paths_are_read_from_uses_groups_and_code() {
    let code = strip_comments(
        "use crate::plan::{Plan, Seg};\n// use crate::commented;\n/* crate::blocked */\n\
         use crate::{\n    tensor::Element,\n    pad as p, error::{PadError, axes},\n};\n\
         let n = crate::exec::thread_count(0); my_crate::not_this();",
    );
    let names: Vec<_> = crate_paths(&code).into_iter().collect();
    assert_eq!(names, ["error", "exec", "pad", "plan", "tensor"]);
}

#[test]
fn cycles_are_found_and_chains_pass() {
    let graph = |edges: &[(&str, &str)]| {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for &(from, to) in edges {
            g.entry(from.to_string())
                .or_default()
                .insert(to.to_string());
            g.entry(to.to_string()).or_default();
        }
        g
    };
    // The old circle of the core: plan -> exec -> tile -> plan.
    let old = graph(&[
        ("plan", "exec"),
        ("exec", "tile"),
        ("tile", "plan"),
        ("exec", "arch"),
    ]);
    assert_eq!(find_cycle(&old).unwrap(), ["exec", "tile", "plan", "exec"]);
    let chain = graph(&[
        ("exec", "plan"),
        ("exec", "options"),
        ("plan", "spec"),
        ("options", "tune"),
    ]);
    assert_eq!(find_cycle(&chain), None);
}

#[test]
fn core_modules_form_no_cycle() {
    let mut graph = graph();
    let (from, to) = MUTUAL_TYPES;
    assert!(
        graph[to].contains(from),
        "{to} no longer imports {from}: drop MUTUAL_TYPES"
    );
    graph.get_mut(from).unwrap().remove(to);
    // The parse found the edges it must (else the check below would pass vacuously).
    for (from, to) in [("exec", "plan"), ("exec", "options"), ("plan", "spec")] {
        assert!(
            graph[from].contains(to),
            "{from} -> {to} not found: {graph:?}"
        );
    }
    if let Some(cycle) = find_cycle(&graph) {
        panic!(
            "the core's modules import each other in a circle: {}",
            cycle.join(" -> ")
        );
    }
    // The plan is plain data: it neither runs itself nor reads the options (the
    // methods that run a plan are in `exec/entry.rs`).
    for layer in ["plan", "options"] {
        assert!(
            !graph[layer].contains("exec"),
            "{layer} imports exec: {:?}",
            graph[layer]
        );
    }
    assert!(!graph["plan"].contains("options"), "{:?}", graph["plan"]);
    // Configuration imports no code that reads it.
    let allowed: BTreeSet<String> = ["tune".to_string()].into();
    assert!(
        graph["options"].is_subset(&allowed),
        "{:?}",
        graph["options"]
    );
}
#[test]
fn no_source_file_is_too_long() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let n = fs::read_to_string(f).unwrap().lines().count();
            (n > MAX_LINES).then(|| format!("{} ({n} lines)", f.display()))
        })
        .collect();
    assert!(long.is_empty(), "over {MAX_LINES} lines: {long:?}");
}
