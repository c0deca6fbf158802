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
fn assert_rejected(name: &str, dir: &tempfile::TempDir, expected: &[&str]) {
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
    assert_no_run_folder(dir.path());
    snapshot(
        name,
        dir.path(),
        &format!("check: {}run: {}", check.stderr, run.stderr),
    );
}

/// No run folder (complete or partial) under `<dir>/reports`.
fn assert_no_run_folder(dir: &Path) {
    let reports = dir.join("reports");
    let left: Vec<String> = fs::read_dir(&reports)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n != ".cache")
                .collect()
        })
        .unwrap_or_default();
    assert!(left.is_empty(), "run folders left in reports/: {left:?}");
}

/// The message, with the temporary folder's path redacted, as an insta snapshot.
fn snapshot(name: &str, dir: &Path, stderr: &str) {
    let real = dir.canonicalize().unwrap();
    let mut filters = vec![
        (
            regex::escape(&real.display().to_string()),
            "[TMP]".to_owned(),
        ),
        (
            regex::escape(&dir.display().to_string()),
            "[TMP]".to_owned(),
        ),
    ];
    // Run ids and process ids vary.
    filters.push((r"\d{8}T\d{6}Z-[\w-]+".to_owned(), "[RUN-ID]".to_owned()));
    let filters: Vec<(&str, &str)> = filters
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    insta::with_settings!({filters => filters, prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!(format!("bad_input__{name}"), stderr);
    });
}

/// Runs one command that must reject its input: exit 1, no panic, the `expected` fragments in the
/// message, nothing left under `work/` or `reports/`; the message is snapshotted.
fn assert_one(name: &str, dir: &tempfile::TempDir, args: &[&str], expected: &[&str]) {
    let work = dir.path().join("work");
    fs::create_dir_all(&work).unwrap();
    let out = gatebench(dir.path(), args);
    assert_eq!(out.code, 1, "{args:?}: {}", out.stderr);
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    for e in expected {
        assert!(
            out.stderr.contains(e),
            "stderr lacks {e:?}:\n{}",
            out.stderr
        );
    }
    let left: Vec<PathBuf> = fs::read_dir(&work)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(
        left.is_empty(),
        "temporary directories left behind: {left:?}"
    );
    assert_no_run_folder(dir.path());
    snapshot(name, dir.path(), &out.stderr);
}

const RUN: &[&str] = &[
    "run",
    "scenarios/s.yaml",
    "--fixtures",
    "fixtures",
    "--work-dir",
    "work",
    "--reports-dir",
    "reports",
    "--quiet",
];

