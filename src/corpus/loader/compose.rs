//! Composing a fixture's layers into file trees: a layer folder read into a tree, layers applied
//! one over another, an omission planted over its golden's trees, the scripted fixes after them;
//! and every file a composition read (path, size, sha256), so that a later composition can be told
//! apart from the one the loader validated.

use std::cell::RefCell;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::corpus::loader::yaml;
use crate::corpus::model::files::Files;
use crate::corpus::model::fixture::{Fix, Layer, LayerName, Plant};
use crate::corpus::model::paths::check_repo_path;
use crate::error::{Error, Position};

/// File name suffix that keeps repository-like names (`Cargo.toml`) inert inside this project;
/// it is removed when a fixture is materialized.
pub const DISARM_SUFFIX: &str = ".fixture";

/// The file trees of each layer, composed.
#[derive(Debug, Clone, Default)]
pub struct States {
    pub base: Files,
    pub head: Files,
    pub staged: Option<Files>,
    pub unstaged: Option<Files>,
}

/// Why a plant cannot go into the layer it names: the golden has later layers, written over the
/// layer it would change.
#[derive(Debug)]
pub enum PlantInto<E> {
    /// Into `head`, of a golden with a staged or an unstaged layer.
    HeadUnderLaterLayers,
    /// Into `staged`, of a golden with an unstaged layer.
    StagedUnderUnstaged,
    /// The change itself failed.
    Apply(E),
}

impl States {
    /// These layers with `apply` run on the one `into` names: a staged or unstaged layer the
    /// golden lacks starts from the layer below it. The layers are shared wherever `apply` does not
    /// change them. A plant (a fixture's, or a mutant's) goes only into the last layer there is.
    pub fn plant_into<E>(
        &self,
        into: LayerName,
        apply: impl FnOnce(Files) -> Result<Files, E>,
    ) -> Result<States, PlantInto<E>> {
        let mut states = self.clone();
        match into {
            LayerName::Head => {
                if self.staged.is_some() || self.unstaged.is_some() {
                    return Err(PlantInto::HeadUnderLaterLayers);
                }
                states.head = apply(states.head).map_err(PlantInto::Apply)?;
            }
            LayerName::Staged => {
                if self.unstaged.is_some() {
                    return Err(PlantInto::StagedUnderUnstaged);
                }
                let from = states.staged.take().unwrap_or_else(|| states.head.clone());
                states.staged = Some(apply(from).map_err(PlantInto::Apply)?);
            }
            LayerName::Unstaged => {
                let from = states
                    .unstaged
                    .take()
                    .or_else(|| states.staged.clone())
                    .unwrap_or_else(|| states.head.clone());
                states.unstaged = Some(apply(from).map_err(PlantInto::Apply)?);
            }
        }
        Ok(states)
    }
}

/// The work tree after a scripted fix, committed on the feature branch.
#[derive(Debug, Clone)]
pub struct FixState {
    pub after_round: u32,
    pub files: Files,
}

/// Every composed tree of a fixture: its layers, then its scripted fixes in order.
#[derive(Debug, Clone, Default)]
pub struct Composed {
    pub states: States,
    pub fixes: Vec<FixState>,
}

impl Composed {
    /// The work tree after every layer: what the pipeline sees first.
    pub fn final_files(&self) -> &Files {
        self.states.final_files()
    }
}

impl States {
    /// The last layer: the work tree after every layer.
    pub fn final_files(&self) -> &Files {
        self.unstaged
            .as_ref()
            .or(self.staged.as_ref())
            .unwrap_or(&self.head)
    }
}

/// One file a composition read: its path under the fixture folder (as on disk, `.fixture` suffix
/// included), its size and its sha256.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Input {
    pub path: String,
    pub len: u64,
    pub sha256: [u8; 32],
}

/// What one composition works with: the fixture's file (errors name it), its folder (layer folders
/// are relative to it), its text (to locate errors; empty when composing again later), the content
/// hash being fed and the files read.
pub struct Ctx<'a> {
    pub file: &'a Path,
    pub folder: &'a Path,
    pub text: &'a str,
    /// Fed every input this fixture reads (its files, its spec, its golden's hash): the fixture's
    /// content hash, computed from inputs rather than from the composed trees, which repeat the
    /// golden's files in every layer.
    pub hasher: RefCell<Sha256>,
    /// Every file read, in the order read.
    pub inputs: RefCell<Vec<Input>>,
}

