//! Importing a golden from an existing git repository (`gatebench import`): base, head, staged and
//! unstaged layers read with git2, risky files left out, ledger ids turned into placeholders.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use git2::{ObjectType, Oid, Repository};
use globset::{Glob, GlobSet, GlobSetBuilder};
use regex::Regex;

use crate::corpus::loader::DISARM_SUFFIX;
use crate::corpus::paths::check_repo_path;
use crate::error::{Error, Result};
use gatebench_gittree as gittree;

/// The default `--max-file-size`: 1 MiB.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 1024 * 1024;

/// What to import, and where to.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    /// The repository (its work tree, or a bare repository without `staged`/`unstaged`).
    pub repo: PathBuf,
    /// The base commit; `None`: the merge base of the head with `main` (or `master`).
    pub base: Option<String>,
    /// The head commit; `None`: `HEAD`.
    pub head: Option<String>,
    /// Import the index (against the head) as the `staged` layer.
    pub staged: bool,
    /// Import the work tree (against the index) as the `unstaged` layer: tracked files as they are
    /// in the work tree, and untracked files that are not ignored.
    pub unstaged: bool,
    pub id: String,
    /// The fixtures folder; the fixture is written to `out/<id>`.
    pub out: PathBuf,
    /// Replace an existing `out/<id>`.
    pub force: bool,
    /// Files larger than this (bytes) are left out unless `allow` names them.
    pub max_file_size: u64,
    /// Globs (matched against repository paths) of files kept although they are over the size
    /// limit or look like secrets.
    pub allow: Vec<String>,
    /// The fixture's description; `None`: one naming the repository and commits.
    pub description: Option<String>,
}

/// What an import wrote and what it could not keep.
#[derive(Debug, Clone, Default)]
pub struct Imported {
    /// The fixture folder written (`out/<id>`).
    pub folder: PathBuf,
    pub base_commit: String,
    pub head_commit: String,
    /// Per layer: name, files written, paths deleted.
    pub layers: Vec<(String, usize, usize)>,
    /// Files in no layer of the fixture: path, why.
    pub left_out: Vec<(String, String)>,
    /// Files kept with less than they had: path, what was lost.
    pub lossy: Vec<(String, String)>,
    /// Files stored with the `.fixture` suffix (repository paths).
    pub disarmed: Vec<String>,
    /// Placeholders introduced: layer, path, placeholder.
    pub placeholders: Vec<(String, String, String)>,
    /// Ids left as they are in a ledger file: layer, path, why.
    pub literal: Vec<(String, String, String)>,
}

/// How a file was stored in the source repository.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Plain,
    Executable,
    Symlink,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    /// Empty when the file is over its read limit ([`ReadLimit`]): it is left out unread.
    content: Vec<u8>,
    mode: Mode,
    /// The file's size, known before its content is read.
    size: u64,
    /// Its git blob id (for the source tree's id, which counts files left out too).
    blob: Oid,
}

/// How much of a file is read: a file over the limit is left out, so it is never read whole (its
/// size comes from the object database's header or from fstat first). Files `--allow` names are
/// read up to the largest file a fixture can hold.
struct ReadLimit<'a> {
    max_file_size: u64,
    allow: &'a GlobSet,
}

impl ReadLimit<'_> {
    fn of(&self, path: &str) -> u64 {
        if self.allow.is_match(path) {
            crate::corpus::compose::MAX_FILE_BYTES
        } else {
            self.max_file_size
        }
    }
}

type Tree = BTreeMap<String, Entry>;

/// Which earlier layers a layer's placeholders may name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum LayerKind {
    Base,
    Head,
    Staged,
    Unstaged,
}

impl LayerKind {
    fn name(self) -> &'static str {
        match self {
            LayerKind::Base => "base",
            LayerKind::Head => "head",
            LayerKind::Staged => "staged",
            LayerKind::Unstaged => "unstaged",
        }
    }
}

/// One layer as read from the repository, and the ids its files may record.
struct Source {
    kind: LayerKind,
    files: Tree,
    /// The commit and its tree, for committed layers.
    commit: Option<(Oid, Oid)>,
    /// `gittree::source_tree_id` of the layer's files as they are in the repository.
    source_tree: String,
}

