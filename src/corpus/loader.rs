//! Loading the fixture corpus: every `fixtures/*/fixture.yaml` parsed strictly, goldens resolved,
//! layers composed into file trees and every placeholder checked, before anything runs. Goldens
//! keep their trees; omission fixtures keep the recipe to compose them again (`recipe.rs`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;
use regex::Regex;
use sha2::Digest;

use crate::corpus::compose::{self, read_tree, Ctx};
use crate::corpus::fixture::{ExpectedRounds, FindingMatcher, FixtureFile, LocusEntry};
use crate::corpus::paths::check_repo_path;
use crate::corpus::placeholder::{self, Stage};
use crate::corpus::recipe::Recipe;
use crate::corpus::taxonomy::Kind;
use crate::corpus::yaml;
use gatebench_report::Verdict;

use crate::error::Error;

pub use crate::corpus::compose::{
    Composed, FixState, States, DISARM_SUFFIX, MAX_FILE_BYTES, MAX_TREE_BYTES, MAX_TREE_FILES,
};
pub use crate::corpus::files::{Blob, Files};
pub use crate::corpus::recipe::{GoldenRef, Layers};
pub use crate::corpus::slim::Slim;
use crate::corpus::slim::{unhex, Interner};

/// A loaded, checked fixture, ready to materialize.
#[derive(Debug, Clone)]
pub struct Fixture {
    pub id: String,
    pub description: String,
    pub category: String,
    pub tags: Vec<String>,
    /// For an omission fixture, the golden it is planted in; `None` for a golden.
    pub golden: Option<String>,
    /// The `fixture.yaml` this came from; empty for a slim fixture whose folder is named by its
    /// id ([`Fixture::yaml_file`] gives it either way).
    pub file: PathBuf,
    pub worktree: bool,
    /// Its layers and fixes: composed (goldens, mutants), or the recipe to compose them (omission
    /// fixtures loaded from disk). Read them through [`Fixture::compose`].
    pub layers: Layers,
    pub expect: Expectation,
    /// sha256 over everything that determines what is materialized and how it is scored.
    pub content_hash: String,
}

impl Fixture {
    pub fn is_golden(&self) -> bool {
        self.golden.is_none()
    }

    /// Its composed trees (every layer, every scripted fix): those in memory, shared, or composed
    /// now from its files. An error names the file that cannot be read or that changed since the
    /// corpus was loaded.
    pub fn compose(&self) -> Result<Arc<Composed>, Error> {
        match &self.layers {
            Layers::Reload(_) => self.full()?.compose(),
            layers => layers.compose(&self.file),
        }
    }

    /// Its trees when they are held in memory (goldens and mutants); `None` for a fixture composed
    /// from disk on use.
    pub fn in_memory(&self) -> Option<&Arc<Composed>> {
        match &self.layers {
            Layers::Composed(trees) => Some(trees),
            Layers::OnDisk(_) | Layers::Reload(_) => None,
        }
    }

    /// Whether it was loaded slim (`load_slim`): its description, locus and finding matchers are
    /// not held; [`Fixture::full`] loads them.
    pub fn is_slim(&self) -> bool {
        matches!(self.layers, Layers::Reload(_))
    }

    /// The fixture in full: itself, or, loaded slim, loaded again from its file on its golden,
    /// its trees composed and kept. An error names the file that cannot be read, or says the
    /// fixture changed since the corpus was loaded (its content hash differs).
    pub fn full(&self) -> Result<std::borrow::Cow<'_, Fixture>, Error> {
        let Layers::Reload(golden) = &self.layers else {
            return Ok(std::borrow::Cow::Borrowed(self));
        };
        let file = self.yaml_file();
        let p = yaml::load::<FixtureFile>(&file)?;
        let goldens = BTreeMap::from([(golden.id.clone(), golden.clone())]);
        let again = Build::Again(&self.content_hash);
        let full = build_omission(&file, &p, &goldens, &BTreeMap::new(), again)?;
        Ok(std::borrow::Cow::Owned(full))
    }

    /// Its `fixture.yaml`: `file`, or for a slim fixture that holds none, `<id>/fixture.yaml`
    /// in its golden's fixtures folder.
    pub fn yaml_file(&self) -> std::borrow::Cow<'_, Path> {
        match &self.layers {
            Layers::Reload(g) if self.file.as_os_str().is_empty() => {
                std::borrow::Cow::Owned(g.fixture_file(&self.id))
            }
            _ => std::borrow::Cow::Borrowed(&self.file),
        }
    }

    /// Slim: without what [`Fixture::full`] loads again (see [`Layers::Reload`]), nor its path
    /// when [`Fixture::yaml_file`] finds it from its id (a run of 10,000 held 0.9 MB of paths).
    fn slimmed(self) -> Fixture {
        let file = match &self.layers {
            Layers::Reload(g) if self.file == g.fixture_file(&self.id) => PathBuf::new(),
            _ => self.file,
        };
        Fixture {
            file,
            description: String::new(),
            expect: Expectation {
                locus: Vec::new(),
                findings: Vec::new(),
                ..self.expect
            },
            ..self
        }
    }
}

