//! `test-receipt-log`: a test receipt read against its log instead of only hash-checked. Every
//! claimed test id must appear in the log as passed, the log's totals must agree with its per-test
//! lines and the receipt, and every claimed id must be one of the obligation's test refs. Reads the
//! log formats of pytest (`-v`), `cargo test` and node's test runner (TAP).

use std::sync::OnceLock;

use regex::Regex;

use crate::check::rules::*;
use crate::context::all_obligations;
use crate::finding::GateFinding;
use crate::ledger::{TestResult, TestedObligation};
use crate::load::{feature_relative, quoted, FeatureLedger, TextFile};
use crate::repo::{is_plain_relative, RepoView};

/// What a test log says ran and how it ended.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogResults {
    /// Test names reported passed, one per per-test line.
    pub passed: Vec<String>,
    /// Test names reported failed (or errored).
    pub failed: Vec<String>,
    /// Test names reported collected but not passed: skipped, ignored, expected to fail (xfail,
    /// and an xfail test that passed: its failure would not have counted), to-do. Never a pass.
    pub not_run: Vec<String>,
    /// The totals of the summary lines, summed over every summary (`None`: no summary).
    pub summary_passed: Option<u64>,
    pub summary_failed: Option<u64>,
}

impl LogResults {
    /// Whether the log is in a format the gate reads (any per-test line or summary).
    pub fn recognised(&self) -> bool {
        !self.passed.is_empty()
            || !self.failed.is_empty()
            || !self.not_run.is_empty()
            || self.summary_passed.is_some()
            || self.summary_failed.is_some()
    }
}

struct Patterns {
    pytest_line: Regex,
    pytest_summary: Regex,
    pytest_count: Regex,
    cargo_line: Regex,
    cargo_summary: Regex,
    tap_line: Regex,
    tap_total: Regex,
}

fn patterns() -> &'static Patterns {
    static PATTERNS: OnceLock<Patterns> = OnceLock::new();
    PATTERNS.get_or_init(|| Patterns {
        pytest_line: Regex::new(r"^(\S+?::\S.*?)\s+(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b")
            .expect("regex"),
        pytest_summary: Regex::new(r"^=+ .*\b(?:passed|failed|error|errors)\b.* in [0-9.]+s")
            .expect("regex"),
        pytest_count: Regex::new(r"(\d+) (passed|failed|errors?)\b").expect("regex"),
        cargo_line: Regex::new(r"^test (\S+) \.\.\. (ok|FAILED|ignored)\s*$").expect("regex"),
        cargo_summary: Regex::new(r"^test result: \w+\. (\d+) passed; (\d+) failed")
            .expect("regex"),
        tap_line: Regex::new(r"^(not ok|ok) \d+ - (.+?)(?:\s+#\s*(\S+)?.*)?$").expect("regex"),
        tap_total: Regex::new(r"^# (pass|fail) (\d+)\s*$").expect("regex"),
    })
}

/// Reads a test log in any of the supported formats.
pub fn parse_log(text: &str) -> LogResults {
    let patterns = patterns();
    let mut results = LogResults::default();
    let add = |slot: &mut Option<u64>, count: u64| *slot = Some(slot.unwrap_or(0) + count);
    for line in text.lines() {
        let line = line.trim_end();
        if let Some(captures) = patterns.pytest_line.captures(line) {
            let name = captures[1].to_owned();
            match &captures[2] {
                "PASSED" => results.passed.push(name),
                "FAILED" | "ERROR" => results.failed.push(name),
                _ => results.not_run.push(name),
            }
        } else if patterns.pytest_summary.is_match(line) {
            let mut passed = 0;
            let mut failed = 0;
            for count in patterns.pytest_count.captures_iter(line) {
                let number: u64 = count[1].parse().unwrap_or(0);
                if &count[2] == "passed" {
                    passed += number;
                } else {
                    failed += number;
                }
            }
            add(&mut results.summary_passed, passed);
            add(&mut results.summary_failed, failed);
        } else if let Some(captures) = patterns.cargo_line.captures(line) {
            let name = captures[1].to_owned();
            match &captures[2] {
                "ok" => results.passed.push(name),
                "FAILED" => results.failed.push(name),
                _ => results.not_run.push(name),
            }
        } else if let Some(captures) = patterns.cargo_summary.captures(line) {
            add(
                &mut results.summary_passed,
                captures[1].parse().unwrap_or(0),
            );
            add(
                &mut results.summary_failed,
                captures[2].parse().unwrap_or(0),
            );
        } else if let Some(captures) = patterns.tap_line.captures(line) {
            // Only top-level TAP lines: node indents subtests. A `# SKIP` or `# TODO` directive
            // (any case) makes the line no pass, whether `ok` or `not ok`: TAP counts a to-do
            // test's failure as no failure, and a skipped test never ran.
            let name = captures[2].to_owned();
            let directive = captures.get(3).map(|d| d.as_str().to_ascii_uppercase());
            if matches!(directive.as_deref(), Some("SKIP" | "TODO")) {
                results.not_run.push(name);
            } else if &captures[1] == "ok" {
                results.passed.push(name);
            } else {
                results.failed.push(name);
            }
        } else if let Some(captures) = patterns.tap_total.captures(line) {
            let count = captures[2].parse().unwrap_or(0);
            if &captures[1] == "pass" {
                add(&mut results.summary_passed, count);
            } else {
                add(&mut results.summary_failed, count);
            }
        }
    }
    results
}