/// Imports the repository `opts.repo` as a golden fixture `opts.out/<id>`.
pub fn import(opts: &ImportOptions) -> Result<Imported> {
    check_id(&opts.id, &opts.out)?;
    let folder = opts.out.join(&opts.id);
    if folder.exists() && !opts.force {
        return Err(Error::invalid(
            &folder,
            "the fixture folder exists; pass --force to replace it",
        ));
    }
    let allow = allow_set(&opts.allow, &opts.repo)?;
    let limit = ReadLimit {
        max_file_size: opts.max_file_size,
        allow: &allow,
    };
    let repo = Repository::open(&opts.repo).map_err(|e| {
        Error::invalid(&opts.repo, format!("not a git repository: {}", e.message()))
    })?;

    let head_spec = opts.head.as_deref().unwrap_or("HEAD");
    let head_commit = resolve_commit(&repo, head_spec, &opts.repo)?;
    let base_commit = match &opts.base {
        Some(spec) => resolve_commit(&repo, spec, &opts.repo)?,
        None => default_base(&repo, head_commit, &opts.repo)?,
    };

    let mut imported = Imported {
        folder: folder.clone(),
        base_commit: base_commit.to_string(),
        head_commit: head_commit.to_string(),
        ..Imported::default()
    };
    let mut sources = vec![
        committed(&repo, LayerKind::Base, base_commit, &limit, &mut imported)?,
        committed(&repo, LayerKind::Head, head_commit, &limit, &mut imported)?,
    ];
    if opts.staged || opts.unstaged {
        if repo.is_bare() {
            return Err(Error::invalid(
                &opts.repo,
                "a bare repository has no index or work tree: --staged and --unstaged need one",
            ));
        }
        let index = index_tree(&repo, &limit, &mut imported)?;
        if opts.staged {
            sources.push(uncommitted(LayerKind::Staged, index.clone()));
        }
        if opts.unstaged {
            let work = work_tree(&repo, &index, &limit, &mut imported)?;
            sources.push(uncommitted(LayerKind::Unstaged, work));
        }
    }

    // What is kept: the same rules for every layer, so deletions stay consistent.
    let mut left_out: BTreeMap<String, String> =
        std::mem::take(&mut imported.left_out).into_iter().collect();
    let kept: Vec<Tree> = sources
        .iter()
        .map(|s| {
            s.files
                .iter()
                .filter(|(path, entry)| match refusal(path, entry, opts, &allow) {
                    Some(reason) => {
                        left_out.entry((*path).clone()).or_insert(reason);
                        false
                    }
                    None => true,
                })
                .map(|(p, e)| (p.clone(), e.clone()))
                .collect()
        })
        .collect();
    imported.left_out = left_out.into_iter().collect();

    let mut lossy: BTreeMap<String, String> = BTreeMap::new();
    for tree in &kept {
        for (path, entry) in tree {
            match entry.mode {
                Mode::Executable => {
                    lossy.entry(path.clone()).or_insert_with(|| {
                        "executable bit lost: fixture files are materialized with mode 100644"
                            .into()
                    });
                }
                Mode::Symlink => {
                    lossy.entry(path.clone()).or_insert_with(|| {
                        "symlink written as a plain file holding its target (as git does with core.symlinks=false): fixtures have no symlinks".into()
                    });
                }
                Mode::Plain => {}
            }
        }
    }
    imported.lossy = lossy.into_iter().collect();

    // Ledger files with ids turned into placeholders, layer by layer.
    let mut templated: Vec<BTreeMap<String, Vec<u8>>> = Vec::new();
    for (i, source) in sources.iter().enumerate() {
        let values = placeholder_values(&sources[..i], source, &kept[i]);
        let mut out = BTreeMap::new();
        for (path, entry) in &kept[i] {
            let unchanged = i > 0 && kept[i - 1].get(path) == Some(entry);
            if unchanged {
                // Carried over: the fixture keeps the bytes the earlier layer was given.
                out.insert(path.clone(), templated[i - 1][path].clone());
                continue;
            }
            let content = template_file(
                source.kind,
                path,
                &entry.content,
                &values,
                i.checked_sub(1).and_then(|p| templated[p].get(path)),
                &mut imported,
            );
            out.insert(path.clone(), content);
        }
        templated.push(out);
    }

    // Written next to the destination, checked by loading it, then moved into place.
    std::fs::create_dir_all(&opts.out).map_err(|e| Error::io("create", &opts.out, e))?;
    let staging = tempfile::Builder::new()
        .prefix(".import-")
        .tempdir_in(&opts.out)
        .map_err(|e| Error::io("create a temporary folder in", &opts.out, e))?;
    let tmp = staging.path().join(&opts.id);
    std::fs::create_dir(&tmp).map_err(|e| Error::io("create", &tmp, e))?;

    let mut yaml_layers = String::new();
    for (i, source) in sources.iter().enumerate() {
        let name = source.kind.name();
        let dir = tmp.join(name);
        std::fs::create_dir(&dir).map_err(|e| Error::io("create", &dir, e))?;
        let (written, deleted) = if i == 0 {
            (templated[0].keys().cloned().collect::<Vec<_>>(), Vec::new())
        } else {
            layer_diff(&kept[i - 1], &kept[i], &folder)?
        };
        for path in &written {
            write_file(&dir, path, &templated[i][path], &mut imported.disarmed)?;
        }
        imported
            .layers
            .push((name.to_owned(), written.len(), deleted.len()));
        if i == 0 {
            continue;
        }
        yaml_layers.push_str(&format!("{name}:\n"));
        if !written.is_empty() {
            yaml_layers.push_str(&format!("  overlay: {name}\n"));
        }
        if !deleted.is_empty() {
            yaml_layers.push_str("  delete:\n");
            for path in &deleted {
                yaml_layers.push_str(&format!("    - {}\n", quote(path)));
            }
        }
        if written.is_empty() && deleted.is_empty() {
            yaml_layers.push_str("  delete: []\n");
        }
    }
    imported.disarmed.sort();
    imported.disarmed.dedup();

    let yaml = fixture_yaml(opts, &imported, &yaml_layers);
    let yaml_path = tmp.join("fixture.yaml");
    std::fs::write(&yaml_path, yaml).map_err(|e| Error::io("write", &yaml_path, e))?;

    if let Err(errors) = crate::corpus::load(staging.path()) {
        let message = errors
            .iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("; ");
        return Err(Error::Internal(format!(
            "the imported fixture does not load: {message}"
        )));
    }
    if folder.exists() {
        std::fs::remove_dir_all(&folder).map_err(|e| Error::io("remove", &folder, e))?;
    }
    std::fs::rename(&tmp, &folder).map_err(|e| Error::io("move into place", &folder, e))?;
    Ok(imported)
}

