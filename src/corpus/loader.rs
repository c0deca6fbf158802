//! Loading the fixture corpus: every `fixtures/*/fixture.yaml` parsed strictly, goldens resolved,
//! layers composed into in-memory file trees and every placeholder checked, before anything runs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use regex::Regex;
use sha2::{Digest, Sha256};

use crate::corpus::fixture::{
    ExpectedRounds, FindingMatcher, FixtureFile, Layer, LayerName, LocusEntry,
};
use crate::corpus::paths::check_repo_path;
use crate::corpus::placeholder::{self, Stage};
use crate::corpus::taxonomy::Kind;
use crate::corpus::yaml;
use crate::error::{Error, Position};
use gatebench_report::Verdict;

pub use crate::corpus::files::{Blob, Files};

/// File name suffix that keeps repository-like names (`Cargo.toml`) inert inside this project;
/// it is removed when a fixture is materialized.
pub const DISARM_SUFFIX: &str = ".fixture";

/// A loaded, checked fixture, ready to materialize.
#[derive(Debug, Clone)]
pub struct Fixture {
    pub id: String,
    pub description: String,
    pub category: String,
    pub tags: Vec<String>,
    /// For an omission fixture, the golden it is planted in; `None` for a golden.
    pub golden: Option<String>,
    /// The `fixture.yaml` this came from.
    pub file: PathBuf,
    pub worktree: bool,
    pub states: States,
    pub expect: Expectation,
    pub fixes: Vec<FixState>,
    /// sha256 over everything that determines what is materialized and how it is scored.
    pub content_hash: String,
}

impl Fixture {
    pub fn is_golden(&self) -> bool {
        self.golden.is_none()
    }
}

/// The file trees of each layer, composed.
#[derive(Debug, Clone, Default)]
pub struct States {
    pub base: Files,
    pub head: Files,
    pub staged: Option<Files>,
    pub unstaged: Option<Files>,
}

/// The work tree after a scripted fix, committed on the feature branch.
#[derive(Debug, Clone)]
pub struct FixState {
    pub after_round: u32,
    pub files: Files,
}

#[derive(Debug, Clone)]
pub struct Expectation {
    pub verdict: Verdict,
    /// Omission fixtures: the planted kind (goldens have none).
    pub kind: Option<Kind>,
    /// Omission fixtures: where the omission is (goldens have none).
    pub locus: Vec<LocusEntry>,
    /// Reference-gate matchers: an extra check for the built-in gate only.
    pub findings: Vec<Matcher>,
    pub rounds: Option<ExpectedRounds>,
}

/// A finding matcher with its pattern compiled.
#[derive(Debug, Clone)]
pub struct Matcher {
    pub spec: FindingMatcher,
    pub pattern: Option<Regex>,
}

#[derive(Debug, Default)]
pub struct Corpus {
    /// Sorted by id.
    pub fixtures: Vec<Fixture>,
    /// Generated mutants that could not be made (docs/MUTATION.md), sorted by id: not fixtures,
    /// but a run that generated them records how many its selection holds.
    pub unviable_mutants: Vec<UnviableMutant>,
}

/// A generated mutant that is not a fixture: what a scenario's selection reads of it, and why.
#[derive(Debug, Clone)]
pub struct UnviableMutant {
    pub id: String,
    pub category: String,
    pub tags: Vec<String>,
    pub reason: String,
}

impl Corpus {
    pub fn get(&self, id: &str) -> Option<&Fixture> {
        self.fixtures
            .binary_search_by(|f| f.id.as_str().cmp(id))
            .ok()
            .map(|i| &self.fixtures[i])
    }
}