fn run_with(extra: &[&'static str]) -> Vec<&'static str> {
    RUN.iter().chain(extra).copied().collect()
}

fn mkfifo(path: &Path) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
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
        "malformed_yaml_names_file_line_and_column",
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
        "an_unknown_key_names_its_line",
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
    assert_rejected(
        "a_wrong_type_names_its_line",
        &dir,
        &["fixtures/o/fixture.yaml:4:", "invalid type"],
    );
}

#[test]
fn a_golden_that_does_not_exist_is_named() {
    let dir = corpus();
    write(
        &fixture_yaml(&dir, "o"),
        &OMISSION.replace("extends: g", "extends: nope"),
    );
    assert_rejected(
        "a_golden_that_does_not_exist_is_named",
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
        "a_missing_overlay_folder_is_named",
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
    assert_rejected(
        "a_path_with_dotdot_is_rejected",
        &dir,
        &["fixtures/o/fixture.yaml:6:", "contains `..`"],
    );
}

#[test]
fn an_absolute_path_is_rejected() {
    let dir = corpus();
    write(
        &fixture_yaml(&dir, "o"),
        &OMISSION.replace("[src/a.py]", "[/etc/passwd]"),
    );
    assert_rejected(
        "an_absolute_path_is_rejected",
        &dir,
        &["fixtures/o/fixture.yaml:6:", "absolute path"],
    );
}

#[test]
fn a_symlink_leaving_the_fixture_is_rejected() {
    let dir = corpus();
    let outside = dir.path().join("secret.txt");
    write(&outside, "secret\n");
    std::os::unix::fs::symlink(&outside, dir.path().join("fixtures/g/head/link.txt")).unwrap();
    assert_rejected(
        "a_symlink_leaving_the_fixture_is_rejected",
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
        "two_fixtures_with_one_id_are_rejected",
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
        "a_placeholder_that_names_nothing_is_rejected",
        &dir,
        &["fixtures/g/fixture.yaml", "specs/f/r.json", "names nothing"],
    );
}

#[test]
fn an_empty_fixture_folder_is_rejected() {
    let dir = corpus();
    fs::create_dir_all(dir.path().join("fixtures/empty")).unwrap();
    assert_rejected(
        "an_empty_fixture_folder_is_rejected",
        &dir,
        &["fixtures/empty", "must hold a fixture.yaml"],
    );
}

// ---- Fixtures cannot reach git's control files (final paths, after `.fixture` is removed) ----

/// The golden with one more layer `unstaged`, holding `rel` (a path in the fixture folder).
fn golden_with_unstaged(dir: &tempfile::TempDir, rel: &str, text: &str) {
    write(
        &fixture_yaml(dir, "g"),
        &format!("{GOLDEN}unstaged:\n  overlay: unstaged\n"),
    );
    write(&dir.path().join("fixtures/g/unstaged").join(rel), text);
}

#[test]
fn a_dotgit_planted_through_the_disarm_suffix_is_rejected() {
    let dir = corpus();
    golden_with_unstaged(&dir, "x/.git.fixture", "gitdir: ../evil\n");
    write(
        &dir.path().join("fixtures/g/unstaged/evil/config.fixture"),
        "[core]\n\tfsmonitor = touch /tmp/pwned\n",
    );
    assert_rejected(
        "a_dotgit_planted_through_the_disarm_suffix_is_rejected",
        &dir,
        &["fixtures/g/unstaged/x/.git.fixture", "`x/.git`"],
    );
}

#[test]
fn an_uppercase_dotgit_folder_is_rejected() {
    let dir = corpus();
    write(&dir.path().join("fixtures/g/head/.GIT/config"), "[core]\n");
    assert_rejected(
        "an_uppercase_dotgit_folder_is_rejected",
        &dir,
        &["fixtures/g/head/.GIT", "taken by git for `.git`"],
    );
}

#[test]
fn an_ntfs_short_name_of_dotgit_is_rejected() {
    let dir = corpus();
    write(
        &dir.path().join("fixtures/g/head/sub/GIT~1/config"),
        "[core]\n",
    );
    assert_rejected(
        "an_ntfs_short_name_of_dotgit_is_rejected",
        &dir,
        &["fixtures/g/head/sub/GIT~1", "`GIT~1`"],
    );
}

#[test]
fn a_dotgit_with_trailing_dots_and_spaces_is_rejected() {
    let dir = corpus();
    write(&dir.path().join("fixtures/g/head/.git. ./HEAD"), "ref: x\n");
    assert_rejected(
        "a_dotgit_with_trailing_dots_and_spaces_is_rejected",
        &dir,
        &["taken by git for `.git`"],
    );
}

#[test]
fn a_dotgit_with_an_hfs_ignorable_character_is_rejected() {
    let dir = corpus();
    write(
        &dir.path()
            .join("fixtures/g/head/.g\u{200c}it/config.fixture"),
        "[core]\n",
    );
    assert_rejected(
        "a_dotgit_with_an_hfs_ignorable_character_is_rejected",
        &dir,
        &["taken by git for `.git`"],
    );
}

#[test]
fn deleting_inside_dotgit_is_rejected() {
    let dir = corpus();
    write(
        &fixture_yaml(&dir, "o"),
        &OMISSION.replace("[src/a.py]", "[.Git/index]"),
    );
    assert_rejected(
        "deleting_inside_dotgit_is_rejected",
        &dir,
        &["fixtures/o/fixture.yaml:6:", "`.Git`"],
    );
}

#[test]
fn a_dotgit_planted_by_a_fix_is_rejected() {
    let dir = corpus();
    write(
        &fixture_yaml(&dir, "o"),
        &format!("{OMISSION}fixes:\n  - after_round: 1\n    overlay: fix\n"),
    );
    write(
        &dir.path().join("fixtures/o/fix/.git.fixture"),
        "gitdir: x\n",
    );
    assert_rejected(
        "a_dotgit_planted_by_a_fix_is_rejected",
        &dir,
        &["fixtures/o/fix/.git.fixture", "`.git`"],
    );
}

#[test]
fn two_files_that_become_one_path_are_rejected() {
    let dir = corpus();
    write(&dir.path().join("fixtures/g/head/Cargo.toml"), "a\n");
    write(
        &dir.path().join("fixtures/g/head/Cargo.toml.fixture"),
        "b\n",
    );
    assert_rejected(
        "two_files_that_become_one_path_are_rejected",
        &dir,
        &["become `Cargo.toml`"],
    );
}

// ---- Placeholders ----

#[test]
fn a_long_sha256_placeholder_chain_is_rejected_by_check_and_run() {
    let dir = corpus();
    for i in 0..5000 {
        write(
            &dir.path().join(format!("fixtures/g/head/c/f{i}")),
            &format!("{{{{gatebench:sha256:c/f{}}}}}", i + 1),
        );
    }
    write(&dir.path().join("fixtures/g/head/c/f5000"), "end\n");
    assert_rejected(
        "a_long_sha256_placeholder_chain_is_rejected_by_check_and_run",
        &dir,
        &["fixtures/g/fixture.yaml", "more than 64 files"],
    );
}

#[test]
fn a_sha256_placeholder_cycle_is_rejected_by_check() {
    let dir = corpus();
    write(
        &dir.path().join("fixtures/g/head/a.txt"),
        "{{gatebench:sha256:b.txt}}\n",
    );
    write(
        &dir.path().join("fixtures/g/head/b.txt"),
        "{{gatebench:sha256:a.txt}}\n",
    );
    assert_rejected(
        "a_sha256_placeholder_cycle_is_rejected_by_check",
        &dir,
        &["fixtures/g/fixture.yaml", "cycle"],
    );
}

// ---- File types, names and encodings ----

#[test]
fn a_fifo_in_a_fixture_tree_is_rejected_without_hanging() {
    let dir = corpus();
    mkfifo(&dir.path().join("fixtures/g/head/pipe"));
    assert_rejected(
        "a_fifo_in_a_fixture_tree_is_rejected_without_hanging",
        &dir,
        &["fixtures/g/head/pipe", "not a regular file"],
    );
}

#[test]
fn a_fifo_as_fixture_yaml_is_rejected_without_hanging() {
    let dir = corpus();
    fs::remove_file(fixture_yaml(&dir, "o")).unwrap();
    mkfifo(&fixture_yaml(&dir, "o"));
    assert_rejected(
        "a_fifo_as_fixture_yaml_is_rejected_without_hanging",
        &dir,
        &["fixtures/o/fixture.yaml", "not a regular file"],
    );
}

#[test]
fn a_fifo_as_the_scenario_file_is_rejected_without_hanging() {
    let dir = corpus();
    fs::remove_file(dir.path().join("scenarios/s.yaml")).unwrap();
    mkfifo(&dir.path().join("scenarios/s.yaml"));
    assert_one(
        "a_fifo_as_the_scenario_file_is_rejected_without_hanging",
        &dir,
        RUN,
        &["scenarios/s.yaml", "not a regular file"],
    );
}

#[test]
fn a_fifo_in_the_scenarios_folder_is_rejected_by_check() {
    let dir = corpus();
    mkfifo(&dir.path().join("scenarios/other.yaml"));
    assert_one(
        "a_fifo_in_the_scenarios_folder_is_rejected_by_check",
        &dir,
        &[
            "check",
            "--fixtures",
            "fixtures",
            "--scenarios",
            "scenarios",
        ],
        &["scenarios/other.yaml", "not a regular file"],
    );
}

#[test]
fn a_folder_named_fixture_yaml_is_rejected() {
    let dir = corpus();
    fs::remove_file(fixture_yaml(&dir, "o")).unwrap();
    fs::create_dir_all(fixture_yaml(&dir, "o")).unwrap();
    assert_rejected(
        "a_folder_named_fixture_yaml_is_rejected",
        &dir,
        &["fixtures/o", "fixture.yaml"],
    );
}

#[test]
fn a_non_utf8_fixture_yaml_names_line_and_column() {
    let dir = corpus();
    let path = fixture_yaml(&dir, "o");
    let mut bytes = OMISSION.as_bytes().to_vec();
    bytes.extend_from_slice(b"tags: [caf\xe9]\n");
    fs::write(path, bytes).unwrap();
    assert_rejected(
        "a_non_utf8_fixture_yaml_names_line_and_column",
        &dir,
        &["fixtures/o/fixture.yaml:12:11", "not UTF-8"],
    );
}

#[test]
fn a_non_utf8_scenario_file_is_exit_1() {
    let dir = corpus();
    fs::write(dir.path().join("scenarios/s.yaml"), b"name: s\xff\n").unwrap();
    assert_one(
        "a_non_utf8_scenario_file_is_exit_1",
        &dir,
        RUN,
        &["scenarios/s.yaml:1:8", "not UTF-8"],
    );
}

#[test]
fn a_non_utf8_file_name_in_a_fixture_tree_is_an_error_not_renamed() {
    use std::os::unix::ffi::OsStrExt;
    let dir = corpus();
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.txt");
    fs::write(dir.path().join("fixtures/g/head").join(name), "x\n").unwrap();
    assert_rejected(
        "a_non_utf8_file_name_in_a_fixture_tree_is_an_error_not_renamed",
        &dir,
        &["not UTF-8"],
    );
}

#[test]
fn a_symlink_dag_is_rejected_quickly() {
    // Two links per level to the next level, 18 levels: 2^18 paths if links were followed freely.
    let dir = corpus();
    let head = dir.path().join("fixtures/g/head/dag");
    for level in 0..18 {
        let d = head.join(format!("l{level}"));
        fs::create_dir_all(&d).unwrap();
        fs::write(d.join("f.txt"), "x\n").unwrap();
        if level > 0 {
            let prev = head.join(format!("l{}", level - 1));
            for link in ["a", "b"] {
                std::os::unix::fs::symlink(format!("../l{level}"), prev.join(link)).unwrap();
            }
        }
    }
    assert_rejected(
        "a_symlink_dag_is_rejected_quickly",
        &dir,
        &["is reached twice"],
    );
}

#[test]
fn a_symlink_loop_is_rejected() {
    let dir = corpus();
    fs::create_dir_all(dir.path().join("fixtures/g/head/sub")).unwrap();
    std::os::unix::fs::symlink("..", dir.path().join("fixtures/g/head/sub/up")).unwrap();
    assert_rejected("a_symlink_loop_is_rejected", &dir, &["is reached twice"]);
}

// ---- YAML limits ----

#[test]
fn a_yaml_alias_bomb_is_refused_before_it_is_built() {
    let dir = corpus();
    let big = "x".repeat(1 << 20);
    let mut text = format!("{OMISSION}tags: [&a {big}");
    for _ in 0..5000 {
        text.push_str(", *a");
    }
    text.push_str("]\n");
    write(&fixture_yaml(&dir, "o"), &text);
    assert_rejected(
        "a_yaml_alias_bomb_is_refused_before_it_is_built",
        &dir,
        &["fixtures/o/fixture.yaml", "expands (through its aliases)"],
    );
}

#[test]
fn deeply_nested_flow_yaml_is_refused_quickly() {
    let dir = corpus();
    let depth = 200_000;
    let text = format!(
        "{OMISSION}tags: {}{}\n",
        "[".repeat(depth),
        "]".repeat(depth)
    );
    write(&fixture_yaml(&dir, "o"), &text);
    assert_rejected(
        "deeply_nested_flow_yaml_is_refused_quickly",
        &dir,
        &["fixtures/o/fixture.yaml:12:", "nested deeper than 64"],
    );
}

#[test]
fn deeply_nested_block_yaml_is_refused() {
    let dir = corpus();
    let mut text = format!("{OMISSION}tags:\n");
    for level in 1..200 {
        text.push_str(&format!("{}- \n", "  ".repeat(level)));
    }
    write(&fixture_yaml(&dir, "o"), &text);
    assert_rejected(
        "deeply_nested_block_yaml_is_refused",
        &dir,
        &["fixtures/o/fixture.yaml:", "nested deeper than 128 levels"],
    );
}

// ---- Fixture strictness ----

#[test]
fn a_null_category_is_rejected() {
    let dir = corpus();
    write(
        &fixture_yaml(&dir, "o"),
        &OMISSION.replace("category: c", "category: ~"),
    );
    assert_rejected(
        "a_null_category_is_rejected",
        &dir,
        &["fixtures/o/fixture.yaml:3:", "not null"],
    );
}

#[test]
fn extending_oneself_is_named() {
    let dir = corpus();
    write(
        &fixture_yaml(&dir, "o"),
        &OMISSION.replace("extends: g", "extends: o"),
    );
    assert_rejected(
        "extending_oneself_is_named",
        &dir,
        &["fixtures/o/fixture.yaml:4:10", "names this fixture itself"],
    );
}

#[test]
fn extending_an_omission_is_named_whatever_the_order() {
    // `a` sorts before `o`: it is built first, so `o` is not built yet when `a` names it.
    let dir = corpus();
    write(
        &fixture_yaml(&dir, "a"),
        &OMISSION
            .replace("id: o", "id: a")
            .replace("extends: g", "extends: o"),
    );
    assert_rejected(
        "extending_an_omission_is_named_whatever_the_order",
        &dir,
        &["fixtures/a/fixture.yaml:4:10", "names an omission fixture"],
    );
}

#[test]
fn a_cycle_of_extends_is_named() {
    let dir = corpus();
    write(
        &fixture_yaml(&dir, "o"),
        &OMISSION.replace("extends: g", "extends: p"),
    );
    write(
        &fixture_yaml(&dir, "p"),
        &OMISSION.replace("id: o", "id: p"),
    );
    assert_rejected(
        "a_cycle_of_extends_is_named",
        &dir,
        &["fixtures/o/fixture.yaml:4:10", "names an omission fixture"],
    );
}

// ---- Scenarios: `check` rejects what `run` rejects ----

fn scenario(dir: &tempfile::TempDir, text: &str) {
    write(&dir.path().join("scenarios/s.yaml"), text);
}

#[test]
fn a_category_bar_naming_no_category_is_rejected_by_check() {
    let dir = corpus();
    scenario(
        &dir,
        "name: s\nthresholds:\n  min_category_recall:\n    nope: 0.5\n",
    );
    assert_rejected(
        "a_category_bar_naming_no_category_is_rejected_by_check",
        &dir,
        &["scenarios/s.yaml", "`nope`"],
    );
}

#[test]
fn an_include_glob_matching_nothing_is_rejected_by_check() {
    let dir = corpus();
    scenario(&dir, "name: s\nfixtures:\n  include: [o, zzz*]\n");
    assert_rejected(
        "an_include_glob_matching_nothing_is_rejected_by_check",
        &dir,
        &["scenarios/s.yaml", "`zzz*` matches no fixture"],
    );
}

#[test]
fn a_scenario_whose_fixtures_folder_is_missing_is_rejected_by_check() {
    let dir = corpus();
    scenario(&dir, "name: s\nfixtures_dir: ../nothere\n");
    assert_one(
        "a_scenario_whose_fixtures_folder_is_missing_is_rejected_by_check",
        &dir,
        &[
            "check",
            "--fixtures",
            "fixtures",
            "--scenarios",
            "scenarios",
        ],
        &["nothere", "cannot be read"],
    );
    assert_one(
        "a_scenario_whose_fixtures_folder_is_missing_is_rejected_by_run",
        &dir,
        &[
            "run",
            "scenarios/s.yaml",
            "--work-dir",
            "work",
            "--reports-dir",
            "reports",
        ],
        &["nothere", "does not exist"],
    );
}

#[test]
fn an_unknown_key_under_a_builtin_pipeline_is_rejected() {
    let dir = corpus();
    scenario(
        &dir,
        "name: s\npipeline:\n  kind: builtin\n  command: [x]\n",
    );
    assert_rejected(
        "an_unknown_key_under_a_builtin_pipeline_is_rejected",
        &dir,
        &["scenarios/s.yaml:4:3", "unknown key `command`"],
    );
}

#[test]
fn an_unknown_key_under_a_legacy_pipeline_is_rejected() {
    let dir = corpus();
    scenario(&dir, "name: s\npipeline:\n  kind: legacy\n  strict: true\n");
    assert_rejected(
        "an_unknown_key_under_a_legacy_pipeline_is_rejected",
        &dir,
        &["scenarios/s.yaml:4:3", "unknown key `strict`"],
    );
}

#[test]
fn an_unknown_key_under_a_command_pipeline_names_its_line() {
    let dir = corpus();
    scenario(
        &dir,
        "name: s\npipeline:\n  kind: command\n  command: [true]\n  colour: red\n",
    );
    assert_rejected(
        "an_unknown_key_under_a_command_pipeline_names_its_line",
        &dir,
        &["scenarios/s.yaml:5:3", "unknown key `colour`"],
    );
}

#[test]
fn scenario_jobs_beyond_the_limit_are_rejected() {
    let dir = corpus();
    scenario(&dir, "name: s\njobs: 100000\n");
    assert_rejected(
        "scenario_jobs_beyond_the_limit_are_rejected",
        &dir,
        &["scenarios/s.yaml:2:7", "between 1 and 256"],
    );
}

// ---- Command-line values ----

#[test]
fn jobs_beyond_the_limit_are_rejected() {
    let dir = corpus();
    assert_one(
        "jobs_beyond_the_limit_are_rejected",
        &dir,
        &run_with(&["--jobs", "20000"]),
        &["--jobs", "20000"],
    );
}

#[test]
fn zero_jobs_are_rejected() {
    let dir = corpus();
    assert_one(
        "zero_jobs_are_rejected",
        &dir,
        &run_with(&["--jobs", "0"]),
        &["--jobs"],
    );
}

#[test]
fn zero_trials_are_rejected() {
    let dir = corpus();
    assert_one(
        "zero_trials_are_rejected",
        &dir,
        &run_with(&["--trials", "0"]),
        &["--trials"],
    );
}

#[test]
fn zero_max_rounds_are_rejected() {
    let dir = corpus();
    assert_one(
        "zero_max_rounds_are_rejected",
        &dir,
        &run_with(&["--max-rounds", "0"]),
        &["--max-rounds"],
    );
}

#[test]
fn a_missing_scenario_file_is_exit_1() {
    let dir = corpus();
    assert_one(
        "a_missing_scenario_file_is_exit_1",
        &dir,
        &[
            "run",
            "scenarios/nothere.yaml",
            "--work-dir",
            "work",
            "--reports-dir",
            "reports",
        ],
        &["scenarios/nothere.yaml", "does not exist"],
    );
}

#[test]
fn a_missing_fixtures_folder_is_exit_1() {
    let dir = corpus();
    assert_one(
        "a_missing_fixtures_folder_is_exit_1",
        &dir,
        &[
            "run",
            "scenarios/s.yaml",
            "--fixtures",
            "nothere",
            "--work-dir",
            "work",
            "--reports-dir",
            "reports",
        ],
        &["nothere", "does not exist"],
    );
}

#[test]
fn a_missing_fixtures_folder_is_exit_1_for_check() {
    let dir = corpus();
    assert_one(
        "a_missing_fixtures_folder_is_exit_1_for_check",
        &dir,
        &["check", "--fixtures", "nothere", "--scenarios", "scenarios"],
        &["nothere", "cannot be read"],
    );
}

#[test]
fn a_missing_scenarios_folder_is_exit_1_for_check() {
    let dir = corpus();
    assert_one(
        "a_missing_scenarios_folder_is_exit_1_for_check",
        &dir,
        &["check", "--fixtures", "fixtures", "--scenarios", "nothere"],
        &["nothere", "cannot be read"],
    );
}

#[test]
fn an_unwritable_reports_folder_is_found_before_any_trial() {
    let dir = corpus();
    // A file where the reports folder should be: nothing can be created in it.
    write(&dir.path().join("reports-file"), "x\n");
    let out = gatebench(
        dir.path(),
        &[
            "run",
            "scenarios/s.yaml",
            "--fixtures",
            "fixtures",
            "--work-dir",
            "work",
            "--reports-dir",
            "reports-file/sub",
            "--quiet",
        ],
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("reports-file/sub"), "{}", out.stderr);
    assert!(out.stderr.contains("nothing was run"), "{}", out.stderr);
    snapshot(
        "an_unwritable_reports_folder_is_found_before_any_trial",
        dir.path(),
        &out.stderr,
    );
}

#[test]
fn workflow_schema_on_a_missing_file_is_exit_1() {
    let dir = corpus();
    assert_one(
        "workflow_schema_on_a_missing_file_is_exit_1",
        &dir,
        &["workflow-schema", "nothere.yaml"],
        &["nothere.yaml", "does not exist"],
    );
}

#[test]
fn gate_on_a_folder_that_is_not_a_repository_is_exit_1_on_stderr() {
    let dir = corpus();
    let out = Command::new(env!("CARGO_BIN_EXE_gatebench"))
        .current_dir(dir.path())
        .args(["gate", "fixtures"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("not a git repository"), "{stderr}");
    snapshot(
        "gate_on_a_folder_that_is_not_a_repository_is_exit_1_on_stderr",
        dir.path(),
        &stderr,
    );
}

#[test]
fn gate_with_a_base_that_names_no_commit_is_exit_1_on_stderr() {
    let dir = corpus();
    let repo = dir.path().join("repo");
    fs::create_dir_all(&repo).unwrap();
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .current_dir(&repo)
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .output()
            .unwrap()
            .status
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q", "-b", "main"]);
    git(&["commit", "-q", "--allow-empty", "-m", "x"]);
    let out = Command::new(env!("CARGO_BIN_EXE_gatebench"))
        .current_dir(dir.path())
        .args(["gate", "repo", "--base", "nope"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("`nope`"), "{stderr}");
    snapshot(
        "gate_with_a_base_that_names_no_commit_is_exit_1_on_stderr",
        dir.path(),
        &stderr,
    );
}

#[test]
fn materialize_out_naming_a_file_says_so() {
    let dir = corpus();
    write(&dir.path().join("afile"), "x\n");
    assert_one(
        "materialize_out_naming_a_file_says_so",
        &dir,
        &[
            "materialize",
            "g",
            "--out",
            "afile",
            "--fixtures",
            "fixtures",
        ],
        &["afile", "names a file"],
    );
}

#[test]
fn schema_dir_that_does_not_exist_says_so() {
    let dir = corpus();
    assert_one(
        "schema_dir_that_does_not_exist_says_so",
        &dir,
        &["schema", "--dir", "nothere"],
        &["nothere", "does not exist"],
    );
}

// ---- merge ----

#[test]
fn merge_of_a_shard_with_an_absurd_count_is_rejected_without_allocating() {
    let dir = corpus();
    // A real shard's results, its count then made absurd.
    let out = gatebench(
        dir.path(),
        &[
            "run",
            "scenarios/s.yaml",
            "--fixtures",
            "fixtures",
            "--work-dir",
            "work",
            "--reports-dir",
            "shard-run",
            "--quiet",
            "--shard",
            "1/1",
        ],
    );
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    let run = fs::read_dir(dir.path().join("shard-run"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.join("results.json").is_file())
        .unwrap();
    let text = fs::read_to_string(run.join("results.json")).unwrap();
    let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
    value["shard"]["count"] = serde_json::json!(4294967295u32);
    write(&dir.path().join("s1/results.json"), &value.to_string());
    // The reports the results refer to come along (the run's object store).
    fs::create_dir_all(dir.path().join("s1/objects")).unwrap();
    for entry in fs::read_dir(run.join("objects")).unwrap() {
        let path = entry.unwrap().path();
        fs::copy(
            &path,
            dir.path()
                .join("s1/objects")
                .join(path.file_name().unwrap()),
        )
        .unwrap();
    }
    assert_one(
        "merge_of_a_shard_with_an_absurd_count_is_rejected_without_allocating",
        &dir,
        &["merge", "s1/results.json", "--reports-dir", "reports"],
        &["s1/results.json", "4294967295"],
    );
}

#[test]
fn merge_of_a_non_utf8_results_file_is_exit_1() {
    let dir = corpus();
    fs::create_dir_all(dir.path().join("s1")).unwrap();
    fs::write(dir.path().join("s1/results.json"), b"{\"a\": \"\xff\"}").unwrap();
    assert_one(
        "merge_of_a_non_utf8_results_file_is_exit_1",
        &dir,
        &["merge", "s1/results.json", "--reports-dir", "reports"],
        &["s1/results.json:1:8", "not UTF-8"],
    );
}

#[test]
fn merge_of_a_fifo_results_file_is_rejected_without_hanging() {
    let dir = corpus();
    mkfifo(&dir.path().join("s1/results.json"));
    assert_one(
        "merge_of_a_fifo_results_file_is_rejected_without_hanging",
        &dir,
        &["merge", "s1/results.json", "--reports-dir", "reports"],
        &["s1/results.json", "not a results file"],
    );
}

// Round 2 (issue 46): inputs and merge

/// A folder beside the fixtures folder, holding a file a link from a fixture could expose.
fn outside_folder(dir: &tempfile::TempDir) -> PathBuf {
    let outside = dir.path().join("outside");
    write(&outside.join("secret.txt"), "secret\n");
    outside
}

/// `path` (a folder of the corpus) replaced by a symlink to `target`.
fn link_folder(path: &Path, target: &Path) {
    if path.exists() {
        fs::remove_dir_all(path).unwrap();
    }
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(target, path).unwrap();
}

#[test]
fn a_head_folder_linked_outside_the_fixture_is_rejected() {
    let dir = corpus();
    let outside = outside_folder(&dir);
    link_folder(&dir.path().join("fixtures/g/head"), &outside);
    assert_rejected(
        "a_head_folder_linked_outside_the_fixture_is_rejected",
        &dir,
        &[
            "fixtures/g/fixture.yaml:6:",
            "`head` is reached through a symlink pointing outside the fixture folder",
        ],
    );
}

#[test]
fn a_base_folder_linked_outside_the_fixture_is_rejected() {
    let dir = corpus();
    let outside = outside_folder(&dir);
    link_folder(&dir.path().join("fixtures/g/base"), &outside);
    assert_rejected(
        "a_base_folder_linked_outside_the_fixture_is_rejected",
        &dir,
        &[
            "fixtures/g/fixture.yaml:4:",
            "`base` is reached through a symlink pointing outside the fixture folder",
        ],
    );
}

#[test]
fn a_plant_overlay_linked_outside_the_fixture_is_rejected() {
    let dir = corpus();
    let outside = outside_folder(&dir);
    write(
        &fixture_yaml(&dir, "o"),
        "id: o\ndescription: an omission\ncategory: c\nextends: g\nplant:\n  overlay: sl\n  delete: [src/a.py]\nexpect:\n  verdict: fail\n  kind: code-ref-broken\n  locus:\n    - path: src/a.py\n",
    );
    link_folder(&dir.path().join("fixtures/o/sl"), &outside);
    assert_rejected(
        "a_plant_overlay_linked_outside_the_fixture_is_rejected",
        &dir,
        &[
            "fixtures/o/fixture.yaml:6:",
            "`sl` is reached through a symlink pointing outside the fixture folder",
        ],
    );
}

#[test]
fn a_fix_overlay_linked_outside_the_fixture_is_rejected() {
    let dir = corpus();
    let outside = outside_folder(&dir);
    write(
        &fixture_yaml(&dir, "o"),
        &format!("{OMISSION}fixes:\n  - after_round: 1\n    overlay: fix1\n"),
    );
    link_folder(&dir.path().join("fixtures/o/fix1"), &outside);
    assert_rejected(
        "a_fix_overlay_linked_outside_the_fixture_is_rejected",
        &dir,
        &[
            "fixtures/o/fixture.yaml",
            "`fix1` is reached through a symlink pointing outside",
        ],
    );
}

#[test]
fn a_folder_on_the_way_to_a_layer_linked_outside_is_rejected() {
    let dir = corpus();
    let outside = outside_folder(&dir);
    write(&outside.join("more/extra.txt"), "secret\n");
    write(
        &fixture_yaml(&dir, "g"),
        "id: g\ndescription: a golden\ncategory: golden\nbase: base\nhead:\n  overlay: head\nunstaged:\n  overlay: layers/more\nexpect:\n  verdict: pass\n",
    );
    link_folder(&dir.path().join("fixtures/g/layers"), &outside);
    assert_rejected(
        "a_folder_on_the_way_to_a_layer_linked_outside_is_rejected",
        &dir,
        &[
            "fixtures/g/fixture.yaml:8:",
            "`layers/more` is reached through a symlink pointing outside",
        ],
    );
}

#[test]
fn a_fixture_folder_linked_outside_the_fixtures_folder_is_rejected() {
    let dir = corpus();
    let elsewhere = dir.path().join("elsewhere");
    write(
        &elsewhere.join("fixture.yaml"),
        &GOLDEN.replace("id: g", "id: x"),
    );
    write(&elsewhere.join("base/README.md"), "readme\n");
    write(&elsewhere.join("head/src/b.py"), "print(2)\n");
    link_folder(&dir.path().join("fixtures/x"), &elsewhere);
    assert_rejected(
        "a_fixture_folder_linked_outside_the_fixtures_folder_is_rejected",
        &dir,
        &[
            "fixtures/x",
            "the fixture folder is a symlink pointing outside the fixtures folder",
        ],
    );
}

/// Runs shard `index`/`count` of the corpus's scenario and copies its results and objects to
/// `<dir>/<to>/`; returns its results as JSON, for a test to edit and write back
/// ([`write_results`]).
fn shard_copy(dir: &tempfile::TempDir, index: u32, count: u32, to: &str) -> serde_json::Value {
    let reports = format!("shard-run-{to}");
    let shard = format!("{index}/{count}");
    let out = gatebench(
        dir.path(),
        &[
            "run",
            "scenarios/s.yaml",
            "--fixtures",
            "fixtures",
            "--work-dir",
            "work",
            "--reports-dir",
            &reports,
            "--quiet",
            "--shard",
            &shard,
        ],
    );
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    let run = fs::read_dir(dir.path().join(&reports))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.join("results.json").is_file())
        .unwrap_or_else(|| panic!("no shard run: {}", out.stderr));
    let to = dir.path().join(to);
    fs::create_dir_all(to.join("objects")).unwrap();
    for entry in fs::read_dir(run.join("objects")).unwrap() {
        let path = entry.unwrap().path();
        fs::copy(&path, to.join("objects").join(path.file_name().unwrap())).unwrap();
    }
    let text = fs::read_to_string(run.join("results.json")).unwrap();
    fs::write(to.join("results.json"), &text).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn write_results(dir: &tempfile::TempDir, to: &str, value: &serde_json::Value) {
    write(
        &dir.path().join(to).join("results.json"),
        &value.to_string(),
    );
}

/// No file or folder named `name` anywhere under `dir`: nothing escaped the reports folder.
fn assert_nothing_named(dir: &Path, name: &str) {
    for entry in walk(dir) {
        assert!(
            entry.file_name().is_none_or(|n| n != name),
            "{} was created",
            entry.display()
        );
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            out.extend(walk(&path));
        }
        out.push(path);
    }
    out
}

/// The results with the case id of the first trial renamed to `id` (the trial then names its log
/// folder by it).
fn with_case_id(mut value: serde_json::Value, id: &str) -> serde_json::Value {
    let cases = value["cases"].as_object_mut().expect("a case map");
    let first = cases.keys().next().unwrap().clone();
    let entry = cases.remove(&first).unwrap();
    cases.insert(id.to_owned(), entry);
    value
}

#[test]
fn merge_of_a_case_id_leaving_the_reports_folder_is_rejected() {
    let dir = corpus();
    let value = shard_copy(&dir, 1, 1, "s1");
    write_results(&dir, "s1", &with_case_id(value, "../../../escaped"));
    assert_one(
        "merge_of_a_case_id_leaving_the_reports_folder_is_rejected",
        &dir,
        &["merge", "s1/results.json", "--reports-dir", "reports"],
        &[
            "s1/results.json",
            "case id `../../../escaped` is not a case id",
        ],
    );
    assert_nothing_named(dir.path(), "escaped");
}

#[test]
fn replay_of_a_case_id_leaving_the_reports_folder_is_rejected() {
    let dir = corpus();
    let value = shard_copy(&dir, 1, 1, "s1");
    write_results(&dir, "s1", &with_case_id(value, "../../../escaped"));
    assert_one(
        "replay_of_a_case_id_leaving_the_reports_folder_is_rejected",
        &dir,
        &[
            "replay",
            "s1/results.json",
            "--fixtures",
            "fixtures",
            "--reports-dir",
            "reports",
        ],
        &[
            "s1/results.json",
            "case id `../../../escaped` is not a case id",
        ],
    );
    assert_nothing_named(dir.path(), "escaped");
}

#[test]
fn replay_of_an_object_reference_leaving_the_objects_folder_is_rejected() {
    let dir = corpus();
    let mut value = shard_copy(&dir, 1, 1, "s1");
    // An object "stored" outside the run's objects folder, and a round that references it.
    write(&dir.path().join("planted.json"), "{}");
    value["trials"][0]["rounds"][0]["report_ref"] = serde_json::json!("../../planted");
    write_results(&dir, "s1", &value);
    assert_one(
        "replay_of_an_object_reference_leaving_the_objects_folder_is_rejected",
        &dir,
        &[
            "replay",
            "s1/results.json",
            "--fixtures",
            "fixtures",
            "--reports-dir",
            "reports",
        ],
        &[
            "s1/results.json",
            "object reference `../../planted` is not an object reference",
        ],
    );
}

#[test]
fn a_results_file_with_a_fixture_id_or_trial_out_of_format_is_rejected() {
    let dir = corpus();
    let mut value = shard_copy(&dir, 1, 1, "s1");
    value["trials"][0]["fixture"] = serde_json::json!("../x");
    write_results(&dir, "s1", &value);
    let mut value = shard_copy(&dir, 1, 1, "s2");
    value["trials"][0]["trial"] = serde_json::json!(7);
    write_results(&dir, "s2", &value);
    let out = gatebench(
        dir.path(),
        &[
            "replay",
            "s1/results.json",
            "--fixtures",
            "fixtures",
            "--reports-dir",
            "reports",
        ],
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("fixture id `../x` is not a fixture id"),
        "{}",
        out.stderr
    );
    let trial = gatebench(
        dir.path(),
        &["merge", "s2/results.json", "--reports-dir", "reports"],
    );
    assert_eq!(trial.code, 1, "{}", trial.stderr);
    assert!(trial.stderr.contains("trial 7 of"), "{}", trial.stderr);
    assert_no_run_folder(dir.path());
    snapshot(
        "a_results_file_with_a_fixture_id_or_trial_out_of_format_is_rejected",
        dir.path(),
        &format!("replay: {}merge: {}", out.stderr, trial.stderr),
    );
}

/// The omission's trial, as a shard recorded it.
fn omission_trial(value: &mut serde_json::Value) -> &mut serde_json::Value {
    value["trials"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|t| t["fixture"] == "o")
        .expect("the omission's trial")
}

#[test]
fn merge_of_a_shard_whose_outcome_was_edited_is_rejected() {
    let dir = corpus();
    let mut value = shard_copy(&dir, 1, 1, "s1");
    let trial = omission_trial(&mut value);
    let recorded = trial["outcome"].as_str().unwrap().to_owned();
    // The outcome turned into another (a miss into a catch, a catch into a miss).
    let edited = if recorded == "detected" {
        "false-pass"
    } else {
        "detected"
    };
    trial["outcome"] = serde_json::json!(edited);
    write_results(&dir, "s1", &value);
    assert_one(
        "merge_of_a_shard_whose_outcome_was_edited_is_rejected",
        &dir,
        &["merge", "s1/results.json", "--reports-dir", "reports"],
        &[
            "s1/results.json",
            "trial o [0] does not match the reports its shard stored",
            &format!("its outcome is recorded as \"{edited}\""),
        ],
    );
}

#[test]
fn merge_of_a_trial_given_twice_is_rejected() {
    let dir = corpus();
    let mut value = shard_copy(&dir, 1, 1, "s1");
    let again = omission_trial(&mut value).clone();
    value["trials"].as_array_mut().unwrap().push(again);
    write_results(&dir, "s1", &value);
    assert_one(
        "merge_of_a_trial_given_twice_is_rejected",
        &dir,
        &["merge", "s1/results.json", "--reports-dir", "reports"],
        &["s1/results.json", "trial o [0] is given twice"],
    );
}

#[test]
fn merge_of_a_trial_copied_into_another_shard_is_rejected() {
    let dir = corpus();
    let mut one = shard_copy(&dir, 1, 2, "s1");
    let mut two = shard_copy(&dir, 2, 2, "s2");
    // Whichever shard holds the omission, its trial is copied into the other.
    let (from, into, file) = if one["fixtures"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["id"] == "o")
    {
        (&mut one, &mut two, "s2")
    } else {
        (&mut two, &mut one, "s1")
    };
    let copied = omission_trial(from).clone();
    into["trials"].as_array_mut().unwrap().push(copied);
    let into = into.clone();
    write_results(&dir, file, &into);
    assert_one(
        "merge_of_a_trial_copied_into_another_shard_is_rejected",
        &dir,
        &[
            "merge",
            "s1/results.json",
            "s2/results.json",
            "--reports-dir",
            "reports",
        ],
        &["trial o [0] is of a fixture this shard does not list"],
    );
}

#[test]
fn merge_of_a_trial_of_a_fixture_that_does_not_exist_is_rejected() {
    let dir = corpus();
    let mut value = shard_copy(&dir, 1, 1, "s1");
    let mut ghost = omission_trial(&mut value).clone();
    ghost["fixture"] = serde_json::json!("ghost");
    value["trials"].as_array_mut().unwrap().push(ghost);
    let mut info = value["fixtures"][0].clone();
    info["id"] = serde_json::json!("ghost");
    value["fixtures"].as_array_mut().unwrap().push(info);
    let selected = value["shard"]["selected"].as_u64().unwrap();
    value["shard"]["selected"] = serde_json::json!(selected + 1);
    write_results(&dir, "s1", &value);
    assert_one(
        "merge_of_a_trial_of_a_fixture_that_does_not_exist_is_rejected",
        &dir,
        &["merge", "s1/results.json", "--reports-dir", "reports"],
        &["s1/results.json", "fixture `ghost` is not a fixture of"],
    );
}

#[test]
fn a_shard_count_beyond_what_merge_accepts_is_rejected_by_run() {
    let dir = corpus();
    assert_one(
        "a_shard_count_beyond_what_merge_accepts_is_rejected_by_run",
        &dir,
        &run_with(&["--shard", "1/4097"]),
        &["`1/4097`", "at most 4096 shards"],
    );
}

#[test]
fn a_scenario_name_too_long_for_a_run_folder_is_rejected_by_check_and_run() {
    let dir = corpus();
    scenario(&dir, &format!("name: {}\n", "n".repeat(300)));
    assert_rejected(
        "a_scenario_name_too_long_for_a_run_folder_is_rejected_by_check_and_run",
        &dir,
        &[
            "scenarios/s.yaml:1:7",
            "`name` is 300 characters; the limit is 128",
        ],
    );
}

#[test]
fn an_empty_scenario_name_is_rejected() {
    let dir = corpus();
    scenario(&dir, "name: \"\"\n");
    assert_rejected(
        "an_empty_scenario_name_is_rejected",
        &dir,
        &["scenarios/s.yaml:1:", "`name` is empty"],
    );
}

#[test]
fn a_key_given_twice_in_fixture_yaml_names_the_second_line() {
    let dir = corpus();
    write(
        &fixture_yaml(&dir, "g"),
        &format!("{GOLDEN}description: again\n"),
    );
    assert_rejected(
        "a_key_given_twice_in_fixture_yaml_names_the_second_line",
        &dir,
        &[
            "fixtures/g/fixture.yaml:9:1",
            "duplicate field `description`",
        ],
    );
}

#[test]
fn a_key_given_twice_in_a_scenario_names_the_second_line() {
    let dir = corpus();
    scenario(&dir, "name: s\ntrials: 1\nname: t\n");
    assert_rejected(
        "a_key_given_twice_in_a_scenario_names_the_second_line",
        &dir,
        &["scenarios/s.yaml:3:1", "duplicate"],
    );
}

/// A byte order mark before `fixture.yaml` and the scenario (as Windows editors write it) is not
/// part of the text: both are read as without it (was: "unknown field `\u{feff}id`" in check).
#[test]
fn files_that_start_with_a_utf8_bom_are_read_without_it() {
    let dir = corpus();
    write(&fixture_yaml(&dir, "g"), &format!("\u{feff}{GOLDEN}"));
    scenario(&dir, "\u{feff}name: s\n");
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
    let run = gatebench(dir.path(), &run_with(&[]));
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    assert!(
        !run.stderr.contains("error"),
        "run: {} {}",
        run.code,
        run.stderr
    );
}

/// `import` of a repository with a control character in a file name: the file is left out with
/// its reason, the fixture written and valid (was: exit 70, "the imported fixture does not load":
/// the raw name went into a YAML comment).
#[test]
fn import_leaves_out_a_file_named_with_a_control_character() {
    let dir = corpus();
    let repo = dir.path().join("repo");
    fs::create_dir_all(&repo).unwrap();
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .current_dir(&repo)
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .output()
            .unwrap()
            .status
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q", "-b", "main"]);
    write(&repo.join("README.md"), "readme\n");
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "base"]);
    write(&repo.join("a\u{1}b\nc.txt"), "x\n");
    write(&repo.join("src/ok.py"), "print(1)\n");
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "head"]);
    let out = Command::new(env!("CARGO_BIN_EXE_gatebench"))
        .current_dir(dir.path())
        .args([
            "import", "repo", "--id", "imp", "--out", "fixtures", "--base", "HEAD~1",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let yaml = fs::read_to_string(fixture_yaml(&dir, "imp")).unwrap();
    assert!(
        yaml.contains("#   a\\u{1}b\\nc.txt: not a path fixtures can hold"),
        "{yaml}"
    );
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

/// A run killed with SIGKILL leaves its objects folder (`reports/.objects-*`) behind: nothing of
/// its own runs to remove it. The next run removes it, because no process holds its lock, and
/// leaves alone one whose lock a live process holds.
#[test]
fn an_objects_folder_left_by_a_killed_run_is_removed_by_the_next_run() {
    let dir = corpus();
    let reports = dir.path().join("reports");
    // A dead run's folder: its lock file, held by nobody.
    write(&reports.join(".objects-dead1/abc.json"), "{}");
    write(&reports.join(".objects-dead1.lock"), "");
    // A live run's folder: its lock held by a process that is still running (flock in a child).
    write(&reports.join(".objects-live1/abc.json"), "{}");
    write(&reports.join(".objects-live1.lock"), "");
    let mut holder = Command::new("flock")
        .arg(reports.join(".objects-live1.lock"))
        .args(["sleep", "30"])
        .spawn()
        .expect("flock(1) runs");
    // Until the child holds the lock.
    for _ in 0..100 {
        let probe = Command::new("flock")
            .args(["-n"])
            .arg(reports.join(".objects-live1.lock"))
            .arg("true")
            .status()
            .unwrap();
        if !probe.success() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = gatebench(dir.path(), &run_with(&[]));
    let _ = holder.kill();
    let _ = holder.wait();
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    let left: Vec<String> = fs::read_dir(&reports)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".objects-"))
        .collect();
    let mut left = left;
    left.sort();
    assert_eq!(
        left,
        [".objects-live1", ".objects-live1.lock"],
        "{}",
        out.stderr
    );
}

#[test]
fn merge_of_shards_whose_thresholds_were_edited_is_rejected() {
    let dir = corpus();
    let mut value = shard_copy(&dir, 1, 1, "s1");
    // Every bar lowered to nothing, in the only shard: nothing to compare it with but the
    // scenario itself.
    value["scenario"]["thresholds"]["min_recall"] = serde_json::json!(0.0);
    value["scenario"]["thresholds"]["max_false_pass_rate"] = serde_json::json!(1.0);
    write_results(&dir, "s1", &value);
    assert_one(
        "merge_of_shards_whose_thresholds_were_edited_is_rejected",
        &dir,
        &["merge", "s1/results.json", "--reports-dir", "reports"],
        &[
            "s1/results.json",
            "thresholds that differ from those of its scenario",
        ],
    );
}

/// The same with a real kill: a run whose verifier sleeps is killed with SIGKILL while its
/// objects folder exists (nothing of gatebench runs after that signal); the next run into the
/// same reports folder removes the folder and its lock file.
#[test]
fn a_run_killed_with_sigkill_leaves_an_objects_folder_the_next_run_removes() {
    let dir = corpus();
    write(
        &dir.path().join("scenarios/slow.yaml"),
        "name: slow\npipeline:\n  kind: command\n  command: 'sleep 60'\n  timeout_secs: 120\n",
    );
    let reports = dir.path().join("reports");
    let objects = |reports: &Path| -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(reports)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(".objects-"))
            .collect();
        names.sort();
        names
    };
    let mut slow = Command::new(env!("CARGO_BIN_EXE_gatebench"))
        .current_dir(dir.path())
        .args([
            "run",
            "scenarios/slow.yaml",
            "--fixtures",
            "fixtures",
            "--work-dir",
            "work",
            "--reports-dir",
            "reports",
            "--quiet",
        ])
        .stderr(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut seen = Vec::new();
    for _ in 0..300 {
        seen = objects(&reports);
        if seen.len() == 2 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // SAFETY: kill(2) on the child's pid.
    unsafe { libc::kill(slow.id() as i32, libc::SIGKILL) };
    let _ = slow.wait();
    assert_eq!(
        seen.len(),
        2,
        "the run's objects folder and its lock: {seen:?}"
    );
    assert_eq!(objects(&reports), seen, "SIGKILL leaves them");
    let out = gatebench(dir.path(), &run_with(&[]));
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    assert_eq!(objects(&reports), Vec::<String>::new(), "{}", out.stderr);
}

/// A key given twice in a results file (a second `outcome` in a trial: a parser keeps the last)
/// is refused with its line, whatever reads it.
#[test]
fn a_results_file_with_a_key_given_twice_is_rejected() {
    let dir = corpus();
    let value = shard_copy(&dir, 1, 1, "s1");
    let text = serde_json::to_string_pretty(&value).unwrap().replacen(
        "\"outcome\": ",
        "\"outcome\": \"detected\",\n      \"outcome\": ",
        1,
    );
    write(&dir.path().join("s1/results.json"), &text);
    assert_one(
        "a_results_file_with_a_key_given_twice_is_rejected",
        &dir,
        &["merge", "s1/results.json", "--reports-dir", "reports"],
        &["s1/results.json:", "the key `outcome` is given twice"],
    );
}

// Round 2 (issue 46): outputs and reads

#[test]
fn trials_beyond_the_limit_are_rejected() {
    let dir = corpus();
    assert_one(
        "trials_beyond_the_limit_are_rejected",
        &dir,
        &run_with(&["--trials", "4294967295"]),
        &["--trials", "4294967295", "1..=1000"],
    );
}

#[test]
fn scenario_trials_beyond_the_limit_are_rejected_by_check_and_run() {
    // Was: passed `check`, and `run` aborted on a 103 GB allocation (exit 134).
    let dir = corpus();
    write(
        &dir.path().join("scenarios/s.yaml"),
        "name: s\ntrials: 4294967295\n",
    );
    assert_rejected(
        "scenario_trials_beyond_the_limit_are_rejected_by_check_and_run",
        &dir,
        &[
            "scenarios/s.yaml:2:9",
            "`trials` must be between 1 and 1000",
        ],
    );
}

#[test]
fn scenario_rounds_and_retries_beyond_their_limits_are_rejected() {
    for (line, expected) in [
        (
            "max_rounds: 1000000",
            "`max_rounds` must be between 1 and 100",
        ),
        ("retries: 1000000", "`retries` must be between 0 and 10"),
    ] {
        let dir = corpus();
        write(
            &dir.path().join("scenarios/s.yaml"),
            &format!("name: s\n{line}\n"),
        );
        let name = format!(
            "scenario_{}_beyond_the_limit_is_rejected",
            line.split(':').next().unwrap()
        );
        assert_rejected(&name, &dir, &["scenarios/s.yaml:2:", expected]);
    }
}