/// The loader's id rule: lowercase letters, digits and dashes, not starting with a dash.
fn check_id(id: &str, out: &Path) -> Result<()> {
    let ok = !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !id.starts_with('-');
    if ok {
        Ok(())
    } else {
        Err(Error::invalid(
            out,
            format!("fixture id `{id}` must be lowercase letters, digits and dashes"),
        ))
    }
}

fn allow_set(globs: &[String], repo: &Path) -> Result<GlobSet> {
    let mut builder = GlobSetBuilder::new();
    for glob in globs {
        let glob =
            Glob::new(glob).map_err(|e| Error::invalid(repo, format!("--allow `{glob}`: {e}")))?;
        builder.add(glob);
    }
    builder
        .build()
        .map_err(|e| Error::invalid(repo, format!("--allow: {e}")))
}

fn resolve_commit(repo: &Repository, spec: &str, dir: &Path) -> Result<Oid> {
    let object = repo
        .revparse_single(spec)
        .map_err(|e| Error::invalid(dir, format!("`{spec}` names no commit: {}", e.message())))?;
    let commit = object
        .peel_to_commit()
        .map_err(|e| Error::invalid(dir, format!("`{spec}` is not a commit: {}", e.message())))?;
    Ok(commit.id())
}

/// The merge base of the head with `main` (or `master` when there is no `main`).
fn default_base(repo: &Repository, head: Oid, dir: &Path) -> Result<Oid> {
    for branch in ["main", "master"] {
        let Ok(reference) = repo.find_branch(branch, git2::BranchType::Local) else {
            continue;
        };
        let Some(target) = reference.get().target() else {
            continue;
        };
        return repo.merge_base(head, target).map_err(|e| {
            Error::invalid(
                dir,
                format!(
                    "the head and `{branch}` have no merge base ({}); pass --base",
                    e.message()
                ),
            )
        });
    }
    Err(Error::invalid(
        dir,
        "no `main` or `master` branch to take the merge base with; pass --base REF",
    ))
}

fn mode_of(filemode: u32) -> Option<Mode> {
    match filemode & 0o170000 {
        0o100000 if filemode & 0o111 != 0 => Some(Mode::Executable),
        0o100000 => Some(Mode::Plain),
        0o120000 => Some(Mode::Symlink),
        _ => None,
    }
}

