//! Real suites run in the sandbox: tiny pytest, `node --test` and cargo projects made in a
//! temporary folder, their exact per-test results, `green()`, narrowing to one test, a time
//! limit, a missing program, and the sandbox holding.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use gatebench_suite::{
    check_available, run, run_with, toolchain_id, Framework, RunOptions, SuiteCommand, SuiteError,
    SuiteRun, TestOutcome, TestResult,
};
use TestResult::*;

/// The Python these tests run: the system's, which has pytest here (a version manager's shim
/// on `PATH` cannot run in the sandbox).
const PYTHON: &str = "/usr/bin/python3";

/// A generous limit: the machine may be loaded.
const LIMIT: Duration = Duration::from_secs(300);

fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("gatebench-suite-project-")
        .tempdir()
        .unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

fn command(text: &str) -> SuiteCommand {
    SuiteCommand::parse(text).unwrap()
}

fn results(run: &SuiteRun) -> Vec<(&str, TestResult)> {
    run.parsed
        .tests
        .iter()
        .map(|t| (t.id.as_str(), t.result))
        .collect()
}

/// Runs `command` narrowed to the tests of `run` named `ids`.
fn narrowed(
    dir: &Path,
    command: &SuiteCommand,
    whole: &SuiteRun,
    ids: &[&str],
    options: &RunOptions,
) -> SuiteRun {
    let tests: Vec<&TestOutcome> = ids.iter().map(|id| whole.parsed.get(id).unwrap()).collect();
    let framework = whole.parsed.framework.unwrap();
    let only = command.only(framework, &tests).unwrap();
    run_with(dir, &only, LIMIT, options)
}

const PYTEST_FILE: &str = r#"
import pytest

def test_pass():
    assert 1 + 1 == 2

def test_fail():
    assert 1 + 1 == 3

@pytest.mark.skip(reason="not now")
def test_skip():
    pass

@pytest.mark.xfail(reason="known")
def test_xfail():
    assert False
"#;

#[test]
fn a_pytest_suite_gives_each_test_its_result_and_narrows_to_one() {
    let dir = project(&[("tests/test_x.py", PYTEST_FILE)]);
    let command = command(&format!("{PYTHON} -m pytest -v"));
    assert_eq!(check_available(&command), Ok(()));
    let whole = run(dir.path(), &command, LIMIT);
    assert_eq!(whole.parsed.framework, Some(Framework::Pytest), "{whole:?}");
    assert_eq!(
        results(&whole),
        [
            ("tests/test_x.py::test_pass", Passed),
            ("tests/test_x.py::test_fail", Failed),
            ("tests/test_x.py::test_skip", Skipped),
            ("tests/test_x.py::test_xfail", ExpectedFailure),
        ]
    );
    assert_eq!(whole.record.exit_code, Some(1));
    assert!(!whole.green());
    assert_eq!(whole.failing(), ["tests/test_x.py::test_fail"]);
    let one = narrowed(
        dir.path(),
        &command,
        &whole,
        &["tests/test_x.py::test_pass"],
        &RunOptions::default(),
    );
    assert_eq!(results(&one), [("tests/test_x.py::test_pass", Passed)]);
    assert!(one.green(), "{one:?}");
}

const NODE_FILE: &str = r#"
const test = require('node:test');
const { describe, it } = require('node:test');
const assert = require('node:assert');

test('adds', () => { assert.strictEqual(1 + 1, 2); });
test('fails', () => { assert.strictEqual(1 + 1, 3); });
test('skipped', { skip: 'not now' }, () => {});
test('later', { todo: true }, () => { throw new Error('not yet'); });
describe('bucket', () => {
  it('refills (fully)', () => {});
});
"#;

#[test]
fn a_node_suite_gives_each_test_its_result_and_narrows_to_one() {
    let dir = project(&[("test/x.test.js", NODE_FILE)]);
    let command = command("node --test");
    assert_eq!(check_available(&command), Ok(()));
    let whole = run(dir.path(), &command, LIMIT);
    assert_eq!(
        whole.parsed.framework,
        Some(Framework::NodeTest),
        "{whole:?}"
    );
    assert_eq!(
        results(&whole),
        [
            ("adds", Passed),
            ("fails", Failed),
            ("skipped", Skipped),
            ("later", Todo),
            ("bucket > refills (fully)", Passed),
        ]
    );
    assert!(!whole.green());
    assert_eq!(whole.failing(), ["fails"]);
    let one = narrowed(
        dir.path(),
        &command,
        &whole,
        &["bucket > refills (fully)"],
        &RunOptions::default(),
    );
    assert_eq!(results(&one), [("bucket > refills (fully)", Passed)]);
    assert!(one.green(), "{one:?}");
}

