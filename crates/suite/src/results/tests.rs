//! The parsers against output captured from the real frameworks (`captured.rs`), and against
//! arbitrary bytes and cut lines.

use super::captured::*;
use super::*;
use proptest::prelude::*;
use TestResult::*;

/// `(id, result)` of every test, in order.
fn results(parsed: &Parsed) -> Vec<(&str, TestResult)> {
    parsed
        .tests
        .iter()
        .map(|t| (t.id.as_str(), t.result))
        .collect()
}

#[test]
fn pytest_verbose_lines_give_every_test_with_its_node_id() {
    let parsed = parse(PYTEST_V, "");
    assert_eq!(parsed.framework, Some(Framework::Pytest));
    assert!(!parsed.build_failed);
    assert_eq!(
        results(&parsed),
        [
            ("tests/test_x.py::test_pass", Passed),
            ("tests/test_x.py::test_fail", Failed),
            ("tests/test_x.py::test_skip", Skipped),
            ("tests/test_x.py::test_xfail", ExpectedFailure),
            ("tests/test_x.py::test_xpass", UnexpectedPass),
            ("tests/test_x.py::test_param[1]", Passed),
            ("tests/test_x.py::test_param[2]", Failed),
            ("tests/test_x.py::test_param[a b]", Passed),
            ("tests/test_x.py::TestC::test_m", Passed),
            ("tests/test_x.py::test_error", Failed),
        ]
    );
    assert!(parsed.tests.iter().all(|t| t.target.is_none()));
}

#[test]
fn pytest_short_summary_names_every_test_and_counts_a_skip_by_its_location() {
    let parsed = parse(PYTEST_RA, "");
    assert_eq!(parsed.framework, Some(Framework::Pytest));
    assert_eq!(
        results(&parsed),
        [
            ("tests/test_x.py::test_pass", Passed),
            ("tests/test_x.py::test_param[1]", Passed),
            ("tests/test_x.py::test_param[a b]", Passed),
            ("tests/test_x.py::TestC::test_m", Passed),
            ("tests/test_x.py::test_xfail", ExpectedFailure),
            ("tests/test_x.py::test_xpass", UnexpectedPass),
            ("tests/test_x.py::test_error", Failed),
            ("tests/test_x.py::test_fail", Failed),
            ("tests/test_x.py::test_param[2]", Failed),
            ("tests/test_x.py:9", Skipped),
        ]
    );
}

#[test]
fn pytest_quiet_output_names_only_the_failures() {
    let parsed = parse(PYTEST_Q, "");
    assert_eq!(parsed.framework, Some(Framework::Pytest));
    assert_eq!(
        results(&parsed),
        [
            ("tests/test_x.py::test_fail", Failed),
            ("tests/test_x.py::test_param[2]", Failed),
            ("tests/test_x.py::test_error", Failed),
        ]
    );
}

#[test]
fn a_pytest_file_that_cannot_be_collected_is_a_failed_test_named_by_its_path() {
    let parsed = parse(PYTEST_COLLECTION_ERROR, "");
    assert_eq!(parsed.framework, Some(Framework::Pytest));
    assert_eq!(results(&parsed), [("tests/test_bad.py", Failed)]);
}

#[test]
fn a_test_reported_twice_keeps_its_weightiest_result_in_its_first_place() {
    // A test whose call passed and whose teardown broke: `PASSED` then `ERROR` on `-v` lines.
    let out =
        "tests/t.py::a PASSED [ 50%]\ntests/t.py::a ERROR [ 50%]\ntests/t.py::b PASSED [100%]\n\
               ==== 2 passed, 1 error in 0.01s ====\n";
    assert_eq!(
        results(&parse(out, "")),
        [("tests/t.py::a", Failed), ("tests/t.py::b", Passed)]
    );
}

#[test]
fn node_tap_gives_leaf_tests_by_their_title_path_and_leaves_suites_out() {
    let parsed = parse(NODE_TAP, "");
    assert_eq!(parsed.framework, Some(Framework::NodeTest));
    assert_eq!(
        results(&parsed),
        [
            ("adds", Passed),
            ("fails", Failed),
            ("skipped", Skipped),
            ("todo passing", Todo),
            ("todo failing", Todo),
            ("bucket > refills", Passed),
            ("bucket > inner (a|b) > caps # here", Failed),
            ("parent > child one", Passed),
            ("parent > child two", Passed),
        ]
    );
}

