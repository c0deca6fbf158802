//! Git object ids computed in memory: blob and tree ids of a set of files, without writing to any
//! object database. The materializer and the reference gate share this, so that a receipt's
//! `git_tree` and the gate's idea of "the current source tree" are the same number.

use std::collections::BTreeMap;

use git2::{ObjectType, Oid};
use sha2::{Digest, Sha256};

/// The folder that holds the ledger. The source tree is the tree without it: a receipt inside the
/// ledger cannot contain the id of a tree that contains itself.
pub const LEDGER_DIR: &str = "specs";

/// The folder of the verification loop's machine state (seed 000: `docs/delivery/.state/`). The
/// gate writes its state file there between rounds, so it is never part of the source tree, of
/// the changes a gate judges, or of the delivery diff: evidence stays bound while the loop runs.
pub const LOOP_STATE_DIR: &str = "docs/delivery/.state";

/// Regular, non-executable file mode.
pub const MODE_FILE: u32 = 0o100644;

/// The git blob id of `content`.
pub fn blob_id(content: &[u8]) -> Oid {
    Oid::hash_object(ObjectType::Blob, content).expect("hashing bytes in memory cannot fail")
}

/// The hex sha256 of `content`.
pub fn sha256_hex(content: &[u8]) -> String {
    let digest = Sha256::digest(content);
    let mut out = String::with_capacity(64);
    for byte in digest {
        out.push_str(&format!("{byte:02x}"));
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
    let mut root = Dir::default();
    for (path, content) in files {
        root.insert(path, blob_id(content));
    }
    root.id()
}

/// The source tree id of a set of files: the tree of every file outside the ledger folder and the
/// loop's state folder.
pub fn source_tree_id<'a, I>(files: I) -> Oid
where
    I: IntoIterator<Item = (&'a str, &'a [u8])>,
{
    tree_id(files.into_iter().filter(|(path, _)| in_source_tree(path)))
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

    fn id(&self) -> Oid {
        // Git sorts tree entries by name, comparing a directory's name as if it ended in '/'.
        let mut entries: Vec<(Vec<u8>, &'static str, Oid)> = Vec::new();
        for (name, blob) in &self.files {
            entries.push((name.as_bytes().to_vec(), "100644", *blob));
        }
        for (name, dir) in &self.dirs {
            let mut key = name.as_bytes().to_vec();
            key.push(b'/');
            entries.push((key, "40000", dir.id()));
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
        Oid::hash_object(ObjectType::Tree, &bytes).expect("hashing bytes in memory cannot fail")
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