impl Fixture {
    /// Itself held slim, when it is an omission fixture loaded slim (`Layers::Reload`); itself
    /// otherwise (`Err`).
    fn into_slim(self, interner: &mut Interner) -> Result<Slim, Box<Fixture>> {
        let (Layers::Reload(golden), Some(content_hash)) =
            (&self.layers, unhex(&self.content_hash))
        else {
            return Err(Box::new(self));
        };
        Ok(Slim {
            golden: golden.clone(),
            labels: interner.labels(self.category, self.tags),
            id: self.id.into_boxed_str(),
            verdict: self.expect.verdict,
            kind: self.expect.kind,
            rounds: self.expect.rounds,
            worktree: self.worktree,
            content_hash,
            file: (!self.file.as_os_str().is_empty()).then(|| self.file.into_boxed_path()),
        })
    }

    /// The slim fixture `s` was made from: no description, locus or finding matchers
    /// ([`Fixture::is_slim`]); [`Fixture::full`] loads it in full.
    pub fn from_slim(s: &Slim) -> Fixture {
        Fixture {
            id: s.id.to_string(),
            description: String::new(),
            category: s.labels.category.clone(),
            tags: s.labels.tags.clone(),
            golden: Some(s.golden.id.clone()),
            file: s.file.as_deref().map(Path::to_path_buf).unwrap_or_default(),
            worktree: s.worktree,
            layers: Layers::Reload(s.golden.clone()),
            expect: Expectation {
                verdict: s.verdict,
                kind: s.kind,
                locus: Vec::new(),
                findings: Vec::new(),
                rounds: s.rounds,
            },
            content_hash: gatebench_gittree::hex(&s.content_hash),
        }
    }
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
    /// Shared by every fixture with the same pattern (a clone of a `Regex` is a new cache pool).
    pub pattern: Option<Arc<Regex>>,
}

#[derive(Debug, Default)]
pub struct Corpus {
    /// Sorted by id. Loaded slim (`load_slim`), the goldens (and any mutants) only.
    pub fixtures: Vec<Fixture>,
    /// Loaded slim, the omission fixtures, sorted by id; empty otherwise.
    pub slim: Vec<Slim>,
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
    /// The fixture `id` when it is held whole; `None` for a slim one ([`Corpus::entry`] finds
    /// those too).
    pub fn get(&self, id: &str) -> Option<&Fixture> {
        self.fixtures
            .binary_search_by(|f| f.id.as_str().cmp(id))
            .ok()
            .map(|i| &self.fixtures[i])
    }

    /// The fixture `id`, held whole or slim.
    pub fn entry(&self, id: &str) -> Option<Entry<'_>> {
        self.get(id).map(Entry::Held).or_else(|| {
            self.slim
                .binary_search_by(|s| (*s.id).cmp(id))
                .ok()
                .map(|i| Entry::Slim(&self.slim[i]))
        })
    }

    /// Every fixture, held whole or slim, sorted by id.
    pub fn entries(&self) -> impl Iterator<Item = Entry<'_>> {
        let mut held = self.fixtures.iter().peekable();
        let mut slim = self.slim.iter().peekable();
        std::iter::from_fn(move || match (held.peek(), slim.peek()) {
            (Some(f), Some(s)) if f.id.as_str() > &*s.id => slim.next().map(Entry::Slim),
            (Some(_), _) => held.next().map(Entry::Held),
            (None, _) => slim.next().map(Entry::Slim),
        })
    }
}

