//! The test operators on snippets: the exact mutant of each, and where each must not apply
//! (code that is not a test, tests already skipped or expected to fail).

use super::{mutated, muts, only, sites};
use crate::Operator::*;

const TESTS: &str = "\
import pytest


def helper(x):
    assert x


def test_cancel():
    \"\"\"Cancelling works.\"\"\"
    result = cancel(\"s1\")
    assert result.ok
    assert result.events == []
    with pytest.raises(Forbidden) as info:
        cancel(\"s2\")
        log(\"after\")
    assert info.value.code == 403


@pytest.mark.skip(reason=\"wip\")
def test_skipped():
    assert False
";

/// Code that is not a test: test operators find nothing in it.
const CODE: &str = "\
def cancel(sub):
    assert sub is not None
    return sub.cancel()


def check_cancel():
    assert cancel(1) == 2
";

#[test]
fn test_operators_skip_code_and_tests_that_do_not_run() {
    for op in crate::Operator::all().filter(|o| o.family() == crate::OperatorFamily::Test) {
        assert_eq!(muts(CODE, op), [], "{op:?}");
        assert!(
            muts(TESTS, op).iter().all(|m| m.function == "test_cancel"),
            "{op:?}"
        );
    }
}

#[test]
fn drop_assertion_each_assert_and_the_raises_block() {
    let all = mutated(TESTS, DropAssertion);
    assert_eq!(
        all,
        [
            TESTS.replace("    assert result.ok\n", ""),
            TESTS.replace("    assert result.events == []\n", ""),
            TESTS.replace(
                "    with pytest.raises(Forbidden) as info:\n        cancel(\"s2\")\n        log(\"after\")\n",
                "    cancel(\"s2\")\n    log(\"after\")\n"
            ),
            TESTS.replace("    assert info.value.code == 403\n", ""),
        ]
    );
    let m = &muts(TESTS, DropAssertion);
    assert_eq!(
        m.iter().map(|m| m.lines).collect::<Vec<_>>(),
        [[11, 11], [12, 12], [13, 15], [16, 16]]
    );
    assert_eq!(
        m[2].description,
        "`test_cancel`: the check `with pytest.raises(Forbidden) as info` removed, its body kept"
    );
    assert_eq!(sites(TESTS, DropAssertion)[1], "test-cancel-2");
}

#[test]
fn drop_assertion_raises_block_with_a_string_spanning_lines_is_wrapped() {
    let source = "\
def test_parse():
    with pytest.raises(ValueError):
        parse(\"\"\"
a = 1
\"\"\")
";
    assert_eq!(
        only(source, DropAssertion),
        source.replace("with pytest.raises(ValueError):", "if True:")
    );
    let one_line = "def test_parse():\n    with pytest.raises(ValueError): parse(\"x\")\n";
    assert_eq!(
        only(one_line, DropAssertion),
        "def test_parse():\n    parse(\"x\")\n"
    );
}

#[test]
fn drop_assertion_leaves_pass_and_covers_unittest_calls() {
    let source = "\
import unittest

class Cases(unittest.TestCase):
    def test_a(self):
        for x in xs:
            assert x
        self.assertEqual(f(), 1)
";
    assert_eq!(
        mutated(source, DropAssertion),
        [
            source.replace("            assert x\n", "            pass\n"),
            source.replace("        self.assertEqual(f(), 1)\n", ""),
        ]
    );
}

#[test]
fn trivial_assertion_replaces_asserts_not_raises() {
    assert_eq!(
        mutated(TESTS, TrivialAssertion),
        [
            TESTS.replace("assert result.ok\n", "assert True\n"),
            TESTS.replace("assert result.events == []", "assert True"),
            TESTS.replace("assert info.value.code == 403", "assert True"),
        ]
    );
    let source = "\
class TestX:
    def test_a(self):
        assert True
        self.assertIn(1, xs)
";
    assert_eq!(
        only(source, TrivialAssertion),
        source.replace("self.assertIn(1, xs)", "self.assertTrue(True)")
    );
}

#[test]
fn skip_test_marks_above_the_decorators_and_imports_pytest() {
    let source = "\
\"\"\"Tests.\"\"\"
import os
from app import run

x = 1


@fixture_user
def test_run():
    assert run()
";
    assert_eq!(
        only(source, SkipTest),
        "\
\"\"\"Tests.\"\"\"
import os
from app import run
import pytest

x = 1


@pytest.mark.skip(reason=\"needs fixture rework\")
@fixture_user
def test_run():
    assert run()
"
    );
    let m = &muts(source, SkipTest)[0];
    assert_eq!(m.lines, [8, 8]);
    assert_eq!(
        m.description,
        "`test_run` marked `@pytest.mark.skip(reason=\"needs fixture rework\")`"
    );
}

#[test]
fn expect_failure_marks_methods_at_their_indentation() {
    let source = "\
import pytest

class TestRun:
    def test_run(self):
        assert run()
";
    assert_eq!(
        only(source, ExpectFailure),
        source.replace(
            "    def test_run",
            "    @pytest.mark.xfail(reason=\"flaky on CI\")\n    def test_run"
        )
    );
    let no_imports = "def test_run():\n    assert run()\n";
    assert_eq!(
        only(no_imports, ExpectFailure),
        "import pytest\n@pytest.mark.xfail(reason=\"known issue, fix pending\")\ndef test_run():\n    assert run()\n"
    );
}

#[test]
fn comment_out_test_comments_every_line_at_its_indentation() {
    let source = "\
class TestRun:
    @pytest.mark.parametrize(\"x\", [1])
    def test_run(self, x):
        if x:

            assert run(x)
";
    assert_eq!(
        only(source, CommentOutTest),
        "\
class TestRun:
    # @pytest.mark.parametrize(\"x\", [1])
    # def test_run(self, x):
        # if x:

            # assert run(x)
    pass
"
    );
    let m = &muts(source, CommentOutTest)[0];
    assert_eq!(m.lines, [2, 6]);
}

#[test]
fn empty_test_body_keeps_the_docstring() {
    assert_eq!(
        only(TESTS, EmptyTestBody),
        TESTS.replace(
            "    result = cancel(\"s1\")\n    assert result.ok\n    assert result.events == []\n    with pytest.raises(Forbidden) as info:\n        cancel(\"s2\")\n        log(\"after\")\n    assert info.value.code == 403\n",
            "    pass\n"
        )
    );
    assert_eq!(muts("def test_x():\n    pass\n", EmptyTestBody), []);
}

#[test]
fn drop_negative_assertions_deletes_every_negative_keeps_positives() {
    let source = "\
def test_mixed():
    assert not failed
    assert x is None
    assert a not in b
    assert a != b
    assert out == []
    assert len(out) == 0
    assert msg == \"\"
    assert seen == set()
    assert not any(e.bad for e in events)
    assert x is not None
    assert out == [1]
";
    assert_eq!(
        only(source, DropNegativeAssertions),
        "\
def test_mixed():
    assert x is not None
    assert out == [1]
"
    );
}

#[test]
fn drop_negative_assertions_needs_both_kinds() {
    let only_negative = "def test_a():\n    assert not x\n    assert y == []\n";
    let only_positive = "def test_b():\n    assert x\n    assert y == [1]\n";
    assert_eq!(muts(only_negative, DropNegativeAssertions), []);
    assert_eq!(muts(only_positive, DropNegativeAssertions), []);
    let unittest = "\
class Cases(unittest.TestCase):
    def test_c(self):
        self.assertFalse(x)
        self.assertIsNone(y)
        self.assertNotIn(1, z)
        self.assertNotEqual(a, b)
        self.assertEqual(w, [])
        self.assertEqual(v, 3)
";
    assert_eq!(
        only(unittest, DropNegativeAssertions),
        "\
class Cases(unittest.TestCase):
    def test_c(self):
        self.assertEqual(v, 3)
"
    );
}

#[test]
fn raises_in_unittest_and_call_forms() {
    let source = "\
class Cases(unittest.TestCase):
    def test_a(self):
        with self.assertRaises(KeyError):
            lookup(\"x\")
        pytest.raises(ValueError, parse, \"y\")
        self.assertEqual(size(), 2)
";
    assert_eq!(
        mutated(source, DropAssertion),
        [
            source.replace(
                "        with self.assertRaises(KeyError):\n            lookup(\"x\")\n",
                "        lookup(\"x\")\n"
            ),
            source.replace("        pytest.raises(ValueError, parse, \"y\")\n", ""),
            source.replace("        self.assertEqual(size(), 2)\n", ""),
        ]
    );
    assert_eq!(
        only(source, TrivialAssertion),
        source.replace("self.assertEqual(size(), 2)", "self.assertTrue(True)")
    );
}