fn committed(
    repo: &Repository,
    kind: LayerKind,
    commit: Oid,
    limit: &ReadLimit<'_>,
    imported: &mut Imported,
) -> Result<Source> {
    let odb = repo
        .odb()
        .map_err(|e| Error::git("open the object database", e))?;
    let commit_obj = repo
        .find_commit(commit)
        .map_err(|e| Error::git("find a commit", e))?;
    let tree = commit_obj
        .tree()
        .map_err(|e| Error::git("read a commit's tree", e))?;
    let mut files = Tree::new();
    let mut failed = None;
    tree.walk(git2::TreeWalkMode::PreOrder, |dir, entry| {
        let name = String::from_utf8_lossy(entry.name_bytes());
        let path = format!("{dir}{name}");
        match entry.kind() {
            Some(ObjectType::Tree) => return git2::TreeWalkResult::Ok,
            Some(ObjectType::Blob) => {}
            _ => {
                imported
                    .left_out
                    .push((path, "a submodule: fixtures hold files only".into()));
                return git2::TreeWalkResult::Ok;
            }
        }
        if std::str::from_utf8(entry.name_bytes()).is_err()
            || std::str::from_utf8(dir.as_bytes()).is_err()
        {
            imported
                .left_out
                .push((path, "a file name that is not UTF-8".into()));
            return git2::TreeWalkResult::Ok;
        }
        let mode = mode_of(entry.filemode() as u32).unwrap_or(Mode::Plain);
        match read_blob(repo, &odb, entry.id(), limit.of(&path)) {
            Ok((content, size)) => {
                files.insert(
                    path,
                    Entry {
                        content,
                        mode,
                        size,
                        blob: entry.id(),
                    },
                );
                git2::TreeWalkResult::Ok
            }
            Err(e) => {
                failed = Some(e);
                git2::TreeWalkResult::Abort
            }
        }
    })
    .map_err(|e| Error::git("walk a tree", e))?;
    if let Some(e) = failed {
        return Err(Error::git("read a blob", e));
    }
    let source_tree = source_tree_of(&files);
    Ok(Source {
        kind,
        files,
        commit: Some((commit, tree.id())),
        source_tree,
    })
}

fn uncommitted(kind: LayerKind, files: Tree) -> Source {
    let source_tree = source_tree_of(&files);
    Source {
        kind,
        files,
        commit: None,
        source_tree,
    }
}

fn source_tree_of(files: &Tree) -> String {
    gittree::source_tree_id_of_blobs(files.iter().map(|(p, e)| (p.as_str(), e.blob))).to_string()
}

/// A blob's content and size, its content only when its size (from the object's header, read
/// first) is within `limit`.
fn read_blob(
    repo: &Repository,
    odb: &git2::Odb<'_>,
    id: Oid,
    limit: u64,
) -> std::result::Result<(Vec<u8>, u64), git2::Error> {
    let (size, _) = odb.read_header(id)?;
    let size = size as u64;
    if size > limit {
        return Ok((Vec::new(), size));
    }
    Ok((repo.find_blob(id)?.content().to_vec(), size))
}

/// The files of the index (stage 0); a conflicted index is refused.
fn index_tree(repo: &Repository, limit: &ReadLimit<'_>, imported: &mut Imported) -> Result<Tree> {
    let index = repo.index().map_err(|e| Error::git("read the index", e))?;
    let odb = repo
        .odb()
        .map_err(|e| Error::git("open the object database", e))?;
    let mut files = Tree::new();
    for entry in index.iter() {
        let path = String::from_utf8_lossy(&entry.path).into_owned();
        if (entry.flags >> 12) & 0x3 != 0 {
            return Err(Error::invalid(
                repo.path(),
                format!("the index has a merge conflict at `{path}`; resolve it before importing the staged layer"),
            ));
        }
        if std::str::from_utf8(&entry.path).is_err() {
            imported
                .left_out
                .push((path, "a file name that is not UTF-8".into()));
            continue;
        }
        let Some(mode) = mode_of(entry.mode) else {
            imported
                .left_out
                .push((path, "a submodule: fixtures hold files only".into()));
            continue;
        };
        let (content, size) = read_blob(repo, &odb, entry.id, limit.of(&path))
            .map_err(|e| Error::git(format!("read the staged {path}"), e))?;
        files.insert(
            path,
            Entry {
                content,
                mode,
                size,
                blob: entry.id,
            },
        );
    }
    Ok(files)
}

