//! Property test of the materializer against git itself: random fixture trees and layers, loaded
//! from disk and materialized; `git fsck --strict` is clean and `git ls-tree`, the index and
//! `git status --porcelain` say exactly what the layers asked for.
//!
//! The fixture format has no file modes or symlinks of its own (a symlink in a fixture folder is
//! read as the file it points to; every file is committed as 100644), so those are not generated.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use proptest::prelude::*;
use sha1::{Digest, Sha1};

type Tree = BTreeMap<String, Vec<u8>>;

/// One path component: plain, leading dashes, spaces, unicode, long.
fn component() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z]{1,8}",
        "-{1,2}[a-z]{1,6}",
        "[a-z]{1,4} [a-z]{1,4}",
        "[éü日本ßж]{1,4}[a-z]{0,2}",
        "[a-z]{60,120}",
    ]
}

fn path() -> impl Strategy<Value = String> {
    prop::collection::vec(component(), 1..=10).prop_map(|c| c.join("/"))
}

fn content() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(Vec::new()),
        "[a-z \n]{1,64}".prop_map(String::into_bytes),
        prop::collection::vec(any::<u8>(), 1..256),
        Just(b"crlf\r\nline\r\n".to_vec()),
    ]
}

/// A layer's operation on each path of the pool.
#[derive(Debug, Clone, Copy)]
enum Op {
    Keep,
    Write(usize),
    Delete,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => Just(Op::Keep),
        2 => (0usize..8).prop_map(Op::Write),
        1 => Just(Op::Delete),
    ]
}

#[derive(Debug, Clone)]
struct Case {
    /// Paths no one of which is a folder of another.
    pool: Vec<String>,
    contents: Vec<Vec<u8>>,
    base: Vec<Option<usize>>,
    head: Vec<Op>,
    staged: Option<Vec<Op>>,
    unstaged: Option<Vec<Op>>,
}

fn case() -> impl Strategy<Value = Case> {
    prop::collection::vec(path(), 1..10)
        .prop_map(|paths| {
            let mut pool: Vec<String> = Vec::new();
            for p in paths {
                let clash = pool.iter().any(|q| {
                    q == &p || q.starts_with(&format!("{p}/")) || p.starts_with(&format!("{q}/"))
                });
                if !clash && gatebench::corpus::model::paths::check_repo_path(&p).is_ok() {
                    pool.push(p);
                }
            }
            pool
        })
        .prop_flat_map(|pool| {
            let n = pool.len();
            (
                Just(pool),
                prop::collection::vec(content(), 8),
                prop::collection::vec(prop::option::weighted(0.7, 0usize..8), n),
                prop::collection::vec(op(), n),
                prop::option::of(prop::collection::vec(op(), n)),
                prop::option::of(prop::collection::vec(op(), n)),
            )
        })
        .prop_map(|(pool, contents, base, head, staged, unstaged)| Case {
            pool,
            contents,
            base,
            head,
            staged,
            unstaged,
        })
}

