//! The shape of the source tree, checked so that it stays easy to read: the
//! two layers of the core and of the fleet crate (models never import the
//! panels layer), no import loop among the files of any folder of any
//! crate, one public type to a name, and no file or function too long to
//! take in at once.

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
    ["core", "fleet", "cli", "js", "src", "tests"]
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

/// Each crate's source folder, from the workspace's members.
fn crate_sources() -> Vec<PathBuf> {
    let manifest = fs::read_to_string(workspace().join("Cargo.toml")).unwrap();
    let members = manifest
        .lines()
        .find_map(|line| line.trim().strip_prefix("members = "))
        .expect("a members line");
    members
        .split('"')
        .skip(1)
        .step_by(2)
        .map(|member| workspace().join(member).join("src"))
        .collect()
}

/// A crate's files, as paths below its source folder with their text.
fn crate_files(src: &Path) -> Vec<(String, String)> {
    rust_files(src)
        .into_iter()
        .map(|path| {
            let name = path.strip_prefix(src).unwrap().display().to_string();
            (name, fs::read_to_string(&path).unwrap())
        })
        .collect()
}

/// The module a file holds: `["systemd", "calendar"]` for
/// `systemd/calendar.rs`, `["systemd"]` for `systemd/mod.rs`, none for a
/// crate root (`lib.rs`, `main.rs` or a binary's `*_main.rs`).
fn module_of(file: &str) -> Vec<String> {
    let mut parts: Vec<String> = file
        .trim_end_matches(".rs")
        .split('/')
        .map(String::from)
        .collect();
    let last = parts.last().unwrap().as_str();
    if last == "mod"
        || (parts.len() == 1 && (["lib", "main"].contains(&last) || last.ends_with("_main")))
    {
        parts.pop();
    }
    parts
}

/// The code of `text` a module's imports are read from: no comments, no
/// re-exports (a folder's face hands names on, it does not use them) and
/// no inline test module.
fn import_code(text: &str) -> String {
    let mut code = String::new();
    let mut lines = code_lines(text).peekable();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if trimmed == "#[cfg(test)]"
            && lines
                .peek()
                .is_some_and(|next| next.trim_start().starts_with("mod ") && next.ends_with('{'))
        {
            break;
        }
        code.push_str(line);
        code.push('\n');
    }
    let mut kept = String::new();
    for statement in code.split_inclusive(';') {
        let is_reexport = statement
            .trim_start()
            .strip_prefix("pub")
            .is_some_and(|rest| {
                rest.split_once("use ").is_some_and(|(before, _)| {
                    before.trim().is_empty() || before.trim().starts_with('(')
                })
            });
        if !is_reexport {
            kept.push_str(statement);
        }
    }
    kept
}

