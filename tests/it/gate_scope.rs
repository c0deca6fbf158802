//! `gatebench gate` reports the scope of the verify pipeline (docs/CONCEPTS.md#verify-scope): on a
//! repository with a committed, a staged and an unstaged change it detects `staged` with the changed
//! line ranges, and `--scope` selects each mode, the other changes listed as excluded with their
//! reason.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::gatebench;

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

/// main: a.py, b.txt, c.txt. feature: a.py gains lines 3-4 (committed); b.txt line 2 changes
/// (staged); c.txt line 1 changes (unstaged).
fn repository(dir: &Path) {
    git(dir, &["init", "-q", "-b", "main"]);
    std::fs::write(dir.join("a.py"), "x = 1\ny = 2\n").unwrap();
    std::fs::write(dir.join("b.txt"), "one\ntwo\nthree\n").unwrap();
    std::fs::write(dir.join("c.txt"), "alpha\nbeta\n").unwrap();
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "base"]);
    git(dir, &["checkout", "-q", "-b", "feature"]);
    std::fs::write(dir.join("a.py"), "x = 1\ny = 2\nz = 3\nw = 4\n").unwrap();
    git(dir, &["commit", "-q", "-am", "feature"]);
    std::fs::write(dir.join("b.txt"), "one\nTWO\nthree\n").unwrap();
    git(dir, &["add", "b.txt"]);
    std::fs::write(dir.join("c.txt"), "ALPHA\nbeta\n").unwrap();
}

fn scope(dir: &Path, extra: &[&str]) -> serde_json::Value {
    let path = dir.to_str().unwrap();
    let mut args = vec!["gate", path, "--format", "json"];
    args.extend(extra);
    let out = gatebench(&args, dir);
    let report: serde_json::Value =
        serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout));
    report["scope"].clone()
}

#[test]
fn the_gate_detects_the_staged_scope_and_each_mode_can_be_asked_for() {
    let work = tempfile::tempdir().unwrap();
    repository(work.path());

    let detected = scope(work.path(), &[]);
    assert_eq!(detected["mode"], "staged");
    assert_eq!(
        detected["includedFiles"],
        serde_json::json!([{"path": "b.txt", "status": "modified", "lines": ["2"]}])
    );
    let excluded = detected["excludedFiles"].as_array().unwrap();
    let reason = |path: &str| {
        excluded
            .iter()
            .find(|file| file["path"] == path)
            .and_then(|file| file["reason"].as_str())
            .unwrap_or_else(|| panic!("{path} not excluded: {excluded:?}"))
            .to_owned()
    };
    assert!(reason("a.py").starts_with("committed on the branch"));
    assert!(reason("c.txt").starts_with("unstaged"));

    let unstaged = scope(work.path(), &["--scope", "unstaged"]);
    assert_eq!(unstaged["mode"], "unstaged");
    assert_eq!(
        unstaged["includedFiles"],
        serde_json::json!([{"path": "c.txt", "status": "modified", "lines": ["1"]}])
    );
    let branch = scope(work.path(), &["--scope", "branch"]);
    assert_eq!(branch["mode"], "branch");
    assert_eq!(
        branch["includedFiles"],
        serde_json::json!([{"path": "a.py", "status": "modified", "lines": ["3-4"]}])
    );

    let human = gatebench(&["gate", work.path().to_str().unwrap()], work.path());
    assert!(
        human.stdout.contains("scope: staged (1 file(s))"),
        "{}",
        human.stdout
    );
    assert!(
        human.stdout.contains("b.txt (modified, lines 2)"),
        "{}",
        human.stdout
    );
}
