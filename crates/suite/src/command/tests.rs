//! Splitting declared commands, telling their framework, and narrowing them to tests.

use super::*;
use crate::results::TestResult;

fn words(text: &str) -> Vec<String> {
    SuiteCommand::parse(text).unwrap().argv
}

fn test(id: &str, target: Option<&str>) -> TestOutcome {
    TestOutcome {
        id: id.into(),
        result: TestResult::Passed,
        target: target.map(Into::into),
    }
}

fn narrowed(command: &str, framework: Framework, tests: &[TestOutcome]) -> Vec<String> {
    let tests: Vec<&TestOutcome> = tests.iter().collect();
    SuiteCommand::parse(command)
        .unwrap()
        .only(framework, &tests)
        .unwrap()
        .argv
}

#[test]
fn commands_split_like_a_shell_without_running_one() {
    assert_eq!(
        words(r#"sh -c 'a && b' "x y" z\ w"#),
        ["sh", "-c", "a && b", "x y", "z w"]
    );
    assert_eq!(SuiteCommand::parse("  "), Err(SuiteError::Empty));
    assert!(matches!(
        SuiteCommand::parse("pytest 'open"),
        Err(SuiteError::Unbalanced { .. })
    ));
    for bad in [
        "pytest && rm x",
        "pytest | tee log",
        "pytest > log",
        "a ; b",
    ] {
        assert!(
            matches!(
                SuiteCommand::parse(bad),
                Err(SuiteError::ShellSyntax { .. })
            ),
            "{bad}"
        );
    }
}

#[test]
fn the_framework_is_told_from_the_words() {
    let of = |text| SuiteCommand::parse(text).unwrap().framework();
    assert_eq!(of("/usr/bin/python3 -m pytest -q"), Some(Framework::Pytest));
    assert_eq!(of("pytest tests"), Some(Framework::Pytest));
    assert_eq!(of("node --test"), Some(Framework::NodeTest));
    assert_eq!(of("node --test pytest/"), Some(Framework::NodeTest));
    assert_eq!(of("node test/x.js"), None);
    assert_eq!(of("cargo +stable test --offline"), Some(Framework::Libtest));
    assert_eq!(of("cargo build"), None);
    assert_eq!(of("npm test"), None);
}

#[test]
fn pytest_is_narrowed_to_node_ids_in_place_of_its_paths() {
    assert_eq!(
        narrowed(
            "/usr/bin/python3 -m pytest -q tests -k 'not slow' --tb=short other/",
            Framework::Pytest,
            &[
                test("tests/test_x.py::test_param[a b]", None),
                test("tests/test_x.py::TestC::test_m", None),
            ]
        ),
        [
            "/usr/bin/python3",
            "-m",
            "pytest",
            "-q",
            "-k",
            "not slow",
            "--tb=short",
            "tests/test_x.py::test_param[a b]",
            "tests/test_x.py::TestC::test_m"
        ]
    );
    let skip = test("tests/test_x.py:9", None);
    assert_eq!(
        SuiteCommand::parse("pytest")
            .unwrap()
            .only(Framework::Pytest, &[&skip]),
        Err(SuiteError::NotSelectable {
            id: "tests/test_x.py:9".into()
        })
    );
}

#[test]
fn node_is_narrowed_by_anchored_escaped_title_patterns() {
    assert_eq!(
        narrowed(
            "node --test --test-name-pattern old test/",
            Framework::NodeTest,
            &[
                test("bucket > inner (a|b) > caps # here", None),
                test("adds", None),
            ]
        ),
        [
            "node",
            "--test",
            r"--test-name-pattern=^caps # here$",
            "--test-name-pattern=^adds$",
            "test/"
        ]
    );
    assert_eq!(
        narrowed("node --test", Framework::NodeTest, &[test("a.b*(c)", None)]),
        ["node", "--test", r"--test-name-pattern=^a\.b\*\(c\)$"]
    );
}

#[test]
fn cargo_is_narrowed_to_the_targets_and_exact_names() {
    assert_eq!(
        narrowed(
            "cargo test --offline filter -p bucket -- --test-threads 1 other",
            Framework::Libtest,
            &[
                test("unittests::tests::refill_is_capped", Some("src/lib.rs")),
                test("tests/bucket.rs::integration_ok", Some("tests/bucket.rs")),
            ]
        ),
        [
            "cargo",
            "test",
            "--offline",
            "-p",
            "bucket",
            "--lib",
            "--test",
            "bucket",
            "--",
            "--test-threads",
            "1",
            "--exact",
            "tests::refill_is_capped",
            "integration_ok"
        ]
    );
    // The command's own target selection gives way to the tests' (cargo refuses `--lib` twice).
    assert_eq!(
        narrowed(
            "cargo test --lib --test bucket --test=retry --all-targets",
            Framework::Libtest,
            &[test(
                "unittests::bucket::tests::clock_back",
                Some("src/lib.rs")
            )]
        ),
        [
            "cargo",
            "test",
            "--lib",
            "--",
            "--exact",
            "bucket::tests::clock_back"
        ]
    );
    // Doc tests alone: `--doc`; mixed with another target: every target, exact names.
    let doc = test("src/lib.rs - add (line 3)", Some("Doc-tests bucket"));
    assert_eq!(
        narrowed("cargo test", Framework::Libtest, std::slice::from_ref(&doc)),
        [
            "cargo",
            "test",
            "--doc",
            "--",
            "--exact",
            "src/lib.rs - add (line 3)"
        ]
    );
    assert_eq!(
        narrowed(
            "cargo test",
            Framework::Libtest,
            &[doc, test("tests/a/main.rs::t", Some("tests/a/main.rs"))]
        ),
        [
            "cargo",
            "test",
            "--",
            "--exact",
            "src/lib.rs - add (line 3)",
            "t"
        ]
    );
    assert_eq!(
        narrowed(
            "cargo test",
            Framework::Libtest,
            &[test("unittests::m::t", Some("src/main.rs"))]
        ),
        ["cargo", "test", "--bins", "--", "--exact", "m::t"]
    );
}

#[test]
fn a_command_of_another_framework_or_no_test_cannot_be_narrowed() {
    let command = SuiteCommand::parse("npm test").unwrap();
    let t = test("a", None);
    assert!(matches!(
        command.only(Framework::NodeTest, &[&t]),
        Err(SuiteError::Unsupported { .. })
    ));
    assert!(matches!(
        SuiteCommand::parse("pytest")
            .unwrap()
            .only(Framework::Libtest, &[&t]),
        Err(SuiteError::Unsupported { .. })
    ));
    assert_eq!(
        SuiteCommand::parse("pytest")
            .unwrap()
            .only(Framework::Pytest, &[]),
        Err(SuiteError::NothingSelected)
    );
}