/// Every path a `use` tree names, with its braces expanded:
/// `a::{b, c::{d, e}}` is `a::b`, `a::c::d` and `a::c::e`.
fn use_paths(tree: &str) -> Vec<String> {
    let tree: String = tree.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(open) = tree.find('{') else {
        return vec![tree.split(" as ").next().unwrap().to_string()];
    };
    let (prefix, group) = (&tree[..open], &tree[open + 1..tree.len() - 1]);
    let mut items = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (at, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&group[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    items.push(&group[start..]);
    items
        .into_iter()
        .filter(|item| !item.is_empty())
        .flat_map(use_paths)
        .map(|path| match path.as_str() {
            "self" => prefix.trim_end_matches("::").to_string(),
            _ => format!("{prefix}{path}"),
        })
        .collect()
}

/// The paths `code` names: those of its `use` trees, and the ones its
/// expressions spell from `crate::`, `super::` or `self::`.
fn named_paths(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    for statement in code.split(';') {
        // A `use` opens its line (after any indentation).
        let at = statement
            .match_indices("use ")
            .map(|(at, _)| at)
            .find(|&at| {
                statement[..at].ends_with(['\n', ' '])
                    && statement[..at].trim_end_matches(' ').ends_with('\n')
                    || statement[..at].trim().is_empty()
            });
        if let Some(at) = at {
            let tree = statement[at + 4..].split(" as ").next().unwrap();
            paths.extend(use_paths(tree));
        }
    }
    for root in ["crate::", "super::", "self::"] {
        for (at, _) in code.match_indices(root) {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let path: String = code[at..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            paths.push(path.trim_end_matches(':').to_string());
        }
    }
    paths
}

/// The file `path`, named in the module `from`, leads to: the deepest
/// module of the crate it goes through.
fn resolve<'a>(
    from: &[String],
    path: &str,
    modules: &'a BTreeMap<Vec<String>, String>,
) -> Option<&'a String> {
    let mut segments = path.split("::").filter(|s| !s.is_empty()).peekable();
    let mut module: Vec<String> = match *segments.peek()? {
        "crate" => {
            segments.next();
            Vec::new()
        }
        "self" => {
            segments.next();
            from.to_vec()
        }
        "super" => {
            let mut module = from.to_vec();
            while segments.next_if_eq(&"super").is_some() {
                module.pop()?;
            }
            module
        }
        first => {
            // A child module named without `self::`.
            let mut child = from.to_vec();
            child.push(first.to_string());
            if !modules.contains_key(&child) {
                return None;
            }
            from.to_vec()
        }
    };
    for segment in segments {
        module.push(segment.to_string());
        if !modules.contains_key(&module) {
            module.pop();
            break;
        }
    }
    modules.get(&module)
}

/// Which files of one crate import which: `(importer, imported)`, by
/// paths below its source folder.
fn imports(files: &[(String, String)]) -> BTreeSet<(String, String)> {
    let modules: BTreeMap<Vec<String>, String> = files
        .iter()
        .map(|(file, _)| (module_of(file), file.clone()))
        .collect();
    let mut edges = BTreeSet::new();
    for (file, text) in files {
        let from = module_of(file);
        for path in named_paths(&import_code(text)) {
            if let Some(to) = resolve(&from, &path, &modules)
                && to != file
            {
                edges.insert((file.clone(), to.clone()));
            }
        }
    }
    edges
}

/// What `file` is within `folder`: itself when it sits there, the
/// subfolder that holds it when deeper, none when outside or when it is
/// the folder's own module (`mod.rs`, or a crate root such as `lib.rs`),
/// which declares the others: they may use what it defines, and it may
/// use them.
fn room(folder: &str, file: &str) -> Option<String> {
    let inside = match folder {
        "" => file,
        _ => file.strip_prefix(folder)?.strip_prefix('/')?,
    };
    if inside == "mod.rs" || module_of(file).is_empty() {
        return None;
    }
    Some(match inside.split_once('/') {
        Some((subfolder, _)) => format!("{subfolder}/"),
        None => inside.to_string(),
    })
}

/// The loops of `graph`: each set of two or more nodes that all reach
/// one another, in order.
fn loops_in(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let reach = |from: &String| {
        let mut seen = BTreeSet::new();
        let mut next: Vec<&String> = graph.get(from).into_iter().flatten().collect();
        while let Some(node) = next.pop() {
            if seen.insert(node.clone()) {
                next.extend(graph.get(node).into_iter().flatten());
            }
        }
        seen
    };
    let reached: BTreeMap<&String, BTreeSet<String>> =
        graph.keys().map(|node| (node, reach(node))).collect();
    let mut loops: Vec<Vec<String>> = Vec::new();
    for (node, from_it) in &reached {
        let together: Vec<String> = from_it
            .iter()
            .filter(|other| reached.get(other).is_some_and(|back| back.contains(*node)))
            .cloned()
            .collect();
        if together.len() > 1 && !loops.contains(&together) {
            loops.push(together);
        }
    }
    loops
}

/// The import loops among the files and subfolders of each folder of one
/// crate, one line a loop: `systemd/: calendar.rs, elapse.rs`.
fn folder_loops(files: &[(String, String)]) -> Vec<String> {
    let mut folders: BTreeSet<String> = BTreeSet::new();
    for (file, _) in files {
        let mut folder = Path::new(file).parent();
        while let Some(dir) = folder {
            folders.insert(dir.display().to_string());
            folder = dir.parent();
        }
    }
    // `chart.rs` beside `chart/` is that folder's `mod.rs`.
    let in_folder = |file: &String| match file.strip_suffix(".rs") {
        Some(module) if folders.contains(module) => format!("{module}/mod.rs"),
        _ => file.clone(),
    };
    let edges: BTreeSet<(String, String)> = imports(files)
        .into_iter()
        .map(|(from, to)| (in_folder(&from), in_folder(&to)))
        .collect();
    let mut loops = Vec::new();
    for folder in &folders {
        let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (from, to) in &edges {
            if let (Some(from), Some(to)) = (room(folder, from), room(folder, to))
                && from != to
            {
                graph.entry(from).or_default().insert(to);
            }
        }
        for found in loops_in(&graph) {
            let shown = Path::new(folder).join("");
            loops.push(format!("{}: {}", shown.display(), found.join(", ")));
        }
    }
    loops
}

/// The loops that stand today outside the fleet, each to be undone by
/// moving what both files need below them. Listed so that no other loop
/// comes in, and a loop undone leaves the list.
const STANDING_LOOPS: &[&str] = &[
    "src/: controls.rs, notices.rs",
    "src/: learn.rs, panels/",
    "core/src/arrivals/: calendar.rs, parse.rs",
    "core/src/arrivals/: diagnosis.rs, words.rs",
    "core/src/backoff/: delays.rs, fleet/",
    "core/src/backoff/: flip.rs, verdict.rs",
    "core/src/backoff/fleet/: interacting.rs, shared.rs",
    "core/src/panels/: learn/, state.rs",
];

#[test]
fn no_folder_of_any_crate_has_an_import_loop() {
    let mut loops = Vec::new();
    for src in crate_sources() {
        let name = src.strip_prefix(workspace()).unwrap().display().to_string();
        for found in folder_loops(&crate_files(&src)) {
            loops.push(format!("{name}/{found}"));
        }
    }
    assert_eq!(loops, STANDING_LOOPS, "import loops");
}

/// A made-up crate from `(file, text)` pairs.
fn tiny(files: &[(&str, &str)]) -> Vec<(String, String)> {
    files
        .iter()
        .map(|(file, text)| (file.to_string(), text.to_string()))
        .collect()
}

#[test]
fn a_loop_among_the_files_of_one_folder_is_found() {
    // The shape the schedulers had: a scheduler takes its units back from
    // the dispatcher that calls it.
    let files = tiny(&[
        ("lib.rs", "pub mod cron;\npub mod plan;\n"),
        ("plan.rs", "use crate::cron::Schedule;\n"),
        ("cron.rs", "use super::plan::{Window, MICROS_PER_SECOND};\n"),
    ]);
    assert_eq!(folder_loops(&files), [": cron.rs, plan.rs"]);
    // Every loop of a folder, each once.
    let files = tiny(&[
        ("lib.rs", ""),
        ("a.rs", "use crate::b::B;\n"),
        ("b.rs", "use crate::c::C;\n"),
        ("c.rs", "use crate::a::A;\n"),
        ("d.rs", "use super::e::E;\n"),
        ("e.rs", "fn f() {\n    super::d::g();\n}\n"),
    ]);
    assert_eq!(folder_loops(&files), [": a.rs, b.rs, c.rs", ": d.rs, e.rs"]);
    // Deeper, and through a subfolder seen from its parent.
    let files = tiny(&[
        ("lib.rs", "pub mod systemd;\npub mod time;\n"),
        ("time.rs", "fn f() { crate::systemd::calendar::parse(); }\n"),
        ("systemd/mod.rs", "pub mod calendar;\npub mod elapse;\n"),
        (
            "systemd/calendar.rs",
            "use super::elapse::Walk;\nuse crate::time;\n",
        ),
        (
            "systemd/elapse.rs",
            "use super::{calendar::{self, Spec}};\n",
        ),
    ]);
    assert_eq!(
        folder_loops(&files),
        [": systemd/, time.rs", "systemd/: calendar.rs, elapse.rs"]
    );
}

#[test]
fn a_chain_a_face_and_a_test_module_make_no_loop() {
    let files = tiny(&[
        (
            "lib.rs",
            "pub mod cron;\npub mod plan;\npub mod time;\npub use plan::LinePlan;\n",
        ),
        (
            "plan.rs",
            "use crate::{cron, time::Window};\nuse crate::LinePlan;\n",
        ),
        (
            "cron.rs",
            "// use crate::plan;\nuse crate::time::Window;\n#[cfg(test)]\nmod tests {\n    use crate::plan::LinePlan;\n}\n",
        ),
        ("time.rs", "pub struct Window;\n"),
    ]);
    assert_eq!(folder_loops(&files), Vec::<String>::new());
    // A folder's own module and a file it declares.
    let folder = tiny(&[
        ("lib.rs", "pub mod systemd;\n"),
        (
            "systemd/mod.rs",
            "mod calendar;\nuse calendar::Spec;\npub struct Timer;\n",
        ),
        ("systemd/calendar.rs", "use super::Timer;\n"),
    ]);
    assert_eq!(folder_loops(&folder), Vec::<String>::new());
    let edges = imports(&files);
    assert!(edges.contains(&("plan.rs".into(), "cron.rs".into())));
    assert!(edges.contains(&("plan.rs".into(), "lib.rs".into())));
    assert!(!edges.contains(&("lib.rs".into(), "plan.rs".into())));
    assert!(!edges.contains(&("cron.rs".into(), "plan.rs".into())));
}

/// The files of a crate outside its panels layer (`panels` in the core,
/// `panel` in the fleet crate) that reach into a panel.
fn models_importing_panels(files: &[(String, String)], layer: &str) -> Vec<String> {
    let in_layer = |file: &str| module_of(file).first().is_some_and(|m| m == layer);
    let mut found: BTreeSet<String> = imports(files)
        .into_iter()
        .filter(|(from, to)| !in_layer(from) && in_layer(to))
        .map(|(from, _)| from)
        .collect();
    for (file, text) in files {
        if !in_layer(file) && import_code(text).contains("stampede_core::panels") {
            found.insert(file.clone());
        }
    }
    found.into_iter().collect()
}

#[test]
fn no_model_imports_the_panels_layer() {
    for (folder, layer) in [("core/src", "panels"), ("fleet/src", "panel")] {
        let files = crate_files(&workspace().join(folder));
        let importers = models_importing_panels(&files, layer);
        assert!(
            importers.is_empty(),
            "models in {folder} that import {layer}: {importers:?}"
        );
    }
    // The check can fail.
    let files = tiny(&[
        ("lib.rs", "pub mod level;\npub mod panel;\n"),
        ("level.rs", "use stampede_core::panels::fleet::FixMethod;\n"),
        ("stability.rs", "fn f() { crate::panel::report(); }\n"),
        ("panel/mod.rs", "pub fn report() {}\n"),
    ]);
    assert_eq!(
        models_importing_panels(&files, "panel"),
        ["level.rs", "stability.rs"]
    );
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
    let files = ["core/src", "fleet/src"]
        .iter()
        .flat_map(|dir| rust_files(&workspace().join(dir)));
    for path in files {
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