#[test]
fn node_tests_left_out_by_a_name_pattern_are_not_reported() {
    let parsed = parse(NODE_TAP_PATTERN, "");
    assert_eq!(parsed.framework, Some(Framework::NodeTest));
    assert_eq!(results(&parsed), [("bucket > refills", Passed)]);
}

#[test]
fn a_node_test_file_that_cannot_load_is_a_failed_test_named_by_its_path() {
    let parsed = parse(NODE_TAP_SYNTAX_ERROR, "");
    assert_eq!(
        results(&parsed),
        [
            ("fine", Passed),
            ("/tmp/suite-cap/jsbad/test/b.test.js", Failed)
        ]
    );
}

#[test]
fn a_failed_parent_whose_subtests_all_passed_keeps_its_failure() {
    // A suite whose `after` hook threw: every test passed, the suite did not.
    let out = "TAP version 13\n# Subtest: s\n    # Subtest: t\n    ok 1 - t\n      ---\n      \
               duration_ms: 1\n      ...\n    1..1\nnot ok 1 - s\n  ---\n  failureType: \
               'hookFailed'\n  ...\n1..1\n";
    assert_eq!(results(&parse(out, "")), [("s > t", Passed), ("s", Failed)]);
}

#[test]
fn node_hook_failures_fail_the_cancelled_tests_or_their_suite() {
    // `before` threw: its test is cancelled (failed), the suite's own failure is in it. `after`
    // threw: its test passed, so the suite keeps the failure.
    assert_eq!(
        results(&parse(NODE_TAP_HOOKS, "")),
        [
            ("setup breaks > uses db", Failed),
            ("teardown breaks > works", Passed),
            ("teardown breaks", Failed),
        ]
    );
}

#[test]
fn yaml_blocks_are_passed_over_even_when_they_hold_result_like_lines() {
    let out = "TAP version 13\n# Subtest: a\nnot ok 1 - a\n  ---\n  error: |-\n    ok 9 - \
               fake\n    not ok 10 - fake too\n  ...\n1..1\n";
    assert_eq!(results(&parse(out, "")), [("a", Failed)]);
}

#[test]
fn cargo_test_names_carry_their_target_from_the_headers_on_stderr() {
    let parsed = parse(CARGO_STDOUT, CARGO_STDERR);
    assert_eq!(parsed.framework, Some(Framework::Libtest));
    assert!(!parsed.build_failed);
    let got: Vec<(&str, TestResult, Option<&str>)> = parsed
        .tests
        .iter()
        .map(|t| (t.id.as_str(), t.result, t.target.as_deref()))
        .collect();
    assert_eq!(
        got,
        [
            ("unittests::tests::net", Skipped, Some("src/lib.rs")),
            ("unittests::tests::slow", Skipped, Some("src/lib.rs")),
            (
                "unittests::tests::refill_is_capped",
                Passed,
                Some("src/lib.rs")
            ),
            ("unittests::tests::wrong", Failed, Some("src/lib.rs")),
            (
                "tests/bucket.rs::integration_ok",
                Passed,
                Some("tests/bucket.rs")
            ),
            (
                "tests/bucket.rs::integration_fails",
                Failed,
                Some("tests/bucket.rs")
            ),
            (
                "src/lib.rs - add (line 3)",
                Passed,
                Some("Doc-tests bucket")
            ),
        ]
    );
}

#[test]
fn cargo_output_merged_into_one_stream_reads_its_headers_in_place() {
    let merged =
        "   Compiling bucket v0.1.0\n     Running unittests src/lib.rs (target/x)\n\nrunning \
         1 test\ntest tests::a ... ok\n\ntest result: ok. 1 passed\n\n     Running \
         tests/more.rs (target/y)\n\nrunning 1 test\ntest b - should panic ... ok\n";
    let parsed = parse(merged, "");
    let got: Vec<(&str, Option<&str>)> = parsed
        .tests
        .iter()
        .map(|t| (t.id.as_str(), t.target.as_deref()))
        .collect();
    assert_eq!(
        got,
        [
            ("unittests::tests::a", Some("src/lib.rs")),
            ("tests/more.rs::b", Some("tests/more.rs"))
        ]
    );
}

