//! The workspace's shape holds (issues 16 and 47): no module imports another in a circle, in any
//! crate; the harness's imports run one way, down its stage order (`STAGES`, as
//! docs/ARCHITECTURE.md draws it); and the reference gate's crate depends on no harness crate, so
//! it cannot see a fixture. Imports are read as Rust parses them (`syn`): every `use` tree
//! (grouped, nested, `super::`, `self::`, `crate::`, `gatebench::`), every path in code and every
//! `crate::`/`super::` path inside a macro's tokens.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

/// The harness's stages, earliest first: a module may import its own stage, the stages of its
/// own layer and those of earlier layers, never a later one. Each name is a top-level module of
/// `src/` (the crate root files `lib.rs` and `main.rs` declare everything and are exempt).
/// docs/ARCHITECTURE.md ("Processing stages") draws the same order.
const STAGES: &[&[&str]] = &[
    // Crate-root utilities: errors and exit codes, ids, reading and writing files.
    &["exit_code", "error", "ids", "input", "atomic"],
    // Fixtures and scenarios, and a run's share of the selection.
    &["corpus", "shard"],
    // A trial's repository; scoring's types and arithmetic (neither imports the other).
    &["repo", "score"],
    // Generated mutants of the goldens.
    &["mutate"],
    // The systems under test, round by round.
    &["pipeline"],
    // What a run leaves, and the schemas published from its types.
    &["output", "schema"],
    // A run end to end, and the ways to redo one.
    &["run"],
    // The binary's command line.
    &["cli"],
];

/// One source file: its path from the workspace root (for messages), its module path inside its
/// crate (`score/rate.rs` is `["score", "rate"]`, `lib.rs` is `[]`), and its text.
struct Source {
    file: String,
    module: Vec<String>,
    text: String,
}

/// One module naming another: where (file and line) and which modules.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Edge {
    from: String,
    to: String,
    file: String,
    line: usize,
}

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
/// is `score`, `lib.rs` and `main.rs` are the crate root.
fn module_of(file: &str) -> Vec<String> {
    let rel = file.split_once("src/").map_or(file, |(_, rel)| rel);
    let mut parts: Vec<String> = rel
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_owned)
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// Every source file of one crate's `src`, read.
fn sources(src: &Path) -> Vec<Source> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    files
        .into_iter()
        .map(|f| {
            let file = f.strip_prefix(root()).unwrap().display().to_string();
            Source {
                module: module_of(&file),
                text: std::fs::read_to_string(&f).unwrap(),
                file,
            }
        })
        .collect()
}

fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Meta>()
                .is_ok_and(|m| m.path().is_ident("test"))
    })
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    use syn::Item;
    match item {
        Item::Const(i) => &i.attrs,
        Item::Enum(i) => &i.attrs,
        Item::ExternCrate(i) => &i.attrs,
        Item::Fn(i) => &i.attrs,
        Item::ForeignMod(i) => &i.attrs,
        Item::Impl(i) => &i.attrs,
        Item::Macro(i) => &i.attrs,
        Item::Mod(i) => &i.attrs,
        Item::Static(i) => &i.attrs,
        Item::Struct(i) => &i.attrs,
        Item::Trait(i) => &i.attrs,
        Item::TraitAlias(i) => &i.attrs,
        Item::Type(i) => &i.attrs,
        Item::Union(i) => &i.attrs,
        Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

/// A path as written (`super::b::f`), the line of its first name.
type Written = (Vec<String>, usize);

/// Collects every path a file writes, with the module it is written in (inline modules
/// included); skips what only tests compile (`#[cfg(test)]` items, such as `mod tests`).
struct Paths {
    module: Vec<String>,
    found: Vec<(Vec<String>, Written)>,
    /// Child modules declared `#[cfg(test)] mod name;`: their files are test code too.
    test_modules: Vec<Vec<String>>,
}

impl Paths {
    fn add(&mut self, segments: Vec<String>, line: usize) {
        self.found.push((self.module.clone(), (segments, line)));
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        use syn::UseTree;
        match tree {
            UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            UseTree::Name(n) => self.use_name(prefix, &n.ident),
            UseTree::Rename(r) => self.use_name(prefix, &r.ident),
            UseTree::Glob(g) => {
                let line = g.star_token.spans[0].start().line;
                self.add(prefix.clone(), line);
            }
            UseTree::Group(g) => {
                for tree in &g.items {
                    self.use_tree(prefix, tree);
                }
            }
        }
    }

    fn use_name(&mut self, prefix: &[String], ident: &syn::Ident) {
        let mut path = prefix.to_vec();
        // `use a::{self, b}`: `self` names `a` itself.
        if ident != "self" || path.is_empty() {
            path.push(ident.to_string());
        }
        self.add(path, ident.span().start().line);
    }

    /// `crate::a::b`, `super::a`, `self::a`, `gatebench::a` inside a macro's tokens (`$crate::a`
    /// too): macros are not parsed, their tokens are read.
    fn tokens(&mut self, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < trees.len() {
            match &trees[i] {
                TokenTree::Group(g) => self.tokens(g.stream()),
                TokenTree::Ident(id)
                    if ["crate", "super", "self", "gatebench"]
                        .contains(&id.to_string().as_str()) =>
                {
                    let line = id.span().start().line;
                    let mut path = vec![id.to_string()];
                    while let (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b))) =
                        (trees.get(i + 1), trees.get(i + 2))
                    {
                        let Some(TokenTree::Ident(next)) = trees.get(i + 3) else {
                            break;
                        };
                        if a.as_char() != ':' || b.as_char() != ':' {
                            break;
                        }
                        path.push(next.to_string());
                        i += 3;
                    }
                    if path.len() > 1 {
                        self.add(path, line);
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }
}

impl<'ast> Visit<'ast> for Paths {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if !is_cfg_test(item_attrs(item)) {
            syn::visit::visit_item(self, item);
        } else if let syn::Item::Mod(m) = item {
            let mut module = self.module.clone();
            module.push(m.ident.to_string());
            self.test_modules.push(module);
        }
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        self.module.push(m.ident.to_string());
        syn::visit::visit_item_mod(self, m);
        self.module.pop();
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &u.tree);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if let Some(first) = path.segments.first() {
            let segments = path.segments.iter().map(|s| s.ident.to_string()).collect();
            self.add(segments, first.ident.span().start().line);
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.tokens(mac.tokens.clone());
        syn::visit::visit_macro(self, mac);
    }
}

/// The module a written path names, as an absolute path (not yet cut to a file's module), or
/// `None` for another crate's path or a local item. `crate_name` is how other targets of the same
/// package name this crate (`gatebench` for the harness's binary).
fn absolute(
    context: &[String],
    path: &[String],
    modules: &BTreeSet<Vec<String>>,
    crate_name: &str,
) -> Option<Vec<String>> {
    let first = path.first()?.as_str();
    let (mut base, rest) = match first {
        "crate" | "$crate" => (Vec::new(), &path[1..]),
        name if name == crate_name => (Vec::new(), &path[1..]),
        "self" => (context.to_vec(), &path[1..]),
        "super" => {
            let supers = path.iter().take_while(|s| *s == "super").count();
            let keep = context.len().checked_sub(supers)?;
            (context[..keep].to_vec(), &path[supers..])
        }
        // A child module named without `self::` (`pub use dispatch::main;`).
        name => {
            let mut child = context.to_vec();
            child.push(name.to_owned());
            if !modules.contains(&child) {
                return None;
            }
            (context.to_vec(), path)
        }
    };
    base.extend(rest.iter().cloned());
    Some(base)
}

/// The import graph of one crate, read from its sources: an edge for every path that names
/// another module's file (the longest module path it starts with). A module naming its own
/// ancestor (a parent's re-export) is no edge: the parent is the namespace it lives in.
fn edges(sources: &[Source], crate_name: &str) -> Result<Vec<Edge>, String> {
    let modules: BTreeSet<Vec<String>> = sources.iter().map(|s| s.module.clone()).collect();
    let mut test_only = BTreeSet::new();
    let mut found = Vec::new();
    for source in sources {
        let file = syn::parse_file(&source.text).map_err(|e| {
            let at = e.span().start();
            format!("{}:{}: not Rust: {e}", source.file, at.line)
        })?;
        let mut paths = Paths {
            module: source.module.clone(),
            found: Vec::new(),
            test_modules: Vec::new(),
        };
        paths.visit_file(&file);
        test_only.extend(paths.test_modules);
        found.push((source, paths.found));
    }
    let mut out = BTreeSet::new();
    for (source, paths) in found {
        let under_test = test_only.iter().any(|t| source.module.starts_with(t));
        if under_test {
            continue;
        }
        for (context, (path, line)) in paths {
            let Some(target) = absolute(&context, &path, &modules, crate_name) else {
                continue;
            };
            let Some(to) = (1..=target.len())
                .rev()
                .map(|n| &target[..n])
                .find(|m| modules.contains(*m))
            else {
                continue;
            };
            if source.module.starts_with(to) {
                continue;
            }
            out.insert(Edge {
                from: source.module.join("::"),
                to: to.join("::"),
                file: source.file.clone(),
                line,
            });
        }
    }
    Ok(out.into_iter().collect())
}

/// Every circle among modules, one message each: the modules of a strongly connected component,
/// and one path around it with the file and line of each import.
fn circles(edges: &[Edge]) -> Vec<String> {
    let mut graph: BTreeMap<&str, BTreeMap<&str, &Edge>> = BTreeMap::new();
    for e in edges {
        graph
            .entry(e.from.as_str())
            .or_default()
            .entry(e.to.as_str())
            .or_insert(e);
        graph.entry(e.to.as_str()).or_default();
    }
    let mut out = Vec::new();
    for component in components(&graph) {
        if component.len() < 2 {
            continue;
        }
        let start = component[0];
        let around = path_back(&graph, &component, start);
        let steps: Vec<String> = around
            .iter()
            .map(|e| format!("{} imports {} ({}:{})", e.from, e.to, e.file, e.line))
            .collect();
        out.push(format!(
            "a circle among {}: {}",
            component.join(", "),
            steps.join(", then ")
        ));
    }
    out
}

/// The strongly connected components of `graph` (Tarjan), each sorted.
fn components<'a>(graph: &BTreeMap<&'a str, BTreeMap<&'a str, &Edge>>) -> Vec<Vec<&'a str>> {
    struct State<'a, 'g> {
        graph: &'g BTreeMap<&'a str, BTreeMap<&'a str, &'g Edge>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<Vec<&'a str>>,
    }
    fn visit<'a>(s: &mut State<'a, '_>, v: &'a str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        for &w in s.graph[v].keys() {
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
                component.push(w);
                if w == v {
                    break;
                }
            }
            component.sort();
            s.out.push(component);
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
    for &v in graph.keys() {
        if !state.index.contains_key(v) {
            visit(&mut state, v);
        }
    }
    state.out
}

/// The shortest way from `start` back to itself inside `component` (breadth first), as edges.
fn path_back<'g>(
    graph: &BTreeMap<&str, BTreeMap<&str, &'g Edge>>,
    component: &[&str],
    start: &str,
) -> Vec<&'g Edge> {
    let mut came_by: BTreeMap<&str, &Edge> = BTreeMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for (&w, &edge) in &graph[v] {
            if !component.contains(&w) || came_by.contains_key(w) {
                continue;
            }
            came_by.insert(w, edge);
            if w == start {
                let mut path = vec![edge];
                let mut at = edge.from.as_str();
                while at != start {
                    let e = came_by[at];
                    path.push(e);
                    at = &e.from;
                }
                path.reverse();
                return path;
            }
            queue.push_back(w);
        }
    }
    Vec::new()
}