/// A fixture of a corpus as selection, sharding and the runner see it: held whole, or slim.
#[derive(Debug, Clone, Copy)]
pub enum Entry<'c> {
    Held(&'c Fixture),
    Slim(&'c Slim),
}

impl<'c> Entry<'c> {
    pub fn id(&self) -> &'c str {
        match self {
            Entry::Held(f) => &f.id,
            Entry::Slim(s) => &s.id,
        }
    }

    pub fn category(&self) -> &'c str {
        match self {
            Entry::Held(f) => &f.category,
            Entry::Slim(s) => &s.labels.category,
        }
    }

    pub fn tags(&self) -> &'c [String] {
        match self {
            Entry::Held(f) => &f.tags,
            Entry::Slim(s) => &s.labels.tags,
        }
    }

    /// The golden it is planted in; `None` for a golden.
    pub fn golden(&self) -> Option<&'c str> {
        match self {
            Entry::Held(f) => f.golden.as_deref(),
            Entry::Slim(s) => Some(&s.golden.id),
        }
    }

    /// The round it is expected to converge at, if it says.
    pub fn rounds(&self) -> Option<ExpectedRounds> {
        match self {
            Entry::Held(f) => f.expect.rounds,
            Entry::Slim(s) => s.rounds,
        }
    }

    /// The fixture: the one held, or a slim one made again ([`Fixture::from_slim`]).
    pub fn fixture(&self) -> std::borrow::Cow<'c, Fixture> {
        match self {
            Entry::Held(f) => std::borrow::Cow::Borrowed(*f),
            Entry::Slim(s) => std::borrow::Cow::Owned(Fixture::from_slim(s)),
        }
    }
}

/// Loads every fixture under `dir`. All problems found are returned, each naming its file.
/// Omission fixtures keep a recipe, not trees: each is composed again when it is used.
pub fn load(dir: &Path) -> Result<Corpus, Vec<Error>> {
    load_with(dir, Build::Recipe)
}

/// [`load`], omission fixtures slim (`Layers::Reload`): checked in full, then held without
/// their recipe, description, locus and finding matchers, which [`Fixture::full`] loads again
/// when a trial needs them. A run's corpus: it holds a few hundred bytes per omission fixture.
pub fn load_slim(dir: &Path) -> Result<Corpus, Vec<Error>> {
    load_with(dir, Build::Slim)
}