const CARGO_TOML: &str = "[package]\nname = \"bucket\"\nversion = \"0.1.0\"\nedition = \"2021\"\n";

const CARGO_LIB: &str = r#"
pub fn add(a: u32, b: u32) -> u32 { a + b }

#[cfg(test)]
mod tests {
    #[test]
    fn refill_is_capped() { assert_eq!(super::add(1, 1), 2); }
    #[test]
    fn wrong() { assert_eq!(super::add(1, 1), 3); }
    #[test]
    #[ignore = "slow"]
    fn slow() {}
}
"#;

const CARGO_INTEGRATION: &str =
    "#[test]\nfn integration_ok() { assert_eq!(bucket::add(2, 2), 4); }\n";

#[test]
fn a_cargo_suite_gives_each_test_its_result_and_narrows_to_one() {
    let dir = project(&[
        ("Cargo.toml", CARGO_TOML),
        ("src/lib.rs", CARGO_LIB),
        ("tests/bucket.rs", CARGO_INTEGRATION),
    ]);
    let target = tempfile::tempdir().unwrap();
    let options = RunOptions {
        target_dir: Some(target.path().join("build")),
    };
    let command = command("cargo test --offline --no-fail-fast");
    assert_eq!(check_available(&command), Ok(()));
    let whole = run_with(dir.path(), &command, LIMIT, &options);
    assert_eq!(
        whole.parsed.framework,
        Some(Framework::Libtest),
        "{whole:?}"
    );
    // libtest runs a binary's tests in parallel: the order of their lines varies.
    let mut got: Vec<(&str, TestResult, Option<&str>)> = whole
        .parsed
        .tests
        .iter()
        .map(|t| (t.id.as_str(), t.result, t.target.as_deref()))
        .collect();
    got.sort();
    let lib = Some("src/lib.rs");
    assert_eq!(
        got,
        [
            (
                "tests/bucket.rs::integration_ok",
                Passed,
                Some("tests/bucket.rs")
            ),
            ("unittests::tests::refill_is_capped", Passed, lib),
            ("unittests::tests::slow", Skipped, lib),
            ("unittests::tests::wrong", Failed, lib),
        ],
        "{}",
        whole.record.stderr.text
    );
    assert!(!whole.green());
    assert_eq!(whole.failing(), ["unittests::tests::wrong"]);
    // The build folder given was used (a second run reuses it), the project's folder was not.
    assert!(target.path().join("build/debug").is_dir());
    assert!(!dir.path().join("target").exists());
    let one = narrowed(
        dir.path(),
        &command,
        &whole,
        &["unittests::tests::refill_is_capped"],
        &options,
    );
    assert_eq!(
        results(&one),
        [("unittests::tests::refill_is_capped", Passed)],
        "{one:?}"
    );
    assert!(one.green(), "{one:?}");
}

#[test]
fn a_suite_that_hangs_is_killed_at_its_time_limit() {
    let dir = project(&[(
        "tests/test_hang.py",
        "import time\n\ndef test_hang():\n    time.sleep(30)\n",
    )]);
    let started = Instant::now();
    let hung = run(
        dir.path(),
        &command(&format!("{PYTHON} -m pytest -v")),
        Duration::from_secs(1),
    );
    assert!(hung.timed_out(), "{hung:?}");
    assert!(!hung.green());
    assert_eq!(hung.record.exit_code, None);
    assert!(started.elapsed() < Duration::from_secs(20), "{hung:?}");
}

#[test]
fn a_missing_program_or_pytest_is_a_clear_error() {
    let missing = command("gatebench-no-such-program --test");
    assert_eq!(
        check_available(&missing),
        Err(SuiteError::Missing {
            program: "gatebench-no-such-program".into()
        })
    );
    assert_eq!(
        check_available(&missing).unwrap_err().to_string(),
        "`gatebench-no-such-program` is not on PATH"
    );
    let absent = command("/nonexistent/python3 -m pytest");
    assert_eq!(
        check_available(&absent).unwrap_err().to_string(),
        "`/nonexistent/python3` does not exist or is not an executable file"
    );
    // `-S`: no site packages, so this Python cannot import the system's pytest.
    let no_pytest = command(&format!("{PYTHON} -S -m pytest"));
    assert_eq!(
        check_available(&no_pytest).unwrap_err().to_string(),
        format!(
            "pytest is not installed for {PYTHON} (apt install python3-pytest, or pip install \
             pytest)"
        )
    );
    // Run anyway, it says why it could not start.
    let dir = project(&[]);
    let r = run(dir.path(), &missing, LIMIT);
    assert!(r.record.spawn_error.is_some(), "{r:?}");
    assert!(!r.green());
}

