//! Bad input the harness must survive, as a catalogue: each case is a row (how the valid corpus
//! is broken, the command, the fragments its message must hold) that gives one clear error naming
//! the file (and line and column for YAML), exit code 1, no panic, no temporary or run folder
//! left behind, and the message as an insta snapshot named after the row.
//!
//! `cargo test --test it bad_input::NAME` runs the rows whose name holds NAME: each row is a test.
//! What a row cannot say (thousands of files, a shard's results edited) is a builder function the
//! row names (`Build(...)`); the few cases of another shape stay test functions at the end.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use Cmd::*;
use Edit::*;

const GOLDEN: &str = "id: g\ndescription: a golden\ncategory: golden\nbase: base\nhead:\n  overlay: head\nexpect:\n  verdict: pass\n";
const OMISSION: &str = "id: o\ndescription: an omission\ncategory: c\nextends: g\nplant:\n  delete: [src/a.py]\nexpect:\n  verdict: fail\n  kind: code-ref-broken\n  locus:\n    - path: src/a.py\n";

/// The corpus's files the rows edit, relative to the case's folder.
const G: &str = "fixtures/g/fixture.yaml";
const O: &str = "fixtures/o/fixture.yaml";
const S: &str = "scenarios/s.yaml";

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
    write_bytes(path, text.as_bytes());
}

fn write_bytes(path: &Path, bytes: &[u8]) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
}

/// One change to the valid corpus; paths are relative to the case's folder.
#[derive(Clone, Copy)]
enum Edit {
    /// A file written (its folders created).
    Write(&'static str, &'static str),
    WriteBytes(&'static str, &'static [u8]),
    /// Text added at the end of a file.
    Append(&'static str, &'static str),
    AppendBytes(&'static str, &'static [u8]),
    /// Every `from` in a file replaced with `to` (the file must hold it).
    Replace(&'static str, &'static str, &'static str),
    /// A file copied to another path.
    Copy(&'static str, &'static str),
    Remove(&'static str),
    Mkdir(&'static str),
    Fifo(&'static str),
    /// A symlink at the first path holding the second, as it is (a relative target).
    Symlink(&'static str, &'static str),
    /// A symlink at the first path to the second path of the case's folder (an absolute target).
    SymlinkTo(&'static str, &'static str),
    /// A folder (if any) replaced by a symlink to the second path of the case's folder.
    LinkFolder(&'static str, &'static str),
    /// What a row cannot say, built by code.
    Build(fn(&Path)),
}

impl Edit {
    fn apply(self, dir: &Path) {
        let at = |rel: &str| dir.join(rel);
        match self {
            Write(path, text) => write(&at(path), text),
            WriteBytes(path, bytes) => write_bytes(&at(path), bytes),
            Append(path, text) => AppendBytes(path, text.as_bytes()).apply(dir),
            AppendBytes(path, bytes) => {
                let mut all = fs::read(at(path)).unwrap();
                all.extend_from_slice(bytes);
                fs::write(at(path), all).unwrap();
            }
            Replace(path, from, to) => {
                let text = fs::read_to_string(at(path)).unwrap();
                assert!(text.contains(from), "{path} does not hold {from:?}");
                fs::write(at(path), text.replace(from, to)).unwrap();
            }
            Copy(from, to) => write_bytes(&at(to), &fs::read(at(from)).unwrap()),
            Remove(path) => fs::remove_file(at(path)).unwrap(),
            Mkdir(path) => fs::create_dir_all(at(path)).unwrap(),
            Fifo(path) => mkfifo(&at(path)),
            Symlink(path, target) => std::os::unix::fs::symlink(target, at(path)).unwrap(),
            SymlinkTo(path, target) => std::os::unix::fs::symlink(at(target), at(path)).unwrap(),
            LinkFolder(path, target) => link_folder(&at(path), &at(target)),
            Build(build) => build(dir),
        }
    }
}

/// The command a case runs on its broken corpus.
#[derive(Clone, Copy)]
enum Cmd {
    /// `check` and then `run` (the scenario `s`): both must reject the input the same way.
    Both,
    /// `check` of the fixtures and scenarios folders alone.
    Check,
    /// `run` of the scenario `s`, quiet, with these arguments added.
    Run(&'static [&'static str]),
    /// These arguments, as they are.
    Args(&'static [&'static str]),
}

const CHECK: &[&str] = &[
    "check",
    "--fixtures",
    "fixtures",
    "--scenarios",
    "scenarios",
];

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

/// One row of the catalogue.
struct Case<'a> {
    edits: &'a [Edit],
    cmd: Cmd,
    /// Fragments the message must hold.
    expect: &'a [&'a str],
    /// A further check on the case's folder and the command's outcome.
    then: Option<fn(&Path, &Outcome)>,
}

/// The valid corpus broken by the case's edits, its command run, its outcome checked and its
/// message snapshotted under the case's name.
fn drive(name: &str, case: Case) {
    let dir = corpus();
    for edit in case.edits {
        edit.apply(dir.path());
    }
    let outcome = match case.cmd {
        Both => assert_rejected(name, &dir, case.expect),
        Check => assert_one(name, &dir, CHECK, case.expect),
        Run(extra) => assert_one(name, &dir, &run_with(extra), case.expect),
        Args(args) => assert_one(name, &dir, args, case.expect),
    };
    if let Some(then) = case.then {
        then(dir.path(), &outcome);
    }
}

