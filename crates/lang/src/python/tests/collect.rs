//! `functions` and `tests`: qualified names, lines and bodies; what pytest collects, with every
//! skip and expected-failure form.

use crate::{functions, tests, Lang, TestStatus};

fn statuses(source: &str) -> Vec<(String, TestStatus)> {
    tests(Lang::Python, source)
        .expect("parses")
        .into_iter()
        .map(|t| (t.name, t.status))
        .collect()
}

fn live(name: &str) -> (String, TestStatus) {
    (name.to_string(), TestStatus::Live)
}

fn skipped(name: &str, mark: &str) -> (String, TestStatus) {
    (name.to_string(), TestStatus::Skipped(mark.to_string()))
}

fn xfail(name: &str, mark: &str) -> (String, TestStatus) {
    (
        name.to_string(),
        TestStatus::ExpectedFailure(mark.to_string()),
    )
}

#[test]
fn functions_are_qualified_by_their_classes_and_functions() {
    let source = "\
class Store:
    def save(self, x):
        \"\"\"Save.\"\"\"
        self.x = x

    @staticmethod
    def make():
        def inner():
            return 1
        return inner

    class Meta:
        async def load(self): return 2


def top(): pass
";
    let fs = functions(Lang::Python, source).expect("parses");
    let names: Vec<(&str, &str, [u32; 2])> = fs
        .iter()
        .map(|f| (f.name.as_str(), f.qualified.as_str(), f.lines))
        .collect();
    assert_eq!(
        names,
        [
            ("save", "Store.save", [2, 4]),
            ("make", "Store.make", [6, 10]),
            ("inner", "Store.make.inner", [8, 9]),
            ("load", "Store.Meta.load", [13, 13]),
            ("top", "top", [16, 16]),
        ]
    );
    assert_eq!(
        &source[fs[0].body.clone()],
        "\"\"\"Save.\"\"\"\n        self.x = x"
    );
    assert_eq!(&source[fs[3].body.clone()], "return 2");
}

#[test]
fn module_functions_and_test_classes_are_collected() {
    let source = "\
def helper():
    pass

def test_a():
    assert helper() is None

async def test_async():
    assert True

class TestGroup:
    def test_b(self):
        assert 1

    def helper_c(self):
        pass

    class TestInner:
        def test_d(self):
            assert 1

class TestWithInit:
    def __init__(self):
        pass

    def test_never(self):
        assert 1

class Other:
    def test_not_collected(self):
        assert 1

class Cases(unittest.TestCase):
    def __init__(self, *a):
        super().__init__(*a)

    def test_e(self):
        self.assertEqual(1, 1)
";
    assert_eq!(
        statuses(source),
        [
            live("test_a"),
            live("test_async"),
            live("TestGroup::test_b"),
            live("TestGroup::TestInner::test_d"),
            live("Cases::test_e"),
        ]
    );
    let t = tests(Lang::Python, source).expect("parses");
    assert_eq!(t[0].lines, [4, 5]);
    assert_eq!(&source[t[0].body.clone()], "assert helper() is None");
}

#[test]
fn tests_in_comments_strings_or_shadowed_are_not_collected() {
    let source = "\
# def test_commented():
#     assert 1

DOC = \"\"\"
def test_in_string():
    assert 1
\"\"\"

def test_twice():
    assert 1

def test_twice():
    assert 2

class TestOff:
    __test__ = False

    def test_x(self):
        assert 1
";
    let t = tests(Lang::Python, source).expect("parses");
    let names: Vec<(&str, [u32; 2])> = t.iter().map(|t| (t.name.as_str(), t.lines)).collect();
    assert_eq!(names, [("test_twice", [12, 13])]);
}

#[test]
fn skip_marks_in_every_form() {
    let source = "\
import pytest
import unittest
from unittest import skipIf

@pytest.mark.skip
def test_bare():
    pass

@pytest.mark.skip(reason=\"slow\")
def test_reason():
    pass

@pytest.mark.skipif(sys.platform == \"win32\", reason=\"posix\")
def test_skipif():
    pass

@unittest.skip(\"later\")
def test_unittest_skip():
    pass

@skipIf(True, \"no\")
def test_imported_skipif():
    pass

@unittest.skipUnless(HAVE_DB, \"db\")
def test_skip_unless():
    pass

def test_imperative():
    \"\"\"Doc.\"\"\"
    pytest.skip(\"not on CI\")
    assert 1

@pytest.mark.skip(reason=\"class\")
class TestSkipped:
    def test_in_class(self):
        pass

class TestMarked:
    pytestmark = [pytest.mark.slow, pytest.mark.skipif(True, reason=\"x\")]

    def test_in_marked(self):
        pass

@pytest.mark.parametrize(\"x\", [1, 2])
def test_live(x):
    pass
";
    assert_eq!(
        statuses(source),
        [
            skipped("test_bare", "@pytest.mark.skip"),
            skipped("test_reason", "@pytest.mark.skip(reason=\"slow\")"),
            skipped(
                "test_skipif",
                "@pytest.mark.skipif(sys.platform == \"win32\", reason=\"posix\")"
            ),
            skipped("test_unittest_skip", "@unittest.skip(\"later\")"),
            skipped("test_imported_skipif", "@skipIf(True, \"no\")"),
            skipped("test_skip_unless", "@unittest.skipUnless(HAVE_DB, \"db\")"),
            skipped("test_imperative", "pytest.skip(\"not on CI\")"),
            skipped(
                "TestSkipped::test_in_class",
                "@pytest.mark.skip(reason=\"class\")"
            ),
            skipped(
                "TestMarked::test_in_marked",
                "pytest.mark.skipif(True, reason=\"x\")"
            ),
            live("test_live"),
        ]
    );
}

#[test]
fn module_pytestmark_skips_every_test() {
    let source = "\
import pytest

pytestmark = pytest.mark.skip(reason=\"wip\")

def test_a():
    pass

class TestB:
    def test_c(self):
        pass
";
    let mark = "pytest.mark.skip(reason=\"wip\")";
    assert_eq!(
        statuses(source),
        [skipped("test_a", mark), skipped("TestB::test_c", mark)]
    );
}

#[test]
fn expected_failures_and_skip_wins_over_xfail() {
    let source = "\
import pytest
import unittest

@pytest.mark.xfail
def test_bare():
    pass

@pytest.mark.xfail(reason=\"bug 12\", strict=True)
def test_reason():
    pass

class Cases(unittest.TestCase):
    @unittest.expectedFailure
    def test_known(self):
        self.assertEqual(1, 2)

    def test_later(self):
        self.skipTest(\"needs a db\")

def test_imperative_xfail():
    pytest.xfail(\"bug 13\")

@pytest.mark.xfail
@pytest.mark.skip
def test_both():
    pass

@pytest.mark.fixture_like
def helper_not_a_test():
    pass

@pytest.fixture
def test_data():
    return 1

@fixture(scope=\"module\")
def test_db():
    return 2
";
    assert_eq!(
        statuses(source),
        [
            xfail("test_bare", "@pytest.mark.xfail"),
            xfail(
                "test_reason",
                "@pytest.mark.xfail(reason=\"bug 12\", strict=True)"
            ),
            xfail("Cases::test_known", "@unittest.expectedFailure"),
            skipped("Cases::test_later", "self.skipTest(\"needs a db\")"),
            xfail("test_imperative_xfail", "pytest.xfail(\"bug 13\")"),
            skipped("test_both", "@pytest.mark.skip"),
        ]
    );
}
