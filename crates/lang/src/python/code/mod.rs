//! The code operators' sites in Python that is not test code. A module that imports `pytest` or
//! `unittest`, or from which pytest collects a test, is test code as a whole (its fixtures and
//! helpers included); elsewhere every function's own statements are sites (module-level
//! statements are not: a site belongs to a function).

mod body;
mod branch;
mod expr;

use super::collect::collect;
use super::tree::{defs, lines_of_edits, statements, Def};
use crate::edit::Edit;
use crate::operator::{Mutation, Operator};
use crate::syntax::{named_children, Source};
/// The not-implemented failures `StubRaise` writes (neutralization uses the first).
pub(super) use body::{yields, STUB_RAISE};

/// Every site of code operator `op` in `src`, in source order.
pub(super) fn mutations(src: &Source<'_>, op: Operator) -> Vec<Mutation> {
    if is_test_module(src) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for def in &defs(src) {
        match op {
            Operator::StubRaise => out.extend(body::stub(src, def, op, &body::STUB_RAISE)),
            Operator::StubDefault => out.extend(body::stub(src, def, op, &body::STUB_DEFAULT)),
            Operator::ReturnEarly => out.extend(body::return_early(src, def)),
            Operator::DropGuard => out.extend(branch::guards(src, def)),
            Operator::DropErrorBranch => out.extend(branch::error_branches(src, def)),
            Operator::DropSideEffect => out.extend(branch::side_effects(src, def)),
            Operator::FlipComparison | Operator::ShiftBoundary => {
                out.extend(expr::comparisons(src, def, op))
            }
            Operator::SwapReturnValues => out.extend(expr::returns(src, def)),
            Operator::SwapCallArgs => out.extend(expr::calls(src, def)),
            _ => {}
        }
    }
    out.sort_by_key(|m| m.edits.iter().map(|e| e.range.start).min());
    out
}

/// Whether the whole module is test code: it imports `pytest` or `unittest` at its top level, or
/// pytest collects a test from it.
pub(super) fn is_test_module(src: &Source<'_>) -> bool {
    let imports_test_framework = statements(src.root()).iter().any(|s| {
        let modules: Vec<&str> = match s.kind() {
            "import_statement" => named_children(*s)
                .iter()
                .map(|c| match c.kind() {
                    "aliased_import" => {
                        c.child_by_field_name("name").map_or("", |n| src.text_of(n))
                    }
                    _ => src.text_of(*c),
                })
                .collect(),
            "import_from_statement" => s
                .child_by_field_name("module_name")
                .map(|m| vec![src.text_of(m)])
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        modules.iter().any(|m| {
            let top = m.split('.').next().unwrap_or("");
            top == "pytest" || top == "unittest"
        })
    });
    imports_test_framework || !collect(src).is_empty()
}

/// A mutation of function `def` whose `lines` are the lines its edits touch.
pub(super) fn mutation(
    src: &Source<'_>,
    op: Operator,
    def: &Def<'_>,
    description: String,
    edits: Vec<Edit>,
) -> Mutation {
    Mutation {
        operator: op,
        site: def.qualified.clone(),
        description,
        function: def.qualified.clone(),
        lines: lines_of_edits(src, &edits),
        edits,
    }
}