/// Loads every fixture under `dir`. All problems found are returned, each naming its file.
pub fn load(dir: &Path) -> Result<Corpus, Vec<Error>> {
    let mut errors = Vec::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            return Err(vec![Error::invalid(
                dir,
                format!("the fixtures folder cannot be read: {e}"),
            )])
        }
    };
    let mut folders: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            p.is_dir()
                && !p
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        })
        .collect();
    folders.sort();

    let mut parsed: Vec<(PathBuf, yaml::Parsed<FixtureFile>)> = Vec::new();
    let mut seen: BTreeMap<String, PathBuf> = BTreeMap::new();
    for folder in folders {
        let file = folder.join("fixture.yaml");
        // Anything there (a FIFO, a folder) is read, and refused with what it is.
        if std::fs::symlink_metadata(&file).is_err() {
            errors.push(Error::invalid(
                &folder,
                "a fixture folder must hold a fixture.yaml",
            ));
            continue;
        }
        match yaml::load::<FixtureFile>(&file) {
            Ok(p) => {
                let id = p.value.id.clone();
                if let Some(first) = seen.get(&id) {
                    errors.push(Error::invalid_at(
                        &file,
                        yaml::locate(&p.text, "id", &id),
                        format!(
                            "duplicate fixture id `{id}`: also used by {}",
                            first.display()
                        ),
                    ));
                    continue;
                }
                seen.insert(id, file.clone());
                parsed.push((file, p));
            }
            Err(e) => errors.push(e),
        }
    }

    let mut fixtures: BTreeMap<String, Fixture> = BTreeMap::new();
    // Goldens first: omission fixtures are built on top of them.
    for (file, p) in parsed.iter().filter(|(_, p)| p.value.extends.is_none()) {
        match build_golden(file, p) {
            Ok(f) => {
                fixtures.insert(f.id.clone(), f);
            }
            Err(e) => errors.push(e),
        }
    }
    let omissions: std::collections::BTreeSet<String> = parsed
        .iter()
        .filter(|(_, p)| p.value.extends.is_some())
        .map(|(_, p)| p.value.id.clone())
        .collect();
    for (file, p) in parsed.iter().filter(|(_, p)| p.value.extends.is_some()) {
        match build_omission(file, p, &fixtures, &seen, &omissions) {
            Ok(f) => {
                fixtures.insert(f.id.clone(), f);
            }
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(Corpus {
            fixtures: fixtures.into_values().collect(),
            unviable_mutants: Vec::new(),
        })
    } else {
        Err(errors)
    }
}

struct Ctx<'a> {
    file: &'a Path,
    folder: &'a Path,
    text: &'a str,
    /// Fed every input this fixture reads (its files, its spec, its golden's hash): the fixture's
    /// content hash, computed from inputs rather than from the composed trees, which repeat the
    /// golden's files in every layer.
    hasher: std::cell::RefCell<Sha256>,
}

impl Ctx<'_> {
    fn err(&self, key: &str, value: &str, message: impl Into<String>) -> Error {
        Error::invalid_at(self.file, yaml::locate(self.text, key, value), message)
    }

    fn err_at(&self, position: Option<Position>, message: impl Into<String>) -> Error {
        Error::invalid_at(self.file, position, message)
    }
}

fn common_checks(ctx: &Ctx, f: &FixtureFile) -> Result<Expectation, Error> {
    let id_ok = !f.id.is_empty()
        && f.id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !f.id.starts_with('-');
    if !id_ok {
        return Err(ctx.err(
            "id",
            &f.id,
            format!(
                "fixture id `{}` must be lowercase letters, digits and dashes",
                f.id
            ),
        ));
    }
    if f.category.trim().is_empty() || f.category == "~" || f.category == "null" {
        return Err(ctx.err(
            "category",
            "category",
            "`category` must name a category: not empty, not null (`~`)",
        ));
    }
    let mut findings = Vec::new();
    for m in &f.expect.findings {
        if *m == FindingMatcher::default() {
            return Err(ctx.err("findings", "findings", "a finding matcher needs at least one of validator, requirement, obligation, path, pattern"));
        }
        if let Some(path) = &m.path {
            check_repo_path(path).map_err(|e| ctx.err("path", path, e))?;
        }
        let pattern = match &m.pattern {
            Some(p) => Some(
                Regex::new(p)
                    .map_err(|e| ctx.err("pattern", p, format!("invalid pattern: {e}")))?,
            ),
            None => None,
        };
        findings.push(Matcher {
            spec: m.clone(),
            pattern,
        });
    }
    for entry in &f.expect.locus {
        check_locus_entry(ctx, entry)?;
    }
    let mut last = 0;
    for fix in &f.fixes {
        if fix.after_round <= last {
            return Err(ctx.err(
                "after_round",
                &fix.after_round.to_string(),
                "fixes must be listed by increasing `after_round`, starting at 1",
            ));
        }
        last = fix.after_round;
        if fix.overlay.is_none() && fix.delete.is_empty() {
            return Err(ctx.err(
                "after_round",
                &fix.after_round.to_string(),
                "a fix needs an overlay or deletions",
            ));
        }
    }
    if let (Some(ExpectedRounds::After(n)), true) = (f.expect.rounds, f.fixes.is_empty()) {
        if n > 1 {
            return Err(ctx.err(
                "rounds",
                &n.to_string(),
                format!(
                    "`rounds: {n}` expects convergence after fixes, but the fixture has no `fixes`"
                ),
            ));
        }
    }
    Ok(Expectation {
        verdict: f.expect.verdict,
        kind: f.expect.kind,
        locus: f.expect.locus.clone(),
        findings,
        rounds: f.expect.rounds,
    })
}

