//! The test operators' sites: inside the tests pytest collects and runs (a test already skipped
//! or expected to fail is left alone: a change to it could not show).

mod assertions;
mod marks;

use super::collect::{collect, TestDef};
use super::tree::lines_of_edits;
use crate::edit::Edit;
use crate::operator::{Mutation, Operator};
use crate::syntax::Source;

/// Every site of test operator `op` in `src`, in source order.
pub(super) fn mutations(src: &Source<'_>, op: Operator) -> Vec<Mutation> {
    let mut out = Vec::new();
    for test in collect(src).iter().filter(|t| t.live()) {
        match op {
            Operator::DropAssertion => out.extend(assertions::drop_each(src, test)),
            Operator::TrivialAssertion => out.extend(assertions::trivial_each(src, test)),
            Operator::DropNegativeAssertions => out.extend(assertions::drop_negatives(src, test)),
            Operator::SkipTest | Operator::ExpectFailure => out.extend(marks::mark(src, test, op)),
            Operator::CommentOutTest => out.extend(marks::comment_out(src, test)),
            Operator::EmptyTestBody => out.extend(marks::empty_body(src, test)),
            _ => {}
        }
    }
    out
}

/// A mutation of `test` whose `lines` are the lines its edits touch.
fn mutation(
    src: &Source<'_>,
    op: Operator,
    test: &TestDef<'_>,
    description: String,
    edits: Vec<Edit>,
) -> Mutation {
    Mutation {
        operator: op,
        site: test.name.clone(),
        description,
        function: test.name.clone(),
        lines: lines_of_edits(src, &edits),
        edits,
    }
}
