//! The mutation operators over code and tests (docs/MUTATION.md), and one mutation: an operator
//! applied at one site of one file.

use crate::edit::Edit;

/// What an operator changes: the code under test, or the tests that verify it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, strum::IntoStaticStr)]
#[strum(serialize_all = "kebab-case")]
pub enum OperatorFamily {
    Code,
    Test,
}

/// One mutation operator. Names are stable: they are part of every mutant id.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    strum::IntoStaticStr,
    strum::EnumIter,
    strum::EnumString,
)]
#[strum(serialize_all = "kebab-case")]
pub enum Operator {
    /// A function's body replaced by the language's not-implemented failure: Python
    /// `raise NotImplementedError(...)`, JavaScript `throw new Error("not implemented")`, Rust
    /// `todo!()` / `unimplemented!()` (the form varies by site, as agents write them).
    StubRaise,
    /// A function's body replaced by a quiet default: Python `pass` / `return None` / `...`,
    /// JavaScript `return undefined;` / `return {};` / `return [];`, Rust `Default::default()`
    /// (only where the return type is known to have one) or `()`.
    StubDefault,
    /// A guard deleted: an `if` whose body only raises, throws, panics or returns early.
    DropGuard,
    /// An error or rollback branch emptied: the body of `except` / `catch` / an `Err(..)` arm
    /// reduced to re-raising (or to nothing where it did not re-raise), so the cleanup is skipped.
    DropErrorBranch,
    /// A comparison reversed: `==` and `!=`, `<` and `>=`, `>` and `<=`, `is` and `is not`,
    /// `in` and `not in`.
    FlipComparison,
    /// A boundary shifted by one: `<` and `<=`, `>` and `>=`.
    ShiftBoundary,
    /// The first two values of a returned tuple or array swapped.
    SwapReturnValues,
    /// The first two positional arguments of a call swapped (both simple expressions, not equal).
    SwapCallArgs,
    /// A statement that is only a call (an event published, an audit line, a write) deleted.
    DropSideEffect,
    /// A return inserted before a function's last statement, so the work after it never happens.
    ReturnEarly,
    /// One assertion of a test deleted.
    DropAssertion,
    /// One assertion of a test replaced by one that always holds (`assert True`,
    /// `assert.ok(true)`, `assert!(true)`).
    TrivialAssertion,
    /// A test marked skipped in its framework's own way (`@pytest.mark.skip`, `test.skip` /
    /// `{ skip: true }`, `#[ignore]`).
    SkipTest,
    /// A test marked expected to fail or to-do (`@pytest.mark.xfail`, `test.todo` /
    /// `{ todo: true }`); libtest has no such mark, so no Rust sites.
    ExpectFailure,
    /// A whole test commented out, its name still in the file.
    CommentOutTest,
    /// Every negative assertion of a test deleted (that something did not happen, is absent,
    /// raised, is empty or unchanged), its positive ones kept.
    DropNegativeAssertions,
    /// A test's body emptied (`pass`, `{}`).
    EmptyTestBody,
}

impl Operator {
    /// The operator's stable name.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    pub fn family(self) -> OperatorFamily {
        use Operator::*;
        match self {
            StubRaise | StubDefault | DropGuard | DropErrorBranch | FlipComparison
            | ShiftBoundary | SwapReturnValues | SwapCallArgs | DropSideEffect | ReturnEarly => {
                OperatorFamily::Code
            }
            DropAssertion
            | TrivialAssertion
            | SkipTest
            | ExpectFailure
            | CommentOutTest
            | DropNegativeAssertions
            | EmptyTestBody => OperatorFamily::Test,
        }
    }

    /// Every operator, in declaration order.
    pub fn all() -> impl Iterator<Item = Operator> {
        <Operator as strum::IntoEnumIterator>::iter()
    }
}

/// One operator applied at one site of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mutation {
    pub operator: Operator,
    /// Unique within (file, operator): the enclosing function's or test's name and, where it has
    /// several sites, their order in it (`cancel-2`); lowercase letters, digits, dashes.
    pub site: String,
    /// What the mutation does, in one line a reader understands without the diff.
    pub description: String,
    /// The function or test it changes, as [`crate::Function::qualified`] or
    /// [`crate::Test::name`] give it.
    pub function: String,
    /// The lines of the original source the edits touch.
    pub lines: [u32; 2],
    pub edits: Vec<Edit>,
}

/// Lowercase letters and digits; every run of other characters one dash.
pub(crate) fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    if out.is_empty() {
        out.push_str("site");
    }
    out
}

/// Makes the site ids of `mutations` unique: slugged, and a repeated one numbered in order
/// (`f`, `f-2`, `f-3`).
pub(crate) fn unique_sites(mutations: &mut [Mutation]) {
    let mut seen = std::collections::BTreeMap::<String, u32>::new();
    for m in mutations.iter_mut() {
        let base = slug(&m.site);
        let n = seen.entry(base.clone()).or_insert(0);
        *n += 1;
        m.site = if *n == 1 { base } else { format!("{base}-{n}") };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_families_split() {
        for op in Operator::all() {
            assert_eq!(op.as_str().parse::<Operator>().ok(), Some(op));
        }
        assert_eq!(Operator::StubRaise.as_str(), "stub-raise");
        assert_eq!(
            Operator::all()
                .filter(|o| o.family() == OperatorFamily::Code)
                .count(),
            10
        );
        assert_eq!(
            Operator::all()
                .filter(|o| o.family() == OperatorFamily::Test)
                .count(),
            7
        );
    }

    #[test]
    fn repeated_sites_are_numbered_in_order() {
        let m = |site: &str| Mutation {
            operator: Operator::DropAssertion,
            site: site.into(),
            description: String::new(),
            function: String::new(),
            lines: [1, 1],
            edits: Vec::new(),
        };
        let mut ms = vec![m("test_a"), m("test_a"), m("Test B"), m("test_a")];
        unique_sites(&mut ms);
        let sites: Vec<_> = ms.iter().map(|m| m.site.as_str()).collect();
        assert_eq!(sites, ["test-a", "test-a-2", "test-b", "test-a-3"]);
    }
}