/// The work tree as the gate sees it: tracked files as they are on disk (a missing one is
/// deleted), and untracked files that are not ignored.
fn work_tree(
    repo: &Repository,
    index: &Tree,
    limit: &ReadLimit<'_>,
    imported: &mut Imported,
) -> Result<Tree> {
    let workdir = repo
        .workdir()
        .ok_or_else(|| Error::invalid(repo.path(), "the repository has no work tree"))?
        .to_path_buf();
    let mut files = Tree::new();
    for path in index.keys() {
        if let Some(entry) = read_work_file(&workdir.join(path), limit.of(path))? {
            files.insert(path.clone(), entry);
        }
    }
    let mut status_opts = git2::StatusOptions::new();
    status_opts
        .include_untracked(true)
        .recurse_untracked_dirs(true)
        .include_ignored(false);
    let statuses = repo
        .statuses(Some(&mut status_opts))
        .map_err(|e| Error::git("read the work tree status", e))?;
    for status in statuses.iter() {
        if !status.status().contains(git2::Status::WT_NEW) {
            continue;
        }
        let Ok(path) = status.path() else {
            imported.left_out.push((
                String::from_utf8_lossy(status.path_bytes()).into_owned(),
                "a file name that is not UTF-8".into(),
            ));
            continue;
        };
        if let Some(entry) = read_work_file(&workdir.join(path), limit.of(path))? {
            files.insert(path.to_owned(), entry);
        }
    }
    Ok(files)
}

/// A work-tree file: a link's target, or a regular file's content when its size (fstat on the
/// open descriptor, opened without following a link or blocking) is within `limit`; over it, only
/// its blob id, hashed in blocks (`crate::input` reads what is kept). Anything else is skipped.
fn read_work_file(abs: &Path, limit: u64) -> Result<Option<Entry>> {
    use crate::input::ReadError;
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::PermissionsExt;
    let meta = match std::fs::symlink_metadata(abs) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io("stat", abs, e)),
    };
    if meta.file_type().is_symlink() {
        let target = std::fs::read_link(abs).map_err(|e| Error::io("read the link", abs, e))?;
        let content = target.as_os_str().as_bytes().to_vec();
        return Ok(Some(Entry {
            size: content.len() as u64,
            blob: gittree::blob_id(&content),
            content,
            mode: Mode::Symlink,
        }));
    }
    if !meta.is_file() {
        return Ok(None);
    }
    let mode = if meta.permissions().mode() & 0o111 != 0 {
        Mode::Executable
    } else {
        Mode::Plain
    };
    match crate::input::read(abs, limit, crate::input::Links::Refuse) {
        Ok(content) => Ok(Some(Entry {
            size: content.len() as u64,
            blob: gittree::blob_id(&content),
            content,
            mode,
        })),
        Err(ReadError::TooLarge { .. }) => {
            let (blob, size) = blob_id_streamed(abs)?;
            Ok(Some(Entry {
                content: Vec::new(),
                mode,
                size,
                blob,
            }))
        }
        // Replaced by something else since its kind was read: skipped, as anything not a file.
        Err(ReadError::Missing | ReadError::Link | ReadError::NotRegular(_)) => Ok(None),
        Err(ReadError::Io(e)) => Err(Error::io("read", abs, e)),
    }
}

/// The git blob id of a regular file, read in blocks (bounded memory, whatever its size).
fn blob_id_streamed(abs: &Path) -> Result<(Oid, u64)> {
    use sha1::{Digest, Sha1};
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(abs)
        .map_err(|e| Error::io("read", abs, e))?;
    let size = file
        .metadata()
        .map_err(|e| Error::io("stat", abs, e))?
        .len();
    let mut hasher = Sha1::new();
    hasher.update(format!("blob {size}\0").as_bytes());
    let mut block = vec![0u8; 64 * 1024];
    let mut file = file.take(size);
    let mut read = 0u64;
    loop {
        let n = file
            .read(&mut block)
            .map_err(|e| Error::io("read", abs, e))?;
        if n == 0 {
            break;
        }
        hasher.update(&block[..n]);
        read += n as u64;
    }
    if read != size {
        return Err(Error::invalid(abs, "the file changed while it was read"));
    }
    Oid::from_bytes(&hasher.finalize())
        .map(|id| (id, size))
        .map_err(|e| Error::git("hash a file", e))
}