/// A pytest file whose tests try to leave the sandbox: each passes when the attempt is refused.
fn escape_tests(outside: &Path, secret: &Path) -> String {
    format!(
        r#"
import os, socket, pytest

OUTSIDE = {outside:?}
SECRET = {secret:?}

def test_cannot_write_outside_its_folder():
    with pytest.raises(OSError):
        open(OUTSIDE, "w").write("escaped")

def test_cannot_write_beside_its_home():
    with pytest.raises(OSError):
        open(os.path.join(os.environ["HOME"], "..", os.path.basename(OUTSIDE) + "-home"), "w")

def test_cannot_read_another_folder():
    with pytest.raises(OSError):
        open(SECRET).read()

def test_writes_its_own_folder_and_home():
    open("inside.txt", "w").write("ok")
    open(os.path.join(os.environ["HOME"], "h.txt"), "w").write("ok")
    open("home.txt", "w").write(os.environ["HOME"])

def test_has_only_the_fixed_environment():
    keys = sorted(k for k in os.environ if not k.startswith("PYTEST_"))
    assert keys == ["CI", "HOME", "LANG", "NO_COLOR", "PATH", "PYTHONDONTWRITEBYTECODE",
                    "PYTHONHASHSEED", "TMPDIR"]
    assert os.environ["TMPDIR"] == os.environ["HOME"]

def test_has_no_network():
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", 9), timeout=2)
"#
    )
}

#[test]
fn the_sandbox_holds() {
    if gatebench_process::landlock_abi().is_none()
        || !gatebench_process::network_isolation_available()
    {
        eprintln!("no Landlock or no network namespace here: the sandbox cannot be checked");
        return;
    }
    let outside = PathBuf::from(format!("/tmp/escape-{}", std::process::id()));
    let secret_dir = tempfile::tempdir().unwrap();
    let secret = secret_dir.path().join("key");
    std::fs::write(&secret, "answer").unwrap();
    let dir = project(&[("tests/test_escape.py", &escape_tests(&outside, &secret))]);
    let r = run(
        dir.path(),
        &command(&format!("{PYTHON} -m pytest -v")),
        LIMIT,
    );
    let escaped = [
        outside.clone(),
        PathBuf::from(format!("{}-home", outside.display())),
    ];
    let leaked: Vec<&PathBuf> = escaped.iter().filter(|p| p.exists()).collect();
    for p in &leaked {
        let _ = std::fs::remove_file(p);
    }
    assert_eq!(leaked, Vec::<&PathBuf>::new());
    assert_eq!(
        results(&r),
        [
            (
                "tests/test_escape.py::test_cannot_write_outside_its_folder",
                Passed
            ),
            (
                "tests/test_escape.py::test_cannot_write_beside_its_home",
                Passed
            ),
            (
                "tests/test_escape.py::test_cannot_read_another_folder",
                Passed
            ),
            (
                "tests/test_escape.py::test_writes_its_own_folder_and_home",
                Passed
            ),
            (
                "tests/test_escape.py::test_has_only_the_fixed_environment",
                Passed
            ),
            ("tests/test_escape.py::test_has_no_network", Passed),
        ],
        "{}",
        r.record.stdout.text
    );
    assert!(r.green());
    assert_eq!(
        std::fs::read_to_string(dir.path().join("inside.txt")).unwrap(),
        "ok"
    );
    // The private HOME was removed with the run.
    let home = std::fs::read_to_string(dir.path().join("home.txt")).unwrap();
    assert!(home.contains("gatebench-suite-"), "{home}");
    assert!(!Path::new(&home).exists(), "{home}");
}

#[test]
fn the_toolchain_id_names_the_real_program_and_its_versions() {
    let pytest = toolchain_id(&command(&format!("{PYTHON} -m pytest -q")));
    let lines: Vec<&str> = pytest.lines().collect();
    let real = std::fs::canonicalize(PYTHON).unwrap();
    assert_eq!(lines.len(), 3, "{pytest}");
    assert_eq!(lines[0], real.display().to_string());
    assert!(lines[1].starts_with("Python 3."), "{pytest}");
    assert!(lines[2].starts_with("pytest "), "{pytest}");
    // The same program and form: the remembered answer, whatever the other words.
    assert_eq!(
        toolchain_id(&command(&format!("{PYTHON} -m pytest -v"))),
        pytest
    );
    let cargo = toolchain_id(&command("cargo test --offline"));
    let lines: Vec<&str> = cargo.lines().collect();
    assert_eq!(lines.len(), 3, "{cargo}");
    assert!(lines[1].starts_with("cargo 1."), "{cargo}");
    assert!(lines[2].starts_with("rustc 1."), "{cargo}");
    assert_eq!(
        toolchain_id(&command("gatebench-no-such-program")),
        "gatebench-no-such-program: not found"
    );
}