impl<'a> Ctx<'a> {
    /// A composition of the fixture described by `file` (its text `text`, for error positions).
    pub fn new(file: &'a Path, text: &'a str) -> Ctx<'a> {
        Ctx {
            file,
            folder: file.parent().unwrap_or(Path::new(".")),
            text,
            hasher: Default::default(),
            inputs: Default::default(),
        }
    }

    pub fn err(&self, key: &str, value: &str, message: impl Into<String>) -> Error {
        Error::invalid_at(self.file, yaml::locate(self.text, key, value), message)
    }

    pub fn err_at(&self, position: Option<Position>, message: impl Into<String>) -> Error {
        Error::invalid_at(self.file, position, message)
    }

    /// The files read so far, sorted by path.
    pub fn take_inputs(&self) -> Vec<Input> {
        let mut inputs = self.inputs.take();
        inputs.sort();
        inputs
    }
}

/// The layers of an omission fixture: `plant` applied to the layer it names of `golden`'s layers
/// (shared with the golden wherever it does not change them).
pub fn plant(ctx: &Ctx, golden: &States, plant: &Plant) -> Result<States, Error> {
    let layer = Layer {
        overlay: plant.overlay.clone(),
        delete: plant.delete.clone(),
    };
    golden
        .plant_into(plant.into, |from| apply_layer(ctx, "plant", from, &layer))
        .map_err(|e| match e {
            PlantInto::HeadUnderLaterLayers => ctx.err("into", "head", "planting into `head` of a golden that has staged or unstaged layers is not supported; plant into the last layer"),
            PlantInto::StagedUnderUnstaged => ctx.err(
                "into",
                "staged",
                "the golden has an unstaged layer; plant into `unstaged`",
            ),
            PlantInto::Apply(e) => e,
        })
}

/// The trees after each scripted fix, each applied over the one before (the first over the last
/// layer of `states`).
pub fn fixes(ctx: &Ctx, states: &States, fixes: &[Fix]) -> Result<Vec<FixState>, Error> {
    let mut out = Vec::new();
    let mut current = states.final_files().clone();
    for fix in fixes {
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
        out.push(FixState {
            after_round: fix.after_round,
            files: current.clone(),
        });
    }
    Ok(out)
}

