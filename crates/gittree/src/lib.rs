//! Git object ids computed in memory: blob and tree ids of a set of files, without writing to any
//! object database. The materializer and the reference gate share this, so that a receipt's
//! `git_tree` and the gate's idea of "the current source tree" are the same number.

pub mod nofollow;
pub mod pinned;

use std::collections::BTreeMap;
use std::convert::Infallible;

use git2::{ObjectType, Oid};
use sha1::Sha1;
use sha2::{Digest, Sha256};

/// The folder that holds the ledger. The source tree is the tree without it: a receipt inside the
/// ledger cannot contain the id of a tree that contains itself.
pub const LEDGER_DIR: &str = "specs";

/// The folder of the verification loop's machine state (docs/CONCEPTS.md#loop-state-file:
/// `docs/delivery/.state/`). The gate writes its state file there between rounds, so it is never
/// part of the source tree, of the changes a gate judges, or of the delivery diff: evidence stays
/// bound while the loop runs.
pub const LOOP_STATE_DIR: &str = "docs/delivery/.state";

/// Regular, non-executable file mode.
pub const MODE_FILE: u32 = 0o100644;

/// The git blob id of `content`.
pub fn blob_id(content: &[u8]) -> Oid {
    object_id(ObjectType::Blob, content)
}

/// The git id of an object: the SHA-1 of its type, its size and its content. Computed with the
/// `sha1` crate (SHA-NI where the CPU has it), several times faster than libgit2's
/// collision-detecting SHA-1, and the same number for every content that is not a crafted
/// collision (a test compares the two).
pub fn object_id(kind: ObjectType, content: &[u8]) -> Oid {
    let mut hasher = Sha1::new();
    hasher.update(kind.str().as_bytes());
    hasher.update(format!(" {}\0", content.len()).as_bytes());
    hasher.update(content);
    let digest: [u8; 20] = hasher.finalize().into();
    Oid::from_bytes(&digest).expect("a SHA-1 digest is 20 bytes")
}

/// The hex sha256 of `content`.
pub fn sha256_hex(content: &[u8]) -> String {
    hex(&Sha256::digest(content))
}

/// Lowercase hexadecimal of `bytes`, in one allocation.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        out.push(DIGITS[usize::from(byte >> 4)] as char);
        out.push(DIGITS[usize::from(byte & 0xf)] as char);
    }
    out
}

/// Whether `path` (a repository path with `/` separators) lies in the ledger folder.
pub fn in_ledger(path: &str) -> bool {
    path == LEDGER_DIR || path.starts_with(&format!("{LEDGER_DIR}/"))
}

/// Whether `path` lies in the verification loop's state folder.
pub fn in_loop_state(path: &str) -> bool {
    path == LOOP_STATE_DIR || path.starts_with(&format!("{LOOP_STATE_DIR}/"))
}

/// Whether `path` belongs to the source tree: outside the ledger and the loop's state folder.
pub fn in_source_tree(path: &str) -> bool {
    !in_ledger(path) && !in_loop_state(path)
}

/// The tree id git would give to these files (path -> content), all with mode 100644.
pub fn tree_id<'a, I>(files: I) -> Oid
where
    I: IntoIterator<Item = (&'a str, &'a [u8])>,
{
    tree_id_of_blobs(
        files
            .into_iter()
            .map(|(path, content)| (path, blob_id(content))),
    )
}

