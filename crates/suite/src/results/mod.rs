//! What a test run printed, read as per-test results: which tests passed, failed, were skipped,
//! xfailed, xpassed or todo. The framework is recognised from the output itself (pytest's banner
//! and summary, node's `TAP version` line, libtest's `running N tests`); each has its own reader
//! (`pytest.rs`, `tap.rs`, `libtest.rs`). Reading never fails: text that is not a result line is
//! passed over, so arbitrary bytes give an empty result, never a panic.

mod libtest;
mod pytest;
mod tap;

#[cfg(test)]
mod captured;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

/// A test framework whose output [`parse`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Framework {
    /// pytest (`-v`, `-rA`, `-q`, default).
    Pytest,
    /// `node --test` with its TAP reporter (the default when stdout is not a terminal, Node 20).
    NodeTest,
    /// Rust's libtest, as `cargo test` runs it.
    Libtest,
}

/// The result of one test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum TestResult {
    Passed,
    /// Failed, or (pytest `ERROR`) broke in a fixture's setup or teardown, or (node) did not
    /// finish; a file that could not be collected or loaded is a failed test named by the file.
    Failed,
    /// Skipped (pytest `SKIPPED`, node `# SKIP`) or ignored (libtest).
    Skipped,
    /// pytest `XFAIL`: failed, as it is marked to.
    ExpectedFailure,
    /// pytest `XPASS`: passed although marked to fail (not strict: pytest's run still passes).
    UnexpectedPass,
    /// node `# TODO`, whether it passed or failed.
    Todo,
}

impl TestResult {
    /// How much a result says when the same test is reported twice (pytest's `-v` line and its
    /// summary line, a passed call and an `ERROR` at teardown): the higher one is kept.
    fn weight(self) -> u8 {
        match self {
            TestResult::Passed => 0,
            TestResult::Todo => 1,
            TestResult::Skipped => 2,
            TestResult::ExpectedFailure => 3,
            TestResult::UnexpectedPass => 4,
            TestResult::Failed => 5,
        }
    }
}

/// One test and its result.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct TestOutcome {
    /// What a test ref names after the file, as the framework reports it:
    /// - pytest: the node id, `tests/test_x.py::test_name`, `tests/test_x.py::TestC::test_m`,
    ///   `tests/test_x.py::test_p[1]`; a skip reported only by location (`SKIPPED [1]
    ///   tests/x.py:12: reason`, without `-v`) is `tests/x.py:12`; a file that could not be
    ///   collected is its path;
    /// - node: the titles from the outermost suite in, joined by ` > ` (`bucket > refills`);
    /// - libtest: `tests/bucket.rs::name` for an integration test target,
    ///   `unittests::module::name` for unit tests (the file of the module cannot be known from
    ///   the output; [`TestOutcome::target`] says which target), the name as printed for a
    ///   doc test (`src/lib.rs - add (line 3)`), and the bare name when no `Running` header told
    ///   the target (a test binary run by hand).
    pub id: String,
    pub result: TestResult,
    /// libtest only: the target the test belongs to, from cargo's `Running` header:
    /// `src/lib.rs`, `src/main.rs` (unit tests), `tests/bucket.rs` (an integration test),
    /// `Doc-tests NAME` (the doc tests of crate NAME). `None` for pytest and node.
    pub target: Option<String>,
}

/// Everything one run's output tells about its tests.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Parsed {
    /// The framework whose output this is, `None` when none was recognised.
    pub framework: Option<Framework>,
    /// Every test reported, in the order first reported, each once (a test reported twice keeps
    /// the result that says the most: `Failed` over the rest).
    pub tests: Vec<TestOutcome>,
    /// cargo could not compile the crate or its tests (`error[E...]`, `could not compile`), and
    /// no test ran.
    pub build_failed: bool,
}

impl Parsed {
    /// The tests with this result.
    pub fn with(&self, result: TestResult) -> impl Iterator<Item = &TestOutcome> {
        self.tests.iter().filter(move |t| t.result == result)
    }

    /// The outcome of the test `id` (the first, when targets share a name).
    pub fn get(&self, id: &str) -> Option<&TestOutcome> {
        self.tests.iter().find(|t| t.id == id)
    }
}

/// Reads a run's standard output and error as per-test results. Never panics; output of no
/// known framework gives `framework: None` and no tests.
pub fn parse(stdout: &str, stderr: &str) -> Parsed {
    let framework = detect(stdout).or_else(|| detect(stderr));
    let found = match framework {
        Some(Framework::Pytest) => pytest::parse(stdout),
        Some(Framework::NodeTest) => tap::parse(stdout),
        Some(Framework::Libtest) => libtest::parse(stdout, stderr),
        None => Vec::new(),
    };
    let build_failed = libtest::build_failed(stdout, stderr);
    let framework = match framework {
        None if build_failed => Some(Framework::Libtest),
        other => other,
    };
    Parsed {
        framework,
        tests: merge(found),
        build_failed,
    }
}

/// The framework whose mark comes first in `text`: node's `TAP version` line, libtest's
/// `running N tests` or `test result:`, pytest's session banner, collection line or closing
/// summary.
fn detect(text: &str) -> Option<Framework> {
    lines(text).find_map(|line| {
        if line.starts_with("TAP version ") {
            Some(Framework::NodeTest)
        } else if libtest::is_mark(line) {
            Some(Framework::Libtest)
        } else if pytest::is_mark(line) {
            Some(Framework::Pytest)
        } else {
            None
        }
    })
}

/// Tests reported more than once (same id and target) merged into their first place, keeping
/// the weightiest result.
fn merge(found: Vec<TestOutcome>) -> Vec<TestOutcome> {
    let mut place: std::collections::HashMap<(String, Option<String>), usize> =
        std::collections::HashMap::new();
    let mut tests: Vec<TestOutcome> = Vec::with_capacity(found.len());
    for outcome in found {
        let key = (outcome.id.clone(), outcome.target.clone());
        match place.get(&key) {
            Some(&i) => {
                if outcome.result.weight() > tests[i].result.weight() {
                    tests[i].result = outcome.result;
                }
            }
            None => {
                place.insert(key, tests.len());
                tests.push(outcome);
            }
        }
    }
    tests
}

/// The lines of `text`, each without its line ending (`\n` or `\r\n`).
fn lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines().map(|l| l.strip_suffix('\r').unwrap_or(l))
}

/// A test outcome without a target.
fn outcome(id: impl Into<String>, result: TestResult) -> TestOutcome {
    TestOutcome {
        id: id.into(),
        result,
        target: None,
    }
}
