//! The shape of the source tree, checked so that it stays easy to read: the
//! core's two layers (models never import the panels layer), no cycle among
//! the core's modules, one public type to a name, and no file or function
//! too long to take in at once.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

const MOST_FILE_LINES: usize = 900;
const MOST_FUNCTION_LINES: usize = 100;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every `.rs` file under `dir`, skipping build output and tools.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return files;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if path.is_dir() {
            if !["target", "node_modules", ".tools", ".git"].contains(&name.to_str().unwrap_or(""))
            {
                files.extend(rust_files(&path));
            }
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

fn sources() -> Vec<(String, String)> {
    let root = workspace();
    ["core", "cli", "js", "src", "tests"]
        .iter()
        .flat_map(|dir| rust_files(&root.join(dir)))
        .map(|path| {
            let name = path.strip_prefix(&root).unwrap().display().to_string();
            (name, fs::read_to_string(&path).unwrap())
        })
        .collect()
}

/// The lines of `text` that are code, not comments.
fn code_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
}

/// The core's top-level module a file belongs to: `sim` for
/// `core/src/sim/engine.rs`, `panels` for everything under it.
fn core_module(path: &Path) -> Option<String> {
    let relative = path.strip_prefix(workspace().join("core/src")).ok()?;
    let first = relative.components().next()?.as_os_str().to_str()?;
    Some(first.trim_end_matches(".rs").to_string())
}

/// The top-level core modules a file's code names through `crate::`.
fn named_modules(text: &str) -> BTreeSet<String> {
    let mut named = BTreeSet::new();
    for line in code_lines(text) {
        for (at, _) in line.match_indices("crate::") {
            let rest = &line[at + "crate::".len()..];
            let names: Vec<&str> = match rest.strip_prefix('{') {
                Some(group) => group.split([',', '}']).collect(),
                None => vec![rest],
            };
            for name in names {
                let module: String = name
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !module.is_empty() && module.chars().next().unwrap().is_lowercase() {
                    named.insert(module);
                }
            }
        }
    }
    named
}

fn core_graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for path in rust_files(&workspace().join("core/src")) {
        let module = core_module(&path).unwrap();
        if module == "lib" {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap();
        let mut named = named_modules(&text);
        named.remove(&module);
        graph.entry(module).or_default().extend(named);
    }
    graph
}

#[test]
fn no_model_imports_the_panels_layer() {
    let importers: Vec<String> = core_graph()
        .into_iter()
        .filter(|(module, named)| module != "panels" && named.contains("panels"))
        .map(|(module, _)| module)
        .collect();
    assert!(
        importers.is_empty(),
        "models that import panels: {importers:?}"
    );
}

#[test]
fn the_core_modules_form_no_cycle() {
    let graph = core_graph();
    // Depth-first search; a module met again while on the path closes a cycle.
    fn visit(
        module: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|m| m == module) {
            let mut cycle = path[start..].to_vec();
            cycle.push(module.to_string());
            return Some(cycle);
        }
        if !done.insert(module.to_string()) {
            return None;
        }
        path.push(module.to_string());
        for next in graph.get(module).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    for module in graph.keys() {
        let cycle = visit(module, &graph, &mut Vec::new(), &mut done);
        assert!(cycle.is_none(), "a cycle: {}", cycle.unwrap().join(" → "));
    }
}

#[test]
fn no_file_is_over_900_lines() {
    let long: Vec<String> = sources()
        .into_iter()
        .filter(|(_, text)| text.lines().count() > MOST_FILE_LINES)
        .map(|(name, text)| format!("{name}: {}", text.lines().count()))
        .collect();
    assert!(
        long.is_empty(),
        "files over {MOST_FILE_LINES} lines: {long:#?}"
    );
}

/// Each function's name and length in lines, from its `fn` line to the
/// brace that closes it at the same indentation (as rustfmt writes it).
fn functions(text: &str) -> Vec<(String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    for (start, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let Some(at) = trimmed.find("fn ") else {
            continue;
        };
        let before = &trimmed[..at];
        let is_declaration = before
            .split_whitespace()
            .all(|word| ["pub", "pub(crate)", "const", "async", "unsafe"].contains(&word));
        if !is_declaration || trimmed.ends_with(';') {
            continue;
        }
        let indent = &line[..line.len() - trimmed.len()];
        let closing = format!("{indent}}}");
        let end = lines[start..].iter().position(|l| *l == closing);
        let name: String = trimmed[at + 3..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if let Some(end) = end {
            found.push((name, end + 1));
        }
    }
    found
}

#[test]
fn no_function_is_over_100_lines() {
    let mut long = Vec::new();
    for (file, text) in sources() {
        for (name, length) in functions(&text) {
            if length > MOST_FUNCTION_LINES {
                long.push(format!("{file}: {name}, {length} lines"));
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions over {MOST_FUNCTION_LINES} lines: {long:#?}"
    );
}

#[test]
fn no_two_public_types_share_a_name() {
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    let mut shared = Vec::new();
    for path in rust_files(&workspace().join("core/src")) {
        let text = fs::read_to_string(&path).unwrap();
        for line in code_lines(&text) {
            let words: Vec<&str> = line.split_whitespace().collect();
            let [pub_, kind, name, ..] = words[..] else {
                continue;
            };
            if pub_ != "pub" || !["struct", "enum", "trait", "type"].contains(&kind) {
                continue;
            }
            let name: String = name
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if name.is_empty() {
                continue;
            }
            let file = path.display().to_string();
            if let Some(first) = seen.insert(name.clone(), file.clone()) {
                shared.push(format!("{name}: {first} and {file}"));
            }
        }
    }
    assert!(
        shared.is_empty(),
        "public types that share a name: {shared:#?}"
    );
}
