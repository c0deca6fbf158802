//! A smoke test over a golden's real files (fixtures/envload-apply: head/src/apply.js and
//! head/test/apply.test.js, read at compile time): the sites of every operator and a few exact
//! mutants.

use super::{mutated, sites};
use crate::{apply, Lang, Operator, TestStatus};

const APPLY_JS: &str = include_str!("../../../../../fixtures/envload-apply/head/src/apply.js");

const APPLY_TEST_JS: &str =
    include_str!("../../../../../fixtures/envload-apply/head/test/apply.test.js");

/// The number of sites of every operator in `src`, by operator name.
fn counts(src: &str) -> Vec<(&'static str, usize)> {
    Operator::all()
        .map(|op| (op.as_str(), sites(src, op).len()))
        .filter(|(_, n)| *n > 0)
        .collect()
}

#[test]
fn the_golden_source_has_its_code_sites() {
    assert_eq!(
        counts(APPLY_JS),
        [
            ("stub-raise", 1),
            ("stub-default", 1),
            ("drop-guard", 1),
            ("drop-error-branch", 1),
            ("flip-comparison", 1),
            ("swap-call-args", 2),
            ("drop-side-effect", 4),
            ("return-early", 1),
        ]
    );
    let fns = crate::functions(Lang::JavaScript, APPLY_JS).expect("parses");
    assert_eq!(fns.len(), 1);
    assert_eq!(
        (fns[0].qualified.as_str(), fns[0].lines),
        ("apply", [7, 28])
    );
    assert_eq!(
        crate::tests(Lang::JavaScript, APPLY_JS).expect("parses"),
        []
    );

    let rollback = "    for (const [key, existed, previous] of written.reverse()) {\n      if (existed) env[key] = previous;\n      else delete env[key];\n    }\n";
    assert_eq!(
        mutated(APPLY_JS, Operator::DropErrorBranch),
        [APPLY_JS.replace(rollback, "")]
    );
    assert_eq!(
        mutated(APPLY_JS, Operator::DropGuard),
        [APPLY_JS.replace(
            "    if (Object.hasOwn(env, key) && !override) return false;\n",
            ""
        )]
    );
    let effects = sites(APPLY_JS, Operator::DropSideEffect);
    assert_eq!(
        apply(APPLY_JS, &effects[2].edits),
        APPLY_JS.replace("if (existed) env[key] = previous;", "if (existed) {}")
    );
    assert_eq!(effects[2].lines, [22, 22]);
    let stub = sites(APPLY_JS, Operator::StubDefault);
    assert_eq!(
        stub[0].description,
        "`apply`: body replaced by `return [];`"
    );
    assert_eq!(stub[0].lines, [8, 27]);

    // The try statement of an obligation's code ref (lines 14-26), neutralized.
    let m = crate::neutralize(Lang::JavaScript, APPLY_JS, [14, 26])
        .expect("parses")
        .expect("a statement is covered");
    assert_eq!(m.operator, Operator::DropSideEffect);
    assert_eq!(m.lines, [14, 26]);
    let text = apply(APPLY_JS, &m.edits);
    assert!(
        text.contains("  const written = [];\n  return changes;\n}\n"),
        "{text}"
    );
}

#[test]
fn the_golden_tests_have_their_test_sites() {
    let tests = crate::tests(Lang::JavaScript, APPLY_TEST_JS).expect("parses");
    assert_eq!(tests.len(), 5);
    assert!(tests.iter().all(|t| t.status == TestStatus::Live));
    assert_eq!(
        tests[2].name,
        "a failed write rolls back the keys already set"
    );
    assert_eq!(tests[2].lines, [18, 24]);
    assert_eq!(
        counts(APPLY_TEST_JS),
        [
            ("drop-assertion", 15),
            ("trivial-assertion", 15),
            ("skip-test", 5),
            ("expect-failure", 5),
            ("comment-out-test", 5),
            ("drop-negative-assertions", 3),
            ("empty-test-body", 5),
        ]
    );
    let negatives = sites(APPLY_TEST_JS, Operator::DropNegativeAssertions);
    assert_eq!(
        negatives[1].function,
        "applying the same text twice changes nothing the second time"
    );
    assert_eq!(negatives[1].lines, [31, 32]);
    assert_eq!(
        apply(APPLY_TEST_JS, &negatives[1].edits),
        APPLY_TEST_JS.replace(
            "  assert.deepEqual(apply(text, env), []);\n  assert.deepEqual(apply(text, env, { override: true }), []);\n",
            ""
        )
    );
    let skipped = mutated(APPLY_TEST_JS, Operator::SkipTest);
    assert_eq!(
        skipped[1],
        APPLY_TEST_JS.replace(
            "test('a syntax error leaves the environment untouched',",
            "test('a syntax error leaves the environment untouched', { skip: 'flaky' },"
        )
    );
    let after = crate::tests(Lang::JavaScript, &skipped[1]).expect("parses");
    assert_eq!(after[1].status, TestStatus::Skipped("skip: 'flaky'".into()));
}
