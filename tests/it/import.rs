//! `gatebench import`: a repository built here (base on `main`, a feature branch, staged and
//! unstaged changes, a ledger that binds ids) imported, loaded, materialized, and compared with the
//! original tree by tree; risky files left out; a bundled golden imported back to itself.

use crate::common;

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use git2::{Oid, Repository, Signature};

use gatebench::corpus::{self, Files};
use gatebench::repo::materialize::{self, tree_files};
use gatebench_gittree as gittree;
use gatebench_report::Verdict;

use common::{gatebench, root};

const LEDGER: &str = "specs/feat/receipts/impl.json";
const BINARY: &[u8] = &[0, 159, 146, 150, 255, 0, 1, 2, b'\n', 0xfe];

fn write(dir: &Path, path: &str, content: &[u8]) {
    let target = dir.join(path);
    std::fs::create_dir_all(target.parent().unwrap()).unwrap();
    std::fs::write(target, content).unwrap();
}

/// Stages everything in the work tree (additions, edits, deletions), like `git add -A`.
fn add_all(repo: &Repository) {
    let mut index = repo.index().unwrap();
    index
        .add_all(["*"], git2::IndexAddOption::DEFAULT, None)
        .unwrap();
    index.update_all(["*"], None).unwrap();
    index.write().unwrap();
}

fn commit(repo: &Repository, message: &str, parents: &[Oid]) -> Oid {
    let mut index = repo.index().unwrap();
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let sig = Signature::now("someone", "someone@example.com").unwrap();
    let parents: Vec<_> = parents
        .iter()
        .map(|p| repo.find_commit(*p).unwrap())
        .collect();
    let refs: Vec<_> = parents.iter().collect();
    repo.commit(Some("HEAD"), &sig, &sig, message, &tree, &refs)
        .unwrap()
}

fn files_of_commit(repo: &Repository, commit: Oid) -> Files {
    let tree = repo.find_commit(commit).unwrap().tree_id();
    tree_files(repo, tree).unwrap()
}

fn index_files(repo: &Repository) -> Files {
    let index = repo.index().unwrap();
    index
        .iter()
        .map(|e| {
            (
                String::from_utf8(e.path.clone()).unwrap(),
                repo.find_blob(e.id).unwrap().content().to_vec(),
            )
        })
        .collect()
}

/// The work tree's files (symlinks as their target, like git stores them), `.git` excluded.
fn work_files(dir: &Path) -> Files {
    let mut out = Files::new();
    let mut stack = vec![(dir.to_path_buf(), String::new())];
    while let Some((abs, rel)) = stack.pop() {
        for entry in std::fs::read_dir(&abs).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name().to_string_lossy().into_owned();
            if name == ".git" {
                continue;
            }
            let path = format!("{rel}{name}");
            let kind = entry.file_type().unwrap();
            if kind.is_symlink() {
                let target = std::fs::read_link(entry.path()).unwrap();
                out.insert(path, target.to_string_lossy().as_bytes().into());
            } else if kind.is_dir() {
                stack.push((entry.path(), format!("{path}/")));
            } else {
                out.insert(path, std::fs::read(entry.path()).unwrap().into());
            }
        }
    }
    out
}

struct Original {
    _dir: tempfile::TempDir,
    path: PathBuf,
    base: Oid,
    head: Oid,
}

