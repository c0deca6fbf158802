//! The test operators: one case where each applies (the exact mutant) and cases where it must
//! not (code outside tests, a test that does not run, a test without such a site).

use super::{mutated, only, sites};
use crate::Operator;

/// A helper that asserts (not a test), a live test, and tests that do not run.
const TESTS: &str = r#"import assert from 'node:assert';
import { test } from 'node:test';

function expectSum(r) {
  assert.ok(r);
}

test('adds', () => {
  const r = add(1, 2);
  assert.equal(r, 3);
  assert.notEqual(r, 0);
});

test.skip('skipped', () => {
  assert.equal(1, 1);
});

test('later', { todo: true }, () => {
  assert.equal(2, 2);
});
"#;

#[test]
fn test_operators_apply_only_to_tests_that_run() {
    for op in Operator::all().filter(|o| o.family() == crate::OperatorFamily::Test) {
        for m in sites(TESTS, op) {
            assert_eq!(m.function, "adds", "{op:?}: {m:?}");
            assert!(m.lines[0] >= 8 && m.lines[1] <= 12, "{op:?}: {m:?}");
        }
    }
    let code = "function f(r) {\n  assert.equal(r, 3);\n  assert.notEqual(r, 0);\n}\n";
    for op in Operator::all().filter(|o| o.family() == crate::OperatorFamily::Test) {
        assert_eq!(sites(code, op), [], "{op:?}");
    }
}

#[test]
fn drop_assertion_deletes_each_assertion_statement() {
    let got = mutated(TESTS, Operator::DropAssertion);
    assert_eq!(
        got,
        [
            TESTS.replace("  assert.equal(r, 3);\n", ""),
            TESTS.replace("  assert.notEqual(r, 0);\n", ""),
        ]
    );
    let ms = sites(TESTS, Operator::DropAssertion);
    assert_eq!(
        (ms[0].site.as_str(), ms[1].site.as_str()),
        ("adds", "adds-2")
    );
    assert_eq!(ms[0].lines, [10, 10]);
    assert_eq!(
        ms[0].description,
        "`adds`: the assertion `assert.equal(r, 3);` deleted"
    );
}

#[test]
fn nested_and_awaited_assertions_are_sites() {
    let src = "test('t', async () => {\n  for (const x of xs) assert.ok(x);\n  await assert.rejects(run(), Error);\n  assert.throws(() => f(), (e) => {\n    assert.equal(e.code, 1);\n    return true;\n  });\n});\n";
    assert_eq!(
        mutated(src, Operator::DropAssertion),
        [
            src.replace("for (const x of xs) assert.ok(x);", "for (const x of xs) {}"),
            src.replace("  await assert.rejects(run(), Error);\n", ""),
            src.replace(
                "  assert.throws(() => f(), (e) => {\n    assert.equal(e.code, 1);\n    return true;\n  });\n",
                ""
            ),
            src.replace("    assert.equal(e.code, 1);\n", ""),
        ]
    );
}

#[test]
fn trivial_assertion_uses_the_tests_own_library() {
    let src = "test('t', (t) => {\n  expect(f()).toBe(2);\n  t.assert.equal(f(), 2);\n  assert(f());\n  assert.ok(true);\n});\n";
    assert_eq!(
        mutated(src, Operator::TrivialAssertion),
        [
            src.replace("expect(f()).toBe(2);", "expect(true).toBe(true);"),
            src.replace("t.assert.equal(f(), 2);", "t.assert.ok(true);"),
            src.replace("assert(f());", "assert.ok(true);"),
        ]
    );
}

#[test]
fn skip_test_marks_the_call_or_adds_options() {
    let src = "test('adds', () => {\n  check();\n});\ntest('subtracts', () => {\n  check();\n});\ntest('divides', { timeout: 5 }, () => {\n  check();\n});\ndescribe('outer', () => {\n  it('inner', () => {});\n  it.only('multiplies', () => {});\n});\n";
    assert_eq!(
        mutated(src, Operator::SkipTest),
        [
            src.replace("test('adds'", "test.skip('adds'"),
            src.replace("test('subtracts'", "test('subtracts', { skip: 'flaky' }"),
            src.replace("test('divides'", "test.skip('divides'"),
            src.replace("it('inner'", "it('inner', { skip: 'flaky' }"),
            src.replace("it.only('multiplies'", "it.skip('multiplies'"),
        ]
    );
    let ms = sites(src, Operator::SkipTest);
    assert_eq!(ms[3].function, "outer > inner");
    assert_eq!(ms[3].site, "outer-inner");
    assert_eq!(ms[0].description, "`adds`: marked skipped (`test.skip`)");
}

