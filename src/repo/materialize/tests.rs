//! The materializer's tests: its pack against libgit2's commits, the fingerprint as written against
//! the one read back, `git fsck` on every kind of fixture repository, and scripted fixes committed
//! as git would.

use super::*;
use crate::corpus::{self, Corpus};
use git2::{Signature, Status, StatusOptions, Time};
use std::process::Command;
use std::sync::OnceLock;

fn corpus() -> &'static Corpus {
    static CORPUS: OnceLock<Corpus> = OnceLock::new();
    CORPUS.get_or_init(|| {
        corpus::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")).unwrap()
    })
}

fn fixture(id: &str) -> &'static Fixture {
    corpus().get(id).unwrap()
}

/// The same layers committed by libgit2's own writer (index, tree, `Repository::commit`).
fn libgit2_commit(
    repo: &Repository,
    files: &Files,
    parent: Option<&git2::Commit>,
    minute: i64,
    message: &str,
) -> Oid {
    let mut index = git2::Index::new().unwrap();
    for (path, content) in files {
        let id = repo.blob(content).unwrap();
        index.add(&index_entry(path, id)).unwrap();
    }
    let tree = repo.find_tree(index.write_tree_to(repo).unwrap()).unwrap();
    let sig = Signature::new(
        "gatebench",
        "gatebench@invalid",
        &Time::new(EPOCH + 60 * minute, 0),
    )
    .unwrap();
    let parents: Vec<&git2::Commit> = parent.into_iter().collect();
    repo.commit(None, &sig, &sig, message, &tree, &parents)
        .unwrap()
}

#[test]
fn the_pack_holds_the_commits_libgit2_itself_would_write() {
    let dir = tempfile::tempdir().unwrap();
    for id in ["subscription-cancel", "loop-wordcount"] {
        let f = fixture(id);
        let m = materialize(f, &dir.path().join(id)).unwrap();
        let repo = Repository::open(&m.repo_dir).unwrap();
        let files = |rev: &str| {
            let tree = repo.revparse_single(rev).unwrap().peel_to_tree().unwrap();
            tree_files(&repo, tree.id()).unwrap()
        };
        let (base, head) = (files("main"), files("feature"));
        assert!(!base.is_empty() && head.len() > base.len(), "{id}");

        let other = Repository::init(dir.path().join(format!("{id}-libgit2"))).unwrap();
        let base_id = libgit2_commit(&other, &base, None, 0, "base\n");
        let base_commit = other.find_commit(base_id).unwrap();
        let head_id = libgit2_commit(&other, &head, Some(&base_commit), 1, "feature\n");
        assert_eq!(m.commits["base"], base_id.to_string(), "{id}");
        assert_eq!(m.commits["head"], head_id.to_string(), "{id}");
    }
}

/// The first round's fingerprint, computed from what was written, is what reading the
/// repository gives, for every bundled fixture that has one; the others (a linked worktree,
/// a staged layer) have none and are read.
#[test]
fn the_fingerprint_as_written_is_the_one_read_from_disk_for_every_bundled_fixture() {
    let dir = tempfile::tempdir().unwrap();
    let (mut computed, mut read) = (0, 0);
    for f in &corpus().fixtures {
        let m = materialize(f, &dir.path().join(&f.id)).unwrap();
        let fingerprinter = Fingerprinter::open(&m.pinned, &m.work_dir).unwrap();
        let on_disk = fingerprinter.take().unwrap();
        match m.fingerprint_as_written(&fingerprinter) {
            Some(written) => {
                assert_eq!(written.unwrap(), on_disk, "{}", f.id);
                computed += 1;
            }
            None => {
                assert!(
                    f.worktree || f.compose().unwrap().states.staged.is_some(),
                    "{}",
                    f.id
                );
                read += 1;
            }
        }
    }
    // Most fixtures are computed; the worktree and staged ones are read.
    assert!(
        computed > 100 && read > 0,
        "computed {computed}, read {read}"
    );
}

/// After a scripted fix, what was written is no longer known: the fingerprint is read.
#[test]
fn a_fix_forgets_what_was_written() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture("loop-wordcount-test-point-fails");
    let mut m = materialize(f, &dir.path().join("r")).unwrap();
    let fingerprinter = Fingerprinter::open(&m.pinned, &m.work_dir).unwrap();
    assert!(m.fingerprint_as_written(&fingerprinter).is_some());
    let trees = f.compose().unwrap();
    m.apply_fix(f, 1, &trees.fixes[0].files).unwrap();
    assert!(m.fingerprint_as_written(&fingerprinter).is_none());
}