/// Why a file is left out, if it is.
fn refusal(path: &str, entry: &Entry, opts: &ImportOptions, allow: &GlobSet) -> Option<String> {
    if let Err(e) = check_repo_path(path) {
        return Some(format!("not a path fixtures can hold: {e}"));
    }
    if std::str::from_utf8(&entry.content).is_ok_and(|t| t.contains("{{gatebench:")) {
        return Some(
            "holds `{{gatebench:` text, which the fixture format reads as a placeholder".into(),
        );
    }
    let size = entry.size;
    let largest = crate::corpus::compose::MAX_FILE_BYTES;
    if size > largest {
        return Some(format!(
            "{size} bytes, over the largest file a fixture can hold ({largest} bytes)"
        ));
    }
    if allow.is_match(path) {
        return None;
    }
    if size > opts.max_file_size {
        return Some(format!(
            "{size} bytes, over the limit of {} (--max-file-size; or --allow it)",
            opts.max_file_size
        ));
    }
    if let Some(why) = secret_like(path, &entry.content) {
        return Some(format!(
            "looks like a secret: {why} (--allow it if it is not)"
        ));
    }
    None
}

fn secret_like(path: &str, content: &[u8]) -> Option<&'static str> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let lower = name.to_ascii_lowercase();
    if lower == ".env" || lower.starts_with(".env.") {
        return Some("an environment file (.env)");
    }
    if [".pem", ".key", ".p12", ".pfx"]
        .iter()
        .any(|ext| lower.ends_with(ext))
    {
        return Some("a key or certificate file name");
    }
    if ["id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"]
        .iter()
        .any(|p| lower.starts_with(p))
    {
        return Some("an SSH key file name");
    }
    if lower.starts_with("credentials") {
        return Some("a credentials file name");
    }
    static PRIVATE_KEY: OnceLock<regex::bytes::Regex> = OnceLock::new();
    let re = PRIVATE_KEY.get_or_init(|| {
        regex::bytes::Regex::new(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----").expect("valid regex")
    });
    if re.is_match(content) {
        return Some("contains a PEM private key block");
    }
    None
}

/// Hex ids a layer's ledger files may record, each with the placeholder that reproduces it after
/// materialization. Later insertions win: the current layer's ids before earlier layers'.
fn placeholder_values(earlier: &[Source], current: &Source, kept: &Tree) -> Ids {
    let mut stable = BTreeMap::new();
    for source in earlier {
        let name = source.kind.name();
        if let Some((commit, tree)) = source.commit {
            stable.insert(
                commit.to_string(),
                format!("{{{{gatebench:commit:{name}}}}}"),
            );
            stable.insert(tree.to_string(), format!("{{{{gatebench:tree:{name}}}}}"));
        }
    }
    for source in earlier {
        // `source-tree:unstaged` does not exist: nothing comes after the unstaged layer.
        if source.kind != LayerKind::Unstaged {
            stable.insert(
                source.source_tree.clone(),
                format!("{{{{gatebench:source-tree:{}}}}}", source.kind.name()),
            );
        }
    }
    let mut own = BTreeMap::new();
    // Every file of this layer by content; the first path (in order) for equal contents.
    for (path, entry) in kept.iter().rev() {
        own.insert(
            gittree::sha256_hex(&entry.content),
            format!("{{{{gatebench:sha256:{path}}}}}"),
        );
    }
    own.insert(
        current.source_tree.clone(),
        "{{gatebench:source-tree}}".to_owned(),
    );
    Ids { stable, own }
}

/// Placeholders by the hex value they replace: `stable` name earlier layers (the same in every
/// later layer), `own` name this layer's source tree and files.
struct Ids {
    stable: BTreeMap<String, String>,
    own: BTreeMap<String, String>,
}

/// A file of layer `kind` with the ids it records replaced by placeholders (ledger files only,
/// UTF-8 text only). When the result would equal the earlier layer's bytes although the file
/// changed, the materializer would carry the earlier layer's resolution over; the layer's own ids
/// are then kept as they are.
fn template_file(
    kind: LayerKind,
    path: &str,
    content: &[u8],
    ids: &Ids,
    earlier: Option<&Vec<u8>>,
    imported: &mut Imported,
) -> Vec<u8> {
    if !gittree::in_ledger(path) {
        return content.to_vec();
    }
    let Ok(text) = std::str::from_utf8(content) else {
        return content.to_vec();
    };
    let (full, used) = replace_ids(text, ids, true);
    let (out, used) = if earlier == Some(&full.as_bytes().to_vec()) && full != text {
        let (partial, used_partial) = replace_ids(text, ids, false);
        imported.literal.push((
            kind.name().to_owned(),
            path.to_owned(),
            "with its source tree and file hashes as placeholders it would read like the earlier layer's file, whose resolution the fixture format carries over; they stay as recorded".into(),
        ));
        (partial, used_partial)
    } else {
        (full, used)
    };
    for placeholder in used {
        imported
            .placeholders
            .push((kind.name().to_owned(), path.to_owned(), placeholder));
    }
    out.into_bytes()
}

