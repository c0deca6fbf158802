//! Bad input the harness must survive: each case gives one clear error naming the file (and line
//! and column for YAML), exit code 1, no panic, and no temporary directory left behind.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const GOLDEN: &str = "id: g\ndescription: a golden\ncategory: golden\nbase: base\nhead:\n  overlay: head\nexpect:\n  verdict: pass\n";
const OMISSION: &str = "id: o\ndescription: an omission\ncategory: c\nextends: g\nplant:\n  delete: [src/a.py]\nexpect:\n  verdict: fail\n  kind: code-ref-broken\n  locus:\n    - path: src/a.py\n";

/// A fixtures folder with one golden `g` and one omission `o`, both valid.
fn corpus() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("fixtures");
    write(&root.join("g/fixture.yaml"), GOLDEN);
    write(&root.join("g/base/README.md"), "readme\n");
    write(&root.join("g/head/src/a.py"), "print(1)\n");
    write(&root.join("o/fixture.yaml"), OMISSION);
    fs::create_dir_all(dir.path().join("scenarios")).unwrap();
    write(&dir.path().join("scenarios/s.yaml"), "name: s\n");
    dir
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

struct Outcome {
    code: i32,
    stderr: String,
}

fn gatebench(dir: &Path, args: &[&str]) -> Outcome {
    let out = Command::new(env!("CARGO_BIN_EXE_gatebench"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    Outcome {
        code: out.status.code().unwrap_or(-1),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `check` and `run` on the broken corpus; both must exit 1 with `expected` in the message,
/// and `run` must leave its work dir empty.
fn assert_rejected(dir: &tempfile::TempDir, expected: &[&str]) {
    let check = gatebench(
        dir.path(),
        &[
            "check",
            "--fixtures",
            "fixtures",
            "--scenarios",
            "scenarios",
        ],
    );
    assert_eq!(check.code, 1, "check: {}", check.stderr);
    for e in expected {
        assert!(
            check.stderr.contains(e),
            "check stderr lacks {e:?}:\n{}",
            check.stderr
        );
    }
    assert!(!check.stderr.contains("panicked"), "{}", check.stderr);

    let work = dir.path().join("work");
    fs::create_dir_all(&work).unwrap();
    let run = gatebench(
        dir.path(),
        &[
            "run",
            "scenarios/s.yaml",
            "--fixtures",
            "fixtures",
            "--work-dir",
            "work",
            "--reports-dir",
            "reports",
        ],
    );
    assert_eq!(run.code, 1, "run: {}", run.stderr);
    for e in expected {
        assert!(
            run.stderr.contains(e),
            "run stderr lacks {e:?}:\n{}",
            run.stderr
        );
    }
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    let left: Vec<PathBuf> = fs::read_dir(&work)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(
        left.is_empty(),
        "temporary directories left behind: {left:?}"
    );
}

fn fixture_yaml(dir: &tempfile::TempDir, id: &str) -> PathBuf {
    dir.path().join("fixtures").join(id).join("fixture.yaml")
}

#[test]
fn the_valid_corpus_is_accepted() {
    let dir = corpus();
    let check = gatebench(
        dir.path(),
        &[
            "check",
            "--fixtures",
            "fixtures",
            "--scenarios",
            "scenarios",
        ],
    );
    assert_eq!(check.code, 0, "{}", check.stderr);
}

#[test]
fn malformed_yaml_names_file_line_and_column() {
    let dir = corpus();
    write(
        &fixture_yaml(&dir, "o"),
        "id: o\ndescription: an omission\ncategory: c: d\n",
    );
    assert_rejected(
        &dir,
        &[
            "fixtures/o/fixture.yaml:3:12",
            "mapping values are not allowed",
        ],
    );
}

#[test]
fn an_unknown_key_names_its_line() {
    let dir = corpus();
    write(
        &fixture_yaml(&dir, "o"),
        &format!("{OMISSION}colour: red\n"),
    );
    assert_rejected(
        &dir,
        &["fixtures/o/fixture.yaml:12:1", "unknown field `colour`"],
    );
}

#[test]
fn a_wrong_type_names_its_line() {
    let dir = corpus();
    write(
        &fixture_yaml(&dir, "o"),
        &OMISSION.replace("category: c\n", "category: c\ntags: 5\n"),
    );
    assert_rejected(&dir, &["fixtures/o/fixture.yaml:4:", "invalid type"]);
}

#[test]
fn a_golden_that_does_not_exist_is_named() {
    let dir = corpus();
    write(
        &fixture_yaml(&dir, "o"),
        &OMISSION.replace("extends: g", "extends: nope"),
    );
    assert_rejected(
        &dir,
        &[
            "fixtures/o/fixture.yaml:4:10",
            "`extends: nope` names no fixture",
        ],
    );
}

#[test]
fn a_missing_overlay_folder_is_named() {
    let dir = corpus();
    write(
        &fixture_yaml(&dir, "g"),
        &GOLDEN.replace("overlay: head", "overlay: nothere"),
    );
    assert_rejected(
        &dir,
        &["fixtures/g/fixture.yaml:6:", "`nothere` is not a folder"],
    );
}

#[test]
fn a_path_with_dotdot_is_rejected() {
    let dir = corpus();
    write(
        &fixture_yaml(&dir, "o"),
        &OMISSION.replace("[src/a.py]", "[../outside.txt]"),
    );
    assert_rejected(&dir, &["fixtures/o/fixture.yaml:6:", "contains `..`"]);
}

#[test]
fn an_absolute_path_is_rejected() {
    let dir = corpus();
    write(
        &fixture_yaml(&dir, "o"),
        &OMISSION.replace("[src/a.py]", "[/etc/passwd]"),
    );
    assert_rejected(&dir, &["fixtures/o/fixture.yaml:6:", "absolute path"]);
}

#[test]
fn a_symlink_leaving_the_fixture_is_rejected() {
    let dir = corpus();
    let outside = dir.path().join("secret.txt");
    write(&outside, "secret\n");
    std::os::unix::fs::symlink(&outside, dir.path().join("fixtures/g/head/link.txt")).unwrap();
    assert_rejected(
        &dir,
        &[
            "fixtures/g/head/link.txt",
            "symlink pointing outside the fixture folder",
        ],
    );
}

#[test]
fn two_fixtures_with_one_id_are_rejected() {
    let dir = corpus();
    write(&fixture_yaml(&dir, "o2"), OMISSION);
    assert_rejected(
        &dir,
        &["fixtures/o2/fixture.yaml:1:5", "duplicate fixture id `o`"],
    );
}

#[test]
fn a_placeholder_that_names_nothing_is_rejected() {
    let dir = corpus();
    write(
        &dir.path().join("fixtures/g/head/specs/f/r.json"),
        "{\"tree\": \"{{gatebench:bogus}}\"}\n",
    );
    assert_rejected(
        &dir,
        &["fixtures/g/fixture.yaml", "specs/f/r.json", "names nothing"],
    );
}

#[test]
fn an_empty_fixture_folder_is_rejected() {
    let dir = corpus();
    fs::create_dir_all(dir.path().join("fixtures/empty")).unwrap();
    assert_rejected(&dir, &["fixtures/empty", "must hold a fixture.yaml"]);
}