/// A repository with a base on `main` and a feature branch that edits, deletes, adds a binary
/// file, a nested folder, an executable, a symlink, a `.env`, a `Cargo.toml` and a ledger receipt
/// binding the base commit, the head's source tree and a file's sha256; then a staged and an
/// unstaged change.
fn original() -> Original {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("project");
    let repo = Repository::init_opts(
        &path,
        git2::RepositoryInitOptions::new().initial_head("main"),
    )
    .unwrap();
    write(&path, "README.md", b"# project\n");
    write(&path, "src/app.py", b"def app():\n    return 1\n");
    write(&path, "src/old.py", b"OLD = True\n");
    write(&path, "docs/nested/deep/notes.txt", b"deep\n");
    write(&path, "Cargo.toml", b"[package]\nname = \"inner\"\n");
    write(&path, ".gitignore", b"build/\n");
    write(&path, "bin/run.sh", b"#!/bin/sh\necho run\n");
    std::fs::set_permissions(
        path.join("bin/run.sh"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    std::os::unix::fs::symlink("src/app.py", path.join("app-link")).unwrap();
    add_all(&repo);
    let base = commit(&repo, "base", &[]);

    repo.branch("feature", &repo.find_commit(base).unwrap(), false)
        .unwrap();
    repo.set_head("refs/heads/feature").unwrap();
    write(&path, "src/app.py", b"def app():\n    return 2\n");
    std::fs::remove_file(path.join("src/old.py")).unwrap();
    write(&path, "assets/logo.bin", BINARY);
    write(&path, "src/pkg/sub/mod.py", b"X = 1\n");
    write(&path, ".env", b"TOKEN=not-really-a-secret\n");
    write(&path, "data/big.txt", &[b'x'; 3000]);
    // The ledger binds what the head holds: its source tree, a file's hash, the base commit.
    let head_files: BTreeMap<String, Vec<u8>> = work_files(&path)
        .into_iter()
        .filter(|(p, _)| !p.starts_with("build/"))
        .map(|(p, c)| (p, c.to_vec()))
        .collect();
    let source_tree = gittree::source_tree_id(head_files.iter().map(|(p, c)| (p.as_str(), &**c)));
    let receipt = serde_json::json!({
        "git_tree": source_tree.to_string(),
        "base_commit": base.to_string(),
        "app_sha256": gittree::sha256_hex(&head_files["src/app.py"]),
    });
    write(
        &path,
        LEDGER,
        serde_json::to_string_pretty(&receipt).unwrap().as_bytes(),
    );
    add_all(&repo);
    let head = commit(&repo, "feature", &[base]);

    // Staged: an edit and a new file in the index (and the work tree).
    write(&path, "src/app.py", b"def app():\n    return 3\n");
    write(&path, "src/staged_new.py", b"NEW = 1\n");
    let mut index = repo.index().unwrap();
    index.add_path(Path::new("src/app.py")).unwrap();
    index.add_path(Path::new("src/staged_new.py")).unwrap();
    index.write().unwrap();
    // Unstaged: an edit, a deletion and an untracked file in the work tree only; an ignored one.
    write(&path, "README.md", b"# project, edited\n");
    std::fs::remove_file(path.join("docs/nested/deep/notes.txt")).unwrap();
    write(&path, "untracked.txt", b"new\n");
    write(&path, "build/out.o", b"ignored\n");
    Original {
        _dir: dir,
        path,
        base,
        head,
    }
}

fn import(args: &[&str], cwd: &Path) -> common::Output {
    let mut all = vec!["import"];
    all.extend_from_slice(args);
    gatebench(&all, cwd)
}

#[test]
fn an_imported_repository_materializes_to_the_same_trees() {
    let orig = original();
    let repo = Repository::open(&orig.path).unwrap();
    let out = tempfile::tempdir().unwrap();
    let fixtures = out.path().join("fixtures");
    let run = import(
        &[
            orig.path.to_str().unwrap(),
            "--staged",
            "--unstaged",
            "--allow",
            ".env",
            "--id",
            "my-project",
            "--out",
            fixtures.to_str().unwrap(),
        ],
        out.path(),
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    // What the format cannot keep is said, not dropped.
    assert!(
        run.stdout.contains("bin/run.sh: executable bit lost"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("app-link: symlink"), "{}", run.stdout);
    let folder = fixtures.join("my-project");
    assert!(folder.join("base/Cargo.toml.fixture").is_file());
    assert!(folder.join("base/.gitignore.fixture").is_file());
    assert!(!folder.join("base/Cargo.toml").exists());
    let yaml = std::fs::read_to_string(folder.join("fixture.yaml")).unwrap();
    assert!(yaml.contains("bin/run.sh: executable bit lost"), "{yaml}");
    assert!(yaml.contains("src/old.py"), "{yaml}");
    let ledger = std::fs::read_to_string(folder.join("head").join(LEDGER)).unwrap();
    assert!(ledger.contains("{{gatebench:source-tree}}"), "{ledger}");
    assert!(ledger.contains("{{gatebench:commit:base}}"), "{ledger}");
    assert!(
        ledger.contains("{{gatebench:sha256:src/app.py}}"),
        "{ledger}"
    );

    let corpus = corpus::load(&fixtures).unwrap_or_else(|e| panic!("{e:?}"));
    let fixture = corpus.get("my-project").unwrap();
    assert!(fixture.is_golden());
    assert_eq!(fixture.expect.verdict, Verdict::Pass);
    let built = tempfile::tempdir().unwrap();
    let m = materialize::materialize(fixture, &built.path().join("repo")).unwrap();
    let copy = Repository::open(&m.work_dir).unwrap();

    // Base: the same paths and bytes.
    let main = copy.refname_to_id("refs/heads/main").unwrap();
    assert_same(
        &files_of_commit(&copy, main),
        &files_of_commit(&repo, orig.base),
    );

    // Head: the same, except that the ledger's base commit id names the materialized base (its
    // source tree and hash did not change: same files).
    let feature = copy.refname_to_id("refs/heads/feature").unwrap();
    let head_copy = files_of_commit(&copy, feature);
    let rebind = |files: Files| rebound(files, orig.base, main);
    assert_same(&head_copy, &rebind(files_of_commit(&repo, orig.head)));
    assert_eq!(&*head_copy["assets/logo.bin"], BINARY);
    let receipt: serde_json::Value = serde_json::from_slice(&head_copy[LEDGER]).unwrap();
    let source_tree = gittree::source_tree_id(head_copy.iter().map(|(p, c)| (p.as_str(), &**c)));
    assert_eq!(receipt["git_tree"], source_tree.to_string());
    assert_eq!(
        receipt["app_sha256"],
        gittree::sha256_hex(&head_copy["src/app.py"])
    );
    assert_eq!(receipt["base_commit"], main.to_string());
    // gatebench's commits have a fixed author and date: the base commit id did change.
    assert_ne!(main, orig.base);

    // Staged and unstaged: the index and the work tree.
    assert_same(&index_files(&copy), &rebind(index_files(&repo)));
    let mut want = work_files(&orig.path);
    want.remove("build/out.o");
    assert_same(&work_files(&m.work_dir), &rebind(want));
}

/// `files` with the ledger's base commit id `from` replaced by `to`.
fn rebound(mut files: Files, from: Oid, to: Oid) -> Files {
    if let Some(ledger) = files.get_mut(LEDGER) {
        let text = String::from_utf8(ledger.to_vec()).unwrap();
        *ledger = text
            .replace(&from.to_string(), &to.to_string())
            .into_bytes()
            .into();
    }
    files
}

/// The same paths with the same bytes; a failure names the paths that differ.
fn assert_same(got: &Files, want: &Files) {
    let differ: Vec<&String> = got
        .keys()
        .chain(want.keys())
        .filter(|p| got.get(*p) != want.get(*p))
        .collect();
    assert!(differ.is_empty(), "these paths differ: {differ:?}");
}

#[test]
fn secrets_and_oversized_files_are_left_out_unless_allowed() {
    let orig = original();
    let out = tempfile::tempdir().unwrap();
    let fixtures = out.path().join("fixtures");
    let run = import(
        &[
            orig.path.to_str().unwrap(),
            "--id",
            "plain",
            "--max-file-size",
            "1000",
            "--out",
            fixtures.to_str().unwrap(),
        ],
        out.path(),
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains(".env: looks like a secret"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("data/big.txt: 3000 bytes, over the limit of 1000"),
        "{}",
        run.stdout
    );
    let folder = fixtures.join("plain");
    let yaml = std::fs::read_to_string(folder.join("fixture.yaml")).unwrap();
    assert!(yaml.contains("#   .env: looks like a secret"), "{yaml}");
    assert!(yaml.contains("#   data/big.txt: 3000 bytes"), "{yaml}");
    assert!(!folder.join("head/.env").exists());
    assert!(!folder.join("head/data/big.txt").exists());

    // Left out, and still bound: the receipt names the source tree that was materialized.
    let corpus = corpus::load(&fixtures).unwrap_or_else(|e| panic!("{e:?}"));
    let fixture = corpus.get("plain").unwrap();
    let head = &fixture.compose().unwrap().states.head;
    assert!(!head.contains_key(".env"));
    assert!(!head.contains_key("data/big.txt"));
    let built = tempfile::tempdir().unwrap();
    let m = materialize::materialize(fixture, &built.path().join("repo")).unwrap();
    let copy = Repository::open(&m.work_dir).unwrap();
    let feature = copy.refname_to_id("refs/heads/feature").unwrap();
    let head = files_of_commit(&copy, feature);
    let receipt: serde_json::Value = serde_json::from_slice(&head[LEDGER]).unwrap();
    let source_tree = gittree::source_tree_id(head.iter().map(|(p, c)| (p.as_str(), &**c)));
    assert_eq!(receipt["git_tree"], source_tree.to_string());

    // Allowed by glob: kept.
    let run = import(
        &[
            orig.path.to_str().unwrap(),
            "--id",
            "allowed",
            "--max-file-size",
            "1000",
            "--allow",
            ".env",
            "--allow",
            "data/*.txt",
            "--out",
            fixtures.to_str().unwrap(),
        ],
        out.path(),
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(!run.stdout.contains("left out"), "{}", run.stdout);
    assert!(fixtures.join("allowed/head/.env").is_file());
    assert!(fixtures.join("allowed/head/data/big.txt").is_file());
}

#[test]
fn a_private_key_block_is_left_out_whatever_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("repo");
    let repo = Repository::init_opts(
        &path,
        git2::RepositoryInitOptions::new().initial_head("main"),
    )
    .unwrap();
    write(&path, "a.txt", b"a\n");
    add_all(&repo);
    let base = commit(&repo, "base", &[]);
    write(
        &path,
        "config/deploy.txt",
        b"-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\n",
    );
    add_all(&repo);
    commit(&repo, "feature", &[base]);
    let fixtures = dir.path().join("fixtures");
    let run = import(
        &[
            path.to_str().unwrap(),
            "--base",
            &base.to_string(),
            "--id",
            "keyed",
            "--out",
            fixtures.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("config/deploy.txt: looks like a secret: contains a PEM private key block"),
        "{}",
        run.stdout
    );
    assert!(!fixtures.join("keyed/head/config").exists());
}

#[test]
fn an_existing_fixture_is_not_overwritten_without_force() {
    let orig = original();
    let out = tempfile::tempdir().unwrap();
    let fixtures = out.path().join("fixtures");
    let args = [
        orig.path.to_str().unwrap(),
        "--id",
        "twice",
        "--out",
        fixtures.to_str().unwrap(),
    ];
    assert_eq!(import(&args, out.path()).code, 0);
    let marker = fixtures.join("twice/marker");
    std::fs::write(&marker, "mine").unwrap();
    let again = import(&args, out.path());
    assert_eq!(again.code, 1, "{}\n{}", again.stdout, again.stderr);
    assert!(again.stderr.contains("--force"), "{}", again.stderr);
    assert!(
        marker.is_file(),
        "a refused import must leave the folder alone"
    );

    let mut forced = args.to_vec();
    forced.push("--force");
    assert_eq!(import(&forced, out.path()).code, 0);
    assert!(!marker.exists(), "--force replaces the folder");

    let bad = import(
        &[
            orig.path.to_str().unwrap(),
            "--id",
            "Not_An_Id",
            "--out",
            fixtures.to_str().unwrap(),
        ],
        out.path(),
    );
    assert_eq!(bad.code, 1);
    assert!(bad.stderr.contains("lowercase letters"), "{}", bad.stderr);
    let not_repo = import(
        &[
            out.path().to_str().unwrap(),
            "--id",
            "x",
            "--out",
            fixtures.to_str().unwrap(),
        ],
        out.path(),
    );
    assert_eq!(not_repo.code, 1, "{}", not_repo.stderr);
}

/// Every file of a fixture folder (path -> bytes), `fixture.yaml` excluded.
fn folder_files(dir: &Path) -> Files {
    let mut files = work_files(dir);
    files.remove("fixture.yaml");
    files
}

#[test]
fn a_bundled_golden_imported_from_its_repository_gives_itself_back_and_passes_the_gate() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("subscription");
    let run = gatebench(
        &[
            "materialize",
            "subscription-cancel",
            "--out",
            repo.to_str().unwrap(),
        ],
        root(),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let fixtures = tmp.path().join("fixtures");
    let run = import(
        &[
            repo.to_str().unwrap(),
            "--id",
            "subscription-again",
            "--out",
            fixtures.to_str().unwrap(),
        ],
        tmp.path(),
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);

    // The placeholders were put back exactly where the golden's author wrote them.
    assert_eq!(
        folder_files(&fixtures.join("subscription-again")),
        folder_files(&root().join("fixtures/subscription-cancel"))
    );

    let corpus = corpus::load(&fixtures).unwrap_or_else(|e| panic!("{e:?}"));
    let fixture = corpus.get("subscription-again").unwrap();
    let built = tempfile::tempdir().unwrap();
    let m = materialize::materialize(fixture, &built.path().join("repo")).unwrap();
    let report = gatebench_gate::run_gate(&m.work_dir, &gatebench_gate::GateOptions::default());
    assert_eq!(
        report.verdict(),
        Some(Verdict::Pass),
        "{}",
        serde_json::to_string_pretty(&report).unwrap()
    );
}

// Round 2 (issue 46): outputs and reads

/// A work-tree file over `--max-file-size` is left out by its size, never read whole: a sparse
/// 2 GiB file imported under a 1.5 GB address-space limit (was: read whole first, so the import
/// ran out of memory and aborted).
#[test]
fn an_oversized_work_tree_file_is_left_out_without_being_read() {
    let orig = original();
    let f = std::fs::File::create(orig.path.join("huge.bin")).unwrap();
    f.set_len(2 << 30).unwrap();
    drop(f);
    let out = tempfile::tempdir().unwrap();
    let fixtures = out.path().join("fixtures");
    let run = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 1500000; exec \"$@\"")
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_gatebench"))
        .args([
            "import",
            orig.path.to_str().unwrap(),
            "--id",
            "big",
            "--staged",
            "--unstaged",
            "--out",
            fixtures.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("huge.bin: 2147483648 bytes, over the largest file a fixture can hold"),
        "{stdout}"
    );
    assert!(!fixtures.join("big/unstaged/huge.bin").exists());
}