fn replace_ids(text: &str, ids: &Ids, own: bool) -> (String, Vec<String>) {
    static HEX: OnceLock<Regex> = OnceLock::new();
    let hex = HEX.get_or_init(|| Regex::new(r"[0-9A-Fa-f]+").expect("valid regex"));
    let mut out = String::with_capacity(text.len());
    let mut used = Vec::new();
    let mut last = 0;
    for m in hex.find_iter(text) {
        let value = m.as_str();
        if !matches!(value.len(), 40 | 64) {
            continue;
        }
        let found = own
            .then(|| ids.own.get(value))
            .flatten()
            .or_else(|| ids.stable.get(value));
        if let Some(placeholder) = found {
            out.push_str(&text[last..m.start()]);
            out.push_str(placeholder);
            last = m.end();
            if !used.contains(placeholder) {
                used.push(placeholder.clone());
            }
        }
    }
    out.push_str(&text[last..]);
    (out, used)
}

/// The overlay (files new or changed) and deletions from one layer to the next.
fn layer_diff(before: &Tree, after: &Tree, folder: &Path) -> Result<(Vec<String>, Vec<String>)> {
    let written: Vec<String> = after
        .iter()
        .filter(|(p, e)| before.get(*p) != Some(*e))
        .map(|(p, _)| p.clone())
        .collect();
    let deleted: Vec<String> = before
        .keys()
        .filter(|p| !after.contains_key(*p))
        .cloned()
        .collect();
    // The loader writes the overlay, then deletes: a deleted file whose path became a folder
    // would take the folder's new files with it.
    for path in &deleted {
        let prefix = format!("{path}/");
        if let Some(clash) = written.iter().find(|w| w.starts_with(&prefix)) {
            return Err(Error::invalid(
                folder,
                format!("`{path}` is a file in one layer and a folder (`{clash}`) in the next; the fixture format cannot express that"),
            ));
        }
    }
    Ok((written, deleted))
}

/// Whether a file name must be stored with the `.fixture` suffix: names that make the outer
/// project mistake the fixture for a project of its own, and names that already end in it.
pub fn needs_disarm(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    matches!(
        name,
        "Cargo.toml" | "Cargo.lock" | "package.json" | "package-lock.json"
    ) || name.starts_with(".git")
        || name.ends_with(DISARM_SUFFIX)
}

fn write_file(dir: &Path, path: &str, content: &[u8], disarmed: &mut Vec<String>) -> Result<()> {
    let stored = if needs_disarm(path) {
        disarmed.push(path.to_owned());
        format!("{path}{DISARM_SUFFIX}")
    } else {
        path.to_owned()
    };
    let target = dir.join(&stored);
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Error::io("create", parent, e))?;
    }
    std::fs::write(&target, content).map_err(|e| Error::io("write", &target, e))
}

