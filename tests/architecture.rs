//! The workspace's shape holds (issue 16): no module imports another in a circle, in any crate,
//! and the reference gate's crate depends on no harness crate, so it cannot see a fixture.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a source file under `src`: `score/rate.rs` is `score::rate`, `score/mod.rs`
/// is `score`, `lib.rs` and `main.rs` are the crate root (``).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts.join("::")
}

/// The code of a file without its comments and its `#[cfg(test)] mod tests` (test modules may
/// import anything of their parent).
fn code_of(text: &str) -> String {
    let text = text.split("#[cfg(test)]\nmod tests").next().unwrap_or("");
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every `crate::a::b::...` path in `code`, as segment lists.
fn crate_paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let boundary = at == 0 || {
            let prev = rest.as_bytes()[at - 1];
            !(prev.is_ascii_alphanumeric() || prev == b'_' || prev == b':')
        };
        rest = &rest[at + "crate::".len()..];
        if !boundary {
            continue;
        }
        let path: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
            .collect();
        out.push(
            path.split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect(),
        );
    }
    out
}

/// The import graph of one crate: module -> modules it names through `crate::`.
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeMap<String, PathBuf> =
        files.into_iter().map(|f| (module_of(src, &f), f)).collect();
    let mut graph = BTreeMap::new();
    for (module, file) in &modules {
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        let mut targets = BTreeSet::new();
        for path in crate_paths(&code) {
            let target = (1..=path.len())
                .rev()
                .map(|n| path[..n].join("::"))
                .find(|m| modules.contains_key(m));
            if let Some(target) = target {
                let inside = module.starts_with(&format!("{target}::"));
                if &target != module && !inside {
                    targets.insert(target);
                }
            }
        }
        graph.insert(module.clone(), targets);
    }
    graph
}

/// The strongly connected components with more than one module (Tarjan).
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.graph.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w.to_owned());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut state = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !state.index.contains_key(v.as_str()) {
            visit(&mut state, v);
        }
    }
    state.out
}

fn crate_sources() -> Vec<PathBuf> {
    let mut out = vec![root().join("src")];
    for entry in std::fs::read_dir(root().join("crates")).unwrap() {
        out.push(entry.unwrap().path().join("src"));
    }
    out
}

#[test]
fn no_module_of_the_workspace_imports_another_in_a_circle() {
    for src in crate_sources() {
        let graph = graph(&src);
        assert!(
            graph.len() > 1 || !src.ends_with("gate/src"),
            "no modules read"
        );
        assert_eq!(
            circles(&graph),
            Vec::<Vec<String>>::new(),
            "{}",
            src.display()
        );
    }
}

#[test]
fn the_circle_finder_finds_a_circle() {
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a", &["b"][..]),
        ("b", &["c"][..]),
        ("c", &["a"][..]),
        ("d", &["a"][..]),
    ]
    .into_iter()
    .map(|(m, to)| (m.into(), to.iter().map(|t| t.to_string()).collect()))
    .collect();
    assert_eq!(circles(&graph), vec![vec!["a", "b", "c"]]);
    let paths = crate_paths("use crate::score::rate::Rate; // crate::x\nfoo_crate::y");
    assert_eq!(paths, vec![vec!["score", "rate", "Rate"], vec!["x"]]);
}

#[test]
fn the_gate_crate_depends_on_no_harness_crate() {
    let manifest = std::fs::read_to_string(root().join("crates/gate/Cargo.toml")).unwrap();
    let dependencies: Vec<&str> = manifest
        .lines()
        .skip_while(|l| l.trim() != "[dependencies]")
        .skip(1)
        .take_while(|l| !l.starts_with('['))
        .filter_map(|l| l.split(['=', '.']).next())
        .map(str::trim)
        .filter(|name| !name.is_empty() && !name.starts_with('#'))
        .collect();
    assert!(
        dependencies.contains(&"gatebench-report"),
        "{dependencies:?}"
    );
    for name in &dependencies {
        assert_ne!(
            *name, "gatebench",
            "the gate must not depend on the harness"
        );
    }
    // What the gate's crates may be: the shared format and helpers, never the harness.
    let allowed = ["gatebench-report", "gatebench-process", "gatebench-gittree"];
    for name in dependencies.iter().filter(|n| n.starts_with("gatebench")) {
        assert!(allowed.contains(name), "the gate depends on {name}");
    }
}

#[test]
fn every_source_file_has_its_line_in_the_architecture_page() {
    let page = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).unwrap();
    let mut files = Vec::new();
    for src in crate_sources() {
        rust_files(&src, &mut files);
    }
    for dir in ["tests", "benches"] {
        rust_files(&root().join(dir), &mut files);
    }
    let missing: Vec<String> = files
        .iter()
        .map(|f| f.strip_prefix(root()).unwrap().display().to_string())
        .filter(|f| !f.starts_with("tests/common") && !page.contains(&format!("`{f}`")))
        .collect();
    assert!(files.len() > 100, "only {} files found", files.len());
    assert_eq!(
        missing,
        Vec::<String>::new(),
        "files without a line in docs/ARCHITECTURE.md"
    );
}
