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