/// The layer of `STAGES` a module's stage is in (`None` for the crate root and unknown stages).
fn layer_of(module: &str) -> Option<usize> {
    let stage = module.split("::").next()?;
    STAGES.iter().position(|layer| layer.contains(&stage))
}

/// Every import against the stage order, one message each, naming the file and the line.
fn back_imports(edges: &[Edge]) -> Vec<String> {
    edges
        .iter()
        .filter_map(|e| {
            let (from, to) = (layer_of(&e.from)?, layer_of(&e.to)?);
            (to > from).then(|| {
                format!(
                    "{}:{}: {} imports {}, a later stage (tests/it/architecture.rs STAGES)",
                    e.file, e.line, e.from, e.to
                )
            })
        })
        .collect()
}

/// Every top-level module of the harness is a stage of `STAGES` (a new one must be placed).
fn unplaced(sources: &[Source]) -> Vec<String> {
    sources
        .iter()
        .filter_map(|s| s.module.first())
        .filter(|stage| !STAGES.iter().any(|layer| layer.contains(&stage.as_str())))
        .map(|stage| format!("src/{stage}: not in STAGES"))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

fn crate_sources() -> Vec<PathBuf> {
    let mut out = vec![root().join("src")];
    for entry in std::fs::read_dir(root().join("crates")).unwrap() {
        out.push(entry.unwrap().path().join("src"));
    }
    out
}

/// How the crate in `src` names itself from its other targets.
fn crate_name(src: &Path) -> String {
    if src == root().join("src") {
        return "gatebench".into();
    }
    let name = src.parent().unwrap().file_name().unwrap().to_string_lossy();
    format!("gatebench_{name}")
}

#[test]
fn no_module_of_the_workspace_imports_another_in_a_circle() {
    let mut read = 0;
    for src in crate_sources() {
        let sources = sources(&src);
        let edges = edges(&sources, &crate_name(&src)).unwrap();
        read += edges.len();
        let found = circles(&edges);
        assert!(found.is_empty(), "{}", found.join("\n"));
    }
    assert!(read > 300, "only {read} imports read");
}

#[test]
fn the_harness_imports_run_down_the_stage_order() {
    let sources = sources(&root().join("src"));
    assert_eq!(unplaced(&sources), Vec::<String>::new());
    let edges = edges(&sources, "gatebench").unwrap();
    // Imports the reader must see: grouped (`shard::{self, ShardInfo}`), in a group of
    // subcommands, through `super::`.
    for (from, to) in [
        ("run::execute", "shard"),
        ("cli::dispatch", "cli::run"),
        ("cli::dispatch", "cli::stdout"),
    ] {
        assert!(
            edges.iter().any(|e| e.from == from && e.to == to),
            "{from} -> {to} not read"
        );
    }
    let found = back_imports(&edges);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// A crate's sources given as text, for the checks' own tests.
fn planted(files: &[(&str, &str)]) -> Vec<Edge> {
    let sources: Vec<Source> = files
        .iter()
        .map(|(file, text)| Source {
            file: (*file).into(),
            module: module_of(file),
            text: (*text).into(),
        })
        .collect();
    edges(&sources, "gatebench").unwrap()
}

#[test]
fn a_planted_circle_fails_with_both_files_and_lines() {
    let edges = planted(&[
        ("src/lib.rs", "pub mod run;\n"),
        ("src/run/mod.rs", "pub mod a;\npub mod b;\npub mod c;\n"),
        // Grouped and nested, through `super::`: the first name is not what is imported.
        (
            "src/run/a.rs",
            "use super::{\n    c::X,\n    b::{self, Y},\n};\n",
        ),
        // An inline path in code, in a function.
        ("src/run/b.rs", "pub fn f() {\n    crate::run::c::g();\n}\n"),
        // Inside a macro's tokens; and a test module, which may import anything.
        (
            "src/run/c.rs",
            "pub fn g() {\n    \
             println!(\"{}\", super::a::Z);\n}\n\
             #[cfg(test)]\nmod tests {\n    use crate::run::b::f;\n}\n",
        ),
    ]);
    let to = |from: &str| -> Vec<(&str, usize)> {
        edges
            .iter()
            .filter(|e| e.from == from)
            .map(|e| (e.to.as_str(), e.line))
            .collect()
    };
    assert_eq!(to("run::a"), [("run::b", 3), ("run::c", 2)]);
    assert_eq!(to("run::b"), [("run::c", 2)]);
    assert_eq!(to("run::c"), [("run::a", 2)]);
    let found = circles(&edges);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        found[0],
        "a circle among run::a, run::b, run::c: run::a imports run::c (src/run/a.rs:2), \
         then run::c imports run::a (src/run/c.rs:2)"
    );
}

#[test]
fn a_planted_back_import_fails_with_its_file_and_line() {
    let edges = planted(&[
        (
            "src/lib.rs",
            "pub mod corpus;\npub mod error;\npub mod run;\n",
        ),
        ("src/error.rs", "pub struct Error;\n"),
        ("src/run/mod.rs", "pub mod options;\n"),
        (
            "src/run/options.rs",
            "use crate::corpus::Fixture;\npub struct RunOptions;\n",
        ),
        (
            "src/corpus/mod.rs",
            "mod thing;\npub use thing::Thing;\npub struct Fixture;\n",
        ),
        (
            "src/corpus/thing.rs",
            "use crate::{\n    error::Error,\n    run::{options::RunOptions},\n};\n",
        ),
    ]);
    assert_eq!(
        back_imports(&edges),
        [
            "src/corpus/thing.rs:3: corpus::thing imports run::options, a later stage \
          (tests/it/architecture.rs STAGES)"
        ]
    );
    assert_eq!(circles(&edges).len(), 1, "corpus -> run -> corpus");
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
    let allowed = [
        "gatebench-report",
        "gatebench-process",
        "gatebench-gittree",
        "gatebench-lang",
        "gatebench-suite",
    ];
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
        .filter(|f| !f.starts_with("tests/it/common") && !page.contains(&format!("`{f}`")))
        .collect();
    assert!(files.len() > 100, "only {} files found", files.len());
    assert_eq!(
        missing,
        Vec::<String>::new(),
        "files without a line in docs/ARCHITECTURE.md"
    );
}

/// The production part of a source file: its lines up to the first `#[cfg(test)]` item. Files
/// that are test modules themselves (`tests.rs`, `testutil.rs`, `*_tests.rs`) have none.
fn production_lines(file: &str, parsed: &syn::File) -> usize {
    let name = file.rsplit('/').next().unwrap_or(file);
    if name == "tests.rs" || name == "testutil.rs" || name.ends_with("_tests.rs") {
        return 0;
    }
    use syn::spanned::Spanned;
    parsed
        .items
        .iter()
        .find(|item| is_cfg_test(item_attrs(item)))
        .map(|item| {
            let attr_line = item_attrs(item)
                .first()
                .map(|a| a.span().start().line)
                .unwrap_or_else(|| item.span().start().line);
            attr_line - 1
        })
        .unwrap_or_else(|| parsed.span().end().line)
}

/// Every function outside test modules, with its length in lines (signature to closing brace).
struct LongFunctions<'a> {
    file: &'a str,
    found: Vec<(usize, String)>,
}

