//! `cargo test`'s output read as per-test results: libtest's `test NAME ... ok|FAILED|ignored`
//! lines (`ignored, reason` too) on standard output, and cargo's `Running unittests src/lib.rs
//! (...)`, `Running tests/bucket.rs (...)` and `Doc-tests NAME` headers, which say which target
//! the names belong to. cargo writes its headers to standard error and libtest its lines to
//! standard output, so the two are matched by order: the k-th `running N tests` line belongs to
//! the k-th header (cargo starts one test binary after another, and each prints that line
//! first). When standard error was merged into standard output, the headers are read there.

use std::sync::OnceLock;

use regex::Regex;

use super::{lines, TestOutcome, TestResult};

/// Whether `line` marks libtest's output: `running N tests` or `test result: ...`.
pub(super) fn is_mark(line: &str) -> bool {
    running(line) || line.starts_with("test result: ")
}

/// libtest's `running N tests` (`running 1 test`), which opens each test binary's output.
fn running(line: &str) -> bool {
    line.strip_prefix("running ")
        .and_then(|rest| {
            rest.strip_suffix(" tests")
                .or_else(|| rest.strip_suffix(" test"))
        })
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// A test line: the name and the status.
fn test_line() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"^test (.+?) \.\.\. (ok|FAILED|ignored)(?:, .*)?$").ok())
        .as_ref()
}

/// What a cargo header says about the test binary it starts.
#[derive(Debug, Clone, PartialEq)]
enum Header {
    /// `Running unittests src/lib.rs (...)`: unit tests of the target whose root file this is.
    Unit(String),
    /// `Running tests/bucket.rs (...)`: an integration test (or bench, example) target.
    Integration(String),
    /// `Doc-tests NAME`: the doc tests of crate NAME.
    Doc(String),
}

/// The header a trimmed line is, if it is one.
fn header(line: &str) -> Option<Header> {
    let line = line.trim();
    if let Some(name) = line.strip_prefix("Doc-tests ") {
        return Some(Header::Doc(name.trim().to_owned()));
    }
    let rest = line.strip_prefix("Running ")?;
    // The binary's path in parentheses is left out.
    let rest = match rest.rfind(" (") {
        Some(i) if rest.ends_with(')') => &rest[..i],
        _ => rest,
    };
    match rest.strip_prefix("unittests ") {
        Some(path) => Some(Header::Unit(path.trim().to_owned())),
        None => Some(Header::Integration(rest.trim().to_owned())),
    }
}

/// The per-test results of a `cargo test` run (or of a test binary run by hand: no headers, bare
/// names).
pub(super) fn parse(stdout: &str, stderr: &str) -> Vec<TestOutcome> {
    let Some(test_line) = test_line() else {
        return Vec::new();
    };
    let headers_in = |text| lines(text).filter_map(header).collect::<Vec<_>>();
    let mut headers = headers_in(stdout);
    if headers.is_empty() {
        headers = headers_in(stderr);
    }
    let mut binaries = 0usize;
    let mut tests = Vec::new();
    for line in lines(stdout) {
        if running(line) {
            binaries += 1;
            continue;
        }
        let Some(c) = test_line.captures(line) else {
            continue;
        };
        let name = c[1].strip_suffix(" - should panic").unwrap_or(&c[1]);
        let result = match &c[2] {
            "ok" => TestResult::Passed,
            "ignored" => TestResult::Skipped,
            _ => TestResult::Failed,
        };
        let header = binaries.checked_sub(1).and_then(|k| headers.get(k));
        tests.push(named(name, header, result));
    }
    tests
}

/// A test's outcome under the header of its binary.
fn named(name: &str, header: Option<&Header>, result: TestResult) -> TestOutcome {
    let (id, target) = match header {
        Some(Header::Unit(path)) => (format!("unittests::{name}"), Some(path.clone())),
        Some(Header::Integration(path)) => (format!("{path}::{name}"), Some(path.clone())),
        Some(Header::Doc(krate)) => (name.to_owned(), Some(format!("Doc-tests {krate}"))),
        None => (name.to_owned(), None),
    };
    TestOutcome { id, result, target }
}

/// Whether cargo could not build what it was to test: a compiler error (`error[E0425]: ...`) or
/// `error: could not compile`, and no test binary ran.
pub(super) fn build_failed(stdout: &str, stderr: &str) -> bool {
    let failed = |text| {
        lines(text).any(|l| {
            let l = l.trim_start();
            l.starts_with("error[E") || l.starts_with("error: could not compile")
        })
    };
    (failed(stderr) || failed(stdout)) && !lines(stdout).any(running)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_name_their_target_without_the_binary_path() {
        assert_eq!(
            header("     Running unittests src/lib.rs (target/debug/deps/bucket-b0d7)"),
            Some(Header::Unit("src/lib.rs".into()))
        );
        assert_eq!(
            header("     Running tests/bucket.rs (target/debug/deps/bucket-6c33)"),
            Some(Header::Integration("tests/bucket.rs".into()))
        );
        assert_eq!(
            header("   Doc-tests bucket"),
            Some(Header::Doc("bucket".into()))
        );
        assert_eq!(header("   Compiling bucket v0.1.0"), None);
    }

    #[test]
    fn running_lines_are_told_from_other_text() {
        assert!(running("running 1 test"));
        assert!(running("running 12 tests"));
        assert!(!running("running tests"));
        assert!(!running("running 1x tests"));
    }
}
