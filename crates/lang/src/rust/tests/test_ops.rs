//! The test operators: each one's exact edit on a snippet, and the code it must leave alone
//! (functions that are no tests, skipped tests).

use super::{after, sites};
use crate::Operator::*;

const TESTS: &str = r#"pub fn code(a: u8) -> bool {
    assert!(a > 0);
    a > 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn helper() {
        assert_eq!(1, 1);
    }

    #[test]
    fn admits_then_refuses() {
        let mut v = Vec::new();
        assert!(v.is_empty());
        v.push(1);
        assert_eq!(v.len(), 1);
        assert_ne!(v[0], 2);
        assert!(!code(0));
    }

    #[test]
    #[should_panic(expected = "zero")]
    fn zero_panics() {
        code(0);
    }

    #[test]
    #[ignore]
    fn skipped() {
        assert!(code(2));
    }
}
"#;

#[test]
fn drop_assertion_deletes_each_assertion_and_the_should_panic_mark() {
    let ms = sites(TESTS, DropAssertion);
    let got: Vec<(&str, &str)> = ms
        .iter()
        .map(|m| (m.site.as_str(), m.description.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (
                "tests-admits-then-refuses",
                "`tests::admits_then_refuses`: the assertion `assert!(v.is_empty());` deleted"
            ),
            (
                "tests-admits-then-refuses-2",
                "`tests::admits_then_refuses`: the assertion `assert_eq!(v.len(), 1);` deleted"
            ),
            (
                "tests-admits-then-refuses-3",
                "`tests::admits_then_refuses`: the assertion `assert_ne!(v[0], 2);` deleted"
            ),
            (
                "tests-admits-then-refuses-4",
                "`tests::admits_then_refuses`: the assertion `assert!(!code(0));` deleted"
            ),
            (
                "tests-zero-panics",
                "`tests::zero_panics`: the `#[should_panic(expected = \"zero\")]` mark deleted"
            ),
        ]
    );
    assert_eq!(ms[1].function, "tests::admits_then_refuses");
    assert_eq!(ms[1].lines, [19, 19]);
    assert_eq!(
        after(TESTS, &ms[1]),
        TESTS.replacen("        assert_eq!(v.len(), 1);\n", "", 1)
    );
    assert_eq!(
        after(TESTS, &ms[4]),
        TESTS.replacen("    #[should_panic(expected = \"zero\")]\n", "", 1)
    );
}

#[test]
fn trivial_assertion_replaces_one_assertion_by_assert_true() {
    let ms = sites(TESTS, TrivialAssertion);
    assert_eq!(ms.len(), 4, "not in `code`, `helper`, or the skipped test");
    assert_eq!(
        after(TESTS, &ms[3]),
        TESTS.replacen("assert!(!code(0));", "assert!(true);", 1)
    );
    let tail = "#[test]\nfn t() {\n    assert!(ok())\n}\n";
    let ms = sites(tail, TrivialAssertion);
    assert_eq!(after(tail, &ms[0]), tail.replacen("ok()", "true", 1));
}

#[test]
fn skip_test_marks_live_tests_ignored_above_their_test_attribute() {
    let ms = sites(TESTS, SkipTest);
    let fns: Vec<&str> = ms.iter().map(|m| m.function.as_str()).collect();
    assert_eq!(fns, ["tests::admits_then_refuses", "tests::zero_panics"]);
    let mark = |name: &str| {
        ["#[ignore]", "#[ignore = \"flaky\"]"][name.bytes().map(usize::from).sum::<usize>() % 2]
    };
    assert_eq!(
        after(TESTS, &ms[0]),
        TESTS.replacen(
            "    #[test]\n    fn admits",
            &format!(
                "    {}\n    #[test]\n    fn admits",
                mark("tests::admits_then_refuses")
            ),
            1
        )
    );
    assert_eq!(ms[0].lines, [14, 14]);
    let skipped = crate::tests(crate::Lang::Rust, &after(TESTS, &ms[1])).unwrap();
    assert!(matches!(skipped[1].status, crate::TestStatus::Skipped(_)));
}

#[test]
fn expect_failure_has_no_sites_in_libtest() {
    assert_eq!(sites(TESTS, ExpectFailure), []);
}

#[test]
fn comment_out_test_comments_every_line_with_its_attributes() {
    let ms = sites(TESTS, CommentOutTest);
    assert_eq!(ms.len(), 2);
    assert_eq!(
        after(TESTS, &ms[1]),
        TESTS.replacen(
            "    #[test]\n    #[should_panic(expected = \"zero\")]\n    fn zero_panics() {\n        code(0);\n    }\n",
            "    // #[test]\n    // #[should_panic(expected = \"zero\")]\n    // fn zero_panics() {\n    //     code(0);\n    // }\n",
            1
        )
    );
    assert_eq!(ms[1].lines, [24, 28]);
    let documented = "mod tests {\n    /// Says why.\n    #[test]\n    fn t() {}\n}\n";
    let doc = sites(documented, CommentOutTest);
    assert_eq!(
        after(documented, &doc[0]),
        "mod tests {\n    // /// Says why.\n    // #[test]\n    // fn t() {}\n}\n"
    );
    let left: Vec<String> = crate::tests(crate::Lang::Rust, &after(TESTS, &ms[1]))
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(left, ["tests::admits_then_refuses", "tests::skipped"]);
}

#[test]
fn drop_negative_assertions_keeps_the_positive_ones() {
    let ms = sites(TESTS, DropNegativeAssertions);
    assert_eq!(ms.len(), 1);
    assert_eq!(
        after(TESTS, &ms[0]),
        TESTS
            .replacen("        assert!(v.is_empty());\n", "", 1)
            .replacen("        assert_ne!(v[0], 2);\n", "", 1)
            .replacen("        assert!(!code(0));\n", "", 1)
    );
    // Only negative, only positive, or an expected error: no site.
    let src = "#[test]\nfn a() { assert_eq!(n(), 0); assert!(x.is_none()); }\n#[test]\nfn b() { assert!(r.is_err()); assert_eq!(n(), 3); }\n#[test]\nfn c() { assert_eq!(v, vec![]); assert_eq!(s, \"\"); assert_eq!(f, false); assert_eq!(k, 0u32); assert!(p != q); assert!(x.is_some()); }\n";
    let ms = sites(src, DropNegativeAssertions);
    assert_eq!(ms.len(), 1);
    assert_eq!(ms[0].function, "c");
    assert_eq!(
        after(src, &ms[0]),
        src.replacen(
            "assert_eq!(v, vec![]); assert_eq!(s, \"\"); assert_eq!(f, false); assert_eq!(k, 0u32); assert!(p != q); ",
            "",
            1
        )
    );
}

#[test]
fn empty_test_body_leaves_braces() {
    let ms = sites(TESTS, EmptyTestBody);
    assert_eq!(ms.len(), 2);
    assert_eq!(
        after(TESTS, &ms[1]),
        TESTS.replacen(
            "fn zero_panics() {\n        code(0);\n    }",
            "fn zero_panics() {}",
            1
        )
    );
    assert_eq!(sites("#[test]\nfn t() {}\n", EmptyTestBody), []);
}

#[test]
fn test_operators_leave_code_alone() {
    let code = "fn f() { assert!(g()); assert!(!h()); }\n";
    for op in crate::Operator::all().filter(|o| o.family() == crate::OperatorFamily::Test) {
        assert_eq!(sites(code, op), [], "{op:?}");
    }
}