fn build_golden(file: &Path, p: &yaml::Parsed<FixtureFile>) -> Result<Fixture, Error> {
    let f = &p.value;
    let folder = file.parent().unwrap_or(Path::new("."));
    let ctx = Ctx {
        file,
        folder,
        text: &p.text,
        hasher: Default::default(),
    };
    let expect = common_checks(&ctx, f)?;
    if f.plant.is_some() {
        return Err(ctx.err(
            "plant",
            "plant",
            "`plant` needs `extends`: an omission is planted in a golden",
        ));
    }
    if expect.verdict != Verdict::Pass {
        return Err(ctx.err(
            "verdict",
            expect.verdict.as_str(),
            "a golden (a fixture without `extends`) must expect `verdict: pass`",
        ));
    }
    if !expect.findings.is_empty() {
        return Err(ctx.err("findings", "findings", "a golden expects no findings"));
    }
    if expect.kind.is_some() || !expect.locus.is_empty() {
        return Err(ctx.err(
            "expect",
            "expect",
            "a golden plants nothing: it has no `kind` and no `locus`",
        ));
    }
    let base_dir = f
        .base
        .as_deref()
        .ok_or_else(|| ctx.err_at(None, "a golden needs `base` (the folder committed on main)"))?;
    let head = f.head.as_ref().ok_or_else(|| {
        ctx.err_at(
            None,
            "a golden needs `head` (the layer committed on the feature branch)",
        )
    })?;
    let base = read_tree(&ctx, "base", base_dir)?;
    let mut states = States {
        base: base.clone(),
        head: apply_layer(&ctx, "head", base, head)?,
        ..States::default()
    };
    if let Some(staged) = &f.staged {
        states.staged = Some(apply_layer(&ctx, "staged", states.head.clone(), staged)?);
    }
    if let Some(unstaged) = &f.unstaged {
        let from = states.staged.clone().unwrap_or_else(|| states.head.clone());
        states.unstaged = Some(apply_layer(&ctx, "unstaged", from, unstaged)?);
    }
    finish(&ctx, f, None, states, expect, f.worktree)
}