/// Each row a test named after it (its snapshot's name too), and `ROWS`, every row's name.
macro_rules! cases {
    ($(
        $(#[$meta:meta])*
        $name:ident {
            edits: [$($edit:expr),* $(,)?],
            cmd: $cmd:expr,
            expect: [$($expect:expr),* $(,)?]
            $(, then: $then:expr)? $(,)?
        }
    )*) => {
        const ROWS: &[&str] = &[$(stringify!($name)),*];
        $(
            $(#[$meta])*
            #[test]
            fn $name() {
                #[allow(unused_mut, unused_assignments)]
                let mut then: Option<fn(&Path, &Outcome)> = None;
                $(then = Some($then);)?
                drive(
                    stringify!($name),
                    Case { edits: &[$($edit),*], cmd: $cmd, expect: &[$($expect),*], then },
                );
            }
        )*
    };
}

struct Outcome {
    code: i32,
    stdout: String,
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
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `check` and `run` on the broken corpus; both must exit 1 with `expected` in the message,
/// and `run` must leave its work dir empty. Returns `run`'s outcome.
fn assert_rejected(name: &str, dir: &tempfile::TempDir, expected: &[&str]) -> Outcome {
    let check = gatebench(dir.path(), CHECK);
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
    assert_work_empty(&work);
    assert_no_run_folder(dir.path());
    snapshot(
        name,
        dir.path(),
        &format!("check: {}run: {}", check.stderr, run.stderr),
    );
    run
}

/// Runs one command that must reject its input: exit 1, no panic, the `expected` fragments in the
/// message, nothing left under `work/` or `reports/`; the message is snapshotted.
fn assert_one(name: &str, dir: &tempfile::TempDir, args: &[&str], expected: &[&str]) -> Outcome {
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
    assert_work_empty(&work);
    assert_no_run_folder(dir.path());
    snapshot(name, dir.path(), &out.stderr);
    out
}

fn assert_work_empty(work: &Path) {
    let left: Vec<PathBuf> = fs::read_dir(work)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(
        left.is_empty(),
        "temporary directories left behind: {left:?}"
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

fn mkfifo(path: &Path) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

fn fixture_yaml(dir: &tempfile::TempDir, id: &str) -> PathBuf {
    dir.path().join("fixtures").join(id).join("fixture.yaml")
}

/// `path` (a folder of the corpus) replaced by a symlink to `target`.
fn link_folder(path: &Path, target: &Path) {
    if path.exists() {
        fs::remove_dir_all(path).unwrap();
    }
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(target, path).unwrap();
}

/// Snapshots of cases that are test functions below, not rows.
const FUNCTION_SNAPSHOTS: &[&str] = &[
    "a_results_file_with_a_fixture_id_or_trial_out_of_format_is_rejected",
    "merge_of_a_shard_whose_outcome_was_edited_is_rejected",
];

/// Every snapshot of this file belongs to a row or a test function: none is left unchecked, and
/// no two rows share a name.
#[test]
fn every_snapshot_has_its_case() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/snapshots");
    let mut snapshots: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            Some(
                name.strip_prefix("bad_input__")?
                    .strip_suffix(".snap")?
                    .to_owned(),
            )
        })
        .collect();
    snapshots.sort();
    let mut cases: Vec<String> = ROWS
        .iter()
        .chain(FUNCTION_SNAPSHOTS)
        .map(|s| s.to_string())
        .collect();
    cases.sort();
    let before = cases.len();
    cases.dedup();
    assert_eq!(cases.len(), before, "two rows share a name");
    assert_eq!(snapshots, cases);
}

cases! {
    // ---- Fixture YAML ----

    malformed_yaml_names_file_line_and_column {
        edits: [Write(O, "id: o\ndescription: an omission\ncategory: c: d\n")],
        cmd: Both,
        expect: ["fixtures/o/fixture.yaml:3:12", "mapping values are not allowed"],
    }
    an_unknown_key_names_its_line {
        edits: [Append(O, "colour: red\n")],
        cmd: Both,
        expect: ["fixtures/o/fixture.yaml:12:1", "unknown field `colour`"],
    }
    a_wrong_type_names_its_line {
        edits: [Replace(O, "category: c\n", "category: c\ntags: 5\n")],
        cmd: Both,
        expect: ["fixtures/o/fixture.yaml:4:", "invalid type"],
    }
    a_golden_that_does_not_exist_is_named {
        edits: [Replace(O, "extends: g", "extends: nope")],
        cmd: Both,
        expect: ["fixtures/o/fixture.yaml:4:10", "`extends: nope` names no fixture"],
    }
    a_missing_overlay_folder_is_named {
        edits: [Replace(G, "overlay: head", "overlay: nothere")],
        cmd: Both,
        expect: ["fixtures/g/fixture.yaml:6:", "`nothere` is not a folder"],
    }
    a_path_with_dotdot_is_rejected {
        edits: [Replace(O, "[src/a.py]", "[../outside.txt]")],
        cmd: Both,
        expect: ["fixtures/o/fixture.yaml:6:", "contains `..`"],
    }
    an_absolute_path_is_rejected {
        edits: [Replace(O, "[src/a.py]", "[/etc/passwd]")],
        cmd: Both,
        expect: ["fixtures/o/fixture.yaml:6:", "absolute path"],
    }
    a_symlink_leaving_the_fixture_is_rejected {
        edits: [
            Write("secret.txt", "secret\n"),
            SymlinkTo("fixtures/g/head/link.txt", "secret.txt"),
        ],
        cmd: Both,
        expect: ["fixtures/g/head/link.txt", "symlink pointing outside the fixture folder"],
    }
    two_fixtures_with_one_id_are_rejected {
        edits: [Write("fixtures/o2/fixture.yaml", OMISSION)],
        cmd: Both,
        expect: ["fixtures/o2/fixture.yaml:1:5", "duplicate fixture id `o`"],
    }
    a_placeholder_that_names_nothing_is_rejected {
        edits: [Write("fixtures/g/head/specs/f/r.json", "{\"tree\": \"{{gatebench:bogus}}\"}\n")],
        cmd: Both,
        expect: ["fixtures/g/fixture.yaml", "specs/f/r.json", "names nothing"],
    }
    an_empty_fixture_folder_is_rejected {
        edits: [Mkdir("fixtures/empty")],
        cmd: Both,
        expect: ["fixtures/empty", "must hold a fixture.yaml"],
    }

    // ---- Tiers, signals and a golden's test suite (docs/FIXTURES.md, "Tiers") ----

    a_semantic_fixture_without_a_signal_is_rejected {
        edits: [Append(O, "tier: semantic\n")],
        cmd: Both,
        expect: ["fixtures/o/fixture.yaml:12:7", "`tier: semantic` needs `signal: loud`"],
    }
    a_signal_on_a_ledger_fixture_is_rejected {
        edits: [Append(O, "signal: loud\n")],
        cmd: Both,
        expect: ["fixtures/o/fixture.yaml:12:9", "`signal: loud` goes with `tier: semantic` only"],
    }
    a_signal_that_is_neither_loud_nor_silent_is_rejected {
        edits: [Append(O, "tier: semantic\nsignal: quiet\n")],
        cmd: Both,
        expect: ["fixtures/o/fixture.yaml:13:9", "unknown variant `quiet`", "expected `loud` or `silent`"],
    }
    a_tier_that_does_not_exist_is_rejected {
        edits: [Append(O, "tier: runtime\nsignal: loud\n")],
        cmd: Both,
        expect: ["fixtures/o/fixture.yaml:12:7", "unknown variant `runtime`"],
    }
    a_semantic_golden_is_rejected {
        edits: [Append(G, "tier: semantic\nsignal: loud\n")],
        cmd: Both,
        expect: ["fixtures/g/fixture.yaml:9:7", "a golden plants nothing: it is `tier: ledger`"],
    }
    a_suite_on_an_omission_fixture_is_rejected {
        edits: [Append(O, "suite:\n  command: python3 -m pytest\n")],
        cmd: Both,
        expect: ["fixtures/o/fixture.yaml:12:1", "`suite` belongs to the golden"],
    }
    a_suite_without_a_command_is_rejected {
        edits: [Append(G, "suite:\n  command: \"  \"\n")],
        cmd: Both,
        expect: ["fixtures/g/fixture.yaml:10:3", "`suite.command` must name the command"],
    }
    a_suite_with_no_time_to_run_is_rejected {
        edits: [Append(G, "suite:\n  command: python3 -m pytest\n  timeout_seconds: 0\n")],
        cmd: Both,
        expect: ["fixtures/g/fixture.yaml:11:20", "`suite.timeout_seconds` must be 1 or more"],
    }
    a_suite_with_an_unknown_key_is_rejected {
        edits: [Append(G, "suite:\n  command: python3 -m pytest\n  shell: bash\n")],
        cmd: Both,
        expect: ["fixtures/g/fixture.yaml:11:3", "unknown field `shell`"],
    }

    // ---- Fixtures cannot reach git's control files (final paths, after `.fixture` is removed) ----

    a_dotgit_planted_through_the_disarm_suffix_is_rejected {
        edits: [
            Append(G, "unstaged:\n  overlay: unstaged\n"),
            Write("fixtures/g/unstaged/x/.git.fixture", "gitdir: ../evil\n"),
            Write(
                "fixtures/g/unstaged/evil/config.fixture",
                "[core]\n\tfsmonitor = touch /tmp/pwned\n",
            ),
        ],
        cmd: Both,
        expect: ["fixtures/g/unstaged/x/.git.fixture", "`x/.git`"],
    }
    an_uppercase_dotgit_folder_is_rejected {
        edits: [Write("fixtures/g/head/.GIT/config", "[core]\n")],
        cmd: Both,
        expect: ["fixtures/g/head/.GIT", "taken by git for `.git`"],
    }
    an_ntfs_short_name_of_dotgit_is_rejected {
        edits: [Write("fixtures/g/head/sub/GIT~1/config", "[core]\n")],
        cmd: Both,
        expect: ["fixtures/g/head/sub/GIT~1", "`GIT~1`"],
    }
    a_dotgit_with_trailing_dots_and_spaces_is_rejected {
        edits: [Write("fixtures/g/head/.git. ./HEAD", "ref: x\n")],
        cmd: Both,
        expect: ["taken by git for `.git`"],
    }
    a_dotgit_with_an_hfs_ignorable_character_is_rejected {
        edits: [Write("fixtures/g/head/.g\u{200c}it/config.fixture", "[core]\n")],
        cmd: Both,
        expect: ["taken by git for `.git`"],
    }
    deleting_inside_dotgit_is_rejected {
        edits: [Replace(O, "[src/a.py]", "[.Git/index]")],
        cmd: Both,
        expect: ["fixtures/o/fixture.yaml:6:", "`.Git`"],
    }
    a_dotgit_planted_by_a_fix_is_rejected {
        edits: [
            Append(O, "fixes:\n  - after_round: 1\n    overlay: fix\n"),
            Write("fixtures/o/fix/.git.fixture", "gitdir: x\n"),
        ],
        cmd: Both,
        expect: ["fixtures/o/fix/.git.fixture", "`.git`"],
    }
    two_files_that_become_one_path_are_rejected {
        edits: [
            Write("fixtures/g/head/Cargo.toml", "a\n"),
            Write("fixtures/g/head/Cargo.toml.fixture", "b\n"),
        ],
        cmd: Both,
        expect: ["become `Cargo.toml`"],
    }

    // ---- Placeholders ----

    a_long_sha256_placeholder_chain_is_rejected_by_check_and_run {
        edits: [Build(placeholder_chain)],
        cmd: Both,
        expect: ["fixtures/g/fixture.yaml", "more than 64 files"],
    }
    a_sha256_placeholder_cycle_is_rejected_by_check {
        edits: [
            Write("fixtures/g/head/a.txt", "{{gatebench:sha256:b.txt}}\n"),
            Write("fixtures/g/head/b.txt", "{{gatebench:sha256:a.txt}}\n"),
        ],
        cmd: Both,
        expect: ["fixtures/g/fixture.yaml", "cycle"],
    }

    // ---- File types, names and encodings ----

    a_fifo_in_a_fixture_tree_is_rejected_without_hanging {
        edits: [Fifo("fixtures/g/head/pipe")],
        cmd: Both,
        expect: ["fixtures/g/head/pipe", "not a regular file"],
    }
    a_fifo_as_fixture_yaml_is_rejected_without_hanging {
        edits: [Remove(O), Fifo(O)],
        cmd: Both,
        expect: ["fixtures/o/fixture.yaml", "not a regular file"],
    }
    a_fifo_as_the_scenario_file_is_rejected_without_hanging {
        edits: [Remove(S), Fifo(S)],
        cmd: Run(&[]),
        expect: ["scenarios/s.yaml", "not a regular file"],
    }
    a_fifo_in_the_scenarios_folder_is_rejected_by_check {
        edits: [Fifo("scenarios/other.yaml")],
        cmd: Check,
        expect: ["scenarios/other.yaml", "not a regular file"],
    }
    a_folder_named_fixture_yaml_is_rejected {
        edits: [Remove(O), Mkdir(O)],
        cmd: Both,
        expect: ["fixtures/o", "fixture.yaml"],
    }
    a_non_utf8_fixture_yaml_names_line_and_column {
        edits: [AppendBytes(O, b"tags: [caf\xe9]\n")],
        cmd: Both,
        expect: ["fixtures/o/fixture.yaml:12:11", "not UTF-8"],
    }
    a_non_utf8_scenario_file_is_exit_1 {
        edits: [WriteBytes(S, b"name: s\xff\n")],
        cmd: Run(&[]),
        expect: ["scenarios/s.yaml:1:8", "not UTF-8"],
    }
    a_non_utf8_file_name_in_a_fixture_tree_is_an_error_not_renamed {
        edits: [Build(non_utf8_file_name)],
        cmd: Both,
        expect: ["not UTF-8"],
    }
    /// Two links per level to the next level, 18 levels: 2^18 paths if links were followed freely.
    a_symlink_dag_is_rejected_quickly {
        edits: [Build(symlink_dag)],
        cmd: Both,
        expect: ["is reached twice"],
    }
    a_symlink_loop_is_rejected {
        edits: [Mkdir("fixtures/g/head/sub"), Symlink("fixtures/g/head/sub/up", "..")],
        cmd: Both,
        expect: ["is reached twice"],
    }

    // ---- YAML limits ----

    a_yaml_alias_bomb_is_refused_before_it_is_built {
        edits: [Build(alias_bomb)],
        cmd: Both,
        expect: ["fixtures/o/fixture.yaml", "expands (through its aliases)"],
    }
    deeply_nested_flow_yaml_is_refused_quickly {
        edits: [Build(deeply_nested_flow)],
        cmd: Both,
        expect: ["fixtures/o/fixture.yaml:12:", "nested deeper than 64"],
    }
    deeply_nested_block_yaml_is_refused {
        edits: [Build(deeply_nested_block)],
        cmd: Both,
        expect: ["fixtures/o/fixture.yaml:", "nested deeper than 128 levels"],
    }

    // ---- Fixture strictness ----

    a_null_category_is_rejected {
        edits: [Replace(O, "category: c", "category: ~")],
        cmd: Both,
        expect: ["fixtures/o/fixture.yaml:3:", "not null"],
    }
    extending_oneself_is_named {
        edits: [Replace(O, "extends: g", "extends: o")],
        cmd: Both,
        expect: ["fixtures/o/fixture.yaml:4:10", "names this fixture itself"],
    }
    /// `a` sorts before `o`: it is built first, so `o` is not built yet when `a` names it.
    extending_an_omission_is_named_whatever_the_order {
        edits: [
            Copy(O, "fixtures/a/fixture.yaml"),
            Replace("fixtures/a/fixture.yaml", "id: o", "id: a"),
            Replace("fixtures/a/fixture.yaml", "extends: g", "extends: o"),
        ],
        cmd: Both,
        expect: ["fixtures/a/fixture.yaml:4:10", "names an omission fixture"],
    }
    a_cycle_of_extends_is_named {
        edits: [
            Copy(O, "fixtures/p/fixture.yaml"),
            Replace("fixtures/p/fixture.yaml", "id: o", "id: p"),
            Replace(O, "extends: g", "extends: p"),
        ],
        cmd: Both,
        expect: ["fixtures/o/fixture.yaml:4:10", "names an omission fixture"],
    }
    a_key_given_twice_in_fixture_yaml_names_the_second_line {
        edits: [Append(G, "description: again\n")],
        cmd: Both,
        expect: ["fixtures/g/fixture.yaml:9:1", "duplicate field `description`"],
    }

    // ---- Fixture layers linked outside ----

    a_head_folder_linked_outside_the_fixture_is_rejected {
        edits: [Write("outside/secret.txt", "secret\n"), LinkFolder("fixtures/g/head", "outside")],
        cmd: Both,
        expect: [
            "fixtures/g/fixture.yaml:6:",
            "`head` is reached through a symlink pointing outside the fixture folder",
        ],
    }
    a_base_folder_linked_outside_the_fixture_is_rejected {
        edits: [Write("outside/secret.txt", "secret\n"), LinkFolder("fixtures/g/base", "outside")],
        cmd: Both,
        expect: [
            "fixtures/g/fixture.yaml:4:",
            "`base` is reached through a symlink pointing outside the fixture folder",
        ],
    }
    a_plant_overlay_linked_outside_the_fixture_is_rejected {
        edits: [
            Write("outside/secret.txt", "secret\n"),
            Replace(O, "plant:\n", "plant:\n  overlay: sl\n"),
            LinkFolder("fixtures/o/sl", "outside"),
        ],
        cmd: Both,
        expect: [
            "fixtures/o/fixture.yaml:6:",
            "`sl` is reached through a symlink pointing outside the fixture folder",
        ],
    }
    a_fix_overlay_linked_outside_the_fixture_is_rejected {
        edits: [
            Write("outside/secret.txt", "secret\n"),
            Append(O, "fixes:\n  - after_round: 1\n    overlay: fix1\n"),
            LinkFolder("fixtures/o/fix1", "outside"),
        ],
        cmd: Both,
        expect: ["fixtures/o/fixture.yaml", "`fix1` is reached through a symlink pointing outside"],
    }
    a_folder_on_the_way_to_a_layer_linked_outside_is_rejected {
        edits: [
            Write("outside/secret.txt", "secret\n"),
            Write("outside/more/extra.txt", "secret\n"),
            Replace(G, "expect:\n", "unstaged:\n  overlay: layers/more\nexpect:\n"),
            LinkFolder("fixtures/g/layers", "outside"),
        ],
        cmd: Both,
        expect: [
            "fixtures/g/fixture.yaml:8:",
            "`layers/more` is reached through a symlink pointing outside",
        ],
    }
    a_fixture_folder_linked_outside_the_fixtures_folder_is_rejected {
        edits: [
            Copy(G, "elsewhere/fixture.yaml"),
            Replace("elsewhere/fixture.yaml", "id: g", "id: x"),
            Write("elsewhere/base/README.md", "readme\n"),
            Write("elsewhere/head/src/b.py", "print(2)\n"),
            LinkFolder("fixtures/x", "elsewhere"),
        ],
        cmd: Both,
        expect: [
            "fixtures/x",
            "the fixture folder is a symlink pointing outside the fixtures folder",
        ],
    }

    // ---- Scenarios: `check` rejects what `run` rejects ----

    a_category_bar_naming_no_category_is_rejected_by_check {
        edits: [Write(S, "name: s\nthresholds:\n  min_category_recall:\n    nope: 0.5\n")],
        cmd: Both,
        expect: ["scenarios/s.yaml", "`nope`"],
    }
    an_include_glob_matching_nothing_is_rejected_by_check {
        edits: [Write(S, "name: s\nfixtures:\n  include: [o, zzz*]\n")],
        cmd: Both,
        expect: ["scenarios/s.yaml", "`zzz*` matches no fixture"],
    }
    a_scenario_whose_fixtures_folder_is_missing_is_rejected_by_check {
        edits: [Write(S, "name: s\nfixtures_dir: ../nothere\n")],
        cmd: Check,
        expect: ["nothere", "cannot be read"],
    }
    a_scenario_whose_fixtures_folder_is_missing_is_rejected_by_run {
        edits: [Write(S, "name: s\nfixtures_dir: ../nothere\n")],
        cmd: Args(&["run", "scenarios/s.yaml", "--work-dir", "work", "--reports-dir", "reports"]),
        expect: ["nothere", "does not exist"],
    }
    an_unknown_key_under_a_builtin_pipeline_is_rejected {
        edits: [Write(S, "name: s\npipeline:\n  kind: builtin\n  command: [x]\n")],
        cmd: Both,
        expect: ["scenarios/s.yaml:4:3", "unknown key `command`"],
    }
    an_unknown_key_under_a_legacy_pipeline_is_rejected {
        edits: [Write(S, "name: s\npipeline:\n  kind: legacy\n  strict: true\n")],
        cmd: Both,
        expect: ["scenarios/s.yaml:4:3", "unknown key `strict`"],
    }
    an_unknown_key_under_a_command_pipeline_names_its_line {
        edits: [Write(
            S,
            "name: s\npipeline:\n  kind: command\n  command: [true]\n  colour: red\n",
        )],
        cmd: Both,
        expect: ["scenarios/s.yaml:5:3", "unknown key `colour`"],
    }
    scenario_jobs_beyond_the_limit_are_rejected {
        edits: [Write(S, "name: s\njobs: 100000\n")],
        cmd: Both,
        expect: ["scenarios/s.yaml:2:7", "between 1 and 256"],
    }
    a_scenario_name_too_long_for_a_run_folder_is_rejected_by_check_and_run {
        edits: [Build(a_300_character_scenario_name)],
        cmd: Both,
        expect: ["scenarios/s.yaml:1:7", "`name` is 300 characters; the limit is 128"],
    }
    an_empty_scenario_name_is_rejected {
        edits: [Write(S, "name: \"\"\n")],
        cmd: Both,
        expect: ["scenarios/s.yaml:1:", "`name` is empty"],
    }
    a_key_given_twice_in_a_scenario_names_the_second_line {
        edits: [Write(S, "name: s\ntrials: 1\nname: t\n")],
        cmd: Both,
        expect: ["scenarios/s.yaml:3:1", "duplicate"],
    }
    /// Was: passed `check`, and `run` aborted on a 103 GB allocation (exit 134).
    scenario_trials_beyond_the_limit_are_rejected_by_check_and_run {
        edits: [Write(S, "name: s\ntrials: 4294967295\n")],
        cmd: Both,
        expect: ["scenarios/s.yaml:2:9", "`trials` must be between 1 and 1000"],
    }
    scenario_max_rounds_beyond_the_limit_is_rejected {
        edits: [Write(S, "name: s\nmax_rounds: 1000000\n")],
        cmd: Both,
        expect: ["scenarios/s.yaml:2:", "`max_rounds` must be between 1 and 100"],
    }
    scenario_retries_beyond_the_limit_is_rejected {
        edits: [Write(S, "name: s\nretries: 1000000\n")],
        cmd: Both,
        expect: ["scenarios/s.yaml:2:", "`retries` must be between 0 and 10"],
    }

    // ---- Command-line values ----

    jobs_beyond_the_limit_are_rejected {
        edits: [],
        cmd: Run(&["--jobs", "20000"]),
        expect: ["--jobs", "20000"],
    }
    zero_jobs_are_rejected {
        edits: [],
        cmd: Run(&["--jobs", "0"]),
        expect: ["--jobs"],
    }
    zero_trials_are_rejected {
        edits: [],
        cmd: Run(&["--trials", "0"]),
        expect: ["--trials"],
    }
    zero_max_rounds_are_rejected {
        edits: [],
        cmd: Run(&["--max-rounds", "0"]),
        expect: ["--max-rounds"],
    }
    trials_beyond_the_limit_are_rejected {
        edits: [],
        cmd: Run(&["--trials", "4294967295"]),
        expect: ["--trials", "4294967295", "1..=1000"],
    }
    a_shard_count_beyond_what_merge_accepts_is_rejected_by_run {
        edits: [],
        cmd: Run(&["--shard", "1/4097"]),
        expect: ["`1/4097`", "at most 4096 shards"],
    }
    a_missing_scenario_file_is_exit_1 {
        edits: [],
        cmd: Args(&[
            "run", "scenarios/nothere.yaml", "--work-dir", "work", "--reports-dir", "reports",
        ]),
        expect: ["scenarios/nothere.yaml", "does not exist"],
    }
    a_missing_fixtures_folder_is_exit_1 {
        edits: [],
        cmd: Args(&[
            "run", "scenarios/s.yaml", "--fixtures", "nothere", "--work-dir", "work",
            "--reports-dir", "reports",
        ]),
        expect: ["nothere", "does not exist"],
    }
    a_missing_fixtures_folder_is_exit_1_for_check {
        edits: [],
        cmd: Args(&["check", "--fixtures", "nothere", "--scenarios", "scenarios"]),
        expect: ["nothere", "cannot be read"],
    }
    a_missing_scenarios_folder_is_exit_1_for_check {
        edits: [],
        cmd: Args(&["check", "--fixtures", "fixtures", "--scenarios", "nothere"]),
        expect: ["nothere", "cannot be read"],
    }
    /// A file where the reports folder should be: nothing can be created in it.
    an_unwritable_reports_folder_is_found_before_any_trial {
        edits: [Write("reports-file", "x\n")],
        cmd: Args(&[
            "run", "scenarios/s.yaml", "--fixtures", "fixtures", "--work-dir", "work",
            "--reports-dir", "reports-file/sub", "--quiet",
        ]),
        expect: ["reports-file/sub", "nothing was run"],
    }
    workflow_schema_on_a_missing_file_is_exit_1 {
        edits: [],
        cmd: Args(&["workflow-schema", "nothere.yaml"]),
        expect: ["nothere.yaml", "does not exist"],
    }
    gate_on_a_folder_that_is_not_a_repository_is_exit_1_on_stderr {
        edits: [],
        cmd: Args(&["gate", "fixtures"]),
        expect: ["not a git repository"],
        then: stdout_is_empty,
    }
    gate_with_a_base_that_names_no_commit_is_exit_1_on_stderr {
        edits: [Build(a_repository_with_one_commit)],
        cmd: Args(&["gate", "repo", "--base", "nope"]),
        expect: ["`nope`"],
        then: stdout_is_empty,
    }
    materialize_out_naming_a_file_says_so {
        edits: [Write("afile", "x\n")],
        cmd: Args(&["materialize", "g", "--out", "afile", "--fixtures", "fixtures"]),
        expect: ["afile", "names a file"],
    }
    schema_dir_that_does_not_exist_says_so {
        edits: [],
        cmd: Args(&["schema", "--dir", "nothere"]),
        expect: ["nothere", "does not exist"],
    }

    // ---- merge and replay of results files ----

    merge_of_a_shard_with_an_absurd_count_is_rejected_without_allocating {
        edits: [Build(a_shard_with_an_absurd_count)],
        cmd: Args(MERGE_S1),
        expect: ["s1/results.json", "4294967295"],
    }
    merge_of_a_non_utf8_results_file_is_exit_1 {
        edits: [WriteBytes("s1/results.json", b"{\"a\": \"\xff\"}")],
        cmd: Args(MERGE_S1),
        expect: ["s1/results.json:1:8", "not UTF-8"],
    }
    merge_of_a_fifo_results_file_is_rejected_without_hanging {
        edits: [Fifo("s1/results.json")],
        cmd: Args(MERGE_S1),
        expect: ["s1/results.json", "not a results file"],
    }
    merge_of_a_case_id_leaving_the_reports_folder_is_rejected {
        edits: [Build(a_case_id_leaving_the_reports_folder)],
        cmd: Args(MERGE_S1),
        expect: ["s1/results.json", "case id `../../../escaped` is not a case id"],
        then: nothing_escaped,
    }
    replay_of_a_case_id_leaving_the_reports_folder_is_rejected {
        edits: [Build(a_case_id_leaving_the_reports_folder)],
        cmd: Args(REPLAY_S1),
        expect: ["s1/results.json", "case id `../../../escaped` is not a case id"],
        then: nothing_escaped,
    }
    replay_of_an_object_reference_leaving_the_objects_folder_is_rejected {
        edits: [Build(an_object_reference_leaving_the_objects_folder)],
        cmd: Args(REPLAY_S1),
        expect: [
            "s1/results.json",
            "object reference `../../planted` is not an object reference",
        ],
    }
    merge_of_a_trial_given_twice_is_rejected {
        edits: [Build(a_trial_given_twice)],
        cmd: Args(MERGE_S1),
        expect: ["s1/results.json", "trial o [0] is given twice"],
    }
    merge_of_a_trial_copied_into_another_shard_is_rejected {
        edits: [Build(a_trial_copied_into_another_shard)],
        cmd: Args(&["merge", "s1/results.json", "s2/results.json", "--reports-dir", "reports"]),
        expect: ["trial o [0] is of a fixture this shard does not list"],
    }
    merge_of_a_trial_of_a_fixture_that_does_not_exist_is_rejected {
        edits: [Build(a_trial_of_a_fixture_that_does_not_exist)],
        cmd: Args(MERGE_S1),
        expect: ["s1/results.json", "fixture `ghost` is not a fixture of"],
    }
    merge_of_shards_whose_thresholds_were_edited_is_rejected {
        edits: [Build(thresholds_lowered)],
        cmd: Args(MERGE_S1),
        expect: ["s1/results.json", "thresholds that differ from those of its scenario"],
    }
    /// A second `outcome` in a trial (a parser keeps the last) is refused with its line.
    a_results_file_with_a_key_given_twice_is_rejected {
        edits: [Build(a_key_given_twice_in_results)],
        cmd: Args(MERGE_S1),
        expect: ["s1/results.json:", "the key `outcome` is given twice"],
    }
}

const MERGE_S1: &[&str] = &["merge", "s1/results.json", "--reports-dir", "reports"];
const REPLAY_S1: &[&str] = &[
    "replay",
    "s1/results.json",
    "--fixtures",
    "fixtures",
    "--reports-dir",
    "reports",
];

// ---- Checks after a row's command ----

fn stdout_is_empty(_: &Path, out: &Outcome) {
    assert!(out.stdout.is_empty(), "{}", out.stdout);
}

/// No file or folder named `escaped` anywhere: nothing escaped the reports folder.
fn nothing_escaped(dir: &Path, _: &Outcome) {
    assert_nothing_named(dir, "escaped");
}

// ---- Builders: what a row cannot say ----

/// 5000 files, each naming the next one's hash: a chain longer than placeholders may go.
fn placeholder_chain(dir: &Path) {
    for i in 0..5000 {
        write(
            &dir.join(format!("fixtures/g/head/c/f{i}")),
            &format!("{{{{gatebench:sha256:c/f{}}}}}", i + 1),
        );
    }
    write(&dir.join("fixtures/g/head/c/f5000"), "end\n");
}

fn non_utf8_file_name(dir: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.txt");
    fs::write(dir.join("fixtures/g/head").join(name), "x\n").unwrap();
}

fn symlink_dag(dir: &Path) {
    let head = dir.join("fixtures/g/head/dag");
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
}

fn alias_bomb(dir: &Path) {
    let big = "x".repeat(1 << 20);
    let mut text = format!("{OMISSION}tags: [&a {big}");
    for _ in 0..5000 {
        text.push_str(", *a");
    }
    text.push_str("]\n");
    write(&dir.join(O), &text);
}

fn deeply_nested_flow(dir: &Path) {
    let depth = 200_000;
    let text = format!(
        "{OMISSION}tags: {}{}\n",
        "[".repeat(depth),
        "]".repeat(depth)
    );
    write(&dir.join(O), &text);
}

fn deeply_nested_block(dir: &Path) {
    let mut text = format!("{OMISSION}tags:\n");
    for level in 1..200 {
        text.push_str(&format!("{}- \n", "  ".repeat(level)));
    }
    write(&dir.join(O), &text);
}

fn a_300_character_scenario_name(dir: &Path) {
    write(&dir.join(S), &format!("name: {}\n", "n".repeat(300)));
}

/// `git` in `repo`, as a test user; it must succeed.
fn git(repo: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .current_dir(repo)
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(args)
        .output()
        .unwrap()
        .status
        .success();
    assert!(ok, "git {args:?}");
}

fn a_repository_with_one_commit(dir: &Path) {
    let repo = dir.join("repo");
    fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    git(&repo, &["commit", "-q", "--allow-empty", "-m", "x"]);
}

/// A real shard's results, its count then made absurd.
fn a_shard_with_an_absurd_count(dir: &Path) {
    let mut value = shard_copy(dir, 1, 1, "s1");
    value["shard"]["count"] = serde_json::json!(4294967295u32);
    write_results(dir, "s1", &value);
}

fn a_case_id_leaving_the_reports_folder(dir: &Path) {
    let value = shard_copy(dir, 1, 1, "s1");
    write_results(dir, "s1", &with_case_id(value, "../../../escaped"));
}

/// An object "stored" outside the run's objects folder, and a round that references it.
fn an_object_reference_leaving_the_objects_folder(dir: &Path) {
    let mut value = shard_copy(dir, 1, 1, "s1");
    write(&dir.join("planted.json"), "{}");
    value["trials"][0]["rounds"][0]["report_ref"] = serde_json::json!("../../planted");
    write_results(dir, "s1", &value);
}

fn a_trial_given_twice(dir: &Path) {
    let mut value = shard_copy(dir, 1, 1, "s1");
    let again = omission_trial(&mut value).clone();
    value["trials"].as_array_mut().unwrap().push(again);
    write_results(dir, "s1", &value);
}

/// Two shards; whichever holds the omission, its trial is copied into the other.
fn a_trial_copied_into_another_shard(dir: &Path) {
    let mut one = shard_copy(dir, 1, 2, "s1");
    let mut two = shard_copy(dir, 2, 2, "s2");
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
    write_results(dir, file, &into);
}

fn a_trial_of_a_fixture_that_does_not_exist(dir: &Path) {
    let mut value = shard_copy(dir, 1, 1, "s1");
    let mut ghost = omission_trial(&mut value).clone();
    ghost["fixture"] = serde_json::json!("ghost");
    value["trials"].as_array_mut().unwrap().push(ghost);
    let mut info = value["fixtures"][0].clone();
    info["id"] = serde_json::json!("ghost");
    value["fixtures"].as_array_mut().unwrap().push(info);
    let selected = value["shard"]["selected"].as_u64().unwrap();
    value["shard"]["selected"] = serde_json::json!(selected + 1);
    write_results(dir, "s1", &value);
}

/// Every bar lowered to nothing, in the only shard: nothing to compare it with but the scenario
/// itself.
fn thresholds_lowered(dir: &Path) {
    let mut value = shard_copy(dir, 1, 1, "s1");
    value["scenario"]["thresholds"]["min_recall"] = serde_json::json!(0.0);
    value["scenario"]["thresholds"]["max_false_pass_rate"] = serde_json::json!(1.0);
    write_results(dir, "s1", &value);
}

fn a_key_given_twice_in_results(dir: &Path) {
    let value = shard_copy(dir, 1, 1, "s1");
    let text = serde_json::to_string_pretty(&value).unwrap().replacen(
        "\"outcome\": ",
        "\"outcome\": \"detected\",\n      \"outcome\": ",
        1,
    );
    write(&dir.join("s1/results.json"), &text);
}

// ---- Shards' results ----

/// Runs shard `index`/`count` of the corpus's scenario and copies its results and objects to
/// `<dir>/<to>/`; returns its results as JSON, for a case to edit and write back
/// ([`write_results`]).
fn shard_copy(dir: &Path, index: u32, count: u32, to: &str) -> serde_json::Value {
    let reports = format!("shard-run-{to}");
    let shard = format!("{index}/{count}");
    let out = gatebench(
        dir,
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
    let run = fs::read_dir(dir.join(&reports))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.join("results.json").is_file())
        .unwrap_or_else(|| panic!("no shard run: {}", out.stderr));
    let to = dir.join(to);
    fs::create_dir_all(to.join("objects")).unwrap();
    for entry in fs::read_dir(run.join("objects")).unwrap() {
        let path = entry.unwrap().path();
        fs::copy(&path, to.join("objects").join(path.file_name().unwrap())).unwrap();
    }
    let text = fs::read_to_string(run.join("results.json")).unwrap();
    fs::write(to.join("results.json"), &text).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn write_results(dir: &Path, to: &str, value: &serde_json::Value) {
    write(&dir.join(to).join("results.json"), &value.to_string());
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

/// The omission's trial, as a shard recorded it.
fn omission_trial(value: &mut serde_json::Value) -> &mut serde_json::Value {
    value["trials"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|t| t["fixture"] == "o")
        .expect("the omission's trial")
}

// ---- Cases of another shape: accepted inputs, two commands, an expectation found at run time,
// a run killed ----

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

/// A byte order mark before `fixture.yaml` and the scenario (as Windows editors write it) is not
/// part of the text: both are read as without it (was: "unknown field `\u{feff}id`" in check).
#[test]
fn files_that_start_with_a_utf8_bom_are_read_without_it() {
    let dir = corpus();
    write(&fixture_yaml(&dir, "g"), &format!("\u{feff}{GOLDEN}"));
    write(&dir.path().join(S), "\u{feff}name: s\n");
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

#[test]
fn a_results_file_with_a_fixture_id_or_trial_out_of_format_is_rejected() {
    let dir = corpus();
    let mut value = shard_copy(dir.path(), 1, 1, "s1");
    value["trials"][0]["fixture"] = serde_json::json!("../x");
    write_results(dir.path(), "s1", &value);
    let mut value = shard_copy(dir.path(), 1, 1, "s2");
    value["trials"][0]["trial"] = serde_json::json!(7);
    write_results(dir.path(), "s2", &value);
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

#[test]
fn merge_of_a_shard_whose_outcome_was_edited_is_rejected() {
    let dir = corpus();
    let mut value = shard_copy(dir.path(), 1, 1, "s1");
    let trial = omission_trial(&mut value);
    let recorded = trial["outcome"].as_str().unwrap().to_owned();
    // The outcome turned into another (a miss into a catch, a catch into a miss).
    let edited = if recorded == "detected" {
        "false-pass"
    } else {
        "detected"
    };
    trial["outcome"] = serde_json::json!(edited);
    write_results(dir.path(), "s1", &value);
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
