//! `functions` and `tests`: qualified names, lines, bodies, what libtest collects and its status.

use crate::{Lang, TestStatus};

const ITEMS: &str = r#"/// Doc.
#[must_use]
pub fn top(a: u32) -> u32 {
    fn helper() {}
    a + 1
}

pub struct Bucket<C> { c: C }

impl<C: Clock> Bucket<C> {
    pub fn try_take(&mut self) -> bool { true }
}

impl fmt::Display for Bucket<u8> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { Ok(()) }
}

trait Clock {
    fn now(&self) -> u64;
    fn twice(&self) -> u64 { self.now() * 2 }
}

mod inner {
    fn deep() {}
}
"#;

#[test]
fn functions_are_qualified_by_modules_impl_types_and_traits() {
    let fns = crate::functions(Lang::Rust, ITEMS).unwrap();
    let names: Vec<(&str, &str)> = fns
        .iter()
        .map(|f| (f.name.as_str(), f.qualified.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("top", "top"),
            ("helper", "top::helper"),
            ("try_take", "Bucket::try_take"),
            ("fmt", "Bucket::fmt"),
            ("twice", "Clock::twice"),
            ("deep", "inner::deep"),
        ]
    );
    // Lines from the first attribute (the doc comment is not one) to the closing brace.
    assert_eq!(fns[0].lines, [2, 6]);
    assert_eq!(&ITEMS[fns[0].body.clone()], "fn helper() {}\n    a + 1");
    assert_eq!(&ITEMS[fns[1].body.clone()], "");
    assert_eq!(&ITEMS[fns[2].body.clone()], "true");
}

const TESTS: &str = r##"
#[test]
fn top_level() { assert!(true); }

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn live() {}

    #[test]
    #[ignore]
    fn skipped() {}

    #[test]
    #[ignore = "slow"]
    fn skipped_why() {}

    #[test]
    #[should_panic(expected = "boom")]
    fn panics() { panic!("boom") }

    #[tokio::test]
    async fn on_tokio() {}

    #[rstest]
    fn with_cases() {}

    fn helper_is_no_test() {}

    // #[test]
    // fn commented_out() {}

    const NAME: &str = "#[test] fn in_a_string() {}";

    mod nested {
        #[test]
        fn deep() {}
    }

    #[cfg(any())]
    mod never {
        #[test]
        fn not_compiled() {}
    }

    #[cfg(any())]
    #[test]
    fn not_compiled_either() {}

    struct S;
    impl S {
        fn method_is_no_test() {}
    }

    #[test]
    fn outer() {
        #[test]
        fn inner_items_are_not_collected() {}
    }
}
"##;

#[test]
fn tests_are_what_libtest_collects_with_their_status() {
    let tests = crate::tests(Lang::Rust, TESTS).unwrap();
    let got: Vec<(&str, TestStatus)> = tests
        .iter()
        .map(|t| (t.name.as_str(), t.status.clone()))
        .collect();
    assert_eq!(
        got,
        [
            ("top_level", TestStatus::Live),
            ("tests::live", TestStatus::Live),
            ("tests::skipped", TestStatus::Skipped("#[ignore]".into())),
            (
                "tests::skipped_why",
                TestStatus::Skipped("#[ignore = \"slow\"]".into())
            ),
            ("tests::panics", TestStatus::Live),
            ("tests::on_tokio", TestStatus::Live),
            ("tests::with_cases", TestStatus::Live),
            ("tests::nested::deep", TestStatus::Live),
            ("tests::outer", TestStatus::Live),
        ]
    );
    assert_eq!(tests[0].lines, [2, 3]);
    assert_eq!(&TESTS[tests[0].body.clone()], "assert!(true);");
    assert_eq!(tests[2].lines, [12, 14]);
}

#[test]
fn functions_include_test_helpers_and_nested_items() {
    let fns = crate::functions(Lang::Rust, TESTS).unwrap();
    let qualified: Vec<&str> = fns.iter().map(|f| f.qualified.as_str()).collect();
    assert!(qualified.contains(&"tests::helper_is_no_test"));
    assert!(qualified.contains(&"tests::S::method_is_no_test"));
    assert!(qualified.contains(&"tests::outer::inner_items_are_not_collected"));
    assert!(!qualified.iter().any(|q| q.contains("commented_out")));
    assert!(!qualified.iter().any(|q| q.contains("in_a_string")));
}

#[test]
fn odd_input_gives_empty_answers_not_panics() {
    assert_eq!(crate::tests(Lang::Rust, "").unwrap(), []);
    assert_eq!(crate::functions(Lang::Rust, "fn (").unwrap(), []);
    assert_eq!(crate::tests(Lang::Rust, "#[test] fn").unwrap(), []);
}