fn build_omission(
    file: &Path,
    p: &yaml::Parsed<FixtureFile>,
    built: &BTreeMap<String, Fixture>,
    seen: &BTreeMap<String, PathBuf>,
    omissions: &std::collections::BTreeSet<String>,
) -> Result<Fixture, Error> {
    let f = &p.value;
    let folder = file.parent().unwrap_or(Path::new("."));
    let ctx = Ctx {
        file,
        folder,
        text: &p.text,
        hasher: Default::default(),
    };
    let expect = common_checks(&ctx, f)?;
    let extends = f.extends.as_deref().unwrap_or_default();
    for (key, present) in [
        ("base", f.base.is_some()),
        ("head", f.head.is_some()),
        ("staged", f.staged.is_some()),
        ("unstaged", f.unstaged.is_some()),
        ("worktree", f.worktree),
    ] {
        if present {
            return Err(ctx.err(key, key, format!("`{key}` belongs to the golden; an omission fixture only plants (`plant`) into the golden it extends")));
        }
    }
    if extends == f.id {
        return Err(ctx.err(
            "extends",
            extends,
            format!("`extends: {extends}` names this fixture itself; it must name a golden"),
        ));
    }
    let golden = match built.get(extends) {
        Some(g) if g.is_golden() => g,
        _ if omissions.contains(extends) => {
            return Err(ctx.err(
                "extends",
                extends,
                format!("`extends: {extends}` names an omission fixture; it must name a golden"),
            ))
        }
        _ if seen.contains_key(extends) => {
            return Err(ctx.err(
                "extends",
                extends,
                format!("`extends: {extends}` names a golden that failed to load (see its error)"),
            ))
        }
        _ => {
            return Err(ctx.err(
                "extends",
                extends,
                format!(
                    "`extends: {extends}` names no fixture; it must name a golden in the corpus"
                ),
            ))
        }
    };
    let plant = f.plant.as_ref().ok_or_else(|| {
        ctx.err(
            "extends",
            extends,
            "an omission fixture needs `plant`: the overlay or deletions that plant the omission",
        )
    })?;
    if plant.overlay.is_none() && plant.delete.is_empty() {
        return Err(ctx.err("plant", "plant", "`plant` needs an overlay or deletions"));
    }
    if expect.verdict == Verdict::Pass && f.fixes.is_empty() {
        return Err(ctx.err("verdict", "pass", "an omission fixture must expect `fail` or `blocked`: a correct gate never passes a known omission"));
    }
    if expect.kind.is_none() {
        return Err(ctx.err("expect", "expect", "an omission fixture must state the `kind` of omission it plants (an id of docs/TAXONOMY.md)"));
    }
    if expect.locus.is_empty() {
        return Err(ctx.err("expect", "expect", "an omission fixture must state the `locus` of what it plants (paths with optional lines, requirement, obligation or task ids)"));
    }
    let layer = Layer {
        overlay: plant.overlay.clone(),
        delete: plant.delete.clone(),
    };
    let mut states = golden.states.clone();
    match plant.into {
        LayerName::Head => {
            states.head = apply_layer(&ctx, "plant", states.head, &layer)?;
            // Later layers were written over the golden's head; they are kept over the planted one.
            if golden.states.staged.is_some() || golden.states.unstaged.is_some() {
                return Err(ctx.err("into", "head", "planting into `head` of a golden that has staged or unstaged layers is not supported; plant into the last layer"));
            }
        }
        LayerName::Staged => {
            if golden.states.unstaged.is_some() {
                return Err(ctx.err(
                    "into",
                    "staged",
                    "the golden has an unstaged layer; plant into `unstaged`",
                ));
            }
            let from = states.staged.take().unwrap_or_else(|| states.head.clone());
            states.staged = Some(apply_layer(&ctx, "plant", from, &layer)?);
        }
        LayerName::Unstaged => {
            let from = states
                .unstaged
                .take()
                .or_else(|| states.staged.clone())
                .unwrap_or_else(|| states.head.clone());
            states.unstaged = Some(apply_layer(&ctx, "plant", from, &layer)?);
        }
    }
    check_locus_paths(&ctx, &expect.locus, &[&states, &golden.states])?;
    ctx.hasher
        .borrow_mut()
        .update(golden.content_hash.as_bytes());
    finish(
        &ctx,
        f,
        Some(golden.id.clone()),
        states,
        expect,
        golden.worktree,
    )
}

fn finish(
    ctx: &Ctx,
    f: &FixtureFile,
    golden: Option<String>,
    states: States,
    expect: Expectation,
    worktree: bool,
) -> Result<Fixture, Error> {
    let mut fixes = Vec::new();
    let mut current = states
        .unstaged
        .clone()
        .or_else(|| states.staged.clone())
        .unwrap_or_else(|| states.head.clone());
    for fix in &f.fixes {
        let layer = Layer {
            overlay: fix.overlay.clone(),
            delete: fix.delete.clone(),
        };
        current = apply_layer(
            ctx,
            &format!("fix after round {}", fix.after_round),
            current,
            &layer,
        )?;
        fixes.push(FixState {
            after_round: fix.after_round,
            files: current.clone(),
        });
    }
    check_placeholders(ctx, &states, &fixes)?;
    let content_hash = {
        let mut hasher = ctx.hasher.borrow_mut();
        hasher.update(serde_json::to_vec(f).unwrap_or_default());
        let digest = std::mem::take(&mut *hasher).finalize();
        gatebench_gittree::hex(&digest)
    };
    Ok(Fixture {
        id: f.id.clone(),
        description: f.description.clone(),
        category: f.category.clone(),
        tags: f.tags.clone(),
        golden,
        file: ctx.file.to_path_buf(),
        worktree,
        states,
        expect,
        fixes,
        content_hash,
    })
}