impl<'ast> syn::visit::Visit<'ast> for LongFunctions<'_> {
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        if !is_cfg_test(&item.attrs) {
            syn::visit::visit_item_mod(self, item);
        }
    }
    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        self.note(&item.sig.ident, item.sig.fn_token.span, &item.block);
        syn::visit::visit_item_fn(self, item);
    }
    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        self.note(&item.sig.ident, item.sig.fn_token.span, &item.block);
        syn::visit::visit_impl_item_fn(self, item);
    }
}

impl LongFunctions<'_> {
    fn note(&mut self, name: &syn::Ident, start: proc_macro2::Span, block: &syn::Block) {
        let lines = block.brace_token.span.close().end().line - start.start().line + 1;
        if lines > MAX_FUNCTION_LINES {
            self.found
                .push((lines, format!("{}: {name} ({lines} lines)", self.file)));
        }
    }
}

const MAX_FILE_LINES: usize = 800;
const MAX_FUNCTION_LINES: usize = 100;
/// Functions over `MAX_FUNCTION_LINES` the workspace may still hold (issue 47: at most 10; 6 at
/// the time, all in the gate crate). Lower it as they are split; never raise it.
const LONG_FUNCTIONS_ALLOWED: usize = 6;

/// No production file over 800 lines, and no more long functions than there were: the two sizes
/// issue 47 brought down stay down.
#[test]
fn production_files_and_functions_stay_small() {
    let mut big_files = Vec::new();
    let mut long = Vec::new();
    for src in crate_sources() {
        for source in sources(&src) {
            let parsed = syn::parse_file(&source.text).unwrap();
            let lines = production_lines(&source.file, &parsed);
            if lines > MAX_FILE_LINES {
                big_files.push(format!("{}: {lines} production lines", source.file));
            }
            if lines == 0 {
                continue;
            }
            let mut visitor = LongFunctions {
                file: &source.file,
                found: Vec::new(),
            };
            syn::visit::Visit::visit_file(&mut visitor, &parsed);
            long.extend(visitor.found);
        }
    }
    long.sort();
    assert_eq!(
        big_files,
        Vec::<String>::new(),
        "production files over {MAX_FILE_LINES} lines (move tests out, or split by concern)"
    );
    let names: Vec<&String> = long.iter().map(|(_, name)| name).collect();
    assert!(
        long.len() <= LONG_FUNCTIONS_ALLOWED,
        "{} functions over {MAX_FUNCTION_LINES} lines, {LONG_FUNCTIONS_ALLOWED} allowed: {names:#?}",
        long.len()
    );
    // The count is not only a ceiling: the walk must see the ones known to be there.
    assert!(
        names.iter().any(|n| n.contains("verify_loop.rs: round")),
        "{names:#?}"
    );
}