pub fn apply_layer(ctx: &Ctx, what: &str, mut files: Files, layer: &Layer) -> Result<Files, Error> {
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

/// Reads every file under `ctx.folder/dir` into a tree. Symlinks (the layer folder `dir` itself, a
/// folder on its way, or anything under it) are followed only when they stay inside the fixture
/// folder, and every real folder is visited once (a folder reached twice
/// through symlinks is an error, so links cannot multiply the tree). Names must be UTF-8, files
/// regular, and every final repository path (after the `.fixture` suffix is removed) safe
/// (`check_repo_path`: nothing git takes for `.git`).
pub fn read_tree(ctx: &Ctx, key: &str, dir: &str) -> Result<Files, Error> {
    let (root, real_root, fixture_root) = layer_root(ctx, key, dir)?;
    let mut walk = TreeWalk {
        ctx,
        key,
        dir,
        fixture_root,
        visited: HashSet::from([real_root.clone()]),
        files: Files::new(),
        total: 0,
    };
    // Each folder with its real path: a folder reached without a symlink is its parent's real
    // path plus its name, so only symlinks are resolved (`canonicalize` reads every link of the
    // path, one system call per component).
    let mut stack = vec![(root, real_root, String::new())];
    while let Some((abs, real_abs, rel)) = stack.pop() {
        let unreadable =
            |e: std::io::Error| Error::invalid(&abs, format!("the folder cannot be read: {e}"));
        let entries = std::fs::read_dir(&abs).map_err(unreadable)?;
        for entry in entries {
            let entry = entry.map_err(unreadable)?;
            if let Some(folder) = walk.entry(&entry, &real_abs, &rel)? {
                stack.push(folder);
            }
        }
    }
    hash_files(&mut ctx.hasher.borrow_mut(), &walk.files);
    Ok(walk.files)
}

/// The layer folder `dir` of the fixture: its path, its real path, and the fixture folder's real
/// path; an error when it is not a folder, or is reached through a link leaving the fixture.
fn layer_root(ctx: &Ctx, key: &str, dir: &str) -> Result<(PathBuf, PathBuf, PathBuf), Error> {
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
    // The layer's folder is the fixture folder's real path plus `dir` unless a folder on the way
    // is a symlink: one `lstat` a component instead of resolving the whole path again.
    let through_link = Path::new(dir).ancestors().any(|prefix| {
        !prefix.as_os_str().is_empty()
            && ctx
                .folder
                .join(prefix)
                .symlink_metadata()
                .map_or(true, |meta| meta.file_type().is_symlink())
    });
    if !through_link {
        let real_root = fixture_root.join(dir);
        return Ok((root, real_root, fixture_root));
    }
    let target = root
        .canonicalize()
        .map_err(|e| Error::io("resolve", &root, e))?;
    // The layer folder itself (or a folder on its way) is a link: it must stay inside the
    // fixture folder, as a link inside a layer must (below). Without this a `base`, an
    // overlay or a fix linked to any folder on the machine was read into the repository.
    if !target.starts_with(&fixture_root) {
        return Err(ctx.err(
            key,
            dir,
            format!(
                "`{dir}` is reached through a symlink pointing outside the fixture folder ({}); fixture trees must be self-contained",
                target.display()
            ),
        ));
    }
    Ok((root, target, fixture_root))
}

/// A folder still to read: its path, its real path, and its path in the repository.
type Folder = (PathBuf, PathBuf, String);

/// [`read_tree`] under way: the files read so far, their bytes, and the folders visited (by real
/// path).
struct TreeWalk<'c, 'a> {
    ctx: &'c Ctx<'a>,
    key: &'c str,
    dir: &'c str,
    fixture_root: PathBuf,
    visited: HashSet<PathBuf>,
    files: Files,
    total: u64,
}

impl TreeWalk<'_, '_> {
    /// One entry of the folder `rel` (real path `real_abs`): a file read, or a folder returned
    /// to read; anything else refused.
    fn entry(
        &mut self,
        entry: &std::fs::DirEntry,
        real_abs: &Path,
        rel: &str,
    ) -> Result<Option<Folder>, Error> {
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
        let file_type = entry.file_type().map_err(|e| Error::io("read", &path, e))?;
        let link = if file_type.is_symlink() {
            Some(self.link_target(&path)?)
        } else {
            None
        };
        let (is_dir, is_file) = match &link {
            Some((meta, _)) => (meta.is_dir(), meta.is_file()),
            None => (file_type.is_dir(), file_type.is_file()),
        };
        if is_dir {
            check_repo_path(&rel_path).map_err(|e| Error::invalid(&path, e))?;
            let real = match link {
                Some((_, target)) => target,
                None => real_abs.join(&name),
            };
            if !self.visited.insert(real.clone()) {
                return Err(Error::invalid(
                    &path,
                    format!("the folder {} is reached twice (through symlinks); a fixture tree visits each folder once", real.display()),
                ));
            }
            Ok(Some((path, real, rel_path)))
        } else if is_file {
            self.file(&path, &rel_path)?;
            Ok(None)
        } else {
            Err(Error::invalid(
                &path,
                "not a regular file or folder (a FIFO, socket or device): fixture trees hold files only",
            ))
        }
    }

    /// What the symlink `path` points at (its metadata and real path): it must resolve, inside
    /// the fixture folder.
    fn link_target(&self, path: &Path) -> Result<(std::fs::Metadata, PathBuf), Error> {
        let target = path
            .canonicalize()
            .map_err(|e| Error::invalid(path, format!("a symlink that cannot be resolved: {e}")))?;
        if !target.starts_with(&self.fixture_root) {
            return Err(Error::invalid(
                path,
                format!("a symlink pointing outside the fixture folder ({}); fixture trees must be self-contained", target.display()),
            ));
        }
        let meta = std::fs::metadata(path).map_err(|e| Error::io("read", path, e))?;
        Ok((meta, target))
    }

    /// The file `path` read into the tree at `rel_path` (without the disarming suffix), within
    /// the limits of a tree, and recorded as an input.
    fn file(&mut self, path: &Path, rel_path: &str) -> Result<(), Error> {
        let (ctx, key, dir) = (self.ctx, self.key, self.dir);
        let repo_path = rel_path
            .strip_suffix(DISARM_SUFFIX)
            .unwrap_or(rel_path)
            .to_owned();
        check_repo_path(&repo_path).map_err(|e| Error::invalid(path, e))?;
        if self.files.len() >= MAX_TREE_FILES {
            return Err(ctx.err(
                key,
                dir,
                format!(
                    "`{dir}` holds more than {MAX_TREE_FILES} files; the limit is {MAX_TREE_FILES}"
                ),
            ));
        }
        let content = yaml::read_input(path, MAX_FILE_BYTES)?;
        self.total += content.len() as u64;
        ctx.inputs.borrow_mut().push(Input {
            path: format!("{dir}/{rel_path}"),
            len: content.len() as u64,
            sha256: Sha256::digest(&content).into(),
        });
        if self.total > MAX_TREE_BYTES {
            return Err(ctx.err(
                key,
                dir,
                format!(
                    "`{dir}` holds more than {MAX_TREE_BYTES} bytes; the limit is {MAX_TREE_BYTES}"
                ),
            ));
        }
        if self
            .files
            .insert(repo_path.clone(), content.into())
            .is_some()
        {
            return Err(Error::invalid(
                path,
                format!("two files become `{repo_path}` once `{DISARM_SUFFIX}` is removed"),
            ));
        }
        Ok(())
    }
}

fn hash_files(hasher: &mut Sha256, files: &Files) {
    for (path, content) in files {
        hasher.update((path.len() as u64).to_le_bytes());
        hasher.update(path.as_bytes());
        hasher.update((content.len() as u64).to_le_bytes());
        hasher.update(content);
    }
}