/// The bare test name of an id or log name: after the last `::`, without pytest parameters.
pub fn leaf(name: &str) -> &str {
    let name = name.rsplit("::").next().unwrap_or(name);
    match name.find('[') {
        Some(bracket) if name.ends_with(']') => &name[..bracket],
        _ => name,
    }
}

/// Whether a log's test name is the claimed test id.
fn names_match(log_name: &str, claimed: &str) -> bool {
    log_name == claimed || leaf(log_name) == leaf(claimed)
}

/// `test-receipt-log` over every test receipt of the feature whose log can be read.
pub fn test_receipt_log(repo: &RepoView, feature: &FeatureLedger) -> Vec<GateFinding> {
    let mut findings = Vec::new();
    for receipt in feature.tests.values().flatten() {
        let file = &receipt.file;
        let value = &receipt.value;
        let log = feature_relative(&value.log_file);
        if !is_plain_relative(log) {
            continue;
        }
        let log_path = feature.path(log);
        let Some(text) = repo
            .read(&log_path)
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        else {
            continue;
        };
        let results = parse_log(&text);
        let claims_pass = value
            .obligations
            .iter()
            .any(|tested| tested.result == TestResult::Pass);
        if !results.recognised() {
            if claims_pass {
                findings.push(
                    GateFinding::new(
                        test_receipt_log::NO_RESULT,
                        format!("{log_path} shows no test result"),
                        format!(
                            "{} claims passing tests, but {log_path} has no per-test line and no \
                             summary the gate can read (pytest -v, cargo test, node --test): the \
                             log does not show that any test ran.",
                            file.path
                        ),
                    )
                    .at(&file.path, file.line_of("\"log_file\"")),
                );
            }
            continue;
        }
        let listed = results.passed.len() as u64;
        if let Some(summary) = results.summary_passed {
            if !results.passed.is_empty() && summary != listed {
                findings.push(
                    GateFinding::new(
                        test_receipt_log::TOTALS,
                        format!("{log_path}'s totals disagree with its test lines"),
                        format!(
                            "{log_path} reports {summary} passed in its summary but lists {listed} \
                             passed test(s): the log was edited or is not one run's output."
                        ),
                    )
                    .at(&log_path, None),
                );
            }
        }
        let failed = results
            .summary_failed
            .unwrap_or(0)
            .max(results.failed.len() as u64);
        if failed > 0 && value.exit_code == 0 {
            findings.push(
                GateFinding::new(
                    test_receipt_log::FAILED_EXIT_ZERO,
                    format!("{log_path} records failed tests but the receipt says exit 0"),
                    format!(
                        "{log_path} records {failed} failed test(s), yet {} records exit code 0: \
                         the receipt does not describe the run its log shows.",
                        file.path
                    ),
                )
                .at(&file.path, file.line_of("\"exit_code\"")),
            );
        }
        findings.extend(claimed_tests(
            feature,
            file,
            &value.obligations,
            &results,
            &log_path,
        ));
    }
    findings
}