/// The gate's scope detection takes the work tree's changes against the index from the files
/// its view read where those settle them; for every bundled fixture, as materialized, after
/// the gate's first round (the loop's state written, its commands run) and after each
/// scripted fix, they are exactly libgit2's diff of the index to the work tree.
#[test]
fn the_scope_from_the_gates_snapshot_is_libgit2s_for_every_bundled_fixture() {
    use gatebench_gate::{repo::RepoView, scope, GateOptions};
    let dir = tempfile::tempdir().unwrap();
    let (mut compared, mut changed, mut fell_back) = (0, 0, Vec::new());
    let mut check = |work_dir: &Path, what: &str| {
        let view = RepoView::open(work_dir, "main").unwrap();
        let by_libgit2 = scope::unstaged_by_libgit2(&view).unwrap();
        match scope::unstaged_from_snapshot(&view) {
            Some(from_snapshot) => {
                assert_eq!(from_snapshot.unwrap(), by_libgit2, "{what}");
                compared += 1;
                changed += usize::from(!by_libgit2.is_empty());
            }
            None => fell_back.push(what.to_owned()),
        }
    };
    for f in &corpus().fixtures {
        let mut m = materialize(f, &dir.path().join(&f.id)).unwrap();
        check(&m.work_dir, &format!("{} as materialized", f.id));
        gatebench_gate::run_gate(&m.work_dir, &GateOptions::default());
        check(&m.work_dir, &format!("{} after a round", f.id));
        let trees = f.compose().unwrap();
        for (number, fix) in trees.fixes.iter().enumerate() {
            m.apply_fix(f, number as u32 + 1, &fix.files).unwrap();
            check(&m.work_dir, &format!("{} after fix {}", f.id, number + 1));
        }
    }
    // Nearly every state is compared, a good share of them with changes in the work tree;
    // what falls back is named.
    assert!(compared > 200, "compared {compared}");
    assert!(
        changed > 10,
        "{changed} of {compared} had work-tree changes"
    );
    assert!(fell_back.len() < 10, "fell back: {fell_back:?}");
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("the git CLI is needed to check repositories with git itself");
    assert!(
        out.status.success(),
        "git {args:?} in {}: {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn git_fsck_accepts_every_kind_of_fixture_repository_and_sees_its_layers() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        // (fixture, what `git status --porcelain` must list: none for a clean checkout)
        ("wordcount-cli", false),
        ("subscription-cancel-staged-source-edit", true),
        ("subscription-cancel-requirements-edited-unstaged", true),
        ("wordcount-cli-worktree-claim-linked", false),
    ];
    for (id, dirty) in cases {
        let f = fixture(id);
        let m = materialize(f, &dir.path().join(id)).unwrap();
        git(
            &m.repo_dir,
            &["fsck", "--strict", "--full", "--no-dangling"],
        );
        let head = git(&m.work_dir, &["rev-parse", "HEAD"]);
        assert_eq!(head.trim(), m.commits["head"], "{id}");
        let branch = git(&m.work_dir, &["symbolic-ref", "HEAD"]);
        assert_eq!(branch.trim(), "refs/heads/feature", "{id}");
        let base = git(&m.work_dir, &["rev-parse", "main"]);
        assert_eq!(base.trim(), m.commits["base"], "{id}");
        let status = git(&m.work_dir, &["status", "--porcelain"]);
        assert_eq!(!status.is_empty(), dirty, "{id}: {status}");

        // libgit2 sees the same, and a clean checkout needs no file re-read (stat data).
        let repo = Repository::open(&m.work_dir).unwrap();
        let mut opts = StatusOptions::new();
        opts.include_untracked(true);
        let statuses = repo.statuses(Some(&mut opts)).unwrap();
        let changed: Vec<Status> = statuses.iter().map(|s| s.status()).collect();
        assert_eq!(!changed.is_empty(), dirty, "{id}: {changed:?}");
        if id.contains("staged-source-edit") {
            assert!(changed.iter().any(|s| s.is_index_modified()), "{changed:?}");
        }
        if id.contains("unstaged") {
            assert!(changed.iter().any(|s| s.is_wt_modified()), "{changed:?}");
        }
    }
}