/// Loads the corpus, every omission fixture kept as `build` says (`Build::Trees` keeps its
/// validated trees, to check that composing from a recipe gives the same).
fn load_with(dir: &Path, build: Build<'static>) -> Result<Corpus, Vec<Error>> {
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

    // Every fixture.yaml parsed in parallel, then checked for duplicate ids in folder order.
    // Only the goldens' parsed files are kept: an omission fixture's is parsed again when it is
    // built (below), so that ten thousand parsed files are never held at once (they were the
    // peak of a large run's memory).
    // Each path is held once, in `files`; the ids map to their place there.
    let real_dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let (files, heads): (Vec<PathBuf>, Vec<Result<Head, Error>>) = folders
        .into_par_iter()
        .map(|folder| {
            let file = folder.join("fixture.yaml");
            // Anything there (a FIFO, a folder) is read, and refused with what it is.
            let head = if let Some(e) = linked_outside(&folder, &real_dir) {
                Err(e)
            } else if std::fs::symlink_metadata(&file).is_err() {
                Err(Error::invalid(
                    &folder,
                    "a fixture folder must hold a fixture.yaml",
                ))
            } else {
                yaml::load::<FixtureFile>(&file).map(Head::of)
            };
            (file, head)
        })
        .unzip();
    let mut goldens: Vec<(usize, Box<yaml::Parsed<FixtureFile>>)> = Vec::new();
    let mut plants: Vec<usize> = Vec::new();
    let mut seen: BTreeMap<String, Seen> = BTreeMap::new();
    for (i, head) in heads.into_iter().enumerate() {
        match head {
            Ok(head) => {
                if let Some(first) = seen.get(&head.id) {
                    errors.push(Error::invalid_at(
                        &files[i],
                        head.id_at,
                        format!(
                            "duplicate fixture id `{}`: also used by {}",
                            head.id,
                            files[first.file].display()
                        ),
                    ));
                    continue;
                }
                let omission = head.golden.is_none();
                seen.insert(head.id, Seen { file: i, omission });
                match head.golden {
                    Some(p) => goldens.push((i, p)),
                    None => plants.push(i),
                }
            }
            Err(e) => errors.push(e),
        }
    }

    let mut goldens_built: BTreeMap<String, Fixture> = BTreeMap::new();
    // Goldens first: omission fixtures are built on top of them.
    for (i, p) in goldens {
        match build_golden(&files[i], &p) {
            Ok(f) => {
                goldens_built.insert(f.id.clone(), f);
            }
            Err(e) => errors.push(e),
        }
    }
    // Omission fixtures in parallel, each parsed again and dropped once built: each reads only
    // the goldens built above. Collected straight into the corpus's list (with room for the
    // goldens), never into a map or a list of results as well: at ten thousand fixtures those
    // copies were the load's peak.
    let refs: BTreeMap<String, Arc<GoldenRef>> = goldens_built
        .values()
        .filter_map(|g| {
            let trees = g.in_memory()?.clone();
            let r = GoldenRef {
                id: g.id.clone(),
                trees,
                content_hash: g.content_hash.clone(),
                worktree: g.worktree,
                dir: g
                    .file
                    .parent()
                    .and_then(Path::parent)
                    .unwrap_or(dir)
                    .to_path_buf(),
            };
            Some((g.id.clone(), Arc::new(r)))
        })
        .collect();
    let failed = std::sync::Mutex::new(Vec::new());
    let (mut fixtures, mut slim): (Vec<Fixture>, Vec<Slim>) = match build {
        Build::Slim => (
            Vec::with_capacity(goldens_built.len()),
            Vec::with_capacity(plants.len()),
        ),
        _ => (
            Vec::with_capacity(plants.len() + goldens_built.len()),
            Vec::new(),
        ),
    };
    let mut interner = Interner::default();
    // In batches: rayon collects a filtered iterator into per-thread lists before it appends
    // them, so the whole list at once was held twice (4 MB more at 10,000 fixtures). Each batch
    // is then held slim when the load is (`Slim`), whole otherwise.
    let mut batch: Vec<Fixture> = Vec::with_capacity(LOAD_BATCH.min(plants.len()));
    for chunk in plants.chunks(LOAD_BATCH) {
        batch.par_extend(chunk.par_iter().filter_map(|&at| {
            let file = &files[at];
            let built = yaml::load::<FixtureFile>(file)
                .and_then(|p| build_omission(file, &p, &refs, &seen, build));
            built
                .map_err(|e| {
                    failed
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push((at, e))
                })
                .ok()
        }));
        for f in batch.drain(..) {
            match build {
                Build::Slim => match f.into_slim(&mut interner) {
                    Ok(s) => slim.push(s),
                    Err(f) => fixtures.push(*f),
                },
                _ => fixtures.push(f),
            }
        }
    }
    drop(batch);
    let mut failed = failed.into_inner().unwrap_or_else(|p| p.into_inner());
    // In folder order (`at` is a fixture's place among the folders), as they were found.
    failed.sort_by_key(|(i, _)| *i);
    errors.extend(failed.into_iter().map(|(_, e)| e));
    fixtures.extend(goldens_built.into_values());
    fixtures.sort_unstable_by(|a, b| a.id.cmp(&b.id));
    slim.sort_unstable_by(|a, b| a.id.cmp(&b.id));
    if errors.is_empty() {
        Ok(Corpus {
            fixtures,
            slim,
            unviable_mutants: Vec::new(),
        })
    } else {
        Err(errors)
    }
}

/// An error when `folder` (a fixture folder in the fixtures folder whose real path is
/// `real_dir`) is a symlink to a folder outside the fixtures folder: its layer folders would then
/// be checked against wherever it points, and a fixture is self-contained.
fn linked_outside(folder: &Path, real_dir: &Path) -> Option<Error> {
    let is_link = folder
        .symlink_metadata()
        .is_ok_and(|m| m.file_type().is_symlink());
    if !is_link {
        return None;
    }
    match folder.canonicalize() {
        Ok(target) if target.starts_with(real_dir) => None,
        Ok(target) => Some(Error::invalid(
            folder,
            format!(
                "the fixture folder is a symlink pointing outside the fixtures folder ({}); fixtures must be self-contained",
                target.display()
            ),
        )),
        Err(e) => Some(Error::invalid(
            folder,
            format!("a symlink that cannot be resolved: {e}"),
        )),
    }
}

/// Omission fixtures built in parallel at a time while loading (see `load_with`).
const LOAD_BATCH: usize = 512;

/// What the first parse of a fixture file keeps: its id (and where it is, for a duplicate) and,
/// for a golden, the parsed file (boxed: ten thousand heads are held at once, few of them
/// goldens).
struct Head {
    id: String,
    id_at: Option<crate::error::Position>,
    golden: Option<Box<yaml::Parsed<FixtureFile>>>,
}

/// A fixture id seen while loading: the folder it is in (its place in the load's list of
/// files) and whether it is an omission fixture.
struct Seen {
    file: usize,
    omission: bool,
}