/// One locus entry names exactly one place; lines go with a path and read `[START, END]`.
fn check_locus_entry(ctx: &Ctx, entry: &LocusEntry) -> Result<(), Error> {
    let named = [
        entry.path.is_some(),
        entry.requirement.is_some(),
        entry.obligation.is_some(),
        entry.task.is_some(),
    ]
    .into_iter()
    .filter(|b| *b)
    .count();
    let shown = entry.describe();
    if named != 1 {
        return Err(ctx.err(
            "locus",
            "locus",
            format!("a locus entry names exactly one of path, requirement, obligation or task (`{shown}`)"),
        ));
    }
    if let Some(path) = &entry.path {
        check_repo_path(path).map_err(|e| ctx.err("path", path, e))?;
    }
    for id in [&entry.requirement, &entry.obligation, &entry.task]
        .into_iter()
        .flatten()
    {
        if id.trim().is_empty() || id.chars().any(char::is_whitespace) {
            return Err(ctx.err("locus", id, format!("`{id}` is not an id")));
        }
    }
    match (entry.lines, &entry.path) {
        (Some(_), None) => Err(ctx.err("lines", "lines", "`lines` goes with a `path`")),
        (Some([start, end]), Some(path)) if start == 0 || end < start => Err(ctx.err(
            "lines",
            "lines",
            format!("`lines` of {path} must be [START, END] with 1 <= START <= END"),
        )),
        _ => Ok(()),
    }
}

/// A locus path is a file of the repository the fixture materializes, or one its golden had (a
/// deleted file is a locus when its absence is the omission); its lines exist in the file.
fn check_locus_paths(ctx: &Ctx, locus: &[LocusEntry], all: &[&States]) -> Result<(), Error> {
    let layers: Vec<&Files> = all
        .iter()
        .flat_map(|states| {
            [
                states.unstaged.as_ref(),
                states.staged.as_ref(),
                Some(&states.head),
                Some(&states.base),
            ]
        })
        .flatten()
        .collect();
    for entry in locus {
        let Some(path) = &entry.path else { continue };
        let Some(content) = layers.iter().find_map(|files| files.get(path)) else {
            return Err(ctx.err(
                "path",
                path,
                format!("locus path {path} is in no layer of the fixture or its golden"),
            ));
        };
        if let Some([_, end]) = entry.lines {
            let count =
                content.split(|b| *b == b'\n').count() as u64 - u64::from(content.ends_with(b"\n"));
            if end > count {
                return Err(ctx.err(
                    "path",
                    path,
                    format!("locus lines of {path} end at {end}, past its {count} lines"),
                ));
            }
        }
    }
    Ok(())
}