#[test]
fn a_fix_is_committed_on_the_feature_branch_with_the_fixed_author_and_time() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture("wordcount-cli");
    let mut m = materialize(f, &dir.path().join("repo")).unwrap();
    let mut files = m.current_raw.clone();
    files.insert("NOTES.md".to_owned(), b"fixed\n"[..].into());
    let work_dir = m.work_dir.clone();
    let count = |what: &str| {
        let counts = git(&work_dir, &["count-objects", "-v"]);
        counts
            .lines()
            .find_map(|line| line.strip_prefix(&format!("{what}: ")))
            .unwrap()
            .parse::<u32>()
            .unwrap()
    };
    let in_pack = count("in-pack");
    let id = m.apply_fix(f, 1, &files).unwrap();
    // One file added at the top: its blob, the root tree and the commit, in a second pack;
    // nothing loose, nothing the first pack holds stored again.
    assert_eq!(
        (count("count"), count("packs"), count("in-pack")),
        (0, 2, in_pack + 3)
    );
    let repo = Repository::open(&m.work_dir).unwrap();
    let commit = repo.head().unwrap().peel_to_commit().unwrap();
    assert_eq!(commit.id().to_string(), id);
    assert_eq!(commit.parent_id(0).unwrap().to_string(), m.commits["head"]);
    assert_eq!(commit.author().when().seconds(), EPOCH + 120);
    assert_eq!(commit.committer().name().unwrap(), "gatebench");
    assert_eq!(commit.message().unwrap(), "fix 1\n");
    git(
        &m.work_dir,
        &["fsck", "--strict", "--full", "--no-dangling"],
    );
    let status = git(&m.work_dir, &["status", "--porcelain"]);
    assert_eq!(status, "", "a fix leaves the work tree clean");
}

/// A fix commits the tree `git add -A && git commit` commits: an ignore rule that matches a
/// tracked file does not drop it (its new content is committed), and an untracked file it
/// matches stays out of the commit. git itself, run on a second copy, is the reference.
#[test]
fn a_fix_commits_what_git_add_all_would_for_ignored_tracked_and_untracked_files() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture("wordcount-cli");
    let mut ours = materialize(f, &dir.path().join("ours")).unwrap();
    let theirs = materialize(f, &dir.path().join("theirs")).unwrap();
    let changes: [(&str, &[u8]); 3] = [
        (".gitignore", b"README.md\n*.tmp\n"),
        ("README.md", b"tracked, and matched by an ignore rule\n"),
        ("scratch.tmp", b"untracked and ignored\n"),
    ];
    let mut files = ours.current_raw.clone();
    for (path, content) in changes {
        files.insert(path.to_owned(), content.into());
        std::fs::write(theirs.work_dir.join(path), content).unwrap();
    }
    ours.apply_fix(f, 1, &files).unwrap();
    git(&theirs.work_dir, &["add", "-A"]);
    git(
        &theirs.work_dir,
        &[
            "-c",
            "user.name=x",
            "-c",
            "user.email=x@invalid",
            "commit",
            "-q",
            "-m",
            "fix",
        ],
    );
    let tree = |m: &Materialized| git(&m.work_dir, &["rev-parse", "HEAD^{tree}"]);
    assert_eq!(tree(&ours), tree(&theirs));
    let listed = git(&ours.work_dir, &["ls-tree", "-r", "--name-only", "HEAD"]);
    assert!(listed.lines().any(|p| p == "README.md"), "{listed}");
    assert!(!listed.lines().any(|p| p == "scratch.tmp"), "{listed}");
}

/// A fixer that leaves a FIFO as a `.gitignore` (or a link as one) has its work refused, not
/// committed: libgit2 would block on it forever. Run on a thread, so a hang fails the test.
#[test]
fn a_fix_over_a_fifo_gitignore_is_refused_instead_of_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture("wordcount-cli");
    let mut m = materialize(f, &dir.path().join("r")).unwrap();
    std::fs::create_dir(m.work_dir.join("sub")).unwrap();
    std::fs::write(m.work_dir.join("sub/new.txt"), "x").unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        m.work_dir.join("sub/.gitignore"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        tx.send(m.commit_work_tree(1).map_err(|e| e.to_string()).map(|_| ()))
            .unwrap()
    });
    let refused = rx
        .recv_timeout(std::time::Duration::from_secs(20))
        .expect("the commit returned")
        .unwrap_err();
    assert!(
        refused.contains("sub/.gitignore not a regular file"),
        "{refused}"
    );
}
