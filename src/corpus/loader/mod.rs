//! Loading the fixture corpus: every `fixtures/*/fixture.yaml` parsed strictly, goldens resolved,
//! layers composed into file trees and every placeholder checked, before anything runs. Goldens
//! keep their trees; omission fixtures keep the recipe to compose them again (`model/recipe.rs`).
//! Parsing and the order of the load are here; building one fixture is `build.rs`, the checks a
//! schema cannot say `checks.rs`.

pub(crate) mod build;
pub(crate) mod checks;
pub mod compose;
pub mod hygiene;
pub mod placeholder;
pub mod yaml;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use crate::corpus::loader::build::{build_golden, build_omission, Build};
use crate::corpus::model::corpus::{Corpus, Fixture};
use crate::corpus::model::fixture::FixtureFile;
use crate::corpus::model::recipe::GoldenRef;
use crate::corpus::model::slim::{Interner, Slim};
use crate::error::Error;

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
    let folders = fixture_folders(dir).map_err(|e| vec![e])?;
    let mut errors = Vec::new();
    let (files, heads) = parse_heads(dir, folders);
    let (goldens, plants, seen) = sort_heads(&files, heads, &mut errors);
    // Goldens first: omission fixtures are built on top of them.
    let mut goldens_built: BTreeMap<String, Fixture> = BTreeMap::new();
    for (i, p) in goldens {
        match build_golden(&files[i], &p) {
            Ok(f) => {
                goldens_built.insert(f.id.clone(), f);
            }
            Err(e) => errors.push(e),
        }
    }
    let refs = golden_refs(&goldens_built, dir);
    let omissions = Omissions {
        files: &files,
        refs: &refs,
        seen: &seen,
        build,
    };
    let (mut fixtures, slim) = omissions.build_all(&plants, goldens_built.len(), &mut errors);
    fixtures.extend(goldens_built.into_values());
    fixtures.sort_unstable_by(|a, b| a.id.cmp(&b.id));
    if errors.is_empty() {
        Ok(Corpus {
            fixtures,
            slim,
            unviable_mutants: Vec::new(),
            dir: dir.to_path_buf(),
        })
    } else {
        Err(errors)
    }
}

/// The fixture folders of `dir` (hidden ones skipped), sorted.
fn fixture_folders(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| Error::invalid(dir, format!("the fixtures folder cannot be read: {e}")))?;
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
    Ok(folders)
}

/// Every fixture.yaml parsed in parallel, each to its [`Head`]; the files in folder order.
/// Only the goldens' parsed files are kept: an omission fixture's is parsed again when it is
/// built ([`Omissions::build_all`]), so that ten thousand parsed files are never held at once
/// (they were the peak of a large run's memory). Each path is held once, in the files returned;
/// the ids map to their place there.
fn parse_heads(dir: &Path, folders: Vec<PathBuf>) -> (Vec<PathBuf>, Vec<Result<Head, Error>>) {
    let real_dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    folders
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
        .unzip()
}

/// A golden's place among the files, with its parsed file.
type ParsedGolden = (usize, Box<yaml::Parsed<FixtureFile>>);

/// The heads checked for duplicate ids in folder order, and sorted: the goldens (with their
/// parsed files), the omission fixtures' places, and every id seen.
fn sort_heads(
    files: &[PathBuf],
    heads: Vec<Result<Head, Error>>,
    errors: &mut Vec<Error>,
) -> (Vec<ParsedGolden>, Vec<usize>, BTreeMap<String, Seen>) {
    let mut goldens = Vec::new();
    let mut plants = Vec::new();
    let mut seen: BTreeMap<String, Seen> = BTreeMap::new();
    for (i, head) in heads.into_iter().enumerate() {
        let head = match head {
            Ok(head) => head,
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
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
    (goldens, plants, seen)
}

/// What an omission fixture built on each golden finds of it: its trees and the folder its file
/// is found in again.
fn golden_refs(
    goldens: &BTreeMap<String, Fixture>,
    dir: &Path,
) -> BTreeMap<String, Arc<GoldenRef>> {
    goldens
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
        .collect()
}

/// What building the omission fixtures reads: the fixture files, the goldens built, every id seen,
/// and how each is kept.
struct Omissions<'l> {
    files: &'l [PathBuf],
    refs: &'l BTreeMap<String, Arc<GoldenRef>>,
    seen: &'l BTreeMap<String, Seen>,
    build: Build<'static>,
}

impl Omissions<'_> {
    /// The omission fixtures at `plants` (places among the files) built in parallel, each parsed
    /// again and dropped once built: each reads only the goldens built before. Collected straight
    /// into the corpus's lists (with room for `goldens` more), never into a map or a list of
    /// results as well: at ten thousand fixtures those copies were the load's peak. Their errors
    /// go to `errors`, in folder order.
    fn build_all(
        &self,
        plants: &[usize],
        goldens: usize,
        errors: &mut Vec<Error>,
    ) -> (Vec<Fixture>, Vec<Slim>) {
        let failed = std::sync::Mutex::new(Vec::new());
        let (mut fixtures, mut slim): (Vec<Fixture>, Vec<Slim>) = match self.build {
            Build::Slim => (
                Vec::with_capacity(goldens),
                Vec::with_capacity(plants.len()),
            ),
            _ => (Vec::with_capacity(plants.len() + goldens), Vec::new()),
        };
        let mut interner = Interner::default();
        // In batches: rayon collects a filtered iterator into per-thread lists before it appends
        // them, so the whole list at once was held twice (4 MB more at 10,000 fixtures). Each
        // batch is then held slim when the load is (`Slim`), whole otherwise.
        let mut batch: Vec<Fixture> = Vec::with_capacity(LOAD_BATCH.min(plants.len()));
        for chunk in plants.chunks(LOAD_BATCH) {
            batch.par_extend(chunk.par_iter().filter_map(|&at| {
                self.build_one(at)
                    .map_err(|e| {
                        failed
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .push((at, e))
                    })
                    .ok()
            }));
            for f in batch.drain(..) {
                match self.build {
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
        slim.sort_unstable_by(|a, b| a.id.cmp(&b.id));
        (fixtures, slim)
    }

    /// The omission fixture of the file at `at`, parsed again.
    fn build_one(&self, at: usize) -> Result<Fixture, Error> {
        let file = &self.files[at];
        yaml::load::<FixtureFile>(file)
            .and_then(|p| build_omission(file, &p, self.refs, self.seen, self.build))
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
pub(crate) struct Head {
    id: String,
    id_at: Option<crate::error::Position>,
    golden: Option<Box<yaml::Parsed<FixtureFile>>>,
}

/// A fixture id seen while loading: the folder it is in (its place in the load's list of
/// files) and whether it is an omission fixture.
pub(crate) struct Seen {
    pub(crate) file: usize,
    pub(crate) omission: bool,
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

#[cfg(test)]
mod tests;
