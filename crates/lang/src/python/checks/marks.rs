//! Operators on a test as a whole: marked skipped or expected to fail, commented out, or its
//! body emptied.

use super::mutation;
use crate::edit::Edit;
use crate::operator::{Mutation, Operator};
use crate::python::collect::TestDef;
use crate::python::edits::{insert_line_above, insert_line_below, pytest_import, replace_body};
use crate::python::tree::{end_of, expression_of, lines_of_edits, pick, statements};
use crate::syntax::Source;

/// The reasons agents give for skipping a test, one chosen per site.
const SKIP_REASONS: [&str; 5] = [
    "flaky on CI",
    "pending refactor",
    "temporarily disabled, tracked separately",
    "fails intermittently on CI",
    "needs fixture rework",
];

/// The reasons agents give for marking a test expected to fail, one chosen per site.
const XFAIL_REASONS: [&str; 4] = [
    "known issue, fix pending",
    "flaky on CI",
    "pending refactor",
    "behaviour under review",
];

/// `@pytest.mark.skip(reason=...)` (`SkipTest`) or `@pytest.mark.xfail(reason=...)`
/// (`ExpectFailure`) written above the test, and `import pytest` below the last import when
/// the module does not import it. `lines` is the test's first line: the import is not the locus.
pub(super) fn mark(src: &Source<'_>, test: &TestDef<'_>, op: Operator) -> Option<Mutation> {
    let (mark, reasons): (&str, &[&str]) = match op {
        Operator::SkipTest => ("skip", &SKIP_REASONS),
        Operator::ExpectFailure => ("xfail", &XFAIL_REASONS),
        _ => return None,
    };
    let reason = reasons.get(pick(&test.name, reasons.len()))?;
    let text = format!("@pytest.mark.{mark}(reason=\"{reason}\")");
    let at = test.def.outer.start_byte();
    let marked = insert_line_above(src, at, &text);
    let lines = lines_of_edits(src, std::slice::from_ref(&marked));
    let mut edits: Vec<Edit> = pytest_import(src).into_iter().collect();
    edits.push(marked);
    let description = format!("`{}` marked `{text}`", test.name);
    let mut m = mutation(src, op, test, description, edits);
    m.lines = lines;
    Some(m)
}

/// Every line of the test, its decorators included, commented out at its own indentation; a
/// class left with no statement gets `pass`.
pub(super) fn comment_out(src: &Source<'_>, test: &TestDef<'_>) -> Option<Mutation> {
    let outer = test.def.outer;
    let end = end_of(test.def.node);
    let mut edits = Vec::new();
    let mut at = src.line_start(outer.start_byte());
    while at < end {
        let next = src.line_end(at);
        let line = &src.text[at..next];
        if !line.trim().is_empty() {
            let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
            edits.push(Edit::insert(at + indent, "# "));
        }
        at = next;
    }
    let lines = lines_of_edits(src, &edits);
    let parent = outer.parent()?;
    if parent.kind() == "block" && statements(parent).len() == 1 {
        let indent = src.indent_at(outer.start_byte());
        edits.push(insert_line_below(
            src,
            end.saturating_sub(1),
            indent,
            "pass",
        ));
    }
    let description = format!("`{}` commented out", test.name);
    let mut m = mutation(src, Operator::CommentOutTest, test, description, edits);
    m.lines = lines;
    Some(m)
}

/// The test's body (after its docstring) replaced by `pass`; `None` when it already is only
/// `pass` or `...`.
pub(super) fn empty_body(src: &Source<'_>, test: &TestDef<'_>) -> Option<Mutation> {
    let stmts = test.def.statements();
    if let [only] = stmts.as_slice() {
        let is_empty = only.kind() == "pass_statement"
            || expression_of(*only).is_some_and(|e| e.kind() == "ellipsis");
        if is_empty {
            return None;
        }
    }
    let edit = replace_body(test.def.body, "pass")?;
    let description = format!("`{}`: body replaced by `pass`", test.name);
    Some(mutation(
        src,
        Operator::EmptyTestBody,
        test,
        description,
        vec![edit],
    ))
}