fn check_placeholders(ctx: &Ctx, states: &States, fixes: &[FixState]) -> Result<(), Error> {
    let has = |s: Stage| match s {
        Stage::Base | Stage::Head => true,
        Stage::Staged => states.staged.is_some(),
        Stage::Unstaged => states.unstaged.is_some(),
        Stage::Fix(n) => fixes.len() >= n as usize,
    };
    let mut all: Vec<(Stage, &Files)> =
        vec![(Stage::Base, &states.base), (Stage::Head, &states.head)];
    if let Some(s) = &states.staged {
        all.push((Stage::Staged, s));
    }
    if let Some(s) = &states.unstaged {
        all.push((Stage::Unstaged, s));
    }
    for (i, fix) in fixes.iter().enumerate() {
        all.push((Stage::Fix(i as u32 + 1), &fix.files));
    }
    let mut stand_in = placeholder::Known::default();
    for (stage, _) in &all {
        let id = "0".repeat(40);
        stand_in.commits.insert(*stage, id.clone());
        stand_in.trees.insert(*stage, id.clone());
        stand_in.source_trees.insert(*stage, id.clone());
        stand_in
            .diff_sha256s
            .insert(*stage, format!("sha256:{}", "0".repeat(64)));
    }
    for (stage, files) in all {
        if !files
            .values()
            .any(|c| c.windows(12).any(|w| w == b"{{gatebench:"))
        {
            continue;
        }
        for (path, content) in files {
            let Ok(text) = std::str::from_utf8(content) else {
                continue;
            };
            if !text.contains("{{gatebench:") {
                continue;
            }
            placeholder::check_file(stage, path, text, files, &has).map_err(
                |(line, message)| {
                    ctx.err_at(
                        None,
                        format!(
                            "in `{path}` (line {line}) of layer `{}`: {message}",
                            stage.name()
                        ),
                    )
                },
            )?;
        }
        // Resolve with stand-in ids, as materializing will with real ones: a cycle or a too-deep
        // `sha256:` chain is found here, by `check`, not first by `run`.
        placeholder::resolve(files, &Files::new(), &stand_in).map_err(|message| {
            ctx.err_at(None, format!("in layer `{}`: {message}", stage.name()))
        })?;
    }
    Ok(())
}

fn apply_layer(ctx: &Ctx, what: &str, mut files: Files, layer: &Layer) -> Result<Files, Error> {
    if let Some(dir) = &layer.overlay {
        files.extend(read_tree(ctx, "overlay", dir)?);
    }
    for path in &layer.delete {
        check_repo_path(path).map_err(|e| ctx.err("delete", path, e))?;
        let prefix = format!("{path}/");
        let doomed: Vec<String> = files
            .keys()
            .filter(|p| *p == path || p.starts_with(&prefix))
            .cloned()
            .collect();
        for p in &doomed {
            files.remove(p);
        }
        if doomed.is_empty() {
            return Err(ctx.err(
                "delete",
                path,
                format!("{what}: `{path}` is deleted but does not exist in that layer"),
            ));
        }
    }
    Ok(files)
}

/// The most files one layer's tree may hold.
pub const MAX_TREE_FILES: usize = 20_000;
/// The largest file a fixture tree may hold.
pub const MAX_FILE_BYTES: u64 = 16 << 20;
/// The most bytes one layer's tree may hold.
pub const MAX_TREE_BYTES: u64 = 256 << 20;