#[test]
fn expect_failure_marks_the_test_todo() {
    let src = "test('adds', () => {\n  check();\n});\nit.only('focused', () => {});\ntest.skip('off', () => {});\n";
    assert_eq!(
        mutated(src, Operator::ExpectFailure),
        [
            src.replace("test('adds'", "test.todo('adds'"),
            src.replace("it.only(", "it.todo("),
        ]
    );
}

#[test]
fn comment_out_test_comments_every_line_of_the_call() {
    let src = "describe('d', () => {\n  it('inner', () => {\n    check();\n\n  });\n});\nfoo(); test('shares its line', () => {});\n";
    let (m, text) = only(src, Operator::CommentOutTest);
    assert_eq!(
        text,
        "describe('d', () => {\n  // it('inner', () => {\n  //   check();\n\n  // });\n});\nfoo(); test('shares its line', () => {});\n"
    );
    assert_eq!(m.lines, [2, 5]);
    assert_eq!(
        crate::tests(crate::Lang::JavaScript, &text)
            .map(|t| t.len())
            .ok(),
        Some(1)
    );
}

#[test]
fn drop_negative_assertions_keeps_the_positive_ones() {
    let src = r#"test('all forms', () => {
  assert.equal(f(), 1);
  assert.notEqual(a, b);
  assert.notStrictEqual(a, b);
  assert.notDeepEqual(a, b);
  assert.notDeepStrictEqual(a, b);
  assert.doesNotThrow(() => g());
  await assert.doesNotReject(p);
  assert.doesNotMatch(s, /x/);
  assert.ok(!found);
  assert(!found);
  assert.equal(n, 0);
  assert.strictEqual(v, null);
  assert.equal(v, undefined);
  assert.strictEqual(flag, false);
  assert.equal(s, '');
  assert.deepEqual(list, []);
  assert.deepStrictEqual(map, {});
  assert.strictEqual(items.length, 0);
  expect(x).not.toBe(1);
  assert.throws(() => g(), TypeError);
});
test('only negatives', () => {
  assert.equal(n, 0);
});
test('only positives', () => {
  assert.equal(n, 1);
});
"#;
    let (m, text) = only(src, Operator::DropNegativeAssertions);
    assert_eq!(
        text,
        "test('all forms', () => {\n  assert.equal(f(), 1);\n  assert.throws(() => g(), TypeError);\n});\ntest('only negatives', () => {\n  assert.equal(n, 0);\n});\ntest('only positives', () => {\n  assert.equal(n, 1);\n});\n"
    );
    assert_eq!(m.lines, [3, 20]);
    assert!(m.description.starts_with(
        "`all forms`: its 18 negative assertion(s) deleted: `assert.notEqual(a, b);`"
    ));
}

#[test]
fn empty_test_body_empties_the_callback() {
    let src = "test('adds', async (t) => {\n  check();\n});\ntest('empty', () => {});\ntest('expr', () => check());\n";
    assert_eq!(
        mutated(src, Operator::EmptyTestBody),
        [
            src.replace("{\n  check();\n}", "{}"),
            src.replace("() => check()", "() => {}"),
        ]
    );
}

#[test]
fn assertions_imported_by_name_or_under_another_name_are_recognized() {
    let src = r#"import { equal, notEqual as ne, ok } from 'node:assert/strict';
import a from 'node:assert';
const { deepStrictEqual: same } = require('assert');
test('named', () => {
  equal(f(), 1);
  ne(f(), 2);
  a.equal(g(), 3);
  same(h(), []);
  ok(!x);
  other(1);
});
"#;
    assert_eq!(sites(src, Operator::DropAssertion).len(), 5);
    let (_, text) = only(src, Operator::DropNegativeAssertions);
    assert_eq!(
        text,
        src.replace("  ne(f(), 2);\n", "")
            .replace("  same(h(), []);\n", "")
            .replace("  ok(!x);\n", "")
    );
    assert_eq!(
        mutated(src, Operator::TrivialAssertion),
        [
            src.replace("equal(f(), 1);", "ok(true);"),
            src.replace("ne(f(), 2);", "ok(true);"),
            src.replace("a.equal(g(), 3);", "a.ok(true);"),
            src.replace("same(h(), []);", "ok(true);"),
            src.replace("ok(!x);", "ok(true);"),
        ]
    );
    let src = "import { strictEqual } from 'node:assert';\ntest('t', () => {\n  strictEqual(f(), 1);\n});\n";
    assert_eq!(
        mutated(src, Operator::TrivialAssertion),
        [src.replace("strictEqual(f(), 1);", "strictEqual(true, true);")]
    );
}