/// The tree id of files given by blob id (path -> blob), all with mode 100644.
pub fn tree_id_of_blobs<'a, I>(blobs: I) -> Oid
where
    I: IntoIterator<Item = (&'a str, Oid)>,
{
    let hashed = build_trees(blobs, &mut |bytes| {
        Ok::<_, Infallible>(object_id(ObjectType::Tree, bytes))
    });
    match hashed {
        Ok(id) => id,
        Err(never) => match never {},
    }
}

/// The source tree id of a set of files: the tree of every file outside the ledger folder and the
/// loop's state folder.
pub fn source_tree_id<'a, I>(files: I) -> Oid
where
    I: IntoIterator<Item = (&'a str, &'a [u8])>,
{
    tree_id(files.into_iter().filter(|(path, _)| in_source_tree(path)))
}

/// The source tree id of files given by blob id.
pub fn source_tree_id_of_blobs<'a, I>(blobs: I) -> Oid
where
    I: IntoIterator<Item = (&'a str, Oid)>,
{
    tree_id_of_blobs(blobs.into_iter().filter(|(path, _)| in_source_tree(path)))
}

/// The canonical form of the change between two sets of files given by blob id (path -> blob):
/// one line `OLD NEW PATH\n` per source-tree path whose blob differs, in byte order of the path,
/// where OLD and NEW are the 40-digit blob ids and an absent side is 40 zeros. Paths outside the
/// source tree (the ledger, the loop's state) are left out. It is the `git diff --raw --no-abbrev
/// --no-renames` of the two source trees with only the ids and the path kept (every file has mode
/// 100644 in the source tree): the same two trees always give the same bytes, whatever git wrote
/// the patch with.
pub fn diff_manifest<'a, B, C>(base: B, current: C) -> Vec<u8>
where
    B: IntoIterator<Item = (&'a str, Oid)>,
    C: IntoIterator<Item = (&'a str, Oid)>,
{
    let base: BTreeMap<&str, Oid> = base
        .into_iter()
        .filter(|(path, _)| in_source_tree(path))
        .collect();
    let current: BTreeMap<&str, Oid> = current
        .into_iter()
        .filter(|(path, _)| in_source_tree(path))
        .collect();
    let mut paths: Vec<&str> = base.keys().chain(current.keys()).copied().collect();
    paths.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    paths.dedup();
    let zero = Oid::ZERO_SHA1;
    let mut out = Vec::new();
    for path in paths {
        let old = base.get(path).copied().unwrap_or(zero);
        let new = current.get(path).copied().unwrap_or(zero);
        if old != new {
            out.extend_from_slice(format!("{old} {new} {path}\n").as_bytes());
        }
    }
    out
}

/// `sha256:<hex>` of [`diff_manifest`]: the `diff_sha256` a receipt binds the change with
/// (docs/CONCEPTS.md#loom-test-receipts), computed from the merge base's files and the current
/// files.
pub fn diff_sha256<'a, B, C>(base: B, current: C) -> String
where
    B: IntoIterator<Item = (&'a str, Oid)>,
    C: IntoIterator<Item = (&'a str, Oid)>,
{
    format!("sha256:{}", sha256_hex(&diff_manifest(base, current)))
}

/// Builds the trees of files given by blob id (path -> blob, all with mode 100644): `store` gets
/// each tree object's content, subtrees before the trees that hold them, and returns its id (it
/// may write the object somewhere, or only hash it). Returns the root tree's id, or the first
/// error `store` returned.
pub fn build_trees<'a, I, E>(
    blobs: I,
    store: &mut dyn FnMut(&[u8]) -> Result<Oid, E>,
) -> Result<Oid, E>
where
    I: IntoIterator<Item = (&'a str, Oid)>,
{
    let mut root = Dir::default();
    for (path, blob) in blobs {
        root.insert(path, blob);
    }
    root.build(store)
}

#[derive(Default)]
struct Dir {
    files: BTreeMap<String, Oid>,
    dirs: BTreeMap<String, Dir>,
}

impl Dir {
    fn insert(&mut self, path: &str, blob: Oid) {
        match path.split_once('/') {
            None => {
                self.files.insert(path.to_owned(), blob);
            }
            Some((head, rest)) => self
                .dirs
                .entry(head.to_owned())
                .or_default()
                .insert(rest, blob),
        }
    }

    fn build<E>(&self, store: &mut dyn FnMut(&[u8]) -> Result<Oid, E>) -> Result<Oid, E> {
        // Git sorts tree entries by name, comparing a directory's name as if it ended in '/'.
        let mut entries: Vec<(Vec<u8>, &'static str, Oid)> = Vec::new();
        for (name, blob) in &self.files {
            entries.push((name.as_bytes().to_vec(), "100644", *blob));
        }
        for (name, dir) in &self.dirs {
            let mut key = name.as_bytes().to_vec();
            key.push(b'/');
            entries.push((key, "40000", dir.build(store)?));
        }
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let mut bytes = Vec::new();
        for (key, mode, oid) in entries {
            let name = key.strip_suffix(b"/").unwrap_or(&key);
            bytes.extend_from_slice(mode.as_bytes());
            bytes.push(b' ');
            bytes.extend_from_slice(name);
            bytes.push(0);
            bytes.extend_from_slice(oid.as_bytes());
        }
        store(&bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_id_matches_what_libgit2_writes() {
        let dir = tempfile::tempdir().unwrap();
        let repo = git2::Repository::init(dir.path()).unwrap();
        let files: Vec<(&str, &[u8])> = vec![
            ("a.txt", b"a\n"),
            ("a-b/c.txt", b"c\n"),
            ("a/b/d.txt", b"d\n"),
            ("ab", b"x"),
        ];
        let mut index = git2::Index::new().unwrap();
        for (path, content) in &files {
            let oid = repo.blob(content).unwrap();
            index.add(&entry(path, oid)).unwrap();
        }
        let written = index.write_tree_to(&repo).unwrap();
        assert_eq!(tree_id(files.iter().copied()), written);
    }

    #[test]
    fn object_ids_equal_libgit2s() {
        let big: Vec<u8> = (0..100_000u32).flat_map(|i| i.to_le_bytes()).collect();
        let cases: [(ObjectType, &[u8]); 4] = [
            (ObjectType::Blob, b""),
            (ObjectType::Blob, b"hello\n"),
            (ObjectType::Blob, &big),
            (
                ObjectType::Commit,
                b"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n\nm\n",
            ),
        ];
        for (kind, content) in cases {
            assert_eq!(
                object_id(kind, content),
                Oid::hash_object(kind, content).unwrap(),
                "{kind:?} of {} bytes",
                content.len()
            );
        }
        // The empty tree's well-known id.
        assert_eq!(
            tree_id(std::iter::empty()).to_string(),
            "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
        );
    }

    #[test]
    fn source_tree_leaves_the_ledger_out() {
        let with: Vec<(&str, &[u8])> = vec![("src/a.py", b"1"), ("specs/f/r.json", b"{}")];
        let without: Vec<(&str, &[u8])> = vec![("src/a.py", b"1")];
        assert_eq!(
            source_tree_id(with.iter().copied()),
            tree_id(without.iter().copied())
        );
        assert_ne!(
            tree_id(with.iter().copied()),
            tree_id(without.iter().copied())
        );
    }

    #[test]
    fn source_tree_leaves_the_loop_state_out() {
        let with: Vec<(&str, &[u8])> = vec![
            ("src/a.py", b"1"),
            ("docs/delivery/.state/SV-1-verification.json", b"{}"),
            ("docs/delivery/SV-1-changelist.md", b"x"),
        ];
        let without: Vec<(&str, &[u8])> = vec![
            ("src/a.py", b"1"),
            ("docs/delivery/SV-1-changelist.md", b"x"),
        ];
        assert_eq!(
            source_tree_id(with.iter().copied()),
            tree_id(without.iter().copied())
        );
        assert!(in_loop_state("docs/delivery/.state/x.json"));
        assert!(!in_loop_state("docs/delivery/.statefile"));
    }

    #[test]
    fn the_diff_manifest_lists_changed_source_paths_in_byte_order() {
        let a = blob_id(b"a\n");
        let b = blob_id(b"b\n");
        let base = [("src/x.py", a), ("src/gone.py", a), ("specs/f/r.json", a)];
        let current = [
            ("src/x.py", b),
            ("src/new.py", a),
            ("specs/f/r.json", b),
            ("a-b/same", a),
        ];
        let base_with_same: Vec<(&str, Oid)> =
            base.iter().copied().chain([("a-b/same", a)]).collect();
        let manifest = diff_manifest(base_with_same.iter().copied(), current.iter().copied());
        let zero = "0".repeat(40);
        assert_eq!(
            String::from_utf8(manifest).unwrap(),
            format!("{a} {zero} src/gone.py\n{zero} {a} src/new.py\n{a} {b} src/x.py\n")
        );
        // A ledger-only change is no change: the same as comparing the base with itself.
        let base_only_source = [("src/x.py", a), ("src/gone.py", a)];
        let ledger_only: Vec<(&str, Oid)> = base_only_source
            .iter()
            .copied()
            .chain([("specs/f/r.json", b)])
            .collect();
        assert_eq!(
            diff_sha256(base.iter().copied(), ledger_only.iter().copied()),
            format!("sha256:{}", sha256_hex(b""))
        );
        // Any source change changes it.
        assert_ne!(
            diff_sha256(base.iter().copied(), current.iter().copied()),
            diff_sha256(base.iter().copied(), [("src/x.py", b), ("src/gone.py", a)])
        );
    }

    fn entry(path: &str, id: Oid) -> git2::IndexEntry {
        git2::IndexEntry {
            ctime: git2::IndexTime::new(0, 0),
            mtime: git2::IndexTime::new(0, 0),
            dev: 0,
            ino: 0,
            mode: MODE_FILE,
            uid: 0,
            gid: 0,
            file_size: 0,
            id,
            flags: path.len().min(0xfff) as u16,
            flags_extended: 0,
            path: path.as_bytes().to_vec(),
        }
    }
}