/// Every test a receipt claims passed for an obligation: its log reports it passed, and it is
/// one of the obligation's test refs.
fn claimed_tests(
    feature: &FeatureLedger,
    file: &TextFile,
    tested_obligations: &[TestedObligation],
    results: &LogResults,
    log_path: &str,
) -> Vec<GateFinding> {
    let mut findings = Vec::new();
    for tested in tested_obligations {
        if tested.result != TestResult::Pass {
            continue;
        }
        let test_refs: Option<&Vec<String>> = feature.requirements.as_ref().and_then(|req| {
            all_obligations(&req.value)
                .find(|(_, obligation)| obligation.id == tested.id)
                .map(|(_, obligation)| &obligation.test_refs)
        });
        for claimed in &tested.test_ids {
            let line = file.line_of(&quoted(claimed));
            let passed = results.passed.iter().any(|name| names_match(name, claimed));
            if !passed {
                let failed = results.failed.iter().any(|name| names_match(name, claimed));
                let not_run = results
                    .not_run
                    .iter()
                    .any(|name| names_match(name, claimed));
                let why = if failed {
                    "records it failed"
                } else if not_run {
                    "records it skipped, ignored, expected to fail or to-do, which is no pass"
                } else {
                    "never reports it passed"
                };
                findings.push(
                    GateFinding::new(
                        test_receipt_log::NOT_PASSED,
                        format!("{claimed} of {} is not passed in {log_path}", tested.id),
                        format!(
                            "{} claims {claimed} passed for {}, but {log_path} {why}: a \
                             claim its own log contradicts is not evidence. Re-run the \
                             tests and record the real result.",
                            file.path, tested.id
                        ),
                    )
                    .at(&file.path, line)
                    .obligation(&tested.id),
                );
            }
            if let Some(test_refs) = test_refs {
                if !test_refs
                    .iter()
                    .any(|test_ref| leaf(test_ref) == leaf(claimed))
                {
                    findings.push(
                        GateFinding::new(
                            test_receipt_log::NOT_A_TEST_REF,
                            format!("{claimed} is not a test ref of {}", tested.id),
                            format!(
                                "{} claims {claimed} for {}, but the obligation's test_refs \
                                 do not name it: a passing test of something else is no \
                                 evidence for this obligation.",
                                file.path, tested.id
                            ),
                        )
                        .at(&file.path, line)
                        .obligation(&tested.id),
                    );
                }
            }
        }
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pytest_verbose_logs_are_read() {
        let log = "collecting ... collected 3 items\n\ntests/t.py::test_a PASSED [ 33%]\ntests/t.py::test_b[x] PASSED [ 66%]\ntests/t.py::test_c FAILED [100%]\n===== 1 failed, 2 passed in 0.01s =====\n";
        let results = parse_log(log);
        assert_eq!(
            results.passed,
            ["tests/t.py::test_a", "tests/t.py::test_b[x]"]
        );
        assert_eq!(results.failed, ["tests/t.py::test_c"]);
        assert_eq!(results.summary_passed, Some(2));
        assert_eq!(results.summary_failed, Some(1));
        assert!(results
            .passed
            .iter()
            .any(|name| names_match(name, "test_b")));
    }

    #[test]
    fn cargo_logs_are_read() {
        let log = "running 2 tests\ntest store::rolls_back ... ok\ntest store::keeps ... FAILED\n\ntest result: FAILED. 1 passed; 1 failed; 0 ignored\n";
        let results = parse_log(log);
        assert_eq!(results.passed, ["store::rolls_back"]);
        assert_eq!(results.failed, ["store::keeps"]);
        assert_eq!(results.summary_passed, Some(1));
        assert_eq!(results.summary_failed, Some(1));
    }

    #[test]
    fn node_tap_logs_are_read() {
        let log = "TAP version 13\n# Subtest: a\nok 1 - cancels\nnot ok 2 - refunds\n1..2\n# tests 2\n# pass 1\n# fail 1\n";
        let results = parse_log(log);
        assert_eq!(results.passed, ["cancels"]);
        assert_eq!(results.failed, ["refunds"]);
        assert_eq!(results.summary_passed, Some(1));
        assert_eq!(results.summary_failed, Some(1));
    }

    #[test]
    fn skipped_todo_and_expected_failures_are_never_passes() {
        // node's TAP, as `node --test` prints it for `{ skip: true }`, `test.todo` and `{ todo }`.
        let tap = "ok 1 - passes\nok 2 - skipped # SKIP\nnot ok 3 - todo fails # TODO\nok 4 - todo passes # todo later\n# pass 1\n";
        let results = parse_log(tap);
        assert_eq!(results.passed, ["passes"]);
        assert!(results.failed.is_empty());
        assert_eq!(results.not_run, ["skipped", "todo fails", "todo passes"]);
        let pytest = "tests/t.py::test_a PASSED\ntests/t.py::test_b SKIPPED (flaky)\ntests/t.py::test_c XFAIL\ntests/t.py::test_d XPASS\n";
        let results = parse_log(pytest);
        assert_eq!(results.passed, ["tests/t.py::test_a"]);
        assert_eq!(
            results.not_run,
            [
                "tests/t.py::test_b",
                "tests/t.py::test_c",
                "tests/t.py::test_d"
            ]
        );
        let cargo = "test a ... ok\ntest b ... ignored\n";
        assert_eq!(parse_log(cargo).not_run, ["b"]);
    }

    #[test]
    fn text_without_tests_is_not_recognised() {
        assert!(!parse_log("all good\n").recognised());
    }
}
