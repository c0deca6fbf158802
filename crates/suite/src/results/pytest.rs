//! pytest's output read as per-test results: the `-v` lines (`tests/x.py::t PASSED   [ 10%]`),
//! the short summary lines of `-rA` and of the default `-rfE` (`PASSED tests/x.py::t`, `FAILED
//! tests/x.py::t - msg`, `XPASS tests/x.py::t reason`, `SKIPPED [1] tests/x.py:12: reason`), and
//! pytest-xdist's `[gw0] [ 10%] PASSED tests/x.py::t`. With `-q` only the failures are named, in
//! the summary: they are what is read.

use std::sync::OnceLock;

use regex::Regex;

use super::{lines, outcome, TestOutcome, TestResult};

/// At most this many tests are counted for one `SKIPPED [N] path:line` line (arbitrary text may
/// claim any number).
const MAX_LOCATION_SKIPS: usize = 10_000;

/// Whether `line` marks pytest's output: its session banner, its `collected N items` line, or
/// its closing summary (`==== 2 failed, 4 passed in 0.03s ====`, `-q`'s bare `2 failed, 4 passed
/// in 0.04s`, `no tests ran in 0.01s`).
pub(super) fn is_mark(line: &str) -> bool {
    static MARK: OnceLock<Option<Regex>> = OnceLock::new();
    MARK.get_or_init(|| {
        Regex::new(
            r"^(?:=+ test session starts =+|(?:collecting \.\.\. )?collected \d+ items?.*|=*\s*(?:no tests ran|(?:\d+ (?:passed|failed|skipped|deselected|xfailed|xpassed|errors?|warnings?)(?:, )?)+) in [\d.]+s.*)$",
        )
        .ok()
    })
    .as_ref()
    .is_some_and(|re| re.is_match(line))
}

/// A `-v` line: node id, status, an optional `(reason)`, an optional progress `[ 10%]`.
fn verbose_line() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"^(\S.*?::.*?) (PASSED|FAILED|SKIPPED|XFAIL|XPASS|ERROR)(?: \(.*\))?(?:\s+\[\s*\d+%\])?\s*$",
        )
        .ok()
    })
    .as_ref()
}

/// A summary line's status and the rest of it (an xdist worker's prefix left out).
fn summary_line() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"^(?:\[gw\d+\] \[\s*\d+%\] )?(PASSED|FAILED|ERROR|XFAIL|XPASS) (.+)$").ok()
    })
    .as_ref()
}

/// A skip reported by location only: `SKIPPED [N] path:line: reason`.
fn location_skip() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"^SKIPPED \[(\d+)\] (.+?:\d+)(?::|$)").ok())
        .as_ref()
}

fn result_of(status: &str) -> TestResult {
    match status {
        "PASSED" => TestResult::Passed,
        "SKIPPED" => TestResult::Skipped,
        "XFAIL" => TestResult::ExpectedFailure,
        "XPASS" => TestResult::UnexpectedPass,
        _ => TestResult::Failed,
    }
}

/// The per-test results in pytest's standard output. A test both on a `-v` line and in the
/// summary is given twice (merged by the caller). Skips reported by location only are counted
/// when no `-v` line was seen (with `-v`, every test has its own line, skipped ones included).
pub(super) fn parse(stdout: &str) -> Vec<TestOutcome> {
    let (Some(verbose), Some(summary), Some(located)) =
        (verbose_line(), summary_line(), location_skip())
    else {
        return Vec::new();
    };
    let has_summary = lines(stdout).any(is_summary_banner);
    let mut in_summary = !has_summary;
    let mut tests = Vec::new();
    let mut location_skips = Vec::new();
    let mut verbose_seen = false;
    for line in lines(stdout) {
        if is_summary_banner(line) {
            in_summary = true;
            continue;
        }
        if let Some(c) = verbose.captures(line) {
            verbose_seen = true;
            tests.push(outcome(&c[1], result_of(&c[2])));
        } else if let Some(c) = summary.captures(line).filter(|_| in_summary) {
            if let Some(id) = node_id(&c[2]) {
                tests.push(outcome(id, result_of(&c[1])));
            }
        } else if let Some(c) = located.captures(line).filter(|_| in_summary) {
            let count = c[1].parse::<usize>().unwrap_or(1).min(MAX_LOCATION_SKIPS);
            for _ in 0..count {
                location_skips.push(outcome(&c[2], TestResult::Skipped));
            }
        }
    }
    if !verbose_seen {
        tests.extend(location_skips);
    }
    tests
}

/// pytest's `short test summary info` banner, after which the summary lines come.
fn is_summary_banner(line: &str) -> bool {
    line.starts_with('=') && line.contains(" short test summary info ")
}

/// The node id at the start of a summary line's rest: up to the first space outside brackets
/// (a parametrized id may hold spaces: `test_p[a b]`). `None` when it does not look like a
/// node id (`path::name`, or a `.py` path for a file that could not be collected).
fn node_id(rest: &str) -> Option<&str> {
    let mut depth = 0usize;
    let mut end = rest.len();
    for (i, c) in rest.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            ' ' if depth == 0 => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    let id = &rest[..end];
    (id.contains("::") || id.ends_with(".py")).then_some(id)
}