/// `text` with each control character written as its escape (`\u{1}`, `\n`): fit for one line
/// of a YAML comment.
fn comment_safe(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_debug().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// A YAML double-quoted scalar (JSON string syntax is a subset of it).
fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

fn fixture_yaml(opts: &ImportOptions, imported: &Imported, layers: &str) -> String {
    let mut out =
        String::from("# yaml-language-server: $schema=../../schemas/fixture.schema.json\n");
    let short = |id: &str| id.chars().take(12).collect::<String>();
    out.push_str(&format!(
        "# Imported by `gatebench import` from {}: base {}, head {}{}{}.\n",
        comment_safe(&opts.repo.display().to_string()),
        imported.base_commit,
        imported.head_commit,
        if opts.staged {
            ", staged (the index)"
        } else {
            ""
        },
        if opts.unstaged {
            ", unstaged (the work tree)"
        } else {
            ""
        },
    ));
    let mut comment = |title: &str, list: &[(String, String)]| {
        if list.is_empty() {
            return;
        }
        out.push_str(&format!("# {title}:\n"));
        // Escaped: a path may hold a newline (which would end the comment) or another control
        // character (which YAML does not allow, even in a comment).
        for (path, why) in list {
            out.push_str(&format!(
                "#   {}: {}\n",
                comment_safe(path),
                comment_safe(why)
            ));
        }
    };
    comment("Left out (in no layer)", &imported.left_out);
    comment("Kept with a loss", &imported.lossy);
    let literal: Vec<(String, String)> = imported
        .literal
        .iter()
        .map(|(layer, path, why)| (format!("{path} ({layer})"), why.clone()))
        .collect();
    comment("Ledger ids kept as recorded", &literal);
    let description = opts.description.clone().unwrap_or_else(|| {
        let name = opts
            .repo
            .canonicalize()
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| opts.repo.display().to_string());
        format!(
            "Imported from the repository {name}: base {}, head {}.",
            short(&imported.base_commit),
            short(&imported.head_commit)
        )
    });
    out.push_str(&format!("id: {}\n", opts.id));
    out.push_str(&format!("description: {}\n", quote(&description)));
    out.push_str("category: golden\ntags: [imported]\nbase: base\n");
    out.push_str(layers);
    out.push_str("expect:\n  verdict: pass\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repository_like_names_are_disarmed() {
        for path in [
            "Cargo.toml",
            "crates/a/Cargo.toml",
            ".gitignore",
            "sub/.gitattributes",
            "package.json",
            "notes.fixture",
        ] {
            assert!(needs_disarm(path), "{path}");
        }
        for path in ["src/main.rs", "Cargo.toml.bak", "git.md", "docs/package.md"] {
            assert!(!needs_disarm(path), "{path}");
        }
    }

    #[test]
    fn secret_looking_files_are_recognised_by_name_and_content() {
        assert!(secret_like(".env", b"A=1").is_some());
        assert!(secret_like("config/.env.production", b"").is_some());
        assert!(secret_like("certs/server.pem", b"").is_some());
        assert!(secret_like("home/id_rsa.pub", b"").is_some());
        assert!(secret_like("aws/credentials", b"").is_some());
        assert!(secret_like(
            "notes.txt",
            b"x\n-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n"
        )
        .is_some());
        assert!(secret_like("src/env.py", b"import os\n").is_none());
        assert!(secret_like("docs/keys.md", b"-----BEGIN PUBLIC KEY-----").is_none());
    }

    #[test]
    fn only_whole_hex_runs_of_id_length_are_replaced() {
        let tree = "a".repeat(40);
        let ids = Ids {
            stable: BTreeMap::new(),
            own: [(tree.clone(), "{{gatebench:source-tree}}".to_owned())].into(),
        };
        let text = format!("t={tree}\nlonger={tree}b\nupper={}\n", tree.to_uppercase());
        let (out, used) = replace_ids(&text, &ids, true);
        assert_eq!(
            out,
            format!(
                "t={{{{gatebench:source-tree}}}}\nlonger={tree}b\nupper={}\n",
                tree.to_uppercase()
            )
        );
        assert_eq!(used, vec!["{{gatebench:source-tree}}".to_owned()]);
    }

    #[test]
    fn a_rebound_file_that_would_read_like_the_earlier_one_keeps_its_own_ids() {
        let (head_tree, unstaged_tree) = ("1".repeat(40), "2".repeat(40));
        let ids = Ids {
            stable: [(
                head_tree.clone(),
                "{{gatebench:source-tree:head}}".to_owned(),
            )]
            .into(),
            own: [(
                unstaged_tree.clone(),
                "{{gatebench:source-tree}}".to_owned(),
            )]
            .into(),
        };
        let earlier = b"tree {{gatebench:source-tree}}\n".to_vec();
        let mut imported = Imported::default();
        let text = format!("tree {unstaged_tree}\n");
        let out = template_file(
            LayerKind::Unstaged,
            "specs/f/r.txt",
            text.as_bytes(),
            &ids,
            Some(&earlier),
            &mut imported,
        );
        assert_eq!(out, text.as_bytes(), "kept as recorded, not carried over");
        assert_eq!(imported.literal.len(), 1);
        // Outside the ledger nothing is replaced.
        let outside = template_file(
            LayerKind::Head,
            "src/ids.txt",
            text.as_bytes(),
            &ids,
            None,
            &mut imported,
        );
        assert_eq!(outside, text.as_bytes());
        // Without the clash, the own id becomes a placeholder.
        let fresh = template_file(
            LayerKind::Unstaged,
            "specs/f/r.txt",
            text.as_bytes(),
            &ids,
            None,
            &mut imported,
        );
        assert_eq!(fresh, b"tree {{gatebench:source-tree}}\n");
    }
}