impl Head {
    fn of(p: yaml::Parsed<FixtureFile>) -> Head {
        let id = p.value.id.clone();
        Head {
            id_at: yaml::locate(&p.text, "id", &id),
            golden: p.value.extends.is_none().then(|| Box::new(p)),
            id,
        }
    }
}

/// `pattern` compiled, once per distinct pattern in the process, and shared: a compiled regex
/// holds kilobytes (and a clone of one a cache pool of its own), and fixtures generated or copied
/// from one another repeat their patterns.
fn compiled(pattern: &str) -> Result<Arc<Regex>, regex::Error> {
    static COMPILED: std::sync::OnceLock<std::sync::Mutex<BTreeMap<String, Arc<Regex>>>> =
        std::sync::OnceLock::new();
    let cache = COMPILED.get_or_init(Default::default);
    if let Some(re) = cache.lock().ok().and_then(|c| c.get(pattern).cloned()) {
        return Ok(re);
    }
    let re = Arc::new(Regex::new(pattern)?);
    if let Ok(mut c) = cache.lock() {
        c.insert(pattern.to_owned(), re.clone());
    }
    Ok(re)
}

fn common_checks(ctx: &Ctx, f: &FixtureFile) -> Result<Expectation, Error> {
    if !crate::ids::is_fixture_id(&f.id) {
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
    let mut findings = Vec::with_capacity(f.expect.findings.len());
    for m in &f.expect.findings {
        if *m == FindingMatcher::default() {
            return Err(ctx.err("findings", "findings", "a finding matcher needs at least one of validator, requirement, obligation, path, pattern"));
        }
        if let Some(path) = &m.path {
            check_repo_path(path).map_err(|e| ctx.err("path", path, e))?;
        }
        let pattern = match &m.pattern {
            Some(p) => Some(
                compiled(p).map_err(|e| ctx.err("pattern", p, format!("invalid pattern: {e}")))?,
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
    let ctx = Ctx::new(file, &p.text);
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
        head: compose::apply_layer(&ctx, "head", base, head)?,
        ..States::default()
    };
    if let Some(staged) = &f.staged {
        states.staged = Some(compose::apply_layer(
            &ctx,
            "staged",
            states.head.clone(),
            staged,
        )?);
    }
    if let Some(unstaged) = &f.unstaged {
        let from = states.staged.clone().unwrap_or_else(|| states.head.clone());
        states.unstaged = Some(compose::apply_layer(&ctx, "unstaged", from, unstaged)?);
    }
    finish(&ctx, f, None, states, expect, f.worktree, Build::Trees)
}

fn build_omission(
    file: &Path,
    p: &yaml::Parsed<FixtureFile>,
    goldens: &BTreeMap<String, Arc<GoldenRef>>,
    seen: &BTreeMap<String, Seen>,
    build: Build,
) -> Result<Fixture, Error> {
    let f = &p.value;
    let ctx = Ctx::new(file, &p.text);
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
    let golden = match goldens.get(extends) {
        Some(g) => g,
        _ if seen.get(extends).is_some_and(|s| s.omission) => {
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
    let golden_trees = &golden.trees;
    let states = compose::plant(&ctx, &golden_trees.states, plant)?;
    check_locus_paths(&ctx, &expect.locus, &[&states, &golden_trees.states])?;
    ctx.hasher
        .borrow_mut()
        .update(golden.content_hash.as_bytes());
    finish(
        &ctx,
        f,
        Some(golden),
        states,
        expect,
        golden.worktree,
        build,
    )
}

/// What an omission fixture keeps once built, and how it is checked.
#[derive(Debug, Clone, Copy)]
enum Build<'a> {
    /// Checked in full; keeps the recipe to compose its trees again.
    Recipe,
    /// Checked in full; keeps its trees (to test composing from a recipe against them).
    Trees,
    /// Checked in full; kept slim (`Layers::Reload`): a run's corpus.
    Slim,
    /// Loaded again for a trial (`Fixture::full`): keeps its trees; refused unless its content
    /// hash is this one, the one it was checked with, and then not checked again (the same
    /// inputs compose the same trees).
    Again(&'a str),
}

/// The fixes composed and every placeholder checked; then a golden keeps its trees and an
/// omission fixture (`golden` given: its id and trees) what `build` says.
fn finish(
    ctx: &Ctx,
    f: &FixtureFile,
    golden: Option<&Arc<GoldenRef>>,
    states: States,
    expect: Expectation,
    worktree: bool,
    build: Build,
) -> Result<Fixture, Error> {
    let fixes = compose::fixes(ctx, &states, &f.fixes)?;
    let content_hash = {
        let mut hasher = ctx.hasher.borrow_mut();
        hasher.update(serde_json::to_vec(f).unwrap_or_default());
        let digest = std::mem::take(&mut *hasher).finalize();
        gatebench_gittree::hex(&digest)
    };
    match build {
        Build::Recipe | Build::Trees | Build::Slim => check_placeholders(ctx, &states, &fixes)?,
        Build::Again(hash) if hash == content_hash => {}
        Build::Again(_) => {
            return Err(Error::invalid(
                ctx.folder,
                "the fixture changed since the corpus was loaded (a file of it added, removed \
                 or edited, or its fixture.yaml); load it again",
            ))
        }
    }
    let layers = match (golden, build) {
        (None, _) | (Some(_), Build::Trees | Build::Again(_)) => {
            Layers::Composed(Arc::new(Composed { states, fixes }))
        }
        (Some(golden), Build::Recipe) => Layers::OnDisk(Box::new(Recipe {
            golden: golden.trees.clone(),
            plant: f
                .plant
                .clone()
                .ok_or_else(|| ctx.err_at(None, "an omission fixture needs `plant`"))?,
            fixes: f.fixes.clone(),
            inputs: ctx.take_inputs(),
        })),
        (Some(golden), Build::Slim) => Layers::Reload(golden.clone()),
    };
    let fixture = Fixture {
        id: f.id.clone(),
        description: f.description.clone(),
        category: f.category.clone(),
        tags: f.tags.clone(),
        golden: golden.map(|g| g.id.clone()),
        file: ctx.file.to_path_buf(),
        worktree,
        layers,
        expect,
        content_hash,
    };
    Ok(match (golden, build) {
        (Some(_), Build::Slim) => fixture.slimmed(),
        _ => fixture,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn bundled() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
    }

    /// The bundled corpus: every omission fixture, composed, holds its golden's base tree itself
    /// (not a copy), and every file a layer leaves unchanged is the golden's content, not a second
    /// copy of it: what a composed fixture costs is what it plants, not its golden again.
    #[test]
    fn omission_fixtures_share_their_goldens_trees_and_contents() {
        let corpus = load(&bundled()).expect("the bundled corpus loads");
        let mut shared_files = 0;
        for f in corpus.fixtures.iter().filter(|f| !f.is_golden()) {
            let golden = corpus.get(f.golden.as_deref().unwrap()).unwrap();
            let golden = golden.in_memory().expect("a golden's trees are in memory");
            let trees = f.compose().unwrap();
            let (mine, theirs) = (&trees.states, &golden.states);
            assert!(
                mine.base.ptr_eq(&theirs.base),
                "{}: its base tree is a copy of its golden's",
                f.id
            );
            let pairs = [
                (Some(&mine.head), Some(&theirs.head)),
                (mine.staged.as_ref(), theirs.staged.as_ref()),
                (mine.unstaged.as_ref(), theirs.unstaged.as_ref()),
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

    /// A loaded corpus holds trees for its goldens only: every omission fixture is a recipe.
    #[test]
    fn omission_fixtures_are_loaded_as_recipes_and_goldens_as_trees() {
        let corpus = load(&bundled()).expect("the bundled corpus loads");
        let omissions = corpus.fixtures.iter().filter(|f| !f.is_golden()).count();
        assert!(omissions > 50, "{omissions} omission fixtures");
        for f in &corpus.fixtures {
            match (&f.layers, f.is_golden()) {
                (Layers::Composed(_), true) | (Layers::OnDisk(_), false) => {}
                _ => panic!(
                    "{}: golden {} with layers {:?}",
                    f.id,
                    f.is_golden(),
                    f.layers
                ),
            }
        }
    }

    /// Composing from a recipe gives exactly the trees the loader composed and validated: every
    /// fixture, every layer, every scripted fix (and nothing else is different about it).
    #[test]
    fn a_fixture_composed_from_its_recipe_has_the_trees_the_loader_validated() {
        let lazy = load(&bundled()).expect("the bundled corpus loads");
        let eager = load_with(&bundled(), Build::Trees).expect("the bundled corpus loads");
        assert_eq!(lazy.fixtures.len(), eager.fixtures.len());
        let mut fixes = 0;
        for (l, e) in lazy.fixtures.iter().zip(&eager.fixtures) {
            assert_eq!((&l.id, &l.content_hash), (&e.id, &e.content_hash));
            let validated = e.in_memory().expect("an eager load keeps every tree");
            let composed = l.compose().unwrap();
            let (a, b) = (&composed.states, &validated.states);
            assert_eq!(a.base, b.base, "{}: base", l.id);
            assert_eq!(a.head, b.head, "{}: head", l.id);
            assert_eq!(a.staged, b.staged, "{}: staged", l.id);
            assert_eq!(a.unstaged, b.unstaged, "{}: unstaged", l.id);
            assert_eq!(composed.fixes.len(), validated.fixes.len(), "{}", l.id);
            for (x, y) in composed.fixes.iter().zip(&validated.fixes) {
                assert_eq!(x.after_round, y.after_round, "{}", l.id);
                assert_eq!(x.files, y.files, "{}: fix after {}", l.id, x.after_round);
                fixes += 1;
            }
        }
        assert!(fixes > 10, "only {fixes} scripted fixes compared");
    }

    /// A corpus loaded slim holds no omission fixture's description, locus, finding matchers or
    /// recipe; loaded again in full, each is the fixture a full load gives, trees included. An
    /// edit after loading makes loading it again an error, never the fixture as it is now.
    #[test]
    fn a_slim_fixture_loaded_again_is_the_fixture_a_full_load_gives() {
        let slim = load_slim(&bundled()).expect("the bundled corpus loads slim");
        let eager = load_with(&bundled(), Build::Trees).expect("the bundled corpus loads");
        let entries: Vec<Entry> = slim.entries().collect();
        assert_eq!(entries.len(), eager.fixtures.len());
        assert_eq!(
            slim.slim.len(),
            eager.fixtures.iter().filter(|f| !f.is_golden()).count(),
            "every omission fixture is held slim"
        );
        let mut reloaded = 0;
        for (entry, e) in entries.iter().zip(&eager.fixtures) {
            assert_eq!(
                (entry.id(), entry.category(), entry.tags(), entry.golden()),
                (
                    e.id.as_str(),
                    e.category.as_str(),
                    &e.tags[..],
                    e.golden.as_deref()
                )
            );
            assert_eq!(entry.rounds(), e.expect.rounds);
            assert_eq!(slim.entry(&e.id).map(|x| x.id()), Some(e.id.as_str()));
            let s = entry.fixture();
            assert_eq!((&s.id, &s.content_hash), (&e.id, &e.content_hash));
            assert_eq!(
                (&s.category, &s.tags, &s.golden),
                (&e.category, &e.tags, &e.golden)
            );
            assert_eq!(
                (s.expect.verdict, s.expect.kind),
                (e.expect.verdict, e.expect.kind)
            );
            assert_eq!(s.expect.rounds, e.expect.rounds);
            if e.is_golden() {
                assert!(!s.is_slim(), "{}: a golden is held in full", s.id);
                continue;
            }
            assert!(s.is_slim(), "{}", s.id);
            assert!(
                s.description.is_empty() && s.expect.locus.is_empty(),
                "{}",
                s.id
            );
            assert!(s.expect.findings.is_empty(), "{}", s.id);
            // Its path found from its id (the bundled folders are named by their ids).
            assert_eq!(s.file, PathBuf::new(), "{}", s.id);
            assert_eq!(*s.yaml_file(), e.file, "{}", s.id);
            let full = s.full().unwrap();
            assert!(!full.is_slim());
            assert_eq!(full.file, e.file, "{}", s.id);
            assert_eq!(full.description, e.description, "{}", s.id);
            assert_eq!(
                format!("{:?}", full.expect),
                format!("{:?}", e.expect),
                "{}",
                s.id
            );
            let (a, b) = (full.in_memory().unwrap(), e.in_memory().unwrap());
            assert_eq!(a.states.final_files(), b.states.final_files(), "{}", s.id);
            assert_eq!(a.states.base, b.states.base, "{}", s.id);
            assert_eq!(a.fixes.len(), b.fixes.len(), "{}", s.id);
            for (x, y) in a.fixes.iter().zip(&b.fixes) {
                assert_eq!(x.files, y.files, "{}: fix after {}", s.id, x.after_round);
            }
            assert_eq!(s.compose().unwrap().states.head, b.states.head, "{}", s.id);
            reloaded += 1;
        }
        assert!(reloaded > 50, "only {reloaded} slim fixtures loaded again");

        // An edit after loading: loading it again names the fixture's folder and says so.
        let dir = tempfile::tempdir().unwrap();
        for id in [
            "subscription-cancel",
            "subscription-cancel-task-state-missing",
        ] {
            copy_dir(&bundled().join(id), &dir.path().join(id));
        }
        let corpus = load_slim(dir.path()).unwrap();
        let planted = corpus
            .entry("subscription-cancel-task-state-missing")
            .unwrap()
            .fixture();
        assert!(planted.full().is_ok());
        let yaml = planted.yaml_file().into_owned();
        let text = std::fs::read_to_string(&yaml).unwrap();
        std::fs::write(
            &yaml,
            text.replacen("description:", "description: edited,", 1),
        )
        .unwrap();
        let err = planted.full().unwrap_err().to_string();
        let folder = yaml.parent().unwrap().display().to_string();
        assert!(
            err.contains(&folder) && err.contains("changed since"),
            "{err}"
        );
        assert!(planted.compose().is_err());

        // A folder not named by its fixture's id: the slim fixture keeps its path.
        let renamed = dir.path().join("renamed");
        std::fs::rename(yaml.parent().unwrap(), &renamed).unwrap();
        std::fs::write(renamed.join("fixture.yaml"), text).unwrap();
        let corpus = load_slim(dir.path()).unwrap();
        let planted = corpus
            .entry("subscription-cancel-task-state-missing")
            .unwrap()
            .fixture();
        assert!(planted.is_slim());
        assert_eq!(planted.file, renamed.join("fixture.yaml"));
        assert_eq!(planted.full().unwrap().file, planted.file);
    }

    /// A fixture's overlay file removed, changed or added after loading: composing it is an error
    /// naming the file, never the trees of the files as they are now.
    #[test]
    fn a_fixture_whose_files_changed_after_loading_does_not_compose() {
        let dir = tempfile::tempdir().unwrap();
        for id in [
            "subscription-cancel",
            "subscription-cancel-acceptance-unchecked",
        ] {
            copy_dir(&bundled().join(id), &dir.path().join(id));
        }
        let corpus = load(dir.path()).expect("the copied fixtures load");
        let f = corpus
            .get("subscription-cancel-acceptance-unchecked")
            .unwrap();
        f.compose().expect("composes while its files are unchanged");
        let Layers::OnDisk(recipe) = &f.layers else {
            panic!("an omission fixture is a recipe")
        };
        let read = |p: &str| dir.path().join(&f.id).join(p);
        let first = recipe
            .inputs
            .first()
            .expect("the fixture reads files")
            .path
            .clone();
        let file = read(&first);
        let bytes = std::fs::read(&file).unwrap();
        let mut edited = bytes.clone();
        edited[0] ^= 0x20;
        std::fs::write(&file, &edited).unwrap();
        let e = f.compose().unwrap_err().to_string();
        assert!(
            e.contains(&*file.to_string_lossy()) && e.contains("changed"),
            "{e}"
        );
        std::fs::remove_file(&file).unwrap();
        let e = f.compose().unwrap_err().to_string();
        assert!(
            e.contains(&*file.to_string_lossy()) && e.contains("removed"),
            "{e}"
        );
        std::fs::write(&file, &bytes).unwrap();
        f.compose().expect("composes again once the file is back");
    }

    /// A plant folder swapped for a link to a folder outside the fixture after loading, holding
    /// the very same files (so the recipe's record of what was read still matches): composing
    /// the fixture when its trial starts refuses the link, as loading does.
    #[test]
    fn a_layer_folder_swapped_for_a_link_outside_after_loading_does_not_compose() {
        let dir = tempfile::tempdir().unwrap();
        let fixtures = dir.path().join("fixtures");
        for id in [
            "subscription-cancel",
            "subscription-cancel-acceptance-unchecked",
        ] {
            copy_dir(&bundled().join(id), &fixtures.join(id));
        }
        let corpus = load(&fixtures).expect("the copied fixtures load");
        let f = corpus
            .get("subscription-cancel-acceptance-unchecked")
            .unwrap();
        f.compose().expect("composes while its files are unchanged");
        let Layers::OnDisk(recipe) = &f.layers else {
            panic!("an omission fixture is a recipe")
        };
        let first = recipe.inputs.first().expect("the fixture reads files");
        let layer = first.path.split('/').next().unwrap().to_owned();
        let inside = fixtures.join(&f.id).join(&layer);
        let outside = dir.path().join("elsewhere");
        std::fs::rename(&inside, &outside).unwrap();
        std::os::unix::fs::symlink(&outside, &inside).unwrap();
        let e = f.compose().unwrap_err().to_string();
        assert!(
            e.contains("symlink pointing outside the fixture folder"),
            "{e}"
        );
    }

    fn copy_dir(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let target = to.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                copy_dir(&entry.path(), &target);
            } else {
                std::fs::copy(entry.path(), &target).unwrap();
            }
        }
    }
}