fn write(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// Applies a layer to `from`; returns the tree, its overlay files and deletions.
fn apply(case: &Case, from: &Tree, ops: &[Op]) -> (Tree, Tree, Vec<String>) {
    let mut tree = from.clone();
    let mut overlay = Tree::new();
    let mut delete = Vec::new();
    for (path, op) in case.pool.iter().zip(ops) {
        match op {
            Op::Keep => {}
            Op::Write(c) => {
                let bytes = case.contents[*c].clone();
                overlay.insert(path.clone(), bytes.clone());
                tree.insert(path.clone(), bytes);
            }
            Op::Delete if tree.contains_key(path) => {
                delete.push(path.clone());
                tree.remove(path);
            }
            Op::Delete => {}
        }
    }
    (tree, overlay, delete)
}

fn git(dir: &Path, args: &[&str]) -> Vec<u8> {
    let out = Command::new("git")
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn blob_id(bytes: &[u8]) -> String {
    let mut h = Sha1::new();
    h.update(format!("blob {}\0", bytes.len()).as_bytes());
    h.update(bytes);
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// `path -> blob id` from NUL-terminated `git ls-tree -r -z` or `git ls-files -s -z` records.
fn ids(records: &[u8]) -> BTreeMap<String, String> {
    records
        .split(|b| *b == 0)
        .filter(|r| !r.is_empty())
        .map(|r| {
            let text = String::from_utf8(r.to_vec()).unwrap();
            let (meta, path) = text.split_once('\t').unwrap();
            let fields: Vec<&str> = meta.split(' ').collect();
            assert_eq!(fields[0], "100644", "{text}");
            let id = if fields[1] == "blob" {
                fields[2]
            } else {
                fields[1]
            };
            (path.to_owned(), id.to_owned())
        })
        .collect()
}

fn expected_ids(tree: &Tree) -> BTreeMap<String, String> {
    tree.iter().map(|(p, c)| (p.clone(), blob_id(c))).collect()
}

/// What `git status --porcelain=v1 -z --no-renames --untracked-files=all` must print.
fn expected_status(head: &Tree, index: &Tree, work: &Tree) -> Vec<String> {
    let mut paths: Vec<&String> = head.keys().chain(index.keys()).chain(work.keys()).collect();
    paths.sort();
    paths.dedup();
    let mut out = Vec::new();
    for p in paths {
        let (h, i, w) = (head.get(p), index.get(p), work.get(p));
        let x = match (h, i) {
            (None, Some(_)) => 'A',
            (Some(_), None) => 'D',
            (Some(a), Some(b)) if a != b => 'M',
            _ => ' ',
        };
        let y = match (i, w) {
            (Some(_), None) => 'D',
            (Some(a), Some(b)) if a != b => 'M',
            _ => ' ',
        };
        if x != ' ' || y != ' ' {
            out.push(format!("{x}{y} {p}"));
        }
        if i.is_none() && w.is_some() {
            out.push(format!("?? {p}"));
        }
    }
    out.sort();
    out
}

fn work_tree(dir: &Path) -> Tree {
    let mut out = Tree::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let p = e.path();
            if p == dir.join(".git") {
                continue;
            }
            if e.file_type().unwrap().is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_str().unwrap().to_owned();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

fn check(case: &Case) {
    let tmp = tempfile::tempdir().unwrap();
    let fixtures = tmp.path().join("fixtures");
    let folder = fixtures.join("p");
    let mut base = Tree::new();
    for (path, c) in case.pool.iter().zip(&case.base) {
        if let Some(c) = c {
            base.insert(path.clone(), case.contents[*c].clone());
        }
    }
    // A base with at least one file.
    base.entry("README".into())
        .or_insert_with(|| b"r\n".to_vec());
    for (p, c) in &base {
        write(&folder.join("base").join(p), c);
    }
    let mut yaml = String::from(
        "id: p\ndescription: d\ncategory: golden\nbase: base\nexpect:\n  verdict: pass\n",
    );
    let mut layer = |name: &str, from: &Tree, ops: &[Op]| -> Tree {
        let (tree, overlay, delete) = apply(case, from, ops);
        std::fs::create_dir_all(folder.join(name)).unwrap();
        for (p, c) in &overlay {
            write(&folder.join(name).join(p), c);
        }
        let quoted: Vec<String> = delete
            .iter()
            .map(|d| serde_json::to_string(d).unwrap())
            .collect();
        yaml.push_str(&format!(
            "{name}:\n  overlay: {name}\n  delete: [{}]\n",
            quoted.join(", ")
        ));
        tree
    };
    let head = layer("head", &base, &case.head);
    let index = match &case.staged {
        Some(ops) => layer("staged", &head, ops),
        None => head.clone(),
    };
    let work = match &case.unstaged {
        Some(ops) => layer("unstaged", &index, ops),
        None => index.clone(),
    };
    write(&folder.join("fixture.yaml"), yaml.as_bytes());

    let corpus = gatebench::corpus::load(&fixtures).unwrap_or_else(|e| panic!("{}\n{yaml}", e[0]));
    let fixture = corpus.get("p").unwrap();
    let repo = tmp.path().join("repo");
    gatebench::repo::materialize::materialize(fixture, &repo).unwrap();

    let fsck = Command::new("git")
        .current_dir(&repo)
        .args(["fsck", "--strict", "--no-dangling"])
        .output()
        .unwrap();
    let fsck_out = format!(
        "{}{}",
        String::from_utf8_lossy(&fsck.stdout),
        String::from_utf8_lossy(&fsck.stderr)
    );
    assert!(fsck.status.success(), "git fsck --strict: {fsck_out}");
    assert!(
        !fsck_out.contains("error") && !fsck_out.contains("warning"),
        "{fsck_out}"
    );

    assert_eq!(
        ids(&git(&repo, &["ls-tree", "-r", "-z", "main"])),
        expected_ids(&base),
        "base"
    );
    assert_eq!(
        ids(&git(&repo, &["ls-tree", "-r", "-z", "HEAD"])),
        expected_ids(&head),
        "head"
    );
    assert_eq!(
        ids(&git(&repo, &["ls-files", "-s", "-z"])),
        expected_ids(&index),
        "index"
    );
    assert_eq!(work_tree(&repo), work, "work tree");
    let status = git(
        &repo,
        &[
            "status",
            "--porcelain=v1",
            "-z",
            "--no-renames",
            "--untracked-files=all",
        ],
    );
    let mut status: Vec<String> = status
        .split(|b| *b == 0)
        .filter(|r| !r.is_empty())
        .map(|r| String::from_utf8(r.to_vec()).unwrap())
        .collect();
    status.sort();
    assert_eq!(status, expected_status(&head, &index, &work), "status");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn materialized_repositories_are_what_the_layers_ask_for(case in case()) {
        check(&case);
    }
}