#[test]
fn a_test_binary_run_by_hand_gives_bare_names() {
    let out = "\nrunning 2 tests\ntest a::b ... ok\ntest c ... ignored, later\n";
    let parsed = parse(out, "");
    assert_eq!(results(&parsed), [("a::b", Passed), ("c", Skipped)]);
    assert_eq!(parsed.tests[0].target, None);
}

#[test]
fn a_crate_that_does_not_compile_is_a_failed_build_without_tests() {
    let parsed = parse("", CARGO_BUILD_ERROR_STDERR);
    assert_eq!(parsed.framework, Some(Framework::Libtest));
    assert!(parsed.build_failed);
    assert!(parsed.tests.is_empty());
    // An `error[E...]` printed by a test that ran is not a failed build.
    let ran = parse(
        "\nrunning 1 test\ntest t ... ok\n",
        "error[E0001]: quoted in a log\n",
    );
    assert!(!ran.build_failed);
}

#[test]
fn output_of_no_known_framework_gives_nothing() {
    let parsed = parse(
        "hello\nok 1 - not tap without its version line\n",
        "warning\n",
    );
    assert_eq!(parsed, Parsed::default());
}

/// Every captured output, as `(stdout, stderr)`.
const ALL: &[(&str, &str)] = &[
    (PYTEST_V, ""),
    (PYTEST_RA, ""),
    (PYTEST_Q, ""),
    (PYTEST_COLLECTION_ERROR, ""),
    (NODE_TAP, ""),
    (NODE_TAP_PATTERN, ""),
    (NODE_TAP_SYNTAX_ERROR, ""),
    (NODE_TAP_HOOKS, ""),
    (CARGO_STDOUT, CARGO_STDERR),
    ("", CARGO_BUILD_ERROR_STDERR),
];

#[test]
fn output_cut_after_any_line_gives_only_tests_of_the_whole_output() {
    for (stdout, stderr) in ALL {
        let whole = parse(stdout, stderr);
        let ids: Vec<&str> = whole.tests.iter().map(|t| t.id.as_str()).collect();
        let mut cut = 0;
        for line in stdout.split_inclusive('\n') {
            cut += line.len();
            let part = parse(&stdout[..cut], stderr);
            for t in &part.tests {
                assert!(ids.contains(&t.id.as_str()), "{:?} after {cut} bytes", t.id);
            }
        }
        // Cut anywhere, even inside a line or a character's bytes: no panic, and the same
        // result each time.
        for cut in (0..stdout.len()).step_by(7) {
            let bytes = String::from_utf8_lossy(&stdout.as_bytes()[..cut]);
            assert_eq!(parse(&bytes, stderr), parse(&bytes, stderr));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_bytes_never_panic(out in proptest::collection::vec(any::<u8>(), 0..2048),
                                   err in proptest::collection::vec(any::<u8>(), 0..256)) {
        let out = String::from_utf8_lossy(&out);
        let err = String::from_utf8_lossy(&err);
        let parsed = parse(&out, &err);
        prop_assert!(parsed.tests.len() <= out.lines().count() * pytest_max() + 1);
    }

    #[test]
    fn result_lines_mixed_with_junk_never_panic(
        lines in proptest::collection::vec(
            prop_oneof![
                Just("TAP version 13".to_owned()),
                Just("running 3 tests".to_owned()),
                Just("==== test session starts ====".to_owned()),
                Just("SKIPPED [99999999999999999999] a.py:1: x".to_owned()),
                Just("     Running unittests src/lib.rs (x)".to_owned()),
                Just("Doc-tests".to_owned()),
                "( {0,12})(not )?ok [0-9]{0,3}( - )?[ -~]{0,12}(#|\\\\)?[ -~]{0,8}",
                "test [ -~]{0,10} \\.\\.\\. (ok|FAILED|ignored)[ -~]{0,5}",
                "(PASSED|FAILED|XPASS|ERROR) [ -~\\[\\]]{0,20}",
                "[a-z/]{0,5}::[ -~\\[]{0,8} (PASSED|XFAIL|SKIPPED)[ -~]{0,6}",
                "( {0,10})# Subtest: [ -~]{0,10}",
                "( {0,10})(---|\\.\\.\\.)",
                "\\PC{0,20}",
            ],
            0..40,
        )
    ) {
        let text = lines.join("\n");
        let first = parse(&text, &text);
        prop_assert_eq!(first, parse(&text, &text));
    }
}

/// At most this many tests come from one line (a location skip's count is capped).
fn pytest_max() -> usize {
    10_000
}