/// Reads every file under `ctx.folder/dir` into a tree. Symlinks are followed only when they stay
/// inside the fixture folder, and every real folder is visited once (a folder reached twice
/// through symlinks is an error, so links cannot multiply the tree). Names must be UTF-8, files
/// regular, and every final repository path (after the `.fixture` suffix is removed) safe
/// (`check_repo_path`: nothing git takes for `.git`).
fn read_tree(ctx: &Ctx, key: &str, dir: &str) -> Result<Files, Error> {
    check_repo_path(dir).map_err(|e| ctx.err(key, dir, e))?;
    let root = ctx.folder.join(dir);
    if !root.is_dir() {
        return Err(ctx.err(
            key,
            dir,
            format!("`{dir}` is not a folder in {}", ctx.folder.display()),
        ));
    }
    let fixture_root = ctx
        .folder
        .canonicalize()
        .map_err(|e| Error::io("resolve", ctx.folder, e))?;
    let real_root = root
        .canonicalize()
        .map_err(|e| Error::io("resolve", &root, e))?;
    let mut visited = std::collections::HashSet::from([real_root]);
    let mut files = Files::new();
    let mut total: u64 = 0;
    let mut stack = vec![(root.clone(), String::new())];
    while let Some((abs, rel)) = stack.pop() {
        let unreadable =
            |e: std::io::Error| Error::invalid(&abs, format!("the folder cannot be read: {e}"));
        let entries = std::fs::read_dir(&abs).map_err(unreadable)?;
        for entry in entries {
            let entry = entry.map_err(unreadable)?;
            let path = entry.path();
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                return Err(Error::invalid(
                    &path,
                    "a file name that is not UTF-8: repository paths must be UTF-8",
                ));
            };
            let rel_path = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            let meta = std::fs::symlink_metadata(&path).map_err(|e| Error::io("read", &path, e))?;
            let meta = if meta.file_type().is_symlink() {
                let target = path.canonicalize().map_err(|e| {
                    Error::invalid(&path, format!("a symlink that cannot be resolved: {e}"))
                })?;
                if !target.starts_with(&fixture_root) {
                    return Err(Error::invalid(
                        &path,
                        format!("a symlink pointing outside the fixture folder ({}); fixture trees must be self-contained", target.display()),
                    ));
                }
                std::fs::metadata(&path).map_err(|e| Error::io("read", &path, e))?
            } else {
                meta
            };
            if meta.is_dir() {
                check_repo_path(&rel_path).map_err(|e| Error::invalid(&path, e))?;
                let real = path
                    .canonicalize()
                    .map_err(|e| Error::io("resolve", &path, e))?;
                if !visited.insert(real.clone()) {
                    return Err(Error::invalid(
                        &path,
                        format!("the folder {} is reached twice (through symlinks); a fixture tree visits each folder once", real.display()),
                    ));
                }
                stack.push((path, rel_path));
            } else if meta.is_file() {
                let repo_path = rel_path
                    .strip_suffix(DISARM_SUFFIX)
                    .unwrap_or(&rel_path)
                    .to_owned();
                check_repo_path(&repo_path).map_err(|e| Error::invalid(&path, e))?;
                if files.len() >= MAX_TREE_FILES {
                    return Err(ctx.err(key, dir, format!("`{dir}` holds more than {MAX_TREE_FILES} files; the limit is {MAX_TREE_FILES}")));
                }
                let content = yaml::read_input(&path, MAX_FILE_BYTES)?;
                total += content.len() as u64;
                if total > MAX_TREE_BYTES {
                    return Err(ctx.err(key, dir, format!("`{dir}` holds more than {MAX_TREE_BYTES} bytes; the limit is {MAX_TREE_BYTES}")));
                }
                if files.insert(repo_path.clone(), content.into()).is_some() {
                    return Err(Error::invalid(
                        &path,
                        format!("two files become `{repo_path}` once `{DISARM_SUFFIX}` is removed"),
                    ));
                }
            } else {
                return Err(Error::invalid(
                    &path,
                    "not a regular file or folder (a FIFO, socket or device): fixture trees hold files only",
                ));
            }
        }
    }
    hash_files(&mut ctx.hasher.borrow_mut(), &files);
    Ok(files)
}

fn hash_files(hasher: &mut Sha256, files: &Files) {
    for (path, content) in files {
        hasher.update((path.len() as u64).to_le_bytes());
        hasher.update(path.as_bytes());
        hasher.update((content.len() as u64).to_le_bytes());
        hasher.update(content);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bundled corpus: every omission fixture holds its golden's base tree itself (not a copy),
    /// and every file a layer leaves unchanged is the golden's content, not a second copy of it:
    /// the corpus's memory grows with what fixtures plant, not with their number.
    #[test]
    fn omission_fixtures_share_their_goldens_trees_and_contents() {
        let corpus = load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures"))
            .expect("the bundled corpus loads");
        let mut shared_files = 0;
        for f in corpus.fixtures.iter().filter(|f| !f.is_golden()) {
            let golden = corpus.get(f.golden.as_deref().unwrap()).unwrap();
            assert!(
                f.states.base.ptr_eq(&golden.states.base),
                "{}: its base tree is a copy of its golden's",
                f.id
            );
            let pairs = [
                (Some(&f.states.head), Some(&golden.states.head)),
                (f.states.staged.as_ref(), golden.states.staged.as_ref()),
                (f.states.unstaged.as_ref(), golden.states.unstaged.as_ref()),
            ];
            for (mine, theirs) in pairs {
                let (Some(mine), Some(theirs)) = (mine, theirs) else {
                    continue;
                };
                for (path, content) in mine {
                    if let Some(golden_content) = theirs.get(path) {
                        if content == golden_content {
                            assert!(
                                Blob::ptr_eq(content, golden_content),
                                "{}: {path} equals its golden's but is a copy",
                                f.id
                            );
                            shared_files += 1;
                        }
                    }
                }
            }
        }
        assert!(shared_files > 1000, "only {shared_files} shared files");
    }
}
